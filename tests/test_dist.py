"""dist/: complete, byte-stable, current, and never half-written."""

from __future__ import annotations

import filecmp
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import main
import stacks
from karpenter_gpu import GpuPlatform, KarpenterGpuError, SynthFailed, synth
from karpenter_gpu.output import HELM_DIR, MARKER
from karpenter_gpu.k8s.yaml_loader import Loader
from karpenter_gpu.upstream import KARPENTER_LINES
from tests.conftest import load, ROOT, tree

UPDATE = "run `make synth` to update dist/ (then review and commit the diff)"


@pytest.fixture
def fresh(synthesized) -> Path:
    """A synth of every environment (the test process's one, shared: tests copy it before changing it)."""
    return synthesized["b"]


def test_committed_dist_is_current(fresh):
    committed, new = tree(ROOT / "dist"), tree(fresh)
    stale = sorted(k for k in committed.keys() | new.keys() if committed.get(k) != new.get(k))
    assert not stale, f"dist/ is stale ({', '.join(stale)}): {UPDATE}"


def test_one_folder_per_environment_one_file_per_resource(fresh):
    files = sorted(tree(fresh))
    assert MARKER in files  # the one file at the top: synth's list of what it wrote (not YAML)
    files.remove(MARKER)
    assert {f.split("/")[0] for f in files} == {"dev", "staging", "prod", "fleet"}
    for env in ("dev", "staging", "prod", "fleet"):
        assert f"{env}/{HELM_DIR}/gpu-operator.values.yaml" in files
        assert f"{env}/{HELM_DIR}/karpenter.values.yaml" in files
        manifests = [f for f in files if f.startswith(f"{env}/") and f"/{HELM_DIR}/" not in f]
        kinds = sorted({f.split("/")[1].split(".")[0] for f in manifests})
        expected = (["Deployment", "EC2NodeClass", "NodeOverlay", "NodePool", "PrometheusRule", "ServiceMonitor"]
                    if env != "staging" else
                    ["Deployment", "EC2NodeClass", "NodePool", "PrometheusRule", "ServiceMonitor"])
        if env == "fleet":  # + the hybrid group's description and the Auto Mode NodeClass
            expected = sorted(expected + ["ConfigMap", "NodeClass"])
        assert kinds == expected
        for name in manifests:  # <Kind>.<metadata.name>.k8s.yaml, one object per file
            assert name.endswith(".k8s.yaml") and len(list(yaml.load_all((fresh / name).read_text(), Loader=Loader))) == 1
    assert "prod/NodePool.gpu-warm-static-ap-northeast-2a.k8s.yaml" in files


def test_karpenter_values_enable_the_gates_the_environment_needs(fresh):
    gates = {env: load((fresh / env / HELM_DIR / "karpenter.values.yaml").read_text())
             ["settings"]["featureGates"] for env in ("dev", "staging", "prod")}
    on = {env: sorted(g for g, enabled in values.items() if enabled) for env, values in gates.items()}
    assert on == {"dev": ["nodeOverlay", "reservedCapacity"],  # time-slicing overlays
                  "staging": ["reservedCapacity"],
                  "prod": ["nodeOverlay", "reservedCapacity", "staticCapacity"]}
    # each line's chart renders all of its gates (six on v1.14; v1.9's chart has no capacityBuffer)
    lines = {env: getattr(stacks, env).CONFIG.karpenter_version for env in gates}
    assert {env: tuple(values) for env, values in gates.items()} == {
        env: tuple(g.value for g in KARPENTER_LINES[line].gates) for env, line in lines.items()}


def test_synth_is_byte_identical_across_runs(fresh, tmp_path):
    synth(stacks.ENVIRONMENTS, tmp_path / "again")
    assert tree(tmp_path / "again") == tree(fresh)


def prod_with(section: str, **changes) -> dict:
    """prod's config as a mapping, with props of one section (or the top level) replaced."""
    config = {k: getattr(stacks.prod.CONFIG, k) for k in stacks.prod.CONFIG.model_fields_set}
    if section:
        model = config[section]
        first = model[0] if isinstance(model, tuple) else model  # pool sections are tuples: change the first
        changed = {**{k: getattr(first, k) for k in first.model_fields_set}, **changes}
        config[section] = (changed, *model[1:]) if isinstance(model, tuple) else changed
    else:
        config.update(changes)
    return config


WINDOW = {"days": "MON-FRI", "start": "09:00", "end": "19:00", "nodes": 0}


@pytest.mark.parametrize("bad, code", [
    (prod_with("inference", gpu_limit=0), "KG130"),
    (prod_with("training", weight=500), "KG131"),
    (prod_with("node_class", ami="al2023@latest"), "KG140"),
    (prod_with("training", disruption_windows=({**WINDOW, "time_zone": "Asia/Sejong"},)), "KG151"),
    (prod_with("training", disruption_windows=(WINDOW,)), "KG150"),
], ids=["gpu-limit-0", "weight-500", "unpinned-alias", "unknown-zone", "window-without-zone"])
def test_bad_props_write_nothing(bad, code, fresh, tmp_path, monkeypatch, capsys):
    out = tmp_path / "dist"
    shutil.copytree(fresh, out)  # an existing dist/ (the process's one synth, not one more per case)
    before = tree(out)
    with pytest.raises(KarpenterGpuError) as exc:
        synth((stacks.dev.CONFIG, bad), out)
    assert exc.value.code == code
    assert tree(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dist"]  # no staging folder left behind
    # The command-line entry point reports the coded error and exits non-zero.
    monkeypatch.setattr(stacks, "ENVIRONMENTS", (stacks.dev.CONFIG, bad))
    monkeypatch.setenv("CDK8S_OUTDIR", str(out))
    assert main.main() == 2
    assert f"[{code}]" in capsys.readouterr().err
    assert tree(out) == before


def test_synth_with_invalid_output_exits_non_zero_and_keeps_dist(fresh, tmp_path, monkeypatch, capsys):
    """An escape-hatch patch can write what the constructs refuse; validation inside synth catches it."""
    import cdk8s
    out = tmp_path / "dist"
    shutil.copytree(fresh, out)
    before = tree(out)

    def patched_prod() -> cdk8s.App:
        app = cdk8s.App(outdir="prod")
        pool = GpuPlatform(app, props=stacks.prod.CONFIG).inference[0]
        cdk8s.ApiObject.of(pool.resource).add_json_patch(cdk8s.JsonPatch.replace("/spec/weight", 500))
        return app

    with pytest.raises(SynthFailed) as failed:
        synth([stacks.dev.CONFIG, patched_prod()], out)
    assert failed.value.code == "KG801" and failed.value.report.failed()
    assert tree(out) == before

    monkeypatch.setattr(stacks, "ENVIRONMENTS", lambda: [stacks.dev.CONFIG, patched_prod()])
    monkeypatch.setenv("CDK8S_OUTDIR", str(out))
    assert main.main() == 2
    err = capsys.readouterr().err
    assert "prod/NodePool.gpu-inference.k8s.yaml: NodePool/gpu-inference spec.weight: error KG300" in err
    assert "[KG801]" in err and "dist/ was left unchanged" in err
    assert tree(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dist"]


@pytest.fixture(scope="module")
def seeded(tmp_path_factory) -> dict[str, tuple[subprocess.CompletedProcess, Path]]:
    """The app run as a user runs it, once per hash seed, with no JSII_NODE (the app finds a supported Node
    itself): ``python main.py`` with seed 1 and no Node on PATH either (only the packaged one can be found), and
    ``npm run synth`` (the cdk8s CLI, which runs main.py) with seed 4242. The end-to-end tests below share the two
    runs.

    `npm run synth` is `cdk8s synth --no-check-upgrade` (package.json): the CLI reads its upgrade check only from
    that flag or $CDK8S_CHECK_UPGRADE (no cdk8s.yaml key), so the script carries it; .npmrc turns off npm's own
    version check. Neither variable is set for it, and HOME is empty (no cached version to hide a check).
    """
    runs = {}
    env = {k: v for k, v in os.environ.items()
           if k not in ("JSII_NODE", "CDK8S_CHECK_UPGRADE") and not k.startswith("npm_config_")}
    out = tmp_path_factory.mktemp("seed-1") / "out"
    runs["main.py"] = (subprocess.run([sys.executable, "main.py"], cwd=ROOT, capture_output=True, text=True,
                                      env={**env, "PYTHONHASHSEED": "1", "CDK8S_OUTDIR": str(out),
                                           "PATH": "/nonexistent"}, timeout=300), out)
    base = tmp_path_factory.mktemp("seed-4242")
    (base / "home").mkdir()
    runs["npm run synth"] = (
        subprocess.run(["npm", "run", "--silent", "synth", "--", "-o", str(base / "out")], cwd=ROOT,
                       env={**env, "PYTHONHASHSEED": "4242", "HOME": str(base / "home")}, capture_output=True,
                       text=True, timeout=300), base / "out")
    return runs


def test_python_main_finds_a_supported_node_without_eol_banner(seeded):
    """Without JSII_NODE, and for main.py without any Node on PATH: jsii runs on the packaged Node LTS, quietly."""
    for result, out in seeded.values():
        assert result.returncode == 0, result.stderr
        assert "end-of-life" not in result.stdout + result.stderr
        assert filecmp.dircmp(out, ROOT / "dist").diff_files == []
    assert seeded["main.py"][0].stderr == ""


def test_output_independent_of_hash_seed_and_free_of_paths_and_timestamps(seeded):
    outputs = [tree(out) for _, out in seeded.values()]
    assert outputs[0] == outputs[1] == tree(ROOT / "dist")
    text = b"".join(outputs[0].values()).decode()
    tmp = str(next(iter(seeded.values()))[1].parent)
    assert str(ROOT) not in text and tmp not in text and "/home/" not in text
    assert not re.search(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}", text)  # no timestamps


def test_cdk8s_synth_cli_runs_quietly_from_the_repositorys_own_configuration(seeded):
    result, out = seeded["npm run synth"]
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # no upgrade notice, no stack trace of a failed version look-up
    assert not (out.parent / "home" / ".cdk8s-cli.version").exists()  # the check did not run
    assert tree(out) == tree(ROOT / "dist")
