"""`karpenter-gpu validate`: one line per finding, a summary, and the exit code."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import yaml

from karpenter_gpu.cli.main import main
from tests.conftest import ROOT, find_crds_dir

CORPUS = ROOT / "tests" / "fixtures" / "seeds"


def crd_args() -> list[str]:
    return ["--crds", str(find_crds_dir())]


def test_bundled_dist_has_no_errors_or_warnings(capsys):
    assert main(["validate", str(ROOT / "dist"), *crd_args(), "--strict"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[-1].startswith("ok: 0 errors, 0 warnings")


def test_findings_name_file_object_path_code(tmp_path, capsys):
    pool = yaml.safe_load((ROOT / "dist/prod/NodePool.gpu-inference.k8s.yaml").read_text())
    pool["spec"]["weight"] = 500
    pool["spec"]["template"]["spec"]["kubelet"] = {"maxPods": 110}
    (tmp_path / "pool.yaml").write_text(yaml.safe_dump(pool))
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


def test_each_file_reads_a_folder_of_independent_examples(tmp_path, capsys):
    pool = yaml.safe_load((ROOT / "dist/prod/NodePool.gpu-inference.k8s.yaml").read_text())
    (tmp_path / "example-a.yaml").write_text(yaml.safe_dump(pool))
    pool["spec"]["weight"] = 10
    (tmp_path / "example-b.yaml").write_text(yaml.safe_dump(pool))
    assert main(["validate", str(tmp_path), *crd_args()]) == 1  # one environment: the same NodePool twice
    assert "error KG313" in capsys.readouterr().out
    assert main(["validate", str(tmp_path), *crd_args(), "--each-file", "--strict"]) == 0
    out = capsys.readouterr().out
    assert "KG313" not in out and out.splitlines()[-1].startswith("ok: 0 errors, 0 warnings")
