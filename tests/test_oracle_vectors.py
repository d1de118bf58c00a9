"""The Python core against Karpenter v1.14.1's own answers, without Go: tests/oracle/vectors/.

The vectors are cases the Go program in tests/oracle/ answered with the upstream functions (NewRequirements,
Compatible, Intersects, SatisfiesMinValues, Taints.Tolerates, NodePool.Hash, EC2NodeClass.Hash, the NodeOverlay
controller's Reconcile and InstanceTypeStore.ApplyAll: tests/oracle/overlay.go, and the API server's create path
for custom resources: tests/oracle/apiserver.go); `make oracle` rebuilds them (and fails when the committed set is stale) and runs fresh random cases against Go.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from karpenter_gpu.apiserver.conformance import assess, load_crds
from karpenter_gpu.apiserver.crd_source import PACKAGED_DIR
from karpenter_gpu.check.validate import validate_source
from karpenter_gpu.k8s.input_layout import Environment, Manifest, Source
from tests.oracle import apiserver_family, compare
from tests.oracle import lines as oracle_lines
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


def test_an_api_server_refusal_validate_misses_is_a_disagreement():
    """The apiserver comparison can fail: a refusal added to the API server's answer disagrees."""
    vector = next(v for v in _load("apiserver.jsonl") if v["answer"].get("accepted"))
    refused = {**vector["answer"], "accepted": False, "refused": ["metadata.name"]}
    assert compare.differences("apiserver", vector["case"], refused)


@pytest.mark.parametrize(("path", "message", "expected"), [
    ("spec.limits['nvidia.com/gpu']", "", "spec.limits.nvidia.com/gpu"),
    ("spec.template.spec.requirements[0].key", "", "spec.template.spec.requirements[0].key"),
    ("metadata.labels['example.com/team']", "", "metadata.labels"),
    ("metadata.finalizers[1]", "", "metadata.finalizers"),
    ("<root>", "", ""),
    ("spec.capacity.a", "[] matches none of the anyOf alternatives", "<nil>"),
])
def test_validate_paths_map_to_the_api_servers(path, message, expected):
    assert apiserver_family.api_server_path(path, message) == expected


def test_validate_reports_the_refusals_of_its_conformance_step():
    """The core's apiserver answer is conformance.assess(): validate adds no refusal or pruning codes of its own."""
    crds = load_crds(PACKAGED_DIR)
    codes = apiserver_family.REFUSAL_CODES | {apiserver_family.PRUNED_CODE}
    for vector in _load("apiserver.jsonl")[:150]:
        obj = apiserver_family.expand(vector["case"])
        report = validate_source(Source("t", [Environment("", "t", [Manifest("o.yaml", obj)])], [], 1), crds)
        via_validate = sorted((f.code, f.path, f.severity) for f in report.findings if f.code in codes)
        via_assess = sorted((f.code, f.path, f.severity) for f in assess(obj, crds, "o.yaml")[0] if f.code in codes)
        assert via_validate == via_assess, vector["id"]


def test_a_wrong_overlay_answer_is_a_disagreement():
    """The overlay comparison can fail: a flipped status, a changed price or a changed capacity each disagree."""
    vector = next(v for v in _load("overlay.jsonl") if any(not s["ready"] for s in v["answer"]["overlays"].values()))
    answer = json.loads(json.dumps(vector["answer"]))
    name = next(n for n, s in answer["overlays"].items() if not s["ready"])
    answer["overlays"][name] = {"ready": True}
    assert compare.differences("overlay", vector["case"], answer) == [
        f"overlay {name}: core {vector['answer']['overlays'][name]}, Karpenter {{'ready': True}}"]
    answer = json.loads(json.dumps(vector["answer"]))
    types = next(iter(answer["nodepools"].values()))
    entry = next(iter(types.values()))
    entry["offerings"][0]["price"] += 0.01
    entry["capacity"]["nvidia.com/gpu"] = "99"
    found = compare.differences("overlay", vector["case"], answer)
    assert any("price core" in line for line in found) and any("capacity nvidia.com/gpu" in line for line in found)


OLDER_LINES = [(line, family) for line, (_, families, _) in sorted(oracle_lines.MODULES.items()) if families
               for family in families]


@pytest.mark.parametrize(("line", "family"), OLDER_LINES)
def test_core_agrees_with_an_older_karpenter_line_on_its_vectors(line, family):
    """tests/oracle/vectors/v<line>/: the cases that line's own Go module answered (tests/oracle/v1_9), the core
    reading that line's packaged CRDs."""
    vectors = _load(f"v{line}/{family}.jsonl")
    assert len(vectors) == VECTOR_COUNT[family]
    oracle_lines.use(line)
    try:
        bad = {v["id"]: found for v in vectors if (found := compare.differences(family, v["case"], v["answer"]))}
    finally:
        oracle_lines.use("1.14")
    assert not bad, f"{len(bad)} of {len(vectors)} disagree, e.g. {next(iter(bad.items()))}"


def test_the_older_lines_apiserver_vectors_tell_the_lines_apart():
    """Answered with the v1.14 CRDs instead, some v1.9 apiserver vectors disagree: the line's CRDs are what count."""
    vectors = _load("v1.9/apiserver.jsonl")
    assert any(compare.differences("apiserver", v["case"], v["answer"]) for v in vectors)
