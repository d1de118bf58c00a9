"""The scheduler oracle family without Go: its committed vectors, its generator and its comparison.

tests/oracle/vectors/scheduler.jsonl holds the fixed-seed cases of ``make oracle``'s scheduler family with the answers
Karpenter v1.14.1's provisioning scheduler (and the AWS provider's instance types) gave; ``python -m tests.oracle.run
--write-vectors`` rebuilds them, ``--check-vectors`` fails when they are stale.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from tests.oracle import scheduler_family as fam
from tests.oracle.cases import generate
from tests.oracle.run import REGRESSIONS, VECTOR_COUNT, VECTOR_SEED

VECTORS = Path(__file__).parent / "oracle" / "vectors" / "scheduler.jsonl"


def _vectors() -> list[dict]:
    return [json.loads(line) for line in VECTORS.read_text(encoding="utf-8").splitlines() if line]


def test_the_vectors_are_the_generator_output_for_their_seed():
    vectors = _vectors()
    cases = [c["case"] for c in generate("scheduler", VECTOR_SEED, VECTOR_COUNT["scheduler"], dist=False)]
    assert [v["case"] for v in vectors] == json.loads(json.dumps(cases))
    assert all(v["answer"] is not None and "error" not in v for v in vectors)


def test_the_vectors_cover_placements_and_each_unschedulable_class():
    answers = [v["answer"] for v in _vectors()]
    placed = [a for a in answers if a["nodepool"] is not None]
    # about one case in six places its pod (1,500 fresh cases of seed 5: 16.5%): node classes that refuse every type
    # (efa-only interfaces), selector terms that select nothing (the class is not Ready) and the pools' taints,
    # limits and requirements refuse the rest, each compared with Karpenter's reason
    assert len(placed) > len(answers) // 8
    assert any(a.get("launch_types") and set(a["launch_types"]) < set(a["instance_types"]) for a in placed)
    assert all(a["cheapest"]["instance_type"] in a["cheapest_types"] for a in placed)
    # each unschedulable class, in the fixed-seed vectors or the shrunk regression cases (minValues refusals are rare
    # in fresh draws: the regressions hold five)
    regressions = [json.loads(line) for line in REGRESSIONS.read_text(encoding="utf-8").splitlines() if line]
    reasons = {a.get("reason") for a in answers} | {r["answer"].get("reason") for r in regressions
                                                    if r.get("family") == "scheduler"}
    assert {"taint", "limits", "resources", "no-compatible-types", "min-values"} <= reasons
    assert {"spot", "on-demand"} <= {a["launch"]["capacity_type"] for a in placed}


def test_the_vectors_hold_the_inputs_the_core_models():
    cases = [v["case"] for v in _vectors()]
    assert any(c["kubelet"] for c in cases) and any(c["daemonsets"] for c in cases)
    assert any(p["spec"].get("limits") for c in cases for p in c["nodepools"])
    assert any(c["existing_nodes"] for c in cases)


def test_existing_nodes_decide_some_vectors():
    # Scheduler.updateRemainingResources: the vectors' existing NodeClaims change the core's answer on some cases,
    # so test_the_core_agrees_with_karpenter_on_every_vector checks the remaining limits, not only the limits
    changed = [v["id"] for v in _vectors() if v["case"]["existing_nodes"]
               and fam.python_answer({**v["case"], "existing_nodes": []}) != fam.python_answer(v["case"])]
    assert len(changed) >= 10


def test_existing_nodes_reach_the_core_as_node_claims():
    case = next(v["case"] for v in _vectors() if v["case"]["existing_nodes"])
    claims = fam.node_claims(case)
    assert len(claims) == len(case["existing_nodes"])
    first, node = claims[0], case["existing_nodes"][0]
    assert first["kind"] == "NodeClaim" and first["status"]["providerID"]
    assert first["metadata"]["labels"]["karpenter.sh/nodepool"] == node["nodepool"]
    assert first["metadata"]["labels"]["node.kubernetes.io/instance-type"] == node["instance_type"]
    assert {"cpu", "memory", "pods"} <= set(first["status"]["capacity"])


def test_a_changed_answer_is_a_disagreement():
    vector = next(v for v in _vectors() if fam.agree(v["answer"], fam.python_answer(v["case"]))
                  and v["answer"]["nodepool"] is not None)
    py = fam.python_answer(vector["case"])
    go = vector["answer"]
    assert fam.differences({**go, "nodepool": "elsewhere"}, py) == ["nodepool"]
    assert fam.differences({**go, "nodepool": None}, py) == ["go-unschedulable"]
    assert "price" in fam.differences({**go, "launch": {**go["launch"], "price": go["launch"]["price"] + 1}}, py)
    assert "launch-types" in fam.differences({**go, "launch_types": ["elsewhere.xlarge"]}, py)
    assert "launch-zones" in fam.differences({**go, "launch_zones": ["elsewhere-1z"]}, py)
    assert "capacity-type" in fam.differences({**go, "launch": {**go["launch"], "capacity_type": "elsewhere"}}, py)
    assert "options" in fam.differences({**go, "instance_types": []}, py)


def test_catalog_entries_become_what_ec2_reports():
    entries = fam._catalog_entries()
    g4ad = fam._instance_spec(entries["g4ad.xlarge"], ["us-east-1a"])
    assert g4ad["gpu"] == {"name": "radeon-pro-v520", "manufacturer": "AMD", "count": 1, "memory_mib": 8192}
    assert (g4ad["vcpu"], g4ad["memory_mib"], g4ad["arch"]) == (4, 16384, "amd64")
    inf2 = fam._instance_spec(entries["inf2.48xlarge"], [])
    assert inf2["neuron"] == {"name": "inferentia2", "count": 12, "cores_per_device": 2} and inf2["gpu"] is None
    dl2q = fam._instance_spec(entries["dl2q.24xlarge"], [])
    assert dl2q["accelerator"]["manufacturer"] == "qualcomm" and dl2q["neuron"] is None and dl2q["price"] is None
    assert fam._instance_spec(entries["g5g.metal"], [])["hypervisor"] == ""


def test_generated_pods_carry_the_extended_resource_toleration():
    for case in fam.generate(random.Random(3), 200):
        spec = case["pod"]["spec"]
        for resource in ("nvidia.com/gpu", "aws.amazon.com/neuron"):
            if resource in spec["containers"][0]["resources"]["requests"]:
                assert {"key": resource, "operator": "Exists", "effect": "NoSchedule"} in spec["tolerations"]


def test_the_cases_hold_every_input():
    """Nothing is modelled away: spot prices, zone availability and capacity reservations (AWS facts,
    ``aws_documents``), existing nodes (``node_claims``) and unpriced types all reach both sides."""
    rng = random.Random(5)
    cases = [fam.oracle_case(rng) for _ in range(100)]
    assert {f for c in cases for f in fam.features(c)} == {"spot-prices", "zone-availability", "reservations",
                                                           "unpriced-types", "network-interfaces",
                                                           "connection-tracking", "node-class-storage",
                                                           "pod-resources", "not-modelled",
                                                           "subnetSelectorTerms", "securityGroupSelectorTerms",
                                                           "capacityReservationSelectorTerms"}
    assert any(c["existing_nodes"] for c in cases)


def test_the_schema_draws_reach_ami_selection_node_role_and_static_pools():
    """The scheduler family draws the node class's AMI selection, role / instanceProfile and the pools' replicas
    (scheduler_schema); the Go side drops static pools as Provisioner.NewScheduler does, and the core agrees."""
    from tests.oracle import scheduler_schema

    assert {"spec.replicas"} <= set(scheduler_schema.pool_paths())
    assert {"spec.amiSelectorTerms[].alias", "spec.amiFamily", "spec.role", "spec.instanceProfile"} <= set(
        scheduler_schema.class_paths())
    vectors = _vectors()
    static = [v for v in vectors if any(p["spec"].get("replicas") is not None for p in v["case"]["nodepools"])]
    drawn = [v for v in vectors if "amiSelectorTerms" in (v["case"].get("node_class_spec") or {})]
    assert static and drawn
    for v in static + drawn:
        assert fam.agree(v["answer"], fam.python_answer(v["case"])), v["id"]
    for v in static:  # a static pool never takes the pending pod
        pools = {p["metadata"]["name"]: p for p in v["case"]["nodepools"]}
        chosen = v["answer"]["nodepool"]
        assert chosen is None or pools[chosen]["spec"].get("replicas") is None
