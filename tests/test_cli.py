"""`karpenter-gpu validate`: one line per finding, a summary, and the exit code."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from karpenter_gpu.cli.main import main
from karpenter_gpu.errors import KarpenterGpuError, echo
from karpenter_gpu.render import escape
from karpenter_gpu.k8s.yaml_writer import dump
from tests import soak
from tests.conftest import find_crds_dir, load, ROOT

CORPUS = ROOT / "tests" / "fixtures" / "seeds"


def crd_args() -> list[str]:
    return ["--crds", str(find_crds_dir())]


def test_bundled_dist_has_no_errors_or_warnings(capsys):
    assert main(["validate", str(ROOT / "dist"), *crd_args(), "--strict"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[-1].startswith("ok: 0 errors, 0 warnings")


def test_findings_name_file_object_path_code(tmp_path, capsys):
    pool = load((ROOT / "dist/prod/NodePool.gpu-inference.k8s.yaml").read_text())
    pool["spec"]["weight"] = 500
    pool["spec"]["template"]["spec"]["kubelet"] = {"maxPods": 110}
    (tmp_path / "pool.yaml").write_text(dump(pool))
    assert main(["validate", str(tmp_path), *crd_args()]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("pool.yaml: NodePool/gpu-inference spec.weight: error KG300") for line in lines)
    assert any("spec.template.spec.kubelet: error KG301" in line for line in lines)
    assert any("KG415" in line for line in lines)  # the rule that explains the v1 move
    assert lines[-1].startswith("FAILED: 2 errors")


def test_strict_fails_on_warnings(tmp_path, capsys):
    shutil.copy(CORPUS / "000_s07_tiered_nodepools.yaml", tmp_path)  # KG403 warnings, no errors
    assert main(["validate", str(tmp_path), *crd_args()]) == 0
    assert main(["validate", str(tmp_path), *crd_args(), "--strict"]) == 1
    assert "warning KG403" in capsys.readouterr().out


def test_corpus_fails(capsys):
    assert main(["validate", str(CORPUS), *crd_args()]) == 1
    out = capsys.readouterr().out
    assert "warning KG401" in out and "KG411" in out


def test_missing_crds_is_a_usage_error(tmp_path, capsys):
    assert main(["validate", str(ROOT / "dist"), "--crds", str(tmp_path)]) == 2
    assert "no CustomResourceDefinitions found" in capsys.readouterr().err


def test_console_script_is_installed_and_starts_no_node_runtime():
    # Validation is pure Python: the CLI must not start jsii (no Node banner, no Node needed).
    script = Path(shutil.which("karpenter-gpu") or ROOT / ".venv/bin/karpenter-gpu")
    result = subprocess.run([str(script), "validate", str(ROOT / "dist"), *crd_args()], capture_output=True,
                            text=True, env={"PATH": "/usr/bin:/bin"}, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "end-of-life" not in result.stderr and "jsii" not in result.stderr


def test_validate_strict_passes_on_synthesized_auto_mode_manifests(tmp_path, capsys):
    import karpenter_gpu
    from tests.conftest import auto_mode_app

    karpenter_gpu.synth([auto_mode_app(tmp_path / "out" / "auto")], tmp_path / "dist")
    assert main(["validate", str(tmp_path / "dist"), *crd_args(), "--strict", "--verbose"]) == 0
    out = capsys.readouterr().out
    # The NodeClass is not claimed schema-valid: it is reported as not schema-checked (info), and checked by KG443.
    assert "NodeClass/gpu-auto" in out and "no public CRD: not schema-checked" in out


#: File names that would forge a line (a newline and a fake summary), rewrite the terminal (erase the line,
#: move the cursor up) or reorder what a reviewer reads (a bidi override).
HOSTILE_NAMES = ["a\nok: 0 errors, 0 warnings in 1 objects (1 files).yaml", "b\r\x1b[2K\x1b[1A.yaml",
                 "c\u202elmay.yaml", "d\u2066x\u2069\u200b\u2028.yaml"]


def _printable_lines(text: str) -> list[str]:
    lines = text.split("\n")
    assert lines[-1] == ""
    assert all(line.isprintable() for line in lines[:-1]), lines
    return lines[:-1]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_finding_and_reader_lines_show_a_hostile_file_name_escaped(tmp_path, capsys, name):
    pool = load((ROOT / "dist/prod/NodePool.gpu-inference.k8s.yaml").read_text())
    pool["spec"]["weight"] = 500
    (tmp_path / name).write_text(dump(pool))
    (tmp_path / f"dup-{name}").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: '1', a: '2'}\n")
    assert main(["validate", str(tmp_path), *crd_args()]) == 1
    lines = _printable_lines(capsys.readouterr().out)
    assert f"{escape.plain(name, None)}: NodePool/gpu-inference spec.weight: error KG300" in "\n".join(lines)
    assert any(line.startswith(f"dup-{escape.plain(name, None)}: ConfigMap/x <line 4>: error KG312") for line in lines)
    assert lines[-1].startswith("FAILED: 2 errors")  # the only summary line is the real one
    # explain stops on the reader's finding: one coded line on stderr, escaped the same way
    assert main(["explain", str(tmp_path), *crd_args()]) == 2
    captured = capsys.readouterr()
    [line] = _printable_lines(captured.err)
    assert line.startswith(f"karpenter-gpu: error: [KG312] dup-{escape.plain(name, None)}: ConfigMap/x")


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_reader_refusal_of_a_hostile_file_name_is_one_line(tmp_path, capsys, name):
    (tmp_path / name).write_text("apiVersion: v1\nkind: [unclosed\n")
    for command in ("validate", "explain"):
        assert main([command, str(tmp_path), *crd_args()]) == 2
        captured = capsys.readouterr()
        [line] = _printable_lines(captured.err)
        assert line.startswith("karpenter-gpu: error: [KG903] ") and escape.plain(name, None) in line


def test_error_echo_keeps_one_error_on_one_line():
    class Odd:
        def __repr__(self) -> str:
            return "odd\nkarpenter-gpu: error: [KG000] forged\x1b[2K\u202e"

    err = KarpenterGpuError("KG100", prop="x", value=Odd(), allowed="anything", fix="none")
    assert str(err).isprintable() and "\\x0a" in str(err) and "\\u202e" in str(err)
    assert echo("a\\nb") == repr("a\\nb")  # printable text is not escaped twice
    assert echo(Odd()).startswith("odd\\x0akarpenter-gpu")


#: Numbers and quantities a manifest or a pod shape may carry: beyond int64, beyond Python's 4,300-digit int
#: conversion, exponents of a billion, durations beyond Go's, dates that do not exist, NaN and infinities.
ODD_NUMBERS = st.one_of(
    st.sampled_from(["1e999999999", "1e-999999999", "9" * 5000, "1e" + "9" * 5000, "99999999999999h",
                     "9223372036854775808", "-9223372036854775809", "100Ei", "1" + "0" * 30 + "%", ".nan", "-.inf",
                     "2024-13-45", "0x" + "f" * 5000, "1_000", "0o777", "1:30:00", "NaN", "1e308", "-0", "1E+20"]),
    st.integers(min_value=-(10**40), max_value=10**40).map(str),
    # ASCII alphabet: the pattern matches ASCII only, so the same strings, without hypothesis building its UTF-8
    # table (2.5 s of CPU, the default alphabet's) for them.
    st.from_regex(r"\A[+-]?[0-9]{1,30}(\.[0-9]{0,5})?([eE][+-]?[0-9]{1,12}|Ki|Mi|Gi|Ei|m|k|E|h|s|%)?\Z",
                  alphabet=st.characters(codec="ascii")),
)
#: Where a NodePool (or a pod shape) holds a number or quantity that the checks convert.
NUMBER_FIELDS = [("spec", "limits", "nvidia.com/gpu"), ("spec", "limits", "cpu"), ("spec", "limits", "memory"),
                 ("spec", "weight"), ("spec", "disruption", "budgets", 0, "nodes"),
                 ("spec", "disruption", "consolidateAfter"), ("spec", "template", "spec", "expireAfter"),
                 ("spec", "disruption", "budgets", 1, "duration"),
                 ("spec", "template", "spec", "requirements", 0, "values", 0),
                 ("spec", "template", "spec", "terminationGracePeriod")]


# The examples: found by this fuzz (2 seeds in 10 at the deep size), a budget count of 5,000 digits was a KG919
# (int() refused it); tests/test_int64.py has the unit cases.
@pytest.mark.soak
@settings(max_examples=soak.size(12, 200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(field=st.sampled_from(NUMBER_FIELDS), number=ODD_NUMBERS, quoted=st.booleans())
@example(field=("spec", "disruption", "budgets", 0, "nodes"), number="9" * 5000, quoted=True)
@example(field=("spec", "disruption", "budgets", 0, "nodes"), number="9" * 5000, quoted=False)
def test_odd_numbers_never_reach_an_internal_error(field, number, quoted):
    pool = load((ROOT / "dist/prod/NodePool.gpu-inference.k8s.yaml").read_text())
    target = pool
    for key in field[:-1]:
        target = target[key]
    target[field[-1]] = "PLACEHOLDER"
    text = dump(pool).replace("PLACEHOLDER", f"'{number}'" if quoted else number)
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "pool.yaml").write_text(text)
        shutil.copy(ROOT / "dist/prod/EC2NodeClass.gpu-inference.k8s.yaml", folder)
        for argv in (["validate", folder, *crd_args()], ["explain", folder, *crd_args(), "--pod", "gpus=1,tolerate=*"],
                     ["explain", folder, *crd_args(), "--pod", f"gpus=1,cpu={number},tolerate=*"]):
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(argv)
            assert "KG919" not in err.getvalue() and "Traceback" not in err.getvalue(), (argv, err.getvalue()[:300])
            assert code in (0, 1, 2) and (code != 2 or err.getvalue().startswith("karpenter-gpu: error: [KG"))


def test_each_file_reads_a_folder_of_independent_examples(tmp_path, capsys):
    pool = load((ROOT / "dist/prod/NodePool.gpu-inference.k8s.yaml").read_text())
    (tmp_path / "example-a.yaml").write_text(dump(pool))
    pool["spec"]["weight"] = 10
    (tmp_path / "example-b.yaml").write_text(dump(pool))
    assert main(["validate", str(tmp_path), *crd_args()]) == 1  # one environment: the same NodePool twice
    assert "error KG313" in capsys.readouterr().out
    assert main(["validate", str(tmp_path), *crd_args(), "--each-file", "--strict"]) == 0
    out = capsys.readouterr().out
    assert "KG313" not in out and out.splitlines()[-1].startswith("ok: 0 errors, 0 warnings")


@pytest.mark.parametrize("tolerations", [5, "x", {"key": "nvidia.com/gpu"}])
def test_a_workload_whose_tolerations_are_not_a_list_is_a_finding_not_an_internal_error(tmp_path, capsys,
                                                                                        tolerations):
    """Found by the deep type-change fuzz (make soak): the rules read a pod's tolerations as a list."""
    for name in ("Deployment.gpu-inference-smoke", "NodePool.gpu-inference", "EC2NodeClass.gpu-inference"):
        shutil.copy(ROOT / "dist" / "prod" / f"{name}.k8s.yaml", tmp_path)
    path = tmp_path / "Deployment.gpu-inference-smoke.k8s.yaml"
    deployment = load(path.read_text())
    deployment["spec"]["template"]["spec"]["tolerations"] = tolerations
    path.write_text(dump(deployment))
    assert main(["validate", str(tmp_path), *crd_args()]) in (0, 1)
    assert "KG919" not in capsys.readouterr().err


def test_validate_imports_only_what_it_runs():
    """A fresh ``validate`` process imports no jsii or cdk8s (Node), no pydantic (the constructs), and nothing only
    another path needs: subprocess (git sides), hashlib (the provenance check), traceback (a bug's report)."""
    import sys

    code = ("import sys; from karpenter_gpu.cli.main import main; main(['validate', 'dist']); "
            "print(sorted(m for m in ('jsii', 'cdk8s', 'pydantic', 'subprocess', 'hashlib', 'traceback') "
            "if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]"


def test_the_command_tunes_its_own_collector_and_main_leaves_the_callers_alone(monkeypatch, capsys):
    """``karpenter-gpu`` / ``python -m karpenter_gpu`` run :func:`command`, which asks for the collector tuning for
    its own short-lived process (unless ``KARPENTER_GPU_TUNE_GC=0``); :func:`main`, what library callers and tests
    call, never touches the collector."""
    import gc
    import tomllib

    from karpenter_gpu import perf
    from karpenter_gpu.cli import main as cli_main

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["karpenter-gpu"] == "karpenter_gpu.cli.main:command"
    suite = gc.get_threshold()
    gc.set_threshold(700, 10, 10)  # Python's default, as a library caller's process has it
    try:
        monkeypatch.setenv(perf.TUNE_GC_ENV, "1")
        assert main(["--version"]) == 0
        assert gc.get_threshold() == (700, 10, 10)
        monkeypatch.setattr(sys, "argv", ["karpenter-gpu", "--version"])
        monkeypatch.setattr(perf, "_COMMAND", {"asked": False})
        monkeypatch.setenv(perf.TUNE_GC_ENV, "0")
        assert cli_main.command() == 0
        assert gc.get_threshold() == (700, 10, 10)  # turned off
        monkeypatch.delenv(perf.TUNE_GC_ENV)
        assert cli_main.command() == 0
        assert gc.get_threshold() == perf.GC_THRESHOLD  # the command asks by itself
    finally:
        gc.set_threshold(*suite)
    assert capsys.readouterr().out.count("karpenter-gpu") == 3


def test_a_command_writes_all_its_output_and_its_code_through_a_pipe(tmp_path):
    """Through a pipe, a large output arrives whole before the process ends, with the command's exit code."""
    bad = tmp_path / "bad"
    shutil.copytree(ROOT / "dist", bad)
    pool = bad / "prod" / "NodePool.gpu-inference.k8s.yaml"
    pool.write_text(pool.read_text().replace("weight: 60", "weight: 500"))  # KG300: at most 100
    for args, code in ((["explain", str(ROOT / "dist"), "--format", "json"], 0), (["validate", str(bad)], 1)):
        done = subprocess.run([sys.executable, "-m", "karpenter_gpu", *args], capture_output=True, text=True,
                              cwd=ROOT, timeout=120)
        assert done.returncode == code, done.stderr
        if code == 0:
            assert len(done.stdout) > 10_000 and json.loads(done.stdout)
        else:
            assert "error KG" in done.stdout and done.stdout.endswith("\n")
