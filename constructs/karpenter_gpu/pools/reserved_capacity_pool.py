"""ReservedCapacityPool → NodePool that launches into ODCRs or Capacity Blocks first."""

from __future__ import annotations

from karpenter_gpu.pools.auto_mode_node_class import AutoModeNodeClass
from karpenter_gpu.pools.gpu_node_class import GpuNodeClass

from enum import StrEnum
from typing import Any, ClassVar

from constructs import Construct
from pydantic import model_validator
from typing_extensions import Unpack

from karpenter_gpu._props import check_known
from karpenter_gpu.pools.capacity_reservation import ReservationType, prefer_reserved_capacity
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.pools.gpu_training_pool import GpuTrainingPool, GpuTrainingPoolKwargs, GpuTrainingPoolProps
from karpenter_gpu.k8s.labels import Label
from karpenter_gpu.k8s.requirements import CapacityType, Requirement
from karpenter_gpu.pools._node_pool import NodePoolConstruct

_RESERVATION_TYPE = Label.CAPACITY_RESERVATION_TYPE


class Fallback(StrEnum):
    """What the pool may launch when the reservations are full or gone."""

    NONE = "none"
    SPOT = "spot"
    ON_DEMAND = "on-demand"
    SPOT_AND_ON_DEMAND = "spot-and-on-demand"


_FALLBACK_TYPES = {
    Fallback.NONE: (),
    Fallback.SPOT: (CapacityType.SPOT,),
    Fallback.ON_DEMAND: (CapacityType.ON_DEMAND,),
    Fallback.SPOT_AND_ON_DEMAND: (CapacityType.SPOT, CapacityType.ON_DEMAND),
}


class ReservedCapacityPoolProps(GpuTrainingPoolProps):
    """Training-pool props whose capacity types are derived: ``reserved`` plus the fallback."""

    #: Required: an explicit choice of what happens when reservations are exhausted or expire.
    fallback: Fallback
    #: Restrict to ODCRs (``default``) or Capacity Blocks. Default: - either.
    reservation_type: ReservationType | None = None
    #: Derived from ``fallback``; do not set.
    capacity_types: tuple[CapacityType, ...] = (CapacityType.RESERVED,)
    #: Default: 100, the highest weight a NodePool may have, so the paid-for reservations are tried before
    #: every pool of the other defaults (training 90, inference 60, MIG 50). Karpenter orders pools by
    #: weight, equal weights by name in reverse (``pkg/utils/nodepool/nodepool.go`` ``OrderByWeight``,
    #: v1.14.1): at a shared 90, ``gpu-training`` would launch on-demand before ``gpu-reserved`` is tried.
    weight: int = 100

    @model_validator(mode="before")
    @classmethod
    def _derive_capacity(cls, data: Any) -> Any:
        if isinstance(data, dict):
            check_known(cls, data)  # a misspelt fallback is a typo, not a missing fallback
            if "capacity_types" in data:
                raise KarpenterGpuError("KG192", prop="capacity_types", value=data["capacity_types"],
                                        allowed="derived: reserved plus the fallback",
                                        fix="drop capacity_types and choose fallback=Fallback.ON_DEMAND (or NONE, "
                                            "SPOT, SPOT_AND_ON_DEMAND)")
            if data.get("fallback") is None:
                raise KarpenterGpuError("KG192", prop="fallback", value=None,
                                        allowed=f"one of {[f.value for f in Fallback]}",
                                        fix="choose what runs when the reservation is full or has ended, "
                                            "e.g. fallback=Fallback.ON_DEMAND")
            data = {**data, "capacity_types": (CapacityType.RESERVED,) + _FALLBACK_TYPES[Fallback(data["fallback"])]}
        return data

    def _derive_requirements(self) -> tuple[Requirement, ...]:
        out = super()._derive_requirements()
        if self.reservation_type is None:
            return out
        # The reservation labels exist only on reserved nodes. NotIn matches an absent label, so
        # excluding the *other* type keeps fallback (spot/on-demand) instances admissible; an
        # `In [<type>]` would silently disable the fallback.
        other = next(t for t in ReservationType if t != self.reservation_type)
        return out + (Requirement.not_in(_RESERVATION_TYPE, [str(other)]),)


class ReservedCapacityPoolKwargs(GpuTrainingPoolKwargs, total=False):
    """The keyword props of :class:`ReservedCapacityPool`: the fields of :class:`ReservedCapacityPoolProps`."""

    fallback: Fallback
    reservation_type: ReservationType | None


class ReservedCapacityPool(GpuTrainingPool):
    """A GPU NodePool that offers ``reserved`` capacity first (Karpenter prefers reserved > spot > on-demand).

    Its node class must select the reservations (``GpuNodeClass(capacity_reservations=...)`` or
    ``AutoModeNodeClass(capacity_reservations=...)``): open ODCRs are never used implicitly (on Auto Mode, once
    any NodeClass selects reservations, https://docs.aws.amazon.com/eks/latest/userguide/auto-odcr.html). ``fallback`` decides what launches when they are full
    or have ended. Pods should *prefer* reserved nodes (:meth:`pod_affinity`), not require them,
    so they survive the end of a reservation.

    Capacity Blocks end early: EC2 terminates instances 30 minutes before the block's end (60 for
    UltraServers) and Karpenter drains 10 minutes before that. Needs the ``reservedCapacity``
    feature gate (on by default since v1.6) on self-managed Karpenter; not on Auto Mode.
    """

    props_type: ClassVar[type[ReservedCapacityPoolProps]] = ReservedCapacityPoolProps
    props: ReservedCapacityPoolProps

    def __init__(self, scope: Construct, id: str, *, node_class: GpuNodeClass | AutoModeNodeClass,
                 props: ReservedCapacityPoolProps | None = None, **kwargs: Unpack[ReservedCapacityPoolKwargs]) -> None:
        """Keyword props (see :class:`ReservedCapacityPoolProps` for defaults) or ``props=``, not both (KG820)."""
        # Straight to the shared constructor: GpuTrainingPool.__init__ is typed for GpuTrainingPoolKwargs,
        # which lacks fallback and reservation_type (it only forwards, as this does).
        NodePoolConstruct.__init__(self, scope, id, node_class=node_class, props=props, **kwargs)

    def _check_node_class(self, path: str) -> None:
        if self.auto_mode and self.props.reservation_type is not None:
            # Auto Mode documents no capacity-reservation-type label (create-node-pool.html's supported list).
            raise KarpenterGpuError(
                "KG208", prop="reservation_type", value=str(self.props.reservation_type),
                allowed="None on EKS Auto Mode: it documents no label telling ODCRs from Capacity Blocks "
                        "(karpenter.k8s.aws/capacity-reservation-type has no eks.amazonaws.com spelling)",
                fix="drop reservation_type and select only the reservations you mean in the AutoModeNodeClass's "
                    "capacity_reservations", path=path)
        if not self.node_class.props.capacity_reservations:
            raise KarpenterGpuError(
                "KG191", prop="node_class", value=self.node_class.name,
                allowed="a node class with capacity_reservations: Karpenter uses no reservation implicitly, "
                        "so this pool would never launch reserved capacity",
                fix=f"{type(self.node_class).__name__}(..., capacity_reservations=(CapacityReservationTerm.by_id("
                    "'cr-...'),))", path=path)

    @staticmethod
    def pod_affinity(weight: int = 100) -> dict[str, Any]:
        """Pod affinity preferring reserved nodes; see :func:`prefer_reserved_capacity`."""
        return prefer_reserved_capacity(weight)
