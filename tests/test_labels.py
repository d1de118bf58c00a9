"""Label keys and API kinds (karpenter_gpu.k8s.labels) against apis/v1/labels.go in both repositories."""

from __future__ import annotations

from karpenter_gpu.k8s.labels import (
    AWS_ALLOWED_KEYS, OVERLAY_AWS_KEYS, WELL_KNOWN_LABELS, Label, NODEPOOL_KIND, is_kind, kind_of,
)


def test_well_known_labels_are_core_plus_aws():
    # core WellKnownLabels (8) + the 29 keys the AWS provider inserts in init(), windows-build among both
    assert len(WELL_KNOWN_LABELS) == 8 + 29 - 1
    assert {Label.NODEPOOL, Label.ZONE, Label.REGION, Label.INSTANCE_TYPE, Label.ARCH, Label.OS,
            Label.CAPACITY_TYPE, Label.WINDOWS_BUILD, Label.ZONE_ID, Label.GPU_NAME} <= WELL_KNOWN_LABELS
    assert "karpenter.k8s.aws/instance-pods" not in WELL_KNOWN_LABELS


def test_allow_lists():
    assert len(AWS_ALLOWED_KEYS) == 28 and "karpenter.k8s.aws/ec2nodeclass" in AWS_ALLOWED_KEYS
    assert not any(k.split("/")[1].startswith("capacity-reservation-") for k in OVERLAY_AWS_KEYS)


def test_kinds():
    assert is_kind({"apiVersion": "karpenter.sh/v1", "kind": "NodePool"}, NODEPOOL_KIND)
    assert kind_of(["not", "a", "dict"]) == (None, None)


def test_auto_mode_spelling_round_trips_for_the_documented_keys():
    from karpenter_gpu.k8s.labels import (AUTO_MODE_ALIASES, AUTO_MODE_WELL_KNOWN_LABELS, auto_mode_key,
                                          canonical_key, with_auto_mode_aliases)

    # The 16 instance keys of the EKS guide's "EKS Auto Mode Supported" table (create-node-pool.html).
    assert len(AUTO_MODE_ALIASES) == 16
    assert auto_mode_key("karpenter.k8s.aws/instance-gpu-name") == "eks.amazonaws.com/instance-gpu-name"
    assert canonical_key("eks.amazonaws.com/instance-family") == "karpenter.k8s.aws/instance-family"
    # No documented Auto Mode spelling: unchanged (and not well-known on Auto Mode).
    assert auto_mode_key("karpenter.k8s.aws/instance-accelerator-name") == "karpenter.k8s.aws/instance-accelerator-name"
    assert auto_mode_key("topology.kubernetes.io/zone") == "topology.kubernetes.io/zone"
    assert all(canonical_key(auto_mode_key(k)) == k for k in AUTO_MODE_ALIASES)
    assert with_auto_mode_aliases({"karpenter.k8s.aws/instance-gpu-count": "1"}) == {
        "karpenter.k8s.aws/instance-gpu-count": "1", "eks.amazonaws.com/instance-gpu-count": "1"}
    assert {"eks.amazonaws.com/compute-type", "topology.kubernetes.io/zone", "karpenter.sh/capacity-type",
            "node.kubernetes.io/instance-type"} <= AUTO_MODE_WELL_KNOWN_LABELS
    assert not [k for k in AUTO_MODE_WELL_KNOWN_LABELS if k.startswith("karpenter.k8s.aws/")]
    assert "kubernetes.io/os" not in AUTO_MODE_WELL_KNOWN_LABELS  # listed as not supported (Linux only)
