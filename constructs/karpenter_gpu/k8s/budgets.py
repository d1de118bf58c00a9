"""How many of a NodePool's nodes Karpenter may disrupt, per reason, at a given time (pure Python).

kubernetes-sigs/karpenter v1.14.1 ``pkg/apis/v1/nodepool.go``:

- ``NodePool.GetAllowedDisruptionsByReason``: the smallest ``Budget.GetAllowedDisruptions`` over the budgets that
  apply to the reason (no ``reasons``: all of them), starting from ``math.MaxInt32`` (no budget: unbounded).
- ``Budget.GetAllowedDisruptions``: ``MaxInt32`` while the budget is inactive, else its ``nodes`` scaled to the
  pool's node count (``intstr.GetScaledValueFromIntOrPercent(GetIntStrFromValue(nodes), numNodes, true)``: a count
  as ``strconv.Atoi`` and ``intstr.FromInt`` read it (the low 32 bits, as k8s/disruption.py ``budget_nodes_as_read``), a percentage
  ``ceil(p * numNodes / 100)`` in float64); a schedule or count Karpenter cannot read fails closed (0).
- ``Budget.IsActive``: no schedule and no duration is always active; else ``cron.ParseStandard("TZ=UTC " +
  schedule)`` (k8s/cron.py) and active when ``schedule.Next(now - duration)`` is not after ``now`` (a start in
  ``(now - duration, now]``). robfig/cron's ``Next`` gives up after five years (``yearLimit``) and returns the zero
  time, which is never after now: a schedule that never fires (``0 0 30 2 *``) is always active.

A NodePool without ``spec.disruption.budgets`` has the CRD's default, one budget of ``10%``.
The disruption controller (``pkg/controllers/disruption/helpers.go`` ``BuildDisruptionBudgetMapping``) calls this
with the pool's managed, initialized nodes not terminating, and subtracts those NotReady or being disrupted.
The oracle's ``budgets`` family checks :func:`allowed_by_reason` against ``GetAllowedDisruptionsByReason``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Sequence

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.cron import Cron
from karpenter_gpu.k8s.disruption import DISRUPTION_REASONS, INT32_MAX, budget_applies
from karpenter_gpu.k8s.int64 import ascii_digits, int64_of
from karpenter_gpu.k8s.units import go_parse_duration

__all__ = ["DEFAULT_BUDGETS", "Segment", "allowed_by_reason", "budgets_of", "is_active", "week_segments"]

#: The NodePool CRD's default ``spec.disruption.budgets``.
DEFAULT_BUDGETS: tuple[dict, ...] = ({"nodes": "10%"},)


def budgets_of(pool: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """A NodePool's budgets after the API server's defaulting (absent: :data:`DEFAULT_BUDGETS`; a budget without
    ``nodes``: ``10%``)."""
    spec = pool.get("spec") if isinstance(pool.get("spec"), Mapping) else {}
    disruption = spec.get("disruption") if isinstance(spec, Mapping) else None
    if not isinstance(disruption, Mapping) or disruption.get("budgets") is None:
        return list(DEFAULT_BUDGETS)
    budgets = disruption["budgets"]
    return [{"nodes": "10%", **b} for b in budgets if isinstance(b, Mapping)] if isinstance(budgets, list) else []


def _next_start(cron: Cron, after: datetime) -> datetime | None:
    """``SpecSchedule.Next(after)``: the first start after ``after`` (whole seconds), None (the zero time) when none
    comes before the end of the year five years on."""
    limit = datetime(after.year + 6, 1, 1, tzinfo=UTC)
    return next(cron.starts(after.replace(microsecond=0) + timedelta(seconds=1), limit), None)


def _duration(budget: Mapping[str, Any]) -> timedelta:
    raw = budget.get("duration")
    if raw is None:
        return timedelta(0)
    return timedelta(microseconds=go_parse_duration(str(raw)) // 1000)


def is_active(budget: Mapping[str, Any], now: datetime) -> bool:
    """``Budget.IsActive`` at ``now`` (aware); ValueError when Karpenter cannot read the schedule or duration."""
    if budget.get("schedule") is None and budget.get("duration") is None:
        return True
    cron = Cron.parse(str(budget.get("schedule") or ""))
    try:
        back = _duration(budget)
    except KarpenterGpuError as err:
        raise ValueError(str(err)) from None
    now = now.astimezone(UTC)
    hit = _next_start(cron, now - back)
    return hit is None or hit <= now


def _scaled(nodes: str, count: int) -> int:
    """``GetScaledValueFromIntOrPercent(GetIntStrFromValue(nodes), count, true)``; ValueError when it errs."""
    value = _atoi(nodes)
    if value is not None:  # intstr.FromInt keeps the low 32 bits
        return (value + INT32_MAX + 1) % 2**32 - INT32_MAX - 1
    percent = _atoi(nodes[:-1]) if nodes.endswith("%") else None
    if percent is None:
        raise ValueError(f"{nodes!r} is not a count or a percentage")
    return math.ceil(float(percent) * float(count) / 100)


def _atoi(text: str) -> int | None:
    """``strconv.Atoi``: an optional sign and ASCII digits within int64, else None."""
    digits = text[1:] if text[:1] in ("+", "-") else text
    return int64_of(text) if ascii_digits(digits) else None


def _allowed(budget: Mapping[str, Any], count: int, now: datetime) -> int:
    """``Budget.GetAllowedDisruptions``: unbounded while inactive, 0 on an error (fail closed)."""
    try:
        if not is_active(budget, now):
            return INT32_MAX
        return _scaled(str(budget.get("nodes", "")), count)
    except ValueError:
        return 0


def allowed_by_reason(budgets: Sequence[Mapping[str, Any]], count: int, now: datetime) -> dict[str, int]:
    """``GetAllowedDisruptionsByReason`` for every reason: how many of ``count`` nodes may be disrupted at ``now``
    (``INT32_MAX``: no budget limits it)."""
    values = [_allowed(b, count, now) for b in budgets]
    return {reason: min([INT32_MAX, *(v for b, v in zip(budgets, values) if budget_applies(b, reason))])
            for reason in DISRUPTION_REASONS}


@dataclass(frozen=True)
class Segment:
    """A span of time ``[start, end)`` (aware, UTC) in which every reason's allowance stays ``allowed``."""

    start: datetime
    end: datetime
    allowed: Mapping[str, int]


def week_segments(budgets: Sequence[Mapping[str, Any]], count: int, start: datetime,
                  days: int = 7) -> list[Segment]:
    """The allowances from ``start`` for ``days`` days, as the spans between the times any budget turns active or
    inactive (a schedule's starts and their ends ``duration`` later), equal neighbours merged."""
    start = start.astimezone(UTC).replace(microsecond=0)
    end = start + timedelta(days=days)
    cuts = {start}
    for budget in budgets:
        try:
            if budget.get("schedule") is None:
                continue
            cron, back = Cron.parse(str(budget["schedule"])), _duration(budget)
        except (ValueError, KarpenterGpuError):
            continue
        for hit in cron.starts(start - back, end):
            cuts.update(t for t in (hit, hit + back) if start < t < end)
    out: list[Segment] = []
    ordered = sorted(cuts)
    for begin, finish in zip(ordered, [*ordered[1:], end]):
        allowed = allowed_by_reason(budgets, count, begin)
        if out and out[-1].allowed == allowed:
            out[-1] = Segment(out[-1].start, finish, allowed)
        else:
            out.append(Segment(begin, finish, allowed))
    return out
