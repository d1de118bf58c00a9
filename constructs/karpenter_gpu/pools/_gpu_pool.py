"""What GpuInferencePool and GpuTrainingPool share: a dynamic, GPU-bounded, weighted NodePool."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, ClassVar

from pydantic import field_validator
from typing_extensions import TypedDict

from karpenter_gpu.pools._node_pool import NodePoolConstruct, NodePoolProps, _NodePoolTemplateKwargs
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.feature_gates import FeatureGate, require_feature_gate
from karpenter_gpu.k8s.requirements import CapacityType
from karpenter_gpu.k8s.units import Duration, Quantity


class ConsolidationPolicy(StrEnum):
    WHEN_EMPTY = "WhenEmpty"
    WHEN_EMPTY_OR_UNDERUTILIZED = "WhenEmptyOrUnderutilized"
    BALANCED = "Balanced"


class GpuPoolProps(NodePoolProps):
    """Props common to the dynamic GPU pools. Subclasses set the defaults of their workload."""

    #: Most GPUs the pool may run (``limits.nvidia.com/gpu``). Required: no unbounded GPU pool.
    #: Limits are eventually consistent and can overrun briefly during fast scale-out.
    gpu_limit: int
    #: Also cap vCPUs / memory. Default: - none.
    cpu_limit: Quantity | None = None
    memory_limit: Quantity | None = None
    #: Pool priority, 1..100 (higher first). An unset weight is 0: the last resort.
    weight: int
    consolidation_policy: ConsolidationPolicy
    #: Always rendered: the timer resets whenever a pod lands on or leaves the node.
    consolidate_after: Duration

    # mode="before": pydantic's lax mode would turn True into 1 before an after-validator sees it.
    @field_validator("gpu_limit", mode="before")
    @classmethod
    def _gpu_limit(cls, v: Any) -> int:
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise KarpenterGpuError("KG130", prop="gpu_limit", value=v,
                                    allowed="an integer ≥ 1 (limits.nvidia.com/gpu); a GPU pool must be bounded",
                                    fix="set gpu_limit to the most GPUs this pool may run, e.g. gpu_limit=16")
        return v

    @property
    def accelerator_limit(self) -> int:
        """The pool's limit on its accelerator resource (``limits[accelerator.resource]``)."""
        return self.gpu_limit

    @field_validator("cpu_limit", "memory_limit")
    @classmethod
    def _positive_limit(cls, v: Quantity | None, info: Any) -> Quantity | None:
        if v is not None and v.as_decimal() <= 0:
            raise KarpenterGpuError("KG102", prop=info.field_name, value=str(v),
                                    allowed="a positive quantity: a limit of 0 (or below) lets the pool launch no node "
                                            "at all, and the API server accepts it",
                                    fix="e.g. cpu_limit='256', memory_limit='1Ti', or leave it unset for no limit")
        return v

    @field_validator("weight", mode="before")
    @classmethod
    def _weight(cls, v: Any) -> int:
        if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= 100:
            raise KarpenterGpuError("KG131", prop="weight", value=v,
                                    allowed="1..100 (the CRD maximum; 0 or unset makes the pool the last resort)",
                                    fix="pick 1..100, higher is tried first")
        return v


class _DynamicKwargs(TypedDict, total=False):
    # The limits and disruption of a dynamic pool, whatever its accelerator.
    cpu_limit: Quantity | None
    memory_limit: Quantity | None
    weight: int
    consolidation_policy: ConsolidationPolicy
    consolidate_after: Duration


class _GpuPoolLimitsKwargs(_NodePoolTemplateKwargs, _DynamicKwargs, total=False):
    gpu_limit: int


class GpuPoolKwargs(_GpuPoolLimitsKwargs, total=False):
    """The keyword props of a dynamic GPU pool: the fields of :class:`GpuPoolProps`, same types."""

    expire_after: Duration


class GpuPool(NodePoolConstruct):
    """Base construct for dynamic GPU NodePools. Use :class:`GpuInferencePool` or :class:`GpuTrainingPool`."""

    props_type: ClassVar[type[GpuPoolProps]] = GpuPoolProps
    props: GpuPoolProps

    def _spec(self) -> dict:
        p = self.props
        if CapacityType.RESERVED in p.capacity_types and not self.auto_mode:  # AWS runs Auto Mode's controller
            require_feature_gate(self, FeatureGate.RESERVED_CAPACITY, f"NodePool {p.name} offers reserved capacity")
        limits = {p.accelerator.resource: str(p.accelerator_limit)}
        if p.cpu_limit is not None:
            limits["cpu"] = str(p.cpu_limit)
        if p.memory_limit is not None:
            limits["memory"] = str(p.memory_limit)
        return {
            "template": p.render_template(self.node_class),
            "disruption": self._disruption(consolidationPolicy=str(p.consolidation_policy),
                                           consolidateAfter=str(p.consolidate_after)),
            "limits": limits,
            "weight": p.weight,
        }
