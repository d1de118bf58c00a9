"""TieredSpotPools → an ordered ladder of GPU NodePools with strictly decreasing weights (seed 000 §7)."""

from __future__ import annotations

from karpenter_gpu.pools.auto_mode_node_class import AutoModeNodeClass
from karpenter_gpu.pools.gpu_node_class import GpuNodeClass

import itertools

from typing import Mapping

from constructs import Construct
from pydantic import field_validator, model_validator
from typing_extensions import TypedDict, Unpack

from karpenter_gpu.cluster import ScopedConstruct
from karpenter_gpu._props import Props, build, DnsLabel
from karpenter_gpu._construct_tree import path_of
from karpenter_gpu._signature import ConstructSignature
from karpenter_gpu.pools.disruption_window import Budget, DisruptionWindow
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.pools._node_pool import auto_mode_defaults, check_node_class
from karpenter_gpu.pools.gpu_inference_pool import GpuInferencePool, GpuInferencePoolProps
from karpenter_gpu.k8s.names import check_zones
from karpenter_gpu.k8s.requirements import CapacityType
from karpenter_gpu.k8s.taint import Taint
from karpenter_gpu.k8s.units import Duration, GpuMemory

_INFERENCE = GpuInferencePoolProps.model_fields


class SpotTier(Props):
    """One rung of the ladder: its own GPUs, capacity types and GPU limit."""

    #: Appended to the ladder's name: the NodePool is ``<name>-<suffix>``.
    suffix: DnsLabel
    gpu_names: tuple[str, ...]
    gpu_limit: int
    #: Default: (spot,).
    capacity_types: tuple[CapacityType, ...] = (CapacityType.SPOT,)
    #: Default: - derived from the tier's position: 90, 80, 70 … (see TieredSpotPools).
    weight: int | None = None
    #: Default: - no minimum.
    min_gpu_memory: GpuMemory | None = None
    #: Default: - any size.
    instance_sizes: tuple[str, ...] = ()


#: The first derived tier weight: strictly below ReservedCapacityPool's default weight (100), so a reserved pool
#: with its default outranks every spot or on-demand tier of a ladder with derived weights (validate: KG463).
DERIVED_TOP = 90
#: Most tiers with derived weights: each needs its own weight below 100, the reserved pool default.
MAX_DERIVED_TIERS = 99


def derived_weights(count: int) -> tuple[int, ...]:
    """90, 80, 70 … for up to 9 tiers; a smaller step beyond, down to 1, starting at 99 beyond 90 tiers (at most
    :data:`MAX_DERIVED_TIERS`). Always below 100, the reserved pool default."""
    top = DERIVED_TOP if count <= DERIVED_TOP else MAX_DERIVED_TIERS
    step = min(10, (top - 1) // max(count - 1, 1))
    return tuple(top - i * step for i in range(count))


class TieredSpotPoolsProps(Props):
    """A ladder of tiers sharing the node class, taints, labels and disruption settings."""

    #: Prefix of every tier's NodePool name.
    name: DnsLabel
    #: Most preferred first. 1..100 tiers (with the floor).
    tiers: tuple[SpotTier, ...]
    #: A last, on-demand tier so pods never stay Pending for lack of spot. Default: - none.
    on_demand_floor: SpotTier | None = None
    #: Shared by every tier so one pod spec lands on any of them.
    labels: Mapping[str, str] = _INFERENCE["labels"].default
    taints: tuple[Taint, ...] = _INFERENCE["taints"].default
    zones: tuple[str, ...] = ()
    architectures: tuple[str, ...] = _INFERENCE["architectures"].default
    consolidate_after: Duration = _INFERENCE["consolidate_after"].default
    expire_after: Duration = _INFERENCE["expire_after"].default
    budgets: tuple[Budget, ...] = _INFERENCE["budgets"].default
    disruption_windows: tuple[DisruptionWindow, ...] = ()

    @field_validator("zones")
    @classmethod
    def _zones(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        return check_zones(v)

    @model_validator(mode="after")
    def _ladder(self) -> "TieredSpotPoolsProps":
        tiers = self.all_tiers
        if not self.tiers or len(tiers) > 100:
            raise KarpenterGpuError("KG185", prop="tiers", value=len(self.tiers),
                                    allowed="1..100 tiers (each needs its own weight in 1..100)",
                                    fix="list the tiers, most preferred first")
        suffixes = [t.suffix for t in tiers]
        if len(set(suffixes)) != len(suffixes):
            raise KarpenterGpuError("KG185", prop="tiers.suffix", value=suffixes, allowed="distinct suffixes",
                                    fix="name each tier differently, e.g. 'a10g-spot', 't4-spot'")
        given = [t.weight for t in tiers]
        if all(w is None for w in given) and len(tiers) > MAX_DERIVED_TIERS:
            raise KarpenterGpuError("KG185", prop="tiers", value=len(tiers),
                                    allowed=f"at most {MAX_DERIVED_TIERS} tiers when weights are derived (each "
                                            "needs its own weight below 100, the reserved pool default)",
                                    fix="give every tier a weight, or use fewer tiers")
        if any(w is not None for w in given):
            if None in given:
                raise KarpenterGpuError("KG185", prop="tiers.weight", value=given,
                                        allowed="weights on every tier or on none (then derived from the order)",
                                        fix="drop the weights, or give every tier one")
            weights = [w for w in given if w is not None]  # all of them: None was refused above
            if any(not 1 <= w <= 100 for w in weights) or any(a <= b for a, b in itertools.pairwise(weights)):
                raise KarpenterGpuError("KG185", prop="tiers.weight", value=given,
                                        allowed="strictly decreasing weights within 1..100, in tier order "
                                                "(equal weights make the order arbitrary)",
                                        fix="e.g. 100, 50, 10")
        if self.on_demand_floor is not None and self.on_demand_floor.capacity_types != (CapacityType.ON_DEMAND,):
            raise KarpenterGpuError("KG185", prop="on_demand_floor.capacity_types",
                                    value=[str(c) for c in self.on_demand_floor.capacity_types],
                                    allowed="(on-demand,) only: the floor is what runs when spot is gone",
                                    fix="set capacity_types=(CapacityType.ON_DEMAND,) on the floor tier")
        return self

    @property
    def all_tiers(self) -> tuple[SpotTier, ...]:
        return self.tiers + ((self.on_demand_floor,) if self.on_demand_floor else ())

    @property
    def weights(self) -> tuple[int, ...]:
        tiers = self.all_tiers
        given = tuple(t.weight for t in tiers if t.weight is not None)  # validated: on every tier or on none
        return given if given else derived_weights(len(tiers))


class TieredSpotPoolsKwargs(TypedDict, total=False):
    """The keyword props of :class:`TieredSpotPools`: the fields of :class:`TieredSpotPoolsProps`, same types."""

    name: str
    tiers: tuple[SpotTier, ...]
    on_demand_floor: SpotTier | None
    labels: Mapping[str, str]
    taints: tuple[Taint, ...]
    zones: tuple[str, ...]
    architectures: tuple[str, ...]
    consolidate_after: Duration
    expire_after: Duration
    budgets: tuple[Budget, ...]
    disruption_windows: tuple[DisruptionWindow, ...]


class TieredSpotPools(ScopedConstruct):
    """Weighted GPU NodePools tried in order: e.g. a10g spot → t4 spot → a10g on-demand.

    Karpenter tries higher-weight pools first; a pool without weight has weight 0 and silently
    becomes the last resort. Here every tier gets a weight: given ones must be strictly decreasing,
    otherwise they are derived from the order (90, 80, 70 …: below 100, the default of a
    :class:`ReservedCapacityPool`, which is tried first). Each tier is a
    :class:`GpuInferencePool` (``pools``) with the shared taints, labels and disruption settings.

    Example::

        TieredSpotPools(chart, "Batch", node_class=nc, name="gpu-batch", tiers=(
            SpotTier(suffix="a10g-spot", gpu_names=("a10g",), gpu_limit=20),
            SpotTier(suffix="t4-spot", gpu_names=("t4",), gpu_limit=20)),
            on_demand_floor=SpotTier(suffix="a10g-on-demand", gpu_names=("a10g",), gpu_limit=10,
                                     capacity_types=(CapacityType.ON_DEMAND,)))
    """

    __signature__ = ConstructSignature()

    def __init__(self, scope: Construct, id: str, *, node_class: GpuNodeClass | AutoModeNodeClass,
                 props: TieredSpotPoolsProps | None = None, **kwargs: Unpack[TieredSpotPoolsKwargs]) -> None:
        """Keyword props (see :class:`TieredSpotPoolsProps` for defaults) or ``props=``, not both (KG820)."""
        path = path_of(scope, id)
        check_node_class(node_class, path)
        self.props = auto_mode_defaults(build(TieredSpotPoolsProps, path, props, **kwargs), node_class)
        p = self.props
        shared = {k: getattr(p, k) for k in ("labels", "taints", "zones", "architectures", "consolidate_after",
                                             "expire_after", "budgets", "disruption_windows")}
        # Validate every tier before adding anything to the tree.
        tier_props = [build(GpuInferencePoolProps, f"{path}/{t.suffix}", None,
                            name=f"{p.name}-{t.suffix}", weight=w, gpu_names=t.gpu_names, gpu_limit=t.gpu_limit,
                            capacity_types=t.capacity_types, min_gpu_memory=t.min_gpu_memory,
                            instance_sizes=t.instance_sizes, **shared)
                      for t, w in zip(p.all_tiers, p.weights)]
        super().__init__(scope, id)
        self.pools = tuple(GpuInferencePool(self, t.suffix, node_class=node_class, props=tp)
                           for t, tp in zip(p.all_tiers, tier_props))
