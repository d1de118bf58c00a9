"""What launches for a NodeClaim: the AWS provider's launch filters and capacity-type choice (v1.14.1).

The scheduler hands the provider a NodeClaim with its instance-type options; the provider does not launch the
cheapest offering among them. ``pkg/providers/instance/instance.go`` ``DefaultProvider.Create`` runs
``filterInstanceTypes`` (the filters of ``pkg/providers/instance/filter/filter.go``, in this order; a filter that
would leave nothing leaves the list as it was), then ``getCapacityType``, then CreateFleet with the remaining
types' offerings of that capacity type (on-demand: lowest price; spot: price-capacity-optimized):

1. ``CompatibleAvailableFilter``: the types with an available offering compatible with the NodeClaim.
2. ``CapacityReservationTypeFilter`` (reserved allowed): the reserved offerings are partitioned by
   (reservation type, interruptible); the partition with the cheapest offering wins (equal prices: default, then
   capacity-block, then interruptible default); its types keep only its reserved offerings.
3. ``CapacityBlockFilter``: when the chosen partition is capacity-block, only the type with the cheapest
   capacity-block offering is left, with that offering (CreateFleet takes one capacity block).
4. ``ReservedOfferingFilter`` (reserved allowed): per type and zone the reserved offering with the most instances
   left; the types without one are dropped (unless none has one).
5. ``ExoticInstanceTypeFilter`` (no minValues): GPU, Neuron, Habana and ``metal`` types are dropped when another
   type is left (``it.Capacity`` of ``aws.amazon.com/neuron``, ``neuroncore``, ``amd.com/gpu``, ``nvidia.com/gpu``,
   ``habana.ai/gaudi`` all zero: a g6f, whose GPU share has no ``nvidia.com/gpu``, is a plain type).
6. ``SpotOfferingFilter`` (no minValues, on-demand and spot both allowed and offered): spot offerings dearer than the
   cheapest on-demand one are dropped.

Before them all, ``CompatibleAvailableFilter`` keeps only the types whose allocatable holds the NodeClaim's requests:
its pods' requests plus the DaemonSet overhead ``NodeClaim.addDaemonRequests`` added in ``FinalizeScheduling``
(:func:`claim_overheads`), which need not be the overhead of every option's own DaemonSets.

``getCapacityType``: reserved when a remaining type has a compatible available reserved offering, else spot when
one has a spot offering, else on-demand. Before that, the scheduler's ``FinalizeScheduling`` narrows a NodeClaim
that holds reserved offerings to ``capacity-type In [reserved]`` (``DisableReservedCapacityFallback``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Sequence

from karpenter_gpu.analysis.candidates import Candidate, OfferingFilter
from karpenter_gpu.k8s.labels import AMD_GPU, NEURON, NEURON_CORE, NVIDIA_GPU, Label
from karpenter_gpu.k8s.offerings import OfferingPrice

__all__ = ["Launch", "claim_overheads", "launch", "launches"]

_EXOTIC_RESOURCES = (NEURON, NEURON_CORE, AMD_GPU, NVIDIA_GPU, "habana.ai/gaudi")
#: CapacityReservationTypeFilter's order among partitions at the same price.
_PRIORITY = {("default", False): 0, ("capacity-block", False): 1, ("default", True): 2}
_INF = Decimal("Infinity")

_Working = list[tuple[Candidate, list[OfferingPrice]]]


@dataclass(frozen=True)
class Launch:
    """What the provider launches for a NodeClaim: the capacity type it asks EC2 for, the types (and their zones)
    it offers EC2 after the launch filters, the cheapest of those offerings, and the filters that dropped types."""

    capacity_type: str
    types: tuple[str, ...]
    zones: tuple[str | None, ...]
    instance: str
    offering: OfferingPrice
    dropped: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def price(self) -> Decimal | None:
        return self.offering.price


def _price(o: OfferingPrice) -> Decimal:
    return o.price if o.price is not None else _INF


def _partition(o: OfferingPrice) -> tuple[str, bool]:
    return (o.offering.reservation_type or "default", o.offering.interruptible)


def _reservation_type_filter(work: _Working) -> _Working:
    best: dict[tuple[str, bool], Decimal] = {}
    for _, offerings in work:
        for o in offerings:
            if o.offering.capacity_type == "reserved":
                key = _partition(o)
                best[key] = min(best.get(key, _INF), _price(o))
    if not best:
        return work
    chosen = min(best, key=lambda k: (best[k], _PRIORITY.get(k, 3)))
    out = [(c, [o for o in offerings if o.offering.capacity_type == "reserved" and _partition(o) == chosen])
           for c, offerings in work]
    return [(c, offerings) for c, offerings in out if offerings]


def _capacity_block_filter(work: _Working) -> _Working:
    first = next((o for _, offerings in work for o in offerings), None)
    if first is None or first.offering.capacity_type != "reserved" or \
            first.offering.reservation_type != "capacity-block":
        return work
    picked: tuple[Candidate, OfferingPrice] | None = None
    for c, offerings in work:
        blocks = [o for o in offerings if o.offering.reservation_type == "capacity-block"]
        if not blocks:
            continue
        cheapest = min(blocks, key=_price)
        if picked is None or _price(picked[1]) > _price(cheapest):
            picked = (c, cheapest)
    return work if picked is None else [(picked[0], [picked[1]])]


def _reserved_offering_filter(work: _Working) -> _Working:
    out: _Working = []
    for c, offerings in work:
        zonal: dict[str | None, OfferingPrice] = {}
        for o in offerings:
            if o.offering.capacity_type != "reserved":
                continue
            current = zonal.get(o.offering.zone)
            if current is None or o.offering.reservation_capacity > current.offering.reservation_capacity:
                zonal[o.offering.zone] = o
        if zonal:
            out.append((c, list(zonal.values())))
    return out or work


def _exotic(c: Candidate) -> bool:
    return "metal" in (c.instance.labels.get(Label.INSTANCE_SIZE) or "") or \
        any(c.capacity.get(r, Decimal(0)) != 0 for r in _EXOTIC_RESOURCES)


def _spot_offering_filter(work: _Working) -> _Working:
    on_demand = [_price(o) for _, offerings in work for o in offerings if o.offering.capacity_type == "on-demand"]
    if not on_demand or not any(o.offering.capacity_type == "spot" for _, offerings in work for o in offerings):
        return work
    cheapest = min(on_demand)
    out = [(c, [o for o in offerings if not (o.offering.capacity_type == "spot" and _price(o) > cheapest)])
           for c, offerings in work]
    return [(c, offerings) for c, offerings in out if offerings]


_Overhead = tuple[tuple[str, Decimal], ...]


def _min_resources(a: _Overhead, b: _Overhead) -> _Overhead:
    """``resources.MinResources(a, b)``: the keys both have, at the smaller amount."""
    other = dict(b)
    return tuple((k, min(v, other[k])) for k, v in a if k in other)


def claim_overheads(options: Sequence[Candidate]) -> tuple[dict[str, Decimal], ...]:
    """Every DaemonSet overhead ``NodeClaim.addDaemonRequests`` (Karpenter v1.14.1 ``scheduling/nodeclaim.go``) can
    add to the requests of a NodeClaim whose options are ``options``, smallest first.

    ``buildDaemonOverheadGroups`` (``scheduling/scheduler.go``) groups a template's types by the DaemonSets that run
    on them (:attr:`Candidate.daemons`) and returns the groups as ``lo.Values`` of a Go map: in an order that differs
    from run to run. ``addDaemonRequests`` folds the groups that still have an option in that order: while the
    running minimum has no resource it takes the group's overhead (a group without DaemonSets has none), else
    ``resources.MinResources`` keeps the resources both have, at the smaller amount. So with one group (v1.9's
    per-template overhead, or the same DaemonSets on every option) the answer is that group's overhead; with
    groups that differ it depends on the order, and each order's answer is returned.

    Every DaemonSet overhead has ``pods`` (``RequestsForPods`` counts the daemon pods; so does
    :mod:`~karpenter_gpu.k8s.daemonsets`), so the running minimum of
    groups with DaemonSets never loses every resource; only the group without DaemonSets empties it. Without that
    group the answer is ``MinResources`` of all groups, whatever the order. With it, it is nothing (that group last)
    or ``MinResources`` of the groups after it: of any non-empty subset of the others, the closure of their
    overheads under ``MinResources`` (linear in the answers, not in the orders)."""
    groups: dict[tuple[str, ...], _Overhead] = {}
    for c in options:
        groups.setdefault(tuple(sorted(c.daemons)), tuple(sorted(c.daemon_overhead.items())) if c.daemons else ())
    filled = [o for o in groups.values() if o]
    if not filled:
        return ({},)
    if len(filled) == len(groups):  # no group without DaemonSets
        whole = filled[0]
        for o in filled[1:]:
            whole = _min_resources(whole, o)
        return (dict(whole),)
    found = set(filled)
    frontier = set(filled)
    while frontier:
        frontier = {_min_resources(a, b) for a in frontier for b in filled} - found
        found |= frontier
    return ({},) + tuple(dict(o) for o in sorted(found, key=lambda o: (len(o), o)))


def _holds(c: Candidate, requests: Mapping[str, Decimal]) -> bool:
    """``resources.Fits(requests, allocatable)``: no allocatable amount below 0 and every request within it."""
    return all(v >= 0 for v in c.capacity.values()) and all(
        c.capacity.get(r, Decimal(1) if r == "pods" else Decimal(0)) >= v for r, v in requests.items())


def launches(options: Sequence[Candidate], allowed: OfferingFilter, capacity_types: Sequence[str],
             min_values: bool, requests: Mapping[str, Decimal]) -> tuple[Launch, ...]:
    """What may launch for a NodeClaim whose pods request ``requests`` in all: :func:`launch` for each overhead
    :func:`claim_overheads` gives, each different answer once, the cheapest first. More than one answer means
    Karpenter's own choice depends on the order of a Go map (the launched type is then not determined)."""
    out: list[Launch] = []
    for overhead in claim_overheads(options):
        total = dict(requests)
        for k, v in overhead.items():
            total[k] = total.get(k, Decimal(0)) + v
        launched = launch(options, allowed, capacity_types, min_values, total)
        if launched is not None and launched not in out:
            out.append(launched)
    return tuple(sorted(out, key=lambda o: (_price(o.offering), o.instance, o.types)))


def launch(options: Sequence[Candidate], allowed: OfferingFilter, capacity_types: Sequence[str],
           min_values: bool, requests: Mapping[str, Decimal] | None = None) -> Launch | None:
    """What launches for a NodeClaim whose options are ``options`` (the candidates the pod fits, within limits),
    whose offerings ``allowed`` admits (the pod's requirements), whose requirements allow ``capacity_types``
    (the pool's, narrowed by the pod) and carry minValues or not, and whose requests (pods and DaemonSet overhead)
    are ``requests`` (None: every option holds them). None: no option has an offering."""
    if requests is not None:  # CompatibleAvailableFilter: the NodeClaim's requests fit the type's allocatable
        options = [c for c in options if _holds(c, requests)]
    work: _Working = [(c, [o for o in c.offerings if allowed(o.offering)]) for c in options]
    work = [(c, offerings) for c, offerings in work if offerings]
    if not work:
        return None
    types = [ct for ct in capacity_types]
    if "reserved" in types and any(o.offering.capacity_type == "reserved" for _, offs in work for o in offs):
        types = ["reserved"]  # FinalizeScheduling: the NodeClaim holds reserved offerings
    work = [(c, [o for o in offerings if o.offering.capacity_type in types]) for c, offerings in work]
    work = [(c, offerings) for c, offerings in work if offerings]
    if not work:
        return None
    dropped: list[tuple[str, tuple[str, ...]]] = []

    def step(name: str, kept: _Working, before: _Working) -> _Working:
        names = {c.name for c, _ in kept}
        gone = tuple(sorted(c.name for c, _ in before if c.name not in names))
        if gone:
            dropped.append((name, gone))
        return kept

    if "reserved" in types:
        work = step("capacity-reservation-type-filter", _reservation_type_filter(work), work)
        work = step("capacity-block-filter", _capacity_block_filter(work), work)
        work = step("reserved-offering-filter", _reserved_offering_filter(work), work)
    if not min_values:
        generic = [(c, offerings) for c, offerings in work if not _exotic(c)]
        work = step("exotic-instance-filter", generic or work, work)
        if "on-demand" in types and "spot" in types:
            work = step("spot-offering-filter", _spot_offering_filter(work), work)
    capacity_type = next((ct for ct in ("reserved", "spot") if ct in types and any(
        o.offering.capacity_type == ct for _, offerings in work for o in offerings)), "on-demand")
    chosen = [(c, o) for c, offerings in work for o in offerings if o.offering.capacity_type == capacity_type]
    if not chosen:
        return None
    best_c, best_o = min(chosen, key=lambda p: (_price(p[1]), p[0].name, p[1].offering.zone or ""))
    return Launch(capacity_type, tuple(sorted({c.name for c, _ in chosen})),
                  tuple(sorted({o.offering.zone for _, o in chosen}, key=lambda z: (z is None, z or ""))),
                  best_c.name, best_o, tuple(dropped))
