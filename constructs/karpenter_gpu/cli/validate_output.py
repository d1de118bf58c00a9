"""``karpenter-gpu validate --format json | sarif``: the findings for machines (CI, code scanning).

JSON: the findings as they are (file, kind, name, field path, code, severity, message), the counts,
whether the run failed and ``settings``: the controller-settings line of each environment the text output prints
(which Karpenter settings the rules' simulation used, and from where).
SARIF 2.1.0 (the OASIS standard GitHub code scanning reads): one result per
finding, ``ruleId`` its code, ``level`` from its severity (error / warning / note), located in the
manifest file it came from. The manifest reader keeps no line numbers, so a location names the file
only, never a line; the object (``Kind/name``) and the field path are its logical location.

Text from manifests and file names is data in SARIF too:

- ``artifactLocation.uri`` is a percent-encoded URI reference (RFC 3986) of the file's bytes: a space, ``#``,
  ``?``, ``[ ]``, ``:``, ``%``, a control or bidi character or a byte that is not UTF-8 is ``%XX``, so the
  name cannot read as a query, a fragment, a scheme or another path (``%2e%2e%2f`` stays a name: ``%252e…``).
- ``message.text`` has control and invisible characters as visible escapes and a backslash doubled
  (:func:`karpenter_gpu.render.escape.plain`), then ``[`` and ``]`` backslash-escaped, so no embedded link
  ``[text](target)`` (SARIF 2.1.0 §3.11.6) can start from input text; a run of more than
  :data:`~karpenter_gpu.render.escape.MAX_VALUE` characters without a space (a long value) is cut as the text
  output cuts values (:func:`karpenter_gpu.render.escape.clip`), and the whole text at :data:`MAX_MESSAGE`
  characters (before escaping).
- Kind, name and field path (logical location, properties) are :func:`~karpenter_gpu.render.escape.plain`
  text, as in the text output: controls shown as escapes, cut at ``MAX_VALUE`` characters.
- The run's ``properties.controllerSettings`` holds the same settings lines, as
  :func:`~karpenter_gpu.render.escape.plain` text (a values file's path and an environment's name are input).
- The document is ASCII (JSON ``\\uXXXX`` escapes), so it is valid UTF-8 whatever the locale.
- At most :data:`MAX_RESULTS` results per run (GitHub code scanning's limit): past it the errors are kept
  first, then the warnings, then the notes, and one note-level :data:`LEFT_OUT` result counts, per rule,
  the findings left out.

A rule's title (``shortDescription``) is :func:`karpenter_gpu.check.rules.known_code`'s: the rule registry's for a
rule, :data:`karpenter_gpu.errors.CODES`'s for any other code.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote_from_bytes

from karpenter_gpu._version import __version__
from karpenter_gpu.apiserver.findings import Finding, Severity
from karpenter_gpu.check.rules import RULES, known_code
from karpenter_gpu.check.validate import Report
from karpenter_gpu.render import escape

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
#: Most results in one run that GitHub code scanning accepts (it refuses the whole upload past it).
MAX_RESULTS = 25_000
#: Longest ``message.text``: our longest message (KG401 naming every GPU instance type a pool can launch) is
#: under 2,000 characters; only input text makes one longer.
MAX_MESSAGE = 4_000
#: The code of the one summary result that counts the findings left out past :data:`MAX_RESULTS`.
LEFT_OUT = "KG940"
_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
_KEPT_FIRST = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}
#: The file name the manifest reader gives standard input.
_STDIN = "<stdin>"
_LONG_VALUE = re.compile(rf"\S{{{escape.MAX_VALUE + 1},}}")
_LINK_SYNTAX = re.compile(r"[\[\]]")


def _findings(report: Report, verbose: bool) -> list[Finding]:
    return [f for f in report.findings if f.severity != Severity.INFO or verbose]


def as_json(report: Report, *, strict: bool, verbose: bool) -> str:
    """The findings as JSON; ASCII (``\\uXXXX`` escapes), so a file name that is not UTF-8 prints under any locale."""
    counts = report.counts()
    document = {
        "findings": [{"file": f.file, "kind": f.kind, "name": f.name, "path": f.path, "code": f.code,
                      "severity": str(f.severity), "message": f.message} for f in _findings(report, verbose)],
        "errors": counts[Severity.ERROR], "warnings": counts[Severity.WARNING], "info": counts[Severity.INFO],
        "objects": report.objects, "files": report.files, "failed": report.failed(strict),
        "settings": list(report.settings),
        "karpenter": list(report.versions),
    }
    return json.dumps(document, indent=2, ensure_ascii=True)


def artifact_uri(root: str, file: str) -> str | None:
    """The file's path as given on the command line (relative stays relative) as a URI reference: ``/``-separated,
    every byte but unreserved characters and ``/`` percent-encoded (the name's bytes, as the file system holds
    them, when it is not UTF-8); a ``file:`` URI when absolute; None for stdin."""
    if not file or file == _STDIN or root == "-":
        return None
    base = Path(root)
    path = base if base.is_file() else base / file
    if path.is_absolute():
        return path.as_uri()  # percent-encodes the path's bytes the same way
    return quote_from_bytes(os.fsencode(PurePosixPath(*path.parts).as_posix()), safe="/")


def message_text(text: str) -> str:
    """``text`` as a SARIF plain-text message: long values clipped, controls shown as escapes, a backslash
    doubled and square brackets escaped (``\\[``, ``\\]``), so it never holds an embedded link."""
    clipped = _LONG_VALUE.sub(lambda m: escape.clip(m.group(0)), text)
    return _LINK_SYNTAX.sub(r"\\\g<0>", escape.plain(clipped, MAX_MESSAGE))


def _capped(findings: Sequence[Finding]) -> tuple[list[Finding], list[Finding]]:
    """The findings to report (errors first, then warnings, then notes, in their order) and those left out,
    so that they and the summary result fit in :data:`MAX_RESULTS`."""
    if len(findings) <= MAX_RESULTS:
        return list(findings), []
    ranked = sorted(range(len(findings)), key=lambda i: _KEPT_FIRST[findings[i].severity])
    kept = set(ranked[:MAX_RESULTS - 1])
    return ([f for i, f in enumerate(findings) if i in kept],
            [f for i, f in enumerate(findings) if i not in kept])


def _location(finding: Finding, root: str) -> dict[str, Any]:
    where = f"{escape.plain(finding.kind)}/{escape.plain(finding.name)}"
    location: dict[str, Any] = {"logicalLocations": [{
        "fullyQualifiedName": where + (f" {escape.plain(finding.path)}" if finding.path else ""),
        "kind": "object"}]}
    uri = artifact_uri(root, finding.file)
    if uri is not None:
        location["physicalLocation"] = {"artifactLocation": {"uri": uri}}  # no region: lines are not known
    return location


def _left_out_summary(left_out: Sequence[Finding], root: str, rule_index: int) -> dict[str, Any]:
    by_rule = dict(sorted(Counter(f.code for f in left_out).items()))
    by_level = Counter(_LEVELS[f.severity] for f in left_out)
    counts = ", ".join(f"{code} x {count:,}" for code, count in by_rule.items())
    return {
        "ruleId": LEFT_OUT,
        "ruleIndex": rule_index,
        "level": "note",
        "message": {"text": message_text(
            f"{len(left_out):,} more findings left out ({by_level['error']:,} errors, {by_level['warning']:,} "
            f"warnings, {by_level['note']:,} notes): GitHub code scanning takes at most {MAX_RESULTS:,} results "
            f"per run; by rule: {counts}; run karpenter-gpu validate (text or --format json) to see every one")},
        "locations": [_location(left_out[0], root)],  # where the first one left out is
        "properties": {"leftOut": len(left_out), "leftOutByRule": by_rule},
    }


def rule_descriptor(code: str) -> dict[str, Any]:
    """The SARIF ``reportingDescriptor`` of ``code``: its title from the one lookup (:func:`known_code`); for a
    validate rule also its documented sections from the registry (``fullDescription``: what it checks and why it
    matters; ``help``: the fix and the upstream source) and its severity as the default level."""
    out: dict[str, Any] = {"id": code, "shortDescription": {"text": message_text(known_code(code) or code)}}
    rule = RULES.get(code)
    if rule is not None:
        doc = rule.doc
        out["fullDescription"] = {"text": message_text(f"{doc['What it checks']} {doc['Why it matters']}")}
        out["help"] = {"text": message_text(f"Fix: {doc['Fix']} Upstream: {doc['Upstream']}")}
        out["defaultConfiguration"] = {"level": _LEVELS[rule.severity]}
    return out


def as_sarif(report: Report, root: str, *, verbose: bool) -> str:
    """The findings as one SARIF 2.1.0 run; ASCII JSON, at most :data:`MAX_RESULTS` results."""
    findings, left_out = _capped(_findings(report, verbose))
    codes = sorted({f.code for f in findings} | ({LEFT_OUT} if left_out else set()))
    index = {code: i for i, code in enumerate(codes)}
    rules = [rule_descriptor(code) for code in codes]
    results = []
    for finding in findings:
        results.append({
            "ruleId": finding.code,
            "ruleIndex": index[finding.code],
            "level": _LEVELS[finding.severity],
            "message": {"text": message_text(finding.message)},
            "locations": [_location(finding, root)],
            "properties": {"kind": escape.plain(finding.kind), "name": escape.plain(finding.name),
                           "fieldPath": escape.plain(finding.path)},
        })
    if left_out:
        results.append(_left_out_summary(left_out, root, index[LEFT_OUT]))
    document = {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [{
            "tool": {"driver": {"name": "karpenter-gpu", "version": __version__, "rules": rules}},
            "results": results,
            "properties": {"controllerSettings": [escape.plain(line, None) for line in report.settings]},
        }],
    }
    return json.dumps(document, indent=2, ensure_ascii=True)
