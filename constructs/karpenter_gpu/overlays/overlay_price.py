"""Price value objects of a NodeOverlay (``karpenter.sh/v1alpha1``): a relative or an absolute price.

- :class:`PriceAdjustment` renders ``spec.priceAdjustment``: ``PriceAdjustment.percent(30)`` is
  ``"+30%"``, ``PriceAdjustment.absolute(-0.25)`` is ``"-0.25"``.
- :class:`Price` renders ``spec.price``, which *replaces* the instance price: ``Price.of("1.25")``.

Both are computed with :class:`decimal.Decimal` (``0.1`` renders ``"0.1"``, never
``"0.1000000000000000055…"``) and checked against the v1.14.1 CRD patterns, so the API server never
sees a string it would refuse. The prices only steer Karpenter's scheduling and consolidation
simulation; EC2 bills what it always bills.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.units import _ValueObject

#: ``spec.priceAdjustment`` pattern of the v1.14.1 NodeOverlay CRD (Go RE2: ``\d`` is ASCII only).
PRICE_ADJUSTMENT_PATTERN = r"^(([+-]{1}(\d*\.?\d+))|(\+{1}\d*\.?\d+%)|(^(-\d{1,2}(\.\d+)?%)$)|(-100%))$"
#: ``spec.price`` pattern of the v1.14.1 NodeOverlay CRD.
PRICE_PATTERN = r"^\d+(\.\d+)?$"

_ADJUSTMENT = re.compile(PRICE_ADJUSTMENT_PATTERN, re.ASCII)
_PRICE = re.compile(PRICE_PATTERN, re.ASCII)


def _decimal(value: Any) -> Decimal | None:
    """An exact Decimal for an int, float (via its shortest repr) or Decimal; None for anything else."""
    if isinstance(value, bool):
        return None
    try:
        if isinstance(value, int):
            number = Decimal(value)
        elif isinstance(value, float):
            number = Decimal(repr(value))  # repr(0.1) == "0.1": no binary artefacts
        elif isinstance(value, Decimal):
            number = value
        else:
            return None
    except (InvalidOperation, ValueError):  # pragma: no cover - repr of a float always parses
        return None
    return number if number.is_finite() else None


def _plain(number: Decimal) -> str:
    """Positional notation without trailing fractional zeros: 100 → "100", 0.50 → "0.5", 1E-7 → "0.0000001"."""
    text = format(abs(number), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text or "0"


class PriceAdjustment(_ValueObject):
    """``spec.priceAdjustment``: change the simulated price of matching instance types.

    - ``PriceAdjustment.percent(30)`` → ``"+30%"``, ``PriceAdjustment.percent(-15)`` → ``"-15%"``.
      A decrease is at most ``-99.x%`` or exactly ``-100%`` (the CRD pattern).
    - ``PriceAdjustment.absolute(0.5)`` → ``"+0.5"``, ``PriceAdjustment.absolute(-0.25)`` → ``"-0.25"``,
      in the currency of the instance prices.
    - ``PriceAdjustment.parse("+10%")`` reads the rendered form (the sign is mandatory).
    """

    __slots__ = ("_amount", "_is_percent")

    def __init__(self, amount: Decimal, *, is_percent: bool) -> None:
        if not isinstance(amount, Decimal) or not amount.is_finite():
            raise self._error(amount, "a finite Decimal (or use percent() / absolute())")
        self._amount = Decimal(0) if amount == 0 else amount  # no "-0"
        self._is_percent = is_percent
        text = str(self)
        if not _ADJUSTMENT.match(text):
            raise self._error(text, "a decrease below -100% is not a price"
                              if is_percent and amount < -100 else None)

    @staticmethod
    def _error(value: Any, why: str | None = None) -> KarpenterGpuError:
        return KarpenterGpuError(
            "KG180", prop="price_adjustment", value=value,
            allowed=(f"{why}; " if why else "")
            + f"a signed price change matching the CRD pattern {PRICE_ADJUSTMENT_PATTERN}: "
              "'+10%', '-15%' (decreases -0%..-99.x% or exactly -100%), '+1.2', '-0.5'",
            fix="use PriceAdjustment.percent(30) or PriceAdjustment.absolute(-0.25); "
                "a string needs its sign ('+30%', not '30%')",
        )

    @classmethod
    def percent(cls, value: int | float | Decimal) -> "PriceAdjustment":
        """A relative change: ``percent(30)`` is ``"+30%"``, ``percent(-15)`` is ``"-15%"``."""
        return cls._of(value, is_percent=True)

    @classmethod
    def absolute(cls, value: int | float | Decimal) -> "PriceAdjustment":
        """A fixed change in the instance-price currency: ``absolute(0.5)`` is ``"+0.5"``."""
        return cls._of(value, is_percent=False)

    @classmethod
    def _of(cls, value: Any, *, is_percent: bool) -> "PriceAdjustment":
        number = _decimal(value)
        if number is None:
            raise cls._error(value, "a finite number of percent" if is_percent else "a finite number")
        return cls(number, is_percent=is_percent)

    @classmethod
    def parse(cls, value: Any) -> "PriceAdjustment":
        """Read ``"+10%"``, ``"-15%"``, ``"+1.2"``, ``"-0.5"``; anything else is KG180."""
        if isinstance(value, PriceAdjustment):
            return value
        if not isinstance(value, str):
            raise cls._error(value, "a string such as '+30%' or a PriceAdjustment (a bare number could be "
                                    "a percentage or an amount)")
        if not _ADJUSTMENT.match(value):
            raise cls._error(value)
        if value.endswith("%"):
            return cls(Decimal(value[:-1]), is_percent=True)
        return cls(Decimal(value), is_percent=False)

    @property
    def amount(self) -> Decimal:
        """The signed number: percent points for a percentage, else currency units."""
        return self._amount

    @property
    def is_percent(self) -> bool:
        return self._is_percent

    def __str__(self) -> str:
        sign = "-" if self._amount < 0 else "+"
        return f"{sign}{_plain(self._amount)}{'%' if self._is_percent else ''}"

    def __repr__(self) -> str:
        return f"PriceAdjustment({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, PriceAdjustment) and self._is_percent == other._is_percent
                and self._amount == other._amount)

    def __hash__(self) -> int:
        return hash(("PriceAdjustment", self._is_percent, self._amount))


class Price(_ValueObject):
    """``spec.price``: an absolute, non-negative price that **replaces** the instance's price.

    ``Price.of("1.25")`` and ``Price.of(1.25)`` both render ``"1.25"``; a string is kept as written
    (``"1.50"`` stays ``"1.50"``), a number is rendered without float artefacts (``0.1`` → ``"0.1"``).
    No sign and no exponent: the CRD pattern is ``^\\d+(\\.\\d+)?$``.
    """

    __slots__ = ("_text",)

    def __init__(self, text: str) -> None:
        if not isinstance(text, str) or not _PRICE.match(text):
            raise self._error(text)
        self._text = text

    @staticmethod
    def _error(value: Any) -> KarpenterGpuError:
        return KarpenterGpuError(
            "KG180", prop="price", value=value,
            allowed=f"a non-negative decimal price matching the CRD pattern {PRICE_PATTERN} "
                    "(no sign, no exponent), e.g. '1.25'",
            fix="pass Price.of('1.25') or Price.of(1.25); to lower or raise the existing price use a "
                "PriceAdjustment instead",
        )

    @classmethod
    def of(cls, value: str | int | float | Decimal) -> "Price":
        """``Price.of("1.25")``, ``Price.of(1.25)``, ``Price.of(Decimal("0.1"))``, ``Price.of(2)``."""
        if isinstance(value, Price):
            return value
        if isinstance(value, str):
            return cls(value)
        number = _decimal(value)
        if number is None or number < 0:
            raise cls._error(value)
        return cls(_plain(number))

    @classmethod
    def parse(cls, value: Any) -> "Price":
        return cls.of(value)

    @property
    def amount(self) -> Decimal:
        return Decimal(self._text)

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Price({self._text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Price) and self.amount == other.amount

    def __hash__(self) -> int:
        return hash(("Price", self.amount))
