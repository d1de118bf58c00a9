"""Requirement dicts as the simulator reads them: thin adapters over the scheduling core for callers holding
manifest dicts, the core's KG620 raised as KG711 (a manifest the simulator cannot read)."""

from __future__ import annotations

from collections.abc import Mapping  # isinstance checks: the abc directly, not typing's alias
from typing import Any, Iterable

from karpenter_gpu.analysis.catalog import InstanceType
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.scheduling import Requirement, Requirements

__all__ = ["admits", "requirement", "requirement_admits", "unreadable"]


def unreadable(error: KarpenterGpuError, where: str | None = None) -> KarpenterGpuError:
    """The core's KG620 as the simulator's KG711 (a manifest the simulator cannot read)."""
    return KarpenterGpuError("KG711", prop=where or error.prop, value=error.value, allowed=error.allowed,
                             fix=error.fix)


def requirement(req: Any, where: str = "requirement") -> Requirement:
    """One requirement dict as the core's :class:`Requirement`; KG711 when Karpenter cannot read it."""
    try:
        return Requirement.from_dict(req, where)
    except KarpenterGpuError as error:
        raise unreadable(error) from None


def requirement_admits(labels: Mapping[str, str], req: Mapping[str, Any]) -> bool:
    """Whether a node with ``labels`` satisfies one requirement dict (the core's ``Requirement.admits``).

    Raises KG711 for a requirement Karpenter cannot read (e.g. ``Gt ['abc']``, operator ``in``).
    """
    core = requirement(req)
    return core.admits(labels.get(core.key))


def admits(instance: InstanceType, requirements: Iterable[Mapping[str, Any]],
           extra_labels: Mapping[str, str] | None = None) -> bool:
    """Whether the requirements (and template labels ``extra_labels``) admit this instance type:
    ``compatible`` (``scheduling/nodeclaim.go``) = the type's requirements intersect them. Keys the
    type does not define (offerings, custom labels) do not restrict it."""
    reqs = Requirements(requirement(r) for r in requirements)
    reqs.add(*Requirements.from_labels(extra_labels or {}).values())
    return instance.requirements.conflicting_key(reqs) is None
