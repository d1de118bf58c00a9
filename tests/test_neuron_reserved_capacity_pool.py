"""NeuronReservedCapacityPool → Trainium in Capacity Blocks first, with an explicit fallback."""

from __future__ import annotations

import pytest

from karpenter_gpu import Duration, GpuNodeClass, KarpenterGpuError, NeuronReservedCapacityPool
from karpenter_gpu.addons.feature_gates import FeatureGate, required_feature_gates
from karpenter_gpu.analysis.simulator import simulate_pools
from karpenter_gpu.apiserver.conformance import check
from karpenter_gpu.pools.capacity_reservation import CapacityReservationTerm, ReservationType
from karpenter_gpu.pools.reserved_capacity_pool import Fallback
from tests.conftest import manifests, only


BLOCKS = (CapacityReservationTerm.by_tags({"purpose": "trainium-blocks"}),)


def node_class(chart, reservations=BLOCKS):
    return GpuNodeClass.training(chart, "Class", name="trainium-reserved", ami="al2023@v20251103", role="R",
                                 cluster_name="c", capacity_reservations=reservations)


def test_capacity_blocks_first_with_on_demand_fallback(chart, crds):
    NeuronReservedCapacityPool(chart, "Blocks", node_class=node_class(chart), name="trainium-blocks",
                               neuron_limit=32, expire_after=Duration.never(), fallback=Fallback.ON_DEMAND)
    spec = only(chart, "NodePool")["spec"]
    reqs = {r["key"]: (r["operator"], r["values"]) for r in spec["template"]["spec"]["requirements"]}
    assert reqs["karpenter.sh/capacity-type"] == ("In", ["reserved", "on-demand"])
    assert reqs["karpenter.k8s.aws/capacity-reservation-type"] == ("NotIn", ["default"])
    assert reqs["karpenter.k8s.aws/instance-accelerator-name"] == ("In", ["trainium", "trainium2"])
    assert spec["limits"] == {"aws.amazon.com/neuron": "32"}
    assert FeatureGate.RESERVED_CAPACITY in {n.gate for n in required_feature_gates(chart)}
    assert all(check(m, crds) == [] for m in manifests(chart))
    [report] = simulate_pools(manifests(chart))
    assert report.capacity_types == ("reserved", "on-demand") and report.launchable


def test_odcr_when_asked(chart):
    NeuronReservedCapacityPool(chart, "Odcr", node_class=node_class(chart), name="trainium-odcr", neuron_limit=16,
                               expire_after=Duration.never(), fallback=Fallback.NONE,
                               reservation_type=ReservationType.ODCR)
    reqs = only(chart, "NodePool")["spec"]["template"]["spec"]["requirements"]
    assert {"key": "karpenter.k8s.aws/capacity-reservation-type", "operator": "NotIn",
            "values": ["capacity-block"]} in reqs


def test_fails_without_reservations_on_the_node_class(chart):
    with pytest.raises(KarpenterGpuError) as err:
        NeuronReservedCapacityPool(chart, "Blocks", node_class=node_class(chart, ()), name="b", neuron_limit=8,
                                   expire_after=Duration.never(), fallback=Fallback.ON_DEMAND)
    assert err.value.code == "KG191"


def test_fails_without_fallback(chart):
    with pytest.raises(KarpenterGpuError) as err:
        NeuronReservedCapacityPool(chart, "Blocks", node_class=node_class(chart), name="b", neuron_limit=8,
                                   expire_after=Duration.never())
    assert err.value.code == "KG192"
