"""What the API server makes of each side before Karpenter sees it: the CRD defaults it fills in.

The defaults are read from the CRDs' ``default:`` values (:func:`karpenter_gpu.check.conformance.apply_defaults`,
the same structural defaulting ``validate`` applies; apiextensions-apiserver ``structuraldefaulting``), never
typed again here: ``expireAfter: 720h``, the disruption block (``consolidateAfter: 0s``, ``consolidationPolicy``,
``budgets: [{nodes: 10%}]``), the EC2NodeClass ``metadataOptions`` and whatever else the loaded CRDs default.
Objects no loaded CRD serves (a ConfigMap, Helm values) are compared as written.
"""

from __future__ import annotations

from karpenter_gpu.analysis.diff.read import Key, Side
from karpenter_gpu.check.conformance import Crds, apply_defaults
from karpenter_gpu.check.crd_source import resolve_crd_dir
from karpenter_gpu.check.validate import crds_from


def crds_or_default(crds: Crds | None) -> Crds:
    """``crds``, else the CRDs ``validate`` would load (``$KARPENTER_GPU_CRDS`` or the packaged copy)."""
    return crds if crds is not None else crds_from(resolve_crd_dir())


def _defaulted(key: Key, manifest: dict, crds: Crds) -> dict:
    if key[0] == "helm":
        return manifest
    try:
        return apply_defaults(manifest, crds)
    except KeyError:  # no served CRD for this apiVersion/kind
        return manifest


def with_defaults(side: Side, crds: Crds) -> Side:
    """``side`` with every object the CRDs serve defaulted as the API server would store it."""
    return {env: {key: _defaulted(key, m, crds) for key, m in objects.items()} for env, objects in side.items()}
