"""GpuPlatform: one environment's GPU capacity as a cdk8s Chart, built from a frozen config.

A platform repo instantiates it with its own :class:`PlatformConfig`; this repository's
dev/staging/prod stacks are three such configs.
"""

from __future__ import annotations

from typing import Any

import cdk8s
from constructs import Construct
from pydantic import model_validator
from typing_extensions import TypedDict, Unpack

from karpenter_gpu.pools._node_pool import NodePoolConstruct
from karpenter_gpu._props import DnsLabel, Props, build
from karpenter_gpu._signature import ConstructSignature
from karpenter_gpu.check.acknowledge import acknowledge
from karpenter_gpu.pools.capacity_reservation import CapacityReservationTerm
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.addons.feature_gates import GateNeed, feature_gate_summary, required_feature_gates
from karpenter_gpu.overlays.gpu_capacity_overlay import GpuCapacityOverlay, GpuCapacityOverlayProps
from karpenter_gpu.addons.gpu_monitoring import GpuMonitoring, GpuMonitoringProps
from karpenter_gpu.addons.gpu_operator_values import GpuOperatorValues, GpuOperatorValuesProps
from karpenter_gpu.addons.gpu_workload import GpuWorkload
from karpenter_gpu.addons.helm_values import HelmValues, helm_values_in
from karpenter_gpu.addons.karpenter_values import KarpenterControllerValues, KarpenterControllerValuesProps
from karpenter_gpu.pools.gpu_inference_pool import GpuInferencePool, GpuInferencePoolProps
from karpenter_gpu.pools.gpu_node_class import GpuNodeClass, NodeClassConfig, RootVolume
from karpenter_gpu.pools.gpu_training_pool import GpuTrainingPool, GpuTrainingPoolProps
from karpenter_gpu.overlays.node_overlay_discourage import NodeOverlayDiscourage, NodeOverlayDiscourageProps
from karpenter_gpu.pools.reserved_capacity_pool import ReservedCapacityPool, ReservedCapacityPoolProps
from karpenter_gpu.pools.static_capacity_pool import StaticCapacityPool, StaticCapacityPoolProps
from karpenter_gpu.pools.tiered_spot_pools import TieredSpotPools, TieredSpotPoolsProps


class PlatformConfig(Props):
    """One environment. ``training`` may be omitted (no training pool in that environment)."""

    #: Environment name: the chart id and the dist/ folder (DNS-1123).
    environment: DnsLabel
    node_class: NodeClassConfig
    inference: GpuInferencePoolProps
    #: Default: - no training pool.
    training: GpuTrainingPoolProps | None = None
    #: A weighted spot ladder on the inference node class. Default: - none.
    tiers: TieredSpotPoolsProps | None = None
    #: Warm, always-on nodes on the inference node class. Default: - none.
    static: StaticCapacityPoolProps | None = None
    #: Reserved capacity (ODCR / Capacity Block) on its own node class "gpu-reserved", which selects
    #: ``reservations``. Default: - none.
    reserved: ReservedCapacityPoolProps | None = None
    reservations: tuple[CapacityReservationTerm, ...] = ()
    #: NodeOverlays raising the simulated price of oversized types. Default: - none.
    discourage_overlays: tuple[NodeOverlayDiscourageProps, ...] = ()
    #: NodeOverlays giving zero-GPU families (g6f, gr6f) GPU capacity. Default: - none.
    gpu_capacity_overlays: tuple[GpuCapacityOverlayProps, ...] = ()
    #: Karpenter controller settings (cluster name, interruption queue, gate overrides); the feature
    #: gates themselves are derived from the constructs.
    karpenter: KarpenterControllerValuesProps
    #: GPU Operator chart options (MIG, time slicing, operands). Default: EKS-optimized-AMI defaults.
    gpu_operator: GpuOperatorValuesProps = GpuOperatorValuesProps()
    #: ServiceMonitors and alerts. Default: on, with the defaults of GpuMonitoringProps.
    monitoring: GpuMonitoringProps | None = GpuMonitoringProps()
    #: A replicas-0 pause Deployment per NodePool whose pod spec would land there. Default: True.
    smoke_workloads: bool = True
    #: Validation warnings acknowledged on NodePools: (pool name, code, reason). Default: - none.
    acknowledgements: tuple[tuple[str, str, str], ...] = ()
    #: Override the inference / training root volumes. Default: the presets.
    inference_volume: RootVolume = RootVolume.inference()
    training_volume: RootVolume = RootVolume.training()

    @model_validator(mode="after")
    def _reserved_needs_reservations(self) -> "PlatformConfig":
        if self.reserved is not None and not self.reservations:
            raise KarpenterGpuError("KG191", prop="reservations", value=(),
                                    allowed="at least one selector term when a reserved pool is configured: "
                                            "Karpenter uses no reservation implicitly",
                                    fix="reservations=(CapacityReservationTerm.by_tags({...}),)")
        return self


class GpuPlatformKwargs(TypedDict, total=False):
    """The keyword props of :class:`GpuPlatform`: the fields of :class:`PlatformConfig`, same types."""

    environment: str
    node_class: NodeClassConfig
    inference: GpuInferencePoolProps
    training: GpuTrainingPoolProps | None
    tiers: TieredSpotPoolsProps | None
    static: StaticCapacityPoolProps | None
    reserved: ReservedCapacityPoolProps | None
    reservations: tuple[CapacityReservationTerm, ...]
    discourage_overlays: tuple[NodeOverlayDiscourageProps, ...]
    gpu_capacity_overlays: tuple[GpuCapacityOverlayProps, ...]
    karpenter: KarpenterControllerValuesProps
    gpu_operator: GpuOperatorValuesProps
    monitoring: GpuMonitoringProps | None
    smoke_workloads: bool
    acknowledgements: tuple[tuple[str, str, str], ...]
    inference_volume: RootVolume
    training_volume: RootVolume


def _fields(model: Props) -> dict[str, Any]:
    # Shallow: keeps value objects (AmiAlias, Taint …) as they are.
    return {name: getattr(model, name) for name in type(model).model_fields}


class GpuPlatform(cdk8s.Chart):
    """Node classes and GPU pools of one environment.

    Example::

        app = cdk8s.App()
        GpuPlatform(app, props=PlatformConfig(environment="dev", node_class=..., inference=...))
        GpuPlatform(app, environment="dev", node_class=..., inference=...)  # the same, as keywords

    ``id`` defaults to the environment name.
    """

    __signature__ = ConstructSignature()

    def __init__(self, scope: Construct, id: str | None = None, *, props: PlatformConfig | None = None,
                 **kwargs: Unpack[GpuPlatformKwargs]) -> None:
        """Keyword props (see :class:`PlatformConfig` for defaults) or ``props=``, not both (KG820)."""
        cfg = build(PlatformConfig, id or "GpuPlatform", props, **kwargs)
        super().__init__(scope, id or cfg.environment)
        self.config = cfg
        base = _fields(cfg.node_class)
        self.inference_class = GpuNodeClass(self, "InferenceClass", name="gpu-inference",
                                            root_volume=cfg.inference_volume, **base)
        self.inference = GpuInferencePool(self, "Inference", node_class=self.inference_class,
                                          props=cfg.inference)
        self.training_class: GpuNodeClass | None = None
        self.training: GpuTrainingPool | None = None
        if cfg.training is not None:
            self.training_class = GpuNodeClass(self, "TrainingClass", name="gpu-training",
                                               root_volume=cfg.training_volume, **base)
            self.training = GpuTrainingPool(self, "Training", node_class=self.training_class, props=cfg.training)
        self.tiers = (TieredSpotPools(self, "Tiers", node_class=self.inference_class, props=cfg.tiers)
                      if cfg.tiers is not None else None)
        self.static = (StaticCapacityPool(self, "Static", node_class=self.inference_class, props=cfg.static)
                       if cfg.static is not None else None)
        self.reserved_class: GpuNodeClass | None = None
        self.reserved: ReservedCapacityPool | None = None
        if cfg.reserved is not None:
            self.reserved_class = GpuNodeClass(self, "ReservedClass", name="gpu-reserved",
                                               root_volume=cfg.training_volume,
                                               capacity_reservations=cfg.reservations, **base)
            self.reserved = ReservedCapacityPool(self, "Reserved", node_class=self.reserved_class,
                                                 props=cfg.reserved)
        self.overlays = tuple(
            [NodeOverlayDiscourage(self, f"Discourage-{o.name}", **_fields(o)) for o in cfg.discourage_overlays]
            + [GpuCapacityOverlay(self, f"GpuCapacity-{o.name}", **_fields(o)) for o in cfg.gpu_capacity_overlays])
        names = [p.name for p in self.pools]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise KarpenterGpuError("KG171", prop="name", value=duplicates, allowed="distinct NodePool names",
                                    fix="rename the pools so every NodePool name is used once", path=self.node.path)
        by_name = {p.name: p for p in self.pools}
        for pool_name, code, reason in cfg.acknowledgements:
            if pool_name not in by_name:
                raise KarpenterGpuError("KG100", prop="acknowledgements", value=pool_name,
                                        allowed=f"a NodePool of this environment: {sorted(by_name)}",
                                        fix="use the NodePool's metadata.name", path=self.node.path)
            acknowledge(by_name[pool_name], code, reason)
        # Derived from the pools and overlays above, so they come last (in this order: the GPU Operator
        # may add time-slicing overlays, whose feature gate the controller values must see).
        self.workloads = tuple(GpuWorkload(self, f"Smoke-{pool.name}", pool=pool) for pool in self.pools
                               ) if cfg.smoke_workloads else ()
        self.gpu_operator = GpuOperatorValues(self, "GpuOperator", props=cfg.gpu_operator)
        self.monitoring = (GpuMonitoring(self, "Monitoring", **_fields(cfg.monitoring))
                           if cfg.monitoring is not None else None)
        self.karpenter = KarpenterControllerValues(self, "Karpenter", props=cfg.karpenter)
    @property
    def pools(self) -> list[NodePoolConstruct]:
        """Every NodePool construct of the environment."""
        return [c for c in self.node.find_all() if isinstance(c, NodePoolConstruct)]

    @property
    def helm_values(self) -> list[HelmValues]:
        """The Helm values files of this environment (GPU Operator, Karpenter controller)."""
        return helm_values_in(self)

    @property
    def required_feature_gates(self) -> tuple[GateNeed, ...]:
        return required_feature_gates(self)

    def feature_gate_summary(self) -> str:
        """``settings.featureGates`` for the Karpenter chart, with the constructs that need each gate."""
        return feature_gate_summary(self)
