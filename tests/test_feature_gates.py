"""Feature gates recorded on the construct tree, and the Helm values summary built from them."""

from __future__ import annotations

import pytest
import yaml

from karpenter_gpu import Duration, GpuInferencePool, GpuNodeClass
from karpenter_gpu.pools.capacity_reservation import CapacityReservationTerm
from karpenter_gpu.addons.feature_gates import (DEFAULT_ON, FeatureGate, feature_gate_summary, require_feature_gate,
                                         required_feature_gates)
from karpenter_gpu.pools.reserved_capacity_pool import Fallback, ReservedCapacityPool
from karpenter_gpu.pools.static_capacity_pool import StaticCapacityPool


@pytest.fixture
def node_class(chart):
    return GpuNodeClass(chart, "Class", name="gpu", ami="al2023@v20251103", role="R", cluster_name="c",
                        capacity_reservations=(CapacityReservationTerm.by_id("cr-0123"),))


@pytest.fixture
def needy(chart, node_class):
    """A chart needing reservedCapacity (one pool) and staticCapacity (two zonal pools)."""
    ReservedCapacityPool(chart, "Reserved", node_class=node_class, name="gpu-reserved", gpu_limit=8,
                         expire_after=Duration.never(), fallback=Fallback.ON_DEMAND)
    StaticCapacityPool(chart, "Warm", node_class=node_class, name="gpu-warm", replicas=1,
                       zones=("us-east-1a", "us-east-1b"))
    return chart


def test_empty_chart_needs_nothing(chart):
    assert required_feature_gates(chart) == ()


def test_plain_pools_need_nothing(chart, node_class):
    GpuInferencePool(chart, "Pool", node_class=node_class, name="gpu-inference", gpu_limit=4)
    assert required_feature_gates(chart) == ()


def test_needs_in_tree_order(needy):
    assert [(n.gate, n.path) for n in required_feature_gates(needy)] == [
        (FeatureGate.RESERVED_CAPACITY, "test/Reserved"),
        (FeatureGate.STATIC_CAPACITY, "test/Warm/us-east-1a"),
        (FeatureGate.STATIC_CAPACITY, "test/Warm/us-east-1b"),
    ]


def test_needs_scoped_to_subtree(needy):
    warm = needy.node.find_child("Warm")
    assert {n.gate for n in required_feature_gates(warm)} == {FeatureGate.STATIC_CAPACITY}


def test_summary_lists_each_gate_once_with_every_path(needy):
    summary = feature_gate_summary(needy)
    lines = summary.splitlines()
    reserved = [line for line in lines if line.strip().startswith("reservedCapacity:")]
    static = [line for line in lines if line.strip().startswith("staticCapacity:")]
    assert len(reserved) == 1 and len(static) == 1
    assert "on by default" in reserved[0]
    assert "off by default" in static[0]
    for path in ("test/Reserved", "test/Warm/us-east-1a", "test/Warm/us-east-1b"):
        assert sum(path + ":" in line for line in lines) == 1, path
    # The static pools are listed under the staticCapacity line.
    start = lines.index(static[0])
    assert any("test/Warm/us-east-1a" in line for line in lines[start + 1:])


def test_summary_is_helm_values(needy):
    assert yaml.safe_load(feature_gate_summary(needy)) == {
        "settings": {"featureGates": {"reservedCapacity": True, "staticCapacity": True}}}


def test_summary_for_no_needs_is_empty_values(chart):
    assert yaml.safe_load(feature_gate_summary(chart)) == {"settings": {"featureGates": {}}}


def test_summary_deduplicates_repeated_needs(chart):
    require_feature_gate(chart, FeatureGate.NODE_OVERLAY, "overlay a")
    require_feature_gate(chart, FeatureGate.NODE_OVERLAY, "overlay a")
    summary = feature_gate_summary(chart)
    assert summary.count("nodeOverlay: true") == 1
    assert summary.count("test: overlay a") == 1
    assert len(required_feature_gates(chart)) == 2
    assert FeatureGate.NODE_OVERLAY not in DEFAULT_ON
    assert "off by default" in summary
