"""``karpenter-gpu validate --format json | sarif``: the findings for machines (CI, code scanning).

JSON: the findings as they are (file, kind, name, field path, code, severity, message), the counts and
whether the run failed. SARIF 2.1.0 (the OASIS standard GitHub code scanning reads): one result per
finding, ``ruleId`` its code, ``level`` from its severity (error / warning / note), located in the
manifest file it came from. The manifest reader keeps no line numbers, so a location names the file
only, never a line; the object (``Kind/name``) and the field path are its logical location.
"""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath
from typing import Any

from karpenter_gpu._version import __version__
from karpenter_gpu.check.findings import Finding, Severity
from karpenter_gpu.check.validate import Report
from karpenter_gpu.errors import CODES

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
#: The file name the manifest reader gives standard input.
_STDIN = "<stdin>"


def _findings(report: Report, verbose: bool) -> list[Finding]:
    return [f for f in report.findings if f.severity != Severity.INFO or verbose]


def as_json(report: Report, *, strict: bool, verbose: bool) -> str:
    counts = report.counts()
    document = {
        "findings": [{"file": f.file, "kind": f.kind, "name": f.name, "path": f.path, "code": f.code,
                      "severity": str(f.severity), "message": f.message} for f in _findings(report, verbose)],
        "errors": counts[Severity.ERROR], "warnings": counts[Severity.WARNING], "info": counts[Severity.INFO],
        "objects": report.objects, "files": report.files, "failed": report.failed(strict),
    }
    return json.dumps(document, indent=2, ensure_ascii=False)


def artifact_uri(root: str, file: str) -> str | None:
    """The file's path as given on the command line (relative stays relative), ``/``-separated; None for stdin."""
    if not file or file == _STDIN or root == "-":
        return None
    base = Path(root)
    path = base if base.is_file() else base / file
    return PurePosixPath(*path.parts).as_posix() if not path.is_absolute() else path.as_uri()


def as_sarif(report: Report, root: str, *, verbose: bool) -> str:
    findings = _findings(report, verbose)
    codes = sorted({f.code for f in findings})
    rules = [{"id": code, "shortDescription": {"text": CODES.get(code, code)}} for code in codes]
    results = []
    for finding in findings:
        result: dict[str, Any] = {
            "ruleId": finding.code,
            "ruleIndex": codes.index(finding.code),
            "level": _LEVELS[finding.severity],
            "message": {"text": finding.message},
        }
        location: dict[str, Any] = {"logicalLocations": [{
            "fullyQualifiedName": f"{finding.kind}/{finding.name}" + (f" {finding.path}" if finding.path else ""),
            "kind": "object"}]}
        uri = artifact_uri(root, finding.file)
        if uri is not None:
            location["physicalLocation"] = {"artifactLocation": {"uri": uri}}  # no region: lines are not known
        result["locations"] = [location]
        result["properties"] = {"kind": finding.kind, "name": finding.name, "fieldPath": finding.path}
        results.append(result)
    document = {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [{
            "tool": {"driver": {"name": "karpenter-gpu", "version": __version__, "rules": rules}},
            "results": results,
        }],
    }
    return json.dumps(document, indent=2, ensure_ascii=False)
