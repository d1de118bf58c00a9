"""karpenter_gpu.analysis.diff.admission: both sides as the API server stores them (CRD defaults) or refuses them."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from karpenter_gpu.analysis.diff import Category, classify, cost_changes, load_side
from karpenter_gpu.cli.main import main
from karpenter_gpu.apiserver.conformance import load_crds
from tests.conftest import find_crds_dir
from tests.test_diff import node_class, objects, pool, template, write

#: The defaults diff relies on, each as (CRD file, the line that sets it in the CRD, that line with another value).
#: What diff says on stderr of the release its answer is for, when neither --karpenter-version nor values name one.
DEFAULT_NOTE = ("karpenter-gpu: note: prod: answered for Karpenter v1.14.1 (the default: no --karpenter-version and "
                "no controller.image.tag in the Karpenter values)")
_DEFAULTS = [
    ("karpenter.sh_nodepools.yaml", "default: 720h", "default: 336h"),
    ("karpenter.sh_nodepools.yaml", "- nodes: 10%", "- nodes: 5%"),
    ("karpenter.sh_nodepools.yaml", "default: WhenEmptyOrUnderutilized", "default: WhenEmpty"),
    ("karpenter.k8s.aws_ec2nodeclasses.yaml", "httpTokens: required", "httpTokens: optional"),
]


def _spelled_out_and_omitted(tmp_path: Path) -> tuple[dict, dict]:
    """Base spells out the v1.14.1 defaults, head omits them."""
    spelled = objects()
    pool(spelled)["disruption"] = {"consolidateAfter": "0s", "consolidationPolicy": "WhenEmptyOrUnderutilized",
                                   "budgets": [{"nodes": "10%"}]}
    omitted = objects()
    del pool(omitted)["disruption"]
    del template(omitted)["expireAfter"]
    del node_class(omitted)["metadataOptions"]
    return (load_side(str(write(tmp_path / "base", spelled))), load_side(str(write(tmp_path / "head", omitted))))


def test_spelled_out_crd_defaults_are_no_change(tmp_path):
    base, head = _spelled_out_and_omitted(tmp_path)
    assert classify(base, head) == []


def test_defaults_are_read_from_the_crds_not_typed_again(tmp_path):
    # Each default changed in a copy of the CRDs: the omitted side now defaults to the new value, so a
    # default typed into diff (rather than read from the CRD) would make this find no change.
    base, head = _spelled_out_and_omitted(tmp_path)
    for file_name, line, other in _DEFAULTS:
        crd_dir = tmp_path / f"crds-{other.split()[-1]}"
        shutil.copytree(find_crds_dir(), crd_dir)
        text = (crd_dir / file_name).read_text()
        assert text.count(line) == 1, line
        (crd_dir / file_name).write_text(text.replace(line, other))
        changes = classify(base, head, crds=load_crds(crd_dir))
        value = other.split()[-1]
        assert len(changes) == 1 and any(value in r for r in changes[0].reasons), (line, changes)


# ------------------------------------------------------------------------------------ API-server refusals


def _mutate(files: dict, field: str) -> None:
    if field == "spec.weight":
        pool(files)["weight"] = 101
    elif field == "spec.disruption.budgets[0].nodes":
        pool(files)["disruption"]["budgets"] = [{"nodes": "1 node"}, {"nodes": "101%"}]
    else:
        template(files)["expireAfter"] = "30d"


def _sides(tmp_path: Path, base: dict, head: dict) -> tuple[str, str]:
    return str(write(tmp_path / "base", base)), str(write(tmp_path / "head", head))


@pytest.mark.parametrize(("field", "why"), [
    ("spec.weight", "101 is above the maximum 100"),
    ("spec.disruption.budgets[0].nodes", "'1 node' does not match pattern"),
    ("spec.template.spec.expireAfter", "'30d' does not match pattern"),
])
def test_an_object_the_api_server_refuses_is_refused(tmp_path, capsys, field, why):
    head = objects()
    _mutate(head, field)
    base_dir, head_dir = _sides(tmp_path, objects(), head)
    [change] = classify(load_side(base_dir), load_side(head_dir))
    assert (change.name, change.category) == ("gpu-inference", Category.REFUSED)
    assert any(r.startswith(f"{field}: {why}") and r.endswith("(KG300)") for r in change.reasons), change.reasons
    assert change.reasons[-1] == "the API server refuses the object, so nothing of this change to it applies"
    assert main(["diff", base_dir, head_dir, "--fail-on", "drift"]) == 0
    capsys.readouterr()
    assert main(["diff", base_dir, head_dir, "--fail-on", "refused"]) == 1
    err = capsys.readouterr().err
    assert err == (f"{DEFAULT_NOTE}\n"  # every answer names the release it is for
                   "karpenter-gpu: fail-on refused: 1 change is refused by the API server "
                   "(prod NodePool gpu-inference)\n")


def test_both_budgets_are_named(tmp_path):
    head = objects()
    _mutate(head, "spec.disruption.budgets[0].nodes")
    [change] = classify(load_side(_sides(tmp_path, objects(), head)[0]), load_side(str(tmp_path / "head")))
    assert [r.split(":")[0] for r in change.reasons[:-1]] == ["spec.disruption.budgets[0].nodes",
                                                              "spec.disruption.budgets[1].nodes"]


def test_a_refused_update_leaves_the_cluster_as_it_was(tmp_path):
    # the API server keeps the base object: the taint and the doubled limit of the refused head change nothing
    head = objects()
    _mutate(head, "spec.weight")
    template(head)["taints"] = []
    pool(head)["limits"]["nvidia.com/gpu"] = "128"
    base, head_side = load_side(_sides(tmp_path, objects(), head)[0]), load_side(str(tmp_path / "head"))
    assert [c.category for c in classify(base, head_side)] == [Category.REFUSED]
    assert cost_changes(base, head_side).environments == ()


def test_a_static_pool_with_gpu_limits_is_refused_by_cel(tmp_path):
    head = objects()
    pool(head)["replicas"] = 2  # a static pool may only limit nodes, and has no weight (x-kubernetes-validations)
    refused = [c for c in classify(load_side(_sides(tmp_path, objects(), head)[0]), load_side(str(tmp_path / "head")))
               if c.category is Category.REFUSED]
    assert [c.name for c in refused] == ["gpu-inference"]
    assert any(r.endswith("(KG302)") for r in refused[0].reasons), refused[0].reasons


def test_a_karpenter_kind_at_an_unserved_version_is_refused(tmp_path):
    head = objects()
    head["NodePool.gpu-inference.k8s.yaml"]["apiVersion"] = "karpenter.sh/v1beta1"
    changes = classify(load_side(_sides(tmp_path, objects(), head)[0]), load_side(str(tmp_path / "head")))
    [change] = changes  # the v1 pool stays: refused is all that happens, no drain
    assert change.category is Category.REFUSED and "v1beta1/NodePool is not served" in change.reasons[0]


def test_a_refused_base_object_is_compared_as_absent(tmp_path):
    base = objects()
    _mutate(base, "spec.weight")
    changes = classify(load_side(_sides(tmp_path, base, objects())[0]), load_side(str(tmp_path / "head")))
    assert [(c.name, c.category) for c in changes] == [("gpu-inference", Category.NEW), ("gpu-inference", Category.INFO)]
    assert changes[1].reasons == ("base: spec.weight: 101 is above the maximum 100 (KG300)",
                                  "the API server refuses the base object, so it is compared as absent")


def test_refused_on_both_sides_is_refused_once(tmp_path):
    base, head = objects(), objects()
    _mutate(base, "spec.weight")
    _mutate(head, "spec.weight")
    [change] = classify(load_side(_sides(tmp_path, base, head)[0]), load_side(str(tmp_path / "head")))
    assert change.category is Category.REFUSED and change.reasons[-1].endswith("; the base object is refused too")


def test_an_object_written_the_same_on_both_sides_is_checked_and_defaulted_once(tmp_path, monkeypatch):
    from karpenter_gpu.analysis.diff import admission

    calls: list[str] = []
    real_assess, real_defaults = admission.assess, admission.apply_defaults
    monkeypatch.setattr(admission, "assess", lambda m, *a, **k: calls.append("assess") or real_assess(m, *a, **k))
    monkeypatch.setattr(admission, "apply_defaults",
                        lambda m, *a, **k: calls.append("default") or real_defaults(m, *a, **k))
    base, head = objects(), objects()
    _mutate(base, "spec.weight")
    _mutate(head, "spec.weight")  # refused on both sides, written the same
    node_class(head)["tags"] = {"team": "b"}  # the only object that differs
    base_side = load_side(_sides(tmp_path, base, head)[0])
    admitted = admission.admit(base_side, load_side(str(tmp_path / "head")))
    checked = sum(key[0] != "helm" for objs in base_side.values() for key in objs)  # Helm values are not objects
    assert calls.count("assess") == checked + 1  # every base object, then the one head object that differs
    assert [(r.side, r.key[1]) for r in admitted.refusals] == [("head", "NodePool"), ("base", "NodePool")]
    assert calls.count("default") == (checked - 1) + 1  # the kept base objects, then the changed node class


# ------------------------------------------------------------------------------------- --fail-on lines


def test_fail_on_says_which_conditions_hit(tmp_path, capsys):
    head = objects()
    del head["NodePool.gpu-warm-static.k8s.yaml"]
    template(head)["taints"] = []
    pool(head)["limits"]["nvidia.com/gpu"] = "128"
    base_dir, head_dir = _sides(tmp_path, objects(), head)
    assert main(["diff", base_dir, head_dir, "--fail-on", "drift", "refused", "cost-increase=5"]) == 1
    note, *lines = capsys.readouterr().err.splitlines()
    assert note == DEFAULT_NOTE  # every answer names the release it is for
    assert lines[0] == ("karpenter-gpu: fail-on drift: 2 changes replace nodes or drain a pool "
                        "(prod NodePool gpu-warm-static, prod NodePool gpu-inference)")
    assert re.fullmatch(r"karpenter-gpu: fail-on cost-increase=5: prod \+\d+\.\d%", lines[1]), lines
    assert len(lines) == 2  # refused did not hit
    assert main(["diff", base_dir, head_dir, "--fail-on", "refused", "cost-increase=500"]) == 0
    assert capsys.readouterr().err == f"{DEFAULT_NOTE}\n"
