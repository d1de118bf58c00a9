"""The Python core against Karpenter v1.14.1's own answers, without Go: tests/oracle/vectors/.

The vectors are cases the Go program in tests/oracle/ answered with the upstream functions (NewRequirements,
Compatible, Intersects, SatisfiesMinValues, Taints.Tolerates, NodePool.Hash, EC2NodeClass.Hash); `make oracle`
rebuilds them (and fails when the committed set is stale) and runs fresh random cases against Go.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.oracle import compare
from tests.oracle.run import VECTOR_COUNT

VECTORS = Path(__file__).parent / "oracle" / "vectors"


def _load(name: str) -> list[dict]:
    return [json.loads(line) for line in (VECTORS / name).read_text().splitlines() if line]


@pytest.mark.parametrize("family", sorted(VECTOR_COUNT))
def test_core_agrees_with_karpenter_on_the_vectors(family):
    vectors = _load(f"{family}.jsonl")
    assert len(vectors) == VECTOR_COUNT[family]
    bad = {v["id"]: found for v in vectors if (found := compare.differences(family, v["case"], v["answer"]))}
    assert not bad, f"{len(bad)} of {len(vectors)} disagree, e.g. {next(iter(bad.items()))}"


def test_core_agrees_with_karpenter_on_the_shrunk_regressions():
    vectors = _load("regressions.jsonl")
    assert {v["family"] for v in vectors} == set(VECTOR_COUNT)
    bad = {v["id"]: found for v in vectors if (found := compare.differences(v["family"], v["case"], v["answer"]))}
    assert not bad, bad


def test_a_wrong_answer_is_a_disagreement():
    """The comparison can fail: a vector whose recorded answer is flipped disagrees."""
    vector = _load("tolerations.jsonl")[0]
    flipped = {**vector["answer"], "tolerated": not vector["answer"]["tolerated"]}
    assert compare.differences("tolerations", vector["case"], flipped) == [
        f"tolerated: core {vector['answer']['tolerated']!r}, Karpenter {flipped['tolerated']!r}"]
