"""MigPartitionedPool → a NodePool whose GPUs MIG Manager partitions, plus the NodeOverlays that let Karpenter see it.

A pod requesting ``nvidia.com/mig-1g.10gb`` stays Pending for ever on a plain GPU pool: the instance
types Karpenter simulates carry ``nvidia.com/gpu`` only. This construct renders

- a NodePool whose template label ``nvidia.com/mig.config: <config>`` tells the GPU Operator's MIG Manager
  which layout to apply to every GPU of its nodes (seed 003 §5), restricted (``node.kubernetes.io/instance-type
  In``) to the catalog's instance types whose GPU has that config, and
- one :class:`~karpenter_gpu.overlays.mig_capacity_overlay.MigCapacityOverlay` per such instance type, adding
  exactly what the device plugin will advertise there (:func:`karpenter_gpu.k8s.mig.advertised`): for
  ``mig_strategy="mixed"`` ``nvidia.com/mig-<profile>`` = instances per GPU × GPUs (``nvidia.com/gpu`` keeps
  the physical count, so ``gpu_limit`` still caps physical GPUs); for ``"single"`` ``nvidia.com/gpu`` =
  MIG devices × GPUs (the limit then counts MIG devices, as with time slicing).

Why a construct of its own rather than a flag on GpuInferencePool: the pool owns child NodeOverlays
derived from the catalog and the MIG tables, its instance types follow from the config rather than from
GPU names, and its defaults (A100/H100-class GPUs, on-demand: every new node pays for a MIG
reconfiguration) are not an inference pool's. ``GpuOperatorValues`` reads these pools at synth:
``mig.strategy`` and ``migManager.enabled`` follow from them.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, ClassVar, Mapping

from constructs import Construct
from pydantic import PrivateAttr, model_validator
from typing_extensions import Unpack

from karpenter_gpu._props import build, check_known
from karpenter_gpu._construct_tree import path_of
from karpenter_gpu.analysis.catalog import default_catalog
from karpenter_gpu.cluster import require_chart
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.labels import Label
from karpenter_gpu.k8s.mig import MIG_CONFIG_LABEL, MigStrategy, advertised, mig_table
from karpenter_gpu.k8s.requirements import CapacityType, Requirement
from karpenter_gpu.k8s.scheduling import Requirement as CoreRequirement, Requirements
from karpenter_gpu.k8s.units import Duration
from karpenter_gpu.overlays._node_overlay import MAX_WEIGHT, _check_unique
from karpenter_gpu.overlays.mig_capacity_overlay import MigCapacityOverlay, MigCapacityOverlayProps
from karpenter_gpu.pools._gpu_pool import ConsolidationPolicy, GpuPool, GpuPoolKwargs, GpuPoolProps
from karpenter_gpu.pools.gpu_node_class import GpuNodeClass

#: AMI families whose NVIDIA variant runs its own device plugin (the operator's mig.strategy never reaches it).
_OWN_DEVICE_PLUGIN = frozenset({"bottlerocket"})


class MigPartitionedPoolProps(GpuPoolProps):
    """Props of :class:`MigPartitionedPool`."""

    #: MIG Manager config for every GPU of the pool's nodes (the ``nvidia.com/mig.config`` label):
    #: ``all-<profile>`` (e.g. ``all-1g.10gb``: the most instances of that profile per GPU) or ``all-balanced``.
    #: Required. Known names: ``karpenter_gpu.k8s.mig.mig_table().config_names()``.
    mig_config: str
    #: How the device plugin advertises MIG devices (``mig.strategy`` of the GPU Operator, one per cluster):
    #: ``mixed`` as ``nvidia.com/mig-<profile>``, ``single`` as ``nvidia.com/gpu`` (one profile only).
    #: Default: "mixed".
    mig_strategy: MigStrategy = "mixed"
    #: ``instance-gpu-name In``. Default: - every GPU of the catalog that has ``mig_config``.
    gpu_names: tuple[str, ...] = ()
    #: Default: (on-demand,): every new node spends minutes being partitioned before pods run.
    capacity_types: tuple[CapacityType, ...] = (CapacityType.ON_DEMAND,)
    #: Default: {"node-type": "gpu-mig", "workload": "inference"} (plus the ``nvidia.com/mig.config`` label).
    labels: Mapping[str, str] = {"node-type": "gpu-mig", "workload": "inference"}
    #: Default: 50.
    weight: int = 50
    #: Default: WhenEmptyOrUnderutilized.
    consolidation_policy: ConsolidationPolicy = ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED
    #: Default: 10m.
    consolidate_after: Duration = Duration.minutes(10)
    #: Default: 720h, rendered explicitly (the upstream default; forceful).
    expire_after: Duration = Duration.hours(720)
    #: Weight of the first MIG NodeOverlay (one per instance type, consecutive weights, unique in the
    #: cluster). Default: 200.
    overlay_weight: int = 200

    _instance_types: tuple[str, ...] = PrivateAttr(())

    @model_validator(mode="before")
    @classmethod
    def _config_first(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        check_known(cls, data)  # a misspelt mig_config is a typo, not a missing config
        config = data.get("mig_config")
        table = mig_table()
        known = table.config_names()
        if not isinstance(config, str) or config not in known:
            raise KarpenterGpuError(
                "KG220", prop="mig_config", value=config,
                allowed=f"a MIG Manager config that creates MIG devices on some GPU of the MIG tables ({len(known)}: "
                        f"all-balanced, all-<profile> such as {', '.join(n for n in known[:4])} …); all-disabled and "
                        "all-enabled create none",
                fix="e.g. mig_config='all-1g.10gb' (A100 80GB / H100: 7 per GPU) or 'all-balanced'")
        supported = sorted({g.gpu_name for g in table.supporting(config)})
        names = data.get("gpu_names")
        if not names:
            data = {**data, "gpu_names": tuple(supported)}
        elif isinstance(names, (list, tuple)):
            unsupported = [n for n in names if n not in supported]
            if unsupported:
                raise KarpenterGpuError(
                    "KG220", prop="gpu_names", value=unsupported,
                    allowed=f"GPUs on which {config} creates MIG devices ({supported}); on another GPU MIG Manager "
                            "fails to apply it (nvidia.com/mig.config.state=failed) and the node advertises nothing",
                    fix=f"drop {unsupported}, or leave gpu_names unset")
        return data

    @model_validator(mode="after")
    def _mig(self) -> "MigPartitionedPoolProps":
        table = mig_table()
        if self.mig_strategy == "single":
            multi = sorted({g.model for g in table.supporting(self.mig_config)
                            if len(g.config(self.mig_config) or {}) > 1})
            if multi:
                raise KarpenterGpuError(
                    "KG222", prop="mig_strategy", value="single",
                    allowed=f"'mixed' for {self.mig_config}: it creates several profiles per GPU on {multi}, and "
                            "the single strategy refuses a node whose MIG devices differ (k8s-device-plugin "
                            "assertAllMigDevicesAreValid: 'more than one MIG device type present on node')",
                    fix="use mig_strategy='mixed', or a one-profile config such as 'all-1g.10gb'")
        label = dict(self.labels).get(MIG_CONFIG_LABEL)
        if label is not None and label != self.mig_config:
            raise KarpenterGpuError("KG220", prop=f"labels[{MIG_CONFIG_LABEL}]", value=label,
                                    allowed=f"absent or equal to mig_config ({self.mig_config!r})",
                                    fix=f"drop the {MIG_CONFIG_LABEL} label: mig_config sets it")
        last = self.overlay_weight + len(self._instance_types) - 1
        if not 1 <= self.overlay_weight or last > MAX_WEIGHT:
            raise KarpenterGpuError("KG183", prop="overlay_weight", value=self.overlay_weight,
                                    allowed=f"1..{MAX_WEIGHT - len(self._instance_types) + 1}: one NodeOverlay per "
                                            f"instance type ({len(self._instance_types)}), consecutive weights",
                                    fix="pick a weight range no other overlay of this cluster uses")
        longest = max((_overlay_name(self.name, t) for t in self._instance_types), key=len)
        if len(longest) > 63:
            raise KarpenterGpuError("KG120", prop="name", value=self.name,
                                    allowed=f"a name that leaves room for the overlay names ({longest!r} is over 63 "
                                            "characters)",
                                    fix="shorten the pool name")
        return self

    def _derive_requirements(self) -> tuple[Requirement, ...]:
        base = list(super()._derive_requirements())
        self._instance_types = self._admitted_types(base)
        # After the GPU name: the exact types that get an overlay (the catalog decides; a new type needs it too).
        base.insert(2, Requirement.in_(Label.INSTANCE_TYPE, self._instance_types))
        return tuple(base)

    def _admitted_types(self, reqs: list[Requirement]) -> tuple[str, ...]:
        table = mig_table()
        core = Requirements(CoreRequirement.from_dict(r.render()) for r in reqs)
        out = []
        for it in default_catalog().types:
            gpu = table.gpu_for(it.labels)
            if gpu is not None and gpu.config(self.mig_config) and it.requirements.conflicting_key(core) is None:
                out.append(it.name)
        if not out:
            raise KarpenterGpuError(
                "KG224", prop="gpu_names", value=list(self.gpu_names),
                allowed=f"requirements that admit at least one catalog instance type whose GPU has {self.mig_config}",
                fix="widen instance_sizes / architectures / min_gpu_memory, or pick another mig_config")
        return tuple(sorted(out))

    @property
    def instance_types(self) -> tuple[str, ...]:
        """The instance types the pool admits, each with a MIG NodeOverlay (sorted)."""
        return self._instance_types

    @property
    def node_labels(self) -> dict[str, str]:
        return {**super().node_labels, MIG_CONFIG_LABEL: self.mig_config}

    def devices_per_instance_type(self) -> dict[str, dict[str, int]]:
        """MIG devices advertised per instance type (resource → count), as the overlays render them."""
        table = mig_table()
        types = default_catalog().by_name
        out: dict[str, dict[str, int]] = {}
        for name in self._instance_types:
            it = types[name]
            gpu = table.gpu_for(it.labels)
            assert gpu is not None  # _admitted_types kept only MIG GPUs
            found = advertised(gpu.config(self.mig_config) or {}, it.gpus, self.mig_strategy)
            assert found  # single with several profiles is refused in _mig
            out[name] = found
        return out

    def overlays(self) -> tuple[MigCapacityOverlayProps, ...]:
        """The validated props of each MIG NodeOverlay, in weight order."""
        return tuple(MigCapacityOverlayProps(name=_overlay_name(self.name, it), weight=self.overlay_weight + i,
                                             node_pool=self.name, instance_type=it, capacity=capacity)
                     for i, (it, capacity) in enumerate(sorted(self.devices_per_instance_type().items())))


def _overlay_name(pool: str, instance_type: str) -> str:
    return f"{pool}-{instance_type.replace('.', '-')}"


def _child_id(instance_type: str) -> str:
    return f"Mig-{instance_type}"


class MigPartitionedPoolKwargs(GpuPoolKwargs, total=False):
    """The keyword props of :class:`MigPartitionedPool`: the fields of :class:`MigPartitionedPoolProps`."""

    mig_config: str
    mig_strategy: MigStrategy
    overlay_weight: int


class MigPartitionedPool(GpuPool):
    """A NodePool of MIG-partitioned GPUs, with one NodeOverlay per instance type (children ``Mig-<type>``).

    Example::

        MigPartitionedPool(chart, "Mig", node_class=gpu_class, name="gpu-mig", gpu_limit=16,
                           mig_config="all-1g.10gb")   # p4d: 32, p4de/p5.48xlarge: 56 nvidia.com/mig-1g.10gb

    - Nodes are labelled ``nvidia.com/mig.config: <mig_config>``; ``GpuOperatorValues`` in the same cluster
      turns ``migManager`` on and sets ``mig.strategy`` from these pools (KG575/KG576 when they disagree).
    - The NodePool admits exactly the catalog's instance types whose GPU has the config (KG220 for a GPU
      without it, KG224 when none is left); each gets an overlay with what its nodes will advertise.
    - Pods request the MIG resource (``GpuWorkload(mig_profile="1g.10gb")``) and select the pool with
      ``pod_placement(pool)``; ``karpenter-gpu explain --pod "mig-1g.10gb=1,tolerate=nvidia.com/gpu"``.
    - Not on Bottlerocket (KG221): its own device plugin ignores the operator's MIG strategy.
    - The overlays need the ``nodeOverlay`` feature gate (recorded); their weights ``overlay_weight`` … must
      be unique in the cluster (KG183).
    """

    props_type: ClassVar[type[GpuPoolProps]] = MigPartitionedPoolProps
    props: MigPartitionedPoolProps

    def __init__(self, scope: Construct, id: str, *, node_class: GpuNodeClass,
                 props: MigPartitionedPoolProps | None = None, **kwargs: Unpack[MigPartitionedPoolKwargs]) -> None:
        """Keyword props (see :class:`MigPartitionedPoolProps` for defaults) or ``props=``, not both (KG820)."""
        path = path_of(scope, id)
        p = build(MigPartitionedPoolProps, path, props, **kwargs)
        planned = p.overlays()
        for child in planned:  # fail before anything is added
            _check_unique(scope, child, f"{path}/{_child_id(child.instance_type)}")
        require_chart(scope, path, "MigPartitionedPool")
        super().__init__(scope, id, node_class=node_class, props=p)
        self.mig_overlays: tuple[MigCapacityOverlay, ...] = tuple(
            MigCapacityOverlay(self, _child_id(child.instance_type), props=child) for child in planned)

    def _check_node_class(self, path: str) -> None:
        if not isinstance(self.node_class, GpuNodeClass):  # e.g. an EKS Auto Mode NodeClass
            raise KarpenterGpuError(
                "KG221", prop="node_class", value=type(self.node_class).__name__,
                allowed="a GpuNodeClass (EC2NodeClass): EKS Auto Mode runs AWS's own NVIDIA device plugin and gives "
                        "the GPU Operator no node access, so MIG Manager cannot partition its GPUs",
                fix="put the MIG pool on a self-managed Karpenter GpuNodeClass (al2023)", path=path)
        family = self.node_class.props.ami.family
        if family in _OWN_DEVICE_PLUGIN:
            raise KarpenterGpuError(
                "KG221", prop="node_class", value=f"{self.node_class.node.path} ({family})",
                allowed="a node class whose GPUs the GPU Operator's device plugin serves (al2023 or a custom AMI): "
                        "Bottlerocket's NVIDIA variant runs its own device plugin, which never reads the operator's "
                        "mig.strategy, so the MIG devices would not be advertised as the overlays say",
                fix="use an al2023 GpuNodeClass for the MIG pool", path=path)

    @property
    def mig_strategy(self) -> MigStrategy:
        return self.props.mig_strategy

    @property
    def advertised_resources(self) -> tuple[str, ...]:
        """Every MIG resource some node of the pool advertises (sorted)."""
        return tuple(sorted({r for caps in self.props.devices_per_instance_type().values() for r in caps}))

    @property
    def default_resource(self) -> str:
        """The resource most of the pool's instance types advertise (ties: name order): what a smoke pod asks for."""
        counts = Counter(r for caps in self.props.devices_per_instance_type().values() for r in caps)
        return min(counts, key=lambda r: (-counts[r], r))
