"""A pending pod as the simulator sees it (:class:`PodShape`): its requests (every resource), tolerations, node
selector and required node affinity, read from a pod spec (:meth:`PodShape.of_pod`, what validate reads of a
workload) or parsed from explain's ``--pod`` shorthand (``gpus=1,cpu=4,memory=16Gi,res=ephemeral-storage:50Gi``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Mapping

from karpenter_gpu.analysis.admits import requirement
from karpenter_gpu.analysis.notes import bytes_text
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.admission import admitted_tolerations, is_extended_resource, pod_requests
from karpenter_gpu.k8s.labels import ACCELERATOR_RESOURCES, NEURON, NEURON_CORE, NVIDIA_GPU
from karpenter_gpu.k8s.mig import MIG_RESOURCE_PREFIX
from karpenter_gpu.k8s.scheduling import Requirement, Requirements, atoi, pod_requirements
from karpenter_gpu.k8s.units import Quantity

__all__ = ["PodShape", "resource_text"]

_GI = Decimal(2**30)
#: ``--pod`` shorthand for a MIG resource of the mixed strategy: ``mig-1g.10gb=1`` means nvidia.com/mig-1g.10gb.
_MIG_SHORT = "mig-"


def _fail_shape(text: Any, allowed: str) -> KarpenterGpuError:
    return KarpenterGpuError(
        "KG710", prop="pod shape", value=text, allowed=allowed,
        fix="write e.g. 'gpus=1,cpu=4,memory=16Gi,tolerate=nvidia.com/gpu,select=karpenter.sh/nodepool=gpu-inference'",
    )


#: A resource name as Kubernetes validates one (``IsQualifiedName``; a prefix is a DNS-1123 subdomain).
_RESOURCE_NAME = re.compile(r"^(?:[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*/)?"
                            r"[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?\Z")


def _resource(text: str) -> tuple[str, Decimal]:
    """``name:quantity`` of ``res=``: any resource, a whole number for an extended resource (KG710)."""
    name, colon, value = text.rpartition(":")
    name = name.strip()
    allowed = "res=<resource>:<quantity>[,<resource>:<quantity>...] (e.g. res=vpc.amazonaws.com/efa:1,ephemeral-storage:50Gi)"
    if not colon or not name or not value or not _RESOURCE_NAME.match(name) or len(name) > 316:
        raise _fail_shape(text, allowed)
    try:
        amount = Quantity(value.strip()).as_decimal()
    except KarpenterGpuError:
        amount = Decimal(-1)
    if amount < 0:
        raise _fail_shape(text, f"{name} as a non-negative Kubernetes quantity ('1', '50Gi', '500m')")
    if is_extended_resource(name) and amount != amount.to_integral_value():
        raise _fail_shape(text, f"{name} as a whole number (Kubernetes takes extended resources in whole units)")
    return name, amount


def resource_text(name: str, amount: Decimal) -> str:
    """An amount of a resource as a person reads it: bytes (memory, ephemeral storage, huge pages) in Gi/Mi/Ki
    when exact, other amounts as the number."""
    if name in ("memory", "ephemeral-storage") or name.startswith("hugepages-"):
        return bytes_text(amount)
    return f"{amount.normalize():f}"


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
    nodeSelectorTerm, ANDed). ``gpu_resource`` is the extended resource ``gpus`` requests. ``resources`` holds
    every other resource the pod requests (``ephemeral-storage`` in bytes, ``vpc.amazonaws.com/efa``,
    ``hugepages-2Mi``, any extended resource; zero amounts too: the pod still names them), so :meth:`requests` is
    the pod's whole ``resources.Ceiling(pod).Requests``.
    """

    gpus: int = 1
    cpu: Decimal = Decimal(1)
    memory: Decimal = _GI
    tolerations: tuple[Mapping[str, Any], ...] = field(default=(), hash=False)
    node_selector: Mapping[str, str] = field(default_factory=dict, hash=False)
    required_affinity: tuple[Mapping[str, Any], ...] = field(default=(), hash=False)
    gpu_resource: str = NVIDIA_GPU
    resources: Mapping[str, Decimal] = field(default_factory=dict, hash=False)

    @classmethod
    def of_pod(cls, spec: Mapping[str, Any], where: str = "pod") -> "PodShape":
        """A pod spec as Karpenter's scheduler sees it: its requests as ``resources.RequestsForPods`` computes
        them (:func:`~karpenter_gpu.k8s.admission.pod_requests`: containers, init containers and sidecars, pod
        overhead, pod-level requests, limits standing in for missing requests), its tolerations, node selector and
        required node affinity. The accelerator count is the MIG device, GPU or Neuron resource it asks for (the
        first one with a positive amount); every other resource stays in ``resources``. KG711 for a quantity that
        cannot be read."""
        requests = pod_requests(spec, where)
        mig = sorted(r for r in requests if r.startswith(MIG_RESOURCE_PREFIX) and requests[r])
        resource = next(iter(mig), None) or next((r for r in ACCELERATOR_RESOURCES if requests.get(r)), NVIDIA_GPU)
        gpus = requests.get(resource, Decimal(0))
        if gpus and gpus == gpus.to_integral_value():
            del requests[resource]
        else:
            gpus = Decimal(0)
        cpu, memory = requests.pop("cpu", Decimal(0)), requests.pop("memory", Decimal(0))
        raw_selector = spec.get("nodeSelector")
        selector = raw_selector if isinstance(raw_selector, Mapping) else {}
        raw_tolerations = spec.get("tolerations")
        tolerations = raw_tolerations if isinstance(raw_tolerations, list) else []
        pod_requirements(spec)  # KG620 for an expression Karpenter could not read
        affinity = spec.get("affinity")
        node = affinity.get("nodeAffinity") if isinstance(affinity, Mapping) else None
        required = node.get("requiredDuringSchedulingIgnoredDuringExecution") if isinstance(node, Mapping) else None
        terms = required.get("nodeSelectorTerms") if isinstance(required, Mapping) else None
        first = terms[0] if isinstance(terms, list) and terms and isinstance(terms[0], Mapping) else {}
        expressions = first.get("matchExpressions")
        return cls(gpus=int(gpus), gpu_resource=resource, cpu=cpu, memory=memory,
                   tolerations=tuple(t if isinstance(t, Mapping) else {} for t in tolerations),
                   node_selector=selector,
                   required_affinity=tuple(e for e in expressions if isinstance(e, Mapping))
                   if isinstance(expressions, list) else (),
                   resources=requests)

    def requests(self) -> dict[str, Decimal]:
        """Every resource the pod requests: cpu, memory, the accelerator count (when positive) and ``resources``."""
        out = {"cpu": self.cpu, "memory": self.memory, **self.resources}
        if self.gpus:
            out[self.gpu_resource] = Decimal(self.gpus)
        return out

    @classmethod
    def parse(cls, text: str) -> "PodShape":
        """Parse ``gpus=1,cpu=4,memory=16Gi,tolerate=nvidia.com/gpu,select=karpenter.sh/nodepool=x``.

        Keys: ``gpus`` (or ``gpu``), ``neuron`` / ``neuroncore`` (that many ``aws.amazon.com/neuron`` devices
        or ``aws.amazon.com/neuroncore`` cores instead of GPUs), ``cpu`` and ``memory`` (Kubernetes quantities), ``tolerate``
        (``key``, ``key=value``, ``key:Effect``, ``*``), ``select`` (``key=value``), ``affinity``
        (``key:Op[:v1|v2]``), ``resource`` (the GPU resource, default nvidia.com/gpu) and ``res`` (any other
        resource: ``res=vpc.amazonaws.com/efa:1,ephemeral-storage:50Gi,hugepages-2Mi:1Gi``; the items after
        ``res=`` that have no ``=`` are more ``name:quantity`` pairs; ``res`` may repeat).
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
        extra: dict[str, Decimal] = {}
        in_res = False  # the previous item was res=...: an item without '=' continues it
        for item in (i.strip() for i in text.split(",")):
            if not item:
                continue
            if in_res and "=" not in item:
                name, amount = _resource(item)
                extra[name] = amount
                continue
            key, eq, value = item.partition("=")
            key = key.strip().lower()
            in_res = key == "res"
            if in_res and eq and value:
                name, amount = _resource(value)
                extra[name] = amount
                continue
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
        for name in ("cpu", "memory", resource):
            if name in extra:
                other = {"cpu": "cpu=", "memory": "memory="}.get(name, f"gpus= (or {name}=N)")
                raise _fail_shape(f"res={name}:...", f"{name} once: give it with {other}, not in res=")
        return cls(gpus=gpus, cpu=cpu, memory=memory, tolerations=tuple(tolerations), node_selector=selector,
                   required_affinity=tuple(affinity), gpu_resource=resource, resources=extra)

    def admitted_tolerations(self) -> tuple[dict, ...]:
        """The tolerations the pod has when Karpenter sees it: its own plus, on EKS, the
        ``ExtendedResourceToleration`` one for the extended resource it requests
        (:func:`~karpenter_gpu.k8s.admission.admitted_tolerations`)."""
        return admitted_tolerations(self.tolerations, [*([self.gpu_resource] if self.gpus else []), *self.resources])

    def describe(self) -> str:
        parts = [f"{self.gpu_resource}={self.gpus}", f"cpu={self.cpu.normalize():f}",
                 f"memory={bytes_text(self.memory)}"]
        parts += [f"{name}={resource_text(name, amount)}" for name, amount in sorted(self.resources.items())]
        return ", ".join(parts)

    def requirements(self) -> Requirements:
        """``newPodRequirements`` (strict): the node selector as In requirements plus the required
        affinity expressions, intersected per key."""
        reqs = Requirements.from_labels(self.node_selector)
        reqs.add(*(requirement(r, "pod shape affinity") for r in self.required_affinity))
        return reqs

