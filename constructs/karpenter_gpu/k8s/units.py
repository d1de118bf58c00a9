"""Value objects for units, so that no prop is a bare int or string of unknown unit.

- :class:`Duration` renders Go durations the way Karpenter parses them (``30m``, ``720h``,
  ``1h30m``, ``Never``). pydantic's timedelta would render ISO 8601 (``PT30M``), which
  Karpenter rejects.
- :class:`Quantity` is a Kubernetes resource quantity (``200Gi``, ``16``).
- :class:`GpuMemory` is memory **per GPU in MiB**, the unit of the
  ``karpenter.k8s.aws/instance-gpu-memory`` label.
"""

from __future__ import annotations

import re
from decimal import ROUND_UP, Context, Decimal
from functools import total_ordering
from typing import TYPE_CHECKING, Any, ClassVar

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.int64 import MAX as _INT64_MAX

if TYPE_CHECKING:
    from pydantic_core import core_schema


class _ValueObject:
    """Pydantic accepts an instance or whatever ``parse`` accepts."""

    @classmethod
    def parse(cls, value: Any) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    @classmethod
    def _coerce(cls, value: Any) -> Any:
        return value if isinstance(value, cls) else cls.parse(value)

    @classmethod
    def __get_pydantic_core_schema__(cls, _source: Any, _handler: Any) -> core_schema.CoreSchema:
        from pydantic_core import core_schema  # only when pydantic builds a model: the analyzers never do

        return core_schema.no_info_plain_validator_function(
            cls._coerce, serialization=core_schema.plain_serializer_function_ser_schema(str)
        )


#: What the CRDs accept for a duration (``^([0-9]+(s|m|h))+$``): whole numbers of h, m or s, in any order, a unit
#: possibly repeated (``30m1h`` and ``1h1h`` are valid); Karpenter reads them with Go's ``time.ParseDuration``.
_GO_DURATION = re.compile(r"^(?:[0-9]+[hms])+\Z")
_GO_DURATION_PART = re.compile(r"([0-9]+)([hms])")
_UNIT_SECONDS = {"h": 3600, "m": 60, "s": 1}

#: ``time.ParseDuration``'s units, in nanoseconds (Go src/time/format.go ``unitMap``).
_GO_UNIT_NS = {"ns": 1, "us": 10**3, "\u00b5s": 10**3, "\u03bcs": 10**3, "ms": 10**6, "s": 10**9, "m": 60 * 10**9,
               "h": 3600 * 10**9}
_GO_DURATION_COMPONENT = re.compile(r"([0-9]*)(?:\.([0-9]*))?([^0-9.]*)")


def go_parse_duration(value: Any) -> int:
    """Nanoseconds as Go's ``time.ParseDuration`` reads ``value`` (src/time/format.go ``ParseDuration``: an optional
    sign, ``"0"``, or decimal numbers with a unit each, ``"1.5h"``, ``"300ms"``, ``"-2m3.4s"``), for fields Karpenter
    decodes as a ``metav1.Duration`` with no CRD pattern (the EC2NodeClass's kubelet ``evictionSoftGracePeriod``
    values). Raises KG101 where ParseDuration returns an error (no unit, an unknown unit, beyond int64)."""
    def invalid() -> KarpenterGpuError:
        return KarpenterGpuError("KG101", prop="duration", value=value,
                                 allowed="a Go duration as time.ParseDuration reads it, e.g. '0', '1.5h', '300ms'",
                                 fix="write a number with a unit each (ns, us, ms, s, m, h)")
    if not isinstance(value, str):
        raise invalid()
    s = value
    neg = s[:1] == "-"
    if s[:1] in "-+" and s:
        s = s[1:]
    if s == "0":
        return 0
    if not s:
        raise invalid()
    total = 0
    limit = 1 << 63
    while s:
        match = _GO_DURATION_COMPONENT.match(s)
        assert match is not None  # every part of the pattern may be empty
        whole, frac, unit = match.group(1), match.group(2), match.group(3)
        if not whole and not frac:  # neither digits before nor after the point ("." or a unit alone)
            raise invalid()
        v = int(whole) if whole else 0
        if v > limit:  # leadingInt: overflow
            raise invalid()
        f, scale, overflow = 0, 1.0, False
        for c in frac or "":  # leadingFraction: digits past int64 precision are consumed, not counted
            y = f * 10 + int(c)
            if overflow or f > (limit - 1) // 10 or y > limit:
                overflow = True
                continue
            f, scale = y, scale * 10
        if unit not in _GO_UNIT_NS:
            raise invalid()
        ns = _GO_UNIT_NS[unit]
        if v > limit // ns:
            raise invalid()
        v *= ns
        if f > 0:
            v += int(float(f) * (float(ns) / scale))
            if v > limit:
                raise invalid()
        total += v
        if total > limit:
            raise invalid()
        s = s[match.end():]
    if neg:
        return -total
    if total > limit - 1:
        raise invalid()
    return total



@total_ordering
class Duration(_ValueObject):
    """A whole number of seconds, or ``Never``.

    Build with ``Duration.minutes(30)``, ``Duration.hours(720)``, ``Duration.days(14)``
    (rendered as ``336h``: Go durations have no day unit) or ``Duration.never()``;
    strings like ``"30m"``, ``"1h30m"`` and ``"90m30s"`` are parsed as ``time.ParseDuration`` reads what the
    CRD pattern admits, so equal lengths are equal however they are written (``720h`` == ``43200m``).
    """

    __slots__ = ("_seconds",)
    NEVER_TEXT: ClassVar[str] = "Never"
    #: Go's time.Duration is int64 nanoseconds (time.maxDuration ≈ 2562047h47m16s): Karpenter's
    #: time.ParseDuration rejects anything longer ("invalid duration"), though the CRD pattern accepts it.
    MAX_SECONDS: ClassVar[int] = _INT64_MAX // 10**9

    def __init__(self, seconds: int | None) -> None:
        if seconds is not None and (not isinstance(seconds, int) or isinstance(seconds, bool) or seconds < 0):
            raise KarpenterGpuError(
                "KG101", prop="duration", value=seconds,
                allowed="a whole, non-negative number of seconds", fix="use Duration.seconds/minutes/hours/days",
            )
        if seconds is not None and seconds > self.MAX_SECONDS:
            raise KarpenterGpuError(
                "KG101", prop="duration", value=seconds,
                allowed=f"at most {self.MAX_SECONDS} seconds (Go's maximum duration, about 2562047h: Karpenter parses "
                        "durations with time.ParseDuration, which rejects longer ones)",
                fix="use a shorter duration, or Duration.never() for no limit where the field allows it")
        self._seconds = seconds

    @classmethod
    def _of(cls, n: Any, unit: int, name: str) -> "Duration":
        # Check before multiplying: "2" * 3600 is a 3600-character string, not a duration.
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise KarpenterGpuError("KG101", prop="duration", value=n,
                                    allowed=f"a whole, non-negative number of {name} (an int)",
                                    fix=f"e.g. Duration.{name}(2), or Duration.parse('2h') for a string")
        return cls(n * unit)

    @classmethod
    def seconds(cls, n: int) -> "Duration":
        return cls._of(n, 1, "seconds")

    @classmethod
    def minutes(cls, n: int) -> "Duration":
        return cls._of(n, 60, "minutes")

    @classmethod
    def hours(cls, n: int) -> "Duration":
        return cls._of(n, 3600, "hours")

    @classmethod
    def days(cls, n: int) -> "Duration":
        return cls._of(n, 86400, "days")

    @classmethod
    def never(cls) -> "Duration":
        return cls(None)

    @classmethod
    def parse(cls, value: Any) -> "Duration":
        if isinstance(value, str):
            if value == cls.NEVER_TEXT:
                return cls.never()
            if _GO_DURATION.match(value):  # time.ParseDuration: the sum of the parts (too long: KG101 below)
                return cls(sum(int(n) * _UNIT_SECONDS[u] for n, u in _GO_DURATION_PART.findall(value)))
        raise KarpenterGpuError(
            "KG101", prop="duration", value=value,
            allowed="a Go duration of hours/minutes/seconds such as '30m', '720h', '1h30m', or 'Never' "
                    "(no days, no ISO 8601 'PT30M')",
            fix="pass Duration.minutes(30), Duration.days(14) or Duration.never()",
        )

    @property
    def is_never(self) -> bool:
        return self._seconds is None

    @property
    def total_seconds(self) -> int:
        if self._seconds is None:
            raise ValueError("Duration.never() has no length")
        return self._seconds

    def __str__(self) -> str:
        if self._seconds is None:
            return self.NEVER_TEXT
        if self._seconds == 0:
            return "0s"
        h, rest = divmod(self._seconds, 3600)
        m, s = divmod(rest, 60)
        return "".join(f"{v}{u}" for v, u in ((h, "h"), (m, "m"), (s, "s")) if v)

    def __repr__(self) -> str:
        return f"Duration({str(self)!r})"

    def _key(self) -> float:
        return float("inf") if self._seconds is None else self._seconds

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Duration) and self._seconds == other._seconds

    def __lt__(self, other: "Duration") -> bool:
        return self._key() < other._key()

    def __hash__(self) -> int:
        return hash(("Duration", self._seconds))


# Kubernetes resource.Quantity: sign, number, optional suffix (binary, decimal SI or exponent).
_QUANTITY = re.compile(r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?\Z")
_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {"n": Decimal("1e-9"), "u": Decimal("1e-6"), "m": Decimal("1e-3"), "": Decimal(1),
            "k": Decimal("1e3"), "M": Decimal("1e6"), "G": Decimal("1e9"), "T": Decimal("1e12"),
            "P": Decimal("1e15"), "E": Decimal("1e18")}

#: Largest magnitude of a quantity: int64, what apimachinery's resource.Quantity holds (``Value()``,
#: ``MilliValue()``; ``ParseQuantity`` caps binary-SI values at 2^63-1 and reads an exponent with
#: ``strconv.ParseInt``, k8s.io/apimachinery/pkg/api/resource/quantity.go). Beyond it a quantity is refused.
_MAX_MAGNITUDE = Decimal(_INT64_MAX)
_NANO = Decimal("1e-9")
#: Room for an in-range magnitude (at most 20 digits) with nine decimals, beyond Decimal's default 28 digits.
_WIDE = Context(prec=60)


def _exponent(power: str) -> int:
    """The exponent of an ``e`` suffix; one of more than 6 digits is clamped to ±10^6 (far beyond the bound, and
    within what Decimal.scaleb takes) without turning a huge digit string into an int."""
    digits = power.lstrip("+-").lstrip("0") or "0"
    magnitude = int(digits) if len(digits) <= 6 else 10**6
    return -magnitude if power.startswith("-") else magnitude


class Quantity(_ValueObject):
    """A Kubernetes quantity kept in the form the user wrote (``200Gi``, ``16``, ``500m``)."""

    __slots__ = ("_text",)

    def __init__(self, text: str) -> None:
        if not isinstance(text, str) or not _QUANTITY.match(text):
            raise KarpenterGpuError(
                "KG102", prop="quantity", value=text,
                allowed="a Kubernetes quantity such as '200Gi', '16', '500m'",
                fix="pass Quantity.gi(200) or an integer count",
            )
        self._text = text
        if not self._in_range():
            raise KarpenterGpuError(
                "KG102", prop="quantity", value=text,
                allowed=f"a quantity of magnitude at most {_MAX_MAGNITUDE} base units (int64, the range of Kubernetes' "
                        "resource.Quantity values)",
                fix="write the amount the object really needs (e.g. '64', '2Ti')",
            )

    @classmethod
    def gi(cls, n: int) -> "Quantity":
        return cls(f"{n}Gi")

    @classmethod
    def of(cls, n: int) -> "Quantity":
        return cls(str(n))

    @classmethod
    def parse(cls, value: Any) -> "Quantity":
        if isinstance(value, bool):
            return cls(repr(value))  # rejected with a clear message
        if isinstance(value, int):
            return cls(str(value))
        return cls(value)

    def _parts(self) -> tuple[Decimal, str]:
        m = _QUANTITY.match(self._text)
        assert m
        suffix = m.group(3) or ""
        return Decimal(self._text[: len(self._text) - len(suffix)] if suffix else self._text), suffix

    def _in_range(self) -> bool:
        """At most :data:`_MAX_MAGNITUDE`, decided from the decimal exponent first: ``1e999999999`` is never
        expanded (Python's Decimal overflows; a billion-digit number would not fit in memory)."""
        number, suffix = self._parts()
        # the suffix's power of ten (its multiplier's, for SI and binary ones: "-922337203685477580800m" is in range)
        power = Decimal(_BINARY[suffix]).adjusted() if suffix in _BINARY else \
            _DECIMAL[suffix].adjusted() if suffix in _DECIMAL else _exponent(suffix[1:])
        if number and number.adjusted() + power > 19:
            return False
        return abs(self.as_decimal()) <= _MAX_MAGNITUDE

    def as_decimal(self) -> Decimal:
        """The value in base units (bytes for memory, cores for cpu), as ``ParseQuantity`` holds it: a magnitude
        with more than nano precision is rounded up to nano units, away from zero (``amount.Round(amount,
        Nano.infScale(), inf.RoundUp)`` on the magnitude; ``-928.6E-9`` is ``-929n``)."""
        number, suffix = self._parts()
        if suffix in _BINARY:
            value = number * _BINARY[suffix]
        elif suffix in _DECIMAL:
            value = number * _DECIMAL[suffix]
        else:
            value = number.scaleb(_exponent(suffix[1:]))  # e.g. 1e3
        exponent = value.as_tuple().exponent
        if isinstance(exponent, int) and exponent < -9:
            value = value.quantize(_NANO, rounding=ROUND_UP, context=_WIDE)  # ROUND_UP: away from zero
        return value

    def __str__(self) -> str:
        return self._text

    @property
    def format(self) -> str:
        """``resource.Quantity.Format`` as ``ParseQuantity`` sets it: BinarySI (Ki..Ei), DecimalExponent (e/E) or
        DecimalSI (an SI suffix or none)."""
        suffix = _QUANTITY.match(self._text).group(3) or ""  # type: ignore[union-attr]
        return "BinarySI" if suffix in _BINARY else "DecimalExponent" if suffix[:1] in ("e", "E") else "DecimalSI"

    def canonical(self) -> str:
        """``resource.Quantity.String()`` (k8s.io/apimachinery ``pkg/api/resource/quantity.go``
        ``CanonicalizeBytes``): the value in its format's largest exact unit, so ``1024Gi`` is ``1Ti`` and
        ``1000G`` is ``1T``, while ``1073741824`` stays itself (DecimalSI). Values are first rounded up to
        nano units (``ParseQuantity``); BinarySI below 1024 or with a fraction is written as DecimalSI."""
        value = self.as_decimal()
        nanos = (value * 10**9).to_integral_value(rounding=ROUND_UP)  # as_decimal has rounded it already
        if nanos == 0:
            return "0"
        fmt = self.format
        if fmt == "BinarySI":
            if -1024 < value < 1024 or nanos % 10**9:
                fmt = "DecimalSI"
            else:
                number, power = int(nanos) // 10**9, 0
                while number % 1024 == 0 and power < 6:
                    number, power = number // 1024, power + 1
                return f"{number}{('', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei')[power]}"
        mantissa, exponent = int(nanos), -9
        while mantissa % 10 == 0:
            mantissa, exponent = mantissa // 10, exponent + 1
        shift = exponent % 3  # lower the exponent to a multiple of 3
        mantissa, exponent = mantissa * 10**shift, exponent - shift
        if fmt == "DecimalExponent":
            return f"{mantissa}e{exponent}" if exponent else str(mantissa)
        suffix = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
        return f"{mantissa}{suffix.get(exponent, f'e{exponent}')}"  # beyond E: int64 cannot hold it

    def __repr__(self) -> str:
        return f"Quantity({self._text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Quantity) and self.as_decimal() == other.as_decimal()

    def __hash__(self) -> int:
        return hash(("Quantity", self.as_decimal()))


#: Per-GPU memory (MiB) that EC2 reports, and Karpenter puts in the instance-gpu-memory label,
#: for whole GPUs. Marketing sizes differ: A10G and L4 are sold as "24 GB" but report 22888 MiB,
#: so "at least 24 GiB" (24576) silently excludes them. Source: the v1.14.1 instance-type
#: reference (g6f/gr6f fractional GPUs, which report gpu-count 0, are left out).
REPORTED_GPU_MEMORY_MIB: dict[str, int] = {
    "t4": 16384, "t4g": 16384, "v100": 16384, "radeon-pro-v520": 8192,
    "a10g": 22888, "l4": 22888, "rtx-pro-4500": 32768, "a100": 40960, "l40s": 45776,
    "h100": 81920, "rtx-pro-server-6000": 98304, "h200": 144384, "b200": 183359, "b300": 275040,
}


@total_ordering
class GpuMemory(_ValueObject):
    """Memory per GPU, in MiB — the unit of ``karpenter.k8s.aws/instance-gpu-memory``.

    ``GpuMemory.gib(16)`` is 16384 MiB. Prefer ``GpuMemory.of_gpu("a10g")`` (22888 MiB) over a
    marketing size: an "A10G 24 GB" reports 22888 MiB, so ``GpuMemory.gib(24)`` excludes it.
    """

    __slots__ = ("_mib",)

    def __init__(self, mib: int) -> None:
        if not isinstance(mib, int) or isinstance(mib, bool) or mib < 0:
            raise KarpenterGpuError(
                "KG103", prop="gpu_memory", value=mib,
                allowed="a whole, non-negative number of MiB per GPU",
                fix="use GpuMemory.gib(16), GpuMemory.mib(22888) or GpuMemory.of_gpu('a10g')",
            )
        self._mib = mib

    @classmethod
    def mib(cls, n: int) -> "GpuMemory":
        return cls(n)

    @classmethod
    def gib(cls, n: int) -> "GpuMemory":
        return cls(n * 1024)

    @classmethod
    def of_gpu(cls, name: str) -> "GpuMemory":
        """The per-GPU memory EC2 reports for a GPU name (lower-kebab, as in the label)."""
        if name not in REPORTED_GPU_MEMORY_MIB:
            raise KarpenterGpuError(
                "KG103", prop="gpu_name", value=name,
                allowed=f"one of {sorted(REPORTED_GPU_MEMORY_MIB)}",
                fix="use a known GPU name or GpuMemory.mib(...)",
            )
        return cls(REPORTED_GPU_MEMORY_MIB[name])

    @classmethod
    def parse(cls, value: Any) -> "GpuMemory":
        raise KarpenterGpuError(
            "KG103", prop="gpu_memory", value=value,
            allowed="a GpuMemory value (a bare number has no unit: MiB? GB? per GPU or total?)",
            fix="pass GpuMemory.gib(16) or GpuMemory.of_gpu('a10g')",
        )

    @property
    def in_mib(self) -> int:
        return self._mib

    def __str__(self) -> str:
        return str(self._mib)

    def __repr__(self) -> str:
        return f"GpuMemory.mib({self._mib})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GpuMemory) and self._mib == other._mib

    def __lt__(self, other: "GpuMemory") -> bool:
        return self._mib < other._mib

    def __hash__(self) -> int:
        return hash(("GpuMemory", self._mib))
