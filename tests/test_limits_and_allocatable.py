"""Limits, allocatable, offerings and admission as Karpenter v1.14.1 and the AWS provider apply them.

Figures are worked by hand from the catalog rows (g5.xlarge: 4 vCPU, 16384 MiB, 58 ENI pods, 1.006/h;
g5.2xlarge: 8 vCPU, 32768 MiB, 1.212/h; g5.48xlarge: 192 vCPU, 8 GPUs, 16.288/h).
"""

from __future__ import annotations

from decimal import Decimal

from karpenter_gpu.analysis.pod_fit import first_choice, pod_fit
from karpenter_gpu.analysis.pod_shape import PodShape
from karpenter_gpu.analysis.region import region_warnings
from karpenter_gpu.analysis.simulator import simulate_pools
from tests.test_simulator import GPU_TAINT, one, overlay, pool, req

MI = 2**20
XL = req("node.kubernetes.io/instance-type", "In", "g5.xlarge")


def node_class(name: str = "gpu", **spec) -> dict:
    body = {"amiSelectorTerms": [{"alias": "al2023@latest"}], **spec}
    return {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": name}, "spec": body}


def daemon_set(name: str, cpu: str, tolerations: list | None = None, **pod) -> dict:
    spec = {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}], **pod}
    if tolerations:
        spec["tolerations"] = tolerations
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name},
            "spec": {"template": {"spec": spec}}}


def test_cpu_limit_bounds_a_pool_without_gpu_limit():
    """filterByRemainingResources (scheduler.go) checks every limited resource, cpu included."""
    report = one(pool("cpu", XL, limits={"cpu": "1024"}))
    assert not report.unbounded and report.bounded_by == ("cpu",)
    assert report.worst_case_hourly == Decimal("257.536")  # 1024 / 4 vCPU = 256 x 1.006
    assert report.worst_case_nodes == (("g5.xlarge", 256),)


def test_types_bigger_than_a_limit_are_excluded_and_said_so():
    report = one(pool("small", req("node.kubernetes.io/instance-type", "In", "g5.xlarge", "g5.48xlarge"),
                      limits={"cpu": "100"}))
    assert report.candidate_names == ("g5.xlarge",)
    assert report.excluded == (("g5.48xlarge", "cpu 100"),)  # 192 vCPU > 100
    assert report.worst_case_hourly == Decimal("25.150")  # 25 x g5.xlarge (100 vCPU) x 1.006
    assert any("never launched" in n.text and "g5.48xlarge (cpu 100)" in n.text for n in report.notes)


def test_memory_limit_counts_capacity_after_the_vm_overhead():
    """computeCapacity memory(): 16384 MiB - ceil(16384 x 0.075) = 15155 MiB for g5.xlarge."""
    assert one(pool("m", XL, limits={"memory": "15155Mi"})).worst_case_nodes == (("g5.xlarge", 1),)
    assert one(pool("m", XL, limits={"memory": "15154Mi"})).excluded == (("g5.xlarge", "memory 15154Mi"),)


def test_pods_and_nodes_limits():
    assert one(pool("p", XL, limits={"pods": "116"})).worst_case_nodes == (("g5.xlarge", 2),)  # 58 pods each
    assert one(pool("n", XL, limits={"nodes": "3"})).worst_case_hourly == Decimal("3.018")


def test_a_type_without_the_limited_resource_leaves_spend_unbounded():
    report = one(pool("g6f", req("family", "In", "g6f"), limits={"nvidia.com/gpu": "8"}))
    assert report.unbounded and report.worst_case_hourly is None
    assert any("unbounded" in n.text and "none of the limited resources" in n.text for n in report.notes)


def test_limit_unit_says_when_gpus_are_shares():
    shared = overlay("slice", req("node.kubernetes.io/instance-type", "In", "g5.xlarge"),
                     capacity={"nvidia.com/gpu": "4"})
    report = one(pool("ts", XL, limits={"nvidia.com/gpu": "8"}), shared)
    assert "time-slice or MIG shares" in report.limit_unit
    assert report.worst_case_nodes == (("g5.xlarge", 2),)  # 4 shares a node, 8 shares
    assert one(pool("plain", XL, limits={"nvidia.com/gpu": "8"})).limit_unit == "GPUs"


def test_kubelet_settings_change_allocatable():
    """types.go: kubeReservedResources (overridden by kubeReserved), pods() (maxPods), evictionThreshold."""
    p = pool("k", XL)
    plain = one(p, node_class()).candidates[0].capacity
    assert plain["cpu"] == Decimal("3.92") and plain["memory"] == 14162 * MI and plain["pods"] == 58
    tuned = one(p, node_class(kubelet={"maxPods": 20, "kubeReserved": {"cpu": "500m"}})).candidates[0].capacity
    # AL2023 reserves memory for the ENI-limited 58 pods whatever maxPods says (UsesENILimitedMemoryOverhead)
    assert tuned["cpu"] == Decimal("3.5") and tuned["memory"] == 14162 * MI and tuned["pods"] == 20
    rocket = node_class(amiSelectorTerms=[{"alias": "bottlerocket@latest"}], kubelet={"maxPods": 20})
    # Bottlerocket reserves 11 x 20 + 255 = 475 MiB: 15155 - 475 - 100 = 14580 MiB
    assert one(p, rocket).candidates[0].capacity["memory"] == 14580 * MI
    evict = node_class(kubelet={"evictionHard": {"memory.available": "5%"}, "systemReserved": {"memory": "1Gi"}})
    # ceil(15155 MiB x 5 / 100) bytes = 794558464; 15155 MiB - 893 MiB - 1024 MiB - that
    assert one(p, evict).candidates[0].capacity["memory"] == (15155 - 893 - 1024) * MI - 794558464
    pods = node_class(kubelet={"podsPerCore": 2})
    assert one(p, pods).candidates[0].capacity["pods"] == 8  # 2 x 4 vCPU < 58


def test_daemonsets_take_their_requests_from_what_a_pod_gets():
    """buildDaemonOverheadGroups (scheduler.go): daemons tolerating the taints and matching count per node."""
    p = pool("gpu", req("node.kubernetes.io/instance-type", "In", "g5.xlarge", "g5.2xlarge"), taints=[GPU_TAINT])
    shape = PodShape.parse("gpus=1,cpu=3")
    assert first_choice(pod_fit(shape, [p])).instance == "g5.xlarge"  # 3.92 cpu
    agent = daemon_set("agent", "1", tolerations=[{"operator": "Exists"}])
    fits = pod_fit(shape, [p, agent])
    assert first_choice(fits).instance == "g5.2xlarge"  # 3.92 - 1 < 3
    assert any("DaemonSets counted" in n.text and "agent" in n.text for n in simulate_pools([p, agent])[0].notes)
    intolerant = daemon_set("intolerant", "1")
    assert first_choice(pod_fit(shape, [p, intolerant])).instance == "g5.xlarge"
    elsewhere = daemon_set("elsewhere", "1", tolerations=[{"operator": "Exists"}],
                           nodeSelector={"karpenter.sh/nodepool": "other"})
    assert first_choice(pod_fit(shape, [p, elsewhere])).instance == "g5.xlarge"


def test_reserved_needs_capacity_reservation_selector_terms():
    """Reserved offerings come only from the reservations the node class selects (ResolveOfferings)."""
    p = pool("r", XL, req("karpenter.sh/capacity-type", "In", "reserved", "on-demand"))
    without = pod_fit(PodShape(gpus=1), [p, node_class()])[0]
    assert without.offering == "on-demand/other zones"
    report = simulate_pools([p, node_class()])[0]
    assert all(o.offering.capacity_type != "reserved" for c in report.candidates for o in c.offerings)
    selected = node_class(capacityReservationSelectorTerms=[{"id": "cr-0123456789abcdef0"}])
    assert pod_fit(PodShape(gpus=1), [p, selected])[0].offering == "reserved/other zones"
    only = pool("r", XL, req("karpenter.sh/capacity-type", "In", "reserved"))
    assert not simulate_pools([only, node_class()])[0].launchable


def test_min_values_is_checked_after_the_pod_narrows_the_types():
    """filterInstanceTypesByRequirements (nodeclaim.go) runs SatisfiesMinValues on the pod's remaining types."""
    strict = pool("strict", req("family", "In", "g5", "g6", min_values=2), weight=10)
    fallback = pool("fallback", req("family", "In", "g5"))
    shape = PodShape.parse("affinity=karpenter.k8s.aws/instance-family:In:g5")
    fits = pod_fit(shape, [strict, fallback])
    assert fits[0].instance is None and "minValues 2" in fits[0].reason
    assert first_choice(fits).pool == "fallback"
    assert first_choice(pod_fit(PodShape(gpus=1), [strict, fallback])).pool == "strict"


def test_prices_say_what_they_are():
    report = one(pool("s", XL, req("karpenter.sh/capacity-type", "In", "spot")))
    assert report.price_basis == "us-east-1 on-demand list price"
    offering = report.candidates[0].offerings[0]
    assert offering.on_demand_stand_in and offering.basis == "on-demand list price standing in for spot"
    assert any("spot offerings are shown at the us-east-1 on-demand list price" in n.text for n in report.notes)
    od = one(pool("o", XL, req("karpenter.sh/capacity-type", "In", "on-demand"))).candidates[0].offerings[0]
    assert not od.on_demand_stand_in and od.basis == "on-demand list price"


def test_region_warning_for_zones_of_another_region():
    seoul = pool("seoul", XL, req("topology.kubernetes.io/zone", "In", "ap-northeast-2a"))
    virginia = pool("virginia", XL, req("topology.kubernetes.io/zone", "In", "us-east-1a", "us-east-1-bos-1a"))
    assert [w.text for w in region_warnings([seoul, virginia])] == [
        "NodePool seoul: zones in ap-northeast-2, but the prices are us-east-1 on-demand list prices: costs there "
        "differ"]
    tokyo = pool("tokyo", XL, req("topology.kubernetes.io/zone", "In", "ap-northeast-1a"))
    warnings = region_warnings([tokyo, seoul, virginia, pool("seoul-2", XL, req("topology.kubernetes.io/zone", "In",
                                                                                "ap-northeast-2b"))])
    assert [w.text for w in warnings] == [
        "NodePool tokyo: zones in ap-northeast-1, but the prices are us-east-1 on-demand list prices: costs there "
        "differ",
        "NodePools seoul, seoul-2: zones in ap-northeast-2, but the prices are us-east-1 on-demand list prices: costs "
        "there differ"]


def test_bottlerocket_without_kubelet_settings_keeps_the_catalog_allocatable():
    rocket = node_class(amiSelectorTerms=[{"alias": "bottlerocket@latest"}], kubelet={"podsPerCore": 2})
    report = one(pool("k", XL), rocket)  # Bottlerocket ignores podsPerCore (PodsPerCoreEnabled false)
    assert report.candidates[0].capacity["pods"] == 58 and report.candidates[0].capacity["memory"] == 14162 * MI
    assert not any("kubelet settings" in n.text for n in report.notes)
