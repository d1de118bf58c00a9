"""NodeOverlayDiscourage → NodeOverlay (seed 004's right-sizing overlay), and the shared overlay rules."""

from __future__ import annotations

import re

import cdk8s
import pytest

from karpenter_gpu.k8s.requirements import OVERLAY_AWS_KEYS, check_overlay_key
from karpenter_gpu.apiserver.conformance import check
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.addons.feature_gates import FeatureGate, feature_gate_summary, required_feature_gates
from karpenter_gpu.overlays.gpu_capacity_overlay import GpuCapacityOverlay
from karpenter_gpu.overlays.node_overlay_discourage import NodeOverlayDiscourage, NodeOverlayDiscourageProps
from karpenter_gpu.overlays.overlay_price import Price, PriceAdjustment
from tests.conftest import manifests, only

BIG = ("g5.12xlarge", "g5.24xlarge", "g6e.12xlarge", "g6e.24xlarge")
SEED = dict(name="discourage-big-gpu", instance_types=BIG, price_adjustment=PriceAdjustment.percent(30), weight=10)


def test_seed_overlay_snapshot(chart, snapshot):
    NodeOverlayDiscourage(chart, "DiscourageBigGpu", **SEED)
    assert manifests(chart) == snapshot


def test_seed_overlay_renders_like_the_seed(chart, crds):
    overlay = NodeOverlayDiscourage(chart, "DiscourageBigGpu", **SEED)
    m = only(chart, "NodeOverlay")
    assert m["apiVersion"] == "karpenter.sh/v1alpha1"
    assert m["metadata"] == {"name": "discourage-big-gpu"}
    assert m["spec"] == {
        "requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": list(BIG)}],
        "priceAdjustment": "+30%",
        "weight": 10,
    }
    assert check(m, crds) == []
    assert (overlay.name, overlay.weight) == ("discourage-big-gpu", 10)
    assert cdk8s.ApiObject.of(overlay.resource).kind == "NodeOverlay"


def test_string_adjustment_and_node_pools(chart, crds):
    NodeOverlayDiscourage(chart, "D", name="d", instance_types=("p4d.24xlarge",), price_adjustment="+1.2",
                          node_pools=("gpu-training", "gpu-batch"), weight=5)
    spec = only(chart, "NodeOverlay")["spec"]
    assert spec["priceAdjustment"] == "+1.2"
    assert spec["requirements"][1] == {"key": "karpenter.sh/nodepool", "operator": "In",
                                       "values": ["gpu-training", "gpu-batch"]}
    assert check(only(chart, "NodeOverlay"), crds) == []


@pytest.mark.parametrize("price", [Price.of("12.5"), "12.5"])
def test_absolute_price_replaces_the_adjustment(chart, crds, price):
    NodeOverlayDiscourage(chart, "D", name="d", instance_types=("g5.48xlarge",), price=price, weight=7)
    m = only(chart, "NodeOverlay")
    assert m["spec"]["price"] == "12.5" and "priceAdjustment" not in m["spec"]
    assert check(m, crds) == []


def test_never_both_price_fields_in_output(chart):
    NodeOverlayDiscourage(chart, "A", name="a", instance_types=("g5.12xlarge",), price_adjustment="-15%", weight=1)
    NodeOverlayDiscourage(chart, "B", name="b", instance_types=("g5.12xlarge",), price="3", weight=2)
    for m in manifests(chart):
        assert len({"price", "priceAdjustment"} & set(m["spec"])) == 1


def test_feature_gate_recorded(chart):
    NodeOverlayDiscourage(chart, "DiscourageBigGpu", **SEED)
    needs = required_feature_gates(chart)
    assert [(n.gate, n.path) for n in needs] == [(FeatureGate.NODE_OVERLAY, "test/DiscourageBigGpu")]
    assert "+30%" in needs[0].reason
    assert "nodeOverlay: true" in feature_gate_summary(chart)


def test_props_model_validates_on_its_own():
    props = NodeOverlayDiscourageProps(**SEED)
    assert props.price_adjustment == PriceAdjustment.parse("+30%")
    with pytest.raises(KarpenterGpuError) as exc:
        NodeOverlayDiscourageProps(**{**SEED, "weight": None})
    assert exc.value.code == "KG183"


@pytest.mark.parametrize("change, code, prop", [
    ({"price": Price.of("1")}, "KG180", "price/price_adjustment"),  # both
    ({"price_adjustment": None}, "KG180", "price/price_adjustment"),  # neither
    ({"price_adjustment": "+abc"}, "KG180", "price_adjustment"),
    ({"price_adjustment": "-100.5%"}, "KG180", "price_adjustment"),
    ({"price_adjustment": None, "price": "-1"}, "KG180", "price"),
    ({"instance_types": ("G5.12xlarge",)}, "KG182", "instance_types"),
    ({"instance_types": ("g5",)}, "KG182", "instance_types"),
    ({"instance_types": ("g5.12xlarge ",)}, "KG182", "instance_types"),
    ({"instance_types": ()}, "KG182", "instance_types"),
    ({"instance_types": ("g5.12xlarge", "g5.12xlarge")}, "KG182", "instance_types"),
    ({"instance_types": "g5.12xlarge"}, "KG182", "instance_types"),  # bare string
    ({"node_pools": ("GPU Training",)}, "KG182", "node_pools"),
    ({"weight": 0}, "KG183", "weight"),
    ({"weight": 10001}, "KG183", "weight"),
    ({"weight": -1}, "KG183", "weight"),
    ({"weight": True}, "KG183", "weight"),
    ({"weight": 1.5}, "KG183", "weight"),
    ({"weight": None}, "KG183", "weight"),
    ({"name": "Discourage Big"}, "KG120", "name"),
])
def test_invalid_props_raise_coded_errors_and_add_nothing(chart, change, code, prop):
    with pytest.raises(KarpenterGpuError) as exc:
        NodeOverlayDiscourage(chart, "Overlay", **{**SEED, **change})
    assert (exc.value.code, exc.value.prop) == (code, prop)
    assert exc.value.path == "test/Overlay"
    assert chart.node.try_find_child("Overlay") is None


def test_both_prices_message_quotes_the_cel_rule(chart):
    with pytest.raises(KarpenterGpuError, match="cannot set both"):
        NodeOverlayDiscourage(chart, "Overlay", **SEED, price="1")
    assert chart.node.try_find_child("Overlay") is None


def test_weight_bounds_are_accepted(chart, crds):
    NodeOverlayDiscourage(chart, "Low", **{**SEED, "name": "low", "weight": 1})
    NodeOverlayDiscourage(chart, "High", **{**SEED, "name": "high", "weight": 10000})
    assert [m["spec"]["weight"] for m in manifests(chart)] == [1, 10000]
    assert all(check(m, crds) == [] for m in manifests(chart))


def test_duplicate_weight_after_capacity_overlay(chart):
    GpuCapacityOverlay(chart, "Fractional", name="g6f-gpu", weight=10)
    with pytest.raises(KarpenterGpuError) as exc:
        NodeOverlayDiscourage(chart, "Overlay", **SEED)
    assert exc.value.code == "KG183" and "test/Fractional" in str(exc.value)
    assert "not applied" in str(exc.value)
    assert chart.node.try_find_child("Overlay") is None


def test_duplicate_weight_across_charts_of_one_app():
    app = cdk8s.Testing.app()
    NodeOverlayDiscourage(cdk8s.Chart(app, "one"), "Overlay", **SEED)
    two = cdk8s.Chart(app, "two")
    with pytest.raises(KarpenterGpuError) as exc:
        NodeOverlayDiscourage(two, "Overlay", **{**SEED, "name": "other"})
    assert exc.value.code == "KG183" and "one/Overlay" in str(exc.value)
    assert two.node.try_find_child("Overlay") is None


def test_duplicate_name_is_refused(chart):
    NodeOverlayDiscourage(chart, "First", **SEED)
    with pytest.raises(KarpenterGpuError) as exc:
        NodeOverlayDiscourage(chart, "Second", **{**SEED, "weight": 11})
    assert exc.value.code == "KG171" and "test/First" in str(exc.value)
    assert chart.node.try_find_child("Second") is None


def test_overlay_key_allow_list_is_the_crds(crds):
    key = crds[("karpenter.sh/v1alpha1", "NodeOverlay")]["schema"]["properties"]["spec"]["properties"][
        "requirements"]["items"]["properties"]["key"]
    rule = next(v["rule"] for v in key["x-kubernetes-validations"] if "karpenter.k8s.aws" in v["message"])
    assert set(re.findall(r'"(karpenter\.k8s\.aws/[^"]+)"', rule)) == OVERLAY_AWS_KEYS


@pytest.mark.parametrize("key, ok", [
    ("karpenter.sh/nodepool", True),
    ("karpenter.sh/capacity-type", True),
    ("karpenter.k8s.aws/instance-family", True),
    ("node.kubernetes.io/instance-type", True),
    ("example.com/team", True),
    ("karpenter.sh/nodeclaim", False),
    ("karpenter.k8s.aws/capacity-reservation-id", False),  # in NodePool's list, not NodeOverlay's
    ("karpenter.k8s.aws/instance-tenancy", False),
    ("karpenter.k8s.aws/placement-group-id", False),
    ("kubernetes.io/hostname", False),
    ("not a key", False),
])
def test_overlay_requirement_keys(key, ok):
    if ok:
        assert check_overlay_key(key) == key
    else:
        with pytest.raises(KarpenterGpuError) as exc:
            check_overlay_key(key)
        assert exc.value.code == "KG182"
