"""Which instance types a NodePool can launch and what it can cost.

Works on manifest dicts (what ``cdk8s synth`` writes, or YAML read from ``dist/``) against an
instance-type :class:`~karpenter_gpu.analysis.catalog.Catalog`; pure Python, no cdk8s/jsii import.
Every Karpenter rule comes from the scheduling core (:mod:`karpenter_gpu.k8s.scheduling`,
:mod:`~karpenter_gpu.k8s.views`, :mod:`~karpenter_gpu.k8s.offerings`), which cites the upstream
functions; this module only combines its answers with the catalog (the upstream FACTS.md §5, §6):

- An instance type is admitted when its requirements (``computeRequirements``: every modelled
  label defined, absent ones DoesNotExist, ``instance-hypervisor`` "" on bare metal) intersect the
  NodeClaim template's (``compatible`` in ``scheduling/nodeclaim.go``). Several requirements on one
  key intersect; an empty intersection is DoesNotExist on that key, which admits the types without
  the label. Template labels are ``In`` requirements.
- Offerings are capacity type × zone. No capacity-type requirement admits reserved, spot and
  on-demand (the provider prefers them in that order). The catalog has no per-zone availability and
  only on-demand prices, which stand for every offering until an overlay re-prices it. AWS facts
  (``aws=``, :class:`~karpenter_gpu.k8s.aws_facts.AwsFacts`) give the zones each type is offered in, spot
  prices per zone and the capacity reservations the node class selects: offerings are then built as the
  provider builds them (:func:`~karpenter_gpu.k8s.offerings.type_offerings`).
- ``minValues``: fewer distinct values among the candidates than asked means Karpenter (default
  ``minValuesPolicy: Strict``) does not launch.
- NodeOverlays apply as the overlay controller applies them (:class:`~karpenter_gpu.k8s.overlay_resolution.OverlayResolution`):
  prices per offering, capacity per resource, equal-weight conflicts dropped everywhere.

What each pool's report says is a list of typed notes (:mod:`~karpenter_gpu.analysis.notes`); the candidates and
their limits are :mod:`~karpenter_gpu.analysis.candidates`, where a pod lands :mod:`~karpenter_gpu.analysis.pod_fit`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, UTC
from decimal import Decimal
from collections.abc import Mapping  # isinstance checks: the abc directly, not typing's alias
from typing import Any, Sequence

from karpenter_gpu.analysis import cost_notes as cost_note, notes as note
from karpenter_gpu.analysis.admits import unreadable
from karpenter_gpu.analysis.candidates import (
    Candidate, CandidateFacts, derived_of, limit_amount, price_key, quantity, remaining_limits,
)
from karpenter_gpu.analysis.catalog import INSTANCE_LABEL_KEYS, Catalog, InstanceType, default_catalog
from karpenter_gpu.analysis.node_classes import (
    Context, class_allocatable, class_capacity, class_compatibility, class_network, class_refusal, daemon_overhead,
    node_class, pool_reservations,
)
from karpenter_gpu.analysis.min_values import min_values
from karpenter_gpu.analysis.notes import Note, NoteKind
from karpenter_gpu.analysis.worst_case import Cost, dynamic_cost, static_cost
from karpenter_gpu.k8s.aws_facts import AwsFacts, Reservation
from karpenter_gpu.k8s.cluster_nodes import ClusterNode, pool_usage
from karpenter_gpu.k8s.daemonsets import daemon_sets
from karpenter_gpu.k8s.kubelet import KubeletSettings
from karpenter_gpu.perf import OwnerCache, paused_collector
from karpenter_gpu.k8s.labels import (
    ACCELERATOR_RESOURCES, AUTO_MODE_NODE_CLASS_KIND, NODE_CLASS_KIND, OFFERING_LABELS, Label, is_kind,
)
from karpenter_gpu.k8s.compatibility import NodeClassCompatibility
from karpenter_gpu.k8s.controller_settings import ControllerSettings
from karpenter_gpu.k8s.offerings import RESERVATION_LABELS, pool_offerings, reservation_requirements, type_offerings
from karpenter_gpu.k8s.overlay_resolution import SUBNET_ZONES, OverlayResolution
from karpenter_gpu.k8s.scheduling import Requirements
from karpenter_gpu.k8s.views import NodeClassView, NodePoolView, node_pools, ordered_pools, overlays as overlay_views

__all__ = ["PRICE_BASIS", "PoolReport", "price_basis", "simulate_pools"]

#: What the packaged catalog's prices are.
PRICE_BASIS = "us-east-1 on-demand list price"

# Labels Karpenter puts on instance types that the catalog does not model: requirements on them are noted.
_UNMODELLED_PREFIXES = ("karpenter.k8s.aws/", "topology.k8s.aws/", "eks.amazonaws.com/")
_UNMODELLED = frozenset({Label.REGION, Label.WINDOWS_BUILD})


# ---------------------------------------------------------------------------------------------
# Reports

@dataclass(frozen=True)
class PoolReport:
    """What one NodePool can launch.

    ``zones`` is empty when the pool does not restrict zones. ``candidates`` are sorted by price
    (after overlays; unknown prices last), then name; on dynamic pools they leave out the types one node of
    which already exceeds a limit (``filterByRemainingResources`` never launches them), listed in ``excluded``
    with the limit. ``worst_case_hourly`` is USD/hour (``price_basis`` says of what): on dynamic pools the
    dearest multiset of nodes that can be launched one after another before a ``spec.limits`` resource stops it
    (:func:`~karpenter_gpu.analysis.ceiling.dearest_fill`; ``worst_case_nodes`` holds it, ``bounded_by`` the
    limits that bound it; None with ``unbounded`` when no limit does); static pools ``replicas * dearest price``.
    ``limit_unit`` says what the accelerator limit counts (GPUs, or time-slice / MIG shares when NodeOverlays
    advertise more nvidia.com/gpu than the GPUs). ``problems`` are the notes that make ``launchable`` False.
    """

    name: str
    kind: str
    weight: int | None
    capacity_types: tuple[str, ...]
    zones: tuple[str, ...]
    candidates: tuple[Candidate, ...]
    gpu_limit: int | None
    worst_case_hourly: Decimal | None
    launchable: bool
    notes: tuple[Note, ...]
    problems: tuple[Note, ...] = ()
    replicas: int | None = None
    requirements: tuple[Mapping[str, Any], ...] = field(default=(), hash=False)
    template_labels: Mapping[str, str] = field(default_factory=dict, hash=False)
    taints: tuple[Mapping[str, Any], ...] = field(default=(), hash=False)
    limits: Mapping[str, Any] = field(default_factory=dict, hash=False)
    worst_case_instance: str | None = None
    view: NodePoolView | None = field(default=None, hash=False, compare=False, repr=False)
    dropped_overlays: Mapping[str, str] = field(default_factory=dict, hash=False)
    excluded: tuple[tuple[str, str], ...] = ()
    worst_case_nodes: tuple[tuple[str, int], ...] = ()
    worst_case_exact: bool = True
    bounded_by: tuple[str, ...] = ()
    unbounded: bool = False
    limit_unit: str | None = None
    price_basis: str = PRICE_BASIS
    #: The cluster's nodes of this pool that count against its limits (``simulate_pools(nodes=...)``: not marked
    #: for deletion), by name, and what they use (``NodePoolResourcesFor``: their capacity summed, ``nodes`` each 1).
    existing_nodes: tuple[str, ...] = ()
    used: Mapping[str, Decimal] = field(default_factory=dict, hash=False)
    #: The controller settings the pool was simulated under (``simulate_pools(settings=...)``).
    settings: ControllerSettings = field(default_factory=ControllerSettings, hash=False, compare=False, repr=False)
    #: Inputs that change which types launch and that the core does not model ("spec.placementGroupSelector"):
    #: no first choice and no worst case is stated for the pool (:class:`~karpenter_gpu.analysis.notes.NotModelled`).
    unmodelled: tuple[str, ...] = ()

    @property
    def remaining(self) -> dict[str, Decimal]:
        """What is left of each limit after the existing nodes (``Scheduler.updateRemainingResources``)."""
        return {r: amount for r, _, amount in remaining_limits(self.name, self.limits, self.used)}

    @property
    def gpu_names(self) -> tuple[str, ...]:
        """The GPU (or, for Neuron and other accelerators, the accelerator) names among the candidates."""
        return tuple(sorted({name for c in self.candidates
                             if (name := c.instance.gpu_name or c.instance.accelerator_name)}))

    @property
    def arm64_gpu_types(self) -> tuple[str, ...]:
        """Candidates that are arm64 GPU instance types (g5g): their pods need arm64 or multi-arch images."""
        return tuple(c.instance.name for c in self.candidates
                     if c.instance.labels.get(Label.ARCH) == "arm64" and c.instance.gpus)

    @property
    def price_range(self) -> tuple[Decimal, Decimal] | None:
        prices = [c.price for c in self.candidates if c.price is not None]
        return (min(prices), max(prices)) if prices else None

    @property
    def candidate_names(self) -> tuple[str, ...]:
        return tuple(c.instance.name for c in self.candidates)


# ---------------------------------------------------------------------------------------------
# Offerings and node classes


def _offering_notes(pool: NodePoolView, facts: AwsFacts | None = None
                    ) -> tuple[tuple[str, ...], list[Note], list[Note]]:
    """(declared zones, notes, problems) of the template's offering requirements."""
    notes: list[Note] = []
    problems: list[Note] = []
    reqs = pool.template_requirements
    if not pool.capacity_types:
        problems.append(note.NoCapacityType(reqs.get(Label.CAPACITY_TYPE)))
    if not pool.declares_capacity_type:
        notes.append(note.AnyCapacityType())
    if "reserved" in pool.capacity_types:
        notes.append(note.ReservedNeedsSelection())
    zones: tuple[str, ...] = ()
    zone = reqs.get(Label.ZONE)
    if Label.ZONE in reqs and not zone.complement:
        zones = tuple(sorted(zone.values))
        if not zones:
            problems.append(note.NoZone(zone))
        elif facts is not None and facts.sources.get("offerings"):
            notes.append(note.DeclaredZones(zones, tuple(facts.sources["offerings"])))
        else:
            notes.append(note.DeclaredZones(zones))
    return zones, notes, problems


def _overlay_capacity(resolution: OverlayResolution) -> None:
    for overlay in resolution.order:
        for key, value in overlay.capacity.items():
            quantity(value, f"NodeOverlay {overlay.name}.spec.capacity.{key}")


def _admitted(catalog: Catalog, reqs: Requirements, memo: dict) -> list[InstanceType]:
    """The catalog types whose requirements intersect ``reqs``. Only the keys the types define matter, so
    pools that differ in name, custom labels or offerings share one answer: per call, and across calls per
    catalog (the answer depends on the catalog's types and those requirements only)."""
    key = ("types", frozenset(r for k, r in reqs.items() if k in _TYPE_KEYS))
    if key not in memo:
        shared = _ADMITTED.for_owner(catalog)
        if key not in shared:
            shared[key] = tuple(it for it in catalog.types if it.requirements.conflicting_key(reqs) is None)
        memo[key] = list(shared[key])
    return memo[key]


#: What :func:`_admitted` found, across calls, per catalog.
_ADMITTED = OwnerCache()


_TYPE_KEYS = INSTANCE_LABEL_KEYS | {Label.INSTANCE_HYPERVISOR}


def _context(manifests: Sequence[Any], catalog: Catalog, facts: AwsFacts | None = None,
             settings: ControllerSettings | None = None) -> Context:
    classes = {(NODE_CLASS_KIND[1] if is_kind(m, NODE_CLASS_KIND) else AUTO_MODE_NODE_CLASS_KIND[1],
                view.name): view
               for m in manifests if is_kind(m, NODE_CLASS_KIND) or is_kind(m, AUTO_MODE_NODE_CLASS_KIND)
               for view in (NodeClassView.of(m),)}
    settings = settings if settings is not None else ControllerSettings()
    ignored = () if settings.node_overlay else tuple(sorted({view.name for view in overlay_views(manifests)}))
    return Context(classes, daemon_sets(manifests), price_basis(catalog, facts), facts, settings, ignored)


def price_basis(catalog: Catalog, facts: AwsFacts | None = None) -> str:
    """What the prices are: ``"us-east-1 on-demand list price"`` for the embedded catalog; with spot facts,
    ``"...; spot: prices from <files>"``; with reservation facts, reserved at on-demand / 10,000,000."""
    out = f"{catalog.region} on-demand list price" if catalog.region else "on-demand list price"
    if facts is not None and facts.sources.get("spot"):
        out += f"; spot: prices from {', '.join(facts.sources['spot'])}"
    if facts is not None and facts.knows_reservations:
        out += "; reserved: on-demand / 10,000,000 for the selected capacity reservations"
    return out


# ---------------------------------------------------------------------------------------------
# One pool, step by step


def _simulate(pool: NodePoolView, catalog: Catalog, resolution: OverlayResolution, memo: dict,
              context: Context | None = None, existing: Sequence[ClusterNode] = ()) -> PoolReport:
    context = context if context is not None else Context({}, [], PRICE_BASIS)
    context, not_ready = class_network(pool, context)  # the class's subnet zones; not Ready: no zone at all
    notes: list[Note] = []
    used = pool_usage(existing).get(pool.name, {})
    zones, offering_notes, problems = _offering_notes(pool, context.facts)
    problems[:0] = [not_ready] if not_ready is not None else []
    settings, reservations, selected = node_class(pool, context, notes, memo)
    offering_notes = _reservation_notes(pool, reservations, selected, offering_notes, notes)
    reserved = _reserved_gate(pool, context, offering_notes)
    if not reserved and selected is not None:
        selected = ()
    notes.extend(_unmodelled_requirements(pool))
    if pool.label_panic is not None:
        notes.append(note.LabelPanic(*pool.label_panic))
    offerings = pool_offerings(pool, resolution.named_zones, memo, reserved=reservations is not False and reserved,
                               closed=resolution.closed)
    if not offerings and not problems:
        problems.append(note.NoOffering())
    compat = class_compatibility(pool, context)
    candidates, unoffered, refused = _candidates(pool, catalog, resolution, memo, context, offerings, settings,
                                                 selected, compat)
    unmodelled = _compat_notes(compat, refused, notes)
    unpriced_gone, unoffered = _unoffered_notes(catalog, unoffered, context.facts, notes)
    derived = derived_of(candidates, memo)
    zone_unknown = tuple(sorted(set(derived.overlays) & resolution.zone_unknown))
    if zone_unknown:  # whether these overlays apply depends on zones the core does not know
        unmodelled = (*unmodelled, SUBNET_ZONES)
        notes.append(note.OverlayZonesUnmodelled(zone_unknown))
    notes.extend(_price_notes(derived, context))
    limits = remaining_limits(pool.name, pool.limits, used)
    # Before v1.11 a dynamic pool's limits.nodes bounds nothing but a type's capacity (which has no nodes); an EKS
    # Auto Mode pool is AWS's controller, whatever line the environment's own Karpenter runs.
    node_limits = pool.replicas is not None or pool.auto_mode or context.settings.has("dynamic-node-limits")
    exhausted = _exhausted(limits) if node_limits else None
    if existing:
        notes.append(cost_note.existing_nodes(existing, used, limits))
    candidates, excluded = _limit_filter(pool, candidates, derived, limits, bool(used), exhausted, notes, problems)
    if excluded:
        derived = derived_of(candidates, memo)  # else the same list, and what is derived from it
    if exhausted and pool.replicas is None:
        problems.insert(0, exhausted)
    if not candidates and not excluded and not_ready is None:  # (not Ready: that is why)
        known_refused = [name for name, why in refused if why != "unknown"]
        if known_refused and compat is not None and not unoffered and not unpriced_gone:
            problems.insert(0, note.NodeClassRefusesAll(compat.name, len(known_refused), compat.launches_nothing))
        else:
            problems.insert(0, _no_candidate(catalog, unoffered, unpriced_gone))
    min_values(pool, zones, candidates, notes, problems, context.settings.best_effort)
    notes.extend(offering_notes)
    notes.extend(_candidate_notes(pool, derived, resolution))
    if context.ignored_overlays and not pool.auto_mode:
        notes.append(note.OverlaysIgnored(context.ignored_overlays, context.settings.source))
    kind = "static" if pool.replicas is not None else "dynamic"
    static_off = kind == "static" and not pool.auto_mode and not context.settings.static_capacity
    if static_off:
        problems.insert(0, note.StaticCapacityOff(int(pool.replicas or 0), context.settings.source))
    gpu_resource = next((r for r in ACCELERATOR_RESOURCES if r in pool.limits), None)
    gpu_limit = None
    if gpu_resource is not None:
        gpu_limit = int(limit_amount(pool, gpu_resource))  # type: ignore[arg-type]
    limit_unit = derived.limit_unit(gpu_resource)
    if static_off:
        cost = Cost(worst=Decimal(0))  # no static controller: nothing launches, nothing costs
    elif unmodelled:
        cost = Cost()
    elif kind == "static":
        cost = static_cost(pool, candidates, notes)
    elif exhausted:
        cost = Cost(worst=Decimal(0))
    elif candidates:
        cost = dynamic_cost(candidates, derived, limits if node_limits else [x for x in limits if x[0] != "nodes"],
                            bool(existing), context.price_basis, limit_unit, notes)
    else:
        cost = Cost()
    fill = cost.fill
    return PoolReport(
        name=pool.name, kind=kind, weight=pool.weight, capacity_types=pool.capacity_types, zones=zones,
        candidates=tuple(candidates), gpu_limit=gpu_limit, worst_case_hourly=cost.worst, launchable=not problems,
        notes=tuple(problems + notes), problems=tuple(problems), replicas=pool.replicas,
        requirements=tuple(pool.requirement_dicts), template_labels=pool.string_labels, taints=tuple(pool.taints),
        limits=pool.limits, worst_case_instance=cost.worst_name, view=pool, dropped_overlays=resolution.dropped,
        excluded=tuple(excluded), worst_case_nodes=fill.counts if fill is not None else (),
        worst_case_exact=(fill is None or fill.exact) and not derived.unpriced, bounded_by=cost.bounded_by,
        unbounded=cost.unbounded, limit_unit=limit_unit, price_basis=context.price_basis,
        existing_nodes=tuple(sorted(n.name for n in existing if not n.marked_for_deletion)), used=used,
        unmodelled=unmodelled, settings=context.settings,
    )


def _reserved_gate(pool: NodePoolView, context: Context, offering_notes: list[Note]) -> bool:
    """Whether reserved offerings exist: ``featureGates.reservedCapacity`` (``ReservedCapacityResolver
    .ResolveOfferings`` returns the offerings unchanged when it is off). EKS Auto Mode pools: AWS's controller."""
    if context.settings.reserved_capacity or pool.auto_mode:
        return True
    if "reserved" in pool.capacity_types:
        offering_notes.append(note.ReservedCapacityOff(context.settings.source))
    return False


def _compat_notes(compat: NodeClassCompatibility | None, refused: Sequence[tuple[str, str]], notes: list[Note]
                  ) -> tuple[str, ...]:
    """Notes on the types the node class refuses and on what of it is not modelled; the unmodelled paths."""
    if compat is None:
        return ()
    known = tuple((name, why) for name, why in refused if why != "unknown")
    if known:
        notes.append(note.NodeClassIncompatible(compat.name, known))
    unknown = [name for name, why in refused if why == "unknown"]
    paths = list(compat.unmodelled)
    whats = {"spec.cpuOptions.nestedVirtualization": "needs each type's nested-virtualization support, which the "
                                                     "catalog does not have",
             "spec.placementGroupSelector": "needs the placement group's strategy, an AWS fact the core is not given"}
    for path in paths:
        notes.append(note.NotModelled(path, f"which types EC2NodeClass {compat.name} admits {whats[path]}"))
    if unknown:
        paths.append("spec.networkInterfaces")
        notes.append(note.NotModelled("spec.networkInterfaces", f"network cards of {', '.join(unknown)} are not in "
                                      "the provider's VPC limits table packaged with the core"))
    return tuple(paths)


def _reservation_notes(pool: NodePoolView, reservations: bool | None, selected: tuple[Reservation, ...] | None,
                       offering_notes: list[Note], notes: list[Note]) -> list[Note]:
    """The offering notes without the general one on reserved offerings when the node class says more: the
    reservations it selects are known, or it selects none (noted in ``notes``)."""
    general = [x for x in offering_notes if x.kind is not NoteKind.RESERVED_NEEDS_SELECTION]
    if selected is not None:
        offering_notes = general
    if reservations is False and "reserved" in pool.capacity_types:
        offering_notes = general
        notes.append(note.NoReservationTerms(str(pool.node_class_ref.get("name")),
                                             tuple(ct for ct in pool.capacity_types if ct != "reserved")))
    return offering_notes


def _unmodelled_requirements(pool: NodePoolView) -> list[Note]:
    """The template's requirements on labels the catalog does not model (not applied)."""
    return [note.UnmodelledRequirement(req) for key, req in (pool.requirements or {}).items()
            if key not in INSTANCE_LABEL_KEYS and key not in OFFERING_LABELS and key not in RESERVATION_LABELS
            and (key in _UNMODELLED or key.startswith(_UNMODELLED_PREFIXES))]


def _candidates(pool: NodePoolView, catalog: Catalog, resolution: OverlayResolution, memo: dict, context: Context,
                offerings: Any, settings: KubeletSettings, selected: tuple[Reservation, ...] | None,
                compat: NodeClassCompatibility | None = None
                ) -> tuple[list[Candidate], list[str], list[tuple[str, str]]]:
    """The pool's candidates sorted by price, the admitted types that have no available offering, and the ones the
    node class refuses with why ("unknown": the network check cannot be made; such a type is left out too).

    Candidates depend on the pool only through its admitted types and offerings, unless an overlay looks at the
    pool's name or template labels: then they are shared between such pools (immutable, one query)."""
    admitted = _admitted(catalog, pool.template_requirements, memo)
    # The reservation labels are no instance label (the admitted list ignores them) but decide per type which
    # offerings a pool keeps (a type with a capacity block is In [capacity-block]): part of what is shared.
    reserving = tuple(sorted((key, repr(pool.template_requirements.get(key))) for key in RESERVATION_LABELS
                             if key in pool.template_requirements))
    shared = (("candidates", id(admitted), offerings, settings, selected, compat, reserving)
              if resolution.independent_of(pool) and not context.daemons else None)
    candidates: list[Candidate] | None = memo.get(shared) if shared else None
    if candidates is not None:
        return (candidates, memo.get(("unoffered",) + shared[1:], []) if shared else [],
                memo.get(("refused",) + shared[1:], []) if shared else [])
    candidates, unoffered, refused = [], [], []
    for it in admitted:
        why = class_refusal(it, compat)
        if why is not None:
            refused.append((it.name, why))  # every offering unavailable: never an option
            continue
        candidate = _candidate(pool, it, resolution, context, offerings, settings, selected, compat)
        if candidate is None:
            unoffered.append(it.name)  # no available offering: never an option (Offerings.Available)
        else:
            candidates.append(candidate)
    candidates.sort(key=price_key)
    if shared:
        memo[shared] = candidates
        memo[("unoffered",) + shared[1:]] = unoffered
        memo[("refused",) + shared[1:]] = refused
    return candidates, unoffered, refused


def _candidate(pool: NodePoolView, it: InstanceType, resolution: OverlayResolution, context: Context,
               offerings: Any, settings: KubeletSettings, selected: tuple[Reservation, ...] | None,
               compat: NodeClassCompatibility | None = None) -> Candidate | None:
    """One admitted type as a candidate of the pool, after NodeOverlays; None: it has no available offering."""
    facts = context.facts
    reserved_reqs = reservation_requirements(it.name, selected) if selected is not None else Requirements()
    if reserved_reqs and pool.template_requirements.conflicting_key(reserved_reqs) is not None:
        return None  # computeRequirements: the type's reservation labels conflict with the template
    own = class_allocatable(it, settings, compat)
    if facts is not None or selected is not None or it.price is None:
        overlay_price = resolution.type_price(it.name) if it.price is None and not pool.auto_mode else None
        built = type_offerings(it.name, it.price, offerings, facts, selected, pool.template_requirements, _now(),
                               overlay_price)
        if offerings and not built:
            return None
        overlaid = resolution.apply(pool, it.name, [o for o, _, _ in built], it.price, own,
                                    [(p, src) for _, p, src in built])
    else:
        overlaid = resolution.apply(pool, it.name, offerings, it.price, own)
    capacity = overlaid.capacity if overlaid.capacity is own else {
        k: (v if isinstance(v, Decimal) else quantity(v, f"NodeOverlay capacity {k}"))
        for k, v in overlaid.capacity.items()}
    limit_capacity = {**capacity, **{k: v for k, v in class_capacity(it, settings, compat).items()
                                     if k in ("cpu", "memory", "pods")}}
    overhead, daemons = daemon_overhead(pool, it, context.daemons,
                                        pool.auto_mode or context.settings.has("daemonset-overhead-per-type"))
    return Candidate(it, overlaid.cheapest if offerings else it.price, capacity, overlaid.overlays, overlaid.prices,
                     limit_capacity, overhead, daemons, reserved_reqs, _type_zones(it.name, facts))


def _type_zones(name: str, facts: AwsFacts | None) -> frozenset[str] | None:
    """The zones of the type's own zone requirement (aws ``computeRequirements``: its offering zones that have a
    subnet of the node class); None when the facts do not name both."""
    if facts is None or facts.subnet_zones is None or not facts.sources.get("offerings"):
        return None
    offered = facts.offered.get(name)
    return None if offered is None else offered & facts.subnet_zones


def _unoffered_notes(catalog: Catalog, unoffered: list[str], facts: AwsFacts | None, notes: list[Note]
                     ) -> tuple[list[str], list[str]]:
    """(the unoffered types without a price, the others), noted."""
    unpriced_gone = [name for name in unoffered if catalog.by_name[name].price is None]
    if unpriced_gone:
        notes.append(note.UnpricedUnoffered(tuple(unpriced_gone)))
    unoffered = [name for name in unoffered if name not in unpriced_gone]
    if unoffered:
        notes.append(note.Unoffered(tuple(unoffered),
                                    facts.describe() if facts is not None else "capacity reservations"))
    return unpriced_gone, unoffered


def _price_notes(derived: CandidateFacts, context: Context) -> list[Note]:
    """The DaemonSets counted against allocatable, and the offerings priced at a stand-in."""
    out: list[Note] = []
    if derived.daemons:
        out.append(note.DaemonOverhead(tuple(derived.daemons)))
    stand_ins = tuple(derived.stand_ins)
    facts = context.facts
    if stand_ins and facts is not None and facts.sources.get("spot"):
        out.append(note.SpotStandIn(stand_ins, tuple(derived.stand_in_types), tuple(facts.sources["spot"])))
    elif stand_ins:
        out.append(note.PriceStandIn(stand_ins, context.price_basis))
    return out


def _limit_filter(pool: NodePoolView, candidates: list[Candidate], derived: CandidateFacts,
                  limits: list[tuple[str, str, Decimal]], used: bool, exhausted: Note | None, notes: list[Note],
                  problems: list[Note]) -> tuple[list[Candidate], list[tuple[str, str]]]:
    """The candidates one node of which fits under what is left of the limits (dynamic pools), and the others
    with the limit each exceeds (``filterByRemainingResources``); the same list when none is left out."""
    if pool.replicas is not None or not limits or not candidates:
        return candidates, []
    whys = derived.beyond(limits)
    excluded = [(c.instance.name, why) for c, why in zip(candidates, whys) if why is not None]
    if not excluded:
        return candidates, []
    kept = [c for c, why in zip(candidates, whys) if why is None]
    notes.append(cost_note.LimitExcluded(tuple(excluded), used))
    if not kept and not exhausted:
        problems.insert(0, note.AllExceedLimits(used))
    return kept, excluded


def _no_candidate(catalog: Catalog, unoffered: list[str], unpriced_gone: list[str]) -> Note:
    """Why a pool has no candidate while no limit excludes one."""
    if unoffered or unpriced_gone:
        return note.NoAvailableOffering(bool(unoffered), tuple(unpriced_gone))
    return note.NoInstanceType(len(catalog.types))


def _candidate_notes(pool: NodePoolView, derived: CandidateFacts, resolution: OverlayResolution) -> list[Note]:
    """Auto Mode, and what the candidates lack or were given: GPUs, an architecture, prices, NodeOverlays."""
    out: list[Note] = []
    if pool.auto_mode:
        out.append(note.AutoMode())
    if derived.zero_gpu:
        out.append(note.ZeroGpu(tuple(derived.zero_gpu)))
    if derived.arm64:
        out.append(note.Arm64(tuple(derived.arm64)))
    if derived.unpriced:
        out.append(note.Unpriced(tuple(derived.unpriced)))
    if derived.overlays:
        out.append(note.OverlaysApplied(tuple(derived.overlays)))
    if resolution.unmodelled and derived.overlays:
        out.append(note.OverlayRequirementsUnmodelled(tuple(sorted(resolution.unmodelled))))
    out.extend(note.OverlayDropped(name, why) for name, why in resolution.dropped.items())
    return out


def _exhausted(limits: Sequence[tuple[str, str, Decimal]]) -> Note | None:
    """The scheduler's first limit check: no launch once exactly nothing is left of ``limits.nodes``
    (``Scheduler.addToNewNodeClaim``: 'node limits have been exhausted for nodepool')."""
    left = next((amount for r, _, amount in limits if r == "nodes"), None)
    if left is not None and left == 0:
        return note.NodesExhausted(next(shown for r, shown, _ in limits if r == "nodes"))
    return None


def _now() -> datetime:
    """The time capacity blocks are judged against (``CapacityReservationFromEC2``'s clock)."""
    return datetime.now(UTC)


def _resolution(manifests: Sequence[Any], catalog: Catalog, pools: Sequence[NodePoolView] | None = None,
                context: Context | None = None) -> tuple[list[NodePoolView], OverlayResolution]:
    pools = node_pools(manifests) if pools is None else list(pools)
    for pool in pools:
        if pool.problem is not None:
            raise unreadable(pool.problem)
    # featureGates.nodeOverlay off: the NodeOverlay controller is not registered (sigs.k8s.io/karpenter
    # pkg/controllers/controllers.go NewControllers) and the overlay cloud provider returns the types as they are
    # (pkg/cloudprovider/overlay/cloudprovider.go GetInstanceTypes), nor does the provider read overlay prices
    # (aws offering.DefaultProvider.GetOverlayPrice): no overlay applies.
    views = overlay_views(manifests) if context is None or context.settings.node_overlay else []
    for overlay in views:
        if overlay.problem is not None:
            raise unreadable(overlay.problem)
    facts = context.facts if context is not None else None
    reservations = {p.name: pool_reservations(p, context) for p in pools} if context is not None else None
    resolution = OverlayResolution(views, pools, catalog.requirements_by_type,
                                   facts.zones if facts is not None else (),
                                   closed=facts is not None and facts.knows_zones, reservations=reservations)
    _overlay_capacity(resolution)
    return pools, resolution


def simulate_pools(manifests: Sequence[Mapping[str, Any]], catalog: Catalog | None = None, *,
                   pools: Sequence[NodePoolView] | None = None, nodes: Sequence[ClusterNode] = (),
                   aws: AwsFacts | None = None, settings: ControllerSettings | None = None) -> list[PoolReport]:
    """A :class:`PoolReport` for every ``karpenter.sh/v1`` NodePool, in the order the scheduler tries them
    (``OrderByWeight``: highest weight first, equal weights by name descending).

    NodeOverlays (``karpenter.sh/v1alpha1``) in the same manifests are applied to the candidates.
    ``catalog`` defaults to :func:`~karpenter_gpu.analysis.catalog.default_catalog`. ``pools``: the views
    of the manifests' NodePools (``node_pools(manifests)``) when the caller has them already, so each
    pool is read once (the rules build them for their own checks). ``nodes``: the cluster's nodes
    (:func:`~karpenter_gpu.k8s.cluster_nodes.cluster_nodes`); each pool's limits are what its nodes leave of them
    (``Scheduler.updateRemainingResources``), for the limit filter, ``limits.nodes`` and the worst case.
    ``aws``: the account's facts (zones offered, spot prices, capacity reservations;
    :func:`~karpenter_gpu.k8s.aws_facts.load_aws_facts`); None: the catalog's on-demand list prices stand in for
    every offering and every type is assumed offered in every zone. ``settings``: the controller's settings
    (:func:`~karpenter_gpu.k8s.controller_settings.read_settings` of ``helm/karpenter.values.yaml``; None: the
    chart's defaults): feature gates (nodeOverlay, reservedCapacity, staticCapacity), ``minValuesPolicy``,
    ``vmMemoryOverheadPercent`` and ``reservedENIs``.
    """
    catalog = catalog if catalog is not None else default_catalog()
    by_pool: dict[str, list[ClusterNode]] = {}
    for node in nodes:
        if node.nodepool is not None:
            by_pool.setdefault(node.nodepool, []).append(node)
    with paused_collector():
        context = _context(manifests, catalog, aws, settings)
        pools, resolution = _resolution(manifests, catalog, pools, context)
        memo: dict = {}
        return [_simulate(p, catalog, resolution, memo, context, by_pool.get(p.name, ()))
                for p in ordered_pools(pools)]
