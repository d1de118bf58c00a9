"""``--fail-on``: whether a review fails, and which conditions hit (one :class:`Hit` each)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Iterable

from karpenter_gpu.analysis.diff.classify import FAIL_ON, Change
from karpenter_gpu.analysis.diff.cost import CostReport, EnvironmentCost, cost_exceeded

#: What the changes of each ``--fail-on`` group do (one change, several), for the line that says it hit.
FAIL_ON_EFFECT = {"drift": ("replaces nodes or drains a pool", "replace nodes or drain a pool"),
                  "refused": ("is refused by the API server", "are refused by the API server")}


@dataclass(frozen=True)
class Hit:
    """One ``--fail-on`` condition that hit: the changes of a group, or the environments over a cost threshold."""

    condition: str
    changes: tuple[Change, ...] = ()
    environments: tuple[EnvironmentCost, ...] = ()


def failed(changes: list[Change], fail_on: Iterable[str]) -> bool:
    watched = frozenset().union(*(FAIL_ON[f] for f in fail_on))
    return any(c.category in watched for c in changes)


def hits(changes: list[Change], groups: Iterable[str], cost: CostReport | None = None,
         percent: Decimal | None = None) -> list[Hit]:
    """The conditions that hit, in the order given, cost last; the review fails when there is any."""
    out = []
    for group in dict.fromkeys(groups):
        matched = tuple(c for c in changes if c.category in FAIL_ON[group])
        if matched:
            out.append(Hit(group, changes=matched))
    if cost is not None and percent is not None:
        over = set(cost_exceeded(cost, percent))
        if over:
            out.append(Hit(f"cost-increase={percent}",
                           environments=tuple(e for e in cost.environments if e.environment in over)))
    return out
