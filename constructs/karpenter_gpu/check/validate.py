"""Validate manifests: CRD schema + CEL conformance, then the project's pitfall rules.

Input is read by :mod:`karpenter_gpu.k8s.reader` (folders, files, stdin): a folder whose sub-folders
hold manifests is one environment per sub-folder (the layout of dist/); files directly in it form one
more. Cross-object rules (e.g. an unweighted pool next to weighted ones) look at one environment at a
time. The reader's findings (KG310-KG313: malformed documents, duplicate keys, the same object twice)
are reported with the others.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from karpenter_gpu.check.conformance import load_crds, validate_manifest
from karpenter_gpu.check.crd_source import CrdSourceError
from karpenter_gpu.check.findings import Finding, Severity
from karpenter_gpu.check.rules import check_rules
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.reader import Problem, Source, read_path


@dataclass(frozen=True)
class Report:
    findings: tuple[Finding, ...]
    objects: int
    files: int

    def counts(self) -> Counter:
        return Counter(f.severity for f in self.findings)

    def failed(self, strict: bool = False) -> bool:
        counts = self.counts()
        return counts[Severity.ERROR] > 0 or (strict and counts[Severity.WARNING] > 0)

    def summary(self) -> str:
        c = self.counts()
        return (f"{c[Severity.ERROR]} errors, {c[Severity.WARNING]} warnings, {c[Severity.INFO]} info "
                f"in {self.objects} objects ({self.files} files)")


def _finding(problem: Problem) -> Finding:
    return Finding(problem.file, problem.kind, problem.name, problem.path, problem.code, Severity.ERROR,
                   problem.message)


def validate_dir(root: str | Path, crd_dir: str | Path) -> Report:
    """Every manifest under ``root`` (a folder, a file, or ``-`` for stdin); file names are relative to it."""
    crds = load_crds(crd_dir)
    if not crds:  # a mistyped --crds must not make every object an "unknown kind" and pass
        raise CrdSourceError(f"no CustomResourceDefinitions found in {crd_dir}: pass --crds DIR with the Karpenter "
                             "v1.14.1 CRD YAML files, or set KARPENTER_GPU_CRDS")
    return validate_source(read_path(root), crds)


def validate_source(source: Source, crds: dict) -> Report:
    findings: list[Finding] = [_finding(p) for p in source.problems]
    objects = 0
    for env in source.environments:
        documents = [(f"{m.file} {m.where}" if m.where else m.file, m.manifest) for m in env.manifests]
        objects += len(documents)
        for file, manifest in documents:
            findings.extend(validate_manifest(manifest, crds, file=file))
        try:
            findings.extend(check_rules(documents, environment=env.name))
        except KarpenterGpuError as err:  # an object the rules' simulator cannot interpret: say so, keep the rest
            findings.append(Finding(err.path or "", "", env.name, err.prop, err.code, Severity.ERROR,
                                    f"rules not run for environment {env.name}: {err}"))
    return Report(tuple(sorted(findings)), objects, source.files)
