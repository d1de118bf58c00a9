"""Where the GPU Operator's operands and the Karpenter controller land, from the Helm values and the pools.

Pure Python over the values files beside the manifests (``helm/gpu-operator.values.yaml``,
``helm/karpenter.values.yaml``) and one synthetic node per GPU pool or hybrid group (:class:`PlacementNode`), with
what the pinned charts default to read from ``data/charts.json`` (``tools/build_chart_data.py``, from the charts of
NVIDIA/gpu-operator v26.7.0 and aws/karpenter-provider-aws v1.14.1). The rules of ``validate`` (KG640-KG646) and
the golden placement tables call it; the ``placement`` oracle compares it with the charts rendered by Helm.

What runs where, as the cluster decides it:

1. Helm merges the values over the chart's: maps key by key, lists and scalars replaced, ``null`` deletes
   (helm ``pkg/chart/common/util/coalesce.go`` ``coalesceTablesFullKey``): :func:`coalesce`.
2. The **NFD worker** (the only node agent the GPU Operator chart renders, ``charts/node-feature-discovery/templates/
   worker.yaml``) runs where its ``nodeSelector``, required node affinity and tolerations admit the node; only there
   does NFD set ``feature.node.kubernetes.io/pci-10de.present`` on an NVIDIA node, and only with an nfd-master
   (``node-feature-discovery.master.enable``: in NFD v0.19 the worker publishes a NodeFeature object, the master
   sets the node's labels from it).
3. On a node with that label the operator sets ``nvidia.com/gpu.present=true`` and each ``nvidia.com/gpu.deploy.*``
   label of the container workload config to "true" unless it has a non-empty value, ``mig-manager`` only on a
   MIG-capable GPU, none at all with ``nvidia.com/gpu.deploy.operands=false`` (gpu-operator v26.7.0
   ``controllers/state_manager.go`` ``gpuStateLabels``, ``hasGPULabels``, ``updateGPUStateLabels``,
   ``addGPUStateLabels``, ``hasMIGCapableGPU``).
4. Each enabled operand's DaemonSet is its asset (``assets/state-*/…daemonset.yaml``: ``nodeSelector``
   ``nvidia.com/gpu.deploy.<operand>: "true"``) with its tolerations **replaced** by ``daemonsets.tolerations``
   (``controllers/object_controls.go`` ``applyCommonDaemonsetConfig``).
5. Every DaemonSet pod also tolerates what the DaemonSet controller adds (kubernetes ``pkg/controller/daemon/util/
   daemonset_util.go`` ``AddOrUpdateDaemonPodTolerations``); a pod fits a node when it tolerates every NoSchedule and
   NoExecute taint and the node matches its ``nodeSelector`` and one required ``nodeSelectorTerm``
   (k8s.io/component-helpers ``scheduling/corev1`` ``FindMatchingUntoleratedTaint``, ``nodeaffinity``).

Switches: the NFD worker runs only with ``nfd.enabled`` (the subchart's condition) and
``node-feature-discovery.worker.enable``; the operand DaemonSets only with a ClusterPolicy
(``clusterPolicy.deployCR``); an operand whose ``enabled`` the values delete (``null``) is rendered without it and
the operator takes its default (``api/nvidia/v1/clusterpolicy_types.go`` ``IsEnabled``: on for all but the node
status exporter; ``controllers/state_manager.go`` ``isStateEnabled``). The chart refuses some values outright
(``templates/validations.yaml``: :func:`chart_refusals`); the Karpenter chart refuses an empty
``settings.clusterName`` (``templates/deployment.yaml``).

The Neuron device plugin (``neuron-device-plugin.values.yaml``, chart ``oci://public.ecr.aws/neuron/neuron-helm-chart``
1.1.2): that chart is not reachable offline (the public registry only; aws-neuron/neuron-helm-charts holds 1.0.0), so
its DaemonSet is modelled from the values themselves (:func:`neuron_plugin_placement`): ``devicePlugin.affinity``,
``tolerations`` and ``nodeSelector`` placed as Kubernetes places any DaemonSet's pod. Values that leave the affinity
or the tolerations to the chart, or turn ``devicePlugin.enabled`` off, are not modelled (:func:`neuron_not_modelled`):
the chart's defaults and switches at that version are not known here.

Not modelled (the answer says so instead of guessing): sandbox workloads (``sandboxWorkloads.enabled``), the
DRA-based ``gpuCluster`` stack, the NVIDIADriver CR (``driver.nvidiaDriverCRD.enabled``), an NFD worker
``config`` other than the chart's (it decides which PCI labels NFD sets), a DCGM exporter ``env`` pointing at a host
engine on localhost (the operator then gives it ``hostNetwork``), ``matchFields`` terms.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Iterable, Mapping, Sequence

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.perf import once
from karpenter_gpu.k8s.scheduling import Requirements, taint_text, untolerated

__all__ = ["DEVICE_PLUGIN", "KARPENTER", "NEURON_DEVICE_PLUGIN", "NEURON_VALUES", "NFD_WORKER", "PlacementNode",
           "Verdict", "chart_data", "chart_refusals", "coalesce", "controller_placement", "device_plugins",
           "gpu_operator_placement", "karpenter_refusals", "neuron_device_plugins", "neuron_not_modelled",
           "neuron_plugin_placement", "not_modelled", "placed_labels", "unknown_keys"]

NFD_WORKER = "nfd-worker"
KARPENTER = "karpenter"
DEVICE_PLUGIN = "devicePlugin"
NEURON_DEVICE_PLUGIN = "neuron-device-plugin"
#: The values file of the Neuron chart beside the manifests.
NEURON_VALUES = "neuron-device-plugin.values.yaml"
#: ``gpuStateLabels[gpuWorkloadConfigContainer]`` (gpu-operator v26.7.0 ``controllers/state_manager.go``).
CONTAINER_STATE_LABELS = ("nvidia.com/gpu.deploy.driver", "nvidia.com/gpu.deploy.gpu-feature-discovery",
                          "nvidia.com/gpu.deploy.container-toolkit", "nvidia.com/gpu.deploy.device-plugin",
                          "nvidia.com/gpu.deploy.dcgm", "nvidia.com/gpu.deploy.dcgm-exporter",
                          "nvidia.com/gpu.deploy.node-status-exporter", "nvidia.com/gpu.deploy.operator-validator",
                          "nvidia.com/gpu.deploy.client")
MIG_MANAGER_LABEL = "nvidia.com/gpu.deploy.mig-manager"
#: Whether the operator runs an operand whose ClusterPolicy ``enabled`` is unset (gpu-operator v26.7.0
#: ``api/nvidia/v1/clusterpolicy_types.go``, each spec's ``IsEnabled``; the validator always runs).
OPERATOR_DEFAULT_ENABLED = {"driver": True, "toolkit": True, "devicePlugin": True, "dcgm": True, "dcgmExporter": True,
                            "gfd": True, "migManager": True, "nodeStatusExporter": False, "validator": True}
OPERANDS_LABEL = "nvidia.com/gpu.deploy.operands"
GPU_PRESENT = "nvidia.com/gpu.present"
#: What NFD labels an NVIDIA node with (``gpuNodeLabels``: vendor 10de).
NVIDIA_PCI = "feature.node.kubernetes.io/pci-10de.present"
#: ``AddOrUpdateDaemonPodTolerations`` (network-unavailable only for hostNetwork pods, none of which these are).
DAEMONSET_TOLERATIONS: tuple[dict, ...] = (
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"},
)
#: What the DaemonSet controller adds for a ``hostNetwork`` pod (the NFD worker's ``worker.hostNetwork``; an
#: operand's ``<operand>.hostNetwork``, which the operator applies: ``controllers/object_controls.go``
#: ``applyHostNetworkConfig``).
HOST_NETWORK_TOLERATION = {"key": "node.kubernetes.io/network-unavailable", "operator": "Exists",
                           "effect": "NoSchedule"}


def _daemon_tolerations(host_network: bool) -> list[dict]:
    return [*DAEMONSET_TOLERATIONS, *([HOST_NETWORK_TOLERATION] if host_network else [])]


@once
def chart_data() -> Mapping[str, Any]:
    """``data/charts.json``: the pinned charts' key trees and placement defaults."""
    return json.loads(resources.files("karpenter_gpu").joinpath("data/charts.json").read_text())


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def coalesce(user: Any, default: Any) -> Any:
    """Helm's merge of a user value over the chart's: maps merged key by key (a user ``null`` deletes the key),
    anything else replaced."""
    if not isinstance(user, dict) or not isinstance(default, dict):
        return default if user is None else user
    out = dict(default)
    for key, value in user.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = coalesce(value, default.get(key))
    return out


def unknown_keys(values: Any, tree: Any, prefix: str = "") -> list[tuple[str, str | None]]:
    """(path, did-you-mean) of every key of ``values`` the chart's key tree does not have; below an open node (None)
    every key is the user's."""
    out: list[tuple[str, str | None]] = []
    if not isinstance(values, dict) or not isinstance(tree, dict):
        return out
    for key, value in values.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        if key in tree:
            out += unknown_keys(value, tree[key], path)
            continue
        close = difflib.get_close_matches(str(key), [str(k) for k in tree], n=1, cutoff=0.6)
        out.append((path, close[0] if close else None))
    return out


@dataclass(frozen=True)
class PlacementNode:
    """A node of a GPU pool or hybrid group as the scheduler sees it.

    ``kind``: "pool" (a Karpenter NodePool's node: template labels, ``karpenter.sh/nodepool``, one admitted type's
    labels; taints and startup taints), "auto" (an EKS Auto Mode NodePool's) or "hybrid" (a hybrid node group's).
    ``accelerator``: "nvidia", "neuron", "amd" or "". ``ships``: the operands the node's OS or platform provides
    itself (an EKS-optimized AMI's driver and toolkit, Bottlerocket's and Auto Mode's device plugin).
    """

    name: str
    kind: str
    labels: Mapping[str, str]
    taints: tuple[Mapping[str, Any], ...] = ()
    accelerator: str = "nvidia"
    ships: frozenset[str] = frozenset()
    mig_capable: bool = False
    not_modelled: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class Verdict:
    """Whether a DaemonSet's pod lands on a node; ``why`` names the missing toleration or label when it does not."""

    lands: bool
    why: str | None = None


def fits(selector: Mapping[str, Any], affinity: Any, tolerations: Sequence[Any], node: PlacementNode,
         labels: Mapping[str, str] | None = None) -> str | None:
    """None when the pod fits the node, else what is missing (the first untolerated taint, or label)."""
    labels = node.labels if labels is None else labels
    missing = untolerated(node.taints, [t for t in tolerations if isinstance(t, Mapping)])
    if missing:
        return f"no toleration of the taint {taint_text(missing[0])}"
    for key, value in _dict(selector).items():
        if labels.get(str(key)) != str(value):
            have = labels.get(str(key))
            return (f"nodeSelector needs the label {key}={value}" +
                    (f" (the node has {key}={have})" if have is not None else " (the node lacks it)"))
    required = _dict(_dict(_dict(affinity).get("nodeAffinity")).get("requiredDuringSchedulingIgnoredDuringExecution"))
    terms = [t for t in (required.get("nodeSelectorTerms") or []) if isinstance(t, dict)]
    if not terms:
        return None
    reasons = []
    for term in terms:
        failed = _term_fails(term, labels)
        if failed is None:
            return None
        reasons.append(failed)
    return f"required node affinity: {'; '.join(reasons)}"


def _term_fails(term: Mapping[str, Any], labels: Mapping[str, str]) -> str | None:
    """None when the node matches every expression of the term (each on its own: Kubernetes ANDs them, it does not
    intersect two expressions on one key as Karpenter's Requirements do; component-helpers ``nodeaffinity``
    ``nodeSelectorTerm.match``), else the first that fails. A term without expressions matches nothing."""
    expressions = term.get("matchExpressions") or []
    if not expressions or term.get("matchFields"):
        return "a term without matchExpressions (or with matchFields) matches no node here"
    for i, expression in enumerate(expressions):
        try:
            failed = Requirements.from_dicts([expression], f"matchExpressions[{i}]").admits_labels(labels)
        except KarpenterGpuError:
            return f"matchExpressions[{i}] is not a selector the API server accepts"
        if failed is not None:
            return failed
    return None


def _operator_values(values: Mapping[str, Any]) -> dict:
    data = chart_data()["gpu-operator"]
    defaults = {"daemonsets": {"tolerations": data["daemonsets_tolerations"]},
                "node-feature-discovery": {"worker": {"enable": data["nfd_worker_enable"], **data["nfd_worker"]},
                                           "master": {"enable": data["nfd_master_enable"]}}}
    for key, operand in data["operands"].items():
        defaults[key] = {"enabled": operand["enabled"]}
    return coalesce(dict(values), coalesce(defaults, data["validated"]))


def not_modelled(values: Mapping[str, Any]) -> list[str]:
    """The values paths that change placement in ways this model does not follow."""
    merged = _dict(values)
    out = []
    worker = _dict(_dict(merged.get("node-feature-discovery")).get("worker"))
    if "config" in worker and coalesce(worker["config"], _worker_config()) != _worker_config():
        out.append("node-feature-discovery.worker.config")
    exporter_env = _dict(merged.get("dcgmExporter")).get("env")
    if any(isinstance(e, dict) and e.get("name") == "DCGM_REMOTE_HOSTENGINE_INFO" and
           str(e.get("value", "")).startswith("localhost") for e in (exporter_env or [])
           if isinstance(exporter_env, list)):
        out.append("dcgmExporter.env")  # the operator gives that exporter hostNetwork (TransformDCGMExporter)
    if _dict(merged.get("sandboxWorkloads")).get("enabled") is True:
        out.append("sandboxWorkloads.enabled")
    if _dict(merged.get("gpuCluster")).get("deployCR") is True:
        out.append("gpuCluster.deployCR")
    if _dict(_dict(merged.get("driver")).get("nvidiaDriverCRD")).get("enabled") is True:
        out.append("driver.nvidiaDriverCRD.enabled")
    return out


def _worker_config() -> Any:
    return chart_data()["gpu-operator"]["nfd_worker_config"]


def _empty(value: Any) -> bool:
    """Helm's ``empty`` (sprig): nil, false, 0, "" and an empty map or list."""
    return value is None or value is False or value == 0 or value in ("", {}, [])


def chart_refusals(values: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(values path, the chart's message) of each check of the GPU Operator chart the values fail (gpu-operator
    v26.7.0 ``deployments/gpu-operator/templates/validations.yaml``, in its order: Helm stops at the first)."""
    merged = coalesce(dict(_dict(values)), chart_data()["gpu-operator"]["validated"])
    cdi, plugin_config = _dict(merged.get("cdi")), _dict(_dict(merged.get("devicePlugin")).get("config"))
    gpu_cluster, driver = _dict(merged.get("gpuCluster")), _dict(merged.get("driver"))
    out: list[tuple[str, str]] = []
    if not _empty(_dict(merged.get("clusterPolicy")).get("deployCR")) and not _empty(gpu_cluster.get("deployCR")):
        out.append(("gpuCluster.deployCR",
                    "clusterPolicy.deployCR and gpuCluster.deployCR cannot both be true; only one CR can exist"))
    if not _empty(gpu_cluster.get("deployCR")) and not _empty(driver.get("enabled")) and \
            _empty(_dict(driver.get("nvidiaDriverCRD")).get("enabled")):
        out.append(("driver.nvidiaDriverCRD.enabled", "the NVIDIADriver CRD must be enabled when deploying a GPUCluster "
                    "CR, set driver.nvidiaDriverCRD.enabled=true"))
    if cdi.get("enabled") is False and cdi.get("nriPluginEnabled") is True:
        out.append(("cdi.nriPluginEnabled", "the NRI Plugin cannot be enabled when CDI is disabled"))
    if cdi.get("nriPluginEnabled") is True and _dict(merged.get("toolkit")).get("enabled") is False:
        out.append(("cdi.nriPluginEnabled", "the NRI Plugin cannot be enabled when the Container Toolkit is disabled"))
    if not _empty(plugin_config.get("create")) and _empty(plugin_config.get("data")):
        out.append(("devicePlugin.config.data",
                    "devicePlugin.config.data cannot be empty when devicePlugin.config.create is set to true"))
    if not _empty(plugin_config.get("create")) and _empty(plugin_config.get("name")):
        out.append(("devicePlugin.config.name",
                    "devicePlugin.config.name cannot be empty when devicePlugin.config.create is set to true"))
    return out


def karpenter_refusals(values: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The Karpenter chart's refusal, (values path, message): an empty ``settings.clusterName``
    (aws/karpenter-provider-aws v1.14.1 ``charts/karpenter/templates/deployment.yaml``, ``required``)."""
    if _empty(_dict(_dict(values).get("settings")).get("clusterName")):
        return [("settings.clusterName", "Chart cannot be installed without a valid settings.clusterName!")]
    return []


def _labelled(node: PlacementNode) -> dict[str, str]:
    """The node's labels after NFD and the operator's labelling (``addGPUStateLabels``)."""
    labels = dict(node.labels)
    if node.accelerator != "nvidia":
        return labels
    labels[NVIDIA_PCI] = "true"
    labels[GPU_PRESENT] = "true"
    if labels.get(OPERANDS_LABEL) == "false":
        return {k: v for k, v in labels.items() if k not in CONTAINER_STATE_LABELS and k != MIG_MANAGER_LABEL}
    for key in CONTAINER_STATE_LABELS:
        if not labels.get(key):
            labels[key] = "true"
    if node.mig_capable and MIG_MANAGER_LABEL not in labels:
        labels[MIG_MANAGER_LABEL] = "true"
    return labels


def placed_labels(values: Mapping[str, Any], node: PlacementNode) -> dict[str, str]:
    """The node's labels once the NFD worker ran there (when it does) and the operator labelled it."""
    placed = gpu_operator_placement(values, node)
    master = _dict(_dict(_operator_values(values).get("node-feature-discovery")).get("master")).get("enable")
    return _labelled(node) if placed[NFD_WORKER].lands and not _empty(master) else dict(node.labels)


def gpu_operator_placement(values: Mapping[str, Any], node: PlacementNode) -> dict[str, Verdict]:
    """For the NFD worker and each enabled operand (values key, plus ``validator``), whether it lands on ``node``."""
    merged = _operator_values(values)
    worker = _dict(_dict(merged.get("node-feature-discovery")).get("worker"))
    out: dict[str, Verdict] = {}
    if _dict(merged.get("nfd")).get("enabled", True) is False:
        out[NFD_WORKER] = Verdict(False, "nfd.enabled is false: this release runs no NFD worker")
    elif _empty(worker.get("enable")):
        out[NFD_WORKER] = Verdict(False, "node-feature-discovery.worker.enable is false: this release runs no NFD "
                                         "worker")
    else:
        why = fits(worker.get("nodeSelector") or {}, worker.get("affinity"),
                   list(worker.get("tolerations") or []) + _daemon_tolerations(worker.get("hostNetwork") is True), node)
        out[NFD_WORKER] = Verdict(why is None, why)
    master = not _empty(_dict(_dict(merged.get("node-feature-discovery")).get("master")).get("enable"))
    labels = _labelled(node) if out[NFD_WORKER].lands and master else dict(node.labels)
    tolerations = list(_dict(merged.get("daemonsets")).get("tolerations") or [])
    if _empty(_dict(merged.get("clusterPolicy")).get("deployCR")):
        return out  # no ClusterPolicy: the operator deploys no operand
    for key, operand in chart_data()["gpu-operator"]["operands"].items():
        enabled = _dict(merged.get(key)).get("enabled")
        if key != "validator" and (OPERATOR_DEFAULT_ENABLED[key] if enabled is None else enabled) is not True:
            continue
        host_network = _dict(merged.get(key)).get("hostNetwork") is True
        why = fits(operand["nodeSelector"], None, tolerations + _daemon_tolerations(host_network), node, labels)
        if why is not None and not out[NFD_WORKER].lands and node.accelerator == "nvidia":
            why = f"{why}, which the operator sets only where the NFD worker runs"
        elif why is not None and not master and node.accelerator == "nvidia":
            why = (f"{why}, which the operator sets only where NFD labelled the GPU: node-feature-discovery.master."
                   "enable is false, so no nfd-master sets the labels the worker finds")
        elif why is not None and node.accelerator != "nvidia":
            why = f"{why}: not an NVIDIA GPU node"
        out[key] = Verdict(why is None, why)
    return out


def controller_placement(values: Mapping[str, Any], node: PlacementNode) -> Verdict:
    """Whether the Karpenter controller's pod may land on ``node`` (the chart's nodeSelector, affinity and
    tolerations under the values)."""
    defaults = chart_data()["karpenter"]["controller"]
    merged = coalesce({k: _dict(values).get(k) for k in ("nodeSelector", "affinity", "tolerations")
                       if k in _dict(values)}, defaults)
    why = fits(merged.get("nodeSelector") or {}, merged.get("affinity"), list(merged.get("tolerations") or []), node)
    return Verdict(why is None, why)


def device_plugins(placement: Mapping[str, Verdict], node: PlacementNode) -> list[str]:
    """The NVIDIA device plugins serving ``node``: the node's own and the operator's, when it lands."""
    out = [f"the {'EKS Auto Mode' if node.kind == 'auto' else 'AMI'}'s"] if DEVICE_PLUGIN in node.ships else []
    if placement.get(DEVICE_PLUGIN, Verdict(False)).lands:
        out.append("the GPU Operator's")
    return out


def table_rows(values: Mapping[str, Any], nodes: Iterable[PlacementNode],
               karpenter_values: Mapping[str, Any] | None) -> list[tuple[str, str, str]]:
    """(node, operand, verdict text) rows of the placement table, in node order."""
    rows = []
    for node in nodes:
        if values:
            for operand, verdict in gpu_operator_placement(values, node).items():
                rows.append((f"{node.kind} {node.name}", operand, "runs" if verdict.lands else f"no: {verdict.why}"))
        if karpenter_values is not None and node.kind != "hybrid":
            verdict = controller_placement(karpenter_values, node)
            rows.append((f"{node.kind} {node.name}", KARPENTER, "runs" if verdict.lands else f"no: {verdict.why}"))
    return rows


def neuron_not_modelled(values: Mapping[str, Any]) -> list[str]:
    """The Neuron values paths whose effect on placement this model does not know: the chart's default affinity or
    tolerations (left in force when the values do not set them) and its ``devicePlugin.enabled`` switch."""
    plugin = _dict(_dict(values).get("devicePlugin"))
    out = [f"devicePlugin.{key}" for key in ("affinity", "tolerations") if plugin.get(key) is None]
    if plugin.get("enabled", True) is not True:
        out.append("devicePlugin.enabled")
    return out


def neuron_plugin_placement(values: Mapping[str, Any], node: PlacementNode) -> Verdict:
    """Whether the Neuron chart's device plugin DaemonSet lands on ``node``: its pod with the values'
    ``devicePlugin.nodeSelector``, ``affinity`` and ``tolerations`` (plus the DaemonSet controller's), under the
    scheduler's predicates. Only for values :func:`neuron_not_modelled` accepts."""
    plugin = _dict(_dict(values).get("devicePlugin"))
    why = fits(plugin.get("nodeSelector") or {}, plugin.get("affinity"),
               list(plugin.get("tolerations") or []) + list(DAEMONSET_TOLERATIONS), node)
    return Verdict(why is None, why)


def neuron_device_plugins(verdict: Verdict, node: PlacementNode) -> list[str]:
    """The Neuron device plugins serving ``node``: EKS Auto Mode's own (AWS runs it on Auto Mode's Neuron nodes) and
    the Neuron chart's, when it lands."""
    out = ["the EKS Auto Mode's"] if node.kind == "auto" and node.accelerator == "neuron" else []
    if verdict.lands:
        out.append("the Neuron chart's")
    return out
