"""Node taints as value objects (NodePool ``taints`` / ``startupTaints``)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.requirements import LABEL_VALUE, check_label_key


class TaintEffect(StrEnum):
    NO_SCHEDULE = "NoSchedule"
    PREFER_NO_SCHEDULE = "PreferNoSchedule"
    NO_EXECUTE = "NoExecute"


class Taint:
    """A taint; ``Taint.gpu()`` is the conventional ``nvidia.com/gpu=true:NoSchedule``."""

    __slots__ = ("effect", "key", "value")

    def __init__(self, key: str, value: str | None = None, effect: TaintEffect | str = TaintEffect.NO_SCHEDULE):
        try:
            check_label_key(key, prop="taints")
        except KarpenterGpuError as err:
            raise err.at(prop="taints.key") from None
        if value is not None and (value == "" or len(value) > 63 or not LABEL_VALUE.match(value)):
            raise KarpenterGpuError("KG121", prop="taints.value", value=value,
                                    allowed="1..63 chars of alphanumerics, '-', '_' or '.', starting and ending alphanumeric",
                                    fix="shorten or simplify the taint value")
        try:
            eff = TaintEffect(effect)
        except ValueError:
            raise KarpenterGpuError("KG121", prop="taints.effect", value=effect,
                                    allowed=f"one of {[e.value for e in TaintEffect]}",
                                    fix="use TaintEffect.NO_SCHEDULE") from None
        self.key, self.value, self.effect = key, value, eff

    @classmethod
    def gpu(cls) -> "Taint":
        return cls("nvidia.com/gpu", "true", TaintEffect.NO_SCHEDULE)

    @classmethod
    def neuron(cls) -> "Taint":
        """``aws.amazon.com/neuron=true:NoSchedule``: the Neuron device plugin tolerates the key by default."""
        return cls("aws.amazon.com/neuron", "true", TaintEffect.NO_SCHEDULE)

    def render(self) -> dict[str, Any]:
        out = {"key": self.key}
        if self.value is not None:
            out["value"] = self.value
        out["effect"] = str(self.effect)
        return out

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Taint) and self.render() == other.render()

    def __hash__(self) -> int:
        return hash((self.key, self.value, self.effect))

    def __repr__(self) -> str:
        return f"Taint({self.key}={self.value or ''}:{self.effect})"
