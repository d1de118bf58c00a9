"""prod: inference and on-demand training in Seoul; training hours protected in local time."""

from karpenter_gpu import (AmiAlias, DisruptionWindow, Duration, GpuInferencePoolProps, GpuTrainingPoolProps,
                           NodeClassConfig, PlatformConfig)

ZONES = ("ap-northeast-2a", "ap-northeast-2b", "ap-northeast-2c")

CONFIG = PlatformConfig(
    environment="prod",
    node_class=NodeClassConfig(ami=AmiAlias.al2023("v20251103"), role="KarpenterNodeRole-ml-prod",
                               cluster_name="ml-prod", tags={"environment": "prod", "team": "ml-platform"}),
    inference=GpuInferencePoolProps(
        name="gpu-inference", gpu_limit=64, zones=ZONES, consolidate_after=Duration.minutes(10),
        # Seoul has no DST: 09:00-19:00 KST compiles to '0 0 * * MON-FRI' for 10h.
        disruption_windows=(DisruptionWindow(days="MON-FRI", start="09:00", end="19:00",
                                             time_zone="Asia/Seoul", nodes=1),),
    ),
    training=GpuTrainingPoolProps(
        name="gpu-training", gpu_limit=32, zones=ZONES, gpu_names=("a100", "h100", "h200"),
        expire_after=Duration.never(), termination_grace_period=Duration.hours(2),
        disruption_windows=(
            # Training hours: no voluntary disruption at all, drift included.
            DisruptionWindow(days="MON-FRI", start="09:00", end="19:00", time_zone="Asia/Seoul", nodes=0),
        ),
    ),
)
