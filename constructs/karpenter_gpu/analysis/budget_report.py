"""explain's disruption budgets per reason: how many of a pool's nodes Karpenter may disrupt now and over the week.

For each NodePool, given its node count (``explain --nodes``: the pool's nodes in the input not marked for
deletion; ``--node-count N``: N for every pool), :func:`pool_budgets` answers
:func:`~karpenter_gpu.k8s.budgets.allowed_by_reason` (Karpenter v1.14.1 ``NodePool.GetAllowedDisruptionsByReason``)
at the time given and for the seven days of its week (Monday 00:00 to Monday 00:00) in the pool's time zone: the
zone its disruption windows were written in (k8s/windows.py), else explain's zone. ``2147483647``
(``math.MaxInt32``) is Karpenter's "no budget limits it", shown as ``any``.

Karpenter's disruption controller counts only initialized nodes and subtracts the NotReady and disrupting ones
(``BuildDisruptionBudgetMapping``); a note says so, as ``--nodes`` does not carry node readiness.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, Sequence

from karpenter_gpu.k8s.budgets import Segment, allowed_by_reason, budgets_of, week_segments
from karpenter_gpu.k8s.cluster_nodes import ClusterNode
from karpenter_gpu.k8s.disruption import DISRUPTION_REASONS, INT32_MAX
from karpenter_gpu.k8s.views import NodePoolView
from karpenter_gpu.k8s.windows import load_zone, window_notes, window_zone

__all__ = ["READINESS_NOTE", "budget_lines", "pool_budgets", "pool_node_count"]

READINESS_NOTE = ("disruption budgets: allowed disruptions per reason as NodePool.GetAllowedDisruptionsByReason gives "
                  "them for the node count shown; Karpenter counts only initialized nodes and subtracts those "
                  "NotReady or being disrupted (not modelled: node readiness)")


def pool_node_count(pool: str, nodes: Sequence[ClusterNode] | None, count: int | None) -> int:
    """The node count of ``pool``: ``count`` when given, else its nodes among ``nodes`` not marked for deletion."""
    if count is not None:
        return count
    return sum(1 for n in nodes or () if n.nodepool == pool and not n.marked_for_deletion)


def _zone_of(view: NodePoolView, fallback: str) -> str:
    for note in window_notes(view.annotations).values():
        zone = window_zone(note)
        if zone:
            return zone
    return fallback


def _allowed(values: dict[str, int]) -> dict[str, int]:
    return {reason: values[reason] for reason in DISRUPTION_REASONS}


def pool_budgets(view: NodePoolView, count: int, now: datetime, zone: str) -> dict[str, Any]:
    """The JSON entry of one pool: node count, zone, the allowances at ``now`` and over its week (local times)."""
    zone = _zone_of(view, zone)
    tz = load_zone(zone)
    local = now.astimezone(tz)
    monday = (local - timedelta(days=local.weekday())).replace(hour=0, minute=0, second=0, microsecond=0)
    budgets = budgets_of(view.manifest)
    week: list[Segment] = week_segments(budgets, count, monday)
    return {"nodes": count, "zone": zone, "at": local.isoformat(timespec="seconds"),
            "now": _allowed(allowed_by_reason(budgets, count, now)),
            "week": [{"start": s.start.astimezone(tz).isoformat(timespec="seconds"),
                      "end": s.end.astimezone(tz).isoformat(timespec="seconds"), "allowed": _allowed(dict(s.allowed))}
                     for s in week]}


def _value(n: int) -> str:
    return "any" if n >= INT32_MAX else str(n)


def _text(allowed: dict[str, int]) -> str:
    return ", ".join(f"{reason} {_value(n)}" for reason, n in allowed.items())


def _span(start: str, end: str) -> str:
    a, b = datetime.fromisoformat(start), datetime.fromisoformat(end)
    return f"{a:%a %H:%M}-{b:%H:%M}" if a.date() == b.date() else f"{a:%a %H:%M}-{b:%a %H:%M}"


def budget_lines(pool: dict, bullet: str, esc: Callable[..., str]) -> list[str]:
    """The details lines of one pool's ``budgets`` entry (none without one): the allowances now; the week's most
    common allowance as "otherwise", and the spans of each other allowance."""
    entry = pool.get("budgets")
    if not entry:
        return []
    name = esc(pool["name"])
    lines = [f"{bullet}{name} budgets for {entry['nodes']} node(s): now ({esc(entry['at'])} {esc(entry['zone'])}) "
             f"{_text(entry['now'])}"]
    spans: dict[str, list[tuple[str, str]]] = {}
    length: dict[str, timedelta] = {}
    for s in entry["week"]:
        text = _text(s["allowed"])
        spans.setdefault(text, []).append((s["start"], s["end"]))
        length[text] = length.get(text, timedelta(0)) + (datetime.fromisoformat(s["end"]) -
                                                         datetime.fromisoformat(s["start"]))
    common = max(length, key=lambda t: (length[t], t))
    lines.append(f"{bullet}{name} budgets over the week ({esc(entry['zone'])}): {common}" +
                 ("" if len(spans) == 1 else " otherwise"))
    sub = f"  {bullet}" if bullet.strip() else f"{bullet}  "  # a nested markdown list item, or indented text
    lines.extend(f"{sub}{', '.join(_span(a, b) for a, b in spans[text])}: {text}"
                 for text in spans if text != common)
    return lines
