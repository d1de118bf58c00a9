"""Numbers as Go's ``strconv.ParseFloat(s, 64)`` reads them: the AWS provider reads spot prices
(``pricing.go`` ``spotPage``) and on-demand prices (``onDemandPage``) with it, so a price file is read with the
same grammar, and a number it refuses is refused here, with the reason.

The grammar (Go's ``strconv/atof.go`` ``special`` and ``readFloat``, ``atoi.go`` ``underscoreOK``): ASCII only,
the whole string (no surrounding space or newline), an optional sign, then

- decimal digits with at most one ``.`` and at least one digit, an optional exponent ``e``/``E`` with an optional
  sign and at least one digit (``1.5``, ``.5``, ``5.``, ``1E5``, ``00012``);
- or ``0x``/``0X``, hexadecimal digits with at most one ``.``, and a mandatory ``p``/``P`` binary exponent
  (``0x1.8p1`` is 3);
- underscores between digits (``1_000``, ``0x_1p0``: Go's ``readFloat`` skips them and ``underscoreOK`` only asks
  that each one sits between two digits, or after the base prefix), never doubled, leading or trailing;
- or ``inf``/``infinity`` (any case, optional sign) and ``nan`` (any case, no sign).

:func:`parse` answers the exact decimal value as written (``Decimal``), and refuses what a price can never be:
non-finite values (``Inf``, ``NaN``, which Go reads without error), and values float64 cannot hold: beyond its
range (``1e999999``: Go answers ``ErrRange``) or a non-zero value that rounds to zero (``1e-999999``: Go answers
0). The exponent is read as Go reads it (clamped at 10,000 while its digits are scanned) and the magnitude is
decided from it before any ``Decimal`` is built, so a hostile exponent costs nothing.
"""

from __future__ import annotations

import math
from decimal import Context, Decimal

__all__ = ["GoFloatError", "parse"]

#: Go's ``readFloat`` stops growing an exponent at this size; past it the value is out of range (or zero) anyway.
_EXPONENT_CLAMP = 10_000
#: float64's decimal range: a value whose leading digit is at 10**309 or beyond overflows, one at 10**-326 or
#: below underflows to zero; in between, ``float()`` of the value (IEEE round-to-nearest, as Go) decides.
_MAX_ADJUSTED, _MIN_ADJUSTED = 308, -325
#: Significant digits kept: float64 holds 17; more only cost time in every later sum.
_DIGITS = Context(prec=34)
_HEX = frozenset("0123456789abcdefABCDEF")
_DEC = frozenset("0123456789")


class GoFloatError(ValueError):
    """Why a string is refused: ``reason`` is ``syntax`` (Go's ``ErrSyntax``), ``range`` (beyond float64: Go's
    ``ErrRange``, or a non-zero value Go reads as 0) or ``special`` (``Inf``, ``NaN``: read by Go, not a price)."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason


def _special(s: str) -> bool:
    """``special``: [+-]inf, [+-]infinity, nan (ASCII, any case)."""
    body = s[1:] if s[:1] in "+-" else s
    return body.lower() in ("inf", "infinity") or (s.lower() == "nan")


def _underscore_ok(s: str) -> bool:
    """``underscoreOK``: every underscore between two digits, or between the base prefix and a digit."""
    saw = "^"
    if s[:1] in "+-":
        s = s[1:]
    i, hexa = 0, False
    if len(s) >= 2 and s[0] == "0" and s[1].lower() in "box":
        i, saw, hexa = 2, "0", s[1].lower() == "x"
    for c in s[i:]:
        if c in _DEC or (hexa and c in _HEX):
            saw = "0"
        elif c == "_":
            if saw != "0":
                return False
            saw = "_"
        elif saw == "_":
            return False
        else:
            saw = "!"
    return saw != "_"


def _scan(s: str) -> tuple[bool, str, str, int] | None:
    """``readFloat`` over the whole of ``s``: (hexadecimal, integer digits, fraction digits, exponent), digits
    without underscores, the exponent clamped as Go clamps it; None when Go refuses the syntax."""
    i, n = 0, len(s)
    negative_exponent = False
    if i < n and s[i] in "+-":
        i += 1
    hexa = i + 2 < n and s[i] == "0" and s[i + 1] in "xX"
    if hexa:
        i += 2
    digits = _HEX if hexa else _DEC
    whole: list[str] = []
    fraction: list[str] = []
    underscores = dot = seen = False
    while i < n:
        c = s[i]
        if c == "_":
            underscores = True
        elif c == ".":
            if dot:
                break
            dot = True
        elif c in digits:
            seen = True
            (fraction if dot else whole).append(c)
        else:
            break
        i += 1
    if not seen:
        return None
    exponent = 0
    if i < n and s[i].lower() == ("p" if hexa else "e"):
        i += 1
        if i < n and s[i] in "+-":
            negative_exponent = s[i] == "-"
            i += 1
        if i >= n or s[i] not in _DEC:
            return None
        while i < n and (s[i] in _DEC or s[i] == "_"):
            if s[i] == "_":
                underscores = True
            elif exponent < _EXPONENT_CLAMP:
                exponent = exponent * 10 + ord(s[i]) - 48
            i += 1
    elif hexa:
        return None  # a hexadecimal mantissa needs its p exponent
    if i != n or (underscores and not _underscore_ok(s)):
        return None
    return hexa, "".join(whole), "".join(fraction), -exponent if negative_exponent else exponent


def parse(text: str) -> Decimal:
    """The value of ``text`` as ``strconv.ParseFloat(text, 64)`` reads it, exact as written (see the module
    docstring); :class:`GoFloatError` when Go refuses it, or it is not finite, or float64 cannot hold it."""
    if _special(text):
        raise GoFloatError("special", f"{text!r} is not a finite number")
    if not text.isascii():
        raise GoFloatError("syntax", "only ASCII digits are numbers to Go")
    scanned = _scan(text)
    if scanned is None:
        raise GoFloatError("syntax", "not a number Go's strconv.ParseFloat reads")
    hexa, whole, fraction, exponent = scanned
    sign = "-" if text[:1] == "-" else ""
    if hexa:
        mantissa = (whole + fraction).lstrip("0")
        if not mantissa:
            return Decimal(0)
        # 2**(4*(len(whole) - leading zeros) + exponent): outside float64's binary range, decided before any float
        power = 4 * (len(whole.lstrip("0")) if whole.strip("0") else -(len(fraction) - len(fraction.lstrip("0"))))
        if power + exponent > 1030 or power + exponent < -1080:
            raise GoFloatError("range", "beyond float64's range")
        try:
            value = float.fromhex(f"{sign}0x{whole or '0'}.{fraction}p{exponent}")
        except OverflowError:
            raise GoFloatError("range", "beyond float64's range") from None
        if value == 0:
            raise GoFloatError("range", "a non-zero number float64 reads as 0")
        return Decimal(value)
    significant = (whole + fraction).lstrip("0")
    if not significant:
        return Decimal(0)
    adjusted = (len(whole.lstrip("0")) - 1 if whole.strip("0") else
                -(len(fraction) - len(fraction.lstrip("0")) + 1)) + exponent
    if adjusted > _MAX_ADJUSTED + 1 or adjusted < _MIN_ADJUSTED - 1:
        raise GoFloatError("range", "beyond float64's range" if adjusted > 0 else "a non-zero number float64 reads as 0")
    written = f"{sign}{whole or '0'}.{fraction}e{exponent}"
    as_float = float(written)  # correctly rounded, as Go's ParseFloat rounds
    if math.isinf(as_float):
        raise GoFloatError("range", "beyond float64's range")
    if as_float == 0:
        raise GoFloatError("range", "a non-zero number float64 reads as 0")
    return _DIGITS.plus(Decimal(written))
