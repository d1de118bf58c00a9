"""GpuWorkload → a Deployment (cdk8s-plus-29) whose pods land on one GPU NodePool, and its placement.

:func:`pod_placement` is the part every GPU pod needs, as plain dicts usable in any manifest: a
``karpenter.sh/nodepool`` nodeSelector and one toleration per taint of that pool. Karpenter
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
    # a real pod spec:  {**pod_placement(pool), "containers": [...]}
"""

from __future__ import annotations

from typing import Any

import cdk8s
import cdk8s_plus_29 as kplus
from constructs import Construct
from pydantic import field_validator, model_validator
from typing_extensions import TypedDict, Unpack

from karpenter_gpu.pools._node_pool import NodePoolConstruct
from karpenter_gpu._props import DnsLabel, Props, build, check_dns1123, path_of
from karpenter_gpu._signature import ConstructSignature
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.pools.gpu_training_pool import GpuTrainingPool
from karpenter_gpu.k8s.labels import NVIDIA_GPU, Label
from karpenter_gpu.k8s.scheduling import toleration_for
from karpenter_gpu.k8s.taint import Taint
from karpenter_gpu.k8s.units import Quantity

__all__ = ["DO_NOT_DISRUPT", "GPU_RESOURCE", "PAUSE_IMAGE", "GpuWorkload", "GpuWorkloadProps", "pod_placement",
           "toleration"]

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


def _pool(pool: Any, prop: str = "pool") -> NodePoolConstruct:
    if not isinstance(pool, NodePoolConstruct):
        raise KarpenterGpuError("KG100", prop=prop, value=type(pool).__name__,
                                allowed="a NodePool construct of this library (GpuInferencePool, GpuTrainingPool, "
                                        "StaticCapacityPool's pools, …), passed by object, not by name",
                                fix="pass pool=<the pool construct>")
    return pool


def toleration(taint: Taint) -> dict[str, Any]:
    """The toleration matching exactly ``taint``: ``Equal`` on its value, ``Exists`` when it has none."""
    return toleration_for(taint.render())


def pod_placement(pool: NodePoolConstruct) -> dict[str, Any]:
    """``nodeSelector`` and ``tolerations`` putting a pod on ``pool``, as plain dicts.

    Returns ``{"nodeSelector": {"karpenter.sh/nodepool": <name>}, "tolerations": [...]}`` with one
    toleration per taint of the pool (``taints``, in order; ``PreferNoSchedule`` ones too) and no
    other: a catch-all ``operator: Exists`` toleration would also let the pod onto every other
    tainted node. Startup taints are not tolerated: Karpenter expects a daemon to remove them and
    schedules as if they were gone. Merge the result into any pod spec: ``{**pod_placement(pool),
    "containers": [...]}``.
    """
    pool = _pool(pool)
    return {"nodeSelector": {Label.NODEPOOL: pool.name},
            "tolerations": [toleration(t) for t in pool.taints]}


class GpuWorkloadProps(Props):
    """What :class:`GpuWorkload` renders. Validated once, at construction."""

    #: The NodePool construct the pods must land on (selected by ``karpenter.sh/nodepool``).
    pool: NodePoolConstruct
    #: metadata.name of the Deployment (and PDB). Default: ``<pool name>-smoke``.
    name: DnsLabel | None = None
    #: Default: - none (the namespace of the kubectl/Argo CD context).
    namespace: DnsLabel | None = None
    #: Default: the pause image of upstream's GPU example (does nothing; runs as uid 65535).
    image: str = PAUSE_IMAGE
    #: ``nvidia.com/gpu`` requested and limited per pod; 1 .. the pool's GPU limit. Default: 1.
    gpus: int = 1
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
    def _pool(cls, v: Any) -> NodePoolConstruct:
        return _pool(v)

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
        if not isinstance(v, int) or isinstance(v, bool) or v < lowest:
            raise KarpenterGpuError(
                "KG562" if info.field_name == "pdb_min_available" else "KG100", prop=info.field_name, value=v,
                allowed=f"an integer ≥ {lowest}" + (" (0 is root)" if info.field_name == "user" else ""),
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
        limit = getattr(self.pool.props, "gpu_limit", None)
        if limit is not None and self.gpus > limit:
            raise KarpenterGpuError(
                "KG560", prop="gpus", value=self.gpus,
                allowed=f"at most the GPU limit of NodePool {self.pool.name} ({limit}): Karpenter never launches a "
                        "node that would take the pool over its limit, so the pod stays Pending",
                fix=f"lower gpus to ≤ {limit} or raise the pool's gpu_limit")
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
    def workload_name(self) -> str:
        """metadata.name: ``name``, or ``<pool name>-smoke``."""
        return self.name if self.name is not None else f"{self.pool.name}-{_SMOKE_SUFFIX}"

    @property
    def is_training(self) -> bool:
        """``training``, or whether the pool is a GpuTrainingPool."""
        return self.training if self.training is not None else isinstance(self.pool, GpuTrainingPool)


class GpuWorkloadKwargs(TypedDict, total=False):
    """The keyword props of :class:`GpuWorkload`: the fields of :class:`GpuWorkloadProps`, same types."""

    pool: NodePoolConstruct
    name: str | None
    namespace: str | None
    image: str
    gpus: int
    replicas: int
    cpu: Quantity
    memory: Quantity
    user: int
    training: bool | None
    pdb_min_available: int | None


class GpuWorkload(Construct):
    """A Deployment of GPU pods pinned to one NodePool (child "Deployment"), plus an optional PDB ("Pdb").

    Each pod requests and limits ``nvidia.com/gpu: <gpus>``, ``cpu`` and ``memory`` (Guaranteed
    QoS), selects the pool with ``karpenter.sh/nodepool`` and tolerates exactly the pool's taints
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
    above the pool's GPU limit), KG561 (PDB on a training workload), KG562 (PDB minAvailable
    below 1, or at or above replicas > 0), KG120 (name), KG100/KG102 (other props).
    """

    __signature__ = ConstructSignature()

    def __init__(self, scope: Construct, id: str, *, props: GpuWorkloadProps | None = None,
                 **kwargs: Unpack[GpuWorkloadKwargs]) -> None:
        """Keyword props (``pool=`` …, see :class:`GpuWorkloadProps` for defaults) or ``props=``, not both (KG820)."""
        path = path_of(scope, id)
        self.props = build(GpuWorkloadProps, path, props, **kwargs)
        super().__init__(scope, id)
        p = self.props
        self.pool: NodePoolConstruct = p.pool
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
        placement = pod_placement(self.pool)
        resources = {"cpu": str(p.cpu), "memory": str(p.memory), GPU_RESOURCE: str(p.gpus)}
        obj = cdk8s.ApiObject.of(self.deployment)
        obj.add_json_patch(
            # cdk8s-plus takes only cpu/memory, so the whole block is set here. The generated
            # KubeDeployment maps quantities through `.value` after patches apply: plain strings
            # would be dropped, hence {"value": ...} (tests check the synthesized YAML).
            cdk8s.JsonPatch.add("/spec/template/spec/containers/0/resources",
                                {"limits": {k: {"value": v} for k, v in resources.items()},
                                 "requests": {k: {"value": v} for k, v in resources.items()}}),
            cdk8s.JsonPatch.add("/spec/template/spec/nodeSelector", placement["nodeSelector"]),
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
