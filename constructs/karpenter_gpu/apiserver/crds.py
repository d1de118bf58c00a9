"""The CRDs a command validates against, loaded once from a folder (below ``validate``, which also runs the rules,
so that ``diff`` and ``explain`` can load them without the rules)."""

from __future__ import annotations

from pathlib import Path

from karpenter_gpu.apiserver.conformance import load_crds
from karpenter_gpu.apiserver.crd_source import PACKAGED_DIR, CrdSourceError
from karpenter_gpu.perf import cached
from karpenter_gpu.upstream import KARPENTER_TAG, KarpenterLine

__all__ = ["crds_from", "line_crds"]


def crds_from(crd_dir: str | Path) -> dict:
    """The CRDs in ``crd_dir``; none at all is an error (a mistyped --crds must not make every object an
    "unknown kind" and pass)."""
    crds = load_crds(crd_dir)
    if not crds:
        raise CrdSourceError(f"no CustomResourceDefinitions found in {crd_dir}: pass --crds DIR with the Karpenter "
                             f"{KARPENTER_TAG} CRD YAML files, or set KARPENTER_GPU_CRDS")
    return crds


@cached(maxsize=4)
def line_crds(line: KarpenterLine) -> dict:
    """The packaged CRDs of a Karpenter line: the folder's (the current line's, and the prometheus-operator ones),
    with the line's own Karpenter CRDs from its sub-folder in their place. One mapping per line and process (the
    packaged files do not change); treat it as read-only."""
    crds = crds_from(PACKAGED_DIR)
    if not line.crd_subdir:
        return crds
    return {**crds, **crds_from(PACKAGED_DIR / line.crd_subdir)}
