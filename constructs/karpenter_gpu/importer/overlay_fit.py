"""The ``NodeOverlayDiscourage`` call a NodeOverlay suggests (checked by :class:`.fit.Checker`).

``NodeOverlayDiscourage`` writes ``requirements: [node.kubernetes.io/instance-type In [...]]`` (then
``karpenter.sh/nodepool In [...]`` when it names pools), one of ``priceAdjustment`` / ``price``, and ``weight``
(``karpenter_gpu.overlays.node_overlay_discourage``). An overlay of that shape maps onto its props; any other
(a ``capacity`` overlay, other requirements) stays as given: the other overlay constructs derive their requirements
from pool constructs, not from text. Whether the call keeps the object as it is, the check says.
"""

from __future__ import annotations

from typing import Any

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.importer.fit import Call, Unfit, _plain_prop
from karpenter_gpu.importer.pysource import call
from karpenter_gpu.k8s.input_layout import metadata
from karpenter_gpu.k8s.labels import Label
from karpenter_gpu.overlays.node_overlay_discourage import NodeOverlayDiscourageProps
from karpenter_gpu.overlays.overlay_price import Price, PriceAdjustment

CONSTRUCT = "NodeOverlayDiscourage"


def _in(requirement: Any, key: str) -> tuple[str, ...] | None:
    if isinstance(requirement, dict) and set(requirement) == {"key", "operator", "values"} \
            and requirement["key"] == key and requirement["operator"] == "In" and isinstance(requirement["values"], list):
        return tuple(str(v) for v in requirement["values"])
    return None


def overlay_call(manifest: dict, construct_id: str) -> Call | Unfit:
    """The ``NodeOverlayDiscourage`` call a NodeOverlay suggests."""
    spec = manifest.get("spec")
    if not isinstance(spec, dict):
        return Unfit(CONSTRUCT, "spec", "missing")
    other = sorted(k for k in spec if k not in ("requirements", "priceAdjustment", "price", "weight"))
    if other:
        return Unfit(CONSTRUCT, "spec", "the construct writes requirements, a price or price adjustment and a weight "
                                        "only")
    found = spec.get("requirements")
    reqs: list[Any] = found if isinstance(found, list) else []
    types = _in(reqs[0], Label.INSTANCE_TYPE) if reqs else None
    pools = _in(reqs[1], Label.NODEPOOL) if len(reqs) == 2 else ()
    if types is None or pools is None or len(reqs) > 2:
        return Unfit(CONSTRUCT, "spec.requirements", "the construct selects by instance-type In, then karpenter.sh/"
                                                     "nodepool In")
    kwargs: dict[str, Any] = {"name": metadata(manifest).get("name"), "weight": spec.get("weight"),
                              "instance_types": types}
    try:
        if "priceAdjustment" in spec:
            kwargs["price_adjustment"] = PriceAdjustment.parse(spec["priceAdjustment"])
        if "price" in spec:
            kwargs["price"] = Price.parse(spec["price"])
        if pools:
            kwargs["node_pools"] = pools
        NodeOverlayDiscourageProps(**kwargs)
    except (KarpenterGpuError, ValueError, TypeError) as err:
        field = f"the construct refuses it ({err.code}, {_plain_prop(err.prop)})" \
            if isinstance(err, KarpenterGpuError) else "spec"
        return Unfit(CONSTRUCT, field, str(err))
    names: set[str] = set()
    return Call(CONSTRUCT, None, call(CONSTRUCT, kwargs, names, 0, head=f"chart, {construct_id!r}"), names)
