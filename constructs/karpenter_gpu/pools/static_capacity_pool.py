"""StaticCapacityPool → NodePool(s) with ``replicas``: a fixed number of warm GPU nodes (seed 002)."""

from __future__ import annotations

from karpenter_gpu.pools.auto_mode_node_class import AutoModeNodeClass
from karpenter_gpu.pools.gpu_node_class import GpuNodeClass

from typing import Any, ClassVar, Mapping

from constructs import Construct
from pydantic import StrictInt, model_validator
from typing_extensions import Unpack

from karpenter_gpu.cluster import ScopedConstruct
from karpenter_gpu.pools._node_pool import (NodePoolConstruct, NodePoolKwargs, NodePoolProps,
                                            auto_mode_defaults, check_node_class)
from karpenter_gpu._props import build
from karpenter_gpu._construct_tree import path_of
from karpenter_gpu._signature import ConstructSignature
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.feature_gates import FeatureGate, require_feature_gate
from karpenter_gpu.k8s.requirements import CapacityType, Label, Requirement
from karpenter_gpu.k8s.units import Duration

#: Props a dynamic pool has and a static one must not: the CRD forbids weight and every limit but
#: nodes, and Karpenter ignores consolidation on static pools.
_DYNAMIC_ONLY = ("weight", "gpu_limit", "cpu_limit", "memory_limit", "consolidation_policy", "consolidate_after")
SUFFIX = "static"


class StaticCapacityPoolProps(NodePoolProps):
    """A fixed node count per pool; scale with ``kubectl scale nodepool <name> --replicas=N``."""

    refused_props: ClassVar[tuple[str, ...]] = _DYNAMIC_ONLY

    #: Nodes per pool (per zone when ``zones`` are given).
    replicas: StrictInt
    #: ``limits.nodes``: the most nodes during drift/expiry replacement. Must be ≥ replicas.
    #: Default: replicas + 1 (one replacement at a time).
    node_limit: int | None = None
    #: ``node.kubernetes.io/instance-type In`` — static capacity is usually one known shape.
    #: Default: - any type matching the GPU selection.
    instance_types: tuple[str, ...] = ()
    #: Default: ("t4", "a10g", "l4").
    gpu_names: tuple[str, ...] = ("t4", "a10g", "l4")
    #: Default: (on-demand,).
    capacity_types: tuple[CapacityType, ...] = (CapacityType.ON_DEMAND,)
    #: Default: {"node-type": "gpu-static", "workload": "inference"}.
    labels: Mapping[str, str] = {"node-type": "gpu-static", "workload": "inference"}
    #: Default: 720h, rendered explicitly (expired static nodes are replaced within the budgets).
    expire_after: Duration = Duration.hours(720)

    @model_validator(mode="before")
    @classmethod
    def _no_dynamic_settings(cls, data: Any) -> Any:
        if isinstance(data, dict):
            given = [k for k in _DYNAMIC_ONLY if data.get(k) is not None]
            if given:
                raise KarpenterGpuError(
                    "KG195", prop=given[0], value=data[given[0]],
                    allowed="nothing: a static NodePool has no weight, only limits.nodes, and Karpenter ignores "
                            "consolidation on it (the API server rejects weight and other limits)",
                    fix="drop it; size the pool with replicas and node_limit")
        return data

    @model_validator(mode="after")
    def _counts(self) -> "StaticCapacityPoolProps":
        if self.replicas < 0:
            raise KarpenterGpuError("KG100", prop="replicas", value=self.replicas, allowed="an integer ≥ 0",
                                    fix="e.g. replicas=2")
        if self.node_limit is not None and self.node_limit < self.replicas:
            raise KarpenterGpuError(
                "KG196", prop="node_limit", value=self.node_limit,
                allowed=f"≥ replicas ({self.replicas}); a lower limit blocks the replacement node a drift or "
                        "expiry needs, and the pool stays below its replica count",
                fix=f"omit it (default replicas + 1 = {self.replicas + 1}) or raise it")
        return self

    @property
    def nodes_limit(self) -> int:
        return self.replicas + 1 if self.node_limit is None else self.node_limit

    def _derive_requirements(self) -> tuple[Requirement, ...]:
        out = super()._derive_requirements()
        if self.instance_types:
            out += (Requirement.in_(Label.INSTANCE_TYPE, self.instance_types),)
        return out


class StaticCapacityPoolKwargs(NodePoolKwargs, total=False):
    """The keyword props of :class:`StaticCapacityPool`: the fields of :class:`StaticCapacityPoolProps`."""

    replicas: int
    node_limit: int | None
    instance_types: tuple[str, ...]


class _StaticNodePool(NodePoolConstruct):
    props_type: ClassVar[type[StaticCapacityPoolProps]] = StaticCapacityPoolProps
    props: StaticCapacityPoolProps

    def _spec(self) -> dict:
        p = self.props
        if not self.auto_mode:  # Auto Mode supports static pools with no gate to set (auto-static-capacity.html)
            require_feature_gate(self, FeatureGate.STATIC_CAPACITY, f"NodePool {p.name} is static (replicas)")
        return {
            "template": p.render_template(self.node_class),
            # consolidateAfter is required whenever disruption is set (the budgets pace drift and
            # expiry replacement); Karpenter ignores it on static pools, 'Never' says so.
            "disruption": self._disruption(consolidateAfter=str(Duration.never())),
            "limits": {"nodes": str(p.nodes_limit)},
            "replicas": p.replicas,
        }


class StaticCapacityPool(ScopedConstruct):
    """Static GPU capacity: ``replicas`` nodes that exist whether or not pods need them.

    - One NodePool per zone when ``zones`` are given (``<name>-static-<zone>``), else one
      (``<name>-static``), for predictable placement.
    - No weight, only ``limits.nodes`` (≥ replicas; default replicas + 1 for a replacement
      during drift or expiry), no consolidation: the CRD forbids or Karpenter ignores the rest,
      and passing them is an error (KG195).
    - The name always ends in ``-static``: a NodePool can never switch between static and dynamic
      in place (the API server refuses adding or removing ``replicas``), so turning a dynamic pool
      static must create a new NodePool, and the name makes that visible in review.
    - Needs the ``staticCapacity`` feature gate (alpha, off by default) on self-managed Karpenter; without it
      the pool silently launches nothing. EKS Auto Mode supports static pools without one
      (https://docs.aws.amazon.com/eks/latest/userguide/auto-static-capacity.html).
    """

    __signature__ = ConstructSignature()

    def __init__(self, scope: Construct, id: str, *, node_class: GpuNodeClass | AutoModeNodeClass,
                 props: StaticCapacityPoolProps | None = None, **kwargs: Unpack[StaticCapacityPoolKwargs]) -> None:
        """Keyword props (see :class:`StaticCapacityPoolProps` for defaults) or ``props=``, not both (KG820)."""
        path = path_of(scope, id)
        check_node_class(node_class, path)
        self.props = auto_mode_defaults(build(StaticCapacityPoolProps, path, props, **kwargs), node_class)
        p = self.props
        base = f"{p.name}-{SUFFIX}"
        if p.zones:
            per_zone = [(z, p.model_copy(update={"name": f"{base}-{z}", "zones": (z,)})) for z in p.zones]
        else:
            per_zone = [(SUFFIX, p.model_copy(update={"name": base}))]
        # Re-validate the per-zone copies (names must stay DNS-1123 labels) before building anything.
        per_zone = [(z, build(StaticCapacityPoolProps, f"{path}/{z}", None, **dict(zp))) for z, zp in per_zone]
        super().__init__(scope, id)
        self.pools = tuple(_StaticNodePool(self, z, node_class=node_class, props=zp) for z, zp in per_zone)
