"""The batch oracle family's comparison (tests/oracle/batch_family.py): answers up to a renaming of identical pods,
every answer Karpenter gave, and cases Karpenter answered in several ways none the core's counted apart."""

import json
from pathlib import Path

from tests.oracle import batch_family, compare

VECTORS = Path(__file__).parent / "oracle" / "vectors" / "batch.jsonl"


def _vectors() -> list[dict]:
    return [json.loads(line) for line in VECTORS.read_text().splitlines()]


def _with_claims() -> dict:
    return next(v for v in _vectors() if v["answer"]["answers"] and v["answer"]["answers"][0].get("nodeclaims"))


def test_identical_pods_share_a_class_named_after_the_first():
    case = {"pods": [{"metadata": {"name": n, "namespace": "ml", "labels": {"app": "a"}}, "spec": {"x": 1}}
                     for n in ("a-0", "a-1")]
            + [{"metadata": {"name": "b-0", "labels": {"app": "a"}}, "spec": {"x": 2}}]}
    assert batch_family.classes(case) == {"ml/a-0": "ml/a-0", "ml/a-1": "ml/a-0", "default/b-0": "default/b-0"}


def test_answers_equal_up_to_a_renaming_of_identical_pods_are_the_same():
    names = {"d/a-0": "d/a-0", "d/a-1": "d/a-0", "d/b-0": "d/b-0"}
    claim = {"nodepool": "p", "instance_types": ["t"], "instance_type": "t", "capacity_type": "spot",
             "launch_zones": ["z"]}
    one = {"nodeclaims": [{**claim, "pods": ["d/a-0", "d/b-0"]}], "existing": {}, "pending": {"d/a-1": ["x"]}}
    other = {"nodeclaims": [{**claim, "pods": ["d/a-1", "d/b-0"]}], "existing": {}, "pending": {"d/a-0": ["x"]}}
    assert batch_family.canonical(one, names) == batch_family.canonical(other, names)
    moved = {"nodeclaims": [{**claim, "pods": ["d/a-0", "d/a-1"]}], "existing": {}, "pending": {"d/b-0": ["x"]}}
    assert batch_family.canonical(one, names) != batch_family.canonical(moved, names)


def test_a_wrong_batch_answer_is_a_disagreement():
    vector = _with_claims()
    answer = json.loads(json.dumps(vector["answer"]))
    answer["answers"][0]["nodeclaims"][0]["nodepool"] = "elsewhere"
    found = compare.differences("batch", vector["case"], answer)
    assert found[0].startswith("none of the 1 answers Karpenter gave") and "nodeclaims" in found[1]


def test_the_core_agrees_when_its_answer_is_any_of_karpenters():
    vector = _with_claims()
    wrong = json.loads(json.dumps(vector["answer"]["answers"][0]))
    wrong["nodeclaims"][0]["nodepool"] = "elsewhere"
    assert compare.differences("batch", vector["case"], {"answers": [wrong, *vector["answer"]["answers"]]}) == []
    assert compare.differences("batch", vector["case"], {"answers": [wrong]})


def test_a_case_karpenter_answers_in_several_ways_none_the_cores_is_counted_apart():
    vector = _with_claims()
    varied = {"answers": [], "solves": batch_family.RUNS, "varied": True}
    assert compare.differences("batch", vector["case"], varied) == []
    line = batch_family.tally([{"case": vector["case"]}], [{"answer": varied}])
    assert "0 compared, 1 answered by Karpenter in several ways" in line
