"""A pending pod as the provisioning scheduler reads it (Karpenter v1.14.1), and its preference relaxation.

``PodData`` is ``scheduler.go`` ``updateCachedPodData``: the requests (``resources.RequestsForPods``, through the one
pod-request model :func:`~karpenter_gpu.k8s.admission.pod_requests`), the requirements with preferences
(``NewPodRequirements``: node selector, the heaviest preferred node-affinity term, the first required term) and the
strict ones (``NewStrictPodRequirements``). :func:`relax` is ``preferences.go`` ``Preferences.Relax``.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.admission import pod_requests
from karpenter_gpu.k8s.scheduling import Requirements, pod_requirements

__all__ = ["BatchPod", "HostPort", "PodData", "host_ports", "mapping", "pod_data", "read_pods", "relax", "selects"]

_NODE_AFFINITY_PATH = ("affinity", "nodeAffinity")


def mapping(value: Any) -> Mapping[str, Any]:
    """``value`` when it is a mapping (the object itself: relaxation edits it), else an empty one."""
    return value if isinstance(value, Mapping) else {}


def _fail(where: str, prop: str, value: Any, allowed: str, code: str = "KG481") -> KarpenterGpuError:
    return KarpenterGpuError(code, prop=f"{where} {prop}", value=value, allowed=allowed,
                             fix="write the pod as the API server admits it")


@dataclass
class BatchPod:
    """One pod of a batch: ``key`` is ``namespace/name``; ``spec`` is the pod's own (relaxation works on copies)."""

    key: str
    namespace: str
    name: str
    labels: Mapping[str, str]
    spec: dict
    index: int
    where: str = field(default="pod", compare=False)


@dataclass(frozen=True)
class HostPort:
    """``scheduling.HostPort``: an unset hostIP is 0.0.0.0 (``GetHostPorts``); the protocol as written."""

    ip: str
    port: int
    protocol: str

    def matches(self, other: "HostPort") -> bool:
        """``HostPort.Matches``: same protocol and port, and equal IPs unless one is unspecified."""
        if self.protocol != other.protocol or self.port != other.port:
            return False
        return self.ip == other.ip or self.ip in _UNSPECIFIED or other.ip in _UNSPECIFIED


_UNSPECIFIED = frozenset({"0.0.0.0", "::"})


@dataclass(frozen=True)
class PodData:
    """``PodData`` of ``scheduler.go``: requests, requirements (with the heaviest preference), strict requirements."""

    requests: Mapping[str, Decimal]
    requirements: Requirements
    strict: Requirements


def read_pods(pods: Any) -> list[BatchPod]:
    """The batch's pods, each a v1 Pod mapping after admission; KG480 for one that is no pod or a duplicate."""
    out: list[BatchPod] = []
    seen: set[str] = set()
    for index, pod in enumerate(pods):
        where = f"pod {index + 1}"
        if not isinstance(pod, Mapping):
            raise _fail(where, "", type(pod).__name__, "a v1 Pod mapping", "KG480")
        meta = mapping(pod.get("metadata"))
        name, namespace = meta.get("name"), meta.get("namespace") or "default"
        if not isinstance(name, str) or not name or not isinstance(namespace, str):
            raise _fail(where, "metadata.name", name, "a pod name (and a namespace string)", "KG480")
        key = f"{namespace}/{name}"
        if key in seen:
            raise _fail(where, "metadata.name", key, "one pod per namespace and name", "KG480")
        seen.add(key)
        labels = meta.get("labels") or {}
        if not isinstance(labels, Mapping) or not all(isinstance(v, str) for v in labels.values()):
            raise _fail(f"pod {key}", "metadata.labels", labels, "a mapping of string labels")
        spec = pod.get("spec")
        if not isinstance(spec, Mapping):
            raise _fail(f"pod {key}", "spec", spec, "a pod spec mapping")
        out.append(BatchPod(key, namespace, name, dict(labels), copy.deepcopy(dict(spec)), index, f"pod {key}"))
    return out


def _node_affinity(spec: Mapping[str, Any]) -> Mapping[str, Any]:
    return mapping(mapping(spec.get("affinity")).get("nodeAffinity"))


def _preferred_first(terms: list) -> list:
    """``sort.Slice`` descending by weight (ties keep their order here; upstream's order among ties is unspecified)."""
    return sorted(terms, key=lambda t: -(t.get("weight") or 0) if isinstance(t, Mapping) else 0)


def pod_data(pod: BatchPod, spec: Mapping[str, Any] | None = None) -> PodData:
    """``updateCachedPodData`` (``scheduler.go``) of the pod as ``spec`` has it (relaxed or not)."""
    spec = pod.spec if spec is None else spec
    strict = pod_requirements(spec)
    requirements = strict
    preferred = _node_affinity(spec).get("preferredDuringSchedulingIgnoredDuringExecution")
    if isinstance(preferred, list) and preferred:
        heaviest = _preferred_first(preferred)[0]
        pref = heaviest.get("preference") if isinstance(heaviest, Mapping) else None
        exprs = pref.get("matchExpressions") if isinstance(pref, Mapping) else None
        requirements = Requirements.from_labels(mapping(spec.get("nodeSelector")))
        requirements.add(*Requirements.from_dicts(exprs or [], f"{pod.where} preferred node affinity").values())
        requirements.add(*strict.values())
    requests = pod_requests(spec, pod.where)
    requests["pods"] = requests.get("pods", Decimal(0)) + 1  # RequestsForPods counts the pod
    return PodData(requests, requirements, strict)


def host_ports(spec: Mapping[str, Any]) -> tuple[HostPort, ...]:
    """``GetHostPorts``: every container port with a hostPort (init containers have none that count)."""
    out = []
    for container in spec.get("containers") or []:
        for port in (container.get("ports") or []) if isinstance(container, Mapping) else []:
            if isinstance(port, Mapping) and port.get("hostPort"):
                out.append(HostPort(str(port.get("hostIP") or "0.0.0.0"), int(port["hostPort"]),
                                    str(port.get("protocol") or "")))
    return tuple(out)


def selects(selector: Any, labels: Mapping[str, str]) -> bool:
    """``metav1.LabelSelectorAsSelector(selector).Matches(labels)``: nil selects nothing, {} everything; an
    unreadable selector selects nothing (``labels.Nothing()``)."""
    if selector is None:
        return False
    if not isinstance(selector, Mapping):
        return False
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expr in selector.get("matchExpressions") or []:
        if not isinstance(expr, Mapping):
            return False
        key, op, values = str(expr.get("key")), expr.get("operator"), expr.get("values") or []
        if op == "In" and labels.get(key) not in values:
            return False
        if op == "NotIn" and key in labels and labels[key] in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
        if op not in ("In", "NotIn", "Exists", "DoesNotExist"):
            return False
    return True


def _pop_heaviest(holder: Mapping[str, Any] | None, field_name: str) -> bool:
    terms = mapping(holder).get(field_name)
    if not isinstance(terms, list) or not terms:
        return False
    assert isinstance(holder, dict)
    holder[field_name] = _preferred_first(terms)[1:]
    return True


def relax(spec: dict, tolerate_prefer_no_schedule: bool) -> bool:
    """``Preferences.Relax`` on ``spec`` (a copy): the first relaxation that applies, in upstream's order --
    a required node-affinity term while more than one is left, the heaviest preferred pod affinity, pod
    anti-affinity and node affinity terms, a ScheduleAnyway spread, then (when a NodePool has a PreferNoSchedule
    taint) an Exists/PreferNoSchedule toleration. False: nothing left to relax."""
    affinity = mapping(spec.get("affinity"))
    node = mapping(affinity.get("nodeAffinity"))
    required = mapping(node.get("requiredDuringSchedulingIgnoredDuringExecution"))
    terms = required.get("nodeSelectorTerms")
    if isinstance(terms, list) and len(terms) > 1 and isinstance(required, dict):
        required["nodeSelectorTerms"] = terms[1:]
        return True
    for kind in ("podAffinity", "podAntiAffinity"):
        if _pop_heaviest(affinity.get(kind), "preferredDuringSchedulingIgnoredDuringExecution"):
            return True
    if _pop_heaviest(node, "preferredDuringSchedulingIgnoredDuringExecution"):
        return True
    spreads = spec.get("topologySpreadConstraints") or []
    for i, tsc in enumerate(spreads):
        if isinstance(tsc, Mapping) and tsc.get("whenUnsatisfiable") == "ScheduleAnyway":
            spreads[i] = spreads[-1]  # swap with the last, then drop the last (as upstream)
            spreads.pop()
            return True
    if tolerate_prefer_no_schedule:
        tolerations = spec.setdefault("tolerations", [])
        if any(isinstance(t, Mapping) and _matches_prefer(t) for t in tolerations):
            return False
        tolerations.append({"operator": "Exists", "effect": "PreferNoSchedule"})
        return True
    return False


def _matches_prefer(toleration: Mapping[str, Any]) -> bool:
    """``Toleration.MatchToleration`` against ``{operator: Exists, effect: PreferNoSchedule}``."""
    return (toleration.get("key") or "") == "" and (toleration.get("operator") or "") == "Exists" and \
        (toleration.get("effect") or "") == "PreferNoSchedule" and (toleration.get("value") or "") == ""
