"""Which NodePools name zones of another region than the catalog's: its prices are that region's on-demand list
prices, so a pool in another region is priced wrongly (a warning, not a guess)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Sequence

from karpenter_gpu.analysis import notes as note
from karpenter_gpu.analysis.catalog import Catalog, default_catalog
from karpenter_gpu.analysis.notes import Note
from karpenter_gpu.k8s.labels import Label
from karpenter_gpu.k8s.names import AWS_ZONE
from karpenter_gpu.k8s.views import NodePoolView, node_pools

__all__ = ["region_warnings"]


def region_warnings(manifests: Sequence[Mapping[str, Any]], catalog: Catalog | None = None, *,
                    pools: Sequence[NodePoolView] | None = None) -> list[Note]:
    """A warning (:class:`~karpenter_gpu.analysis.notes.OtherRegion`) per set of other regions, naming the NodePools whose ``topology.kubernetes.io/zone`` requirements
    name zones of another region than the catalog's (its prices are that region's on-demand list prices; other regions price differently).
    A zone's region is its name without the zone letter (``ap-northeast-2a`` -> ``ap-northeast-2``; Local Zones
    ``us-east-1-bos-1a`` -> ``us-east-1``). ``pools``: the manifests' NodePool views when the caller has them."""
    catalog = catalog if catalog is not None else default_catalog()
    by_regions: dict[tuple[str, ...], list[str]] = {}
    for pool in node_pools(manifests) if pools is None else pools:
        if pool.problem is not None:
            continue
        reqs = pool.template_requirements
        zone = reqs.get(Label.ZONE)
        if Label.ZONE not in reqs or zone.complement:
            continue
        regions = sorted({m.group(1) for z in zone.values if (m := AWS_ZONE.match(z))} - {catalog.region})
        if regions and catalog.region:
            by_regions.setdefault(tuple(regions), []).append(pool.name)
    return [note.OtherRegion(tuple(sorted(names)), regions, catalog.region)
            for regions, names in sorted(by_regions.items())]
