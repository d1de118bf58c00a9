"""ReservedCapacityPool → NodePool offering reserved capacity (ODCRs / Capacity Blocks) first."""

from __future__ import annotations

import pytest

from karpenter_gpu import CapacityType, Duration, GpuNodeClass, KarpenterGpuError, Label
from karpenter_gpu.pools.capacity_reservation import CapacityReservationTerm, ReservationType, prefer_reserved_capacity
from karpenter_gpu.apiserver.conformance import check
from karpenter_gpu.addons.feature_gates import FeatureGate, required_feature_gates
from karpenter_gpu.pools.reserved_capacity_pool import Fallback, ReservedCapacityPool
from tests.conftest import manifests, only

RESERVATION_TYPE = "karpenter.k8s.aws/capacity-reservation-type"


@pytest.fixture
def node_class(chart):
    return GpuNodeClass.training(chart, "Class", name="gpu-reserved", ami="al2023@v20251103", role="R",
                                 cluster_name="c",
                                 capacity_reservations=(CapacityReservationTerm.by_id("cr-0123456789abcdef0"),
                                                        CapacityReservationTerm.by_tags({"team": "ml"})))


def make(chart, node_class, **props):
    values = {"name": "gpu-reserved", "gpu_limit": 16, "expire_after": Duration.never(),
              "fallback": Fallback.ON_DEMAND, **props}
    return ReservedCapacityPool(chart, "Pool", node_class=node_class, **values)


def pool(chart, node_class, **props):
    make(chart, node_class, **props)
    return only(chart, "NodePool")


def reqs(nodepool: dict) -> dict:
    return {r["key"]: (r["operator"], r.get("values")) for r in nodepool["spec"]["template"]["spec"]["requirements"]}


def test_node_class_renders_reservation_terms(chart, node_class, crds):
    m = only(chart, "EC2NodeClass")
    assert m["spec"]["capacityReservationSelectorTerms"] == [{"id": "cr-0123456789abcdef0"},
                                                             {"tags": {"team": "ml"}}]
    assert check(m, crds) == []


def test_snapshot(chart, node_class, snapshot):
    make(chart, node_class, reservation_type=ReservationType.CAPACITY_BLOCK)
    assert manifests(chart) == snapshot


@pytest.mark.parametrize(("fallback", "types"), [
    (Fallback.NONE, ["reserved"]),
    (Fallback.SPOT, ["reserved", "spot"]),
    (Fallback.ON_DEMAND, ["reserved", "on-demand"]),
    (Fallback.SPOT_AND_ON_DEMAND, ["reserved", "spot", "on-demand"]),
])
def test_capacity_types_are_reserved_plus_fallback(chart, node_class, crds, fallback, types):
    m = pool(chart, node_class, fallback=fallback)
    assert reqs(m)[Label.CAPACITY_TYPE] == ("In", types)
    assert check(m, crds) == []


def test_odcr_only_excludes_capacity_blocks_and_keeps_fallback(chart, node_class, crds):
    m = pool(chart, node_class, reservation_type=ReservationType.ODCR)
    r = reqs(m)
    assert r[RESERVATION_TYPE] == ("NotIn", ["capacity-block"])
    assert r[Label.CAPACITY_TYPE] == ("In", ["reserved", "on-demand"])
    assert check(m, crds) == []


def test_capacity_block_only_excludes_odcrs(chart, node_class, crds):
    m = pool(chart, node_class, reservation_type=ReservationType.CAPACITY_BLOCK)
    assert reqs(m)[RESERVATION_TYPE] == ("NotIn", ["default"])
    assert check(m, crds) == []


def test_no_reservation_type_no_requirement(chart, node_class):
    assert RESERVATION_TYPE not in reqs(pool(chart, node_class))


def test_training_defaults_kept(chart, node_class):
    spec = pool(chart, node_class)["spec"]
    assert spec["template"]["spec"]["expireAfter"] == "Never"
    assert spec["disruption"]["consolidationPolicy"] == "WhenEmpty"
    assert spec["limits"] == {"nvidia.com/gpu": "16"}


def test_reserved_capacity_gate_recorded(chart, node_class):
    make(chart, node_class)
    needs = required_feature_gates(chart)
    assert [(n.gate, n.path) for n in needs] == [(FeatureGate.RESERVED_CAPACITY, "test/Pool")]
    assert "gpu-reserved" in needs[0].reason


def test_pod_affinity_prefers_reserved():
    affinity = ReservedCapacityPool.pod_affinity()
    assert affinity == {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{
        "weight": 100,
        "preference": {"matchExpressions": [{"key": "karpenter.sh/capacity-type", "operator": "In",
                                             "values": ["reserved"]}]},
    }]}}
    assert "requiredDuringSchedulingIgnoredDuringExecution" not in affinity["nodeAffinity"]
    assert ReservedCapacityPool.pod_affinity(30)["nodeAffinity"][
        "preferredDuringSchedulingIgnoredDuringExecution"][0]["weight"] == 30
    assert prefer_reserved_capacity() == affinity


@pytest.mark.parametrize("weight", [0, 101])
def test_pod_affinity_weight_out_of_range(weight):
    with pytest.raises(KarpenterGpuError) as exc:
        ReservedCapacityPool.pod_affinity(weight)
    assert exc.value.code == "KG100"


def _fails(chart, node_class, code, **props):
    with pytest.raises(KarpenterGpuError) as exc:
        make(chart, node_class, **props)
    assert exc.value.code == code
    assert chart.node.try_find_child("Pool") is None
    return exc.value


def test_node_class_without_reservations_rejected(chart):
    plain = GpuNodeClass.training(chart, "Plain", name="gpu-plain", ami="al2023@v20251103", role="R",
                                  cluster_name="c")
    err = _fails(chart, plain, "KG191")
    assert err.path == "test/Pool"


def test_missing_fallback_rejected(chart, node_class):
    err = _fails(chart, node_class, "KG192", fallback=None)
    assert err.prop == "fallback"


def test_fallback_omitted_rejected(chart, node_class):
    with pytest.raises(KarpenterGpuError) as exc:
        ReservedCapacityPool(chart, "Pool", node_class=node_class, name="gpu-reserved", gpu_limit=16,
                             expire_after=Duration.never())
    assert exc.value.code == "KG192"
    assert chart.node.try_find_child("Pool") is None


def test_capacity_types_given_rejected(chart, node_class):
    err = _fails(chart, node_class, "KG192", capacity_types=(CapacityType.RESERVED, CapacityType.ON_DEMAND))
    assert err.prop == "capacity_types"


def test_missing_expiry_rejected_like_any_training_pool(chart, node_class):
    _fails(chart, node_class, "KG160", expire_after=None)


def test_reserved_default_weight_outranks_every_other_pool_default(chart, node_class):
    from karpenter_gpu import GpuInferencePool, GpuTrainingPool, MigPartitionedPool
    from karpenter_gpu.k8s.scheduling import order_by_weight

    reserved = pool(chart, node_class)
    assert reserved["spec"]["weight"] == 100  # the NodePool maximum
    training = GpuTrainingPool(chart, "Training", node_class=node_class, name="gpu-training", gpu_limit=8,
                               expire_after=Duration.never())
    others = [GpuInferencePool(chart, "Inference", node_class=node_class, name="gpu-inference", gpu_limit=8),
              training, MigPartitionedPool(chart, "Mig", node_class=node_class, name="gpu-mig", gpu_limit=8,
                                           mig_config="all-1g.10gb")]
    assert all(o.props.weight < reserved["spec"]["weight"] for o in others)
    # What the old default (90, the training default) did: "gpu-training" sorts before "gpu-reserved".
    ordered = order_by_weight([("gpu-reserved", 90), ("gpu-training", training.props.weight)],
                              lambda p: p[1], lambda p: p[0])
    assert ordered[0][0] == "gpu-training"
    ordered = order_by_weight([("gpu-reserved", reserved["spec"]["weight"]), ("gpu-training", training.props.weight)],
                              lambda p: p[1], lambda p: p[0])
    assert ordered[0][0] == "gpu-reserved"
