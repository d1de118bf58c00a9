"""GpuWorkload → a Deployment (cdk8s-plus-29) whose pods land on chosen GPU NodePools, and its placement.

:func:`pod_placement` is the part every GPU pod needs, as plain dicts usable in any manifest: a
``karpenter.sh/nodepool`` nodeSelector (one pool) or required node affinity (several, e.g. warm static
nodes plus a dynamic pool, or a whole spot ladder) and one toleration per taint of those pools. Karpenter
launches a node for a pending pod only when the pod tolerates the pool's taints, and it labels
every node with ``karpenter.sh/nodepool``, so these two fields are what ties a pod to a pool.

:class:`GpuWorkload` renders a "smoke" workload shaped like upstream
``examples/workloads/gpu-nvidia.yaml``: a pause image requesting GPUs, run as non-root, with
``replicas: 0`` by default, so the manifest shows a pod that would schedule on the pool without
buying a GPU. Scale it to 1 to prove the pool end to end (node launch, NVIDIA device plugin,
``nvidia.com/gpu`` allocatable).

Example::

    pool = GpuInferencePool(chart, "Inference", node_class=gpu_class, name="gpu-inference", gpu_limit=16)
    GpuWorkload(chart, "Smoke", pool=pool, pdb_min_available=1)
    GpuWorkload(chart, "Serve", pools=(warm, pool), prefer_reserved=False)   # static + dynamic
    # a real pod spec:  {**pod_placement(warm, pool), "containers": [...]}
"""

from __future__ import annotations

from typing import Any

import cdk8s
import cdk8s_plus_29 as kplus
from constructs import Construct
from pydantic import PrivateAttr, StrictBool, field_validator, model_validator
from typing_extensions import TypedDict, Unpack

from karpenter_gpu.pools._node_pool import NodePoolConstruct
from karpenter_gpu._props import Props, build, DnsLabel
from karpenter_gpu._construct_tree import path_of
from karpenter_gpu.k8s.names import check_dns1123
from karpenter_gpu._signature import ConstructSignature
from karpenter_gpu.cluster import register_object, remember_identity, require_chart, ScopedConstruct
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.pools.capacity_reservation import prefer_reserved_capacity
from karpenter_gpu.pools.gpu_training_pool import GpuTrainingPool
from karpenter_gpu.pools.hybrid_gpu_nodes import HYBRID, HYBRID_GROUP_LABEL, HybridGpuNodeGroup
from karpenter_gpu.pools.mig_partitioned_pool import MigPartitionedPool
from karpenter_gpu.k8s.accelerators import NVIDIA
from karpenter_gpu.k8s.mig import mig_table, resource_name
from karpenter_gpu.k8s.labels import AUTO_COMPUTE_TYPE, COMPUTE_TYPE, NVIDIA_GPU, Label
from karpenter_gpu.k8s.scheduling import toleration_for
from karpenter_gpu.k8s.taint import Taint
from karpenter_gpu.k8s.units import Quantity

__all__ = ["DO_NOT_DISRUPT", "GPU_RESOURCE", "PAUSE_IMAGE", "GpuWorkload", "GpuWorkloadProps", "Target",
           "expand_pools", "pod_placement", "toleration"]

#: The image of upstream's GPU example workloads: does nothing, runs as uid 65535.
PAUSE_IMAGE = "public.ecr.aws/eks-distro/kubernetes/pause:3.10"
#: The extended resource the NVIDIA device plugin advertises.
GPU_RESOURCE = NVIDIA_GPU
#: Pod annotation that keeps Karpenter from voluntarily disrupting (consolidating, drifting) the node.
DO_NOT_DISRUPT = "karpenter.sh/do-not-disrupt"
#: The pause image's own user (65535, "nobody" in the distroless sense); any uid ≥ 1 is non-root.
PAUSE_UID = 65535
_NAME_LABEL = "app.kubernetes.io/name"
_CDK8S_ADDR_LABEL = "cdk8s.io/metadata.addr"  # path-hash label cdk8s-plus adds to pod templates
_CONTAINER = "main"
_SMOKE_SUFFIX = "smoke"
#: Deployment replicas, PDB minAvailable and runAsUser are int32 (apps/v1, policy/v1, core/v1 API types).
_INT32_MAX = 2**31 - 1


#: What a pod may be placed on: a NodePool construct or a hybrid node group.
Target = NodePoolConstruct | HybridGpuNodeGroup


def _pool(pool: Any, prop: str = "pool") -> Target:
    if not isinstance(pool, (NodePoolConstruct, HybridGpuNodeGroup)):
        raise KarpenterGpuError("KG100", prop=prop, value=type(pool).__name__,
                                allowed="a NodePool construct of this library (GpuInferencePool, GpuTrainingPool, "
                                        "StaticCapacityPool's pools, …) or a HybridGpuNodeGroup, passed by object, "
                                        "not by name",
                                fix="pass pool=<the pool construct>")
    return pool


def expand_pools(pools: Any, prop: str = "pools") -> tuple[Target, ...]:
    """NodePool constructs from pools and groups of pools (a TieredSpotPools ladder, a StaticCapacityPool), in order.

    A group is anything holding its NodePool constructs in ``pools`` (the ladder's tiers, the static pool's
    zones). Each NodePool once; at least one. Hybrid node groups are targets of their own, kept as they are.
    """
    if isinstance(pools, (str, bytes)) or not isinstance(pools, (list, tuple)):
        raise KarpenterGpuError("KG100", prop=prop, value=type(pools).__name__,
                                allowed="a tuple of pool constructs (GpuInferencePool, TieredSpotPools, "
                                        "StaticCapacityPool, …)",
                                fix=f"pass {prop}=(pool,) or {prop}=(warm, dynamic)")
    out: list[Target] = []
    for i, item in enumerate(pools):
        members = item.pools if not isinstance(item, (NodePoolConstruct, HybridGpuNodeGroup)) and isinstance(
            getattr(item, "pools", None), tuple) else (item,)
        for member in members:
            member = _pool(member, f"{prop}[{i}]")
            if all(member is not seen for seen in out):
                out.append(member)
    if not out:
        raise KarpenterGpuError("KG100", prop=prop, value=(), allowed="at least one pool",
                                fix=f"pass {prop}=(pool,)")
    return tuple(out)


def _gpu_resource(targets: tuple[Target, ...], profile: str | None) -> str:
    """The resource a pod on ``targets`` requests: ``nvidia.com/gpu``, or the MIG device of ``profile`` (KG578)."""
    mig = [t for t in targets if isinstance(t, MigPartitionedPool)]
    if profile is None and not any(t.mig_strategy == "mixed" for t in mig):
        return GPU_RESOURCE
    names = sorted(t.name for t in targets)
    if len(mig) != len(targets) or len({t.mig_strategy for t in mig}) != 1:
        raise KarpenterGpuError(
            "KG578", prop="mig_profile" if profile is not None else "pools", value=profile or names,
            allowed="MIG devices only on MigPartitionedPools of one strategy: a pod requests one resource, and "
                    "whole-GPU pools advertise no MIG device while mixed-strategy MIG pools advertise no whole GPU",
            fix="target only MIG pools (or only whole-GPU pools) with this workload")
    if profile is None:
        resource = mig[0].default_resource
    elif not isinstance(profile, str) or not profile:
        raise KarpenterGpuError("KG578", prop="mig_profile", value=profile, allowed="a MIG profile name",
                                fix="e.g. mig_profile='1g.10gb'")
    else:
        resource = resource_name(profile, mig[0].mig_strategy)
    for pool in mig:
        if pool.mig_strategy == "single":
            offered = {p for gpu in mig_table().supporting(pool.props.mig_config)
                       for p in gpu.config(pool.props.mig_config) or {}}
            ok = profile in offered
        else:
            offered = set(pool.advertised_resources)
            ok = resource in offered
        if not ok:
            raise KarpenterGpuError(
                "KG578", prop="mig_profile", value=profile or resource,
                allowed=f"what NodePool {pool.name} ({pool.props.mig_config}, {pool.mig_strategy}) advertises: "
                        f"{sorted(offered)}",
                fix="pick one of those, or target pools that advertise it")
    return resource


def toleration(taint: Taint) -> dict[str, Any]:
    """The toleration matching exactly ``taint``: ``Equal`` on its value, ``Exists`` when it has none."""
    return toleration_for(taint.render())


def pod_placement(*pools: Any, prefer_reserved: bool = False) -> dict[str, Any]:
    """``nodeSelector`` / ``affinity`` and ``tolerations`` putting a pod on exactly the given pools, as plain dicts.

    ``pools`` are NodePool constructs or groups of them (a whole :class:`TieredSpotPools` ladder, a
    :class:`StaticCapacityPool` with its per-zone pools): warm static nodes and a dynamic pool together,
    for instance. One NodePool gives ``{"nodeSelector": {"karpenter.sh/nodepool": <name>}, ...}``; several
    give a required node affinity ``karpenter.sh/nodepool In [<names>]`` instead (a nodeSelector holds one
    value per key). Karpenter labels every node with its NodePool, so the pod can land on exactly the union.
    When every pool runs on EKS Auto Mode, ``eks.amazonaws.com/compute-type: auto`` is required too (the label EKS
    sets on Auto Mode nodes, https://docs.aws.amazon.com/eks/latest/userguide/associate-workload.html).

    ``tolerations``: one per distinct taint of the pools (``taints``, in pool order; ``PreferNoSchedule``
    ones too) and no other: a catch-all ``operator: Exists`` toleration would also let the pod onto every
    other tainted node. Startup taints are not tolerated: Karpenter expects a daemon to remove them and
    schedules as if they were gone. A pod tolerating a taint a pool does not have still lands there.

    ``prefer_reserved=True`` adds the preferred reserved-capacity affinity
    (:func:`~karpenter_gpu.pools.capacity_reservation.prefer_reserved_capacity`): reserved nodes first,
    the pools' other capacity when the reservation is full or over. Merge the result into any pod spec:
    ``{**pod_placement(warm, pool), "containers": [...]}``.

    Hybrid node groups (:class:`~karpenter_gpu.pools.hybrid_gpu_nodes.HybridGpuNodeGroup`) carry no
    ``karpenter.sh/nodepool`` label: one group gives ``nodeSelector`` ``{eks.amazonaws.com/compute-type: hybrid,
    karpenter-gpu.io/hybrid-group: <name>}``, several a required node affinity on both keys, plus their
    taints' tolerations. Hybrid groups and NodePools are not mixed in one placement (KG245). It would take
    two ORed nodeSelectorTerms (one per kind): the kube-scheduler accepts either, and Karpenter provisions
    from the first term and drops it only after it failed (``removeRequiredNodeAffinityTerm`` in
    ``pkg/controllers/provisioning/scheduling/preferences.go``), so the order of the terms would decide
    what bursts where, and every analyzer here (KG417, ``explain --pod``) reads one term as Karpenter first
    does (``newPodRequirements``): half of such a placement would go unchecked. Use a workload per kind.
    """
    found = expand_pools(pools, "pools")
    hybrid = [t for t in found if isinstance(t, HybridGpuNodeGroup)]
    if hybrid:
        return _hybrid_placement(found, hybrid, prefer_reserved)
    names = list(dict.fromkeys(p.name for p in found))
    tolerations = _tolerations(found)
    out: dict = {}
    node_affinity: dict = {}
    # Every pool on EKS Auto Mode: also require its nodes' eks.amazonaws.com/compute-type: auto, as the EKS guide
    # does for Auto Mode workloads (associate-workload.html). A mix with Karpenter pools cannot carry it.
    auto = all(getattr(pool, "auto_mode", False) for pool in found)  # targets other than NodePools: not Auto Mode
    if len(names) == 1:
        out["nodeSelector"] = {Label.NODEPOOL: names[0], **({COMPUTE_TYPE: AUTO_COMPUTE_TYPE} if auto else {})}
    else:
        node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": Label.NODEPOOL, "operator": "In", "values": names}]
             + ([{"key": COMPUTE_TYPE, "operator": "In", "values": [AUTO_COMPUTE_TYPE]}] if auto else [])}]}
    if prefer_reserved:
        node_affinity.update(prefer_reserved_capacity()["nodeAffinity"])
    if node_affinity:
        out["affinity"] = {"nodeAffinity": node_affinity}
    out["tolerations"] = tolerations
    return out


def _hybrid_placement(found: tuple[Target, ...], groups: list[HybridGpuNodeGroup],
                      prefer_reserved: bool) -> dict[str, Any]:
    if len(groups) != len(found) or prefer_reserved:
        pools = sorted(t.name for t in found if not isinstance(t, HybridGpuNodeGroup))
        raise KarpenterGpuError(
            "KG245", prop="pools" if len(groups) != len(found) else "prefer_reserved",
            value={"node_pools": pools, "hybrid_groups": [g.name for g in groups], "prefer_reserved": prefer_reserved},
            allowed="hybrid node groups alone, without prefer_reserved: a pod's required affinity would need one "
                    "ORed term per kind, Karpenter provisions from the first term until it fails and the checks "
                    "read one term; reserved capacity is an EC2 offering that hybrid nodes do not have",
            fix="place the pod on the hybrid groups or on the NodePools (one GpuWorkload per kind)")
    names = list(dict.fromkeys(g.name for g in groups))
    out: dict[str, Any] = {}
    if len(names) == 1:
        out["nodeSelector"] = {COMPUTE_TYPE: HYBRID, HYBRID_GROUP_LABEL: names[0]}
    else:
        out["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": COMPUTE_TYPE, "operator": "In", "values": [HYBRID]},
                                  {"key": HYBRID_GROUP_LABEL, "operator": "In", "values": names}]}]}}}
    out["tolerations"] = _tolerations(groups)
    return out


def _tolerations(targets: Any) -> list[dict]:
    """One toleration per distinct taint of the targets, in target order."""
    tolerations: list[dict] = []
    for target in targets:
        for taint in target.taints:
            t = toleration(taint)
            if t not in tolerations:
                tolerations.append(t)
    return tolerations


class GpuWorkloadProps(Props):
    """What :class:`GpuWorkload` renders. Validated once, at construction."""

    #: The NodePool construct (selected by ``karpenter.sh/nodepool``) or hybrid node group the pods must
    #: land on. Exactly one of ``pool`` / ``pools``.
    pool: Any = None
    #: Several pools (or ladders, static pools) the pods may land on: see :func:`pod_placement`.
    #: Default: - ``(pool,)``.
    pools: tuple[Any, ...] = ()
    #: Prefer reserved capacity (a preferred node affinity on ``karpenter.sh/capacity-type: reserved``).
    #: Default: False.
    prefer_reserved: StrictBool = False
    #: metadata.name of the Deployment (and PDB). Default: ``<pool name>-smoke``.
    name: DnsLabel | None = None
    #: Default: - none (the namespace of the kubectl/Argo CD context).
    namespace: DnsLabel | None = None
    #: Default: the pause image of upstream's GPU example (does nothing; runs as uid 65535).
    image: str = PAUSE_IMAGE
    #: Accelerators (GPUs, MIG devices: see ``mig_profile``, Neuron devices or cores: see ``resource``) requested
    #: and limited per pod; 1 .. the pool's limit. Default: 1.
    gpus: int = 1
    #: MIG profile each of the ``gpus`` devices is, e.g. "1g.10gb", on MigPartitionedPools: requests
    #: ``nvidia.com/mig-1g.10gb`` (mixed strategy) or ``nvidia.com/gpu`` (single). Default: - whole GPUs, or on
    #: mixed-strategy MIG pools the MIG resource most of their instance types advertise.
    mig_profile: str | None = None
    #: The extended resource ``gpus`` counts: one of the pools' accelerator resources (``nvidia.com/gpu``;
    #: ``aws.amazon.com/neuron`` or ``aws.amazon.com/neuroncore`` on Neuron pools). Default: - the pools'
    #: device resource (``nvidia.com/gpu``, or ``aws.amazon.com/neuron`` on Neuron pools; on MIG pools see
    #: ``mig_profile``).
    resource: str | None = None

    _resource: str = PrivateAttr(GPU_RESOURCE)
    #: Default: 0 — a smoke workload that shows the pod spec without launching a GPU node.
    replicas: int = 0
    #: cpu requested and limited per pod. Default: 1 (upstream's example).
    cpu: Quantity = Quantity("1")
    #: memory requested and limited per pod. Default: 256Mi.
    memory: Quantity = Quantity("256Mi")
    #: The uid (and gid) the container runs as; never 0. Default: 65535 (the pause image's user).
    user: int = PAUSE_UID
    #: Annotate pods ``karpenter.sh/do-not-disrupt: "true"`` and roll out with Recreate.
    #: Default: - True when ``pool`` is a GpuTrainingPool, else False.
    training: bool | None = None
    #: Render a PodDisruptionBudget with this minAvailable (inference only). Default: - no PDB.
    pdb_min_available: int | None = None

    @field_validator("pool", mode="before")
    @classmethod
    def _pool(cls, v: Any) -> Target | None:
        return None if v is None else _pool(v)

    @field_validator("pools", mode="before")
    @classmethod
    def _pools(cls, v: Any) -> tuple[Target, ...]:
        return () if isinstance(v, tuple) and not v else expand_pools(v)

    @model_validator(mode="before")
    @classmethod
    def _one_of(cls, data: Any) -> Any:
        if isinstance(data, dict) and (data.get("pool") is None) == (not data.get("pools")):
            raise KarpenterGpuError("KG100", prop="pool/pools", value={"pool": data.get("pool") is not None,
                                                                       "pools": bool(data.get("pools"))},
                                    allowed="exactly one of pool=<a pool> or pools=(<pools>, ...)",
                                    fix="pass pool= for one NodePool, pools= for several")
        return data

    @field_validator("image", mode="before")
    @classmethod
    def _image(cls, v: Any) -> str:
        if not isinstance(v, str) or not v.strip() or v != v.strip() or any(c.isspace() for c in v):
            raise KarpenterGpuError("KG100", prop="image", value=v, allowed="a container image reference",
                                    fix=f"e.g. image={PAUSE_IMAGE!r}")
        return v

    @field_validator("gpus", mode="before")
    @classmethod
    def _gpus(cls, v: Any) -> int:
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise KarpenterGpuError("KG560", prop="gpus", value=v,
                                    allowed="an integer ≥ 1 (nvidia.com/gpu per pod); a pod without a GPU request "
                                            "does not belong on a GPU pool",
                                    fix="e.g. gpus=1")
        return v

    @field_validator("replicas", "user", "pdb_min_available", mode="before")
    @classmethod
    def _counts(cls, v: Any, info: Any) -> Any:
        lowest = 1 if info.field_name in ("user", "pdb_min_available") else 0
        if v is None and info.field_name == "pdb_min_available":
            return v
        if not isinstance(v, int) or isinstance(v, bool) or not lowest <= v <= _INT32_MAX:
            raise KarpenterGpuError(
                "KG562" if info.field_name == "pdb_min_available" else "KG100", prop=info.field_name,
                value=v if not isinstance(v, int) or abs(v) < 10**12 else f"{str(v)[:12]}… ({len(str(v))} digits)",
                allowed=f"an integer {lowest}..{_INT32_MAX} (int32 in the Kubernetes API)"
                        + (" (0 is root)" if info.field_name == "user" else ""),
                fix={"replicas": "e.g. replicas=0 (smoke) or replicas=2", "user": f"e.g. user={PAUSE_UID}",
                     "pdb_min_available": "e.g. pdb_min_available=1"}[info.field_name])
        return v

    @field_validator("training", mode="before")
    @classmethod
    def _training(cls, v: Any) -> Any:
        if v is not None and not isinstance(v, bool):
            raise KarpenterGpuError("KG100", prop="training", value=v, allowed="True, False or None (from the pool)",
                                    fix="pass training=True or training=False")
        return v

    @model_validator(mode="after")
    def _check(self) -> "GpuWorkloadProps":
        for prop, q in (("cpu", self.cpu), ("memory", self.memory)):
            if q.as_decimal() <= 0:
                raise KarpenterGpuError("KG102", prop=prop, value=str(q), allowed="a positive quantity",
                                        fix="e.g. cpu='1', memory='256Mi'")
        pod_placement(*self.targets, prefer_reserved=self.prefer_reserved)  # KG245 before anything is built
        per_node = {t.name: t.props.gpus_per_node for t in self.targets if isinstance(t, HybridGpuNodeGroup)}
        if per_node and self.gpus > max(per_node.values()):
            biggest = max(per_node, key=lambda name: per_node[name])
            raise KarpenterGpuError(
                "KG560", prop="gpus", value=self.gpus,
                allowed=f"at most the GPUs of one node of hybrid group {biggest} ({per_node[biggest]}): the "
                        "group's nodes are fixed and a pod's GPUs come from one node, so the pod stays Pending",
                fix=f"lower gpus to ≤ {per_node[biggest]}")
        kinds = {p.props.accelerator for p in self.targets}
        if len(kinds) > 1:
            raise KarpenterGpuError(
                "KG585", prop="pools", value={p.name: p.props.accelerator.resource for p in self.targets},
                allowed="pools of one accelerator kind: a pod requests one device resource, and a pool whose nodes "
                        "do not advertise it never fits the pod",
                fix="split the workload: one for the GPU pools, one for the Neuron pools")
        accelerator = next(iter(kinds))
        if self.resource is not None and self.resource not in accelerator.resources:
            raise KarpenterGpuError(
                "KG585", prop="resource", value=self.resource,
                allowed=f"one of {list(accelerator.resources)}: what the pools' device plugin advertises",
                fix=f"use resource={accelerator.resource!r} or drop it")
        limits: dict[str, int] = {p.name: limit for p in self.targets
                                  if isinstance(limit := getattr(p.props, "accelerator_limit", None), int)}
        if self.mig_profile is not None and self.resource is not None:
            raise KarpenterGpuError("KG578", prop="resource", value=self.resource,
                                    allowed="resource or mig_profile, not both: the MIG profile names the resource",
                                    fix="drop resource=")
        # MIG devices are NVIDIA's: the MIG pools decide the resource unless one is named (a MIG profile on
        # other pools is KG578 there).
        nvidia_or_mig = accelerator is NVIDIA or self.mig_profile is not None
        self._resource = (_gpu_resource(self.targets, self.mig_profile) if nvidia_or_mig and self.resource is None
                          else self.resource or accelerator.resource)
        # Limits count devices: a request of MIG devices or Neuron cores is not compared with them.
        if (self._resource == accelerator.resource and len(limits) == len(self.targets)
                and self.gpus > max(limits.values())):
            biggest = max(limits, key=lambda name: limits[name])
            raise KarpenterGpuError(
                "KG560", prop="gpus", value=self.gpus,
                allowed=f"at most the GPU limit of NodePool {biggest} ({limits[biggest]}): Karpenter never launches a "
                        "node that would take the pool over its limit, so the pod stays Pending",
                fix=f"lower gpus to ≤ {limits[biggest]} or raise the pool's gpu_limit")
        if self.pdb_min_available is not None and self.is_training:
            raise KarpenterGpuError(
                "KG561", prop="pdb_min_available", value=self.pdb_min_available,
                allowed="None for a training workload: its pods carry karpenter.sh/do-not-disrupt, which already "
                        "keeps Karpenter from consolidating or drifting their node; a PDB adds nothing to that, stops "
                        "neither expiry nor spot interruption, and blocks every other drain (kubectl drain, node "
                        "upgrades) until the pool's terminationGracePeriod",
                fix="drop pdb_min_available, or pass training=False for a serving workload")
        if self.pdb_min_available is not None and 0 < self.replicas <= self.pdb_min_available:
            raise KarpenterGpuError(
                "KG562", prop="pdb_min_available", value=self.pdb_min_available,
                allowed=f"below replicas ({self.replicas}): minAvailable ≥ replicas allows no eviction, so Karpenter "
                        "can never drain the node for consolidation or drift (expiry waits until "
                        "terminationGracePeriod)",
                fix=f"use pdb_min_available ≤ {self.replicas - 1} or more replicas")
        if self.name is None:
            try:
                check_dns1123(self.workload_name, "name")
            except KarpenterGpuError as err:
                raise KarpenterGpuError(err.code, prop="name", value=self.workload_name,
                                        allowed=f"{err.allowed} (the default is '<pool name>-{_SMOKE_SUFFIX}')",
                                        fix="pass a shorter name=") from None
        return self

    @property
    def targets(self) -> tuple[Target, ...]:
        """The NodePools (or hybrid node groups) the pods may land on: ``pools``, or ``(pool,)``."""
        return self.pools or (self.pool,)

    @property
    def workload_name(self) -> str:
        """metadata.name: ``name``, or ``<first pool's name>-smoke``."""
        return self.name if self.name is not None else f"{self.targets[0].name}-{_SMOKE_SUFFIX}"

    @property
    def accelerator_resource(self) -> str:
        """The extended resource each pod requests ``gpus`` of: ``resource``, the MIG device of ``mig_profile``
        (or of mixed MIG pools), or the pools' device resource (nvidia.com/gpu, aws.amazon.com/neuron)."""
        return self._resource

    @property
    def is_training(self) -> bool:
        """``training``, or whether every target pool is a GpuTrainingPool."""
        return self.training if self.training is not None else all(
            isinstance(p, GpuTrainingPool) for p in self.targets)


class GpuWorkloadKwargs(TypedDict, total=False):
    """The keyword props of :class:`GpuWorkload`: the fields of :class:`GpuWorkloadProps`, same types."""

    pool: NodePoolConstruct | HybridGpuNodeGroup
    pools: tuple[Any, ...]
    prefer_reserved: bool
    name: str | None
    namespace: str | None
    image: str
    gpus: int
    mig_profile: str | None
    resource: str | None
    replicas: int
    cpu: Quantity
    memory: Quantity
    user: int
    training: bool | None
    pdb_min_available: int | None


class GpuWorkload(ScopedConstruct):
    """A Deployment of GPU pods pinned to one NodePool or a set of them (child "Deployment"), plus an optional PDB ("Pdb").

    Each pod requests and limits ``<resource>: <gpus>`` (``nvidia.com/gpu``; on MIG pools the MIG device, see
    ``mig_profile``, KG578 when the pools do not advertise it; ``aws.amazon.com/neuron`` on Neuron pools),
    ``cpu`` and ``memory`` (Guaranteed
    QoS), selects the pool(s) with ``karpenter.sh/nodepool`` and tolerates exactly their taints
    (see :func:`pod_placement`). It runs as non-root (uid/gid ``user``, default 65535) with a
    read-only root filesystem, no privilege escalation, all capabilities dropped and the
    RuntimeDefault seccomp profile, and mounts no service-account token. Labels and selector are
    ``app.kubernetes.io/name: <name>``: cdk8s-plus's path-hash selector label is not used, so
    moving the construct does not change the pod template.

    Training workloads (``training``, default for a GpuTrainingPool) get the pod annotation
    ``karpenter.sh/do-not-disrupt: "true"`` and the Recreate strategy (no surge pod asking for
    more GPUs). The annotation keeps Karpenter from *voluntarily* disrupting the node
    (consolidation, drift); it does **not** stop expiry (``expireAfter``) or spot interruption,
    which are forceful: checkpoint, and choose the pool's ``expire_after`` accordingly.

    Inference workloads may pass ``pdb_min_available`` for a ``policy/v1`` PodDisruptionBudget
    over the same pods, with ``unhealthyPodEvictionPolicy: AlwaysAllow`` so that pods that never
    became ready (a GPU that failed) do not block node drains. Errors: KG560 (gpus below 1 or
    above the pool's GPU limit), KG585 (pools of two accelerator kinds, or a resource not theirs), KG561 (PDB on a training workload), KG562 (PDB minAvailable
    below 1, or at or above replicas > 0), KG120 (name), KG100/KG102 (other props).
    """

    __signature__ = ConstructSignature()

    def __init__(self, scope: Construct, id: str, *, props: GpuWorkloadProps | None = None,
                 **kwargs: Unpack[GpuWorkloadKwargs]) -> None:
        """Keyword props (``pool=`` …, see :class:`GpuWorkloadProps` for defaults) or ``props=``, not both (KG820)."""
        path = path_of(scope, id)
        self.props = build(GpuWorkloadProps, path, props, **kwargs)
        p = self.props
        require_chart(scope, path, "GpuWorkload")  # before super().__init__: nothing is added on error
        deployment = ("apps/v1", "Deployment", p.namespace or "", p.workload_name)
        register_object(scope, deployment, f"{path}/Deployment")
        if p.pdb_min_available is not None:
            register_object(scope, ("policy/v1", "PodDisruptionBudget", p.namespace or "", p.workload_name),
                            f"{path}/Pdb")
        super().__init__(scope, id)
        self.pool: Target = p.targets[0]
        self.pools: tuple[Target, ...] = p.targets
        labels = {_NAME_LABEL: p.workload_name}
        annotations = {DO_NOT_DISRUPT: "true"} if p.is_training else None

        self.deployment = kplus.Deployment(
            self, "Deployment",
            metadata=cdk8s.ApiObjectMetadata(name=p.workload_name, namespace=p.namespace, labels=labels),
            replicas=p.replicas,
            select=False,  # else the selector is a hash of the construct path (cdk8s.io/metadata.addr)
            pod_metadata=cdk8s.ApiObjectMetadata(labels=labels, annotations=annotations),
            strategy=kplus.DeploymentStrategy.recreate() if p.is_training else None,
            automount_service_account_token=False,
            security_context=kplus.PodSecurityContextProps(ensure_non_root=True, user=p.user, group=p.user),
            containers=[kplus.ContainerProps(
                name=_CONTAINER, image=p.image, image_pull_policy=kplus.ImagePullPolicy.IF_NOT_PRESENT,
                security_context=kplus.ContainerSecurityContextProps(
                    ensure_non_root=True, user=p.user, group=p.user, privileged=False,
                    allow_privilege_escalation=False, read_only_root_filesystem=True,
                    capabilities=kplus.ContainerSecutiryContextCapabilities(drop=[kplus.Capability.ALL]),
                    seccomp_profile=kplus.SeccompProfile(type=kplus.SeccompProfileType.RUNTIME_DEFAULT)),
            )],
        )
        self.deployment.select(kplus.LabelSelector.of(labels=labels))
        placement = pod_placement(*p.targets, prefer_reserved=p.prefer_reserved)
        resources = {"cpu": str(p.cpu), "memory": str(p.memory), p.accelerator_resource: str(p.gpus)}
        obj = cdk8s.ApiObject.of(self.deployment)
        remember_identity(obj, deployment)
        obj.add_json_patch(
            # cdk8s-plus takes only cpu/memory, so the whole block is set here. The generated
            # KubeDeployment maps quantities through `.value` after patches apply: plain strings
            # would be dropped, hence {"value": ...} (tests check the synthesized YAML).
            cdk8s.JsonPatch.add("/spec/template/spec/containers/0/resources",
                                {"limits": {k: {"value": v} for k, v in resources.items()},
                                 "requests": {k: {"value": v} for k, v in resources.items()}}),
            *[cdk8s.JsonPatch.add(f"/spec/template/spec/{field}", placement[field])
              for field in ("nodeSelector", "affinity") if field in placement],
            cdk8s.JsonPatch.add("/spec/template/spec/tolerations", placement["tolerations"]),
            cdk8s.JsonPatch.remove(f"/spec/template/metadata/labels/{_CDK8S_ADDR_LABEL.replace('/', '~1')}"),
        )
        self.pdb: cdk8s.ApiObject | None = None
        if p.pdb_min_available is not None:
            self.pdb = cdk8s.ApiObject(
                self, "Pdb", api_version="policy/v1", kind="PodDisruptionBudget",
                metadata=cdk8s.ApiObjectMetadata(name=p.workload_name, namespace=p.namespace, labels=labels))
            self.pdb.add_json_patch(cdk8s.JsonPatch.add("/spec", {
                "minAvailable": p.pdb_min_available,
                "selector": {"matchLabels": dict(labels)},
                "unhealthyPodEvictionPolicy": "AlwaysAllow",
            }))

    @property
    def name(self) -> str:
        return self.props.workload_name
