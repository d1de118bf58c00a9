"""DaemonSets as Karpenter's scheduler counts them against each node it plans (Karpenter v1.14.1).

``getDaemonSetPods`` (``pkg/controllers/provisioning/provisioner.go``) turns each ``apps/v1`` DaemonSet into a pod
(``daemonset.PodForDaemonSet``: the template's spec, limits merged into missing requests), and
``buildDaemonOverheadGroups`` (``scheduling/scheduler.go``) adds, per NodeClaim template and instance type, the
requests of the daemon pods ``isDaemonPodCompatible`` admits: the template's taints are tolerated (PreferNoSchedule
always is), and some required node-affinity term (tried in order, ``removeRequiredNodeAffinityTerm``) with the
node selector is ``IsCompatible`` with the template's requirements (``AllowUndefinedWellKnownLabels``) and
``Intersects`` the instance type's. ``filterInstanceTypesByRequirements`` (``nodeclaim.go``) then fits the pod's
requests plus that overhead into the type's allocatable.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from collections.abc import Mapping  # isinstance checks: the abc directly, not typing's alias
from typing import Any, Sequence

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.admission import pod_requests
from karpenter_gpu.k8s.labels import is_kind
from karpenter_gpu.k8s.scheduling import Requirements, pod_requirements, untolerated

__all__ = ["DaemonSetView", "daemon_sets"]

_KIND = ("apps/v1", "DaemonSet")


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


@dataclass(frozen=True, eq=False)
class DaemonSetView:
    """One DaemonSet's pod as Karpenter sees it. ``terms``: the requirements of each required node-affinity term
    (with the node selector), in the order the scheduler tries them."""

    name: str
    requests: Mapping[str, Decimal] = field(repr=False)
    tolerations: tuple[Mapping[str, Any], ...] = field(repr=False)
    terms: tuple[Requirements, ...] = field(repr=False)

    @classmethod
    def of(cls, manifest: Mapping[str, Any]) -> "DaemonSetView":
        name = str(_map(manifest.get("metadata")).get("name", "?"))
        pod = _map(_map(_map(manifest.get("spec")).get("template")).get("spec"))
        where = f"DaemonSet {name}.spec.template.spec"
        requests = pod_requests(pod, where)
        requests["pods"] = Decimal(1)  # RequestsForPods counts the pod itself
        tolerations = tuple(t for t in _list(pod.get("tolerations")) if isinstance(t, Mapping))
        node = _map(_map(pod.get("affinity")).get("nodeAffinity"))
        required = node.get("requiredDuringSchedulingIgnoredDuringExecution")
        raw_terms = required.get("nodeSelectorTerms") if isinstance(required, Mapping) else None
        terms = raw_terms if isinstance(raw_terms, list) and raw_terms else [None]
        reqs = []
        for term in terms:
            one = {"nodeSelector": pod.get("nodeSelector")}
            if term is not None:
                one["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
                                                    {"nodeSelectorTerms": [term]}}}
            try:
                reqs.append(pod_requirements(one))
            except KarpenterGpuError as error:
                raise KarpenterGpuError("KG711", prop=f"{where}.affinity", value=error.value, allowed=error.allowed,
                                        fix=error.fix) from None
        return cls(name, requests, tolerations, tuple(reqs))

    def tolerates(self, taints: Sequence[Mapping[str, Any]], *, relax_preferences: bool = True) -> bool:
        """``Taints.ToleratesPod``; ``relax_preferences`` False: PreferNoSchedule taints count too (an existing
        node's ``isDaemonPodCompatibleWithNode`` adds no toleration for them)."""
        return not untolerated(taints, self.tolerations, relax_preferences=relax_preferences)

    def runs_on(self, template: Requirements, well_known: frozenset[str], instance: Requirements | None) -> bool:
        """``isDaemonPodCompatible`` past the taints: some term fits the template and the instance type (``instance``
        None: the template alone, as before Karpenter v1.14, ``getDaemonOverhead`` at sigs.k8s.io/karpenter v1.9.0)."""
        return any(template.compatible(term, well_known) is None
                   and (instance is None or instance.conflicting_key(term) is None) for term in self.terms)

    def runs_on_node(self, labels: Mapping[str, str]) -> bool:
        """``isDaemonPodCompatibleWithNode`` past the taints (an existing node; scheduler.go, sigs.k8s.io/karpenter
        v1.14.1): the node's labels compatible with the pod's strict requirements (``NewStrictPodRequirements``: the
        node selector and the first required term), no label left undefined, no term relaxed."""
        return Requirements.from_labels(labels).compatible(self.terms[0]) is None


def daemon_sets(manifests: Sequence[Any]) -> list[DaemonSetView]:
    return [DaemonSetView.of(m) for m in manifests if is_kind(m, _KIND)]
