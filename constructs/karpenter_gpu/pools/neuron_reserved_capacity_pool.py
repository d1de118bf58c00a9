"""NeuronReservedCapacityPool → NodePool launching Trainium into Capacity Blocks (or ODCRs) first (seed 002)."""

from __future__ import annotations

from typing import ClassVar, Mapping

from constructs import Construct
from typing_extensions import Unpack

from karpenter_gpu.pools._gpu_pool import _DynamicKwargs
from karpenter_gpu.pools._neuron_pool import NeuronSelection, NeuronSelectionKwargs
from karpenter_gpu.pools._node_pool import NodePoolConstruct, _TemplateBaseKwargs
from karpenter_gpu.pools.capacity_reservation import ReservationType
from karpenter_gpu.pools.disruption_window import Budget
from karpenter_gpu.pools.gpu_node_class import GpuNodeClass
from karpenter_gpu.pools.reserved_capacity_pool import Fallback, ReservedCapacityPool, ReservedCapacityPoolProps
from karpenter_gpu.k8s.units import Duration


class NeuronReservedCapacityPoolProps(NeuronSelection, ReservedCapacityPoolProps):  # type: ignore[misc]  # Neuron replaces the GPU fields
    """Reserved-pool props (``reserved`` plus an explicit ``fallback``) on Trainium, Capacity Blocks by default."""

    #: Default: ("trainium", "trainium2").
    accelerator_names: tuple[str, ...] = ("trainium", "trainium2")
    #: Default: Capacity Blocks (``capacity-reservation-type NotIn [default]``, so the fallback still launches).
    reservation_type: ReservationType | None = ReservationType.CAPACITY_BLOCK
    #: Default: {"node-type": "neuron-training", "workload": "training"}.
    labels: Mapping[str, str] = {"node-type": "neuron-training", "workload": "training"}


class NeuronReservedCapacityPoolKwargs(_TemplateBaseKwargs, _DynamicKwargs, NeuronSelectionKwargs, total=False):
    """The keyword props of :class:`NeuronReservedCapacityPool`: the fields of its props class."""

    expire_after: Duration | None
    drift_budget: Budget | None
    fallback: Fallback
    reservation_type: ReservationType | None


class NeuronReservedCapacityPool(ReservedCapacityPool):
    """Trainium in Capacity Blocks first: :class:`ReservedCapacityPool` with the Neuron selection.

    The node class must select the blocks (``capacity_reservations``, KG191); ``fallback`` decides what
    launches when a block is full or over. EC2 terminates Capacity Block instances 30 minutes before the
    block ends (60 for UltraServers) and Karpenter drains 10 minutes before that: checkpoint accordingly.
    """

    props_type: ClassVar[type[ReservedCapacityPoolProps]] = NeuronReservedCapacityPoolProps
    props: NeuronReservedCapacityPoolProps

    def __init__(self, scope: Construct, id: str, *, node_class: GpuNodeClass,
                 props: NeuronReservedCapacityPoolProps | None = None,
                 **kwargs: Unpack[NeuronReservedCapacityPoolKwargs]) -> None:
        """Keyword props (see :class:`NeuronReservedCapacityPoolProps` for defaults) or ``props=``, not both (KG820)."""
        NodePoolConstruct.__init__(self, scope, id, node_class=node_class, props=props, **kwargs)
