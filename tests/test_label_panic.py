"""A NodePool requirement on a label of one's own that leaves ``Requirement.Any`` no value to pick: Karpenter
(v1.14.1 and v1.9) panics in ``NodeClaimTemplate.ToNodeClaim`` (``resolveCustomLabelsFromRequirements``) as it
creates each NodeClaim of the pool (scheduler family, seed 6666 case 1921: ``nvidia.com/gpu Lt 0``)."""

from __future__ import annotations

import pytest

from karpenter_gpu.analysis.catalog import default_catalog
from karpenter_gpu.analysis.explain import explain_environment
from karpenter_gpu.analysis.pod_fit import first_choice, pod_fit
from karpenter_gpu.analysis.pod_shape import PodShape
from karpenter_gpu.check.rules import check_rules
from karpenter_gpu.k8s.scheduling import Requirement
from karpenter_gpu.k8s.views import NodePoolView


# What Karpenter v1.14.1's own Requirement.Any did with each (run through pkg/scheduling, recovering the panic).
@pytest.mark.parametrize(("op", "value", "panics"), [
    ("Lt", "0", True), ("Lt", "1", False), ("Lt", "-5", True), ("Gt", "-3", True),
    ("Gt", "9223372036854775806", True), ("Gt", "5", False), ("Gt", "-1", False),
    ("Lt", "-9223372036854775808", True)])
def test_any_panics_as_go_does(op, value, panics):
    assert Requirement.new("example.com/x", op, [value]).any_panics is panics


def _pool(*reqs: dict, labels: dict | None = None) -> dict:
    template: dict = {"spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
                               "requirements": [{"key": "karpenter.k8s.aws/instance-family", "operator": "In",
                                                 "values": ["g6"]}, *reqs]}}
    if labels:
        template["metadata"] = {"labels": labels}
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "gpu"},
            "spec": {"template": template}}


NODE_CLASS = {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "gpu"},
              "spec": {"amiSelectorTerms": [{"alias": "al2023@v20251103"}], "role": "r",
                       "subnetSelectorTerms": [{"tags": {"k": "v"}}], "securityGroupSelectorTerms": [{"tags": {"k": "v"}}]}}
LT0 = {"key": "example.com/team", "operator": "Lt", "values": ["0"]}


def test_only_labels_of_ones_own_without_a_value_panic():
    assert NodePoolView.of(_pool(LT0)).label_panic == ("example.com/team", "example.com/team Exists <=-1")
    # a well-known key is never given a value that way; a template label gives the value (In)
    assert NodePoolView.of(_pool({**LT0, "key": "karpenter.k8s.aws/instance-cpu"})).label_panic is None
    assert NodePoolView.of(_pool({**LT0, "key": "example.com/tier", "operator": "Gt", "values": ["-1"]})).label_panic \
        is None
    narrowed = _pool(LT0, {"key": "example.com/team", "operator": "Gt", "values": ["-4"]})  # -3..-1: Intn(3)
    assert NodePoolView.of(narrowed).label_panic is None


def test_validate_explain_and_the_pod_say_karpenter_panics():
    manifests = [NODE_CLASS, _pool(LT0)]
    found = [(f.code, f.path) for f in check_rules([("m.yaml", m) for m in manifests]) if f.code == "KG422"]
    assert found == [("KG422", "spec.template.spec.requirements[1]")]
    fit = first_choice(pod_fit(PodShape.parse("gpus=1"), manifests, default_catalog()))
    assert fit is not None and fit.pool == "gpu" and fit.panics is not None and "example.com/team" in fit.panics
    env = explain_environment("dev", manifests, default_catalog(), PodShape.parse("gpus=1"))
    assert "example.com/team" in env["pod"]["panics"]
    assert any("Karpenter panics creating every NodeClaim" in n for n in env["pools"][0]["notes"])
    plain = first_choice(pod_fit(PodShape.parse("gpus=1"), [NODE_CLASS, _pool()], default_catalog()))
    assert plain is not None and plain.panics is None


def test_plan_says_the_nodeclaims_of_such_a_pool_never_launch():
    from karpenter_gpu.analysis.workload_plan import plan_environment
    from karpenter_gpu.k8s.input_layout import Manifest
    from karpenter_gpu.k8s.workloads import workloads_of

    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ml"},
           "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"nvidia.com/gpu": "1"}}}]}}
    env = plan_environment("dev", [NODE_CLASS, _pool(LT0)], workloads_of([Manifest("w.yaml", pod)]), default_catalog())
    assert len(env["nodeclaims"]) == 1
    assert any("Karpenter panics creating every NodeClaim" in n and "never launch" in n for n in env["notes"])
