"""The cluster's nodes as Karpenter's cluster state counts them against NodePool limits (Karpenter v1.14.1).

Input: ``karpenter.sh/v1`` NodeClaims and ``v1`` Nodes, as ``kubectl get nodeclaims -o yaml`` or
``kubectl get nodes -o yaml`` print them (the reader expands their ``kind: List``). Karpenter's ``state.Cluster``
(``pkg/controllers/state/cluster.go``) keeps one ``StateNode`` per provider ID:

- ``Cluster.UpdateNodeClaim``: a NodeClaim becomes (part of) a state node only once it has
  ``status.providerID`` (one without has not launched yet);
- ``Cluster.UpdateNode``: a Node with the ``karpenter.sh/nodepool`` label (managed) and no ``spec.providerID`` is
  skipped, an unmanaged one is keyed by its name; a managed Node without the instance-type label that is not
  initialized is skipped until the label arrives;
- a Node and its NodeClaim with the same provider ID are one state node (``newStateFromNode`` /
  ``newStateFromNodeClaim`` fill the other half), counted once.

Per state node (``pkg/controllers/state/statenode.go``): ``Labels`` (the NodeClaim's while the Node is absent or
not registered, else the Node's), ``Capacity`` (the Node's ``status.capacity`` once initialized; before that the
NodeClaim's, a Node's zero or missing quantities filled from it; always ``nodes: 1``), ``MarkedForDeletion``
(``Deleted``: the NodeClaim has a deletionTimestamp or an ``InstanceTerminating`` condition True, or a Node without
NodeClaim has a deletionTimestamp; the disruption controller's in-memory mark is not in any manifest).

:func:`pool_usage` is ``Cluster.NodePoolResourcesFor`` (``updateNodePoolResources``: the capacity of the pool's
state nodes not marked for deletion, ``nodes`` counting 1 each), which is also what the provisioning scheduler
subtracts from each NodePool's limits (``Scheduler.updateRemainingResources`` over ``nodes.Active()``,
``provisioner.go`` ``Schedule``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Iterable, Mapping

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.labels import NODECLAIM_KIND, Label, is_kind, kind_of
from karpenter_gpu.k8s.units import Quantity

__all__ = ["NODE_KIND", "ClusterNode", "cluster_nodes", "pool_usage"]

NODE_KIND = ("v1", "Node")
_REGISTERED = "karpenter.sh/registered"
_INITIALIZED = "karpenter.sh/initialized"
_TERMINATING = "InstanceTerminating"


@dataclass(frozen=True)
class ClusterNode:
    """One state node: its NodePool, instance type, zone and capacity type (from ``Labels``), ``capacity``
    (``StateNode.Capacity``, base units, ``nodes`` included), whether it is marked for deletion, and the names of
    the Node and NodeClaim it was read from (None: not given)."""

    provider_id: str
    nodepool: str | None
    instance_type: str | None
    zone: str | None
    capacity_type: str | None
    capacity: Mapping[str, Decimal] = field(hash=False)
    marked_for_deletion: bool = False
    node: str | None = None
    nodeclaim: str | None = None

    @property
    def name(self) -> str:
        """The Node's name, else the NodeClaim's."""
        return self.node or self.nodeclaim or self.provider_id


@dataclass(frozen=True)
class _Object:
    """One NodeClaim or Node, read."""

    kind: str
    name: str
    labels: Mapping[str, str]
    provider_id: str
    capacity: Mapping[str, Decimal]
    deleting: bool
    terminating: bool
    raw: Mapping[str, Any] = field(hash=False, compare=False)


def _fail(where: str, prop: str, value: Any, allowed: str) -> KarpenterGpuError:
    return KarpenterGpuError("KG721", prop=f"{where} {prop}", value=value, allowed=allowed,
                             fix="pass the objects as `kubectl get nodeclaims -o yaml` / `kubectl get nodes -o yaml` "
                                 "print them")


def _mapping(value: Any, where: str, prop: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise _fail(where, prop, value, "a mapping")
    return value


def _string(value: Any, where: str, prop: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise _fail(where, prop, value, "a string")
    return value


def _read(manifest: Mapping[str, Any], where: str) -> _Object:
    node_claim = is_kind(manifest, NODECLAIM_KIND)
    if not node_claim and not is_kind(manifest, NODE_KIND):
        raise KarpenterGpuError("KG720", prop=where, value="/".join(str(k) for k in kind_of(manifest)),
                                allowed="karpenter.sh/v1 NodeClaim or v1 Node objects (or a List of them)",
                                fix="pass the output of `kubectl get nodeclaims -o yaml` or `kubectl get nodes -o yaml`")
    meta = _mapping(manifest.get("metadata"), where, "metadata")
    name = _string(meta.get("name"), where, "metadata.name")
    where = f"{where} {'NodeClaim' if node_claim else 'Node'}/{name}"
    labels = _mapping(meta.get("labels"), where, "metadata.labels")
    for key, value in labels.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise _fail(where, f"metadata.labels.{key}", value, "string label values")
    spec = _mapping(manifest.get("spec"), where, "spec")
    status = _mapping(manifest.get("status"), where, "status")
    provider_id = _string(status.get("providerID") if node_claim else spec.get("providerID"), where,
                          "status.providerID" if node_claim else "spec.providerID")
    capacity: dict[str, Decimal] = {}
    for key, value in _mapping(status.get("capacity"), where, "status.capacity").items():
        try:
            amount = Quantity.parse(value).as_decimal()
        except KarpenterGpuError:
            raise _fail(where, f"status.capacity.{key}", value, "a Kubernetes quantity such as '8', '32Gi'") from None
        if amount < 0:  # the API server refuses one (ValidateNodeResources); counted, it would raise what is left
            raise _fail(where, f"status.capacity.{key}", value, "a quantity >= 0 (capacity is never negative: the API "
                                                                 "server refuses one on a Node)")
        capacity[str(key)] = amount
    terminating = False
    if node_claim:
        conditions = status.get("conditions")
        if conditions is not None and not isinstance(conditions, list):
            raise _fail(where, "status.conditions", conditions, "a list of conditions")
        terminating = any(isinstance(c, Mapping) and c.get("type") == _TERMINATING and c.get("status") == "True"
                          for c in conditions or [])
    return _Object("NodeClaim" if node_claim else "Node", name, dict(labels), provider_id, capacity,
                   meta.get("deletionTimestamp") is not None, terminating, manifest)


def _is_zero(value: Decimal | None) -> bool:
    return value is None or value == 0


def _state_node(provider_id: str, claim: _Object | None, node: _Object | None) -> ClusterNode:
    """``StateNode`` ``Labels``, ``Capacity``, ``MarkedForDeletion`` of a NodeClaim and/or Node (statenode.go)."""
    managed = claim is not None  # StateNode.Managed
    registered = not managed or (node is not None and node.labels.get(_REGISTERED) == "true")
    initialized = not managed or (node is not None and node.labels.get(_INITIALIZED) == "true")
    if node is None:
        assert claim is not None
        labels = claim.labels
    elif claim is None or registered:
        labels = node.labels
    else:
        labels = claim.labels
    if initialized:
        assert node is not None  # an unmanaged state node is always a Node
        capacity = dict(node.capacity)
    else:
        assert claim is not None
        capacity = dict(node.capacity) if node is not None else dict(claim.capacity)
        if node is not None:  # override any zero quantity of the Node from the NodeClaim
            for key, value in claim.capacity.items():
                if _is_zero(capacity.get(key)):
                    capacity[key] = value
    capacity["nodes"] = Decimal(1)
    deleted = (claim is not None and (claim.deleting or claim.terminating)) or \
        (node is not None and claim is None and node.deleting)
    return ClusterNode(provider_id, labels.get(Label.NODEPOOL) or None, labels.get(Label.INSTANCE_TYPE) or None,
                       labels.get(Label.ZONE) or None, labels.get(Label.CAPACITY_TYPE) or None, capacity, deleted,
                       node.name if node is not None else None, claim.name if claim is not None else None)


def _keyed(found: dict[str, _Object], key: str, obj: _Object, where: str) -> None:
    held = found.get(key)
    if held is not None and held.raw != obj.raw:
        raise KarpenterGpuError("KG722", prop=where, value=f"{obj.kind}s {held.name} and {obj.name}: {key}",
                                allowed="one NodeClaim and one Node per provider ID (Karpenter's state keeps one node "
                                        "per provider ID)",
                                fix="pass each cluster's nodes once (one `kubectl get` of one cluster)")
    found[key] = obj


def cluster_nodes(manifests: Iterable[Mapping[str, Any] | tuple[str, Mapping[str, Any]]]) -> list[ClusterNode]:
    """The state nodes of NodeClaim and Node manifests (each a dict, or ``(where, dict)`` to name it in errors),
    by provider ID. The same object given twice counts once; two different ones of one kind under one provider ID
    are KG722, an object of another kind KG720, an unreadable field KG721."""
    claims: dict[str, _Object] = {}
    nodes: dict[str, _Object] = {}
    for index, item in enumerate(manifests):
        where, manifest = item if isinstance(item, tuple) else (f"object {index + 1}", item)
        obj = _read(manifest, where)
        if obj.kind == "NodeClaim":
            if obj.provider_id:  # Cluster.UpdateNodeClaim: not launched yet without one
                _keyed(claims, obj.provider_id, obj, where)
            continue
        managed = bool(obj.labels.get(Label.NODEPOOL))
        provider_id = obj.provider_id
        if not provider_id:  # Cluster.UpdateNode
            if managed:
                continue
            provider_id = obj.name
        if managed and not obj.labels.get(Label.INSTANCE_TYPE) and not obj.labels.get(_INITIALIZED):
            continue
        _keyed(nodes, provider_id, obj, where)
    return [_state_node(pid, claims.get(pid), nodes.get(pid)) for pid in sorted(claims.keys() | nodes.keys())]


def pool_usage(nodes: Iterable[ClusterNode]) -> dict[str, dict[str, Decimal]]:
    """``Cluster.NodePoolResourcesFor`` per NodePool: the summed capacity of its nodes not marked for deletion."""
    out: dict[str, dict[str, Decimal]] = {}
    for node in nodes:
        if node.nodepool is None or node.marked_for_deletion:
            continue
        used = out.setdefault(node.nodepool, {})
        for key, value in node.capacity.items():
            used[key] = used.get(key, Decimal(0)) + value
    return out
