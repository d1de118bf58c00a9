"""MigCapacityOverlay → one ``NodeOverlay`` telling Karpenter what a MIG-partitioned instance type advertises.

Karpenter simulates an instance type with the resources EC2 reports (``nvidia.com/gpu: 8`` on a p5); the
MIG devices the device plugin will advertise once MIG Manager has partitioned the GPUs are unknown to it,
so a pod requesting ``nvidia.com/mig-1g.10gb`` never gets a node. A NodeOverlay's ``capacity`` is merged
into the instance type's capacity (kubernetes-sigs/karpenter v1.14.1 ``pkg/cloudprovider/types.go``
``InstanceType.ApplyCapacityOverlay``: ``lo.Assign(i.Capacity, updatedCapacity)``, a resource the overlay
names replaces the type's own), per NodePool and instance type (``pkg/controllers/nodeoverlay/store.go``
``updateInstanceTypeCapacity``: the highest-weight overlay sets a resource first, lower ones only add
resources not set yet). :class:`~karpenter_gpu.pools.mig_partitioned_pool.MigPartitionedPool` renders one
per instance type it admits, matching exactly that type and that pool.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

from constructs import Construct
from pydantic import field_validator
from typing_extensions import Unpack

from karpenter_gpu.overlays._node_overlay import OverlayKwargs, OverlayProps, _Overlay
from karpenter_gpu.overlays.gpu_capacity_overlay import capacity_of
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.labels import Label
from karpenter_gpu.k8s.units import Quantity

_NAME = re.compile(r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?\Z", re.ASCII)


def _one(value: Any, prop: str, allowed: str, example: str) -> str:
    if not isinstance(value, str) or len(value) > 63 or not _NAME.match(value):
        raise KarpenterGpuError("KG182", prop=prop, value=value, allowed=allowed, fix=f"e.g. {prop}={example!r}")
    return value


class MigCapacityOverlayProps(OverlayProps):
    """Props of :class:`MigCapacityOverlay`."""

    #: The NodePool whose nodes are MIG-partitioned (``karpenter.sh/nodepool In``).
    node_pool: str
    #: The instance type (``node.kubernetes.io/instance-type In``), e.g. "p5.48xlarge".
    instance_type: str
    #: What its nodes advertise once partitioned, e.g. ``{"nvidia.com/mig-1g.10gb": 56}``.
    capacity: Mapping[str, Quantity | int | str]

    @field_validator("node_pool", mode="before")
    @classmethod
    def _node_pool(cls, v: Any) -> str:
        return _one(v, "node_pool", "a NodePool name (DNS-1123)", "gpu-mig")

    @field_validator("instance_type", mode="before")
    @classmethod
    def _instance_type(cls, v: Any) -> str:
        return _one(v, "instance_type", "one instance type name as in node.kubernetes.io/instance-type", "p5.48xlarge")

    @field_validator("capacity", mode="before")
    @classmethod
    def _capacity(cls, v: Any) -> dict[str, Quantity]:
        return capacity_of(v, "{'nvidia.com/mig-1g.10gb': 56}")

    def requirement_terms(self) -> Iterable[tuple[str, str, tuple[str, ...]]]:
        yield "instance_type", Label.INSTANCE_TYPE, (self.instance_type,)
        yield "node_pool", Label.NODEPOOL, (self.node_pool,)

    def spec_fields(self) -> dict[str, Any]:
        return {"capacity": {key: str(value) for key, value in self.capacity.items()}}

    def gate_reason(self) -> str:
        added = ", ".join(f"{k}={v}" for k, v in self.capacity.items())
        return (f"advertises {added} on {self.instance_type} in NodePool {self.node_pool} (MIG-partitioned) in "
                "Karpenter's scheduling simulation")


class MigCapacityOverlayKwargs(OverlayKwargs, total=False):
    """The keyword props of :class:`MigCapacityOverlay`: the fields of :class:`MigCapacityOverlayProps`."""

    node_pool: str
    instance_type: str
    capacity: Mapping[str, Quantity | int | str]


class MigCapacityOverlay(_Overlay):
    """A ``NodeOverlay`` adding the MIG devices of one instance type in one NodePool::

        MigCapacityOverlay(chart, "P5", name="gpu-mig-p5-48xlarge", weight=200, node_pool="gpu-mig",
                           instance_type="p5.48xlarge", capacity={"nvidia.com/mig-1g.10gb": 56})

    renders ``requirements: [node.kubernetes.io/instance-type In [p5.48xlarge], karpenter.sh/nodepool In
    [gpu-mig]]``, ``capacity`` and ``weight``. Simulation only (the nodes must really be partitioned: the
    pool's ``nvidia.com/mig.config`` label and MIG Manager do that); needs the ``nodeOverlay`` feature gate
    (recorded); weights are unique per cluster (KG183). Usually created by :class:`MigPartitionedPool`.
    """

    props_type = MigCapacityOverlayProps
    props: MigCapacityOverlayProps

    def __init__(self, scope: Construct, id: str, *, props: MigCapacityOverlayProps | None = None,
                 **kwargs: Unpack[MigCapacityOverlayKwargs]) -> None:
        """Keyword props (see :class:`MigCapacityOverlayProps`) or ``props=``, not both (KG820)."""
        super().__init__(scope, id, props=props, **kwargs)
