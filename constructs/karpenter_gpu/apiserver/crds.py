"""The CRDs a command validates against, loaded once from a folder (below ``validate``, which also runs the rules,
so that ``diff`` and ``explain`` can load them without the rules)."""

from __future__ import annotations

from pathlib import Path

from karpenter_gpu.apiserver.conformance import load_crds
from karpenter_gpu.apiserver.crd_source import CrdSourceError
from karpenter_gpu.upstream import KARPENTER_TAG

__all__ = ["crds_from"]


def crds_from(crd_dir: str | Path) -> dict:
    """The CRDs in ``crd_dir``; none at all is an error (a mistyped --crds must not make every object an
    "unknown kind" and pass)."""
    crds = load_crds(crd_dir)
    if not crds:
        raise CrdSourceError(f"no CustomResourceDefinitions found in {crd_dir}: pass --crds DIR with the Karpenter "
                             f"{KARPENTER_TAG} CRD YAML files, or set KARPENTER_GPU_CRDS")
    return crds
