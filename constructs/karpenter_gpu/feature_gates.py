"""Karpenter controller feature gates that constructs depend on, recorded on the construct tree.

A static NodePool with ``StaticCapacity`` off, or a NodeOverlay with ``NodeOverlay`` off, is
accepted by the API server and then silently does nothing. Each construct that needs a gate
records it here; :func:`required_feature_gates` reads them back for a whole chart or app, so the
controller values (and the synthesized summary) list exactly what the manifests rely on.
"""

from __future__ import annotations

from dataclasses import dataclass

from constructs import Construct

from karpenter_gpu._construct_tree import construct_path, node_of
from karpenter_gpu.upstream import DEFAULT_ON, KARPENTER_TAG, FeatureGate  # the gates and their defaults live upstream

#: Attribute of a construct holding its recorded (gate, reason) pairs. Kept on the Python object, not in
#: construct metadata: ``node.add_metadata`` costs two jsii round trips per construct, reading it back two
#: more per construct of the tree, and the needs are only read from Python.
_NEEDS_ATTR = "_kg_gate_needs"


@dataclass(frozen=True)
class GateNeed:
    gate: FeatureGate
    path: str  # construct path that needs it
    reason: str


def require_feature_gate(construct: Construct, gate: FeatureGate, reason: str) -> None:
    """Record on ``construct`` that it only works with ``gate`` enabled."""
    needs = getattr(construct, _NEEDS_ATTR, None)
    if needs is None:
        needs = []
        setattr(construct, _NEEDS_ATTR, needs)
    needs.append((FeatureGate(gate), reason))


def required_feature_gates(scope: Construct, nodes: list[Construct] | None = None) -> tuple[GateNeed, ...]:
    """Every gate need recorded at or below ``scope`` (or on ``nodes``, e.g. a cluster's members), in tree order."""
    needs: list[GateNeed] = []
    for node in (node_of(scope).find_all() if nodes is None else nodes):
        recorded = getattr(node, _NEEDS_ATTR, None)
        if recorded:  # the path (a jsii read, once per construct) only for constructs that need a gate
            path = construct_path(node)
            needs.extend(GateNeed(gate, path, reason) for gate, reason in recorded)
    return tuple(needs)


def feature_gate_summary(scope: Construct, nodes: list[Construct] | None = None) -> str:
    """A YAML fragment for the Karpenter chart's ``settings.featureGates`` with the reason for each."""
    needs = required_feature_gates(scope, nodes)
    lines = [f"# Karpenter feature gates the manifests next to this file rely on (Karpenter chart {KARPENTER_TAG}).",
             "# Without them the API server accepts the objects and Karpenter silently ignores them.",
             "settings:", "  featureGates:"]
    if not needs:
        lines[-1] += " {}  # none required"
    for gate in sorted({n.gate for n in needs}):
        users = sorted({f"{n.path}: {n.reason}" for n in needs if n.gate == gate})
        default = "on by default" if gate in DEFAULT_ON else "off by default"
        lines.append(f"    {gate}: true  # {default}; needed by:")
        lines.extend(f"    #   - {u}" for u in users)
    return "\n".join(lines) + "\n"
