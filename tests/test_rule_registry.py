"""The rule registry: one declaration per code, documented in sections (the pages generated from it: test_docs_site)."""

from __future__ import annotations

import pytest

from karpenter_gpu.apiserver.findings import Severity
from karpenter_gpu.check.rules import FAMILIES, REGISTRY, RULES, SECTIONS, RuleDeclarationError, rule
from karpenter_gpu.errors import CODES

DOC = """What it checks: x.

Why it matters: y.

Fix: z.

Upstream: w."""


def _declare(code: str, doc: str | None = DOC) -> None:
    def check(env):  # pragma: no cover - never run
        return None
    check.__doc__ = doc
    rule(code, Severity.WARNING, "a test rule")(check)


def test_every_rule_is_documented_in_every_section():
    for code, declared in RULES.items():
        assert tuple(declared.doc) == SECTIONS, code
        assert all(len(text) > 20 for text in declared.doc.values()), code
        assert declared.family in FAMILIES


def test_a_code_declared_twice_is_refused():
    with pytest.raises(RuleDeclarationError, match="KG401 declared twice"):
        _declare("KG401")
    assert REGISTRY["KG401"].family == "limits"


def test_a_rule_without_its_sections_is_refused():
    with pytest.raises(RuleDeclarationError, match="needs the sections"):
        _declare("KG499", "What it checks: only this.")
    with pytest.raises(RuleDeclarationError, match="needs the sections"):
        _declare("KG499", None)
    assert "KG499" not in REGISTRY


def test_a_construct_code_cannot_be_a_rule_code():
    with pytest.raises(RuleDeclarationError, match=r"errors\.CODES"):
        _declare("KG100")
    assert not set(RULES) & set(CODES)


def test_every_family_module_declares_a_rule():
    assert {r.family for r in RULES.values()} == set(FAMILIES)
