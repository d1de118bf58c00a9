"""TimeSlicingOverlay → one NodeOverlay per GPU count advertising GPUs × replicas on the time-sliced pools."""

from __future__ import annotations

import pytest

from karpenter_gpu import GpuCapacityOverlay, KarpenterGpuError
from karpenter_gpu.apiserver.conformance import check
from karpenter_gpu.addons.feature_gates import FeatureGate, required_feature_gates
from karpenter_gpu.overlays.time_slicing_overlay import TimeSlicingOverlay, TimeSlicingOverlayProps
from tests.conftest import manifests

BASE = dict(name="gpu-time-slicing", replicas=4, node_pools=("gpu-inference", "gpu-training"), weight=100)


def overlays(chart) -> list[dict]:
    return [m for m in manifests(chart) if m["kind"] == "NodeOverlay"]


def test_snapshot(chart, snapshot):
    TimeSlicingOverlay(chart, "TimeSlicing", **BASE)
    assert manifests(chart) == snapshot


def test_one_overlay_per_gpu_count_with_gpus_times_replicas(chart, crds):
    construct = TimeSlicingOverlay(chart, "TimeSlicing", **BASE)
    found = overlays(chart)
    assert [m["metadata"]["name"] for m in found] == [f"gpu-time-slicing-{k}gpu" for k in (1, 2, 4, 8)]
    for k, m in zip((1, 2, 4, 8), found):
        assert m["apiVersion"] == "karpenter.sh/v1alpha1"
        assert m["spec"]["requirements"] == [
            {"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "In", "values": [str(k)]},
            {"key": "karpenter.sh/nodepool", "operator": "In", "values": ["gpu-inference", "gpu-training"]},
        ]
        assert m["spec"]["capacity"] == {"nvidia.com/gpu": str(k * 4)}
        assert check(m, crds) == []
    assert [m["spec"]["weight"] for m in found] == [100, 101, 102, 103]
    assert [o.weight for o in construct.overlays] == [100, 101, 102, 103]


def test_custom_gpu_counts(chart, crds):
    TimeSlicingOverlay(chart, "TimeSlicing", **BASE, gpu_counts=(1, 8))
    found = overlays(chart)
    assert [m["spec"]["capacity"]["nvidia.com/gpu"] for m in found] == ["4", "32"]
    assert all(check(m, crds) == [] for m in found)


def test_feature_gate_recorded_on_each_overlay(chart):
    TimeSlicingOverlay(chart, "TimeSlicing", **BASE)
    needs = required_feature_gates(chart)
    assert [(n.gate, n.path) for n in needs] == [
        (FeatureGate.NODE_OVERLAY, f"test/TimeSlicing/Gpus{k}") for k in (1, 2, 4, 8)]
    assert "nvidia.com/gpu=32" in needs[-1].reason and "time-sliced NodePools" in needs[-1].reason


@pytest.mark.parametrize("replicas", [1, 0, True, None, "4"])
def test_replicas_below_two_refused(chart, replicas):
    with pytest.raises(KarpenterGpuError) as exc:
        TimeSlicingOverlay(chart, "TimeSlicing", **{**BASE, "replicas": replicas})
    assert exc.value.code == "KG504"
    assert exc.value.path == "test/TimeSlicing"


@pytest.mark.parametrize("counts", [(), (0,), (1, 1), (True,), "1248"])
def test_invalid_gpu_counts_refused(chart, counts):
    with pytest.raises(KarpenterGpuError) as exc:
        TimeSlicingOverlay(chart, "TimeSlicing", **BASE, gpu_counts=counts)
    assert exc.value.code == "KG504"


@pytest.mark.parametrize("pools", ["gpu-inference", (), ("GPU",), ("a", "a")])
def test_invalid_node_pools_refused(chart, pools):
    with pytest.raises(KarpenterGpuError) as exc:
        TimeSlicingOverlay(chart, "TimeSlicing", **{**BASE, "node_pools": pools})
    assert exc.value.code == "KG182"


def test_weights_must_fit_the_crd_range(chart):
    with pytest.raises(KarpenterGpuError) as exc:
        TimeSlicingOverlay(chart, "TimeSlicing", **{**BASE, "weight": 9998})
    assert exc.value.code == "KG183"
    TimeSlicingOverlay(chart, "TimeSlicing", **{**BASE, "weight": 9997})


def test_weight_clash_adds_nothing(chart):
    GpuCapacityOverlay(chart, "Fractional", name="fractional", weight=103)
    with pytest.raises(KarpenterGpuError) as exc:
        TimeSlicingOverlay(chart, "TimeSlicing", **BASE)
    assert exc.value.code == "KG183"
    assert exc.value.path == "test/TimeSlicing/Gpus8"
    assert [m["metadata"]["name"] for m in overlays(chart)] == ["fractional"]
    assert chart.node.try_find_child("TimeSlicing") is None


def test_name_clash_refused(chart):
    GpuCapacityOverlay(chart, "Fractional", name="gpu-time-slicing-2gpu", weight=20)
    with pytest.raises(KarpenterGpuError) as exc:
        TimeSlicingOverlay(chart, "TimeSlicing", **BASE)
    assert exc.value.code == "KG171"


def test_name_leaves_room_for_the_suffix(chart):
    with pytest.raises(KarpenterGpuError) as exc:
        TimeSlicingOverlay(chart, "TimeSlicing", **{**BASE, "name": "x" * 60})
    assert exc.value.code == "KG120"


def test_props_model():
    props = TimeSlicingOverlayProps(**BASE)
    assert [(p.name, p.weight, p.gpu_count) for p in props.overlays()] == [
        ("gpu-time-slicing-1gpu", 100, 1), ("gpu-time-slicing-2gpu", 101, 2),
        ("gpu-time-slicing-4gpu", 102, 4), ("gpu-time-slicing-8gpu", 103, 8)]
