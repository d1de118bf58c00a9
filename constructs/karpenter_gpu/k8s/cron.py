"""Budget schedules as Karpenter reads them: robfig/cron/v3 ``ParseStandard``, evaluated in UTC.

One parser for every reader: :class:`~karpenter_gpu.pools.disruption_window.Budget` refuses what it cannot parse
(:func:`field_error`), and the disruption timeline draws when a schedule starts (:meth:`Cron.starts`).

Upstream: kubernetes-sigs/karpenter v1.14.1 ``pkg/apis/v1/nodepool.go`` ``Budget.IsActive`` (``cron.ParseStandard``
of the schedule, active while the last start is less than ``duration`` ago, in UTC) and robfig/cron/v3
``parser.go`` (``Parse``, ``getField``, ``getRange``, ``mustParseInt``, ``parseDescriptor``) and ``spec.go``
(``dayMatches``). The oracle's cron family (tests/oracle/cron.go) checks :meth:`Cron.parse` and :meth:`Cron.starts`
against ``ParseStandard`` and ``SpecSchedule.Next`` on generated schedules the CRD admits.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Iterator

from karpenter_gpu.k8s.int64 import ascii_digits, int64_of

__all__ = ["DESCRIPTORS", "FIELDS", "Cron", "field_error", "go_fields", "go_trim_space"]

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


#: Go's ``unicode.IsSpace`` (what ``strings.Fields`` and ``strings.TrimSpace`` split and trim on): Python's
#: ``str.isspace`` less the four information separators U+001C-U+001F, which Go does not count as space.
_GO_SPACE = frozenset(chr(c) for c in range(0x3001) if chr(c).isspace()) - frozenset("\x1c\x1d\x1e\x1f")


def go_fields(text: str) -> list[str]:
    """``strings.Fields``: ``text`` split around runs of Go white space."""
    out: list[str] = []
    word: list[str] = []
    for ch in text:
        if ch in _GO_SPACE:
            if word:
                out.append("".join(word))
                word = []
        else:
            word.append(ch)
    if word:
        out.append("".join(word))
    return out


def go_trim_space(text: str) -> str:
    """``strings.TrimSpace``: ``text`` without Go white space at either end."""
    start, end = 0, len(text)
    while start < end and text[start] in _GO_SPACE:
        start += 1
    while end > start and text[end - 1] in _GO_SPACE:
        end -= 1
    return text[start:end]


def _atoi(text: str, name: str) -> int:
    """``mustParseInt``: ``strconv.Atoi`` (an optional sign, ASCII digits, within int64), refusing a negative."""
    digits = text[1:] if text[:1] in ("+", "-") else text
    value = int64_of(text) if ascii_digits(digits) else None
    if value is None:
        raise ValueError(f"{name} {text!r} is not a number")
    if value < 0:
        raise ValueError(f"{name} {text!r} is negative")
    return value


def _int_or_name(text: str, index: int) -> int:
    """``parseIntOrName``: a name of the field (case-insensitive), else :func:`_atoi`."""
    name, _, _, names = FIELDS[index]
    return names[text.lower()] if text.lower() in names else _atoi(text, name)


def _range(expr: str, index: int) -> tuple[range, bool]:
    """``getRange``: the values of one comma-separated part, and whether it sets robfig's star bit (``*`` or ``?`` --
    in any field -- without a step above 1). ValueError says why it does not parse."""
    name, low, high, _ = FIELDS[index]
    range_and_step = expr.split("/")
    low_and_high = range_and_step[0].split("-")
    star = low_and_high[0] in ("*", "?")
    if star:  # whatever follows a '*-' is not read
        start, end = low, high
    else:
        start = _int_or_name(low_and_high[0], index)
        if len(low_and_high) > 2:
            raise ValueError(f"{name} {expr!r} has too many hyphens")
        end = _int_or_name(low_and_high[1], index) if len(low_and_high) == 2 else start
    if len(range_and_step) > 2:
        raise ValueError(f"{name} {expr!r} has too many slashes")
    step = 1
    if len(range_and_step) == 2:
        step = _atoi(range_and_step[1], f"{name} step")
        if len(low_and_high) == 1:
            end = high  # "N/step" is "N-max/step"
        star = star and step <= 1
    if start < low or end > high:
        raise ValueError(f"{name} {start if start < low else end} is outside {low}-{high}")
    if start > end:
        raise ValueError(f"{name} range {expr!r} runs backwards")
    if step == 0:
        raise ValueError(f"{name} step {range_and_step[1]!r} is not a positive number")
    return range(start, end + 1, step), star


def _field(field: str, index: int) -> tuple[frozenset[int], bool]:
    """``getField``: the values of a field (its comma-separated parts, empty parts skipped as
    ``strings.FieldsFunc`` skips them) and whether any part set the star bit, which decides how day of month and
    day of week combine. ValueError says why it does not parse."""
    values: set[int] = set()
    star = False
    for part in (p for p in field.split(",") if p):
        found, starred = _range(part, index)
        values.update(found)
        star = star or starred
    return frozenset(values), star


def field_error(field: str, index: int) -> str | None:
    """Why robfig/cron would reject ``field`` at ``index`` (None when it parses): ranges, steps and names."""
    try:
        _field(field, index)
    except ValueError as err:
        return str(err)
    return None


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
        """``ParseStandard`` of ``"TZ=UTC " + schedule``, as ``Budget.IsActive`` builds it: the schedule trimmed of
        Go white space, then a descriptor (exactly, case-sensitive) or five fields split on Go white space.
        ValueError says why it does not parse. ``@every <duration>`` parses upstream but the NodePool CRD never
        admits it (no five fields, no listed descriptor): refused here."""
        text = go_trim_space(schedule)
        if text.startswith("@"):
            if text not in DESCRIPTORS:
                raise ValueError(f"{schedule!r} is not a descriptor Karpenter reads ({', '.join(DESCRIPTORS)})")
            text = DESCRIPTORS[text]
        fields = go_fields(text)
        if len(fields) != 5:
            raise ValueError(f"{schedule!r} has {len(fields)} fields, not 5 (minute hour day-of-month month "
                             "day-of-week) or a descriptor")
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
