"""The ``HybridGpuNodeGroup`` call a hybrid group's ConfigMap suggests (checked by :class:`.fit.Checker`).

``HybridGpuNodeGroup`` writes ``ConfigMap/hybrid-gpu-<name>`` labelled ``karpenter-gpu.io/hybrid-group: <name>``
whose data describes the group (``karpenter_gpu.pools.hybrid_gpu_nodes`` ``HybridGpuNodeGroupProps.describe``):
GPU name and count per node, node count, location, the node labels and taints as JSON, the kubelet flags derived
from them, CPU and memory. The props are read back from that data (the node labels less those the construct
derives: the compute type, group, location, architecture, OS, ``gpu-operator`` and the preinstalled operands'
``nvidia.com/gpu.deploy.*: "false"``); whether the call writes the ConfigMap as it is, the check says.
"""

from __future__ import annotations

import json
from typing import Any

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.importer.fit import Call, Unfit, refusal_field
from karpenter_gpu.importer.pysource import call
from karpenter_gpu.k8s.input_layout import metadata
from karpenter_gpu.k8s.labels import COMPUTE_TYPE, HYBRID_GROUP_LABEL, LOCATION_LABEL, Label
from karpenter_gpu.k8s.taint import Taint
from karpenter_gpu.k8s.units import Quantity
from karpenter_gpu.pools._node_pool import GPU_OPERATOR_LABEL
from karpenter_gpu.pools.hybrid_gpu_nodes import DEPLOY_DRIVER, DEPLOY_TOOLKIT, HybridGpuNodeGroupProps

CONSTRUCT = "HybridGpuNodeGroup"
#: Node labels the construct derives from its other props.
_DERIVED = (COMPUTE_TYPE, HYBRID_GROUP_LABEL, LOCATION_LABEL, Label.ARCH, "kubernetes.io/os", GPU_OPERATOR_LABEL[0],
            DEPLOY_DRIVER, DEPLOY_TOOLKIT)


def is_hybrid(manifest: dict) -> bool:
    """Whether the object is a ConfigMap labelled as a hybrid group's description."""
    labels = metadata(manifest).get("labels")
    return manifest.get("kind") == "ConfigMap" and isinstance(labels, dict) and HYBRID_GROUP_LABEL in labels


def _props(manifest: dict) -> dict[str, Any]:
    meta, data = metadata(manifest), manifest["data"]
    labels = json.loads(data["nodeLabels"])
    props: dict[str, Any] = {"name": meta["labels"][HYBRID_GROUP_LABEL], "gpu_name": data["gpuName"],
                             "gpus_per_node": int(data["gpusPerNode"]), "nodes": int(data["nodes"]),
                             "location": data["location"]}
    own = {k: v for k, v in labels.items() if k not in _DERIVED}
    if own:
        props["labels"] = own
    if labels.get(GPU_OPERATOR_LABEL[0]) != GPU_OPERATOR_LABEL[1]:
        props["gpu_operator"] = False
    taints = tuple(Taint(t["key"], t.get("value"), t.get("effect")) for t in json.loads(data["taints"]))
    if taints != (Taint.gpu(),):
        props["taints"] = taints
    if labels.get(Label.ARCH, "amd64") != "amd64":
        props["architecture"] = labels[Label.ARCH]
    for key, prop in ((DEPLOY_DRIVER, "driver_preinstalled"), (DEPLOY_TOOLKIT, "toolkit_preinstalled")):
        if labels.get(key) == "false":
            props[prop] = True
    props.update({k: Quantity(str(data[k])) for k in ("cpu", "memory") if k in data})
    if meta.get("namespace", "kube-system") != "kube-system":
        props["namespace"] = meta["namespace"]
    return props


def hybrid_call(manifest: dict, construct_id: str) -> Call | Unfit:
    """The ``HybridGpuNodeGroup`` call a hybrid group's ConfigMap suggests."""
    try:
        props = _props(manifest)
        HybridGpuNodeGroupProps(**props)
    except KarpenterGpuError as err:
        return Unfit(CONSTRUCT, refusal_field(err), str(err))
    except (KeyError, ValueError, TypeError, AttributeError):  # not the data the construct writes (pydantic's too)
        return Unfit(CONSTRUCT, "data", "not the description the construct writes")
    names: set[str] = set()
    return Call(CONSTRUCT, None, call(CONSTRUCT, props, names, 0, head=f"chart, {construct_id!r}"), names, props=props)
