"""Weights: the order in which Karpenter tries pools that can serve the same pod (KG404)."""

from __future__ import annotations

from karpenter_gpu.check.findings import Severity
from karpenter_gpu.check.rules._model import Environment, Pool
from karpenter_gpu.check.rules._registry import rule
from karpenter_gpu.k8s.scheduling import tolerations_for, untolerated


def competes(env: Environment, pool: Pool, other: Pool) -> bool:
    """Whether a pod that fits ``pool`` can also be served by ``other``: the least demanding such pod tolerates
    exactly ``pool``'s taints, selects nothing and requests one unit of ``pool``'s accelerator (GPU pools); it fits
    ``other`` when those tolerations tolerate ``other``'s taints and ``other`` launches an instance type with that
    accelerator (as the simulator sees its candidates; assumed when it could not be simulated)."""
    if untolerated(other.view.taints, tolerations_for(pool.view.taints)):
        return False
    if not pool.is_gpu:
        return True
    report = env.report(other)
    if report is None:
        return True
    resource = pool.gpu_resource()
    return any(c.capacity.get(resource, 0) > 0 for c in report.candidates)


@rule("KG404", Severity.WARNING, "unweighted dynamic pool beside weighted pools that can serve its pods")
def kg404_weight(env: Environment) -> None:
    """What it checks: a dynamic NodePool without ``spec.weight`` while weighted dynamic pools of the environment
    can serve its pods. Whether two pools compete comes from the scheduling core: a pod tolerating the pool's
    taints (and requesting its accelerator) must tolerate the other pool's taints and fit one of its instance
    types. Pools that can never serve the same pod are not compared.

    Why it matters: no weight means weight 0, so Karpenter tries the pool only after every weighted pool that can
    serve the pod, and it becomes the last resort for them.

    Fix: set ``spec.weight`` (1..100) to rank the pool, or acknowledge KG404 if last resort is intended.

    Upstream: kubernetes-sigs/karpenter v1.14.1 ``pkg/apis/v1/nodepool.go`` ``OrderByWeight`` and
    ``pkg/controllers/provisioning/scheduling/scheduler.go`` (pools tried in weight order for each pod).
    """
    for pool in env.pools:
        if pool.static or pool.weight is not None:
            continue
        weighted = [p for p in env.pools if p is not pool and not p.static and p.weight is not None
                    and competes(env, pool, p)]
        if not weighted:
            continue
        shown = ", ".join(f"{p.name} ({p.weight})" for p in weighted[:3]) + (", …" if len(weighted) > 3 else "")
        pool.add("KG404", "spec.weight",
                 f"dynamic pool without spec.weight while {shown}, which can serve the same pods (its taints are "
                 "tolerated by them and they launch instance types its pods fit), have one: no weight means weight 0, "
                 "so Karpenter tries this pool only after those and it becomes their last resort; fix: set "
                 "spec.weight (1..100) to rank it, or acknowledge KG404 if last resort is intended")
