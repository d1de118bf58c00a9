"""TimeSlicingOverlay → one ``NodeOverlay`` per GPU count, so Karpenter simulates time-sliced GPUs.

With GPU time slicing the NVIDIA device plugin advertises ``replicas`` × the physical GPUs as
``nvidia.com/gpu``, but Karpenter still simulates an instance type with the count EC2 reports and
launches nodes for pods that would already fit on a sliced one. A single overlay cannot say
"k × replicas" (capacity is a fixed quantity), so this renders one overlay per distinct GPU count
``k``, each matching ``instance-gpu-count In [k]`` on the time-sliced NodePools only.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterable

from constructs import Construct, IConstruct
from pydantic import field_validator, model_validator
from typing_extensions import TypedDict, Unpack

from karpenter_gpu.cluster import parent_of, ScopedConstruct
from karpenter_gpu.overlays._node_overlay import MAX_WEIGHT, OverlayProps, _check_unique, _Overlay, distinct_matching
from karpenter_gpu._props import Props, build, DnsLabel
from karpenter_gpu._construct_tree import path_of
from karpenter_gpu._signature import ConstructSignature
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.labels import NVIDIA_GPU, Label
from karpenter_gpu.k8s.names import DNS1123_LABEL

#: The resource time slicing multiplies (``renameByDefault: false`` keeps this name).
GPU_RESOURCE = NVIDIA_GPU
#: GPU counts of EC2 NVIDIA instance types: 1, 4 and 8 on g4dn/g5/g6/g6e/p4d/p5, 2 on a few older types.
DEFAULT_GPU_COUNTS: tuple[int, ...] = (1, 2, 4, 8)

_POOL_NAME = re.compile(rf"{DNS1123_LABEL}\Z", re.ASCII)


def check_replicas(v: Any, prop: str = "replicas") -> int:
    """Time-slicing replicas: an integer ≥ 2 (1 is no sharing at all) — KG504."""
    if isinstance(v, bool) or not isinstance(v, int) or v < 2:
        raise KarpenterGpuError("KG504", prop=prop, value=v,
                                allowed="an integer ≥ 2: each physical GPU is advertised that many times "
                                        "(1 would be no sharing)",
                                fix=f"e.g. {prop}=4, or leave time slicing off")
    return v


def overlay_name(name: str, gpu_count: int) -> str:
    """metadata.name of the overlay for ``gpu_count`` GPUs."""
    return f"{name}-{gpu_count}gpu"


class TimeSlicingCountProps(OverlayProps):
    """One overlay of a :class:`TimeSlicingOverlay`: instances with exactly ``gpu_count`` GPUs."""

    gpu_count: int
    replicas: int
    node_pools: tuple[str, ...]

    def requirement_terms(self) -> Iterable[tuple[str, str, tuple[str, ...]]]:
        yield "gpu_counts", Label.GPU_COUNT, (str(self.gpu_count),)
        yield "node_pools", Label.NODEPOOL, self.node_pools

    def spec_fields(self) -> dict[str, Any]:
        return {"capacity": {GPU_RESOURCE: str(self.gpu_count * self.replicas)}}

    def gate_reason(self) -> str:
        # No pool names: the overlay's pools may be derived from the final tree (GpuOperatorValues).
        return (f"advertises {GPU_RESOURCE}={self.gpu_count * self.replicas} ({self.gpu_count} GPUs time-sliced "
                f"x{self.replicas}) for the time-sliced NodePools in Karpenter's scheduling simulation")


class _TimeSlicingCountOverlay(_Overlay):
    props_type = TimeSlicingCountProps
    props: TimeSlicingCountProps

    def render_spec(self) -> dict:
        # The parent TimeSlicingOverlay knows the final pools (derived ones are read at synth).
        parent: Any = parent_of(self)
        pools = parent.node_pools
        if pools == self.props.node_pools:
            return self.props.render()
        # Re-validated, not model_copy: the rendered requirements are derived during validation.
        return TimeSlicingCountProps(**{**dict(self.props), "node_pools": pools}).render()


class TimeSlicingOverlayProps(Props):
    """Props of :class:`TimeSlicingOverlay`."""

    #: Name prefix; overlay ``k`` is named ``<name>-<k>gpu`` (DNS-1123, ≤63 characters in all).
    name: DnsLabel
    #: Time-slicing replicas per physical GPU (the device plugin's ``timeSlicing.resources[].replicas``), ≥ 2.
    replicas: int
    #: NodePools whose nodes are time-sliced (``karpenter.sh/nodepool In``).
    node_pools: tuple[str, ...]
    #: Weight of the first overlay; overlay ``i`` gets ``weight + i``. Every one must be unique in the cluster.
    weight: int
    #: Distinct GPU counts to cover. Default: (1, 2, 4, 8). Instance types with another count keep their
    #: physical count in the simulation (Karpenter over-provisions for them; it never over-packs).
    gpu_counts: tuple[int, ...] = DEFAULT_GPU_COUNTS

    @field_validator("replicas", mode="before")
    @classmethod
    def _replicas(cls, v: Any) -> int:
        return check_replicas(v)

    @field_validator("node_pools", mode="before")
    @classmethod
    def _node_pools(cls, v: Any) -> tuple[str, ...]:
        return distinct_matching(v, "node_pools", _POOL_NAME, "NodePool names (DNS-1123)", "('gpu-inference',)")

    @field_validator("gpu_counts", mode="before")
    @classmethod
    def _gpu_counts(cls, v: Any) -> tuple[int, ...]:
        if isinstance(v, (list, tuple)) and v and all(
            isinstance(k, int) and not isinstance(k, bool) and k >= 1 for k in v
        ) and len(set(v)) == len(v):
            return tuple(v)
        raise KarpenterGpuError("KG504", prop="gpu_counts", value=v,
                                allowed="one or more distinct GPU counts ≥ 1 (karpenter.k8s.aws/instance-gpu-count)",
                                fix="e.g. gpu_counts=(1, 4, 8)")

    @field_validator("weight", mode="before")
    @classmethod
    def _weight(cls, v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise KarpenterGpuError("KG183", prop="weight", value=v,
                                    allowed=f"an integer 1..{MAX_WEIGHT} (the CRD bounds; higher wins)",
                                    fix="pick a weight range no other overlay of this cluster uses")
        return v

    @model_validator(mode="after")
    def _fits(self) -> "TimeSlicingOverlayProps":
        last = self.weight + len(self.gpu_counts) - 1
        if last > MAX_WEIGHT:
            raise KarpenterGpuError("KG183", prop="weight", value=self.weight,
                                    allowed=f"weight + {len(self.gpu_counts) - 1} ≤ {MAX_WEIGHT}: one overlay per "
                                            "GPU count, with consecutive weights",
                                    fix=f"use weight ≤ {MAX_WEIGHT - len(self.gpu_counts) + 1}")
        longest = overlay_name(self.name, max(self.gpu_counts))
        if len(longest) > 63:
            raise KarpenterGpuError("KG120", prop="name", value=self.name,
                                    allowed=f"a prefix that leaves room for '-<k>gpu' ({longest!r} is over 63 "
                                            "characters)",
                                    fix="shorten the name")
        return self

    def overlays(self) -> tuple[TimeSlicingCountProps, ...]:
        """The validated props of each overlay, in weight order."""
        return tuple(
            TimeSlicingCountProps(name=overlay_name(self.name, k), weight=self.weight + i, gpu_count=k,
                                  replicas=self.replicas, node_pools=self.node_pools)
            for i, k in enumerate(self.gpu_counts)
        )


class TimeSlicingOverlayKwargs(TypedDict, total=False):
    """The keyword props of :class:`TimeSlicingOverlay`: the fields of :class:`TimeSlicingOverlayProps`."""

    name: str
    replicas: int
    node_pools: tuple[str, ...]
    weight: int
    gpu_counts: tuple[int, ...]


def plan(scope: IConstruct, path: str, props: TimeSlicingOverlayProps | None = None,
         /, **values: Any) -> TimeSlicingOverlayProps:
    """Validate a TimeSlicingOverlay to be created at construct ``path`` without adding anything to the tree.

    Checks the props and that no overlay of the cluster of ``scope`` has one of its weights or names, so a
    construct that creates the overlay as a child can fail before it adds itself.
    """
    props = build(TimeSlicingOverlayProps, path, props, **values)
    for child in props.overlays():
        _check_unique(scope, child, f"{path}/{_child_id(child)}")
    return props


def _child_id(child: TimeSlicingCountProps) -> str:
    return f"Gpus{child.gpu_count}"


class TimeSlicingOverlay(ScopedConstruct):
    """NodeOverlays telling Karpenter that time-sliced nodes have ``replicas`` × their GPUs.

    ::

        TimeSlicingOverlay(chart, "TimeSlicing", name="gpu-time-slicing", replicas=4,
                           node_pools=("gpu-inference",), weight=100)

    renders, for each ``k`` in ``gpu_counts`` (weights 100, 101, …)::

        requirements: [instance-gpu-count In [k], karpenter.sh/nodepool In [gpu-inference]]
        capacity: {nvidia.com/gpu: k × 4}

    - **Match the device plugin.** The overlays only change Karpenter's simulation; the nodes must really
      be time-sliced with the same replicas (``GpuOperatorValues(time_slicing_replicas=...)`` creates this
      overlay from its own setting).
    - **NodePool GPU limits count replicas.** A pool's ``limits.nvidia.com/gpu`` is checked against the
      advertised capacity: with ``replicas=4`` a ``gpu_limit=16`` admits 4 physical GPUs.
    - **Not with MIG.** With a MIG layout the device plugin advertises slices × replicas, not GPUs × replicas.
    - Needs the ``nodeOverlay`` feature gate (recorded on each overlay); weights are unique per cluster (KG183).
    """

    __signature__ = ConstructSignature()

    def __init__(self, scope: Construct, id: str, *, props: TimeSlicingOverlayProps | None = None,
                 **kwargs: Unpack[TimeSlicingOverlayKwargs]) -> None:
        """Keyword props (see :class:`TimeSlicingOverlayProps` for defaults) or ``props=``, not both (KG820)."""
        self.props = plan(scope, path_of(scope, id), props, **kwargs)
        #: Set by a parent that derives the pools at synth (GpuOperatorValues); else the ``node_pools`` prop.
        self.node_pools_of: Callable[[], tuple[str, ...]] | None = None
        super().__init__(scope, id)
        self.overlays: tuple[_Overlay, ...] = tuple(
            _TimeSlicingCountOverlay(self, _child_id(child), **child.model_dump()) for child in self.props.overlays()
        )

    @property
    def node_pools(self) -> tuple[str, ...]:
        """The time-sliced NodePools as rendered: derived from the final tree when a parent set ``node_pools_of``."""
        return self.node_pools_of() if self.node_pools_of is not None else self.props.node_pools
