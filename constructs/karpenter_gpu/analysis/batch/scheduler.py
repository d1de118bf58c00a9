"""A batch of pending pods scheduled as Karpenter v1.14.1's provisioning scheduler schedules them
(``pkg/controllers/provisioning/scheduling/scheduler.go`` ``Scheduler.Solve``), then what the AWS provider launches
for each new NodeClaim (:mod:`~karpenter_gpu.analysis.launch`).

``Solve``: the pods are queued by cpu then memory request, descending (``queue.go`` ``byCPUAndMemoryDescending``;
equal ones by UID, here ``namespace/name``); each popped pod is tried fully relaxed from a copy (``trySchedule``:
``add``, then ``Preferences.Relax`` one step at a time) and re-queued when it fails, until a pass over the queue
makes no progress (``Queue.Pop``). ``add`` tries the existing nodes in name order (``addToExistingNode``), then the
in-flight NodeClaims fewest pods first (``addToInflightNode``), then a new NodeClaim of the first NodePool template
in weight order that takes the pod (``addToNewNodeClaim``): a template is skipped when ``limits.nodes`` has nothing
left, its types are filtered by what is left of the limits (``filterByRemainingResources``), and a new NodeClaim
charges the largest of its options against the limits (``subtractMax``). The templates are the launchable dynamic
pools of :func:`~karpenter_gpu.analysis.simulator.simulate_pools` (``NewScheduler`` drops a pool whose requirements
leave no type), their options the pool's candidates (instance types with offerings, NodeOverlays, DaemonSet
overhead, node-class compatibility: one model for explain, validate and plan).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any, Sequence

from karpenter_gpu.analysis.batch.claims import ExistingNode, NewClaim, Unplaced
from karpenter_gpu.analysis.batch.gosort import go_sort_slice
from karpenter_gpu.analysis.batch.plan import BatchPlan, ExistingUse, Pending, PlannedClaim
from karpenter_gpu.analysis.batch.pods import BatchPod, PodData, mapping, pod_data, read_pods, relax
from karpenter_gpu.analysis.batch.topology import HOSTNAME, DomainGroups, Topology
from karpenter_gpu.analysis.candidates import (
    UNMODELLED_LIMITS, Candidate, OfferingFilter, node_resource, price_key, remaining_limits,
)
from karpenter_gpu.analysis.catalog import Catalog, default_catalog
from karpenter_gpu.analysis.launch import launches
from karpenter_gpu.analysis.simulator import PoolReport, simulate_pools
from karpenter_gpu.k8s.aws_facts import AwsFacts
from karpenter_gpu.k8s.cluster_nodes import ClusterNode, pool_usage
from karpenter_gpu.k8s.controller_settings import ControllerSettings
from karpenter_gpu.k8s.daemonsets import DaemonSetView, daemon_sets
from karpenter_gpu.k8s.labels import NODEPOOL_KIND, Label, is_kind
from karpenter_gpu.k8s.node_resources import UNMODELLED_NODE_RESOURCES
from karpenter_gpu.k8s.scheduling import Requirement, Requirements
from karpenter_gpu.k8s.views import node_classes, node_pools
from karpenter_gpu.perf import paused_collector

__all__ = ["schedule_batch"]

_ZERO = Decimal(0)
_TOPOLOGY_KEYS = frozenset({Label.ZONE, HOSTNAME, Label.CAPACITY_TYPE})
def _templates(reports: Sequence[PoolReport]) -> list[PoolReport]:
    """``NewScheduler``'s NodeClaim templates: the dynamic pools whose requirements leave types (simulated without
    their limits: the scheduler applies what is left of them per NodeClaim, ``addToNewNodeClaim``)."""
    return [r for r in reports if r.kind == "dynamic" and r.view is not None and r.launchable]


def _copies(manifests: Sequence[Mapping[str, Any]], open_pools: frozenset[str] = frozenset()) -> list:
    """The manifests with every NodePool's ``spec.limits`` left out; the pools in ``open_pools`` also without
    requirements (every type of the node class: what an existing node of the pool may be)."""
    out: list = []
    for m in manifests:
        if not is_kind(m, NODEPOOL_KIND) or not isinstance(m.get("spec"), Mapping):
            out.append(m)
            continue
        spec = {k: v for k, v in m["spec"].items() if k != "limits"}
        name = mapping(m.get("metadata")).get("name")
        if name in open_pools and isinstance(spec.get("template"), Mapping):
            template = dict(spec["template"])
            template["spec"] = {**mapping(template.get("spec")), "requirements": []}
            spec["template"] = template
        out.append({**m, "spec": spec})
    return out


def _reserving(manifests: Sequence[Mapping[str, Any]], catalog: Catalog, facts: AwsFacts | None,
               settings: ControllerSettings) -> frozenset[str]:
    """The EC2NodeClasses some of whose types have a reserved offering, in any zone: a capacity reservation their
    ``capacityReservationSelectorTerms`` select for a type of the catalog, with ``featureGates.reservedCapacity`` on
    (the aws provider's ``computeRequirements`` gives such a type ``capacity-type In [..., reserved]``, whatever
    zones the NodePool allows)."""
    if facts is None or not facts.knows_reservations or not settings.reserved_capacity:
        return frozenset()
    names = {it.name for it in catalog.types}
    return frozenset(view.name for view in node_classes(manifests)
                     if view.spec.get("capacityReservationSelectorTerms") and
                     any(r.instance_type in names
                         for r in facts.selected_reservations(view.spec["capacityReservationSelectorTerms"])))


def _domain_groups(reports: Sequence[PoolReport], catalog: Catalog, facts: AwsFacts | None,
                   reserving: frozenset[str] = frozenset()) -> DomainGroups:
    """``buildDomainGroups``: per NodePool, the zone and capacity-type values of every type intersected with the
    template's requirements (``reserved`` when a type of its node class has a reserved offering: ``reserving``),
    and the values of the template's In requirements, each with the pool's taints."""
    out: DomainGroups = {}

    def insert(key: str, domain: str, taints: tuple) -> None:  # TopologyDomainGroup.Insert
        sets = out.setdefault(key, {})
        if domain not in sets or not taints:
            sets[domain] = [taints]
        elif sets[domain][0]:
            sets[domain].append(taints)

    known = facts is not None and facts.knows_zones
    subnets = frozenset(facts.zones) if known and facts is not None else frozenset()
    for report in reports:
        if report.view is None:
            continue
        reqs, taints = report.view.requirements or Requirements(), tuple(report.taints)
        reqs = reqs.merged(Requirements.from_labels(report.view.string_labels))
        if known and facts is not None:
            zones = {z for it in catalog.types for z in facts.offered.get(it.name, frozenset()) & subnets}
            for zone in sorted(zones):
                if reqs.get(Label.ZONE).has(zone):
                    insert(Label.ZONE, zone, taints)
        reserved = not report.view.auto_mode and report.view.node_class_ref.get("name") in reserving
        for ct in ("on-demand", "spot", *(("reserved",) if reserved else ())):
            if reqs.get(Label.CAPACITY_TYPE).has(ct):
                insert(Label.CAPACITY_TYPE, ct, taints)
        for key, req in reqs.items():
            if req.operator == "In":
                for value in sorted(req.values):
                    insert(key, value, taints)
    return out


def _pod_gaps(pod: BatchPod, zones_known: bool) -> list[str]:
    """What of the pod the core does not model (paths)."""
    spec, out = pod.spec, []
    spreads = spec.get("topologySpreadConstraints") or []
    affinity = mapping(spec.get("affinity"))
    terms = [t.get("podAffinityTerm", t) if isinstance(t, Mapping) else {} for kind in ("podAffinity", "podAntiAffinity")
             for holder in [affinity.get(kind) or {}] for name in ("requiredDuringSchedulingIgnoredDuringExecution",
                                                                   "preferredDuringSchedulingIgnoredDuringExecution")
             for t in holder.get(name) or []]
    keys = {str(t.get("topologyKey")) for t in [*spreads, *terms] if isinstance(t, Mapping)}
    out += [f"topologyKey {k}" for k in sorted(keys - _TOPOLOGY_KEYS)]
    if Label.ZONE in keys and not zones_known:
        out.append("the zones each type is offered in (--aws offerings) for a zone topology")
    if any(isinstance(t, Mapping) and t.get("namespaceSelector") is not None for t in terms):
        out.append("spec.affinity pod (anti-)affinity namespaceSelector")
    if any(isinstance(v, Mapping) and v.get("persistentVolumeClaim") for v in spec.get("volumes") or []):
        out.append("spec.volumes persistentVolumeClaim topology")
    if spec.get("resourceClaims"):
        out.append("spec.resourceClaims (dynamic resource allocation)")
    requests = pod_data(pod).requests
    out += [f"{r} requests ({why})" for r, why in UNMODELLED_NODE_RESOURCES.items() if requests.get(r)]
    return out


def _gaps(pods: Sequence[BatchPod], templates: Sequence[PoolReport], settings: ControllerSettings,
          facts: AwsFacts | None, limits: Mapping[str, Mapping[str, Any]]) -> list[str]:
    out: list[str] = []
    if settings.preference_policy != "Respect":
        out.append("settings.preferencePolicy Ignore")
    for report in templates:
        out += [f"NodePool {report.name}: {path}" for path in report.unmodelled]
        out += [f"NodePool {report.name}: spec.limits.{r}" for r in UNMODELLED_LIMITS
                if r in limits.get(report.name, {})]
        if any(o.offering.capacity_type == "reserved" for c in report.candidates for o in c.offerings):
            out.append(f"NodePool {report.name}: reserved offerings in a batch (ReservationManager)")
    known = facts is not None and facts.knows_zones
    for pod in pods:
        out += [f"pod {pod.key}: {gap}" for gap in _pod_gaps(pod, known)]
    return sorted(set(out))


def _existing(nodes: Sequence[ClusterNode], reports: Sequence[PoolReport], open_reports: Sequence[PoolReport],
              topology: Topology, gaps: list[str], daemons: Sequence[DaemonSetView],
              templates: bool) -> list[ExistingNode]:
    """``calculateExistingNodeClaims`` + ``sortExistingNodes`` (name order): each node not marked for deletion, with
    its pool's taints, its labels, and its type's allocatable (the type as a candidate of its pool without
    requirements: the node class's kubelet and overlays) less the requests of the DaemonSets that run on the node
    (``getCompatibleDaemonPods``: its taints tolerated, its labels compatible). PreferNoSchedule taints count only
    when the scheduler has no NodeClaim template (``templates`` False): ``NewScheduler`` first builds the templates'
    DaemonSet overhead (``buildDaemonOverheadGroups``), whose ``isDaemonPodCompatible`` appends a PreferNoSchedule
    toleration to each DaemonSet pod it checks, the very pods ``calculateExistingNodeClaims`` then checks against the
    existing nodes (scheduler.go, sigs.k8s.io/karpenter v1.14.1)."""
    by_pool = {r.name: r for r in reports}
    opened = {r.name: r for r in open_reports}
    out = []
    for node in sorted((n for n in nodes if not n.marked_for_deletion), key=lambda n: n.name):
        report, wide = by_pool.get(node.nodepool or ""), opened.get(node.nodepool or "")
        candidate = next((c for c in (wide.candidates if wide else ()) if c.name == node.instance_type), None)
        if candidate is None:
            gaps.append(f"existing node {node.name}: allocatable of {node.instance_type} in NodePool {node.nodepool}")
            continue
        labels = {HOSTNAME: node.name, Label.ARCH: candidate.instance.labels.get(Label.ARCH, ""), Label.OS: "linux",
                  "karpenter.sh/registered": "true", "karpenter.sh/initialized": "true"}
        for key, value in ((Label.NODEPOOL, node.nodepool), (Label.INSTANCE_TYPE, node.instance_type),
                           (Label.ZONE, node.zone), (Label.CAPACITY_TYPE, node.capacity_type)):
            if value:
                labels[key] = value
        taints = list(report.taints) if report else []
        remaining = dict(candidate.capacity)
        for daemon in daemons:
            if daemon.tolerates(taints, relax_preferences=templates) and daemon.runs_on_node(labels):
                for r, v in daemon.requests.items():
                    remaining[r] = remaining.get(r, _ZERO) - v
        out.append(ExistingNode.of(node.name, node.nodepool, labels, taints, remaining, topology))
    return out


def _remaining(manifests: Sequence[Mapping[str, Any]], nodes: Sequence[ClusterNode]) -> dict[str, dict[str, Decimal]]:
    """Each NodePool's limits less its existing nodes (``NewScheduler`` ``remainingResources`` and
    ``updateRemainingResources``: :func:`~karpenter_gpu.analysis.candidates.remaining_limits`)."""
    used = pool_usage(nodes)
    return {view.name: {r: amount for r, _, amount in remaining_limits(view.name, view.limits,
                                                                        used.get(view.name, {}))}
            for view in node_pools(manifests)}


class _Solver:
    """``Scheduler`` for one batch."""

    def __init__(self, templates: list[PoolReport], reports: Sequence[PoolReport], topology: Topology,
                 existing: list[ExistingNode], settings: ControllerSettings,
                 remaining: dict[str, dict[str, Decimal]]) -> None:
        self.templates, self.topology, self.existing = templates, topology, existing
        self.claims: list[NewClaim] = []
        self.remaining = remaining
        self.relax_min_values = settings.best_effort
        # limits.nodes stops a dynamic pool's new NodeClaims from v1.11 only (upstream.BEHAVIOUR_SINCE)
        self.node_limits = settings.has("dynamic-node-limits")
        self.tolerate_pns = any(t.get("effect") == "PreferNoSchedule" for r in reports for t in r.taints)
        self.cached: dict[str, PodData] = {}
        self.memo: dict[int, Requirements] = {}  # per candidate (alive for the solve): see claims.filter_options
        self._hosts = 0
        self.tries: dict[str, int] = {}  # per pod, its calls of add (each relaxation step, each pass of the queue)

    def solve(self, pods: list[BatchPod]) -> dict[str, Unplaced]:
        """``Solve``: the queue, relaxation and re-queueing; the errors of the pods left."""
        for pod in pods:
            self.cached[pod.key] = pod_data(pod)
        queue = sorted(pods, key=lambda p: (-self.cached[p.key].requests.get("cpu", _ZERO),
                                            -self.cached[p.key].requests.get("memory", _ZERO), p.key))
        last: dict[str, int] = {}
        errors: dict[str, Unplaced] = {}
        while queue:
            pod = queue[0]
            if last.get(pod.key) == len(queue):
                break
            queue.pop(0)
            error = self._try(pod)
            if error is None:
                errors.pop(pod.key, None)
                continue
            errors[pod.key] = error
            self.topology.update(pod, pod.spec)
            self.cached[pod.key] = pod_data(pod)
            queue.append(pod)
            last[pod.key] = len(queue)
        return errors

    def _try(self, pod: BatchPod) -> Unplaced | None:
        """``trySchedule`` on a copy of the pod: add, else relax one step and retry."""
        spec = _copy(pod.spec)
        while True:
            try:
                self._add(pod, spec, self.cached[pod.key])
                return None
            except Unplaced as error:
                if not relax(spec, self.tolerate_pns):
                    return error
                self.topology.update(pod, spec)
                self.cached[pod.key] = pod_data(pod, spec)

    def _add(self, pod: BatchPod, spec: dict, data: PodData) -> None:
        draws = self.tries[pod.key] = self.tries.get(pod.key, 0) + 1
        for node in self.existing:
            try:
                reqs = node.can_add(self.topology, pod, spec, data)
            except Unplaced:
                continue
            node.add(self.topology, pod, spec, data, reqs)
            return
        # sort.Slice (scheduler.go Scheduler.add): not stable beyond 12 claims, the order Go leaves equal ones in
        go_sort_slice(self.claims, [len(c.pods) for c in self.claims])
        for claim in self.claims:
            if not claim.room(data):
                continue
            try:
                reqs, options = claim.can_add(self.topology, pod, spec, data, False, draws)  # never relaxed
            except Unplaced:
                continue
            claim.add(self.topology, pod, spec, data, reqs, options)
            return
        if not self.templates:
            raise Unplaced("nodepool requirements filtered out all available instance types")
        self._new_claim(pod, spec, data, draws)

    def _new_claim(self, pod: BatchPod, spec: dict, data: PodData, draws: int) -> None:
        """``addToNewNodeClaim``: the first template (weight order) that takes the pod; else every template's error."""
        parts: list[str] = []
        for report in self.templates:
            left = self.remaining[report.name]
            if self.node_limits and "nodes" in left and left["nodes"] == 0:
                parts.append("node limits have been exhausted for nodepool")
                continue
            options = [c for c in report.candidates if not _beyond(c, left)]
            if not options:
                parts.append("all available instance types exceed limits for nodepool")
                continue
            self._hosts += 1
            host = f"hostname-placeholder-{self._hosts:04d}"
            assert report.view is not None
            reqs = report.view.template_requirements.merged([
                Requirement.new("karpenter.sh/registered", "In", ["true"]),
                Requirement.new("karpenter.sh/initialized", "In", ["true"]),
                Requirement(HOSTNAME, False, frozenset({host}))])
            claim = NewClaim(report, host, reqs, options, memo=self.memo)
            try:
                narrowed, kept = claim.can_add(self.topology, pod, spec, data, self.relax_min_values, draws)
            except Unplaced as error:
                parts.extend(error.parts)
                continue
            claim.add(self.topology, pod, spec, data, narrowed, kept)
            self.claims.append(claim)
            self.remaining[report.name] = _subtract_max(left, kept)
            return
        raise Unplaced(*parts)


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _capacity(c: Candidate, resource: str) -> Decimal:
    """``it.Capacity`` of a limited resource (it has no ``nodes``)."""
    return _ZERO if resource == "nodes" else (node_resource(c, resource) or _ZERO)


def _beyond(c: Candidate, left: Mapping[str, Decimal]) -> bool:
    """``filterByRemainingResources``: some limited resource of the type above what is left."""
    return any(_capacity(c, r) > amount for r, amount in left.items())


def _subtract_max(left: Mapping[str, Decimal], options: Sequence[Candidate]) -> dict[str, Decimal]:
    """``subtractMax``: what is left less the largest capacity among the NodeClaim's options."""
    return {r: amount - max((_capacity(c, r) for c in options), default=_ZERO) for r, amount in left.items()}


def _planned(claim: NewClaim) -> PlannedClaim:
    """The NodeClaim after ``FinalizeScheduling`` (hostname dropped) and what launches for it."""
    reqs = Requirements(r for k, r in claim.requirements.items() if k != HOSTNAME)
    ct_req = reqs.get(Label.CAPACITY_TYPE)
    types = [ct for ct in claim.report.capacity_types if ct_req.has(ct)]
    pods = tuple(p.key for p in claim.pods)
    names = tuple(sorted(c.name for c in claim.options))
    offered = [c for c in claim.options if c.offerings]
    if not offered:
        best = min(claim.options, key=price_key)
        return PlannedClaim(claim.report.name, pods, names, best.name, None, None, best.price)
    has_min_values = any(r.min_values for r in reqs.values())
    possible = launches(offered, OfferingFilter(reqs), types, has_min_values, claim.requests)
    if not possible:
        return PlannedClaim(claim.report.name, pods, names, None, None, None, None)
    launched = possible[0]
    return PlannedClaim(claim.report.name, pods, names, launched.instance, launched.capacity_type,
                        launched.offering.offering.zone, launched.price, launched,
                        tuple(z for z in launched.zones if z is not None), possible[1:])


def schedule_batch(manifests: Sequence[Mapping[str, Any]], pods: Sequence[Mapping[str, Any]], *,
                   catalog: Catalog | None = None, aws: AwsFacts | None = None, nodes: Sequence[ClusterNode] = (),
                   settings: ControllerSettings | None = None) -> BatchPlan:
    """Schedule ``pods`` (v1 Pod mappings after admission) on the NodePools of ``manifests`` as Karpenter's
    ``Solve`` does (module doc), with the cluster's ``nodes`` taking pods first and counting against the limits.
    KG480/KG481: a pod that cannot be read. Inputs the core does not model make the plan say so
    (``BatchPlan.not_modelled``) with no figure."""
    catalog = catalog if catalog is not None else default_catalog()
    settings = settings if settings is not None else ControllerSettings()
    batch = read_pods(pods)
    with paused_collector():
        reports = simulate_pools(_copies(manifests), catalog, aws=aws, settings=settings)
        live = [n for n in nodes if not n.marked_for_deletion]
        pools_with_nodes = frozenset(n.nodepool for n in live if n.nodepool)
        open_reports = simulate_pools(_copies(manifests, pools_with_nodes), catalog, aws=aws, settings=settings) \
            if pools_with_nodes else []
        templates = _templates(reports)
        gaps = _gaps(batch, templates, settings, aws, {v.name: v.limits for v in node_pools(manifests)})
        topology = Topology(_domain_groups(reports, catalog, aws, _reserving(manifests, catalog, aws, settings)))
        existing = _existing(live, reports, open_reports, topology, gaps, daemon_sets(manifests), bool(templates))
        if gaps:
            return BatchPlan(not_modelled=tuple(sorted(set(gaps))), pools=tuple(reports))
        for pod in batch:
            topology.update(pod, pod.spec)  # NewTopology
        solver = _Solver(templates, reports, topology, existing, settings, _remaining(manifests, nodes))
        errors = solver.solve(batch)
        order = {p.key: p.index for p in batch}
        return BatchPlan(
            nodeclaims=tuple(_planned(c) for c in solver.claims),
            existing=tuple(ExistingUse(n.name, n.pool, tuple(p.key for p in n.pods)) for n in existing if n.pods),
            pending=tuple(Pending(key, str(err), err.parts) for key, err in sorted(errors.items(),
                                                                                  key=lambda kv: order[kv[0]])),
            remaining={name: dict(left) for name, left in solver.remaining.items() if left}, pools=tuple(reports))
