"""GpuPlatform: one environment's GPU capacity as a cdk8s Chart, built from a frozen config.

A platform repo instantiates it with its own :class:`PlatformConfig`; this repository's
dev/staging/prod stacks are three such configs.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Annotated, Any, Callable, Mapping, TypeVar

import cdk8s
from constructs import Construct
from pydantic import BeforeValidator, field_validator, model_validator
from typing_extensions import TypedDict, Unpack

from karpenter_gpu.pools._node_pool import NodePoolConstruct
from karpenter_gpu._props import Props, build, DnsLabel
from karpenter_gpu._signature import ConstructSignature
from karpenter_gpu.check.acknowledge import acknowledge
from karpenter_gpu.cluster import (cluster_of, members, members_of, parse_karpenter_version, ref_of, register_derived,
                                   remember_parent, set_karpenter_version, sorted_by_name)
from karpenter_gpu.upstream import DEFAULT_LINE
from karpenter_gpu.pools.capacity_reservation import CapacityReservationTerm
from karpenter_gpu.errors import KarpenterGpuError, echo
from karpenter_gpu.feature_gates import GateNeed, feature_gate_summary, required_feature_gates
from karpenter_gpu.overlays.gpu_capacity_overlay import GpuCapacityOverlay, GpuCapacityOverlayProps
from karpenter_gpu.addons.gitops_argocd import ArgoCdApplications, ArgoCdApplicationsProps
from karpenter_gpu.addons.gitops_flux import FluxHelmReleases, FluxHelmReleasesProps
from karpenter_gpu.addons.gpu_monitoring import GpuMonitoring, GpuMonitoringProps
from karpenter_gpu.addons.gpu_operator_values import GpuOperatorValues, GpuOperatorValuesProps
from karpenter_gpu.addons.gpu_workload import GpuWorkload
from karpenter_gpu.addons.helm_values import HelmValues
from karpenter_gpu.addons.karpenter_values import KarpenterControllerValues, KarpenterControllerValuesProps
from karpenter_gpu.addons.neuron_device_plugin_values import NeuronDevicePluginValues, NeuronDevicePluginValuesProps
from karpenter_gpu.pools.gpu_inference_pool import GpuInferencePool, GpuInferencePoolProps
from karpenter_gpu.pools.mig_partitioned_pool import MigPartitionedPool, MigPartitionedPoolProps
from karpenter_gpu.pools.auto_mode_node_class import AutoModeNodeClass, AutoModeNodeClassProps
from karpenter_gpu.k8s.accelerators import NVIDIA
from karpenter_gpu.pools.neuron_inference_pool import NeuronInferencePool, NeuronInferencePoolProps
from karpenter_gpu.pools.neuron_training_pool import NeuronTrainingPool, NeuronTrainingPoolProps
from karpenter_gpu.pools.gpu_node_class import GpuNodeClass, NodeClassConfig, RootVolume
from karpenter_gpu.pools.gpu_training_pool import GpuTrainingPool, GpuTrainingPoolProps
from karpenter_gpu.pools.hybrid_gpu_nodes import HybridGpuNodeGroup, HybridGpuNodeGroupProps, hybrid_groups_of
from karpenter_gpu.overlays.node_overlay_discourage import NodeOverlayDiscourage, NodeOverlayDiscourageProps
from karpenter_gpu.pools.reserved_capacity_pool import ReservedCapacityPool, ReservedCapacityPoolProps
from karpenter_gpu.pools.static_capacity_pool import StaticCapacityPool, StaticCapacityPoolProps
from karpenter_gpu.pools.tiered_spot_pools import TieredSpotPools, TieredSpotPoolsProps


T = TypeVar("T")

#: The built-in node classes of a platform and the pools that use them by default.
INFERENCE_CLASS, TRAINING_CLASS, RESERVED_CLASS = "gpu-inference", "gpu-training", "gpu-reserved"


class PlatformNodeClass(Props):
    """An extra node class of a platform: the shared ``node_class`` settings under its own name and volume."""

    #: metadata.name of the EC2NodeClass; pools choose it in ``PlatformConfig.pool_node_classes``.
    name: DnsLabel
    #: Default: RootVolume.inference().
    root_volume: RootVolume = RootVolume.inference()
    #: ODCRs / Capacity Blocks this class may launch into. Default: - none.
    capacity_reservations: tuple[CapacityReservationTerm, ...] = ()
    #: Local NVMe as RAID0. Default: False.
    instance_store_raid0: bool = False


def _many(kind: str, example: str) -> Any:
    """A before-validator: a tuple of pool props, or one (the single-pool form, wrapped)."""

    def wrap(v: Any) -> Any:
        if v is None:
            return ()
        if isinstance(v, (Props, Mapping)):
            return (v,)  # the single-pool form of earlier versions keeps working
        if isinstance(v, (list, tuple)):
            return tuple(v)
        raise KarpenterGpuError("KG100", prop=kind, value=type(v).__name__,
                                allowed=f"a tuple of {example} (or one of them)",
                                fix=f"pass {kind}=({example}(...), ...)")
    return BeforeValidator(wrap)


class PlatformConfig(Props):
    """One environment (one cluster): node classes and any number of pools of each kind.

    Every pool field takes a tuple (one pool per team, say); a single props object is accepted and
    means a tuple of one. Pools run on the built-in node class of their kind (inference pools, ladders
    and static pools on "gpu-inference", training pools on "gpu-training", reserved pools on
    "gpu-reserved") unless ``pool_node_classes`` chooses another.
    """

    #: Environment name: the chart id and the dist/ folder (DNS-1123).
    environment: DnsLabel
    #: The EC2NodeClass settings of the built-in classes. Default: - none, only when every pool runs on the Auto
    #: Mode NodeClass (``auto_mode_node_class``, named for each pool in ``pool_node_classes``).
    node_class: NodeClassConfig | None = None
    #: Default: - none (at least one pool of some kind is required).
    inference: Annotated[tuple[GpuInferencePoolProps, ...], _many("inference", "GpuInferencePoolProps")] = ()
    #: Default: - no training pool.
    training: Annotated[tuple[GpuTrainingPoolProps, ...], _many("training", "GpuTrainingPoolProps")] = ()
    #: Weighted spot ladders. Default: - none.
    tiers: Annotated[tuple[TieredSpotPoolsProps, ...], _many("tiers", "TieredSpotPoolsProps")] = ()
    #: Warm, always-on nodes. Default: - none.
    static: Annotated[tuple[StaticCapacityPoolProps, ...], _many("static", "StaticCapacityPoolProps")] = ()
    #: Reserved capacity (ODCR / Capacity Block); by default on the node class "gpu-reserved", which selects
    #: ``reservations``. Default: - none.
    reserved: Annotated[tuple[ReservedCapacityPoolProps, ...], _many("reserved", "ReservedCapacityPoolProps")] = ()
    reservations: tuple[CapacityReservationTerm, ...] = ()
    #: On-premises GPU servers joined with EKS Hybrid Nodes (not Karpenter-managed). Default: - none.
    hybrid: Annotated[tuple[HybridGpuNodeGroupProps, ...], _many("hybrid", "HybridGpuNodeGroupProps")] = ()
    #: MIG-partitioned pools (MigPartitionedPool, on the "gpu-inference" class unless ``pool_node_classes`` says
    #: otherwise); the GPU Operator values follow them. Default: - none.
    mig: Annotated[tuple[MigPartitionedPoolProps, ...], _many("mig", "MigPartitionedPoolProps")] = ()
    #: Inferentia pools, on the "gpu-inference" node class by default (an al2023/bottlerocket alias picks the
    #: Neuron AMI variant per instance type). Default: - none.
    neuron_inference: Annotated[tuple[NeuronInferencePoolProps, ...],
                                _many("neuron_inference", "NeuronInferencePoolProps")] = ()
    #: Trainium pools, on the "gpu-training" node class by default. Default: - none.
    neuron_training: Annotated[tuple[NeuronTrainingPoolProps, ...],
                               _many("neuron_training", "NeuronTrainingPoolProps")] = ()
    #: Neuron Helm chart options; its values are rendered when the config has Neuron pools. Default: plugin only.
    neuron_device_plugin: NeuronDevicePluginValuesProps = NeuronDevicePluginValuesProps()
    #: Node classes beyond the built-in three. Default: - none.
    node_classes: tuple[PlatformNodeClass, ...] = ()
    #: An EKS Auto Mode NodeClass (``eks.amazonaws.com/v1``); pools run on it when ``pool_node_classes`` names it
    #: (they then render Auto Mode's label keys and rules, and the GPU Operator and controller values leave them
    #: out). Default: - none.
    auto_mode_node_class: AutoModeNodeClassProps | None = None
    #: Pool (or ladder / static pool) name → node class name. Default: - the built-in class of the pool's kind.
    pool_node_classes: Mapping[str, str] = {}
    #: NodeOverlays raising the simulated price of oversized types. Default: - none.
    discourage_overlays: tuple[NodeOverlayDiscourageProps, ...] = ()
    #: NodeOverlays giving zero-GPU families (g6f, gr6f) GPU capacity. Default: - none.
    gpu_capacity_overlays: tuple[GpuCapacityOverlayProps, ...] = ()
    #: Karpenter controller settings (cluster name, interruption queue, gate overrides); the feature
    #: gates themselves are derived from the constructs. Default: - none, only when every pool runs on the Auto
    #: Mode NodeClass: EKS runs Karpenter, so no Karpenter values, ServiceMonitor or alerts on its metrics.
    karpenter: KarpenterControllerValuesProps | None = None
    #: GPU Operator chart options (MIG, time slicing, operands). Default: EKS-optimized-AMI defaults.
    gpu_operator: GpuOperatorValuesProps = GpuOperatorValuesProps()
    #: ServiceMonitors and alerts. Default: on, with the defaults of GpuMonitoringProps.
    monitoring: GpuMonitoringProps | None = GpuMonitoringProps()
    #: A replicas-0 pause Deployment per NodePool of the cluster (every chart of it, read at synth) whose pod
    #: spec would land there. Default: True.
    smoke_workloads: bool = True
    #: GitOps delivery of the environment's charts (Karpenter, GPU Operator, Neuron) at their pinned versions with
    #: the generated values inline: Argo CD Applications or Flux HelmRepositories and HelmReleases.
    #: Default: - none (the values files only, for helm upgrade --install).
    gitops: ArgoCdApplicationsProps | FluxHelmReleasesProps | None = None
    #: Validation warnings acknowledged on NodePools: (pool name, code, reason). Default: - none.
    acknowledgements: tuple[tuple[str, str, str], ...] = ()
    #: Override the inference / training root volumes. Default: the presets.
    inference_volume: RootVolume = RootVolume.inference()
    training_volume: RootVolume = RootVolume.training()
    #: The Karpenter line the cluster runs, "1.9" or "1.14" (both LTS): objects its CRDs lack are refused at
    #: construction (KG661, naming the first release that has them) and the controller values follow it (chart
    #: version, gates, controller image). Default: "1.14".
    karpenter_version: str = DEFAULT_LINE

    @field_validator("karpenter_version", mode="before")
    @classmethod
    def _karpenter_version(cls, v: Any) -> str:
        return parse_karpenter_version(v, "PlatformConfig").line

    def __init__(self, /, **data: Any) -> None:
        try:
            super().__init__(**data)
        except KarpenterGpuError as err:
            located = err.at(path=where_in_config(data, err.prop))  # replaces a nested model's own label
            located.relative = True
            raise located from None

    @model_validator(mode="after")
    def _check(self) -> "PlatformConfig":
        if self.reserved and not self.reservations:
            raise KarpenterGpuError("KG191", prop="reservations", value=(),
                                    allowed="at least one selector term when a reserved pool is configured: "
                                            "Karpenter uses no reservation implicitly",
                                    fix="reservations=(CapacityReservationTerm.by_tags({...}),)")
        classes = self.class_names()
        extra = [c.name for c in self.node_classes] + (
            [self.auto_mode_node_class.name] if self.auto_mode_node_class is not None else [])
        clash = sorted({n for n in extra if extra.count(n) > 1 or n in (INFERENCE_CLASS, TRAINING_CLASS,
                                                                        RESERVED_CLASS)})
        if clash:
            raise KarpenterGpuError("KG171", prop="node_classes", value=clash,
                                    allowed=f"names distinct from each other and from {INFERENCE_CLASS}, "
                                            f"{TRAINING_CLASS}, {RESERVED_CLASS}", fix="rename the node class")
        groups = self.group_names()
        named = groups + [g.name for g in self.hybrid]
        twice = sorted({n for n in named if named.count(n) > 1})
        if twice:
            raise KarpenterGpuError("KG171", prop="name", value=twice,
                                    allowed="one pool, ladder, static pool or hybrid group per name in an environment, "
                                            "whatever its kind (the name is its NodePool's metadata.name and its "
                                            "construct id)",
                                    fix="rename one of them (e.g. prefix it with the team)")
        for pool, cls in self.pool_node_classes.items():
            if pool not in groups:
                raise KarpenterGpuError("KG100", prop=f"pool_node_classes[{pool}]", value=pool,
                                        allowed=f"the name of a pool of this config{_closest(pool, groups)}: "
                                                f"{sorted(groups)}", fix="use the pool's (or ladder's) name")
            if cls not in classes:
                raise KarpenterGpuError("KG100", prop=f"pool_node_classes[{pool}]", value=cls,
                                        allowed=f"a node class of this config{_closest(cls, classes)}: {sorted(classes)}",
                                        fix="name a built-in class or add it to node_classes")
        self._check_self_managed(groups)
        return self

    def auto_mode_only(self) -> bool:
        """Whether every pool (ladder, static pool) runs on the Auto Mode NodeClass: no self-managed Karpenter."""
        auto = self.auto_mode_node_class
        return auto is not None and all(self.pool_node_classes.get(name) == auto.name for name in self.group_names())

    def _check_self_managed(self, groups: list[str]) -> None:
        """``node_class`` and ``karpenter`` may be left out only when no pool needs a self-managed Karpenter."""
        if self.auto_mode_only():
            return
        auto = self.auto_mode_node_class.name if self.auto_mode_node_class is not None else None
        own = [g for g in groups if auto is None or self.pool_node_classes.get(g) != auto]
        for field, code, example in (("node_class", "KG231", "node_class=NodeClassConfig(...)"),
                                     ("karpenter", "KG232", "karpenter=KarpenterControllerValuesProps(...)")):
            if getattr(self, field) is None:
                raise KarpenterGpuError(
                    code, prop=field, value=None,
                    allowed=f"a value while pools run on EC2NodeClasses and a self-managed Karpenter ({own})",
                    fix=f"pass {example}, or run every pool on the Auto Mode NodeClass (auto_mode_node_class=..., "
                        "pool_node_classes={<pool>: <its name>})")

    def class_names(self) -> list[str]:
        auto = [self.auto_mode_node_class.name] if self.auto_mode_node_class is not None else []
        return [INFERENCE_CLASS, TRAINING_CLASS, RESERVED_CLASS] + [c.name for c in self.node_classes] + auto

    def group_names(self) -> list[str]:
        """Names of the pools, ladders and static pools (what ``pool_node_classes`` keys name)."""
        return [p.name for kind in POOL_TABLE if kind.node_class is not None for p in getattr(self, kind.field)]

    def node_class_of(self, name: str, default: str) -> str:
        return self.pool_node_classes.get(name, default)


@dataclass(frozen=True)
class PoolKind:
    """A kind of pool a :class:`PlatformConfig` holds a tuple of: one row of :data:`POOL_TABLE`.

    A new kind is its construct module, a typed field on :class:`PlatformConfig` / :class:`GpuPlatformKwargs` /
    :class:`GpuPlatform` (for the type checker), and one row here; naming, default node classes, error locations and
    construction follow from the row (tests/test_gpu_platform.py checks the row and the fields agree)."""

    #: The PlatformConfig field (and the GpuPlatform attribute holding what it made).
    field: str
    #: The construct each entry makes: ``construct(scope, id, node_class=..., props=entry)``.
    construct: type
    #: Its construct id: the prefix alone for the single-entry form, else ``<prefix>-<name>``.
    id_prefix: str
    #: The built-in node class its entries run on unless ``pool_node_classes`` says otherwise; None: no node class
    #: (hybrid node groups, whose construct id always carries the name).
    node_class: str | None

    def construct_id(self, group: tuple, name: str) -> str:
        """Ids of the single-pool form stay as they were (a hybrid group's always names it)."""
        return self.id_prefix if self.node_class is not None and len(group) == 1 else f"{self.id_prefix}-{name}"


#: Every pool kind of a platform, in construction order.
POOL_TABLE: tuple[PoolKind, ...] = (
    PoolKind("inference", GpuInferencePool, "Inference", INFERENCE_CLASS),
    PoolKind("training", GpuTrainingPool, "Training", TRAINING_CLASS),
    PoolKind("tiers", TieredSpotPools, "Tiers", INFERENCE_CLASS),
    PoolKind("static", StaticCapacityPool, "Static", INFERENCE_CLASS),
    PoolKind("reserved", ReservedCapacityPool, "Reserved", RESERVED_CLASS),
    PoolKind("hybrid", HybridGpuNodeGroup, "Hybrid", None),
    # An Auto Mode class named in pool_node_classes is refused by MIG and Neuron pools themselves (KG221, KG265).
    PoolKind("mig", MigPartitionedPool, "Mig", INFERENCE_CLASS),
    PoolKind("neuron_inference", NeuronInferencePool, "NeuronInference", INFERENCE_CLASS),
    PoolKind("neuron_training", NeuronTrainingPool, "NeuronTraining", TRAINING_CLASS),
)

#: The construct each pool field of a PlatformConfig makes, as errors name it.
POOL_KINDS: dict[str, str] = {
    **{kind.field: kind.construct.__name__ for kind in POOL_TABLE},
    "node_classes": "PlatformNodeClass", "discourage_overlays": "NodeOverlayDiscourage",
    "gpu_capacity_overlays": "GpuCapacityOverlay",
}
_ITEM = re.compile(r"^(\w+)\[([0-9]+)\]")


def _where(environment: Any, kind: str | None = None, name: Any = None) -> str:
    parts = [f"environment {echo(environment)}" if isinstance(environment, str) else "PlatformConfig"]
    if kind is not None:
        parts.append(f"{kind} {echo(name)}" if isinstance(name, str) else kind)
    return ", ".join(parts)


def where_in_config(data: Mapping[str, Any], prop: str) -> str:
    """Where an error of a PlatformConfig built from ``data`` lies: the environment, and for a prop of one of its
    pools (``inference[1].weight``) the kind and name of that pool (``environment 'prod', GpuInferencePool
    'search-inference'``)."""
    item = _ITEM.match(prop)
    if item is None or item.group(1) not in POOL_KINDS:
        return _where(data.get("environment"))
    group = data.get(item.group(1))
    group = (group,) if isinstance(group, (Props, Mapping)) else group
    index = int(item.group(2))
    entry = group[index] if isinstance(group, (list, tuple)) and index < len(group) else None
    name = entry.get("name") if isinstance(entry, Mapping) else getattr(entry, "name", None)
    return _where(data.get("environment"), POOL_KINDS[item.group(1)], name)


def _closest(word: str, choices: list[str]) -> str:
    match = difflib.get_close_matches(word, choices, n=1)
    return f" (did you mean {match[0]!r}?)" if match else ""


class GpuPlatformKwargs(TypedDict, total=False):
    """The keyword props of :class:`GpuPlatform`: the fields of :class:`PlatformConfig`, same types."""

    environment: str
    node_class: NodeClassConfig | None
    inference: tuple[GpuInferencePoolProps, ...]
    training: tuple[GpuTrainingPoolProps, ...]
    tiers: tuple[TieredSpotPoolsProps, ...]
    static: tuple[StaticCapacityPoolProps, ...]
    reserved: tuple[ReservedCapacityPoolProps, ...]
    reservations: tuple[CapacityReservationTerm, ...]
    hybrid: tuple[HybridGpuNodeGroupProps, ...]
    mig: tuple[MigPartitionedPoolProps, ...]
    neuron_inference: tuple[NeuronInferencePoolProps, ...]
    neuron_training: tuple[NeuronTrainingPoolProps, ...]
    neuron_device_plugin: NeuronDevicePluginValuesProps
    node_classes: tuple[PlatformNodeClass, ...]
    auto_mode_node_class: AutoModeNodeClassProps | None
    pool_node_classes: Mapping[str, str]
    discourage_overlays: tuple[NodeOverlayDiscourageProps, ...]
    gpu_capacity_overlays: tuple[GpuCapacityOverlayProps, ...]
    karpenter: KarpenterControllerValuesProps | None
    gpu_operator: GpuOperatorValuesProps
    monitoring: GpuMonitoringProps | None
    smoke_workloads: bool
    gitops: ArgoCdApplicationsProps | FluxHelmReleasesProps | None
    acknowledgements: tuple[tuple[str, str, str], ...]
    inference_volume: RootVolume
    training_volume: RootVolume
    karpenter_version: str


def _monitoring_fields(cfg: PlatformConfig) -> dict[str, Any]:
    """The monitoring props; without a self-managed Karpenter (``karpenter`` left out on an Auto-Mode-only
    platform) its ServiceMonitor and the alerts on its metrics are off unless set explicitly."""
    monitoring = cfg.monitoring
    assert monitoring is not None  # called only when monitoring is on
    fields = _fields(monitoring)
    if cfg.karpenter is None:
        for name in ("karpenter_service_monitor", "karpenter_alerts"):
            if name not in monitoring.model_fields_set:
                fields[name] = False
    return fields


def _fields(model: Props) -> dict[str, Any]:
    # Shallow: keeps value objects (AmiAlias, Taint …) as they are.
    return {name: getattr(model, name) for name in type(model).model_fields}


class GpuPlatform(cdk8s.Chart):
    """Node classes and GPU pools of one environment, which is one cluster (see :mod:`karpenter_gpu.cluster`).

    Charts created inside it (one per team, say) are part of the same cluster: their pools get the
    GPU Operator tolerations, near-limit alerts, feature gates and smoke workloads too, whenever they
    are added (all are read from the final tree at synth).

    Example::

        app = cdk8s.App()
        prod = GpuPlatform(app, props=PlatformConfig(environment="prod", node_class=..., inference=(...,)))
        team_a = cdk8s.Chart(prod, "team-a")
        GpuInferencePool(team_a, "Serve", node_class=prod.inference_class, name="team-a-serve", gpu_limit=8)

    The props may also be given as keywords: ``GpuPlatform(app, environment="prod", node_class=..., ...)``.
    ``id`` defaults to the environment name.
    """

    _kg_cluster_boundary = True
    __signature__ = ConstructSignature()

    #: What each row of :data:`POOL_TABLE` made, by its field.
    inference: tuple[GpuInferencePool, ...]
    training: tuple[GpuTrainingPool, ...]
    tiers: tuple[TieredSpotPools, ...]
    static: tuple[StaticCapacityPool, ...]
    reserved: tuple[ReservedCapacityPool, ...]
    hybrid: tuple[HybridGpuNodeGroup, ...]
    mig: tuple[MigPartitionedPool, ...]
    neuron_inference: tuple[NeuronInferencePool, ...]
    neuron_training: tuple[NeuronTrainingPool, ...]

    def __init__(self, scope: Construct, id: str | None = None, *, props: PlatformConfig | None = None,
                 **kwargs: Unpack[GpuPlatformKwargs]) -> None:
        """Keyword props (see :class:`PlatformConfig` for defaults) or ``props=``, not both (KG820)."""
        try:
            cfg = build(PlatformConfig, None, props, **kwargs)
        except KarpenterGpuError as err:  # located in the config (environment, pool) unless only the chart is known
            raise (err if err.path else err.at(path=id or "GpuPlatform")) from None
        if not cfg.group_names() and not cfg.hybrid:
            pooled = [kind.field for kind in POOL_TABLE if kind.node_class is not None]
            raise KarpenterGpuError("KG170", prop="inference", value=(),
                                    allowed=f"at least one pool ({', '.join(pooled[:-1])} or {pooled[-1]}) or hybrid "
                                            "node group",
                                    fix="add inference=(GpuInferencePoolProps(...),)", path=id or cfg.environment)
        super().__init__(scope, id or cfg.environment)
        remember_parent(self, scope)
        if "karpenter_version" in cfg.model_fields_set:  # else the cluster's (a Cluster around it), or the default
            set_karpenter_version(cluster_of(self), cfg.karpenter_version, self.node.path)
        self.config = cfg
        base = _fields(cfg.node_class) if cfg.node_class is not None else {}
        wanted = [(p.name, kind.node_class) for kind in POOL_TABLE if kind.node_class is not None
                  for p in getattr(cfg, kind.field)]
        used = {cfg.node_class_of(name, default) for name, default in wanted}
        specs: dict[str, tuple[str, dict[str, Any]]] = {INFERENCE_CLASS: ("InferenceClass", dict(root_volume=cfg.inference_volume)),
                 TRAINING_CLASS: ("TrainingClass", dict(root_volume=cfg.training_volume)),
                 RESERVED_CLASS: ("ReservedClass", dict(root_volume=cfg.training_volume,
                                                        capacity_reservations=cfg.reservations))}
        for extra in cfg.node_classes:
            specs[extra.name] = (f"Class-{extra.name}", {k: getattr(extra, k) for k in
                                                         ("root_volume", "capacity_reservations",
                                                          "instance_store_raid0")})
        #: Node classes by name (only those some pool uses).
        self.node_classes: dict[str, GpuNodeClass] = {
            name: GpuNodeClass(self, specs[name][0], name=name, **{**base, **specs[name][1]})
            for name in specs if name in used}
        #: The Auto Mode NodeClass (``auto_mode_node_class``), when some pool uses it.
        self.auto_mode_class: AutoModeNodeClass | None = (
            AutoModeNodeClass(self, "AutoModeClass", props=cfg.auto_mode_node_class)
            if cfg.auto_mode_node_class is not None and cfg.auto_mode_node_class.name in used else None)

        def cls(name: str, default: str) -> GpuNodeClass | AutoModeNodeClass:
            chosen = cfg.node_class_of(name, default)
            if self.auto_mode_class is not None and chosen == self.auto_mode_class.name:
                return self.auto_mode_class
            return self.node_classes[chosen]

        each = self._each
        for kind in POOL_TABLE:
            def make(entry: Any, kind: PoolKind = kind, group: tuple = getattr(cfg, kind.field)) -> Any:
                if kind.node_class is None:
                    return kind.construct(self, kind.construct_id(group, entry.name), props=entry)
                return kind.construct(self, kind.construct_id(group, entry.name),
                                      node_class=cls(entry.name, kind.node_class), props=entry)
            setattr(self, kind.field, each(kind.field, make))
        self.overlays = (each("discourage_overlays", lambda o: NodeOverlayDiscourage(
                             self, f"Discourage-{o.name}", **_fields(o)))
                         + each("gpu_capacity_overlays", lambda o: GpuCapacityOverlay(
                             self, f"GpuCapacity-{o.name}", **_fields(o))))
        by_name = {p.name: p for p in self.pools}
        for pool_name, code, reason in cfg.acknowledgements:
            if pool_name not in by_name:
                raise KarpenterGpuError("KG100", prop="acknowledgements", value=pool_name,
                                        allowed=f"a NodePool of this environment{_closest(pool_name, list(by_name))}: "
                                                f"{sorted(by_name)}",
                                        fix="use the NodePool's metadata.name", path=self.node.path)
            acknowledge(by_name[pool_name], code, reason)
        # Derived from every pool and overlay of the cluster, read at synth: the order does not matter.
        self._smoke: dict[str, GpuWorkload] = {}
        # The GPU Operator only for NVIDIA pools it can serve, or hybrid nodes: an environment of Neuron or EKS Auto
        # Mode pools alone gets none (AWS runs the NVIDIA stack on Auto Mode nodes).
        nvidia = bool(self.hybrid) or any(p.props.accelerator is NVIDIA and not p.auto_mode
                                          for p in members_of(self, NodePoolConstruct))
        self.gpu_operator = GpuOperatorValues(self, "GpuOperator", props=cfg.gpu_operator) if nvidia else None
        self.monitoring = (GpuMonitoring(self, "Monitoring", **_monitoring_fields(cfg))
                           if cfg.monitoring is not None else None)
        #: None when every pool runs on EKS Auto Mode and no ``karpenter`` settings were given (EKS runs Karpenter).
        self.karpenter = (KarpenterControllerValues(self, "Karpenter", props=cfg.karpenter)
                          if cfg.karpenter is not None else None)
        self.neuron_device_plugin = (NeuronDevicePluginValues(self, "NeuronDevicePlugin", props=cfg.neuron_device_plugin)
                                     if cfg.neuron_inference or cfg.neuron_training else None)
        #: The GitOps delivery of the charts (``gitops``), or None.
        self.gitops: ArgoCdApplications | FluxHelmReleases | None = (
            ArgoCdApplications(self, "GitOps", props=cfg.gitops) if isinstance(cfg.gitops, ArgoCdApplicationsProps)
            else FluxHelmReleases(self, "GitOps", props=cfg.gitops) if isinstance(cfg.gitops, FluxHelmReleasesProps)
            else None)
        register_derived(self)

    def _each(self, field: str, make: Callable[[Any], T]) -> tuple[T, ...]:
        """One construct per entry of the config's ``field``; an error raised while building one names the
        environment, the kind and the name of the entry, and the construct path."""
        made = []
        for entry in getattr(self.config, field):
            try:
                made.append(make(entry))
            except KarpenterGpuError as err:
                where = _where(self.config.environment, POOL_KINDS[field], entry.name)
                raise err.at(path=f"{where} ({err.path})" if err.path else where) from None
            except RuntimeError as err:  # jsii: a second construct of the same id (a config built without validation)
                if "There is already a Construct with name" not in str(err):
                    raise
                raise KarpenterGpuError("KG171", prop=field, value=entry.name,
                                        allowed="one pool, ladder, static pool or hybrid group per name in an "
                                                "environment", fix="rename one of them (e.g. prefix it with the team)",
                                        path=_where(self.config.environment, POOL_KINDS[field], entry.name)) from None
        return tuple(made)

    # -- node classes by role (None when no pool uses them) ------------------------------------
    @property
    def inference_class(self) -> GpuNodeClass | None:
        return self.node_classes.get(INFERENCE_CLASS)

    @property
    def training_class(self) -> GpuNodeClass | None:
        return self.node_classes.get(TRAINING_CLASS)

    @property
    def reserved_class(self) -> GpuNodeClass | None:
        return self.node_classes.get(RESERVED_CLASS)

    # -- derived -----------------------------------------------------------------------------
    def materialize(self) -> None:
        """A smoke workload for every NodePool and hybrid node group of the cluster that has none yet (pools
        added later too)."""
        if not self.config.smoke_workloads:
            return
        for pool in sorted_by_name(members_of(self, NodePoolConstruct)) + hybrid_groups_of(self):
            if ref_of(pool) not in self._smoke:
                self._smoke[ref_of(pool)] = GpuWorkload(self, f"Smoke-{pool.name}", pool=pool)

    def check_final(self) -> None:
        """Nothing beyond what the derived children check."""

    @property
    def workloads(self) -> tuple[GpuWorkload, ...]:
        """The smoke workloads, one per NodePool and hybrid node group of the cluster (created for new ones on
        access and at synth)."""
        self.materialize()
        return tuple(sorted(self._smoke.values(), key=lambda w: w.name))

    @property
    def pools(self) -> list[NodePoolConstruct]:
        """Every NodePool construct of the environment (the cluster: team charts inside it too)."""
        return members_of(self, NodePoolConstruct)

    @property
    def helm_values(self) -> list[HelmValues]:
        """The Helm values files of this environment (GPU Operator, Karpenter controller)."""
        return members_of(self, HelmValues)

    @property
    def required_feature_gates(self) -> tuple[GateNeed, ...]:
        cluster = cluster_of(self)
        return required_feature_gates(cluster, members(cluster))

    def feature_gate_summary(self) -> str:
        """``settings.featureGates`` for the Karpenter chart, with the constructs that need each gate."""
        return feature_gate_summary(cluster_of(self), members(cluster_of(self)))
