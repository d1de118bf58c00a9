"""When each NodePool blocks voluntary disruption, over one week, as intervals and as an SVG picture.

Budgets are read from the manifests (UTC cron ``schedule`` + ``duration``, parsed as Karpenter does by
:mod:`karpenter_gpu.k8s.cron`, day of month and month included); a budget with
``nodes: "0"`` blocks every voluntary disruption of its reasons while active. The week is shown
in a chosen IANA zone for a fixed reference week (DST zones differ by an hour in summer).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, UTC
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.cron import Cron
from karpenter_gpu.k8s.units import Duration
from karpenter_gpu.k8s.views import NodePoolView
from karpenter_gpu.k8s.windows import load_zone
from karpenter_gpu.render import escape

#: Monday of the reference week, in January (northern-hemisphere standard time).
REFERENCE_MONDAY = datetime(2027, 1, 4, tzinfo=UTC)
_WEEK = 7 * 24 * 60
_BLOCKED, _CAPPED = "#c0392b", "#f0b429"


@dataclass(frozen=True)
class Block:
    """A blocking interval in minutes from Monday 00:00 of the reference week (local time)."""

    start: int
    end: int
    reasons: tuple[str, ...]


def _minutes(duration: str) -> int:
    """A budget's ``duration`` in whole minutes, rounded up (a 30s window still shows), read as Karpenter reads it:
    ``time.ParseDuration`` through :meth:`Duration.parse` (``600s``, ``30m1h``, ``8h30s``); 0 when it does not
    parse (validate reports it) or is ``Never``."""
    try:
        parsed = Duration.parse(duration)
    except KarpenterGpuError:
        return 0
    return 0 if parsed.is_never else -(-parsed.total_seconds // 60)


def blocks(nodepool: dict, zone: str = "UTC", *, limited: bool = False) -> list[Block]:
    """Intervals (local time, Monday-first, may wrap past Sunday) in which ``nodes: "0"`` budgets are active.

    ``limited=True`` returns the scheduled budgets that cap disruption at a non-zero number instead.
    """
    tz = load_zone(zone)
    local_monday = REFERENCE_MONDAY.replace(tzinfo=None)
    begin = local_monday.replace(tzinfo=tz)  # the local week, as the UTC instants the schedules are read in
    out = []
    for budget in NodePoolView.of(nodepool).budgets:
        if "schedule" not in budget or (str(budget.get("nodes")) == "0") == limited:
            continue
        schedule = _schedule(budget["schedule"])
        if schedule is None:
            continue  # Karpenter cannot parse it (validate reports it): nothing to draw
        length = _minutes(str(budget.get("duration", "")))
        for start in schedule.starts(begin, begin + timedelta(days=7)):
            when = start.astimezone(tz).replace(tzinfo=None)
            offset = int((when - local_monday).total_seconds() // 60) % _WEEK
            out.append(Block(offset, offset + length, tuple(budget.get("reasons") or ())))
    return sorted(out, key=lambda b: (b.start, b.end))


def _schedule(value: object) -> Cron | None:
    """The schedule as Karpenter parses it (:mod:`karpenter_gpu.k8s.cron`), None when it does not parse."""
    try:
        return Cron.parse(value) if isinstance(value, str) else None
    except ValueError:
        return None


def dated(nodepool: dict) -> bool:
    """Whether a scheduled budget of the pool runs only on some days of the month or in some months (``0 9 1 * *``):
    a week shows it only where it falls in that week."""
    return any(s is not None and s.dated
               for s in (_schedule(b.get("schedule")) for b in NodePoolView.of(nodepool).budgets if "schedule" in b))


def always_blocked(nodepool: dict) -> bool:
    """A ``nodes: "0"`` budget without a schedule blocks all voluntary disruption, always."""
    budgets = NodePoolView.of(nodepool).budgets
    return any(str(b.get("nodes")) == "0" and "schedule" not in b and not b.get("reasons") for b in budgets)


def svg(nodepools: list[dict], zone: str = "UTC", title: str = "") -> str:
    """A weekly timeline: one row per NodePool, shaded where voluntary disruption is blocked.

    Pool names, the title and the zone are input text: each goes through :func:`escape.svg`, so the document
    stays well-formed XML (no control character, no markup) whatever they hold."""
    label_w, day_w, row_h, top = 230, 96, 22, 46
    width, height = label_w + 7 * day_w + 10, top + row_h * max(len(nodepools), 1) + 30
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'font-family="sans-serif" font-size="12">',
             f'<rect width="{width}" height="{height}" fill="white"/>',
             f'<text x="8" y="18" font-weight="bold">{escape.svg(title or "Disruption windows")} '
             f'({escape.svg(zone)}, week of {REFERENCE_MONDAY:%Y-%m-%d})</text>']
    for i, day in enumerate(("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")):
        x = label_w + i * day_w
        for hour in (6, 12, 18):  # faint hour ticks so a reader can tell 09:00 from 11:00
            parts.append(f'<line x1="{x + hour * day_w / 24:.1f}" y1="{top - 2}" x2="{x + hour * day_w / 24:.1f}" '
                         f'y2="{height - 26}" stroke="#eee"/>')
        parts.append(f'<text x="{x + day_w // 2}" y="{top - 8}" text-anchor="middle">{day}</text>')
        parts.append(f'<line x1="{x}" y1="{top - 4}" x2="{x}" y2="{height - 26}" stroke="#ccc"/>')
    for row, pool in enumerate(nodepools):
        y = top + row * row_h
        name = NodePoolView.of(pool).name or "?"
        note = " (dated budget: this week only)" if dated(pool) else ""
        parts.append(f'<text x="8" y="{y + 15}">{escape.svg(name)}{note}</text>')
        parts.append(f'<rect x="{label_w}" y="{y + 3}" width="{7 * day_w}" height="{row_h - 6}" fill="#eef5ee"/>')
        blocked = [(0, _WEEK)] if always_blocked(pool) else [(b.start, b.end) for b in blocks(pool, zone)]
        capped = [(b.start, b.end) for b in blocks(pool, zone, limited=True)]
        for spans, colour in ((capped, _CAPPED), (blocked, _BLOCKED)):
            for start, end in spans:
                for a, b in ((start, min(end, _WEEK)), (0, end - _WEEK) if end > _WEEK else (0, 0)):
                    if b > a:
                        left = label_w + a * day_w / 1440
                        parts.append(f'<rect x="{left:.1f}" y="{y + 3}" width="{(b - a) * day_w / 1440:.1f}" '
                                     f'height="{row_h - 6}" fill="{colour}"/>')
    legend_y = height - 10
    parts.append(f'<rect x="8" y="{legend_y - 10}" width="12" height="10" fill="{_BLOCKED}"/>'
                 f'<text x="26" y="{legend_y}">no voluntary disruption (nodes: 0)</text>'
                 f'<rect x="250" y="{legend_y - 10}" width="12" height="10" fill="{_CAPPED}"/>'
                 f'<text x="268" y="{legend_y}">capped by a scheduled budget (nodes &gt; 0)</text>'
                 f'<rect x="540" y="{legend_y - 10}" width="12" height="10" fill="#eef5ee"/>'
                 f'<text x="558" y="{legend_y}">the pool\'s other budgets apply</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
