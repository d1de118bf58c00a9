"""The rule reference (``docs/rules.md``), generated from the registry: ``make rules-doc`` writes it, a test
checks that it is current."""

from __future__ import annotations

import re

from karpenter_gpu.check.rules import FAMILIES, RULES, SECTIONS


def _inline(text: str) -> str:
    """Docstring reST to markdown: ``code`` becomes `code`."""
    return re.sub(r"``([^`]+)``", r"`\1`", text)


def reference_markdown() -> str:
    """Every rule by code: severity, family, title and its documented sections."""
    counts = {family: sum(1 for r in RULES.values() if r.family == family) for family in FAMILIES}
    lines = ["# karpenter-gpu validate: rule reference", "",
             "Generated from the rule registry (`karpenter_gpu.check.rules`) by `make rules-doc`; do not edit by "
             "hand. Errors are what the API server refuses or what certainly breaks provisioning; warnings can be "
             "acknowledged per object (annotation `karpenter-gpu.io/acknowledge`). Codes never change meaning.", "",
             "| Code | Severity | Family | Title |", "| --- | --- | --- | --- |"]
    lines += [f"| [{r.code}](#{r.code.lower()}) | {r.severity} | {r.family} | {_inline(r.title)} |"
              for r in RULES.values()]
    lines += ["", "Families: " + ", ".join(f"{f} ({n})" for f, n in counts.items()) + ".", ""]
    for r in RULES.values():
        lines += [f"## {r.code}", "", f"**{_inline(r.title)}** — {r.severity}, family `{r.family}`.", ""]
        for section in SECTIONS:
            lines += [f"*{section}:* {_inline(r.doc[section])}", ""]
    return "\n".join(lines).rstrip("\n") + "\n"
