"""Where a pod can go in a batch: an in-flight or new NodeClaim (``nodeclaim.go`` ``NodeClaim.CanAdd`` / ``Add`` and
``filterInstanceTypesByRequirements``) or an existing node (``existingnode.go`` ``ExistingNode.CanAdd`` / ``Add``),
Karpenter v1.14.1 ``pkg/controllers/provisioning/scheduling``. Each failure is a :class:`Unplaced` whose ``parts`` are
the heads of the error texts upstream joins with "; " (one per untolerated taint)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Sequence

from karpenter_gpu.analysis.batch.pods import BatchPod, HostPort, PodData, host_ports
from karpenter_gpu.analysis.batch.topology import HOSTNAME, Topology, TopologyError
from karpenter_gpu.analysis.candidates import Candidate, OfferingFilter
from karpenter_gpu.analysis.min_values import distinct_values
from karpenter_gpu.analysis.simulator import PoolReport
from karpenter_gpu.k8s.labels import Label
from karpenter_gpu.k8s.scheduling import Requirement, Requirements, untolerated

__all__ = ["ExistingNode", "NewClaim", "Unplaced", "fits"]

_ZERO = Decimal(0)
_ONE = Decimal(1)


class Unplaced(Exception):
    """Why a pod cannot be added; ``parts``: the upstream error heads (see the module doc)."""

    def __init__(self, *parts: str) -> None:
        super().__init__("; ".join(parts))
        self.parts = parts


def _taint_refusal(taints: Sequence[Mapping[str, Any]], tolerations: Sequence[Mapping[str, Any]]) -> None:
    """``Taints.ToleratesPod``: one "did not tolerate taint" per taint no toleration tolerates."""
    missing = untolerated(taints, tolerations, relax_preferences=False)
    if missing:
        raise Unplaced(*("did not tolerate taint" for _ in missing))


def _conflicts(mine: Sequence[HostPort], used: Sequence[HostPort]) -> bool:
    return any(a.matches(b) for a in mine for b in used)


def fits(c: Candidate, requests: Mapping[str, Decimal]) -> bool:
    """``resources.Fits(requests + the DaemonSets' overhead, allocatable)`` for one type (``pod_fit``'s rule)."""
    if any(v < 0 for v in c.capacity.values()):
        return False
    if any(c.free(r) < wanted for r, wanted in requests.items()):
        return False
    return all(c.capacity.get(r, _ZERO) >= v for r, v in c.daemon_overhead.items() if r not in requests)


def _merge(a: Mapping[str, Decimal], b: Mapping[str, Decimal]) -> dict[str, Decimal]:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, _ZERO) + v
    return out


@dataclass(eq=False)
class NewClaim:
    """A NodeClaim the batch creates (``NewNodeClaim``): its pool, requirements (the template's, its hostname),
    instance-type options, the pods' summed requests, its pods and their host ports."""

    report: PoolReport
    hostname: str
    requirements: Requirements
    options: list[Candidate]
    requests: dict[str, Decimal] = field(default_factory=dict)
    pods: list[BatchPod] = field(default_factory=list)
    ports: list[HostPort] = field(default_factory=list)
    #: Per candidate, its capacity-type and zone requirements (shared by the batch's NodeClaims).
    memo: dict[int, Requirements] = field(default_factory=dict)
    _most: tuple[list[Candidate], dict[str, Decimal]] | None = field(default=None, repr=False)

    @property
    def taints(self) -> Sequence[Mapping[str, Any]]:
        return self.report.taints

    def room(self, data: PodData) -> bool:
        """A necessary condition of :meth:`can_add` for an in-flight NodeClaim, cheap to check first (its checks
        have no side effects and in-flight errors are not reported): some option has room for each resource the
        pods ask for, summed with this one's."""
        most = self._most
        if most is None or most[0] is not self.options:
            free: dict[str, Decimal] = {}
            for c in self.options:
                for r in set(c.capacity) | set(self.requests) | set(c.daemon_overhead):
                    value = c.free(r)
                    if r not in free or value > free[r]:
                        free[r] = value
            most = self._most = (self.options, free)
        free = most[1]
        return all(self.requests.get(r, _ZERO) + v <= free.get(r, _ONE if r == "pods" else _ZERO)
                   for r, v in data.requests.items() if v)

    def can_add(self, topology: Topology, pod: BatchPod, spec: Mapping[str, Any], data: PodData,
                relax_min_values: bool, draws: int = 1) -> tuple[Requirements, list[Candidate]]:
        """``NodeClaim.CanAdd`` (one volume alternative, no DRA, no reserved offerings): taints, requirements
        (``AllowUndefinedWellKnownLabels``), topology, then the options the pod's requests leave. ``draws``: the pod's
        tries so far, this one included. When the first pick among equally good domains leaves no type, the first
        other pick that fits is taken if Karpenter more likely than not met one in as many random draws (see the
        topology module doc); else the first pick's refusal."""
        _taint_refusal(self.taints, spec.get("tolerations") or [])
        well_known = self.report.view.well_known_labels if self.report.view is not None else frozenset()
        if self.requirements.compatible(data.requirements, well_known) is not None:
            raise Unplaced("incompatible requirements")
        reqs = self.requirements.merged(data.requirements)
        try:
            choices = topology.requirement_choices(pod, self.taints, data.strict, reqs, _written_order(self.report))
            first = next(choices)
        except TopologyError as error:
            raise Unplaced(str(error)) from None
        ports = host_ports(spec)
        requests = _merge(self.requests, data.requests)
        options = [] if _conflicts(ports, self.ports) else self.options
        try:
            return self._narrowed(reqs, first, options, requests, well_known, relax_min_values)
        except Unplaced as refusal:
            if not options:
                raise
            fitting, picks = [], 1  # the spreads' other equally good domains (topology module doc)
            for narrowed in choices:
                picks += 1
                try:
                    fitting.append(self._narrowed(reqs, narrowed, options, requests, well_known, relax_min_values))
                except Unplaced:
                    continue
            if fitting and 1 - (1 - len(fitting) / picks) ** draws > 0.5:
                return fitting[0]
            raise refusal from None

    def _narrowed(self, reqs: Requirements, narrowed: Requirements, options: list[Candidate],
                  requests: Mapping[str, Decimal], well_known: frozenset[str],
                  relax_min_values: bool) -> tuple[Requirements, list[Candidate]]:
        """The rest of ``CanAdd`` for one answer of the topology: its requirements, then the options."""
        if reqs.compatible(narrowed, well_known) is not None:
            raise Unplaced("incompatible topology requirements")
        reqs = narrowed
        remaining, why = filter_options(options, reqs, requests, self.memo)
        short = _min_values_short(self.report, reqs, remaining) if remaining else {}
        if short and not relax_min_values:
            raise Unplaced("minValues requirement is not met")  # Strict: minValuesIncompatibleErr comes first
        if short:  # BestEffort: the NodeClaim's minValues become what its types meet
            reqs = Requirements(Requirement(r.key, r.complement, r.values, r.gte, r.lte, short[r.key])
                                if r.key in short else r for r in reqs.values())
        if not remaining:
            raise Unplaced(why or "no instance type met all requirements")
        return reqs, remaining

    def add(self, topology: Topology, pod: BatchPod, spec: Mapping[str, Any], data: PodData,
            reqs: Requirements, options: list[Candidate]) -> None:
        """``NodeClaim.Add``."""
        self.pods.append(pod)
        self.options = options
        self.requests = _merge(self.requests, data.requests)
        self.requirements = reqs
        topology.register(HOSTNAME, self.hostname)
        topology.record(pod, self.taints, reqs)
        self.ports.extend(host_ports(spec))


def _written_order(report: PoolReport) -> dict[str, list[str]]:
    """Per key, the values of the NodePool's first In requirement on it in the order written: among equally good
    domains Karpenter's iteration of the requirement's value set meets them in that order (observed with the
    oracle; Go's set iteration order is not specified)."""
    raw = report.view.template_spec.get("requirements") if report.view is not None else None
    out: dict[str, list[str]] = {}
    for item in raw if isinstance(raw, list) else []:
        if isinstance(item, Mapping) and item.get("operator") == "In" and isinstance(item.get("values"), list):
            out.setdefault(str(item.get("key")), [str(v) for v in item["values"]])
    return out


def filter_options(options: Sequence[Candidate], reqs: Requirements, requests: Mapping[str, Decimal],
                   memo: dict[int, Requirements]) -> tuple[list[Candidate], str | None]:
    """``filterInstanceTypesByRequirements`` without minValues: the options compatible with ``reqs`` that have an
    available offering compatible with them and room for ``requests``; else the error head
    (``InstanceTypeFilterError.Error``) from which of the three criteria any option met."""
    allowed = OfferingFilter(reqs)
    kept: list[Candidate] = []
    met = fit_any = offered = req_offer = fit_offer = False
    for c in options:
        compat = c.instance.requirements.conflicting_key(reqs) is None and (
            not c.reservation_requirements or c.reservation_requirements.conflicting_key(reqs) is None) and \
            _offering_requirements(c, memo).conflicting_key(reqs) is None
        has_offering = not c.offerings or any(allowed(o.offering) for o in c.offerings)
        it_fits = has_offering and fits(c, requests)
        met, fit_any, offered = met or compat, fit_any or it_fits, offered or has_offering
        req_offer = req_offer or (compat and has_offering and not it_fits)
        fit_offer = fit_offer or (it_fits and has_offering and not compat)
        if compat and it_fits:
            kept.append(c)
    if kept:
        return kept, None
    return [], _filter_error(met, fit_any, offered, req_offer, fit_offer)


def _offering_requirements(c: Candidate, memo: dict[int, Requirements]) -> Requirements:
    """The capacity types and zones the type's own requirements name (aws ``computeRequirements``: on-demand and
    spot, reserved with a reservation; the zones it is offered in), which ``compatible`` intersects with the
    NodeClaim's; zones only when the offerings know them. ``memo`` holds one answer per candidate."""
    found = memo.get(id(c))
    if found is None:
        found = Requirements([Requirement(Label.CAPACITY_TYPE, False,
                                          frozenset(distinct_values(Label.CAPACITY_TYPE, [c]) or ()))])
        zones = {o.offering.zone for o in c.offerings}
        if zones and None not in zones:
            found.add(Requirement(Label.ZONE, False, frozenset(z for z in zones if z is not None)))
        memo[id(c)] = found
    return found


def _filter_error(met: bool, fit_any: bool, offered: bool, req_offer: bool, fit_offer: bool) -> str:
    """``InstanceTypeFilterError.Error``'s head (the text before ", requirements=")."""
    if not met and not fit_any and not offered:
        return "no instance type met the scheduling requirements or had enough resources or had a required offering"
    if not met and not fit_any:
        return "no instance type met the scheduling requirements or had enough resources"
    if not met and not offered:
        return "no instance type met the scheduling requirements or had a required offering"
    if not fit_any and not offered:
        return "no instance type had enough resources or had a required offering"
    if not met:
        return "no instance type met all requirements"
    if not fit_any:
        return "no instance type has enough resources"
    if not offered:
        return "no instance type has the required offering"
    if fit_offer:
        return ("no instance type which had enough resources and the required offering met the scheduling "
                "requirements")
    if req_offer:
        return ("no instance type which met the scheduling requirements and the required offering had the required "
                "resources")
    return "no instance type met the requirements/resources/offering tuple"


def _min_values_short(report: PoolReport, reqs: Requirements, options: Sequence[Candidate]) -> dict[str, int]:
    """``InstanceTypes.SatisfiesMinValues`` of the requirements over the options (:func:`distinct_values`): each
    key whose minValues the options do not meet, with the number of values they have."""
    out = {}
    for key, req in reqs.items():
        if req.min_values:
            distinct = distinct_values(key, options, report.zones)
            if distinct is not None and len(distinct) < req.min_values:
                out[key] = len(distinct)
    return out


@dataclass(eq=False)
class ExistingNode:
    """A node of the cluster the batch may use (``ExistingNode``): its labels as requirements (with its hostname),
    taints, and what is left of its allocatable after the DaemonSets' requests."""

    name: str
    pool: str | None
    taints: Sequence[Mapping[str, Any]]
    requirements: Requirements
    remaining: dict[str, Decimal]
    pods: list[BatchPod] = field(default_factory=list)
    ports: list[HostPort] = field(default_factory=list)

    @classmethod
    def of(cls, name: str, pool: str | None, labels: Mapping[str, str], taints: list[Mapping[str, Any]],
           remaining: Mapping[str, Decimal], topology: Topology) -> "ExistingNode":
        """``NewExistingNode``: the hostname is registered for every hostname-keyed group."""
        reqs = Requirements.from_labels(labels)
        reqs.add(Requirement(HOSTNAME, False, frozenset({name})))
        topology.register(HOSTNAME, name)
        return cls(name, pool, taints, reqs, dict(remaining))

    def can_add(self, topology: Topology, pod: BatchPod, spec: Mapping[str, Any], data: PodData) -> Requirements:
        """``ExistingNode.CanAdd``: taints, host ports, resources, requirements (no undefined labels), topology."""
        _taint_refusal(self.taints, spec.get("tolerations") or [])
        if _conflicts(host_ports(spec), self.ports):
            raise Unplaced("checking host port usage")
        if any(v > self.remaining.get(r, _ZERO) for r, v in data.requests.items()):
            raise Unplaced("exceeds node resources")
        if self.requirements.compatible(data.requirements) is not None:
            raise Unplaced("incompatible requirements")
        reqs = self.requirements.merged(data.requirements)
        try:
            narrowed = topology.add_requirements(pod, self.taints, data.strict, reqs)
        except TopologyError as error:
            raise Unplaced(str(error)) from None
        if reqs.compatible(narrowed) is not None:
            raise Unplaced("incompatible topology requirements")
        return narrowed

    def add(self, topology: Topology, pod: BatchPod, spec: Mapping[str, Any], data: PodData,
            reqs: Requirements) -> None:
        """``ExistingNode.Add``."""
        self.pods.append(pod)
        for r, v in data.requests.items():
            self.remaining[r] = self.remaining.get(r, _ZERO) - v
        self.requirements = reqs
        topology.record(pod, self.taints, reqs)
        self.ports.extend(host_ports(spec))
