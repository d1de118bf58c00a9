"""PriceAdjustment / Price → NodeOverlay spec.priceAdjustment / spec.price."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.overlays.overlay_price import PRICE_ADJUSTMENT_PATTERN, PRICE_PATTERN, Price, PriceAdjustment

OVERLAY = ("karpenter.sh/v1alpha1", "NodeOverlay")


def _spec_pattern(crds, field):
    return crds[OVERLAY]["schema"]["properties"]["spec"]["properties"][field]["pattern"]


def test_patterns_are_the_crds(crds):
    assert _spec_pattern(crds, "priceAdjustment") == PRICE_ADJUSTMENT_PATTERN
    assert _spec_pattern(crds, "price") == PRICE_PATTERN


@pytest.mark.parametrize("built, text", [
    (PriceAdjustment.percent(30), "+30%"),
    (PriceAdjustment.percent(-15), "-15%"),
    (PriceAdjustment.percent(0.1), "+0.1%"),
    (PriceAdjustment.percent(-99.5), "-99.5%"),
    (PriceAdjustment.percent(-100), "-100%"),
    (PriceAdjustment.percent(-100.0), "-100%"),  # not "-100.0%", which the CRD pattern refuses
    (PriceAdjustment.percent(250), "+250%"),
    (PriceAdjustment.percent(Decimal("12.50")), "+12.5%"),
    (PriceAdjustment.percent(0), "+0%"),
    (PriceAdjustment.absolute(0.5), "+0.5"),
    (PriceAdjustment.absolute(-0.25), "-0.25"),
    (PriceAdjustment.absolute(0.1), "+0.1"),
    (PriceAdjustment.absolute(1e-7), "+0.0000001"),
    (PriceAdjustment.absolute(1.2), "+1.2"),
    (PriceAdjustment.absolute(-3), "-3"),
    (PriceAdjustment.parse("+10%"), "+10%"),
    (PriceAdjustment.parse("-15%"), "-15%"),
    (PriceAdjustment.parse("-100%"), "-100%"),
    (PriceAdjustment.parse("+1.2"), "+1.2"),
    (PriceAdjustment.parse("-0.5"), "-0.5"),
    (PriceAdjustment.parse("+.5"), "+0.5"),
])
def test_price_adjustment_renders_crd_valid_text(built, text, crds):
    assert str(built) == text
    assert re.match(_spec_pattern(crds, "priceAdjustment"), text)


@pytest.mark.parametrize("make", [
    lambda: PriceAdjustment.percent(-100.5),
    lambda: PriceAdjustment.percent(-101),
    lambda: PriceAdjustment.percent(float("nan")),
    lambda: PriceAdjustment.percent(float("inf")),
    lambda: PriceAdjustment.percent(True),
    lambda: PriceAdjustment.percent("30"),
    lambda: PriceAdjustment.absolute(float("-inf")),
    lambda: PriceAdjustment.parse("-100.5%"),
    lambda: PriceAdjustment.parse("-100.0%"),
    lambda: PriceAdjustment.parse("+abc"),
    lambda: PriceAdjustment.parse("30%"),  # the sign is mandatory
    lambda: PriceAdjustment.parse("0.5"),
    lambda: PriceAdjustment.parse(""),
    lambda: PriceAdjustment.parse("+"),
    lambda: PriceAdjustment.parse("+%"),
    lambda: PriceAdjustment.parse("+1e3"),
    lambda: PriceAdjustment.parse("+١٠%"),  # non-ASCII digits: Go's \d is ASCII only
    lambda: PriceAdjustment.parse(30),  # percent or amount? ambiguous
])
def test_price_adjustment_rejections_name_the_pattern(make):
    with pytest.raises(KarpenterGpuError) as exc:
        make()
    assert exc.value.code == "KG180" and exc.value.prop == "price_adjustment"
    assert PRICE_ADJUSTMENT_PATTERN in str(exc.value)


def test_price_adjustment_value_semantics():
    assert PriceAdjustment.percent(30) == PriceAdjustment.parse("+30%") == PriceAdjustment.parse("+30.0%")
    assert PriceAdjustment.percent(30) != PriceAdjustment.absolute(30)
    assert len({PriceAdjustment.percent(30), PriceAdjustment.parse("+30%")}) == 1
    assert PriceAdjustment.parse("-0.5").amount == Decimal("-0.5") and not PriceAdjustment.parse("-0.5").is_percent
    assert PriceAdjustment.parse(PriceAdjustment.percent(5)) == PriceAdjustment.percent(5)
    assert repr(PriceAdjustment.percent(-15)) == "PriceAdjustment('-15%')"


@pytest.mark.parametrize("value, text", [
    ("1.25", "1.25"), (1.25, "1.25"), (0.1, "0.1"), (Decimal("0.10"), "0.1"), (2, "2"), (0, "0"),
    ("1.50", "1.50"), (1e-7, "0.0000001"), (1e3, "1000"),
])
def test_price_renders_crd_valid_text(value, text, crds):
    assert str(Price.of(value)) == text
    assert re.match(_spec_pattern(crds, "price"), text)


@pytest.mark.parametrize("value", [-1, -0.5, "-1", "+1", "1e3", "abc", "", "1.", ".5", float("nan"), True, None])
def test_price_rejections(value):
    with pytest.raises(KarpenterGpuError) as exc:
        Price.of(value)
    assert exc.value.code == "KG180" and exc.value.prop == "price"
    assert PRICE_PATTERN in str(exc.value)


def test_price_value_semantics():
    assert Price.of("1.5") == Price.of(1.5) == Price.of("1.50")
    assert Price.of(Price.of("2")) == Price.of(2)
    assert Price.parse("0.25").amount == Decimal("0.25")
