"""Weights: the order in which Karpenter tries pools that can serve the same pod (KG404, KG463)."""

from __future__ import annotations

from typing import Callable

from karpenter_gpu.check.findings import Severity
from karpenter_gpu.check.rules._model import Environment, Pool, as_list
from karpenter_gpu.check.rules._registry import rule
from karpenter_gpu.k8s.labels import AUTO_MODE_NODE_CLASS_KIND, NODE_CLASS_KIND
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


def rivals(env: Environment, pool: Pool, keep: Callable[[Pool], bool]) -> list[Pool]:
    """The other dynamic pools of the environment that can serve ``pool``'s pods (:func:`competes`) and ``keep``."""
    return [p for p in env.pools if p is not pool and not p.static and keep(p) and competes(env, pool, p)]


def _shown(pools: list[Pool]) -> str:
    """The first three pools with their weights, for a message."""
    return ", ".join(f"{p.name} ({_weight(p)})" for p in pools[:3]) + (", …" if len(pools) > 3 else "")


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
        weighted = rivals(env, pool, lambda p: p.weight is not None)
        if not weighted:
            continue
        pool.add("KG404", "spec.weight",
                 f"dynamic pool without spec.weight while {_shown(weighted)}, which can serve the same pods (its taints are "
                 "tolerated by them and they launch instance types its pods fit), have one: no weight means weight 0, "
                 "so Karpenter tries this pool only after those and it becomes their last resort; fix: set "
                 "spec.weight (1..100) to rank it, or acknowledge KG404 if last resort is intended")


def selects_reservations(env: Environment, pool: Pool) -> bool:
    """Whether ``pool`` launches reserved capacity: its template admits ``karpenter.sh/capacity-type: reserved`` and
    the node class it names (an EC2NodeClass, or an EKS Auto Mode NodeClass) is in the environment with
    ``capacityReservationSelectorTerms``; Karpenter offers reserved capacity only for the reservations a node class
    selects."""
    if "reserved" not in pool.view.capacity_types:
        return False
    ref = pool.view.node_class_ref
    kinds = (AUTO_MODE_NODE_CLASS_KIND,) if pool.view.auto_mode else (NODE_CLASS_KIND,)
    return any(obj.name == ref.get("name") and as_list(obj.spec.get("capacityReservationSelectorTerms"))
               for kind in kinds for obj in env.of_kind(kind))


@rule("KG463", Severity.WARNING, "reserved pool that does not outrank a pool that can take the same pods")
def kg463_reserved_outranks(env: Environment) -> None:
    """What it checks: a dynamic NodePool that launches reserved capacity (its requirements admit
    ``karpenter.sh/capacity-type: reserved`` and its node class selects capacity reservations) whose
    ``spec.weight`` is not strictly above that of another dynamic pool that can serve its pods (as KG404 decides
    it), other than a pool launching reserved capacity itself. Equal weights count: the tie is broken by name.

    Why it matters: Karpenter tries NodePools in weight order for each pod and launches from the first one
    whose instance types fit, so an on-demand or spot pool ranked at or above the reservation's pool takes the
    pods while the paid-for reservation stays idle. With equal weights the pool whose name is later in the
    alphabet is tried first: a rename silently changes which capacity is bought.

    Fix: give the reserved pool a weight strictly above every pool it falls back to (the reserved pool default is
    100; spot ladders and on-demand pools default below it), or acknowledge KG463 when the other pool is meant
    to win.

    Upstream: kubernetes-sigs/karpenter v1.14.1 ``pkg/utils/nodepool/nodepool.go`` ``OrderByWeight`` (weight
    descending, then name descending) and ``pkg/controllers/provisioning/scheduling/scheduler.go`` (pools tried in
    that order per pod); aws/karpenter-provider-aws v1.14.1 ``pkg/providers/instance/instance.go``
    ``getCapacityType`` (reserved only within a pool that admits it).
    """
    for pool in env.pools:
        if pool.static or not selects_reservations(env, pool):
            continue
        own = _weight(pool)
        above = [p for p in rivals(env, pool, lambda p: not selects_reservations(env, p)) if _weight(p) >= own]
        if not above:
            continue
        pool.add("KG463", "spec.weight",
                 f"pool launching reserved capacity with weight {own} while {_shown(above)}, which can serve the same pods, "
                 "rank at or above it: Karpenter tries pools by weight (equal weights by name, descending), so those "
                 "take the pods while the reservation stays idle; fix: give this pool a weight strictly above theirs "
                 "(at most 100), or acknowledge KG463 if the other pool is meant to win")


def _weight(pool: Pool) -> int:
    """``spec.weight`` as Karpenter orders by it: unset (or unreadable) is 0."""
    weight = pool.weight
    return weight if isinstance(weight, int) and not isinstance(weight, bool) else 0
