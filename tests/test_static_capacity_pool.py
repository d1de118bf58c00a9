"""StaticCapacityPool → static NodePool(s) with replicas, one per zone."""

from __future__ import annotations

import pytest

from karpenter_gpu import Duration, GpuNodeClass, KarpenterGpuError, Label, Quantity
from karpenter_gpu.apiserver.conformance import check
from karpenter_gpu.addons.feature_gates import FeatureGate, required_feature_gates
from karpenter_gpu.pools.static_capacity_pool import StaticCapacityPool
from tests.conftest import manifests, only

ZONES = ("us-east-1a", "us-east-1b")


@pytest.fixture
def node_class(chart):
    return GpuNodeClass(chart, "Class", name="gpu-static", ami="al2023@v20251103", role="R", cluster_name="c")


def make(chart, node_class, **props):
    return StaticCapacityPool(chart, "Static", node_class=node_class, **{"name": "gpu-warm", "replicas": 2, **props})


def nodepools(chart) -> list[dict]:
    return [m for m in manifests(chart) if m["kind"] == "NodePool"]


def reqs(nodepool: dict) -> dict:
    return {r["key"]: (r["operator"], r.get("values")) for r in nodepool["spec"]["template"]["spec"]["requirements"]}


def test_two_zones_snapshot(chart, node_class, snapshot):
    make(chart, node_class, zones=ZONES, instance_types=("g5.xlarge",))
    assert manifests(chart) == snapshot


def test_one_pool_per_zone(chart, node_class):
    static = make(chart, node_class, zones=ZONES)
    pools = nodepools(chart)
    assert [p["metadata"]["name"] for p in pools] == ["gpu-warm-static-us-east-1a", "gpu-warm-static-us-east-1b"]
    assert [reqs(p)[Label.ZONE] for p in pools] == [("In", ["us-east-1a"]), ("In", ["us-east-1b"])]
    assert [p.name for p in static.pools] == ["gpu-warm-static-us-east-1a", "gpu-warm-static-us-east-1b"]
    assert all(p["spec"]["replicas"] == 2 for p in pools)  # replicas per zone


def test_without_zones_one_pool(chart, node_class):
    make(chart, node_class)
    m = only(chart, "NodePool")
    assert m["metadata"]["name"] == "gpu-warm-static"
    assert Label.ZONE not in reqs(m)


def test_static_spec_shape(chart, node_class):
    make(chart, node_class)
    spec = only(chart, "NodePool")["spec"]
    assert spec["replicas"] == 2
    assert spec["limits"] == {"nodes": "3"}
    assert "weight" not in spec
    assert "consolidationPolicy" not in spec["disruption"]
    assert spec["template"]["spec"]["expireAfter"] == "720h"
    assert reqs(only(chart, "NodePool"))[Label.CAPACITY_TYPE] == ("In", ["on-demand"])


@pytest.mark.parametrize("replicas", [0, 1, 5])
def test_default_node_limit_is_replicas_plus_one(chart, node_class, replicas):
    make(chart, node_class, replicas=replicas)
    spec = only(chart, "NodePool")["spec"]
    assert spec["limits"] == {"nodes": str(replicas + 1)}
    assert spec["replicas"] == replicas


@pytest.mark.parametrize("node_limit", [2, 4])
def test_node_limit_honoured(chart, node_class, node_limit):
    make(chart, node_class, node_limit=node_limit)
    assert only(chart, "NodePool")["spec"]["limits"] == {"nodes": str(node_limit)}


def test_instance_types_requirement(chart, node_class):
    make(chart, node_class, instance_types=("g5.xlarge", "g5.2xlarge"))
    assert reqs(only(chart, "NodePool"))[Label.INSTANCE_TYPE] == ("In", ["g5.xlarge", "g5.2xlarge"])


def test_no_instance_type_requirement_by_default(chart, node_class):
    make(chart, node_class)
    assert Label.INSTANCE_TYPE not in reqs(only(chart, "NodePool"))


def test_static_capacity_gate_recorded_per_pool(chart, node_class):
    make(chart, node_class, zones=ZONES)
    needs = required_feature_gates(chart)
    assert [(n.gate, n.path) for n in needs] == [(FeatureGate.STATIC_CAPACITY, "test/Static/us-east-1a"),
                                                (FeatureGate.STATIC_CAPACITY, "test/Static/us-east-1b")]
    assert "gpu-warm-static-us-east-1a" in needs[0].reason


def test_static_capacity_gate_recorded_without_zones(chart, node_class):
    make(chart, node_class)
    assert [n.gate for n in required_feature_gates(chart)] == [FeatureGate.STATIC_CAPACITY]


@pytest.mark.parametrize("zones", [(), ZONES])
def test_schema_check_passes(chart, node_class, crds, zones):
    make(chart, node_class, zones=zones, instance_types=("g5.xlarge",))
    for m in manifests(chart):
        assert check(m, crds) == [], m["metadata"]["name"]


def _fails(chart, node_class, code, **props):
    with pytest.raises(KarpenterGpuError) as exc:
        make(chart, node_class, **props)
    assert exc.value.code == code
    assert chart.node.try_find_child("Static") is None
    return exc.value


@pytest.mark.parametrize(("prop", "value"), [
    ("weight", 50),
    ("cpu_limit", Quantity.of(64)),
    ("gpu_limit", 4),
    ("memory_limit", Quantity.gi(256)),
    ("consolidate_after", Duration.minutes(5)),
    ("consolidation_policy", "WhenEmpty"),
])
def test_dynamic_settings_rejected(chart, node_class, prop, value):
    err = _fails(chart, node_class, "KG195", **{prop: value})
    assert err.prop == prop


def test_node_limit_below_replicas_rejected(chart, node_class):
    err = _fails(chart, node_class, "KG196", replicas=3, node_limit=2)
    assert err.prop == "node_limit"


def test_negative_replicas_rejected(chart, node_class):
    err = _fails(chart, node_class, "KG100", replicas=-1)
    assert err.prop == "replicas"


def test_zone_name_too_long_for_pool_name_rejected(chart, node_class):
    _fails(chart, node_class, "KG120", name="a" * 50, zones=("us-east-1a",))


def test_fails_when_replicas_is_a_bool(chart, node_class):
    # pydantic's lax mode would otherwise render replicas: 1 for True.
    with pytest.raises(KarpenterGpuError) as exc:
        StaticCapacityPool(chart, "Pool", node_class=node_class, name="gpu-warm", replicas=True)
    assert exc.value.code == "KG100"
