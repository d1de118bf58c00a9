"""GpuTrainingPool → NodePool for long-running GPU training (seed "gpu-training", corrected)."""

from __future__ import annotations

from karpenter_gpu.pools.auto_mode_node_class import AutoModeNodeClass
from karpenter_gpu.pools.gpu_node_class import GpuNodeClass

from typing import ClassVar, Mapping

from constructs import Construct
from pydantic import model_validator
from typing_extensions import Unpack

from karpenter_gpu.pools._gpu_pool import ConsolidationPolicy, GpuPool, GpuPoolProps, _GpuPoolLimitsKwargs
from karpenter_gpu.pools.disruption_window import Budget, DisruptionReason
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.requirements import CapacityType
from karpenter_gpu.k8s.units import Duration


class GpuTrainingPoolProps(GpuPoolProps):
    """Training defaults: big GPUs, on-demand, consolidate only empty nodes, explicit expiry."""

    #: Default: ("a100", "h100", "h200", "b200").
    gpu_names: tuple[str, ...] = ("a100", "h100", "h200", "b200")
    #: Default: (on-demand,). Spot is an explicit choice: EC2 reclaims spot with a 2-minute notice,
    #: so only jobs that checkpoint more often than that belong on it (and the controller needs an
    #: interruption queue to see the notice at all).
    capacity_types: tuple[CapacityType, ...] = (CapacityType.ON_DEMAND,)
    #: Default: {"node-type": "gpu-training", "workload": "training"}.
    labels: Mapping[str, str] = {"node-type": "gpu-training", "workload": "training"}
    #: Default: 90.
    weight: int = 90
    #: Default: WhenEmpty (never consolidate a node that still runs a job).
    consolidation_policy: ConsolidationPolicy = ConsolidationPolicy.WHEN_EMPTY
    #: Default: 30m.
    consolidate_after: Duration = Duration.minutes(30)
    #: Required, no default: pass ``Duration.never()`` for no expiry. 720h (the upstream default) is
    #: not "no expiry": expiry is forceful and ``karpenter.sh/do-not-disrupt`` does not stop it.
    expire_after: Duration | None = None  # type: ignore[assignment]  # None only to refuse it with a coded error
    #: Voluntary disruption for every reason. Default: one budget of 1 node for Empty/Underutilized.
    budgets: tuple[Budget, ...] = (Budget(nodes=1, reasons=(DisruptionReason.EMPTY, DisruptionReason.UNDERUTILIZED)),)
    #: Drift (AMI, node class or template changes) gets its own budget. Default: 1 node at a time.
    drift_budget: Budget | None = Budget(nodes=1, reasons=(DisruptionReason.DRIFTED,))

    @model_validator(mode="before")
    @classmethod
    def _expiry_required(cls, data: dict) -> dict:
        if isinstance(data, dict) and data.get("expire_after") is None:
            raise KarpenterGpuError(
                "KG160", prop="expire_after", value=None,
                allowed="an explicit choice: Duration.never() for no expiry, or a lifetime such as Duration.days(14)",
                fix="pass expire_after=Duration.never() (720h is the upstream default and is forceful: "
                    "karpenter.sh/do-not-disrupt does not stop expiry)")
        return data

    @model_validator(mode="after")
    def _drift_budget(self) -> "GpuTrainingPoolProps":
        if self.drift_budget is not None and tuple(self.drift_budget.reasons) != (DisruptionReason.DRIFTED,):
            raise KarpenterGpuError("KG153", prop="drift_budget", value=[str(r) for r in self.drift_budget.reasons],
                                    allowed="reasons=(Drifted,)", fix="use Budget(nodes=1, reasons=('Drifted',))")
        return self

    def all_budgets(self) -> tuple[Budget, ...]:
        return self.budgets + ((self.drift_budget,) if self.drift_budget else ())


class GpuTrainingPoolKwargs(_GpuPoolLimitsKwargs, total=False):
    """The keyword props of :class:`GpuTrainingPool`: the fields of :class:`GpuTrainingPoolProps`, same types."""

    expire_after: Duration | None
    drift_budget: Budget | None


class GpuTrainingPool(GpuPool):
    """A NodePool for GPU training: on-demand, ``WhenEmpty``, explicit expiry, protected hours.

    Block voluntary disruption during training hours with local-time
    ``disruption_windows=(DisruptionWindow(days="MON-FRI", start="09:00", end="19:00",
    time_zone="Asia/Seoul", nodes=0),)``; drift is handled by ``drift_budget``.
    """

    props_type: ClassVar[type[GpuPoolProps]] = GpuTrainingPoolProps
    props: GpuTrainingPoolProps

    def __init__(self, scope: Construct, id: str, *, node_class: GpuNodeClass | AutoModeNodeClass,
                 props: GpuTrainingPoolProps | None = None, **kwargs: Unpack[GpuTrainingPoolKwargs]) -> None:
        """Keyword props (see :class:`GpuTrainingPoolProps` for defaults) or ``props=``, not both (KG820)."""
        super().__init__(scope, id, node_class=node_class, props=props, **kwargs)
