"""karpenter-gpu: typed cdk8s constructs for GPU capacity on EKS with Karpenter v1.14.1.

Every construct validates its props once, at construction, and raises
:class:`KarpenterGpuError` (with a stable ``code``) for input it will not render.

Names are imported on first use (PEP 562), so ``karpenter-gpu validate`` and other pure-Python
parts never start the jsii (Node.js) runtime that the constructs need.
"""

from __future__ import annotations

import importlib
from typing import Any

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    name: module
    for module, names in {
        "_gpu_pool": "ConsolidationPolicy GpuPool GpuPoolProps",
        "acknowledge": "acknowledge",
        "capacity_reservation": "CapacityReservationTerm InstanceMatchCriteria ReservationType "
                                "prefer_reserved_capacity",
        "disruption_window": "Budget DisruptionReason DisruptionWindow compile_budgets",
        "errors": "CODES KarpenterGpuError",
        "feature_gates": "FeatureGate feature_gate_summary required_feature_gates",
        "findings": "Finding Severity",
        "gpu_capacity_overlay": "GpuCapacityOverlay GpuCapacityOverlayProps",
        "gpu_inference_pool": "GpuInferencePool GpuInferencePoolProps",
        "gpu_node_class": "AmiAlias GpuNodeClass GpuNodeClassProps NodeClassConfig RootVolume",
        "gpu_monitoring": "GpuMonitoring GpuMonitoringProps",
        "gpu_operator_values": "GpuOperatorValues GpuOperatorValuesProps",
        "gpu_platform": "GpuPlatform PlatformConfig",
        "gpu_workload": "GpuWorkload GpuWorkloadProps pod_placement",
        "helm_values": "HelmValues helm_values_in",
        "karpenter_values": "KarpenterControllerValues KarpenterControllerValuesProps",
        "time_slicing_overlay": "TimeSlicingOverlay",
        "gpu_training_pool": "GpuTrainingPool GpuTrainingPoolProps",
        "node_overlay_discourage": "NodeOverlayDiscourage NodeOverlayDiscourageProps",
        "overlay_price": "Price PriceAdjustment",
        "requirements": "CapacityType Label Operator Requirement",
        "reserved_capacity_pool": "Fallback ReservedCapacityPool ReservedCapacityPoolProps",
        "static_capacity_pool": "StaticCapacityPool StaticCapacityPoolProps",
        "taint": "Taint TaintEffect",
        "tiered_spot_pools": "SpotTier TieredSpotPools TieredSpotPoolsProps",
        "units": "Duration GpuMemory Quantity",
        "validate": "Report validate_dir",
    }.items()
    for name in names.split()
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
