"""Node requirements (NodePool ``spec.template.spec.requirements``) through small builders.

``Requirement.gt(Label.GPU_COUNT, 0)`` instead of hand-written dicts: the operator decides
which values are legal, and restricted keys are refused before the API server sees them.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any, Iterable

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s import scheduling
from karpenter_gpu.k8s.int64 import MAX as _INT64_MAX
from karpenter_gpu.k8s.names import QUALIFIED_NAME, QUALIFIED_NAME_PART
from karpenter_gpu.k8s.labels import (
    AWS_ALLOWED_KEYS, OVERLAY_AWS_KEYS, OVERLAY_KARPENTER_KEYS, Label,
)
from karpenter_gpu.k8s.units import GpuMemory


class Operator(StrEnum):
    IN = "In"
    NOT_IN = "NotIn"
    EXISTS = "Exists"
    DOES_NOT_EXIST = "DoesNotExist"
    GT = "Gt"
    LT = "Lt"
    GTE = "Gte"
    LTE = "Lte"


class CapacityType(StrEnum):
    """``karpenter.sh/capacity-type``. ``reserved`` is ODCR / Capacity Block, not RIs."""

    RESERVED = "reserved"
    SPOT = "spot"
    ON_DEMAND = "on-demand"


# Kubernetes qualified name: optional DNS subdomain prefix, then a name of ≤63 chars.
_QUALIFIED = re.compile(rf"{QUALIFIED_NAME}\Z", re.ASCII)
LABEL_VALUE = re.compile(rf"({QUALIFIED_NAME_PART})?\Z", re.ASCII)
_DIGITS = re.compile(r"^[0-9]+\Z")  # str.isdigit() would accept '²' and other non-ASCII digits


def check_label_value(value: object, prop: str, code: str) -> None:
    """A Kubernetes label value (≤ 63 characters of alphanumerics, '-', '_', '.'), else ``code`` at ``prop``."""
    if not isinstance(value, str) or len(value) > 63 or not LABEL_VALUE.match(value):
        raise KarpenterGpuError(code, prop=prop, value=value,
                                allowed="a label value (≤63 chars, alphanumerics, '-', '_', '.')",
                                fix="simplify the value")


def check_label_key(key: str, prop: str = "requirements") -> None:
    """Reject keys the NodePool CRD (or Karpenter at runtime) refuses, with the reason."""
    # The CRD's CEL takes everything before the first '/' as the domain, the whole key when there is
    # none: a bare "karpenter.sh" is in the restricted domain too.
    domain = key.split("/", 1)[0]
    prefix = domain if "/" in key else ""
    name = key.rsplit("/", 1)[-1]
    if not _QUALIFIED.match(key) or len(name) > 63 or len(prefix) > 253:
        raise KarpenterGpuError("KG111", prop=prop, value=key,
                                allowed="a qualified label key (optional DNS prefix '/', name ≤63 chars)",
                                fix="use a key like 'example.com/team' or 'workload'")
    if key in (Label.NODEPOOL, "kubernetes.io/hostname"):
        raise KarpenterGpuError("KG111", prop=prop, value=key,
                                allowed="any key but karpenter.sh/nodepool and kubernetes.io/hostname (set by Karpenter)",
                                fix="drop it; select the pool with a nodeSelector on karpenter.sh/nodepool instead")
    if domain.endswith("karpenter.sh") and key != Label.CAPACITY_TYPE:
        raise KarpenterGpuError("KG111", prop=prop, value=key,
                                allowed="of the karpenter.sh domain only karpenter.sh/capacity-type",
                                fix="use your own domain for custom labels")
    if domain.endswith("karpenter.k8s.aws") and key not in AWS_ALLOWED_KEYS:
        raise KarpenterGpuError("KG111", prop=prop, value=key,
                                allowed=f"a karpenter.k8s.aws key from the CRD allow-list ({len(AWS_ALLOWED_KEYS)} keys; "
                                        "instance-pods is documented but rejected)",
                                fix="use an allowed key, e.g. karpenter.k8s.aws/instance-gpu-count")


class Requirement:
    """One node requirement. Build with the operator classmethods; render with :meth:`render`."""

    __slots__ = ("key", "min_values", "operator", "values")

    def __init__(self, key: str, operator: Operator, values: Iterable[str] = (), min_values: int | None = None):
        check_label_key(key)
        if isinstance(values, (str, bytes)):  # a bare string would become one value per character
            raise KarpenterGpuError("KG110", prop=f"requirements[{key}]", value=values,
                                    allowed="a list of values", fix=f"wrap it: [{values!r}]")
        vals = tuple(str(v) for v in values)
        op = Operator(operator)
        # Stricter than the CRD, on purpose: NotIn [] excludes nothing, values on Exists are ignored,
        # a signed comparison value is legal but surprising, and a repeated value is a typo.
        if op == Operator.NOT_IN and not vals:
            raise KarpenterGpuError("KG110", prop=f"requirements[{key}]", value=[],
                                    allowed=f"at least one value for operator {op}",
                                    fix="list the values, or use Exists / DoesNotExist")
        if op in (Operator.EXISTS, Operator.DOES_NOT_EXIST) and vals:
            raise KarpenterGpuError("KG110", prop=f"requirements[{key}]", value=list(vals),
                                    allowed=f"no values for operator {op}", fix="drop the values")
        if op in (Operator.GT, Operator.LT, Operator.GTE, Operator.LTE) and (
            len(vals) != 1 or not _DIGITS.match(vals[0])
        ):
            raise KarpenterGpuError("KG110", prop=f"requirements[{key}]", value=list(vals),
                                    allowed=f"exactly one non-negative integer for operator {op}",
                                    fix=f"use Requirement.{op.name.lower()}(key, <int>)")
        if len(set(vals)) != len(vals):
            raise KarpenterGpuError("KG110", prop=f"requirements[{key}]", value=list(vals),
                                    allowed="distinct values", fix="remove the duplicates")
        # What the CRD itself refuses (In without values, minValues) is the core's to say.
        rendered: dict = {"key": key, "operator": str(op), "values": list(vals)}
        if min_values is not None:
            rendered["minValues"] = min_values
        try:
            scheduling.Requirement.from_dict(rendered, f"requirements[{key}]")
        except KarpenterGpuError as error:
            raise KarpenterGpuError("KG110", prop=error.prop.replace(".minValues", ".min_values").replace(
                ".values", ""), value=error.value, allowed=error.allowed, fix=error.fix) from None
        self.key, self.operator, self.values, self.min_values = key, op, vals, min_values

    @classmethod
    def in_(cls, key: str, values: Iterable[str], min_values: int | None = None) -> "Requirement":
        return cls(key, Operator.IN, values, min_values)

    @classmethod
    def not_in(cls, key: str, values: Iterable[str]) -> "Requirement":
        return cls(key, Operator.NOT_IN, values)

    @classmethod
    def exists(cls, key: str, min_values: int | None = None) -> "Requirement":
        return cls(key, Operator.EXISTS, (), min_values)

    @classmethod
    def does_not_exist(cls, key: str) -> "Requirement":
        return cls(key, Operator.DOES_NOT_EXIST)

    @classmethod
    def _compare(cls, key: str, op: Operator, value: "int | GpuMemory") -> "Requirement":
        if key == Label.GPU_MEMORY and not isinstance(value, GpuMemory):
            raise KarpenterGpuError("KG103", prop=f"requirements[{key}]", value=value,
                                    allowed="a GpuMemory (MiB per GPU), not a bare number",
                                    fix="pass GpuMemory.gib(16) or GpuMemory.of_gpu('a10g')")
        if isinstance(value, GpuMemory) and key != Label.GPU_MEMORY:
            raise KarpenterGpuError("KG110", prop=f"requirements[{key}]", value=value,
                                    allowed=f"GpuMemory only on {Label.GPU_MEMORY}", fix="pass an int")
        number = value.in_mib if isinstance(value, GpuMemory) else value
        if isinstance(number, bool) or not isinstance(number, int):
            raise KarpenterGpuError("KG110", prop=f"requirements[{key}]", value=value,
                                    allowed=f"an integer for operator {op}", fix="pass an int")
        if not 0 <= number <= _INT64_MAX:
            # The CRD's CEL rule reads int(values[0]) >= 0: CEL ints are int64, so a larger value fails the
            # rule's evaluation and the API server rejects the NodePool.
            raise KarpenterGpuError("KG110", prop=f"requirements[{key}]", value=number,
                                    allowed=f"an integer 0..{_INT64_MAX} for operator {op} (the CRD requires a single "
                                            "non-negative int64)",
                                    fix="pass a smaller bound")
        return cls(key, op, (str(number),))

    @classmethod
    def gt(cls, key: str, value: "int | GpuMemory") -> "Requirement":
        return cls._compare(key, Operator.GT, value)

    @classmethod
    def lt(cls, key: str, value: "int | GpuMemory") -> "Requirement":
        return cls._compare(key, Operator.LT, value)

    @classmethod
    def gte(cls, key: str, value: "int | GpuMemory") -> "Requirement":
        return cls._compare(key, Operator.GTE, value)

    @classmethod
    def lte(cls, key: str, value: "int | GpuMemory") -> "Requirement":
        return cls._compare(key, Operator.LTE, value)

    def render(self) -> dict[str, Any]:
        out: dict = {"key": self.key, "operator": str(self.operator)}
        if self.operator not in (Operator.EXISTS, Operator.DOES_NOT_EXIST):
            out["values"] = list(self.values)
        if self.min_values is not None:
            out["minValues"] = self.min_values
        return out

    def to_core(self) -> scheduling.Requirement:
        """The scheduling core's :class:`~karpenter_gpu.k8s.scheduling.Requirement` for this requirement
        (what Karpenter's ``NewRequirementWithFlexibility`` builds from the rendered dict)."""
        values = () if self.operator in (Operator.EXISTS, Operator.DOES_NOT_EXIST) else self.values
        return scheduling.Requirement.new(self.key, str(self.operator), values, self.min_values)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Requirement) and self.render() == other.render()

    def __hash__(self) -> int:
        return hash((self.key, self.operator, self.values, self.min_values))

    def __repr__(self) -> str:
        return f"Requirement({self.key!r}, {self.operator.value}, {list(self.values)})"


def check_overlay_key(key: str, prop: str = "requirements") -> str:
    """Refuse a key the NodeOverlay CRD's pattern or CEL rules would refuse (KG182)."""
    domain = key.split("/", 1)[0] if isinstance(key, str) else ""
    if not isinstance(key, str) or len(key) > 316 or not _QUALIFIED.match(key):
        why = "a qualified label key (optional DNS prefix '/', name ≤63 chars)"
    elif key == "kubernetes.io/hostname":
        why = "any key but kubernetes.io/hostname"
    elif domain.endswith("karpenter.sh") and key not in OVERLAY_KARPENTER_KEYS:
        why = f"of the karpenter.sh domain only {sorted(OVERLAY_KARPENTER_KEYS)}"
    elif domain.endswith("karpenter.k8s.aws") and key not in OVERLAY_AWS_KEYS:
        why = (f"a karpenter.k8s.aws key from the NodeOverlay allow-list ({len(OVERLAY_AWS_KEYS)} keys; shorter "
               "than NodePool's: no capacity-reservation-*, instance-tenancy or placement-group-*)")
    else:
        return key
    raise KarpenterGpuError("KG182", prop=prop, value=key, allowed=why,
                            fix="select on an allowed key, e.g. node.kubernetes.io/instance-type")
