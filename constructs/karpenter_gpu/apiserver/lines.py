"""What one Karpenter line's CRDs refuse of an object another line admits, derived from the packaged CRDs of both.

A field the older line's schema lacks (pruned: KG301), an enum value it lacks (KG300), a label its CEL allow-list
lacks (KG302): each is a finding against the target line's CRDs that the reference line's CRDs do not give. No list
of differences is kept by hand; :data:`karpenter_gpu.upstream.INTRODUCED` only names the release that first has a
refused field, value or label (aws/karpenter-provider-aws ``pkg/apis/crds`` at each tag), so a refusal says what to
upgrade to.
"""

from __future__ import annotations

import json
import re
from typing import Any

from karpenter_gpu.apiserver.conformance import CEL_VIOLATION, SCHEMA_VIOLATION, UNKNOWN_FIELD, assess
from karpenter_gpu.apiserver.crds import line_crds
from karpenter_gpu.apiserver.findings import Finding
from karpenter_gpu.upstream import INTRODUCED, KARPENTER_LINES, KarpenterLine

__all__ = ["first_release", "line_refusals", "value_at"]

#: The findings that mean "the API server refuses or prunes it".
_REFUSING = frozenset({SCHEMA_VIOLATION, UNKNOWN_FIELD, CEL_VIOLATION})
_STEP = re.compile(r"([^.\[\]]+)|\[([0-9]+)\]")


def _key(finding: Finding) -> tuple[str, str, str]:
    return finding.path, finding.code, finding.message


def line_refusals(manifest: dict[str, Any], target: KarpenterLine, reference: KarpenterLine) -> list[Finding]:
    """The findings of ``manifest`` against ``target``'s CRDs that ``reference``'s CRDs do not give (an object of a
    kind neither line's CRDs serve gives none)."""
    if target == reference:
        return []
    found = [f for f in assess(manifest, line_crds(target))[0] if f.code in _REFUSING]
    if not found:
        return []
    known = {_key(f) for f in assess(manifest, line_crds(reference))[0]}
    return [f for f in found if _key(f) not in known]


def value_at(manifest: Any, path: str) -> Any:
    """The value at a finding's field path (``spec.a[0].b``); None when there is none."""
    value = manifest
    for name, index in _STEP.findall(path):
        if name and isinstance(value, dict):
            value = value.get(name)
        elif index and isinstance(value, list) and int(index) < len(value):
            value = value[int(index)]
        else:
            return None
    return value


def first_release(path: str, value: Any, after: KarpenterLine) -> tuple[str, str]:
    """(the first release having what a refusal at ``path`` names, what it names): from :data:`INTRODUCED` by
    field path, ``path=value`` for an enum value, or a label key inside the value; else the first packaged line
    newer than ``after``."""
    norm = re.sub(r"\[[0-9]+\]", "[]", path)
    if isinstance(value, str) and f"{norm}={value}" in INTRODUCED:
        return INTRODUCED[f"{norm}={value}"], f"{norm} {value!r}"
    for key, release in INTRODUCED.items():
        if norm == key or norm.startswith((key + ".", key + "[")):
            return release, key
    text = json.dumps(value, default=str)
    for key, release in INTRODUCED.items():
        if "/" in key and key in text:
            return release, f"label {key}"
    newer = [line for line in KARPENTER_LINES.values() if _order(line) > _order(after)]
    return (min(newer, key=_order).version if newer else after.version), norm


def _order(line: KarpenterLine) -> tuple[int, ...]:
    return tuple(int(part) for part in line.version.split("."))
