"""The synthetic nodes the placement model (:mod:`~karpenter_gpu.analysis.operand_placement`) places pods on: one per
GPU NodePool and one per hybrid node group.

A NodePool's node carries what Karpenter puts on it (aws/karpenter-provider-aws v1.14.1 with sigs.k8s.io/karpenter
v1.14.1 ``pkg/controllers/nodeclaim/lifecycle/registration.go`` ``syncNode`` and ``pkg/apis/v1/nodeclaim.go``
``NodeClaimTemplate``): the template labels, ``karpenter.sh/nodepool``, each requirement with exactly one value
(``Requirements.Labels``), one admitted instance type's labels (the cheapest the simulator finds), and the taints
with the startup taints. An EKS Auto Mode pool's node is ``eks.amazonaws.com/compute-type: auto`` and brings AWS's
driver, toolkit and device plugin; an EKS-optimized AMI brings the driver and the toolkit (AL2023 and Bottlerocket
NVIDIA variants), Bottlerocket its device plugin too. A hybrid group's node is the group's labels and taints.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from karpenter_gpu.analysis.catalog import InstanceType
from karpenter_gpu.analysis.operand_placement import DEVICE_PLUGIN, PlacementNode
from karpenter_gpu.k8s.labels import AUTO_COMPUTE_TYPE, COMPUTE_TYPE, NODE_CLASS_KIND, NVIDIA_GPU, Label, kind_of
from karpenter_gpu.k8s.mig import mig_table
from karpenter_gpu.k8s.views import HybridGroupView, NodeClassView, NodePoolView

__all__ = ["SHIPPED_BY_AMI", "hybrid_node", "node_classes", "pool_node"]

#: AMI family (lower case) → the GPU Operator operands its NVIDIA variant ships.
SHIPPED_BY_AMI: Mapping[str, frozenset[str]] = {
    "al2023": frozenset({"driver", "toolkit"}),
    "bottlerocket": frozenset({"driver", "toolkit", DEVICE_PLUGIN}),
}
_AUTO_SHIPS = frozenset({"driver", "toolkit", DEVICE_PLUGIN})
_DEPLOY = {"driver": "nvidia.com/gpu.deploy.driver", "toolkit": "nvidia.com/gpu.deploy.container-toolkit",
           DEVICE_PLUGIN: "nvidia.com/gpu.deploy.device-plugin"}


def _accelerator(labels: Mapping[str, str], fallback: str) -> str:
    if labels.get(Label.GPU_MANUFACTURER) in ("nvidia", "amd"):
        return labels[Label.GPU_MANUFACTURER]
    if labels.get(Label.ACCELERATOR_MANUFACTURER) == "aws":
        return "neuron"
    return fallback


def pool_node(view: NodePoolView, node_class: NodeClassView | None, instance: InstanceType | None,
              accelerator: str) -> PlacementNode:
    """The node ``view`` launches with ``instance`` (None: the pool's own labels only); ``accelerator`` when the
    type does not say it ("nvidia", "neuron", "amd" or "")."""
    labels: dict[str, str] = dict(instance.node_labels) if instance is not None else {}
    for key, req in view.template_requirements.items():
        if req.operator == "In" and req.values is not None and len(req.values) == 1:
            labels[key] = next(iter(req.values))
    labels.update(view.string_labels)
    labels[Label.NODEPOOL] = view.name
    kind = "auto" if view.auto_mode else "pool"
    accelerator = _accelerator(labels, accelerator)
    ships: frozenset[str] = frozenset()
    if view.auto_mode:
        labels[COMPUTE_TYPE] = AUTO_COMPUTE_TYPE
        ships = _AUTO_SHIPS
    elif node_class is not None and accelerator == "nvidia":
        ships = SHIPPED_BY_AMI.get(node_class.ami_family.lower(), frozenset())
    mig = instance is not None and mig_table().gpu_for(instance.labels) is not None
    return PlacementNode(view.name, kind, labels, tuple(view.taints) + tuple(view.startup_taints), accelerator,
                         ships, mig)


def hybrid_node(group: HybridGroupView) -> PlacementNode:
    """A node of the hybrid group: what it preinstalled is what its labels keep the operator off."""
    labels = {str(k): str(v) for k, v in group.node_labels.items()}
    ships = frozenset(op for op, label in _DEPLOY.items() if labels.get(label) == "false")
    mig = any(g.gpu_name == group.gpu_name for g in mig_table().gpus)
    return PlacementNode(group.name, "hybrid", labels, tuple(group.taints),
                         "nvidia" if group.gpu_resource == NVIDIA_GPU else "", ships, mig)


def node_classes(manifests: Iterable[Mapping[str, Any]]) -> dict[str, NodeClassView]:
    """The EC2NodeClasses by name."""
    return {str((m.get("metadata") or {}).get("name")): NodeClassView.of(m) for m in manifests
            if isinstance(m, dict) and kind_of(m) == NODE_CLASS_KIND}
