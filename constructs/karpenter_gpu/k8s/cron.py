"""Budget schedules as Karpenter reads them: robfig/cron/v3 ``ParseStandard``, evaluated in UTC.

One parser for every reader: :class:`~karpenter_gpu.pools.disruption_window.Budget` refuses what it cannot parse
(:func:`field_error`), and the disruption timeline draws when a schedule starts (:meth:`Cron.starts`).

Upstream: kubernetes-sigs/karpenter v1.14.1 ``pkg/apis/v1/nodepool.go`` ``Budget.IsActive`` (``cron.ParseStandard``
of the schedule, active while the last start is less than ``duration`` ago, in UTC) and robfig/cron/v3
``parser.go`` (``getRange``, ``parseDescriptor``) and ``spec.go`` (``dayMatches``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Iterator

from karpenter_gpu.k8s.int64 import ascii_digits, int64_of

__all__ = ["DESCRIPTORS", "FIELDS", "Cron", "field_error"]

#: ``ParseStandard`` fields: name, bounds and the names a field accepts (case-insensitive).
FIELDS: tuple[tuple[str, int, int, dict[str, int]], ...] = (
    ("minute", 0, 59, {}), ("hour", 0, 23, {}), ("day of month", 1, 31, {}),
    ("month", 1, 12, {m: i + 1 for i, m in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"))}),
    ("day of week", 0, 6, {d: i for i, d in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}))
#: ``parseDescriptor``: the descriptors the NodePool CRD's schedule pattern admits, as the fields they stand for.
DESCRIPTORS: dict[str, str] = {"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
                               "@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *",
                               "@hourly": "0 * * * *"}


def _number(text: str, names: dict[str, int]) -> int | None:
    if text.lower() in names:
        return names[text.lower()]
    return int64_of(text) if ascii_digits(text) else None  # beyond int64: robfig's strconv.Atoi fails


def field_error(field: str, index: int) -> str | None:
    """Why robfig/cron would reject ``field`` at ``index`` (None when it parses): ranges, steps and names."""
    name, low, high, names = FIELDS[index]
    for part in field.split(","):
        body, _, step = part.partition("/")
        if step and (not ascii_digits(step) or int64_of(step) in (None, 0)):
            return f"{name} step {step!r} is not a positive number"
        if body in ("*", "?"):
            if body == "?" and index not in (2, 4):
                return f"'?' is only allowed in day of month or day of week, not {name}"
            continue
        start, dash, end = body.partition("-")
        first, last = _number(start, names), _number(end, names) if dash else _number(start, names)
        if first is None or last is None:
            return f"{name} {body!r} is not a number or range"
        for v in (first, last):
            if not low <= v <= high:
                return f"{name} {v} is outside {low}-{high}"
        if last < first:
            return f"{name} range {body!r} runs backwards"
    return None


def _field(field: str, index: int) -> tuple[frozenset[int], bool]:
    """``getField``: the values of a valid field, and whether robfig's star bit is set (a part ``*`` or ``?``
    without a step above 1), which decides how day of month and day of week combine."""
    _, low, high, names = FIELDS[index]
    values: set[int] = set()
    star = False
    for part in field.split(","):
        body, _, step_text = part.partition("/")
        step = int(step_text) if step_text else 1
        if body in ("*", "?"):
            first, last, starred = low, high, step == 1
        else:
            start, dash, end = body.partition("-")
            first = _number(start, names) or 0
            last = (_number(end, names) or 0) if dash else (high if step_text else first)  # "N/step" is N-max/step
            starred = False
        values.update(range(first, last + 1, step))
        star = star or starred
    return frozenset(values), star


@dataclass(frozen=True)
class Cron:
    """A parsed schedule: the values of each field and robfig's star bits of the two day fields."""

    minutes: frozenset[int]
    hours: frozenset[int]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]  # Sunday = 0
    days_star: bool
    weekdays_star: bool

    @classmethod
    def parse(cls, schedule: str) -> "Cron":
        """``ParseStandard`` of ``schedule`` (five fields or a descriptor); ValueError says why it does not parse."""
        fields = DESCRIPTORS.get(schedule.strip().lower(), schedule).split()
        if len(fields) != 5:
            raise ValueError(f"{schedule!r} has {len(fields)} fields, not 5 (minute hour day-of-month month "
                             "day-of-week) or a descriptor")
        for index, text in enumerate(fields):
            problem = field_error(text, index)
            if problem is not None:
                raise ValueError(problem)
        (minutes, _), (hours, _), (days, days_star), (months, _), (weekdays, weekdays_star) = (
            _field(text, index) for index, text in enumerate(fields))
        return cls(minutes, hours, days, months, weekdays, days_star, weekdays_star)

    @property
    def dated(self) -> bool:
        """Whether it runs only on some days of the month or in some months: not the same every week."""
        return not self.days_star or self.months != frozenset(range(1, 13))

    def day_matches(self, day: datetime) -> bool:
        """``dayMatches``: when either day field is starred both must match, else either may (cron's OR)."""
        in_month = day.day in self.days
        in_week = (day.weekday() + 1) % 7 in self.weekdays  # Python's Monday = 0, cron's Sunday = 0
        if self.days_star or self.weekdays_star:
            return in_month and in_week
        return in_month or in_week

    def starts(self, begin: datetime, end: datetime) -> Iterator[datetime]:
        """Every start (UTC, aware) in ``[begin, end)``, in order."""
        begin, end = begin.astimezone(UTC), end.astimezone(UTC)
        day = begin.replace(hour=0, minute=0, second=0, microsecond=0)
        while day < end:
            if day.month in self.months and self.day_matches(day):
                for hour in sorted(self.hours):
                    for minute in sorted(self.minutes):
                        when = day.replace(hour=hour, minute=minute)
                        if begin <= when < end:
                            yield when
            day += timedelta(days=1)
