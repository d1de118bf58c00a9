"""The committed ``placement`` oracle vectors (tests/oracle/vectors/placement.jsonl: cases with the answers of the
Karpenter and GPU Operator charts rendered by helm v4, tests/oracle/charts/) against the Python placement model,
without Go or the charts. ``python -m tests.oracle.placement_family --gpu-operator DIR --write-vectors`` rebuilds
them."""

from __future__ import annotations

import json

import pytest

from tests.oracle.placement_family import VECTOR_COUNT, VECTORS, differences

LINES = VECTORS.read_text().splitlines()


def test_the_vectors_are_the_fixed_seed_cases():
    assert len(LINES) == VECTOR_COUNT
    kinds = {n["kind"] for line in LINES for n in json.loads(line)["case"]["nodes"]}
    assert kinds == {"pool", "auto", "hybrid"}


@pytest.mark.parametrize("line", range(len(LINES)))
def test_core_agrees_with_the_rendered_charts(line):
    vector = json.loads(LINES[line])
    assert differences(vector["case"], vector["answer"]) == [], vector["id"]
