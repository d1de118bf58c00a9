"""Disruption budgets, and disruption windows written in local time and compiled to UTC.

Karpenter v1.14.1 evaluates ``spec.disruption.budgets[].schedule`` in **UTC only**. A team
that wants "no disruption 09:00-19:00 KST on weekdays" and writes ``'0 9 * * MON-FRI'`` for
``10h`` really blocks 18:00-04:00 KST. :class:`DisruptionWindow` takes the local hours and an
IANA time zone and does the conversion (``'0 0 * * MON-FRI'`` for ``10h``), so that mistake
cannot be written.

Budget semantics the compilation relies on: when several budgets are active the minimum
wins, so a budget can only *restrict* disruption; budgets never block expiration or other
forceful disruption.

Time zones come from the ``tzdata`` PyPI package, not the machine's tz database, and offsets
are sampled over the fixed :data:`REFERENCE_YEARS` (never "now"), so the same input renders
byte-identical manifests on every machine and on every day.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta, UTC
from typing import Annotated, Any, NamedTuple

from pydantic import BeforeValidator, PrivateAttr, ValidationInfo, field_validator, model_validator
from typing_extensions import TypedDict, Unpack

from karpenter_gpu._props import Props, build
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.cron import DESCRIPTORS, field_error
from karpenter_gpu.k8s.units import Duration
from karpenter_gpu.k8s.windows import load_zone, span_text
from karpenter_gpu.perf import cached

__all__ = [
    "MAX_BUDGETS",
    "REFERENCE_YEARS",
    "Budget",
    "DisruptionReason",
    "DisruptionWindow",
    "compile_budgets",
]

#: Years whose UTC offsets a zone is sampled over. Fixed, so output never depends on today.
REFERENCE_YEARS = range(2026, 2031)
#: ``spec.disruption.budgets`` maxItems in the v1.14.1 NodePool CRD.
MAX_BUDGETS = 50

_DAY = 24 * 60  # minutes
_NODES = re.compile(r"^((100|[0-9]{1,2})%|[0-9]+)\Z")  # the CRD's pattern for budgets[].nodes
_HHMM = re.compile(r"^([01][0-9]|2[0-3]):([0-5][0-9])\Z")
_CRON_FIELD = re.compile(r"^[0-9A-Za-z*?/,\-]+\Z")
#: The descriptors Karpenter's cron parser accepts (one parser: :mod:`karpenter_gpu.k8s.cron`).
_CRON_DESCRIPTORS = frozenset(DESCRIPTORS)
# Local days are Monday-first (datetime.weekday()); cron days are Sunday-first (SUN=0).
_DAYS = ("MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN")
_FULL_DAYS = ("MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY")
_CRON_DAYS = ("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT")


class DisruptionReason(enum.StrEnum):
    """``budgets[].reasons`` values; an empty set means the budget applies to all reasons."""

    DRIFTED = "Drifted"
    UNDERUTILIZED = "Underutilized"
    EMPTY = "Empty"


# --- shared field validators -------------------------------------------------------------


def _nodes(value: Any) -> int | str:
    """A node count (int >= 0) or a CRD-valid string ('10%', '3')."""
    ok = (isinstance(value, int) and not isinstance(value, bool) and value >= 0) or (
        isinstance(value, str) and _NODES.match(value)
    )
    if not ok:
        raise KarpenterGpuError(
            "KG155", prop="nodes", value=value,
            allowed=f"a whole number of nodes >= 0, or a string matching {_NODES.pattern} "
                    "(a percentage from '0%' to '100%')",
            fix="pass Budget.count(1) / nodes=1, or Budget.percent(10) / nodes='10%'",
        )
    return value


def _reasons(value: Any) -> tuple[DisruptionReason, ...]:
    """Reasons as a tuple of the enum; names and values accepted case-insensitively."""
    allowed = f"a set of {[r.value for r in DisruptionReason]} without duplicates (empty = all reasons)"
    fix = "use DisruptionReason.DRIFTED / UNDERUTILIZED / EMPTY; budgets never cover expiration"
    items = (value,) if isinstance(value, str) else value
    if not isinstance(items, Iterable):
        raise KarpenterGpuError("KG153", prop="reasons", value=value, allowed=allowed, fix=fix)
    lookup = {k.lower(): r for r in DisruptionReason for k in (r.value, r.name)}
    out: list[DisruptionReason] = []
    for item in items:
        reason = lookup.get(item.lower()) if isinstance(item, str) else None
        if reason is None:
            raise KarpenterGpuError("KG153", prop="reasons", value=item, allowed=allowed, fix=fix)
        if reason in out:
            # The CRD declares reasons a set: the API server rejects a repeated entry.
            raise KarpenterGpuError("KG153", prop="reasons", value=value, allowed=allowed,
                                    fix=f"list {reason.value!r} once")
        out.append(reason)
    return tuple(out)


NodeCount = Annotated[int | str, BeforeValidator(_nodes)]
Reasons = Annotated[tuple[DisruptionReason, ...], BeforeValidator(_reasons)]


# --- Budget ------------------------------------------------------------------------------


class BudgetOptions(TypedDict, total=False):
    """What :meth:`Budget.percent` and :meth:`Budget.count` take besides the node count: the other
    fields of :class:`Budget`, same types."""

    reasons: tuple[DisruptionReason, ...]
    schedule: str | None
    duration: Duration | None
    note: str | None


class Budget(Props):
    """One ``spec.disruption.budgets[]`` entry, rendered exactly as the CRD expects.

    ``schedule`` is a cron expression that Karpenter evaluates in **UTC**; to express local
    hours use :class:`DisruptionWindow` instead of converting by hand. ``note`` is a human
    description kept for reviews and is not rendered.
    """

    nodes: NodeCount
    reasons: Reasons = ()
    schedule: str | None = None
    duration: Duration | None = None
    note: str | None = None

    @classmethod
    def percent(cls, n: int, **kw: Unpack[BudgetOptions]) -> "Budget":
        """At most ``n`` percent of the pool's nodes (``'10%'``)."""
        return build(cls, None, nodes=f"{n}%", **kw)

    @classmethod
    def count(cls, n: int, **kw: Unpack[BudgetOptions]) -> "Budget":
        """At most ``n`` nodes."""
        return build(cls, None, nodes=n, **kw)

    @field_validator("schedule")
    @classmethod
    def _check_schedule(cls, value: str | None) -> str | None:
        if value is None or value in _CRON_DESCRIPTORS:
            return value
        if value.startswith(("TZ=", "CRON_TZ=")):
            raise KarpenterGpuError(
                "KG152", prop="schedule", value=value,
                allowed="Karpenter evaluates budget schedules in UTC only (no time zones)",
                fix="use DisruptionWindow(start=..., end=..., time_zone='Asia/Seoul'), which compiles "
                    "local hours to a UTC schedule",
            )
        fields = value.split(" ")
        if len(fields) != 5 or not all(_CRON_FIELD.match(f) for f in fields):
            raise KarpenterGpuError(
                "KG152", prop="schedule", value=value,
                allowed="a 5-field cron 'minute hour day-of-month month day-of-week' in UTC, "
                        f"or one of {sorted(_CRON_DESCRIPTORS)}",
                fix="write e.g. '0 0 * * MON-FRI', or use DisruptionWindow for local hours",
            )
        for i, field in enumerate(fields):
            problem = field_error(field, i)
            if problem is not None:
                # Karpenter cannot parse it at run time and fails closed: the budget allows 0 disruptions.
                raise KarpenterGpuError(
                    "KG152", prop="schedule", value=value,
                    allowed=f"a cron Karpenter can parse ({problem}); the CRD pattern accepts any 5 fields, and "
                            "an unparsable schedule makes the budget fail closed (no disruption at all)",
                    fix="minute 0-59, hour 0-23, day of month 1-31, month 1-12, day of week 0-6 (SUN-SAT)")
        return value

    @field_validator("duration")
    @classmethod
    def _check_duration(cls, value: Duration | None) -> Duration | None:
        # The CRD only accepts hours and minutes ('10h', '1h30m'), and 0 would never be active.
        if value is not None and (value.is_never or value.total_seconds <= 0
                                  or value.total_seconds % 60):
            raise KarpenterGpuError(
                "KG152", prop="duration", value=str(value),
                allowed="a positive whole number of minutes (rendered as hours/minutes, e.g. '10h', '1h30m')",
                fix="pass Duration.hours(10) or Duration.minutes(90)",
            )
        return value

    @model_validator(mode="after")
    def _schedule_with_duration(self) -> "Budget":
        # CEL rule in the CRD: schedule and duration are set together or not at all.
        if (self.schedule is None) != (self.duration is None):
            given, missing = ("schedule", "duration") if self.duration is None else ("duration", "schedule")
            value = self.schedule if self.duration is None else str(self.duration)
            raise KarpenterGpuError(
                "KG152", prop=given, value=value,
                allowed=f"schedule and duration must be set together ({missing} is missing)",
                fix=f"pass {missing}=... as well, or drop both for an always-active budget",
            )
        return self

    def render(self) -> dict[str, Any]:
        """The CRD dict, keys in the order nodes, schedule, duration, reasons."""
        out: dict[str, Any] = {"nodes": str(self.nodes)}
        if self.schedule is not None:
            out["schedule"] = self.schedule
            out["duration"] = str(self.duration)
        if self.reasons:
            out["reasons"] = [r.value for r in self.reasons]
        return out


# --- time zones --------------------------------------------------------------------------


@cached()
def _zone_offsets(name: str) -> tuple[int, ...]:
    """Sorted distinct UTC offsets (minutes) of a tzdata zone during REFERENCE_YEARS."""
    zone = load_zone(name)
    # Samples every 12 hours catch every offset in force for half a day or more; real offsets
    # (standard and daylight time) last months. Hourly sampling cost ~0.1 s per zone for nothing.
    step = timedelta(hours=12)
    start = datetime(REFERENCE_YEARS.start, 1, 1, tzinfo=UTC)
    samples = (datetime(REFERENCE_YEARS.stop, 1, 1, tzinfo=UTC) - start) // step
    offsets = {(start + i * step).astimezone(zone).utcoffset() for i in range(samples)}
    return tuple(sorted(int(o.total_seconds()) // 60 for o in offsets if o is not None))


def _fmt_offset(minutes: int) -> str:
    sign = "-" if minutes < 0 else "+"
    return f"UTC{sign}{_hhmm(abs(minutes))}"


def _fmt_offsets(offsets: Sequence[int]) -> str:
    names = [_fmt_offset(o) for o in offsets]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _hhmm(minutes: int) -> str:
    """Minutes since midnight (any integer) as a wall-clock 'HH:MM'."""
    return "{:02d}:{:02d}".format(*divmod(minutes % _DAY, 60))


def _minutes(hhmm: str) -> int:
    """'HH:MM' as minutes since midnight."""
    h, m = hhmm.split(":")
    return int(h) * 60 + int(m)


# --- days --------------------------------------------------------------------------------


def _day_index(token: str) -> int | None:
    for names in (_DAYS, _FULL_DAYS):
        if token in names:
            return names.index(token)
    return None


def _parse_days(value: Any) -> tuple[str, ...]:
    """Day names, ranges in Monday..Sunday order, 'DAILY' or '*' -> canonical 3-letter names."""
    def bad(item: Any) -> KarpenterGpuError:
        return KarpenterGpuError(
            "KG152", prop="days", value=item,
            allowed="day names 'MON'..'SUN' or 'Monday'..'Sunday' (any case), ranges in Monday-to-Sunday "
                    "order such as 'MON-FRI' or 'SAT-SUN', 'DAILY' or '*'",
            fix="write a wrapping range as a list, e.g. ('FRI', 'SAT', 'SUN', 'MON')",
        )

    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, Iterable):
        raise bad(value)
    picked: set[int] = set()
    for item in items:
        if not isinstance(item, str):
            raise bad(item)
        token = item.strip().upper()
        if token in ("DAILY", "*"):
            picked.update(range(7))
            continue
        lo, dash, hi = token.partition("-")
        first, last = _day_index(lo), _day_index(hi if dash else lo)
        if first is None or last is None or last < first:
            raise bad(item)
        picked.update(range(first, last + 1))
    if not picked:
        raise bad(value)
    return tuple(_DAYS[i] for i in sorted(picked))


def _runs(indices: Iterable[int]) -> list[tuple[int, int]]:
    """Consecutive runs of sorted indices, e.g. [0, 1, 2, 6] -> [(0, 2), (6, 6)]."""
    runs: list[tuple[int, int]] = []
    for i in sorted(indices):
        if runs and runs[-1][1] == i - 1:
            runs[-1] = (runs[-1][0], i)
        else:
            runs.append((i, i))
    return runs


def _join_runs(indices: Iterable[int], names: Sequence[str]) -> str:
    return ",".join(names[a] if a == b else f"{names[a]}-{names[b]}" for a, b in _runs(indices))


def _cron_days(cron_indices: set[int]) -> str:
    # Ranges only run low-high in SUN=0..SAT=6 order: robfig/cron has no wrap-around ranges.
    return "*" if len(cron_indices) == 7 else _join_runs(cron_indices, _CRON_DAYS)


# --- DisruptionWindow --------------------------------------------------------------------


class _Compiled(NamedTuple):
    schedule: str
    duration: Duration
    offsets: tuple[int, ...]


class DisruptionWindow(Props):
    """During these **local** hours, at most ``nodes`` nodes may be voluntarily disrupted.

    ``start``/``end`` are ``"HH:MM"`` in ``time_zone`` (required: an IANA name such as
    ``'Asia/Seoul'`` or ``'UTC'``); ``end < start`` means the window ends the next day and
    ``end == start`` is rejected. ``days`` are the local days the window *starts* on: names
    ``'MON'``..``'SUN'`` or ``'Monday'``..``'Sunday'`` (any case), Monday-to-Sunday ranges such
    as ``'MON-FRI'``, ``'DAILY'`` or ``'*'`` (the default). Like every budget, a window never
    blocks expiration or other forceful disruption. :meth:`budgets` compiles it to UTC:

    - Fixed-offset zone: the exact UTC schedule (09:00-19:00 Asia/Seoul on MON-FRI becomes
      ``'0 0 * * MON-FRI'`` for ``10h``), shifting the days when the UTC start crosses midnight.
    - Zone with DST (several offsets during :data:`REFERENCE_YEARS`): the window is
      **widened**. One cron cannot follow DST, so the budget starts at local start minus the
      *largest* offset and lasts (end - start) + (largest - smallest offset): the local hours
      are covered under every offset all year; under the smaller offset it starts the DST
      delta early, under the larger it ends the DST delta late (09:00-17:00 America/New_York
      becomes ``'0 13 * * MON-FRI'`` for ``9h``: 08:00-17:00 EST, 09:00-18:00 EDT). Budgets
      only restrict disruption, so the extra hour is the conservative side. A window that would be widened to 24h or more leaves no time for
      disruption on its days and is rejected (KG152).
    """

    #: Given as ``"MON-FRI"``, ``"SAT,SUN"`` or a tuple of day names (typed both ways for callers);
    #: always stored as a tuple of day names.
    days: Annotated[tuple[str, ...] | str, BeforeValidator(_parse_days)] = _DAYS
    start: str
    end: str
    time_zone: str | None = None
    nodes: NodeCount = 0
    reasons: Reasons = ()

    _compiled: _Compiled = PrivateAttr()  # set once by validation

    @field_validator("start", "end")
    @classmethod
    def _check_hhmm(cls, value: str, info: ValidationInfo) -> str:
        if not _HHMM.match(value):
            raise KarpenterGpuError(
                "KG152", prop=str(info.field_name), value=value,
                allowed="a local time 'HH:MM' from '00:00' to '23:59'",
                fix="write e.g. '09:00'; for midnight use '00:00'",
            )
        return value

    @field_validator("time_zone")
    @classmethod
    def _check_zone(cls, value: str | None) -> str:
        if value is None:
            raise KarpenterGpuError(
                "KG150", prop="time_zone", value=None,
                allowed="a disruption window needs its time zone: Karpenter evaluates schedules in UTC "
                        "only, so local hours without a zone would silently be read as UTC",
                fix="pass an IANA name such as time_zone='Asia/Seoul', or time_zone='UTC' if the hours are UTC",
            )
        _zone_offsets(value)  # raises KG151 for an unknown name
        return value

    @model_validator(mode="after")
    def _check_window(self) -> "DisruptionWindow":
        if self.start == self.end:
            raise KarpenterGpuError(
                "KG152", prop="end", value=self.end,
                allowed=f"an end different from start {self.start!r} (an empty or 24h window is ambiguous)",
                fix="for a limit that is always active use Budget(nodes=...) without a schedule",
            )
        self._compiled = self._compile()  # fails at construction, not at synth, if DST widening leaves no gap
        return self

    def _length(self) -> int:
        """Local length in minutes; end <= start wraps past midnight."""
        return (_minutes(self.end) - _minutes(self.start)) % _DAY

    def _compile(self) -> _Compiled:
        assert self.time_zone is not None  # guaranteed by _check_zone
        offsets = _zone_offsets(self.time_zone)
        widen = offsets[-1] - offsets[0]
        length = self._length() + widen
        if length >= _DAY:
            raise KarpenterGpuError(
                "KG152", prop="window", value=f"{self.start}-{self.end} {self.time_zone}",
                allowed=f"{self.time_zone} uses {_fmt_offsets(offsets)}, so the window is "
                        f"widened by {Duration.minutes(widen)} to cover every offset; "
                        f"{Duration.minutes(self._length())} + {Duration.minutes(widen)} reaches 24h "
                        "and leaves no time for disruption on its days",
                fix=f"shorten the window to less than {Duration.minutes(_DAY - widen)}, use a fixed-offset "
                    "zone such as 'UTC', or use Budget(nodes=...) without a schedule for an always-on limit",
            )
        utc_start = _minutes(self.start) - offsets[-1]
        shift = utc_start // _DAY  # -1, 0 or +1 day
        # local weekday i (MON=0) is cron day i+1 (SUN=0); shift it when UTC crosses midnight
        cron_days = {(_DAYS.index(d) + 1 + shift) % 7 for d in self.days}
        hour, minute = divmod(utc_start % _DAY, 60)
        schedule = f"{minute} {hour} * * {_cron_days(cron_days)}"
        return _Compiled(schedule, Duration.minutes(length), offsets)

    def describe(self) -> str:
        """The local meaning and what it compiled to, e.g. for review notes."""
        return self._describe(self._compiled)

    def _describe(self, c: _Compiled) -> str:
        percent = isinstance(self.nodes, str) and self.nodes.endswith("%")
        nodes = f"{self.nodes} of nodes" if percent else f"{self.nodes} nodes"
        reasons = f" for {', '.join(r.value for r in self.reasons)}" if self.reasons else ""
        days = "daily" if len(self.days) == 7 else _join_runs(
            (_DAYS.index(d) for d in self.days), [d.title() for d in _DAYS])
        span = span_text(self.start, self.end, _minutes(self.end) < _minutes(self.start), str(self.time_zone),
                         "/".join(map(_fmt_offset, c.offsets)))
        text = f"at most {nodes} disrupted{reasons} {days} {span}; compiled to UTC {c.schedule!r} for {c.duration}"
        if len(c.offsets) > 1:
            lo, hi = c.offsets[0], c.offsets[-1]
            widen = hi - lo
            cover = "both" if len(c.offsets) == 2 else "all of"
            # Under the smallest offset the window starts early; under the largest it ends late.
            text += (f", widened by {Duration.minutes(widen)} to cover {cover} {_fmt_offsets(c.offsets)} "
                     f"({_hhmm(_minutes(self.start) - widen)}-{self.end} local under {_fmt_offset(lo)}, "
                     f"{self.start}-{_hhmm(_minutes(self.end) + widen)} under {_fmt_offset(hi)})")
        return text

    def budgets(self) -> tuple[Budget, ...]:
        """The UTC budget(s) enforcing this window, each with its local meaning as ``note``."""
        c = self._compiled
        return (Budget(nodes=self.nodes, reasons=self.reasons, schedule=c.schedule,
                       duration=c.duration, note=self._describe(c)),)


def compile_budgets(
    budgets: Sequence[Budget] = (), windows: Sequence[DisruptionWindow] = ()
) -> tuple[Budget, ...]:
    """Plain budgets first, then each window's budgets, in order; at most :data:`MAX_BUDGETS`."""
    out = tuple(budgets) + tuple(b for w in windows for b in w.budgets())
    if len(out) > MAX_BUDGETS:
        raise KarpenterGpuError(
            "KG154", prop="budgets", value=len(out),
            allowed=f"the NodePool CRD allows at most {MAX_BUDGETS} disruption budgets (maxItems {MAX_BUDGETS}); "
                    f"these inputs produce {len(out)}",
            fix="merge windows that share hours (one window can list several days) or drop redundant budgets",
        )
    return out
