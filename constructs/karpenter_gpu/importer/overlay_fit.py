"""The overlay construct call a NodeOverlay suggests (checked by :class:`.fit.Checker`).

``TimeSlicingOverlay`` writes one overlay per GPU count (found together: :func:`time_slicing_groups`),
``MigCapacityOverlay`` one per MIG-partitioned instance type of a pool (written by its ``MigPartitionedPool`` when that
pool fits, else on its own), ``GpuCapacityOverlay`` ``requirements: [karpenter.k8s.aws/instance-family In [...]]``,
``capacity`` and ``weight``. ``NodeOverlayDiscourage`` writes ``requirements: [node.kubernetes.io/instance-type In [...]]`` (then
``karpenter.sh/nodepool In [...]`` when it names pools), one of ``priceAdjustment`` / ``price``, and ``weight``
(``karpenter_gpu.overlays.node_overlay_discourage``). An overlay of that shape maps onto its props; any other
(a ``capacity`` overlay, other requirements) stays as given: the other overlay constructs derive their requirements
from pool constructs, not from text. Whether the call keeps the object as it is, the check says.
"""

from __future__ import annotations

from typing import Any

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.importer.fit import Call, Unfit, refusal_field, dig
from karpenter_gpu.importer.pysource import call
from karpenter_gpu.k8s.input_layout import metadata
from karpenter_gpu.k8s.labels import Label
from karpenter_gpu.overlays.gpu_capacity_overlay import GpuCapacityOverlayProps
from karpenter_gpu.overlays.mig_capacity_overlay import MigCapacityOverlayProps
from karpenter_gpu.overlays.node_overlay_discourage import NodeOverlayDiscourageProps
from karpenter_gpu.overlays.overlay_price import Price, PriceAdjustment
from karpenter_gpu.overlays.time_slicing_overlay import DEFAULT_GPU_COUNTS, GPU_RESOURCE, TimeSlicingOverlayProps

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
        return Unfit(CONSTRUCT, refusal_field(err), str(err))
    names: set[str] = set()
    return Call(CONSTRUCT, None, call(CONSTRUCT, kwargs, names, 0, head=f"chart, {construct_id!r}"), names, props=kwargs)


def _gpu_count(spec: Any) -> tuple[str, int, tuple[str, ...], int, int] | None:
    """(name suffix, GPU count, pools, replicas, weight) of an overlay ``TimeSlicingOverlay`` writes, else None:
    ``requirements: [instance-gpu-count In [k], karpenter.sh/nodepool In [pools]]``, ``capacity: {nvidia.com/gpu:
    k x replicas}`` and a weight (``karpenter_gpu.overlays.time_slicing_overlay`` ``TimeSlicingCountProps``)."""
    if not isinstance(spec, dict) or set(spec) != {"requirements", "capacity", "weight"}:
        return None
    reqs, capacity, weight = spec["requirements"], spec["capacity"], spec["weight"]
    counts = _in(reqs[0], Label.GPU_COUNT) if isinstance(reqs, list) and len(reqs) == 2 else None
    pools = _in(reqs[1], Label.NODEPOOL) if counts is not None else None
    if counts is None or pools is None or len(counts) != 1 or not counts[0].isdigit() or int(counts[0]) < 1:
        return None
    total = capacity.get(GPU_RESOURCE) if isinstance(capacity, dict) and list(capacity) == [GPU_RESOURCE] else None
    count = int(counts[0])
    if not isinstance(total, str) or not total.isdigit() or int(total) % count or not isinstance(weight, int):
        return None
    return f"-{count}gpu", count, pools, int(total) // count, weight


def time_slicing_groups(manifests: dict[int, dict]) -> list[tuple[list[int], dict[str, Any]]]:
    """The overlays one ``TimeSlicingOverlay`` would write together (index lists, in weight order) and its props:
    one name prefix, the same pools and replicas, consecutive weights (``TimeSlicingOverlayProps.overlays``); a gap
    in the weights starts another call."""
    groups: dict[tuple[str, tuple[str, ...], int], list[tuple[int, int, int]]] = {}
    for index, manifest in manifests.items():
        found = _gpu_count(manifest.get("spec"))
        name = metadata(manifest).get("name")
        if found is None or not isinstance(name, str) or not name.endswith(found[0]):
            continue
        suffix, count, pools, replicas, weight = found
        groups.setdefault((name.removesuffix(suffix), pools, replicas), []).append((weight, count, index))
    out = []
    for (prefix, pools, replicas), members in groups.items():
        members.sort()
        runs = [[members[0]]]  # consecutive weights: one call each run
        for member in members[1:]:
            if member[0] == runs[-1][-1][0] + 1:
                runs[-1].append(member)
            else:
                runs.append([member])
        for run in runs:
            kwargs: dict[str, Any] = {"name": prefix, "replicas": replicas, "node_pools": pools, "weight": run[0][0]}
            counts = tuple(c for _, c, _ in run)
            if counts != DEFAULT_GPU_COUNTS:
                kwargs["gpu_counts"] = counts
            out.append(([i for _, _, i in run], kwargs))
    return out


def time_slicing_call(kwargs: dict[str, Any], construct_id: str) -> Call | Unfit:
    """The ``TimeSlicingOverlay`` call for a group's props."""
    try:
        TimeSlicingOverlayProps(**kwargs)
    except (KarpenterGpuError, ValueError, TypeError) as err:
        return Unfit("TimeSlicingOverlay", "spec", str(err))
    names: set[str] = set()
    return Call("TimeSlicingOverlay", None, call("TimeSlicingOverlay", kwargs, names, 0, head=f"chart, {construct_id!r}"),
                names, props=kwargs)


def mig_overlay(manifest: dict) -> tuple[str, str, dict[str, Any], Any] | None:
    """(pool, instance type, capacity, weight) of an overlay ``MigCapacityOverlay`` writes, else None:
    ``requirements: [node.kubernetes.io/instance-type In [t], karpenter.sh/nodepool In [p]]``, capacity, weight."""
    spec = manifest.get("spec")
    if not isinstance(spec, dict) or set(spec) != {"requirements", "capacity", "weight"}:
        return None
    reqs = spec["requirements"]
    types = _in(reqs[0], Label.INSTANCE_TYPE) if isinstance(reqs, list) and len(reqs) == 2 else None
    pools = _in(reqs[1], Label.NODEPOOL) if types is not None else None
    if types is None or pools is None or len(types) != 1 or len(pools) != 1 or not isinstance(spec["capacity"], dict):
        return None
    return pools[0], types[0], spec["capacity"], spec["weight"]


def mig_overlay_call(manifest: dict, construct_id: str) -> Call | Unfit:
    """The ``MigCapacityOverlay`` call an overlay of its shape suggests."""
    found = mig_overlay(manifest)
    if found is None:
        return Unfit("MigCapacityOverlay", "spec.requirements", "the construct selects one instance type, then one "
                                                                 "karpenter.sh/nodepool, and sets capacity and weight")
    pool, instance_type, capacity, weight = found
    kwargs = {"name": metadata(manifest).get("name"), "weight": weight, "node_pool": pool,
              "instance_type": instance_type, "capacity": capacity}
    try:
        MigCapacityOverlayProps(**kwargs)
    except (KarpenterGpuError, ValueError, TypeError) as err:
        return Unfit("MigCapacityOverlay", refusal_field(err), str(err))
    names: set[str] = set()
    return Call("MigCapacityOverlay", None, call("MigCapacityOverlay", kwargs, names, 0, head=f"chart, {construct_id!r}"),
                names, props=kwargs)


def is_gpu_capacity(manifest: dict) -> bool:
    """Whether the overlay selects instance families only and sets a capacity (``GpuCapacityOverlay``'s shape)."""
    reqs = dig(manifest, "spec", "requirements")
    return isinstance(reqs, list) and len(reqs) == 1 and _in(reqs[0], Label.INSTANCE_FAMILY) is not None \
        and dig(manifest, "spec", "capacity") is not None


def gpu_capacity_call(manifest: dict, construct_id: str) -> Call | Unfit:
    """The ``GpuCapacityOverlay`` call an overlay of its shape suggests."""
    spec = manifest.get("spec")
    if not isinstance(spec, dict) or set(spec) != {"requirements", "capacity", "weight"}:
        return Unfit("GpuCapacityOverlay", "spec", "the construct writes requirements, capacity and a weight only")
    kwargs = {"name": metadata(manifest).get("name"), "weight": spec["weight"],
              "families": _in(spec["requirements"][0], Label.INSTANCE_FAMILY), "capacity": spec["capacity"]}
    try:
        GpuCapacityOverlayProps(**kwargs)
    except (KarpenterGpuError, ValueError, TypeError) as err:
        return Unfit("GpuCapacityOverlay", refusal_field(err), str(err))
    names: set[str] = set()
    return Call("GpuCapacityOverlay", None, call("GpuCapacityOverlay", kwargs, names, 0, head=f"chart, {construct_id!r}"),
                names, props=kwargs)
