"""What every NodePool construct shares: the node template, its requirements and the budgets.

GPU pools (dynamic) and static pools differ only in the rest of the spec (limits, weight,
consolidation or replicas); the template, requirement derivation and budget compilation live here.
"""

from __future__ import annotations

import difflib
from typing import Any, ClassVar, Mapping, TypeVar

from constructs import Construct
from pydantic import BaseModel, PrivateAttr, field_validator, model_validator
from typing_extensions import TypedDict

from karpenter_gpu.cluster import ScopedConstruct
from karpenter_gpu import _api_object
from karpenter_gpu._props import Props, build, DnsLabel
from karpenter_gpu._construct_tree import path_of
from karpenter_gpu._signature import ConstructSignature
from karpenter_gpu.analysis.catalog import default_catalog
from karpenter_gpu.crds.nodepool.sh.karpenter import NodePool
from karpenter_gpu.pools.disruption_window import Budget, DisruptionWindow, compile_budgets
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.pools.auto_mode_node_class import AutoModeNodeClass
from karpenter_gpu.pools.gpu_node_class import GpuNodeClass
from karpenter_gpu.k8s.auto_mode import AUTO_MODE_MAX_EXPIRY, beyond_auto_mode_lifetime, wrong_flavour_key
from karpenter_gpu.k8s.labels import auto_mode_key
from karpenter_gpu.k8s.names import check_zones
from karpenter_gpu.k8s.accelerators import NVIDIA, Accelerator
from karpenter_gpu.k8s.requirements import LABEL_VALUE, CapacityType, Label, Requirement, check_label_key, check_label_value
from karpenter_gpu.k8s.taint import Taint
from karpenter_gpu.k8s.units import REPORTED_GPU_MEMORY_MIB, Duration, GpuMemory
from karpenter_gpu.k8s.windows import window_annotation



#: ``kubernetes.io/arch`` values of AWS instance types (``AWSToKubeArchitectures``).
ARCHITECTURES = ("amd64", "arm64")

#: Node label the GPU Operator's placement selects on (seed 003).
GPU_OPERATOR_LABEL = ("gpu-operator", "enabled")

#: What a pool's ``node_class`` may be: a self-managed Karpenter ``EC2NodeClass`` or an EKS Auto Mode ``NodeClass``.
AnyNodeClass = GpuNodeClass | AutoModeNodeClass




def check_catalog_names(prop: str, names: tuple[str, ...], known: set[str], label: str,
                        example: str) -> tuple[str, ...]:
    """KG112 for a name no instance type of the catalog carries: a pool that selects it launches nothing.

    The names are the values of the ``karpenter.k8s.aws/{label}`` label that aws/karpenter-provider-aws
    v1.14.1 ``pkg/providers/instancetype/types.go`` ``computeRequirements`` sets from EC2's description,
    as the packaged catalog records them; the message names the closest known one.
    """
    for name in names:
        if name not in known:
            close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.5)
            raise KarpenterGpuError(
                "KG112", prop=prop, value=name,
                allowed=f"the {label} of an instance type in the catalog, one of {sorted(known)} (a name no "
                        "instance type carries admits nothing: the pool launches no node)",
                fix=(f"did you mean {close[0]!r}?" if close else f"use one of {sorted(known)}")
                    + f" (EC2's names, lower-case: {example})")
    return names


class NodePoolProps(Props):
    """The node template and disruption budgets of a GPU NodePool."""

    #: What the pool's nodes carry: its limit resource, selection labels and taint (Neuron pools override it).
    accelerator: ClassVar[Accelerator] = NVIDIA

    #: metadata.name of the NodePool (DNS-1123); pods select it with karpenter.sh/nodepool.
    name: DnsLabel
    #: ``instance-gpu-name In``. Names are lower-kebab as in the label (t4, a10g, l4, h100 …).
    gpu_names: tuple[str, ...]
    #: Minimum memory **per GPU** (``instance-gpu-memory Gte``, MiB). A10G and L4 report 22888 MiB,
    #: not 24 GiB: use ``GpuMemory.of_gpu("a10g")``. Default: - no minimum.
    min_gpu_memory: GpuMemory | None = None
    #: ``instance-size In``. Default: - any size.
    instance_sizes: tuple[str, ...] = ()
    #: ``topology.kubernetes.io/zone In``. Default: - every zone of the node class's subnets.
    zones: tuple[str, ...] = ()
    #: ``kubernetes.io/arch In``: ("amd64", "arm64") also admits the Graviton GPU types (g5g, T4G), whose
    #: workloads then need arm64 (or multi-arch) images. Default: ("amd64",).
    architectures: tuple[str, ...] = ("amd64",)
    capacity_types: tuple[CapacityType, ...]
    #: Extra requirements, appended after the derived ones. Default: - none.
    requirements: tuple[Requirement, ...] = ()
    #: Template labels (become node labels and requirements).
    labels: Mapping[str, str]
    #: Label nodes ``gpu-operator=enabled`` so the GPU Operator's operands (driver checks, device plugin,
    #: DCGM exporter) are placed on them; without a device plugin the node never reports its GPUs.
    #: Default: True.
    gpu_operator: bool = True
    #: Default: (Taint.gpu(),) — ``nvidia.com/gpu=true:NoSchedule``.
    taints: tuple[Taint, ...] = (Taint.gpu(),)
    #: Taints removed by a daemon once ready. Default: - none.
    startup_taints: tuple[Taint, ...] = ()
    #: Upstream default 720h is forceful; ``karpenter.sh/do-not-disrupt`` does not stop it.
    expire_after: Duration
    #: Longest a draining node waits for its pods (lets drift pass blocking PDBs and do-not-disrupt).
    #: Default: - none: Karpenter waits for the drain indefinitely.
    termination_grace_period: Duration | None = None
    #: UTC budgets as Karpenter reads them. Default: one budget of 1 node.
    budgets: tuple[Budget, ...] = (Budget(nodes=1),)
    #: Local-time windows compiled to UTC budgets after ``budgets``. Default: - none.
    disruption_windows: tuple[DisruptionWindow, ...] = ()

    # Derived once, during validation; the construct renders from these.
    _requirements: tuple[Requirement, ...] = PrivateAttr(())
    _budgets: tuple[Budget, ...] = PrivateAttr(())

    @field_validator("gpu_names")
    @classmethod
    def _gpu_names(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if not v or any(not n or n != n.lower() or not LABEL_VALUE.match(n) for n in v):
            raise KarpenterGpuError("KG110", prop="gpu_names", value=list(v),
                                    allowed="one or more lower-case GPU names as in instance-gpu-name "
                                            f"(known: {sorted(REPORTED_GPU_MEMORY_MIB)})",
                                    fix="e.g. gpu_names=('a10g', 'l4')")
        return check_catalog_names("gpu_names", v, {t.gpu_name for t in default_catalog() if t.gpu_name},
                                   "instance-gpu-name", "'a10g' for the A10G of g5, 'l40s' for g6e")

    @field_validator("zones")
    @classmethod
    def _zones(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        return check_zones(v)

    @field_validator("architectures")
    @classmethod
    def _architectures(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        # aws/karpenter-provider-aws pkg/apis/v1/labels.go AWSToKubeArchitectures: x86_64 -> amd64, arm64.
        if len(set(v)) != len(v) or not set(v) <= set(ARCHITECTURES):  # () renders no arch requirement
            raise KarpenterGpuError("KG264", prop="architectures", value=list(v),
                                    allowed=f"one or more distinct of {list(ARCHITECTURES)} (the kubernetes.io/arch "
                                            "values Karpenter sets on AWS instance types)",
                                    fix="e.g. architectures=('amd64', 'arm64') to admit g5g as well")
        return v

    @field_validator("capacity_types")
    @classmethod
    def _capacity(cls, v: tuple[CapacityType, ...]) -> tuple[CapacityType, ...]:
        if not v or len(set(v)) != len(v):
            raise KarpenterGpuError("KG132", prop="capacity_types", value=[str(c) for c in v],
                                    allowed="one or more distinct of reserved, spot, on-demand",
                                    fix="e.g. (CapacityType.SPOT, CapacityType.ON_DEMAND)")
        return v

    @field_validator("labels")
    @classmethod
    def _labels(cls, v: Mapping[str, str]) -> dict[str, str]:
        for key, value in v.items():
            try:
                check_label_key(key, prop="labels")
            except KarpenterGpuError as err:
                raise err.at(prop="labels") from None
            check_label_value(value, f"labels[{key}]", "KG121")
        if len(v) > 100:
            raise KarpenterGpuError("KG121", prop="labels", value=len(v), allowed="at most 100 labels",
                                    fix="drop labels")
        return dict(v)

    @field_validator("termination_grace_period")
    @classmethod
    def _grace(cls, v: Duration | None) -> Duration | None:
        if v is not None and v.is_never:
            raise KarpenterGpuError("KG101", prop="termination_grace_period", value=str(v),
                                    allowed="a duration such as '2h' (the CRD pattern ^([0-9]+(s|m|h))+$ has no "
                                            "'Never'); leaving it unset already waits for the drain indefinitely",
                                    fix="drop termination_grace_period, or pass Duration.hours(2)")
        return v

    @field_validator("expire_after")
    @classmethod
    def _expiry(cls, v: Duration) -> Duration:
        if not v.is_never and v.total_seconds == 0:
            raise KarpenterGpuError("KG160", prop="expire_after", value=str(v),
                                    allowed="a positive duration or Duration.never(): 0s expires every node as soon as "
                                            "it launches, so the pool replaces its nodes in a loop",
                                    fix="e.g. expire_after=Duration.days(14), or Duration.never()")
        return v

    @model_validator(mode="after")
    def _unique_taints(self) -> "NodePoolProps":
        # kubernetes-sigs/karpenter pkg/apis/v1/nodeclaim_validation.go validateTaints: one (key, effect)
        # across taints and startupTaints, else the NodePool is not Ready (the API server accepts it).
        seen: dict[tuple[str, str], str] = {}
        for prop, taints in (("taints", self.taints), ("startup_taints", self.startup_taints)):
            for i, taint in enumerate(taints):
                key = (taint.key, str(taint.effect))
                if key in seen:
                    raise KarpenterGpuError(
                        "KG121", prop=f"{prop}[{i}]", value=f"{taint.key}:{taint.effect}",
                        allowed=f"one taint per key and effect across taints and startup_taints ({seen[key]} has it "
                                "already): Karpenter marks the NodePool not ready and launches nothing",
                        fix="drop the duplicate, or give it another effect")
                seen[key] = f"{prop}[{i}]"
        return self

    @model_validator(mode="after")
    def _derive(self) -> "NodePoolProps":
        if self.min_gpu_memory is not None:
            known = {n: REPORTED_GPU_MEMORY_MIB[n] for n in self.gpu_names if n in REPORTED_GPU_MEMORY_MIB}
            if known and len(known) == len(self.gpu_names) and all(m < self.min_gpu_memory.in_mib for m in known.values()):
                raise KarpenterGpuError(
                    "KG103", prop="min_gpu_memory", value=self.min_gpu_memory.in_mib,
                    allowed=f"at most the per-GPU memory EC2 reports for gpu_names ({known} MiB); "
                            "no instance type would match",
                    fix="use GpuMemory.of_gpu(<name>) rather than the marketing size (A10G/L4 '24 GB' = 22888 MiB)")
        self._budgets = compile_budgets(self.all_budgets(), self.disruption_windows)
        self._requirements = self._derive_requirements()
        count = len(self.node_labels) + len(self._requirements)
        if count > 100:
            raise KarpenterGpuError("KG110", prop="requirements", value=count,
                                    allowed="labels + requirements ≤ 100 (labels become requirements)",
                                    fix="drop requirements")
        return self

    @property
    def node_labels(self) -> dict[str, str]:
        """The template labels as rendered: ``labels`` plus the GPU Operator placement label."""
        key, value = GPU_OPERATOR_LABEL
        if not self.gpu_operator or key in self.labels:  # an explicit label (e.g. "disabled") wins
            return dict(self.labels)
        return {**self.labels, key: value}

    def all_budgets(self) -> tuple[Budget, ...]:
        """The UTC budgets before windows are appended."""
        return self.budgets

    @property
    def node_requirements(self) -> tuple[Requirement, ...]:
        """Derived requirements, then the extra ``requirements``."""
        return self._requirements

    @property
    def compiled_budgets(self) -> tuple[Budget, ...]:
        """Every budget as rendered: the UTC budgets, then the compiled windows."""
        return self._budgets

    def _selection_requirements(self) -> list[Requirement]:
        """The requirements that pick the accelerator (Neuron pools select by accelerator labels instead)."""
        out = [Requirement.gt(Label.GPU_COUNT, 0),  # also keeps out g6f/gr6f, which report 0 GPUs
               Requirement.in_(Label.GPU_NAME, self.gpu_names)]
        if self.min_gpu_memory is not None:
            out.append(Requirement.gte(Label.GPU_MEMORY, self.min_gpu_memory))
        return out

    def _derive_requirements(self) -> tuple[Requirement, ...]:
        out = self._selection_requirements()
        if self.instance_sizes:
            out.append(Requirement.in_(Label.INSTANCE_SIZE, self.instance_sizes))
        if self.zones:
            out.append(Requirement.in_(Label.ZONE, self.zones))
        if self.architectures:
            out.append(Requirement.in_(Label.ARCH, self.architectures))
        out.append(Requirement.in_(Label.CAPACITY_TYPE, [str(c) for c in self.capacity_types]))
        return tuple(out) + self.requirements

    def render_template(self, node_class: AnyNodeClass) -> dict[str, Any]:
        """``spec.template``: what every node of the pool gets (changes here drift nodes). On an Auto Mode node
        class the instance-attribute keys are rendered in Auto Mode's spelling (``eks.amazonaws.com/…``)."""
        rename = auto_mode_key if isinstance(node_class, AutoModeNodeClass) else str
        spec: dict = {
            "nodeClassRef": node_class.ref,
            "requirements": [{**r.render(), "key": rename(r.key)} for r in self.node_requirements],
            "taints": [t.render() for t in self.taints],
        }
        if self.startup_taints:
            spec["startupTaints"] = [t.render() for t in self.startup_taints]
        spec["expireAfter"] = str(self.expire_after)
        if self.termination_grace_period is not None:
            spec["terminationGracePeriod"] = str(self.termination_grace_period)
        return {"metadata": {"labels": self.node_labels}, "spec": spec}


class _TemplateBaseKwargs(TypedDict, total=False):
    # NodePoolProps without expire_after, whose type the training pool narrows (a TypedDict key cannot
    # be re-declared in a subclass), and without the GPU selection, which Neuron pools replace.
    name: str
    instance_sizes: tuple[str, ...]
    zones: tuple[str, ...]
    architectures: tuple[str, ...]
    capacity_types: tuple[CapacityType, ...]
    requirements: tuple[Requirement, ...]
    labels: Mapping[str, str]
    taints: tuple[Taint, ...]
    startup_taints: tuple[Taint, ...]
    termination_grace_period: Duration | None
    budgets: tuple[Budget, ...]
    disruption_windows: tuple[DisruptionWindow, ...]


class _NodePoolTemplateKwargs(_TemplateBaseKwargs, total=False):
    gpu_names: tuple[str, ...]
    min_gpu_memory: GpuMemory | None
    gpu_operator: bool


class NodePoolKwargs(_NodePoolTemplateKwargs, total=False):
    """The keyword props of a NodePool construct: the fields of :class:`NodePoolProps`, same types."""

    expire_after: Duration


class NodePoolConstruct(ScopedConstruct):
    """Validates props, then renders one NodePool as child "Resource". Subclasses write ``_spec``."""

    props_type: ClassVar[type[NodePoolProps]] = NodePoolProps
    __signature__ = ConstructSignature()

    def __init__(self, scope: Construct, id: str, *, node_class: GpuNodeClass | AutoModeNodeClass,
                 props: NodePoolProps | None = None, **values: Any) -> None:
        """Pass the props as keywords, or ``props=`` an already-validated props object (not both: KG820).

        Subclasses declare ``**kwargs: Unpack[<Construct>Kwargs]`` for type checkers and call this.
        """
        path = path_of(scope, id)
        check_node_class(node_class, path)
        self.props = auto_mode_defaults(build(self.props_type, path, props, **values), node_class)
        self.node_class = node_class
        if isinstance(node_class, AutoModeNodeClass):
            check_auto_mode(self.props, path)
        else:
            _check_no_auto_mode_keys(self.props, path)
        self._check_node_class(path)
        super().__init__(scope, id)
        self.resource = _api_object.create(
            self, binding=NodePool, name=self.props.name, spec=self._spec(),
            annotations=window_annotation({i: b.note for i, b in enumerate(self.budgets) if b.note}),
        )

    def _check_node_class(self, path: str) -> None:
        """Hook for pools that need something of their node class (before anything is built)."""

    @property
    def auto_mode(self) -> bool:
        """The pool runs on EKS Auto Mode (its node class is an :class:`AutoModeNodeClass`): AWS runs Karpenter,
        the NVIDIA driver and device plugin there, so no controller values, feature gates or GPU Operator."""
        return isinstance(self.node_class, AutoModeNodeClass)

    def _spec(self) -> dict:
        raise NotImplementedError

    def _disruption(self, **head: str) -> dict:
        return {**head, "budgets": [b.render() for b in self.budgets]}

    @property
    def name(self) -> str:
        return self.props.name

    @property
    def taints(self) -> tuple[Taint, ...]:
        return self.props.taints

    @property
    def budgets(self) -> tuple[Budget, ...]:
        return self.props.compiled_budgets


def check_node_class(node_class: Any, path: str) -> None:
    """KG100 unless ``node_class`` is a node class construct (by object, not by name)."""
    if not isinstance(node_class, (GpuNodeClass, AutoModeNodeClass)):
        raise KarpenterGpuError("KG100", prop="node_class", value=type(node_class).__name__,
                                allowed="a GpuNodeClass or AutoModeNodeClass construct (referenced by object, not by "
                                        "name)",
                                fix="pass node_class=GpuNodeClass(...) or node_class=AutoModeNodeClass(...)", path=path)


def _own_keys(props: NodePoolProps) -> list[tuple[str, str]]:
    """(prop, key) of the keys the user wrote: extra requirements and template labels."""
    return ([(f"requirements[{i}]", r.key) for i, r in enumerate(props.requirements)]
            + [(f"labels[{k}]", k) for k in props.labels])


P = TypeVar("P", bound=BaseModel)


def auto_mode_defaults(props: P, node_class: Any) -> P:
    """On an Auto Mode node class, the defaults that differ: ``expire_after`` 21 days (Auto Mode's cap, rendered
    explicitly, instead of the pools' 720h) and no ``gpu-operator`` label (:func:`check_auto_mode`). Explicit
    values are kept (and checked). Pool groups (static, tiered) apply it before fanning out."""
    if not isinstance(node_class, AutoModeNodeClass):
        return props
    update: dict[str, Any] = {}
    if "expire_after" not in props.model_fields_set:
        update["expire_after"] = AUTO_MODE_MAX_EXPIRY
    if "gpu_operator" in type(props).model_fields and "gpu_operator" not in props.model_fields_set:
        update["gpu_operator"] = False
    return props.model_copy(update=update) if update else props


def check_auto_mode(props: NodePoolProps, path: str) -> None:
    """The Auto Mode rules for a pool's props (after :func:`auto_mode_defaults`).

    - ``expire_after`` at most 21 days, and not ``Never``: Auto Mode replaces every node after 21 days whatever
      the NodePool says (KG205).
    - Keys in Auto Mode's spelling: ``karpenter.k8s.aws/…`` keys are not among the labels Auto Mode documents
      ("EKS Auto Mode uses different labels than Karpenter",
      https://docs.aws.amazon.com/eks/latest/userguide/auto-migrate-karpenter.html), KG206.
    - No GPU Operator: Auto Mode ships the NVIDIA driver and device plugin in its read-only Bottlerocket image
      (https://docs.aws.amazon.com/eks/latest/userguide/auto-accelerated.html); a second device plugin would
      advertise the same GPUs (KG207).
    - NVIDIA pools only: a Neuron pool selects by ``karpenter.k8s.aws/instance-accelerator-*`` labels, which have
      no documented Auto Mode spelling (KG265).
    """
    if props.accelerator is not NVIDIA:
        raise KarpenterGpuError(
            "KG265", prop="node_class", value="AutoModeNodeClass",
            allowed="a GpuNodeClass (EC2NodeClass): a Neuron pool selects instance types by "
                    "karpenter.k8s.aws/instance-accelerator-* labels, and EKS Auto Mode documents no such label, so "
                    "on Auto Mode the pool would match no node",
            fix="run Neuron pools on a GpuNodeClass", path=path)
    expiry = props.expire_after
    if expiry is not None and beyond_auto_mode_lifetime(expiry):
        raise KarpenterGpuError(
            "KG205", prop="expire_after", value=str(expiry),
            allowed=f"at most {AUTO_MODE_MAX_EXPIRY} (21 days): EKS Auto Mode terminates every node after 21 days "
                    "whatever the NodePool says, so a longer expireAfter or Never only hides when nodes go",
            fix="pass expire_after=Duration.days(14) (or up to Duration.days(21)) and plan restarts (checkpoints, "
                "terminationGracePeriod) around it", path=path)
    for prop, key in _own_keys(props):
        wrong = wrong_flavour_key(key, auto_mode=True, requirement=prop.startswith("requirements"))
        if wrong is not None:
            raise KarpenterGpuError(
                "KG206", prop=prop, value=key,
                allowed="Auto Mode's label keys (eks.amazonaws.com/…, well-known Kubernetes keys, your own): Auto Mode "
                        "documents no karpenter.k8s.aws labels, so this would not select what it says",
                fix=f"use {wrong.replacement}" if wrong.replacement else "drop it (Auto Mode documents no equivalent)",
                path=path)
    key, value = GPU_OPERATOR_LABEL
    if props.gpu_operator or props.labels.get(key) == value:
        raise KarpenterGpuError(
            "KG207", prop="gpu_operator" if key not in props.labels else f"labels[{key}]", value=True,
            allowed="no GPU Operator on EKS Auto Mode nodes: the AWS-managed NVIDIA driver and device plugin run "
                    "there, the root file system is read-only and the operator's device plugin would be a second "
                    "one on the same GPUs",
            fix="drop gpu_operator / the gpu-operator label: GpuOperatorValues leaves Auto Mode pools out", path=path)


def _check_no_auto_mode_keys(props: NodePoolProps, path: str) -> None:
    """KG206 for eks.amazonaws.com instance keys on a self-managed pool: Karpenter does not know them, so the
    requirement selects no instance types (``Requirements.Intersects`` only compares keys both sides define) and a
    single ``In`` value becomes a label on every node, true or not."""
    for prop, key in _own_keys(props):
        wrong = wrong_flavour_key(key, auto_mode=False, requirement=prop.startswith("requirements"))
        if wrong is not None:
            raise KarpenterGpuError(
                "KG206", prop=prop, value=key,
                allowed="Karpenter's label keys on a GpuNodeClass pool: eks.amazonaws.com/… keys are EKS Auto Mode's, "
                        "self-managed Karpenter does not set or select on them",
                fix=f"use {wrong.replacement}" if wrong.replacement else
                    "drop it, or use node_class=AutoModeNodeClass(...)",
                path=path)
