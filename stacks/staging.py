"""staging: Bottlerocket, inference plus a small spot training pool, windows in a DST zone."""

from karpenter_gpu import (AmiAlias, CapacityType, DisruptionWindow, Duration, GpuInferencePoolProps,
                           GpuMemory, GpuTrainingPoolProps, NodeClassConfig, PlatformConfig)

# New York observes DST: the compiled UTC budgets are widened to cover both offsets.
BUSINESS_HOURS = DisruptionWindow(days="MON-FRI", start="08:00", end="18:00", time_zone="America/New_York", nodes=0)

CONFIG = PlatformConfig(
    environment="staging",
    node_class=NodeClassConfig(ami=AmiAlias.bottlerocket("v1.50.0"), role="KarpenterNodeRole-ml-staging",
                               cluster_name="ml-staging", tags={"environment": "staging", "team": "ml-platform"}),
    inference=GpuInferencePoolProps(
        name="gpu-inference", gpu_limit=16, min_gpu_memory=GpuMemory.of_gpu("a10g"),
        gpu_names=("a10g", "l4", "l40s"), disruption_windows=(BUSINESS_HOURS,),
    ),
    training=GpuTrainingPoolProps(
        name="gpu-training", gpu_limit=8, gpu_names=("a100", "h100"),
        # Staging jobs checkpoint every minute, so the 2-minute spot notice is acceptable here.
        capacity_types=(CapacityType.SPOT, CapacityType.ON_DEMAND),
        expire_after=Duration.days(14), termination_grace_period=Duration.hours(1),
        disruption_windows=(BUSINESS_HOURS,),
    ),
)
