"""Validate manifests: CRD schema + CEL conformance, then the project's pitfall rules.

Input is read by :mod:`karpenter_gpu.k8s.input_layout` (folders, files, stdin): a folder whose sub-folders
hold manifests is one environment per sub-folder (the layout of dist/); files directly in it form one
more. Cross-object rules (e.g. an unweighted pool next to weighted ones) look at one environment at a
time. The reader's findings (KG310-KG313: malformed documents, duplicate keys, the same object twice)
are reported with the others.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from karpenter_gpu.apiserver.conformance import assess
from karpenter_gpu.apiserver.crd_source import PACKAGED_DIR
from karpenter_gpu.apiserver.crds import crds_from, line_crds
from karpenter_gpu.apiserver.findings import Finding, Severity
from karpenter_gpu.check.rules import check_rules
from karpenter_gpu.errors import KarpenterGpuError, echo
from karpenter_gpu.k8s.controller_settings import ControllerSettings, environment_settings
from karpenter_gpu.k8s.input_layout import Environment, Manifest, Problem, Source, read_path
from karpenter_gpu.k8s.target_line import TargetLine, environment_line, explicit_line, unknown_to_line
from karpenter_gpu.render import escape
from karpenter_gpu.upstream import KARPENTER_VALUES_FILE


@dataclass(frozen=True)
class Report:
    findings: tuple[Finding, ...]
    objects: int
    files: int
    #: Per environment, the Karpenter controller settings the rules' simulation used (one line each).
    settings: tuple[str, ...] = ()
    #: Per environment, the Karpenter release it was checked for and why (``dev: Karpenter v1.14.1 (...)``).
    versions: tuple[str, ...] = ()

    def counts(self) -> Counter:
        return Counter(f.severity for f in self.findings)

    def failed(self, strict: bool = False) -> bool:
        counts = self.counts()
        return counts[Severity.ERROR] > 0 or (strict and counts[Severity.WARNING] > 0)

    def summary(self) -> str:
        c = self.counts()
        return (f"{c[Severity.ERROR]} errors, {c[Severity.WARNING]} warnings, {c[Severity.INFO]} info "
                f"in {self.objects} objects ({self.files} files)")


#: API groups whose objects the analyzers interpret field by field (NodePool, NodeOverlay, EC2NodeClass).
_INTERPRETED_GROUPS = frozenset({"karpenter.sh", "karpenter.k8s.aws"})
_INTERPRETED_KINDS = frozenset({"NodePool", "NodeOverlay", "EC2NodeClass"})


def _finding(problem: Problem) -> Finding:
    return Finding(problem.file, problem.kind, problem.name, problem.path, problem.code, Severity.ERROR,
                   problem.message)


def validate_dir(root: str | Path, crd_dir: str | Path, *, each_file: bool = False,
                 karpenter_values: ControllerSettings | None = None, karpenter_version: str | None = None,
                 fallback_line: TargetLine | None = None) -> Report:
    """Every manifest under ``root`` (a folder, a file, or ``-`` for stdin); file names are relative to it.
    ``each_file``: every file of the folder is its own environment (independent examples). ``karpenter_values``:
    the settings of environments without ``helm/karpenter.values.yaml`` (else the chart's defaults).
    ``karpenter_version`` ("1.9", "1.14"): the line every environment is checked for; without it each environment's
    Karpenter values say (``controller.image.tag``), else ``fallback_line``, else the default line. The packaged
    CRDs are that line's; a folder of the user's (``--crds``) is used as it is."""
    packaged = Path(crd_dir).resolve() == PACKAGED_DIR.resolve()
    return validate_source(read_path(root, each_file=each_file), None if packaged else crds_from(crd_dir),
                           karpenter_values, explicit=explicit_line(karpenter_version), fallback_line=fallback_line)


def _file(m: Manifest) -> str:
    return f"{m.file} {m.where}" if m.where else m.file


def validate_source(source: Source, crds: dict | None, karpenter_values: ControllerSettings | None = None, *,
                    explicit: TargetLine | None = None, fallback_line: TargetLine | None = None) -> Report:
    """The reader's findings, then per environment the CRD findings of every object and the rules.

    The rules (like the API server's CEL rules) look only at objects without blocking schema errors
    (wrong types, missing required fields, values outside an enum): those are refused outright, and
    their KG300 findings already say why. Each environment's rules run under its Karpenter settings
    (``helm/karpenter.values.yaml``, else ``karpenter_values``, else the chart's defaults); a values file the
    controller would refuse, or misread, is an error finding (KG740-KG744) and the chart's defaults stand in.
    ``crds`` None: each environment's Karpenter line's packaged CRDs (:func:`environment_line`; a controller tag of
    no packaged line is a KG660 finding, and the default line stands in).
    """
    findings: list[Finding] = [_finding(p) for p in source.problems]
    objects = 0
    lines: list[str] = []
    versions: list[str] = []
    for env in source.environments:
        path = env.value_paths.get(KARPENTER_VALUES_FILE, KARPENTER_VALUES_FILE)
        try:
            target = environment_line(explicit, env.values, path, fallback_line)
        except KarpenterGpuError as err:
            findings.append(Finding(path, "", "", err.prop, err.code, Severity.ERROR,
                                    f"{err.prop}={echo(err.value)} is not allowed: {err.allowed}. Fix: {err.fix}"))
            target = environment_line(None, None, path)
        versions.append(escape.plain(f"{env.name}: {target.describe()}", None))  # names and paths are input
        findings.extend(Finding(path, "", "", where, "KG662", Severity.WARNING, why)
                        for where, why in unknown_to_line((env.values or {}).get(KARPENTER_VALUES_FILE), target.line))
        env_crds = crds if crds is not None else line_crds(target.line)
        try:
            settings = environment_settings(env.values, path, karpenter_values)
        except KarpenterGpuError as err:
            findings.append(Finding(path, "", "", err.prop, err.code, Severity.ERROR,
                                    f"{err.prop}={echo(err.value)} is not allowed: {err.allowed}. Fix: {err.fix}"))
            settings = ControllerSettings(source=f"chart defaults ({path} not read)")
        settings = replace(settings, line=target.line.line)  # the line's behaviours (upstream.BEHAVIOUR_SINCE)
        lines.append(f"{env.name}: {settings.describe()}")
        documents = []
        for m in env.manifests:
            found, blocking = assess(m.manifest, env_crds, _file(m))
            findings.extend(found)
            if not blocking:
                documents.append((_file(m), m.manifest))
        objects += len(env.manifests)
        try:
            findings.extend(check_rules(documents, environment=env.name, values=env.values, settings=settings))
        except KarpenterGpuError as err:  # an object the rules' simulator cannot interpret: say so, keep the rest
            findings.append(Finding(err.path or "", "", env.name, err.prop, err.code, Severity.ERROR,
                                    f"rules not run for environment {env.name}: {err}"))
    return Report(tuple(sorted(findings)), objects, source.files, tuple(lines), tuple(versions))


def schema_refusals(source: Source, crds: dict | Callable[[Environment], dict]) -> list[Finding]:
    """The errors of objects the API server refuses outright (blocking schema errors, no CEL needed).

    ``explain`` and ``diff`` stop on them: what Karpenter does with an object it never receives is not a
    question they can answer. Only Karpenter's own kinds are interpreted; others are compared as data.
    ``crds``: the CRDs, or each environment's (its Karpenter line's).
    """
    out: list[Finding] = []
    for env in source.environments:
        env_crds = crds(env) if callable(crds) else crds
        for m in env.manifests:
            group = str(m.manifest.get("apiVersion", "")).rpartition("/")[0]
            if group not in _INTERPRETED_GROUPS and m.manifest.get("kind") not in _INTERPRETED_KINDS:
                continue
            found, blocking = assess(m.manifest, env_crds, _file(m), cel=False)
            # Refused: blocking errors, or an apiVersion/kind the CRDs do not serve (no such resource).
            unserved = [f for f in found if f.path == "<root>" and f.code in ("KG300", "KG304")]
            if blocking or unserved:
                out.extend(f for f in found if f.severity == Severity.ERROR or f in unserved)
    return out
