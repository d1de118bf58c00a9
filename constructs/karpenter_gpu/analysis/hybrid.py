"""Where a pod lands on hybrid nodes: the kube-scheduler's answer for a fixed, described set of nodes.

Hybrid nodes (EKS Hybrid Nodes, described by the ConfigMaps that
:class:`~karpenter_gpu.pools.hybrid_gpu_nodes.HybridGpuNodeGroup` renders, read through
:class:`~karpenter_gpu.k8s.views.HybridGroupView`) already exist: Karpenter never launches one, and the
kube-scheduler binds a pending pod to an existing node it fits before Karpenter provisions anything for it
(Karpenter only acts on pods the scheduler marked unschedulable). A pod fits a group's nodes when

- it tolerates every NoSchedule/NoExecute taint of the nodes (:func:`~karpenter_gpu.k8s.scheduling.untolerated`;
  the scheduler's TaintToleration filter ignores PreferNoSchedule),
- its nodeSelector and required node affinity are satisfied by the nodes' labels
  (:meth:`~karpenter_gpu.k8s.scheduling.Requirements.admits_labels`: an absent label satisfies only NotIn and
  DoesNotExist), and
- one node has the GPUs (``nvidia.com/gpu``; hybrid nodes advertise no MIG or other device resources here, so
  another extended resource does not fit), and the cpu and memory when the group describes them; ephemeral
  storage or huge pages the pod asks for are not described: the answer says "not modelled".
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Mapping, NamedTuple, Sequence

from karpenter_gpu.analysis.pod_fit import Fit
from karpenter_gpu.analysis.pod_shape import PodShape
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.admission import is_extended_resource
from karpenter_gpu.k8s.scheduling import Requirements, taint_text, untolerated
from karpenter_gpu.k8s.units import Quantity
from karpenter_gpu.k8s.views import HybridGroupView, hybrid_groups

__all__ = ["HYBRID_KIND", "HybridFit", "hybrid_fit", "hybrid_fits", "node_shape", "undescribed"]

#: ``Fit.kind`` and the explain row kind of a hybrid node group.
HYBRID_KIND = "hybrid"


class HybridFit(NamedTuple):
    """Why a pod cannot be placed on a group's nodes (``placement``: taints, labels) or does not fit one
    node (``resources``); both None when it fits."""

    placement: str | None
    resources: str | None


def node_shape(group: HybridGroupView) -> str:
    """'8x a100 hybrid node': what explain lists as the group's candidate."""
    return f"{group.gpus_per_node}x {group.gpu_name} hybrid node"


def _amount(text: str | None) -> Decimal | None:
    if text is None:
        return None
    try:
        return Quantity(text).as_decimal()
    except KarpenterGpuError:
        return None


def hybrid_fit(shape: PodShape, group: HybridGroupView, requirements: Requirements | None = None) -> HybridFit:
    """Whether a pod of ``shape`` can run on a node of ``group`` (see the module doc)."""
    if group.problem:
        return HybridFit(f"the group's description cannot be read ({group.problem})", None)
    for taint in untolerated(group.taints, shape.tolerations):
        return HybridFit(f"taint {taint_text(taint)} is not tolerated", None)
    why = (requirements if requirements is not None else shape.requirements()).admits_labels(group.node_labels)
    if why is not None:
        return HybridFit(f"node selector/affinity: {why} on the group's nodes", None)
    if shape.gpus and shape.gpu_resource != group.gpu_resource:
        return HybridFit(None, f"the nodes advertise {group.gpu_resource}, not {shape.gpu_resource}")
    short = []
    if shape.gpus > group.gpus_per_node:
        short.append(f"{group.gpu_resource} (a node has {group.gpus_per_node})")
    for resource, wanted, described in (("cpu", shape.cpu, group.cpu), ("memory", shape.memory, group.memory)):
        have = _amount(described)
        if have is not None and wanted > have:
            short.append(f"{resource} (a node has {described})")
    short += [f"{resource} (the nodes advertise only {group.gpu_resource})"
              for resource, wanted in sorted(shape.resources.items())
              if wanted > 0 and resource != group.gpu_resource and is_extended_resource(resource)]
    if short:
        return HybridFit(None, f"{shape.describe()} does not fit one node: short of {', '.join(short)}")
    return HybridFit(None, None)


def undescribed(shape: PodShape) -> tuple[str, ...]:
    """The resources the pod asks for that a group's description does not give (ephemeral storage, huge pages):
    where the pod otherwise fits, whether it fits them is not modelled."""
    return tuple(r for r, wanted in sorted(shape.resources.items()) if wanted > 0 and not is_extended_resource(r))


def hybrid_fits(shape: PodShape, manifests: Sequence[Mapping[str, Any]]) -> list[Fit]:
    """A :class:`~karpenter_gpu.analysis.simulator.Fit` per hybrid node group in ``manifests`` (name order):
    the node shape when the pod fits (it lands there when the nodes have room), else the reason."""
    requirements = shape.requirements()
    out = []
    for group in hybrid_groups(manifests):
        placement, resources = hybrid_fit(shape, group, requirements)
        reason = placement or resources
        unknown = () if reason else undescribed(shape)
        if unknown:
            out.append(Fit(group.name, None, None, f"not modelled: {', '.join(unknown)} (the group's description "
                                                   "does not give the nodes' amount)", HYBRID_KIND, unmodelled=unknown))
            continue
        out.append(Fit(group.name, None if reason else node_shape(group), None,
                       reason, HYBRID_KIND, None, None if reason else f"on-premises/{group.location}"))
    return out
