"""The rule registry: every rule of ``karpenter-gpu validate`` declared once, with its code, severity and title.

A rule is a function of one environment, declared with :func:`rule` in the module of its family; its docstring is
its documentation, in four sections (``What it checks:``, ``Why it matters:``, ``Fix:``, ``Upstream:``), from
which ``docs/rules.md`` is generated. The registry is the only table of rule codes: construct and CLI codes live in
:data:`karpenter_gpu.errors.CODES`, and no code may be in both (:func:`known_code` looks in both).
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from karpenter_gpu.apiserver.findings import Severity
from karpenter_gpu.errors import CODES

__all__ = ["REGISTRY", "SECTIONS", "Rule", "RuleDeclarationError", "rule"]

#: The sections every rule docstring has, in this order.
SECTIONS = ("What it checks", "Why it matters", "Fix", "Upstream")
_SECTION = re.compile(rf"^({'|'.join(SECTIONS)}):[ \t]*", re.MULTILINE)
_CODE = re.compile(r"^KG[0-9]{3}\Z")


class RuleDeclarationError(Exception):
    """A rule declared wrongly (a code twice, a code of errors.CODES, a missing section): a bug of the project,
    raised when the family module is imported."""


@dataclass(frozen=True)
class Rule:
    """One registered rule: ``check`` adds its findings to the objects of an environment."""

    code: str
    severity: Severity
    title: str
    family: str
    check: Callable[[Any], None] = field(repr=False, compare=False)
    doc: Mapping[str, str] = field(default_factory=dict, compare=False)


#: code -> rule, in declaration order per family; the rules run in code order.
REGISTRY: dict[str, Rule] = {}


def sections(doc: str | None) -> dict[str, str]:
    """The sections of a rule docstring, by name (text unwrapped into one paragraph each)."""
    text = inspect.cleandoc(doc or "")
    parts = _SECTION.split(text)
    out: dict[str, str] = {}
    for name, body in zip(parts[1::2], parts[2::2]):
        out[name] = " ".join(body.split())
    return out


def rule(code: str, severity: Severity, title: str) -> Callable[[Callable[[Any], None]],
                                                                  Callable[[Any], None]]:
    """Declare the decorated function as rule ``code``; its docstring must have every section of
    :data:`SECTIONS`, in order."""

    def register(check: Callable[[Any], None]) -> Callable[[Any], None]:
        family = check.__module__.rpartition(".")[2]
        if not _CODE.match(code):
            raise RuleDeclarationError(f"{family}.{check.__name__}: {code!r} is not a code like KG401")
        if code in REGISTRY:
            raise RuleDeclarationError(f"{code} declared twice: {REGISTRY[code].family} and {family}")
        if code in CODES:
            raise RuleDeclarationError(f"{code} is a construct/CLI code in errors.CODES: rule codes live only in the "
                                       "registry")
        doc = sections(check.__doc__)
        if tuple(doc) != SECTIONS or not all(doc.values()):
            raise RuleDeclarationError(f"{code} ({family}.{check.__name__}): its docstring needs the sections "
                                       f"{', '.join(SECTIONS)} in this order, each with text; has {list(doc)}")
        REGISTRY[code] = Rule(code, severity, title, family, check, doc)
        return check

    return register
