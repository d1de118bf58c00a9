"""NodeOverlayDiscourage → ``NodeOverlay`` (karpenter.sh/v1alpha1) that makes instance types look pricier."""

from __future__ import annotations

import re
from typing import Any, Iterable

from constructs import Construct
from pydantic import field_validator, model_validator
from typing_extensions import Unpack

from karpenter_gpu.overlays._node_overlay import OverlayKwargs, OverlayProps, _Overlay, distinct_matching, strings
from karpenter_gpu.k8s.names import check_dns1123
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.overlays.overlay_price import Price, PriceAdjustment
from karpenter_gpu.k8s.requirements import Label

# family.size, lower case: g5.12xlarge, p4d.24xlarge, c7i-flex.large, u-6tb1.112xlarge, g6e.metal.
_INSTANCE_TYPE = re.compile(r"^[a-z][a-z0-9-]*\.[a-z0-9]([a-z0-9-]*[a-z0-9])?\Z", re.ASCII)


class NodeOverlayDiscourageProps(OverlayProps):
    """Props of :class:`NodeOverlayDiscourage`. Exactly one of ``price_adjustment`` / ``price``."""

    #: ``node.kubernetes.io/instance-type In``: exact names such as ``g5.12xlarge``.
    instance_types: tuple[str, ...]
    #: Relative or fixed change of the simulated price, e.g. ``PriceAdjustment.percent(30)`` or ``"+30%"``.
    price_adjustment: PriceAdjustment | None = None
    #: Absolute simulated price that replaces the instance price, e.g. ``Price.of("12.5")``.
    price: Price | None = None
    #: ``karpenter.sh/nodepool In``: only for these NodePools. Default: - every NodePool.
    node_pools: tuple[str, ...] = ()

    @field_validator("instance_types", mode="before")
    @classmethod
    def _instance_types(cls, v: Any) -> tuple[str, ...]:
        types = distinct_matching(v, "instance_types", _INSTANCE_TYPE,
                                  "EC2 instance types written family.size in lower case, as in the "
                                  "node.kubernetes.io/instance-type label", "('g5.12xlarge', 'g6e.12xlarge')")
        return types

    @field_validator("node_pools", mode="before")
    @classmethod
    def _node_pools(cls, v: Any) -> tuple[str, ...]:
        pools = strings(v, "node_pools", "KG182", "('gpu-training',)")
        for pool in pools:
            try:
                check_dns1123(pool, prop="node_pools")
            except KarpenterGpuError as err:
                raise KarpenterGpuError("KG182", prop="node_pools", value=pool,
                                        allowed=f"NodePool names for karpenter.sh/nodepool In: {err.allowed}",
                                        fix="pass the NodePool's metadata.name, e.g. pool.name") from None
        if len(set(pools)) != len(pools):
            raise KarpenterGpuError("KG182", prop="node_pools", value=list(pools), allowed="distinct NodePool names",
                                    fix="list each NodePool once")
        return pools

    @model_validator(mode="after")
    def _one_price(self) -> "NodeOverlayDiscourageProps":
        if self.price is not None and self.price_adjustment is not None:
            raise KarpenterGpuError("KG180", prop="price/price_adjustment",
                                    value={"price": str(self.price), "price_adjustment": str(self.price_adjustment)},
                                    allowed="cannot set both 'price' and 'priceAdjustment' (CRD CEL rule)",
                                    fix="keep price_adjustment (relative, e.g. '+30%') or price (absolute), not both")
        if self.price is None and self.price_adjustment is None:
            raise KarpenterGpuError("KG180", prop="price/price_adjustment", value=None,
                                    allowed="exactly one of price_adjustment and price: without one the overlay "
                                            "changes nothing",
                                    fix="pass price_adjustment=PriceAdjustment.percent(30)")
        return self

    def requirement_terms(self) -> Iterable[tuple[str, str, tuple[str, ...]]]:
        yield "instance_types", Label.INSTANCE_TYPE, self.instance_types
        if self.node_pools:
            yield "node_pools", Label.NODEPOOL, self.node_pools

    def spec_fields(self) -> dict[str, Any]:
        if self.price_adjustment is not None:
            return {"priceAdjustment": str(self.price_adjustment)}
        return {"price": str(self.price)}

    def gate_reason(self) -> str:
        if self.price_adjustment is not None:
            change = f"priceAdjustment {self.price_adjustment}"
        else:
            change = f"price {self.price}"
        return f"{change} on {', '.join(self.instance_types)} in Karpenter's scheduling simulation"


class NodeOverlayDiscourageKwargs(OverlayKwargs, total=False):
    """The keyword props of :class:`NodeOverlayDiscourage`: the fields of :class:`NodeOverlayDiscourageProps`."""

    instance_types: tuple[str, ...]
    price_adjustment: PriceAdjustment | None
    price: Price | None
    node_pools: tuple[str, ...]


class NodeOverlayDiscourage(_Overlay):
    """A ``NodeOverlay`` that makes named instance types look more expensive, so Karpenter avoids them.

    Seed 004's right-sizing case: with whole GPU families allowed, price-per-vCPU made Karpenter
    pick g5.12xlarge / g6e.12xlarge where two or three g5.2xlarge fit the jobs better. Pinning the
    pool to small types with ``instance-type In`` hurt spot availability; this overlay keeps every
    type allowed and only raises the big ones' simulated price::

        NodeOverlayDiscourage(chart, "DiscourageBigGpu", name="discourage-big-gpu", weight=10,
                              instance_types=("g5.12xlarge", "g5.24xlarge", "g6e.12xlarge", "g6e.24xlarge"),
                              price_adjustment=PriceAdjustment.percent(30))

    Renders ``requirements: [node.kubernetes.io/instance-type In [...]]`` (plus
    ``karpenter.sh/nodepool In [...]`` with ``node_pools``), exactly one of ``priceAdjustment`` (relative
    or fixed change) or ``price`` (absolute; replaces the instance price), and ``weight``.

    - **Simulation only.** The overlay changes the price Karpenter uses to choose and consolidate
      instance types; EC2 bills the real price and the node is unchanged. A negative adjustment makes
      the types *more* attractive instead.
    - **Feature gate.** ``NodeOverlay`` is alpha (``karpenter.sh/v1alpha1``) and off by default: the
      controller needs ``settings.featureGates.nodeOverlay=true``, else the object is accepted and
      ignored. The need is recorded (see :func:`~karpenter_gpu.addons.feature_gates.required_feature_gates`).
      Being alpha, re-check the CRD on every Karpenter upgrade.
    - **Weight** 1..10000, higher wins; it must be unique among this app's overlays (KG183), because
      equal weights that conflict are not applied.
    """

    props_type = NodeOverlayDiscourageProps
    props: NodeOverlayDiscourageProps

    def __init__(self, scope: Construct, id: str, *, props: NodeOverlayDiscourageProps | None = None,
                 **kwargs: Unpack[NodeOverlayDiscourageKwargs]) -> None:
        """Keyword props (see :class:`NodeOverlayDiscourageProps` for defaults) or ``props=``, not both (KG820)."""
        super().__init__(scope, id, props=props, **kwargs)
