"""NodeOverlay application, as Karpenter v1.14.1 does it: :class:`OverlayResolution` is the NodeOverlay controller
(``pkg/controllers/nodeoverlay/controller.go`` ``Reconcile``, ``validateAndUpdateInstanceTypeOverrides``,
``getOverlaidOfferings``) and its store (``store.go`` ``applyPriceOverlays``, ``isOfferingUpdateConflicting``,
``isCapacityUpdateConflicting``): overlays in weight order; a price applies per offering, the first
(highest-weight) overlay winning; capacity merges per resource; an overlay that conflicts with an equal-weight one
already applied is dropped everywhere (``ValidationSucceeded=False``, reason Conflict). Overlays are indexed by the
pools and instance types they can match, so applying them costs in proportion to the matches, not to pools ×
overlays. The offerings it prices are :mod:`karpenter_gpu.k8s.offerings`'.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from decimal import Decimal
from heapq import merge
from collections.abc import Mapping  # isinstance checks: the abc directly, not typing's alias
from typing import Any, Iterable, Sequence

from karpenter_gpu.k8s.labels import CAPACITY_TYPES, Label, OFFERING_LABELS, WELL_KNOWN_LABELS
from karpenter_gpu.k8s.scheduling import Requirement, Requirements
from karpenter_gpu.k8s.views import NodePoolView, OverlayView, ordered_overlays
from karpenter_gpu.perf import OwnerCache

from karpenter_gpu.k8s.offerings import Offering, OfferingPrice, offering_of, zones_of, zone_universe

__all__ = ["OVERLAY_REFUSED_RESOURCES", "Overlaid", "OverlayResolution", "overlay_refusal", "overlay_refusal_at"]


@dataclass(frozen=True)
class Overlaid:
    """An instance type of one pool after overlays: per-offering prices, capacity, the overlays that changed it."""

    prices: tuple[OfferingPrice, ...]
    capacity: Mapping[str, Any] = field(hash=False)
    overlays: tuple[str, ...] = ()

    @property
    def cheapest(self) -> Decimal | None:
        """``InstanceTypes.OrderByPrice``: the lowest price among the pool's compatible offerings."""
        known = [p.price for p in self.prices if p.price is not None]
        return min(known) if known else None


class _Pool:
    """A pool as the overlay controller sees it: its name/label requirements and offering universe.

    Built lazily and shared: most pools are never matched by an overlay, and pools with the same
    capacity types share one offering universe."""

    def __init__(self, view: NodePoolView, named: tuple[str, ...], shared: dict, reserved: bool | None,
                 closed: bool = False) -> None:
        self.view = view
        self.name = view.name
        if reserved is None:  # unknown node class: reserved offerings when the pool asks for them
            reserved = "reserved" in view.capacity_types
        types = tuple(ct for ct in CAPACITY_TYPES if ct != "reserved" or reserved)
        if types not in shared:
            universe = tuple(offering_of(ct, z, named) for ct in types for z in zones_of(named, closed))
            # the instance type's own offering keys, as computeRequirements defines them
            shared[types] = (universe, Requirements([Requirement.new(Label.CAPACITY_TYPE, "In", types)]))
        self.universe, self.offering_keys = shared[types]

    @cached_property
    def base(self) -> Requirements:
        """getOverlaidOfferings: ``karpenter.sh/nodepool In [name]`` plus the template labels."""
        return Requirements.from_labels({**self.view.string_labels, Label.NODEPOOL: self.view.name})


def _layered_compatible(layers: Sequence[Requirements], incoming: Requirements,
                        unknown: frozenset[str] = frozenset()) -> bool:
    """``Requirements.Compatible`` (no undefined keys allowed) of the Add-intersection of ``layers``.

    Keys in ``unknown`` are labels the provider defines on every instance type but the catalog does not
    model (region, zone-id, tenancy ...): their values are unknown, so they are assumed to match."""
    for key, req in incoming.items():
        combined: Requirement | None = None
        for layer in layers:
            if key in layer:
                combined = layer[key] if combined is None else combined.intersection(layer[key])
        if combined is None:
            if req.operator in ("NotIn", "DoesNotExist") or key in unknown:
                continue
            return False
        if not combined.has_intersection(req) and not (
                req.operator in ("NotIn", "DoesNotExist") and combined.operator in ("NotIn", "DoesNotExist")):
            return False
    return True


#: What an overlay of :attr:`OverlayResolution.zone_unknown` depends on that the core does not model.
SUBNET_ZONES = "the node class's subnet zones"

#: An instance type is offered in some zone: computeRequirements defines the key (any value, as far as we know).
_ZONE_LAYER = Requirements([Requirement(Label.ZONE, True, frozenset())])


#: ``karpv1.WellKnownResources`` after the AWS provider's ``init()`` (core and aws ``pkg/apis/v1/labels.go``): resources
#: an overlay's capacity may not set. The CRD refuses the first four; the provider's ones pass it.
OVERLAY_REFUSED_RESOURCES: frozenset[str] = frozenset({
    "cpu", "memory", "ephemeral-storage", "pods", "vpc.amazonaws.com/pod-eni", "aws.amazon.com/neuron",
    "aws.amazon.com/neuroncore", "habana.ai/gaudi", "vpc.amazonaws.com/efa"})


def overlay_refusal(overlay: OverlayView) -> str | None:
    """Why Karpenter's runtime validation refuses an overlay the CRD admits (None: it does not); see
    :func:`overlay_refusal_at`."""
    found = overlay_refusal_at(overlay)
    return None if found is None else found[1]


def overlay_refusal_at(overlay: OverlayView) -> tuple[str, str] | None:
    """The field (``spec.requirements`` or ``spec.capacity``) and the reason Karpenter's runtime validation refuses
    an overlay the CRD admits (None: it does not).

    ``NodeOverlay.RuntimeValidate`` (``pkg/apis/v1alpha1/nodeoverlay_validation.go``): ``validateRequirements``
    runs ``ValidateRequirement`` (``pkg/apis/v1/nodeclaim_validation.go``) on each requirement, whose
    ``validateWellKnownValues`` refuses ``karpenter.sh/capacity-type In`` with no known value; ``validateCapacity``
    refuses a capacity resource in ``WellKnownResources``. A refused overlay is never applied; its
    ValidationSucceeded condition is False with reason RuntimeValidation."""
    spec = overlay.manifest.get("spec")
    raw = spec.get("requirements") if isinstance(spec, Mapping) else None
    for req in raw if isinstance(raw, list) else ():
        if not isinstance(req, Mapping) or req.get("key") != Label.CAPACITY_TYPE or req.get("operator") != "In":
            continue
        given = req.get("values")
        values = given if isinstance(given, list) else []
        if not any(v in CAPACITY_TYPES for v in values):
            return ("spec.requirements", f"{Label.CAPACITY_TYPE} In {values} has no known value (one of "
                                         f"{', '.join(CAPACITY_TYPES)} is needed)")
    refused = sorted(str(k) for k in overlay.capacity if str(k) in OVERLAY_REFUSED_RESOURCES)
    if refused:
        return ("spec.capacity", f"capacity sets {', '.join(refused)}, which the provider reports itself "
                                 "(WellKnownResources)")
    return None


class OverlayResolution:
    """Which NodeOverlays Karpenter applies, and what they do to each (pool, instance type, offering).

    ``instance_types`` maps a name to its :func:`instance_requirements`. ``dropped`` maps each overlay
    refused for a conflict to the reason; ``invalid`` holds overlays Karpenter cannot read; ``refused`` maps each
    overlay its runtime validation refuses to the reason (:func:`overlay_refusal`). Neither invalid nor refused
    overlays are applied. ``zones``: the zones AWS facts name (:attr:`~karpenter_gpu.k8s.aws_facts.AwsFacts.zones`);
    ``closed``: the facts name every zone (:attr:`~karpenter_gpu.k8s.aws_facts.AwsFacts.knows_zones`), so no
    offering stands for "other zones" and a zone outside ``zones`` has none.

    ``reservations`` maps a pool's name to whether its node class selects capacity reservations (None or absent:
    unknown, then the pool has reserved offerings when it admits ``reserved``). The provider gives an instance
    type reserved offerings only from the reservations its node class selects, whatever the pool's requirements
    (``ReservedCapacityResolver.ResolveOfferings``; ``GetInstanceTypes`` filters nothing by the pool), and the
    overlay controller checks conflicts on every offering it gets (``validateInstanceTypesOverride``).
    """

    def __init__(self, overlays: Sequence[OverlayView], pools: Sequence[NodePoolView],
                 instance_types: Mapping[str, Requirements], zones: Sequence[str] = (), closed: bool = False,
                 reservations: Mapping[str, bool | None] | None = None) -> None:
        self.invalid = [o for o in overlays if o.problem is not None]
        self.refused = {o.name: why for o in overlays if o.problem is None and (why := overlay_refusal(o))}
        self.order = ordered_overlays([o for o in overlays if o.problem is None and o.name not in self.refused])
        self.closed = closed and bool(zones)
        # Closed: the provider's offerings are in the known zones only (aws v1.14.1
        # offering.DefaultProvider.InjectOfferings), so a zone a manifest names outside them has no offering and an
        # overlay matching only through it applies to none (getOverlaidOfferings).
        named = set(zones) if self.closed else set(zone_universe(pools, self.order)) | set(zones)
        self.named_zones = tuple(sorted(named))
        #: Not closed: overlays whose zone requirement (In) names only zones no pool and no fact names. Whether they
        #: apply anywhere depends on the node class's subnets' zones, which the core does not know: their capacity
        #: and prices are "not modelled: the node class's subnet zones" (see ``SUBNET_ZONES``).
        known = set(zone_universe(pools, ())) | set(zones)
        self.zone_unknown = frozenset() if self.closed else frozenset(
            o.name for o in self.order if Label.ZONE in o.requirements
            and not (req := o.requirements.get(Label.ZONE)).complement and req.values and req.values.isdisjoint(known))
        self.instance_types = instance_types
        seen = _SEEN.for_owner(instance_types)
        modelled = seen.get("modelled")
        if modelled is None:
            modelled = seen["modelled"] = frozenset(k for reqs in instance_types.values() for k in reqs)
        #: Well-known keys overlays name that no catalog type defines: assumed to match (see ``notes``).
        self.unmodelled = frozenset(k for o in self.order for k in o.requirements
                                    if k in WELL_KNOWN_LABELS and k not in modelled and k not in OFFERING_LABELS
                                    and k != Label.NODEPOOL)
        shared: dict = {}
        self._pools = {p.name: _Pool(p, self.named_zones, shared, (reservations or {}).get(p.name), self.closed)
                       for p in pools}
        self._zone = _ZONE_LAYER
        self._capacity = [_capacity(o) for o in self.order]
        # Index: which pools (None: any) and which instance types each overlay can match at all.
        self._pool_set: list[frozenset[str] | None] = []
        self._types: list[frozenset[str]] = []
        by_type_price: dict[str, list[int]] = {}
        by_type_capacity: dict[str, list[int]] = {}
        by_pool_price: dict[str, list[int]] = {}
        by_pool_capacity: dict[str, list[int]] = {}
        for i, overlay in enumerate(self.order):
            req = overlay.requirements.get(Label.NODEPOOL)
            pools_ = frozenset(req.values) if Label.NODEPOOL in overlay.requirements and not req.complement else None
            key = frozenset(r for k, r in overlay.requirements.items() if k not in OFFERING_LABELS)
            types = seen.get(key)
            if types is None:
                types = seen[key] = frozenset(name for name, it in instance_types.items()
                                              if _may_match(it, overlay.requirements))
            self._pool_set.append(pools_)
            self._types.append(types)
            for wanted, by_type, by_pool in ((overlay.changes_price, by_type_price, by_pool_price),
                                             (bool(self._capacity[i]), by_type_capacity, by_pool_capacity)):
                if not wanted:
                    continue
                if pools_ is None:
                    for name in types:
                        by_type.setdefault(name, []).append(i)
                else:
                    for name in pools_:
                        by_pool.setdefault(name, []).append(i)
        self._by_type = (by_type_price, by_type_capacity)
        self._by_pool = (by_pool_price, by_pool_capacity)
        self.dropped: dict[str, str] = {}
        self._plain: dict[tuple, tuple[OfferingPrice, ...]] = {}
        self._overlay_keys = frozenset(k for o in self.order for k in o.requirements)
        self._resolve_conflicts()

    def independent_of(self, pool: NodePoolView) -> bool:
        """No overlay looks at this pool's name or template labels: what overlays do to an instance type is the
        same for every such pool with the same offerings (``getOverlaidOfferings`` reads nothing else of it)."""
        keys = self._overlay_keys
        # An Auto Mode pool gets no overlay at all (see apply): never share a Karpenter pool's overlaid answer.
        return Label.NODEPOOL not in keys and keys.isdisjoint(pool.string_labels) and (not pool.auto_mode
                                                                                      or not self.order)

    def type_price(self, it_name: str) -> Decimal | None:
        """The price an overlay gives an instance type the pricing provider has no price for (None: none), as
        ``offering.DefaultProvider.GetOverlayPrice`` (aws provider v1.14.1) reads it; see :attr:`_type_prices`."""
        return self._type_prices.get(it_name)

    @cached_property
    def _type_prices(self) -> dict[str, Decimal]:
        """``GetOverlayPrice``'s table, built once: of the overlays whose validation succeeded (not invalid, refused
        or dropped for a conflict), those with ``price`` and exactly one requirement,
        ``node.kubernetes.io/instance-type In [...]``, price each type they name; listed by name, the last one wins
        (the API server lists them by name); a price ``strconv.ParseFloat`` cannot read is skipped."""
        prices: dict[str, Decimal] = {}
        for overlay in sorted(self.order, key=lambda o: o.name):
            if overlay.name in self.dropped or overlay.price is None:
                continue
            spec = overlay.manifest.get("spec")
            raw = spec.get("requirements") if isinstance(spec, Mapping) else None
            if not isinstance(raw, list) or len(raw) != 1 or not isinstance(raw[0], Mapping):
                continue
            req = raw[0]
            values = req.get("values")
            if req.get("key") != Label.INSTANCE_TYPE or req.get("operator") != "In" or not isinstance(values, list):
                continue
            try:
                float(overlay.price)
                price = Decimal(overlay.price)
            except (ValueError, ArithmeticError):
                continue
            prices.update((str(v), price) for v in values)
        return prices

    def universe(self, pool: NodePoolView) -> tuple[Offering, ...]:
        """Every offering the provider gives the pool's instance types, as the overlay controller sees them
        (``GetInstanceTypes`` does not filter offerings by the pool's requirements): each capacity type in each
        named zone and the "other zones" one."""
        return self._pools[pool.name].universe

    # ------------------------------------------------------------------ matching

    def _offerings(self, i: int, pool: _Pool, it_name: str, offerings: Sequence[Offering]) -> list[Offering]:
        """``getOverlaidOfferings``: [] when the instance type (with the pool's name and labels) is not
        compatible with the overlay, else the offerings compatible with it."""
        if it_name not in self._types[i]:
            return []
        allowed = self._pool_set[i]
        if allowed is not None and pool.name not in allowed:
            return []
        reqs = self.order[i].requirements
        if not _layered_compatible((pool.base, self.instance_types[it_name], pool.offering_keys, self._zone), reqs,
                                   self.unmodelled):
            return []
        return [o for o in offerings if reqs.compatible(o.requirements, WELL_KNOWN_LABELS) is None]

    def _candidates(self, kind: int, pool: str, it_name: str) -> Iterable[int]:
        """Overlay indexes, in weight order, that may match ``it_name`` in ``pool``; iterated lazily since
        the price walk stops at the first overlay that prices every offering."""
        general = self._by_type[kind].get(it_name, ())
        specific = [i for i in self._by_pool[kind].get(pool, ()) if it_name in self._types[i]]
        return merge(general, specific) if specific else general

    # ------------------------------------------------------------------ conflicts

    def _resolve_conflicts(self) -> None:
        """``validateAndUpdateInstanceTypeOverrides``: an overlay is checked against every pool and instance
        type before it is stored; one offering already priced, or one resource already set, by a stored
        overlay of the *same* weight is a conflict, and the whole overlay is dropped. Only equal weights
        can conflict, so only groups of equal weight are enumerated."""
        groups: dict[int, list[int]] = {}
        for i, overlay in enumerate(self.order):
            groups.setdefault(overlay.weight, []).append(i)
        for members in groups.values():
            if len(members) < 2:
                continue
            priced: dict[tuple[str, str, Offering], str] = {}
            sized: dict[tuple[str, str], tuple[str, frozenset[str]]] = {}
            for i in members:
                overlay = self.order[i]
                hits = [(pool, it, offs) for pool in self._pools.values() for it in sorted(self._types[i])
                        if (offs := self._offerings(i, pool, it, pool.universe))]
                clash = None
                for pool, it, offs in hits:
                    if overlay.changes_price:
                        clash = next((f"{priced[(pool.name, it, o)]} prices {it} {o.label} in pool {pool.name}"
                                      for o in offs if (pool.name, it, o) in priced), None)
                    if clash is None and self._capacity[i] and (pool.name, it) in sized:
                        other, resources = sized[(pool.name, it)]
                        shared = sorted(resources & set(self._capacity[i]))
                        if shared:
                            clash = f"{other} sets {', '.join(shared)} on {it} in pool {pool.name}"
                    if clash:
                        break
                if clash:
                    self.dropped[overlay.name] = (f"conflicts with an overlay of the same weight {overlay.weight}: "
                                                  f"{clash}")
                    continue
                for pool, it, offs in hits:
                    if overlay.changes_price:
                        for o in offs:
                            priced[(pool.name, it, o)] = overlay.name
                    if self._capacity[i]:
                        sized[(pool.name, it)] = (overlay.name, frozenset(self._capacity[i]))

    # ------------------------------------------------------------------ application

    def apply(self, pool: NodePoolView, it_name: str, offerings: Sequence[Offering], price: Decimal | None,
              capacity: Mapping[str, Any],
              base: Sequence[tuple[Decimal | None, str | None]] | None = None) -> Overlaid:
        """The instance type ``it_name`` of ``pool`` after overlays (``internalInstanceTypeStore.apply``).

        Each of ``offerings`` takes the price of the first overlay (in weight order) that matches it
        (``applyPriceOverlays``, which adjusts the offering's own price); capacity takes, per resource, the first
        overlay's quantity (``updateInstanceTypeCapacity``) merged over the type's own (``ApplyCapacityOverlay``).
        ``base``: each offering's own price and what it is (:func:`type_offerings`); None: ``price`` for all.
        """
        own = {o: b for o, b in zip(offerings, base)} if base is not None else {}
        state = self._pools[pool.name]
        prices: dict[Offering, OfferingPrice] = {}
        used: set[int] = set()
        # NodeOverlay is not available on EKS Auto Mode (aws/containers-roadmap#2690, open): AWS's Karpenter there
        # reads no overlays, so an Auto Mode pool keeps the types' own prices and capacity.
        for i in () if pool.auto_mode else self._candidates(0, pool.name, it_name):
            overlay = self.order[i]
            if overlay.name in self.dropped:
                continue
            matched = [o for o in self._offerings(i, state, it_name, offerings) if o not in prices]
            for o in matched:
                prices[o] = OfferingPrice(o, overlay.adjusted(own[o][0] if base is not None else price), overlay.name)
            if matched:
                used.add(i)
            if len(prices) == len(offerings):
                break
        added: dict[str, Any] = {}
        for i in () if pool.auto_mode else self._candidates(1, pool.name, it_name):
            overlay = self.order[i]
            if overlay.name in self.dropped or not self._offerings(i, state, it_name, state.universe):
                continue
            fresh = {k: v for k, v in self._capacity[i].items() if k not in added}
            added.update(fresh)
            if fresh:
                used.add(i)
        def plain(o: Offering) -> OfferingPrice:
            return OfferingPrice(o, own[o][0], source=own[o][1]) if base is not None else OfferingPrice(o, price)

        if not prices:  # untouched: share one tuple per (offerings, prices) across pools
            key = (tuple(offerings), price, tuple(base) if base is not None else None)
            out = self._plain.get(key)
            if out is None:
                out = self._plain[key] = tuple(plain(o) for o in offerings)
        else:
            out = tuple(prices.get(o) or plain(o) for o in offerings)
        merged = {**capacity, **added} if added else capacity
        return Overlaid(out, merged, tuple(self.order[i].name for i in sorted(used)))


#: What the overlay resolutions over an instance-types mapping found, per mapping (an :class:`~karpenter_gpu.perf.OwnerCache`): the keys its
#: types define, and per overlay requirement set the types it may match. Environments often repeat overlays (one
#: per pool family, copied across teams and stages), and the catalog's mapping is one per process
#: (``Catalog.requirements_by_type``).
_SEEN = OwnerCache()


def _capacity(overlay: OverlayView) -> dict[str, Any]:
    return {str(k): v for k, v in overlay.capacity.items()}


def _may_match(it: Requirements, incoming: Requirements) -> bool:
    """A necessary condition for ``getOverlaidOfferings``: on the keys the instance type itself defines
    (other than the offering keys), the overlay's requirement intersects. Template labels only narrow
    these keys further (``Requirements.Add`` intersects), so a type failing here never matches."""
    for key, req in incoming.items():
        if key in OFFERING_LABELS or key not in it:
            continue
        mine = it[key]
        if not mine.has_intersection(req) and not (
                req.operator in ("NotIn", "DoesNotExist") and mine.operator in ("NotIn", "DoesNotExist")):
            return False
    return True
