"""NeuronTrainingPool → NodePool for long-running training on AWS Trainium."""

from __future__ import annotations

from typing import ClassVar, Mapping

from constructs import Construct
from typing_extensions import Unpack

from karpenter_gpu.pools._gpu_pool import GpuPoolProps, _DynamicKwargs
from karpenter_gpu.pools._neuron_pool import NeuronSelection, NeuronSelectionKwargs
from karpenter_gpu.pools._node_pool import NodePoolConstruct, _TemplateBaseKwargs
from karpenter_gpu.pools.disruption_window import Budget
from karpenter_gpu.pools.gpu_node_class import GpuNodeClass
from karpenter_gpu.pools.gpu_training_pool import GpuTrainingPool, GpuTrainingPoolProps
from karpenter_gpu.k8s.units import Duration


class NeuronTrainingPoolProps(NeuronSelection, GpuTrainingPoolProps):  # type: ignore[misc]  # Neuron replaces the GPU fields
    """Training-pool props (on-demand, ``WhenEmpty``, explicit expiry, drift budget) on Trainium."""

    #: Default: ("trainium", "trainium2").
    accelerator_names: tuple[str, ...] = ("trainium", "trainium2")
    #: Default: {"node-type": "neuron-training", "workload": "training"}.
    labels: Mapping[str, str] = {"node-type": "neuron-training", "workload": "training"}


class NeuronTrainingPoolKwargs(_TemplateBaseKwargs, _DynamicKwargs, NeuronSelectionKwargs, total=False):
    """The keyword props of :class:`NeuronTrainingPool`: the fields of :class:`NeuronTrainingPoolProps`."""

    expire_after: Duration | None
    drift_budget: Budget | None


class NeuronTrainingPool(GpuTrainingPool):
    """A NodePool for training on AWS Trainium (trn1, trn1n, trn2), described by accelerator labels.

    Everything of :class:`GpuTrainingPool` (``expire_after`` required — 720h is forceful —,
    ``WhenEmpty``, a drift budget, local-time disruption windows) with the Neuron selection, taint
    and ``limits.aws.amazon.com/neuron``. For Trainium Capacity Blocks use
    :class:`~karpenter_gpu.pools.neuron_reserved_capacity_pool.NeuronReservedCapacityPool`.
    """

    props_type: ClassVar[type[GpuPoolProps]] = NeuronTrainingPoolProps
    props: NeuronTrainingPoolProps

    def __init__(self, scope: Construct, id: str, *, node_class: GpuNodeClass,
                 props: NeuronTrainingPoolProps | None = None, **kwargs: Unpack[NeuronTrainingPoolKwargs]) -> None:
        """Keyword props (see :class:`NeuronTrainingPoolProps` for defaults) or ``props=``, not both (KG820)."""
        # Straight to the shared constructor: GpuTrainingPool.__init__ is typed for the GPU keywords.
        NodePoolConstruct.__init__(self, scope, id, node_class=node_class, props=props, **kwargs)
