"""The package's identity: one version (``karpenter_gpu.__version__``), its license file, ``python -m``."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tomllib

import karpenter_gpu
from karpenter_gpu.cli.main import main
from tests.conftest import ROOT

#: sha256 of the Apache License 2.0 text as the Apache Software Foundation publishes it (LICENSE-2.0.txt).
APACHE_2_0_SHA256 = "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30"


def test_the_version_has_one_source() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "karpenter_gpu._version.__version__"}
    assert karpenter_gpu.__version__.count(".") == 2


def test_version_option_prints_it(capsys) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"karpenter-gpu {karpenter_gpu.__version__}\n"


def test_python_dash_m_runs_the_command() -> None:
    done = subprocess.run([sys.executable, "-m", "karpenter_gpu", "--version"], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)
    assert done.returncode == 0 and done.stdout == f"karpenter-gpu {karpenter_gpu.__version__}\n", done.stderr
    done = subprocess.run([sys.executable, "-m", "karpenter_gpu", "validate", "--no-such-option"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 2 and done.stderr.startswith("karpenter-gpu: error: [KG911]"), done.stderr


def test_license_is_the_apache_2_0_text_pyproject_declares() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "Apache-2.0" and project["license-files"] == ["LICENSE"]
    assert hashlib.sha256((ROOT / "LICENSE").read_bytes()).hexdigest() == APACHE_2_0_SHA256


def test_long_description_is_the_user_guide_not_the_maintainer_readme() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["readme"] == "docs/PYPI.md"
    guide = (ROOT / "docs" / "PYPI.md").read_text()
    assert "make " not in guide and len(guide) < 8000
    assert all(heading in guide for heading in ("## Install", "## A first app", "## The command line"))
