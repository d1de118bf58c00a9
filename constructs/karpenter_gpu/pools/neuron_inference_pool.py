"""NeuronInferencePool → NodePool for Inferentia inference (seed 000 "inferentia", corrected)."""

from __future__ import annotations

from typing import ClassVar, Mapping

from constructs import Construct
from typing_extensions import Unpack

from karpenter_gpu.pools._gpu_pool import GpuPool, GpuPoolProps, _DynamicKwargs
from karpenter_gpu.pools._neuron_pool import NeuronSelection, NeuronSelectionKwargs
from karpenter_gpu.pools._node_pool import _TemplateBaseKwargs
from karpenter_gpu.pools.gpu_inference_pool import GpuInferencePoolProps
from karpenter_gpu.pools.gpu_node_class import GpuNodeClass
from karpenter_gpu.k8s.units import Duration


class NeuronInferencePoolProps(NeuronSelection, GpuInferencePoolProps):  # type: ignore[misc]  # Neuron replaces the GPU fields
    """Inference-pool props (spot first, on-demand fallback, consolidate when idle) on Inferentia."""

    #: Default: ("inferentia2",).
    accelerator_names: tuple[str, ...] = ("inferentia2",)
    #: Default: {"node-type": "neuron-inference", "workload": "inference"}.
    labels: Mapping[str, str] = {"node-type": "neuron-inference", "workload": "inference"}


class NeuronInferencePoolKwargs(_TemplateBaseKwargs, _DynamicKwargs, NeuronSelectionKwargs, total=False):
    """The keyword props of :class:`NeuronInferencePool`: the fields of :class:`NeuronInferencePoolProps`."""

    expire_after: Duration


class NeuronInferencePool(GpuPool):
    """A NodePool for inference on AWS Inferentia, described by accelerator labels rather than names.

    Renders ``instance-accelerator-manufacturer In [aws]`` and ``instance-accelerator-name In
    [inferentia2]`` (every inf2 size, and the next one), spot with on-demand fallback, the
    ``aws.amazon.com/neuron=true:NoSchedule`` taint, a mandatory ``limits.aws.amazon.com/neuron``
    and the inference pool's explicit ``WhenEmptyOrUnderutilized`` consolidation. Pods request
    ``aws.amazon.com/neuron`` (whole devices) or ``aws.amazon.com/neuroncore``; the Neuron device
    plugin (:class:`~karpenter_gpu.addons.neuron_device_plugin_values.NeuronDevicePluginValues`) must run on the
    nodes, or Karpenter never sees them initialized.

    Example::

        NeuronInferencePool(chart, "Inferentia", node_class=nc, name="neuron-inference", neuron_limit=32)
    """

    props_type: ClassVar[type[GpuPoolProps]] = NeuronInferencePoolProps
    props: NeuronInferencePoolProps

    def __init__(self, scope: Construct, id: str, *, node_class: GpuNodeClass,
                 props: NeuronInferencePoolProps | None = None, **kwargs: Unpack[NeuronInferencePoolKwargs]) -> None:
        """Keyword props (see :class:`NeuronInferencePoolProps` for defaults) or ``props=``, not both (KG820)."""
        super().__init__(scope, id, node_class=node_class, props=props, **kwargs)
