"""The ``TieredSpotPools`` call a group of NodePools suggests (checked by :class:`.fit.Checker`).

``TieredSpotPools`` writes one ``GpuInferencePool`` per tier (``karpenter_gpu.pools.tiered_spot_pools``): NodePools
named ``<name>-<suffix>`` on one node class, strictly decreasing weights, each tier its own GPU names, GPU limit,
capacity types, minimum GPU memory and instance sizes, and everything else shared (labels, taints, zones,
architectures, consolidation delay, expiry, budgets) or the inference pool's default. Pools that fit
``GpuInferencePool`` one by one and look like such a ladder are offered as one call; the check decides, and a ladder
it refuses stays one call per pool.
"""

from __future__ import annotations

from typing import Any

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.importer.fit import Call
from karpenter_gpu.importer.pysource import call
from karpenter_gpu.k8s.requirements import CapacityType
from karpenter_gpu.pools.gpu_inference_pool import GpuInferencePoolProps
from karpenter_gpu.pools.tiered_spot_pools import SpotTier, TieredSpotPoolsProps, derived_weights

CONSTRUCT = "TieredSpotPools"
#: The props each tier has of its own (``SpotTier``'s fields, and the pool name).
TIER = ("name", "gpu_names", "gpu_limit", "capacity_types", "weight", "min_gpu_memory", "instance_sizes")
#: The props the tiers share (``TieredSpotPoolsProps``'s); any other must be the inference pool's default.
SHARED = ("labels", "taints", "zones", "architectures", "consolidate_after", "expire_after", "budgets")


def _shared(kwargs: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in kwargs.items() if k not in TIER}


def _prefix(names: list[str]) -> str | None:
    """The ladder's name: the longest common prefix of the pool names that ends before a ``-``."""
    parts = [n.split("-") for n in names]
    common = 0
    while all(len(p) > common + 1 and p[common] == parts[0][common] for p in parts):
        common += 1
    prefix = "-".join(parts[0][:common])
    return prefix if prefix and all(len(n) > len(prefix) + 1 for n in names) else None


def ladders(members: list[tuple[int, dict[str, Any]]]) -> list[tuple[list[int], dict[str, Any]]]:
    """Groups of two or more inference pools (index, props) that one ``TieredSpotPools`` could write, most preferred
    first, with the ladder's props."""
    groups: list[list[tuple[int, dict[str, Any]]]] = []
    for member in members:
        same = next((g for g in groups if _shared(g[0][1]) == _shared(member[1])), None)
        if same is None:
            groups.append([member])
        else:
            same.append(member)
    out = []
    for group in groups:
        found = _ladder(group)
        if found is not None:
            out.append(found)
    return out


def _ladder(group: list[tuple[int, dict[str, Any]]]) -> tuple[list[int], dict[str, Any]] | None:
    defaults = GpuInferencePoolProps.model_fields
    shared = _shared(group[0][1])
    if len(group) < 2 or any(k not in SHARED and defaults[k].default != v for k, v in shared.items()):
        return None
    group = sorted(group, key=lambda m: -m[1]["weight"] if isinstance(m[1]["weight"], int) else 0)
    weights = [m[1]["weight"] for m in group]
    prefix = _prefix([str(m[1]["name"]) for m in group])
    if prefix is None or len(set(weights)) != len(weights) or not all(isinstance(w, int) for w in weights):
        return None
    derived = tuple(weights) == derived_weights(len(group))
    tiers = []
    for _, kwargs in group:
        tier = {"suffix": str(kwargs["name"])[len(prefix) + 1:], "gpu_names": kwargs["gpu_names"],
                "gpu_limit": kwargs["gpu_limit"]}
        tier.update({k: kwargs[k] for k in ("capacity_types", "min_gpu_memory", "instance_sizes") if k in kwargs})
        if not derived:
            tier["weight"] = kwargs["weight"]
        tiers.append(tier)
    props: dict[str, Any] = {"name": prefix}
    try:
        built = [SpotTier(**t) for t in tiers]
        if tuple(built[-1].capacity_types) == (CapacityType.ON_DEMAND,):
            props["tiers"], props["on_demand_floor"] = tuple(built[:-1]), built[-1]
        else:
            props["tiers"] = tuple(built)
        fields = TieredSpotPoolsProps.model_fields
        props.update({k: v for k, v in shared.items() if k in SHARED and v != fields[k].default})
        TieredSpotPoolsProps(**props)
    except (KarpenterGpuError, ValueError, TypeError):  # not a ladder the construct builds: one call per pool
        return None
    return [m[0] for m in group], props


def ladder_call(props: dict[str, Any], construct_id: str, node_class: str) -> Call:
    """The ``TieredSpotPools`` call for a ladder's props."""
    names: set[str] = set()
    return Call(CONSTRUCT, None, call(CONSTRUCT, props, names, 0, head=f"chart, {construct_id!r}, node_class={node_class}"),
                names, props=props)
