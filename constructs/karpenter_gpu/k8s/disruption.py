"""What a NodePool's disruption budgets block, per disruption reason (pure Python).

kubernetes-sigs/karpenter v1.14.1 ``pkg/apis/v1/nodepool.go``: ``GetAllowedDisruptionsByReason`` takes, over the
budgets that apply to a reason (a budget without ``reasons`` applies to all of them), the smallest number of nodes
each allows; ``Budget.GetAllowedDisruptions`` allows any number while a scheduled budget is inactive, and scales a
percentage of the pool's nodes rounding up (``intstr.GetScaledValueFromIntOrPercent(..., true)``), so only a budget
of 0 or 0% blocks a reason whatever the pool's size.
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from karpenter_gpu.k8s.int64 import int64_of

__all__ = ["CONSOLIDATION_REASONS", "DISRUPTION_REASONS", "INT32_MAX", "always_blocked", "budget_applies",
           "budget_nodes_as_read"]

#: ``DisruptionReason`` values (``pkg/apis/v1/nodepool.go``): the reasons a budget can name.
DISRUPTION_REASONS = ("Empty", "Drifted", "Underutilized")
#: The consolidation reasons each ``consolidationPolicy`` runs (``pkg/controllers/disruption``: emptiness runs
#: under every policy, single/multi-node consolidation under WhenEmptyOrUnderutilized and Balanced).
CONSOLIDATION_REASONS: Mapping[str, frozenset[str]] = {
    "WhenEmpty": frozenset({"Empty"}), "WhenEmptyOrUnderutilized": frozenset({"Empty", "Underutilized"}),
    "Balanced": frozenset({"Empty", "Underutilized"}),
}
_ZERO_PERCENT = re.compile(r"^0+%\Z")
#: The largest budget count Karpenter reads as written.
INT32_MAX = 2**31 - 1


def budget_nodes_as_read(nodes: str) -> int:
    """What Karpenter makes of a budget's digits-only ``nodes`` count (``GetIntStrFromValue`` in
    ``pkg/apis/v1/nodepool.go``, then ``intstr.GetScaledValueFromIntOrPercent``): ``strconv.Atoi`` reads up to
    int64, ``intstr.FromInt`` keeps the low 32 bits (a count beyond int32 wraps: 4294967296 is 0, 2147483648 is
    negative), and digits beyond int64 are a string that is no percentage, an error that fails closed (0)."""
    value = int64_of(nodes)
    if value is None:
        return 0
    return (value + INT32_MAX + 1) % 2**32 - INT32_MAX - 1


def budget_applies(budget: Mapping[str, Any], reason: str) -> bool:
    """Whether ``budget`` counts for ``reason``: it names no reasons (then it applies to all), or names this one."""
    reasons = budget.get("reasons")
    return reasons is None or (isinstance(reasons, list) and reason in [str(r) for r in reasons])


def _always_zero(budget: Mapping[str, Any]) -> bool:
    """A budget that allows no node at any time: nodes 0%, or a count Karpenter reads as 0 or less (0, or one
    beyond int32 that wraps: :func:`budget_nodes_as_read`), and no schedule (always active)."""
    if "nodes" not in budget or budget.get("schedule"):
        return False
    nodes = str(budget["nodes"]).strip()
    if nodes.isascii() and nodes.isdigit():
        return budget_nodes_as_read(nodes) <= 0
    return _ZERO_PERCENT.match(nodes) is not None


def always_blocked(budgets: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Reason -> index of the first budget that allows 0 nodes for it at all times (``GetAllowedDisruptionsByReason``
    is 0 whatever the time and the pool's size); reasons some disruption is still allowed for are absent."""
    out: dict[str, int] = {}
    for reason in DISRUPTION_REASONS:
        index = next((i for i, b in enumerate(budgets) if _always_zero(b) and budget_applies(b, reason)), None)
        if index is not None:
            out[reason] = index
    return out
