"""Python source for the props of a construct call: value objects as the calls that build them
(``Duration.parse('5m')``, ``Requirement('k', Operator.IN, ['a'])``, ``Budget(nodes='10%')``), everything else
through :func:`~karpenter_gpu.importer.literal.literal`, so every string of the input is a ``repr``.

Each function returns the source and adds the names it uses to ``names`` (the generated module imports them from
``karpenter_gpu``)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from karpenter_gpu.importer.literal import INDENT, WIDTH, literal
from karpenter_gpu.k8s.requirements import Requirement
from karpenter_gpu.k8s.taint import Taint
from karpenter_gpu.k8s.units import Duration, GpuMemory, Quantity
from karpenter_gpu.overlays.overlay_price import Price, PriceAdjustment
from karpenter_gpu.pools.capacity_reservation import CapacityReservationTerm
from karpenter_gpu.pools.disruption_window import Budget
from karpenter_gpu.pools.gpu_node_class import AmiAlias, RootVolume
from karpenter_gpu.pools.tiered_spot_pools import SpotTier


@dataclass(frozen=True)
class Invocation:
    """A nested call written as ``function(key=value, ...)`` at the level it lands on (a props object of a
    ``PlatformConfig``)."""

    function: str
    kwargs: dict[str, Any]


def source(value: Any, names: set[str], level: int = 0) -> str:
    """``value`` as a Python expression that rebuilds it."""
    if isinstance(value, Invocation):
        return call(value.function, value.kwargs, names, level)
    if isinstance(value, Duration):
        names.add("Duration")
        return f"Duration.parse({str(value)!r})"
    if isinstance(value, Quantity):
        names.add("Quantity")
        return f"Quantity({str(value)!r})"
    if isinstance(value, GpuMemory):
        names.add("GpuMemory")
        return f"GpuMemory.mib({value.in_mib})"
    if isinstance(value, PriceAdjustment | Price):
        names.add(type(value).__name__)
        return f"{type(value).__name__}.parse({str(value)!r})"
    if isinstance(value, AmiAlias):
        return repr(str(value))
    if isinstance(value, Enum):
        names.add(type(value).__name__)
        return f"{type(value).__name__}.{value.name}"
    if isinstance(value, Requirement):
        return _requirement(value, names)
    if isinstance(value, Taint):
        return _taint(value, names)
    if isinstance(value, Budget | RootVolume | CapacityReservationTerm | SpotTier):
        return call(type(value).__name__, _set_fields(value), names, level)
    if isinstance(value, tuple):
        items = [source(v, names, level + 1) for v in value]
        flat = "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        if len(flat) + len(INDENT) * level <= WIDTH and "\n" not in flat:
            return flat
        inner = INDENT * (level + 1)
        return "(\n" + "\n".join(f"{inner}{i}," for i in items) + f"\n{INDENT * level})"
    return literal(value, level)


def call(function: str, kwargs: dict[str, Any], names: set[str], level: int = 0, head: str = "") -> str:
    """``function(head, key=value, ...)``: on one line when it fits, else one argument a line."""
    if "." not in function:
        names.add(function)
    else:
        names.add(function.split(".")[0])
    args = ([head] if head else []) + [f"{k}={source(v, names, level + 1)}" for k, v in kwargs.items()]
    flat = f"{function}({', '.join(args)})"
    if len(flat) + len(INDENT) * level <= WIDTH and "\n" not in flat:
        return flat
    inner = INDENT * (level + 1)
    return f"{function}(\n" + "\n".join(f"{inner}{a}," for a in args) + f"\n{INDENT * level})"


def _set_fields(model: Any) -> dict[str, Any]:
    """The fields of a props model that differ from their defaults, in declaration order."""
    fields = type(model).model_fields
    return {name: getattr(model, name) for name, f in fields.items()
            if f.is_required() or getattr(model, name) != f.default}


def _requirement(r: Requirement, names: set[str]) -> str:
    names.update(("Requirement", "Operator"))
    args = [repr(r.key), f"Operator.{r.operator.name}"]
    if r.values:
        args.append(literal(list(r.values)))
    if r.min_values is not None:
        args.append(f"min_values={r.min_values!r}")
    return f"Requirement({', '.join(args)})"


def _taint(t: Taint, names: set[str]) -> str:
    names.add("Taint")
    if t == Taint.gpu():
        return "Taint.gpu()"
    names.add("TaintEffect")
    return f"Taint({t.key!r}, {t.value!r}, TaintEffect.{t.effect.name})"
