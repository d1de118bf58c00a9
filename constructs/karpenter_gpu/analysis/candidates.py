"""The instance types a pool can launch (:class:`Candidate`), what a simulation reads of a list of them
(:class:`CandidateFacts`), and their sizes against a pool's ``spec.limits`` (what is left of each, which types one node
of exceeds it: ``filterByRemainingResources``)."""

from __future__ import annotations

from collections.abc import Mapping  # isinstance checks: the abc directly, not typing's alias
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Sequence

from karpenter_gpu.analysis.catalog import InstanceType
from karpenter_gpu.analysis.notes import amount_text
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.labels import AMD_GPU, NEURON, NEURON_CORE, NVIDIA_GPU, WELL_KNOWN_LABELS, Label
from karpenter_gpu.k8s.offerings import Offering, OfferingPrice
from karpenter_gpu.k8s.scheduling import Requirements, atoi
from karpenter_gpu.k8s.units import Quantity
from karpenter_gpu.k8s.views import NodePoolView
from karpenter_gpu.perf import Store

__all__ = [
    "UNMODELLED_LIMITS",
    "Candidate",
    "CandidateFacts",
    "OfferingFilter",
    "derived_of",
    "limit_amount",
    "node_resource",
    "price_key",
    "quantity",
    "remaining_limits",
    "within_limits",
]


@dataclass(frozen=True)
class Candidate:
    """An instance type a pool admits, with price and capacity after NodeOverlays.

    ``capacity`` is the type's allocatable (cpu cores, memory bytes, pods, extended resources)
    with overlay capacity merged in; ``overlays`` names the overlays that changed this candidate.
    ``offerings`` holds each offering the pool admits with its price after overlays; ``price`` is the
    cheapest of them (``InstanceTypes.OrderByPrice``).
    """

    instance: InstanceType
    price: Decimal | None
    capacity: Mapping[str, Decimal] = field(hash=False)
    overlays: tuple[str, ...] = ()
    offerings: tuple[OfferingPrice, ...] = field(default=(), hash=False)
    #: What ``spec.limits`` count for one node (``it.Capacity``: vCPUs, memory after the VM overhead, pods,
    #: extended resources after overlays); empty: taken from ``capacity`` and the labels.
    limit_capacity: Mapping[str, Decimal] = field(default_factory=dict, hash=False)
    #: The requests of the DaemonSets that run on this type in this pool (``daemonOverhead``), pods included.
    daemon_overhead: Mapping[str, Decimal] = field(default_factory=dict, hash=False)
    #: The DaemonSets counted in ``daemon_overhead``.
    daemons: tuple[str, ...] = ()
    #: The capacity-reservation requirements the type carries in this pool's node class
    #: (:func:`~karpenter_gpu.k8s.offerings.reservation_requirements`); empty when the reservations are not known.
    reservation_requirements: Requirements = field(default_factory=Requirements, hash=False, compare=False)
    #: The zones of the type's own ``topology.kubernetes.io/zone`` requirement (``computeRequirements``: the zones it
    #: is offered in that have a subnet of the node class), whatever the pool asks for; None: not known.
    type_zones: frozenset[str] | None = field(default=None, hash=False, compare=False)

    def free(self, resource: str) -> Decimal:
        """What a pod can be given of ``resource``: allocatable less the DaemonSets' requests."""
        default = Decimal(1) if resource == "pods" else Decimal(0)
        return self.capacity.get(resource, default) - self.daemon_overhead.get(resource, Decimal(0))

    def price_for(self, requirements: Requirements) -> Decimal | None:
        """The cheapest offering compatible with ``requirements`` (a pod's), as ``OrderByPrice`` ranks it."""
        best = self._cheapest(OfferingFilter(requirements))
        return self.price if not self.offerings else (best.price if best is not None else None)

    def cheapest_offering(self, requirements: Requirements) -> str | None:
        """The label of the cheapest offering compatible with ``requirements`` (ties: preference order)."""
        best = self._cheapest(OfferingFilter(requirements))
        return None if best is None else best.offering.label

    def _cheapest(self, allowed: "OfferingFilter") -> OfferingPrice | None:
        options = [o for o in self.offerings if allowed(o.offering)]
        return min(options, key=lambda o: (o.price is None, o.price or Decimal(0))) if options else None

    def offering_names(self, requirements: Requirements | None = None) -> tuple[str, ...]:
        return tuple(o.offering.label for o in self.offerings if requirements is None
                     or requirements.compatible(o.offering.requirements, WELL_KNOWN_LABELS) is None)

    @property
    def name(self) -> str:
        return self.instance.name

    @property
    def gpus(self) -> int:
        """GPUs the scheduler sees after overlays (``nvidia.com/gpu``, else ``amd.com/gpu``; 0 if none)."""
        for resource in (NVIDIA_GPU, AMD_GPU):
            if self.capacity.get(resource):
                return int(self.capacity[resource])
        return 0


class OfferingFilter:
    """Whether an offering is compatible with a pod's requirements (``Offerings.Compatible`` with
    ``AllowUndefinedWellKnownLabels``), remembered per (capacity type, zone, reservation) for one query.

    The offering standing for the zones no manifest names (``NotIn`` the named ones) is not compatible with a pod
    whose zone requirements intersect to DoesNotExist: every real offering is ``In`` one zone (aws
    ``BaseResolver.ResolveOfferings``), which DoesNotExist never meets, while ``Requirements.Intersects`` lets
    ``NotIn`` meet ``DoesNotExist``."""

    def __init__(self, requirements: Requirements) -> None:
        self.requirements = requirements
        zone = requirements.get(Label.ZONE) if Label.ZONE in requirements else None
        self._no_zone = zone is not None and not zone.complement and not zone.values
        self._seen: dict[tuple[str, str | None, str | None], bool] = {}

    def __call__(self, offering: Offering) -> bool:
        key = (offering.capacity_type, offering.zone, offering.reservation)
        if key not in self._seen:
            self._seen[key] = not (offering.zone is None and self._no_zone) and \
                self.requirements.compatible(offering.requirements, WELL_KNOWN_LABELS) is None
        return self._seen[key]


def price_key(c: Candidate) -> tuple:
    return (c.price is None, c.price if c.price is not None else Decimal(0), c.instance.name)


def quantity(value: Any, where: str) -> Decimal:
    """``value`` (a limit or an overlay's capacity) in base units; KG711 names ``where`` when it is no quantity.
    Pools repeat their limits' texts: each text (or int) is parsed once per process (:data:`_AMOUNTS`)."""
    key = (type(value), value) if type(value) in (str, int) else None
    amount = _AMOUNTS.get(key) if key is not None else None
    if amount is not None:
        return amount
    try:
        amount = Quantity.parse(value).as_decimal()
    except KarpenterGpuError:
        raise KarpenterGpuError("KG711", prop=where, value=value, allowed="a Kubernetes quantity such as '8', '200Gi'",
                                fix="write the quantity as Kubernetes does") from None
    return _AMOUNTS.put(key, amount) if key is not None else amount


def limit_amount(pool: NodePoolView, resource: str) -> Decimal | None:
    """A limit of the pool in base units (None: no such limit); KG711 when it is no quantity."""
    if resource not in pool.limits:
        return None
    return quantity(pool.limits[resource], f"NodePool {pool.name}.spec.limits.{resource}")


#: (type, text or int) -> its amount, for :func:`quantity`.
_AMOUNTS = Store()


#: Limits the catalog cannot turn into a node's capacity (ephemeral storage depends on block devices, pod ENIs on a
#: table of the provider's): noted, not applied.
UNMODELLED_LIMITS = ("ephemeral-storage", "vpc.amazonaws.com/pod-eni")


class CandidateFacts:
    """What a simulation reads of one list of candidates, worked out once for the list: the pools that share their
    candidates (the memo's ``"candidates"`` entries) share it too (:func:`derived_of`). The list is never changed."""

    def __init__(self, candidates: Sequence[Candidate]) -> None:
        self.candidates = candidates
        self._sizes: dict[str, tuple[Decimal | None, ...]] = {}
        self._units: dict[str | None, str | None] = {}
        self._fills: dict[tuple[str, ...], tuple[tuple, tuple[str, ...], tuple[str, ...]]] = {}
        self.daemons = sorted({d for c in candidates for d in c.daemons})
        self.stand_ins = sorted({o.offering.capacity_type for c in candidates for o in c.offerings
                                 if o.on_demand_stand_in})
        self.stand_in_types = sorted({c.name for c in candidates for o in c.offerings if o.on_demand_stand_in}) \
            if self.stand_ins else []
        self.zero_gpu = [c.instance.name for c in candidates
                         if c.instance.labels.get(Label.GPU_MANUFACTURER) == "nvidia" and not c.capacity.get(NVIDIA_GPU)]
        self.arm64 = [c.instance.name for c in candidates
                      if c.instance.labels.get(Label.ARCH) == "arm64" and c.instance.gpus]
        self.unpriced = [c.instance.name for c in candidates if c.price is None]
        self.overlays = sorted({o for c in candidates for o in c.overlays})

    def sizes(self, resource: str) -> tuple[Decimal | None, ...]:
        """:func:`node_resource` of every candidate, in order."""
        got = self._sizes.get(resource)
        if got is None:
            got = self._sizes[resource] = tuple(node_resource(c, resource) for c in self.candidates)
        return got

    def beyond(self, limits: Sequence[tuple[str, str, Decimal]]) -> list[str | None]:
        """:func:`within_limits` of every candidate, in order."""
        return _first_broken(limits, [self.sizes(r) for r, _, _ in limits], len(self.candidates))

    def limit_unit(self, resource: str | None) -> str | None:
        if resource not in self._units:
            self._units[resource] = _limit_unit(resource, self.candidates)
        return self._units[resource]

    def fill_items(self, resources: tuple[str, ...]) -> tuple[tuple, tuple[str, ...], tuple[str, ...]]:
        """For :func:`dearest_fill_cached`: (name, price, size per resource) of every priced candidate, the priced
        ones that need none of ``resources``, and the resources some priced candidate needs."""
        got = self._fills.get(resources)
        if got is None:
            priced = [i for i, c in enumerate(self.candidates) if c.price is not None]
            columns = [self.sizes(r) for r in resources]
            items = tuple((self.candidates[i].instance.name, self.candidates[i].price,
                           tuple(column[i] or Decimal(0) for column in columns)) for i in priced)
            free = tuple(name for name, _, size in items if not any(size))
            bounded = tuple(r for j, r in enumerate(resources) if any(size[j] for _, _, size in items))
            got = self._fills[resources] = (items, free, bounded)
        return got


def derived_of(candidates: Sequence[Candidate], memo: dict) -> CandidateFacts:
    """The :class:`CandidateFacts` of ``candidates``, kept in ``memo`` (which holds the list, so its id is not reused)."""
    key = ("derived", id(candidates))
    if key not in memo:
        memo[key] = CandidateFacts(candidates)
    return memo[key]


def _limit_unit(resource: str | None, candidates: Sequence[Candidate]) -> str | None:
    """What the accelerator limit counts: GPUs, or shares when overlays advertise more nvidia.com/gpu than GPUs."""
    if resource is None:
        return None
    if resource == NVIDIA_GPU and any(c.capacity.get(NVIDIA_GPU, Decimal(0)) > c.instance.gpus for c in candidates):
        return ("nvidia.com/gpu counts time-slice or MIG shares, not GPUs: NodeOverlays advertise more "
                "nvidia.com/gpu than the nodes have GPUs")
    return {NVIDIA_GPU: "GPUs", AMD_GPU: "GPUs", NEURON: "Neuron devices", NEURON_CORE: "NeuronCores"}.get(resource)


def node_resource(c: Candidate, resource: str) -> Decimal | None:
    """The node's capacity in a limit's terms (limits count ``it.Capacity``, not allocatable); None: not modelled."""
    if resource == "nodes":
        return Decimal(1)
    if resource in UNMODELLED_LIMITS:
        return None
    if c.limit_capacity:
        return c.limit_capacity.get(resource, Decimal(0))
    labels = c.instance.labels
    if resource == "cpu":
        value = atoi(labels.get(Label.INSTANCE_CPU))
        return Decimal(value) if value is not None else c.capacity.get("cpu")
    if resource == "memory":
        value = atoi(labels.get(Label.INSTANCE_MEMORY))
        return Decimal(value) * 2**20 if value is not None else c.capacity.get("memory")
    return c.capacity.get(resource, Decimal(0))


def remaining_limits(pool: str, limits: Mapping[str, Any], used: Mapping[str, Decimal]
                      ) -> list[tuple[str, str, Decimal]]:
    """(resource, as shown, amount) of what is left of each of a pool's ``spec.limits`` after its existing nodes:
    the scheduler starts from the limits and subtracts each active state node's capacity
    (``NewScheduler`` ``remainingResources``, ``Scheduler.updateRemainingResources`` with ``resources.Subtract``,
    which keeps only the limited resources; one the capacity does not name counts 0). Shown as the limit, with what
    is left when a node uses some of it."""
    out = []
    for resource, raw in limits.items():
        limit = quantity(raw, f"NodePool {pool}.spec.limits.{resource}")
        taken = used.get(str(resource))
        if taken is None:
            out.append((str(resource), str(raw), limit))
        else:
            left = limit - taken
            out.append((str(resource), f"{raw} ({amount_text(str(resource), left)} left after the existing nodes)",
                        left))
    return out


def within_limits(c: Candidate, limits: list[tuple[str, str, Decimal]]) -> str | None:
    """None when one node of ``c`` fits under what is left of every limit, else the limit it breaks
    (``filterByRemainingResources``: the type's capacity above what is left; ``it.Capacity`` has no ``nodes``, so
    a ``nodes`` limit excludes a type only once it is below 0, and a resource the catalog does not model breaks
    it only then too, every capacity being at least 0)."""
    return _first_broken(limits, [(node_resource(c, r),) for r, _, _ in limits], 1)[0]


def _first_broken(limits: Sequence[tuple[str, str, Decimal]], columns: Sequence[Sequence[Decimal | None]],
                  count: int) -> list[str | None]:
    """:func:`within_limits` of ``count`` nodes, ``columns[j][i]`` being node i's :func:`node_resource` of
    ``limits[j]``'s resource."""
    out: list[str | None] = [None] * count
    for (resource, shown, limit), column in zip(limits, columns):
        if resource == "nodes":  # it.Capacity has no nodes
            column = [Decimal(0)] * count
        for i, amount in enumerate(column):
            if out[i] is None and (amount or Decimal(0)) > limit:
                out[i] = f"{resource} {shown}"
    return out
