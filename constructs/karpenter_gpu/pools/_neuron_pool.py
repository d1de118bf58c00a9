"""What every Neuron (Inferentia / Trainium) pool changes about a GPU pool: selection, limit, taint.

A Neuron pool is a GPU pool class (inference, training, reserved) with the accelerator swapped
(:data:`~karpenter_gpu.k8s.accelerators.NEURON_ACCELERATOR`): the same weights, budgets, windows,
expiry rules and capacity types, but

- selected by ``instance-accelerator-manufacturer In [aws]`` and ``instance-accelerator-name In
  [<names>]`` (the labels aws/karpenter-provider-aws v1.14.1 ``pkg/providers/instancetype/types.go``
  ``computeRequirements`` sets from EC2 NeuronInfo) rather than by instance-type names, so new sizes of
  a family are admitted without an edit;
- bounded by ``limits.aws.amazon.com/neuron`` (``neuron_limit``, required: devices, as
  ``awsNeuronDevices`` counts them);
- tainted ``aws.amazon.com/neuron=true:NoSchedule`` (the Neuron device plugin tolerates the key);
- without the GPU Operator label: the NVIDIA operands have nothing to do on a Neuron node.

:class:`NeuronSelection` is a props mixin placed *first* among the bases of each Neuron props class:
its fields replace the GPU selection fields of the GPU props class after it (pydantic takes a field
from the leftmost base that declares it), and its validators replace theirs by name.
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping

from pydantic import field_validator, model_validator
from typing_extensions import TypedDict

from karpenter_gpu._props import Props
from karpenter_gpu.analysis.catalog import default_catalog
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.accelerators import NEURON_ACCELERATOR, NEURON_NAMES, Accelerator
from karpenter_gpu.k8s.labels import Label
from karpenter_gpu.k8s.requirements import LABEL_VALUE, Requirement
from karpenter_gpu.k8s.taint import Taint
from karpenter_gpu.k8s.units import GpuMemory

#: The GPU props a Neuron pool refuses (KG262) and the value each must keep.
_GPU_PROPS: dict[str, Any] = {"gpu_names": (), "gpu_limit": None, "min_gpu_memory": None, "gpu_operator": False}


class NeuronSelection(Props):
    """Props mixin: the Neuron accelerator in place of the GPU selection of the props class after it."""

    accelerator: ClassVar[Accelerator] = NEURON_ACCELERATOR

    #: ``instance-accelerator-name In``: Neuron device names as in the label
    #: (``inferentia``, ``inferentia2``, ``trainium``, ``trainium2``).
    accelerator_names: tuple[str, ...]
    #: Most Neuron devices the pool may run (``limits.aws.amazon.com/neuron``). Required: no unbounded pool.
    neuron_limit: int
    #: Not for Neuron pools (KG262): they select by ``accelerator_names``. Default: ().
    gpu_names: tuple[str, ...] = ()
    #: Not for Neuron pools (KG262): use ``neuron_limit``. Default: None.
    gpu_limit: int | None = None
    #: Not for Neuron pools (KG262). Default: None.
    min_gpu_memory: GpuMemory | None = None
    #: Not for Neuron pools (KG262): the GPU Operator stays off Neuron nodes. Default: False.
    gpu_operator: bool = False
    #: Default: (Taint.neuron(),) — ``aws.amazon.com/neuron=true:NoSchedule``.
    taints: tuple[Taint, ...] = (Taint.neuron(),)

    @model_validator(mode="before")
    @classmethod
    def _no_gpu_props(cls, data: Any) -> Any:
        if isinstance(data, Mapping):
            for prop, keep in _GPU_PROPS.items():
                if data.get(prop) is not None and data[prop] != keep:
                    raise KarpenterGpuError(
                        "KG262", prop=prop, value=data[prop],
                        allowed=f"{keep!r}: a Neuron pool selects instances by accelerator_names, is bounded by "
                                "neuron_limit (aws.amazon.com/neuron) and runs no GPU Operator",
                        fix=f"drop {prop}" + (" and set neuron_limit" if prop == "gpu_limit" else ""))
        return data

    # Same names as the GPU props' validators: these replace them (a Neuron pool has no GPU names or limit).
    @field_validator("gpu_names")
    @classmethod
    def _gpu_names(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        return v

    @field_validator("gpu_limit", mode="before")
    @classmethod
    def _gpu_limit(cls, v: Any) -> Any:
        return v

    @field_validator("accelerator_names")
    @classmethod
    def _accelerator_names(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if not v or len(set(v)) != len(v) or any(not n or n != n.lower() or not LABEL_VALUE.match(n) for n in v):
            raise KarpenterGpuError("KG260", prop="accelerator_names", value=list(v),
                                    allowed="one or more distinct lower-case Neuron device names as in "
                                            f"instance-accelerator-name (known: {sorted(NEURON_NAMES)})",
                                    fix="e.g. accelerator_names=('inferentia2',) or ('trainium', 'trainium2')")
        from karpenter_gpu.pools._node_pool import check_catalog_names

        known = {t.accelerator_name for t in default_catalog() if t.accelerator_name in NEURON_NAMES}
        return check_catalog_names("accelerator_names", v, known, "instance-accelerator-name",
                                   "'inferentia2' for inf2, 'trainium2' for trn2")

    @field_validator("neuron_limit", mode="before")
    @classmethod
    def _neuron_limit(cls, v: Any) -> int:
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise KarpenterGpuError("KG261", prop="neuron_limit", value=v,
                                    allowed="an integer ≥ 1 (limits.aws.amazon.com/neuron, in Neuron devices); a "
                                            "Neuron pool must be bounded",
                                    fix="set neuron_limit to the most Neuron devices the pool may run, e.g. 32")
        return v

    @field_validator("architectures", check_fields=False)  # the field is the GPU props class's
    @classmethod
    def _architectures(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if tuple(v) != ("amd64",):
            raise KarpenterGpuError("KG263", prop="architectures", value=list(v),
                                    allowed="('amd64',): every Inferentia and Trainium instance is x86_64, and the "
                                            "EKS AMIs ship a Neuron variant for x86_64 only",
                                    fix="drop architectures")
        return v

    @property
    def accelerator_limit(self) -> int:
        return self.neuron_limit

    def _selection_requirements(self) -> list[Requirement]:
        return [Requirement.in_(Label.ACCELERATOR_MANUFACTURER, [NEURON_ACCELERATOR.manufacturer]),
                Requirement.in_(Label.ACCELERATOR_NAME, self.accelerator_names)]


class NeuronSelectionKwargs(TypedDict, total=False):
    """The keyword props :class:`NeuronSelection` adds or replaces."""

    accelerator_names: tuple[str, ...]
    neuron_limit: int
    gpu_names: tuple[str, ...]
    gpu_limit: int | None
    min_gpu_memory: GpuMemory | None
    gpu_operator: bool
