"""A node's ephemeral storage, and the resources whose capacity is not modelled, as the AWS provider v1.14.1 computes
them from an EC2NodeClass.

aws ``pkg/providers/instancetype/types.go``:

- ``ephemeralStorage`` (capacity): with ``instanceStorePolicy: RAID0`` and local NVMe, the NVMe total
  (``InstanceStorageInfo.TotalSizeInGB`` as ``<n>G``); else, when ``blockDeviceMappings`` are given, the first one
  with ``rootVolume: true`` and an ``ebs.volumeSize``; else (Custom AMI family) the last mapping's ``volumeSize`` or
  the default 20Gi; else (other families) the mapping on the family's ephemeral device (``EphemeralBlockDevice``:
  ``/dev/xvda`` on AL2 / AL2023, ``/dev/xvdb`` on Bottlerocket, ``/dev/sda1`` on Windows) with a ``volumeSize``;
  else the family's default for that device (``DefaultBlockDeviceMappings``: 20Gi, Windows 50Gi) or
  ``amifamily.DefaultEBS`` (20Gi).
- its overhead: ``kubeReservedResources`` (1Gi, or ``kubelet.kubeReserved["ephemeral-storage"]``),
  ``systemReservedResources`` (``kubelet.systemReserved["ephemeral-storage"]``) and ``evictionThreshold``
  (``ceil(storage / 100 * 10)``, or ``kubelet.evictionHard["nodefs.available"]``, a quantity or a percentage of the
  storage). Allocatable is capacity less the three, and may be negative: ``resources.Fits`` then fits nothing on
  the type (a total below 0 never fits).
- ``efas`` (the EFA count; with ``spec.networkInterfaces``, the ``efa-only`` ones) is the catalog's
  ``vpc.amazonaws.com/efa`` under :mod:`~karpenter_gpu.k8s.compatibility`.

Not modelled here: ``vpc.amazonaws.com/pod-eni`` (``awsPodENI``: the branch interfaces of the provider's VPC
limits table, which the catalog lacks) and, on Windows, ``vpc.amazonaws.com/PrivateIPv4Address``
(``privateIPv4Address``: the same table; Linux nodes have none): :data:`UNMODELLED_NODE_RESOURCES`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping  # isinstance checks: the abc directly, not typing's alias
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.units import Quantity

__all__ = [
    "EPHEMERAL_STORAGE",
    "POD_ENI",
    "PRIVATE_IPV4",
    "UNMODELLED_NODE_RESOURCES",
    "BlockDevice",
    "NodeResourceSettings",
]

EPHEMERAL_STORAGE = "ephemeral-storage"
POD_ENI = "vpc.amazonaws.com/pod-eni"
PRIVATE_IPV4 = "vpc.amazonaws.com/PrivateIPv4Address"

_GI = Decimal(2**30)
#: ``amifamily.DefaultEBS.VolumeSize``.
_DEFAULT_VOLUME = 20 * _GI
#: ``EphemeralBlockDevice`` and the size ``DefaultBlockDeviceMappings`` gives it, per AMI family (``GetAMIFamily``:
#: an unknown family is AL2; Custom has neither).
_EPHEMERAL_DEVICE = {"Bottlerocket": ("/dev/xvdb", _DEFAULT_VOLUME), "Windows2019": ("/dev/sda1", 50 * _GI),
                     "Windows2022": ("/dev/sda1", 50 * _GI), "Windows2025": ("/dev/sda1", 50 * _GI)}
_DEFAULT_DEVICE = ("/dev/xvda", _DEFAULT_VOLUME)  # AL2, AL2023


@dataclass(frozen=True)
class BlockDevice:
    """One ``spec.blockDeviceMappings[]`` entry: what ``ephemeralStorage`` reads of it."""

    device_name: str | None
    volume_size: Decimal | None  # bytes; None: no ebs.volumeSize (a snapshot gives the size)
    root_volume: bool = False


def _bad(prop: str, value: Any, allowed: str) -> KarpenterGpuError:
    return KarpenterGpuError("KG711", prop=prop, value=value, allowed=allowed,
                             fix="write the EC2NodeClass field as its schema describes it")


@dataclass(frozen=True)
class NodeResourceSettings:
    """The EC2NodeClass fields that give a node's ephemeral storage, and its AMI family."""

    ami_family: str = "AL2023"
    block_devices: tuple[BlockDevice, ...] = ()
    raid0: bool = False

    @classmethod
    def of(cls, spec: Mapping[str, Any], ami_family: str, where: str) -> "NodeResourceSettings":
        """From an EC2NodeClass spec (KG711 for a volume size Karpenter could not parse)."""
        devices = []
        raw = spec.get("blockDeviceMappings")
        for i, item in enumerate(raw if isinstance(raw, list) else []):
            item = item if isinstance(item, Mapping) else {}
            raw_ebs = item.get("ebs")
            ebs: Mapping[str, Any] = raw_ebs if isinstance(raw_ebs, Mapping) else {}
            size = ebs.get("volumeSize")
            amount = None
            if size is not None:
                try:
                    amount = Quantity.parse(str(size)).as_decimal()
                except KarpenterGpuError:
                    raise _bad(f"{where}.spec.blockDeviceMappings[{i}].ebs.volumeSize", size,
                               "a size such as '100Gi' or '200G'") from None
            name = item.get("deviceName")
            devices.append(BlockDevice(name if isinstance(name, str) else None, amount, item.get("rootVolume") is True))
        return cls(ami_family, tuple(devices), spec.get("instanceStorePolicy") == "RAID0")

    def ephemeral_storage(self, nvme_gb: int | None) -> Decimal:
        """``ephemeralStorage``: the node's ephemeral-storage capacity in bytes (see the module doc)."""
        if self.raid0 and nvme_gb:
            return Decimal(nvme_gb) * 10**9
        if self.block_devices:
            root = next((d for d in self.block_devices if d.root_volume), None)
            if root is not None and root.volume_size is not None:
                return root.volume_size
            if self.ami_family == "Custom":
                last = self.block_devices[-1].volume_size
                return last if last is not None else _DEFAULT_VOLUME
            device, _ = _EPHEMERAL_DEVICE.get(self.ami_family, _DEFAULT_DEVICE)
            named = next((d for d in self.block_devices if d.device_name == device), None)
            if named is not None and named.volume_size is not None:
                return named.volume_size
        if self.ami_family == "Custom":
            return _DEFAULT_VOLUME
        return _EPHEMERAL_DEVICE.get(self.ami_family, _DEFAULT_DEVICE)[1]

    def ephemeral_allocatable(self, capacity: Decimal, kube_reserved: Mapping[str, str],
                              system_reserved: Mapping[str, str], eviction_hard: Mapping[str, str]) -> Decimal:
        """Capacity less kube-reserved, system-reserved and the ``nodefs.available`` eviction threshold."""
        kube = _amount(kube_reserved.get(EPHEMERAL_STORAGE)) if EPHEMERAL_STORAGE in kube_reserved else _GI
        system = _amount(system_reserved.get(EPHEMERAL_STORAGE)) if EPHEMERAL_STORAGE in system_reserved \
            else Decimal(0)
        signal = eviction_hard.get("nodefs.available")
        if signal is None:
            eviction = Decimal(math.ceil(float(capacity) / 100 * 10))
        elif signal.endswith("%"):  # computeEvictionSignal, mustParsePercentage (100% disables the threshold)
            percent = float(signal.strip("%"))
            eviction = Decimal(math.ceil(float(capacity) / 100 * (0.0 if percent == 100 else percent)))
        else:
            eviction = _amount(signal)
        return capacity - kube - system - eviction


def _amount(text: Any) -> Decimal:
    return Quantity.parse(str(text)).as_decimal()


#: The resources whose node capacity the core does not know, and why (see the module doc). A pod asking for one
#: gets no confident fit: the answer names it "not modelled".
UNMODELLED_NODE_RESOURCES: Mapping[str, str] = {
    POD_ENI: "its capacity is the branch interfaces of the provider's VPC limits table (awsPodENI), which the "
             "catalog lacks",
    PRIVATE_IPV4: "its capacity on Windows nodes comes from the provider's VPC limits table (privateIPv4Address), "
                  "which the catalog lacks",
}
