"""MIG (Multi-Instance GPU): profile tables, MIG Manager config names, and what a node advertises.

Karpenter cannot know that an H100 node will advertise ``nvidia.com/mig-1g.10gb`` before it exists:
the instance type only carries ``nvidia.com/gpu``. This module answers, per GPU model, what the GPU
Operator's MIG Manager and the NVIDIA device plugin will make of a node, so that NodeOverlays can
tell Karpenter's simulation the same (:class:`~karpenter_gpu.pools.mig_partitioned_pool.MigPartitionedPool`)
and the analyzers can check pods against it.

- **Profile tables** (``data/mig-profiles.json``): per GPU model the MIG profiles and how many
  instances of each fit on one GPU when the whole GPU uses that profile, from the NVIDIA MIG user guide
  "Supported MIG Profiles"; the model is matched on ``instance-gpu-name`` + ``instance-gpu-memory``.
- **Config names** (the node label ``nvidia.com/mig.config``): MIG Manager v0.15.0 (GPU Operator
  v26.7.0) generates its configs from the discovered profiles (NVIDIA/mig-parted
  ``pkg/mig/builder/builder.go`` ``buildMigConfigSpec``): ``all-disabled``, ``all-enabled`` (no devices),
  ``all-<profile>`` with ``+`` written ``.`` → that profile × its maximum count, and ``all-balanced``
  (``balanced.go`` ``balancedFormula``: on a 7-slice GPU 2 × 1g + 1 × 2g + 1 × 3g, each the base profile
  with the highest maximum count). :func:`MigGpu.config` derives them the same way; the GPU Operator's
  fallback ConfigMap ``default-mig-parted-config`` agrees (``tools/check_mig_profiles.py``).
- **Resources** (NVIDIA/k8s-device-plugin v0.20.0 ``internal/rm/rm.go`` ``AddDefaultResourcesToConfig``):
  ``mixed`` advertises each profile as ``nvidia.com/mig-<profile>`` (``+`` replaced by ``.``); ``single``
  advertises every MIG device as ``nvidia.com/gpu`` and refuses a node whose MIG devices are not all
  the same profile (``device_map.go`` ``assertAllMigDevicesAreValid``: "more than one MIG device type
  present on node").

Pure Python, no jsii.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal, Mapping

from karpenter_gpu.k8s.int64 import ascii_digits, int64_of
from karpenter_gpu.k8s.labels import NVIDIA_GPU, Label
from karpenter_gpu.perf import cached

__all__ = [
    "BALANCED",
    "DISABLED",
    "MIG_CONFIG_LABEL",
    "MIG_RESOURCE_PREFIX",
    "MigGpu",
    "MigProfile",
    "MigStrategy",
    "MigTable",
    "advertised",
    "config_name",
    "mig_parted_config",
    "mig_partitioned",
    "mig_table",
    "profile_of_resource",
    "resource_name",
]

#: Node label MIG Manager reads: the name of the config to apply to every GPU of the node.
MIG_CONFIG_LABEL = "nvidia.com/mig.config"
#: Prefix of the extended resources the device plugin advertises under the ``mixed`` strategy.
MIG_RESOURCE_PREFIX = "nvidia.com/mig-"
#: The config that turns MIG off (the chart's ``migManager.config.default``).
DISABLED = "all-disabled"
#: MIG on, no devices: nothing to schedule on.
ENABLED_EMPTY = "all-enabled"
BALANCED = "all-balanced"
#: Where the table lives inside the ``karpenter_gpu`` package.
RESOURCE = "data/mig-profiles.json"

MigStrategy = Literal["single", "mixed"]

# balanced.go balancedFormula: total compute slices -> {slices of a profile: instances}.
_BALANCED_FORMULA: dict[int, dict[int, int]] = {7: {1: 2, 2: 1, 3: 1}, 4: {1: 2, 2: 1}}


def mig_partitioned(labels: Mapping[str, Any]) -> str | None:
    """The MIG config MIG Manager applies to a pool's nodes (their ``nvidia.com/mig.config`` label), None when the
    GPUs stay whole (no label, or all-disabled). Such nodes advertise MIG devices, so they cannot also be time-sliced
    (the GpuOperatorValues construct refuses it, KG577; validate reports it, KG447)."""
    config = labels.get(MIG_CONFIG_LABEL)
    return config if isinstance(config, str) and config != DISABLED else None


def config_name(profile: str) -> str:
    """``all-<profile>`` with ``+`` as ``.`` (builder.go ``normalizeProfileName``): ``1g.10gb+me`` → ``all-1g.10gb.me``."""
    return "all-" + profile.replace("+", ".")


def resource_name(profile: str, strategy: MigStrategy) -> str:
    """The extended resource a MIG device of ``profile`` is advertised as under ``strategy``."""
    return NVIDIA_GPU if strategy == "single" else MIG_RESOURCE_PREFIX + profile.replace("+", ".")


def profile_of_resource(resource: str) -> str | None:
    """``nvidia.com/mig-1g.10gb`` → ``1g.10gb`` (the ``.me`` suffix stays as written); None for other resources."""
    return resource[len(MIG_RESOURCE_PREFIX):] if resource.startswith(MIG_RESOURCE_PREFIX) else None


@dataclass(frozen=True)
class MigProfile:
    """One row of a GPU's profile table."""

    name: str
    #: Compute slices (the ``g`` count): 1g … 7g.
    compute_slices: int
    #: Instances of this profile on one GPU when the whole GPU uses it ("Number of Instances Available").
    max_instances: int

    @property
    def is_base(self) -> bool:
        """No attribute (``+me``): the profiles ``all-balanced`` is built from."""
        return "+" not in self.name and "-" not in self.name


@dataclass(frozen=True)
class MigGpu:
    """A MIG-capable GPU model and its profiles."""

    model: str
    gpu_name: str
    gpu_memory_mib: int
    pci_device_id: str
    profiles: tuple[MigProfile, ...]

    @property
    def total_slices(self) -> int:
        return max(p.compute_slices for p in self.profiles)

    def config(self, name: str) -> dict[str, int] | None:
        """The MIG devices per GPU that config ``name`` creates on this GPU (profile → count), ``{}`` for
        ``all-enabled`` / ``all-disabled``, None when MIG Manager has no such config for this GPU (it then
        fails to apply it: the node is labelled ``nvidia.com/mig.config.state=failed``)."""
        if name in (DISABLED, ENABLED_EMPTY):
            return {}
        if name == BALANCED:
            formula = _BALANCED_FORMULA.get(self.total_slices)
            if formula is None:
                return None
            out: dict[str, int] = {}
            for slices, count in formula.items():
                base = [p for p in self.profiles if p.is_base and p.compute_slices == slices]
                if not base:
                    return None
                # keep the highest max count (the smallest memory): 1g.10gb (7) over 1g.20gb (4)
                out[max(base, key=lambda p: p.max_instances).name] = count
            return out
        for p in self.profiles:
            if config_name(p.name) == name:
                return {p.name: p.max_instances}
        return None

    def config_names(self) -> tuple[str, ...]:
        """Every config MIG Manager generates for this GPU that creates MIG devices."""
        names = [config_name(p.name) for p in self.profiles]
        if self.config(BALANCED) is not None:
            names.append(BALANCED)
        return tuple(sorted(names))


def advertised(devices: Mapping[str, int], gpu_count: int, strategy: MigStrategy) -> dict[str, int] | None:
    """What the device plugin advertises on a node whose ``gpu_count`` GPUs each hold ``devices``.

    ``mixed``: ``nvidia.com/mig-<profile>`` = count × GPUs per profile. ``single``: ``nvidia.com/gpu`` = MIG
    devices × GPUs, and None when the devices are not all one profile (the plugin refuses the node)."""
    if not devices:
        return {}
    if strategy == "single":
        if len(devices) != 1:
            return None
        return {NVIDIA_GPU: sum(devices.values()) * gpu_count}
    return {resource_name(profile, strategy): count * gpu_count for profile, count in sorted(devices.items())}


class MigTable:
    """The packaged MIG profile tables, looked up by GPU model or by an instance type's labels."""

    def __init__(self, document: Mapping[str, Any]) -> None:
        self.sources: Mapping[str, Any] = document["sources"]
        self.gpus: tuple[MigGpu, ...] = tuple(
            MigGpu(g["model"], g["gpu_name"], int(g["gpu_memory_mib"]), g["pci_device_id"],
                   tuple(MigProfile(p["name"], int(p["compute_slices"]), int(p["max_instances"]))
                         for p in g["profiles"]))
            for g in document["gpus"])
        self._by_key = {(g.gpu_name, g.gpu_memory_mib): g for g in self.gpus}

    def gpu_for(self, labels: Mapping[str, str]) -> MigGpu | None:
        """The MIG GPU model of an instance type (its Karpenter labels), or None when it has no MIG GPU."""
        name, memory = labels.get(Label.GPU_NAME), labels.get(Label.GPU_MEMORY)
        if name is None or memory is None or not ascii_digits(str(memory)):
            return None
        mib = int64_of(str(memory))
        return None if mib is None else self._by_key.get((name, mib))

    def config_names(self) -> tuple[str, ...]:
        """Every config name some GPU of the table supports (creating MIG devices)."""
        return tuple(sorted({n for g in self.gpus for n in g.config_names()}))

    def supporting(self, config: str) -> tuple[MigGpu, ...]:
        """The GPU models on which ``config`` creates MIG devices."""
        return tuple(g for g in self.gpus if g.config(config))


@cached()
def mig_table() -> MigTable:
    """The packaged table (``data/mig-profiles.json``), loaded once."""
    text = resources.files("karpenter_gpu").joinpath(RESOURCE).read_text(encoding="utf-8")
    return MigTable(json.loads(text))


def mig_parted_config(names: "list[str] | tuple[str, ...]", table: MigTable | None = None) -> dict[str, Any]:
    """A mig-parted config file (``version: v1``, ``mig-configs``) holding ``all-disabled`` and each of ``names``,
    with one entry per GPU model that has it (``device-filter`` its PCI id, ``devices: all``), the devices
    :meth:`MigGpu.config` derives: the layouts MIG Manager generates, pinned (mig-parted ``api/spec/v1``)."""
    table = table or mig_table()
    configs: dict[str, Any] = {DISABLED: [{"devices": "all", "mig-enabled": False}]}
    for name in sorted(set(names) - {DISABLED}):
        configs[name] = [{"device-filter": [g.pci_device_id], "devices": "all", "mig-enabled": True,
                          "mig-devices": dict(g.config(name) or {})} for g in table.supporting(name)]
    return {"version": "v1", "mig-configs": configs}
