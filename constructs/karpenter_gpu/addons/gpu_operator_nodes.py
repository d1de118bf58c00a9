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
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from karpenter_gpu.k8s.scheduling import Requirements, untolerated

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
_OPERANDS_LABEL = "nvidia.com/gpu.deploy.operands"
_GPU_PRESENT = "nvidia.com/gpu.present"
#: Operands the chart enables unless the values say otherwise (``deployments/gpu-operator/values.yaml``).
_CHART_DEFAULT_ON = frozenset({"driver", "toolkit", "devicePlugin", "dcgmExporter", "gfd"})


def _schedulable(selector: Mapping[str, str], affinity: Any, tolerations: Iterable[Mapping[str, Any]],
                 labels: Mapping[str, str], taints: Iterable[Mapping[str, Any]]) -> bool:
    """Whether the kube-scheduler may place a pod with these fields on a node with these labels and taints."""
    if Requirements.from_labels(selector).admits_labels(labels) is not None:
        return False
    required = (((affinity or {}).get("nodeAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution")
                or {})
    terms = required.get("nodeSelectorTerms") or []
    if terms and not any(Requirements.from_dicts(t.get("matchExpressions") or []).admits_labels(labels) is None
                         for t in terms):
        return False
    return not untolerated(taints, list(tolerations))


def nfd_worker_runs(values: Mapping[str, Any], labels: Mapping[str, str],
                    taints: Iterable[Mapping[str, Any]] = ()) -> bool:
    """Whether the NFD worker (hence GPU discovery) runs on the node."""
    worker = (values.get("node-feature-discovery") or {}).get("worker") or {}
    return _schedulable(worker.get("nodeSelector") or {}, worker.get("affinity"), worker.get("tolerations") or [],
                        labels, taints)


def operator_labels(values: Mapping[str, Any], labels: Mapping[str, str], taints: Iterable[Mapping[str, Any]] = (),
                    *, nvidia_gpu: bool = True) -> dict[str, str]:
    """The node's labels after the operator's node labelling (unchanged when it does not see a GPU there)."""
    taints = list(taints)
    out = dict(labels)
    if not nvidia_gpu or not nfd_worker_runs(values, labels, taints):
        return out
    out[_GPU_PRESENT] = "true"
    if out.get(_OPERANDS_LABEL) == "false":
        return {k: v for k, v in out.items() if k not in OPERANDS.values()}
    for label in OPERANDS.values():
        if not out.get(label):  # a preset non-empty value is honoured
            out[label] = "true"
    return out


def operand_runs(values: Mapping[str, Any], operand: str, labels: Mapping[str, str],
                 taints: Iterable[Mapping[str, Any]] = (), *, nvidia_gpu: bool = True) -> bool:
    """Whether ``operand`` (a values key of :data:`OPERANDS`, e.g. "driver") runs on the node."""
    settings = values.get(operand) or {}
    if not settings.get("enabled", operand in _CHART_DEFAULT_ON):
        return False
    taints = list(taints)
    labelled = operator_labels(values, labels, taints, nvidia_gpu=nvidia_gpu)
    tolerations = (values.get("daemonsets") or {}).get("tolerations") or []
    return _schedulable({OPERANDS[operand]: "true"}, None, tolerations, labelled, taints)
