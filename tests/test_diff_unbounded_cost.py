"""An environment whose pools were unbounded has no ceiling to compare with: putting limits on them reads "was
unbounded" (not a rise in percent) and ``--fail-on cost-increase`` does not trip on unbounded → bounded."""

from __future__ import annotations

from pathlib import Path

import yaml

from karpenter_gpu.cli.main import main

NODE_CLASS = {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "gpu"},
              "spec": {"role": "R", "amiSelectorTerms": [{"alias": "al2023@v20251103"}],
                       "subnetSelectorTerms": [{"tags": {"k": "v"}}],
                       "securityGroupSelectorTerms": [{"tags": {"k": "v"}}]}}


def _pool(name: str, gpu_limit: int | None, family: str = "g5") -> dict:
    spec: dict = {"template": {"spec": {
        "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
        "requirements": [{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": [family]},
                         {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]}],
        "taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]}},
        "disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "10m"}}
    if gpu_limit is not None:
        spec["limits"] = {"nvidia.com/gpu": str(gpu_limit)}
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name}, "spec": spec}


def _side(folder: Path, *pools: dict) -> str:
    folder.mkdir()
    (folder / "all.yaml").write_text(yaml.safe_dump_all([NODE_CLASS, *pools]), encoding="utf-8")
    return str(folder)


def test_limits_on_unbounded_pools_read_was_unbounded_and_do_not_trip(tmp_path, capsys):
    base = _side(tmp_path / "base", _pool("a", 8), _pool("b", None), _pool("c", None, "g6"))
    head = _side(tmp_path / "head", _pool("a", 8), _pool("b", 16), _pool("c", 16, "g6"))
    assert main(["diff", base, head, "--fail-on", "cost-increase=10"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if "worst-case ceiling" in x)
    assert "unbounded (bounded pools $" in line and line.endswith("(was unbounded)") and "%" not in line


def test_one_pool_bounded_while_another_stays_unbounded_compares_the_pools_bounded_on_both_sides(tmp_path, capsys):
    base = _side(tmp_path / "base", _pool("a", 8), _pool("b", None), _pool("c", None, "g6"))
    head = _side(tmp_path / "head", _pool("a", 8), _pool("b", 16), _pool("c", None, "g6"))
    assert main(["diff", base, head, "--fail-on", "cost-increase=10"]) == 0
    assert "(unbounded before and after)" in capsys.readouterr().out


def test_a_rise_of_a_pool_bounded_on_both_sides_still_trips(tmp_path, capsys):
    base = _side(tmp_path / "base", _pool("a", 8), _pool("b", None))
    head = _side(tmp_path / "head", _pool("a", 32), _pool("b", 16))
    assert main(["diff", base, head, "--fail-on", "cost-increase=10"]) == 1
    assert "fail-on cost-increase=10" in capsys.readouterr().err


def test_a_new_unbounded_pool_still_trips(tmp_path, capsys):
    base = _side(tmp_path / "base", _pool("a", 8))
    head = _side(tmp_path / "head", _pool("a", 8), _pool("b", None))
    assert main(["diff", base, head, "--fail-on", "cost-increase=10"]) == 1
    captured = capsys.readouterr()
    assert "(now unbounded)" in captured.out and "gains pools without a GPU limit (b)" in captured.err


def test_json_gives_no_percentage_against_an_unbounded_side(tmp_path, capsys):
    import json

    base = _side(tmp_path / "base", _pool("a", 8), _pool("b", None))
    head = _side(tmp_path / "head", _pool("a", 8), _pool("b", 16))
    assert main(["diff", base, head, "--format", "json"]) == 0
    env = json.loads(capsys.readouterr().out)["cost"]["environments"][0]
    assert env["increasePercent"] is None and env["unboundedBefore"] == ["b"] and env["unboundedAfter"] == []


def _spot(pool: dict) -> dict:
    pool["spec"]["template"]["spec"]["requirements"][1]["values"] = ["spot"]
    return pool


def test_a_spot_first_choice_at_the_list_price_says_so_in_every_format(tmp_path, capsys):
    import json

    base = _side(tmp_path / "base", _spot(_pool("a", 8)))
    head = _side(tmp_path / "head", _spot(_pool("a", 8, "g6")))
    assert main(["diff", base, head]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "first choice" in x)
    assert line.count("spot/") == 2 and line.count("/h (on-demand list price)") == 2, line
    assert main(["diff", base, head, "--format", "markdown"]) == 0
    row = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("| head | a |"))
    assert row.count("(on-demand list price)") == 2, row
    assert main(["diff", base, head, "--format", "json"]) == 0
    pool = json.loads(capsys.readouterr().out)["cost"]["environments"][0]["pools"][0]
    assert pool["firstChoiceAfter"]["onDemandListPrice"] is True
