"""Read-only views of NodePool, EC2NodeClass and NodeOverlay manifest dicts: the only place they are parsed.

Hand-written YAML can hold anything, so a view never raises on a wrong type: a field of the wrong
type reads as unset, and a requirement Karpenter cannot read is kept in :attr:`NodePoolView.problem`
(a coded :class:`~karpenter_gpu.errors.KarpenterGpuError`, KG620) for the caller to report.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import cached_property
from typing import Any, Mapping, Sequence

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.labels import (
    AUTO_COMPUTE_TYPE, AUTO_MODE_GROUP, AUTO_MODE_NODE_CLASS_KIND, AUTO_MODE_WELL_KNOWN_LABELS, CAPACITY_TYPES, COMPUTE_TYPE,
    HYBRID_GROUP_LABEL, NODE_CLASS_KIND, NODEPOOL_KIND, NVIDIA_GPU, OVERLAY_KIND, AWS_GROUP, RESTRICTED_LABELS,
    WELL_KNOWN_LABELS, Label, is_kind,
)
from karpenter_gpu.k8s.scheduling import Requirements, atoi, order_by_weight

__all__ = [
    "HybridGroupView",
    "NodeClassView",
    "NodePoolView",
    "OverlayView",
    "hybrid_groups",
    "node_classes",
    "node_pools",
    "ordered_overlays",
    "ordered_pools",
    "overlays",
]


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    return atoi(value) if isinstance(value, str) else None


def _name(manifest: Mapping[str, Any]) -> str:
    return str(_dict(manifest.get("metadata")).get("name") or "")


def _requirements(raw: list, where: str) -> tuple[Requirements | None, KarpenterGpuError | None]:
    try:
        return Requirements.from_dicts(raw, where), None
    except KarpenterGpuError as error:
        return None, error


@dataclass(frozen=True, eq=False)
class NodePoolView:
    """A ``karpenter.sh/v1`` NodePool. ``requirements`` is None when :attr:`problem` says why it cannot be read."""

    manifest: Mapping[str, Any] = field(repr=False)
    name: str
    spec: dict = field(repr=False)
    template: dict = field(repr=False)
    template_spec: dict = field(repr=False)
    labels: dict = field(repr=False)
    requirement_dicts: tuple[dict, ...] = field(repr=False)
    requirements: Requirements | None = field(repr=False)
    problem: KarpenterGpuError | None = field(repr=False)

    REQUIREMENTS = "spec.template.spec.requirements"
    LABELS = "spec.template.metadata.labels"

    @classmethod
    def of(cls, manifest: Mapping[str, Any]) -> "NodePoolView":
        spec = _dict(manifest.get("spec"))
        template = _dict(spec.get("template"))
        tspec = _dict(template.get("spec"))
        labels = _dict(_dict(template.get("metadata")).get("labels"))
        raw = _list(tspec.get("requirements"))
        reqs, problem = _requirements(raw, f"NodePool {_name(manifest)}.{cls.REQUIREMENTS}")
        return cls(manifest, _name(manifest), spec, template, tspec, labels,
                   tuple(r if isinstance(r, dict) else {} for r in raw), reqs, problem)

    @property
    def metadata(self) -> dict:
        return _dict(self.manifest.get("metadata"))

    @cached_property
    def weight(self) -> int | None:
        return _int(self.spec.get("weight")) if self.spec.get("weight") is not None else None

    @cached_property
    def replicas(self) -> int | None:
        return _int(self.spec.get("replicas")) if self.spec.get("replicas") is not None else None

    @property
    def static(self) -> bool:
        """Static when ``spec.replicas`` is set (any value: the CRD decides the mode by presence)."""
        return self.spec.get("replicas") is not None

    @cached_property
    def limits(self) -> dict:
        return _dict(self.spec.get("limits"))

    @property
    def disruption(self) -> Any:
        return self.spec.get("disruption")

    @property
    def budgets(self) -> list[dict]:
        """``spec.disruption.budgets`` (mappings only); empty when unset (the CRD then defaults one 10% budget)."""
        return [b for b in _list(_dict(self.disruption).get("budgets")) if isinstance(b, dict)]

    @property
    def annotations(self) -> dict:
        return _dict(self.metadata.get("annotations"))

    @property
    def taints(self) -> list[dict]:
        return [t for t in _list(self.template_spec.get("taints")) if isinstance(t, dict)]

    @property
    def startup_taints(self) -> list[dict]:
        return [t for t in _list(self.template_spec.get("startupTaints")) if isinstance(t, dict)]

    @cached_property
    def node_class_ref(self) -> dict:
        return _dict(self.template_spec.get("nodeClassRef"))

    @cached_property
    def auto_mode(self) -> bool:
        """The pool runs on EKS Auto Mode: ``nodeClassRef`` is ``{group: eks.amazonaws.com, kind: NodeClass}``
        (https://docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html)."""
        ref = self.node_class_ref
        return (ref.get("group"), ref.get("kind")) == (AUTO_MODE_GROUP, AUTO_MODE_NODE_CLASS_KIND[1])

    @property
    def well_known_labels(self) -> frozenset[str]:
        """Labels a pod may select without the pool declaring them (``AllowUndefinedWellKnownLabels``): Karpenter's
        :data:`~karpenter_gpu.k8s.labels.WELL_KNOWN_LABELS`, or on Auto Mode the keys EKS documents for it
        (:data:`~karpenter_gpu.k8s.labels.AUTO_MODE_WELL_KNOWN_LABELS`)."""
        return AUTO_MODE_WELL_KNOWN_LABELS if self.auto_mode else WELL_KNOWN_LABELS

    @cached_property
    def string_labels(self) -> dict[str, str]:
        return {str(k): str(v) for k, v in self.labels.items()}

    @cached_property
    def template_requirements(self) -> Requirements:
        """The NodeClaim template's requirements: ``NewNodeClaimTemplate`` (``pkg/controllers/provisioning/
        scheduling/nodeclaimtemplate.go``) adds the NodePool requirements, then the template labels plus
        ``karpenter.sh/nodepool`` and the node-class label as ``In`` requirements (intersected per key).
        On Auto Mode the node-class label is ``eks.amazonaws.com/compute-type: auto``, which EKS sets on every
        node it manages (https://docs.aws.amazon.com/eks/latest/userguide/associate-workload.html).
        Empty when the requirements cannot be read (see :attr:`problem`)."""
        labels = {**self.string_labels, Label.NODEPOOL: self.name}
        ref = self.node_class_ref
        if isinstance(ref.get("name"), str) and ref.get("kind") == NODE_CLASS_KIND[1]:
            labels[f"{AWS_GROUP}/ec2nodeclass"] = ref["name"]
        if self.auto_mode:
            labels[COMPUTE_TYPE] = AUTO_COMPUTE_TYPE
        return (self.requirements or Requirements()).merged(Requirements.from_labels(labels))

    @cached_property
    def label_panic(self) -> tuple[str, str] | None:
        """(key, requirement) of the first custom-label requirement (by key) Karpenter cannot pick a label value
        from: ``NodeClaimTemplate.ToNodeClaim`` (``pkg/controllers/provisioning/scheduling/nodeclaimtemplate.go``
        ``resolveCustomLabelsFromRequirements``) calls ``Requirement.Any`` on every template requirement whose key is
        not well known, not restricted and not a scheduling-simulation key, and that panics
        (:attr:`~karpenter_gpu.k8s.scheduling.Requirement.any_panics`): each NodeClaim of the pool fails as Karpenter
        creates it. None when every requirement gives a value."""
        for key, req in sorted(self.template_requirements.items()):
            if key in self.well_known_labels or key in RESTRICTED_LABELS or key in _SIMULATION_KEYS:
                continue
            if req.any_panics:
                return key, str(req)
        return None

    @cached_property
    def capacity_types(self) -> tuple[str, ...]:
        """Capacity types the template admits, in the provider's preference order (reserved, spot,
        on-demand). No capacity-type requirement admits all three: ``Requirements.Get`` of an undefined
        key is Exists, so ``getCapacityType`` (aws ``pkg/providers/instance/instance.go``) picks spot
        before on-demand whenever a spot offering exists."""
        req = self.template_requirements.get(Label.CAPACITY_TYPE)
        return tuple(ct for ct in CAPACITY_TYPES if req.has(ct))

    @property
    def declares_capacity_type(self) -> bool:
        return Label.CAPACITY_TYPE in self.template_requirements


@dataclass(frozen=True, eq=False)
class NodeClassView:
    """A ``karpenter.k8s.aws/v1`` EC2NodeClass."""

    manifest: Mapping[str, Any] = field(repr=False)
    name: str
    spec: dict = field(repr=False)

    @classmethod
    def of(cls, manifest: Mapping[str, Any]) -> "NodeClassView":
        return cls(manifest, _name(manifest), _dict(manifest.get("spec")))

    @property
    def alias(self) -> str | None:
        """The first ``amiSelectorTerms[].alias`` (``EC2NodeClass.Alias``)."""
        for term in _list(self.spec.get("amiSelectorTerms")):
            alias = _dict(term).get("alias")
            if isinstance(alias, str) and alias:
                return alias
        return None

    @property
    def ami_family(self) -> str:
        """``EC2NodeClass.AMIFamily`` (aws ``pkg/apis/v1/ec2nodeclass.go``): ``spec.amiFamily``, else the
        alias family (``al2023@v…`` → AL2023), else Custom. This resolved value, not the field, is hashed."""
        family = self.spec.get("amiFamily")
        if isinstance(family, str) and family:
            return family
        alias = self.alias
        if alias:
            return _ALIAS_FAMILIES.get(alias.split("@", 1)[0].lower(), alias.split("@", 1)[0])
        return "Custom"


#: ``amiFamilyFromAlias``: the alias prefix in the family's spelling.
#: ``schedulingSimulationKeys`` (nodeclaimtemplate.go): the labels the scheduler adds to simulate DaemonSets.
_SIMULATION_KEYS = frozenset({"karpenter.sh/registered", "karpenter.sh/initialized"})
_ALIAS_FAMILIES = {"al2": "AL2", "al2023": "AL2023", "bottlerocket": "Bottlerocket", "windows2019": "Windows2019",
                   "windows2022": "Windows2022", "windows2025": "Windows2025"}
_ADJUSTMENT = re.compile(r"^([+-])([0-9]*\.?[0-9]+)(%?)\Z")


@dataclass(frozen=True, eq=False)
class OverlayView:
    """A ``karpenter.sh/v1alpha1`` NodeOverlay. ``problem`` is set when Karpenter could not read it."""

    manifest: Mapping[str, Any] = field(repr=False)
    name: str
    weight: int
    requirements: Requirements
    price: str | None
    price_adjustment: str | None
    capacity: Mapping[str, Any] = field(repr=False)
    problem: KarpenterGpuError | None = field(default=None, repr=False)

    @classmethod
    def of(cls, manifest: Mapping[str, Any]) -> "OverlayView":
        name = _name(manifest)
        spec = _dict(manifest.get("spec"))
        where = f"NodeOverlay {name}.spec"
        reqs, problem = _requirements(_list(spec.get("requirements")), f"{where}.requirements")
        price = spec.get("price")
        adjustment = spec.get("priceAdjustment")
        if problem is None and price is not None:
            try:
                Decimal(str(price))
            except InvalidOperation:
                problem = KarpenterGpuError("KG620", prop=f"{where}.price", value=price,
                                            allowed="a decimal number such as '1.25'", fix="write the absolute price")
        if problem is None and adjustment is not None and not _ADJUSTMENT.match(str(adjustment)):
            problem = KarpenterGpuError("KG620", prop=f"{where}.priceAdjustment", value=adjustment,
                                        allowed="'+10%', '-15%', '+1.2' or '-0.5'",
                                        fix="write a signed amount or percentage")
        return cls(manifest, name, _int(spec.get("weight")) or 0, reqs or Requirements(),
                   None if price is None else str(price), None if adjustment is None else str(adjustment),
                   _dict(spec.get("capacity")), problem)

    @property
    def changes_price(self) -> bool:
        return self.price is not None or self.price_adjustment is not None

    def adjusted(self, price: Decimal | None) -> Decimal | None:
        """``AdjustedPrice`` (``pkg/cloudprovider/types.go``): an absolute ``price`` replaces it, ``±N%``
        scales it, ``±N`` adds to it, never below 0. An unknown price stays unknown unless replaced."""
        if self.price is not None:
            return Decimal(self.price)
        if self.price_adjustment is None or price is None:
            return price
        sign, amount, percent = _ADJUSTMENT.match(self.price_adjustment).groups()  # type: ignore[union-attr]
        delta = Decimal(amount) * (price / 100 if percent else 1)
        return max(price + delta if sign == "+" else price - delta, Decimal(0))


def node_pools(manifests: Sequence[Any]) -> list[NodePoolView]:
    return [NodePoolView.of(m) for m in manifests if is_kind(m, NODEPOOL_KIND)]


def node_classes(manifests: Sequence[Any]) -> list[NodeClassView]:
    return [NodeClassView.of(m) for m in manifests if is_kind(m, NODE_CLASS_KIND)]


def overlays(manifests: Sequence[Any]) -> list[OverlayView]:
    return [OverlayView.of(m) for m in manifests if is_kind(m, OVERLAY_KIND)]


def ordered_pools(pools: Sequence[NodePoolView]) -> list[NodePoolView]:
    """NodePools in the order the scheduler tries them (``pkg/utils/nodepool`` ``OrderByWeight``)."""
    return order_by_weight(pools, lambda p: p.weight, lambda p: p.name)


def ordered_overlays(items: Sequence[OverlayView]) -> list[OverlayView]:
    """NodeOverlays in the order the overlay controller applies them (``NodeOverlayList.OrderByWeight``)."""
    return order_by_weight(items, lambda o: o.weight, lambda o: o.name)


@dataclass(frozen=True, eq=False)
class HybridGroupView:
    """A hybrid node group, read from the ``v1`` ConfigMap labelled ``karpenter-gpu.io/hybrid-group`` that
    :class:`~karpenter_gpu.pools.hybrid_gpu_nodes.HybridGpuNodeGroup` renders: a fixed set of on-premises nodes
    (not Karpenter-managed) with these labels, taints and GPUs. ``problem`` says what cannot be read."""

    manifest: Mapping[str, Any] = field(repr=False)
    name: str
    node_labels: Mapping[str, str]
    taints: tuple[dict, ...]
    gpu_name: str
    gpus_per_node: int
    nodes: int
    location: str
    gpu_resource: str
    cpu: str | None = None
    memory: str | None = None
    problem: str | None = None

    @classmethod
    def of(cls, manifest: Mapping[str, Any]) -> "HybridGroupView":
        labels = _dict(_dict(manifest.get("metadata")).get("labels"))
        data = _dict(manifest.get("data"))
        name = str(labels.get(HYBRID_GROUP_LABEL) or _name(manifest))
        problem = None

        def decoded(key: str, kind: type) -> Any:
            nonlocal problem
            try:
                value = json.loads(str(data.get(key, "")))
            except ValueError:
                value = None
            if not isinstance(value, kind):
                problem = problem or f"data.{key} is not a JSON {kind.__name__}"
                return kind()
            return value
        node_labels = {str(k): str(v) for k, v in decoded("nodeLabels", dict).items()}
        taints = tuple(_dict(t) for t in decoded("taints", list))
        counts = {key: _int(data.get(key)) for key in ("gpusPerNode", "nodes")}
        for key, value in counts.items():
            if value is None or value < 1:
                problem = problem or f"data.{key} is not a whole number ≥ 1"
        return cls(manifest, name, node_labels, taints, str(data.get("gpuName") or ""), counts["gpusPerNode"] or 0,
                   counts["nodes"] or 0, str(data.get("location") or ""), str(data.get("gpuResource") or NVIDIA_GPU),
                   None if data.get("cpu") is None else str(data["cpu"]),
                   None if data.get("memory") is None else str(data["memory"]), problem)

    @property
    def gpu_count(self) -> int:
        return self.nodes * self.gpus_per_node


def hybrid_groups(manifests: Sequence[Any]) -> list[HybridGroupView]:
    """The hybrid node groups described in ``manifests``, in name order."""
    found = [HybridGroupView.of(m) for m in manifests
             if is_kind(m, ("v1", "ConfigMap")) and HYBRID_GROUP_LABEL in _dict(_dict(m.get("metadata")).get("labels"))]
    return sorted(found, key=lambda g: g.name)
