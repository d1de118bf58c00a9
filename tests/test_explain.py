"""`karpenter-gpu explain`: tables, markdown + SVG report and stable JSON from the bundled dist/."""

from __future__ import annotations

import html
import json
import re
import urllib.parse

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

from karpenter_gpu.analysis.explain import MAX_MARKDOWN, render_markdown
from karpenter_gpu.cli.main import main
from karpenter_gpu.render import escape
from karpenter_gpu.k8s.yaml_writer import dump
from tests.conftest import find_crds_dir, load, ROOT


@pytest.fixture(autouse=True)
def _crds(monkeypatch):
    """explain and diff check Karpenter objects against the CRDs: the ones beside the checkout, never a download."""
    monkeypatch.setenv("KARPENTER_GPU_CRDS", str(find_crds_dir()))


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


def test_neuron_pod_lands_on_the_inferentia_pool(capsys):
    data = json.loads(run(capsys, "--format", "json", "--env", "staging", "--pod",
                          "neuron=1,cpu=2,memory=8Gi,tolerate=aws.amazon.com/neuron"))
    [staging] = data["environments"]
    assert staging["pod"]["first_choice"] == {"pool": "neuron-inference", "instance": "inf2.xlarge"}
    assert staging["pod"]["shape"].startswith("aws.amazon.com/neuron=1")
    pool = next(p for p in staging["pools"] if p["name"] == "neuron-inference")
    assert pool["gpu_names"] == ["inferentia2"] and pool["worst_case_hourly"] == "31.485760"  # 16 x inf2.8xlarge
    # GPU pools do not advertise aws.amazon.com/neuron: a pod tolerating every taint still fits none of them.
    anywhere = json.loads(run(capsys, "--format", "json", "--env", "staging", "--pod", "neuroncore=2,tolerate=*"))
    fits = {f["pool"]: f["instance"] for f in anywhere["environments"][0]["pod"]["fits"]}
    assert fits.pop("neuron-inference") == "inf2.xlarge" and set(fits.values()) == {None}


def test_markdown_report_with_svg_timelines(capsys, tmp_path):
    out = run(capsys, "--format", "markdown", "--out", str(tmp_path))
    assert "| pool | kind |" in out and "![disruption timeline](disruption-prod.svg)" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["disruption-dev.svg", "disruption-fleet.svg",
                                                          "disruption-prod.svg", "disruption-staging.svg",
                                                          "explain.md"]
    assert (tmp_path / "disruption-prod.svg").read_text().startswith("<svg")


@pytest.mark.parametrize("bad", ["gpus=x", "colour=red", "neuron=-1"])
def test_bad_pod_shape_is_a_coded_error(capsys, bad):
    assert main(["explain", str(ROOT / "dist"), "--pod", bad]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    [line] = captured.err.splitlines()
    assert line.startswith("karpenter-gpu: error: [KG710] ")


@pytest.mark.parametrize("args, code", [
    (["--env", "qa"], "KG908"),
    (["--zone", "Mars/Olympus"], "KG151"),
    (["--catalog", "/no/such/catalog.json"], "KG701"),
    (["--format", "pdf"], "KG911"),
])
def test_bad_options_are_one_coded_line_and_exit_2(capsys, args, code):
    assert main(["explain", str(ROOT / "dist"), *args]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert f"[{code}]" in line


def test_out_folder_that_cannot_be_written_is_kg910(capsys, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["explain", str(ROOT / "dist"), "--format", "markdown", "--out", str(blocker / "sub")]) == 2
    assert "[KG910]" in capsys.readouterr().err


def test_reader_findings_stop_explain(capsys, tmp_path):
    pool = (ROOT / "dist/prod/NodePool.gpu-inference.k8s.yaml").read_text()
    (tmp_path / "a.yaml").write_text(pool)
    (tmp_path / "b.yaml").write_text(pool)
    assert main(["explain", str(tmp_path)]) == 2
    assert "[KG313]" in capsys.readouterr().err


@pytest.mark.parametrize("pod", ["mig-1g.10gb=1,tolerate=nvidia.com/gpu",
                                 "nvidia.com/mig-1g.10gb=1,tolerate=nvidia.com/gpu"])
def test_mig_pod_lands_on_the_mig_pool(capsys, chart, tmp_path, pod):

    from karpenter_gpu import GpuInferencePool, GpuNodeClass, MigPartitionedPool
    from tests.conftest import manifests

    nc = GpuNodeClass(chart, "Class", name="gpu", ami="al2023@v20251103", role="R", cluster_name="c")
    GpuInferencePool(chart, "Inference", node_class=nc, name="gpu-inference", gpu_limit=8)
    MigPartitionedPool(chart, "Mig", node_class=nc, name="gpu-mig", gpu_limit=16, mig_config="all-1g.10gb")
    for i, m in enumerate(manifests(chart)):
        (tmp_path / f"{i}.yaml").write_text(dump(m))
    gates = tmp_path.parent / f"{tmp_path.name}.values.yaml"  # the MIG overlays need the nodeOverlay gate
    gates.write_text("settings:\n  featureGates:\n    nodeOverlay: true\n")
    assert main(["explain", str(tmp_path), "--format", "json", "--pod", pod, "--karpenter-values", str(gates)]) == 0
    fits = json.loads(capsys.readouterr().out)["environments"][0]["pod"]
    # the cheapest type whose overlay gives 1g.10gb: p5.4xlarge (1 x H100 = 7 devices)
    assert fits["first_choice"] == {"pool": "gpu-mig", "instance": "p5.4xlarge"}
    reasons = {f["pool"]: f["reason"] for f in fits["fits"]}
    assert "short of nvidia.com/mig-1g.10gb" in reasons["gpu-inference"]


@pytest.mark.parametrize("bad", ["mig-1g.10gb=0", "mig-1g.10gb=1,gpus=2", "mig-1g.10gb=1,mig-2g.20gb=1"])
def test_bad_mig_pod_shape_is_a_coded_error(capsys, bad):
    assert main(["explain", str(ROOT / "dist"), "--pod", bad]) == 2
    assert "KG710" in capsys.readouterr().err


def test_auto_mode_pools_list_candidates_and_worst_case(tmp_path, capsys):
    """A synthesized Auto Mode environment (eks.amazonaws.com keys): candidates, worst case, no feature gates, and a
    pod selecting the Auto Mode labels lands there."""
    import karpenter_gpu
    from tests.conftest import auto_mode_app

    karpenter_gpu.synth([auto_mode_app(tmp_path / "out" / "auto")], tmp_path / "dist", strict=True)
    assert main(["explain", str(tmp_path / "dist"), "--format", "json",
                 "--pod", "gpus=1,tolerate=nvidia.com/gpu,select=eks.amazonaws.com/compute-type=auto"]) == 0
    [env] = json.loads(capsys.readouterr().out)["environments"]
    pools = {p["name"]: p for p in env["pools"]}
    inference = pools["auto-inference"]
    assert inference["candidates"] and all(c.startswith(("g5.", "g6.", "gr6.")) for c in inference["candidates"])
    assert inference["worst_case_hourly"] is not None and inference["gpu_names"] == ["a10g", "l4"]
    assert all(p["feature_gates"] == [] for p in pools.values())  # static on Auto Mode: no staticCapacity gate
    assert pools["auto-warm-static"]["candidates"]
    first = env["pod"]["first_choice"]
    assert first is not None and first["pool"] in pools and first["instance"]


def test_fleet_explains_an_auto_mode_a_mig_and_a_hybrid_pod(capsys):
    """Issue 15's three kinds of GPU node in the bundled fleet environment, each pod on its own kind."""
    def first(pod: str) -> dict:
        data = json.loads(run(capsys, "--format", "json", "--env", "fleet", "--pod", pod))
        return data["environments"][0]["pod"]["first_choice"]

    data = json.loads(run(capsys, "--format", "json", "--env", "fleet"))
    pools = {p["name"]: p for p in data["environments"][0]["pools"]}
    assert {n: p["kind"] for n, p in pools.items()} == {"auto-inference": "dynamic", "gpu-mig": "dynamic",
                                                        "seoul-dc1-a100": "hybrid"}
    assert all(p["candidates"] for p in pools.values())
    assert first("gpus=1,tolerate=nvidia.com/gpu,select=eks.amazonaws.com/compute-type=auto")["pool"] == \
        "auto-inference"
    assert first("mig-1g.10gb=1,tolerate=nvidia.com/gpu") == {"pool": "gpu-mig", "instance": "p5.4xlarge"}
    assert first("gpus=8,tolerate=nvidia.com/gpu,tolerate=on-premises,select=eks.amazonaws.com/compute-type=hybrid") \
        == {"pool": "seoul-dc1-a100", "instance": "8x a100 hybrid node"}


#: Text a manifest (or a folder name) may carry that would be markup, a mention, a forged row or hidden text.
HOSTILE = ('<img src="https://evil.example/p.png"> <a href="https://evil.example">y</a> <details><summary>s</summary>'
           ' [x](https://evil.example) @octocat #12 \r\n| a | b |\n<!-- No changes. \u202eevil\u2066 `tick` |pipe| '
           '\x1b[2K')
#: The only elements the report's own template makes.
TEMPLATE_ELEMENTS = {"h3", "table", "thead", "tbody", "tr", "th", "td", "ul", "li", "p", "img"}


def _hostile_dist(root):
    """One environment, named with hostile text, whose pool, hybrid group and overlay carry hostile text where
    explain shows it: the windows annotation, the hybrid group's GPU name and location, an overlay name."""
    env = root / "hx<img src=x>@octocat `e` |"
    env.mkdir(parents=True)
    pool = load((ROOT / "dist/prod/NodePool.gpu-inference.k8s.yaml").read_text())
    pool["metadata"]["annotations"]["karpenter-gpu.io/disruption-windows"] = "budgets[1]: " + "x" * 70_000 + HOSTILE
    (env / "NodePool.yaml").write_text(dump(pool))
    (env / "EC2NodeClass.yaml").write_text((ROOT / "dist/prod/EC2NodeClass.gpu-inference.k8s.yaml").read_text())
    group = load((ROOT / "dist/fleet/ConfigMap.hybrid-gpu-seoul-dc1-a100.k8s.yaml").read_text())
    group["data"].update(gpuName=HOSTILE, location=HOSTILE,  # a taint's text shows in the pod-fit reasons
                         taints=json.dumps([{"key": "taint-<b>x</b>", "value": HOSTILE, "effect": "NoSchedule"}]))
    (env / "ConfigMap.yaml").write_text(dump(group))
    overlay = load((ROOT / "dist/prod/NodeOverlay.discourage-multi-gpu.k8s.yaml").read_text())
    overlay["metadata"]["name"] = "ov<img src=x>[x](y)@octocat"
    (env / "NodeOverlay.yaml").write_text(dump(overlay))
    return env


def _explain(capsys, *args) -> str:
    assert main(["explain", *args]) == 0
    return capsys.readouterr().out


def test_hostile_manifest_text_renders_as_text_in_the_markdown_report(capsys, tmp_path):
    env = _hostile_dist(tmp_path / "dist")
    out = tmp_path / "out"
    markdown = _explain(capsys, str(env.parent), "--format", "markdown", "--out", str(out),
                        "--pod", "gpus=1,tolerate=nvidia.com/gpu")
    assert len(markdown) < MAX_MARKDOWN  # the 70,000-character annotation is cut with a count
    assert "more characters" in markdown
    rendered = cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)
    assert set(re.findall(r"<([a-z0-9]+)", rendered)) <= TEMPLATE_ELEMENTS, rendered
    [image] = re.findall(r"<img [^>]*>", rendered)  # the timeline, nothing from the manifests
    src = html.unescape(re.search(r'src="([^"]*)"', image).group(1))
    assert (out / urllib.parse.unquote(src)).is_file()  # the link finds the SVG written for the environment
    assert "<!--" not in rendered and "<a " not in rendered
    text = html.unescape(re.sub(r"<[^>]*>", "", rendered))
    assert not re.search(r"(?<![\w&])(@[A-Za-z0-9]|#[0-9])", text)  # no mention, no issue reference
    text = text.replace("\u200b", "")
    assert not re.search("[\r\x1b\u202e\u2066]", text)
    assert escape.plain(HOSTILE) in text  # shown, literally
    for row in re.findall(r"<tr>.*?</tr>", rendered, re.S):  # every row keeps the table's nine cells
        assert row.count("<td") + row.count("<th") == 9, row
    assert escape.plain(env.name) in text and "ov<img src=x>[x](y)@" in text
    assert f"taint taint-<b>x</b>={escape.plain(HOSTILE)}:NoSchedule is not tolerated" in text


def test_hostile_manifest_text_is_one_line_without_control_characters_in_the_table(capsys, tmp_path):
    env = _hostile_dist(tmp_path / "dist")
    table = _explain(capsys, str(env.parent), "--pod", "gpus=1,tolerate=nvidia.com/gpu")
    assert all(line.isprintable() for line in table.split("\n"))  # no \r, ESC, bidi control or zero-width
    assert f"== {escape.plain(env.name)} ==" in table
    [row] = [line for line in table.split("\n") if line.startswith("seoul-dc1-a100 ")]
    assert escape.plain(HOSTILE) in row and row.endswith("-")  # the row's later cells are still on its line


def test_json_keeps_the_text_as_data(capsys, tmp_path):
    env = _hostile_dist(tmp_path / "dist")
    raw = _explain(capsys, str(env.parent), "--format", "json")
    assert raw.isascii()  # every control and bidi character is a \\u escape
    [data] = json.loads(raw)["environments"]
    assert data["environment"] == env.name
    assert HOSTILE in next(p for p in data["pools"] if p["kind"] == "hybrid")["gpu_names"]


def test_markdown_report_is_cut_to_the_comment_size_with_a_stated_cut():
    pools = [{"name": f"pool-{i}", "kind": "dynamic", "weight": 10, "capacity_types": ["spot"], "zones": [],
              "candidates": ["g5.xlarge"], "offerings": [], "overlaid_offerings": {}, "gpu_names": ["a10g"],
              "price_range": None, "gpu_limit": 8, "worst_case_hourly": None, "launchable": True,
              "notes": ["n" * 200], "feature_gates": [], "windows": []} for i in range(2000)]
    report = render_markdown([{"environment": "big", "zone": "UTC", "notes": [], "pools": pools}])
    assert len(report) <= MAX_MARKDOWN
    tail = report.rsplit("\n", 1)[-1]
    assert re.fullmatch(r"… \d+ more rows, see --format json", tail)
    rendered = cmarkgfm.github_flavored_markdown_to_html(report)
    assert rendered.rstrip().endswith(f"<p>{html.escape(tail, quote=False)}</p>")  # after the table, not a row


@pytest.mark.parametrize("limit", ["1e999999999", "9" * 5000, "100Ei"])
def test_quantity_beyond_int64_in_a_limit_stops_explain_with_a_code(capsys, tmp_path, limit):
    pool = load((ROOT / "dist/prod/NodePool.gpu-inference.k8s.yaml").read_text())
    pool["spec"]["limits"]["nvidia.com/gpu"] = limit
    (tmp_path / "pool.yaml").write_text(dump(pool))
    (tmp_path / "class.yaml").write_text((ROOT / "dist/prod/EC2NodeClass.gpu-inference.k8s.yaml").read_text())
    assert main(["explain", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    [line] = captured.err.splitlines()
    assert line.startswith("karpenter-gpu: error: [KG711] NodePool gpu-inference.spec.limits.nvidia.com/gpu=")


@pytest.mark.parametrize("pod", ["gpus=1,cpu=1e999999999", "gpus=1,memory=1e" + "9" * 5000, "gpus=" + "9" * 5000])
def test_pod_quantity_beyond_int64_is_kg710(capsys, pod):
    assert main(["explain", str(ROOT / "dist"), "--pod", pod]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("karpenter-gpu: error: [KG710] ")


def test_every_column_has_its_header_and_cell_in_one_entry():
    """The table is one list of (header, cell) pairs: with --nodes the node columns come in before the gates, and
    each row has exactly one cell per header."""
    from karpenter_gpu.analysis import explain as analysis
    pool = {"name": "p", "kind": "dynamic", "weight": None, "capacity_types": ["spot"], "candidates": [1, 2],
            "gpu_names": ["a10g"], "price_range": ["1", "2"], "worst_case_hourly": "3", "feature_gates": [],
            "existing_nodes": [{}], "remaining": {}}
    plain, with_nodes = {"pools": [pool]}, {"pools": [pool], "nodes": {}}
    assert analysis._header(plain) == ["pool", "kind", "weight", "capacity", "#types", "GPUs", "$/h", "worst $/h",
                                       "gates"]
    assert analysis._header(with_nodes)[-3:] == ["nodes", "left of limits", "gates"]
    for env in (plain, with_nodes):
        (row,) = analysis._rows(env, str)
        assert len(row) == len(analysis._header(env)) == len(set(analysis._header(env)))
    assert analysis._rows(with_nodes, str)[0][-3:] == ["1", "-", "-"]


def test_pod_asks_for_any_resource(capsys):
    """``res=`` gives the pod any resource: EFA narrows prod's training pools to EFA types, ephemeral storage beyond
    every root volume fits nowhere, a pod ENI request is named not modelled instead of answered."""
    base = "gpus=4,cpu=16,memory=64Gi,tolerate=nvidia.com/gpu"
    efa = json.loads(run(capsys, "--format", "json", "--env", "prod", "--pod", base + ",res=vpc.amazonaws.com/efa:1"))
    pod = efa["environments"][0]["pod"]
    assert pod["first_choice"]["instance"] == "p5.48xlarge" and "vpc.amazonaws.com/efa=1" in pod["shape"]
    huge = json.loads(run(capsys, "--format", "json", "--env", "prod", "--pod", base + ",res=ephemeral-storage:100Ti"))
    pod = huge["environments"][0]["pod"]
    assert pod["first_choice"] is None
    assert any("short of ephemeral-storage" in (f["reason"] or "") for f in pod["fits"])
    text = run(capsys, "--env", "prod", "--pod", base + ",res=vpc.amazonaws.com/pod-eni:1")
    assert "not known (not modelled: vpc.amazonaws.com/pod-eni)" in text


@pytest.mark.parametrize("bad", ["res=vpc.amazonaws.com/efa", "res=example.com/foo:0.5", "res=x:1,foo"])
def test_bad_res_is_a_coded_error(capsys, bad):
    assert main(["explain", str(ROOT / "dist"), "--pod", bad]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("karpenter-gpu: error: [KG710] ")
