"""karpenter_gpu.synth: what it writes (environments, helm values, the marker, modes), what it accepts, and
which folders it refuses to replace.

The other tests of synth are split by concern so the suite's workers share them: replacing an output
(test_pipeline_recovery.py), file system faults (test_pipeline_faults.py), mount points
(test_pipeline_mounts.py), the lock and concurrent runs (test_pipeline_lock.py), kill -9
(test_pipeline_crash.py), the output changed by someone else while synth builds (test_pipeline_races.py).
"""

from __future__ import annotations

import shutil
import sys

import cdk8s
import pytest

import stacks
from karpenter_gpu import GpuPlatform, KarpenterGpuError, synth
from karpenter_gpu import pipeline
from karpenter_gpu.output import HELM_DIR, MARKER
from tests.conftest import ROOT, tree
from tests.pipeline_support import leftovers, spawn


def test_writes_environments_and_helm_values_and_returns_the_report(tmp_path, trees):
    report = synth(stacks.ENVIRONMENTS, tmp_path / "dist")
    # prod: the search and research teams add 5 objects; staging: the Inferentia pool and its smoke workload 2;
    # fleet: Auto Mode, MIG and hybrid nodes, 15 objects
    assert not report.failed() and report.objects == 61
    assert tree(tmp_path / "dist") == trees["b"] == tree(ROOT / "dist")
    assert f"dev/{HELM_DIR}/karpenter.values.yaml" in trees["b"]
    assert leftovers(tmp_path / "dist") == []


def test_a_user_app_is_written_like_a_config(tmp_path, trees):
    app = cdk8s.App(outdir="anywhere/dev")  # only the last part names the environment
    GpuPlatform(app, props=stacks.dev.CONFIG)
    synth([app], tmp_path / "dist")
    assert tree(tmp_path / "dist") == trees["a"]


def test_mappings_are_configs(tmp_path, trees):
    config = {k: getattr(stacks.dev.CONFIG, k) for k in stacks.dev.CONFIG.model_fields_set}
    synth([config], tmp_path / "dist")
    assert tree(tmp_path / "dist") == trees["a"]


@pytest.mark.parametrize("items, match", [
    (lambda: [stacks.dev.CONFIG, stacks.dev.CONFIG], "environment='dev'.*one item per environment"),
    (lambda: [42], r"items\[0\]='int'"),
    (lambda: [cdk8s.App(outdir="/")], "environment=''"),
], ids=["duplicate-environment", "not-a-config", "unnamed-app"])
def test_bad_items_fail_with_kg802_and_write_nothing(items, match, tmp_path):
    with pytest.raises(KarpenterGpuError, match=match) as raised:
        synth(items(), tmp_path / "dist")
    assert raised.value.code == "KG802"
    assert not (tmp_path / "dist").exists() and leftovers(tmp_path / "dist") == []


def test_output_must_be_a_real_folder(tmp_path):
    (tmp_path / "file").write_text("x")
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    for name in ("file", "link"):
        with pytest.raises(KarpenterGpuError) as raised:
            synth([stacks.dev.CONFIG], tmp_path / name)
        assert raised.value.code == "KG803"


def test_the_current_folder_and_its_parents_are_never_replaced(tmp_path, monkeypatch):
    work = tmp_path / "repo" / "sub"
    work.mkdir(parents=True)
    (work / "keep.txt").write_text("mine")
    monkeypatch.chdir(work)
    for out in (".", "..", str(tmp_path), "/"):
        with pytest.raises(KarpenterGpuError, match="not the current folder or one of its parents") as raised:
            synth([stacks.dev.CONFIG], out)
        assert raised.value.code == "KG803"
    assert (work / "keep.txt").read_text() == "mine" and sorted(p.name for p in tmp_path.iterdir()) == ["repo"]


def test_validation_failure_keeps_the_old_output(synthesized, tmp_path, trees):
    out = tmp_path / "dist"
    shutil.copytree(synthesized["a"], out)  # an output of dev written by synth
    app = cdk8s.App(outdir="prod")
    pool = GpuPlatform(app, props=stacks.prod.CONFIG).inference[0]
    cdk8s.ApiObject.of(pool.resource).add_json_patch(cdk8s.JsonPatch.replace("/spec/weight", 500))
    with pytest.raises(pipeline.SynthFailed) as failed:
        synth([app], out)
    assert failed.value.code == "KG801" and "KG300" in {f.code for f in failed.value.report.findings}
    assert tree(out) == trees["a"] and leftovers(out) == []
    # The library prints nothing: the message itself carries the failing findings and their count.
    errors = [f.line() for f in failed.value.report.findings if f.severity == "error"]
    message = str(failed.value)
    assert f"correct the {len(errors)} failing finding" in message and errors[0] in message
    assert "printed above" not in message and len(message.splitlines()) == 1


def test_validation_failure_message_quotes_the_first_findings_and_counts_the_rest(tmp_path):
    from karpenter_gpu.apiserver.findings import Finding, Severity
    from karpenter_gpu.check.validate import Report

    findings = tuple(Finding(f"dev/NodePool.p{i}.k8s.yaml", "NodePool", f"p{i}", "spec.weight", "KG300",
                             Severity.ERROR, "too big") for i in range(5))
    warning = Finding("dev/NodePool.w.k8s.yaml", "NodePool", "w", "spec", "KG401", Severity.WARNING, "a warning")
    report = Report(findings + (warning,), objects=6, files=6)
    message = str(pipeline.SynthFailed(report, tmp_path / "dist"))
    assert "correct the 5 failing findings: " in message and "(and 2 more in .report.findings)" in message
    assert findings[2].line() in message and findings[3].line() not in message and "KG401" not in message
    strict = str(pipeline.SynthFailed(report, tmp_path / "dist", strict=True))
    assert "correct the 6 failing findings" in strict
    printed = str(pipeline.SynthFailed(report, tmp_path / "dist", printed=True))
    assert "printed above" in printed and findings[0].line() not in printed


def test_files_and_folders_follow_the_umask(tmp_path):
    out = tmp_path / "dist"
    child = spawn(f"""
        import stacks, karpenter_gpu
        karpenter_gpu.synth([stacks.dev.CONFIG], {str(out)!r})
        karpenter_gpu.synth([stacks.dev.CONFIG], {str(out)!r})  # the replacement too, not only the first
    """, umask=0o027)
    assert child.wait(timeout=120) == 0, child.stderr.read()
    modes = {p.relative_to(out).as_posix(): p.stat().st_mode & 0o777 for p in [out, *out.rglob("*")]}
    assert modes["."] == 0o750 and modes["dev"] == 0o750 and modes[f"dev/{HELM_DIR}"] == 0o750
    assert modes["dev/NodePool.gpu-inference.k8s.yaml"] == 0o640
    assert modes[f"dev/{HELM_DIR}/karpenter.values.yaml"] == 0o640


# --- what synth may replace -------------------------------------------------------------------


def test_the_output_carries_a_marker_listing_every_file_it_wrote(tmp_path):
    out = tmp_path / "dist"
    synth([stacks.dev.CONFIG], out)
    lines = (out / MARKER).read_text().splitlines()
    listed = [line for line in lines[1:] if not line.startswith("#")]
    written = sorted(p.relative_to(out).as_posix() + ("/" if p.is_dir() else "") for p in out.rglob("*")
                     if p.name != MARKER)
    assert lines[0] == "karpenter-gpu-output 1" and listed == written
    assert "dev/" in listed and f"dev/{HELM_DIR}/karpenter.values.yaml" in listed


def test_a_folder_of_someone_elses_files_is_refused_and_every_file_kept(tmp_path):
    out = tmp_path / "mine"
    (out / "dev").mkdir(parents=True)
    (out / "notes.txt").write_text("mine")
    (out / "dev" / "NodePool.x.k8s.yaml").write_text("kind: NodePool\n")
    before = tree(out)
    with pytest.raises(KarpenterGpuError, match=r"notes.txt.*no marker.*choose an empty or new folder") as raised:
        synth([stacks.dev.CONFIG], out)
    assert raised.value.code == "KG804" and raised.value.value == str(out)
    assert tree(out) == before and leftovers(out) == []


def test_a_file_added_to_a_marked_output_is_refused_and_named(synthesized, tmp_path):
    out = tmp_path / "dist"
    shutil.copytree(synthesized["a"], out)  # an output of dev written by synth
    (out / "dev" / "my-extra.yaml").write_text("kind: Mine\n")
    (out / "mine").mkdir()
    (out / "mine" / "a.txt").write_text("a")
    before = tree(out)
    with pytest.raises(KarpenterGpuError, match=r"dev/my-extra.yaml, mine not listed there \(added since: refused, not deleted"
                       ) as raised:
        synth(stacks.ENVIRONMENTS, out)
    assert raised.value.code == "KG805" and tree(out) == before and leftovers(out) == []


def test_a_repository_root_is_refused(tmp_path):
    out = tmp_path / "repo"
    (out / ".git").mkdir(parents=True)
    (out / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    with pytest.raises(KarpenterGpuError, match="repository root") as raised:
        synth([stacks.dev.CONFIG], out)
    assert raised.value.code == "KG806" and sorted(tree(out)) == [".git/HEAD"]


def test_the_apps_own_source_folder_is_refused(tmp_path, monkeypatch):
    package = tmp_path / "my_stacks"
    package.mkdir()
    (package / "__init__.py").write_text("import stacks\nENVIRONMENTS = [stacks.dev.CONFIG]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    # Imported without writing __pycache__/ into the package (as Python does unless PYTHONDONTWRITEBYTECODE is
    # set): the folder then holds only what the test put there, whatever the environment.
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    import my_stacks  # type: ignore[import-not-found]

    with pytest.raises(KarpenterGpuError, match=r"Python source this program runs.*module my_stacks") as raised:
        synth(my_stacks.ENVIRONMENTS, package)
    assert raised.value.code == "KG806" and sorted(tree(package)) == ["__init__.py"]
    with pytest.raises(KarpenterGpuError, match="module stacks") as raised:  # this repository's stacks/
        synth(stacks.ENVIRONMENTS, ROOT / "stacks")
    assert raised.value.code == "KG806"


def test_an_output_written_before_the_marker_is_adopted_once(synthesized, tmp_path, trees):
    out = tmp_path / "dist"
    shutil.copytree(synthesized["a"], out)  # an output of dev written by synth
    (out / MARKER).unlink()  # as every output was before the marker
    synth(stacks.ENVIRONMENTS, out)
    assert tree(out) == trees["b"]
    (out / MARKER).unlink()
    (out / "README.md").write_text("mine")  # not something synth writes: not adopted
    with pytest.raises(KarpenterGpuError, match=r"README.md") as raised:
        synth(stacks.ENVIRONMENTS, out)
    assert raised.value.code == "KG804" and (out / "README.md").read_text() == "mine"


def test_an_environment_named_helm_is_refused(tmp_path):
    config = {**{k: getattr(stacks.dev.CONFIG, k) for k in stacks.dev.CONFIG.model_fields_set}, "environment": "helm"}
    with pytest.raises(KarpenterGpuError, match=r"a name other than 'helm'.*Fix: rename the environment") as raised:
        synth([config], tmp_path / "dist")
    assert raised.value.code == "KG802" and not (tmp_path / "dist").exists()
