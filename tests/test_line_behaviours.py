"""Behaviours that change the scheduler's answer between the Karpenter lines, each encoded once behind the target line
(karpenter_gpu.upstream.BEHAVIOUR_SINCE, read through ControllerSettings.has) and checked on Karpenter v1.9.3's own
answers (tests/oracle/vectors/v1.9/behaviours.jsonl, rebuilt by ``python -m tests.oracle.line_behaviours``)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from karpenter_gpu.analysis.simulator import simulate_pools
from karpenter_gpu.k8s.controller_settings import ControllerSettings
from karpenter_gpu.upstream import BEHAVIOUR_SINCE, DEFAULT_LINE, KARPENTER_LINES, line_has
from tests.oracle import compare
from tests.oracle import lines as oracle_lines
from tests.oracle.line_behaviours import FAMILY, lacking, switched_on

VECTORS = Path(__file__).parent / "oracle" / "vectors"


def _vectors(line: str) -> list[dict]:
    return [json.loads(text) for text in (VECTORS / f"v{line}" / "behaviours.jsonl").read_text().splitlines() if text]


def test_each_behaviour_names_a_release_between_the_lines():
    versions = sorted(tuple(int(p) for p in line.version.split(".")) for line in KARPENTER_LINES.values())
    for name, since in BEHAVIOUR_SINCE.items():
        assert versions[0] < tuple(int(p) for p in since.split(".")) <= versions[-1], name
        assert line_has(DEFAULT_LINE, name) and not line_has("1.9", name)


@pytest.mark.parametrize("behaviour", lacking("1.9"))
def test_the_v1_9_line_is_answered_without_the_behaviour(behaviour):
    """Karpenter v1.9.3's answer is the core's as v1.9, and not the core's once the behaviour is switched on."""
    vectors = [v for v in _vectors("1.9") if v["behaviour"] == behaviour]
    assert vectors, f"no v1.9 vector tells {behaviour} apart"
    oracle_lines.use("1.9")
    try:
        for vector in vectors:
            assert not compare.differences(FAMILY, vector["case"], vector["answer"]), vector["id"]
            with switched_on(behaviour):
                assert compare.differences(FAMILY, vector["case"], vector["answer"]), vector["id"]
    finally:
        oracle_lines.use("1.14")


def _pool(limits: dict) -> list[dict]:
    return [{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "gpu"},
             "spec": {"limits": limits, "template": {"spec": {
                 "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                 "requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In",
                                   "values": ["g6.xlarge"]}]}}}}]


def test_limits_nodes_bounds_a_dynamic_pool_from_v1_11_only():
    """kubernetes-sigs/karpenter#2526: nothing left of limits.nodes stops a dynamic pool on v1.14, not on v1.9,
    where the worst case is bounded by the GPU limit alone."""
    manifests = _pool({"nodes": "0"})
    new, old = (simulate_pools(manifests, settings=replace(ControllerSettings(), line=line))[0]
                for line in ("1.14", "1.9"))
    assert not new.launchable and new.worst_case_hourly == 0
    assert old.launchable
    bounded = _pool({"nodes": "2", "nvidia.com/gpu": "4"})
    new, old = (simulate_pools(bounded, settings=replace(ControllerSettings(), line=line))[0]
                for line in ("1.14", "1.9"))
    assert new.worst_case_hourly * 2 == old.worst_case_hourly


@pytest.fixture
def node_limited(tmp_path):
    """An environment whose one dynamic GPU pool has nothing left of limits.nodes."""
    import yaml

    node_class = {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "default"},
                  "spec": {"amiSelectorTerms": [{"alias": "al2023@v20251103"}], "role": "nodes",
                           "subnetSelectorTerms": [{"tags": {"team": "ml"}}],
                           "securityGroupSelectorTerms": [{"tags": {"team": "ml"}}]}}
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev" / "karpenter.yaml").write_text(yaml.safe_dump_all([node_class, *_pool({"nodes": "0"})]))
    return tmp_path


def test_validate_and_explain_answer_for_the_line(capsys, node_limited):
    """The line --karpenter-version names reaches the core with the settings: KG419 for v1.14 only, and explain's
    pool launches on v1.9."""
    from karpenter_gpu.cli.main import main

    codes = {}
    for line in ("1.9", "1.14"):
        codes[line] = main(["validate", str(node_limited), "--karpenter-version", line])
        out = capsys.readouterr().out
        assert ("KG419" in out) == (line == "1.14"), out
    assert codes == {"1.9": 0, "1.14": 1}
    launchable = {}
    for line in ("1.9", "1.14"):
        assert main(["explain", str(node_limited), "--karpenter-version", line, "--format", "json"]) == 0
        launchable[line] = json.loads(capsys.readouterr().out)["environments"][0]["pools"][0]["launchable"]
    assert launchable == {"1.9": True, "1.14": False}


def test_diff_prices_each_side_as_its_line(tmp_path, capsys):
    """Raising limits.nodes from 0 to 1 on a pool bounded by 4 GPUs: a cost change on v1.14 (nothing could launch
    before), none on v1.9 (limits.nodes bounded nothing); the note names the release either way."""
    import yaml

    from karpenter_gpu.cli.main import main

    node_class = {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "default"},
                  "spec": {"amiSelectorTerms": [{"alias": "al2023@v20251103"}], "role": "nodes",
                           "subnetSelectorTerms": [{"tags": {"team": "ml"}}],
                           "securityGroupSelectorTerms": [{"tags": {"team": "ml"}}]}}
    for side, nodes in (("base", "0"), ("head", "1")):
        (tmp_path / side / "dev").mkdir(parents=True)
        (tmp_path / side / "dev" / "karpenter.yaml").write_text(
            yaml.safe_dump_all([node_class, *_pool({"nodes": nodes, "nvidia.com/gpu": "4"})]))
    changed = {}
    for line in ("1.9", "1.14"):
        assert main(["diff", str(tmp_path / "base"), str(tmp_path / "head"), "--karpenter-version", line,
                     "--format", "json"]) == 0
        out, err = capsys.readouterr()
        changed[line] = [e["environment"] for e in json.loads(out)["cost"]["environments"]]
        assert f"answered for Karpenter v{KARPENTER_LINES[line].version} (--karpenter-version {line})" in err
    assert changed == {"1.9": [], "1.14": ["dev"]}


def test_plan_schedules_as_the_line(tmp_path_factory, capsys, node_limited):
    """plan --karpenter-version: nothing left of limits.nodes leaves the pods Pending on v1.14; v1.9 launches for
    them (the batch scheduler reads the line from the settings), and the answer names the release."""
    from karpenter_gpu.cli.main import main

    workload = tmp_path_factory.mktemp("workloads") / "workload.yaml"  # beside the input, not in it
    workload.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: infer, namespace: ml}\nspec:\n  replicas: 2\n"
        "  selector: {matchLabels: {app: infer}}\n  template:\n    metadata: {labels: {app: infer}}\n    spec:\n"
        "      containers:\n      - {name: main, image: example.com/infer:1, resources: {limits: {nvidia.com/gpu: 1}}}\n")
    answers = {}
    for line in ("1.9", "1.14"):
        assert main(["plan", str(node_limited), "--workload", str(workload), "--karpenter-version", line,
                     "--format", "json"]) == 0
        [env] = json.loads(capsys.readouterr().out)["environments"]
        answers[line] = (env["karpenter"]["version"], len(env["nodeclaims"]), len(env["pending"]))
    assert answers == {"1.9": ("1.9.3", 2, 0), "1.14": ("1.14.1", 0, 2)}
    assert main(["plan", str(node_limited), "--workload", str(workload), "--karpenter-version", "1.9"]) == 0
    assert "note: answered for Karpenter v1.9.3 (--karpenter-version 1.9)" in capsys.readouterr().out


def test_an_auto_mode_pool_answers_as_aws_s_controller_whatever_the_line():
    """EKS Auto Mode pools run under AWS's Karpenter: the environment's line does not change them."""
    manifests = _pool({"nodes": "0"})
    manifests[0]["spec"]["template"]["spec"]["nodeClassRef"] = {"group": "eks.amazonaws.com", "kind": "NodeClass",
                                                                "name": "default"}
    reports = [simulate_pools(manifests, settings=replace(ControllerSettings(), line=line))[0] for line in ("1.9", "1.14")]
    assert reports[0].view.auto_mode
    assert [r.launchable for r in reports] == [False, False]
