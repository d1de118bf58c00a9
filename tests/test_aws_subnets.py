"""Subnets and security groups among the AWS facts (k8s/aws_facts.py): an EC2NodeClass launches only in the zones of
the subnets its ``subnetSelectorTerms`` select, and a class whose terms select no subnet or no security group is not
Ready (aws v1.14.1 ``pkg/providers/subnet``, ``pkg/providers/securitygroup`` ``getFilterSets``;
``pkg/controllers/nodeclass`` ``Subnet.Reconcile``, ``SecurityGroup.Reconcile``; ``instancetype/types.go``
``computeRequirements``); and the scheduler oracle family's cases that draw those terms.

Prices: g5.xlarge 1.006/h and g6.xlarge 0.8048/h on demand in the packaged catalog (us-east-1 list prices).
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest

from karpenter_gpu.analysis.simulator import simulate_pools
from karpenter_gpu.analysis.catalog import default_catalog
from karpenter_gpu.analysis.explain import explain_environment
from karpenter_gpu.cli.main import main
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.aws_facts import load_aws_facts
from tests.oracle import scheduler_family, scheduler_schema
from tests.test_aws_facts import choice, facts, manifests, offerings

EVERYWHERE = ("us-east-1a", "us-east-1b", "us-east-1c")


def subnets(*records: tuple[str, str, dict]) -> dict:
    return {"Subnets": [{"SubnetId": sid, "AvailabilityZone": zone, "AvailabilityZoneId": "use1-az" + zone[-1],
                         "Tags": [{"Key": k, "Value": v} for k, v in tags.items()]} for sid, zone, tags in records]}


def groups(*records: tuple[str, str, dict]) -> dict:
    return {"SecurityGroups": [{"GroupId": gid, "GroupName": name,
                                "Tags": [{"Key": k, "Value": v} for k, v in tags.items()]}
                               for gid, name, tags in records]}


ACCOUNT = (subnets(("subnet-a", "us-east-1a", {"k": "v", "tier": "public"}), ("subnet-b", "us-east-1b", {"k": "v"}),
                   ("subnet-c", "us-east-1c", {"tier": "private"})),
           groups(("sg-1", "nodes", {"k": "v"}), ("sg-2", "other", {})))


def with_terms(docs: list[dict], subnet_terms=None, group_terms=None) -> list[dict]:
    docs = copy.deepcopy(docs)
    spec = docs[1]["spec"]
    if subnet_terms is not None:
        spec["subnetSelectorTerms"] = subnet_terms
    if group_terms is not None:
        spec["securityGroupSelectorTerms"] = group_terms
    return docs


@pytest.mark.parametrize(("terms", "selected"), [
    ([{"tags": {"k": "v"}}], ["subnet-a", "subnet-b"]),
    ([{"tags": {"k": "v", "tier": "*"}}], ["subnet-a"]),  # every tag of a term; "*": the key exists
    ([{"tags": {"tier": "*"}}, {"id": "subnet-b"}], ["subnet-a", "subnet-b", "subnet-c"]),  # terms: any of them
    ([{"id": "subnet-c"}, {"id": "subnet-x"}], ["subnet-c"]),
    ([{"tags": {}}], ["subnet-a", "subnet-b", "subnet-c"]),  # no filter: every subnet
    ([{"tags": {"k": "w"}}], []),
    ([], []),  # getFilterSets has nothing to ask for
])
def test_subnet_terms_select_as_get_filter_sets_does(terms, selected):
    aws = facts(*ACCOUNT)
    assert [s.id for s in aws.selected_subnets(terms)] == selected
    assert facts(offerings(g5_xlarge=list(EVERYWHERE))).selected_subnets(terms) is None  # no subnets file


def test_security_group_terms_by_id_name_or_tags():
    aws = facts(*ACCOUNT)
    assert [g.id for g in aws.selected_security_groups([{"name": "other"}])] == ["sg-2"]
    assert [g.id for g in aws.selected_security_groups([{"id": "sg-1", "name": "other"}])] == ["sg-1"]  # id first
    assert [g.id for g in aws.selected_security_groups([{"tags": {"k": "*"}}])] == ["sg-1"]
    assert aws.selected_security_groups([{"name": "missing"}]) == ()


def test_a_class_launches_only_in_its_subnets_zones():
    """``computeRequirements``: a type's zones are its offering zones that have a selected subnet."""
    docs = manifests("on-demand")
    aws = facts(offerings(g5_xlarge=list(EVERYWHERE), g6_xlarge=["us-east-1c"]), *ACCOUNT)
    fit = choice(docs, aws)
    assert (fit.instance, fit.offering) == ("g5.xlarge", "on-demand/us-east-1a")  # g6 only where no subnet is
    assert choice(with_terms(docs, [{"tags": {"tier": "private"}}]), aws).instance == "g6.xlarge"
    without = facts(offerings(g5_xlarge=list(EVERYWHERE), g6_xlarge=["us-east-1c"]))
    assert choice(docs, without).instance == "g6.xlarge"  # no subnets file: every zone, as before


@pytest.mark.parametrize(("subnet_terms", "group_terms", "terms"), [
    ([{"tags": {"k": "w"}}], None, "subnetSelectorTerms"),
    (None, [{"name": "missing"}], "securityGroupSelectorTerms"),
])
def test_a_class_selecting_no_subnet_or_no_group_is_not_ready_and_explain_says_so(subnet_terms, group_terms, terms):
    docs = with_terms(manifests("on-demand"), subnet_terms, group_terms)
    aws = facts(offerings(g5_xlarge=list(EVERYWHERE), g6_xlarge=list(EVERYWHERE)), *ACCOUNT)
    [report] = simulate_pools(docs, aws=aws)
    assert not report.candidates and not report.launchable
    assert report.problems[0].text.startswith(f"EC2NodeClass gpu is not Ready: its {terms} select none")
    assert choice(docs, aws) is None
    notes = explain_environment("dev", docs, default_catalog(), aws=aws)["pools"][0]["notes"]
    assert any(f"its {terms} select none" in n for n in notes), notes


def test_a_bad_subnet_record_is_kg738_one_line(tmp_path, capsys):
    path = tmp_path / "subnets.json"
    path.write_text(json.dumps({"Subnets": [{"SubnetId": "subnet-a"}]}))
    with pytest.raises(KarpenterGpuError) as err:
        load_aws_facts([path])
    assert err.value.code == "KG738"
    assert main(["explain", str(Path(__file__).parent.parent / "dist"), "--aws", str(path)]) == 2
    err_lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err_lines) == 1 and "[KG738]" in err_lines[0]


# ---------------------------------------------------------------------------------------------
# The scheduler oracle family


def _cases(n: int = 120) -> list[dict]:
    rng = random.Random("subnets")
    return [scheduler_family.oracle_case(rng) for _ in range(n)]


def test_the_family_draws_every_selector_term_and_the_placement_group():
    drawn = {key for case in _cases() for key in (case.get("node_class_spec") or {})}
    assert {"subnetSelectorTerms", "securityGroupSelectorTerms", "capacityReservationSelectorTerms",
            "placementGroupSelector"} <= drawn
    assert "spec.subnetSelectorTerms[].id" in scheduler_schema.class_paths()
    assert "spec.template.spec.nodeClassRef.name" in scheduler_schema.pool_paths()


def test_the_core_reads_the_cases_subnets_and_a_placement_group_is_not_modelled():
    # a node class that admits types without the placement group (efa-only interfaces may refuse every one)
    case = next(c for c in _cases() if c["subnets"] and not c.get("node_class_spec") and not c.get("network_interfaces"))
    narrow = copy.deepcopy(case)
    narrow["node_class_spec"] = {"subnetSelectorTerms": [{"id": case["subnets"][0]["id"]}]}
    answer = scheduler_family.python_answer(narrow)
    if answer.get("nodepool") is not None:
        assert set(answer["launch_zones"]) <= {case["subnets"][0]["zone"]}
    nowhere = copy.deepcopy(case)
    nowhere["node_class_spec"] = {"subnetSelectorTerms": [{"id": "subnet-0badc0de"}]}
    assert scheduler_family.python_answer(nowhere)["nodepool"] is None
    pg = copy.deepcopy(case)
    pg["node_class_spec"] = {"placementGroupSelector": {"name": "oracle-pg"}}
    pg["pod"]["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "100m"}}
    pg["nodepools"] = [{**p, "spec": {**p["spec"], "template": {"spec": {
        "nodeClassRef": p["spec"]["template"]["spec"]["nodeClassRef"], "requirements": []}}}}
        for p in pg["nodepools"]]
    pg["pod"]["spec"].pop("nodeSelector", None)
    pg["pod"]["spec"].pop("affinity", None)
    assert scheduler_family.python_answer(pg).get("not_modelled") == ["spec.placementGroupSelector"]


def test_min_values_on_the_zone_counts_the_types_own_zones_not_the_pools():
    """scheduler family, seed 3333 case 5940: ``zone In [us-east-1a]`` and ``zone Exists minValues 2`` merge into
    ``In [us-east-1a]`` with minValues 2, and ``SatisfiesMinValues`` counts each remaining type's own zone requirement
    (``computeRequirements``: its offering zones that have a subnet of the node class), which the pool does not
    narrow: subnets in 1a and 1b meet 2 and the pod launches in 1a; a subnet in 1a alone meets 1, nothing launches."""
    docs = manifests("on-demand", types=("g6.xlarge",), zones=("us-east-1a",))
    docs[0]["spec"]["template"]["spec"]["requirements"].append(
        {"key": "topology.kubernetes.io/zone", "operator": "Exists", "minValues": 2})
    everywhere = offerings(g6_xlarge=list(EVERYWHERE))
    two = facts(everywhere, subnets(("subnet-a", "us-east-1a", {"k": "v"}), ("subnet-b", "us-east-1b", {"k": "v"})),
                groups(("sg-1", "nodes", {"k": "v"})))
    fit = choice(docs, two)
    assert fit is not None and (fit.instance, fit.offering) == ("g6.xlarge", "on-demand/us-east-1a")
    one = facts(everywhere, subnets(("subnet-a", "us-east-1a", {"k": "v"}), ("subnet-c", "us-east-1c", {"t": "x"})),
                groups(("sg-1", "nodes", {"k": "v"})))
    assert choice(docs, one) is None
