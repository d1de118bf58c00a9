"""Validate a folder of manifests: CRD schema + CEL conformance, then the project's pitfall rules.

A folder whose sub-folders hold manifests is treated as one environment per sub-folder (the
layout of dist/); otherwise the folder itself is one environment. Cross-object rules (e.g. an
unweighted pool next to weighted ones) look at one environment at a time.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import yaml

from karpenter_gpu.check.conformance import load_crds, validate_manifest
from karpenter_gpu.check.crd_source import CrdSourceError
from karpenter_gpu.check.findings import Finding, Severity
from karpenter_gpu.check.rules import check_rules

_SUFFIXES = (".yaml", ".yml")
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # LibYAML when PyYAML has it: same documents, ~8x faster


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


def environments(root: Path) -> list[tuple[str | None, list[Path]]]:
    """(environment name, manifest files): one per sub-folder, plus the folder itself when it holds files."""
    if root.is_file():
        return [(None, [root])]
    direct = sorted(p for p in root.iterdir() if p.is_file() and p.suffix in _SUFFIXES)
    subdirs = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    envs: list[tuple[str | None, list[Path]]] = []
    if direct or not subdirs:
        envs.append((root.name, direct))
    for sub in subdirs:
        files = sorted(p for p in sub.rglob("*") if p.is_file() and p.suffix in _SUFFIXES)
        if files:
            envs.append((sub.name, files))
    return envs


def validate_dir(root: str | Path, crd_dir: str | Path) -> Report:
    """Every manifest under ``root``; file names in findings are relative to ``root``."""
    root = Path(root)
    crds = load_crds(crd_dir)
    if not crds:  # a mistyped --crds must not make every object an "unknown kind" and pass
        raise CrdSourceError(f"no CustomResourceDefinitions found in {crd_dir}: pass --crds DIR with the Karpenter "
                             "v1.14.1 CRD YAML files, or set KARPENTER_GPU_CRDS")
    base = root if root.is_dir() else root.parent
    findings: list[Finding] = []
    objects = files = 0
    for environment, paths in environments(root):
        documents: list[tuple[str, dict]] = []
        for path in paths:
            files += 1
            rel = str(path.relative_to(base))
            for doc in yaml.load_all(path.read_text(), Loader=_LOADER):
                # Helm values files sit beside the manifests; anything without apiVersion/kind is not an object.
                if isinstance(doc, dict) and "apiVersion" in doc and "kind" in doc:
                    documents.append((rel, doc))
        objects += len(documents)
        for rel, doc in documents:
            findings.extend(validate_manifest(doc, crds, file=rel))
        findings.extend(check_rules(documents, environment=environment))
    return Report(tuple(sorted(findings)), objects, files)
