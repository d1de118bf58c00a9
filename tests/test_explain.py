"""`karpenter-gpu explain`: tables, markdown + SVG report and stable JSON from the bundled dist/."""

from __future__ import annotations

import json

import pytest

from karpenter_gpu.cli.main import main
from tests.conftest import ROOT


def run(capsys, *args: str) -> str:
    assert main(["explain", str(ROOT / "dist"), *args]) == 0
    return capsys.readouterr().out


def test_table_per_environment(capsys):
    out = run(capsys)
    for env in ("dev", "staging", "prod"):
        assert f"== {env} ==" in out
    assert "pool" in out and "worst $/h" in out and "gpu-training-reserved" in out


def test_json_is_stable(capsys, snapshot):
    first = run(capsys, "--format", "json")
    assert run(capsys, "--format", "json") == first
    assert json.loads(first) == snapshot


def test_json_facts_for_prod(capsys):
    data = json.loads(run(capsys, "--format", "json", "--env", "prod"))
    [prod] = data["environments"]
    pools = {p["name"]: p for p in prod["pools"]}
    assert pools["gpu-training-reserved"]["feature_gates"] == ["reservedCapacity"]
    assert pools["gpu-warm-static-ap-northeast-2a"]["candidates"] == ["g5.xlarge"]
    assert "staticCapacity" in pools["gpu-warm-static-ap-northeast-2a"]["feature_gates"]
    assert pools["gpu-training"]["windows"][0]["utc"] == "0 0 * * MON-FRI for 10h"
    assert prod["zone"] == "Asia/Seoul"
    # Equal weights (search-inference and gpu-inference, 60) go by name, descending, as Karpenter orders them.
    assert [p["name"] for p in prod["pools"]][:4] == ["gpu-training-reserved", "gpu-training", "search-inference",
                                                     "gpu-inference"]


def test_pod_fit_names_pool_and_instance(capsys):
    data = json.loads(run(capsys, "--format", "json", "--env", "prod", "--pod",
                          "gpus=4,cpu=16,memory=64Gi,tolerate=nvidia.com/gpu"))
    pod = data["environments"][0]["pod"]
    assert pod["first_choice"] == {"pool": "gpu-training-reserved", "instance": "p5.48xlarge"}
    static = [f for f in pod["fits"] if f["pool"].startswith("gpu-warm-static")]
    assert static and all(f["instance"] is None for f in static)


def test_markdown_report_with_svg_timelines(capsys, tmp_path):
    out = run(capsys, "--format", "markdown", "--out", str(tmp_path))
    assert "| pool | kind |" in out and "![disruption timeline](disruption-prod.svg)" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["disruption-dev.svg", "disruption-prod.svg",
                                                          "disruption-staging.svg", "explain.md"]
    assert (tmp_path / "disruption-prod.svg").read_text().startswith("<svg")


@pytest.mark.parametrize("bad", ["gpus=x", "colour=red"])
def test_bad_pod_shape_is_a_coded_error(capsys, bad):
    from karpenter_gpu.errors import KarpenterGpuError
    with pytest.raises(KarpenterGpuError) as exc:
        main(["explain", str(ROOT / "dist"), "--pod", bad])
    assert exc.value.code == "KG710"
