"""A pending pod as the simulator sees it (:class:`PodShape`): its requests, tolerations, node selector and
required node affinity, parsed from explain's ``--pod`` shorthand (``gpus=1,cpu=4,memory=16Gi,tolerate=...``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Mapping

from karpenter_gpu.analysis.admits import requirement
from karpenter_gpu.analysis.notes import bytes_text
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.admission import admitted_tolerations
from karpenter_gpu.k8s.labels import NEURON, NEURON_CORE, NVIDIA_GPU
from karpenter_gpu.k8s.scheduling import Requirement, Requirements, atoi
from karpenter_gpu.k8s.units import Quantity

__all__ = ["PodShape"]

_GI = Decimal(2**30)
#: ``--pod`` shorthand for a MIG resource of the mixed strategy: ``mig-1g.10gb=1`` means nvidia.com/mig-1g.10gb.
_MIG_SHORT = "mig-"


def _fail_shape(text: Any, allowed: str) -> KarpenterGpuError:
    return KarpenterGpuError(
        "KG710", prop="pod shape", value=text, allowed=allowed,
        fix="write e.g. 'gpus=1,cpu=4,memory=16Gi,tolerate=nvidia.com/gpu,select=karpenter.sh/nodepool=gpu-inference'",
    )


def _toleration(text: str) -> dict:
    """``key``, ``key=value``, ``key:Effect``, ``key=value:Effect``, ``*`` (tolerate everything)."""
    body, _, effect = text.partition(":")
    if effect and effect not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
        raise _fail_shape(text, "a taint effect NoSchedule, PreferNoSchedule or NoExecute after ':'")
    key, eq, value = body.partition("=")
    tol: dict[str, str] = {"operator": "Equal", "key": key, "value": value} if eq else {"operator": "Exists"}
    if not eq and key != "*":
        tol["key"] = key
    if not key:
        raise _fail_shape(text, "tolerate=<key>[=<value>][:<effect>] or tolerate=*")
    if effect:
        tol["effect"] = effect
    return tol


def _affinity(text: str) -> dict:
    """``key:Op`` or ``key:Op:v1|v2`` (one matchExpression)."""
    parts = text.split(":")
    if len(parts) not in (2, 3) or not parts[0]:
        raise _fail_shape(text, "affinity=<key>:<Operator>[:<v1>|<v2>]")
    req = {"key": parts[0], "operator": parts[1], "values": parts[2].split("|") if len(parts) == 3 else []}
    try:
        Requirement.from_dict(req, "pod shape affinity")
    except KarpenterGpuError as exc:
        raise _fail_shape(text, exc.allowed) from None
    return req


#: Pod-shape keys that request a Neuron resource instead of GPUs.
_SHAPE_RESOURCES = {"neuron": NEURON, "neuroncore": NEURON_CORE}


@dataclass(frozen=True)
class PodShape:
    """A pending pod as Karpenter sees it: requests, tolerations, node selector, required node affinity.

    ``memory`` is bytes and ``cpu`` cores. ``required_affinity`` holds matchExpressions (one
    nodeSelectorTerm, ANDed). ``gpu_resource`` is the extended resource ``gpus`` requests.
    """

    gpus: int = 1
    cpu: Decimal = Decimal(1)
    memory: Decimal = _GI
    tolerations: tuple[Mapping[str, Any], ...] = field(default=(), hash=False)
    node_selector: Mapping[str, str] = field(default_factory=dict, hash=False)
    required_affinity: tuple[Mapping[str, Any], ...] = field(default=(), hash=False)
    gpu_resource: str = NVIDIA_GPU

    @classmethod
    def parse(cls, text: str) -> "PodShape":
        """Parse ``gpus=1,cpu=4,memory=16Gi,tolerate=nvidia.com/gpu,select=karpenter.sh/nodepool=x``.

        Keys: ``gpus`` (or ``gpu``), ``neuron`` / ``neuroncore`` (that many ``aws.amazon.com/neuron`` devices
        or ``aws.amazon.com/neuroncore`` cores instead of GPUs), ``cpu`` and ``memory`` (Kubernetes quantities), ``tolerate``
        (``key``, ``key=value``, ``key:Effect``, ``*``), ``select`` (``key=value``), ``affinity``
        (``key:Op[:v1|v2]``) and ``resource`` (the GPU resource, default nvidia.com/gpu).
        ``tolerate``, ``select`` and ``affinity`` may repeat. A MIG device is asked for by its resource:
        ``mig-1g.10gb=1`` (``nvidia.com/`` implied) or ``nvidia.com/mig-1g.10gb=1``, in place of ``gpus``; the
        pool must advertise it (a MigPartitionedPool's NodeOverlays do). Raises KG710 on bad input.
        """
        if not isinstance(text, str):
            raise _fail_shape(text, "a string of comma-separated key=value items")
        gpus, cpu, memory, resource = 1, Decimal(1), _GI, NVIDIA_GPU
        named: str | None = None
        counts: list[str] = []  # the accelerator counts given (gpus, neuron, neuroncore, a MIG device)
        tolerations: list[dict] = []
        selector: dict[str, str] = {}
        affinity: list[dict] = []
        for item in (i.strip() for i in text.split(",")):
            if not item:
                continue
            key, eq, value = item.partition("=")
            key = key.strip().lower()
            if not eq or not value:
                raise _fail_shape(item, "key=value items: gpus, neuron, neuroncore, cpu, memory, tolerate, select, "
                                        "affinity, resource")
            if key in ("gpus", "gpu") or key in _SHAPE_RESOURCES:
                n = atoi(value)
                if n is None or n < 0:
                    raise _fail_shape(item, f"{key} as a whole number >= 0")
                counts.append(key)
                gpus = n
                if key in _SHAPE_RESOURCES:
                    resource = _SHAPE_RESOURCES[key]
            elif key in ("cpu", "memory", "mem"):
                try:
                    amount = Quantity(value).as_decimal()
                except KarpenterGpuError:
                    amount = Decimal(-1)
                if amount < 0:
                    raise _fail_shape(item, f"{key} as a non-negative Kubernetes quantity ('4', '500m', '16Gi')")
                if key == "cpu":
                    cpu = amount
                else:
                    memory = amount
            elif key == "tolerate":
                tolerations.append(_toleration(value))
            elif key == "select":
                k, eq2, v = value.partition("=")
                if not eq2 or not k:
                    raise _fail_shape(item, "select=<label key>=<value>")
                selector[k] = v
            elif key == "affinity":
                affinity.append(_affinity(value))
            elif key == "resource":
                resource = value
            elif key.startswith(_MIG_SHORT) or "/" in key:
                # An extended resource by name: mig-1g.10gb=1 (nvidia.com/ implied) or nvidia.com/mig-1g.10gb=1.
                n = atoi(value)
                if n is None or n < 1:
                    raise _fail_shape(item, f"{key} as a whole number >= 1")
                if named is not None:
                    raise _fail_shape(item, f"one GPU resource per pod shape ({named} is given already)")
                named = key if "/" in key else "nvidia.com/" + key
                resource, gpus = named, n
                counts.append(named)
            else:
                raise _fail_shape(item, "keys gpus, neuron, neuroncore, cpu, memory, tolerate, select, affinity, "
                                        "resource, or a GPU resource such as mig-1g.10gb=1")
        if len(counts) > 1:
            raise _fail_shape(text, f"one accelerator count per pod shape ({'=N, '.join(counts)}=N are given): a "
                                    "pod shape requests one accelerator resource")
        return cls(gpus=gpus, cpu=cpu, memory=memory, tolerations=tuple(tolerations), node_selector=selector,
                   required_affinity=tuple(affinity), gpu_resource=resource)

    def admitted_tolerations(self) -> tuple[dict, ...]:
        """The tolerations the pod has when Karpenter sees it: its own plus, on EKS, the
        ``ExtendedResourceToleration`` one for the extended resource it requests
        (:func:`~karpenter_gpu.k8s.admission.admitted_tolerations`)."""
        return admitted_tolerations(self.tolerations, [self.gpu_resource] if self.gpus else [])

    def describe(self) -> str:
        parts = [f"{self.gpu_resource}={self.gpus}", f"cpu={self.cpu.normalize():f}",
                 f"memory={bytes_text(self.memory)}"]
        return ", ".join(parts)

    def requirements(self) -> Requirements:
        """``newPodRequirements`` (strict): the node selector as In requirements plus the required
        affinity expressions, intersected per key."""
        reqs = Requirements.from_labels(self.node_selector)
        reqs.add(*(requirement(r, "pod shape affinity") for r in self.required_affinity))
        return reqs

