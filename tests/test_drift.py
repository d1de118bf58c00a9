"""Drift rules (karpenter_gpu.k8s.drift) against NodePool.Hash, EC2NodeClass.Hash, areRequirementsDrifted and
StaticDrift."""

from __future__ import annotations

import pytest

from karpenter_gpu.analysis.catalog import INSTANCE_LABEL_KEYS, default_catalog
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.drift import (
    hashed, node_class_hash_fields, requirement_drift, same_drift_hash, same_hash, same_map, static_drift_blocked,
)
from karpenter_gpu.k8s.offerings import pool_offerings
from karpenter_gpu.k8s.views import NodeClassView, NodePoolView

AWS = "karpenter.k8s.aws/instance-"


def pool(*reqs: dict, labels: dict | None = None, **spec) -> NodePoolView:
    body: dict = {"template": {"spec": {"requirements": list(reqs)}}, **spec}
    if labels:
        body["template"]["metadata"] = {"labels": labels}
    return NodePoolView.of({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "p"},
                            "spec": body})


def test_map_entries_with_empty_values_are_hashed():
    # hashstructure v2 hashes every map entry; IgnoreZeroValue only skips zero struct fields
    assert not same_map({"team": ""}, {})
    assert same_map({}, None)
    assert same_hash({"value": ""}, {})  # a struct field left empty is unset


def test_node_class_hash_uses_the_resolved_ami_family():
    # aws ec2nodeclass.go EC2NodeClass.Hash hashes AMIFamily(), and amiFamily itself is hash:"ignore"
    alias = {"amiSelectorTerms": [{"alias": "al2023@v20251103"}], "role": "r"}
    spelled = {**alias, "amiFamily": "AL2023"}
    a = NodeClassView.of({"spec": alias})
    b = NodeClassView.of({"spec": spelled})
    assert a.ami_family == b.ami_family == "AL2023"
    assert node_class_hash_fields(a) == node_class_hash_fields(b)
    custom = NodeClassView.of({"spec": {**alias, "amiFamily": "Custom"}})
    assert node_class_hash_fields(custom) != node_class_hash_fields(a)


def _outcomes(old: NodePoolView, new: NodePoolView, *types: str):
    catalog = default_catalog().by_name
    offerings = pool_offerings(old, ())
    return requirement_drift(old, new, ((t, catalog[t].labels, offerings) for t in types), INSTANCE_LABEL_KEYS)


def test_requirement_every_node_already_meets_drifts_nothing():
    # drift.go areRequirementsDrifted: NewLabelRequirements(nodeClaim.Labels).Compatible(nodePool requirements)
    old = pool({"key": AWS + "family", "operator": "In", "values": ["g5"]})
    new = pool({"key": AWS + "family", "operator": "In", "values": ["g5"]},
               {"key": AWS + "gpu-manufacturer", "operator": "In", "values": ["nvidia"]})
    assert all(o.reason is None for o in _outcomes(old, new, "g5.xlarge", "g5.2xlarge"))


def test_requirement_drift_is_per_node():
    old = pool({"key": AWS + "family", "operator": "In", "values": ["g5", "g6"]})
    new = pool({"key": AWS + "family", "operator": "In", "values": ["g6"]})
    drifted = {o.instance_type for o in _outcomes(old, new, "g5.xlarge", "g6.xlarge") if o.reason}
    assert drifted == {"g5.xlarge"}


def test_requirement_on_a_custom_key_drifts_nodes_without_that_label():
    old = pool({"key": AWS + "family", "operator": "In", "values": ["g5"]})
    new = pool({"key": AWS + "family", "operator": "In", "values": ["g5"]},
               {"key": "example.com/team", "operator": "In", "values": ["ml"]})
    outcome = _outcomes(old, new, "g5.xlarge")[0]
    assert outcome.reason is not None and "example.com/team" in outcome.reason


def test_capacity_type_requirement_drifts_only_other_offerings():
    old = pool({"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot", "on-demand"]})
    new = pool({"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]})
    by_offering = {o.offering: o.reason is not None for o in _outcomes(old, new, "g5.xlarge")}
    assert by_offering == {"spot/other zones": True, "on-demand/other zones": False}


def test_static_pool_without_room_never_replaces_drifted_nodes():
    # staticdrift.go StaticDrift.ComputeCommands: ReserveNodeCount(limits.nodes) before replacing
    assert static_drift_blocked(pool(replicas=2, limits={"nodes": "2"})) is not None
    assert static_drift_blocked(pool(replicas=2, limits={"nodes": "3"})) is None
    assert static_drift_blocked(pool(replicas=2)) is None  # no limit: MaxInt64
    assert static_drift_blocked(pool(limits={"nodes": "0"})) is None  # dynamic pool


# --------------------------------------------------------------------------------------------- typed hash views
# Each case below was checked against NodePool.Hash / EC2NodeClass.Hash by tests/oracle (Karpenter v1.14.1).

def _pool(**tspec) -> dict:
    return {"kind": "NodePool", "spec": {"template": {"spec": {
        "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "c"}, **tspec}}}}


def _class(**spec) -> dict:
    return {"kind": "EC2NodeClass", "spec": {"role": "r", "amiSelectorTerms": [{"alias": "al2023@latest"}], **spec}}


def test_node_pool_hash_sees_parsed_durations_and_the_crd_default():
    """NillableDuration.UnmarshalJSON parses with time.ParseDuration; the CRD defaults expireAfter to 720h."""
    assert same_drift_hash(_pool(expireAfter="720h"), _pool(expireAfter="43200m"))
    assert same_drift_hash(_pool(), _pool(expireAfter="720h"))
    assert same_drift_hash(_pool(terminationGracePeriod="1h30m"), _pool(terminationGracePeriod="30m1h"))
    assert not same_drift_hash(_pool(expireAfter="Never"), _pool())  # Never is unset, the default is 720h
    assert not same_drift_hash(_pool(terminationGracePeriod="0s"), _pool())  # a set *metav1.Duration counts


def test_node_pool_hash_treats_lists_as_xor_sets_and_empty_collections_as_set():
    """hashstructure SlicesAsSets XORs element hashes; IgnoreZeroValue skips only nil slices and maps."""
    taint = {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}
    other = {"key": "a", "effect": "NoExecute"}
    assert same_drift_hash(_pool(taints=[taint, other]), _pool(taints=[other, taint]))
    assert same_drift_hash(_pool(taints=[taint, taint]), _pool(taints=[]))
    assert not same_drift_hash(_pool(taints=[]), _pool())
    assert same_drift_hash(_pool(taints=[{**taint, "value": ""}]), _pool(taints=[{"key": taint["key"],
                                                                                 "effect": "NoSchedule"}]))
    with_labels = _pool()
    with_labels["spec"]["template"]["metadata"] = {"labels": {}}
    assert not same_drift_hash(with_labels, _pool())
    assert same_drift_hash(_pool(requirements=[{"key": "a", "operator": "Exists"}]), _pool())  # hash:"ignore"


def test_node_class_hash_sees_canonical_volume_sizes_and_set_pointers():
    """BlockDevice.VolumeSize is hashed by resource.Quantity.String(); pointer fields count when set to ""/false."""
    def disk(size: str) -> list:
        return [{"deviceName": "/dev/xvda", "ebs": {"volumeSize": size}}]

    assert same_drift_hash(_class(blockDeviceMappings=disk("1024Gi")), _class(blockDeviceMappings=disk("1Ti")))
    assert same_drift_hash(_class(blockDeviceMappings=disk("1000G")), _class(blockDeviceMappings=disk("1T")))
    assert not same_drift_hash(_class(blockDeviceMappings=disk("1024G")), _class(blockDeviceMappings=disk("1Ti")))
    assert not same_drift_hash(_class(userData=""), _class())
    assert not same_drift_hash(_class(detailedMonitoring=False), _class())
    assert same_drift_hash(_class(metadataOptions={}), _class())  # the CRD fills every default in
    assert same_drift_hash(_class(unknownField={"a": 1}), _class())  # pruned
    assert same_drift_hash(_class(kubelet={"evictionSoftGracePeriod": {"memory.available": "90s"}}),
                           _class(kubelet={"evictionSoftGracePeriod": {"memory.available": "1m30s"}}))
    assert not same_drift_hash(_class(kubelet={"systemReserved": {"memory": "1Gi"}}),
                               _class(kubelet={"systemReserved": {"memory": "1024Mi"}}))  # a map of strings


def test_node_class_hash_fields_are_typed():
    a = NodeClassView.of(_class(blockDeviceMappings=[{"ebs": {"volumeSize": "1024Gi"}}]))
    assert node_class_hash_fields(a)["blockDeviceMappings"] == [{"ebs": {"volumeSize": "1Ti"}}]
    assert hashed(_pool(expireAfter="43200m"))["spec"]["expireAfter"] == "720h"


def test_eviction_soft_grace_periods_are_read_as_time_parse_duration_reads_them():
    # evictionSoftGracePeriod is a map[string]metav1.Duration with no CRD pattern: UnmarshalJSON uses
    # time.ParseDuration, which takes "0", fractions and sub-second units (oracle drift family, seed 1).
    def grace(value: str) -> dict:
        return _class(kubelet={"evictionSoftGracePeriod": {"imagefs.inodesFree": value}})

    assert same_drift_hash(grace("0"), grace("0s"))
    assert same_drift_hash(grace("1.5h"), grace("90m"))
    assert same_drift_hash(grace("300ms"), grace("0.3s"))
    assert not same_drift_hash(grace("300ms"), grace("0"))
    assert hashed(grace("1.5h"))["kubelet"]["evictionSoftGracePeriod"] == {
        "imagefs.inodesFree": "5400000000000ns"}
    with pytest.raises(KarpenterGpuError) as err:
        hashed(grace("rk"))
    assert err.value.code == "KG101"
