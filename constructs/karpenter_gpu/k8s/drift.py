"""Drift as Karpenter v1.14.1 decides it: hashes, requirement drift per NodeClaim, static replacement.

- :func:`hash_form` / :func:`same_hash`: the view ``hashstructure.Hash(..., FormatV2, {SlicesAsSets,
  IgnoreZeroValue, ZeroNil})`` takes of a struct (``NodePool.Hash`` in kubernetes-sigs/karpenter
  ``pkg/apis/v1/nodepool.go``; ``EC2NodeClass.Hash`` in aws ``pkg/apis/v1/ec2nodeclass.go``): zero-valued
  struct fields are skipped and list order is ignored, but a **map entry is hashed whatever its value**,
  so ``labels: {team: ""}`` differs from no label (:func:`same_map`).
- :func:`node_class_hash_fields`: the EC2NodeClass spec without its ``hash:"ignore"`` fields plus the
  *resolved* AMI family (``EC2NodeClass.AMIFamily``), so ``amiFamily: AL2023`` spelled out beside an
  ``al2023@…`` alias drifts nothing.
- :func:`requirement_drift`: ``areRequirementsDrifted`` (``pkg/controllers/nodeclaim/disruption/drift.go``)
  for every node the old pool can have: a node drifts when its labels no longer satisfy the new
  requirements, so a requirement every admitted instance type and offering already meets drifts nothing.
- :func:`static_drift_blocked`: ``StaticDrift.ComputeCommands`` (``pkg/controllers/disruption/staticdrift.go``)
  reserves a replacement node under ``limits.nodes`` before it removes a drifted one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Iterable, Mapping, Sequence

from karpenter_gpu.k8s.labels import Label, RESTRICTED_LABELS
from karpenter_gpu.k8s.offerings import Offering, node_labels
from karpenter_gpu.k8s.scheduling import Requirements
from karpenter_gpu.k8s.units import Quantity
from karpenter_gpu.k8s.views import NodeClassView, NodePoolView

__all__ = [
    "NODE_CLASS_UNHASHED",
    "RESOLVED_AMI_FAMILY",
    "NodeOutcome",
    "canonical",
    "hash_form",
    "node_class_hash_fields",
    "requirement_drift",
    "same_hash",
    "same_map",
    "static_drift_blocked",
]

_ZERO: tuple[Any, ...] = (None, "", [], {})


def canonical(value: Any) -> str:
    """A stable text form of a JSON-like value (keys sorted), for comparing and sorting."""
    return json.dumps(value, sort_keys=True, default=str)


_canon = canonical


def hash_form(value: Any, maps: frozenset[str] = frozenset(), _path: str = "") -> Any:
    """The hashed view of a struct: zero fields dropped, lists as sets; dict paths in ``maps`` keep every entry."""
    if isinstance(value, dict):
        if _path in maps:
            return {str(k): hash_form(v, maps, f"{_path}.*") for k, v in value.items()}
        out = {k: hash_form(v, maps, f"{_path}.{k}" if _path else str(k)) for k, v in value.items()}
        return {k: v for k, v in out.items() if v not in _ZERO}
    if isinstance(value, list):
        return sorted((hash_form(v, maps, _path) for v in value), key=_canon)
    return value


def same_hash(a: Any, b: Any, maps: frozenset[str] = frozenset()) -> bool:
    return _canon(hash_form(a, maps)) == _canon(hash_form(b, maps))


def same_map(a: Any, b: Any) -> bool:
    """Two string maps as hashstructure sees them: every key counts, "" values included; unset == {}."""
    return _canon({str(k): v for k, v in (a or {}).items()}) == _canon({str(k): v for k, v in (b or {}).items()})


#: EC2NodeClass spec fields tagged ``hash:"ignore"`` (they drift through resolved status, not the hash).
NODE_CLASS_UNHASHED = frozenset({"subnetSelectorTerms", "securityGroupSelectorTerms",
                                 "capacityReservationSelectorTerms", "ipPrefixCount", "amiSelectorTerms", "amiFamily"})


#: The key :func:`node_class_hash_fields` files the resolved AMI family under (never a spec field name).
RESOLVED_AMI_FAMILY = "(resolved AMI family)"


def node_class_hash_fields(view: NodeClassView) -> dict[str, Any]:
    """``EC2NodeClass.Hash`` input: the spec without the ignored fields, and the resolved AMI family."""
    fields = {k: v for k, v in view.spec.items() if k not in NODE_CLASS_UNHASHED}
    fields[RESOLVED_AMI_FAMILY] = view.ami_family
    return fields


@dataclass(frozen=True)
class NodeOutcome:
    """One kind of node the old pool can run: an instance type on an offering (custom labels aside)."""

    instance_type: str
    offering: str
    reason: str | None  # why it drifts; None: it still satisfies the requirements
    certain: bool = True


_OTHER_ZONE = "\x00other-zone"  # a zone no manifest names: not equal to any value a requirement lists


def requirement_drift(old: NodePoolView, new: NodePoolView,
                      nodes: Iterable[tuple[str, Mapping[str, str], Sequence[Offering]]],
                      modelled: frozenset[str]) -> list[NodeOutcome]:
    """``areRequirementsDrifted`` for each node ``old`` can have: ``nodes`` yields (instance type, its
    labels, the old pool's offerings for it). The node's labels are the type's, the offering's, the
    template labels, ``karpenter.sh/nodepool`` and, for custom keys, each value the old requirements let
    ``NodeClaimTemplate.resolveCustomLabelsFromRequirements`` pick. The new *requirements* (not labels:
    those are hashed) must admit them. A key the catalog does not model makes the outcome uncertain.
    """
    new_reqs = new.requirements or Requirements()
    old_reqs = old.template_requirements
    base = {**old.string_labels, Label.NODEPOOL: old.name}
    custom: list[tuple[str, list[str | None]]] = []
    for key, req in old_reqs.items():
        if key in old.well_known_labels or key in RESTRICTED_LABELS or key in base or key.startswith("karpenter.sh/"):
            continue
        custom.append((key, sorted(req.values) if not req.complement and req.values else [None]))
    unknown = [k for k in new_reqs if k in new.well_known_labels and k not in modelled
               and k not in (Label.ZONE, Label.CAPACITY_TYPE, Label.NODEPOOL)
               and (k not in old_reqs or new_reqs[k] != old_reqs.get(k))]
    out: list[NodeOutcome] = []
    for name, labels, offerings in nodes:
        for offering in offerings:
            node = {**node_labels(labels), **base, Label.CAPACITY_TYPE: offering.capacity_type,
                    Label.ZONE: offering.zone if offering.zone is not None else _OTHER_ZONE}
            reason = new_reqs.admits_labels(node)
            certain = not unknown
            if reason is None:
                for key, options in custom:
                    if key not in new_reqs:
                        continue
                    if None in options:
                        certain = False
                        continue
                    bad = [v for v in options if not new_reqs[key].admits(v)]
                    if bad:
                        reason = f"nodes labelled {key}={bad[0]!r} no longer satisfy {new_reqs[key]}"
                        break
            if reason is not None:
                reason = reason.replace(repr(_OTHER_ZONE), "a zone not named in the manifests")
            elif unknown:
                reason = None
            out.append(NodeOutcome(name, offering.label, reason, certain or reason is not None))
    return out


def static_drift_blocked(view: NodePoolView) -> str | None:
    """Why a static pool can never replace a drifted node, or None.

    ``StaticDrift.ComputeCommands`` skips the pool while running + pending-disruption nodes exceed
    ``replicas``, then ``ReserveNodeCount(limits.nodes)`` must find room for the replacement, which is
    launched before the drifted node is removed: with ``limits.nodes`` at (or below) ``replicas`` and all
    replicas running, it reserves 0 and drifted nodes stay forever.
    """
    replicas = view.replicas
    if not view.static or replicas is None or "nodes" not in view.limits:
        return None
    try:
        limit = Quantity.parse(view.limits["nodes"]).as_decimal()
    except Exception:  # noqa: BLE001 - a malformed quantity is the schema check's finding
        return None
    if limit > Decimal(replicas):
        return None
    return (f"limits.nodes {view.limits['nodes']} leaves no room above replicas {replicas}: static drift launches "
            "the replacement before removing a node, so drifted nodes are never replaced")
