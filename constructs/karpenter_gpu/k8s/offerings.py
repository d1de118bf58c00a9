"""Instance-type requirements, offerings and NodeOverlay application, as Karpenter v1.14.1 does them.

- :func:`instance_requirements`: the requirements an instance type carries (aws
  ``pkg/providers/instancetype/types.go`` ``computeRequirements``): every modelled label is defined,
  absent ones as DoesNotExist, and ``instance-hypervisor`` is ``In [""]`` for bare-metal types (EC2
  reports no hypervisor, the label is the empty string, not missing).
- :class:`Offering`: one (capacity type, zone) of an instance type (a reserved one also names its capacity
  reservation). Without AWS facts the catalog has no per-zone availability, so zones are the ones the manifests
  name plus one "other zones" offering; with them (:mod:`~karpenter_gpu.k8s.aws_facts`) the zones are the ones
  the facts and manifests name and :func:`type_offerings` builds each type's offerings as the provider does.
- NodeOverlay application (:mod:`karpenter_gpu.k8s.overlay_resolution`): the NodeOverlay controller (``pkg/controllers/nodeoverlay/controller.go``
  ``Reconcile``, ``validateAndUpdateInstanceTypeOverrides``, ``getOverlaidOfferings``) and its store
  (``store.go`` ``applyPriceOverlays``, ``isOfferingUpdateConflicting``, ``isCapacityUpdateConflicting``):
  overlays in weight order; a price applies per offering, the first (highest-weight) overlay winning;
  capacity merges per resource; an overlay that conflicts with an equal-weight one already applied is
  dropped everywhere (``ValidationSucceeded=False``, reason Conflict).

Overlays are indexed by the pools and instance types they can match, so applying them costs in
proportion to the matches, not to pools × overlays.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from collections.abc import Mapping  # isinstance checks: the abc directly, not typing's alias
from typing import Any, Iterable, Sequence

from karpenter_gpu.k8s.aws_facts import AwsFacts, Reservation
from karpenter_gpu.k8s.labels import Label, WELL_KNOWN_LABELS, with_auto_mode_aliases
from karpenter_gpu.k8s.scheduling import Requirement, Requirements
from karpenter_gpu.k8s.views import NodePoolView, OverlayView

__all__ = [
    "RESERVATION_LABELS",
    "Offering",
    "OfferingPrice",
    "instance_requirements",
    "node_labels",
    "pool_offerings",
    "reservation_requirements",
    "type_offerings",
    "zone_universe",
]

#: Labels the provider always sets, with the value it uses when EC2 reports nothing.
_EMPTY_WHEN_ABSENT = {Label.INSTANCE_HYPERVISOR: ""}


def node_labels(labels: Mapping[str, str]) -> dict[str, str]:
    """An instance type's labels as a node carries them: ``instance-hypervisor`` is "" on ``.metal`` types.

    Each karpenter.k8s.aws attribute also under its EKS Auto Mode spelling (``eks.amazonaws.com/instance-gpu-name``,
    :data:`~karpenter_gpu.k8s.labels.AUTO_MODE_ALIASES`): the one place where both spellings meet, so every
    analyzer gives a pool or pod written with either the same instance types. Which spelling a pool or pod may
    use undeclared is the pool's flavour (:attr:`~karpenter_gpu.k8s.views.NodePoolView.well_known_labels`).
    """
    out = dict(labels)
    for key, empty in _EMPTY_WHEN_ABSENT.items():
        out.setdefault(key, empty)
    return with_auto_mode_aliases(out)


def instance_requirements(labels: Mapping[str, str], modelled: Iterable[str]) -> Requirements:
    """``computeRequirements``: ``key In [value]`` for each label, DoesNotExist for a modelled key the type
    lacks (e.g. no GPU labels on Inferentia), ``instance-hypervisor In [""]`` on bare metal."""
    full = node_labels(labels)
    return Requirements(Requirement.new(k, "In", (full[k],)) if k in full else Requirement.new(k, "DoesNotExist")
                        for k in sorted(set(modelled) | set(full)))


@dataclass(frozen=True)
class Offering:
    """One capacity type in one zone. ``zone`` None stands for every zone no manifest names; ``reservation`` is the
    capacity reservation of a reserved offering built from AWS facts (None: no facts, or not reserved)."""

    capacity_type: str
    zone: str | None
    requirements: Requirements = field(compare=False, hash=False, repr=False)
    reservation: str | None = None
    #: A reserved offering built from AWS facts: its reservation's type (``default``, ``capacity-block``), whether it
    #: is interruptible, and the instances it has left (``ReservationCapacity``).
    reservation_type: str | None = field(default=None, compare=False)
    interruptible: bool = field(default=False, compare=False)
    reservation_capacity: int = field(default=0, compare=False)

    @property
    def label(self) -> str:
        where = f"{self.capacity_type}/{self.zone if self.zone is not None else 'other zones'}"
        return f"{where} ({self.reservation})" if self.reservation else where


def zone_universe(pools: Sequence[NodePoolView], overlays: Sequence[OverlayView]) -> tuple[str, ...]:
    """Every zone a requirement of a pool or overlay names, with In or NotIn: the zones whose offerings can differ.

    A NotIn zone counts too: the provider's offerings are per zone (``InjectOfferings``), and
    ``Offerings.Compatible`` (``getOverlaidOfferings``) leaves out exactly the offering of the zone ``NotIn``
    names, so that zone cannot share the "other zones" offering with the ones it does not name."""
    zones: set[str] = set()
    for reqs in [p.template_requirements for p in pools] + [o.requirements for o in overlays]:
        if Label.ZONE in reqs:
            zones |= reqs.get(Label.ZONE).values
    return tuple(sorted(zones))


#: The labels of a reserved offering (``ReservedCapacityResolver.ResolveOfferings``); on-demand and spot offerings
#: carry them as DoesNotExist (``BaseResolver.ResolveOfferings``), so a requirement such as
#: ``capacity-reservation-type In [capacity-block]`` admits reserved offerings of that type only.
RESERVATION_ID = "karpenter.k8s.aws/capacity-reservation-id"
RESERVATION_TYPE = Label.CAPACITY_RESERVATION_TYPE
RESERVATION_INTERRUPTIBLE = "karpenter.k8s.aws/capacity-reservation-interruptible"
RESERVATION_LABELS: frozenset[str] = frozenset({RESERVATION_ID, RESERVATION_TYPE, RESERVATION_INTERRUPTIBLE})


def offering_of(capacity_type: str, zone: str | None, named: tuple[str, ...]) -> Offering:
    zone_req = Requirement.new(Label.ZONE, "In", (zone,)) if zone is not None else \
        Requirement.new(Label.ZONE, "NotIn", named)
    reqs = [Requirement.new(Label.CAPACITY_TYPE, "In", (capacity_type,)), zone_req]
    if capacity_type != "reserved":  # a reserved one without facts: which reservation is not known
        reqs.extend(Requirement.new(k, "DoesNotExist") for k in sorted(RESERVATION_LABELS))
    return Offering(capacity_type, zone, Requirements(reqs))


def pool_offerings(pool: NodePoolView, named_zones: tuple[str, ...], memo: dict | None = None, *,
                   reserved: bool = True, closed: bool = False) -> tuple[Offering, ...]:
    """The offerings the pool's template admits, in capacity-type preference order then zone.

    Only the template's capacity-type, zone and capacity-reservation label requirements decide it; ``memo`` (one per
    query) shares the answer between pools that have the same ones. ``reserved`` False: the node class selects no capacity
    reservation, and the AWS provider creates reserved offerings only from the reservations it selects
    (``pkg/providers/instancetype/offering/reserved_capacity_resolver.go`` ``ResolveOfferings``: one reserved
    offering per ``nodeClass.CapacityReservations()`` entry of the type, resolved from
    ``capacityReservationSelectorTerms``), so there is none. ``closed``: AWS facts say which zones exist, so
    ``named_zones`` are all of them and there is no offering for "other zones"."""
    reqs = pool.template_requirements
    if memo is not None:
        key = ("offerings", named_zones, reqs.get(Label.CAPACITY_TYPE) if Label.CAPACITY_TYPE in reqs else None,
               reqs.get(Label.ZONE) if Label.ZONE in reqs else None, reserved, closed,
               tuple(reqs.get(k) for k in sorted(RESERVATION_LABELS) if k in reqs))
        if key not in memo:
            memo[key] = pool_offerings(pool, named_zones, reserved=reserved, closed=closed)
        return memo[key]
    out = []
    for ct in pool.capacity_types:
        if ct == "reserved" and not reserved:
            continue
        for zone in zones_of(named_zones, closed):
            offering = offering_of(ct, zone, named_zones)
            if reqs.compatible(offering.requirements, WELL_KNOWN_LABELS) is None:
                out.append(offering)
    return tuple(out)


def zones_of(named: tuple[str, ...], closed: bool) -> tuple[str | None, ...]:
    return named if closed else (*named, None)


#: ``ReservedCapacityResolver.ResolveOfferings``: a reserved offering is priced at the on-demand price / 10,000,000.
RESERVED_DIVISOR = Decimal(10_000_000)


def type_offerings(it_name: str, on_demand: Decimal | None, offerings: Sequence[Offering], facts: AwsFacts | None,
                   reservations: Sequence[Reservation] | None, template: Requirements,
                   now: Any = None, overlay_price: Decimal | None = None
                   ) -> tuple[tuple[Offering, Decimal | None, str | None], ...]:
    """The available offerings of one instance type among a pool's ``offerings``, each with its price and what the
    price is (None: the catalog's on-demand list price), as the AWS provider builds them
    (``offering.DefaultProvider.InjectOfferings``):

    - on-demand and spot (``BaseResolver.ResolveOfferings``): available only in a zone the type is offered in
      (``itZones.Has(zone)``); spot priced per zone from the spot facts (``pricing.DefaultProvider.SpotPrice``: no
      record for the zone, no price, so not available); a type the spot facts do not mention keeps the on-demand
      list price as a stand-in; an on-demand or spot offering without a price is not available, unless a NodeOverlay
      prices the type by name (``overlay_price``, :meth:`OverlayResolution.type_price`; ``GetOverlayPrice``): a type
      without an on-demand list price (``on_demand`` None, as in Karpenter's static price table) launches only from a
      capacity reservation or such an overlay;
    - reserved (``ReservedCapacityResolver.ResolveOfferings``), when the facts list the capacity reservations:
      one per reservation of the type the node class selects (``reservations``), in its zone, priced at the
      on-demand price / 10,000,000 (0 without one), available while it has instances left, the type is offered
      in its zone and it is not expiring; and only if the pool's template admits that offering. Without
      reservation facts the pool's reserved offerings stay as they are (``reservations`` None).
    """
    out: list[tuple[Offering, Decimal | None, str | None]] = []
    spot_basis = f"spot price from {', '.join(facts.sources.get('spot', ()))}" if facts is not None else None
    for o in offerings:
        if o.capacity_type == "reserved" and reservations is not None:
            continue
        if facts is not None and (o.zone is not None or facts.subnet_zones is not None) and \
                not facts.offered_in(it_name, o.zone):
            continue
        if o.capacity_type == "reserved":  # (without reservation facts: the pool's stand-in reserved offerings)
            out.append((o, on_demand, None))
            continue
        price, basis = on_demand, None  # the on-demand list price (for spot: the pricing provider's initial one)
        if o.capacity_type == "spot" and facts is not None and o.zone is not None:
            known, spot = facts.spot_price(it_name, o.zone)
            if known:
                price, basis = spot, spot_basis
        if price is None and overlay_price is not None:  # hasPrice false, then GetOverlayPrice
            price, basis = overlay_price, "price a NodeOverlay sets for the instance type (GetOverlayPrice)"
        if price is not None:  # Available requires hasPrice
            out.append((o, price, basis))
    if reservations is not None and any(o.capacity_type == "reserved" for o in offerings):
        price = on_demand / RESERVED_DIVISOR if on_demand is not None else Decimal(0)
        for r in reservations:
            if r.instance_type != it_name or r.available <= 0 or (now is not None and r.expiring(now)) or \
                    (facts is not None and not facts.offered_in(it_name, r.zone)):
                continue
            offering = Offering("reserved", r.zone, Requirements([
                Requirement.new(Label.CAPACITY_TYPE, "In", ("reserved",)), Requirement.new(Label.ZONE, "In", (r.zone,)),
                Requirement.new(RESERVATION_ID, "In", (r.id,)),
                Requirement.new(RESERVATION_TYPE, "In", (r.reservation_type,)),
                Requirement.new(RESERVATION_INTERRUPTIBLE, "In", ("true" if r.interruptible else "false",))]),
                r.id, r.reservation_type, r.interruptible, r.available)
            if template.compatible(offering.requirements, WELL_KNOWN_LABELS) is None:
                out.append((offering, price, f"reserved ({r.reservation_type} reservation {r.id}, {r.available} "
                                             "left): on-demand price / 10,000,000"))
    return tuple(out)


def reservation_requirements(it_name: str, reservations: Sequence[Reservation]) -> Requirements:
    """The capacity-reservation requirements an instance type carries (aws ``types.go`` ``computeRequirements``):
    ``In`` the ids, types and interruptible flags of the node class's reservations of the type (``nodeClass.
    CapacityReservations()``, whatever they have left), else DoesNotExist. A template or pod that excludes them
    (``capacity-reservation-type NotIn [default]`` on a type with an ODCR) refuses the type with all its offerings."""
    own = [r for r in reservations if r.instance_type == it_name]
    if not own:
        return Requirements(Requirement.new(k, "DoesNotExist") for k in sorted(RESERVATION_LABELS))
    return Requirements([
        Requirement.new(RESERVATION_ID, "In", tuple(r.id for r in own)),
        Requirement.new(RESERVATION_TYPE, "In", tuple(r.reservation_type for r in own)),
        Requirement.new(RESERVATION_INTERRUPTIBLE, "In", tuple("true" if r.interruptible else "false" for r in own))])


@dataclass(frozen=True)
class OfferingPrice:
    """An offering's price: the catalog's (an on-demand list price) unless ``overlay`` re-priced it or ``source``
    (AWS facts) says what it is."""

    offering: Offering
    price: Decimal | None
    overlay: str | None = None
    source: str | None = None

    @property
    def on_demand_stand_in(self) -> bool:
        """A spot or reserved offering shown at the catalog's on-demand price (no overlay priced it): not its
        real price (spot prices vary; Karpenter ranks a reserved offering at the on-demand price / 10,000,000,
        ``ReservedCapacityResolver.ResolveOfferings``, and the reservation is paid for whether used or not)."""
        return self.overlay is None and self.source is None and self.offering.capacity_type != "on-demand" \
            and self.price is not None

    @property
    def basis(self) -> str:
        """What ``price`` is: "on-demand list price", "on-demand list price standing in for <type>", or the
        overlay that set it."""
        if self.overlay is not None:
            return f"set by NodeOverlay {self.overlay}"
        if self.source is not None:
            return self.source
        if self.on_demand_stand_in:
            return f"on-demand list price standing in for {self.offering.capacity_type}"
        return "on-demand list price"
