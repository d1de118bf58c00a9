"""TieredSpotPools → a ladder of weighted GPU NodePools (a10g spot → t4 spot → a10g on-demand)."""

from __future__ import annotations

import itertools

import pytest

from karpenter_gpu import (CapacityType, GpuNodeClass, KarpenterGpuError, Label, ReservedCapacityPoolProps, Taint,
                           TaintEffect)
from karpenter_gpu.apiserver.conformance import check
from karpenter_gpu.pools.tiered_spot_pools import SpotTier, TieredSpotPools, derived_weights
from tests.conftest import manifests

A10G_SPOT = SpotTier(suffix="a10g-spot", gpu_names=("a10g",), gpu_limit=20)
T4_SPOT = SpotTier(suffix="t4-spot", gpu_names=("t4",), gpu_limit=20)
FLOOR = SpotTier(suffix="a10g-on-demand", gpu_names=("a10g",), gpu_limit=10,
                 capacity_types=(CapacityType.ON_DEMAND,))


@pytest.fixture
def node_class(chart):
    return GpuNodeClass(chart, "Class", name="gpu-optimized", ami="al2023@v20251103", role="R", cluster_name="c")


def ladder(chart, node_class, **props):
    values = {"name": "gpu-batch", "tiers": (A10G_SPOT, T4_SPOT), "on_demand_floor": FLOOR, **props}
    return TieredSpotPools(chart, "Batch", node_class=node_class, **values)


def nodepools(chart) -> list[dict]:
    return [m for m in manifests(chart) if m["kind"] == "NodePool"]


def reqs(nodepool: dict) -> dict:
    return {r["key"]: (r["operator"], r.get("values")) for r in nodepool["spec"]["template"]["spec"]["requirements"]}


def test_seed_ladder_snapshot(chart, node_class, snapshot):
    ladder(chart, node_class)
    assert manifests(chart) == snapshot


def test_derived_weights_strictly_decreasing_on_every_pool(chart, node_class):
    ladder(chart, node_class)
    pools = nodepools(chart)
    assert len(pools) == 3
    assert all("weight" in p["spec"] for p in pools)
    assert [p["spec"]["weight"] for p in pools] == [90, 80, 70]


@pytest.mark.parametrize("count", [1, 9, 10, 11, 90, 91, 99])
def test_derived_weights_fit_the_crd_range_below_the_reserved_pool_default(count):
    weights = derived_weights(count)
    assert len(weights) == count
    reserved_default = ReservedCapacityPoolProps.model_fields["weight"].default
    assert weights[0] < reserved_default == 100  # a reserved pool with its default outranks every tier (KG463)
    assert all(1 <= w for w in weights)
    assert all(a > b for a, b in itertools.pairwise(weights))


def test_derived_weights_step_ten_up_to_nine_tiers():
    assert derived_weights(3) == (90, 80, 70)
    assert derived_weights(9)[-1] == 10
    assert derived_weights(99)[-1] == 1


def test_fails_when_weights_are_derived_for_more_tiers_than_fit_below_the_reserved_default(chart, node_class):
    tiers = tuple(A10G_SPOT.model_copy(update={"suffix": f"t{i}"}) for i in range(100))
    err = _fails(chart, node_class, tiers=tiers, on_demand_floor=None)
    assert err.prop == "tiers" and "at most 99 tiers when weights are derived" in str(err)


def test_given_weights_are_used(chart, node_class):
    ladder(chart, node_class, tiers=(A10G_SPOT.model_copy(update={"weight": 100}),
                                     T4_SPOT.model_copy(update={"weight": 50})),
           on_demand_floor=FLOOR.model_copy(update={"weight": 10}))
    assert [p["spec"]["weight"] for p in nodepools(chart)] == [100, 50, 10]


def test_shared_taints_and_labels_are_identical_across_tiers(chart, node_class):
    taints = (Taint.gpu(), Taint(key="team", value="ml", effect=TaintEffect.NO_SCHEDULE))
    ladder(chart, node_class, labels={"node-type": "gpu-batch", "team": "ml"}, taints=taints)
    pools = nodepools(chart)
    rendered_taints = [p["spec"]["template"]["spec"]["taints"] for p in pools]
    rendered_labels = [p["spec"]["template"]["metadata"]["labels"] for p in pools]
    assert rendered_taints == [[t.render() for t in taints]] * 3
    assert rendered_labels == [{"node-type": "gpu-batch", "team": "ml", "gpu-operator": "enabled"}] * 3


def test_names_are_prefix_dash_suffix(chart, node_class):
    tiers = ladder(chart, node_class)
    expected = ["gpu-batch-a10g-spot", "gpu-batch-t4-spot", "gpu-batch-a10g-on-demand"]
    assert [p["metadata"]["name"] for p in nodepools(chart)] == expected
    assert [p.name for p in tiers.pools] == expected


def test_capacity_types_and_gpus_per_tier(chart, node_class):
    ladder(chart, node_class)
    pools = nodepools(chart)
    assert [reqs(p)[Label.CAPACITY_TYPE] for p in pools] == [("In", ["spot"]), ("In", ["spot"]),
                                                             ("In", ["on-demand"])]
    assert [reqs(p)[Label.GPU_NAME][1] for p in pools] == [["a10g"], ["t4"], ["a10g"]]
    assert [p["spec"]["limits"] for p in pools] == [{"nvidia.com/gpu": "20"}, {"nvidia.com/gpu": "20"},
                                                    {"nvidia.com/gpu": "10"}]


def test_ladder_without_floor(chart, node_class):
    ladder(chart, node_class, on_demand_floor=None)
    pools = nodepools(chart)
    assert [p["spec"]["weight"] for p in pools] == [90, 80]
    assert all(reqs(p)[Label.CAPACITY_TYPE] == ("In", ["spot"]) for p in pools)


def test_every_tier_passes_the_crd_schema(chart, node_class, crds):
    ladder(chart, node_class)
    for m in manifests(chart):
        assert check(m, crds) == [], m["metadata"]["name"]


def _fails(chart, node_class, code="KG185", **props):
    with pytest.raises(KarpenterGpuError) as exc:
        ladder(chart, node_class, **props)
    assert exc.value.code == code
    assert chart.node.try_find_child("Batch") is None
    return exc.value


def weighted(*weights):
    return tuple(SpotTier(suffix=f"t{i}", gpu_names=("t4",), gpu_limit=4, weight=w) for i, w in enumerate(weights))


def test_duplicate_weights_rejected(chart, node_class):
    _fails(chart, node_class, tiers=weighted(100, 100), on_demand_floor=None)


def test_increasing_weights_rejected(chart, node_class):
    _fails(chart, node_class, tiers=weighted(50, 100), on_demand_floor=None)


@pytest.mark.parametrize("weight", [0, 101])
def test_weight_out_of_range_rejected(chart, node_class, weight):
    tiers = weighted(101, 50) if weight == 101 else weighted(50, 0)
    _fails(chart, node_class, tiers=tiers, on_demand_floor=None)


def test_mixed_given_and_missing_weights_rejected(chart, node_class):
    _fails(chart, node_class, tiers=(A10G_SPOT.model_copy(update={"weight": 100}), T4_SPOT))


def test_weighted_tiers_with_unweighted_floor_rejected(chart, node_class):
    _fails(chart, node_class, tiers=weighted(100, 50))


def test_duplicate_suffixes_rejected(chart, node_class):
    _fails(chart, node_class, tiers=(A10G_SPOT, A10G_SPOT.model_copy(update={"gpu_names": ("l4",)})),
           on_demand_floor=None)


def test_floor_suffix_must_differ_from_tiers(chart, node_class):
    _fails(chart, node_class, on_demand_floor=FLOOR.model_copy(update={"suffix": "t4-spot"}))


def test_no_tiers_rejected(chart, node_class):
    _fails(chart, node_class, tiers=())


def test_floor_with_spot_rejected(chart, node_class):
    err = _fails(chart, node_class,
                 on_demand_floor=SpotTier(suffix="a10g-on-demand", gpu_names=("a10g",), gpu_limit=10))
    assert err.prop == "on_demand_floor.capacity_types"


def test_floor_mixing_spot_and_on_demand_rejected(chart, node_class):
    _fails(chart, node_class, on_demand_floor=FLOOR.model_copy(
        update={"capacity_types": (CapacityType.SPOT, CapacityType.ON_DEMAND)}))


def test_tier_without_gpus_fails_at_the_tier(chart, node_class):
    err = _fails(chart, node_class, code="KG130", tiers=(A10G_SPOT, T4_SPOT.model_copy(update={"gpu_limit": 0})))
    assert err.path is not None and "t4-spot" in err.path
    assert "t4-spot" in str(err)
