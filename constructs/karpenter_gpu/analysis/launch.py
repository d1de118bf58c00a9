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

``getCapacityType``: reserved when a remaining type has a compatible available reserved offering, else spot when
one has a spot offering, else on-demand. Before that, the scheduler's ``FinalizeScheduling`` narrows a NodeClaim
that holds reserved offerings to ``capacity-type In [reserved]`` (``DisableReservedCapacityFallback``).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Sequence

from karpenter_gpu.analysis.candidates import Candidate, OfferingFilter
from karpenter_gpu.k8s.labels import AMD_GPU, NEURON, NEURON_CORE, NVIDIA_GPU, Label
from karpenter_gpu.k8s.offerings import OfferingPrice

__all__ = ["Launch", "launch"]

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


def launch(options: Sequence[Candidate], allowed: OfferingFilter, capacity_types: Sequence[str],
           min_values: bool) -> Launch | None:
    """What launches for a NodeClaim whose options are ``options`` (the candidates the pod fits, within limits),
    whose offerings ``allowed`` admits (the pod's requirements) and whose requirements allow ``capacity_types``
    (the pool's, narrowed by the pod) and carry minValues or not. None: no option has an offering."""
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
