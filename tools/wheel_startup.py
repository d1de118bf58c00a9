"""setuptools hook: the wheel installs ``karpenter_gpu_node.pth`` at the top of site-packages.

Python runs the ``import`` line of that start-up file in every interpreter of the environment (the
``site`` module), before user code: it imports ``karpenter_gpu._startup``, which points ``JSII_NODE`` at
the packaged Node LTS, so ``import cdk8s`` before ``import karpenter_gpu`` finds it too. Editable
installs get no start-up file (a development checkout imports the package itself). pyproject.toml names
this class in ``[tool.setuptools.cmdclass]``; MANIFEST.in ships this file and the ``.pth`` in the sdist.
"""

from __future__ import annotations

import os

from setuptools.command.build_py import build_py

#: The start-up file, beside the package in the source root.
START_UP_FILE = os.path.join("constructs", "karpenter_gpu_node.pth")


class BuildPyWithStartUpFile(build_py):
    """``build_py`` that also copies the start-up file into the top of the build folder."""

    def run(self) -> None:
        super().run()
        if not self.editable_mode:
            self.copy_file(START_UP_FILE, os.path.join(self.build_lib, os.path.basename(START_UP_FILE)))

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = list(super().get_outputs(include_bytecode))
        if not self.editable_mode:
            outputs.append(os.path.join(self.build_lib, os.path.basename(START_UP_FILE)))
        return outputs
