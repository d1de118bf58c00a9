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


def test_the_vendored_gpu_operator_chart_is_the_tags_files_unmodified():
    """The placement family renders tests/oracle/charts/gpu-operator (the module proxy does not serve the module):
    every file is the tag's, as VENDORED.json's digest (path and sha256 of each file) records."""
    import hashlib

    from tests.oracle.placement_family import GPU_OPERATOR_COMMIT, VENDORED, gpu_operator_source

    recorded = json.loads((VENDORED / "VENDORED.json").read_text())
    files = sorted(p for p in VENDORED.rglob("*") if p.is_file() and p.name != "VENDORED.json")
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(VENDORED).as_posix().encode() + b"\0"
                      + hashlib.sha256(path.read_bytes()).hexdigest().encode() + b"\n")
    assert (recorded["commit"], recorded["files"], recorded["sha256"]) == (
        GPU_OPERATOR_COMMIT, len(files), digest.hexdigest())
    assert (VENDORED / "deployments" / "gpu-operator" / "Chart.yaml").is_file()
    assert gpu_operator_source() is not None
