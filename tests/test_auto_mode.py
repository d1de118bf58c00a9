"""k8s/auto_mode: the EKS guide's NodeClass facts, checked on hand-written specs (validate's KG443)."""

from __future__ import annotations

import pytest

from karpenter_gpu.k8s.auto_mode import check_node_class_spec, check_size, restricted_tag

GOOD = {"role": "R", "subnetSelectorTerms": [{"id": "subnet-0a"}], "securityGroupSelectorTerms": [{"id": "sg-0a"}]}


@pytest.mark.parametrize("size,ok", [("1Gi", True), ("59000Gi", True), ("59001Gi", False), ("64000G", True),
                                     ("58Ti", True), ("59Ti", False), ("64T", True), ("0Gi", False),
                                     ("80Mi", False), ("80", False)])
def test_documented_ephemeral_storage_sizes(size, ok):
    assert check_size(size) is ok


def test_restricted_tags():
    assert restricted_tag("eks.amazonaws.com/nodeclass") and restricted_tag("kubernetes.io/cluster/ml")
    assert not restricted_tag("team")


def test_a_documented_spec_has_no_problem():
    spec = {**GOOD, "snatPolicy": "Random", "networkPolicy": "DefaultDeny", "networkPolicyEventLogs": "Enabled",
            "ephemeralStorage": {"size": "160Gi", "iops": 16000, "throughput": 1000, "kmsKeyID": "alias/x"},
            "advancedNetworking": {"ipv4PrefixSize": "32"}, "tags": {"team": "ml"}}
    assert check_node_class_spec(spec) == []


def test_problems_name_their_field():
    spec = {"amiSelectorTerms": [{"alias": "bottlerocket@latest"}], "kubelet": {}, "snatPolicy": "Off",
            "ephemeralStorage": {"size": "80Gi", "iops": "3000", "throughput": 124}}
    paths = [p for p, _ in check_node_class_spec(spec)]
    assert paths == ["spec.amiSelectorTerms", "spec.kubelet", "spec.role", "spec.subnetSelectorTerms",
                     "spec.securityGroupSelectorTerms", "spec.snatPolicy", "spec.ephemeralStorage.iops",
                     "spec.ephemeralStorage.throughput"]
    assert "Bottlerocket only" in dict(check_node_class_spec(spec))["spec.amiSelectorTerms"]
    assert check_node_class_spec(None) == [("spec", check_node_class_spec(None)[0][1])]


def test_auto_mode_facts_shared_by_constructs_and_rules():
    from karpenter_gpu.k8s.auto_mode import beyond_auto_mode_lifetime, wrong_flavour_key
    from karpenter_gpu.k8s.units import Duration

    assert beyond_auto_mode_lifetime(Duration.parse("Never")) and beyond_auto_mode_lifetime(Duration.parse("505h"))
    assert not beyond_auto_mode_lifetime(Duration.parse("504h"))
    assert wrong_flavour_key("karpenter.k8s.aws/instance-gpu-name", auto_mode=True, requirement=True).replacement \
        == "eks.amazonaws.com/instance-gpu-name"
    assert wrong_flavour_key("eks.amazonaws.com/instance-gpu-name", auto_mode=False, requirement=False).replacement \
        == "karpenter.k8s.aws/instance-gpu-name"
    assert wrong_flavour_key("eks.amazonaws.com/whatever", auto_mode=False, requirement=True).replacement is None
    assert wrong_flavour_key("eks.amazonaws.com/whatever", auto_mode=False, requirement=False) is None
    assert wrong_flavour_key("example.com/team", auto_mode=True, requirement=True) is None
