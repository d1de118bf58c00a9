"""AutoModeNodeClass → eks.amazonaws.com/v1 NodeClass, and the pools that target it (Auto Mode flavour)."""

from __future__ import annotations

import pytest

from karpenter_gpu import (AutoModeEphemeralStorage, AutoModeNodeClass, CapacityReservationTerm, CapacityType,
                           Duration, Fallback, GpuInferencePool, GpuTrainingPool, KarpenterGpuError, Quantity,
                           Requirement, ReservedCapacityPool, SpotTier, StaticCapacityPool, TieredSpotPools)
from karpenter_gpu.addons.feature_gates import required_feature_gates
from karpenter_gpu.apiserver.conformance import check
from karpenter_gpu.cluster import cluster_of, members
from karpenter_gpu.pools.capacity_reservation import ReservationType
from tests.conftest import manifests, only

BASE = {"name": "gpu-auto", "role": "AmazonEKSAutoNodeRole", "subnet_tags": {"kubernetes.io/role/internal-elb": "1"},
        "security_group_tags": {"aws:eks:cluster-name": "ml"}}


@pytest.fixture
def auto(chart):
    return AutoModeNodeClass(chart, "Auto", **BASE)


def reqs(nodepool: dict) -> dict:
    return {r["key"]: (r["operator"], r.get("values")) for r in nodepool["spec"]["template"]["spec"]["requirements"]}


def pools(chart) -> dict[str, dict]:
    return {m["metadata"]["name"]: m for m in manifests(chart) if m["kind"] == "NodePool"}


def test_renders_the_documented_spec(chart, snapshot):
    AutoModeNodeClass(chart, "Auto", **BASE, ephemeral_storage=AutoModeEphemeralStorage.gpu(),
                      pod_subnet_ids=("subnet-0a",), pod_security_group_ids=("sg-0b",), snat_policy="Disabled",
                      network_policy="DefaultDeny", network_policy_event_logs="Enabled", ipv4_prefix_size="32",
                      https_proxy="http://192.0.2.4:3128", no_proxy=("localhost", ".internal"),
                      capacity_reservations=(CapacityReservationTerm.by_tags({"app": "ml"}, owner_id="012345678901"),),
                      tags={"team": "ml"})
    node_class = only(chart, "NodeClass")
    assert node_class["apiVersion"] == "eks.amazonaws.com/v1"
    spec = node_class["spec"]
    assert spec["role"] == "AmazonEKSAutoNodeRole"
    assert spec["ephemeralStorage"] == {"size": "200Gi", "iops": 6000, "throughput": 250}
    assert spec["podSubnetSelectorTerms"] == [{"id": "subnet-0a"}]
    assert spec["advancedNetworking"] == {"ipv4PrefixSize": "32", "httpsProxy": "http://192.0.2.4:3128",
                                          "noProxy": ["localhost", ".internal"]}
    # Auto Mode's capacity reservation term says "owner", not the EC2NodeClass's "ownerID" (auto-odcr.html).
    assert spec["capacityReservationSelectorTerms"] == [{"tags": {"app": "ml"}, "owner": "012345678901"}]
    assert "amiSelectorTerms" not in spec and "userData" not in spec
    assert manifests(chart) == snapshot


def test_minimal_class_renders_only_the_required_fields(chart, auto):
    assert only(chart, "NodeClass")["spec"] == {
        "role": "AmazonEKSAutoNodeRole", "subnetSelectorTerms": [{"tags": {"kubernetes.io/role/internal-elb": "1"}}],
        "securityGroupSelectorTerms": [{"tags": {"aws:eks:cluster-name": "ml"}}]}


def test_ref_is_the_auto_mode_node_class(auto):
    assert auto.ref == {"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "gpu-auto"}


def test_no_public_crd_so_conformance_does_not_claim_schema_validity(chart, auto, crds):
    problems = check(only(chart, "NodeClass"), crds)
    assert problems == ["<root>: eks.amazonaws.com/v1/NodeClass (EKS Auto Mode) has no public CRD: not schema-checked "
                        "here; its fields are checked against the EKS user guide instead (KG443)"]


@pytest.mark.parametrize("change,code", [
    ({"name": "default"}, "KG200"),
    ({"role": "arn:aws:iam::012345678901:role/R"}, "KG200"),
    ({"subnet_tags": {}}, "KG200"),
    ({"subnet_ids": ("subnet-0a",)}, "KG200"),               # ids and tags together
    ({"security_group_ids": ("vpc-1",), "security_group_tags": {}}, "KG200"),
    ({"https_proxy": "192.0.2.4:3128"}, "KG200"),
    ({"no_proxy": tuple(f"d{i}" for i in range(51))}, "KG200"),
    ({"ephemeral_storage": {"size": "60000Gi"}}, "KG201"),
    ({"ephemeral_storage": {"size": "80Gi", "iops": 20000}}, "KG201"),    # gp3 allows it, Auto Mode does not
    ({"ephemeral_storage": {"size": "80Gi", "throughput": 2000}}, "KG201"),
    ({"tags": {"eks.amazonaws.com/nodeclass": "x"}}, "KG202"),
    ({"tags": {"kubernetes.io/cluster/ml": "owned"}}, "KG202"),
    ({"tags": {"aws:team": "x"}}, "KG202"),
    ({"pod_subnet_ids": ("subnet-0a",)}, "KG203"),
    ({"ami": "bottlerocket@v1.44.0"}, "KG204"),
    ({"user_data": "[settings]"}, "KG204"),
    ({"snat_policy": "Sometimes"}, "KG100"),
    ({"capacity_reservations": (CapacityReservationTerm.by_instance_match("open"),)}, "KG190"),
])
def test_fails_when_props_are_bad(chart, change, code):
    with pytest.raises(KarpenterGpuError) as exc:
        AutoModeNodeClass(chart, "Auto", **{**BASE, **change})
    assert exc.value.code == code


# ------------------------------------------------------------------ pools on an Auto Mode node class


def test_inference_pool_renders_auto_mode_keys(chart, auto):
    GpuInferencePool(chart, "Pool", node_class=auto, name="gpu-auto", gpu_limit=8, gpu_names=("l4",),
                     instance_sizes=("xlarge",))
    pool = only(chart, "NodePool")
    tspec = pool["spec"]["template"]["spec"]
    assert tspec["nodeClassRef"] == {"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "gpu-auto"}
    assert reqs(pool) == {"eks.amazonaws.com/instance-gpu-count": ("Gt", ["0"]),
                          "eks.amazonaws.com/instance-gpu-name": ("In", ["l4"]),
                          "eks.amazonaws.com/instance-size": ("In", ["xlarge"]),
                          "kubernetes.io/arch": ("In", ["amd64"]),
                          "karpenter.sh/capacity-type": ("In", ["spot", "on-demand"])}
    assert not [k for k in reqs(pool) if k.startswith("karpenter.k8s.aws/")]
    # No GPU Operator label (Auto Mode runs its own driver and device plugin), expiry capped at 21 days.
    assert "gpu-operator" not in pool["spec"]["template"]["metadata"]["labels"]
    assert tspec["expireAfter"] == "504h"


def test_every_pool_construct_targets_auto_mode_without_feature_gates(chart):
    auto = AutoModeNodeClass(chart, "Auto", **BASE,
                             capacity_reservations=(CapacityReservationTerm.by_id("cr-0123456789abcdef0"),))
    GpuInferencePool(chart, "Inference", node_class=auto, name="inf", gpu_limit=8)
    GpuTrainingPool(chart, "Training", node_class=auto, name="train", gpu_limit=8, expire_after=Duration.days(14))
    StaticCapacityPool(chart, "Static", node_class=auto, name="warm", replicas=1)
    ReservedCapacityPool(chart, "Reserved", node_class=auto, name="res", gpu_limit=8, fallback=Fallback.ON_DEMAND,
                         expire_after=Duration.days(7))
    TieredSpotPools(chart, "Ladder", node_class=auto, name="ladder",
                    tiers=(SpotTier(suffix="l4", gpu_names=("l4",), gpu_limit=4),))
    found = pools(chart)
    assert sorted(found) == ["inf", "ladder-l4", "res", "train", "warm-static"]
    for pool in found.values():
        assert pool["spec"]["template"]["spec"]["nodeClassRef"]["group"] == "eks.amazonaws.com"
        assert "eks.amazonaws.com/instance-gpu-count" in reqs(pool)
    assert found["warm-static"]["spec"]["replicas"] == 1
    assert reqs(found["res"])["karpenter.sh/capacity-type"] == ("In", ["reserved", "on-demand"])
    # Reserved and static pools need controller feature gates on self-managed Karpenter, none on Auto Mode.
    assert required_feature_gates(cluster_of(chart), members(cluster_of(chart))) == ()


def test_fails_when_auto_mode_expiry_exceeds_21_days(chart, auto):
    for expiry in (Duration.never(), Duration.hours(505), Duration.hours(720)):
        with pytest.raises(KarpenterGpuError) as exc:
            GpuTrainingPool(chart, f"T{expiry}", node_class=auto, name="train", gpu_limit=8, expire_after=expiry)
        assert exc.value.code == "KG205" and "21 days" in str(exc.value)
    GpuTrainingPool(chart, "Ok", node_class=auto, name="train", gpu_limit=8, expire_after=Duration.days(21))


def test_fails_when_an_explicit_tier_expiry_exceeds_21_days(chart, auto):
    with pytest.raises(KarpenterGpuError) as exc:
        TieredSpotPools(chart, "Ladder", node_class=auto, name="ladder", expire_after=Duration.hours(720),
                        tiers=(SpotTier(suffix="l4", gpu_names=("l4",), gpu_limit=4),))
    assert exc.value.code == "KG205"


@pytest.mark.parametrize("change", [
    {"requirements": (Requirement.in_("karpenter.k8s.aws/instance-family", ["g6"]),)},
    {"labels": {"karpenter.k8s.aws/instance-family": "g6"}},
])
def test_fails_when_karpenter_keys_are_used_on_auto_mode(chart, auto, change):
    with pytest.raises(KarpenterGpuError) as exc:
        GpuInferencePool(chart, "Pool", node_class=auto, name="p", gpu_limit=8, **change)
    assert exc.value.code == "KG206" and "eks.amazonaws.com/instance-family" in exc.value.fix


def test_auto_mode_keys_are_fine_on_auto_mode(chart, auto):
    GpuInferencePool(chart, "Pool", node_class=auto, name="p", gpu_limit=8,
                     requirements=(Requirement.in_("eks.amazonaws.com/instance-family", ["g6", "g6e"]),))
    assert reqs(only(chart, "NodePool"))["eks.amazonaws.com/instance-family"] == ("In", ["g6", "g6e"])


def test_fails_when_auto_mode_keys_are_used_on_an_ec2_node_class(chart):
    from karpenter_gpu import GpuNodeClass

    gpu = GpuNodeClass(chart, "Class", name="gpu", ami="al2023@v20251103", role="R", cluster_name="c")
    with pytest.raises(KarpenterGpuError) as exc:
        GpuInferencePool(chart, "Pool", node_class=gpu, name="p", gpu_limit=8,
                         requirements=(Requirement.in_("eks.amazonaws.com/instance-gpu-name", ["l4"]),))
    assert exc.value.code == "KG206" and "karpenter.k8s.aws/instance-gpu-name" in exc.value.fix


@pytest.mark.parametrize("change", [{"gpu_operator": True}, {"labels": {"gpu-operator": "enabled"}}])
def test_fails_when_the_gpu_operator_is_placed_on_auto_mode(chart, auto, change):
    with pytest.raises(KarpenterGpuError) as exc:
        GpuInferencePool(chart, "Pool", node_class=auto, name="p", gpu_limit=8, **change)
    assert exc.value.code == "KG207"


def test_fails_when_an_auto_mode_reserved_pool_names_a_reservation_type(chart):
    auto = AutoModeNodeClass(chart, "Auto", **BASE,
                             capacity_reservations=(CapacityReservationTerm.by_id("cr-0123456789abcdef0"),))
    with pytest.raises(KarpenterGpuError) as exc:
        ReservedCapacityPool(chart, "Reserved", node_class=auto, name="res", gpu_limit=8, fallback=Fallback.NONE,
                             expire_after=Duration.days(7), reservation_type=ReservationType.CAPACITY_BLOCK)
    assert exc.value.code == "KG208"


def test_fails_when_an_auto_mode_reserved_pool_has_no_reservations(chart, auto):
    with pytest.raises(KarpenterGpuError) as exc:
        ReservedCapacityPool(chart, "Reserved", node_class=auto, name="res", gpu_limit=8, fallback=Fallback.NONE,
                             expire_after=Duration.days(7))
    assert exc.value.code == "KG191" and "AutoModeNodeClass" in exc.value.fix


def test_fails_when_node_class_is_not_a_node_class(chart):
    with pytest.raises(KarpenterGpuError) as exc:
        GpuInferencePool(chart, "Pool", node_class="gpu-auto", name="p", gpu_limit=8)  # type: ignore[arg-type]
    assert exc.value.code == "KG100" and "AutoModeNodeClass" in exc.value.allowed


def test_capacity_types_and_quantities_are_unchanged_on_auto_mode(chart, auto):
    GpuInferencePool(chart, "Pool", node_class=auto, name="p", gpu_limit=8, capacity_types=(CapacityType.ON_DEMAND,),
                     memory_limit=Quantity.gi(512))
    pool = only(chart, "NodePool")
    assert pool["spec"]["limits"] == {"nvidia.com/gpu": "8", "memory": "512Gi"}
    assert reqs(pool)["karpenter.sh/capacity-type"] == ("In", ["on-demand"])
