"""GpuCapacityOverlay → ``NodeOverlay`` (karpenter.sh/v1alpha1) that adds GPU capacity Karpenter cannot see."""

from __future__ import annotations

import re
from types import MappingProxyType
from typing import Any, Iterable, Mapping

from constructs import Construct
from pydantic import field_validator
from typing_extensions import Unpack

from karpenter_gpu.overlays._node_overlay import OverlayKwargs, OverlayProps, _Overlay, distinct_matching
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.labels import GPU_RESOURCES as _GPU_RESOURCES, Label
from karpenter_gpu.k8s.names import DNS1123_SUBDOMAIN, QUALIFIED_NAME_PART
from karpenter_gpu.k8s.units import Quantity

#: Rejected by the CRD's CEL rule on ``spec.capacity`` ("invalid resource restricted").
CEL_RESTRICTED = ("cpu", "memory", "ephemeral-storage", "pods")
_CEL_RULE = "self.all(x, !(x in ['cpu', 'memory', 'ephemeral-storage', 'pods']))"
#: Accepted by the API server, then refused by Karpenter's runtime validation (the well-known
#: resources of the AWS build): the overlay gets ValidationSucceeded=False and is not applied.
RUNTIME_REJECTED = frozenset({"aws.amazon.com/neuron", "aws.amazon.com/neuroncore", "vpc.amazonaws.com/efa",
                              "vpc.amazonaws.com/pod-eni", "habana.ai/gaudi"})
#: GPU resources: whole devices, at least one.
GPU_RESOURCES = frozenset(_GPU_RESOURCES)

_FAMILY = re.compile(r"^[a-z]([a-z0-9-]*[a-z0-9])?\Z", re.ASCII)
_RESOURCE = re.compile(rf"{DNS1123_SUBDOMAIN}/{QUALIFIED_NAME_PART}\Z", re.ASCII)
_POSITIVE_INT = re.compile(r"^[1-9][0-9]*\Z", re.ASCII)

#: One whole NVIDIA GPU — what the NVIDIA device plugin reports for a g6f/gr6f fractional vGPU.
DEFAULT_CAPACITY: Mapping[str, Quantity | int | str] = MappingProxyType({"nvidia.com/gpu": 1})


def _bad(key: Any, value: Any, allowed: str, fix: str) -> KarpenterGpuError:
    return KarpenterGpuError("KG181", prop=f"capacity[{key}]", value=value, allowed=allowed, fix=fix)


def _resource_name(key: Any) -> str:
    if not isinstance(key, str) or key in CEL_RESTRICTED or "/" not in key:
        raise _bad(key, key, "a domain-qualified extended resource such as nvidia.com/gpu; the CRD's CEL rule "
                             f"{_CEL_RULE} ('invalid resource restricted') refuses cpu, memory, ephemeral-storage "
                             "and pods, and an overlay only adds extended resources",
                   "drop the key; Karpenter takes the standard resources from the instance type")
    domain = key.split("/", 1)[0]
    if len(key.split("/", 1)[1]) > 63 or len(domain) > 253 or not _RESOURCE.match(key) or (
        domain == "kubernetes.io" or domain.endswith(".kubernetes.io")
    ):
        raise _bad(key, key, "an extended resource name: '<domain>/<name>' outside the kubernetes.io domain",
                   "e.g. nvidia.com/gpu")
    if key in RUNTIME_REJECTED:
        raise _bad(key, key, f"not one of {sorted(RUNTIME_REJECTED)}: the API server accepts it, but Karpenter "
                             "rejects it at runtime (a well-known resource it already takes from the instance "
                             "type), so the overlay gets ValidationSucceeded=False and is not applied",
                   "drop the key; nvidia.com/gpu and amd.com/gpu are allowed")
    return key


def _amount(key: str, value: Any) -> Quantity:
    if key in GPU_RESOURCES:
        text = str(value) if isinstance(value, (int, Quantity, str)) and not isinstance(value, bool) else None
        if text is None or not _POSITIVE_INT.match(text):
            raise _bad(key, value, f"a positive whole number of devices for {key}", f"e.g. {{'{key}': 1}}")
        return Quantity(text)
    try:
        quantity = Quantity.parse(value)
    except KarpenterGpuError:
        quantity = None
    number = quantity.as_decimal() if quantity is not None else None
    if number is None or number < 0 or number != number.to_integral_value():
        raise _bad(key, value, "a whole, non-negative Kubernetes quantity (extended resources are integers)",
                   f"e.g. {{'{key}': 1}}")
    assert quantity is not None  # number is not None
    return quantity


def capacity_of(v: Any, example: str) -> dict[str, Quantity]:
    """A NodeOverlay ``capacity`` prop: extended resource names → whole quantities, sorted (KG181)."""
    if not isinstance(v, Mapping) or not v:
        raise KarpenterGpuError("KG181", prop="capacity", value=v,
                                allowed="a non-empty mapping of extended resource → quantity",
                                fix=f"e.g. capacity={example}")
    return {key: _amount(key, value) for key, value in sorted((_resource_name(k), val) for k, val in v.items())}


class GpuCapacityOverlayProps(OverlayProps):
    """Props of :class:`GpuCapacityOverlay`."""

    #: ``karpenter.k8s.aws/instance-family In``. Default: ("g6f", "gr6f"), which report 0 GPUs.
    families: tuple[str, ...] = ("g6f", "gr6f")
    #: Extended resources to add, e.g. ``{"nvidia.com/gpu": 1}``; rendered as strings. Default: one NVIDIA GPU.
    #: Given as quantities, whole numbers or strings; validated into a Quantity each.
    capacity: Mapping[str, Quantity | int | str] = dict(DEFAULT_CAPACITY)

    @field_validator("families", mode="before")
    @classmethod
    def _families(cls, v: Any) -> tuple[str, ...]:
        families = distinct_matching(v, "families", _FAMILY,
                                     "lower-case instance families as in karpenter.k8s.aws/instance-family "
                                     "(g6f, not g6f.large)", "('g6f', 'gr6f')")
        return families

    @field_validator("capacity", mode="before")
    @classmethod
    def _capacity(cls, v: Any) -> dict[str, Quantity]:
        return capacity_of(v, "{'nvidia.com/gpu': 1}")

    def requirement_terms(self) -> Iterable[tuple[str, str, tuple[str, ...]]]:
        yield "families", Label.INSTANCE_FAMILY, self.families

    def spec_fields(self) -> dict[str, Any]:
        return {"capacity": {key: str(value) for key, value in self.capacity.items()}}

    def gate_reason(self) -> str:
        added = ", ".join(f"{k}={v}" for k, v in self.capacity.items())
        return f"adds {added} to instance families {', '.join(self.families)} in Karpenter's scheduling simulation"


class GpuCapacityOverlayKwargs(OverlayKwargs, total=False):
    """The keyword props of :class:`GpuCapacityOverlay`: the fields of :class:`GpuCapacityOverlayProps`."""

    families: tuple[str, ...]
    capacity: Mapping[str, Quantity | int | str]


class GpuCapacityOverlay(_Overlay):
    """A ``NodeOverlay`` that gives instance families GPU capacity Karpenter does not know about.

    The documented case, and the default: g6f and gr6f (fractional L4 vGPUs) report a GPU count of 0
    to ``DescribeInstanceTypes``, so Karpenter gives them no ``nvidia.com/gpu`` and never launches them
    for a pod that requests a GPU. This overlay adds ``nvidia.com/gpu: "1"`` for those families; the
    NVIDIA device plugin then reports the one vGPU on the real node::

        GpuCapacityOverlay(chart, "FractionalGpus", name="g6f-gpu-capacity", weight=20)

    Renders ``requirements: [karpenter.k8s.aws/instance-family In [...]]``, ``capacity`` (quantities as
    strings) and ``weight``.

    - **It adds capacity, not labels.** g6f/gr6f keep ``karpenter.k8s.aws/instance-gpu-count: 0``, so a
      NodePool that requires ``instance-gpu-count Gt 0`` — every ``GpuInferencePool`` and
      ``GpuTrainingPool`` — still excludes them. Use a NodePool that selects these families without that
      requirement.
    - **Capacity keys.** cpu, memory, ephemeral-storage and pods (and any key without a domain) are refused
      by the CRD's CEL rule; aws.amazon.com/neuron, aws.amazon.com/neuroncore, vpc.amazonaws.com/efa,
      vpc.amazonaws.com/pod-eni and habana.ai/gaudi pass the API server but Karpenter rejects them at runtime
      (``ValidationSucceeded=False``). Both are KG181 here. nvidia.com/gpu and amd.com/gpu are allowed.
    - **Simulation only, feature gate.** Overlays change what Karpenter simulates, not the node or the bill;
      ``NodeOverlay`` is alpha and needs ``settings.featureGates.nodeOverlay=true`` (recorded, see
      :func:`~karpenter_gpu.addons.feature_gates.required_feature_gates`).
    - **Weight** 1..10000, unique among this app's overlays (KG183); capacity from several matching overlays
      is merged.
    """

    props_type = GpuCapacityOverlayProps
    props: GpuCapacityOverlayProps

    def __init__(self, scope: Construct, id: str, *, props: GpuCapacityOverlayProps | None = None,
                 **kwargs: Unpack[GpuCapacityOverlayKwargs]) -> None:
        """Keyword props (see :class:`GpuCapacityOverlayProps` for defaults) or ``props=``, not both (KG820)."""
        super().__init__(scope, id, props=props, **kwargs)
