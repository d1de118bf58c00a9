"""The seed-004 example (examples/seed-004/) and its page (docs/guides/workload-plan.md): the page is what `plan`
answers for the example, and the facts its prose states hold."""

from __future__ import annotations

import importlib.util
import json
from decimal import Decimal
from types import ModuleType

import pytest

from karpenter_gpu.cli.main import main
from tests.conftest import ROOT

EXAMPLE = ROOT / "examples" / "seed-004"


@pytest.fixture(scope="module")
def tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("seed_example", ROOT / "tools" / "seed_example.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_page_is_what_plan_answers_for_the_example(tool, capsys):
    assert tool.main(["--check"]) == 0, capsys.readouterr().err


def test_a_stale_page_fails_the_check(tool, tmp_path, monkeypatch, capsys):
    page = tmp_path / "workload-plan.md"
    page.write_text(tool.PAGE.read_text(encoding="utf-8").replace("g6.12xlarge", "g5.2xlarge"))
    monkeypatch.setattr(tool, "PAGE", page)
    assert tool.main(["--check"]) == 1
    assert tool.main([]) == 0 and tool.main(["--check"]) == 0


def _plan(capsys, variant: str) -> dict:
    assert main(["plan", str(EXAMPLE / variant), "--workload", str(EXAMPLE / "jobs.yaml"),
                 "--aws", str(EXAMPLE / "spot-prices.json"), "--format", "json"]) == 0
    [env] = json.loads(capsys.readouterr().out)["environments"]
    return env


def test_the_story_the_page_tells(capsys):
    without, with_overlay, one_gpu = (_plan(capsys, v) for v in ("without", "with", "one-gpu"))
    # Karpenter packs the four one-GPU pods onto one four-GPU NodeClaim, overlay or not
    for plan in (without, with_overlay):
        [claim] = plan["nodeclaims"]
        assert len(claim["pods"]) == 4 and not plan["pending"]
    assert without["nodeclaims"][0]["instance_type"] == "g5.12xlarge"
    # the overlay moves the launch to the next cheapest four-GPU type, billed without the overlay, and dearer
    assert with_overlay["nodeclaims"][0]["instance_type"] == "g6.12xlarge"
    assert Decimal(with_overlay["hourly"]["total"]) > Decimal(without["hourly"]["total"])
    # one-GPU types only: one node per pod, the lowest $/h of the three
    assert len(one_gpu["nodeclaims"]) == 4
    assert Decimal(one_gpu["hourly"]["total"]) < Decimal(without["hourly"]["total"])
