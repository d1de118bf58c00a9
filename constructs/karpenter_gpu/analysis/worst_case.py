"""What a pool can cost at worst (USD/hour) and how: a static pool's replicas of its dearest candidate, a dynamic
pool's dearest fill of what is left of its limits (:func:`~karpenter_gpu.analysis.ceiling.dearest_fill_cached`), or
that no limit bounds its spend. The notes say how each figure is reached."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import NamedTuple, Sequence

from karpenter_gpu.analysis import cost_notes as cost_note
from karpenter_gpu.analysis.candidates import UNMODELLED_LIMITS, Candidate, CandidateFacts, limit_amount
from karpenter_gpu.analysis.ceiling import Fill, dearest_fill_cached
from karpenter_gpu.analysis.notes import Note
from karpenter_gpu.k8s.drift import static_drift_blocked
from karpenter_gpu.k8s.views import NodePoolView

__all__ = ["Cost", "dynamic_cost", "static_cost"]


class Cost(NamedTuple):
    """What a pool can cost at worst (USD/hour) and how: the dearest type, the dearest fill of its limits, the
    limits that bound it, or that none does."""

    worst: Decimal | None = None
    worst_name: str | None = None
    fill: Fill | None = None
    bounded_by: tuple[str, ...] = ()
    unbounded: bool = False


def static_cost(pool: NodePoolView, candidates: Sequence[Candidate], notes: list[Note]) -> Cost:
    """``replicas`` nodes of the dearest candidate, and how far drift or expiry can surge above them."""
    priced = [c for c in candidates if c.price is not None]
    if not priced:
        return Cost()
    dearest = max(priced, key=lambda c: (c.price, c.instance.name))
    price = dearest.price
    assert price is not None  # priced
    worst = Decimal(pool.replicas or 0) * price
    notes.append(cost_note.StaticWorstCase(pool.replicas, dearest.instance.name, price, worst))
    nodes = limit_amount(pool, "nodes")
    if nodes is not None and nodes > pool.replicas:  # type: ignore[operator]
        notes.append(cost_note.StaticSurge(nodes, price))
    elif nodes is None:
        notes.append(cost_note.StaticNoNodesLimit())
    elif (blocked := static_drift_blocked(pool)) is not None:
        notes.append(cost_note.StaticDriftBlocked(blocked))
    return Cost(worst, dearest.instance.name)


def dynamic_cost(candidates: Sequence[Candidate], derived: CandidateFacts, limits: list[tuple[str, str, Decimal]],
                 existing: bool, price_basis: str, limit_unit: str | None, notes: list[Note]) -> Cost:
    """The dearest fill of the limits (:func:`_ceiling`), or that none bounds the spend."""
    fill, bounded_by, unbounded = _ceiling(derived, limits)
    unpriced = tuple(derived.unpriced)
    if fill is None:
        assert unbounded is not None  # no fill: no limit bounds it
        cost = Cost(unbounded=True)
        notes.append(unbounded)
    elif len(unpriced) == len(candidates):
        cost = Cost(bounded_by=bounded_by)
        notes.append(cost_note.WorstCaseUnknown(unpriced))
    else:
        worst_name = max(fill.counts, key=lambda nc: ((_by_name(candidates, nc[0]).price or Decimal(0)) * nc[1],
                                                      nc[0]))[0] if fill.counts else None
        cost = Cost(fill.ceiling, worst_name, fill, bounded_by)
        notes.append(cost_note.WorstCase(fill.ceiling, fill.counts, fill.exact, fill.total, unpriced, existing,
                                    tuple((r, raw) for r, raw, _ in limits if r in bounded_by), limit_unit,
                                    price_basis))
    notes.append(cost_note.LimitsEventual())
    return cost


def _by_name(candidates: Sequence[Candidate], name: str) -> Candidate:
    return next(c for c in candidates if c.instance.name == name)


def _ceiling(derived: CandidateFacts, limits: list[tuple[str, str, Decimal]]
             ) -> tuple[Fill | None, tuple[str, ...], cost_note.Unbounded | None]:
    """The dearest launchable multiset of the priced candidates under ``limits`` and the limits that bound it, or
    None with why no limit does."""
    applied = [(r, raw, amount) for r, raw, amount in limits if r not in UNMODELLED_LIMITS]
    items, free, bounded = derived.fill_items(tuple(r for r, _, _ in applied))
    if not items:
        return Fill(Decimal(0), ()), (), None
    if free:
        return None, (), cost_note.Unbounded(tuple(free), tuple(r for r, _, _ in applied))
    # A node is launched while anything is left of limits.nodes (filterByRemainingResources counts no nodes in a
    # type's capacity, the next loop counts the node as 1): ceil(what is left) more nodes.
    fill = dearest_fill_cached(items, tuple(Decimal(math.ceil(amount)) if r == "nodes" else amount
                                            for r, _, amount in applied))
    return fill, bounded, None
