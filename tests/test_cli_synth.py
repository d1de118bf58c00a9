"""karpenter_gpu.cli.synth: ``karpenter-gpu synth --app module:attr --out DIR``."""

from __future__ import annotations

import errno
import os
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
        [sys.executable, "-c", "from pathlib import Path\nfrom karpenter_gpu.pipeline import _locked\n"
         f"with _locked(Path({str(out)!r})):\n    print('locked', flush=True)\n    import time; time.sleep(60)\n"],
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
