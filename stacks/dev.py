"""dev: one small spot-only inference pool, no training; maintenance in UTC."""

from karpenter_gpu import (AmiAlias, CapacityType, DisruptionWindow, Duration, GpuInferencePoolProps,
                           GpuOperatorValuesProps, KarpenterControllerValuesProps, NodeClassConfig,
                           PlatformConfig)

CONFIG = PlatformConfig(
    environment="dev",
    node_class=NodeClassConfig(ami=AmiAlias.al2023("v20251103"), role="KarpenterNodeRole-ml-dev",
                               cluster_name="ml-dev", tags={"environment": "dev", "team": "ml-platform"}),
    # Spot pools need the interruption queue (named after the cluster by the getting-started stack).
    karpenter=KarpenterControllerValuesProps(cluster_name="ml-dev", interruption_queue="ml-dev"),
    # Developers share GPUs: 4 pods per GPU. The GPU Operator renders the time-slicing config and the
    # matching NodeOverlays, so Karpenter's simulation sees 4 × the physical GPUs.
    gpu_operator=GpuOperatorValuesProps(time_slicing_replicas=4),
    inference=(GpuInferencePoolProps(
        name="gpu-inference", gpu_limit=4, capacity_types=(CapacityType.SPOT,),
        consolidate_after=Duration.minutes(2),
        # Keep the nightly demo up: no voluntary disruption 18:00-22:00 UTC.
        disruption_windows=(DisruptionWindow(start="18:00", end="22:00", time_zone="UTC", nodes=0),),
    ),),
)
