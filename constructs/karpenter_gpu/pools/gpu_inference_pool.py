"""GpuInferencePool → NodePool for stateless GPU inference (seed "gpu-inference", corrected)."""

from __future__ import annotations

from karpenter_gpu.pools.auto_mode_node_class import AutoModeNodeClass
from karpenter_gpu.pools.gpu_node_class import GpuNodeClass


from typing import ClassVar, Mapping

from constructs import Construct
from typing_extensions import Unpack

from karpenter_gpu.pools._gpu_pool import ConsolidationPolicy, GpuPool, GpuPoolKwargs, GpuPoolProps
from karpenter_gpu.k8s.requirements import CapacityType
from karpenter_gpu.k8s.units import Duration


class GpuInferencePoolProps(GpuPoolProps):
    """Inference defaults: cheap GPUs, spot first with on-demand fallback, consolidate when idle."""

    #: Default: ("t4", "a10g", "l4").
    gpu_names: tuple[str, ...] = ("t4", "a10g", "l4")
    #: Default: (spot, on-demand) — Karpenter prefers spot and falls back to on-demand.
    capacity_types: tuple[CapacityType, ...] = (CapacityType.SPOT, CapacityType.ON_DEMAND)
    #: Default: {"node-type": "gpu-inference", "workload": "inference"}.
    labels: Mapping[str, str] = {"node-type": "gpu-inference", "workload": "inference"}
    #: Default: 60.
    weight: int = 60
    #: Default: WhenEmptyOrUnderutilized.
    consolidation_policy: ConsolidationPolicy = ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED
    #: Default: 5m (never the implicit 0s of an omitted disruption block).
    consolidate_after: Duration = Duration.minutes(5)
    #: Default: 720h, rendered explicitly (the upstream default; forceful).
    expire_after: Duration = Duration.hours(720)


class GpuInferencePoolKwargs(GpuPoolKwargs, total=False):
    """The keyword props of :class:`GpuInferencePool`: the fields of :class:`GpuInferencePoolProps`."""


class GpuInferencePool(GpuPool):
    """A NodePool for GPU inference, described by instance properties rather than names.

    Renders ``instance-gpu-count Gt 0`` (which also keeps out g6f, reporting 0 GPUs), GPU names,
    optional per-GPU memory / sizes / zones / architectures, spot with on-demand fallback, the
    ``nvidia.com/gpu=true:NoSchedule`` taint, a mandatory GPU limit and an explicit
    ``WhenEmptyOrUnderutilized`` consolidation.

    Example::

        GpuInferencePool(chart, "Inference", node_class=gpu_class, name="gpu-inference", gpu_limit=16)
    """

    props_type: ClassVar[type[GpuPoolProps]] = GpuInferencePoolProps
    props: GpuInferencePoolProps

    def __init__(self, scope: Construct, id: str, *, node_class: GpuNodeClass | AutoModeNodeClass,
                 props: GpuInferencePoolProps | None = None, **kwargs: Unpack[GpuInferencePoolKwargs]) -> None:
        """Keyword props (see :class:`GpuInferencePoolProps` for defaults) or ``props=``, not both (KG820)."""
        super().__init__(scope, id, node_class=node_class, props=props, **kwargs)
