"""`karpenter-gpu diff --workload`: what a manifest change does to the plan of the same workloads (the real command)."""

from __future__ import annotations

import json

import pytest
import yaml

from karpenter_gpu.cli.main import main
from tests.conftest import find_crds_dir
from tests.test_plan import NODE_CLASS, deployment, pool


@pytest.fixture(autouse=True)
def _crds(monkeypatch):
    monkeypatch.setenv("KARPENTER_GPU_CRDS", str(find_crds_dir()))


def _sides(tmp_path, before: dict, after: dict) -> tuple[str, str]:
    for name, nodepool in (("base", before), ("head", after)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "pools.yaml").write_text(yaml.safe_dump_all([nodepool, NODE_CLASS]))
    work = tmp_path / "vllm.yaml"
    work.write_text(yaml.safe_dump(deployment("vllm", 5)))
    return str(tmp_path / "base"), str(tmp_path / "head")


def test_raising_the_limit_frees_the_pending_pod_and_changes_the_nodeclaims(capsys, tmp_path):
    base, head = _sides(tmp_path, pool(gpus=4), pool(gpus=8))
    assert main(["diff", base, head, "--workload", str(tmp_path / "vllm.yaml"), "--format", "json"]) == 0
    [env] = json.loads(capsys.readouterr().out)["workloads"]
    assert env["no_longer_pending"] == ["ml/vllm-4"] and env["newly_pending"] == []
    assert [c["instance_type"] for c in env["nodeclaims_removed"]] == ["g4dn.12xlarge"]
    assert sum(c["count"] for c in env["nodeclaims_added"]) == 1
    assert env["hourly_before"] == "3.912" and env["hourly_after"] != env["hourly_before"]


def test_lowering_the_limit_makes_pods_pending_in_the_text_report(capsys, tmp_path):
    base, head = _sides(tmp_path, pool(gpus=8), pool(gpus=4))
    assert main(["diff", base, head, "--workload", str(tmp_path / "vllm.yaml")]) == 0
    out = capsys.readouterr().out
    assert "Workload plan:" in out and "head: newly Pending ml/vllm-4:" in out
    assert "head: +1 NodeClaim(s) gpu g4dn.12xlarge on-demand -" in out


def test_an_unchanged_plan_says_so_and_without_workload_nothing_is_added(capsys, tmp_path):
    same = pool(gpus=4)
    changed = json.loads(json.dumps(same))
    changed["spec"]["weight"] = 10
    base, head = _sides(tmp_path, same, changed)
    assert main(["diff", base, head, "--workload", str(tmp_path / "vllm.yaml"), "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "#### Workload plan" in out and "(the plan does not change)" in out
    assert main(["diff", base, head, "--format", "json"]) == 0
    assert "workloads" not in json.loads(capsys.readouterr().out)


def test_a_bad_workload_stops_diff_with_one_coded_line(capsys, tmp_path):
    base, head = _sides(tmp_path, pool(), pool())
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
                                   "spec": {"parallelism": 1.5, "template": {"spec": {"containers": [{}]}}}}))
    assert main(["diff", base, head, "--workload", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "[KG751]" in err
