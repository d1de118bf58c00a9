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
