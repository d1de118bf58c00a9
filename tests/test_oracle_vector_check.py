"""``--check-vectors``' comparison of a committed vectors file with a rebuild (tests/oracle/run.py ``same_vectors``)."""

from __future__ import annotations

import json

from tests.oracle.run import same_vectors


def _line(case: dict, answer: dict) -> str:
    return json.dumps({"id": "batch-1-0", "case": case, "answer": answer}, sort_keys=True)


def test_batch_vectors_tolerate_only_a_rebuild_that_varies():
    case, found = {"pods": ["a"]}, {"answers": [{"nodeclaims": ["gpu: a"]}], "solves": 3}
    varied = {"varied": True, "answers": [{"nodeclaims": ["gpu: b"]}]}
    other = {"answers": [{"nodeclaims": ["gpu: c"]}], "solves": 1}
    assert same_vectors("batch.jsonl", _line(case, found), _line(case, found))
    # Go found the core's answer in one rebuild's solves and not in the other's: not a change of the code
    assert same_vectors("batch.jsonl", _line(case, found), _line(case, varied))
    assert same_vectors("batch.jsonl", _line(case, varied), _line(case, found))
    # another answer, another case, or another number of cases is stale
    assert not same_vectors("batch.jsonl", _line(case, found), _line(case, other))
    assert not same_vectors("batch.jsonl", _line(case, found), _line({"pods": ["b"]}, found))
    assert not same_vectors("batch.jsonl", _line(case, found), _line(case, found) + "\n" + _line(case, found))


def test_every_other_vectors_file_is_compared_byte_for_byte():
    case, varied = {"x": 1}, {"varied": True}
    assert not same_vectors("scheduler.jsonl", _line(case, {"a": 1}), _line(case, varied))
    assert same_vectors("scheduler.jsonl", "a\n", "a\n") and not same_vectors("v1.9/batch.jsonl", "a\n", "b\n")
