"""Drift as Karpenter v1.14.1 decides it: hashes, requirement drift per NodeClaim, static replacement.

- :func:`hash_form` / :func:`same_hash`: the view ``hashstructure.Hash(..., FormatV2, {SlicesAsSets,
  IgnoreZeroValue, ZeroNil})`` takes of a struct (``NodePool.Hash`` in kubernetes-sigs/karpenter
  ``pkg/apis/v1/nodepool.go``; ``EC2NodeClass.Hash`` in aws ``pkg/apis/v1/ec2nodeclass.go``): zero-valued
  struct fields are skipped and list order is ignored, but a **map entry is hashed whatever its value**,
  so ``labels: {team: ""}`` differs from no label (:func:`same_map`).
- :func:`hashed`: what the hash sees of a manifest, *typed* as Karpenter decodes it after the API server stored
  it (CRD defaults applied, unknown fields pruned): durations are lengths (``720h`` == ``43200m``), a volume
  size is its canonical quantity (``1024Gi`` == ``1Ti``), a pointer field set to ``""``/``false``/``0`` counts,
  ``[]``/``{}`` differ from unset, and a list is a set in which a value written twice cancels out.
  :func:`same_drift_hash` compares two manifests that way (checked against Karpenter's own ``Hash`` by
  tests/oracle).
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

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.labels import Label, RESTRICTED_LABELS
from karpenter_gpu.k8s.offerings import Offering, node_labels
from karpenter_gpu.k8s.scheduling import Requirements
from karpenter_gpu.k8s.units import Duration, Quantity, go_parse_duration
from karpenter_gpu.k8s.views import NodeClassView, NodePoolView

__all__ = [
    "NODE_CLASS_UNHASHED",
    "RESOLVED_AMI_FAMILY",
    "NodeOutcome",
    "canonical",
    "hash_form",
    "hashed",
    "node_class_hash_fields",
    "requirement_drift",
    "same_drift_hash",
    "same_hash",
    "same_map",
    "static_drift_blocked",
    "template_hash_fields",
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


# --------------------------------------------------------------------------- typed hash views
#
# hashstructure (FormatV2, SlicesAsSets, IgnoreZeroValue, ZeroNil) walks the *Go struct* a manifest decodes
# into, so what counts depends on each field's Go type. The schemas below name the Go kind of every hashed
# field (JSON names): "str"/"int"/"bool" are plain fields (zero: skipped), "*str"/"*int"/"*bool" pointers (any
# set value counts, "" and false included), "map" a map[string]string (every entry counts; {} is not unset),
# "dur" a NillableDuration (Never is unset), "*dur" a *metav1.Duration, "gdur" a metav1.Duration of any
# time.ParseDuration text (no CRD pattern; hashed as its nanoseconds), "*qty" a *resource.Quantity hashed by
# its String(), a dict a struct, ("*", dict) a pointer to one, ("[]", kind) a slice (a set; [] is not unset),
# ("map", kind) a map of that kind.

_TAINT = {"key": "str", "value": "str", "effect": "str", "timeAdded": "*str"}
#: ``NodeClaimTemplate`` (kubernetes-sigs/karpenter ``pkg/apis/v1/nodepool.go``; requirements and resources are
#: ``hash:"ignore"``), the struct ``NodePool.Hash`` walks.
NODE_CLAIM_TEMPLATE_SCHEMA: dict[str, Any] = {
    "metadata": {"labels": "map", "annotations": "map"},
    "spec": {"taints": ("[]", _TAINT), "startupTaints": ("[]", _TAINT),
             "nodeClassRef": ("*", {"kind": "str", "name": "str", "group": "str"}),
             "terminationGracePeriod": "*dur", "expireAfter": "dur"},
}
#: ``EC2NodeClassSpec`` without its ``hash:"ignore"`` fields (aws ``pkg/apis/v1/ec2nodeclass.go``).
EC2_NODE_CLASS_SPEC_SCHEMA: dict[str, Any] = {
    "placementGroupSelector": ("*", {"name": "*str", "id": "*str"}),
    "associatePublicIPAddress": "*bool", "userData": "*str", "role": "str", "instanceProfile": "*str",
    "tags": "map",
    "kubelet": ("*", {"clusterDNS": ("[]", "str!"), "maxPods": "*int", "podsPerCore": "*int",
                      "systemReserved": "map", "kubeReserved": "map", "evictionHard": "map", "evictionSoft": "map",
                      "evictionSoftGracePeriod": ("map", "gdur!"), "evictionMaxPodGracePeriod": "*int",
                      "imageGCHighThresholdPercent": "*int", "imageGCLowThresholdPercent": "*int",
                      "cpuCFSQuota": "*bool"}),
    "blockDeviceMappings": ("[]", ("*", {
        "deviceName": "*str", "rootVolume": "bool",
        "ebs": ("*", {"deleteOnTermination": "*bool", "encrypted": "*bool", "iops": "*int", "kmsKeyID": "*str",
                      "snapshotID": "*str", "throughput": "*int", "volumeInitializationRate": "*int",
                      "volumeSize": "*qty", "volumeType": "*str"})})),
    "instanceStorePolicy": "*str",
    "networkInterfaces": ("[]", ("*", {"networkCardIndex": "int", "deviceIndex": "int", "interfaceType": "str"})),
    "detailedMonitoring": "*bool",
    "metadataOptions": ("*", {"httpEndpoint": "*str", "httpProtocolIPv6": "*str", "httpPutResponseHopLimit": "*int",
                              "httpTokens": "*str"}),
    "connectionTracking": ("*", {"tcpEstablishedTimeout": "*int", "udpStreamTimeout": "*int", "udpTimeout": "*int"}),
    "context": "*str",
    "cpuOptions": ("*", {"nestedVirtualization": "*str"}),
}
#: The CRD defaults (v1.14.1 CRDs) on hashed fields: the API server fills them in before any controller reads.
_TEMPLATE_DEFAULTS = {"expireAfter": "720h"}
_METADATA_OPTIONS_DEFAULTS = {"httpEndpoint": "enabled", "httpProtocolIPv6": "disabled", "httpPutResponseHopLimit": 1,
                              "httpTokens": "required"}
_UNSET = object()  # a Go zero value: hashstructure skips the field


def _typed(kind: Any, value: Any) -> Any:
    """The hashed view of ``value`` decoded into a field of Go kind ``kind`` (:data:`_UNSET` when skipped)."""
    if value is None:  # JSON null: a nil pointer, slice or map; a zero plain field
        return _UNSET
    if isinstance(kind, dict):  # a plain struct: skipped when every field is zero
        fields = _struct(kind, value)
        return fields if fields else _UNSET
    if isinstance(kind, tuple):
        wrapper, inner = kind
        if wrapper == "*":
            return _struct(inner, value)  # a set pointer counts, even to an empty struct
        if wrapper == "map":
            return {str(k): _typed(inner, v) for k, v in value.items()} if isinstance(value, dict) else _UNSET
        if not isinstance(value, list):
            return _UNSET
        # SlicesAsSets XORs the element hashes: order is ignored and a value written twice cancels out.
        counts: dict[str, int] = {}
        shown: dict[str, Any] = {}
        for item in value:
            view = _typed(inner, item)
            key = canonical(None if view is _UNSET else view)
            counts[key] = counts.get(key, 0) + 1
            shown[key] = None if view is _UNSET else view
        return [shown[k] for k in sorted(counts) if counts[k] % 2]
    plain = not kind.startswith("*") and not kind.endswith("!")
    base = kind.strip("*!")
    if base == "gdur":
        return f"{go_parse_duration(value)}ns"
    if base == "dur":
        if value == Duration.NEVER_TEXT:
            return _UNSET if plain else "Never"
        return str(Duration.parse(value))  # one text per length
    if base == "qty":
        return Quantity.parse(value).canonical()
    if base == "map":
        return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else _UNSET
    if plain and value in ("", 0, False):
        return _UNSET
    return value


def _struct(schema: Mapping[str, Any], value: Any) -> dict:
    if not isinstance(value, dict):
        return {}
    out = {}
    for name, kind in schema.items():  # JSON decoding drops (the API server prunes) unknown fields
        if name in value:
            view = _typed(kind, value[name])
            if view is not _UNSET:
                out[name] = view
    return out


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def hashed(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """What ``NodePool.Hash`` / ``EC2NodeClass.Hash`` (FormatV2, SlicesAsSets, IgnoreZeroValue, ZeroNil) see of a
    NodePool or EC2NodeClass manifest, after the API server applied the CRD defaults: ``spec.template`` of a
    NodePool, or the hashed ``spec`` fields plus the resolved AMI family of an EC2NodeClass. Raises KG101/KG102 for a
    duration or quantity Karpenter could not decode."""
    spec: dict = dict(_mapping(manifest.get("spec")))
    if manifest.get("kind") == "EC2NodeClass":
        options = spec.get("metadataOptions")
        if options is None:
            spec["metadataOptions"] = dict(_METADATA_OPTIONS_DEFAULTS)
        elif isinstance(options, dict):
            spec["metadataOptions"] = {**_METADATA_OPTIONS_DEFAULTS,
                                       **{k: v for k, v in options.items() if v is not None}}
        fields = _struct(EC2_NODE_CLASS_SPEC_SCHEMA, spec)
        fields[RESOLVED_AMI_FAMILY] = NodeClassView.of(manifest).ami_family
        return fields
    template: dict = dict(_mapping(spec.get("template")))
    if isinstance(template.get("spec"), dict):
        tspec: dict = template["spec"]
        template = {**template, "spec": {**tspec, **{k: v for k, v in _TEMPLATE_DEFAULTS.items()
                                                     if tspec.get(k) is None}}}
    return _struct(NODE_CLAIM_TEMPLATE_SCHEMA, template)


def same_drift_hash(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Whether two NodePool (or two EC2NodeClass) manifests have the same Karpenter hash: :func:`hashed` equal."""
    return canonical(hashed(old)) == canonical(hashed(new))


#: EC2NodeClass spec fields tagged ``hash:"ignore"`` (they drift through resolved status, not the hash).
NODE_CLASS_UNHASHED = frozenset({"subnetSelectorTerms", "securityGroupSelectorTerms",
                                 "capacityReservationSelectorTerms", "ipPrefixCount", "amiSelectorTerms", "amiFamily"})


#: The key :func:`node_class_hash_fields` files the resolved AMI family under (never a spec field name).
RESOLVED_AMI_FAMILY = "(resolved AMI family)"


def node_class_hash_fields(view: NodeClassView) -> dict[str, Any]:
    """``EC2NodeClass.Hash`` input: the hashed spec fields as Karpenter decodes them (:func:`hashed`: defaults
    applied, durations and volume sizes parsed), and the resolved AMI family. A value Karpenter could not decode
    (the schema check reports it) leaves the spec as written."""
    try:
        return hashed({**view.manifest, "kind": "EC2NodeClass"})
    except KarpenterGpuError:
        fields = {k: v for k, v in view.spec.items() if k not in NODE_CLASS_UNHASHED}
        fields[RESOLVED_AMI_FAMILY] = view.ami_family
        return fields


def template_hash_fields(manifest: Mapping[str, Any]) -> dict[str, Any] | None:
    """``NodePool.Hash`` input (:func:`hashed`): ``{"metadata": {...}, "spec": {...}}`` with only the fields that
    count, typed; None when a duration cannot be decoded (the schema check reports it)."""
    try:
        return hashed({**manifest, "kind": "NodePool"})
    except KarpenterGpuError:
        return None


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
