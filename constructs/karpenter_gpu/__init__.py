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
from .requirements import CapacityType, Label, Operator, Requirement
from .taint import Taint, TaintEffect
from .units import Duration, GpuMemory, Quantity

__all__ = [
    "AmiAlias", "Budget", "CODES", "CapacityType", "ConsolidationPolicy", "DisruptionReason",
    "DisruptionWindow", "Duration", "GpuInferencePool", "GpuInferencePoolProps", "GpuMemory",
    "GpuNodeClass", "GpuNodeClassProps", "GpuPlatform", "GpuPool", "GpuPoolProps", "GpuTrainingPool",
    "GpuTrainingPoolProps", "KarpenterGpuError", "Label", "NodeClassConfig", "Operator", "PlatformConfig",
    "Quantity", "Requirement", "RootVolume", "Taint", "TaintEffect", "compile_budgets",
]
