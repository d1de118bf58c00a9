"""Where a pending pod lands: per NodePool, in the order the scheduler tries them, the cheapest instance type and
offering it fits (:class:`Fit`), or why it does not fit there."""

from __future__ import annotations

from collections.abc import Mapping  # isinstance checks: the abc directly, not typing's alias
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any, Iterable, Sequence

from karpenter_gpu.analysis.candidates import Candidate, OfferingFilter, remaining_limits, within_limits
from karpenter_gpu.analysis.catalog import Catalog
from karpenter_gpu.analysis.launch import Launch, launches
from karpenter_gpu.analysis.min_values import distinct_values
from karpenter_gpu.analysis.pod_shape import PodShape, resource_text
from karpenter_gpu.analysis.simulator import PoolReport, simulate_pools
from karpenter_gpu.k8s.aws_facts import AwsFacts
from karpenter_gpu.k8s.cluster_nodes import ClusterNode
from karpenter_gpu.k8s.controller_settings import ControllerSettings
from karpenter_gpu.k8s.labels import AMD_GPU, NEURON, NEURON_CORE, NVIDIA_GPU, WELL_KNOWN_LABELS, Label
from karpenter_gpu.k8s.node_resources import UNMODELLED_NODE_RESOURCES
from karpenter_gpu.k8s.offerings import OfferingPrice
from karpenter_gpu.k8s.scheduling import Requirements, taint_text, untolerated
from karpenter_gpu.perf import paused_collector

__all__ = ["Fit", "first_choice", "fit_reports", "pod_fit", "unmodelled"]


@dataclass(frozen=True)
class Fit:
    """Where a pod would land in one pool: the cheapest fitting instance, or why it does not fit."""

    pool: str
    instance: str | None
    price: Decimal | None
    reason: str | None
    kind: str = "dynamic"
    weight: int | None = None
    #: The offering it would launch on: the cheapest offering of the capacity type the provider asks EC2 for, among
    #: the types its launch filters leave (:mod:`~karpenter_gpu.analysis.launch`); None when it does not fit.
    offering: str | None = field(default=None, compare=False)
    #: The NodeClaim's instance-type options (``NodeClaim.InstanceTypeOptions`` after ``CanAdd`` ->
    #: ``filterInstanceTypesByRequirements``: the candidates the pod is compatible with, fits in and the remaining
    #: limits allow), by name; empty when it does not fit.
    options: tuple[str, ...] = field(default=(), compare=False)
    #: Inputs the core does not model that decide the pool's answer (``not modelled: ...``): the pool's answer is
    #: unknown, neither a fit nor a misfit.
    unmodelled: tuple[str, ...] = field(default=(), compare=False)
    #: What launches: the capacity type asked for, the types and zones offered to EC2 after the launch filters.
    launch: Launch | None = field(default=None, compare=False)
    #: What else may launch: Karpenter's NodeClaim requests depend on the order of a Go map when the options run
    #: different DaemonSets (:func:`~karpenter_gpu.analysis.launch.claim_overheads`); ``launch`` is the cheapest.
    launch_alternatives: tuple[Launch, ...] = field(default=(), compare=False)
    #: Karpenter panics creating the NodeClaim (the pool's :attr:`~karpenter_gpu.k8s.views.NodePoolView.label_panic`
    #: requirement): the scheduler picks this pool, and nothing launches.
    panics: str | None = field(default=None, compare=False)


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


def _fit_one(shape: PodShape, report: PoolReport, pod_reqs: Requirements, allowed: OfferingFilter,
             types_ok: dict[str, bool], relaxed: bool = True) -> Fit:
    def fit(instance: str | None = None, price: Decimal | None = None, reason: str | None = None,
            offering: str | None = None, options: tuple[str, ...] = ()) -> Fit:
        return Fit(report.name, instance, price, reason, report.kind, report.weight, offering, options)

    if not report.launchable:
        return fit(reason="pool cannot launch: " + report.problems[0].text)
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
        return types_ok[c.instance.name] and (
            not c.reservation_requirements or c.reservation_requirements.conflicting_key(pod_reqs) is None)

    candidates = [c for c in report.candidates
                  if type_ok(c) and (not c.offerings or any(allowed(o.offering) for o in c.offerings))]
    if not candidates:
        return fit(reason=f"node selector/affinity {pod_reqs} admits none of the pool's "
                          f"{len(report.candidates)} candidate(s)")
    requests = shape.requests()
    requests["pods"] = requests.get("pods", Decimal(0)) + 1  # RequestsForPods counts the pod itself
    unknown = _unmodelled(requests, candidates)
    if unknown:
        return Fit(report.name, None, None, "not modelled: " + "; ".join(f"{r} ({why})" for r, why in unknown.items()),
                   report.kind, report.weight, unmodelled=tuple(unknown))
    fitting = [c for c in candidates if _fits(c, requests)]
    if not fitting:
        short = []
        negative = sorted({r for c in candidates for r, v in c.capacity.items() if v < 0})
        for resource in sorted(requests, key=lambda r: (_ORDER.get(r, len(_ORDER)), r)):
            wanted = requests[resource]
            most = max((c.free(resource) for c in candidates), default=Decimal(0))
            if most < wanted:
                short.append(f"{resource} (at most {resource_text(resource, most)})")
        detail = ("short of " + ", ".join(short)) if short else "no single candidate has all of it"
        if negative and not short:
            detail = (f"allocatable {', '.join(negative)} is below 0 (the node class's reservations exceed the "
                      "node's capacity), and Karpenter fits nothing on such a type (resources.Fits)")
        daemons = " after the DaemonSets' requests" if any(c.daemon_overhead for c in candidates) else ""
        return fit(reason=f"no candidate has enough allocatable{daemons} for {shape.describe()}: {detail} "
                          f"among {len(candidates)} candidate(s)")
    limits = remaining_limits(report.name, report.limits, report.used)
    within = [c for c in fitting if within_limits(c, limits) is None]
    if not within:
        broken = sorted({why for c in fitting if (why := within_limits(c, limits)) is not None})
        return fit(reason=f"limit already smaller than one node: limits {', '.join(broken)} is below every one "
                          f"of the {len(fitting)} candidate(s) that fit")
    unmet = None if report.settings.best_effort else _min_values_short(report, within)
    if unmet:  # BestEffort: the scheduler keeps the types and relaxes the minValues (filterInstanceTypesByRequirements)
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
    names = tuple(sorted(c.instance.name for c in within))
    if report.unmodelled:  # the node class decides which types launch with an input the core does not model
        return Fit(report.name, None, None, f"not modelled: {', '.join(report.unmodelled)} (which instance types "
                   "the node class admits)", report.kind, report.weight, options=names, unmodelled=report.unmodelled)
    if not any(c.offerings for c in within):
        return fit(best.instance.name, price, offering=None if chosen is None else chosen.offering.label,
                   options=names)
    possible = launches([c for c in within if c.offerings], allowed, _capacity_types(report, pod_reqs),
                        _has_min_values(report), requests)
    if not possible:
        return fit(reason="no offering of the options is left after the provider's launch filters")
    launched = possible[0]
    out = fit(launched.instance, launched.price, offering=launched.offering.offering.label, options=names)
    return Fit(out.pool, out.instance, out.price, out.reason, out.kind, out.weight, out.offering, out.options,
               launch=launched, launch_alternatives=possible[1:])


def _capacity_types(report: PoolReport, pod_reqs: Requirements) -> list[str]:
    """The NodeClaim's capacity types: the pool's, narrowed by the pod's requirement."""
    if Label.CAPACITY_TYPE not in pod_reqs:
        return list(report.capacity_types)
    req = pod_reqs.get(Label.CAPACITY_TYPE)
    return [ct for ct in report.capacity_types if req.has(ct)]


def _has_min_values(report: PoolReport) -> bool:
    """``Requirements.HasMinValues`` of the NodeClaim: a template requirement with minValues."""
    template = report.view.template_requirements if report.view is not None else Requirements()
    return any(req.min_values for req in template.values())


#: The order in which a misfit's short resources are named (others follow by name).
_ORDER = {"cpu": 0, "memory": 1, NVIDIA_GPU: 2, AMD_GPU: 2, NEURON: 2, NEURON_CORE: 2}


def _fits(c: Candidate, requests: Mapping[str, Decimal]) -> bool:
    """``resources.Fits(pod requests + daemon overhead, allocatable)``: no allocatable amount below 0, and every
    resource of the pod or the DaemonSets within what the type allocates (a resource it does not have counts 0)."""
    if any(v < 0 for v in c.capacity.values()):
        return False
    if any(c.free(r) < wanted for r, wanted in requests.items()):
        return False
    return all(c.capacity.get(r, Decimal(0)) >= v for r, v in c.daemon_overhead.items() if r not in requests)


def _unmodelled(requests: Mapping[str, Decimal], candidates: Sequence[Candidate]) -> dict[str, str]:
    """The resources the pod (or the DaemonSets beside it) asks for whose node capacity the core does not know
    (:data:`~karpenter_gpu.k8s.node_resources.UNMODELLED_NODE_RESOURCES`)."""
    asked = {r for r, v in requests.items() if v > 0} | {r for c in candidates for r, v in c.daemon_overhead.items()
                                                          if v > 0}
    return {r: why for r, why in UNMODELLED_NODE_RESOURCES.items() if r in asked}


def _min_values_short(report: PoolReport, types: Sequence[Candidate]) -> str | None:
    """The first minValues of the template the pod's remaining types cannot meet (:func:`distinct_values`)."""
    template = report.view.template_requirements if report.view is not None else Requirements()
    for key, req in template.items():
        if req.min_values:
            distinct = distinct_values(key, types, report.zones)
            if distinct is not None and len(distinct) < req.min_values:
                return (f"minValues {req.min_values} on {key} is not met: only {len(distinct)} distinct value(s) "
                        f"({', '.join(sorted(distinct)) or 'none'})")
    return None


def pod_fit(shape: PodShape, manifests: Sequence[Mapping[str, Any]], catalog: Catalog | None = None, *,
            nodes: Sequence[ClusterNode] = (), aws: AwsFacts | None = None,
            settings: ControllerSettings | None = None) -> list[Fit]:
    """A :class:`Fit` per NodePool, in weight order: the cheapest fitting instance or the reason.

    A pool does not fit when it cannot launch, a NoSchedule/NoExecute taint (not startup taints) is
    not tolerated, the node selector / required affinity conflicts with its requirements and labels
    (``karpenter.sh/nodepool`` is the pool's name), no candidate has enough allocatable cpu, memory
    and GPUs (after overlays), or what is left of a limit (after the cluster's ``nodes``, as
    :func:`simulate_pools`) is smaller than one node of every candidate that fits.
    """
    with paused_collector():  # one pause for both steps: no collector pass over the reports in between
        return fit_reports(shape, simulate_pools(manifests, catalog, nodes=nodes, aws=aws, settings=settings))


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
    allowed, types_ok = OfferingFilter(pod_reqs), dict[str, bool]()
    with paused_collector():
        fits = [_fit_one(shape, report, pod_reqs, allowed, types_ok, relaxed=False) for report in reports]
        if not any(f.instance is not None for f in fits) and any(
                t.get("effect") == "PreferNoSchedule" for r in reports for t in r.taints if isinstance(t, Mapping)):
            fits = [_fit_one(shape, report, pod_reqs, allowed, types_ok) for report in reports]
    return [_panicking(f, report) for f, report in zip(fits, reports)]


def _panicking(fit: Fit, report: PoolReport) -> Fit:
    """``fit`` with :attr:`Fit.panics` when the pod lands on a pool whose NodeClaims Karpenter panics creating."""
    panic = report.view.label_panic if report.view is not None else None
    if panic is None or fit.instance is None:
        return fit
    return replace(fit, panics=f"requirement {panic[1]} (label {panic[0]})")


def first_choice(fits: Iterable[Fit]) -> Fit | None:
    """The first fit with an instance: the highest-weight pool that fits, with what launches there (the provider's
    launch filters and capacity-type choice, :attr:`Fit.launch`). None also when a pool tried before it has an input
    the core does not model (:attr:`Fit.unmodelled`): whether the pod lands there is not known."""
    for f in fits:
        if f.unmodelled:
            return None
        if f.instance is not None:
            return f
    return None


def unmodelled(fits: Iterable[Fit]) -> tuple[str, ...]:
    """What some fit could not judge (see :attr:`Fit.unmodelled`), sorted."""
    return tuple(sorted({r for f in fits for r in f.unmodelled}))
