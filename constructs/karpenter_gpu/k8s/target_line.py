"""Which Karpenter line an environment's manifests are checked and explained for: ``--karpenter-version``, else what
the environment's Karpenter values say, else :data:`~karpenter_gpu.upstream.DEFAULT_LINE`.

The values say it by ``controller.image.tag``: the controller release the chart installs (the values synth writes pin
it, since the chart inside a release tag pins the previous release's image). A tag of a release no packaged line has
is refused (KG660): answering for another release than the one installed would be a guess.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.upstream import (CHART_SETTINGS, DEFAULT_LINE, INTRODUCED, KARPENTER_LINES, KARPENTER_VALUES_FILE,
                                    FeatureGate, KarpenterLine, karpenter_line)

__all__ = ["TargetLine", "environment_line", "explicit_line", "unknown_to_line", "values_line"]


@dataclass(frozen=True)
class TargetLine:
    """A line and why it was chosen."""

    line: KarpenterLine
    why: str

    def describe(self) -> str:
        """One line for an answer: ``Karpenter v1.9.3 (--karpenter-version 1.9)``."""
        return f"Karpenter v{self.line.version} ({self.why})"


def _lines() -> str:
    return ", ".join(f"{name} (v{line.version})" for name, line in KARPENTER_LINES.items())


def explicit_line(version: str | None) -> TargetLine | None:
    """``--karpenter-version``: a packaged line, or KG660; None when not given."""
    if version is None:
        return None
    try:
        return TargetLine(karpenter_line(version), f"--karpenter-version {version}")
    except KeyError:
        raise KarpenterGpuError("KG660", prop="--karpenter-version", value=version, allowed=f"a packaged line: {_lines()}",
                                fix=f"pass --karpenter-version {DEFAULT_LINE} or another line listed") from None


def values_line(values: Mapping[str, Any] | None, source: str) -> TargetLine | None:
    """The line a Karpenter chart values mapping installs (its ``controller.image.tag``); None when it names none."""
    controller = values.get("controller") if isinstance(values, Mapping) else None
    image = controller.get("image") if isinstance(controller, Mapping) else None
    tag = image.get("tag") if isinstance(image, Mapping) else None
    if tag is None or tag == "":
        return None
    try:
        line = karpenter_line(str(tag))
    except KeyError:
        line = None
    if line is None or str(tag).lstrip("v") != line.version:
        raise KarpenterGpuError("KG660", prop="controller.image.tag", value=tag,
                                allowed=f"a release of a packaged Karpenter line in {source}: {_lines()}",
                                fix="pin the controller of a packaged line, or pass --karpenter-version LINE to say "
                                    "which line to answer for")
    return TargetLine(line, f"{source} controller.image.tag {tag}")


def environment_line(explicit: TargetLine | None, values: Mapping[str, Any] | None, source: str,
                     fallback: TargetLine | None = None) -> TargetLine:
    """An environment's line: ``explicit``, else its Karpenter values file's (``values``: Helm values by file
    name, read from ``source``), else ``fallback`` (the ``--karpenter-values`` file's), else the default line."""
    if explicit is not None:
        return explicit
    found = values_line(values.get(KARPENTER_VALUES_FILE), source) if values else None
    if found is not None:
        return found
    if fallback is not None:
        return fallback
    return TargetLine(KARPENTER_LINES[DEFAULT_LINE], "the default: no --karpenter-version and no controller.image.tag "
                                                     "in the Karpenter values")


def unknown_to_line(values: Mapping[str, Any] | None, line: KarpenterLine) -> list[tuple[str, str]]:
    """``(values path, why)`` for each feature gate and chart setting a Karpenter values mapping sets that the line's
    chart does not have (the chart ignores it: a v1.14 ``capacityBuffer`` or ``enableZonalShift`` on v1.9)."""
    settings = values.get("settings") if isinstance(values, Mapping) else None
    if not isinstance(settings, Mapping):
        return []
    out = []
    gates = settings.get("featureGates")
    for gate in gates if isinstance(gates, Mapping) else ():
        if gate in {g.value for g in FeatureGate} and FeatureGate(gate) not in line.gates:
            out.append((f"settings.featureGates.{gate}", f"Karpenter v{line.version}'s chart has no {gate} gate: the "
                                                         f"value is ignored (first in v{INTRODUCED.get(gate, '?')})"))
    for key in settings:
        if key in CHART_SETTINGS and key not in line.settings:
            out.append((f"settings.{key}", f"Karpenter v{line.version}'s chart has no settings.{key}: the value is "
                                           f"ignored (first in v{INTRODUCED.get(key, '?')})"))
    return out
