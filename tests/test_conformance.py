"""karpenter_gpu.apiserver.conformance: the structural-schema checker, its CEL rule evaluation and its findings,
against the real Karpenter v1.14.1 CRDs."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from karpenter_gpu.apiserver._cel import compile_rule
from karpenter_gpu.apiserver._cel_lib import CelFunctionError, find, split, to_int
from karpenter_gpu.apiserver.conformance import Crds, _regex, apply_defaults, check, load_crds, validate_manifest
from karpenter_gpu import perf
from karpenter_gpu.errors import CODES
from karpenter_gpu.apiserver.findings import Finding, Severity

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
    "annotations-over-256KiB": (
        nodepool(lambda m: m["metadata"].update(annotations={"a": "x" * (256 * 1024)})),
        "metadata.annotations: annotations take 262145 bytes, above the API server's limit of 262144",
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
    "null-field": (  # pruned (PruneNonNullableNullsWithoutDefaults), then missing
        nodepool(lambda m: tspec(m).update(requirements=None)),
        "spec.template.spec.requirements: required field missing",
    ),
    "null-list-item": (
        nodepool(lambda m: tspec(m).update(requirements=[None])),
        "spec.template.spec.requirements[0]: null is not allowed",
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
    manifest = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}
    assert check(manifest, crds) == ["<root>: unknown apiVersion/kind 'v1'/'ConfigMap'"]
    assert [f.severity for f in validate_manifest(manifest, crds)] == [Severity.INFO]


def test_unserved_version_of_a_karpenter_group_is_an_error(crds: Crds) -> None:
    # v1beta1 NodePools are gone in v1: the API server rejects them, so this is no "unknown kind".
    manifest = nodepool(lambda m: m.update(apiVersion="karpenter.sh/v1beta1"))
    [finding] = validate_manifest(manifest, crds)
    assert (finding.code, finding.severity) == ("KG300", Severity.ERROR)
    assert "karpenter.sh/v1/NodePool" in finding.message and "v1beta1" in finding.message


def test_check_reports_every_problem_and_does_not_mutate(crds: Crds) -> None:
    manifest = nodepool(lambda m: spec(m).update(weight=500, limits={"cpu": False}))
    before = copy.deepcopy(manifest)
    assert len(check(manifest, crds)) == 3  # the maximum, the type and the anyOf
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


# --- CEL (x-kubernetes-validations) ------------------------------------------------------------


def nodeoverlay(mutate: Mutation | None = None) -> Manifest:
    m: Manifest = {
        "apiVersion": "karpenter.sh/v1alpha1",
        "kind": "NodeOverlay",
        "metadata": {"name": "gpu"},
        "spec": {
            "requirements": [{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g5"]}],
            "priceAdjustment": "-10%",
        },
    }
    if mutate:
        mutate(m)
    return m


def requirement(**req: Any) -> Mutation:
    return lambda m: tspec(m)["requirements"].append(req)


def template_labels(**labels: str) -> Mutation:
    return lambda m: m["spec"]["template"].update(metadata={"labels": labels})


CEL_VALID = {
    "nodepool": nodepool(),
    "ec2nodeclass": ec2nodeclass(),
    "nodeoverlay": nodeoverlay(),
    "static-limits-nodes": nodepool(lambda m: spec(m).update(replicas=2, limits={"nodes": 3})),
    "static-no-limits": nodepool(lambda m: spec(m).update(replicas=2)),
    "dynamic-weight-and-limits": nodepool(lambda m: spec(m).update(weight=10, limits={"cpu": 4, "nodes": 3})),
    "label-capacity-type": nodepool(template_labels(**{"karpenter.sh/capacity-type": "spot"})),
    "label-instance-family": nodepool(template_labels(**{"karpenter.k8s.aws/instance-family": "g5"})),
    "label-no-domain": nodepool(template_labels(gpu="true")),  # find() returns the whole key
    "requirement-no-domain": nodepool(requirement(key="gpu", operator="Exists")),
    "requirement-capacity-type": nodepool(requirement(key="karpenter.sh/capacity-type", operator="In", values=["spot"])),
    "requirement-other-domain": nodepool(requirement(key="nvidia.com/gpu.product", operator="Exists")),
    "requirement-Gt-0": nodepool(requirement(key="karpenter.k8s.aws/instance-gpu-count", operator="Gt", values=["0"])),
    "requirement-minValues-met": nodepool(
        requirement(key="karpenter.k8s.aws/instance-family", operator="In", values=["g5", "g6"], minValues=2)
    ),
    "budget-schedule-and-duration": nodepool(
        lambda m: spec(m).update(
            disruption={"consolidateAfter": "0s", "budgets": [{"nodes": "0", "schedule": "@daily", "duration": "10m"}]}
        )
    ),
    "alias-windows-latest": ec2nodeclass(
        lambda m: spec(m).update(amiSelectorTerms=[{"alias": "windows2022@latest"}], amiFamily="Windows2022")
    ),
    "instanceProfile-only": ec2nodeclass(lambda m: (spec(m).pop("role"), spec(m).update(instanceProfile="p"))),
    "capacity-reservations-some-plain": ec2nodeclass(
        lambda m: spec(m).update(
            capacityReservationSelectorTerms=[{"id": "cr-1"}, {"tags": {"a": "b"}, "ownerID": "123456789012"}]
        )
    ),
    "tags-ordinary": ec2nodeclass(lambda m: spec(m).update(tags={"team": "ml", "kubernetes.io/role": "x"})),
    "overlay-price": nodeoverlay(lambda m: (spec(m).pop("priceAdjustment"), spec(m).update(price="1.5"))),
    "overlay-capacity-gpu": nodeoverlay(lambda m: spec(m).update(capacity={"nvidia.com/gpu": "1"})),
}


@pytest.mark.parametrize("manifest", CEL_VALID.values(), ids=CEL_VALID.keys())
def test_cel_valid_variants_pass(manifest: Manifest, crds: Crds) -> None:
    assert check(manifest, crds) == []


# id -> (manifest, expected start of one problem: "path: <upstream message> (rule: ")
CEL_INVALID: dict[str, tuple[Manifest, str]] = {
    "requirement-key-nodepool": (
        nodepool(requirement(key="karpenter.sh/nodepool", operator="In", values=["a"])),
        'spec.template.spec.requirements[0].key: label "karpenter.sh/nodepool" is restricted (rule: ',
    ),
    "requirement-key-karpenter.sh-domain": (
        nodepool(requirement(key="karpenter.sh/foo", operator="Exists")),
        'spec.template.spec.requirements[0].key: label domain "karpenter.sh" is restricted (rule: ',
    ),
    "requirement-key-subdomain": (
        nodepool(requirement(key="x.karpenter.k8s.aws/foo", operator="Exists")),
        'spec.template.spec.requirements[0].key: label domain "karpenter.k8s.aws" is restricted (rule: ',
    ),
    "requirement-key-hostname": (
        nodepool(requirement(key="kubernetes.io/hostname", operator="Exists")),
        'spec.template.spec.requirements[0].key: label "kubernetes.io/hostname" is restricted (rule: ',
    ),
    "requirement-In-empty": (
        nodepool(requirement(key="a", operator="In", values=[])),
        "spec.template.spec.requirements: requirements with operator 'In' must have a value defined (rule: ",
    ),
    "requirement-Gt-negative": (
        nodepool(requirement(key="a", operator="Gt", values=["-1"])),
        "spec.template.spec.requirements: requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single"
        " positive integer value (rule: ",
    ),
    "requirement-Gt-two-values": (
        nodepool(requirement(key="a", operator="Gt", values=["1", "2"])),
        "spec.template.spec.requirements: requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single"
        " positive integer value (rule: ",
    ),
    "requirement-Lt-not-a-number": (  # int() fails: an evaluation error rejects it on the server too
        nodepool(requirement(key="a", operator="Lt", values=["0x10"])),
        "spec.template.spec.requirements: CEL evaluation error: cannot convert '0x10' to int (rule: ",
    ),
    "requirement-minValues-unmet": (
        nodepool(requirement(key="a", operator="In", values=["x", "y"], minValues=3)),
        "spec.template.spec.requirements: requirements with 'minValues' must have at least that many values"
        " specified in the 'values' field (rule: ",
    ),
    "budget-schedule-without-duration": (
        nodepool(
            lambda m: spec(m).update(
                disruption={"consolidateAfter": "0s", "budgets": [{"nodes": "0", "schedule": "@daily"}]}
            )
        ),
        "spec.disruption.budgets: 'schedule' must be set with 'duration' (rule: ",
    ),
    "static-weight": (
        nodepool(lambda m: spec(m).update(replicas=2, weight=10)),
        "spec: 'weight' is not supported on static NodePools (rule: ",
    ),
    "static-limits-cpu": (
        nodepool(lambda m: spec(m).update(replicas=2, limits={"cpu": 4})),
        "spec: only 'limits.nodes' is supported on static NodePools (rule: ",
    ),
    "static-limits-nodes-and-cpu": (
        nodepool(lambda m: spec(m).update(replicas=2, limits={"nodes": 3, "cpu": 4})),
        "spec: only 'limits.nodes' is supported on static NodePools (rule: ",
    ),
    "label-instance-pods": (
        nodepool(template_labels(**{"karpenter.k8s.aws/instance-pods": "110"})),
        'spec.template.metadata.labels: label domain "karpenter.k8s.aws" is restricted (rule: ',
    ),
    "label-nodepool": (
        nodepool(template_labels(**{"karpenter.sh/nodepool": "x"})),
        'spec.template.metadata.labels: label "karpenter.sh/nodepool" is restricted (rule: ',
    ),
    "nodeClassRef-empty-name": (
        nodepool(lambda m: tspec(m)["nodeClassRef"].update(name="")),
        "spec.template.spec.nodeClassRef.name: name may not be empty (rule: self != '')",
    ),
    "role-and-instanceProfile": (
        ec2nodeclass(lambda m: spec(m).update(instanceProfile="p")),
        "spec: must specify exactly one of ['role', 'instanceProfile'] (rule: ",
    ),
    "neither-role-nor-instanceProfile": (
        ec2nodeclass(lambda m: spec(m).pop("role")),
        "spec: must specify exactly one of ['role', 'instanceProfile'] (rule: ",
    ),
    "alias-no-version": (
        ec2nodeclass(lambda m: spec(m).update(amiSelectorTerms=[{"alias": "al2023@"}])),
        "spec.amiSelectorTerms[0].alias: 'alias' is improperly formatted, must match the format 'family@version'"
        " (rule: ",
    ),
    "alias-unknown-family": (
        ec2nodeclass(lambda m: spec(m).update(amiSelectorTerms=[{"alias": "foo@v1"}])),
        "spec.amiSelectorTerms[0].alias: family is not supported, must be one of the following: 'al2', 'al2023',",
    ),
    "alias-windows-pinned": (
        ec2nodeclass(lambda m: spec(m).update(amiSelectorTerms=[{"alias": "windows2022@v1"}])),
        "spec.amiSelectorTerms[0].alias: windows families may only specify version 'latest' (rule: ",
    ),
    "alias-with-second-term": (
        ec2nodeclass(lambda m: spec(m).update(amiSelectorTerms=[{"alias": "al2023@v1"}, {"id": "ami-123"}])),
        "spec.amiSelectorTerms: 'alias' is mutually exclusive, cannot be set with a combination of other"
        " amiSelectorTerms (rule: ",
    ),
    "alias-amiFamily-mismatch": (
        ec2nodeclass(lambda m: spec(m).update(amiFamily="Bottlerocket")),
        "spec: if set, amiFamily must be 'AL2023' or 'Custom' when using an AL2023 alias (rule: ",
    ),
    "capacity-reservation-id-with-owner": (
        ec2nodeclass(
            lambda m: spec(m).update(capacityReservationSelectorTerms=[{"id": "cr-123", "ownerID": "123456789012"}])
        ),
        "spec.capacityReservationSelectorTerms: 'id' is mutually exclusive, cannot be set along with other fields"
        " in a capacity reservation selector term (rule: ",
    ),
    "tags-cluster": (
        ec2nodeclass(lambda m: spec(m).update(tags={"kubernetes.io/cluster/x": "owned"})),
        "spec.tags: tag contains a restricted tag matching kubernetes.io/cluster/ (rule: ",
    ),
    "subnet-tag-empty-value": (
        ec2nodeclass(lambda m: spec(m).update(subnetSelectorTerms=[{"tags": {"a": ""}}])),
        "spec.subnetSelectorTerms[0].tags: empty tag keys or values aren't supported (rule: ",
    ),
    "two-root-volumes": (
        ec2nodeclass(
            lambda m: spec(m).update(
                blockDeviceMappings=[
                    {"deviceName": "/dev/xvda", "rootVolume": True, "ebs": {"volumeSize": "20Gi"}},
                    {"deviceName": "/dev/xvdb", "rootVolume": True, "ebs": {"volumeSize": "20Gi"}},
                ]
            )
        ),
        "spec.blockDeviceMappings: must have only one blockDeviceMappings with rootVolume (rule: ",
    ),
    "overlay-price-and-priceAdjustment": (
        nodeoverlay(lambda m: spec(m).update(price="1.5")),
        "spec: cannot set both 'price' and 'priceAdjustment' (rule: ",
    ),
    "overlay-capacity-cpu": (
        nodeoverlay(lambda m: spec(m).update(capacity={"cpu": "1"})),
        "spec.capacity: invalid resource restricted (rule: ",
    ),
    "overlay-requirement-NotIn-empty": (
        nodeoverlay(lambda m: spec(m)["requirements"].append({"key": "a", "operator": "NotIn", "values": []})),
        "spec.requirements: requirements with operator 'NotIn' must have a value defined (rule: ",
    ),
}


@pytest.mark.parametrize(("manifest", "expected"), CEL_INVALID.values(), ids=CEL_INVALID.keys())
def test_cel_invalid_variants_fail_with_upstream_message(manifest: Manifest, expected: str, crds: Crds) -> None:
    problems = check(manifest, crds)
    assert any(p.startswith(expected) for p in problems), problems
    assert check(manifest, crds, cel=False) == []  # only CEL catches these


def test_cel_failure_names_the_rule(crds: Crds) -> None:
    problems = check(ec2nodeclass(lambda m: spec(m).update(instanceProfile="p")), crds)
    rule = "(has(self.role) && !has(self.instanceProfile)) || (!has(self.role) && has(self.instanceProfile))"
    assert problems == [f"spec: must specify exactly one of ['role', 'instanceProfile'] (rule: {rule})"]


def test_transition_rules_are_skipped_on_create(crds: Crds) -> None:
    skipped: list[str] = []
    assert check(nodepool(), crds, skipped=skipped) == []
    group_rule = "spec.template.spec.nodeClassRef: transition rule (oldSelf) not evaluated on create" \
        " (rule: self.group == oldSelf.group)"
    assert group_rule in skipped
    assert any("has(self.replicas) == has(oldSelf.replicas)" in s for s in skipped)
    assert all("oldSelf" in s for s in skipped)


def test_blocking_schema_errors_skip_cel_as_the_server_does(crds: Crds) -> None:
    # weight=True is a type error, so the server reports it and does not run CEL (which would also
    # reject weight on a static pool).
    skipped: list[str] = []
    problems = check(nodepool(lambda m: spec(m).update(replicas=2, weight=True)), crds, skipped=skipped)
    assert problems == ["spec.weight: expected integer, got boolean"]
    assert skipped and skipped[0].startswith("<root>: no CEL rule evaluated")
    # A date-time that is none: kube-openapi's FormatOf says InvalidType, blocking too (found by the oracle).
    skipped.clear()
    check(nodepool(lambda m: (spec(m).update(replicas=2, weight=5),
                              tspec(m).update(taints=[{"key": "k", "effect": "NoSchedule", "timeAdded": "never"}]))),
          crds, skipped=skipped)
    assert skipped and skipped[0].startswith("<root>: no CEL rule evaluated")
    # A non-blocking error (a maximum) does not stop CEL.
    problems = check(nodepool(lambda m: spec(m).update(replicas=2, weight=500)), crds)
    assert any(p.startswith("spec: 'weight' is not supported on static NodePools") for p in problems), problems


def test_every_rule_in_the_karpenter_crds_compiles(crds: Crds) -> None:
    rules = {
        rule["rule"]
        for key, crd in crds.items()
        if key[0].startswith("karpenter.")
        for name, value in _walk(crd["schema"])
        if name == "x-kubernetes-validations"
        for rule in value
    }
    assert len(rules) > 50
    for rule in rules:
        assert compile_rule(rule).error is None, rule
    assert compile_rule("self.group == oldSelf.group").transition
    assert not compile_rule("self.all(x, x != 'oldSelf')").transition  # a string, not the variable
    with perf.caching_set(True):
        assert compile_rule("self != ''") is compile_rule("self != ''")  # compiled once, cached


def test_kubernetes_library_functions() -> None:
    assert find("karpenter.sh/nodepool", "^([^/]+)") == "karpenter.sh"
    assert find("gpu", "^([^/]+)") == "gpu"  # no '/': the whole key
    assert find("abc", "[0-9]+") == ""
    assert split("al2023@v1", "@") == ["al2023", "v1"]
    assert split("al2023", "@") == ["al2023"]
    assert split("a@b@c", "@", 2) == ["a", "b@c"]
    assert split("abc", "") == ["a", "b", "c"]
    assert split("a@b", "@", 0) == []
    assert to_int("42") == 42 and to_int("-1") == -1 and to_int("+7") == 7 and to_int(2.9) == 2
    for bad in ("0x10", " 5", "1_000", "1.5", "", "9223372036854775808", True):
        with pytest.raises(CelFunctionError):  # a CEL error, as with cel-go's ParseInt
            to_int(bad)


def _thing(rules: list[dict[str, Any]], **props: dict[str, Any]) -> Crds:
    """A one-kind CRD set whose spec carries `rules` and `props`."""
    spec_schema = {"type": "object", "properties": props, "x-kubernetes-validations": rules}
    schema = {
        "type": "object",
        "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"}, "spec": spec_schema},
    }
    return {("example.com/v1", "Thing"): {"schema": schema, "scope": "Cluster"}}


THING: Manifest = {"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "t"}, "spec": {"a": "x"}}


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        ("self.a ==", "spec: CEL compile error: syntax error"),
        ("self.a.quantity() > 1", "spec: CEL compile error: undeclared reference to function(s) quantity"),
        ("self.missing == 'x'", "spec: CEL evaluation error: no such member"),
        ("size(self.a)", "spec: CEL rule returned int, not bool (rule: size(self.a))"),
    ],
)
def test_broken_rules_are_problems_not_passes(rule: str, expected: str) -> None:
    problems = check(THING, _thing([{"rule": rule}], a={"type": "string"}))
    assert len(problems) == 1 and problems[0].startswith(expected), problems


def test_message_expression_and_field_path() -> None:
    crds = _thing(
        [
            {"rule": "self.a == 'y'", "messageExpression": "'a is ' + self.a", "message": "static"},
            {"rule": "self.a == 'y'", "messageExpression": "self.nope", "message": "fallback"},
            {"rule": "self.a == 'y'", "fieldPath": ".a"},
        ],
        a={"type": "string"},
    )
    assert check(THING, crds) == [
        "spec: a is x (rule: self.a == 'y')",
        "spec: fallback (rule: self.a == 'y')",
        "spec.a: self.a == 'y' (rule: self.a == 'y')",
    ]


def test_rules_run_only_where_the_value_is_present() -> None:
    crds = _thing([], a={"type": "string"}, b={"type": "string", "x-kubernetes-validations": [{"rule": "false"}]})
    assert check(THING, crds) == []
    assert check({**THING, "spec": {"a": "x", "b": "y"}}, crds) == ["spec.b: false (rule: false)"]


# --- findings (validate_manifest) --------------------------------------------------------------


def codes(findings: list[Finding]) -> list[str]:
    return [f.code for f in findings]


def test_validate_manifest_valid_object_has_only_the_transition_summary(crds: Crds) -> None:
    findings = validate_manifest(nodepool(), crds, file="prod/pools.yaml")
    assert len(findings) == 1  # one KG305 per manifest, however many rules were skipped
    (info,) = findings
    assert (info.file, info.kind, info.name, info.path) == ("prod/pools.yaml", "NodePool", "gpu", "<root>")
    assert (info.code, info.severity) == ("KG305", Severity.INFO)
    skipped: list[str] = []
    check(nodepool(), crds, skipped=skipped)
    assert info.message.startswith(f"{len(skipped)} transition rules (oldSelf) not evaluated")


@pytest.mark.parametrize(
    ("manifest", "code", "path"),
    [
        (nodepool(lambda m: spec(m).update(weight=500)), "KG300", "spec.weight"),
        (nodepool(lambda m: tspec(m)["requirements"].append({"key": "a", "operator": "Foo"})), "KG300",
         "spec.template.spec.requirements[0].operator"),
        (nodepool(lambda m: tspec(m).pop("nodeClassRef")), "KG300", "spec.template.spec.nodeClassRef"),
        (nodepool(lambda m: spec(m).update(limits={"nvidia.com/gpu": "4 GPUs"})), "KG300",
         "spec.limits['nvidia.com/gpu']"),
        (nodepool(lambda m: tspec(m).update(kubelet={"maxPods": 110})), "KG301", "spec.template.spec.kubelet"),
        (nodepool(lambda m: m["metadata"].update(uuid="x")), "KG301", "metadata.uuid"),
        (nodepool(lambda m: m["metadata"].update(generateName="GPU-")), "KG303", "metadata.generateName"),
        (nodepool(lambda m: m["metadata"].update(name="GPU_pool")), "KG303", "metadata.name"),
        (nodepool(lambda m: m["metadata"].update(labels={"team": "a b"})), "KG303", "metadata.labels.team"),
        (ec2nodeclass(lambda m: spec(m).update(instanceProfile="p")), "KG302", "spec"),
    ],
    ids=["bounds", "enum", "required", "pattern", "kubelet-pruned", "metadata-unknown", "generate-name", "name",
         "label-value", "cel"],
)
def test_validate_manifest_codes_problems_as_errors_at_their_path(
    manifest: Manifest, code: str, path: str, crds: Crds
) -> None:
    errors = [f for f in validate_manifest(manifest, crds) if f.severity == Severity.ERROR]
    assert [(f.code, f.path) for f in errors] == [(code, path)], errors
    assert (errors[0].kind, errors[0].name) == (manifest["kind"], manifest["metadata"]["name"])
    assert errors[0].message and not errors[0].message.startswith(path + ":")


def test_validate_manifest_mirrors_check(crds: Crds) -> None:
    manifest = nodepool(lambda m: (spec(m).update(weight=500, replicas=2), m["metadata"].update(labels={"a b": "x"})))
    findings = [f for f in validate_manifest(manifest, crds) if f.code != "KG305"]
    problems = check(manifest, crds)
    assert len(findings) == len(problems) == 3
    for finding, problem in zip(findings, problems):
        assert problem.startswith(f"{finding.path}: {finding.message}")


def test_cel_finding_message_is_the_rules_message(crds: Crds) -> None:
    (finding,) = [f for f in validate_manifest(nodepool(lambda m: spec(m).update(replicas=2, weight=10)), crds)
                  if f.severity == Severity.ERROR]
    assert (finding.code, finding.path) == ("KG302", "spec")
    assert finding.message == "'weight' is not supported on static NodePools"


def test_broken_cel_rule_finding_cites_the_rule() -> None:
    (finding,) = validate_manifest(THING, _thing([{"rule": "size(self.a)"}], a={"type": "string"}))
    assert finding.code == "KG302" and finding.severity == Severity.ERROR
    assert finding.message == "CEL rule returned int, not bool (rule: size(self.a))"


def test_unknown_kind_is_info(crds: Crds) -> None:
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "x"}}
    assert validate_manifest(config_map, crds, file="a.yaml") == [
        Finding("a.yaml", "ConfigMap", "c", "<root>", "KG304", Severity.INFO,
                "unknown apiVersion/kind 'v1'/'ConfigMap'"),
    ]


def test_blocking_error_gives_one_cel_skipped_info(crds: Crds) -> None:
    findings = validate_manifest(nodepool(lambda m: spec(m).update(replicas=2, weight=True)), crds)
    assert [(f.code, f.severity) for f in findings] == [("KG300", Severity.ERROR), ("KG305", Severity.INFO)]
    assert findings[1].message.startswith("no CEL rule evaluated")


def test_validate_manifest_survives_odd_documents(crds: Crds) -> None:
    (finding,) = validate_manifest(["not", "an", "object"], crds)  # type: ignore[arg-type]
    assert (finding.kind, finding.name, finding.code, finding.severity) == ("", "", "KG300", Severity.ERROR)
    generated = nodepool(lambda m: m.update(metadata={"generateName": "gpu-"}))
    assert {f.name for f in validate_manifest(generated, crds)} == {"gpu-"}


def test_finding_codes_are_registered() -> None:
    for code in ("KG300", "KG301", "KG302", "KG303", "KG304", "KG305"):
        assert code in CODES


def test_load_crds_parses_a_folder_once(tmp_path: Path) -> None:
    thing = tmp_path / "thing.yaml"
    thing.write_text(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
        "spec:\n  group: example.com\n  scope: Cluster\n  names: {kind: Thing}\n"
        "  versions:\n  - name: v1\n    served: true\n    schema: {openAPIV3Schema: {type: object}}\n"
    )
    with perf.caching_set(True):
        first = load_crds(tmp_path)
        assert load_crds(str(tmp_path)) is first  # cached by folder
        assert list(first) == [("example.com/v1", "Thing")]
        thing.write_text(thing.read_text().replace("served: true", "served: false"))
        assert load_crds(tmp_path) == {}  # a changed file is read again


# ----------------------------------------------------------------------------------------------- ObjectMeta on create
# What kube-apiserver does with the metadata of a custom resource (checked against the API server's own code by the
# oracle's apiserver family, tests/oracle/).

def errors_at(manifest: Manifest, crds: Crds) -> list[tuple[str, str]]:
    return [(f.code, f.path) for f in validate_manifest(manifest, crds) if f.severity == Severity.ERROR]


def test_namespace_on_a_cluster_scoped_kind_is_a_warning_the_api_server_clears_it(crds: Crds) -> None:
    """k8s.io/apiserver rest.BeforeCreate -> EnsureObjectNamespaceMatchesRequestNamespace clears it, even an invalid
    one, and the object is created."""
    for namespace in ("karpenter", "Bad_NS"):
        findings = validate_manifest(nodepool(lambda m, ns=namespace: m["metadata"].update(namespace=ns)), crds)
        (warning,) = [f for f in findings if f.code == "KG303"]
        assert (warning.severity, warning.path) == (Severity.WARNING, "metadata.namespace")
        assert "ignored: the API server clears it" in warning.message
        assert not errors_at(nodepool(lambda m, ns=namespace: m["metadata"].update(namespace=ns)), crds)
    assert check(nodepool(lambda m: m["metadata"].update(namespace="karpenter")), crds) == []
    assert not validate_manifest(nodepool(lambda m: m["metadata"].update(namespace="")), crds)[:-1]


def test_annotations_over_256_kib_in_total_are_refused_and_block_cel(crds: Crds) -> None:
    """apimachinery ValidateAnnotations -> ValidateAnnotationsSize: keys and values together, at most 256 KiB, a
    TooLong error (blocking: apiextensions-apiserver hasBlockingErr skips the CEL rules)."""
    at_limit = {"ab": "x" * (256 * 1024 - 5), "c": "é"}  # bytes, not characters: 2 + 262139 + 1 + 2
    over = {**at_limit, "c": "éx"}
    assert not errors_at(nodepool(lambda m: m["metadata"].update(annotations=at_limit)), crds)
    findings = validate_manifest(nodepool(lambda m: (m["metadata"].update(annotations=over),
                                                     spec(m).update(replicas=2, weight=10))), crds)
    assert [(f.code, f.path) for f in findings if f.severity == Severity.ERROR] == [("KG303", "metadata.annotations")]
    assert findings[-1].code == "KG305" and findings[-1].message.startswith("no CEL rule evaluated")


def test_annotation_keys_are_qualified_names_in_any_case(crds: Crds) -> None:
    """apimachinery ValidateAnnotations checks strings.ToLower(key)."""
    assert not errors_at(nodepool(lambda m: m["metadata"].update(annotations={"Example.com/Team": "x"})), crds)
    assert errors_at(nodepool(lambda m: m["metadata"].update(labels={"Example.com/Team": "x"})), crds) == [
        ("KG303", "metadata.labels['Example.com/Team']")]


def test_metadata_fields_of_the_wrong_type_fail_decoding(crds: Crds) -> None:
    """apiextensions-apiserver GetObjectMetaWithOptions: json.Unmarshal into metav1.ObjectMeta fails, the request is
    refused before any validation (blocking); null is every field's zero value."""
    for meta, path in (({"uid": 1}, "metadata.uid"), ({"labels": {"a": 1}}, "metadata.labels.a"),
                       ({"finalizers": [1]}, "metadata.finalizers[0]"), ({"generation": 1.5}, "metadata.generation"),
                       ({"creationTimestamp": "yesterday"}, "metadata.creationTimestamp")):
        manifest = nodepool(lambda m, meta=meta: m["metadata"].update(meta))
        assert errors_at(manifest, crds) == [("KG303", path)], meta
    assert not errors_at(nodepool(lambda m: m["metadata"].update(labels={"team": None}, uid=None)), crds)


def test_a_missing_or_empty_name_is_required_and_blocks_cel(crds: Crds) -> None:
    """apimachinery ValidateObjectMetaAccessor: Required "name or generateName is required" (blocking)."""
    for meta in ({"name": ""}, {}):
        findings = validate_manifest(nodeoverlay(lambda m, meta=meta: m.update(metadata=dict(meta))), crds)
        assert [(f.code, f.path) for f in findings if f.severity == Severity.ERROR] == [("KG303", "metadata.name")]
        assert findings[-1].code == "KG305"
    assert errors_at(nodepool(lambda m: m.pop("metadata")), crds) == [("KG303", "metadata.name")]


def test_a_name_generated_from_generate_name_is_validated_too(crds: Crds) -> None:
    """rest.BeforeCreate runs after the store's names.SimpleNameGenerator: generateName[:58] plus 5 characters."""
    assert not errors_at(nodepool(lambda m: m.update(metadata={"generateName": "a" * 250})), crds)
    assert errors_at(nodepool(lambda m: m.update(metadata={"generateName": "GPU-"})), crds) == [
        ("KG303", "metadata.generateName"), ("KG303", "metadata.name")]


def test_names_up_to_253_characters_are_accepted_by_the_api_server(crds: Crds) -> None:
    """ValidateObjectMetaAccessor with NameIsDNSSubdomain: 253 characters (a label value's 63 is Karpenter's
    concern for the karpenter.sh/nodepool label, not a refusal)."""
    assert not errors_at(nodepool(lambda m: m["metadata"].update(name="a" * 253)), crds)
    assert errors_at(nodepool(lambda m: m["metadata"].update(name="a" * 254)), crds) == [("KG303", "metadata.name")]


def test_finalizers_are_qualified_names(crds: Crds) -> None:
    """apimachinery ValidateFinalizers -> ValidateFinalizerName (IsQualifiedName); a null item is ""."""
    assert not errors_at(nodepool(lambda m: m["metadata"].update(finalizers=["karpenter.sh/termination"])), crds)
    assert errors_at(nodepool(lambda m: m["metadata"].update(finalizers=["ok", "bad finalizer", None])), crds) == [
        ("KG303", "metadata.finalizers[1]"), ("KG303", "metadata.finalizers[2]")]


def test_non_nullable_nulls_without_a_default_are_pruned(crds: Crds) -> None:
    """apiextensions-apiserver PruneNonNullableNullsWithoutDefaults: the field is dropped, not refused; a required
    one is then missing."""
    assert not errors_at(nodeoverlay(lambda m: spec(m).update(priceAdjustment=None)), crds)
    assert errors_at(nodepool(lambda m: tspec(m).update(nodeClassRef=None)), crds) == [
        ("KG300", "spec.template.spec.nodeClassRef")]


def test_fields_under_a_value_of_the_wrong_type_are_pruned_too(crds: Crds) -> None:
    """apiextensions-apiserver pruning.prune walks the value by its schema whatever its type: an object where a list
    or a string is declared loses every field."""
    findings = validate_manifest(nodeoverlay(lambda m: spec(m).update(requirements={"a": []})), crds)
    assert [(f.code, f.path) for f in findings if f.code in ("KG300", "KG301")] == [
        ("KG301", "spec.requirements.a"), ("KG300", "spec.requirements")]
    findings = validate_manifest(nodeoverlay(lambda m: spec(m).update(weight=[{"a": 1}])), crds)
    assert [(f.code, f.path) for f in findings if f.code in ("KG300", "KG301")] == [
        ("KG301", "spec.weight[0].a"), ("KG300", "spec.weight")]


def test_an_int_or_string_of_another_type_fails_the_any_of_too(crds: Crds) -> None:
    """kube-openapi reports the type error and 'must validate at least one schema (anyOf)'."""
    findings = validate_manifest(nodeoverlay(lambda m: spec(m).update(capacity={"a": []})), crds)
    messages = [f.message for f in findings if f.code == "KG300"]
    assert messages == ["expected integer or string, got array", "[] matches none of the anyOf alternatives"]


def test_budget_node_counts_beyond_int32_are_accepted_by_the_api_server(crds: Crds) -> None:
    """The CRD's pattern ^((100|[0-9]{1,2})%|[0-9]+)$ admits any digits; the API server enforces no int32 range."""
    budgets = {"consolidateAfter": "0s", "budgets": [{"nodes": str(2**31)}]}
    assert not errors_at(nodepool(lambda m: spec(m).update(disruption=budgets)), crds)


def test_a_list_given_to_a_date_time_string_passes_the_type_check(crds: Crds) -> None:
    # kube-openapi typeValidator.Validate: a slice given to a schema with a non-numeric format passes; the format
    # and string validators apply to strings only (oracle apiserver family, seed 1): no problem at timeAdded.
    problems = check(nodepool(lambda m: tspec(m).update(
        startupTaints=[{"key": "k", "effect": "NoSchedule", "timeAdded": []}])), crds)
    assert not any("timeAdded" in p for p in problems), problems
    # an object there is still a type error (Map kind: InvalidType)
    problems = check(nodepool(lambda m: tspec(m).update(
        startupTaints=[{"key": "k", "effect": "NoSchedule", "timeAdded": {}}])), crds)
    assert any("timeAdded: expected string" in p for p in problems), problems
