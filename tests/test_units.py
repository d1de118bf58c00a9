"""Unit value objects: Go durations, Kubernetes quantities and per-GPU memory in MiB."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.scheduling import atoi
from karpenter_gpu.k8s.units import REPORTED_GPU_MEMORY_MIB, Duration, GpuMemory, Quantity

# --------------------------------------------------------------------------- Duration


@pytest.mark.parametrize(
    ("duration", "text"),
    [
        (Duration.minutes(30), "30m"),
        (Duration.hours(720), "720h"),
        # Go durations have no day unit: 14 days is 336 hours.
        (Duration.days(14), "336h"),
        (Duration.minutes(90), "1h30m"),
        (Duration.seconds(0), "0s"),
        (Duration.seconds(3661), "1h1m1s"),
        (Duration.never(), "Never"),
    ],
)
def test_duration_renders_as_go_duration(duration: Duration, text: str) -> None:
    assert str(duration) == text


@pytest.mark.parametrize("text", ["1h30m", "Never", "45s", "30m", "720h", "0s", "2h5s"])
def test_duration_parse_round_trips(text: str) -> None:
    assert str(Duration.parse(text)) == text


def test_duration_parse_reads_each_unit() -> None:
    assert Duration.parse("1h30m").total_seconds == 5400
    assert Duration.parse("45s").total_seconds == 45
    assert Duration.parse("336h") == Duration.days(14)
    assert Duration.parse("Never").is_never
    assert not Duration.parse("0s").is_never


def test_duration_never_has_no_length() -> None:
    with pytest.raises(ValueError):
        Duration.never().total_seconds  # noqa: B018


@pytest.mark.parametrize(
    "value",
    [
        "PT30M",  # ISO 8601, what pydantic's timedelta would emit
        "14d",  # no day unit in Go durations
        "",
        "-5m",
        "never",  # the keyword is case-sensitive
        "1.5h",
        "30",  # a bare number has no unit
        30,  # an int is not a duration string
        None,
    ],
)
def test_fails_when_duration_text_is_not_a_go_duration(value: Any) -> None:
    with pytest.raises(KarpenterGpuError) as exc:
        Duration.parse(value)
    assert exc.value.code == "KG101"
    assert repr(value) in str(exc.value)


@pytest.mark.parametrize("seconds", [-1, 1.5, True, "30"])
def test_fails_when_duration_seconds_are_not_a_non_negative_int(seconds: Any) -> None:
    with pytest.raises(KarpenterGpuError) as exc:
        Duration(seconds)
    assert exc.value.code == "KG101"
    assert repr(seconds) in str(exc.value)


def test_duration_ordering_puts_never_last() -> None:
    ordered = [Duration.seconds(0), Duration.seconds(59), Duration.minutes(1), Duration.hours(720),
               Duration.days(365), Duration.never()]
    assert sorted(reversed(ordered)) == ordered
    assert Duration.never() > Duration.days(100_000)
    assert max(Duration.never(), Duration.hours(1)).is_never
    assert Duration.minutes(30) < Duration.hours(1)
    assert Duration.hours(1) <= Duration.minutes(60)
    assert not Duration.never() < Duration.never()


def test_duration_equality_and_hash_follow_length() -> None:
    assert Duration.minutes(90) == Duration.parse("1h30m") == Duration.seconds(5400)
    assert hash(Duration.minutes(90)) == hash(Duration.seconds(5400))
    assert Duration.never() == Duration.never()
    assert hash(Duration.never()) == hash(Duration.parse("Never"))
    assert Duration.minutes(1) != Duration.minutes(2)
    assert Duration.seconds(0) != Duration.never()
    assert Duration.minutes(30) != "30m"
    assert len({Duration.days(1), Duration.hours(24), Duration.minutes(1440), Duration.never()}) == 2


# --------------------------------------------------------------------------- Quantity


@pytest.mark.parametrize("text", ["200Gi", "16", "500m", "1.5Gi", "100M", "1e3", "0"])
def test_quantity_keeps_the_form_written(text: str) -> None:
    assert str(Quantity(text)) == text
    assert str(Quantity.parse(text)) == text


def test_quantity_builders() -> None:
    assert str(Quantity.gi(200)) == "200Gi"
    assert Quantity.gi(200) == Quantity("200Gi")
    assert str(Quantity.of(16)) == "16"
    assert str(Quantity.parse(16)) == "16"


@pytest.mark.parametrize(
    ("text", "base_units"),
    [
        ("1Gi", Decimal(1073741824)),
        ("1Mi", Decimal(1048576)),
        ("500m", Decimal("0.5")),
        ("1k", Decimal(1000)),
        ("2M", Decimal(2_000_000)),
        ("16", Decimal(16)),
        ("1e3", Decimal(1000)),
        ("1.5Gi", Decimal(1610612736)),
    ],
)
def test_quantity_as_decimal_is_in_base_units(text: str, base_units: Decimal) -> None:
    assert Quantity(text).as_decimal() == base_units


@pytest.mark.parametrize(("a", "b"), [("1Gi", "1024Mi"), ("1k", "1000"), ("500m", "0.5"), ("1e3", "1k")])
def test_quantity_equality_is_by_value_across_forms(a: str, b: str) -> None:
    assert Quantity(a) == Quantity(b)
    assert hash(Quantity(a)) == hash(Quantity(b))
    assert str(Quantity(a)) == a  # equality does not rewrite the text


def test_quantity_inequality() -> None:
    # 1Gi (binary) is not 1G (decimal).
    assert Quantity("1Gi") != Quantity("1G")
    assert Quantity("16") != "16"


@pytest.mark.parametrize("value", ["200 GB", "Gi", "", "1GB", "ten", "1.2.3"])
def test_fails_when_quantity_text_is_invalid(value: str) -> None:
    with pytest.raises(KarpenterGpuError) as exc:
        Quantity(value)
    assert exc.value.code == "KG102"
    assert repr(value) in str(exc.value)


@pytest.mark.parametrize("value", [True, False])
def test_fails_when_quantity_is_a_bool(value: bool) -> None:
    # bool is an int subclass: without a guard True would render as "1".
    with pytest.raises(KarpenterGpuError) as exc:
        Quantity.parse(value)
    assert exc.value.code == "KG102"
    assert str(value) in str(exc.value)
    with pytest.raises(KarpenterGpuError) as exc:
        Quantity(value)  # type: ignore[arg-type]
    assert exc.value.code == "KG102"
    assert str(value) in str(exc.value)


def test_fails_when_quantity_is_a_float() -> None:
    with pytest.raises(KarpenterGpuError) as exc:
        Quantity.parse(1.5)
    assert exc.value.code == "KG102"
    assert "1.5" in str(exc.value)


# --------------------------------------------------------------------------- GpuMemory


def test_gpu_memory_gib_is_mib_per_gpu() -> None:
    assert GpuMemory.gib(16).in_mib == 16384
    assert GpuMemory.mib(22888).in_mib == 22888
    assert str(GpuMemory.gib(16)) == "16384"
    assert GpuMemory.gib(16) == GpuMemory.mib(16384)


@pytest.mark.parametrize("gpu", ["a10g", "l4"])
def test_gpu_memory_of_24gb_gpus_is_below_24_gib(gpu: str) -> None:
    # The marketing-size trap: "24 GB" cards report 22888 MiB, so "at least 24 GiB" excludes them.
    memory = GpuMemory.of_gpu(gpu)
    assert memory == GpuMemory.mib(22888)
    assert memory.in_mib == 22888
    assert memory < GpuMemory.gib(24)
    assert GpuMemory.gib(24).in_mib == 24576
    assert memory != GpuMemory.gib(24)


@pytest.mark.parametrize(("gpu", "mib"), [("t4", 16384), ("l40s", 45776), ("h100", 81920), ("a100", 40960)])
def test_gpu_memory_of_gpu_uses_reported_mib(gpu: str, mib: int) -> None:
    assert GpuMemory.of_gpu(gpu).in_mib == mib == REPORTED_GPU_MEMORY_MIB[gpu]


def test_gpu_memory_ordering_and_hash() -> None:
    assert GpuMemory.gib(16) < GpuMemory.of_gpu("a10g") < GpuMemory.gib(24) < GpuMemory.of_gpu("h100")
    assert GpuMemory.gib(80) >= GpuMemory.of_gpu("h100")
    assert hash(GpuMemory.of_gpu("l4")) == hash(GpuMemory.mib(22888))
    assert len({GpuMemory.of_gpu("a10g"), GpuMemory.of_gpu("l4"), GpuMemory.gib(24)}) == 2
    assert GpuMemory.mib(22888) != 22888  # a bare number is never equal: it has no unit


@pytest.mark.parametrize("name", ["nope", "A10G", "a10g-24gb", ""])
def test_fails_when_gpu_name_is_unknown(name: str) -> None:
    with pytest.raises(KarpenterGpuError) as exc:
        GpuMemory.of_gpu(name)
    assert exc.value.code == "KG103"
    assert exc.value.prop == "gpu_name"
    assert repr(name) in str(exc.value)


@pytest.mark.parametrize("build", [lambda: GpuMemory.mib(-1), lambda: GpuMemory.gib(-16), lambda: GpuMemory(True),
                                   lambda: GpuMemory(1.5)])  # type: ignore[arg-type]
def test_fails_when_gpu_memory_is_not_a_non_negative_int(build: Any) -> None:
    with pytest.raises(KarpenterGpuError) as exc:
        build()
    assert exc.value.code == "KG103"
    assert repr(exc.value.value) in str(exc.value)


@pytest.mark.parametrize("value", [24, 22888, "24Gi", "22888"])
def test_fails_when_gpu_memory_is_parsed_from_a_bare_value(value: Any) -> None:
    # A bare number has no unit (MiB? GB? per GPU or total?), so parse refuses it.
    with pytest.raises(KarpenterGpuError) as exc:
        GpuMemory.parse(value)
    assert exc.value.code == "KG103"
    assert repr(value) in str(exc.value)


def test_value_objects_validate_and_serialize_through_pydantic() -> None:
    assert TypeAdapter(Duration).validate_python("1h30m") == Duration.minutes(90)
    assert TypeAdapter(Duration).dump_python(Duration.days(14), mode="json") == "336h"
    assert TypeAdapter(Quantity).validate_python(16) == Quantity("16")
    assert TypeAdapter(Quantity).dump_python(Quantity.gi(200), mode="json") == "200Gi"
    memory = GpuMemory.of_gpu("a10g")
    assert TypeAdapter(GpuMemory).validate_python(memory) is memory
    assert TypeAdapter(GpuMemory).dump_python(memory, mode="json") == "22888"


@pytest.mark.parametrize(("kind", "value"), [(Duration, "PT30M"), (Quantity, "200 GB"), (GpuMemory, 24)])
def test_fails_when_pydantic_gets_a_bad_value_object(kind: type, value: Any) -> None:
    with pytest.raises(ValidationError) as exc:
        TypeAdapter(kind).validate_python(value)
    assert repr(value) in str(exc.value)


# -- issue 12: accepted values Karpenter cannot use ------------------------------------------------

def test_duration_unit_constructors_refuse_strings_with_a_short_message():
    """Duration.hours("2" * N) used to build a multi-kilobyte error by repeating the string 3600 times."""
    with pytest.raises(KarpenterGpuError) as exc:
        Duration.hours("2" * 100_000)
    assert exc.value.code == "KG101"
    assert len(str(exc.value)) < 600 and "(100002 characters)" in str(exc.value)


@pytest.mark.parametrize("make", [lambda: Duration.hours(10**12), lambda: Duration.seconds(2**63),
                                  lambda: Duration.parse("2562048h")])
def test_duration_beyond_gos_maximum_is_refused(make):
    with pytest.raises(KarpenterGpuError) as exc:
        make()
    assert exc.value.code == "KG101" and "Go's maximum duration" in exc.value.allowed


def test_longest_go_duration_is_accepted():
    assert str(Duration.seconds(Duration.MAX_SECONDS)) == "2562047h47m16s"


def test_error_echo_of_huge_ints_is_capped():
    err = KarpenterGpuError("KG100", prop="x", value=10**5000, allowed="small", fix="smaller")
    assert "bits>" in str(err) and len(str(err)) < 300


def test_duration_reads_every_spelling_the_crd_admits():
    """The CRD pattern ``^([0-9]+(s|m|h))+$`` read by ``time.ParseDuration``: parts in any order, repeated."""
    assert Duration.parse("43200m") == Duration.parse("720h") == Duration.parse("719h60m")
    assert Duration.parse("30m1h") == Duration.parse("1h1800s") == Duration.minutes(90)
    assert Duration.parse("0720h") == Duration.hours(720)


@pytest.mark.parametrize("text, canonical", [
    ("1024Gi", "1Ti"), ("1Ti", "1Ti"), ("500Gi", "500Gi"), ("1000G", "1T"), ("1073741824", "1073741824"),
    ("0.5Ki", "512"), ("1.5Gi", "1536Mi"), ("0.1", "100m"), ("1500m", "1500m"), ("12e1", "120"), ("1e3", "1e3"),
    ("0", "0"), ("1n", "1n"), ("0.0000000001", "1n"),
])
def test_quantity_canonical_is_go_quantity_string(text, canonical):
    """``resource.Quantity.String()`` (apimachinery ``CanonicalizeBytes``), what EC2NodeClass.Hash sees of a
    volume size."""
    assert Quantity(text).canonical() == canonical


@pytest.mark.parametrize("text", ["1e999999999", "1e" + "9" * 5000, "9" * 5000, "9223372036854775808", "1e19",
                                  "8Ei", "100Ei", "-1e999999999", "10E"])
def test_quantity_beyond_int64_is_refused_without_expanding_it(text: str) -> None:
    with pytest.raises(KarpenterGpuError) as exc:
        Quantity(text)
    assert exc.value.code == "KG102" and "int64" in exc.value.allowed


@pytest.mark.parametrize("text, base_units", [("9223372036854775807", Decimal(2**63 - 1)), ("7Ei", Decimal(7 * 2**60)),
                                              ("9E", Decimal(9 * 10**18)), ("1e18", Decimal(10**18)),
                                              ("1e-999999999", Decimal("1e-9")), ("1e-" + "9" * 5000, Decimal("1e-9")),
                                              ("0e999999999", Decimal(0))])
def test_quantity_at_the_bounds_is_read(text: str, base_units: Decimal) -> None:
    # ParseQuantity rounds a non-zero magnitude up to nano units: the tiniest positive amount is 1n
    assert Quantity(text).as_decimal() == base_units


def test_quantity_keeps_nano_precision_rounding_away_from_zero() -> None:
    # ParseQuantity: amount.Round(amount, Nano.infScale(), inf.RoundUp) on the magnitude, then the sign (oracle
    # overlay family: a NodeOverlay capacity of "-928.6E-9" is -9.29E-7 in Karpenter)
    assert Quantity("-928.6E-9").as_decimal() == Decimal("-9.29E-7")
    assert Quantity("928.6E-9").as_decimal() == Decimal("9.29E-7")
    assert Quantity("-928.6E-9").canonical() == "-929e-9"
    assert Quantity("1.0000000001").as_decimal() == Decimal("1.000000001")
    # the range check reads an SI or binary suffix's power: these are within int64 (KG102 before)
    assert Quantity("-.8Ei").as_decimal() == Decimal("-922337203685477580.8")
    assert Quantity("-922337203685477580800m").as_decimal() == Decimal("-922337203685477580.8")


def test_atoi_of_thousands_of_digits_is_not_an_int() -> None:
    assert atoi("9" * 5000) is None and atoi("0" * 30 + "5") == 5  # Go's Atoi reads leading zeros
    assert atoi("-9223372036854775808") == -2**63 and atoi("9223372036854775808") is None


def test_go_parse_duration_follows_time_parse_duration():
    from karpenter_gpu.k8s.units import go_parse_duration

    assert go_parse_duration("0") == go_parse_duration("-0") == 0
    assert go_parse_duration("1.5h") == 5400 * 10**9
    assert go_parse_duration("300ms") == go_parse_duration(".3s") == 300 * 10**6
    assert go_parse_duration("-2m3.4s") == -123_400_000_000
    assert go_parse_duration("1\u00b5s") == go_parse_duration("1us") == 1000
    assert go_parse_duration("9223372036854775807ns") == 2**63 - 1
    assert go_parse_duration("-9223372036854775808ns") == -(2**63)
    for bad in ("", ".", "1", "s", "rk", "1d", "9223372036854775808ns", "1.s.", None, 5):
        with pytest.raises(KarpenterGpuError):
            go_parse_duration(bad)  # type: ignore[arg-type]
