"""The Karpenter controller's settings, read from its Helm chart values as the chart and the binary read them.

An environment's ``helm/karpenter.values.yaml`` (or ``--karpenter-values FILE``) holds the chart's ``settings:``
tree. The chart (aws ``charts/karpenter/templates/deployment.yaml`` at v1.14.1) renders it into environment
variables, which the binary's options read (sigs.k8s.io/karpenter ``pkg/operator/options/options.go``
``Options.AddFlags`` / ``Parse`` / ``ParseFeatureGates``; aws ``pkg/operator/options/options.go`` ``AddFlags`` and
``options_validation.go`` ``Validate``). :func:`read_settings` follows both steps:

- Helm merges the file over the chart's defaults (:data:`~karpenter_gpu.upstream.CHART_SETTINGS`); a key set to
  null is removed. Helm reads numbers as float64 (``sigs.k8s.io/yaml``), and the template prints them with Go's
  ``%v``: ``reservedENIs: 1000000`` renders ``1e+06``.
- ``FEATURE_GATES`` is always rendered, ``ReservedCapacity={{ .Values.settings.featureGates.reservedCapacity }},...``:
  a gate removed (null) renders ``<no value>`` and ``ParseFeatureGates`` refuses to start.
- Every other setting is rendered only ``{{- with }}`` its value is non-empty: ``false``, ``0``, ``""`` and null
  render nothing and the binary's default applies (:data:`~karpenter_gpu.upstream.BINARY_DEFAULTS`). So
  ``vmMemoryOverheadPercent: 0`` leaves the default 0.075 in force (write ``"0"``): said in :attr:`notes`.
- The binary reads each variable: ``minValuesPolicy`` and ``preferencePolicy`` must be one of their two values
  (else it does not start); ``vmMemoryOverheadPercent`` by ``strconv.ParseFloat``, ``reservedENIs`` by
  ``strconv.Atoi``, durations by ``time.ParseDuration`` and booleans by ``strconv.ParseBool``, each silently
  replaced by its default when it does not parse; negative ``vmMemoryOverheadPercent`` or ``reservedENIs`` make it
  refuse to start.

A value the binary refuses, or silently replaces by its default, is one coded line here (KG740-KG744): the user
wrote a setting that does not do what it says. Pure: no I/O (the caller reads the file).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s import go_float
from karpenter_gpu.k8s.units import go_parse_duration
from karpenter_gpu.upstream import (
    BINARY_DEFAULTS, CHART_SETTINGS, DEFAULT_LINE, DEFAULT_ON, GATE_FLAG_NAMES, KARPENTER_TAG, KARPENTER_VALUES_FILE,
    MIN_VALUES_POLICIES, PREFERENCE_POLICIES, FeatureGate, line_has,
)

__all__ = ["CHART_DEFAULTS", "ControllerSettings", "environment_settings", "go_value_text", "read_settings",
           "values_text"]

#: What the settings line says when no values file was read.
CHART_DEFAULTS = "chart defaults"

#: The chart's other ``settings`` keys: read by the controller, none reaches the scheduler or the provider's
#: instance types (cluster identity, interruption queue, observability, refresh intervals, dry runs).
_OTHER_KEYS = frozenset({"clusterCABundle", "clusterName", "clusterEndpoint", "eksControlPlane", "interruptionQueue",
                         "disableClusterStateObservability", "disableDryRun", "amiRefreshInterval",
                         "subnetRefreshInterval", "featureGates"})
#: ``strconv.ParseBool``'s grammar.
_BOOLS = {"1": True, "t": True, "T": True, "TRUE": True, "true": True, "True": True,
          "0": False, "f": False, "F": False, "FALSE": False, "false": False, "False": False}
#: ``strconv.Atoi`` (base 10): an optional sign and decimal digits, nothing else.
_ATOI = re.compile(r"[+-]?[0-9]+\Z")
#: ``time.ParseDuration``: an optional sign, then one or more decimal numbers each with a unit, or "0".
_DURATION = re.compile(r"[+-]?(?:0|(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:ns|us|µs|μs|ms|s|m|h))+)\Z")
_INT64 = 2**63


@dataclass(frozen=True)
class ControllerSettings:
    """The settings that reach the scheduler or the provider, as the running controller holds them.

    ``source``: the values file they were read from, or :data:`CHART_DEFAULTS`. ``gates``: the feature gates that
    are on. ``notes``: values that do something other than they seem to (a number 0 the chart does not render)."""

    source: str = CHART_DEFAULTS
    gates: frozenset[FeatureGate] = DEFAULT_ON
    min_values_policy: str = str(BINARY_DEFAULTS["minValuesPolicy"])
    preference_policy: str = str(BINARY_DEFAULTS["preferencePolicy"])
    vm_memory_overhead_percent: float = 0.075
    reserved_enis: int = 0
    batch_max_duration: str = str(BINARY_DEFAULTS["batchMaxDuration"])
    batch_idle_duration: str = str(BINARY_DEFAULTS["batchIdleDuration"])
    isolated_vpc: bool = False
    enable_zonal_shift: bool = False
    ignore_dra_requests: bool = True
    notes: tuple[str, ...] = field(default=(), compare=False)
    #: The Karpenter line the controller runs ("1.9", "1.14"): its behaviours (:meth:`has`).
    line: str = DEFAULT_LINE

    def has(self, behaviour: str) -> bool:
        """Whether the controller's line behaves as :data:`~karpenter_gpu.upstream.BEHAVIOUR_SINCE` names it."""
        return line_has(self.line, behaviour)

    def gate(self, gate: FeatureGate) -> bool:
        return gate in self.gates

    @property
    def node_overlay(self) -> bool:
        return FeatureGate.NODE_OVERLAY in self.gates

    @property
    def reserved_capacity(self) -> bool:
        return FeatureGate.RESERVED_CAPACITY in self.gates

    @property
    def static_capacity(self) -> bool:
        return FeatureGate.STATIC_CAPACITY in self.gates

    @property
    def best_effort(self) -> bool:
        """``minValuesPolicy: BestEffort``: the scheduler relaxes a minValues it cannot meet."""
        return self.min_values_policy == "BestEffort"

    @property
    def default_capacity(self) -> bool:
        """The VM overhead and reserved ENIs the catalog's allocatable assumes (0.075, 0)."""
        return self.vm_memory_overhead_percent == 0.075 and self.reserved_enis == 0

    def describe(self) -> str:
        """One line: where the settings come from, the values the analysis used, and the settings set away from
        their defaults that it does not model (named: ``not modelled: settings.<name> <value>``)."""
        gates = ", ".join(f"{g.value} {'on' if g in self.gates else 'off'}" for g in
                          (FeatureGate.NODE_OVERLAY, FeatureGate.RESERVED_CAPACITY, FeatureGate.STATIC_CAPACITY))
        unmodelled = self._unmodelled()
        return (f"Karpenter settings: {self.source} (featureGates {gates}; minValuesPolicy {self.min_values_policy}; "
                f"vmMemoryOverheadPercent {go_value_text(self.vm_memory_overhead_percent)}; "
                f"reservedENIs {self.reserved_enis})"
                + (f"; not modelled: {', '.join(f'settings.{name}' for name, _ in unmodelled)}" if unmodelled else ""))

    def _unmodelled(self) -> list[tuple[str, str]]:
        """(``name value``, what it changes) of each setting read away from its default that the analysis does not
        model."""
        out = []
        if self.preference_policy != "Respect":
            out.append(("preferencePolicy Ignore", "drops a pod's preferred affinities and ScheduleAnyway spreads; "
                                                   "the analysis reads no preferences"))
        if self.enable_zonal_shift:
            out.append(("enableZonalShift true", "zones under an ARC zonal shift offer nothing; the shifts are "
                                                 "runtime state"))
        if not self.ignore_dra_requests:
            out.append(("ignoreDRARequests false", "pods' DRA resource claims are scheduled; the analysis reads none"))
        if FeatureGate.CAPACITY_BUFFER in self.gates:
            out.append(("featureGates.capacityBuffer true", "CapacityBuffer objects pre-provision nodes; the "
                                                            "analysis reads none"))
        if FeatureGate.SPOT_TO_SPOT_CONSOLIDATION in self.gates:
            out.append(("featureGates.spotToSpotConsolidation true", "consolidation replaces a spot node with a "
                                                                     "cheaper spot one; the analysis prices launches, "
                                                                     "not consolidation"))
        if FeatureGate.NODE_REPAIR in self.gates:
            out.append(("featureGates.nodeRepair true", "unhealthy nodes are deleted and replaced; the analysis "
                                                        "reads no node health"))
        for key, value in (("batchMaxDuration", self.batch_max_duration),
                           ("batchIdleDuration", self.batch_idle_duration)):
            if go_parse_duration(value) != go_parse_duration(BINARY_DEFAULTS[key]):
                out.append((f"{key} {value}", "how long the provisioner gathers pending pods into one scheduling "
                                              "batch; the analysis schedules each question as one batch"))
        if self.isolated_vpc:
            out.append(("isolatedVPC true", "no AWS pricing API: on-demand prices come from the list the binary "
                                            "ships; the analysis prices from its catalog or --aws"))
        return out

    def unmodelled(self) -> tuple[str, ...]:
        """The settings set away from their defaults that change what Karpenter does in ways the analysis does not
        model (each named, with what it would change)."""
        return tuple(f"not modelled: settings.{name} ({why})" for name, why in self._unmodelled())


def go_value_text(value: Any) -> str:
    """How the chart prints a Helm value (text/template, sprig ``toString``: Go's ``%v``): Helm reads every number
    as float64 (:func:`_go_float_text`), booleans print ``true``/``false``, strings as they are."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        try:
            return _go_float_text(float(value))
        except OverflowError:  # an int beyond float64: Helm's YAML reader refuses it
            return "+Inf" if value > 0 else "-Inf"
    return str(value)


def _go_float_text(number: float) -> str:
    """``fmt.Sprint(float64)`` = ``strconv.FormatFloat(v, 'g', -1, 64)``: the shortest digits that read back, in
    ``%e`` form when the decimal exponent is below -4 or at least 6 (the shortest form's switch, ``eprec = 6``):
    100000 -> ``100000``, 1e6 -> ``1e+06``, 123456789 -> ``1.23456789e+08``, 1e-05 -> ``1e-05``, 0.0001 ->
    ``0.0001`` (checked against Go)."""
    if math.isinf(number):
        return "+Inf" if number > 0 else "-Inf"
    if math.isnan(number):
        return "NaN"
    if number == 0:
        return "-0" if math.copysign(1, number) < 0 else "0"
    sign, digits, exponent = Decimal(repr(number)).normalize().as_tuple()
    text = "".join(map(str, digits))
    exp = len(digits) + int(exponent) - 1  # the decimal exponent of the first digit
    prefix = "-" if sign else ""
    if exp < -4 or exp >= 6:
        mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
        return f"{prefix}{mantissa}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    if exp < 0:
        return f"{prefix}0.{'0' * (-exp - 1)}{text}"
    if len(text) <= exp + 1:
        return f"{prefix}{text}{'0' * (exp + 1 - len(text))}"
    return f"{prefix}{text[:exp + 1]}.{text[exp + 1:]}"


def _truthy(value: Any) -> bool:
    """text/template's truth (``{{- with }}``): false, 0, "", null, an empty map or list are empty."""
    if value is None or value is False:
        return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value != 0
    if isinstance(value, (str, Mapping, list, tuple)):
        return len(value) > 0
    return True


def _bad(code: str, key: str, value: Any, allowed: str, fix: str, source: str) -> KarpenterGpuError:
    return KarpenterGpuError(code, prop=f"settings.{key}", value=value, allowed=allowed, fix=fix, path=source)


def _rendered(settings: Mapping[str, Any], key: str, code: str, source: str) -> str | None:
    """The environment variable the chart renders for ``key`` (None: not rendered, the binary's default applies)."""
    value = settings.get(key, CHART_SETTINGS[key][0]) if key in settings or key in CHART_SETTINGS else None
    if not _truthy(value):
        return None
    if isinstance(value, (Mapping, list, tuple)):
        raise _bad(code, key, value, "a single value (a string, a number or a boolean)",
                   "write one value; the chart prints a map or list as Go text the binary cannot read", source)
    text = go_value_text(value)
    if "{{" in text:
        raise _bad(code, key, value, "a value without a Helm template (the chart runs tpl on it)",
                   "write the value itself; the analysis does not render templates", source)
    return text


def _gates(settings: Mapping[str, Any], source: str) -> frozenset[FeatureGate]:
    """``FEATURE_GATES`` as the chart renders it and ``ParseFeatureGates`` reads it."""
    raw = settings.get("featureGates", {}) if "featureGates" in settings else {}
    if raw is None:
        raw = {}  # Helm: null removes the chart's gates; each renders <no value>
    if not isinstance(raw, Mapping):
        raise _bad("KG741", "featureGates", raw, "a map of feature gate -> true/false", "write featureGates as a map",
                   source)
    names = [g.value for g in FeatureGate]
    for key in raw:
        if key not in names:
            hint = next((n for n in names if n.lower() == str(key).lower()), None)
            raise _bad("KG741", f"featureGates.{key}", raw[key], f"one of the chart's gates: {', '.join(names)}",
                       f"use {hint!r}" if hint else "remove it: the chart renders only its own gates (the key is "
                       "silently ignored)", source)
    on = set()
    for gate in FeatureGate:
        value = raw[gate.value] if gate.value in raw else (gate in DEFAULT_ON)
        text = "<no value>" if value is None else go_value_text(value)
        if isinstance(value, (Mapping, list, tuple)) or text not in _BOOLS:
            raise _bad("KG741", f"featureGates.{gate.value}", value, "true or false (strconv.ParseBool)",
                       f"the binary reads FEATURE_GATES {GATE_FLAG_NAMES[gate]}={text} and does not start; write "
                       "true or false", source)
        if _BOOLS[text]:
            on.add(gate)
    return frozenset(on)


def _policy(settings: Mapping[str, Any], key: str, allowed: tuple[str, ...], source: str) -> str:
    text = _rendered(settings, key, "KG742", source)
    if text is None:
        return str(BINARY_DEFAULTS[key])
    if text not in allowed:
        raise _bad("KG742", key, settings.get(key), " or ".join(allowed),
                   f"the binary refuses {CHART_SETTINGS[key][1]}={text!r} and does not start", source)
    return text


def _vm_overhead(settings: Mapping[str, Any], source: str, notes: list[str]) -> float:
    key = "vmMemoryOverheadPercent"
    value = settings.get(key, CHART_SETTINGS[key][0])
    text = _rendered(settings, key, "KG743", source)
    if text is None:
        if value is not None and isinstance(value, (int, float)) and not isinstance(value, bool) and value == 0:
            notes.append("settings.vmMemoryOverheadPercent 0: the chart renders no VM_MEMORY_OVERHEAD_PERCENT for "
                         "a number 0 ({{- with }}), so Karpenter uses its default 0.075; write \"0\" for no overhead")
        return float(BINARY_DEFAULTS[key])  # type: ignore[arg-type]
    try:
        number = float(go_float.parse(text))
    except go_float.GoFloatError:
        raise _bad("KG743", key, value, "a number (strconv.ParseFloat)",
                   "Karpenter silently uses 0.075 for a value it cannot read; write a number such as 0.075",
                   source) from None
    if not math.isfinite(number) or number < 0 or number >= 1:
        raise _bad("KG743", key, value, "a fraction >= 0 and < 1 (0.075 is 7.5%)",
                   "Karpenter refuses a negative value and leaves no memory at 1 or more; write e.g. 0.075", source)
    return number


def _reserved_enis(settings: Mapping[str, Any], source: str) -> int:
    key = "reservedENIs"
    value = settings.get(key, CHART_SETTINGS[key][0])
    text = _rendered(settings, key, "KG744", source)
    if text is None:
        return 0
    if not _ATOI.match(text) or not -_INT64 <= int(text) < _INT64:
        raise _bad("KG744", key, value, "a whole number >= 0 (strconv.Atoi)",
                   f"the chart renders RESERVED_ENIS={text!r}, which Karpenter silently reads as 0; write a whole "
                   "number below 1000000 (Helm prints larger numbers as 1e+06), or quote it", source)
    number = int(text)
    if number < 0:
        raise _bad("KG744", key, value, "a whole number >= 0", "Karpenter refuses a negative value and does not start",
                   source)
    return number


def _duration(settings: Mapping[str, Any], key: str, source: str) -> str:
    text = _rendered(settings, key, "KG740", source)
    if text is None:
        return str(BINARY_DEFAULTS[key])
    if not _DURATION.match(text):
        raise _bad("KG740", key, settings.get(key), "a Go duration such as 10s or 1m30s (time.ParseDuration)",
                   "Karpenter silently uses its default for a duration it cannot read", source)
    return text


def _boolean(settings: Mapping[str, Any], key: str, source: str) -> bool:
    text = _rendered(settings, key, "KG740", source)
    if text is None:
        return bool(BINARY_DEFAULTS[key])
    if text not in _BOOLS:
        raise _bad("KG740", key, settings.get(key), "true or false (strconv.ParseBool)",
                   "Karpenter silently uses its default for a value it cannot read", source)
    return _BOOLS[text]


def read_settings(values: Any, source: str = KARPENTER_VALUES_FILE) -> ControllerSettings:
    """The controller's settings from a Karpenter chart values document (``None``: the chart's defaults).

    ``source`` names the file in the settings line and in errors (KG740 for a ``settings`` that is not a map, an
    unknown setting or a duration or boolean the binary cannot read; KG741 a feature gate; KG742 a policy; KG743
    ``vmMemoryOverheadPercent``; KG744 ``reservedENIs``)."""
    if values is None:
        return ControllerSettings()
    if not isinstance(values, Mapping):
        raise KarpenterGpuError("KG740", prop="<values>", value=values, allowed="Helm values: a map",
                                fix="point at the Karpenter chart's values file", path=source)
    settings = values.get("settings", {}) if "settings" in values else {}
    if settings is None:
        settings = {}
    if not isinstance(settings, Mapping):
        raise KarpenterGpuError("KG740", prop="settings", value=settings, allowed="a map of the chart's settings",
                                fix="write settings: as a map (charts/karpenter/values.yaml)", path=source)
    known = set(CHART_SETTINGS) | _OTHER_KEYS
    for key in settings:
        if key not in known:
            hint = next((k for k in sorted(known) if k.lower() == str(key).lower()), None)
            raise _bad("KG740", str(key), settings[key], f"a setting of the {KARPENTER_TAG} chart",
                       f"use {hint!r}" if hint else "remove it: the chart ignores keys it does not know", source)
    notes: list[str] = []
    return ControllerSettings(
        source=source, gates=_gates(settings, source),
        min_values_policy=_policy(settings, "minValuesPolicy", MIN_VALUES_POLICIES, source),
        preference_policy=_policy(settings, "preferencePolicy", PREFERENCE_POLICIES, source),
        vm_memory_overhead_percent=_vm_overhead(settings, source, notes),
        reserved_enis=_reserved_enis(settings, source),
        batch_max_duration=_duration(settings, "batchMaxDuration", source),
        batch_idle_duration=_duration(settings, "batchIdleDuration", source),
        isolated_vpc=_boolean(settings, "isolatedVPC", source),
        enable_zonal_shift=_boolean(settings, "enableZonalShift", source),
        ignore_dra_requests=_boolean(settings, "ignoreDRARequests", source),
        notes=tuple(notes),
    )


def values_text(settings: ControllerSettings) -> dict[str, Any]:
    """A values document that :func:`read_settings` reads back as ``settings`` (its source aside): every gate, the
    policies, and the VM overhead and reserved ENIs as strings (a number 0 would not be rendered by the chart)."""
    return {"settings": {
        "featureGates": {g.value: g in settings.gates for g in FeatureGate},
        "minValuesPolicy": settings.min_values_policy, "preferencePolicy": settings.preference_policy,
        "vmMemoryOverheadPercent": go_value_text(settings.vm_memory_overhead_percent),
        "reservedENIs": str(settings.reserved_enis),
    }}


def environment_settings(values: Mapping[str, Any] | None, source: str,
                         fallback: ControllerSettings | None = None) -> ControllerSettings:
    """The settings of one environment: its :data:`~karpenter_gpu.upstream.KARPENTER_VALUES_FILE` among ``values``
    (Helm values by file name), read from ``source``; without one, ``fallback`` (``--karpenter-values``), else the
    chart's defaults."""
    if values and KARPENTER_VALUES_FILE in values:
        return read_settings(values[KARPENTER_VALUES_FILE], source)
    return fallback if fallback is not None else ControllerSettings()
