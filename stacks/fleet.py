"""fleet: one cluster, three kinds of GPU node (issue 15; seeds 002/003).

- **EKS Auto Mode** for simple whole-GPU inference: AWS runs Karpenter, the NVIDIA driver and the device
  plugin (Bottlerocket, nodes replaced within 21 days); the GPU Operator never runs there.
- **Self-managed Karpenter with MIG** for small models: H100/A100 nodes partitioned by MIG Manager into
  ``1g.10gb`` devices, which NodeOverlays announce to Karpenter before the nodes exist.
- **EKS Hybrid Nodes**: four on-premises 8 x A100 servers in Seoul for training; the GPU Operator installs the
  driver and toolkit there (and, through per-node labels, nowhere else).
"""

from karpenter_gpu import (AmiAlias, AutoModeNodeClassProps, Duration, GpuInferencePoolProps,
                           HybridGpuNodeGroupProps, KarpenterControllerValuesProps, MigPartitionedPoolProps,
                           NodeClassConfig, PlatformConfig, Quantity, Taint)

CONFIG = PlatformConfig(
    environment="fleet",
    node_class=NodeClassConfig(ami=AmiAlias.al2023("v20251103"), role="KarpenterNodeRole-ml-fleet",
                               cluster_name="ml-fleet", tags={"environment": "fleet", "team": "ml-platform"}),
    karpenter=KarpenterControllerValuesProps(cluster_name="ml-fleet", interruption_queue="ml-fleet"),
    # Auto Mode: AWS's node class, discovered by the cluster's tags like the Karpenter one.
    auto_mode_node_class=AutoModeNodeClassProps(
        name="gpu-auto", role="AmazonEKSAutoNodeRole-ml-fleet",
        subnet_tags={"karpenter.sh/discovery": "ml-fleet"},
        security_group_tags={"karpenter.sh/discovery": "ml-fleet"}),
    inference=(GpuInferencePoolProps(
        name="auto-inference", gpu_limit=16, gpu_names=("l4", "a10g", "l40s"),
        # Auto Mode replaces every node within 21 days anyway: say so rather than rely on the 720h default.
        expire_after=Duration.days(14), consolidate_after=Duration.minutes(10),
    ),),
    pool_node_classes={"auto-inference": "gpu-auto"},
    # Self-managed Karpenter on the EKS-optimized AL2023 class: MIG for many small models per GPU.
    mig=(MigPartitionedPoolProps(name="gpu-mig", gpu_limit=16, mig_config="all-1g.10gb"),),
    # On-premises: fixed servers joined with nodeadm; their taint keeps cloud workloads off them.
    hybrid=(HybridGpuNodeGroupProps(
        name="seoul-dc1-a100", gpu_name="a100", gpus_per_node=8, nodes=4, location="seoul-dc1",
        taints=(Taint.gpu(), Taint("on-premises")), cpu=Quantity("96"), memory=Quantity("1000Gi")),),
)
