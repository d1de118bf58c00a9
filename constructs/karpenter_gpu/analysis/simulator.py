"""Which instance types a NodePool can launch, what it can cost, and where a GPU pod lands.

Works on manifest dicts (what ``cdk8s synth`` writes, or YAML read from ``dist/``) against an
instance-type :class:`~karpenter_gpu.analysis.catalog.Catalog`; pure Python, no cdk8s/jsii import.

The model follows Karpenter v1.14.1 (see shared/upstream/FACTS.md §5, §6):

- A requirement on an instance-type label (:data:`~karpenter_gpu.analysis.catalog.INSTANCE_LABEL_KEYS`) is
  checked against the type's labels; an absent label is absent (``NotIn`` admits it,
  ``DoesNotExist`` requires it, ``In``/``Exists``/``Gt``... reject it). Several requirements on one
  key intersect. Template labels on those keys act as ``In`` requirements; other template labels
  and custom requirement keys are applied to the node and do not restrict instance types.
- ``karpenter.sh/capacity-type`` and ``topology.kubernetes.io/zone`` are offering requirements: the
  report lists the admitted capacity types (of reserved > spot > on-demand) and the declared zones.
  The catalog has no per-zone availability and only on-demand prices.
- ``minValues``: fewer distinct values among the candidates than asked means Karpenter (default
  ``minValuesPolicy: Strict``) does not launch.
- NodeOverlays of the same manifest set apply to the candidates whose labels (plus
  ``karpenter.sh/nodepool`` and the pool's template labels) they match; a capacity-type or zone
  requirement matches when it intersects the pool's offerings. The highest weight's
  ``price``/``priceAdjustment`` wins; ``capacity`` maps merge, the higher weight winning per key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any, Iterable, Mapping, Sequence

from karpenter_gpu.analysis.catalog import INSTANCE_LABEL_KEYS, Catalog, InstanceType, default_catalog
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.units import Quantity

__all__ = [
    "Candidate", "PoolReport", "PodShape", "Fit", "requirement_admits", "admits", "simulate_pools",
    "pod_fit", "first_choice", "CAPACITY_TYPES", "OPERATORS",
]

CAPACITY_TYPE = "karpenter.sh/capacity-type"
ZONE = "topology.kubernetes.io/zone"
NODEPOOL = "karpenter.sh/nodepool"
GPU_COUNT = "karpenter.k8s.aws/instance-gpu-count"
GPU_MANUFACTURER = "karpenter.k8s.aws/instance-gpu-manufacturer"
NVIDIA_GPU = "nvidia.com/gpu"
AMD_GPU = "amd.com/gpu"

#: Capacity types in Karpenter's priority order (reserved > spot > on-demand).
CAPACITY_TYPES: tuple[str, ...] = ("reserved", "spot", "on-demand")
OPERATORS: frozenset[str] = frozenset({"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"})
_NUMERIC = {"Gt": lambda a, b: a > b, "Lt": lambda a, b: a < b, "Gte": lambda a, b: a >= b, "Lte": lambda a, b: a <= b}
_OFFERING_KEYS = frozenset({CAPACITY_TYPE, ZONE})
# Well-known labels a pod may select without the pool declaring them (Karpenter allows them undefined).
_WELL_KNOWN = INSTANCE_LABEL_KEYS | {
    CAPACITY_TYPE, ZONE, NODEPOOL, "topology.kubernetes.io/region", "node.kubernetes.io/windows-build",
    "topology.k8s.aws/zone-id", "kubernetes.io/hostname",
}
# Labels Karpenter puts on instance types or offerings that the catalog does not model.
_UNMODELLED_PREFIXES = ("karpenter.k8s.aws/", "topology.k8s.aws/")
_UNMODELLED = frozenset({"topology.kubernetes.io/region", "node.kubernetes.io/windows-build"})
_BLOCKING_EFFECTS = ("NoSchedule", "NoExecute")
_GI = Decimal(2**30)


# ---------------------------------------------------------------------------------------------
# Requirements


def _int(text: Any) -> int | None:
    if isinstance(text, bool):
        return None
    if isinstance(text, int):
        return text
    if isinstance(text, str) and re.fullmatch(r"-?[0-9]+", text.strip()):
        return int(text)
    return None


def _values(req: Mapping[str, Any]) -> list[str]:
    return [str(v) for v in (req.get("values") or [])]


def _check_requirement(req: Any, where: str) -> dict:
    """A requirement dict with the key, a known operator and values that suit it (KG711 otherwise)."""
    if not isinstance(req, Mapping) or not isinstance(req.get("key"), str) or not req.get("key"):
        raise KarpenterGpuError("KG711", prop=where, value=req, allowed="{key, operator, values[]} with a key",
                                fix="write the requirement as a NodeSelectorRequirement")
    op = req.get("operator")
    if op not in OPERATORS:
        raise KarpenterGpuError("KG711", prop=f"{where}.operator", value=op, allowed=f"one of {sorted(OPERATORS)}",
                                fix="use a Karpenter operator (they are case-sensitive)")
    values = req.get("values") or []
    if not isinstance(values, (list, tuple)):
        raise KarpenterGpuError("KG711", prop=f"{where}.values", value=values, allowed="a list of strings",
                                fix="write values as a list")
    if op in _NUMERIC and (len(values) != 1 or _int(values[0]) is None or _int(values[0]) < 0):
        raise KarpenterGpuError("KG711", prop=f"{where}.values", value=list(values),
                                allowed=f"exactly one non-negative integer for {op}", fix="e.g. values: ['0']")
    if op == "In" and not values:
        raise KarpenterGpuError("KG711", prop=f"{where}.values", value=[], allowed="at least one value for In",
                                fix="list the allowed values or use Exists")
    return dict(req)


def requirement_admits(labels: Mapping[str, str], req: Mapping[str, Any]) -> bool:
    """Whether a node with ``labels`` satisfies one requirement, with Karpenter's semantics.

    ``In`` needs the label with one of the values; ``NotIn`` admits an absent label;
    ``Exists``/``DoesNotExist`` test presence; ``Gt``/``Lt``/``Gte``/``Lte`` need the label with an
    integer value compared to the single integer in ``values`` (a non-integer label never matches).
    """
    key = req["key"]
    op = req["operator"]
    value = labels.get(key)
    if op == "In":
        return value is not None and value in _values(req)
    if op == "NotIn":
        return value is None or value not in _values(req)
    if op == "Exists":
        return value is not None
    if op == "DoesNotExist":
        return value is None
    compare = _NUMERIC.get(op)
    if compare is None:
        raise KarpenterGpuError("KG711", prop="operator", value=op, allowed=f"one of {sorted(OPERATORS)}",
                                fix="use a Karpenter operator (they are case-sensitive)")
    if value is None:
        return False
    values = req.get("values") or []
    left, right = _int(value), (_int(values[0]) if len(values) == 1 else None)
    return left is not None and right is not None and compare(left, right)


def _label_requirements(labels: Mapping[str, str]) -> list[dict]:
    return [{"key": k, "operator": "In", "values": [v]} for k, v in labels.items()]


def admits(instance: InstanceType, requirements: Iterable[Mapping[str, Any]],
           extra_labels: Mapping[str, str] | None = None) -> bool:
    """Whether the pool requirements (and template labels ``extra_labels``) admit this instance type.

    Only requirements on instance-type label keys restrict: offering keys (capacity type, zone) and
    custom keys do not. Several requirements on one key must all hold (they intersect); a template
    label on an instance-type key is an ``In`` requirement.
    """
    labels = instance.labels
    for req in requirements:
        if req["key"] in INSTANCE_LABEL_KEYS and not requirement_admits(labels, req):
            return False
    for key, value in (extra_labels or {}).items():
        if key in INSTANCE_LABEL_KEYS and labels.get(key) != value:
            return False
    return True


def _satisfiable(reqs: Sequence[Mapping[str, Any]]) -> bool:
    """Whether some value (or the label's absence) satisfies all requirements on one key."""
    if not reqs:
        return True
    key = reqs[0]["key"]
    probes: set[str | None] = {None, "\x00other"}
    for req in reqs:
        for v in _values(req):
            probes.add(v)
            n = _int(v)
            if n is not None:
                probes.update(str(n + d) for d in (-1, 1))
    return any(all(requirement_admits({} if p is None else {key: p}, r) for r in reqs) for p in probes)


def _format_req(req: Mapping[str, Any]) -> str:
    values = _values(req)
    return f"{req['key']} {req['operator']}" + (f" {values}" if values else "")


# ---------------------------------------------------------------------------------------------
# Manifests


def _quantity(value: Any, where: str) -> Decimal:
    try:
        return Quantity.parse(value).as_decimal()
    except KarpenterGpuError:
        raise KarpenterGpuError("KG711", prop=where, value=value, allowed="a Kubernetes quantity such as '8', '200Gi'",
                                fix="write the quantity as Kubernetes does") from None


def _is(manifest: Any, api_version: str, kind: str) -> bool:
    return isinstance(manifest, Mapping) and manifest.get("apiVersion") == api_version and manifest.get("kind") == kind


@dataclass(frozen=True)
class _Overlay:
    name: str
    weight: int
    requirements: tuple[dict, ...]
    price: Decimal | None
    adjustment: str | None
    capacity: Mapping[str, Decimal] = field(hash=False)


_ADJUSTMENT = re.compile(r"^([+-])(\d*\.?\d+)(%?)$")


def _parse_overlay(manifest: Mapping[str, Any]) -> _Overlay:
    name = str((manifest.get("metadata") or {}).get("name", "?"))
    spec = manifest.get("spec") or {}
    where = f"NodeOverlay {name}"
    reqs = tuple(_check_requirement(r, f"{where}.spec.requirements[{i}]")
                 for i, r in enumerate(spec.get("requirements") or []))
    price = None
    if spec.get("price") is not None:
        try:
            price = Decimal(str(spec["price"]))
        except InvalidOperation:
            raise KarpenterGpuError("KG711", prop=f"{where}.spec.price", value=spec["price"],
                                    allowed="a decimal number such as '1.25'", fix="write the absolute price") from None
    adjustment = spec.get("priceAdjustment")
    if adjustment is not None and not _ADJUSTMENT.match(str(adjustment)):
        raise KarpenterGpuError("KG711", prop=f"{where}.spec.priceAdjustment", value=adjustment,
                                allowed="'+10%', '-15%', '+1.2' or '-0.5'", fix="write a signed amount or percentage")
    capacity = {str(k): _quantity(v, f"{where}.spec.capacity.{k}") for k, v in (spec.get("capacity") or {}).items()}
    weight = _int(spec.get("weight")) or 0
    reqs = tuple(sorted(reqs, key=lambda r: r["key"] != NODEPOOL))  # pool filters first: they reject fastest
    return _Overlay(name, weight, reqs, price, None if adjustment is None else str(adjustment), capacity)


def _adjust(price: Decimal | None, overlay: _Overlay) -> Decimal | None:
    if overlay.price is not None:
        return overlay.price
    if overlay.adjustment is None or price is None:
        return price
    sign, amount, percent = _ADJUSTMENT.match(overlay.adjustment).groups()  # type: ignore[union-attr]
    delta = Decimal(amount) * (price / 100 if percent else 1)
    result = price + delta if sign == "+" else price - delta
    return max(result, Decimal(0))


@dataclass
class _Pool:
    name: str
    spec: Mapping[str, Any]
    requirements: list[dict]
    labels: dict[str, str]
    taints: list[dict]
    startup_taints: list[dict]
    limits: dict[str, Any]
    weight: int | None
    replicas: int | None


def _parse_pool(manifest: Mapping[str, Any]) -> _Pool:
    name = str((manifest.get("metadata") or {}).get("name", "?"))
    spec = manifest.get("spec") or {}
    template = spec.get("template") or {}
    tspec = template.get("spec") or {}
    reqs = [_check_requirement(r, f"NodePool {name}.spec.template.spec.requirements[{i}]")
            for i, r in enumerate(tspec.get("requirements") or [])]
    labels = {str(k): str(v) for k, v in ((template.get("metadata") or {}).get("labels") or {}).items()}
    replicas = _int(spec.get("replicas")) if spec.get("replicas") is not None else None
    weight = _int(spec.get("weight")) if spec.get("weight") is not None else None
    return _Pool(name, spec, reqs, labels, list(tspec.get("taints") or []), list(tspec.get("startupTaints") or []),
                 dict(spec.get("limits") or {}), weight, replicas)


# ---------------------------------------------------------------------------------------------
# Reports


@dataclass(frozen=True)
class Candidate:
    """An instance type a pool admits, with price and capacity after NodeOverlays.

    ``capacity`` is the type's allocatable (cpu cores, memory bytes, pods, extended resources)
    with overlay capacity merged in; ``overlays`` names the overlays that changed this candidate.
    """

    instance: InstanceType
    price: Decimal | None
    capacity: Mapping[str, Decimal] = field(hash=False)
    overlays: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.instance.name

    @property
    def gpus(self) -> int:
        """GPUs the scheduler sees after overlays (``nvidia.com/gpu``, else ``amd.com/gpu``; 0 if none)."""
        for resource in (NVIDIA_GPU, AMD_GPU):
            if self.capacity.get(resource):
                return int(self.capacity[resource])
        return 0


def _price_key(c: Candidate) -> tuple:
    return (c.price is None, c.price if c.price is not None else Decimal(0), c.instance.name)


@dataclass(frozen=True)
class PoolReport:
    """What one NodePool can launch.

    ``zones`` is empty when the pool does not restrict zones. ``candidates`` are sorted by price
    (after overlays; unknown prices last), then name. ``worst_case_hourly`` is USD/hour:
    dynamic pools ``max(ceil(gpu_limit / c.gpus) * c.price)`` over candidates with GPUs and a price;
    static pools ``replicas * dearest price``. ``problems`` are the notes that make ``launchable`` False.
    """

    name: str
    kind: str
    weight: int | None
    capacity_types: tuple[str, ...]
    zones: tuple[str, ...]
    candidates: tuple[Candidate, ...]
    gpu_limit: int | None
    worst_case_hourly: Decimal | None
    launchable: bool
    notes: tuple[str, ...]
    problems: tuple[str, ...] = ()
    replicas: int | None = None
    requirements: tuple[Mapping[str, Any], ...] = field(default=(), hash=False)
    template_labels: Mapping[str, str] = field(default_factory=dict, hash=False)
    taints: tuple[Mapping[str, Any], ...] = field(default=(), hash=False)
    limits: Mapping[str, Any] = field(default_factory=dict, hash=False)
    worst_case_instance: str | None = None

    @property
    def gpu_names(self) -> tuple[str, ...]:
        return tuple(sorted({c.instance.gpu_name for c in self.candidates if c.instance.gpu_name}))

    @property
    def price_range(self) -> tuple[Decimal, Decimal] | None:
        prices = [c.price for c in self.candidates if c.price is not None]
        return (min(prices), max(prices)) if prices else None

    @property
    def candidate_names(self) -> tuple[str, ...]:
        return tuple(c.instance.name for c in self.candidates)


def _overlay_matches(overlay: _Overlay, instance: InstanceType, pool: _Pool,
                     capacity_types: tuple[str, ...], zones: tuple[str, ...]) -> bool:
    for req in overlay.requirements:  # nodepool requirements first (see _parse_overlay): cheapest rejection
        key = req["key"]
        if key == CAPACITY_TYPE:
            if not any(requirement_admits({key: ct}, req) for ct in capacity_types):
                return False
        elif key == ZONE:
            if zones:
                if not any(requirement_admits({key: z}, req) for z in zones):
                    return False
            elif req["operator"] == "DoesNotExist":  # every node has a zone
                return False
        else:  # one key at a time: merging the label dicts per call cost more than the matching
            value = pool.name if key == NODEPOOL else pool.labels.get(key, instance.labels.get(key))
            if not requirement_admits({} if value is None else {key: value}, req):
                return False
    return True


def _apply_overlays(instance: InstanceType, overlays: Sequence[_Overlay], pool: _Pool,
                    capacity_types: tuple[str, ...], zones: tuple[str, ...]) -> Candidate:
    price = instance.price
    capacity = dict(instance.allocatable)
    if not overlays:
        return Candidate(instance, price, capacity)
    applied: list[str] = []
    priced = False
    added: dict[str, Decimal] = {}
    for overlay in overlays:  # highest weight first, then name
        if not _overlay_matches(overlay, instance, pool, capacity_types, zones):
            continue
        used = False
        if not priced and (overlay.price is not None or overlay.adjustment is not None):
            price = _adjust(instance.price, overlay)
            priced = used = True
        for key, amount in overlay.capacity.items():
            if key not in added:
                added[key] = amount
                used = True
        if used:
            applied.append(overlay.name)
    capacity.update(added)
    return Candidate(instance, price, capacity, tuple(applied))


def _offering_set(pool: _Pool) -> tuple[tuple[str, ...], tuple[str, ...], list[str], list[str]]:
    """(capacity types, zones, notes, problems) from the offering requirements and labels."""
    notes: list[str] = []
    problems: list[str] = []
    ct_reqs = [r for r in pool.requirements if r["key"] == CAPACITY_TYPE]
    ct_reqs += _label_requirements({k: v for k, v in pool.labels.items() if k == CAPACITY_TYPE})
    capacity_types = tuple(ct for ct in CAPACITY_TYPES if all(requirement_admits({CAPACITY_TYPE: ct}, r)
                                                              for r in ct_reqs))
    if not capacity_types:
        problems.append("the karpenter.sh/capacity-type requirements admit none of reserved, spot, on-demand")
    if not ct_reqs:
        notes.append("no karpenter.sh/capacity-type requirement: every capacity type is admitted")
    if "reserved" in capacity_types:
        notes.append("reserved offerings exist only for capacity reservations the EC2NodeClass selects "
                     "(capacityReservationSelectorTerms); Karpenter prefers reserved > spot > on-demand")
    zone_reqs = [r for r in pool.requirements if r["key"] == ZONE]
    zone_reqs += _label_requirements({k: v for k, v in pool.labels.items() if k == ZONE})
    zones: tuple[str, ...] = ()
    declared = [set(_values(r)) for r in zone_reqs if r["operator"] == "In"]
    if declared:
        zones = tuple(sorted(z for z in set.intersection(*declared)
                             if all(requirement_admits({ZONE: z}, r) for r in zone_reqs)))
        if not zones:
            problems.append("the topology.kubernetes.io/zone requirements admit no zone")
        else:
            notes.append(f"zones {', '.join(zones)} as declared: the catalog has no zone availability, so every "
                         f"candidate is assumed to be offered there (fewer zones, fewer spot pools)")
    elif any(r["operator"] == "DoesNotExist" for r in zone_reqs):
        problems.append("topology.kubernetes.io/zone DoesNotExist: every node has a zone")
    return capacity_types, zones, notes, problems


def _limit_amount(pool: _Pool, resource: str) -> Decimal | None:
    if resource not in pool.limits:
        return None
    return _quantity(pool.limits[resource], f"NodePool {pool.name}.spec.limits.{resource}")


def _money(amount: Decimal) -> str:
    return f"{amount:.2f}"  # rounds half-even like quantize, without its 28-digit precision limit


def _simulate(pool: _Pool, catalog: Catalog, overlays: Sequence[_Overlay]) -> PoolReport:
    notes: list[str] = []
    capacity_types, zones, offering_notes, problems = _offering_set(pool)
    instance_reqs = [r for r in pool.requirements if r["key"] in INSTANCE_LABEL_KEYS]
    instance_labels = {k: v for k, v in pool.labels.items() if k in INSTANCE_LABEL_KEYS}
    for req in pool.requirements:
        key = req["key"]
        if key in INSTANCE_LABEL_KEYS or key in _OFFERING_KEYS:
            continue
        if key in _UNMODELLED or key.startswith(_UNMODELLED_PREFIXES):
            notes.append(f"requirement {_format_req(req)} is not modelled by the catalog and was not applied")
    admitted = [it for it in catalog.types if admits(it, instance_reqs, instance_labels)]
    candidates = tuple(sorted((_apply_overlays(it, overlays, pool, capacity_types, zones) for it in admitted),
                              key=_price_key))
    if not candidates:
        problems.insert(0, f"no instance type in the catalog ({len(catalog.types)} types) meets the requirements: "
                           "'no instance type met the scheduling requirements or had a required offering'")
    # minValues (the maximum over duplicate keys applies; checking each is equivalent)
    for req in pool.requirements:
        wanted = _int(req.get("minValues"))
        if not wanted:
            continue
        key = req["key"]
        if key == CAPACITY_TYPE:
            distinct = set(capacity_types)
        elif key == ZONE:
            if not zones:
                notes.append(f"minValues {wanted} on {key}: zone availability is not in the catalog, not checked")
                continue
            distinct = set(zones)
        elif key in INSTANCE_LABEL_KEYS:
            distinct = {c.instance.labels[key] for c in candidates if key in c.instance.labels}
        else:
            continue
        if len(distinct) < wanted:
            problems.append(f"minValues {wanted} on {key}: only {len(distinct)} distinct value(s) among the "
                            f"candidates ({', '.join(sorted(distinct)) or 'none'}); Karpenter will not launch "
                            "(minValuesPolicy Strict)")
    notes.extend(offering_notes)
    zero_gpu = [c.instance.name for c in candidates
                if c.instance.labels.get(GPU_MANUFACTURER) == "nvidia" and not c.capacity.get(NVIDIA_GPU)]
    if zero_gpu:
        notes.append(f"{len(zero_gpu)} candidates report 0 GPUs and cannot run nvidia.com/gpu pods without a "
                     f"NodeOverlay ({', '.join(zero_gpu)})")
    unpriced = [c.instance.name for c in candidates if c.price is None]
    if unpriced:
        notes.append(f"{len(unpriced)} candidate(s) have no price in the catalog ({', '.join(unpriced)}): "
                     "left out of cost figures")
    overlaid = sorted({o for c in candidates for o in c.overlays})
    if overlaid:
        notes.append(f"NodeOverlays applied: {', '.join(overlaid)} (scheduling simulation only, not billing)")

    kind = "static" if pool.replicas is not None else "dynamic"
    gpu_resource = next((r for r in (NVIDIA_GPU, AMD_GPU) if r in pool.limits), None)
    gpu_limit = None
    if gpu_resource is not None:
        gpu_limit = int(_limit_amount(pool, gpu_resource))  # type: ignore[arg-type]
    worst: Decimal | None = None
    worst_name: str | None = None
    if kind == "static":
        priced = [c for c in candidates if c.price is not None]
        if priced:
            dearest = max(priced, key=lambda c: (c.price, c.instance.name))
            worst, worst_name = pool.replicas * dearest.price, dearest.instance.name  # type: ignore[operator]
            notes.append(f"static pool: {pool.replicas} replicas x dearest candidate {dearest.instance.name} "
                         f"({dearest.price}/h) = {_money(worst)}/h")
            nodes = _limit_amount(pool, "nodes")
            if nodes is not None and nodes > pool.replicas:  # type: ignore[operator]
                notes.append(f"limits.nodes {nodes} lets drift/expiry replacement surge to {nodes} nodes "
                             f"({_money(nodes * dearest.price)}/h at the dearest candidate)")
            elif nodes is None:
                notes.append("no limits.nodes: drift/expiry replacement can surge above replicas")
    elif gpu_limit is None:
        notes.append("no nvidia.com/gpu limit: the pool's GPU spend is unbounded")
    else:
        options = []
        for c in candidates:
            gpus = int(c.capacity.get(gpu_resource, 0))  # type: ignore[arg-type]
            if gpus > 0 and c.price is not None:
                options.append((-(-gpu_limit // gpus) * c.price, c.instance.name, gpus))  # exact ceil: no float
        if options:
            amount, worst_name, gpus = max(options)
            worst = amount
            notes.append(f"worst case {_money(amount)}/h: {-(-gpu_limit // gpus)} x {worst_name} "
                         f"({gpus} GPU(s) each) to reach the {gpu_resource} limit {gpu_limit}")
        else:
            notes.append(f"no priced candidate has {gpu_resource} capacity: the limit {gpu_limit} cannot be "
                         "turned into a cost")
        notes.append("limits are eventually consistent and can overrun during fast scale-out")
    return PoolReport(
        name=pool.name, kind=kind, weight=pool.weight, capacity_types=capacity_types, zones=zones,
        candidates=candidates, gpu_limit=gpu_limit, worst_case_hourly=worst, launchable=not problems,
        notes=tuple(problems + notes), problems=tuple(problems), replicas=pool.replicas,
        requirements=tuple(pool.requirements), template_labels=dict(pool.labels), taints=tuple(pool.taints),
        limits=dict(pool.limits), worst_case_instance=worst_name,
    )


def _pools_and_overlays(manifests: Sequence[Any]) -> tuple[list[_Pool], list[_Overlay]]:
    pools = [_parse_pool(m) for m in manifests if _is(m, "karpenter.sh/v1", "NodePool")]
    overlays = [_parse_overlay(m) for m in manifests if _is(m, "karpenter.sh/v1alpha1", "NodeOverlay")]
    overlays.sort(key=lambda o: (-o.weight, o.name))
    return pools, overlays


def _weight_order(report: PoolReport) -> tuple:
    return (-(report.weight or 0), report.name)


def simulate_pools(manifests: Sequence[Mapping[str, Any]], catalog: Catalog | None = None) -> list[PoolReport]:
    """A :class:`PoolReport` for every ``karpenter.sh/v1`` NodePool, highest weight first, then name.

    NodeOverlays (``karpenter.sh/v1alpha1``) in the same manifests are applied to the candidates.
    ``catalog`` defaults to :func:`~karpenter_gpu.analysis.catalog.default_catalog`.
    """
    catalog = catalog if catalog is not None else default_catalog()
    pools, overlays = _pools_and_overlays(manifests)
    return sorted((_simulate(p, catalog, overlays) for p in pools), key=_weight_order)


# ---------------------------------------------------------------------------------------------
# Pod fit


def _fail_shape(text: Any, allowed: str) -> KarpenterGpuError:
    return KarpenterGpuError(
        "KG710", prop="pod shape", value=text, allowed=allowed,
        fix="write e.g. 'gpus=1,cpu=4,memory=16Gi,tolerate=nvidia.com/gpu,select=karpenter.sh/nodepool=gpu-inference'",
    )


def _toleration(text: str) -> dict:
    """``key``, ``key=value``, ``key:Effect``, ``key=value:Effect``, ``*`` (tolerate everything)."""
    body, _, effect = text.partition(":")
    if effect and effect not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
        raise _fail_shape(text, "a taint effect NoSchedule, PreferNoSchedule or NoExecute after ':'")
    key, eq, value = body.partition("=")
    tol: dict[str, str] = {"operator": "Equal", "key": key, "value": value} if eq else {"operator": "Exists"}
    if not eq and key != "*":
        tol["key"] = key
    if not key:
        raise _fail_shape(text, "tolerate=<key>[=<value>][:<effect>] or tolerate=*")
    if effect:
        tol["effect"] = effect
    return tol


def _affinity(text: str) -> dict:
    """``key:Op`` or ``key:Op:v1|v2`` (one matchExpression)."""
    parts = text.split(":")
    if len(parts) not in (2, 3) or not parts[0]:
        raise _fail_shape(text, "affinity=<key>:<Operator>[:<v1>|<v2>]")
    req = {"key": parts[0], "operator": parts[1], "values": parts[2].split("|") if len(parts) == 3 else []}
    try:
        return _check_requirement(req, "pod shape affinity")
    except KarpenterGpuError as exc:
        raise _fail_shape(text, exc.allowed) from None


@dataclass(frozen=True)
class PodShape:
    """A pending pod as Karpenter sees it: requests, tolerations, node selector, required node affinity.

    ``memory`` is bytes and ``cpu`` cores. ``required_affinity`` holds matchExpressions (one
    nodeSelectorTerm, ANDed). ``gpu_resource`` is the extended resource ``gpus`` requests.
    """

    gpus: int = 1
    cpu: Decimal = Decimal(1)
    memory: Decimal = _GI
    tolerations: tuple[Mapping[str, Any], ...] = field(default=(), hash=False)
    node_selector: Mapping[str, str] = field(default_factory=dict, hash=False)
    required_affinity: tuple[Mapping[str, Any], ...] = field(default=(), hash=False)
    gpu_resource: str = NVIDIA_GPU

    @classmethod
    def parse(cls, text: str) -> "PodShape":
        """Parse ``gpus=1,cpu=4,memory=16Gi,tolerate=nvidia.com/gpu,select=karpenter.sh/nodepool=x``.

        Keys: ``gpus`` (or ``gpu``), ``cpu`` and ``memory`` (Kubernetes quantities), ``tolerate``
        (``key``, ``key=value``, ``key:Effect``, ``*``), ``select`` (``key=value``), ``affinity``
        (``key:Op[:v1|v2]``) and ``resource`` (the GPU resource, default nvidia.com/gpu).
        ``tolerate``, ``select`` and ``affinity`` may repeat. Raises KG710 on bad input.
        """
        if not isinstance(text, str):
            raise _fail_shape(text, "a string of comma-separated key=value items")
        gpus, cpu, memory, resource = 1, Decimal(1), _GI, NVIDIA_GPU
        tolerations: list[dict] = []
        selector: dict[str, str] = {}
        affinity: list[dict] = []
        for item in (i.strip() for i in text.split(",")):
            if not item:
                continue
            key, eq, value = item.partition("=")
            key = key.strip().lower()
            if not eq or not value:
                raise _fail_shape(item, "key=value items: gpus, cpu, memory, tolerate, select, affinity, resource")
            if key in ("gpus", "gpu"):
                n = _int(value)
                if n is None or n < 0:
                    raise _fail_shape(item, "gpus as a whole number >= 0")
                gpus = n
            elif key in ("cpu", "memory", "mem"):
                try:
                    amount = Quantity(value).as_decimal()
                except KarpenterGpuError:
                    amount = Decimal(-1)
                if amount < 0:
                    raise _fail_shape(item, f"{key} as a non-negative Kubernetes quantity ('4', '500m', '16Gi')")
                if key == "cpu":
                    cpu = amount
                else:
                    memory = amount
            elif key == "tolerate":
                tolerations.append(_toleration(value))
            elif key == "select":
                k, eq2, v = value.partition("=")
                if not eq2 or not k:
                    raise _fail_shape(item, "select=<label key>=<value>")
                selector[k] = v
            elif key == "affinity":
                affinity.append(_affinity(value))
            elif key == "resource":
                resource = value
            else:
                raise _fail_shape(item, "keys gpus, cpu, memory, tolerate, select, affinity, resource")
        return cls(gpus=gpus, cpu=cpu, memory=memory, tolerations=tuple(tolerations), node_selector=selector,
                   required_affinity=tuple(affinity), gpu_resource=resource)

    def describe(self) -> str:
        parts = [f"{self.gpu_resource}={self.gpus}", f"cpu={self.cpu.normalize():f}",
                 f"memory={_bytes(self.memory)}"]
        return ", ".join(parts)

    def requirements(self) -> list[dict]:
        """The node selector as In requirements plus the required affinity expressions."""
        reqs = [{"key": k, "operator": "In", "values": [v]} for k, v in self.node_selector.items()]
        return reqs + [_check_requirement(r, "pod shape affinity") for r in self.required_affinity]


def _bytes(amount: Decimal) -> str:
    for unit, size in (("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
        if amount >= size and amount == amount.to_integral_value() and int(amount) % size == 0:  # exact for any size
            return f"{int(amount // size)}{unit}"
    return f"{amount.normalize():f}"


@dataclass(frozen=True)
class Fit:
    """Where a pod would land in one pool: the cheapest fitting instance, or why it does not fit."""

    pool: str
    instance: str | None
    price: Decimal | None
    reason: str | None
    kind: str = "dynamic"
    weight: int | None = None


def _tolerates(toleration: Mapping[str, Any], taint: Mapping[str, Any]) -> bool:
    """Kubernetes ToleratesTaint."""
    effect = toleration.get("effect") or ""
    if effect and effect != taint.get("effect"):
        return False
    key = toleration.get("key") or ""
    operator = toleration.get("operator") or "Equal"
    if key and key != taint.get("key"):
        return False
    if operator == "Exists":
        return True
    return bool(key) and (toleration.get("value") or "") == (taint.get("value") or "")


def _taint_text(taint: Mapping[str, Any]) -> str:
    value = taint.get("value")
    return f"{taint.get('key')}{'=' + str(value) if value else ''}:{taint.get('effect')}"


def _node_resource(c: Candidate, resource: str) -> Decimal | None:
    """The node's capacity in a limit's terms (limits count capacity, not allocatable)."""
    labels = c.instance.labels
    if resource == "cpu":
        value = _int(labels.get("karpenter.k8s.aws/instance-cpu"))
        return Decimal(value) if value is not None else c.capacity.get("cpu")
    if resource == "memory":
        value = _int(labels.get("karpenter.k8s.aws/instance-memory"))
        return Decimal(value) * 2**20 if value is not None else c.capacity.get("memory")
    if resource == "nodes":
        return Decimal(1)
    if resource == "pods":
        return None
    return c.capacity.get(resource, Decimal(0))


def _within_limits(c: Candidate, report: PoolReport) -> str | None:
    """None when one node of ``c`` fits under every limit, else the limit it breaks."""
    for resource, raw in report.limits.items():
        limit = _quantity(raw, f"NodePool {report.name}.spec.limits.{resource}")
        amount = _node_resource(c, str(resource))
        if amount is not None and amount > limit:
            return f"{resource} {raw}"
    return None


def _selector_conflict(report: PoolReport, req: Mapping[str, Any],
                       candidates: list[Candidate]) -> tuple[str | None, list[Candidate]]:
    key = req["key"]
    if key in INSTANCE_LABEL_KEYS:
        kept = [c for c in candidates if requirement_admits(c.instance.labels, req)]
        if not kept:
            return (f"node selector/affinity {_format_req(req)} admits none of the pool's "
                    f"{len(candidates)} candidate(s)"), kept
        return None, kept
    if key == NODEPOOL:
        if not requirement_admits({NODEPOOL: report.name}, req):
            return f"node selector/affinity {_format_req(req)} does not match pool {report.name}", candidates
        return None, candidates
    if key == CAPACITY_TYPE:
        if not any(requirement_admits({key: ct}, req) for ct in report.capacity_types):
            return (f"node selector/affinity {_format_req(req)} conflicts with the pool's capacity types "
                    f"{list(report.capacity_types)}"), candidates
        return None, candidates
    pool_side = [r for r in report.requirements if r["key"] == key]
    pool_side += _label_requirements({k: v for k, v in report.template_labels.items() if k == key})
    if not pool_side:
        if key in _WELL_KNOWN or req["operator"] in ("NotIn", "DoesNotExist"):
            return None, candidates
        return (f"label {key} is not defined by the pool's requirements or template labels "
                f"(Karpenter: 'label does not have known values')"), candidates
    if not _satisfiable([*pool_side, req]):
        return f"node selector/affinity {_format_req(req)} conflicts with the pool's {key} requirement", candidates
    return None, candidates


def _fit_one(shape: PodShape, report: PoolReport, pod_reqs: list[dict]) -> Fit:
    def fit(instance: str | None = None, price: Decimal | None = None, reason: str | None = None) -> Fit:
        return Fit(report.name, instance, price, reason, report.kind, report.weight)

    if not report.launchable:
        return fit(reason="pool cannot launch: " + report.problems[0])
    for taint in report.taints:
        if taint.get("effect") in _BLOCKING_EFFECTS and not any(_tolerates(t, taint) for t in shape.tolerations):
            return fit(reason=f"taint {_taint_text(taint)} is not tolerated")
    candidates = list(report.candidates)
    for req in pod_reqs:
        reason, candidates = _selector_conflict(report, req, candidates)
        if reason:
            return fit(reason=reason)
    fitting = [c for c in candidates
               if c.capacity.get("cpu", Decimal(0)) >= shape.cpu
               and c.capacity.get("memory", Decimal(0)) >= shape.memory
               and c.capacity.get("pods", Decimal(1)) >= 1
               and (shape.gpus == 0 or c.capacity.get(shape.gpu_resource, Decimal(0)) >= shape.gpus)]
    if not fitting:
        needs = [("cpu", shape.cpu), ("memory", shape.memory)]
        if shape.gpus:
            needs.append((shape.gpu_resource, Decimal(shape.gpus)))
        short = []
        for resource, wanted in needs:
            most = max((c.capacity.get(resource, Decimal(0)) for c in candidates), default=Decimal(0))
            if most < wanted:
                shown = _bytes(most) if resource == "memory" else f"{most.normalize():f}"
                short.append(f"{resource} (at most {shown})")
        detail = ("short of " + ", ".join(short)) if short else "no single candidate has all of it"
        return fit(reason=f"no candidate has enough allocatable for {shape.describe()}: {detail} "
                          f"among {len(candidates)} candidate(s)")
    within = [c for c in fitting if _within_limits(c, report) is None]
    if not within:
        broken = sorted({_within_limits(c, report) for c in fitting})  # type: ignore[type-var]
        return fit(reason=f"limit already smaller than one node: limits {', '.join(broken)} is below every one "
                          f"of the {len(fitting)} candidate(s) that fit")
    best = within[0]
    if report.kind == "static":
        return fit(reason=f"static pool (replicas {report.replicas}): the pod fits its nodes ({best.instance.name}) "
                          "only where they have room; Karpenter never launches nodes for pending pods")
    return fit(best.instance.name, best.price)


def pod_fit(shape: PodShape, manifests: Sequence[Mapping[str, Any]], catalog: Catalog | None = None) -> list[Fit]:
    """A :class:`Fit` per NodePool, in weight order: the cheapest fitting instance or the reason.

    A pool does not fit when it cannot launch, a NoSchedule/NoExecute taint (not startup taints) is
    not tolerated, the node selector / required affinity conflicts with its requirements and labels
    (``karpenter.sh/nodepool`` is the pool's name), no candidate has enough allocatable cpu, memory
    and GPUs (after overlays), or a limit is smaller than one node of every candidate that fits.
    """
    pod_reqs = shape.requirements()
    return [_fit_one(shape, report, pod_reqs) for report in simulate_pools(manifests, catalog)]


def first_choice(fits: Iterable[Fit]) -> Fit | None:
    """The first fit with an instance: the highest-weight pool that fits, at its cheapest offering."""
    return next((f for f in fits if f.instance is not None), None)
