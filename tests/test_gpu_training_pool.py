"""GpuTrainingPool → NodePool."""

from __future__ import annotations

import pytest

from karpenter_gpu import (Budget, CapacityType, DisruptionWindow, Duration, GpuNodeClass, GpuTrainingPool,
                           KarpenterGpuError, Label)
from karpenter_gpu.apiserver.conformance import check
from tests.conftest import manifests, only

TRAINING_HOURS = DisruptionWindow(days="MON-FRI", start="09:00", end="19:00", time_zone="Asia/Seoul", nodes=0)


@pytest.fixture
def node_class(chart):
    return GpuNodeClass.training(chart, "Class", name="gpu-training", ami="al2023@v20251103", role="R",
                                 cluster_name="c")


def pool(chart, node_class, **props):
    GpuTrainingPool(chart, "Pool", node_class=node_class,
                    **{"name": "gpu-training", "gpu_limit": 32, "expire_after": Duration.never(), **props})
    return only(chart, "NodePool")


def test_protected_training_snapshot(chart, node_class, snapshot):
    GpuTrainingPool(chart, "Pool", node_class=node_class, name="gpu-training", gpu_limit=32,
                    expire_after=Duration.never(), termination_grace_period=Duration.hours(2),
                    disruption_windows=(TRAINING_HOURS,))
    assert manifests(chart) == snapshot


def test_defaults_on_demand_big_gpus_when_empty(chart, node_class):
    spec = pool(chart, node_class)["spec"]
    r = {x["key"]: x.get("values") for x in spec["template"]["spec"]["requirements"]}
    assert r[Label.CAPACITY_TYPE] == ["on-demand"]
    assert r[Label.GPU_NAME] == ["a100", "h100", "h200", "b200"]
    assert r[Label.GPU_COUNT] == ["0"]
    assert spec["disruption"]["consolidationPolicy"] == "WhenEmpty"
    assert spec["disruption"]["consolidateAfter"] == "30m"
    assert spec["weight"] == 90


def test_expiry_never_is_rendered(chart, node_class):
    assert pool(chart, node_class)["spec"]["template"]["spec"]["expireAfter"] == "Never"


def test_expiry_duration_and_grace_period(chart, node_class):
    tmpl = pool(chart, node_class, expire_after=Duration.days(14),
                termination_grace_period=Duration.hours(2))["spec"]["template"]["spec"]
    assert (tmpl["expireAfter"], tmpl["terminationGracePeriod"]) == ("336h", "2h")


def test_training_hours_blocked_and_drift_has_own_budget(chart, node_class, crds):
    m = pool(chart, node_class, disruption_windows=(TRAINING_HOURS,))
    assert m["spec"]["disruption"]["budgets"] == [
        {"nodes": "1", "reasons": ["Empty", "Underutilized"]},
        {"nodes": "1", "reasons": ["Drifted"]},
        {"nodes": "0", "schedule": "0 0 * * MON-FRI", "duration": "10h"},
    ]
    assert check(m, crds) == []


def test_drift_budget_can_be_dropped_or_changed(chart, node_class):
    budgets = pool(chart, node_class, drift_budget=Budget(nodes="20%", reasons=("Drifted",)))["spec"]["disruption"]["budgets"]
    assert budgets[-1] == {"nodes": "20%", "reasons": ["Drifted"]}


def test_spot_is_an_explicit_choice(chart, node_class):
    spec = pool(chart, node_class, capacity_types=(CapacityType.SPOT, CapacityType.ON_DEMAND))["spec"]
    r = {x["key"]: x.get("values") for x in spec["template"]["spec"]["requirements"]}
    assert r[Label.CAPACITY_TYPE] == ["spot", "on-demand"]


def test_fails_when_expiry_not_chosen(chart, node_class):
    with pytest.raises(KarpenterGpuError) as exc:
        GpuTrainingPool(chart, "Pool", node_class=node_class, name="gpu-training", gpu_limit=8)
    assert exc.value.code == "KG160"
    assert "do-not-disrupt" in str(exc.value) and "Duration.never()" in str(exc.value)


@pytest.mark.parametrize("change, code", [
    ({"gpu_limit": 0}, "KG130"),
    ({"weight": 101}, "KG131"),
    ({"drift_budget": Budget(nodes=1, reasons=("Empty",))}, "KG153"),
    ({"expire_after": "30d"}, "KG101"),
    ({"disruption_windows": ({"start": "09:00", "end": "19:00", "time_zone": None},)}, "KG150"),
])
def test_fails_when_props_are_bad(chart, node_class, change, code):
    with pytest.raises(KarpenterGpuError) as exc:
        pool(chart, node_class, **change)
    assert exc.value.code == code
