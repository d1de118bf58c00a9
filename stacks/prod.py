"""prod: a multi-team cluster in Seoul. The platform team's inference and on-demand training pools,
training hours protected in local time, reserved H100 capacity (ODCRs) and warm static inference
nodes; the search team's own inference pool (tainted for its pods only) and the research team's
training pool on its own node class with a larger local disk. On the Karpenter v1.9 LTS line."""

from karpenter_gpu import (AmiAlias, CapacityReservationTerm, CapacityType, DisruptionWindow, Duration, Fallback,
                           GpuInferencePoolProps, GpuTrainingPoolProps, KarpenterControllerValuesProps,
                           NodeClassConfig, NodeOverlayDiscourageProps, PlatformConfig, PlatformNodeClass,
                           PriceAdjustment, Quantity, ReservationType, ReservedCapacityPoolProps, RootVolume,
                           StaticCapacityPoolProps, Taint)

ZONES = ("ap-northeast-2a", "ap-northeast-2b", "ap-northeast-2c")

CONFIG = PlatformConfig(
    environment="prod",
    # prod stays on the v1.9 LTS line (supported to Feb 2027) until the v1.14 upgrade has run in the other
    # environments: its values install chart 1.9.3, and its objects are checked against v1.9's CRDs.
    karpenter_version="1.9",
    node_class=NodeClassConfig(ami=AmiAlias.al2023("v20251103"), role="KarpenterNodeRole-ml-prod",
                               cluster_name="ml-prod", tags={"environment": "prod", "team": "ml-platform"}),
    # Spot pools need the interruption queue (named after the cluster by the getting-started stack).
    karpenter=KarpenterControllerValuesProps(cluster_name="ml-prod", interruption_queue="ml-prod"),
    inference=(
        GpuInferencePoolProps(
            name="gpu-inference", gpu_limit=64, zones=ZONES, consolidate_after=Duration.minutes(10),
            # Seoul has no DST: 09:00-19:00 KST compiles to '0 0 * * MON-FRI' for 10h.
            disruption_windows=(DisruptionWindow(days="MON-FRI", start="09:00", end="19:00",
                                                 time_zone="Asia/Seoul", nodes=1),),
        ),
        # The search team's pool: its taint keeps other teams' pods off its GPUs (their tolerations
        # and smoke workloads come from pod_placement, the GPU Operator tolerates it automatically).
        GpuInferencePoolProps(
            name="search-inference", gpu_limit=16, zones=ZONES, gpu_names=("l4",),
            labels={"node-type": "gpu-inference", "workload": "inference", "team": "search"},
            taints=(Taint.gpu(), Taint("team", "search")),
        ),
    ),
    # Warm nodes so the first inference requests never wait for a GPU node to boot.
    static=(StaticCapacityPoolProps(name="gpu-warm", replicas=1, instance_types=("g5.xlarge",),
                                   zones=("ap-northeast-2a", "ap-northeast-2c")),),
    # The ODCRs tagged for ML training are used first; on-demand H100 when they are full.
    reservations=(CapacityReservationTerm.by_tags({"purpose": "ml-training"}),),
    reserved=(ReservedCapacityPoolProps(
        name="gpu-training-reserved", gpu_limit=32, gpu_names=("h100",), zones=ZONES, weight=100,
        fallback=Fallback.ON_DEMAND, reservation_type=ReservationType.ODCR,
        expire_after=Duration.never(), termination_grace_period=Duration.hours(2),
        labels={"node-type": "gpu-training", "workload": "training"},
    ),),
    # Seed 004: make the big multi-GPU shapes look 30% dearer, so single-GPU inference pods are
    # packed onto right-sized instances instead of landing alone on a 4-GPU node.
    discourage_overlays=(NodeOverlayDiscourageProps(
        name="discourage-multi-gpu", weight=10, price_adjustment=PriceAdjustment.percent(30),
        instance_types=("g5.12xlarge", "g5.24xlarge", "g6e.12xlarge", "g6e.24xlarge")),),
    # The reservation is for H100s only; its pool is narrow on purpose.
    acknowledgements=(("gpu-training-reserved", "KG418", "the ODCRs are H100 (p5) only, with on-demand H100 as the fallback"),),
    training=(
        GpuTrainingPoolProps(
            name="gpu-training", gpu_limit=32, zones=ZONES, gpu_names=("a100", "h100", "h200"),
            expire_after=Duration.never(), termination_grace_period=Duration.hours(2),
            disruption_windows=(
                # Training hours: no voluntary disruption at all, drift included.
                DisruptionWindow(days="MON-FRI", start="09:00", end="19:00", time_zone="Asia/Seoul", nodes=0),
            ),
        ),
        # The research team's jobs: on-demand only, on their own node class (datasets on a 1Ti disk).
        GpuTrainingPoolProps(
            name="research-training", gpu_limit=16, zones=ZONES, gpu_names=("a100", "h100"),
            capacity_types=(CapacityType.ON_DEMAND,), weight=40,
            labels={"node-type": "gpu-training", "workload": "training", "team": "research"},
            taints=(Taint.gpu(), Taint("workload", "training"), Taint("team", "research")),
            expire_after=Duration.never(), termination_grace_period=Duration.hours(4),
        ),
    ),
    node_classes=(PlatformNodeClass(name="gpu-research", root_volume=RootVolume(
        size=Quantity.gi(1024), iops=16000, throughput=1000)),),
    pool_node_classes={"research-training": "gpu-research"},
)
