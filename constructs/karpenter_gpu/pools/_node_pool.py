"""What every NodePool construct shares: the node template, its requirements and the budgets.

GPU pools (dynamic) and static pools differ only in the rest of the spec (limits, weight,
consolidation or replicas); the template, requirement derivation and budget compilation live here.
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping

from constructs import Construct
from pydantic import PrivateAttr, field_validator, model_validator
from typing_extensions import TypedDict

from karpenter_gpu.cluster import ScopedConstruct
from karpenter_gpu import _api_object
from karpenter_gpu._props import DnsLabel, Props, build, path_of
from karpenter_gpu._signature import ConstructSignature
from karpenter_gpu.crds.nodepool.sh.karpenter import NodePool
from karpenter_gpu.pools.disruption_window import Budget, DisruptionWindow, compile_budgets
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.check.findings import WINDOWS_ANNOTATION
from karpenter_gpu.pools.gpu_node_class import GpuNodeClass
from karpenter_gpu.k8s.accelerators import NVIDIA, Accelerator
from karpenter_gpu.k8s.requirements import LABEL_VALUE, CapacityType, Label, Requirement, check_label_key
from karpenter_gpu.k8s.taint import Taint
from karpenter_gpu.k8s.units import REPORTED_GPU_MEMORY_MIB, Duration, GpuMemory



#: ``kubernetes.io/arch`` values of AWS instance types (``AWSToKubeArchitectures``).
ARCHITECTURES = ("amd64", "arm64")

#: Node label the GPU Operator's placement selects on (seed 003).
GPU_OPERATOR_LABEL = ("gpu-operator", "enabled")


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
        return v

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
            if len(value) > 63 or not LABEL_VALUE.match(value):
                raise KarpenterGpuError("KG121", prop=f"labels[{key}]", value=value,
                                        allowed="a label value (≤63 chars, alphanumerics, '-', '_', '.')",
                                        fix="simplify the value")
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

    def render_template(self, node_class: GpuNodeClass) -> dict[str, Any]:
        """``spec.template``: what every node of the pool gets (changes here drift nodes)."""
        spec: dict = {
            "nodeClassRef": node_class.ref,
            "requirements": [r.render() for r in self.node_requirements],
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

    def __init__(self, scope: Construct, id: str, *, node_class: GpuNodeClass,
                 props: NodePoolProps | None = None, **values: Any) -> None:
        """Pass the props as keywords, or ``props=`` an already-validated props object (not both: KG820).

        Subclasses declare ``**kwargs: Unpack[<Construct>Kwargs]`` for type checkers and call this.
        """
        path = path_of(scope, id)
        if not isinstance(node_class, GpuNodeClass):
            raise KarpenterGpuError("KG100", prop="node_class", value=type(node_class).__name__,
                                    allowed="a GpuNodeClass construct (referenced by object, not by name)",
                                    fix="pass node_class=GpuNodeClass(...)", path=path)
        self.props = build(self.props_type, path, props, **values)
        self.node_class = node_class
        self._check_node_class(path)
        super().__init__(scope, id)
        notes = [f"budgets[{i}]: {b.note}" for i, b in enumerate(self.budgets) if b.note]
        self.resource = _api_object.create(
            self, binding=NodePool, name=self.props.name, spec=self._spec(),
            annotations={WINDOWS_ANNOTATION: "\n".join(notes)} if notes else None,
        )

    def _check_node_class(self, path: str) -> None:
        """Hook for pools that need something of their node class (before anything is built)."""

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
