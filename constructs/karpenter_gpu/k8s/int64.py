"""Decimal integers as Go reads them into an int64, without converting a text Python refuses.

Python's ``int()`` refuses a decimal text of more than 4,300 digits (``sys.get_int_max_str_digits``, a
``ValueError``), and a manifest may hold one wherever a number is read: Go's ``strconv`` answers "out of range" for
it. Every reader of a count from a manifest goes through :func:`int64_of`, so such a text is an out-of-range value
there too, never an internal error (KG919).
"""

from __future__ import annotations

__all__ = ["MAX", "MIN", "ascii_digits", "int64_of"]

MAX = 2**63 - 1
MIN = -MAX - 1
_DIGITS_OF_MAX = len(str(MAX))  # 19


def ascii_digits(text: str) -> bool:
    """Whether ``text`` is one or more ASCII digits (``str.isdigit`` alone also accepts '²', which ``int`` refuses)."""
    return text.isascii() and text.isdigit()


def int64_of(text: str) -> int | None:
    """The value of ``text`` (an optional sign and ASCII digits, as the caller's own check has already matched) when
    it is within int64, as Go's ``strconv.ParseInt(text, 10, 64)`` reads it; else None (out of range)."""
    sign, digits = ("-" if text.startswith("-") else ""), text.lstrip("+-").lstrip("0") or "0"
    if len(digits) > _DIGITS_OF_MAX:
        return None
    value = int(sign + digits)  # leading zeros count against Python's limit too: they are dropped first
    return value if MIN <= value <= MAX else None
