"""staging: Bottlerocket, inference plus a small spot training pool, windows in a DST zone, a
weighted spot ladder for batch inference (seed 000 §7), and an Inferentia pool (seed 000 §6, corrected)."""

from karpenter_gpu import (AmiAlias, CapacityType, DisruptionWindow, Duration, GpuInferencePoolProps,
                           GpuMemory, GpuTrainingPoolProps, KarpenterControllerValuesProps, NeuronInferencePoolProps,
                           NodeClassConfig, PlatformConfig, SpotTier, TieredSpotPoolsProps)

# New York observes DST: the compiled UTC budgets are widened to cover both offsets.
BUSINESS_HOURS = DisruptionWindow(days="MON-FRI", start="08:00", end="18:00", time_zone="America/New_York", nodes=0)

CONFIG = PlatformConfig(
    environment="staging",
    node_class=NodeClassConfig(ami=AmiAlias.bottlerocket("v1.50.0"), role="KarpenterNodeRole-ml-staging",
                               cluster_name="ml-staging", tags={"environment": "staging", "team": "ml-platform"}),
    # Spot pools need the interruption queue (named after the cluster by the getting-started stack).
    karpenter=KarpenterControllerValuesProps(cluster_name="ml-staging", interruption_queue="ml-staging"),
    inference=(GpuInferencePoolProps(
        name="gpu-inference", gpu_limit=16, min_gpu_memory=GpuMemory.of_gpu("a10g"),
        gpu_names=("a10g", "l4", "l40s"), disruption_windows=(BUSINESS_HOURS,),
    ),),
    # Batch jobs: cheapest acceptable GPU first, on-demand only when spot is gone.
    tiers=(TieredSpotPoolsProps(
        name="gpu-batch",
        labels={"node-type": "gpu-batch", "workload": "batch-inference"},
        tiers=(SpotTier(suffix="a10g-spot", gpu_names=("a10g",), gpu_limit=20),
               SpotTier(suffix="t4-spot", gpu_names=("t4",), gpu_limit=20)),
        on_demand_floor=SpotTier(suffix="a10g-on-demand", gpu_names=("a10g",), gpu_limit=10,
                                 capacity_types=(CapacityType.ON_DEMAND,)),
    ),),
    # Inferentia2 for compiled models: every inf2 size by accelerator label, spot first; the Bottlerocket
    # x86_64 variant carries the Neuron driver, the Neuron chart's device plugin runs on exactly this pool.
    neuron_inference=(NeuronInferencePoolProps(
        name="neuron-inference", neuron_limit=16, disruption_windows=(BUSINESS_HOURS,),
    ),),
    training=(GpuTrainingPoolProps(
        name="gpu-training", gpu_limit=8, gpu_names=("a100", "h100"),
        # Staging jobs checkpoint every minute, so the 2-minute spot notice is acceptable here.
        capacity_types=(CapacityType.SPOT, CapacityType.ON_DEMAND),
        expire_after=Duration.days(14), termination_grace_period=Duration.hours(1),
        disruption_windows=(BUSINESS_HOURS,),
    ),),
)
