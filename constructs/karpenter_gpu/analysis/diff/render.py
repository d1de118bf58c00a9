"""The only place diff output is formatted: text for terminals, markdown for pull-request comments, JSON."""

from __future__ import annotations

import json
from collections import Counter
from decimal import Decimal
from typing import Any, Mapping

from karpenter_gpu.analysis.diff.classify import Category, Change
from karpenter_gpu.analysis.diff.cost import EVENTUALLY_CONSISTENT, Choice, CostReport, PoolCost, cost_json

def _usd(amount: Decimal | None, unbounded: bool = False) -> str:
    if unbounded:
        return "unbounded"
    return "—" if amount is None else f"${amount:,.2f}/h"


def _delta(before: Decimal, after: Decimal) -> str:
    sign = "+" if after >= before else "-"
    text = f"{sign}${abs(after - before):,.2f}/h"
    if before:
        text += f" ({sign}{abs(after - before) * 100 / before:.1f}%)"
    return text


def _choice(choice: Choice | None) -> str:
    if choice is None:
        return "none"
    return f"{choice.instance} {choice.offering or ''} ${choice.price:,.2f}/h".replace("  ", " ")


def _types(by_capacity: Mapping[str, tuple[str, ...]]) -> str:
    return "; ".join(f"{ct}: {', '.join(names)}" for ct, names in by_capacity.items()) or "none"


def _pool_ceiling(p: PoolCost, before: bool) -> str:
    if not (p.present_before if before else p.present_after):
        return "absent"
    return _usd(p.ceiling_before if before else p.ceiling_after, p.unbounded_before if before else p.unbounded_after)


def _ceilings(p: PoolCost) -> str:
    a, b = _pool_ceiling(p, True), _pool_ceiling(p, False)
    return f"{a} (unchanged)" if a == b else f"{a} → {b}"


def _choices(p: PoolCost) -> str:
    a, b = _choice(p.first_before), _choice(p.first_after)
    return f"{a} (unchanged)" if a == b else f"{a} → {b}"




def cost_text(report: CostReport) -> str:
    lines = [f"Cost (prices: {report.price_list()}; {EVENTUALLY_CONSISTENT}):"]
    if not report.environments:
        lines.append("  no change to any pool's instance types, first choice or worst-case ceiling")
    for e in report.environments:
        lines.append(f"  {e.environment}: worst-case ceiling {_usd(e.before)} → {_usd(e.after)} "
                     f"({_delta(e.before, e.after)})")
        if e.unbounded_after:
            lines.append(f"    unbounded (no GPU limit) after: {', '.join(e.unbounded_after)}")
        for p in e.pools:
            lines.append(f"    NodePool {p.pool}: ceiling {_ceilings(p)}; first choice {_choices(p)}")
            if p.added:
                lines.append(f"      types added: {_types(p.added)}")
            if p.removed:
                lines.append(f"      types removed: {_types(p.removed)}")
    return "\n".join(lines) + "\n"


def cost_markdown(report: CostReport) -> str:
    lines = ["| Environment | Worst-case before | Worst-case after | Change |", "|---|---|---|---|"]
    for e in report.environments:
        after = _usd(e.after) + (f" + unbounded: {', '.join(e.unbounded_after)}" if e.unbounded_after else "")
        lines.append(f"| {_cell(e.environment)} | {_usd(e.before)} | {_cell(after)} | {_delta(e.before, e.after)} |")
    if not report.environments:
        lines.append("| (none) | — | — | no cost change |")
    lines += ["", f"Prices: {_cell(report.price_list())}. {EVENTUALLY_CONSISTENT[0].upper()}{EVENTUALLY_CONSISTENT[1:]}."]
    pools = [(e.environment, p) for e in report.environments for p in e.pools]
    if pools:
        lines += ["", "| Environment | NodePool | Ceiling | First choice | Types added | Types removed |",
                  "|---|---|---|---|---|---|"]
        for env, p in pools:
            lines.append(f"| {_cell(env)} | `{p.pool}` | {_ceilings(p)} | {_cell(_choices(p))} | "
                         f"{_cell(_types(p.added))} | {_cell(_types(p.removed))} |")
    return "\n".join(lines) + "\n"




def summary(changes: list[Change]) -> str:
    if not changes:
        return "No changes."
    counts = Counter(c.category for c in changes)
    parts = [f"{counts[c]} {c.value}" for c in Category if counts[c]]
    return f"{len(changes)} change{'s' if len(changes) != 1 else ''}: " + ", ".join(parts)


def _environments(changes: list[Change]) -> dict[str, list[Change]]:
    grouped: dict[str, list[Change]] = {}
    for change in sorted(changes, key=Change.sort_key):
        grouped.setdefault(change.environment, []).append(change)
    return grouped


def _object(change: Change) -> str:
    return f"helm {change.name}" if change.kind == "Values" else f"{change.kind} {change.name}"


def render_text(changes: list[Change], cost: CostReport | None = None) -> str:
    """The changes by environment and category, then the cost section when ``cost`` is given."""
    tail = "\n" + cost_text(cost) if cost is not None else ""
    if not changes:
        return "No changes.\n" + tail
    lines = [summary(changes)]
    for environment, items in _environments(changes).items():
        lines += ["", f"{environment}:"]
        for change in items:
            lines.append(f"  {_object(change)}: {change.category.value}")
            lines += [f"    - {reason}" for reason in change.reasons]
    return "\n".join(lines) + "\n" + tail


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def render_markdown(changes: list[Change], cost: CostReport | None = None) -> str:
    """A pull-request comment: the cost summary table on top (when ``cost`` is given), then the changes."""
    top = ["", cost_markdown(cost).rstrip("\n")] if cost is not None else []
    if not changes:
        return "\n".join(["**karpenter-gpu diff**: No changes.", *top]) + "\n"
    lines = [f"**karpenter-gpu diff**: {summary(changes)}", *top]
    for environment, items in _environments(changes).items():
        lines += ["", f"### {environment}", "", "| Object | Category | Reasons |", "|---|---|---|"]
        for change in items:
            obj = f"helm `{change.name}`" if change.kind == "Values" else f"{change.kind} `{change.name}`"
            reasons = "<br>".join(_cell(r) for r in change.reasons)
            lines.append(f"| {obj} | {change.category.value} | {reasons} |")
    return "\n".join(lines) + "\n"


def render_json(changes: list[Change], cost: CostReport | None = None) -> str:
    """Stable JSON for machines: sorted changes, the cost report, fixed key order."""

    document: dict[str, Any] = {
        "summary": summary(changes),
        "changes": [{"environment": c.environment, "kind": c.kind, "name": c.name, "category": c.category.name,
                     "effect": c.category.value, "reasons": list(c.reasons)} for c in changes],
    }
    if cost is not None:
        document["cost"] = cost_json(cost)
    return json.dumps(document, indent=2) + "\n"

