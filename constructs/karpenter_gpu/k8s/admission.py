"""What EKS's admission and the API server's defaulting do to a pod before Karpenter sees it, and its requests.

- :func:`pod_requests`: a pod's effective requests (``resourcehelper.PodRequests``, KEP-753 sidecar-aware, as
  Karpenter's ``resources.Ceiling`` reads them): the containers' requests summed with the restartable
  (sidecar) init containers', or the largest init container plus the sidecars started before it, whichever is
  larger, plus ``spec.overhead``. A container's limit stands in for a request it does not give (the API server's
  defaulting copies limits into missing requests). Pod-level requests (``spec.resources``, PodLevelResources:
  ``IsPodLevelRequestsSet``) replace the containers' sum for cpu, memory and ``hugepages-*``; a pod-level limit
  stands in for a pod-level request the containers do not give either (``defaultPodRequests``, kubernetes
  ``pkg/apis/core/v1/defaults.go``).
- :func:`admitted_tolerations`: EKS enables the ``ExtendedResourceToleration`` admission plugin (kubernetes
  ``plugin/pkg/admission/extendedresourcetoleration/admission.go`` ``Admit``): for every extended resource a
  container or init container requests, the pod gets ``{key: <resource>, operator: Exists, effect: NoSchedule}``.
  Every place that asks whether a pod tolerates a pool's taints starts from these tolerations.
"""

from __future__ import annotations

from decimal import Decimal
from collections.abc import Mapping  # isinstance checks: the abc directly, not typing's alias
from typing import Any, Iterable

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.units import Quantity

__all__ = ["admitted_tolerations", "is_extended_resource", "pod_requests", "requested_resources"]


def is_extended_resource(name: str) -> bool:
    """``helper.IsExtendedResourceName``: a qualified name outside ``kubernetes.io/`` (and not ``requests.*``)."""
    return "/" in name and "kubernetes.io/" not in name and not name.startswith("requests.")


def admitted_tolerations(tolerations: Iterable[Mapping[str, Any]], requested: Iterable[str]) -> tuple[dict, ...]:
    """The pod's tolerations after ``ExtendedResourceToleration``: ``tolerations`` plus one Exists/NoSchedule
    toleration per extended resource in ``requested`` (sorted, as ``resources.List()``), unless already present
    (``AddOrUpdateTolerationInPod``)."""
    out = [dict(t) for t in tolerations if isinstance(t, Mapping)]
    for resource in sorted({r for r in requested if is_extended_resource(r)}):
        added = {"key": resource, "operator": "Exists", "effect": "NoSchedule"}
        if added not in out:
            out.append(added)
    return tuple(out)


def requested_resources(spec: Mapping[str, Any]) -> set[str]:
    """The resource names a pod spec's containers and init containers request (a limit implies the request)."""
    out: set[str] = set()
    for part in ("containers", "initContainers"):
        containers = spec.get(part)
        for container in containers if isinstance(containers, list) else []:
            resources = container.get("resources") if isinstance(container, Mapping) else None
            for kind in ("requests", "limits"):
                values = resources.get(kind) if isinstance(resources, Mapping) else None
                if isinstance(values, Mapping):
                    out |= {str(k) for k in values}
    return out


def _container_requests(container: Any, where: str) -> dict[str, Decimal]:
    resources = container.get("resources") if isinstance(container, Mapping) else None
    resources = resources if isinstance(resources, Mapping) else {}
    wanted: dict[str, Any] = {}
    for part in ("limits", "requests"):
        values = resources.get(part)
        if isinstance(values, Mapping):
            wanted.update({str(k): v for k, v in values.items()})
    out = {}
    for name, value in wanted.items():
        try:
            out[name] = Quantity.parse(value if isinstance(value, str) else str(value)).as_decimal()
        except KarpenterGpuError:
            raise KarpenterGpuError("KG711", prop=f"{where}.resources.{name}", value=value,
                                    allowed="a Kubernetes quantity", fix="write the request as Kubernetes does") from None
    return out


def _add(total: dict[str, Decimal], part: Mapping[str, Decimal]) -> None:
    for k, v in part.items():
        total[k] = total.get(k, Decimal(0)) + v


def pod_requests(spec: Mapping[str, Any], where: str = "pod") -> dict[str, Decimal]:
    """``PodRequests`` of a pod spec (see the module doc). Raises KG711 for a quantity it cannot read."""
    raw_containers, raw_inits = spec.get("containers"), spec.get("initContainers")
    containers: list[Any] = raw_containers if isinstance(raw_containers, list) else []
    inits: list[Any] = raw_inits if isinstance(raw_inits, list) else []
    total: dict[str, Decimal] = {}
    for i, c in enumerate(containers):
        _add(total, _container_requests(c, f"{where}.containers[{i}]"))
    sidecars: dict[str, Decimal] = {}
    peak: dict[str, Decimal] = {}
    for i, c in enumerate(inits):
        own = _container_requests(c, f"{where}.initContainers[{i}]")
        if isinstance(c, Mapping) and c.get("restartPolicy") == "Always":
            _add(sidecars, own)
            continue
        running = dict(sidecars)
        _add(running, own)
        for k, v in running.items():
            peak[k] = max(peak.get(k, Decimal(0)), v)
    _add(total, sidecars)
    for k, v in peak.items():
        total[k] = max(total.get(k, Decimal(0)), v)
    _pod_level(spec, total, where)
    overhead = spec.get("overhead")
    if isinstance(overhead, Mapping):
        _add(total, _container_requests({"resources": {"requests": overhead}}, f"{where}.overhead"))
    return total


def _pod_level_resource(name: str) -> bool:
    """``IsSupportedPodLevelResource``: cpu, memory and huge pages."""
    return name in ("cpu", "memory") or name.startswith("hugepages-")


def _pod_level(spec: Mapping[str, Any], total: dict[str, Decimal], where: str) -> None:
    """Pod-level requests over the containers' (``PodRequests`` when ``IsPodLevelRequestsSet``), after the API
    server's ``defaultPodRequests``: a pod-level limit stands in for a request neither the pod nor a container
    gives."""
    level = spec.get("resources")
    if not isinstance(level, Mapping):
        return
    requests = _container_requests({"resources": {"requests": level.get("requests")}}, f"{where}.resources")
    limits = _container_requests({"resources": {"requests": level.get("limits")}}, f"{where}.resources")
    if any(_pod_level_resource(k) for k in limits):  # defaulting runs only when pod-level limits are given
        for k, v in limits.items():
            if _pod_level_resource(k) and k not in requests and k not in total:
                requests[k] = v
    for k, v in requests.items():
        if _pod_level_resource(k):
            total[k] = v
