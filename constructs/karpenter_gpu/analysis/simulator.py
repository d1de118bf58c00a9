"""Which instance types a NodePool can launch, what it can cost, and where a GPU pod lands.

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
- NodeOverlays apply as the overlay controller applies them (:class:`~karpenter_gpu.k8s.offerings.OverlayResolution`):
  prices per offering, capacity per resource, equal-weight conflicts dropped everywhere.
"""

from __future__ import annotations

import gc
import math
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, UTC
from decimal import Decimal
from collections.abc import Mapping  # isinstance checks: the abc directly, not typing's alias
from typing import Any, Iterable, Iterator, Sequence

from karpenter_gpu.analysis.catalog import INSTANCE_LABEL_KEYS, Catalog, InstanceType, default_catalog
from karpenter_gpu.analysis.ceiling import Fill, dearest_fill_cached
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.admission import admitted_tolerations
from karpenter_gpu.k8s.aws_facts import AwsFacts, Reservation
from karpenter_gpu.k8s.cluster_nodes import ClusterNode, pool_usage
from karpenter_gpu.k8s.daemonsets import DaemonSetView, daemon_sets
from karpenter_gpu.k8s.drift import static_drift_blocked
from karpenter_gpu.k8s.kubelet import KubeletSettings
from karpenter_gpu.k8s.memo import memo_for, remember
from karpenter_gpu.k8s.labels import (
    ACCELERATOR_RESOURCES, AMD_GPU, AUTO_MODE_NODE_CLASS_KIND, CAPACITY_TYPES, NEURON, NEURON_CORE,
    NODE_CLASS_KIND, NVIDIA_GPU, OFFERING_LABELS, WELL_KNOWN_LABELS, Label, is_kind,
)
from karpenter_gpu.k8s.offerings import Offering, OfferingPrice, OverlayResolution, pool_offerings, type_offerings
from karpenter_gpu.k8s.scheduling import OPERATORS, Requirement, Requirements, atoi, taint_text, untolerated
from karpenter_gpu.k8s.units import Quantity
from karpenter_gpu.k8s.views import NodeClassView, NodePoolView, node_pools, ordered_pools, overlays as overlay_views

__all__ = [
    "CAPACITY_TYPES",
    "OPERATORS",
    "Candidate",
    "Fit",
    "PodShape",
    "PoolReport",
    "admits",
    "amount_text",
    "first_choice",
    "fit_reports",
    "pod_fit",
    "price_basis",
    "region_warnings",
    "requirement_admits",
    "simulate_pools",
]

#: What the packaged catalog's prices are.
PRICE_BASIS = "us-east-1 on-demand list price"

_GI = Decimal(2**30)
#: ``--pod`` shorthand for a MIG resource of the mixed strategy: ``mig-1g.10gb=1`` means nvidia.com/mig-1g.10gb.
_MIG_SHORT = "mig-"
# Labels Karpenter puts on instance types that the catalog does not model: requirements on them are noted.
_UNMODELLED_PREFIXES = ("karpenter.k8s.aws/", "topology.k8s.aws/", "eks.amazonaws.com/")
_UNMODELLED = frozenset({Label.REGION, Label.WINDOWS_BUILD})


# ---------------------------------------------------------------------------------------------
# Requirements (thin adapters over the core, for callers holding dicts)


def _unreadable(error: KarpenterGpuError, where: str | None = None) -> KarpenterGpuError:
    """The core's KG620 as the simulator's KG711 (a manifest the simulator cannot read)."""
    return KarpenterGpuError("KG711", prop=where or error.prop, value=error.value, allowed=error.allowed,
                             fix=error.fix)


def _requirement(req: Any, where: str = "requirement") -> Requirement:
    try:
        return Requirement.from_dict(req, where)
    except KarpenterGpuError as error:
        raise _unreadable(error) from None


def requirement_admits(labels: Mapping[str, str], req: Mapping[str, Any]) -> bool:
    """Whether a node with ``labels`` satisfies one requirement dict (the core's ``Requirement.admits``).

    Raises KG711 for a requirement Karpenter cannot read (e.g. ``Gt ['abc']``, operator ``in``).
    """
    core = _requirement(req)
    return core.admits(labels.get(core.key))


def admits(instance: InstanceType, requirements: Iterable[Mapping[str, Any]],
           extra_labels: Mapping[str, str] | None = None) -> bool:
    """Whether the requirements (and template labels ``extra_labels``) admit this instance type:
    ``compatible`` (``scheduling/nodeclaim.go``) = the type's requirements intersect them. Keys the
    type does not define (offerings, custom labels) do not restrict it."""
    reqs = Requirements(_requirement(r) for r in requirements)
    reqs.add(*Requirements.from_labels(extra_labels or {}).values())
    return instance.requirements.conflicting_key(reqs) is None


# ---------------------------------------------------------------------------------------------
# Reports

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

    def free(self, resource: str) -> Decimal:
        """What a pod can be given of ``resource``: allocatable less the DaemonSets' requests."""
        default = Decimal(1) if resource == "pods" else Decimal(0)
        return self.capacity.get(resource, default) - self.daemon_overhead.get(resource, Decimal(0))

    def price_for(self, requirements: Requirements) -> Decimal | None:
        """The cheapest offering compatible with ``requirements`` (a pod's), as ``OrderByPrice`` ranks it."""
        best = self._cheapest(_OfferingFilter(requirements))
        return self.price if not self.offerings else (best.price if best is not None else None)

    def cheapest_offering(self, requirements: Requirements) -> str | None:
        """The label of the cheapest offering compatible with ``requirements`` (ties: preference order)."""
        best = self._cheapest(_OfferingFilter(requirements))
        return None if best is None else best.offering.label

    def _cheapest(self, allowed: "_OfferingFilter") -> OfferingPrice | None:
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


class _OfferingFilter:
    """Whether an offering is compatible with a pod's requirements (``Offerings.Compatible`` with
    ``AllowUndefinedWellKnownLabels``), remembered per (capacity type, zone) for one query.

    The offering standing for the zones no manifest names (``NotIn`` the named ones) is not compatible with a pod
    whose zone requirements intersect to DoesNotExist: every real offering is ``In`` one zone (aws
    ``BaseResolver.ResolveOfferings``), which DoesNotExist never meets, while ``Requirements.Intersects`` lets
    ``NotIn`` meet ``DoesNotExist``."""

    def __init__(self, requirements: Requirements) -> None:
        self.requirements = requirements
        zone = requirements.get(Label.ZONE) if Label.ZONE in requirements else None
        self._no_zone = zone is not None and not zone.complement and not zone.values
        self._seen: dict[tuple[str, str | None], bool] = {}

    def __call__(self, offering: Offering) -> bool:
        key = (offering.capacity_type, offering.zone)
        if key not in self._seen:
            self._seen[key] = not (offering.zone is None and self._no_zone) and \
                self.requirements.compatible(offering.requirements, WELL_KNOWN_LABELS) is None
        return self._seen[key]


def _price_key(c: Candidate) -> tuple:
    return (c.price is None, c.price if c.price is not None else Decimal(0), c.instance.name)


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
    notes: tuple[str, ...]
    problems: tuple[str, ...] = ()
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

    @property
    def remaining(self) -> dict[str, Decimal]:
        """What is left of each limit after the existing nodes (``Scheduler.updateRemainingResources``)."""
        return {r: amount for r, _, amount in _remaining_limits(self.name, self.limits, self.used)}

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




def _quantity(value: Any, where: str) -> Decimal:
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
    return remember(_AMOUNTS, key, amount) if key is not None else amount


#: (type, text or int) -> its amount, for :func:`_quantity` (:func:`~karpenter_gpu.k8s.memo.remember`).
_AMOUNTS: dict[tuple[type, Any], Decimal] = {}


def _offering_notes(pool: NodePoolView, facts: AwsFacts | None = None
                    ) -> tuple[tuple[str, ...], list[str], list[str]]:
    """(declared zones, notes, problems) of the template's offering requirements."""
    notes: list[str] = []
    problems: list[str] = []
    reqs = pool.template_requirements
    if not pool.capacity_types:
        problems.append(f"the karpenter.sh/capacity-type requirements admit none of reserved, spot, on-demand "
                        f"({reqs.get(Label.CAPACITY_TYPE)})")
    if not pool.declares_capacity_type:
        notes.append("no karpenter.sh/capacity-type requirement: every capacity type is admitted, and the provider "
                     "launches spot whenever a spot offering exists (getCapacityType: reserved > spot > on-demand)")
    if "reserved" in pool.capacity_types:
        notes.append("reserved offerings exist only for capacity reservations the EC2NodeClass selects "
                     "(capacityReservationSelectorTerms); Karpenter prefers reserved > spot > on-demand")
    zones: tuple[str, ...] = ()
    zone = reqs.get(Label.ZONE)
    if Label.ZONE in reqs and not zone.complement:
        zones = tuple(sorted(zone.values))
        if not zones:
            problems.append(f"the topology.kubernetes.io/zone requirements intersect to DoesNotExist ({zone}): every "
                            "node has a zone, so no offering qualifies")
        elif facts is not None and facts.sources.get("offerings"):
            notes.append(f"zones {', '.join(zones)} as declared: a type is an option only where "
                         f"{', '.join(facts.sources['offerings'])} offers it")
        else:
            notes.append(f"zones {', '.join(zones)} as declared: the catalog has no zone availability, so every "
                         f"candidate is assumed to be offered there (fewer zones, fewer spot pools)")
    return zones, notes, problems


def _limit_amount(pool: NodePoolView, resource: str) -> Decimal | None:
    if resource not in pool.limits:
        return None
    return _quantity(pool.limits[resource], f"NodePool {pool.name}.spec.limits.{resource}")


def _money(amount: Decimal) -> str:
    return f"{amount:.2f}"  # rounds half-even like quantize, without its 28-digit precision limit


def _overlay_capacity(resolution: OverlayResolution) -> None:
    for overlay in resolution.order:
        for key, value in overlay.capacity.items():
            _quantity(value, f"NodeOverlay {overlay.name}.spec.capacity.{key}")


def _admitted(catalog: Catalog, reqs: Requirements, memo: dict) -> list[InstanceType]:
    """The catalog types whose requirements intersect ``reqs``. Only the keys the types define matter, so
    pools that differ in name, custom labels or offerings share one answer: per call, and across calls per
    catalog (the answer depends on the catalog's types and those requirements only)."""
    key = ("types", frozenset(r for k, r in reqs.items() if k in _TYPE_KEYS))
    if key not in memo:
        shared = memo_for(_ADMITTED, catalog)
        if key not in shared:
            shared[key] = tuple(it for it in catalog.types if it.requirements.conflicting_key(reqs) is None)
        memo[key] = list(shared[key])
    return memo[key]


#: The memo of :func:`_admitted` across calls, per catalog (:func:`~karpenter_gpu.k8s.memo.memo_for`).
_ADMITTED: dict[int, tuple[Catalog, dict]] = {}


_TYPE_KEYS = INSTANCE_LABEL_KEYS | {Label.INSTANCE_HYPERVISOR}


@dataclass
class _Context:
    """What the pools share: their node classes (name -> manifest kind and view) and the DaemonSets."""

    classes: dict[tuple[str, str], NodeClassView]
    daemons: list[DaemonSetView]
    price_basis: str
    facts: AwsFacts | None = None


def _context(manifests: Sequence[Any], catalog: Catalog, facts: AwsFacts | None = None) -> _Context:
    classes = {(NODE_CLASS_KIND[1] if is_kind(m, NODE_CLASS_KIND) else AUTO_MODE_NODE_CLASS_KIND[1],
                view.name): view
               for m in manifests if is_kind(m, NODE_CLASS_KIND) or is_kind(m, AUTO_MODE_NODE_CLASS_KIND)
               for view in (NodeClassView.of(m),)}
    return _Context(classes, daemon_sets(manifests), price_basis(catalog, facts), facts)


def price_basis(catalog: Catalog, facts: AwsFacts | None = None) -> str:
    """What the prices are: ``"us-east-1 on-demand list price"`` for the embedded catalog; with spot facts,
    ``"...; spot: prices from <files>"``; with reservation facts, reserved at on-demand / 10,000,000."""
    out = f"{catalog.region} on-demand list price" if catalog.region else "on-demand list price"
    if facts is not None and facts.sources.get("spot"):
        out += f"; spot: prices from {', '.join(facts.sources['spot'])}"
    if facts is not None and facts.knows_reservations:
        out += "; reserved: on-demand / 10,000,000 for the selected capacity reservations"
    return out


def _class_view(pool: NodePoolView, context: _Context) -> NodeClassView | None:
    ref = pool.node_class_ref
    name, kind = ref.get("name"), ref.get("kind")
    return context.classes.get((str(kind), str(name))) if isinstance(name, str) else None


def _reservations(pool: NodePoolView, context: _Context) -> bool | None:
    """Whether the pool's node class selects capacity reservations (None: the node class is not known)."""
    view = _class_view(pool, context)
    return None if view is None else bool(view.spec.get("capacityReservationSelectorTerms"))


def _node_class(pool: NodePoolView, context: _Context, notes: list[str], memo: dict
                ) -> tuple[KubeletSettings, bool | None, tuple[Reservation, ...] | None]:
    """The pool's kubelet settings, whether its node class has capacityReservationSelectorTerms (None: unknown)
    and, when the AWS facts list the capacity reservations, the ones its terms select (None: not known).
    What a node class gives (and the notes it adds) is worked out once per simulation: ``memo`` keeps it by the
    view, which ``context`` holds."""
    ref = pool.node_class_ref
    name, kind = ref.get("name"), ref.get("kind")
    view = _class_view(pool, context)
    if view is None:
        if isinstance(name, str) and not pool.auto_mode:
            notes.append(f"{kind} {name} is not among the manifests: allocatable assumes the catalog's defaults "
                         "(no kubelet settings) and reserved offerings are not checked")
        return KubeletSettings(), None, None
    key = ("class", id(view))  # the view is found by kind and name: one kind per view
    if key not in memo:
        own: list[str] = []
        memo[key] = (_class_settings(view, str(kind), context, own), tuple(own))
    settings_of, noted = memo[key]
    notes.extend(noted)
    return settings_of


def _class_settings(view: NodeClassView, kind: str, context: _Context, notes: list[str]
                    ) -> tuple[KubeletSettings, bool | None, tuple[Reservation, ...] | None]:
    """:func:`_node_class` of a node class among the manifests."""
    terms = view.spec.get("capacityReservationSelectorTerms")
    reservations = bool(terms)
    selected = None
    if reservations and context.facts is not None and context.facts.knows_reservations:
        selected = context.facts.selected_reservations(terms)
        notes.append(f"capacity reservations {kind} {view.name} selects (from "
                     f"{', '.join(context.facts.sources['reservations'])}): "
                     + (", ".join(f"{r.id} ({r.instance_type} in {r.zone}, {r.reservation_type}, {r.available} left)"
                                  for r in selected) or "none"))
    if kind != NODE_CLASS_KIND[1]:
        return KubeletSettings(), reservations, selected
    settings = KubeletSettings.of(view.spec, view.ami_family, f"EC2NodeClass {view.name}")
    if not settings.is_default:
        notes.append(f"allocatable from EC2NodeClass {view.name}'s kubelet settings (amiFamily {settings.ami_family}"
                     f"{', maxPods ' + str(settings.max_pods) if settings.max_pods is not None else ''}"
                     f"{', podsPerCore ' + str(settings.pods_per_core) if settings.pods_per_core else ''}"
                     f"{', kubeReserved' if settings.kube_reserved else ''}"
                     f"{', systemReserved' if settings.system_reserved else ''}"
                     f"{', evictionHard' if settings.eviction_hard else ''}), as the AWS provider computes it")
    return settings, reservations, selected


def _daemon_overhead(pool: NodePoolView, it: InstanceType, daemons: Sequence[DaemonSetView]
                     ) -> tuple[dict[str, Decimal], tuple[str, ...]]:
    total: dict[str, Decimal] = {}
    names = []
    for daemon in daemons:
        if daemon.tolerates(pool.taints) and daemon.runs_on(pool.template_requirements, pool.well_known_labels,
                                                             it.requirements):
            names.append(daemon.name)
            for k, v in daemon.requests.items():
                total[k] = total.get(k, Decimal(0)) + v
    return total, tuple(names)


def _simulate(pool: NodePoolView, catalog: Catalog, resolution: OverlayResolution, memo: dict,
              context: _Context | None = None, existing: Sequence[ClusterNode] = ()) -> PoolReport:
    context = context if context is not None else _Context({}, [], PRICE_BASIS)
    notes: list[str] = []
    used = pool_usage(existing).get(pool.name, {})
    zones, offering_notes, problems = _offering_notes(pool, context.facts)
    settings, reservations, selected = _node_class(pool, context, notes, memo)
    if selected is not None:
        offering_notes = [n for n in offering_notes if not n.startswith("reserved offerings exist only")]
    if reservations is False and "reserved" in pool.capacity_types:
        offering_notes = [n for n in offering_notes if not n.startswith("reserved offerings exist only")]
        notes.append(f"the node class {pool.node_class_ref.get('name')} has no capacityReservationSelectorTerms: the "
                     "provider creates reserved offerings only from the reservations it selects, so this pool has "
                     "none and launches " + (" or ".join(ct for ct in pool.capacity_types if ct != "reserved")
                                             or "nothing"))
    reqs = pool.template_requirements
    for key, req in (pool.requirements or {}).items():
        if key in INSTANCE_LABEL_KEYS or key in OFFERING_LABELS:
            continue
        if key in _UNMODELLED or key.startswith(_UNMODELLED_PREFIXES):
            notes.append(f"requirement {req} is not modelled by the catalog and was not applied")
    offerings = pool_offerings(pool, resolution.named_zones, memo, reserved=reservations is not False,
                               closed=resolution.closed)
    if not offerings and not problems:
        problems.append("no offering (capacity type x zone) satisfies the template's requirements")
    admitted = _admitted(catalog, reqs, memo)
    # Candidates depend on the pool only through its admitted types and offerings, unless an overlay looks at the
    # pool's name or template labels: then they are shared between such pools (immutable, one query).
    shared = (("candidates", id(admitted), offerings, settings, selected) if resolution.independent_of(pool)
              and not context.daemons else None)
    candidates: list[Candidate] | None = memo.get(shared) if shared else None
    facts = context.facts
    unoffered: list[str] = []
    if candidates is None:
        candidates = []
        for it in admitted:
            own = it.allocatable_for(settings)
            if facts is not None or selected is not None or it.price is None:
                overlay_price = resolution.type_price(it.name) if it.price is None and not pool.auto_mode else None
                built = type_offerings(it.name, it.price, offerings, facts, selected, reqs, _now(), overlay_price)
                if offerings and not built:
                    unoffered.append(it.name)  # no available offering: never an option (Offerings.Available)
                    continue
                overlaid = resolution.apply(pool, it.name, [o for o, _, _ in built], it.price, own,
                                            [(p, src) for _, p, src in built])
            else:
                overlaid = resolution.apply(pool, it.name, offerings, it.price, own)
            capacity = overlaid.capacity if overlaid.capacity is own else {
                k: (v if isinstance(v, Decimal) else _quantity(v, f"NodeOverlay capacity {k}"))
                for k, v in overlaid.capacity.items()}
            limit_capacity = {**capacity, **{k: v for k, v in it.capacity_for(settings).items()
                                             if k in ("cpu", "memory", "pods")}}
            overhead, daemons = _daemon_overhead(pool, it, context.daemons)
            candidates.append(Candidate(it, overlaid.cheapest if offerings else it.price, capacity,
                                        overlaid.overlays, overlaid.prices, limit_capacity, overhead, daemons))
        candidates.sort(key=_price_key)
        if shared:
            memo[shared] = candidates
            memo[("unoffered",) + shared[1:]] = unoffered
    elif shared:
        unoffered = memo.get(("unoffered",) + shared[1:], [])
    unpriced_gone = [n for n in unoffered if catalog.by_name[n].price is None]
    if unpriced_gone:
        notes.append(f"{', '.join(unpriced_gone)}: no on-demand price in the catalog, and the provider makes an "
                     "on-demand or spot offering available only with a price (BaseResolver.ResolveOfferings): never "
                     "launched on-demand or spot unless a NodeOverlay prices it by instance type (GetOverlayPrice) or "
                     "Karpenter's pricing API lists a price the catalog lacks; a selected capacity reservation still "
                     "launches it")
    unoffered = [n for n in unoffered if n not in unpriced_gone]
    if unoffered:
        notes.append(f"{len(unoffered)} type(s) have no available offering in the zones and capacity types the pool "
                     f"admits ({facts.describe() if facts is not None else 'capacity reservations'}): "
                     f"{', '.join(unoffered)}")
    derived = _derived(candidates, memo)
    counted = derived.daemons
    if counted:
        notes.append(f"DaemonSets counted against each node's allocatable (daemonOverhead): {', '.join(counted)}")
    stand_ins = derived.stand_ins
    if stand_ins and facts is not None and facts.sources.get("spot"):
        missing = derived.stand_in_types
        notes.append(f"{' and '.join(stand_ins)} offerings of {', '.join(missing)} are shown at the on-demand list "
                     f"price: {', '.join(facts.sources['spot'])} has no spot price for them")
    elif stand_ins:
        notes.append(f"{' and '.join(stand_ins)} offerings are shown at the {context.price_basis}: the catalog has no "
                     f"{' or '.join(stand_ins)} prices")
    limits = _remaining_limits(pool.name, pool.limits, used)
    exhausted = _exhausted(limits)
    if existing:
        notes.append(_existing_note(existing, used, limits))
    excluded: list[tuple[str, str]] = []
    if pool.replicas is None and limits and candidates:
        whys = derived.beyond(limits)
        kept = [c for c, why in zip(candidates, whys) if why is None]
        excluded = [(c.instance.name, why) for c, why in zip(candidates, whys) if why is not None]
        if excluded:
            left = " what is left of" if used else ""
            notes.append(f"{len(excluded)} type(s) exceed{left} a limit with one node and are never launched "
                         f"(filterByRemainingResources): " + ", ".join(f"{n} ({why})" for n, why in excluded))
            if not kept and not exhausted:
                problems.insert(0, f"every candidate exceeds{left} the pool's limits with one node: 'all available "
                                   "instance types exceed limits for nodepool'")
            candidates = kept  # else the same list, and what is derived from it
            derived = _derived(candidates, memo)
    if exhausted and pool.replicas is None:
        problems.insert(0, exhausted)
    if not candidates and not excluded and (unoffered or unpriced_gone):
        why = "; ".join(w for w, hit in (
            ("AWS facts: zones offered, spot prices, capacity reservations", unoffered),
            (f"no price for {', '.join(unpriced_gone)}", unpriced_gone)) if hit)
        problems.insert(0, f"no instance type the pool admits has an available offering ({why}): 'no instance type "
                           "met the scheduling requirements or had a required offering'")
    elif not candidates and not excluded:
        problems.insert(0, f"no instance type in the catalog ({len(catalog.types)} types) meets the requirements: "
                           "'no instance type met the scheduling requirements or had a required offering'")
    # minValues (Add keeps the largest of duplicate keys)
    for key, req in reqs.items():
        wanted = req.min_values
        if not wanted:
            continue
        if key == Label.CAPACITY_TYPE:
            distinct = set(pool.capacity_types)
        elif key == Label.ZONE:
            if not zones:
                notes.append(f"minValues {wanted} on {key}: zone availability is not in the catalog, not checked")
                continue
            distinct = set(zones)
        elif key in INSTANCE_LABEL_KEYS:
            distinct = {c.instance.node_labels[key] for c in candidates if key in c.instance.node_labels}
        else:
            continue
        if len(distinct) < wanted:
            problems.append(f"minValues {wanted} on {key}: only {len(distinct)} distinct value(s) among the "
                            f"candidates ({', '.join(sorted(distinct)) or 'none'}); Karpenter will not launch "
                            "(minValuesPolicy Strict)")
    notes.extend(offering_notes)
    if pool.auto_mode:
        notes.append("EKS Auto Mode pool: AWS runs its Karpenter, NVIDIA driver and device plugin, replaces nodes after "
                     "at most 21 days and applies no NodeOverlay (aws/containers-roadmap#2690)")
    zero_gpu = derived.zero_gpu
    if zero_gpu:
        notes.append(f"{len(zero_gpu)} candidates report 0 GPUs and cannot run nvidia.com/gpu pods without a "
                     f"NodeOverlay ({', '.join(zero_gpu)})")
    arm64 = derived.arm64
    if arm64:
        notes.append(f"{len(arm64)} arm64 GPU type(s) admitted ({', '.join(arm64)}): pods landing there need arm64 "
                     "or multi-arch images (an amd64-only image fails with 'exec format error')")
    unpriced = derived.unpriced
    if unpriced:
        notes.append(f"{len(unpriced)} candidate(s) have no price in the catalog ({', '.join(unpriced)}): "
                     "left out of cost figures")
    applied = derived.overlays
    if applied:
        notes.append(f"NodeOverlays applied: {', '.join(applied)} (scheduling simulation only, not billing)")
    if resolution.unmodelled and applied:
        notes.append(f"NodeOverlay requirements on {', '.join(sorted(resolution.unmodelled))} are not modelled by "
                     "the catalog and were assumed to match")
    for name, why in resolution.dropped.items():
        notes.append(f"NodeOverlay {name} is not applied anywhere (ValidationSucceeded=False, Conflict): {why}")

    kind = "static" if pool.replicas is not None else "dynamic"
    gpu_resource = next((r for r in ACCELERATOR_RESOURCES if r in pool.limits), None)
    gpu_limit = None
    if gpu_resource is not None:
        gpu_limit = int(_limit_amount(pool, gpu_resource))  # type: ignore[arg-type]
    limit_unit = derived.limit_unit(gpu_resource)
    worst: Decimal | None = None
    worst_name: str | None = None
    fill: Fill | None = None
    bounded_by: tuple[str, ...] = ()
    unbounded = False
    if kind == "static":
        priced = [c for c in candidates if c.price is not None]
        if priced:
            dearest = max(priced, key=lambda c: (c.price, c.instance.name))
            price = dearest.price
            assert price is not None  # priced
            worst, worst_name = Decimal(pool.replicas or 0) * price, dearest.instance.name
            notes.append(f"static pool: {pool.replicas} replicas x dearest candidate {dearest.instance.name} "
                         f"({price}/h) = {_money(worst)}/h")
            nodes = _limit_amount(pool, "nodes")
            if nodes is not None and nodes > pool.replicas:  # type: ignore[operator]
                notes.append(f"limits.nodes {nodes} lets drift/expiry replacement surge to {nodes} nodes "
                             f"({_money(nodes * price)}/h at the dearest candidate)")
            elif nodes is None:
                notes.append("no limits.nodes: drift/expiry replacement can surge above replicas")
            elif (blocked := static_drift_blocked(pool)) is not None:
                notes.append(blocked)
    elif exhausted:
        worst = Decimal(0)
    elif candidates:
        fill, bounded_by, why = _ceiling(derived, limits)
        if fill is None:
            unbounded = True
            notes.append(f"the pool's spend is unbounded: {why}")
        elif len(unpriced) == len(candidates):
            fill = None
            notes.append(f"worst case unknown: no candidate has a price ({', '.join(unpriced)})")
        else:
            worst = fill.ceiling
            worst_name = max(fill.counts, key=lambda nc: ((_by_name(candidates, nc[0]).price or Decimal(0)) * nc[1], nc[0]))[0] \
                if fill.counts else None
            mix = " + ".join(f"{n} x {name}" for name, n in fill.counts) or "nothing priced"
            exact = "" if fill.exact else (f" (an upper bound: the search stopped before proving the optimum; "
                                           f"{_money(fill.total)}/h is reached)")
            if unpriced:
                exact += f" (at least: {', '.join(unpriced)} can launch too and have no price)"
            unit = f" ({limit_unit})" if limit_unit else ""
            more = " more, beyond the existing nodes," if existing else ""
            notes.append(f"worst case {_money(worst)}/h{exact}: {mix}{more} before the limits "
                         f"{', '.join(f'{r} {raw}' for r, raw, _ in limits if r in bounded_by)}{unit} stop it "
                         f"({context.price_basis})")
        notes.append("limits are eventually consistent and can overrun during fast scale-out")
    return PoolReport(
        name=pool.name, kind=kind, weight=pool.weight, capacity_types=pool.capacity_types, zones=zones,
        candidates=tuple(candidates), gpu_limit=gpu_limit, worst_case_hourly=worst, launchable=not problems,
        notes=tuple(problems + notes), problems=tuple(problems), replicas=pool.replicas,
        requirements=tuple(pool.requirement_dicts), template_labels=pool.string_labels, taints=tuple(pool.taints),
        limits=pool.limits, worst_case_instance=worst_name, view=pool, dropped_overlays=resolution.dropped,
        excluded=tuple(excluded), worst_case_nodes=fill.counts if fill is not None else (),
        worst_case_exact=(fill is None or fill.exact) and not unpriced, bounded_by=bounded_by, unbounded=unbounded,
        limit_unit=limit_unit, price_basis=context.price_basis,
        existing_nodes=tuple(sorted(n.name for n in existing if not n.marked_for_deletion)), used=used,
    )


def _exhausted(limits: Sequence[tuple[str, str, Decimal]]) -> str | None:
    """The scheduler's first limit check: no launch once exactly nothing is left of ``limits.nodes``
    (``Scheduler.addToNewNodeClaim``: 'node limits have been exhausted for nodepool')."""
    left = next((amount for r, _, amount in limits if r == "nodes"), None)
    if left is not None and left == 0:
        return "'node limits have been exhausted for nodepool': nothing is left of limits.nodes" + \
            next(f" {shown}" for r, shown, _ in limits if r == "nodes")
    return None


def _existing_note(existing: Sequence[ClusterNode], used: Mapping[str, Decimal],
                   limits: Sequence[tuple[str, str, Decimal]]) -> str:
    """What the pool's existing nodes are and use of its limits."""
    active = [n for n in existing if not n.marked_for_deletion]
    deleting = len(existing) - len(active)
    kinds: dict[str, int] = {}
    for n in active:
        kinds[n.instance_type or "unknown type"] = kinds.get(n.instance_type or "unknown type", 0) + 1
    mix = ", ".join(f"{count} x {name}" for name, count in sorted(kinds.items())) or "none"
    counted = "; ".join(f"{r} {amount_text(r, used.get(r, Decimal(0)))} of {shown}"
                        for r, shown, _ in limits) if limits else "no limits"
    gone = f"; {deleting} marked for deletion, not counted (MarkedForDeletion)" if deleting else ""
    return (f"{len(active)} existing node(s) count against the limits ({mix}): {counted} "
            f"(updateRemainingResources){gone}")


def _now() -> datetime:
    """The time capacity blocks are judged against (``CapacityReservationFromEC2``'s clock)."""
    return datetime.now(UTC)


def _by_name(candidates: Sequence[Candidate], name: str) -> Candidate:
    return next(c for c in candidates if c.instance.name == name)


#: Limits the catalog cannot turn into a node's capacity (ephemeral storage depends on block devices, pod ENIs on a
#: table of the provider's): noted, not applied.
_UNMODELLED_LIMITS = ("ephemeral-storage", "vpc.amazonaws.com/pod-eni")


def _ceiling(derived: _Derived, limits: list[tuple[str, str, Decimal]]
             ) -> tuple[Fill | None, tuple[str, ...], str]:
    """The dearest launchable multiset of the priced candidates under ``limits`` (None: unbounded, with why)."""
    applied = [(r, raw, amount) for r, raw, amount in limits if r not in _UNMODELLED_LIMITS]
    items, free, bounded = derived.fill_items(tuple(r for r, _, _ in applied))
    if not items:
        return Fill(Decimal(0), ()), (), ""
    if free:
        which = ", ".join(r for r, _, _ in applied) or "none"
        return None, (), (f"{', '.join(free)} need(s) none of the limited resources ({which}), so no limit stops "
                          "Karpenter launching them")
    # A node is launched while anything is left of limits.nodes (filterByRemainingResources counts no nodes in a
    # type's capacity, the next loop counts the node as 1): ceil(what is left) more nodes.
    fill = dearest_fill_cached(items, tuple(Decimal(math.ceil(amount)) if r == "nodes" else amount
                                            for r, _, amount in applied))
    return fill, bounded, ""


class _Derived:
    """What a simulation reads of one list of candidates, worked out once for the list: the pools that share their
    candidates (the memo's ``"candidates"`` entries) share it too (:func:`_derived`). The list is never changed."""

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
        """:func:`_node_resource` of every candidate, in order."""
        got = self._sizes.get(resource)
        if got is None:
            got = self._sizes[resource] = tuple(_node_resource(c, resource) for c in self.candidates)
        return got

    def beyond(self, limits: Sequence[tuple[str, str, Decimal]]) -> list[str | None]:
        """:func:`_within_limits` of every candidate, in order."""
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


def _derived(candidates: Sequence[Candidate], memo: dict) -> _Derived:
    """The :class:`_Derived` of ``candidates``, kept in ``memo`` (which holds the list, so its id is not reused)."""
    key = ("derived", id(candidates))
    if key not in memo:
        memo[key] = _Derived(candidates)
    return memo[key]


def _limit_unit(resource: str | None, candidates: Sequence[Candidate]) -> str | None:
    """What the accelerator limit counts: GPUs, or shares when overlays advertise more nvidia.com/gpu than GPUs."""
    if resource is None:
        return None
    if resource == NVIDIA_GPU and any(c.capacity.get(NVIDIA_GPU, Decimal(0)) > c.instance.gpus for c in candidates):
        return ("nvidia.com/gpu counts time-slice or MIG shares, not GPUs: NodeOverlays advertise more "
                "nvidia.com/gpu than the nodes have GPUs")
    return {NVIDIA_GPU: "GPUs", AMD_GPU: "GPUs", NEURON: "Neuron devices", NEURON_CORE: "NeuronCores"}.get(resource)




def _resolution(manifests: Sequence[Any], catalog: Catalog, pools: Sequence[NodePoolView] | None = None,
                context: _Context | None = None) -> tuple[list[NodePoolView], OverlayResolution]:
    pools = node_pools(manifests) if pools is None else list(pools)
    for pool in pools:
        if pool.problem is not None:
            raise _unreadable(pool.problem)
    views = overlay_views(manifests)
    for overlay in views:
        if overlay.problem is not None:
            raise _unreadable(overlay.problem)
    facts = context.facts if context is not None else None
    reservations = {p.name: _reservations(p, context) for p in pools} if context is not None else None
    resolution = OverlayResolution(views, pools, catalog.requirements_by_type,
                                   facts.zones if facts is not None else (),
                                   closed=facts is not None and facts.knows_zones, reservations=reservations)
    _overlay_capacity(resolution)
    return pools, resolution


def simulate_pools(manifests: Sequence[Mapping[str, Any]], catalog: Catalog | None = None, *,
                   pools: Sequence[NodePoolView] | None = None, nodes: Sequence[ClusterNode] = (),
                   aws: AwsFacts | None = None) -> list[PoolReport]:
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
    every offering and every type is assumed offered in every zone.
    """
    catalog = catalog if catalog is not None else default_catalog()
    by_pool: dict[str, list[ClusterNode]] = {}
    for node in nodes:
        if node.nodepool is not None:
            by_pool.setdefault(node.nodepool, []).append(node)
    with _paused_cyclic_gc():
        context = _context(manifests, catalog, aws)
        pools, resolution = _resolution(manifests, catalog, pools, context)
        memo: dict = {}
        return [_simulate(p, catalog, resolution, memo, context, by_pool.get(p.name, ()))
                for p in ordered_pools(pools)]


@contextmanager
def _paused_cyclic_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector for one simulation.

    A simulation allocates many small objects that all stay alive until it returns and form no reference
    cycles; the collector's passes over them found nothing and grew with the environment (about 20% of
    the time at 1,000 pools, enough to make the run super-linear). Reference counting still frees
    everything; any cycle is collected by the next pass after the collector resumes."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


# ---------------------------------------------------------------------------------------------
# Pod fit


def _fail_shape(text: Any, allowed: str) -> KarpenterGpuError:
    return KarpenterGpuError(
        "KG710", prop="pod shape", value=text, allowed=allowed,
        fix="write e.g. 'gpus=1,cpu=4,memory=16Gi,tolerate=nvidia.com/gpu,select=karpenter.sh/nodepool=gpu-inference'",
    )


def _toleration(text: str) -> dict:
    """``key``, ``key=value``, ``key:Effect``, ``key=value:Effect``, ``*`` (tolerate everything)."""
    body, _, effect = text.partition(":")
    if effect and effect not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
        raise _fail_shape(text, "a taint effect NoSchedule, PreferNoSchedule or NoExecute after ':'")
    key, eq, value = body.partition("=")
    tol: dict[str, str] = {"operator": "Equal", "key": key, "value": value} if eq else {"operator": "Exists"}
    if not eq and key != "*":
        tol["key"] = key
    if not key:
        raise _fail_shape(text, "tolerate=<key>[=<value>][:<effect>] or tolerate=*")
    if effect:
        tol["effect"] = effect
    return tol


def _affinity(text: str) -> dict:
    """``key:Op`` or ``key:Op:v1|v2`` (one matchExpression)."""
    parts = text.split(":")
    if len(parts) not in (2, 3) or not parts[0]:
        raise _fail_shape(text, "affinity=<key>:<Operator>[:<v1>|<v2>]")
    req = {"key": parts[0], "operator": parts[1], "values": parts[2].split("|") if len(parts) == 3 else []}
    try:
        Requirement.from_dict(req, "pod shape affinity")
    except KarpenterGpuError as exc:
        raise _fail_shape(text, exc.allowed) from None
    return req


#: Pod-shape keys that request a Neuron resource instead of GPUs.
_SHAPE_RESOURCES = {"neuron": NEURON, "neuroncore": NEURON_CORE}


@dataclass(frozen=True)
class PodShape:
    """A pending pod as Karpenter sees it: requests, tolerations, node selector, required node affinity.

    ``memory`` is bytes and ``cpu`` cores. ``required_affinity`` holds matchExpressions (one
    nodeSelectorTerm, ANDed). ``gpu_resource`` is the extended resource ``gpus`` requests.
    """

    gpus: int = 1
    cpu: Decimal = Decimal(1)
    memory: Decimal = _GI
    tolerations: tuple[Mapping[str, Any], ...] = field(default=(), hash=False)
    node_selector: Mapping[str, str] = field(default_factory=dict, hash=False)
    required_affinity: tuple[Mapping[str, Any], ...] = field(default=(), hash=False)
    gpu_resource: str = NVIDIA_GPU

    @classmethod
    def parse(cls, text: str) -> "PodShape":
        """Parse ``gpus=1,cpu=4,memory=16Gi,tolerate=nvidia.com/gpu,select=karpenter.sh/nodepool=x``.

        Keys: ``gpus`` (or ``gpu``), ``neuron`` / ``neuroncore`` (that many ``aws.amazon.com/neuron`` devices
        or ``aws.amazon.com/neuroncore`` cores instead of GPUs), ``cpu`` and ``memory`` (Kubernetes quantities), ``tolerate``
        (``key``, ``key=value``, ``key:Effect``, ``*``), ``select`` (``key=value``), ``affinity``
        (``key:Op[:v1|v2]``) and ``resource`` (the GPU resource, default nvidia.com/gpu).
        ``tolerate``, ``select`` and ``affinity`` may repeat. A MIG device is asked for by its resource:
        ``mig-1g.10gb=1`` (``nvidia.com/`` implied) or ``nvidia.com/mig-1g.10gb=1``, in place of ``gpus``; the
        pool must advertise it (a MigPartitionedPool's NodeOverlays do). Raises KG710 on bad input.
        """
        if not isinstance(text, str):
            raise _fail_shape(text, "a string of comma-separated key=value items")
        gpus, cpu, memory, resource = 1, Decimal(1), _GI, NVIDIA_GPU
        named: str | None = None
        counts: list[str] = []  # the accelerator counts given (gpus, neuron, neuroncore, a MIG device)
        tolerations: list[dict] = []
        selector: dict[str, str] = {}
        affinity: list[dict] = []
        for item in (i.strip() for i in text.split(",")):
            if not item:
                continue
            key, eq, value = item.partition("=")
            key = key.strip().lower()
            if not eq or not value:
                raise _fail_shape(item, "key=value items: gpus, neuron, neuroncore, cpu, memory, tolerate, select, "
                                        "affinity, resource")
            if key in ("gpus", "gpu") or key in _SHAPE_RESOURCES:
                n = atoi(value)
                if n is None or n < 0:
                    raise _fail_shape(item, f"{key} as a whole number >= 0")
                counts.append(key)
                gpus = n
                if key in _SHAPE_RESOURCES:
                    resource = _SHAPE_RESOURCES[key]
            elif key in ("cpu", "memory", "mem"):
                try:
                    amount = Quantity(value).as_decimal()
                except KarpenterGpuError:
                    amount = Decimal(-1)
                if amount < 0:
                    raise _fail_shape(item, f"{key} as a non-negative Kubernetes quantity ('4', '500m', '16Gi')")
                if key == "cpu":
                    cpu = amount
                else:
                    memory = amount
            elif key == "tolerate":
                tolerations.append(_toleration(value))
            elif key == "select":
                k, eq2, v = value.partition("=")
                if not eq2 or not k:
                    raise _fail_shape(item, "select=<label key>=<value>")
                selector[k] = v
            elif key == "affinity":
                affinity.append(_affinity(value))
            elif key == "resource":
                resource = value
            elif key.startswith(_MIG_SHORT) or "/" in key:
                # An extended resource by name: mig-1g.10gb=1 (nvidia.com/ implied) or nvidia.com/mig-1g.10gb=1.
                n = atoi(value)
                if n is None or n < 1:
                    raise _fail_shape(item, f"{key} as a whole number >= 1")
                if named is not None:
                    raise _fail_shape(item, f"one GPU resource per pod shape ({named} is given already)")
                named = key if "/" in key else "nvidia.com/" + key
                resource, gpus = named, n
                counts.append(named)
            else:
                raise _fail_shape(item, "keys gpus, neuron, neuroncore, cpu, memory, tolerate, select, affinity, "
                                        "resource, or a GPU resource such as mig-1g.10gb=1")
        if len(counts) > 1:
            raise _fail_shape(text, f"one accelerator count per pod shape ({'=N, '.join(counts)}=N are given): a "
                                    "pod shape requests one accelerator resource")
        return cls(gpus=gpus, cpu=cpu, memory=memory, tolerations=tuple(tolerations), node_selector=selector,
                   required_affinity=tuple(affinity), gpu_resource=resource)

    def admitted_tolerations(self) -> tuple[dict, ...]:
        """The tolerations the pod has when Karpenter sees it: its own plus, on EKS, the
        ``ExtendedResourceToleration`` one for the extended resource it requests
        (:func:`~karpenter_gpu.k8s.admission.admitted_tolerations`)."""
        return admitted_tolerations(self.tolerations, [self.gpu_resource] if self.gpus else [])

    def describe(self) -> str:
        parts = [f"{self.gpu_resource}={self.gpus}", f"cpu={self.cpu.normalize():f}",
                 f"memory={_bytes(self.memory)}"]
        return ", ".join(parts)

    def requirements(self) -> Requirements:
        """``newPodRequirements`` (strict): the node selector as In requirements plus the required
        affinity expressions, intersected per key."""
        reqs = Requirements.from_labels(self.node_selector)
        reqs.add(*(_requirement(r, "pod shape affinity") for r in self.required_affinity))
        return reqs


def amount_text(resource: str, amount: Decimal) -> str:
    """An amount of a resource in base units as a person reads it (memory in Gi/Mi/Ki when exact)."""
    return _bytes(amount) if resource == "memory" else f"{amount.normalize():f}"


def _bytes(amount: Decimal) -> str:
    for unit, size in (("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
        if amount >= size and amount == amount.to_integral_value() and int(amount) % size == 0:  # exact for any size
            return f"{int(amount // size)}{unit}"
    return f"{amount.normalize():f}"


@dataclass(frozen=True)
class Fit:
    """Where a pod would land in one pool: the cheapest fitting instance, or why it does not fit."""

    pool: str
    instance: str | None
    price: Decimal | None
    reason: str | None
    kind: str = "dynamic"
    weight: int | None = None
    #: The offering it would launch on: the cheapest compatible one, the provider's capacity-type preference
    #: (reserved > spot > on-demand) breaking ties; None when it does not fit.
    offering: str | None = field(default=None, compare=False)
    #: The NodeClaim's instance-type options (``NodeClaim.InstanceTypeOptions`` after ``CanAdd`` ->
    #: ``filterInstanceTypesByRequirements``: the candidates the pod is compatible with, fits in and the remaining
    #: limits allow), by name; empty when it does not fit.
    options: tuple[str, ...] = field(default=(), compare=False)



def _node_resource(c: Candidate, resource: str) -> Decimal | None:
    """The node's capacity in a limit's terms (limits count ``it.Capacity``, not allocatable); None: not modelled."""
    if resource == "nodes":
        return Decimal(1)
    if resource in _UNMODELLED_LIMITS:
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


def _remaining_limits(pool: str, limits: Mapping[str, Any], used: Mapping[str, Decimal]
                      ) -> list[tuple[str, str, Decimal]]:
    """(resource, as shown, amount) of what is left of each of a pool's ``spec.limits`` after its existing nodes:
    the scheduler starts from the limits and subtracts each active state node's capacity
    (``NewScheduler`` ``remainingResources``, ``Scheduler.updateRemainingResources`` with ``resources.Subtract``,
    which keeps only the limited resources; one the capacity does not name counts 0). Shown as the limit, with what
    is left when a node uses some of it."""
    out = []
    for resource, raw in limits.items():
        limit = _quantity(raw, f"NodePool {pool}.spec.limits.{resource}")
        taken = used.get(str(resource))
        if taken is None:
            out.append((str(resource), str(raw), limit))
        else:
            left = limit - taken
            out.append((str(resource), f"{raw} ({amount_text(str(resource), left)} left after the existing nodes)",
                        left))
    return out


def _limits(report: PoolReport) -> list[tuple[str, str, Decimal]]:
    return _remaining_limits(report.name, report.limits, report.used)


def _within_limits(c: Candidate, limits: list[tuple[str, str, Decimal]]) -> str | None:
    """None when one node of ``c`` fits under what is left of every limit, else the limit it breaks
    (``filterByRemainingResources``: the type's capacity above what is left; ``it.Capacity`` has no ``nodes``, so
    a ``nodes`` limit excludes a type only once it is below 0, and a resource the catalog does not model breaks
    it only then too, every capacity being at least 0)."""
    return _first_broken(limits, [(_node_resource(c, r),) for r, _, _ in limits], 1)[0]


def _first_broken(limits: Sequence[tuple[str, str, Decimal]], columns: Sequence[Sequence[Decimal | None]],
                  count: int) -> list[str | None]:
    """:func:`_within_limits` of ``count`` nodes, ``columns[j][i]`` being node i's :func:`_node_resource` of
    ``limits[j]``'s resource."""
    out: list[str | None] = [None] * count
    for (resource, shown, limit), column in zip(limits, columns):
        if resource == "nodes":  # it.Capacity has no nodes
            column = [Decimal(0)] * count
        for i, amount in enumerate(column):
            if out[i] is None and (amount or Decimal(0)) > limit:
                out[i] = f"{resource} {shown}"
    return out




def _pod_conflict(report: PoolReport, pod_reqs: Requirements) -> str | None:
    """Why the pod's requirements are not ``Compatible`` (``AllowUndefinedWellKnownLabels``) with the
    NodeClaim template's, key by key (Compatible checks keys independently)."""
    template = report.view.template_requirements if report.view is not None else Requirements()
    well_known = report.view.well_known_labels if report.view is not None else WELL_KNOWN_LABELS
    for key, req in pod_reqs.items():
        why = template.compatible(Requirements([req]), well_known)
        if why is None:
            continue
        if key == Label.NODEPOOL:
            return f"node selector/affinity {req} does not match pool {report.name}"
        if key == Label.CAPACITY_TYPE:
            return (f"node selector/affinity {req} conflicts with the pool's capacity types "
                    f"{list(report.capacity_types)}")
        if "does not have known values" in why:
            return (f"label {key} is not defined by the pool's requirements or template labels "
                    f"(Karpenter: 'label does not have known values')")
        return f"node selector/affinity {req} conflicts with the pool's {key} requirement ({template.get(key)})"
    return None


def _fit_one(shape: PodShape, report: PoolReport, pod_reqs: Requirements, allowed: _OfferingFilter,
             types_ok: dict[str, bool], relaxed: bool = True) -> Fit:
    def fit(instance: str | None = None, price: Decimal | None = None, reason: str | None = None,
            offering: str | None = None, options: tuple[str, ...] = ()) -> Fit:
        return Fit(report.name, instance, price, reason, report.kind, report.weight, offering, options)

    if not report.launchable:
        return fit(reason="pool cannot launch: " + report.problems[0])
    for taint in untolerated(report.taints, shape.admitted_tolerations(), relax_preferences=relaxed):
        if taint.get("effect") == "PreferNoSchedule":
            return fit(reason=f"taint {taint_text(taint)} is not tolerated: Karpenter places the pod in a pool whose "
                              "taints it tolerates first and tolerates PreferNoSchedule only when none fits "
                              "(Preferences.Relax)")
        return fit(reason=f"taint {taint_text(taint)} is not tolerated")
    reason = _pod_conflict(report, pod_reqs)
    if reason:
        return fit(reason=reason)
    def type_ok(c: Candidate) -> bool:  # compatible(it, requirements) for the pod, once per type per query
        if c.instance.name not in types_ok:
            types_ok[c.instance.name] = c.instance.requirements.conflicting_key(pod_reqs) is None
        return types_ok[c.instance.name]

    candidates = [c for c in report.candidates
                  if type_ok(c) and (not c.offerings or any(allowed(o.offering) for o in c.offerings))]
    if not candidates:
        return fit(reason=f"node selector/affinity {pod_reqs} admits none of the pool's "
                          f"{len(report.candidates)} candidate(s)")
    fitting = [c for c in candidates
               if c.free("cpu") >= shape.cpu and c.free("memory") >= shape.memory and c.free("pods") >= 1
               and (shape.gpus == 0 or c.free(shape.gpu_resource) >= shape.gpus)]
    if not fitting:
        needs = [("cpu", shape.cpu), ("memory", shape.memory)]
        if shape.gpus:
            needs.append((shape.gpu_resource, Decimal(shape.gpus)))
        short = []
        for resource, wanted in needs:
            most = max((c.free(resource) for c in candidates), default=Decimal(0))
            if most < wanted:
                shown = _bytes(most) if resource == "memory" else f"{most.normalize():f}"
                short.append(f"{resource} (at most {shown})")
        detail = ("short of " + ", ".join(short)) if short else "no single candidate has all of it"
        daemons = " after the DaemonSets' requests" if any(c.daemon_overhead for c in candidates) else ""
        return fit(reason=f"no candidate has enough allocatable{daemons} for {shape.describe()}: {detail} "
                          f"among {len(candidates)} candidate(s)")
    limits = _limits(report)
    within = [c for c in fitting if _within_limits(c, limits) is None]
    if not within:
        broken = sorted({why for c in fitting if (why := _within_limits(c, limits)) is not None})
        return fit(reason=f"limit already smaller than one node: limits {', '.join(broken)} is below every one "
                          f"of the {len(fitting)} candidate(s) that fit")
    unmet = _min_values_short(report, within)
    if unmet:
        return fit(reason=f"{unmet} once the pod's requirements and requests narrow the {len(within)} type(s) it "
                          "fits (SatisfiesMinValues after filterInstanceTypesByRequirements); Karpenter tries the "
                          "next pool")
    def priced(c: Candidate) -> tuple[Decimal | None, OfferingPrice | None]:
        if not c.offerings:
            return c.price, None
        offering = c._cheapest(allowed)
        return (offering.price if offering is not None else None), offering

    options = [(priced(c), c) for c in within]
    (price, chosen), best = min(options, key=lambda o: (o[0][0] is None, o[0][0] or Decimal(0), o[1].instance.name))
    if report.kind == "static":
        return fit(reason=f"static pool (replicas {report.replicas}): the pod fits its nodes ({best.instance.name}) "
                          "only where they have room; Karpenter never launches nodes for pending pods")
    return fit(best.instance.name, price, offering=None if chosen is None else chosen.offering.label,
               options=tuple(sorted(c.instance.name for c in within)))


def _min_values_short(report: PoolReport, types: Sequence[Candidate]) -> str | None:
    """The first minValues of the template the pod's remaining types cannot meet (instance-type keys)."""
    template = report.view.template_requirements if report.view is not None else Requirements()
    for key, req in template.items():
        if req.min_values and key in INSTANCE_LABEL_KEYS:
            distinct = {c.instance.node_labels[key] for c in types if key in c.instance.node_labels}
            if len(distinct) < req.min_values:
                return (f"minValues {req.min_values} on {key} is not met: only {len(distinct)} distinct value(s) "
                        f"({', '.join(sorted(distinct)) or 'none'})")
    return None


def pod_fit(shape: PodShape, manifests: Sequence[Mapping[str, Any]], catalog: Catalog | None = None, *,
            nodes: Sequence[ClusterNode] = (), aws: AwsFacts | None = None) -> list[Fit]:
    """A :class:`Fit` per NodePool, in weight order: the cheapest fitting instance or the reason.

    A pool does not fit when it cannot launch, a NoSchedule/NoExecute taint (not startup taints) is
    not tolerated, the node selector / required affinity conflicts with its requirements and labels
    (``karpenter.sh/nodepool`` is the pool's name), no candidate has enough allocatable cpu, memory
    and GPUs (after overlays), or what is left of a limit (after the cluster's ``nodes``, as
    :func:`simulate_pools`) is smaller than one node of every candidate that fits.
    """
    with _paused_cyclic_gc():  # one pause for both steps: no collector pass over the reports in between
        return fit_reports(shape, simulate_pools(manifests, catalog, nodes=nodes, aws=aws))


def fit_reports(shape: PodShape, reports: Iterable[PoolReport]) -> list[Fit]:
    """:func:`pod_fit` on reports already simulated (one simulation for many pods).

    PreferNoSchedule taints first count as untolerated: Karpenter's scheduler tries the pod as it is and, only when
    no NodeClaim template fits, relaxes it, the last relaxation adding an Exists/PreferNoSchedule toleration
    (``Scheduler.Solve`` -> ``Preferences.Relax`` -> ``toleratePreferNoScheduleTaints``,
    ``pkg/controllers/provisioning/scheduling/preferences.go``; ``ToleratePreferNoSchedule`` is set when a
    NodePool has such a taint). So a pool whose PreferNoSchedule taint the pod does not tolerate gets it only when
    no other pool fits."""
    reports = list(reports)
    pod_reqs = shape.requirements()
    allowed, types_ok = _OfferingFilter(pod_reqs), dict[str, bool]()
    with _paused_cyclic_gc():
        fits = [_fit_one(shape, report, pod_reqs, allowed, types_ok, relaxed=False) for report in reports]
        if any(f.instance is not None for f in fits) or not any(
                t.get("effect") == "PreferNoSchedule" for r in reports for t in r.taints if isinstance(t, Mapping)):
            return fits
        return [_fit_one(shape, report, pod_reqs, allowed, types_ok) for report in reports]


def first_choice(fits: Iterable[Fit]) -> Fit | None:
    """The first fit with an instance: the highest-weight pool that fits, at its cheapest offering."""
    return next((f for f in fits if f.instance is not None), None)


_REGION = re.compile(r"^([a-z]{2}(?:-[a-z]+)+-[0-9]+)(?:-[a-z]+-[0-9]+)?[a-z]\Z")


def region_warnings(manifests: Sequence[Mapping[str, Any]], catalog: Catalog | None = None, *,
                    pools: Sequence[NodePoolView] | None = None) -> list[str]:
    """A warning per set of other regions, naming the NodePools whose ``topology.kubernetes.io/zone`` requirements
    name zones of another region than the catalog's (its prices are that region's on-demand list prices; other regions price differently).
    A zone's region is its name without the zone letter (``ap-northeast-2a`` -> ``ap-northeast-2``; Local Zones
    ``us-east-1-bos-1a`` -> ``us-east-1``). ``pools``: the manifests' NodePool views when the caller has them."""
    catalog = catalog if catalog is not None else default_catalog()
    by_regions: dict[tuple[str, ...], list[str]] = {}
    for pool in node_pools(manifests) if pools is None else pools:
        if pool.problem is not None:
            continue
        reqs = pool.template_requirements
        zone = reqs.get(Label.ZONE)
        if Label.ZONE not in reqs or zone.complement:
            continue
        regions = sorted({m.group(1) for z in zone.values if (m := _REGION.match(z))} - {catalog.region})
        if regions and catalog.region:
            by_regions.setdefault(tuple(regions), []).append(pool.name)
    return [f"NodePool{'s' if len(names) > 1 else ''} {', '.join(sorted(names))}: zones in {', '.join(regions)}, "
            f"but the prices are {catalog.region} on-demand list prices: costs there differ"
            for regions, names in sorted(by_regions.items())]
