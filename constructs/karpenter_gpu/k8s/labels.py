"""Label keys, well-known label sets and API kinds of Karpenter v1.14.1 (pure Python, the only copy).

Every module that names a Karpenter label key or an (apiVersion, kind) pair imports it from here.
Sources (tag v1.14.1):

- kubernetes-sigs/karpenter ``pkg/apis/v1/labels.go``: ``WellKnownLabels``, ``WellKnownLabelsForOfferings``,
  ``RestrictedLabels``, ``NormalizedLabels``, the capacity types.
- aws/karpenter-provider-aws ``pkg/apis/v1/labels.go`` ``init()``: the AWS keys it inserts into
  ``karpv1.WellKnownLabels``.
- the NodePool and NodeOverlay CRDs' CEL allow-lists for ``karpenter.k8s.aws`` keys.
"""

from __future__ import annotations

from typing import Any, Mapping

# --------------------------------------------------------------------------- API kinds

KARPENTER_GROUP = "karpenter.sh"
AWS_GROUP = "karpenter.k8s.aws"
NODEPOOL_KIND = ("karpenter.sh/v1", "NodePool")
NODECLAIM_KIND = ("karpenter.sh/v1", "NodeClaim")
NODE_CLASS_KIND = ("karpenter.k8s.aws/v1", "EC2NodeClass")
OVERLAY_KIND = ("karpenter.sh/v1alpha1", "NodeOverlay")
#: EKS Auto Mode's node class (https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html). AWS
#: publishes no CRD for it: nothing can be schema-checked, see :mod:`karpenter_gpu.pools.auto_mode_node_class`.
AUTO_MODE_GROUP = "eks.amazonaws.com"
AUTO_MODE_NODE_CLASS_KIND = ("eks.amazonaws.com/v1", "NodeClass")


def kind_of(manifest: Any) -> tuple[Any, Any]:
    """``(apiVersion, kind)`` of a manifest dict; ``(None, None)`` for anything else."""
    if type(manifest) is not dict and not isinstance(manifest, Mapping):  # a dict without the ABC's slower check
        return (None, None)
    return (manifest.get("apiVersion"), manifest.get("kind"))


def is_kind(manifest: Any, gvk: tuple[str, str]) -> bool:
    return kind_of(manifest) == gvk


# --------------------------------------------------------------------------- label keys


class Label:
    """Well-known label keys (Karpenter v1.14.1). Memory labels are MiB; GPU memory is per GPU."""

    CAPACITY_TYPE = "karpenter.sh/capacity-type"
    NODEPOOL = "karpenter.sh/nodepool"
    ZONE = "topology.kubernetes.io/zone"
    REGION = "topology.kubernetes.io/region"
    ZONE_ID = "topology.k8s.aws/zone-id"
    ARCH = "kubernetes.io/arch"
    OS = "kubernetes.io/os"
    WINDOWS_BUILD = "node.kubernetes.io/windows-build"
    INSTANCE_TYPE = "node.kubernetes.io/instance-type"
    INSTANCE_CATEGORY = "karpenter.k8s.aws/instance-category"
    INSTANCE_FAMILY = "karpenter.k8s.aws/instance-family"
    INSTANCE_GENERATION = "karpenter.k8s.aws/instance-generation"
    INSTANCE_SIZE = "karpenter.k8s.aws/instance-size"
    INSTANCE_CPU = "karpenter.k8s.aws/instance-cpu"
    INSTANCE_MEMORY = "karpenter.k8s.aws/instance-memory"
    INSTANCE_HYPERVISOR = "karpenter.k8s.aws/instance-hypervisor"
    GPU_NAME = "karpenter.k8s.aws/instance-gpu-name"
    GPU_MANUFACTURER = "karpenter.k8s.aws/instance-gpu-manufacturer"
    GPU_COUNT = "karpenter.k8s.aws/instance-gpu-count"
    GPU_MEMORY = "karpenter.k8s.aws/instance-gpu-memory"
    #: Set from EC2 NeuronInfo (Inferentia/Trainium: name, "aws", device count), else from
    #: InferenceAcceleratorInfo (dl2q): aws/karpenter-provider-aws pkg/providers/instancetype/types.go
    #: ``computeRequirements``.
    ACCELERATOR_NAME = "karpenter.k8s.aws/instance-accelerator-name"
    ACCELERATOR_MANUFACTURER = "karpenter.k8s.aws/instance-accelerator-manufacturer"
    ACCELERATOR_COUNT = "karpenter.k8s.aws/instance-accelerator-count"
    CAPACITY_RESERVATION_TYPE = "karpenter.k8s.aws/capacity-reservation-type"


#: Capacity types in the order the AWS provider prefers them (``pkg/providers/instance/instance.go``
#: ``getCapacityType``: reserved, then spot, else on-demand).
CAPACITY_TYPES: tuple[str, ...] = ("reserved", "spot", "on-demand")

_AWS_WELL_KNOWN = tuple(AWS_GROUP + "/" + k for k in (
    "capacity-reservation-id capacity-reservation-type capacity-reservation-interruptible instance-hypervisor "
    "instance-encryption-in-transit-supported instance-category instance-capability-flex instance-family "
    "instance-generation instance-size instance-local-nvme instance-cpu instance-cpu-manufacturer "
    "instance-cpu-sustained-clock-speed-mhz instance-memory instance-ebs-bandwidth instance-network-bandwidth "
    "instance-gpu-name instance-gpu-manufacturer instance-gpu-count instance-gpu-memory instance-accelerator-name "
    "instance-accelerator-manufacturer instance-accelerator-count instance-tenancy placement-group-id "
    "placement-group-partition"
).split())

#: ``karpv1.WellKnownLabels`` after the AWS provider's ``init()`` (both ``apis/v1/labels.go``): labels a pod may
#: select without the NodePool declaring them (``Compatible`` with ``AllowUndefinedWellKnownLabels``).
WELL_KNOWN_LABELS: frozenset[str] = frozenset((
    Label.NODEPOOL, Label.ZONE, Label.REGION, Label.INSTANCE_TYPE, Label.ARCH, Label.OS, Label.CAPACITY_TYPE,
    Label.WINDOWS_BUILD, Label.ZONE_ID, *_AWS_WELL_KNOWN,
))

#: ``WellKnownLabelsForOfferings``: the keys an offering (not an instance type) carries.
OFFERING_LABELS: frozenset[str] = frozenset({Label.ZONE, Label.CAPACITY_TYPE})

#: Set by Karpenter and the kubelet on every node; refused in NodePool requirements and labels.
HOSTNAME = "kubernetes.io/hostname"
#: ``RestrictedLabels``: Karpenter sets it itself.
RESTRICTED_LABELS: frozenset[str] = frozenset({HOSTNAME})

#: ``NormalizedLabels``: deprecated keys that pod requirements are translated from.
NORMALIZED_LABELS: Mapping[str, str] = {
    "failure-domain.beta.kubernetes.io/zone": Label.ZONE,
    "beta.kubernetes.io/arch": Label.ARCH,
    "beta.kubernetes.io/os": Label.OS,
    "beta.kubernetes.io/instance-type": Label.INSTANCE_TYPE,
    "failure-domain.beta.kubernetes.io/region": Label.REGION,
}

#: The karpenter.k8s.aws keys the v1.14.1 NodePool CRD allows (CEL allow-list). Notably
#: ``instance-pods`` is documented but rejected.
AWS_ALLOWED_KEYS: frozenset[str] = frozenset(_AWS_WELL_KNOWN + (AWS_GROUP + "/ec2nodeclass",))

#: The NodeOverlay CRD's karpenter.k8s.aws allow-list: the NodePool one without the
#: capacity-reservation-*, instance-tenancy and placement-group-* keys.
OVERLAY_AWS_KEYS: frozenset[str] = frozenset(
    k for k in AWS_ALLOWED_KEYS
    if not k.split("/", 1)[1].startswith(("capacity-reservation-", "instance-tenancy", "placement-group-"))
)
#: The karpenter.sh keys a NodeOverlay may select on (NodePool requirements may not use nodepool).
OVERLAY_KARPENTER_KEYS: frozenset[str] = frozenset({Label.CAPACITY_TYPE, Label.NODEPOOL})

#: GPU extended resources, in the order the analyzers look for them.
NVIDIA_GPU = "nvidia.com/gpu"
AMD_GPU = "amd.com/gpu"
GPU_RESOURCES: tuple[str, ...] = (NVIDIA_GPU, AMD_GPU)


# --------------------------------------------------------------------------- EKS Auto Mode

#: Auto Mode sets ``eks.amazonaws.com/compute-type: auto`` on every node it manages
#: (https://docs.aws.amazon.com/eks/latest/userguide/associate-workload.html).
COMPUTE_TYPE = "eks.amazonaws.com/compute-type"
AUTO_COMPUTE_TYPE = "auto"

#: The instance-attribute keys EKS Auto Mode documents ("EKS Auto Mode Supported" labels of
#: https://docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html), keyed by the karpenter.k8s.aws key
#: carrying the same attribute with the same value format. Auto Mode "uses different labels than Karpenter"
#: (https://docs.aws.amazon.com/eks/latest/userguide/auto-migrate-karpenter.html): its NodePools and pods use
#: these, and the karpenter.k8s.aws keys are not in its list. The accelerator-* and capacity-reservation-*
#: keys have no documented Auto Mode spelling and are left out.
AUTO_MODE_ALIASES: Mapping[str, str] = {
    AWS_GROUP + "/" + k: AUTO_MODE_GROUP + "/" + k for k in (
        "instance-hypervisor instance-encryption-in-transit-supported instance-category instance-generation "
        "instance-family instance-size instance-cpu instance-cpu-manufacturer instance-memory "
        "instance-ebs-bandwidth instance-network-bandwidth instance-gpu-name instance-gpu-manufacturer "
        "instance-gpu-count instance-gpu-memory instance-local-nvme"
    ).split()
}
#: eks.amazonaws.com key → the karpenter.k8s.aws key of the same attribute.
CANONICAL_KEYS: Mapping[str, str] = {v: k for k, v in AUTO_MODE_ALIASES.items()}

#: Labels a pod may select on an Auto Mode pool without the NodePool declaring them: the documented supported
#: list (zone, instance type, arch, capacity type, the eks.amazonaws.com keys), the other Kubernetes and
#: karpenter.sh well-known keys, and not the karpenter.k8s.aws keys (undocumented there; see above).
#: ``kubernetes.io/os`` and ``node.kubernetes.io/windows-build`` are listed as not supported (Linux only).
AUTO_MODE_WELL_KNOWN_LABELS: frozenset[str] = frozenset(
    {k for k in WELL_KNOWN_LABELS if not k.startswith(AWS_GROUP + "/")} - {Label.OS, Label.WINDOWS_BUILD}
    | set(AUTO_MODE_ALIASES.values()) | {COMPUTE_TYPE}
)


def auto_mode_key(key: str) -> str:
    """The Auto Mode spelling of a label key: ``karpenter.k8s.aws/instance-gpu-name`` →
    ``eks.amazonaws.com/instance-gpu-name``; keys without one (zone, capacity type, custom) unchanged."""
    return AUTO_MODE_ALIASES.get(key, key)


def canonical_key(key: str) -> str:
    """The karpenter.k8s.aws spelling of an Auto Mode key (the inverse of :func:`auto_mode_key`), so a rule
    about an instance attribute is written once for both spellings; other keys unchanged."""
    return CANONICAL_KEYS.get(key, key)


def with_auto_mode_aliases(labels: Mapping[str, str]) -> dict[str, str]:
    """Instance-type labels plus their eks.amazonaws.com spellings (same values): what the catalog models, so a
    requirement written either way selects the same instance types."""
    out = dict(labels)
    for key, alias in AUTO_MODE_ALIASES.items():
        if key in labels:
            out.setdefault(alias, labels[key])
    return out

# --------------------------------------------------------------------------- EKS Hybrid Nodes

#: ``eks.amazonaws.com/compute-type`` (:data:`COMPUTE_TYPE`) of EKS Hybrid Nodes (the VPC CNI's anti-affinity keys
#: on it: EKS user guide "Configure CNI for hybrid nodes").
HYBRID = "hybrid"
#: The hybrid node group a node belongs to (karpenter_gpu.pools.hybrid_gpu_nodes); also the label of the
#: ConfigMap describing the group, which the analyzers read (karpenter_gpu.k8s.views.HybridGroupView).
HYBRID_GROUP_LABEL = "karpenter-gpu.io/hybrid-group"
#: Where a hybrid node is (the DCGM ``location`` label; cloud nodes report their region instead).
LOCATION_LABEL = "karpenter-gpu.io/location"
#: Neuron extended resources (types.go ``awsNeuronDevices``: devices; ``awsNeuronCores``: devices x cores per device).
NEURON = "aws.amazon.com/neuron"
NEURON_CORE = "aws.amazon.com/neuroncore"
#: Every accelerator resource a pool limit or a pod request counts, in the order the analyzers look for them.
ACCELERATOR_RESOURCES: tuple[str, ...] = (*GPU_RESOURCES, NEURON, NEURON_CORE)
