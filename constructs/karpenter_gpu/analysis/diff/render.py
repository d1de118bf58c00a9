"""The only place diff output is formatted: text for terminals, markdown for pull-request comments, JSON.

Every piece of text that came from input (environment, object and file names, kinds, the reasons, which
quote manifest values, and the catalog's instance names) passes through :mod:`karpenter_gpu.render.escape`
for where it lands: :func:`~karpenter_gpu.render.escape.plain` in text, :func:`~karpenter_gpu.render.escape.markdown`
in the pull-request comment; the words and figures diff writes itself (categories, summary counts, prices)
are not escaped. JSON stays raw data (``json.dumps`` escapes it). The markdown comment is kept under
:data:`MARKDOWN_BUDGET` characters (GitHub refuses a comment over 65,536): the rows that do not fit are cut
with a line saying how many changes were left out.
"""

from __future__ import annotations

import json
from collections import Counter
from decimal import Decimal
from typing import Any, Callable, Mapping

from karpenter_gpu.analysis.diff.classify import Category, Change
from karpenter_gpu.analysis.diff.cost import EVENTUALLY_CONSISTENT, Choice, CostReport, EnvironmentCost, PoolCost, cost_json
from karpenter_gpu.analysis.diff.verdict import FAIL_ON_EFFECT, Hit
from karpenter_gpu.render.escape import fit_lines, markdown, plain

#: Largest markdown comment diff writes; GitHub refuses comments over 65,536 characters.
MARKDOWN_BUDGET = 60_000
#: Longest reason shown (after escaping values are cut at :data:`~karpenter_gpu.render.escape.MAX_VALUE` each).
MAX_REASON = 4_000

Escape = Callable[[Any], str]


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


def _env_usd(amount: Decimal, unbounded: tuple[str, ...]) -> str:
    """An environment's ceiling: with an unbounded pool there is none (the bounded pools' sum said as such)."""
    return f"unbounded (bounded pools {_usd(amount)})" if unbounded else _usd(amount)


def _env_delta(e: EnvironmentCost) -> str:
    """The change of an environment's ceiling; no percentage against a side that has no ceiling."""
    if e.unbounded_before and not e.unbounded_after:
        return "was unbounded"
    if e.unbounded_after and not e.unbounded_before:
        return "now unbounded"
    if e.unbounded_after:
        return "unbounded before and after"
    return _delta(e.before, e.after)


def _choice(choice: Choice | None, esc: Escape) -> str:
    if choice is None:
        return "none"
    offering = f" {esc(choice.offering)}" if choice.offering else ""
    label = " (on-demand list price)" if choice.list_price else ""
    return f"{esc(choice.instance)}{offering} ${choice.price:,.2f}/h{label}"


def _types(by_capacity: Mapping[str, tuple[str, ...]], esc: Escape) -> str:
    return "; ".join(f"{esc(ct)}: {', '.join(esc(n) for n in names)}" for ct, names in by_capacity.items()) or "none"


def _pool_ceiling(p: PoolCost, before: bool) -> str:
    if not (p.present_before if before else p.present_after):
        return "absent"
    return _usd(p.ceiling_before if before else p.ceiling_after, p.unbounded_before if before else p.unbounded_after)


def _ceilings(p: PoolCost) -> str:
    a, b = _pool_ceiling(p, True), _pool_ceiling(p, False)
    return f"{a} (unchanged)" if a == b else f"{a} → {b}"


def _choices(p: PoolCost, esc: Escape) -> str:
    """First choice before and after; a spot or reserved price that is the on-demand list price says so."""
    a, b = _choice(p.first_before, esc), _choice(p.first_after, esc)
    return f"{a} (unchanged)" if a == b else f"{a} → {b}"


def cost_text(report: CostReport) -> str:
    lines = [f"Cost (prices: {plain(report.price_list(), None)}; {EVENTUALLY_CONSISTENT}):"]
    lines.extend(f"  settings: {plain(line, None)}" for line in report.settings)
    if not report.environments:
        lines.append("  no change to any pool's instance types, first choice or worst-case ceiling")
    for e in report.environments:
        lines.append(f"  {plain(e.environment)}: worst-case ceiling {_env_usd(e.before, e.unbounded_before)} → "
                     f"{_env_usd(e.after, e.unbounded_after)} ({_env_delta(e)})")
        if e.unbounded_after:
            lines.append(f"    unbounded (no GPU limit) after: {', '.join(plain(n) for n in e.unbounded_after)}")
        for p in e.pools:
            lines.append(f"    NodePool {plain(p.pool)}: ceiling {_ceilings(p)}; first choice {_choices(p, plain)}")
            if p.added:
                lines.append(f"      types added: {_types(p.added, plain)}")
            if p.removed:
                lines.append(f"      types removed: {_types(p.removed, plain)}")
    return "\n".join(lines) + "\n"


def _cost_markdown_lines(report: CostReport) -> list[str]:
    lines = ["| Environment | Worst-case before | Worst-case after | Change |", "|---|---|---|---|"]
    for e in report.environments:
        unbounded = ", ".join(markdown(n) for n in e.unbounded_after)
        after = _usd(e.after) + (f" + unbounded: {unbounded}" if e.unbounded_after else "")
        before = _usd(e.before) + (" + unbounded: " + ", ".join(markdown(n) for n in e.unbounded_before)
                                   if e.unbounded_before else "")
        lines.append(f"| {markdown(e.environment)} | {before} | {after} | {_env_delta(e)} |")
    if not report.environments:
        lines.append("| (none) | — | — | no cost change |")
    lines += ["", f"Prices: {markdown(report.price_list(), None)}. "
                  f"{EVENTUALLY_CONSISTENT[0].upper()}{EVENTUALLY_CONSISTENT[1:]}."]
    lines += [f"Settings: {markdown(line, None)}." for line in report.settings]
    pools = [(e.environment, p) for e in report.environments for p in e.pools]
    if pools:
        lines += ["", "| Environment | NodePool | Ceiling | First choice | Types added | Types removed |",
                  "|---|---|---|---|---|---|"]
        for env, p in pools:
            lines.append(f"| {markdown(env)} | {markdown(p.pool)} | {_ceilings(p)} | {_choices(p, markdown)} | "
                         f"{_types(p.added, markdown)} | {_types(p.removed, markdown)} |")
    return lines


def cost_markdown(report: CostReport) -> str:
    return "\n".join(_cost_markdown_lines(report)) + "\n"


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


def object_label(change: Change, esc: Escape = plain) -> str:
    """``NodePool gpu-a`` or ``helm gpu-operator.values.yaml``, escaped with ``esc``."""
    return f"helm {esc(change.name)}" if change.kind == "Values" else f"{esc(change.kind)} {esc(change.name)}"


def render_text(changes: list[Change], cost: CostReport | None = None) -> str:
    """The changes by environment and category, one line per reason, then the cost section when ``cost`` is given."""
    tail = "\n" + cost_text(cost) if cost is not None else ""
    if not changes:
        return "No changes.\n" + tail
    lines = [summary(changes)]
    for environment, items in _environments(changes).items():
        lines += ["", f"{plain(environment)}:"]
        for change in items:
            lines.append(f"  {object_label(change)}: {change.category.value}")
            lines += [f"    - {plain(reason, MAX_REASON)}" for reason in change.reasons]
    return "\n".join(lines) + "\n" + tail


def render_markdown(changes: list[Change], cost: CostReport | None = None, *,
                    budget: int = MARKDOWN_BUDGET) -> str:
    """A pull-request comment: the cost summary table on top (when ``cost`` is given), then the changes, in
    at most ``budget`` characters."""
    top = ["", *_cost_markdown_lines(cost)] if cost is not None else []
    if not changes:
        return "\n".join(fit_lines(["**karpenter-gpu diff**: No changes.", *top], budget, _cut([]))) + "\n"
    lines = [f"**karpenter-gpu diff**: {summary(changes)}", *top]
    rows: list[int] = []  # indexes of the change rows in ``lines``
    for environment, items in _environments(changes).items():
        lines += ["", f"### {markdown(environment)}", "", "| Object | Category | Reasons |", "|---|---|---|"]
        for change in items:
            reasons = "<br>".join(markdown(r, MAX_REASON) for r in change.reasons)
            rows.append(len(lines))
            lines.append(f"| {object_label(change, markdown)} | {change.category.value} | {reasons} |")
    return "\n".join(fit_lines(lines, budget, _cut([i - len(lines) for i in rows]))) + "\n"


def _cut(rows_from_end: list[int]) -> Callable[[int], str]:
    """The closing line of a cut comment: how many change rows were among the ``n`` lines left out."""
    def tail(n: int) -> str:
        left = sum(1 for r in rows_from_end if r >= -n)
        return f"\n… {left} more change{'s' if left != 1 else ''}, see --format json"
    return tail


def render_json(changes: list[Change], cost: CostReport | None = None) -> str:
    """Stable JSON for machines: sorted changes, the cost report, fixed key order; values as read."""
    document: dict[str, Any] = {
        "summary": summary(changes),
        "changes": [{"environment": c.environment, "kind": c.kind, "name": c.name, "category": c.category.name,
                     "effect": c.category.value, "reasons": list(c.reasons)} for c in changes],
    }
    if cost is not None:
        document["cost"] = cost_json(cost)
    return json.dumps(document, indent=2) + "\n"


def _few_labels(labels: list[str], limit: int = 5) -> str:
    return ", ".join(labels[:limit]) + (f", and {len(labels) - limit} more" if len(labels) > limit else "")


def _rise(e: EnvironmentCost) -> str:
    new = sorted(set(e.unbounded_after) - set(e.unbounded_before))
    if new:
        return f"{plain(e.environment)} gains pools without a GPU limit ({_few_labels([plain(n) for n in new])})"
    change = e.increase_percent
    if change is None:
        return (f"{plain(e.environment)} {_env_usd(e.before, e.unbounded_before)} → "
                f"{_env_usd(e.after, e.unbounded_after)}")
    return f"{plain(e.environment)} {'+' if change >= 0 else ''}{change:.1f}%"


def verdict_lines(hits: list[Hit]) -> list[str]:
    """One terminal line per ``--fail-on`` condition that hit, naming what hit it."""
    lines = []
    for hit in hits:
        if hit.changes:
            n = len(hit.changes)
            what = _few_labels([f"{plain(c.environment)} {object_label(c)}" for c in hit.changes])
            lines.append(f"fail-on {hit.condition}: {n} change{'s' if n != 1 else ''} "
                         f"{FAIL_ON_EFFECT[hit.condition][n != 1]} ({what})")
        else:
            lines.append(f"fail-on {hit.condition}: {'; '.join(_rise(e) for e in hit.environments)}")
    return lines
