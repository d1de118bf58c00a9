"""What the rules read: one environment's objects, read tolerantly, and the simulation of its pools.

Hand-written YAML can hold anything: a rule never crashes on a wrong type, it just sees nothing.
"""

from __future__ import annotations

import re
from dataclasses import replace
from decimal import Decimal
from functools import cached_property
from typing import Any, Mapping, NamedTuple, Sequence

from karpenter_gpu.analysis.pod_shape import PodShape
from karpenter_gpu.analysis.simulator import PoolReport, simulate_pools
from karpenter_gpu.apiserver.findings import Finding, Severity, acknowledged_codes
from karpenter_gpu.check.rules._registry import REGISTRY
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.accelerators import NEURON_ACCELERATOR, NEURON_NAMES
from karpenter_gpu.k8s.controller_settings import ControllerSettings
from karpenter_gpu.k8s.labels import (
    AMD_GPU, AUTO_MODE_NODE_CLASS_KIND, HYBRID_GROUP_LABEL, NEURON, NODE_CLASS_KIND,
    NODEPOOL_KIND, NVIDIA_GPU, OVERLAY_KIND, Label, canonical_key, kind_of,
)
from karpenter_gpu.k8s.units import Quantity
from karpenter_gpu.k8s.views import HybridGroupView, NodePoolView, hybrid_groups

#: Workload kinds the placement rules read, and where their pod spec is.
WORKLOADS = {("v1", "Pod"): "spec", ("apps/v1", "Deployment"): "spec.template.spec",
             ("apps/v1", "StatefulSet"): "spec.template.spec", ("apps/v1", "ReplicaSet"): "spec.template.spec",
             ("apps/v1", "DaemonSet"): "spec.template.spec", ("batch/v1", "Job"): "spec.template.spec",
             ("batch/v1", "CronJob"): "spec.jobTemplate.spec.template.spec"}
#: The GPU Operator values file (``GpuOperatorValues``) the MIG rules compare the pools with.
GPU_OPERATOR_VALUES = "gpu-operator.values.yaml"

_GPU_KEY_PREFIX = "karpenter.k8s.aws/instance-gpu-"
_GPU_FAMILY = re.compile(r"^(g|gr|p)[0-9]")  # g4dn, g5g, g6e, gr6, p4d, p5en, p6-b200 …
NEURON_FAMILY = re.compile(r"^(inf|trn)[0-9]")  # inf1, inf2, trn1, trn1n, trn2


def as_dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _values(req: dict) -> list[str] | None:
    """A requirement's values as strings; None when the field is absent."""
    raw = req.get("values")
    if raw is None:
        return None
    return [str(v) for v in raw] if isinstance(raw, list) else [str(raw)]


class Req(NamedTuple):
    """A requirement (or a template label as ``In [value]``) as written, with its field path."""

    path: str
    key: str
    op: str
    values: list[str] | None

    @property
    def attr(self) -> str:
        """The key in Karpenter's spelling: an EKS Auto Mode key (``eks.amazonaws.com/instance-gpu-name``) names the
        same instance attribute, so a rule about it is written once (:func:`~karpenter_gpu.k8s.labels.canonical_key`)."""
        return canonical_key(self.key)


def requirements(items: Any, base: str) -> list[Req]:
    out = []
    for i, raw in enumerate(as_list(items)):
        req = as_dict(raw)
        key, op = req.get("key"), req.get("operator")
        if isinstance(key, str) and isinstance(op, str):
            out.append(Req(f"{base}[{i}]", key, op, _values(req)))
    return out


def _label_reqs(labels: dict, base: str) -> list[Req]:
    """Template labels act as ``In [value]`` requirements on the NodeClaim."""
    return [Req(f"{base}[{k}]", k, "In", [str(v)]) for k, v in labels.items() if isinstance(k, str)]


class RuleObject:
    """One manifest and the findings raised on it."""

    def __init__(self, file: str, manifest: dict) -> None:
        self.file, self.manifest = file, manifest
        self.kind = str(manifest.get("kind") or "")
        self.metadata = as_dict(manifest.get("metadata"))
        self.name = str(self.metadata.get("name") or "")
        self.spec = as_dict(manifest.get("spec"))
        self.findings: list[Finding] = []

    def add(self, code: str, path: str, message: str, severity: Severity | None = None) -> None:
        self.findings.append(Finding(self.file, self.kind, self.name, path, code,
                                     severity or REGISTRY[code].severity, message))

    def has(self, code: str) -> bool:
        return any(f.code == code for f in self.findings)

    def reported(self) -> list[Finding]:
        """Findings after acknowledgement: acknowledged WARNINGs become INFO, errors stay."""
        try:
            acked = acknowledged_codes(self.manifest)
        except (AttributeError, TypeError):  # a non-string annotation in hand-written YAML
            acked = frozenset()
        return [replace(f, severity=Severity.INFO, message=f"acknowledged: {f.message}")
                if f.code in acked and f.severity is Severity.WARNING else f
                for f in self.findings]


class Pool(RuleObject):
    """A karpenter.sh/v1 NodePool: its core view plus the requirement spellings the rules read."""

    REQS = NodePoolView.REQUIREMENTS
    LABELS = NodePoolView.LABELS

    def __init__(self, file: str, manifest: dict) -> None:
        super().__init__(file, manifest)
        self.view = NodePoolView.of(manifest)
        self.template, self.tspec, self.labels = self.view.template, self.view.template_spec, self.view.labels
        self.reqs = requirements(list(self.view.requirement_dicts), self.REQS)
        self.selection = self.reqs + _label_reqs(self.labels, self.LABELS)
        self.static = self.view.static
        self.disruption = self.view.disruption
        self.weight = self.spec.get("weight")
        self.is_neuron = any(self._selects_neuron(r) for r in self.selection)
        # GPU rules (limit, taint, disruption, catalog) apply to every accelerated pool, Neuron ones included.
        self.is_gpu = self.is_neuron or any(self._selects_gpus(r) for r in self.selection)

    @staticmethod
    def _selects_neuron(r: Req) -> bool:
        """Whether a requirement (or template label) selects Neuron instances (Inferentia, Trainium)."""
        if r.op != "In" or not r.values:
            return r.key == Label.ACCELERATOR_COUNT and r.op in ("Exists", "Gt", "Gte")
        if r.key == Label.ACCELERATOR_NAME:
            return bool(set(r.values) & NEURON_NAMES.keys())
        if r.key == Label.ACCELERATOR_MANUFACTURER:
            return NEURON_ACCELERATOR.manufacturer in r.values
        if r.key == Label.INSTANCE_FAMILY:
            return any(NEURON_FAMILY.match(v) for v in r.values)
        if r.key == Label.INSTANCE_TYPE:
            return any(NEURON_FAMILY.match(v.split(".", 1)[0]) for v in r.values)
        return r.key == Label.ACCELERATOR_COUNT

    @staticmethod
    def _selects_gpus(r: Req) -> bool:
        if r.attr.startswith(_GPU_KEY_PREFIX):
            return r.op not in ("NotIn", "DoesNotExist")  # every other operator needs the GPU label
        if r.op != "In" or not r.values:
            return False
        if r.attr == Label.INSTANCE_CATEGORY:
            return bool({"g", "p"} & set(r.values))
        if r.attr == Label.INSTANCE_FAMILY:
            return any(_GPU_FAMILY.match(v) for v in r.values)
        if r.attr == Label.INSTANCE_TYPE:
            return any(_GPU_FAMILY.match(v.split(".", 1)[0]) for v in r.values)
        return False

    @property
    def dynamic_gpu(self) -> bool:
        return self.is_gpu and not self.static

    @property
    def policy(self) -> str:
        return str(as_dict(self.disruption).get("consolidationPolicy") or "WhenEmptyOrUnderutilized")

    def gpu_resource(self) -> str:
        """The device resource the pool's limit and taint are about (Neuron pools: aws.amazon.com/neuron)."""
        if self.is_neuron:
            return NEURON
        makers = self.view.template_requirements.get(Label.GPU_MANUFACTURER)
        return AMD_GPU if not makers.complement and makers.values and makers.values <= {"amd"} else NVIDIA_GPU

    def training_reason(self) -> str | None:
        """Why the pool looks like it runs training (its name or labels say so, or it only consolidates empty
        non-spot nodes), None when it does not."""
        words = [self.name] + [f"{k}={v}" for k, v in {**as_dict(self.metadata.get("labels")), **self.labels}.items()]
        for word in words:
            if "train" in str(word).lower():
                return f"'{word}' says training"
        caps = self.view.capacity_types  # no requirement admits spot, and spot is launched first
        if self.disruption is not None and self.policy == "WhenEmpty" and caps and "spot" not in caps:
            return "WhenEmpty consolidation on non-spot capacity"
        return None


class Workload(RuleObject):
    """A pod or pod-template workload; ``pod`` is its pod spec, found at ``pod_path``."""

    def __init__(self, file: str, manifest: dict, pod_path: str) -> None:
        super().__init__(file, manifest)
        pod: Any = manifest
        for part in pod_path.split("."):
            pod = as_dict(pod).get(part)
        self.pod_path, self.pod = pod_path, as_dict(pod)

    def totals(self) -> dict[str, Decimal]:
        """The pod's summed container requests (limits when no request), per resource (KG102 when a quantity
        cannot be read)."""
        totals: dict[str, Decimal] = {}
        for container in as_list(self.pod.get("containers")):
            resources = as_dict(as_dict(container).get("resources"))
            wanted = {**as_dict(resources.get("limits")), **as_dict(resources.get("requests"))}
            for name, value in wanted.items():
                amount = value.get("value") if isinstance(value, dict) else value
                totals[name] = totals.get(name, Decimal(0)) + Quantity(str(amount)).as_decimal()
        return totals

    @cached_property
    def requests(self) -> dict[str, Decimal] | None:
        """:meth:`totals`, None when a quantity cannot be read."""
        try:
            return self.totals()
        except KarpenterGpuError:
            return None

    @property
    def target(self) -> str | None:
        """The NodePool the pod's nodeSelector names (``karpenter.sh/nodepool``)."""
        target = as_dict(self.pod.get("nodeSelector")).get(Label.NODEPOOL)
        return target if isinstance(target, str) else None

    def shape(self) -> PodShape:
        """The pod as the simulator sees it (:meth:`PodShape.of_pod`, the one pod model explain's ``--pod`` also
        builds): every resource it requests, its accelerator resource (a MIG device, a GPU or Neuron) and count.
        KG711 for a quantity that cannot be read."""
        return PodShape.of_pod(self.pod, f"{self.kind} {self.name}.{self.pod_path}")


class RuleEnvironment:
    """One environment's objects, as the rules see them, and what the simulator says of its pools."""

    def __init__(self, manifests: Sequence[tuple[str, dict]], name: str | None,
                 values: Mapping[str, Any] | None, settings: ControllerSettings | None = None) -> None:
        self.name = name
        #: The controller's settings the simulation runs under (None: the chart's defaults).
        self.settings = settings
        self.values = as_dict(as_dict(values).get(GPU_OPERATOR_VALUES)) if values else {}
        #: Every Helm values file of the environment by file name (the placement rules read them all).
        self.helm_values: dict[str, Any] = dict(as_dict(values))
        self.objects: list[RuleObject] = []
        for file, manifest in manifests:
            if not isinstance(manifest, dict):
                continue
            gvk = kind_of(manifest)
            if gvk == NODEPOOL_KIND:
                self.objects.append(Pool(file, manifest))
            elif gvk in (NODE_CLASS_KIND, OVERLAY_KIND, AUTO_MODE_NODE_CLASS_KIND) or (
                    gvk == ("v1", "ConfigMap")
                    and HYBRID_GROUP_LABEL in as_dict(as_dict(manifest.get("metadata")).get("labels"))):
                self.objects.append(RuleObject(file, manifest))
            elif all(isinstance(x, str) for x in gvk) and gvk in WORKLOADS:  # YAML may hold a list there
                self.objects.append(Workload(file, manifest, WORKLOADS[gvk]))
        self.manifests = [m for _, m in manifests if isinstance(m, dict)]
        self.pools = [o for o in self.objects if isinstance(o, Pool)]
        self.workloads = [o for o in self.objects if isinstance(o, Workload)]
        #: What a rule family indexes once per environment (built on first use, by the family's own key), so no
        #: rule scans every object per pool or per pair of pools.
        self.memo: dict[str, Any] = {}

    @cached_property
    def _by_kind(self) -> dict[tuple[str, str], list[RuleObject]]:
        """The objects other than pools and workloads by ``(apiVersion, kind)``, in manifest order: built once, so a
        rule asking per pool costs no scan of every object."""
        out: dict[tuple[str, str], list[RuleObject]] = {}
        for o in self.objects:
            if isinstance(o, (Pool, Workload)):
                continue
            gvk = kind_of(o.manifest)
            if all(isinstance(x, str) for x in gvk):  # YAML may hold a list there: never a kind asked for
                out.setdefault(gvk, []).append(o)
        return out

    def of_kind(self, gvk: tuple[str, str]) -> list[RuleObject]:
        return list(self._by_kind.get(gvk, ()))

    @cached_property
    def _pools_by_name(self) -> dict[str, list[Pool]]:
        out: dict[str, list[Pool]] = {}
        for p in self.pools:
            out.setdefault(p.name, []).append(p)
        return out

    @cached_property
    def groups(self) -> list[HybridGroupView]:
        return list(hybrid_groups(self.manifests))

    @cached_property
    def _simulation(self) -> dict[int, PoolReport] | None:
        """The simulator's report of every pool, keyed by the pool object (two pools of one name in one
        environment — the same object twice, KG313 — each keep their own); None when it cannot read them."""
        try:
            reports = simulate_pools(self.manifests, pools=[p.view for p in self.pools], settings=self.settings)
        except KarpenterGpuError:
            return None  # objects the simulator cannot read; the schema and other rules say why
        by_view = {id(r.view): r for r in reports}
        return {id(p): by_view[id(p.view)] for p in self.pools if id(p.view) in by_view}

    @property
    def simulated(self) -> bool:
        return self._simulation is not None

    def report(self, pool: Pool) -> PoolReport | None:
        """The simulator's report of ``pool``, None when the environment could not be simulated."""
        return (self._simulation or {}).get(id(pool))

    def pools_named(self, name: str) -> list[Pool]:
        return list(self._pools_by_name.get(name, ()))

    def report_named(self, name: str) -> PoolReport | None:
        """The report of the pool a workload names, when exactly one pool has that name."""
        named = self.pools_named(name)
        return self.report(named[0]) if len(named) == 1 else None
