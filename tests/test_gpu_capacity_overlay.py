"""GpuCapacityOverlay → NodeOverlay adding nvidia.com/gpu to g6f/gr6f (which report 0 GPUs)."""

from __future__ import annotations

import pytest

from karpenter_gpu.apiserver.conformance import check
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.addons.feature_gates import FeatureGate, required_feature_gates
from karpenter_gpu.overlays.gpu_capacity_overlay import GpuCapacityOverlay, GpuCapacityOverlayProps
from karpenter_gpu.overlays.node_overlay_discourage import NodeOverlayDiscourage
from karpenter_gpu.overlays.overlay_price import PriceAdjustment
from karpenter_gpu.k8s.units import Quantity
from tests.conftest import manifests, only

BASE = dict(name="fractional-gpu-capacity", weight=20)


def test_default_snapshot(chart, snapshot):
    GpuCapacityOverlay(chart, "FractionalGpus", **BASE)
    assert manifests(chart) == snapshot


def test_defaults_are_the_documented_g6f_fix(chart, crds):
    overlay = GpuCapacityOverlay(chart, "FractionalGpus", **BASE)
    m = only(chart, "NodeOverlay")
    assert m["apiVersion"] == "karpenter.sh/v1alpha1"
    assert m["spec"] == {
        "requirements": [{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g6f", "gr6f"]}],
        "capacity": {"nvidia.com/gpu": "1"},
        "weight": 20,
    }
    assert "price" not in m["spec"] and "priceAdjustment" not in m["spec"]
    assert check(m, crds) == []
    assert overlay.props.families == ("g6f", "gr6f")


@pytest.mark.parametrize("capacity, rendered", [
    ({"nvidia.com/gpu": "1"}, {"nvidia.com/gpu": "1"}),
    ({"nvidia.com/gpu": Quantity.of(2)}, {"nvidia.com/gpu": "2"}),
    ({"amd.com/gpu": 1}, {"amd.com/gpu": "1"}),
    ({"example.com/vgpu-slice": "4", "nvidia.com/gpu": 1}, {"example.com/vgpu-slice": "4", "nvidia.com/gpu": "1"}),
])
def test_capacity_rendered_as_strings(chart, crds, capacity, rendered):
    GpuCapacityOverlay(chart, "O", **BASE, families=("g6f",), capacity=capacity)
    m = only(chart, "NodeOverlay")
    assert m["spec"]["capacity"] == rendered
    assert check(m, crds) == []


def test_feature_gate_recorded(chart):
    GpuCapacityOverlay(chart, "FractionalGpus", **BASE)
    needs = required_feature_gates(chart)
    assert [(n.gate, n.path) for n in needs] == [(FeatureGate.NODE_OVERLAY, "test/FractionalGpus")]
    assert "nvidia.com/gpu" in needs[0].reason


def test_props_model_validates_on_its_own():
    assert dict(GpuCapacityOverlayProps(**BASE).capacity) == {"nvidia.com/gpu": Quantity("1")}
    with pytest.raises(KarpenterGpuError) as exc:
        GpuCapacityOverlayProps(name="x")
    assert exc.value.code == "KG183"


@pytest.mark.parametrize("capacity, needle", [
    ({"cpu": "4"}, "ephemeral-storage"),
    ({"memory": "16Gi"}, "invalid resource restricted"),
    ({"ephemeral-storage": "100Gi"}, "CEL"),
    ({"pods": 110}, "CEL"),
    ({"gpu": 1}, "domain-qualified"),
    ({"aws.amazon.com/neuron": 1}, "ValidationSucceeded=False"),
    ({"aws.amazon.com/neuroncore": 2}, "runtime"),
    ({"vpc.amazonaws.com/efa": 1}, "runtime"),
    ({"vpc.amazonaws.com/pod-eni": 1}, "runtime"),
    ({"habana.ai/gaudi": 8}, "runtime"),
    ({"kubernetes.io/foo": 1}, "kubernetes.io"),
    ({}, "non-empty"),
    ({"nvidia.com/gpu": 0}, "positive whole number"),
    ({"nvidia.com/gpu": -1}, "positive whole number"),
    ({"nvidia.com/gpu": "0.5"}, "positive whole number"),
    ({"nvidia.com/gpu": "1000m"}, "positive whole number"),
    ({"nvidia.com/gpu": True}, "positive whole number"),
    ({"nvidia.com/gpu": 1.0}, "positive whole number"),
    ({"example.com/slice": "500m"}, "whole"),
    ({"example.com/slice": "lots"}, "whole"),
])
def test_invalid_capacity_is_kg181_and_adds_nothing(chart, capacity, needle):
    with pytest.raises(KarpenterGpuError) as exc:
        GpuCapacityOverlay(chart, "Overlay", **BASE, capacity=capacity)
    assert exc.value.code == "KG181" and exc.value.prop.startswith("capacity")
    assert needle in str(exc.value)
    assert chart.node.try_find_child("Overlay") is None


@pytest.mark.parametrize("change, code", [
    ({"families": ("g6f.large",)}, "KG182"),
    ({"families": ()}, "KG182"),
    ({"families": "g6f"}, "KG182"),
    ({"families": ("G6F",)}, "KG182"),
    ({"weight": 0}, "KG183"),
    ({"weight": 10001}, "KG183"),
    ({"weight": None}, "KG183"),
    ({"name": "G6F"}, "KG120"),
])
def test_invalid_props_raise_coded_errors_and_add_nothing(chart, change, code):
    with pytest.raises(KarpenterGpuError) as exc:
        GpuCapacityOverlay(chart, "Overlay", **{**BASE, **change})
    assert exc.value.code == code and exc.value.path == "test/Overlay"
    assert chart.node.try_find_child("Overlay") is None


def test_duplicate_weight_after_discourage_overlay(chart):
    NodeOverlayDiscourage(chart, "Discourage", name="discourage-big-gpu", instance_types=("g5.12xlarge",),
                          price_adjustment=PriceAdjustment.percent(30), weight=20)
    with pytest.raises(KarpenterGpuError) as exc:
        GpuCapacityOverlay(chart, "Overlay", **BASE)
    assert exc.value.code == "KG183" and exc.value.prop == "weight"
    assert "test/Discourage" in str(exc.value) and "unique" in str(exc.value)
    assert chart.node.try_find_child("Overlay") is None


def test_two_overlays_with_distinct_weights_coexist(chart, crds):
    GpuCapacityOverlay(chart, "Nvidia", **BASE)
    GpuCapacityOverlay(chart, "Amd", name="amd-capacity", weight=21, families=("g4ad",), capacity={"amd.com/gpu": 1})
    assert [m["spec"]["weight"] for m in manifests(chart)] == [20, 21]
    assert all(check(m, crds) == [] for m in manifests(chart))
    assert len(required_feature_gates(chart)) == 2
