"""The oracle's schema-driven generator (tests/oracle/schema_gen.py) and coverage table (tests/oracle/coverage.py),
without Go."""

from __future__ import annotations

import random
import re

import pytest

from tests.oracle import coverage, schema_gen
from tests.oracle.apiserver_family import bases


def _bases(kind: str) -> list[dict]:
    return [b for b in bases(False) if b["kind"] == kind]


@pytest.mark.parametrize("kind", sorted(schema_gen.CRD_FILES))
def test_every_settable_leaf_gets_an_admitted_draw(kind):
    """Each leaf of the CRD (status and metadata aside) is set by some admitted draw within a few tries."""
    rng = random.Random(kind)
    missing = []
    for path in schema_gen.settable(kind):
        for _ in range(60):
            base = rng.choice(_bases(kind))
            obj = schema_gen.draw(rng, kind, base, edits=1, paths=[path], tries=1)
            if obj != base and path in schema_gen.leaves_set(kind, obj):  # not the base given back
                assert schema_gen.admitted(obj)
                break
        else:
            missing.append(path)
    assert not missing


def test_leaf_paths_cover_the_schema_and_the_allow_list_names_its_reasons():
    paths = schema_gen.leaf_paths("NodePool")
    assert "spec.template.spec.requirements[].minValues" in paths and "spec.limits" in paths
    assert "spec.template.spec.requirements[]" not in paths  # a list of objects is no leaf
    assert schema_gen.allowed_unset("status.conditions[].type") and schema_gen.allowed_unset("metadata")
    assert schema_gen.allowed_unset("spec.weight") is None


def test_without_removes_a_leaf_in_every_list_item():
    pool = {"spec": {"template": {"spec": {"requirements": [{"key": "a", "operator": "In", "minValues": 1},
                                                            {"key": "b", "operator": "Exists", "minValues": 2}]}}}}
    out = schema_gen.without(pool, "spec.template.spec.requirements[].minValues")
    assert "spec.template.spec.requirements[].minValues" not in schema_gen.leaves_set("NodePool", out)
    assert schema_gen.leaves_set("NodePool", out) == {"spec.template.spec.requirements[].key",
                                                      "spec.template.spec.requirements[].operator"}
    assert pool["spec"]["template"]["spec"]["requirements"][0]["minValues"] == 1  # a copy


@pytest.mark.parametrize("pattern", [r"^cr-[0-9a-z]+$", r"^[0-9]{12}$", r"ami-[0-9a-z]+",
                                     r"^(([0-9]+(s|m|h))+|Never)$", r"^((100|[0-9]{1,2})%|[0-9]+)$"])
def test_strings_drawn_from_a_pattern_match_it(pattern):
    rng = random.Random(pattern)
    assert all(re.search(pattern, schema_gen.from_pattern(rng, pattern)) for _ in range(50))


def test_karpenter_reads_refuses_what_its_go_types_cannot_decode():
    """Admitted by the CRD patterns, refused by resource.Quantity / metav1.Duration (tests/oracle/FINDINGS.md)."""
    assert not schema_gen.karpenter_reads("NodePool", {"spec": {"limits": {"memory": ".3E+0."}}})
    assert schema_gen.karpenter_reads("NodePool", {"spec": {"limits": {"memory": "64Gi", "cpu": 8}}})
    grace = {"spec": {"kubelet": {"evictionSoftGracePeriod": {"memory.available": "rk"}}}}
    assert not schema_gen.karpenter_reads("EC2NodeClass", grace)
    grace["spec"]["kubelet"]["evictionSoftGracePeriod"]["memory.available"] = "1m30s"
    assert schema_gen.karpenter_reads("EC2NodeClass", grace)
    size = {"spec": {"blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {"volumeSize": "T"}}]}}
    assert not schema_gen.karpenter_reads("EC2NodeClass", size)


def test_the_coverage_table_counts_sets_and_changes_and_names_what_no_case_set():
    table = coverage.Coverage()
    pool = _bases("NodePool")[0]
    with_weight = {**pool, "spec": {**pool["spec"], "weight": 10}}
    requests = [{"id": "a", "family": "apiserver", "case": {"object": with_weight}},
                {"id": "b", "family": "apiserver", "case": {"object": pool}}]

    def run(variants: list[dict]) -> list[dict]:  # weight matters, nothing else does
        return [{"answer": {"weighted": "weight" in v["case"]["object"]["spec"]}} for v in variants]

    table.add("apiserver", requests, run(requests), run)
    assert table.set["apiserver"][("NodePool", "spec.weight")] == 1
    assert table.changed["apiserver"][("NodePool", "spec.weight")] == 1
    assert table.changed["apiserver"][("NodePool", "spec.template.spec.nodeClassRef.name")] == 0
    assert "NodePool spec.disruption.budgets[].schedule" in table.unset()
    row = next(line for line in table.lines() if line.startswith("NodePool spec.weight "))
    assert row.split()[-2:] == ["1", "(1/1)"]
