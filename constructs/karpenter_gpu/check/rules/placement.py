"""Placement: whether a workload can land on the NodePool or hybrid node group it targets (KG417, KG450,
KG451)."""

from __future__ import annotations

from typing import Any

from karpenter_gpu.analysis.hybrid import hybrid_fit
from karpenter_gpu.apiserver.findings import Severity
from karpenter_gpu.check.rules._model import RuleEnvironment, Pool, Workload, as_dict, as_list
from karpenter_gpu.check.rules._registry import rule
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.admission import admitted_tolerations, requested_resources
from karpenter_gpu.k8s.labels import COMPUTE_TYPE, HYBRID, HYBRID_GROUP_LABEL, Label
from karpenter_gpu.k8s.scheduling import Requirements, pod_requirements, taint_text, untolerated
from karpenter_gpu.k8s.views import HybridGroupView


def _affinity_pools(work: Workload) -> list[tuple[str, str]]:
    """(NodePool name, path) of a required node affinity that pins ``karpenter.sh/nodepool In [...]`` in every term.

    Terms of ``nodeSelectorTerms`` are ORed (k8s.io/component-helpers scheduling/corev1/nodeaffinity
    ``LazyErrorNodeSelector.Match``): only when each term names its pools is the pod limited to them.
    """
    required = as_dict(as_dict(as_dict(work.pod.get("affinity")).get("nodeAffinity")).get(
        "requiredDuringSchedulingIgnoredDuringExecution"))
    out: list[tuple[str, str]] = []
    for i, term in enumerate(as_list(required.get("nodeSelectorTerms"))):
        named = [(j, e) for j, e in enumerate(as_list(as_dict(term).get("matchExpressions")))
                 if as_dict(e).get("key") == Label.NODEPOOL and as_dict(e).get("operator") == "In"]
        if not named:
            return []  # a term without the pool pin admits other pools: nothing to check
        for j, e in named:
            base = (f"{work.pod_path}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
                    f"nodeSelectorTerms[{i}].matchExpressions[{j}]")
            out += [(str(v), base) for v in as_list(e.get("values")) if (str(v), base) not in out]
    return out


def _targets_hybrid(work: Workload) -> bool:
    """Whether the pod requires ``eks.amazonaws.com/compute-type In [hybrid]`` (nodeSelector or the first
    required nodeSelectorTerm, as pod_placement renders it) and names no NodePool."""
    if Label.NODEPOOL in as_dict(work.pod.get("nodeSelector")):
        return False
    try:
        reqs = pod_requirements(work.pod)
    except KarpenterGpuError:
        return False
    req = reqs.get(COMPUTE_TYPE)
    return Label.NODEPOOL not in reqs and req.operator == "In" and req.values == {HYBRID}


def _hybrid_where(work: Workload) -> str:
    selector = as_dict(work.pod.get("nodeSelector"))
    return f"{work.pod_path}.nodeSelector" if COMPUTE_TYPE in selector else f"{work.pod_path}.affinity"


def _hybrid_results(work: Workload, groups: list[HybridGroupView]) -> dict[str, Any]:
    """The kube-scheduler's verdict (:func:`karpenter_gpu.analysis.hybrid.hybrid_fit`) for the pod on each group."""
    reqs = pod_requirements(work.pod)  # readable: _targets_hybrid read it
    shape = work.shape()
    return {g.name: hybrid_fit(shape, g, reqs) for g in groups}


def _kg417_hybrid(work: Workload, groups: list[HybridGroupView]) -> None:
    where = _hybrid_where(work)
    if not groups:
        work.add("KG417", where, f"the pod requires {COMPUTE_TYPE}={HYBRID} but no hybrid node group is "
                                 f"described in this environment (ConfigMaps labelled {HYBRID_GROUP_LABEL}, rendered "
                                 "by HybridGpuNodeGroup): Karpenter never launches hybrid nodes, so unless such nodes "
                                 "exist the pod stays Pending; fix: add the HybridGpuNodeGroup to this environment, "
                                 "or target a NodePool")
        return
    results = _hybrid_results(work, groups)
    if any(fit.placement is None for fit in results.values()):
        return
    named = pod_requirements(work.pod).get(HYBRID_GROUP_LABEL)
    why = "; ".join(f"{name}: {fit.placement}" for name, fit in results.items())
    unknown = sorted(named.values - set(results)) if named.operator == "In" else []
    work.add("KG417", where,
             (f"{HYBRID_GROUP_LABEL} {', '.join(unknown)} names no hybrid node group of this environment "
              f"(groups here: {', '.join(results)}); " if unknown else "")
             + f"the pod fits the nodes of no hybrid node group ({why}): hybrid nodes are fixed and Karpenter "
               "launches none, so the pod stays Pending; fix: place it with pod_placement(<group>), which "
               "renders the group's selector and tolerations")


def _kg417_target(work: Workload, pools: list[Pool], target: str, base: str, how: str, selector: dict) -> None:
    pool = next((p for p in pools if p.name == target), None)
    if pool is None:
        known = ", ".join(sorted(p.name for p in pools)) or "none"
        work.add("KG417", f"{base}[{Label.NODEPOOL}]" if selector else base,
                 f"{how} {target} names no NodePool of this environment (NodePools here: "
                 f"{known}): Karpenter launches nodes only for NodePools that exist and labels them with their own "
                 "name, so the pod stays Pending for good; fix: select one of the NodePools above, or add NodePool "
                 f"{target} to this environment")
        return
    if pool.view.problem is not None:
        work.add("KG417", f"{base}[{Label.NODEPOOL}]" if selector else base,
                 f"NodePool {target} cannot be read by Karpenter ({pool.view.problem.prop}: "
                 f"{pool.view.problem.allowed}): the API server refuses it, so no node of it ever exists and the pod "
                 "stays Pending; fix: correct the NodePool's requirement")
        return
    tolerations = admitted_tolerations([as_dict(t) for t in as_list(work.pod.get("tolerations"))],
                                       requested_resources(work.pod))
    taints = pool.view.taints
    for taint in untolerated(taints, tolerations):
        i = taints.index(dict(taint))
        value = taint.get("value")
        wanted = (f"{{key: {taint.get('key')}, operator: Equal, value: '{value}', effect: {taint.get('effect')}}}"
                  if value not in (None, "") else
                  f"{{key: {taint.get('key')}, operator: Exists, effect: {taint.get('effect')}}}")
        work.add("KG417", f"{work.pod_path}.tolerations",
                 f"NodePool {target} taints its nodes {taint_text(taint)} (spec.template.spec.taints[{i}]) and the "
                 "pod does not tolerate it: Karpenter launches no node for a pod that does not tolerate the pool's "
                 "taints and the scheduler would not place it there, so the pod stays Pending (or, with several "
                 f"pools, never uses this one) while the {'nodeSelector' if selector else 'node affinity'} rules out "
                 f"every other pool; fix: add the toleration {wanted} (pod_placement(*pools) renders them all)")
    try:
        pod_reqs = pod_requirements(work.pod)
    except KarpenterGpuError as error:
        work.add("KG417", f"{work.pod_path}.affinity", f"the pod's node affinity cannot be read ({error.prop}: "
                                                       f"{error.allowed}); fix: {error.fix}")
        return
    template = pool.view.template_requirements
    for key, req in pod_reqs.items():
        if key == Label.NODEPOOL:
            continue
        why = template.compatible(Requirements([req]), pool.view.well_known_labels)
        if why is None:
            continue
        where = f"{base}[{key}]" if key in selector else f"{work.pod_path}.affinity"
        if "does not have known values" in why:
            work.add("KG417", where,
                     f"{req} selects label {key}, which NodePool {target} neither requires nor sets as a template "
                     "label and which is not a well-known label: Karpenter refuses the pod for that pool ('label "
                     f"\"{key}\" does not have known values') and it stays Pending; fix: add {key} to the pool's "
                     "template labels or requirements, or drop it from the pod")
            continue
        mine = template.get(key)
        origin = (f"template label {key}: {pool.labels.get(key)} ({pool.LABELS}[{key}])" if key in pool.labels else
                  f"requirement {mine} ({pool.REQS})")
        work.add("KG417", where,
                 f"{req} conflicts with NodePool {target}'s {origin}: no node of that pool can carry both, so "
                 f"Karpenter launches nothing and the pod stays Pending; fix: drop the {key} selector "
                 "(karpenter.sh/nodepool already picks the pool) or make it match the pool")


@rule("KG417", Severity.ERROR, "workload cannot land on the pool it targets")
def kg417_placement(env: RuleEnvironment) -> None:
    """What it checks: a workload that names NodePools (nodeSelector ``karpenter.sh/nodepool``, or a required node
    affinity pinning it in every term) or hybrid nodes (``eks.amazonaws.com/compute-type: hybrid``): the pools
    must exist and be readable, their taints must be tolerated (with the tolerations the API server's admission
    adds), and the pod's other selectors must be compatible with each pool's requirements and labels; a hybrid
    pod must fit some described hybrid node group.

    Why it matters: Karpenter launches no node for a pod that cannot land on the pool, and the selector rules out
    every other pool, so the pod stays Pending.

    Fix: add the tolerations (``pod_placement(*pools)`` renders them), drop or correct the conflicting selector,
    or name a pool that exists.

    Upstream: kubernetes-sigs/karpenter v1.14.1 ``pkg/controllers/provisioning/scheduling/scheduler.go``
    (``Taints.ToleratesPod``, ``Requirements.Compatible`` with ``AllowUndefinedWellKnownLabels``).
    """
    for work in env.workloads:
        selector = as_dict(work.pod.get("nodeSelector"))
        if _targets_hybrid(work):
            _kg417_hybrid(work, env.groups)
        elif Label.NODEPOOL not in selector:
            # Several pools: a required node affinity on karpenter.sh/nodepool (pod_placement(*pools)).
            for target, path in _affinity_pools(work):
                _kg417_target(work, env.pools, target, path, f"node affinity {Label.NODEPOOL} In", {})
        else:
            _kg417_target(work, env.pools, str(selector[Label.NODEPOOL]), f"{work.pod_path}.nodeSelector",
                          f"nodeSelector {Label.NODEPOOL}:", selector)


@rule("KG450", Severity.ERROR, "workload pod shape larger than one node of the hybrid node group it targets")
def kg450_hybrid_too_big(env: RuleEnvironment) -> None:
    """What it checks: a pod placed on hybrid nodes that could land on some group (labels, taints) but asks for
    more than one node of every such group has (GPUs, cpu, memory).

    Why it matters: hybrid nodes are fixed and Karpenter launches none, so no node can ever run the pod and it
    stays Pending.

    Fix: ask for at most what one node has, or target a NodePool with bigger instance types.

    Upstream: kubernetes ``pkg/scheduler/framework/plugins/noderesources/fit.go`` ``fitsRequest``.
    """
    for work in env.workloads:
        if not _targets_hybrid(work) or not env.groups:
            continue
        results = _hybrid_results(work, env.groups)
        placeable = [name for name, fit in results.items() if fit.placement is None]
        if placeable and all(results[name].resources for name in placeable):
            work.add("KG450", work.pod_path,
                     "; ".join(f"hybrid node group {name}: {results[name].resources}" for name in placeable)
                     + ": no node of the group can ever run the pod, so it stays Pending; fix: ask for at most what "
                       "one node has, or target a NodePool with bigger instance types")


@rule("KG451", Severity.ERROR, "hybrid node group description that cannot be read")
def kg451_hybrid_group(env: RuleEnvironment) -> None:
    """What it checks: a hybrid node group's ConfigMap (labelled ``karpenter-gpu.io/hybrid-node-group``) whose
    node description (labels, taints, counts) cannot be read.

    Why it matters: the placement checks (KG417, KG450) and explain would see no labels, taints or GPUs for its
    nodes, so pods placed on it cannot be checked.

    Fix: render it with HybridGpuNodeGroup, or write nodeLabels/taints as JSON and the counts as whole numbers.

    Upstream: EKS Hybrid Nodes (https://docs.aws.amazon.com/eks/latest/userguide/hybrid-nodes-overview.html); the
    format is the project's own (``karpenter_gpu.k8s.views.HybridGroupView``).
    """
    for obj in env.of_kind(("v1", "ConfigMap")):
        problem = HybridGroupView.of(obj.manifest).problem
        if problem is not None:
            obj.add("KG451", "data", f"hybrid node group {obj.metadata.get('labels', {}).get(HYBRID_GROUP_LABEL)}: "
                                     f"{problem}; pods placed on it cannot be checked (KG417) or explained; fix: "
                                     "render it with HybridGpuNodeGroup, or write nodeLabels/taints as JSON and the "
                                     "counts as whole numbers")
