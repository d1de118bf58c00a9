"""HybridGpuNodeGroup → on-premises GPU servers joined with EKS Hybrid Nodes, as a placement target.

Karpenter does not provision hybrid nodes: they are servers you run, joined with ``nodeadm``. EKS labels
every one ``eks.amazonaws.com/compute-type: hybrid`` (the label the VPC CNI's anti-affinity keys on; EKS
user guide "Configure CNI for hybrid nodes", https://docs.aws.amazon.com/eks/latest/userguide/hybrid-nodes-cni.html).
Seed 003 §7 selects them with ``node.kubernetes.io/instance-type: hybrid``, a label nothing sets. They carry
no AWS GPU stack, so the GPU Operator must install the driver and container toolkit on them
(:class:`~karpenter_gpu.addons.gpu_operator_values.GpuOperatorValues` does, and only there)::

    dc1 = HybridGpuNodeGroup(chart, "Dc1", name="dc1-a100", gpu_name="a100", gpus_per_node=8, nodes=4,
                             location="seoul-dc1")
    GpuWorkload(chart, "OnPrem", pool=dc1)          # nodeSelector + tolerations of the group

The group describes a fixed set of nodes: their labels (``compute-type: hybrid``, the group label
``karpenter-gpu.io/hybrid-group: <name>``, the location ``karpenter-gpu.io/location: <location>``, the
GPU Operator placement label, the architecture and your ``labels``), their taints, GPU model and count.
GpuOperatorValues (tolerations, driver and toolkit), GpuMonitoring (DCGM location labels, alerts on the
fixed GPU count) and :func:`~karpenter_gpu.addons.gpu_workload.pod_placement` read it from the tree.

It renders one ``ConfigMap`` (``hybrid-gpu-<name>``, labelled ``karpenter-gpu.io/hybrid-group``): the
analyzers read manifests only, and ``validate`` (KG417) and ``explain --pod`` learn the group's nodes from
it. Its ``kubeletFlags`` key is what ``nodeadm``'s ``NodeConfig`` ``spec.kubelet.flags`` must pass so the
servers register with exactly these labels and taints (``compute-type`` is set by nodeadm itself).

The operator's driver container builds for the host's kernel: NVIDIA supports it on Ubuntu and RHEL, and
requires every node that gets it to run the same OS version (GPU Operator "Installing the NVIDIA GPU Operator",
prerequisites); servers that differ need ``driver_preinstalled=True``.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar, Literal, Mapping

import cdk8s
from constructs import Construct
from pydantic import field_validator, model_validator
from typing_extensions import TypedDict, Unpack

from karpenter_gpu._props import Props, build, DnsLabel
from karpenter_gpu._construct_tree import path_of
from karpenter_gpu._signature import ConstructSignature
from karpenter_gpu.cluster import ScopedConstruct, members_of, register_object, require_chart, sorted_by_name
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.accelerators import NVIDIA, Accelerator
from karpenter_gpu.k8s.labels import COMPUTE_TYPE, HYBRID, HYBRID_GROUP_LABEL, LOCATION_LABEL, NVIDIA_GPU, Label
from karpenter_gpu.k8s.requirements import LABEL_VALUE, check_label_key, check_label_value
from karpenter_gpu.k8s.taint import Taint
from karpenter_gpu.k8s.units import Quantity
from karpenter_gpu.pools._node_pool import GPU_OPERATOR_LABEL

__all__ = ["HYBRID", "HYBRID_GROUP_LABEL", "LOCATION_LABEL", "HybridGpuNodeGroup",
           "HybridGpuNodeGroupKwargs", "HybridGpuNodeGroupProps", "hybrid_groups_of"]

#: GPU Operator per-node operand switches (NVIDIA/gpu-operator v26.7.0 controllers/state_manager.go
#: ``gpuStateLabels``): the operator sets them to "true" on GPU nodes unless already set to a non-empty value
#: (``addGPUStateLabels``), and each operand's DaemonSet selects ``<label>: "true"``
#: (assets/state-driver/0500_daemonset.yaml, assets/state-container-toolkit/0500_daemonset.yaml).
DEPLOY_DRIVER = "nvidia.com/gpu.deploy.driver"
DEPLOY_TOOLKIT = "nvidia.com/gpu.deploy.container-toolkit"
DEPLOY_DEVICE_PLUGIN = "nvidia.com/gpu.deploy.device-plugin"
#: Labels the group sets itself (a ``labels`` entry may not override them).
_OWN = (COMPUTE_TYPE, HYBRID_GROUP_LABEL, LOCATION_LABEL, Label.ARCH, DEPLOY_DRIVER, DEPLOY_TOOLKIT)
#: ConfigMap name prefix and data keys (read back by :mod:`karpenter_gpu.k8s.views`).
CONFIG_MAP_PREFIX = "hybrid-gpu-"


class HybridGpuNodeGroupProps(Props):
    """What the on-premises servers of one group are. Validated once, at construction."""

    #: NVIDIA GPUs (``nvidia.com/gpu``), as on the NVIDIA NodePools: what workloads on the group request.
    accelerator: ClassVar[Accelerator] = NVIDIA

    #: Group name (DNS-1123): the ``karpenter-gpu.io/hybrid-group`` label value and the ConfigMap name suffix.
    name: DnsLabel
    #: GPU model, lower-case as Karpenter's ``instance-gpu-name`` spells it (a100, h100, l40s …).
    gpu_name: str
    #: GPUs per server, 1..64.
    gpus_per_node: int
    #: Servers in the group, ≥ 1 (a fixed count: alerts compare against nodes × gpus_per_node).
    nodes: int
    #: Site of the servers (a label value, e.g. "seoul-dc1"): node label ``karpenter-gpu.io/location``.
    location: str
    #: Extra node labels. Default: - none.
    labels: Mapping[str, str] = {}
    #: Label the nodes ``gpu-operator=enabled`` (the GPU Operator runs only on labelled nodes). Default: True.
    gpu_operator: bool = True
    #: Default: (Taint.gpu(),) — ``nvidia.com/gpu=true:NoSchedule``.
    taints: tuple[Taint, ...] = (Taint.gpu(),)
    #: ``kubernetes.io/arch`` of the servers. Default: "amd64".
    architecture: Literal["amd64", "arm64"] = "amd64"
    #: The NVIDIA driver is installed on the host (DGX OS, say): the GPU Operator must not install one.
    #: Default: False — the operator installs it.
    driver_preinstalled: bool = False
    #: The NVIDIA container toolkit is installed on the host. Default: False — the operator installs it.
    toolkit_preinstalled: bool = False
    #: Allocatable cpu / memory per node, for ``explain --pod``. Default: - not described (not checked).
    cpu: Quantity | None = None
    memory: Quantity | None = None
    #: Namespace of the description ConfigMap. Default: "kube-system".
    namespace: DnsLabel = "kube-system"

    @field_validator("gpu_name", "location", mode="before")
    @classmethod
    def _value(cls, v: Any, info: Any) -> str:
        if not isinstance(v, str) or not v or len(v) > 63 or not LABEL_VALUE.match(v) \
                or (info.field_name == "gpu_name" and v != v.lower()):
            raise KarpenterGpuError(
                "KG240", prop=info.field_name, value=v,
                allowed="a label value (1..63 alphanumerics, '-', '_', '.')" + (
                    ", lower-case as in instance-gpu-name" if info.field_name == "gpu_name" else ""),
                fix="e.g. gpu_name='a100'" if info.field_name == "gpu_name" else "e.g. location='seoul-dc1'")
        return v

    @field_validator("gpus_per_node", "nodes", mode="before")
    @classmethod
    def _count(cls, v: Any, info: Any) -> int:
        high = 64 if info.field_name == "gpus_per_node" else 10_000
        if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= high:
            raise KarpenterGpuError("KG241", prop=info.field_name, value=v, allowed=f"an integer 1..{high}",
                                    fix=f"e.g. {info.field_name}=8" if high == 64 else f"e.g. {info.field_name}=4")
        return v

    @field_validator("labels", mode="before")
    @classmethod
    def _labels(cls, v: Any) -> dict[str, str]:
        if not isinstance(v, Mapping):
            raise KarpenterGpuError("KG242", prop="labels", value=repr(v), allowed="a mapping of label keys to values",
                                    fix="e.g. labels={'team': 'research'}")
        for key, value in v.items():
            if not isinstance(key, str):
                raise KarpenterGpuError("KG242", prop="labels", value=repr(key), allowed="string keys",
                                        fix="quote the key")
            check_label_key(key, prop="labels")
            if key in _OWN or key == GPU_OPERATOR_LABEL[0]:
                raise KarpenterGpuError(
                    "KG242", prop=f"labels[{key}]", value=value,
                    allowed=f"keys other than {sorted((*_OWN, GPU_OPERATOR_LABEL[0]))}: the group sets them from "
                            "its props (EKS sets compute-type itself)",
                    fix="use the matching prop (name, location, architecture, driver_preinstalled, "
                        "toolkit_preinstalled, gpu_operator)")
            check_label_value(value, f"labels[{key}]", "KG242")
        return dict(v)

    @field_validator("cpu", "memory")
    @classmethod
    def _positive(cls, v: Quantity | None, info: Any) -> Quantity | None:
        if v is not None and v.as_decimal() <= 0:
            raise KarpenterGpuError("KG243", prop=info.field_name, value=str(v), allowed="a positive quantity",
                                    fix="e.g. cpu='96', memory='1000Gi', or leave it unset")
        return v

    @model_validator(mode="after")
    def _unique_taints(self) -> "HybridGpuNodeGroupProps":
        seen: set[tuple[str, str]] = set()
        for i, taint in enumerate(self.taints):
            key = (taint.key, str(taint.effect))
            if key in seen:
                raise KarpenterGpuError("KG244", prop=f"taints[{i}]", value=f"{taint.key}:{taint.effect}",
                                        allowed="one taint per key and effect (the kubelet registers one)",
                                        fix="drop the duplicate")
            seen.add(key)
        return self

    # -- derived ---------------------------------------------------------------------------------
    @property
    def node_labels(self) -> dict[str, str]:
        """Every label the group's nodes carry (what pods select on), sorted by key."""
        out = {COMPUTE_TYPE: HYBRID, HYBRID_GROUP_LABEL: self.name, LOCATION_LABEL: self.location,
               Label.ARCH: self.architecture, "kubernetes.io/os": "linux", **self.labels}
        if self.gpu_operator:
            out[GPU_OPERATOR_LABEL[0]] = GPU_OPERATOR_LABEL[1]
        # Preinstalled: keep the operator's own copy off this node (it honours a preset "false").
        if self.driver_preinstalled:
            out[DEPLOY_DRIVER] = "false"
        if self.toolkit_preinstalled:
            out[DEPLOY_TOOLKIT] = "false"
        return dict(sorted(out.items()))

    @property
    def gpu_count(self) -> int:
        """GPUs of the whole group: nodes × gpus_per_node (fixed: nothing scales it)."""
        return self.nodes * self.gpus_per_node

    @property
    def kubelet_flags(self) -> list[str]:
        """``nodeadm`` NodeConfig ``spec.kubelet.flags``: the labels (bar what EKS/kubelet set) and the taints."""
        own = {COMPUTE_TYPE, Label.ARCH, "kubernetes.io/os"}
        labels = ",".join(f"{k}={v}" for k, v in self.node_labels.items() if k not in own)
        flags = [f"--node-labels={labels}"]
        if self.taints:
            flags.append("--register-with-taints=" + ",".join(
                f"{t.key}{'=' + t.value if t.value else ''}:{t.effect}" for t in self.taints))
        return flags

    def describe(self) -> dict[str, str]:
        """The ConfigMap data (strings; structured values as sorted JSON)."""
        data = {"gpuName": self.gpu_name, "gpusPerNode": str(self.gpus_per_node), "nodes": str(self.nodes),
                "location": self.location, "gpuResource": NVIDIA_GPU,
                "nodeLabels": json.dumps(self.node_labels, sort_keys=True),
                "taints": json.dumps([t.render() for t in self.taints]),
                "kubeletFlags": " ".join(self.kubelet_flags)}
        if self.cpu is not None:
            data["cpu"] = str(self.cpu)
        if self.memory is not None:
            data["memory"] = str(self.memory)
        return data


class HybridGpuNodeGroupKwargs(TypedDict, total=False):
    """The keyword props of :class:`HybridGpuNodeGroup`: the fields of :class:`HybridGpuNodeGroupProps`, same types."""

    name: str
    gpu_name: str
    gpus_per_node: int
    nodes: int
    location: str
    labels: Mapping[str, str]
    gpu_operator: bool
    taints: tuple[Taint, ...]
    architecture: Literal["amd64", "arm64"]
    driver_preinstalled: bool
    toolkit_preinstalled: bool
    cpu: Quantity | None
    memory: Quantity | None
    namespace: str


class HybridGpuNodeGroup(ScopedConstruct):
    """A fixed group of on-premises GPU servers joined with EKS Hybrid Nodes (see the module doc).

    Renders ``ConfigMap/hybrid-gpu-<name>`` (child "Resource") describing the nodes for the analyzers and
    for ``nodeadm``; nothing Karpenter-managed. Errors: KG240 (gpu_name, location), KG241 (counts), KG242
    (labels), KG243 (cpu/memory), KG244 (taints), KG120 (name).
    """

    __signature__ = ConstructSignature()

    def __init__(self, scope: Construct, id: str, *, props: HybridGpuNodeGroupProps | None = None,
                 **kwargs: Unpack[HybridGpuNodeGroupKwargs]) -> None:
        """Keyword props (see :class:`HybridGpuNodeGroupProps` for defaults) or ``props=``, not both (KG820)."""
        path = path_of(scope, id)
        self.props = p = build(HybridGpuNodeGroupProps, path, props, **kwargs)
        require_chart(scope, path, "HybridGpuNodeGroup (its description ConfigMap)")
        name = CONFIG_MAP_PREFIX + p.name
        register_object(scope, ("v1", "ConfigMap", p.namespace, name), f"{path}/Resource")
        super().__init__(scope, id)
        self.resource = cdk8s.ApiObject(
            self, "Resource", api_version="v1", kind="ConfigMap",
            metadata=cdk8s.ApiObjectMetadata(name=name, namespace=p.namespace,
                                             labels={HYBRID_GROUP_LABEL: p.name,
                                                     "app.kubernetes.io/managed-by": "karpenter-gpu"}))
        self.resource.add_json_patch(cdk8s.JsonPatch.add("/data", p.describe()))

    @property
    def name(self) -> str:
        return self.props.name

    @property
    def taints(self) -> tuple[Taint, ...]:
        return self.props.taints

    @property
    def node_labels(self) -> dict[str, str]:
        return self.props.node_labels

    @property
    def gpu_count(self) -> int:
        return self.props.gpu_count


def hybrid_groups_of(scope: Construct) -> list[HybridGpuNodeGroup]:
    """Every hybrid node group of the cluster of ``scope``, in name order."""
    return sorted_by_name(members_of(scope, HybridGpuNodeGroup))
