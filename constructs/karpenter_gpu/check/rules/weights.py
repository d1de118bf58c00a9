"""Weights: the order in which Karpenter tries pools that can serve the same pod (KG404, KG463)."""

from __future__ import annotations

from bisect import bisect_right
from heapq import nsmallest
from typing import Hashable

from karpenter_gpu.apiserver.findings import Severity
from karpenter_gpu.check.rules._model import RuleEnvironment, Pool, as_list
from karpenter_gpu.check.rules._registry import rule
from karpenter_gpu.k8s.labels import AMD_GPU, AUTO_MODE_NODE_CLASS_KIND, NEURON, NODE_CLASS_KIND, NVIDIA_GPU
from karpenter_gpu.k8s.scheduling import tolerations_for, untolerated

#: The accelerator resources :meth:`Pool.gpu_resource` names: what :func:`competes` asks a rival's instance types for.
_RESOURCES = (NVIDIA_GPU, AMD_GPU, NEURON)
#: Rivals a message needs: the first three it shows, and one more to say there are others.
_SHOWN = 4


def competes(env: RuleEnvironment, pool: Pool, other: Pool) -> bool:
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


class _Group:
    """Dynamic pools alike for :func:`competes` (the same taints, the same accelerators among their simulated
    instance types), indexed for the two questions the rules ask of them."""

    def __init__(self, env: RuleEnvironment, members: list[tuple[int, Pool]]) -> None:
        self.rep = members[0][1]  # the pool competes() is asked about for the whole group
        #: The first members (manifest order) that have a weight (KG404).
        self.weighted = [i for i, p in members if p.weight is not None][:_SHOWN + 1]
        #: Members not launching reserved capacity, by weight descending (KG463): ``-weight`` ascending for bisect,
        #: and for each prefix of that order its first members in manifest order.
        ranked = sorted((-_weight(p), i) for i, p in members if not selects_reservations(env, p))
        self.minus_weights = [w for w, _ in ranked]
        self.firsts: list[list[int]] = [[]]
        for _, i in ranked:
            self.firsts.append(nsmallest(_SHOWN + 1, [*self.firsts[-1], i]))


class _Rivals:
    """Which dynamic pools can serve which pools' pods, indexed once per environment: the pools grouped by what
    :func:`competes` reads of the rival (:class:`_Group`), and whether a pool competes asked once per kind of pool
    and group, so the rules cost no scan of every pool per pool."""

    def __init__(self, env: RuleEnvironment) -> None:
        self.env = env
        self.index = {id(p): i for i, p in enumerate(env.pools)}
        grouped: dict[Hashable, list[tuple[int, Pool]]] = {}
        for i, p in enumerate(env.pools):
            if not p.static:
                grouped.setdefault((repr(p.view.taints), self._accelerators(p)), []).append((i, p))
        self.groups = [_Group(env, members) for members in grouped.values()]
        self._reach: dict[Hashable, list[_Group]] = {}

    def _accelerators(self, pool: Pool) -> tuple[bool, ...] | None:
        report = self.env.report(pool)
        if report is None:
            return None
        return tuple(any(c.capacity.get(r, 0) > 0 for c in report.candidates) for r in _RESOURCES)

    def reach(self, pool: Pool) -> list[_Group]:
        """The groups whose pools can serve ``pool``'s pods (:func:`competes` reads only the pool's taints and
        accelerator)."""
        key = (repr(pool.view.taints), pool.is_gpu and pool.gpu_resource())
        found = self._reach.get(key)
        if found is None:
            found = self._reach[key] = [g for g in self.groups if competes(self.env, pool, g.rep)]
        return found

    def first(self, pool: Pool, indices: list[int]) -> list[Pool]:
        """The pools at ``indices`` other than ``pool``, the first :data:`_SHOWN` in manifest order."""
        own = self.index[id(pool)]
        return [self.env.pools[i] for i in sorted(set(indices) - {own})[:_SHOWN]]


def _rivals_of(env: RuleEnvironment) -> _Rivals:
    found = env.memo.get("weights.rivals")
    if found is None:
        found = env.memo["weights.rivals"] = _Rivals(env)
    return found


def weighted_rivals(env: RuleEnvironment, pool: Pool) -> list[Pool]:
    """The first (at most :data:`_SHOWN`, manifest order) other dynamic pools of the environment that have a
    ``spec.weight`` and can serve ``pool``'s pods (:func:`competes`)."""
    rivals = _rivals_of(env)
    return rivals.first(pool, [i for g in rivals.reach(pool) for i in g.weighted])


def unreserved_rivals(env: RuleEnvironment, pool: Pool, at_least: int) -> list[Pool]:
    """The first (at most :data:`_SHOWN`, manifest order) other dynamic pools of the environment that do not launch
    reserved capacity (:func:`selects_reservations`), weigh at least ``at_least`` (:func:`_weight`) and can serve
    ``pool``'s pods (:func:`competes`)."""
    rivals = _rivals_of(env)
    return rivals.first(pool, [i for g in rivals.reach(pool)
                               for i in g.firsts[bisect_right(g.minus_weights, -at_least)]])


def _shown(pools: list[Pool]) -> str:
    """The first three pools with their weights, for a message."""
    return ", ".join(f"{p.name} ({_weight(p)})" for p in pools[:3]) + (", …" if len(pools) > 3 else "")


@rule("KG404", Severity.WARNING, "unweighted dynamic pool beside weighted pools that can serve its pods")
def kg404_weight(env: RuleEnvironment) -> None:
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
        weighted = weighted_rivals(env, pool)
        if not weighted:
            continue
        pool.add("KG404", "spec.weight",
                 f"dynamic pool without spec.weight while {_shown(weighted)}, which can serve the same pods (its taints are "
                 "tolerated by them and they launch instance types its pods fit), have one: no weight means weight 0, "
                 "so Karpenter tries this pool only after those and it becomes their last resort; fix: set "
                 "spec.weight (1..100) to rank it, or acknowledge KG404 if last resort is intended")


def selects_reservations(env: RuleEnvironment, pool: Pool) -> bool:
    """Whether ``pool`` launches reserved capacity: its template admits ``karpenter.sh/capacity-type: reserved`` and
    the node class it names (an EC2NodeClass, or an EKS Auto Mode NodeClass) is in the environment with
    ``capacityReservationSelectorTerms``; Karpenter offers reserved capacity only for the reservations a node class
    selects."""
    if "reserved" not in pool.view.capacity_types:
        return False
    name = pool.view.node_class_ref.get("name")
    kind = AUTO_MODE_NODE_CLASS_KIND if pool.view.auto_mode else NODE_CLASS_KIND
    return isinstance(name, str) and name in _reserving(env)[kind]


def _reserving(env: RuleEnvironment) -> dict[tuple[str, str], set[str]]:
    """The names of the node classes (EC2NodeClass, Auto Mode NodeClass) with ``capacityReservationSelectorTerms``,
    by kind: read once per environment."""
    found = env.memo.get("weights.reserving")
    if found is None:
        found = env.memo["weights.reserving"] = {
            kind: {obj.name for obj in env.of_kind(kind) if as_list(obj.spec.get("capacityReservationSelectorTerms"))}
            for kind in (NODE_CLASS_KIND, AUTO_MODE_NODE_CLASS_KIND)}
    return found


@rule("KG463", Severity.WARNING, "reserved pool that does not outrank a pool that can take the same pods")
def kg463_reserved_outranks(env: RuleEnvironment) -> None:
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
        above = unreserved_rivals(env, pool, own)
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
