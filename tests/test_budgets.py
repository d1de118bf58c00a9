"""k8s/budgets.py: GetAllowedDisruptionsByReason per reason, now and over a week (the oracle's budgets family checks
the same function against Karpenter on generated cases)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from karpenter_gpu.k8s.budgets import DEFAULT_BUDGETS, allowed_by_reason, budgets_of, is_active, week_segments
from karpenter_gpu.k8s.disruption import INT32_MAX

MONDAY = datetime(2027, 3, 1, tzinfo=UTC)  # a Monday
WORKDAYS = {"nodes": "0", "schedule": "0 9 * * 1-5", "duration": "10h", "reasons": ["Drifted"]}


def test_default_budget_is_ten_percent_rounded_up():
    assert budgets_of({"spec": {}}) == list(DEFAULT_BUDGETS)
    assert allowed_by_reason(budgets_of({"spec": {}}), 11, MONDAY) == {"Empty": 2, "Drifted": 2, "Underutilized": 2}
    assert budgets_of({"spec": {"disruption": {"budgets": [{"reasons": ["Empty"]}]}}}) == \
        [{"nodes": "10%", "reasons": ["Empty"]}]


def test_no_budget_is_unbounded_and_empty_reasons_apply_to_none():
    assert allowed_by_reason([], 3, MONDAY)["Empty"] == INT32_MAX
    assert allowed_by_reason([{"nodes": "0", "reasons": []}], 3, MONDAY)["Drifted"] == INT32_MAX


@pytest.mark.parametrize(("when", "drifted"), [
    (MONDAY.replace(hour=8, minute=59), 3), (MONDAY.replace(hour=9), 0), (MONDAY.replace(hour=18, minute=59), 0),
    (MONDAY.replace(hour=19), 3), (datetime(2027, 3, 6, 10, tzinfo=UTC), 3),  # Saturday
])
def test_a_scheduled_budget_blocks_only_while_active(when, drifted):
    got = allowed_by_reason([WORKDAYS, {"nodes": "3"}], 20, when)
    assert got == {"Empty": 3, "Drifted": drifted, "Underutilized": 3}


def test_a_schedule_that_never_fires_is_always_active():
    assert is_active({"nodes": "0", "schedule": "0 0 30 2 *", "duration": "1h"}, MONDAY)


def test_counts_beyond_int32_wrap_and_unreadable_ones_fail_closed():
    assert allowed_by_reason([{"nodes": "4294967297"}], 5, MONDAY)["Empty"] == 1
    assert allowed_by_reason([{"nodes": "lots"}], 5, MONDAY)["Empty"] == 0
    assert allowed_by_reason([{"nodes": "1", "schedule": "61 * * * *", "duration": "1h"}], 5, MONDAY)["Empty"] == 0


def test_week_segments_cut_at_starts_and_ends():
    segments = week_segments([WORKDAYS], 4, MONDAY)
    assert [(s.start.isoformat(), s.allowed["Drifted"]) for s in segments[:3]] == [
        ("2027-03-01T00:00:00+00:00", INT32_MAX), ("2027-03-01T09:00:00+00:00", 0),
        ("2027-03-01T19:00:00+00:00", INT32_MAX)]
    assert len(segments) == 11 and segments[-1].end == datetime(2027, 3, 8, tzinfo=UTC)
    assert all(s.allowed["Empty"] == INT32_MAX for s in segments)


# --- explain --node-count / --nodes: the budgets per reason, now and over the week -----------------------------------

@pytest.fixture
def _crds(monkeypatch):
    from tests.conftest import find_crds_dir

    monkeypatch.setenv("KARPENTER_GPU_CRDS", str(find_crds_dir()))


def _explain(capsys, *args: str) -> tuple[int, str, str]:
    from karpenter_gpu.cli.main import main
    from tests.conftest import ROOT

    code = main(["explain", str(ROOT / "dist"), "--env", "prod", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.usefixtures("_crds")
def test_explain_node_count_shows_budgets_now_and_over_the_week_in_the_pools_zone(capsys):
    import json

    code, out, _ = _explain(capsys, "--node-count", "10", "--now", "2027-03-01T10:00:00+09:00")
    assert code == 0
    # gpu-training blocks every reason on workdays 09:00-19:00 Seoul time (its DisruptionWindow, compiled to UTC)
    assert ("gpu-training budgets for 10 node(s): now (2027-03-01T10:00:00+09:00 Asia/Seoul) Empty 0, Drifted 0, "
            "Underutilized 0") in out
    assert "gpu-training budgets over the week (Asia/Seoul): Empty 1, Drifted 1, Underutilized 1 otherwise" in out
    assert ("Mon 09:00-19:00, Tue 09:00-19:00, Wed 09:00-19:00, Thu 09:00-19:00, Fri 09:00-19:00: Empty 0, "
            "Drifted 0, Underutilized 0") in out
    code, out, _ = _explain(capsys, "--node-count", "10", "--now", "2027-03-01T20:00:00+09:00", "--format", "json")
    pools = {p["name"]: p for p in json.loads(out)["environments"][0]["pools"]}
    assert pools["gpu-training"]["budgets"]["now"] == {"Empty": 1, "Drifted": 1, "Underutilized": 1}
    assert pools["gpu-training"]["budgets"]["week"][1]["start"] == "2027-03-01T09:00:00+09:00"


@pytest.mark.usefixtures("_crds")
def test_explain_nodes_counts_each_pools_nodes(capsys, tmp_path):
    import yaml

    from tests.test_cluster_nodes import READY, claim

    claims = [claim(f"n{i}", pool_name="gpu-inference") for i in range(3)]
    for c in claims:
        c["metadata"]["labels"].update(READY)
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump_all(claims))
    code, out, err = _explain(capsys, "--nodes", str(path), "--now", "2027-03-01T10:00:00Z")
    assert code == 0, err
    assert "gpu-inference budgets for 3 node(s)" in out and "gpu-training budgets for 0 node(s)" in out


@pytest.mark.usefixtures("_crds")
def test_explain_without_a_count_shows_no_budgets(capsys):
    code, out, _ = _explain(capsys)
    assert code == 0 and "budgets for" not in out


@pytest.mark.usefixtures("_crds")
@pytest.mark.parametrize("args", [("--now", "yesterday"), ("--now", "2027-03-01T10:00:00"), ("--node-count", "-1")])
def test_explain_bad_now_or_count_is_kg756(capsys, args):
    code, _, err = _explain(capsys, *args)
    assert code == 2 and err.count("\n") == 1 and "[KG756]" in err
