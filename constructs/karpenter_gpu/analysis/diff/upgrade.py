"""Upgrade verdicts: when an environment's Karpenter line differs between the sides of a diff (its values install
another controller release, or ``--karpenter-version`` says so), what the change of release does to the objects in
hand, before any of them changes:

- **refused or pruned**: what the head line's packaged CRDs refuse or prune of the head objects while the base
  line's admit it (:func:`karpenter_gpu.apiserver.lines.line_refusals`, derived from both lines' CRDs; a
  downgrade to v1.9 refuses a ``Balanced`` NodePool);
- **gates**: the chart's ``settings.featureGates`` that one line has and the other lacks (a v1.9 values file on
  v1.14 renders ``CapacityBuffer=false``; a v1.14 gate on v1.9 is ignored);
- **behaviour**: what each release crossed changes for objects as written
  (:data:`karpenter_gpu.upstream.BEHAVIOUR_CHANGES`), the nodes that drift because of the upgrade itself named
  by their NodePools.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from karpenter_gpu.analysis.diff.read import Side
from karpenter_gpu.apiserver.lines import line_refusals
from karpenter_gpu.k8s.labels import NODEPOOL_KIND
from karpenter_gpu.k8s.target_line import TargetLine, environment_line, values_line
from karpenter_gpu.render import escape
from karpenter_gpu.upstream import BEHAVIOUR_CHANGES, KARPENTER_VALUES_FILE, KarpenterLine

__all__ = ["Upgrade", "side_lines", "upgrade_json", "upgrade_lines", "upgrades"]

_VALUES_KEY = ("helm", "Values", KARPENTER_VALUES_FILE)


@dataclass(frozen=True)
class Upgrade:
    """One environment whose Karpenter release differs between the sides, and what that does."""

    environment: str
    base: TargetLine
    head: TargetLine
    #: ``(kind, text)``: kind is ``refused``, ``gate`` or ``behaviour``; the text names objects, gates, releases.
    items: tuple[tuple[str, str], ...]

    @property
    def drifts(self) -> bool:
        return any(kind == "drift" for kind, _ in self.items)


def side_lines(side: Side, explicit: TargetLine | None, label: str) -> dict[str, TargetLine]:
    """Each environment's line on one side: ``explicit``, else its Karpenter values' ``controller.image.tag``, else
    the default line (KG660 for a tag of no packaged line)."""
    out = {}
    for env, objects in side.items():
        values = objects.get(_VALUES_KEY)
        found = explicit or values_line(values, f"{label} {env}/helm/{KARPENTER_VALUES_FILE}")
        out[env] = found or environment_line(None, None, "")
    return out


def _order(line: KarpenterLine) -> tuple[int, ...]:
    return tuple(int(part) for part in line.version.split("."))


def _crossed(base: KarpenterLine, head: KarpenterLine) -> list[tuple[str, str, bool]]:
    low, high = sorted((base, head), key=_order)
    return [c for c in BEHAVIOUR_CHANGES
            if _order(low) < tuple(int(p) for p in c[0].split(".")) <= _order(high)]


def upgrades(base: Side, head: Side, base_lines: dict[str, TargetLine],
             head_lines: dict[str, TargetLine]) -> list[Upgrade]:
    """The environments on both sides whose line differs, each with its verdict items."""
    out = []
    for env in sorted(set(base) & set(head)):
        old, new = base_lines[env], head_lines[env]
        if old.line == new.line:
            continue
        items: list[tuple[str, str]] = []
        for (api_version, kind, name), manifest in sorted(head[env].items()):
            if api_version == "helm":
                continue
            for finding in line_refusals(manifest, new.line, old.line):
                items.append(("refused", f"{kind}/{name} {finding.path}: {finding.message} ({finding.code})"))
        gates_old, gates_new = set(old.line.gates), set(new.line.gates)
        for gate in sorted(gates_new - gates_old):
            items.append(("gate", f"featureGates.{gate} is new in v{new.line.version}'s chart: rendered off unless "
                                  "the values set it"))
        for gate in sorted(gates_old - gates_new):
            items.append(("gate", f"featureGates.{gate} does not exist in v{new.line.version}'s chart: a value for "
                                  "it is ignored"))
        upgrade = _order(new.line) > _order(old.line)
        pools = sorted(name for (api_version, kind, name) in head[env] if (api_version, kind) == NODEPOOL_KIND)
        for release, text, drifts in _crossed(old.line, new.line):
            if drifts and upgrade:
                items.append(("drift", f"v{release}: {text}: the nodes of NodePools {', '.join(pools) or '(none)'}"))
            else:
                items.append(("behaviour", f"v{release} {'adds' if upgrade else 'is undone'}: {text}"))
        out.append(Upgrade(env, old, new, tuple(items)))
    return out


def upgrade_lines(found: list[Upgrade], *, markdown: bool = False) -> list[str]:
    """Terminal lines (or a markdown list): one header per environment, one line per item; input text (environment
    names, object names, file paths) escaped for where it lands."""
    esc = escape.markdown if markdown else escape.plain
    lines = []
    for up in found:
        head = (f"upgrade: {esc(up.environment)}: Karpenter v{up.base.line.version} -> v{up.head.line.version} "
                f"(base: {esc(up.base.why, None)}; head: {esc(up.head.why, None)})")
        lines.append(f"- {head}" if markdown else head)
        lines.extend(f"  {'- ' if markdown else ''}{kind}: {esc(text, None)}" for kind, text in up.items)
    return lines


def upgrade_json(text: str, found: list[Upgrade]) -> str:
    """``render_json``'s document with an ``upgrades`` key (only when there is an upgrade: other output unchanged)."""
    if not found:
        return text
    document: dict[str, Any] = json.loads(text)
    document["upgrades"] = [{"environment": up.environment, "base": up.base.line.version, "head": up.head.line.version,
                             "items": [{"kind": kind, "text": item} for kind, item in up.items]} for up in found]
    return json.dumps(document, indent=2) + "\n"
