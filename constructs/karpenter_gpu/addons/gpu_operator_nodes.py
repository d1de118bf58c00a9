"""Which GPU Operator operands run on a node, from rendered chart values and the node's labels and taints.

Pure Python over the values dict that :class:`~karpenter_gpu.addons.gpu_operator_values.GpuOperatorValues`
writes, with the placement rules of NVIDIA/gpu-operator v26.7.0 and the scheduling core
(:mod:`karpenter_gpu.k8s.scheduling`) for selectors, affinity and tolerations:

1. The **NFD worker** DaemonSet runs where ``node-feature-discovery.worker`` ``nodeSelector``, required node
   affinity (terms ORed, expressions ANDed) and ``tolerations`` admit the node. Only there does the node get
   NFD's ``feature.node.kubernetes.io/pci-10de.present`` label, from which the operator knows it is a GPU node.
2. On such a node the operator sets ``nvidia.com/gpu.present=true`` and each ``gpuStateLabels``
   ``nvidia.com/gpu.deploy.<operand>`` label to "true" **unless it already has a non-empty value**
   (``controllers/state_manager.go`` ``addGPUStateLabels``), and removes them all when
   ``nvidia.com/gpu.deploy.operands=false`` (``updateGPUStateLabels`` / ``hasOperandsDisabled``).
3. An operand's DaemonSet exists when ``<operand>.enabled`` is true in the values, selects
   ``nvidia.com/gpu.deploy.<operand>: "true"`` (``assets/state-*/0500_daemonset.yaml``) and tolerates
   ``daemonsets.tolerations``.

The rules themselves are written once, in :mod:`karpenter_gpu.analysis.operand_placement` (checked against the
rendered charts by the ``placement`` oracle family); these functions ask it about one node.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from karpenter_gpu.analysis.operand_placement import (NFD_WORKER, PlacementNode, gpu_operator_placement,
                                                      placed_labels)

__all__ = ["OPERANDS", "nfd_worker_runs", "operand_runs", "operator_labels"]

#: Values key → the deploy label its DaemonSet selects (``gpuStateLabels`` for the container workload config).
OPERANDS: Mapping[str, str] = {
    "driver": "nvidia.com/gpu.deploy.driver",
    "toolkit": "nvidia.com/gpu.deploy.container-toolkit",
    "devicePlugin": "nvidia.com/gpu.deploy.device-plugin",
    "dcgmExporter": "nvidia.com/gpu.deploy.dcgm-exporter",
    "gfd": "nvidia.com/gpu.deploy.gpu-feature-discovery",
    "dcgm": "nvidia.com/gpu.deploy.dcgm",
    "nodeStatusExporter": "nvidia.com/gpu.deploy.node-status-exporter",
}


def _node(labels: Mapping[str, str], taints: Iterable[Mapping[str, Any]], nvidia_gpu: bool) -> PlacementNode:
    return PlacementNode("node", "pool", dict(labels), tuple(taints), "nvidia" if nvidia_gpu else "")


def nfd_worker_runs(values: Mapping[str, Any], labels: Mapping[str, str],
                    taints: Iterable[Mapping[str, Any]] = ()) -> bool:
    """Whether the NFD worker (hence GPU discovery) runs on the node."""
    return gpu_operator_placement(values, _node(labels, taints, True))[NFD_WORKER].lands


def operator_labels(values: Mapping[str, Any], labels: Mapping[str, str], taints: Iterable[Mapping[str, Any]] = (),
                    *, nvidia_gpu: bool = True) -> dict[str, str]:
    """The node's labels after NFD's and the operator's labelling (unchanged when they do not see a GPU there)."""
    return placed_labels(values, _node(labels, taints, nvidia_gpu))


def operand_runs(values: Mapping[str, Any], operand: str, labels: Mapping[str, str],
                 taints: Iterable[Mapping[str, Any]] = (), *, nvidia_gpu: bool = True) -> bool:
    """Whether ``operand`` (a values key of :data:`OPERANDS`, e.g. "driver") runs on the node."""
    verdict = gpu_operator_placement(values, _node(labels, taints, nvidia_gpu)).get(operand)
    return verdict is not None and verdict.lands
