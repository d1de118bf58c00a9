"""Disruption windows in local time: the NodePool annotation that records them, and the tzdata zones they name.

Karpenter evaluates budget schedules in UTC. :class:`~karpenter_gpu.pools.disruption_window.DisruptionWindow`
compiles local hours to UTC budgets and records each budget's local meaning in :data:`WINDOWS_ANNOTATION`, one
line ``budgets[<i>]: <note>`` per compiled budget (an object annotation: it never drifts nodes). The note holds
the window's span as :func:`span_text` writes it; ``explain`` reads the notes back with :func:`window_notes` and
the zone with :func:`window_zone`, and ``validate`` (KG413) trusts annotated schedules.
"""

from __future__ import annotations

import difflib
import importlib.resources
import re
import zoneinfo
from typing import Any, Mapping

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.perf import cached

__all__ = ["ABBREVIATIONS", "LEGACY_ZONES", "WINDOWS_ANNOTATION", "load_zone", "span_text", "window_annotation", "window_notes", "window_zone"]

#: NodePool annotation carrying the local-time meaning of each compiled budget (does not drift nodes).
WINDOWS_ANNOTATION = "karpenter-gpu.io/disruption-windows"
_NOTE = re.compile(r"budgets\[([0-9]+)\]: (.*)")
_SPAN = re.compile(r"[0-9][0-9]:[0-9][0-9]-[0-9][0-9]:[0-9][0-9](?: \(ends next day\))? ([A-Za-z_]+(?:/[A-Za-z_+-]+)*) \(UTC")


def span_text(start: str, end: str, overnight: bool, zone: str, offsets: str) -> str:
    """A window's local span, e.g. ``18:00-04:00 (ends next day) Asia/Seoul (UTC+9)``."""
    return f"{start}-{end}{' (ends next day)' if overnight else ''} {zone} ({offsets})"


def window_annotation(notes: Mapping[int, str]) -> dict[str, str] | None:
    """The annotations recording the notes of the budgets at these indexes; None when there are none."""
    return {WINDOWS_ANNOTATION: "\n".join(f"budgets[{i}]: {n}" for i, n in sorted(notes.items()))} if notes else None


def window_notes(annotations: Mapping[str, Any]) -> dict[int, str]:
    """Budget index -> local meaning, read back from :data:`WINDOWS_ANNOTATION` (empty when absent)."""
    text = str(annotations.get(WINDOWS_ANNOTATION, ""))
    return {int(m.group(1)): m.group(2) for m in _NOTE.finditer(text)}


def window_zone(note: str) -> str | None:
    """The time zone a note's span names (see :func:`span_text`), None when it names none."""
    m = _SPAN.search(note)
    return m.group(1) if m else None


@cached(maxsize=1)
def _zone_names() -> frozenset[str]:
    # tzdata ships the list of its keys; membership in it rules out paths such as '../x'.
    text = importlib.resources.files("tzdata").joinpath("zones").read_text(encoding="utf-8")
    return frozenset(line.strip() for line in text.splitlines() if line.strip()) - {"Factory"}


#: tzdata's legacy zone names (abbreviations and POSIX-style rules, kept for old systems) -> the IANA
#: location zone people mean by them. ``EST``, ``MST`` and ``HST`` are fixed offsets without daylight saving
#: time (since tzdata 2024b links to America/Panama, America/Phoenix, Pacific/Honolulu), so "EST" hours
#: would be an hour off all summer in New York; the others are old rule sets that tzdata's ``backward``
#: file now links to a city zone. A real fixed offset stays expressible as ``Etc/GMT+5`` (or ``UTC``).
LEGACY_ZONES: dict[str, str] = {
    "EST": "America/New_York", "MST": "America/Denver", "HST": "Pacific/Honolulu",
    "EST5EDT": "America/New_York", "CST6CDT": "America/Chicago", "MST7MDT": "America/Denver",
    "PST8PDT": "America/Los_Angeles", "CET": "Europe/Brussels", "EET": "Europe/Athens", "MET": "Europe/Brussels",
    "WET": "Europe/Lisbon",
}


#: Abbreviations people write for a zone that are no tzdata name at all (``KST``): the IANA zones they stand for
#: (several where one abbreviation means more than one place).
ABBREVIATIONS: dict[str, tuple[str, ...]] = {
    "KST": ("Asia/Seoul",), "JST": ("Asia/Tokyo",), "SGT": ("Asia/Singapore",), "HKT": ("Asia/Hong_Kong",),
    "IST": ("Asia/Kolkata", "Europe/Dublin", "Asia/Jerusalem"), "CST": ("America/Chicago", "Asia/Shanghai"),
    "PST": ("America/Los_Angeles",), "PDT": ("America/Los_Angeles",), "EDT": ("America/New_York",),
    "CDT": ("America/Chicago",), "MDT": ("America/Denver",), "BST": ("Europe/London",),
    "CEST": ("Europe/Paris",), "AEST": ("Australia/Sydney",), "AEDT": ("Australia/Sydney",),
    "NZST": ("Pacific/Auckland",), "BRT": ("America/Sao_Paulo",), "WIB": ("Asia/Jakarta",),
}


@cached()
def load_zone(name: str) -> zoneinfo.ZoneInfo:
    """A zone from the pinned tzdata package (never the machine's database), or KG151 (KG156 for a legacy name)."""
    if name in LEGACY_ZONES:
        raise KarpenterGpuError(
            "KG156", prop="time_zone", value=name,
            allowed="an IANA location zone such as 'America/New_York': legacy names like 'EST' are fixed offsets "
                    "or old rule sets (EST is UTC-5 all year, without daylight saving time)",
            fix=f"use time_zone={LEGACY_ZONES[name]!r} (or 'Etc/GMT+5'-style names if a fixed offset is meant)",
        )
    if name not in _zone_names():
        meant = ABBREVIATIONS.get(name.upper()) if isinstance(name, str) else None
        close = difflib.get_close_matches(name, sorted(_zone_names()), n=1)
        if meant:
            fix = (f"{name!r} is an abbreviation, not a zone: use time_zone={meant[0]!r}" if len(meant) == 1 else
                   f"{name!r} is an abbreviation of several zones: use one of {', '.join(map(repr, meant))}")
        else:
            fix = f"did you mean {close[0]!r}?" if close else "check the spelling (names are case-sensitive)"
        raise KarpenterGpuError(
            "KG151", prop="time_zone", value=name,
            allowed="an IANA time zone name from the tzdata package, e.g. 'Asia/Seoul', "
                    "'America/New_York', 'UTC'",
            fix=fix,
        )
    with importlib.resources.files("tzdata").joinpath("zoneinfo", *name.split("/")).open("rb") as f:
        return zoneinfo.ZoneInfo.from_file(f, key=name)
