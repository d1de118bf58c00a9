"""Tests for the structural-schema checker, run against the real Karpenter v1.14.1 CRDs."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from .crd_schema import Crds, _regex, apply_defaults, check

Manifest = dict[str, Any]
Mutation = Callable[[Manifest], Any]

# The `crds` fixture (the real v1.14.1 CRDs) comes from tests/conftest.py.


def nodepool(mutate: Mutation | None = None) -> Manifest:
    m: Manifest = {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": "gpu"},
        "spec": {
            "template": {
                "spec": {
                    "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "x"},
                    "requirements": [],
                }
            }
        },
    }
    if mutate:
        mutate(m)
    return m


def ec2nodeclass(mutate: Mutation | None = None) -> Manifest:
    discovery = [{"tags": {"karpenter.sh/discovery": "my-cluster"}}]
    m: Manifest = {
        "apiVersion": "karpenter.k8s.aws/v1",
        "kind": "EC2NodeClass",
        "metadata": {"name": "gpu"},
        "spec": {
            "amiSelectorTerms": [{"alias": "al2023@v20240807"}],
            "role": "KarpenterNodeRole-my-cluster",
            "subnetSelectorTerms": copy.deepcopy(discovery),
            "securityGroupSelectorTerms": copy.deepcopy(discovery),
        },
    }
    if mutate:
        mutate(m)
    return m


def spec(m: Manifest) -> dict[str, Any]:
    return m["spec"]


def tspec(m: Manifest) -> dict[str, Any]:
    return m["spec"]["template"]["spec"]


def _walk(node: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield key, value
            yield from _walk(value)
    elif isinstance(node, list):
        for item in node:
            yield from _walk(item)


# --- loading -------------------------------------------------------------------------------


def test_load_crds_indexes_served_versions_with_scope(crds: Crds) -> None:
    assert crds[("karpenter.sh/v1", "NodePool")]["scope"] == "Cluster"
    assert crds[("karpenter.sh/v1", "NodeClaim")]["scope"] == "Cluster"
    assert crds[("karpenter.sh/v1alpha1", "NodeOverlay")]["scope"] == "Cluster"
    assert crds[("karpenter.k8s.aws/v1", "EC2NodeClass")]["scope"] == "Cluster"
    assert crds[("monitoring.coreos.com/v1", "ServiceMonitor")]["scope"] == "Namespaced"
    assert crds[("karpenter.sh/v1", "NodePool")]["schema"]["type"] == "object"


def test_every_pattern_in_every_crd_compiles(crds: Crds) -> None:
    patterns = {v for crd in crds.values() for k, v in _walk(crd["schema"]) if k == "pattern" and isinstance(v, str)}
    assert len(patterns) > 10
    for pattern in patterns:
        _regex(pattern)  # raises re.error if an RE2 pattern were not Python-compatible


def test_regex_follows_re2_anchoring() -> None:
    assert _regex(r"^[0-9]+h$").search("720h")
    assert not _regex(r"^[0-9]+h$").search("720h\n")  # Python's bare `$` would accept this
    assert _regex(r"ami-[0-9a-z]+").search("my-ami-0abc")  # not implicitly anchored
    assert not _regex(r"^\d$").search("\u0663")  # RE2's \d is ASCII-only


# --- valid manifests -----------------------------------------------------------------------


def test_minimal_nodepool_is_valid(crds: Crds) -> None:
    assert check(nodepool(), crds) == []


def test_minimal_ec2nodeclass_is_valid(crds: Crds) -> None:
    assert check(ec2nodeclass(), crds) == []


VALID = {
    "limits-int-or-string": nodepool(
        lambda m: spec(m).update(limits={"nvidia.com/gpu": 4, "cpu": "1000", "memory": "1000Gi"})
    ),
    "weight-1": nodepool(lambda m: spec(m).update(weight=1)),
    "weight-100": nodepool(lambda m: spec(m).update(weight=100)),
    "expireAfter-Never": nodepool(lambda m: tspec(m).update(expireAfter="Never")),
    "budgets": nodepool(
        lambda m: spec(m).update(
            disruption={
                "consolidateAfter": "1m",
                "budgets": [{"nodes": "100%"}, {"nodes": "5", "reasons": ["Empty", "Drifted"]}],
            }
        )
    ),
    "taint": nodepool(
        lambda m: tspec(m).update(
            taints=[{"key": "nvidia.com/gpu", "effect": "NoSchedule", "timeAdded": "2024-08-07T12:00:00Z"}]
        )
    ),
    "requirement": nodepool(
        lambda m: tspec(m)["requirements"].append(
            {"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g5", "p4d"], "minValues": 2}
        )
    ),
    "template-metadata": nodepool(
        lambda m: m["spec"]["template"].update(
            metadata={"labels": {"gpu": "true"}, "annotations": {"a/b": "anything: goes"}}
        )
    ),
    "metadata-labels": nodepool(lambda m: m["metadata"].update(labels={"app.kubernetes.io/name": "gpu"})),
    "volumeSize-200Gi": ec2nodeclass(
        lambda m: spec(m).update(
            blockDeviceMappings=[
                {"deviceName": "/dev/xvda", "ebs": {"volumeSize": "200Gi", "volumeType": "gp3", "encrypted": True}}
            ]
        )
    ),
    "hopLimit-64": ec2nodeclass(lambda m: spec(m).update(metadataOptions={"httpPutResponseHopLimit": 64})),
    "subnet-id": ec2nodeclass(lambda m: spec(m)["subnetSelectorTerms"].append({"id": "subnet-0abc123"})),
}


@pytest.mark.parametrize("manifest", VALID.values(), ids=VALID.keys())
def test_valid_variants_pass(manifest: Manifest, crds: Crds) -> None:
    assert check(manifest, crds) == []


# --- invalid manifests: each problem names the offending field -----------------------------

# id -> (manifest, expected start of one of the reported problems)
INVALID: dict[str, tuple[Manifest, str]] = {
    "operator-Foo": (
        nodepool(lambda m: tspec(m)["requirements"].append({"key": "a", "operator": "Foo"})),
        "spec.template.spec.requirements[0].operator: 'Foo' not in enum [",
    ),
    "weight-500": (nodepool(lambda m: spec(m).update(weight=500)), "spec.weight: 500 is above the maximum 100"),
    "weight-0": (nodepool(lambda m: spec(m).update(weight=0)), "spec.weight: 0 is below the minimum 1"),
    "weight-bool": (nodepool(lambda m: spec(m).update(weight=True)), "spec.weight: expected integer, got boolean"),
    "expireAfter-PT30M": (
        nodepool(lambda m: tspec(m).update(expireAfter="PT30M")),
        "spec.template.spec.expireAfter: 'PT30M' does not match pattern",
    ),
    "budget-nodes-150%": (
        nodepool(lambda m: spec(m).update(disruption={"consolidateAfter": "0s", "budgets": [{"nodes": "150%"}]})),
        "spec.disruption.budgets[0].nodes: '150%' does not match pattern",
    ),
    "budget-reasons-set": (
        nodepool(
            lambda m: spec(m).update(
                disruption={"consolidateAfter": "0s", "budgets": [{"nodes": "1", "reasons": ["Empty", "Empty"]}]}
            )
        ),
        "spec.disruption.budgets[0].reasons[1]: duplicate entry in x-kubernetes-list-type=set list",
    ),
    "disruption-required": (
        nodepool(lambda m: spec(m).update(disruption={"consolidationPolicy": "WhenEmpty"})),
        "spec.disruption.consolidateAfter: required field missing",
    ),
    "kubelet-dropped-in-v1": (
        nodepool(lambda m: tspec(m).update(kubelet={"maxPods": 110})),
        "spec.template.spec.kubelet: unknown field (the API server would silently prune it)",
    ),
    "namespace-on-cluster-scoped": (
        nodepool(lambda m: m["metadata"].update(namespace="karpenter")),
        "metadata.namespace: 'karpenter' set on a cluster-scoped kind",
    ),
    "missing-nodeClassRef": (
        nodepool(lambda m: tspec(m).pop("nodeClassRef")),
        "spec.template.spec.nodeClassRef: required field missing",
    ),
    "limits-True": (
        nodepool(lambda m: spec(m).update(limits={"nvidia.com/gpu": True})),
        "spec.limits['nvidia.com/gpu']: expected integer or string, got boolean",
    ),
    "limits-bad-quantity": (
        nodepool(lambda m: spec(m).update(limits={"nvidia.com/gpu": "4 GPUs"})),
        "spec.limits['nvidia.com/gpu']: '4 GPUs' does not match pattern",
    ),
    "taint-effect-Sometimes": (
        nodepool(lambda m: tspec(m).update(taints=[{"key": "nvidia.com/gpu", "effect": "Sometimes"}])),
        "spec.template.spec.taints[0].effect: 'Sometimes' not in enum [",
    ),
    "taint-timeAdded": (
        nodepool(lambda m: tspec(m).update(taints=[{"key": "k", "effect": "NoSchedule", "timeAdded": "yesterday"}])),
        "spec.template.spec.taints[0].timeAdded: 'yesterday' is not an RFC 3339 date-time",
    ),
    "template-label-value": (
        nodepool(lambda m: m["spec"]["template"].update(metadata={"labels": {"gpu": "yes please"}})),
        "spec.template.metadata.labels.gpu: 'yes please' does not match pattern",
    ),
    "null-field": (
        nodepool(lambda m: tspec(m).update(requirements=None)),
        "spec.template.spec.requirements: null is not allowed",
    ),
    "name-not-dns": (
        nodepool(lambda m: m["metadata"].update(name="GPU_pool")),
        "metadata.name: 'GPU_pool' is not a DNS-1123 subdomain",
    ),
    "name-too-long": (nodepool(lambda m: m["metadata"].update(name="a" * 254)), "metadata.name: 'aaaa"),
    "name-missing": (nodepool(lambda m: m["metadata"].pop("name")), "metadata.name: required field missing"),
    "metadata-label-value": (
        nodepool(lambda m: m["metadata"].update(labels={"team": "a b"})),
        "metadata.labels.team: 'a b' is not a valid label value",
    ),
    "volumeSize-200GB": (
        ec2nodeclass(lambda m: spec(m).update(blockDeviceMappings=[{"ebs": {"volumeSize": "200GB"}}])),
        "spec.blockDeviceMappings[0].ebs.volumeSize: '200GB' does not match pattern",
    ),
    "hopLimit-100": (
        ec2nodeclass(lambda m: spec(m).update(metadataOptions={"httpPutResponseHopLimit": 100})),
        "spec.metadataOptions.httpPutResponseHopLimit: 100 is above the maximum 64",
    ),
    "amiSelectorTerms-empty": (
        ec2nodeclass(lambda m: spec(m).update(amiSelectorTerms=[])),
        "spec.amiSelectorTerms: item count 0 is below minItems 1",
    ),
    "alias-too-long": (
        ec2nodeclass(lambda m: spec(m).update(amiSelectorTerms=[{"alias": "al2023@" + "v" * 30}])),
        "spec.amiSelectorTerms[0].alias: length 37 is above maxLength 30",
    ),
    "tags-21": (
        ec2nodeclass(lambda m: spec(m)["subnetSelectorTerms"][0].update(tags={f"k{i}": "v" for i in range(21)})),
        "spec.subnetSelectorTerms[0].tags: property count 21 is above maxProperties 20",
    ),
    "role-int": (ec2nodeclass(lambda m: spec(m).update(role=42)), "spec.role: expected string, got integer"),
    "boolean-as-string": (
        ec2nodeclass(lambda m: spec(m).update(associatePublicIPAddress="false")),
        "spec.associatePublicIPAddress: expected boolean, got string",
    ),
}


@pytest.mark.parametrize(("manifest", "expected"), INVALID.values(), ids=INVALID.keys())
def test_invalid_variants_fail_naming_the_field(manifest: Manifest, expected: str, crds: Crds) -> None:
    problems = check(manifest, crds)
    assert any(p.startswith(expected) for p in problems), problems


def test_unknown_kind_is_a_problem(crds: Crds) -> None:
    manifest = nodepool(lambda m: m.update(apiVersion="karpenter.sh/v1beta1"))
    assert check(manifest, crds) == ["<root>: unknown apiVersion/kind 'karpenter.sh/v1beta1'/'NodePool'"]


def test_check_reports_every_problem_and_does_not_mutate(crds: Crds) -> None:
    manifest = nodepool(lambda m: spec(m).update(weight=500, limits={"cpu": False}))
    before = copy.deepcopy(manifest)
    assert len(check(manifest, crds)) == 2
    assert manifest == before


# --- defaulting ----------------------------------------------------------------------------


def test_apply_defaults_fills_nodepool_disruption_and_expire_after(crds: Crds) -> None:
    original = nodepool()
    defaulted = apply_defaults(original, crds)
    # The CRD's literal default for spec.disruption is {consolidateAfter: 0s} ...
    schema = crds[("karpenter.sh/v1", "NodePool")]["schema"]
    assert schema["properties"]["spec"]["properties"]["disruption"]["default"] == {"consolidateAfter": "0s"}
    # ... and, as on the API server, defaulting then recurses into it, adding the nested defaults.
    assert defaulted["spec"]["disruption"] == {
        "consolidateAfter": "0s",
        "consolidationPolicy": "WhenEmptyOrUnderutilized",
        "budgets": [{"nodes": "10%"}],
    }
    assert tspec(defaulted)["expireAfter"] == "720h"
    assert "disruption" not in original["spec"]  # a deep copy is returned
    assert "status" not in defaulted  # absent objects without a default stay absent


def test_apply_defaults_keeps_explicit_values_and_fills_siblings(crds: Crds) -> None:
    manifest = nodepool(
        lambda m: spec(m).update(disruption={"consolidateAfter": "5m", "budgets": [{"reasons": ["Drifted"]}]})
    )
    assert apply_defaults(manifest, crds)["spec"]["disruption"] == {
        "consolidateAfter": "5m",
        "consolidationPolicy": "WhenEmptyOrUnderutilized",
        "budgets": [{"reasons": ["Drifted"], "nodes": "10%"}],
    }


def test_apply_defaults_fills_ec2nodeclass_metadata_options(crds: Crds) -> None:
    assert apply_defaults(ec2nodeclass(), crds)["spec"]["metadataOptions"] == {
        "httpEndpoint": "enabled",
        "httpProtocolIPv6": "disabled",
        "httpPutResponseHopLimit": 1,
        "httpTokens": "required",
    }
    partial = ec2nodeclass(lambda m: spec(m).update(metadataOptions={"httpTokens": "optional"}))
    options = apply_defaults(partial, crds)["spec"]["metadataOptions"]
    assert options["httpTokens"] == "optional"
    assert options["httpPutResponseHopLimit"] == 1


def test_apply_defaults_replaces_null_in_non_nullable_field(crds: Crds) -> None:
    defaulted = apply_defaults(nodepool(lambda m: tspec(m).update(expireAfter=None)), crds)
    assert tspec(defaulted)["expireAfter"] == "720h"


def test_apply_defaults_rejects_unknown_kind(crds: Crds) -> None:
    with pytest.raises(KeyError):
        apply_defaults({"apiVersion": "v1", "kind": "ConfigMap"}, crds)
