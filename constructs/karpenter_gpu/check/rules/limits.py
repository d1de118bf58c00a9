"""Limits: what caps a pool's spend and its node count (KG401, KG416, KG430)."""

from __future__ import annotations

from typing import Any

from karpenter_gpu.analysis.cost_notes import Unbounded
from karpenter_gpu.apiserver.findings import Severity
from karpenter_gpu.check.rules._model import RuleEnvironment, Pool, as_dict
from karpenter_gpu.check.rules._registry import rule
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.drift import static_drift_blocked
from karpenter_gpu.k8s.units import Quantity


def _cap_text(pool: Pool, bounded_by: tuple[str, ...]) -> str:
    limits = as_dict(pool.spec.get("limits"))
    return ", ".join(f"limits.{r} {limits.get(r)}" for r in bounded_by)


def _unbounded_with_limit(pool: Pool, kind: str, resource: str, report: Any) -> None:
    """The accelerator limit is set, yet the simulator finds types no limit counts (0-GPU g6f, gr6f)."""
    note = next((n.why for n in report.notes if isinstance(n, Unbounded)), "")
    pool.add("KG401", "spec.limits",
             f"{kind} pool's spend is unbounded although spec.limits['{resource}'] is set"
             f"{f': {note}' if note else ''}; a pending-pod storm buys those instances without bound; fix: keep "
             "them out of the requirements (instance-gpu-count Gt ['0'] for 0-GPU types such as g6f, "
             "instance-gpu-manufacturer In ['nvidia'] for other vendors' GPUs), add a limit they count (cpu, "
             f"memory or nodes), or give them {resource} capacity with a NodeOverlay (GpuCapacityOverlay)")


@rule("KG401", Severity.WARNING, "dynamic GPU pool whose limits do not cap its accelerators or its spend")
def kg401_gpu_limit(env: RuleEnvironment) -> None:
    """What it checks: a dynamic GPU or Neuron NodePool without ``spec.limits`` on its accelerator resource
    (``nvidia.com/gpu``, ``amd.com/gpu``, ``aws.amazon.com/neuron``). When other limits (cpu, memory, neuroncore,
    nodes) cap the pool, the simulator's exact ceiling under them is reported as information with its figure;
    when no limit caps some instance type the pool can launch, it is a warning. With the accelerator limit set it
    is a warning too when a type the pool can launch needs none of the limited resources: a type reporting 0
    GPUs (g6f, gr6f: fractional L4) is never counted by ``nvidia.com/gpu``, so its spend has no bound (explain
    reports the same).

    Why it matters: a pending-pod storm (a bad HPA, a job retry loop) makes Karpenter buy GPU instances until a
    limit stops it; without one that bites, spend has no bound. A cap through cpu or memory holds, but says
    in the wrong unit how many GPUs that is.

    Fix: add ``spec.limits`` with the accelerator resource (e.g. ``nvidia.com/gpu: '16'``), sized to the spend
    you accept.

    Upstream: kubernetes-sigs/karpenter v1.14.1 ``pkg/controllers/provisioning/scheduling/nodeclaim.go``
    ``filterByRemainingResources`` (a type one node of which exceeds a remaining limit is never launched) and
    ``pkg/apis/v1/nodepool.go`` ``Limits.ExceededBy``.
    """
    for pool in env.pools:
        if not pool.dynamic_gpu:
            continue
        resource = pool.gpu_resource()
        kind = "Neuron" if pool.is_neuron else "GPU"
        report = env.report(pool)
        if resource in as_dict(pool.spec.get("limits")):
            if report is not None and report.unbounded:
                _unbounded_with_limit(pool, kind, resource, report)
            continue
        if report is not None and not report.unbounded and report.bounded_by:
            worst = report.worst_case_hourly
            figure = f": at most about ${worst:.0f}/h" if worst is not None else ""
            mix = ", ".join(f"{n} x {name}" for name, n in report.worst_case_nodes)
            pool.add("KG401", "spec.limits",
                     f"{kind} pool without spec.limits['{resource}'], capped by {_cap_text(pool, report.bounded_by)}"
                     f"{figure} ({mix or 'no node'} in the dearest case, {report.price_basis}); the cap holds but "
                     f"counts {', '.join(report.bounded_by)}, not {kind}s; fix: state it as spec.limits {resource} "
                     "to make the cap say what it means", severity=Severity.INFO)
            continue
        why = ("nothing caps how many" if not as_dict(pool.spec.get("limits")) else
               "its limits do not stop Karpenter launching")
        note = next((n.why for n in (report.notes if report else ()) if isinstance(n, Unbounded)), "")
        pool.add("KG401", "spec.limits",
                 f"{kind} pool without spec.limits['{resource}']: {why} {kind} nodes it launches"
                 f"{f' ({note})' if note else ''}, so a pending-pod storm (a bad HPA, a job retry loop) buys "
                 f"{kind} instances without bound; fix: add spec.limits {resource}: '<max>' (e.g. '16'), sized to "
                 "the spend you accept")


def _nodes_limit(value: Any) -> float | None:
    try:
        return float(Quantity.parse(value).as_decimal())
    except (KarpenterGpuError, ValueError, ArithmeticError):
        return None


@rule("KG416", Severity.ERROR, "static pool without limits.nodes at or above replicas")
def kg416_static_limit(env: RuleEnvironment) -> None:
    """What it checks: a static NodePool (``spec.replicas``) whose ``spec.limits.nodes`` is missing or below its
    replicas.

    Why it matters: below replicas the pool never reaches its replica count; without the limit nothing caps how
    many GPU nodes exist while Karpenter launches replacements before it removes drifted or expired nodes.

    Fix: set ``spec.limits.nodes`` to replicas plus the surge you accept (e.g. replicas + 1).

    Upstream: kubernetes-sigs/karpenter v1.14.1 ``pkg/controllers/provisioning/static`` (static provisioning
    launches up to ``replicas`` under ``limits.nodes``) and ``pkg/apis/v1/nodepool.go``.
    """
    for pool in env.pools:
        replicas = pool.view.replicas
        if not pool.static or replicas is None:
            continue
        limits = as_dict(pool.spec.get("limits"))
        if "nodes" not in limits:
            pool.add("KG416", "spec.limits",
                     f"static pool (replicas {replicas}) without limits.nodes: during drift or expiry Karpenter "
                     "launches replacements before removing nodes, with nothing capping how many GPU nodes exist at "
                     f"once; fix: set spec.limits.nodes to at least replicas ({replicas}) plus the surge you accept, "
                     f"e.g. '{replicas + 1}'")
            continue
        cap = _nodes_limit(limits["nodes"])
        if cap is not None and cap < replicas:
            pool.add("KG416", "spec.limits.nodes",
                     f"limits.nodes {limits['nodes']} is below replicas {replicas}: the static pool can never reach "
                     "its replica count and has no room to surge for drift or expiry replacement; fix: raise "
                     f"spec.limits.nodes to at least {replicas} (e.g. '{replicas + 1}') or lower replicas")


@rule("KG430", Severity.WARNING, "static pool whose limits.nodes equals replicas: drifted nodes are never replaced")
def kg430_static_drift(env: RuleEnvironment) -> None:
    """What it checks: a static NodePool whose ``spec.limits.nodes`` leaves no room above its replicas.

    Why it matters: static drift reserves a replacement node under ``limits.nodes`` before it removes a drifted
    one; with no room, a new AMI or any template change leaves every node drifted but running.

    Fix: set ``spec.limits.nodes`` to replicas plus the surge you accept.

    Upstream: kubernetes-sigs/karpenter v1.14.1 ``pkg/controllers/disruption/staticdrift.go``
    ``StaticDrift.ComputeCommands``.
    """
    for pool in env.pools:
        replicas = pool.view.replicas
        if not pool.static or replicas is None:
            continue
        cap = _nodes_limit(as_dict(pool.spec.get("limits")).get("nodes"))
        if cap is None or cap < replicas:
            continue  # KG416 says why
        blocked = static_drift_blocked(pool.view)
        if blocked is not None:
            pool.add("KG430", "spec.limits.nodes",
                     f"{blocked} (StaticDrift reserves a node under limits.nodes first): a new AMI or any template "
                     "change leaves every node drifted but running; fix: set spec.limits.nodes to replicas plus the "
                     f"surge you accept, e.g. '{replicas + 1}'")
