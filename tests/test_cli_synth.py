"""karpenter_gpu.cli.synth: ``karpenter-gpu synth --app module:attr --out DIR``."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import stacks
from karpenter_gpu.cli.main import main
from karpenter_gpu.cli.synth import load_app
from tests.conftest import ROOT


def files(directory: Path) -> list[str]:
    return sorted(str(p.relative_to(directory)) for p in directory.rglob("*") if p.is_file())


def test_synthesizes_the_named_configs(tmp_path, capsys):
    assert main(["synth", "--app", "stacks:ENVIRONMENTS", "--out", str(tmp_path / "dist")]) == 0
    assert files(tmp_path / "dist") == files(ROOT / "dist")
    assert capsys.readouterr().out.startswith(f"ok: {tmp_path / 'dist'}/ written (0 errors")


def test_a_single_config_or_a_function_returning_apps(tmp_path, monkeypatch):
    assert main(["synth", "--app", "stacks.dev:CONFIG", "--out", str(tmp_path / "one")]) == 0
    assert sorted(p.name for p in (tmp_path / "one").iterdir()) == [".karpenter-gpu-output", "dev"]

    def build():
        import cdk8s

        from karpenter_gpu import GpuPlatform
        app = cdk8s.App(outdir="staging")
        GpuPlatform(app, props=stacks.staging.CONFIG)
        return app

    monkeypatch.setattr(stacks, "build", build, raising=False)
    assert main(["synth", "--app", "stacks:build", "--out", str(tmp_path / "fn")]) == 0
    assert files(tmp_path / "fn") == [".karpenter-gpu-output"] + [f for f in files(ROOT / "dist")
                                                                   if f.startswith("staging/")]


def test_out_defaults_to_cdk8s_outdir(tmp_path, monkeypatch):
    monkeypatch.setenv("CDK8S_OUTDIR", str(tmp_path / "from-env"))
    assert main(["synth", "--app", "stacks.dev:CONFIG"]) == 0
    assert (tmp_path / "from-env" / "dev").is_dir()


@pytest.mark.parametrize("reference, allowed", [
    ("stacks", "MODULE:ATTR"),
    ("no_such_module_here:X", "an importable module"),
    ("stacks:NOPE", "'NOPE' not found"),
])
def test_bad_app_reference_is_kg802_exit_2(reference, allowed, tmp_path, capsys):
    assert main(["synth", "--app", reference, "--out", str(tmp_path / "dist")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: [KG802] --app=") and allowed in err and len(err.splitlines()) == 1
    assert not (tmp_path / "dist").exists()


def test_bad_props_are_one_coded_line(tmp_path, monkeypatch, capsys):
    bad = {**{k: getattr(stacks.dev.CONFIG, k) for k in stacks.dev.CONFIG.model_fields_set}, "environment": "x y"}
    monkeypatch.setattr(stacks, "BAD", [bad], raising=False)
    assert main(["synth", "--app", "stacks:BAD", "--out", str(tmp_path / "dist")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: [KG") and len(err.splitlines()) == 1


def test_load_app_puts_the_current_folder_on_the_path(tmp_path, monkeypatch):
    (tmp_path / "my_platform.py").write_text("VALUE = [1, 2]\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    assert load_app("my_platform:VALUE") == [1, 2]


def test_console_script_runs_from_another_folder(tmp_path):
    """As a platform repo would: the command, run in the repo, with its own module on the path."""
    (tmp_path / "platform_app.py").write_text("import stacks\nENVS = [stacks.dev.CONFIG]\n")
    exe = Path(sys.executable).with_name("karpenter-gpu")
    done = subprocess.run([str(exe), "synth", "--app", "platform_app:ENVS", "--out", "dist"], cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "dist" / "dev" / "helm" / "karpenter.values.yaml").is_file()


def test_the_ok_line_escapes_control_characters_in_the_path(tmp_path, capsys):
    out = tmp_path / "a\nb\x1b"
    assert main(["synth", "--app", "stacks.dev:CONFIG", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert len(printed.splitlines()) == 1 and f"ok: {tmp_path}/a\\nb\\x1b/ written" in printed
    assert (out / "dev").is_dir()


@pytest.mark.parametrize("source, reference, raised", [
    ("raise RuntimeError('no cluster config')\n", "broken_app:ENVS",
     "importing it raised RuntimeError at {app}:1: no cluster"),
    ("import not_installed_dependency\n", "broken_app:ENVS", "importing it raised ModuleNotFoundError at {app}:1:"),
    ("def build():\n    return {}['missing']\n", "broken_app:build", "calling it raised KeyError at {app}:2: 'missing'"),
    # The innermost frame of the user's code, not of the standard library it called.
    ("import json\n\ndef build():\n    return json.loads('{')\n", "broken_app:build",
     "calling it raised JSONDecodeError at {app}:4: Expecting"),
], ids=["import-time", "missing-dependency", "when-called", "in-a-library-it-called"])
def test_an_exception_of_the_app_code_is_kg808_naming_it(source, reference, raised, tmp_path, monkeypatch, capsys):
    (tmp_path / "broken_app.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "broken_app", raising=False)
    assert main(["synth", "--app", reference, "--out", str(tmp_path / "dist")]) == 2
    err = capsys.readouterr().err
    raised = raised.format(app=tmp_path / "broken_app.py")
    assert err.startswith(f"error: [KG808] --app={reference!r}") and raised in err and len(err.splitlines()) == 1
    assert "KG919" not in err and not (tmp_path / "dist").exists()


def test_out_naming_the_apps_own_package_is_refused(tmp_path, monkeypatch, capsys):
    (tmp_path / "platform_pkg").mkdir()
    (tmp_path / "platform_pkg" / "__init__.py").write_text("import stacks\nENVS = [stacks.dev.CONFIG]\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["synth", "--app", "platform_pkg:ENVS", "--out", "platform_pkg"]) == 2
    assert "[KG806]" in capsys.readouterr().err
    assert [f for f in files(tmp_path / "platform_pkg") if not f.startswith("__pycache__")] == ["__init__.py"]


def test_lock_timeout_gives_up_with_the_holders_pid(tmp_path, capsys):
    out = tmp_path / "dist"
    holder = subprocess.Popen(
        [sys.executable, "-c", "from pathlib import Path\nfrom karpenter_gpu.output.lock import locked\n"
         f"with locked(Path({str(out)!r})):\n    print('locked', flush=True)\n    import time; time.sleep(60)\n"],
        cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        assert main(["synth", "--app", "stacks.dev:CONFIG", "--out", str(out), "--lock-timeout", "0.2"]) == 2
    finally:
        holder.kill()
        holder.wait(timeout=30)
    err = capsys.readouterr().err
    assert f"waiting for the synth lock on {tmp_path} (held by pid {holder.pid})" in err
    assert "error: [KG807] lock_timeout=0.2" in err and f"held by pid {holder.pid}" in err


def test_an_environment_fault_is_coded_never_kg919(tmp_path, monkeypatch, capsys):
    real = os.mkdir

    def full(path, *args, **kwargs):
        if str(path).startswith(str(tmp_path)):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "mkdir", full)
    assert main(["synth", "--app", "stacks.dev:CONFIG", "--out", str(tmp_path / "dist")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: [KG930] path=") and "ENOSPC" in err and len(err.splitlines()) == 1


# --- synth --check: the committed output against a fresh synth, written elsewhere --------------------------------


def snapshot(folder: Path) -> dict[str, tuple[int, int, bytes | str]]:
    """Every entry under ``folder`` (symlinks not followed): mode, mtime and bytes (or link target)."""
    out: dict[str, tuple[int, int, bytes | str]] = {"": (folder.lstat().st_mode, folder.lstat().st_mtime_ns, b"")}
    for path in sorted(folder.rglob("*")):
        info = path.lstat()
        content = os.readlink(path) if path.is_symlink() else path.read_bytes() if path.is_file() else b""
        out[str(path.relative_to(folder))] = (info.st_mode, info.st_mtime_ns, content)
    return out


@pytest.fixture(scope="module")
def committed(tmp_path_factory) -> Path:
    """A fresh synth of stacks.dev: the committed output the --check tests start from (each copies it)."""
    out = tmp_path_factory.mktemp("committed") / "dist"
    assert main(["synth", "--app", "stacks.dev:CONFIG", "--out", str(out)]) == 0
    return out


def check(out: Path) -> int:
    return main(["synth", "--check", "--app", "stacks.dev:CONFIG", "--out", str(out)])


def test_check_passes_on_a_fresh_synth_and_touches_nothing(committed, tmp_path, capsys):
    out = tmp_path / "dist"
    shutil.copytree(committed, out, symlinks=True, copy_function=shutil.copy2)
    before, parent_before = snapshot(out), sorted(os.listdir(tmp_path))
    capsys.readouterr()
    assert check(out) == 0
    printed = capsys.readouterr()
    assert printed.out == f"ok: {out}/ is what synth writes ({printed.out.split('(', 1)[1]}" and "written" not in printed.out
    assert snapshot(out) == before and sorted(os.listdir(tmp_path)) == parent_before  # no staging or lock file beside


def test_check_names_an_edited_file_and_leaves_it(committed, tmp_path, capsys):
    out = tmp_path / "dist"
    shutil.copytree(committed, out)
    pool = out / "dev" / "NodePool.gpu-inference.k8s.yaml"
    pool.write_text(pool.read_text().replace("  weight: 60\n", "  weight: 61\n", 1))
    before = snapshot(out)
    capsys.readouterr()
    assert check(out) == 1
    printed = capsys.readouterr()
    assert printed.out == f"differs: {pool}\n"  # the marker lists the same files: not named
    assert printed.err.endswith(f"error: {out}/ is stale: 1 entry differs from a fresh synth of stacks.dev:CONFIG; run "
                                f"`karpenter-gpu synth --app stacks.dev:CONFIG --out {out}` and commit the result\n")
    assert snapshot(out) == before


def test_check_names_extra_and_missing_files_one_line_each_escaped(committed, tmp_path, capsys):
    out = tmp_path / "dist"
    shutil.copytree(committed, out)
    (out / "dev" / "notes\n\x1b[31m.yaml").write_text("kind: x\n")
    (out / "dev" / "zero.k8s.yaml").symlink_to("/dev/zero")  # never read (it is not a regular file)
    (out / "qa" / "deep").mkdir(parents=True)
    (out / "qa" / "deep" / "a.yaml").write_text("a: 1\n")
    (out / "dev" / "helm" / "karpenter.values.yaml").unlink()
    before = snapshot(out)
    capsys.readouterr()
    assert check(out) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"missing: {out}/dev/helm/karpenter.values.yaml",
        f"extra: {out}/dev/notes\\n\\x1b[31m.yaml",
        f"extra: {out}/dev/zero.k8s.yaml",
        f"extra: {out}/qa/",  # one line for a folder synth does not write
    ]
    assert snapshot(out) == before


def test_check_names_a_file_replaced_by_a_symlink_to_the_same_bytes(committed, tmp_path, capsys):
    out = tmp_path / "dist"
    shutil.copytree(committed, out)
    pool = out / "dev" / "NodePool.gpu-inference.k8s.yaml"
    (tmp_path / "elsewhere.yaml").write_bytes(pool.read_bytes())
    pool.unlink()
    pool.symlink_to(tmp_path / "elsewhere.yaml")
    capsys.readouterr()
    assert check(out) == 1
    assert capsys.readouterr().out == f"differs: {pool}\n"


@pytest.mark.parametrize("change, line", [
    (lambda out: (out / ".karpenter-gpu-output").unlink(), "missing: {out}/.karpenter-gpu-output"),
    (lambda out: (out / ".karpenter-gpu-output").write_text(
        (out / ".karpenter-gpu-output").read_text().replace("# Written", "# Edited", 1)),
     "differs: {out}/.karpenter-gpu-output"),
], ids=["marker-missing", "marker-alone-differs"])
def test_check_names_the_marker_when_it_alone_is_stale(committed, tmp_path, capsys, change, line):
    out = tmp_path / "dist"
    shutil.copytree(committed, out)
    change(out)
    capsys.readouterr()
    assert check(out) == 1
    assert capsys.readouterr().out == line.format(out=out) + "\n"


def test_check_does_not_name_the_marker_beside_the_files_that_change_it(committed, tmp_path, capsys):
    out = tmp_path / "dist"
    shutil.copytree(committed, out)
    marker = out / ".karpenter-gpu-output"
    marker.write_text(marker.read_text() + "dev/Gone.k8s.yaml\n")  # as an older synth that wrote one more file
    (out / "dev" / "Gone.k8s.yaml").write_text("kind: Gone\n")
    capsys.readouterr()
    assert check(out) == 1
    assert capsys.readouterr().out == f"extra: {out}/dev/Gone.k8s.yaml\n"


@pytest.mark.parametrize("make, what", [
    (lambda p: None, "absent"),
    (lambda p: p.write_text("x"), "a file"),
    (lambda p: p.symlink_to(ROOT / "dist"), "a symlink"),
])
def test_check_of_a_path_that_is_not_a_folder_is_kg816(tmp_path, capsys, make, what):
    out = tmp_path / "dist"
    make(out)
    assert check(out) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: [KG816] outdir='{out}'") and f"this path is {what}" in err
    assert len(err.splitlines()) == 1


def test_check_of_bad_input_is_exit_2_and_no_scratch_folder_is_left(committed, tmp_path, monkeypatch, capsys):
    from karpenter_gpu import synth_check

    out = tmp_path / "dist"
    shutil.copytree(committed, out)
    monkeypatch.setattr(synth_check.tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    assert main(["synth", "--check", "--app", "no_such_module_here:X", "--out", str(out)]) == 2
    assert "[KG802]" in capsys.readouterr().err
    bad = {**{k: getattr(stacks.dev.CONFIG, k) for k in stacks.dev.CONFIG.model_fields_set}, "environment": "x y"}
    monkeypatch.setattr(stacks, "BAD", [bad], raising=False)
    assert main(["synth", "--check", "--app", "stacks:BAD", "--out", str(out)]) == 2
    assert capsys.readouterr().err.startswith("error: [KG")
    assert check(out) == 0
    assert os.listdir(tmp_path / "tmp") == []  # the fresh synths' scratch folders are removed


def test_an_app_of_two_clusters_writes_one_folder_per_cluster(tmp_path, monkeypatch, capsys):
    """The clusters guide's App (prod and staging, the same object names in both) through `karpenter-gpu synth`:
    each cluster gets its own folder, as a PlatformConfig would, instead of KG171 for their shared file names."""
    from tests.doc_examples import example_after
    code = example_after("docs/guides/clusters.md", "# Clusters, teams and construction order")
    (tmp_path / "two_clusters.py").write_text(code, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["synth", "--app", "two_clusters:app", "--out", str(tmp_path / "out")]) == 0, capsys.readouterr().err
    out = tmp_path / "out"
    assert sorted(p.name for p in out.iterdir()) == [".karpenter-gpu-output", "prod", "staging"]
    for env in ("prod", "staging"):
        names = sorted(p.name for p in (out / env).iterdir())
        assert "NodePool.search-serve.k8s.yaml" in names and "helm" in names
        assert (out / env / "helm" / "karpenter.values.yaml").read_text().count(f"ml-{env}") >= 1
