"""karpenter-gpu: typed cdk8s constructs for GPU capacity on EKS with Karpenter v1.14.1.

Every construct validates its props once, at construction, and raises
:class:`KarpenterGpuError` (with a stable ``code``) for input it will not render.
"""

from ._gpu_pool import ConsolidationPolicy, GpuPool, GpuPoolProps
from .disruption_window import Budget, DisruptionReason, DisruptionWindow, compile_budgets
from .errors import CODES, KarpenterGpuError
from .gpu_inference_pool import GpuInferencePool, GpuInferencePoolProps
from .gpu_node_class import AmiAlias, GpuNodeClass, GpuNodeClassProps, NodeClassConfig, RootVolume
from .gpu_platform import GpuPlatform, PlatformConfig
from .gpu_training_pool import GpuTrainingPool, GpuTrainingPoolProps
from .capacity_reservation import (CapacityReservationTerm, InstanceMatchCriteria, ReservationType,
                                   prefer_reserved_capacity)
from .gpu_capacity_overlay import GpuCapacityOverlay, GpuCapacityOverlayProps
from .node_overlay_discourage import NodeOverlayDiscourage, NodeOverlayDiscourageProps
from .overlay_price import Price, PriceAdjustment
from .feature_gates import FeatureGate, feature_gate_summary, required_feature_gates
from .reserved_capacity_pool import Fallback, ReservedCapacityPool, ReservedCapacityPoolProps
from .static_capacity_pool import StaticCapacityPool, StaticCapacityPoolProps
from .tiered_spot_pools import SpotTier, TieredSpotPools, TieredSpotPoolsProps
from .requirements import CapacityType, Label, Operator, Requirement
from .taint import Taint, TaintEffect
from .units import Duration, GpuMemory, Quantity

__all__ = [
    "GpuCapacityOverlay", "GpuCapacityOverlayProps", "NodeOverlayDiscourage", "NodeOverlayDiscourageProps",
    "Price", "PriceAdjustment",
    "CapacityReservationTerm", "Fallback", "FeatureGate", "InstanceMatchCriteria", "ReservationType",
    "ReservedCapacityPool", "ReservedCapacityPoolProps", "SpotTier", "StaticCapacityPool",
    "StaticCapacityPoolProps", "TieredSpotPools", "TieredSpotPoolsProps", "feature_gate_summary",
    "prefer_reserved_capacity", "required_feature_gates",
    "AmiAlias", "Budget", "CODES", "CapacityType", "ConsolidationPolicy", "DisruptionReason",
    "DisruptionWindow", "Duration", "GpuInferencePool", "GpuInferencePoolProps", "GpuMemory",
    "GpuNodeClass", "GpuNodeClassProps", "GpuPlatform", "GpuPool", "GpuPoolProps", "GpuTrainingPool",
    "GpuTrainingPoolProps", "KarpenterGpuError", "Label", "NodeClassConfig", "Operator", "PlatformConfig",
    "Quantity", "Requirement", "RootVolume", "Taint", "TaintEffect", "compile_budgets",
]
