"""GpuNodeClass → EC2NodeClass."""

from __future__ import annotations

import pytest

from karpenter_gpu import AmiAlias, GpuNodeClass, KarpenterGpuError, Quantity, RootVolume
from karpenter_gpu.apiserver.conformance import check
from tests.conftest import manifests, only

BASE = dict(name="gpu-inference", ami="al2023@v20251103", role="KarpenterNodeRole-c", cluster_name="c")


def test_inference_preset_snapshot(chart, snapshot):
    GpuNodeClass.inference(chart, "Class", **BASE)
    assert manifests(chart) == snapshot


def test_training_preset_bottlerocket_snapshot(chart, snapshot):
    GpuNodeClass.training(chart, "Class", **{**BASE, "ami": AmiAlias.bottlerocket("v1.50.0"), "name": "gpu-training"})
    assert manifests(chart) == snapshot


def test_presets_carry_seed_volume_sizes(chart):
    GpuNodeClass.inference(chart, "Inf", **BASE)
    GpuNodeClass.training(chart, "Train", **{**BASE, "name": "gpu-training"})
    ebs = {m["metadata"]["name"]: m["spec"]["blockDeviceMappings"][0]["ebs"] for m in manifests(chart)}
    assert (ebs["gpu-inference"]["volumeSize"], ebs["gpu-inference"]["iops"], ebs["gpu-inference"]["throughput"]) == ("200Gi", 6000, 250)
    assert (ebs["gpu-training"]["volumeSize"], ebs["gpu-training"]["iops"], ebs["gpu-training"]["throughput"]) == ("500Gi", 16000, 1000)
    assert all(e["encrypted"] and e["volumeType"] == "gp3" for e in ebs.values())


def test_imdsv2_required_and_alias_pinned(chart, crds):
    GpuNodeClass(chart, "Class", **BASE)
    m = only(chart, "EC2NodeClass")
    assert m["spec"]["metadataOptions"]["httpTokens"] == "required"
    assert m["spec"]["amiSelectorTerms"] == [{"alias": "al2023@v20251103"}]
    assert check(m, crds) == []


def test_discovery_tags_or_explicit_ids(chart):
    GpuNodeClass(chart, "Tags", **BASE)
    GpuNodeClass(chart, "Ids", **{**BASE, "name": "by-id", "cluster_name": None,
                                  "subnet_ids": ("subnet-0abc",), "security_group_ids": ("sg-0def",)})
    by = {m["metadata"]["name"]: m["spec"] for m in manifests(chart)}
    assert by["gpu-inference"]["subnetSelectorTerms"] == [{"tags": {"karpenter.sh/discovery": "c"}}]
    assert by["by-id"]["subnetSelectorTerms"] == [{"id": "subnet-0abc"}]
    assert by["by-id"]["securityGroupSelectorTerms"] == [{"id": "sg-0def"}]


def test_instance_profile_instead_of_role(chart):
    GpuNodeClass(chart, "Class", **{**BASE, "role": None, "instance_profile": "GpuNodes"})
    spec = only(chart, "EC2NodeClass")["spec"]
    assert spec["instanceProfile"] == "GpuNodes" and "role" not in spec


def test_latest_alias_only_with_opt_in(chart):
    GpuNodeClass(chart, "Class", **{**BASE, "ami": "al2023@latest", "allow_latest_ami": True})
    assert only(chart, "EC2NodeClass")["spec"]["amiSelectorTerms"] == [{"alias": "al2023@latest"}]


def test_node_class_ref_derived_from_object(chart):
    nc = GpuNodeClass(chart, "Class", **BASE)
    assert nc.ref == {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu-inference"}


@pytest.mark.parametrize("change, code", [
    ({"ami": "al2023@latest"}, "KG140"),
    ({"ami": "bottlerocket@latest"}, "KG140"),
    ({"ami": "al2023@2025"}, "KG141"),
    ({"ami": "al2@v20240807"}, "KG141"),
    ({"ami": "windows2022@latest"}, "KG141"),
    ({"role": None}, "KG142"),
    ({"instance_profile": "p"}, "KG142"),
    ({"cluster_name": None}, "KG143"),
    ({"subnet_ids": ("subnet_bad",)}, "KG143"),
    ({"name": "GPU_Class"}, "KG120"),
    ({"imds_hop_limit": 0}, "KG100"),
    ({"tags": {"kubernetes.io/cluster/c": "owned"}}, "KG100"),
    ({"root_volume": {"size": "200Gi", "iops": 100}}, "KG144"),
    ({"colour": "blue"}, "KG100"),
])
def test_fails_when_props_are_bad(chart, change, code):
    with pytest.raises(KarpenterGpuError) as exc:
        GpuNodeClass(chart, "Class", **{**BASE, **change})
    assert exc.value.code == code
    assert "test/Class" in str(exc.value)
    assert chart.node.try_find_child("Class") is None  # nothing half-built in the tree


def test_fails_when_volume_size_is_not_an_ebs_size():
    with pytest.raises(KarpenterGpuError) as exc:
        RootVolume(size=Quantity("200G0"))
    assert exc.value.code in ("KG102", "KG144")
    with pytest.raises(KarpenterGpuError) as exc:
        RootVolume(size=Quantity("60000Gi"))
    assert exc.value.code == "KG144" and "60000Gi" in str(exc.value)


@pytest.mark.parametrize("change, code", [
    ({"cluster_name": "*"}, "KG143"),
    ({"cluster_name": "ml prod"}, "KG143"),
    ({"tags": {"aws:team": "ml"}}, "KG100"),
    ({"tags": {"AWS:team": "ml"}}, "KG100"),
    ({"tags": {"k" * 129: "ml"}}, "KG100"),
    ({"tags": {"team": "v" * 257}}, "KG100"),
], ids=["wildcard-cluster", "space-in-cluster", "aws-prefix", "aws-prefix-upper", "long-key", "long-value"])
def test_fails_on_discovery_and_tags_ec2_would_not_take(chart, change, code):
    """cluster_name='*' became a wildcard karpenter.sh/discovery selector; reserved or long tag keys fail launches."""
    with pytest.raises(KarpenterGpuError) as exc:
        GpuNodeClass(chart, "Class", **{**BASE, **change})
    assert exc.value.code == code


def test_longest_tag_key_accepted(chart):
    GpuNodeClass(chart, "Class", **{**BASE, "tags": {"k" * 128: "v" * 256}})
