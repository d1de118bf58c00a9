"""Node capacity and allocatable from an EC2NodeClass's kubelet settings, as the AWS provider v1.14.1 computes them.

aws ``pkg/providers/instancetype/types.go``: ``NewInstanceType`` builds ``Capacity`` with ``computeCapacity`` (cpu =
vCPUs, ``memory`` = MiB less 64 MiB on arm64 less the VM overhead ``ceil(bytes * 0.075 / 2**20)`` MiB,
``pods``) and the overhead Karpenter subtracts to get allocatable: ``kubeReservedResources`` (cpu by the
6% / 1% / 0.5% / 0.25% ranges, memory ``11 * pods + 255`` MiB, each overridden by ``kubelet.kubeReserved``),
``systemReservedResources`` (``kubelet.systemReserved``) and ``evictionThreshold`` (memory 100Mi, or
``kubelet.evictionHard["memory.available"]``, a quantity or a percentage of the capacity; ``evictionSoft`` is passed
in but, as the code says, does not change allocatable). ``pods()``: ``kubelet.maxPods`` when set, else the
ENI-limited count (else 110 on Windows), capped by ``podsPerCore * vCPUs`` where the AMI family allows it
(``FeatureFlags``: Bottlerocket ignores podsPerCore and reserves memory for ``pods()``; the other Linux families
reserve memory for the ENI-limited count whatever maxPods says).

The inputs an instance type needs are its vCPUs, memory MiB, architecture and ENI-limited max pods; the catalog has
the first three as labels and the last as its default allocatable ``pods`` (see
:meth:`karpenter_gpu.analysis.catalog.InstanceType.node_facts`). Two controller settings
(:mod:`~karpenter_gpu.k8s.controller_settings`) enter here, carried by :class:`KubeletSettings`:
``vmMemoryOverheadPercent`` (``memory()``: ``options.FromContext(ctx).VMMemoryOverheadPercent``) and
``reservedENIs`` (``pods()`` -> ``ENILimitedPods(ctx, info, options.FromContext(ctx).ReservedENIs, ...)``: the usable
ENIs less the reserved ones, ``* (IPv4 per ENI - 1) + 2``, 0 when none is left; the kube-reserved memory of the
ENI-limited families counts ``ENILimitedPods`` with 0 reserved). Not modelled: EFA-only ``networkInterfaces``
here (:mod:`~karpenter_gpu.k8s.compatibility`) and the capacity Karpenter caches from nodes it has seen (it
replaces the VM-overhead estimate). Ephemeral storage: :mod:`~karpenter_gpu.k8s.node_resources`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal
from collections.abc import Mapping  # isinstance checks: the abc directly, not typing's alias
from typing import Any

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.node_resources import NodeResourceSettings
from karpenter_gpu.k8s.units import Quantity

__all__ = ["VM_MEMORY_OVERHEAD_PERCENT", "KubeletSettings", "NodeFacts", "allocatable", "capacity", "overhead"]

#: The controller's ``--vm-memory-overhead-percent`` default.
VM_MEMORY_OVERHEAD_PERCENT = 0.075
_MI = 2**20
#: ``FeatureFlags`` per AMI family: (UsesENILimitedMemoryOverhead, PodsPerCoreEnabled, SupportsENILimitedPodDensity).
_FLAGS = {"Bottlerocket": (False, False, True), "Windows2019": (False, True, False),
          "Windows2022": (False, True, False), "Windows2025": (False, True, False)}
_DEFAULT_FLAGS = (True, True, True)  # DefaultFamily: AL2, AL2023, Custom


@dataclass(frozen=True)
class NodeFacts:
    """What the provider reads from EC2 for one instance type."""

    vcpus: int
    memory_mib: int
    arm64: bool
    eni_pods: int
    #: IPv4 addresses per ENI (the provider's VPC limits table; None: not known).
    ipv4_per_eni: int | None = None

    def eni_limited_pods(self, reserved_enis: int) -> int | None:
        """``ENILimitedPods`` with ``reserved_enis`` more ENIs left out: the usable ENIs are read back from
        :attr:`eni_pods` (``usable * (IPv4 per ENI - 1) + 2``); None when that needs the unknown IPv4 count."""
        if not reserved_enis:
            return self.eni_pods
        if self.ipv4_per_eni is None or self.ipv4_per_eni < 2:
            return None
        usable = (self.eni_pods - 2) // (self.ipv4_per_eni - 1) if self.eni_pods else 0
        left = max(usable - reserved_enis, 0)
        return 0 if left == 0 else left * (self.ipv4_per_eni - 1) + 2


@dataclass(frozen=True)
class KubeletSettings:
    """The EC2NodeClass ``spec.kubelet`` fields that change capacity or allocatable, and its AMI family."""

    ami_family: str = "AL2023"
    max_pods: int | None = None
    pods_per_core: int | None = None
    kube_reserved: Mapping[str, str] = field(default_factory=dict, hash=False)
    system_reserved: Mapping[str, str] = field(default_factory=dict, hash=False)
    eviction_hard: Mapping[str, str] = field(default_factory=dict, hash=False)
    #: Controller settings (``--vm-memory-overhead-percent``, ``--reserved-enis``), the same for every node class.
    vm_memory_overhead_percent: float = VM_MEMORY_OVERHEAD_PERCENT
    reserved_enis: int = 0
    #: What gives the node's ephemeral storage (block devices, instance store) (:mod:`~karpenter_gpu.k8s.node_resources`).
    resources: NodeResourceSettings = field(default_factory=NodeResourceSettings)

    @classmethod
    def of(cls, spec: Mapping[str, Any], ami_family: str, where: str) -> "KubeletSettings":
        """From an EC2NodeClass spec (KG711 for values Karpenter could not parse)."""
        raw = spec.get("kubelet")
        kubelet: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}

        def count(key: str) -> int | None:
            value = kubelet.get(key)
            if value is None:
                return None
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise _bad(f"{where}.spec.kubelet.{key}", value, "a whole number >= 0")
            return value

        def table(key: str) -> dict[str, str]:
            value = kubelet.get(key) or {}
            if not isinstance(value, Mapping):
                raise _bad(f"{where}.spec.kubelet.{key}", value, "a map of resource -> quantity")
            out = {str(k): str(v) for k, v in value.items()}
            for k, v in out.items():
                if not (key == "evictionHard" and v.endswith("%")):
                    _parse(v, f"{where}.spec.kubelet.{key}.{k}")
                else:
                    _percent(v, f"{where}.spec.kubelet.{key}.{k}")
            return out

        return cls(ami_family, count("maxPods"), count("podsPerCore"), table("kubeReserved"), table("systemReserved"),
                   table("evictionHard"), resources=NodeResourceSettings.of(spec, ami_family, where))

    @property
    def flags(self) -> tuple[bool, bool, bool]:
        return _FLAGS.get(self.ami_family, _DEFAULT_FLAGS)

    @property
    def is_default(self) -> bool:
        """Nothing here changes what the catalog's allocatable assumes: ENI-limited pods (no maxPods, no podsPerCore
        the family applies) and no reserved or eviction settings (Bottlerocket then reserves the same memory)."""
        _, per_core_enabled, eni_density = self.flags
        return (eni_density and self.max_pods is None and not (self.pods_per_core and per_core_enabled)
                and not self.kube_reserved and not self.system_reserved and not self.eviction_hard
                and self.vm_memory_overhead_percent == VM_MEMORY_OVERHEAD_PERCENT and not self.reserved_enis)


def _bad(prop: str, value: Any, allowed: str) -> KarpenterGpuError:
    return KarpenterGpuError("KG711", prop=prop, value=value, allowed=allowed,
                             fix="write the kubelet setting as the EC2NodeClass schema describes it")


def _parse(value: str, where: str) -> Decimal:
    try:
        return Quantity.parse(value).as_decimal()
    except KarpenterGpuError:
        raise _bad(where, value, "a Kubernetes quantity such as '100Mi' or '500m'") from None


def _percent(value: str, where: str) -> float:
    """``mustParsePercentage``: 100% disables the threshold (0)."""
    try:
        p = float(value.strip("%"))
    except ValueError:
        raise _bad(where, value, "a percentage such as '5%'") from None
    return 0.0 if p == 100 else p


def _pods(facts: NodeFacts, settings: KubeletSettings) -> int:
    """``pods()``."""
    _, per_core_enabled, eni_density = settings.flags
    if settings.max_pods is not None:
        count = settings.max_pods
    elif eni_density:
        limited = facts.eni_limited_pods(settings.reserved_enis)
        if limited is None:
            raise KarpenterGpuError("KG744", prop="settings.reservedENIs", value=settings.reserved_enis,
                                    allowed="0 for an instance type outside the provider's VPC limits table",
                                    fix="the ENIs and IPv4 addresses of the type are not known: set reservedENIs 0 "
                                        "or use a catalog of the provider's types")
        count = limited
    else:
        count = 110
    if settings.pods_per_core and per_core_enabled:
        count = min(settings.pods_per_core * facts.vcpus, count)
    return count


def _memory(facts: NodeFacts, settings: KubeletSettings) -> int:
    """``memory()`` in bytes: less 64 MiB on arm64, less the VM overhead (float arithmetic as upstream)."""
    mib = facts.memory_mib - (64 if facts.arm64 else 0)
    return (mib - math.ceil(float(mib * _MI) * settings.vm_memory_overhead_percent / 1024 / 1024)) * _MI


def capacity(facts: NodeFacts, settings: KubeletSettings) -> dict[str, Decimal]:
    """``computeCapacity`` for cpu, memory (bytes) and pods: what ``spec.limits`` count."""
    return {"cpu": Decimal(facts.vcpus), "memory": Decimal(_memory(facts, settings)), "pods": Decimal(_pods(facts, settings))}


def _kube_reserved_cpu_milli(vcpus: int) -> int:
    total = 0
    milli = vcpus * 1000
    for start, end, pct in ((0, 1000, 0.06), (1000, 2000, 0.01), (2000, 4000, 0.005), (4000, 1 << 31, 0.0025)):
        if milli >= start:
            span = float(end - start) if milli >= end else float(milli - start)
            total += int(span * pct)
    return total


def overhead(facts: NodeFacts, settings: KubeletSettings) -> dict[str, Decimal]:
    """``Overhead.Total()``: kube-reserved + system-reserved + eviction threshold (cpu cores, memory bytes)."""
    uses_eni_memory, _, _ = settings.flags
    pods = facts.eni_pods if uses_eni_memory else _pods(facts, settings)
    kube = {"cpu": Decimal(_kube_reserved_cpu_milli(facts.vcpus)) / 1000, "memory": Decimal((11 * pods + 255) * _MI)}
    kube.update({k: _parse(v, k) for k, v in settings.kube_reserved.items()})
    system = {k: _parse(v, k) for k, v in settings.system_reserved.items()}
    eviction = {"memory": Decimal(100 * _MI)}
    signal = settings.eviction_hard.get("memory.available")
    if signal is not None:
        eviction["memory"] = (Decimal(math.ceil(float(_memory(facts, settings)) / 100 * _percent(signal, "memory.available")))
                              if signal.endswith("%") else _parse(signal, "memory.available"))
    total: dict[str, Decimal] = {}
    for part in (kube, system, eviction):
        for k, v in part.items():
            total[k] = total.get(k, Decimal(0)) + v
    return total


def allocatable(facts: NodeFacts, settings: KubeletSettings) -> dict[str, Decimal]:
    """cpu, memory and pods a pod can be given: capacity minus :func:`overhead`."""
    cap = capacity(facts, settings)
    over = overhead(facts, settings)
    return {k: v - over.get(k, Decimal(0)) for k, v in cap.items()}
