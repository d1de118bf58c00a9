"""The project's own rules beyond the CRDs (``karpenter-gpu validate``, scope 2).

The CRD schema says what the API server accepts; these rules say what costs money or kills jobs
once it is accepted. They run on plain manifest dicts, so they check any ``dist/`` folder or
hand-written YAML, not only this library's output. One call sees one environment (one folder):
cross-object rules (pool weights) compare the objects of that set.

Each finding has a stable code (``KG4xx``, listed in :data:`RULES` and in ``errors.CODES``), a
severity, a field path such as ``spec.template.spec.requirements[2]`` and a message saying what
happens in production and how to fix it. A WARNING whose code is acknowledged on the object
(annotation ``karpenter-gpu.io/acknowledge``) is reported as INFO, prefixed ``acknowledged: ``.
Errors cannot be acknowledged.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime
from decimal import Decimal
from zoneinfo import ZoneInfo
from typing import Any, Mapping, NamedTuple, Sequence

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.check.findings import WINDOWS_ANNOTATION, Finding, Severity, acknowledged_codes
from karpenter_gpu.k8s.accelerators import NEURON_ACCELERATOR, NEURON_NAMES
from karpenter_gpu.k8s.labels import (
    ACCELERATOR_RESOURCES, AMD_GPU, AUTO_MODE_GROUP, AUTO_MODE_NODE_CLASS_KIND, AWS_GROUP, CANONICAL_KEYS, COMPUTE_TYPE,
    HYBRID, HYBRID_GROUP_LABEL, NEURON, NEURON_CORE, NODE_CLASS_KIND, NODEPOOL_KIND, NVIDIA_GPU, OVERLAY_KIND, Label,
    auto_mode_key, canonical_key, kind_of,
)
from karpenter_gpu.k8s.units import Duration
from karpenter_gpu.k8s.auto_mode import check_node_class_spec
from karpenter_gpu.k8s.requirements import check_label_key, check_overlay_key
from karpenter_gpu.k8s.scheduling import (
    COMPARISONS, Requirement, Requirements, atoi, pod_requirements, taint_text, untolerated,
)
from karpenter_gpu.k8s.drift import static_drift_blocked
from karpenter_gpu.k8s.views import HybridGroupView, NodePoolView, hybrid_groups
from karpenter_gpu.analysis.catalog import default_catalog
from karpenter_gpu.analysis.hybrid import hybrid_fit
from karpenter_gpu.analysis.simulator import PodShape, fit_reports, simulate_pools
from karpenter_gpu.k8s.admission import admitted_tolerations, requested_resources
from karpenter_gpu.k8s.units import REPORTED_GPU_MEMORY_MIB, Quantity
from karpenter_gpu.k8s.mig import DISABLED as MIG_DISABLED, MIG_CONFIG_LABEL, MIG_RESOURCE_PREFIX, mig_table

__all__ = ["RULES", "Rule", "check_rules"]


class Rule(NamedTuple):
    """One row of :data:`RULES`: the default severity and a one-line title."""

    severity: Severity
    title: str


_E, _W, _I = Severity.ERROR, Severity.WARNING, Severity.INFO

#: Every rule, code → (default severity, title). KG411 is escalated to ERROR for environment "prod".
RULES: dict[str, Rule] = {
    "KG401": Rule(_E, "dynamic GPU pool without a limit on nvidia.com/gpu"),
    "KG402": Rule(_W, "GPU pool without a NoSchedule/NoExecute taint on nvidia.com/gpu"),
    "KG403": Rule(_W, "GPU pool without a disruption block (defaults consolidate at once)"),
    "KG404": Rule(_W, "unweighted dynamic pool beside weighted pools (weight 0, last resort)"),
    "KG405": Rule(_W, "training pool relying on the default expireAfter (720h, forceful)"),
    "KG406": Rule(_W, "instance-gpu-memory threshold that looks like GB or decimal, not MiB per GPU"),
    "KG407": Rule(_E, "instance-gpu-memory threshold excludes every named GPU"),
    "KG408": Rule(_W, "instance-gpu-count Exists admits g6f/gr6f (0 GPUs)"),
    "KG409": Rule(_E, "requirement operator and values disagree (Exists/DoesNotExist with values, NotIn without)"),
    "KG410": Rule(_E, "requirement key or template label outside the Karpenter allow-lists"),
    "KG411": Rule(_W, "@latest AMI alias (error in prod)"),
    "KG412": Rule(_W, "unscheduled zero budget blocks consolidation that is set to run"),
    "KG413": Rule(_I, "budget schedule in UTC that looks like local business hours"),
    "KG414": Rule(_I, "spot capacity needs the controller's interruption queue"),
    "KG415": Rule(_W, "kubelet in a NodePool (v1 moved it to EC2NodeClass; pruned silently)"),
    "KG416": Rule(_E, "static pool without limits.nodes at or above replicas"),
    "KG417": Rule(_E, "workload cannot land on the pool it targets"),
    "KG418": Rule(_W, "dynamic GPU pool admitting fewer than 3 instance types of the catalog"),
    "KG419": Rule(_E, "pool that can launch no instance type of the catalog"),
    "KG420": Rule(_W, "training pool whose only capacity type is spot"),
    "KG421": Rule(_E, "workload pod shape fits no instance type of the pool it targets"),
    "KG430": Rule(_W, "static pool whose limits.nodes equals replicas: drifted nodes are never replaced"),
    "KG440": Rule(_W, "EKS Auto Mode pool with expireAfter above 21 days or Never (Auto Mode replaces nodes at 21 days)"),
    "KG441": Rule(_W, "karpenter.k8s.aws key on an EKS Auto Mode pool (Auto Mode documents eks.amazonaws.com keys)"),
    "KG442": Rule(_W, "eks.amazonaws.com key on an EC2NodeClass pool (self-managed Karpenter does not know it)"),
    "KG443": Rule(_W, "EKS Auto Mode NodeClass field or value outside the EKS documentation (no public CRD)"),
    "KG444": Rule(_W, "NodeOverlay naming an EKS Auto Mode pool (NodeOverlay is not available on Auto Mode)"),
    "KG445": Rule(_E, "workload requesting a MIG resource that no NodePool advertises"),
    "KG446": Rule(_E, "MIG pools, overlays or workloads that disagree with the GPU Operator's mig.strategy or "
                      "migManager"),
    "KG447": Rule(_E, "time slicing and MIG on the same NodePool"),
    "KG448": Rule(_E, "whole-GPU workload on a mixed-strategy MIG pool (its nodes advertise no nvidia.com/gpu)"),
    "KG449": Rule(_E, "MIG config that some instance type of the pool does not support"),
    "KG450": Rule(_E, "workload pod shape larger than one node of the hybrid node group it targets"),
    "KG451": Rule(_E, "hybrid node group description that cannot be read"),
    "KG455": Rule(_W, "Neuron pool selected by instance-type or family names instead of accelerator labels"),
    "KG456": Rule(_I, "Neuron request that is not a power of two"),
}
#: KG418 threshold: with fewer candidates a spot or zone shortage leaves pods Pending
#: ("no instance type met the scheduling requirements or had a required offering").
MIN_CANDIDATES = 3

#: The environment name in which KG411 (``@latest`` AMI alias) is an error.
PROD_ENVIRONMENT = "prod"

#: Workload kinds KG417 reads, and where their pod spec is.
_WORKLOADS = {("v1", "Pod"): "spec", ("apps/v1", "Deployment"): "spec.template.spec",
              ("apps/v1", "StatefulSet"): "spec.template.spec", ("apps/v1", "ReplicaSet"): "spec.template.spec",
              ("apps/v1", "DaemonSet"): "spec.template.spec", ("batch/v1", "Job"): "spec.template.spec",
              ("batch/v1", "CronJob"): "spec.jobTemplate.spec.template.spec"}

_GPU_KEY_PREFIX = "karpenter.k8s.aws/instance-gpu-"
_GPU_FAMILY = re.compile(r"^(g|gr|p)[0-9]")  # g4dn, g5g, g6e, gr6, p4d, p5en, p6-b200 …
_NEURON_FAMILY = re.compile(r"^(inf|trn)[0-9]")  # inf1, inf2, trn1, trn1n, trn2
_NEURON_KEYS = (Label.ACCELERATOR_NAME, Label.ACCELERATOR_MANUFACTURER, Label.ACCELERATOR_COUNT)
_ISOLATING_EFFECTS = ("NoSchedule", "NoExecute")
_INSTANCE_PODS = "karpenter.k8s.aws/instance-pods"
_CONSOLIDATION_REASONS = {"WhenEmpty": {"Empty"}, "WhenEmptyOrUnderutilized": {"Empty", "Underutilized"},
                          "Balanced": {"Empty", "Underutilized"}}
_BUSINESS_START_HOURS = range(8, 11)  # a UTC start hour that reads like a local 08:00-10:00 start


# --------------------------------------------------------------------------- tolerant accessors
# Hand-written YAML can hold anything: a rule never crashes on a wrong type, it just sees nothing.


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _values(req: dict) -> list[str] | None:
    """A requirement's values as strings; None when the field is absent."""
    raw = req.get("values")
    if raw is None:
        return None
    return [str(v) for v in raw] if isinstance(raw, list) else [str(raw)]


class _Req(NamedTuple):
    path: str
    key: str
    op: str
    values: list[str] | None

    @property
    def attr(self) -> str:
        """The key in Karpenter's spelling: an EKS Auto Mode key (``eks.amazonaws.com/instance-gpu-name``) names the
        same instance attribute, so a rule about it is written once (:func:`~karpenter_gpu.k8s.labels.canonical_key`)."""
        return canonical_key(self.key)


def _requirements(items: Any, base: str) -> list[_Req]:
    out = []
    for i, raw in enumerate(_list(items)):
        req = _dict(raw)
        key, op = req.get("key"), req.get("operator")
        if isinstance(key, str) and isinstance(op, str):
            out.append(_Req(f"{base}[{i}]", key, op, _values(req)))
    return out


def _label_reqs(labels: dict, base: str) -> list[_Req]:
    """Template labels act as ``In [value]`` requirements on the NodeClaim."""
    return [_Req(f"{base}[{k}]", k, "In", [str(v)]) for k, v in labels.items() if isinstance(k, str)]


def _gpu_groups(names: Any) -> str:
    """'t4, t4g, v100 (16384), a10g, l4 (22888)': GPU names grouped by reported MiB."""
    by_mib: dict[int, list[str]] = {}
    for name in names:
        by_mib.setdefault(REPORTED_GPU_MEMORY_MIB[name], []).append(name)
    return ", ".join(f"{', '.join(sorted(n))} ({mib})" for mib, n in sorted(by_mib.items()))


def _threshold(r: _Req) -> Requirement | None:
    """A well-formed comparison requirement in the core's terms, else None (KG409 or the CRD says why)."""
    if r.op not in COMPARISONS or not r.values or len(r.values) != 1:
        return None
    try:
        return Requirement.from_dict({"key": r.key, "operator": r.op, "values": r.values})
    except KarpenterGpuError:
        return None


# --------------------------------------------------------------------------- per object


class _Object:
    """One manifest and the findings raised on it."""

    def __init__(self, file: str, manifest: dict) -> None:
        self.file, self.manifest = file, manifest
        self.kind = str(manifest.get("kind") or "")
        self.metadata = _dict(manifest.get("metadata"))
        self.name = str(self.metadata.get("name") or "")
        self.spec = _dict(manifest.get("spec"))
        self.findings: list[Finding] = []

    def add(self, code: str, path: str, message: str, severity: Severity | None = None) -> None:
        self.findings.append(Finding(self.file, self.kind, self.name, path, code,
                                     severity or RULES[code].severity, message))

    def reported(self) -> list[Finding]:
        """Findings after acknowledgement: acknowledged WARNINGs become INFO, errors stay."""
        try:
            acked = acknowledged_codes(self.manifest)
        except (AttributeError, TypeError):  # a non-string annotation in hand-written YAML
            acked = frozenset()
        return [replace(f, severity=Severity.INFO, message=f"acknowledged: {f.message}")
                if f.code in acked and f.severity is Severity.WARNING else f
                for f in self.findings]


class _Pool(_Object):
    """A karpenter.sh/v1 NodePool: its core view plus the requirement spellings the lint rules read."""

    REQS = NodePoolView.REQUIREMENTS
    LABELS = NodePoolView.LABELS

    def __init__(self, file: str, manifest: dict) -> None:
        super().__init__(file, manifest)
        self.view = NodePoolView.of(manifest)
        self.template, self.tspec, self.labels = self.view.template, self.view.template_spec, self.view.labels
        self.reqs = _requirements(list(self.view.requirement_dicts), self.REQS)
        self.selection = self.reqs + _label_reqs(self.labels, self.LABELS)
        self.static = self.view.static
        self.disruption = self.view.disruption
        self.weight = self.spec.get("weight")
        self.is_neuron = any(self._selects_neuron(r) for r in self.selection)
        # GPU rules (limit, taint, disruption, catalog) apply to every accelerated pool, Neuron ones included.
        self.is_gpu = self.is_neuron or any(self._selects_gpus(r) for r in self.selection)

    @staticmethod
    def _selects_neuron(r: _Req) -> bool:
        """Whether a requirement (or template label) selects Neuron instances (Inferentia, Trainium)."""
        if r.op != "In" or not r.values:
            return r.key == Label.ACCELERATOR_COUNT and r.op in ("Exists", "Gt", "Gte")
        if r.key == Label.ACCELERATOR_NAME:
            return bool(set(r.values) & NEURON_NAMES.keys())
        if r.key == Label.ACCELERATOR_MANUFACTURER:
            return NEURON_ACCELERATOR.manufacturer in r.values
        if r.key == Label.INSTANCE_FAMILY:
            return any(_NEURON_FAMILY.match(v) for v in r.values)
        if r.key == Label.INSTANCE_TYPE:
            return any(_NEURON_FAMILY.match(v.split(".", 1)[0]) for v in r.values)
        return r.key == Label.ACCELERATOR_COUNT

    @staticmethod
    def _selects_gpus(r: _Req) -> bool:
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
    def policy(self) -> str:
        return str(_dict(self.disruption).get("consolidationPolicy") or "WhenEmptyOrUnderutilized")

    def gpu_resource(self) -> str:
        """The device resource the pool's limit and taint are about (Neuron pools: aws.amazon.com/neuron)."""
        if self.is_neuron:
            return NEURON
        makers = self.view.template_requirements.get(Label.GPU_MANUFACTURER)
        return AMD_GPU if not makers.complement and makers.values and makers.values <= {"amd"} else NVIDIA_GPU


def _check_pool(pool: _Pool, pools: list[_Pool]) -> None:
    if pool.is_gpu and not pool.static:
        _kg401_gpu_limit(pool)
    if pool.is_gpu:
        _kg402_gpu_taint(pool)
    if pool.is_neuron:
        _kg455_neuron_by_name(pool)
    if pool.is_gpu and not pool.static and pool.disruption is None:
        pool.add("KG403", "spec.disruption",
                 "GPU pool without spec.disruption: Karpenter then uses consolidationPolicy "
                 "WhenEmptyOrUnderutilized with consolidateAfter 0s and a 10% budget, so a GPU node whose pods "
                 "request little CPU/memory looks underutilized and is consolidated (its pods evicted, running "
                 "jobs killed) as soon as the cluster shifts; fix: add spec.disruption with consolidationPolicy "
                 "WhenEmpty and consolidateAfter e.g. 10m (plus budgets)")
    if not pool.static:
        _kg404_weight(pool, pools)
    if pool.view.auto_mode:
        _kg440_auto_mode_expiry(pool)
        _kg441_karpenter_keys(pool)
    else:
        _kg405_expiry(pool)  # Auto Mode's own lifetime cap (21 days) applies there instead: KG440
        _kg442_auto_mode_keys(pool)
    _check_requirements(pool, pool.reqs, overlay=False)
    _kg410_labels(pool)
    if not pool.static:
        _kg412_zero_budget(pool)
    _kg413_utc_schedules(pool)
    if not pool.view.auto_mode:  # Auto Mode handles spot interruptions itself (AWS runs its controller)
        _kg414_spot(pool)
    _kg415_kubelet(pool)
    if pool.static:
        _kg416_static_limit(pool)


def _kg401_gpu_limit(pool: _Pool) -> None:
    resource = pool.gpu_resource()
    kind = "Neuron" if pool.is_neuron else "GPU"
    limits = _dict(pool.spec.get("limits"))
    if resource in limits:
        return
    others = sorted(k for k in limits if isinstance(k, str))
    indirect = f" (the {', '.join(others)} limits bound GPUs only indirectly)" if others else ""
    pool.add("KG401", "spec.limits",
             f"{kind} pool without spec.limits['{resource}']: nothing caps how many {kind} nodes it launches, so a "
             f"pending-pod storm (a bad HPA, a job retry loop) buys $30+/h {kind} instances without bound{indirect}; "
             f"fix: add spec.limits {resource}: '<max GPUs>' (e.g. '16'), sized to the spend you accept")


def _kg402_gpu_taint(pool: _Pool) -> None:
    taints = [_dict(t) for t in _list(pool.tspec.get("taints"))]
    isolating = [t for t in taints if t.get("effect") in _ISOLATING_EFFECTS]
    resource = pool.gpu_resource()
    if any(t.get("key") in (NVIDIA_GPU, AMD_GPU, resource) for t in isolating):
        return
    plugin = "Neuron device plugin DaemonSet tolerates" if pool.is_neuron else \
        "NVIDIA device plugin and GPU Operator DaemonSets tolerate"
    if not isolating:
        pool.add("KG402", "spec.template.spec.taints",
                 "GPU pool without a NoSchedule/NoExecute taint: any pod that fits (batch, web or system pods "
                 "without GPU requests) can land on $30+/h GPU nodes, get them launched for CPU work and keep them from "
                 f"consolidating; fix: add taint {resource}=true:NoSchedule to spec.template.spec.taints and "
                 "tolerate it in GPU pods")
        return
    names = ", ".join(f"{t.get('key')}={t.get('value', '')}:{t.get('effect')}" for t in isolating)
    pool.add("KG402", "spec.template.spec.taints",
             f"GPU pool tainted only with {names}, not {resource}: the {plugin} {resource} by default, not this taint, so unless each gets an extra "
             f"toleration they stay off the node, {resource} never appears in allocatable and GPU pods stay "
             f"Pending; fix: add taint {resource}=true:NoSchedule (keep the other taint if you need it)")


def _kg455_neuron_by_name(pool: _Pool) -> None:
    """A Neuron pool that lists instance types or families where the accelerator labels would do.

    aws/karpenter-provider-aws v1.14.1 ``pkg/providers/instancetype/types.go`` ``computeRequirements`` labels every
    Neuron instance type with ``instance-accelerator-name`` (the NeuronInfo device name) and
    ``instance-accelerator-manufacturer: aws``: selecting by them admits every size of the device, new ones too.
    """
    if any(r.key == Label.ACCELERATOR_NAME and r.op == "In" for r in pool.selection):
        return
    named = next((r for r in pool.reqs if r.key in (Label.INSTANCE_TYPE, Label.INSTANCE_FAMILY) and r.op == "In"
                  and r.values and any(_NEURON_FAMILY.match(v.split(".", 1)[0]) for v in r.values)), None)
    if named is None:
        return
    by_family = _neuron_devices_by_family()
    devices = sorted({by_family[v.split(".", 1)[0]] for v in named.values or [] if v.split(".", 1)[0] in by_family})
    pool.add("KG455", named.path,
             f"Neuron pool selected by {named.key} In {named.values}: a size or generation that is not listed "
             "(a new inf2/trn2 size, another region's offer) is never launched, and one shortage of the listed "
             "types leaves pods Pending; fix: select by the accelerator labels Karpenter sets on every Neuron type, "
             f"karpenter.k8s.aws/instance-accelerator-name In {devices or sorted(NEURON_NAMES)} and "
             "instance-accelerator-manufacturer In [aws] (NeuronInferencePool / NeuronTrainingPool render them), "
             "with instance-size to bound the shape")


def _neuron_devices_by_family() -> dict[str, str]:
    """Instance family → Neuron device name (``instance-accelerator-name``), from the packaged catalog."""
    return {it.family: it.accelerator_name for it in default_catalog()
            if it.family and it.accelerator_name in NEURON_NAMES}


def _kg404_weight(pool: _Pool, pools: list[_Pool]) -> None:
    if pool.weight is not None:
        return
    weighted = [p for p in pools if p is not pool and not p.static and p.weight is not None]
    if not weighted:
        return
    shown = ", ".join(f"{p.name} ({p.weight})" for p in weighted[:3]) + (", …" if len(weighted) > 3 else "")
    pool.add("KG404", "spec.weight",
             f"dynamic pool without spec.weight while {shown} have one: no weight means weight 0, so Karpenter "
             "tries this pool only after every weighted pool and it becomes the last resort; fix: set "
             "spec.weight (1..100) to rank it, or acknowledge KG404 if last resort is intended")


def _training_reason(pool: _Pool) -> str | None:
    words = [pool.name] + [f"{k}={v}" for k, v in {**_dict(pool.metadata.get("labels")), **pool.labels}.items()]
    for word in words:
        if "train" in str(word).lower():
            return f"'{word}' says training"
    caps = pool.view.capacity_types  # no requirement admits spot, and spot is launched first
    if pool.disruption is not None and pool.policy == "WhenEmpty" and caps and "spot" not in caps:
        return "WhenEmpty consolidation on non-spot capacity"
    return None


def _kg405_expiry(pool: _Pool) -> None:
    if "expireAfter" in pool.tspec:
        return
    why = _training_reason(pool)
    if why is None:
        return
    pool.add("KG405", "spec.template.spec.expireAfter",
             f"training-looking pool ({why}) without expireAfter: the default 720h applies and expiry is "
             "forceful, so every 30 days each node is drained even mid-run, and neither "
             "karpenter.sh/do-not-disrupt nor budgets stop it; fix: set spec.template.spec.expireAfter "
             "explicitly (longer than your longest job, or 'Never' with a patching plan) and "
             "terminationGracePeriod to give checkpoints time")


#: EKS Auto Mode's node lifetime cap: https://docs.aws.amazon.com/eks/latest/userguide/automode.html ("a maximum
#: lifetime of 21 days (which you can reduce)") and auto-security.html ("automatically terminates instances
#: exceeding this lifetime").
_AUTO_MODE_MAX_EXPIRY = Duration.days(21)


def _kg440_auto_mode_expiry(pool: _Pool) -> None:
    raw = pool.tspec.get("expireAfter")
    if not isinstance(raw, str):
        return
    try:
        expiry = Duration.parse(raw)
    except KarpenterGpuError:
        return  # the CRD pattern says why
    if expiry.is_never or expiry.total_seconds > _AUTO_MODE_MAX_EXPIRY.total_seconds:
        pool.add("KG440", "spec.template.spec.expireAfter",
                 f"expireAfter {raw} on an EKS Auto Mode pool: Auto Mode terminates its nodes after at most 21 days "
                 "whatever the NodePool says, so the pool's nodes go earlier than written and jobs longer than that "
                 f"are cut; fix: set expireAfter to at most {_AUTO_MODE_MAX_EXPIRY} (e.g. 336h) and plan checkpoints "
                 "and terminationGracePeriod around it, or run such jobs on a self-managed Karpenter pool")


def _kg441_karpenter_keys(pool: _Pool) -> None:
    """EKS documents only ``eks.amazonaws.com/`` instance keys for Auto Mode ("EKS Auto Mode uses different labels
    than Karpenter", https://docs.aws.amazon.com/eks/latest/userguide/auto-migrate-karpenter.html; the supported
    list of https://docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html has no karpenter.k8s.aws key)."""
    for r in pool.selection:
        if r.key.split("/", 1)[0] != AWS_GROUP:
            continue
        eks = auto_mode_key(r.key)
        pool.add("KG441", r.path,
                 f"{r.key} on an EKS Auto Mode pool (nodeClassRef eks.amazonaws.com NodeClass): \"EKS Auto Mode uses "
                 "different labels than Karpenter\" — its instance labels are eks.amazonaws.com/… and its supported "
                 "list has no karpenter.k8s.aws key, so nothing documents what this requirement selects there, and "
                 "pods selecting it look for a label Auto Mode does not document on its nodes; fix: "
                 + (f"use {eks}" if eks != r.key else "drop it (Auto Mode documents no equivalent)"))


def _kg442_auto_mode_keys(pool: _Pool) -> None:
    """Self-managed Karpenter neither sets nor models eks.amazonaws.com keys: a requirement on them selects no
    instance type (kubernetes-sigs/karpenter ``pkg/scheduling/requirements.go`` ``Intersects`` compares only keys
    both sides define) and a single ``In`` value becomes a node label (``Requirements.Labels``), true or not."""
    for r in pool.selection:
        if r.key not in CANONICAL_KEYS and r.key != COMPUTE_TYPE and not (
                r.key.split("/", 1)[0] == AUTO_MODE_GROUP and r.path.startswith(pool.REQS)):
            continue
        karpenter = CANONICAL_KEYS.get(r.key)
        pool.add("KG442", r.path,
                 f"{r.key} on a self-managed Karpenter pool: it is an EKS Auto Mode label that Karpenter neither sets "
                 "nor uses to pick instance types, so the requirement restricts nothing and may stamp a wrong label "
                 "on every node (explain models it as on Auto Mode); fix: "
                 + (f"use {karpenter}" if karpenter else "drop it, or point the pool at an eks.amazonaws.com NodeClass"))


def _kg444_overlay_on_auto_mode(obj: _Object, pools: list[_Pool]) -> None:
    """An overlay that names Auto Mode pools (``karpenter.sh/nodepool``): AWS's Karpenter there reads no NodeOverlay
    (aws/containers-roadmap#2690, open), so the capacity or price it states never reaches those pools."""
    for r in _requirements(obj.spec.get("requirements"), "spec.requirements"):
        if r.key != Label.NODEPOOL or r.op != "In" or not r.values:
            continue
        named = sorted(p.name for p in pools if p.view.auto_mode and p.name in r.values)
        if named:
            obj.add("KG444", r.path,
                    f"NodeOverlay names EKS Auto Mode pool(s) {', '.join(named)}: NodeOverlay is not available on Auto "
                    "Mode (aws/containers-roadmap#2690), so Karpenter there never sees this capacity or price and pods "
                    "that need it (time-sliced or MIG resources) stay Pending; fix: serve those pods from a "
                    "self-managed Karpenter pool (EC2NodeClass), or drop the Auto Mode pools from the overlay")


def _check_auto_mode_node_class(obj: _Object) -> None:
    for path, problem in check_node_class_spec(obj.manifest.get("spec")):
        obj.add("KG443", path, f"{problem}; EKS publishes no CRD for eks.amazonaws.com/v1 NodeClass, so this is checked "
                               "against the EKS user guide (https://docs.aws.amazon.com/eks/latest/userguide/"
                               "create-node-class.html); fix: follow the guide's Node Class Specification")


def _check_requirements(obj: _Object, reqs: list[_Req], *, overlay: bool) -> None:
    names = _named_gpus(reqs)
    for r in reqs:
        _kg409_operator_values(obj, r)
        _kg410_key(obj, r, overlay=overlay)
        if r.attr == Label.GPU_MEMORY:
            _kg406_gpu_memory(obj, r)
        if r.attr == Label.GPU_COUNT and r.op == "Exists" and not overlay:
            obj.add("KG408", r.path,
                    "instance-gpu-count Exists also admits g6f/gr6f (fractional L4), which report 0 GPUs: "
                    "Karpenter models them with no nvidia.com/gpu, so GPU pods never fit them while the pool may "
                    "still launch them for other pods that tolerate its taints; fix: use operator Gt with values "
                    "['0'] (and a NodeOverlay if you want g6f)")
    if not overlay and names:
        _kg407_no_gpu_left(obj, reqs, names)


def _named_gpus(reqs: list[_Req]) -> set[str]:
    """The GPU names the instance-gpu-name requirements admit (their intersection), empty when unbounded."""
    core = Requirements()
    for r in reqs:
        if r.attr == Label.GPU_NAME and r.op == "In" and r.values:
            core.add(Requirement.new(r.attr, "In", r.values))
    req = core.get(Label.GPU_NAME)
    return set(req.values) if Label.GPU_NAME in core else set()


def _kg406_gpu_memory(obj: _Object, r: _Req) -> None:
    core = _threshold(r)
    value = atoi(r.values[0]) if core is not None and r.values else None
    if core is None or value is None or value == 0 or not (value % 1000 == 0 or value < 1024):
        return
    kept = [n for n, mib in REPORTED_GPU_MEMORY_MIB.items() if core.has(str(mib))]
    dropped = [n for n in REPORTED_GPU_MEMORY_MIB if n not in kept]
    if r.op in ("Gt", "Gte"):
        smallest = min((REPORTED_GPU_MEMORY_MIB[n] for n in kept), default=None)
        effect = (f"it admits {_gpu_groups(n for n in kept if REPORTED_GPU_MEMORY_MIB[n] == smallest)} as its "
                  "smallest GPUs" if kept else "it admits no known GPU")
        if dropped:
            effect += f" and excludes {_gpu_groups(dropped)}"
    else:
        effect = f"it admits {_gpu_groups(kept)}" if kept else "it admits no known GPU"
    looks = "GB" if value < 1024 else "decimal GB/MB"
    obj.add("KG406", r.path,
            f"instance-gpu-memory {r.op} {value} looks like {looks}, but the label is MiB per GPU as EC2 reports "
            f"it: {effect}; note A10G and L4 report 22888, so '24 GiB' = 24576 excludes them; fix: write the "
            "threshold in reported MiB per GPU (t4 16384, a10g/l4 22888, a100 40960, l40s 45776, h100 81920), "
            "e.g. Gt 16384 for 'more than 16 GiB' or Gte 22888 for A10G/L4 and up")


def _kg407_no_gpu_left(obj: _Object, reqs: list[_Req], names: set[str]) -> None:
    if not names or not names <= REPORTED_GPU_MEMORY_MIB.keys():
        return  # an unknown name may report anything
    memory = [(r, core) for r in reqs if r.attr == Label.GPU_MEMORY and (core := _threshold(r)) is not None]
    if not memory:
        return
    if any(all(core.has(str(REPORTED_GPU_MEMORY_MIB[n])) for _, core in memory) for n in names):
        return
    cond = " and ".join(f"{r.op} {(r.values or [''])[0]}" for r, _ in memory)  # _threshold: one value
    obj.add("KG407", memory[0][0].path,
            f"no instance type can match: instance-gpu-name In {sorted(names)} (reported MiB per GPU: "
            f"{_gpu_groups(names)}) and instance-gpu-memory {cond} exclude every one of them, so pods for this "
            "pool stay Pending ('no instance type met the scheduling requirements'); fix: move the threshold so "
            "the named GPUs pass (A10G/L4 report 22888, not 24 GiB = 24576) or drop the memory requirement")


def _kg409_operator_values(obj: _Object, r: _Req) -> None:
    if r.op in ("Exists", "DoesNotExist") and r.values:
        obj.add("KG409", r.path,
                f"operator {r.op} with values {r.values}: Karpenter ignores the values, so this means "
                f"'{r.key} {r.op}' for any value, not the listed ones (the CRD does not reject it); fix: use "
                f"In (or NotIn) to select those values, or drop values")
    elif r.op == "NotIn" and not r.values:
        obj.add("KG409", r.path,
                f"operator NotIn on {r.key} without values excludes nothing (the NodePool CRD accepts it), so "
                "the instances meant to be excluded are still launched; fix: list the values to exclude, or "
                "remove the requirement")


def _key_problem(key: str, *, overlay: bool, prop: str) -> KarpenterGpuError | None:
    try:
        (check_overlay_key if overlay else check_label_key)(key, prop)
    except KarpenterGpuError as error:
        return error
    return None


def _kg410_message(key: str, where: str, error: KarpenterGpuError, kind: str) -> str:
    if key == _INSTANCE_PODS:
        return (f"{where} {key} appears in the Karpenter well-known label docs, but Karpenter never sets it and "
                f"the v1.14.1 {kind} CRD allow-list rejects it, so the apply fails; fix: drop it and cap pods "
                "per node with EC2NodeClass spec.kubelet.maxPods (or select instance sizes)")
    return (f"{where} {key!r} is rejected by the v1.14.1 {kind} CRD (allowed: {error.allowed}), so the apply "
            f"(kubectl, Argo CD, Flux) fails for the whole object; fix: {error.fix}")


def _kg410_key(obj: _Object, r: _Req, *, overlay: bool) -> None:
    error = _key_problem(r.key, overlay=overlay, prop="requirements")
    if error is not None:
        obj.add("KG410", r.path, _kg410_message(r.key, "requirement key", error, obj.kind))


def _kg410_labels(pool: _Pool) -> None:
    for key in pool.labels:
        error = _key_problem(str(key), overlay=False, prop="labels")
        if error is not None:
            pool.add("KG410", f"{pool.LABELS}[{key}]", _kg410_message(str(key), "template label", error, pool.kind))


def _is_zero(nodes: Any) -> bool:
    return re.fullmatch(r"0+%?", str(nodes).strip()) is not None


def _kg412_zero_budget(pool: _Pool) -> None:
    disruption = _dict(pool.disruption)
    if pool.disruption is None or str(disruption.get("consolidateAfter")) == "Never":
        return
    consolidating = _CONSOLIDATION_REASONS.get(pool.policy, {"Empty", "Underutilized"})
    for i, raw in enumerate(_list(disruption.get("budgets"))):
        budget = _dict(raw)
        if "nodes" not in budget or not _is_zero(budget["nodes"]) or budget.get("schedule"):
            continue
        reasons = budget.get("reasons")
        if reasons is not None and not consolidating & {str(x) for x in _list(reasons)}:
            continue  # only blocks e.g. Drifted
        scope = "all voluntary disruption (consolidation and drift)" if reasons is None else \
            f"{', '.join(str(x) for x in _list(reasons))} disruption"
        pool.add("KG412", f"spec.disruption.budgets[{i}]",
                 f"budget nodes '{budget['nodes']}' has no schedule, so it blocks {scope} at all times: "
                 f"consolidationPolicy {pool.policy} with consolidateAfter {disruption.get('consolidateAfter')} "
                 "never runs, empty GPU nodes keep billing, and drifted nodes (a new AMI) are never replaced; "
                 "fix: say so with consolidateAfter: Never, or give the budget a schedule and duration (a "
                 "window), or narrow it with reasons")


#: IANA time zone of each AWS region's location (the city the region is named after), for KG413's message.
_REGION_ZONES = {
    "us-east-1": "America/New_York", "us-east-2": "America/New_York", "us-west-1": "America/Los_Angeles",
    "us-west-2": "America/Los_Angeles", "ca-central-1": "America/Toronto", "ca-west-1": "America/Edmonton",
    "mx-central-1": "America/Mexico_City", "sa-east-1": "America/Sao_Paulo", "eu-west-1": "Europe/Dublin",
    "eu-west-2": "Europe/London", "eu-west-3": "Europe/Paris", "eu-central-1": "Europe/Berlin",
    "eu-central-2": "Europe/Zurich", "eu-north-1": "Europe/Stockholm", "eu-south-1": "Europe/Rome",
    "eu-south-2": "Europe/Madrid", "il-central-1": "Asia/Jerusalem", "me-south-1": "Asia/Bahrain",
    "me-central-1": "Asia/Dubai", "af-south-1": "Africa/Johannesburg", "ap-east-1": "Asia/Hong_Kong",
    "ap-south-1": "Asia/Kolkata", "ap-south-2": "Asia/Kolkata", "ap-northeast-1": "Asia/Tokyo",
    "ap-northeast-2": "Asia/Seoul", "ap-northeast-3": "Asia/Tokyo", "ap-southeast-1": "Asia/Singapore",
    "ap-southeast-2": "Australia/Sydney", "ap-southeast-3": "Asia/Jakarta", "ap-southeast-4": "Australia/Melbourne",
    "ap-southeast-5": "Asia/Kuala_Lumpur", "ap-southeast-7": "Asia/Bangkok",
}
_ZONE_REGION = re.compile(r"^([a-z]{2}(?:-gov)?-[a-z]+-[0-9]+)")


def _pool_time_zone(pool: _Pool) -> str | None:
    """The time zone of the region the pool's zones (``topology.kubernetes.io/zone In``) are in, when it is one."""
    regions = {m.group(1) for r in pool.selection if r.key == Label.ZONE and r.op == "In"
               for z in (r.values or []) if (m := _ZONE_REGION.match(z))}
    zones = {_REGION_ZONES.get(region) for region in regions}
    return zones.pop() if len(zones) == 1 and None not in zones else None


def _utc_offsets(zone: str) -> list[int]:
    """Whole-hour UTC offsets of ``zone`` in January and July (two when it observes DST)."""
    tz = ZoneInfo(zone)
    out = []
    for month in (1, 7):
        offset = datetime(2026, month, 15, 12, tzinfo=tz).utcoffset()
        hours = int(offset.total_seconds() // 3600) if offset is not None else 0
        if hours not in out:
            out.append(hours)
    return out


def _kg413_utc_schedules(pool: _Pool) -> None:
    if WINDOWS_ANNOTATION in _dict(pool.metadata.get("annotations")):
        return  # the library compiled these windows from local time
    zone = _pool_time_zone(pool)
    for i, raw in enumerate(_list(_dict(pool.disruption).get("budgets"))):
        schedule = _dict(raw).get("schedule")
        fields = schedule.split() if isinstance(schedule, str) else []
        start = re.match(r"^([0-9]{1,2})", fields[1]) if len(fields) == 5 else None
        if start is None or int(start.group(1)) not in _BUSINESS_START_HOURS:
            continue
        hour = int(start.group(1))
        if zone is None:
            where = ("not local time unless the cluster's zone is UTC (the pool names no zones of one AWS region "
                     "to tell its time zone)")
            convert = f"convert to UTC (for UTC+9, {hour:02d}:00 local is hour {(hour - 9) % 24} UTC)"
        else:
            offsets = _utc_offsets(zone)
            local = "/".join(f"{(hour + o) % 24:02d}:00" for o in offsets)
            utc = "/".join(f"{o:+d}" for o in offsets)
            where = (f"= {local} {zone} (UTC{utc}{', with DST' if len(offsets) > 1 else ''}, the time zone of the "
                     f"pool's zones), not {hour:02d}:00 local time")
            convert = (f"convert to UTC ({hour:02d}:00 {zone} is hour "
                       f"{'/'.join(str((hour - o) % 24) for o in offsets)} UTC"
                       f"{', the day before' if any(hour < o for o in offsets) else ''})")
        pool.add("KG413", f"spec.disruption.budgets[{i}].schedule",
                 f"budget schedules are UTC (Karpenter has no time zones): {schedule!r} starts at {hour:02d}:00 "
                 f"UTC {where}; if local business hours were meant the window is off by your UTC offset; fix: "
                 f"{convert} or build it with DisruptionWindow and a time zone (recorded in the "
                 f"{WINDOWS_ANNOTATION} annotation)")


def _kg414_spot(pool: _Pool) -> None:
    if "spot" not in pool.view.capacity_types:  # the core: no capacity-type requirement admits spot too
        return
    declared = next((r for r in pool.selection if r.key == Label.CAPACITY_TYPE), None)
    where = "spot capacity" if declared is not None else (
        "no karpenter.sh/capacity-type requirement, so spot is admitted and launched first (the provider prefers "
        "reserved > spot > on-demand)")
    pool.add("KG414", declared.path if declared is not None else pool.REQS,
             f"{where}: Karpenter drains a spot node on its 2-minute interruption notice only if the "
             "controller has settings.interruptionQueue (an SQS queue fed by EventBridge); without it "
             "reclaimed GPU nodes vanish without a drain and jobs lose everything since their last "
             "checkpoint; fix: set settings.interruptionQueue in the Karpenter Helm values")


def _kg415_kubelet(pool: _Pool) -> None:
    where = [("spec.kubelet", pool.spec), ("spec.template.kubelet", pool.template),
             ("spec.template.spec.kubelet", pool.tspec)]
    node_class = _dict(pool.tspec.get("nodeClassRef")).get("name") or "its EC2NodeClass"
    for path, holder in where:
        if "kubelet" not in holder:
            continue
        keys = ", ".join(sorted(str(k) for k in _dict(holder["kubelet"]))) or "its settings"
        pool.add("KG415", path,
                 f"{path} is not a NodePool field in karpenter.sh/v1: kubelet settings moved to the EC2NodeClass "
                 f"and the API server prunes this field silently, so {keys} never reach the nodes; fix: move them "
                 f"to spec.kubelet of the EC2NodeClass named in nodeClassRef ({node_class})")


def _nodes_limit(value: Any) -> float | None:
    try:
        return float(Quantity.parse(value).as_decimal())
    except (KarpenterGpuError, ValueError, ArithmeticError):
        return None


def _kg416_static_limit(pool: _Pool) -> None:
    replicas = pool.view.replicas
    if replicas is None:
        return
    limits = _dict(pool.spec.get("limits"))
    if "nodes" not in limits:
        pool.add("KG416", "spec.limits",
                 f"static pool (replicas {replicas}) without limits.nodes: during drift or expiry Karpenter "
                 "launches replacements before removing nodes, with nothing capping how many GPU nodes exist at "
                 f"once; fix: set spec.limits.nodes to at least replicas ({replicas}) plus the surge you accept, "
                 f"e.g. '{replicas + 1}'")
        return
    cap = _nodes_limit(limits["nodes"])
    if cap is not None and cap < replicas:
        pool.add("KG416", "spec.limits.nodes",
                 f"limits.nodes {limits['nodes']} is below replicas {replicas}: the static pool can never reach "
                 "its replica count and has no room to surge for drift or expiry replacement; fix: raise "
                 f"spec.limits.nodes to at least {replicas} (e.g. '{replicas + 1}') or lower replicas")
    elif cap is not None and (blocked := static_drift_blocked(pool.view)) is not None:
        pool.add("KG430", "spec.limits.nodes",
                 f"{blocked} (StaticDrift reserves a node under limits.nodes first): a new AMI or any template change "
                 "leaves every node drifted but running; fix: set spec.limits.nodes to replicas plus the surge you "
                 f"accept, e.g. '{replicas + 1}'")


def _check_node_class(obj: _Object, environment: str | None) -> None:
    for i, raw in enumerate(_list(obj.spec.get("amiSelectorTerms"))):
        alias = _dict(raw).get("alias")
        if not isinstance(alias, str) or not alias.endswith("@latest"):
            continue
        family = alias.split("@", 1)[0]
        prod = environment == PROD_ENVIRONMENT
        pin = ("Windows aliases accept only 'latest': pin with an id or ssmParameter term and amiFamily"
               if family.startswith("windows") else
               "pin a version, e.g. bottlerocket@v1.x.y" if family == "bottlerocket" else
               f"pin a version, e.g. {family}@vYYYYMMDD such as {family}@v20251103")
        obj.add("KG411", f"spec.amiSelectorTerms[{i}].alias",
                f"alias {alias!r} follows the newest EKS AMI: every AMI release drifts and replaces every node of "
                "this class (running GPU jobs included) and changes the NVIDIA driver without review"
                f"{' — not acceptable in prod' if prod else ''}; fix: {pin}, and roll it forward deliberately",
                severity=Severity.ERROR if prod else None)


def _check_overlay(obj: _Object) -> None:
    _check_requirements(obj, _requirements(obj.spec.get("requirements"), "spec.requirements"), overlay=True)


# --------------------------------------------------------------------------- workloads (KG417)


class _Workload(_Object):
    """A pod or pod-template workload; ``pod`` is its pod spec, found at ``pod_path``."""

    def __init__(self, file: str, manifest: dict, pod_path: str) -> None:
        super().__init__(file, manifest)
        pod: Any = manifest
        for part in pod_path.split("."):
            pod = _dict(pod).get(part)
        self.pod_path, self.pod = pod_path, _dict(pod)


def _affinity_pools(work: _Workload) -> list[tuple[str, str]]:
    """(NodePool name, path) of a required node affinity that pins ``karpenter.sh/nodepool In [...]`` in every term.

    Terms of ``nodeSelectorTerms`` are ORed (k8s.io/component-helpers scheduling/corev1/nodeaffinity
    ``LazyErrorNodeSelector.Match``): only when each term names its pools is the pod limited to them.
    """
    required = _dict(_dict(_dict(work.pod.get("affinity")).get("nodeAffinity")).get(
        "requiredDuringSchedulingIgnoredDuringExecution"))
    terms = _list(required.get("nodeSelectorTerms"))
    out: list[tuple[str, str]] = []
    for i, term in enumerate(terms):
        named = [(j, e) for j, e in enumerate(_list(_dict(term).get("matchExpressions")))
                 if _dict(e).get("key") == Label.NODEPOOL and _dict(e).get("operator") == "In"]
        if not named:
            return []  # a term without the pool pin admits other pools: nothing to check
        for j, e in named:
            base = (f"{work.pod_path}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
                    f"nodeSelectorTerms[{i}].matchExpressions[{j}]")
            out += [(str(v), base) for v in _list(e.get("values")) if (str(v), base) not in out]
    return out


def _targets_hybrid(work: _Workload) -> bool:
    """Whether the pod requires ``eks.amazonaws.com/compute-type In [hybrid]`` (nodeSelector or the first
    required nodeSelectorTerm, as pod_placement renders it) and names no NodePool."""
    try:
        reqs = pod_requirements(work.pod)
    except KarpenterGpuError:
        return False
    req = reqs.get(COMPUTE_TYPE)
    return Label.NODEPOOL not in reqs and req.operator == "In" and req.values == {HYBRID}


def _kg417_hybrid(work: _Workload, groups: Sequence[HybridGroupView]) -> None:
    """KG417 / KG450 for a pod on hybrid nodes: existing nodes, so the kube-scheduler's rules
    (:func:`karpenter_gpu.analysis.hybrid.hybrid_fit`) against the groups the environment describes."""
    selector = _dict(work.pod.get("nodeSelector"))
    where = f"{work.pod_path}.nodeSelector" if COMPUTE_TYPE in selector else f"{work.pod_path}.affinity"
    reqs = pod_requirements(work.pod)  # readable: _targets_hybrid read it
    shape = _shape(work.pod)
    if not groups:
        work.add("KG417", where, f"the pod requires {COMPUTE_TYPE}={HYBRID} but no hybrid node group is "
                                 f"described in this environment (ConfigMaps labelled {HYBRID_GROUP_LABEL}, rendered "
                                 "by HybridGpuNodeGroup): Karpenter never launches hybrid nodes, so unless such nodes "
                                 "exist the pod stays Pending; fix: add the HybridGpuNodeGroup to this environment, "
                                 "or target a NodePool")
        return
    results = {g.name: hybrid_fit(shape, g, reqs) for g in groups}
    placeable = [name for name, fit in results.items() if fit.placement is None]
    if not placeable:
        named = reqs.get(HYBRID_GROUP_LABEL)
        why = "; ".join(f"{name}: {fit.placement}" for name, fit in results.items())
        unknown = sorted(named.values - set(results)) if named.operator == "In" else []
        work.add("KG417", where,
                 (f"{HYBRID_GROUP_LABEL} {', '.join(unknown)} names no hybrid node group of this environment "
                  f"(groups here: {', '.join(results)}); " if unknown else "")
                 + f"the pod fits the nodes of no hybrid node group ({why}): hybrid nodes are fixed and Karpenter "
                   "launches none, so the pod stays Pending; fix: place it with pod_placement(<group>), which "
                   "renders the group's selector and tolerations")
        return
    if all(results[name].resources for name in placeable):
        work.add("KG450", work.pod_path,
                 "; ".join(f"hybrid node group {name}: {results[name].resources}" for name in placeable)
                 + ": no node of the group can ever run the pod, so it stays Pending; fix: ask for at most what one "
                   "node has, or target a NodePool with bigger instance types")


def _check_hybrid_group(obj: _Object) -> None:
    """KG451: a hybrid group's ConfigMap (hand-written, or edited) whose node description is unreadable: the
    placement checks and explain would see no labels, taints or GPUs for its nodes."""
    problem = HybridGroupView.of(obj.manifest).problem
    if problem is not None:
        obj.add("KG451", "data", f"hybrid node group {obj.metadata.get('labels', {}).get(HYBRID_GROUP_LABEL)}: "
                                 f"{problem}; pods placed on it cannot be checked (KG417) or explained; fix: render it "
                                 "with HybridGpuNodeGroup, or write nodeLabels/taints as JSON and the counts as "
                                 "whole numbers")


def _kg417_placement(work: _Workload, pools: list[_Pool], groups: Sequence[HybridGroupView] = ()) -> None:
    selector = _dict(work.pod.get("nodeSelector"))
    if Label.NODEPOOL not in selector and _targets_hybrid(work):
        _kg417_hybrid(work, groups)
        return
    if Label.NODEPOOL not in selector:
        # Several pools: a required node affinity on karpenter.sh/nodepool (pod_placement(*pools)).
        for target, path in _affinity_pools(work):
            _kg417_target(work, pools, target, path, f"node affinity {Label.NODEPOOL} In", {})
        return
    _kg417_target(work, pools, str(selector[Label.NODEPOOL]), f"{work.pod_path}.nodeSelector",
                  f"nodeSelector {Label.NODEPOOL}:", selector)


def _kg417_target(work: _Workload, pools: list[_Pool], target: str, base: str, how: str, selector: dict) -> None:
    pool = next((p for p in pools if p.name == target), None)
    if pool is None:
        known = ", ".join(sorted(p.name for p in pools)) or "none"
        work.add("KG417", f"{base}[{Label.NODEPOOL}]" if selector else base,
                 f"{how} {target} names no NodePool of this environment (NodePools here: "
                 f"{known}): Karpenter launches nodes only for NodePools that exist and labels them with their own "
                 "name, so the pod stays Pending for good; fix: select one of the NodePools above, or add NodePool "
                 f"{target} to this environment")
        return
    if pool.view.problem is not None:
        work.add("KG417", f"{base}[{Label.NODEPOOL}]" if selector else base,
                 f"NodePool {target} cannot be read by Karpenter ({pool.view.problem.prop}: {pool.view.problem.allowed}): "
                 "the API server refuses it, so no node of it ever exists and the pod stays Pending; fix: correct "
                 "the NodePool's requirement")
        return
    tolerations = admitted_tolerations([_dict(t) for t in _list(work.pod.get("tolerations"))],
                                       requested_resources(work.pod))
    taints = pool.view.taints
    for taint in untolerated(taints, tolerations):
        i = taints.index(dict(taint))
        value = taint.get("value")
        wanted = (f"{{key: {taint.get('key')}, operator: Equal, value: '{value}', effect: {taint.get('effect')}}}"
                  if value not in (None, "") else
                  f"{{key: {taint.get('key')}, operator: Exists, effect: {taint.get('effect')}}}")
        work.add("KG417", f"{work.pod_path}.tolerations",
                 f"NodePool {target} taints its nodes {taint_text(taint)} (spec.template.spec.taints[{i}]) and the "
                 "pod does not tolerate it: Karpenter launches no node for a pod that does not tolerate the pool's "
                 "taints and the scheduler would not place it there, so the pod stays Pending (or, with several pools, "
                 f"never uses this one) while the {'nodeSelector' if selector else 'node affinity'} rules out every other pool; fix: add the "
                 f"toleration {wanted} (pod_placement(*pools) renders them all)")
    try:
        pod_reqs = pod_requirements(work.pod)
    except KarpenterGpuError as error:
        work.add("KG417", f"{work.pod_path}.affinity", f"the pod's node affinity cannot be read ({error.prop}: "
                                                       f"{error.allowed}); fix: {error.fix}")
        return
    template = pool.view.template_requirements
    for key, req in pod_reqs.items():
        if key == Label.NODEPOOL:
            continue
        why = template.compatible(Requirements([req]), pool.view.well_known_labels)
        if why is None:
            continue
        where = f"{base}[{key}]" if key in selector else f"{work.pod_path}.affinity"
        if "does not have known values" in why:
            work.add("KG417", where,
                     f"{req} selects label {key}, which NodePool {target} neither requires nor sets as a template "
                     "label and which is not a well-known label: Karpenter refuses the pod for that pool ('label "
                     f"\"{key}\" does not have known values') and it stays Pending; fix: add {key} to the pool's "
                     "template labels or requirements, or drop it from the pod")
            continue
        mine = template.get(key)
        origin = (f"template label {key}: {pool.labels.get(key)} ({pool.LABELS}[{key}])" if key in pool.labels else
                  f"requirement {mine} ({pool.REQS})")
        work.add("KG417", where,
                 f"{req} conflicts with NodePool {target}'s {origin}: no node of that pool can carry both, so "
                 f"Karpenter launches nothing and the pod stays Pending; fix: drop the {key} selector "
                 "(karpenter.sh/nodepool already picks the pool) or make it match the pool")


def check_rules(manifests: Sequence[tuple[str, dict]], *, environment: str | None = None,
                values: Mapping[str, Any] | None = None) -> list[Finding]:
    """Run every rule on one environment's manifests, given as ``(file, manifest)`` pairs.

    Only NodePools (karpenter.sh/v1), EC2NodeClasses (karpenter.k8s.aws/v1), NodeOverlays
    (karpenter.sh/v1alpha1) and, for KG417, workloads (Pod, Deployment, StatefulSet, ReplicaSet,
    DaemonSet, Job, CronJob) are looked at; anything else is ignored. ``environment`` "prod" makes
    KG411 an error. ``values`` are the environment's Helm values by file name (``gpu-operator.values.yaml``
    is read by the MIG rules). Findings come back in manifest order.
    """
    objects: list[_Object] = []
    for file, manifest in manifests:
        if not isinstance(manifest, dict):
            continue
        gvk = kind_of(manifest)
        if gvk == NODEPOOL_KIND:
            objects.append(_Pool(file, manifest))
        elif gvk in (NODE_CLASS_KIND, OVERLAY_KIND, AUTO_MODE_NODE_CLASS_KIND) or (
                gvk == ("v1", "ConfigMap") and HYBRID_GROUP_LABEL in _dict(_dict(manifest.get("metadata")).get("labels"))):
            objects.append(_Object(file, manifest))
        elif all(isinstance(x, str) for x in gvk) and gvk in _WORKLOADS:  # YAML may hold a list there
            objects.append(_Workload(file, manifest, _WORKLOADS[gvk]))
    pools = [o for o in objects if isinstance(o, _Pool)]
    groups = hybrid_groups([m for _, m in manifests if isinstance(m, dict)])
    for obj in objects:
        if isinstance(obj, _Pool):
            _check_pool(obj, pools)
        elif isinstance(obj, _Workload):
            _kg417_placement(obj, pools, groups)
        elif kind_of(obj.manifest) == AUTO_MODE_NODE_CLASS_KIND:
            _check_auto_mode_node_class(obj)
        elif obj.kind == NODE_CLASS_KIND[1]:
            _check_node_class(obj, environment)
        elif obj.kind == "ConfigMap":
            _check_hybrid_group(obj)
        else:
            _check_overlay(obj)
            _kg444_overlay_on_auto_mode(obj, pools)
    # After the per-object rules: KG421 stays quiet where KG417 already says the pod cannot land.
    workloads = [o for o in objects if isinstance(o, _Workload)]
    reports = _check_catalog([m for _, m in manifests if isinstance(m, dict)], pools, workloads)
    if reports is not None:
        _check_mig(pools, workloads, reports, _dict(_dict(values).get(GPU_OPERATOR_VALUES)))
    return [finding for obj in objects for finding in obj.reported()]


def _check_catalog(manifests: list[dict], pools: list[_Pool], workloads: list[_Workload]) -> dict | None:
    """KG418–KG421: what the embedded instance catalog says about the pools and the workloads on them.
    Returns the simulation reports by pool name (None when the simulator cannot read the objects)."""
    try:
        reports = {r.name: r for r in simulate_pools(manifests, pools=[p.view for p in pools])}
    except KarpenterGpuError:
        return None  # objects the simulator cannot read; the schema and other rules say why
    for pool in pools:
        report = reports.get(pool.name)
        if report is None or not pool.is_gpu:  # the catalog holds GPU/accelerator types only
            continue
        if not report.candidates or not report.launchable:
            why = "; ".join(report.problems) or "no instance type of the catalog matches every requirement"
            pool.add("KG419", pool.REQS, f"this pool can launch nothing: {why}; pods stay Pending with 'no instance "
                                         "type met the scheduling requirements or had a required offering'; fix: "
                                         "describe instances by properties (GPU count, memory) instead of listing them")
        elif not pool.static and len(report.candidates) < MIN_CANDIDATES:
            pool.add("KG418", pool.REQS, f"only {len(report.candidates)} instance type(s) qualify "
                                         f"({', '.join(report.candidate_names)}); one shortage of that type in the "
                                         "declared zones leaves pods Pending; fix: widen GPU names or sizes, or "
                                         "acknowledge when the pool is meant to be this narrow")
        if set(report.capacity_types) == {"spot"} and _training_reason(pool):
            pool.add("KG420", pool.REQS, "a training pool on spot only: every reclaim (2-minute notice) kills a "
                                         "long job since its last checkpoint; fix: add on-demand, or acknowledge "
                                         "if the jobs checkpoint more often than every 2 minutes")
    for workload in workloads:
        _kg456_neuron_power_of_two(workload)
        target = _dict(workload.pod.get("nodeSelector")).get(Label.NODEPOOL)
        if not isinstance(target, str) or target not in reports or any(f.code == "KG417" for f in workload.findings):
            continue  # no pool, no selector, or it cannot land there at all (KG417 says why)
        fit = next(iter(fit_reports(_shape(workload.pod), [reports[target]])), None)  # one simulation, every pod
        if fit is not None and fit.instance is None and reports[target].kind != "static":
            workload.add("KG421", workload.pod_path, f"the pod cannot run on NodePool {target}: {fit.reason}; "
                                                     "fix: ask for fewer resources or admit bigger instance types")
    return reports


def _requests(pod: dict) -> dict[str, Decimal]:
    """The pod's summed container requests (limits when no request), per resource."""
    totals: dict[str, Decimal] = {}
    containers = pod.get("containers")
    for container in containers if isinstance(containers, list) else []:
        resources = _dict(_dict(container).get("resources"))
        wanted = {**_dict(resources.get("limits")), **_dict(resources.get("requests"))}
        for name, value in wanted.items():
            amount = value.get("value") if isinstance(value, dict) else value
            totals[name] = totals.get(name, Decimal(0)) + Quantity(str(amount)).as_decimal()
    return totals


def _kg456_neuron_power_of_two(work: _Workload) -> None:
    """Karpenter's simulation cannot see the Neuron scheduler extension's topology-aware allocation, so the
    Karpenter docs ask Neuron pods to request like-sized powers of two (FACTS §6, "Extended resources")."""
    try:
        totals = _requests(work.pod)
    except KarpenterGpuError:
        return
    for resource in (NEURON, NEURON_CORE):
        amount = totals.get(resource)
        if amount is None or amount != amount.to_integral_value() or amount < 1:
            continue
        count = int(amount)
        if count & (count - 1):
            work.add("KG456", f"{work.pod_path}.containers",
                     f"the pod requests {count} {resource}: the Neuron device plugin allocates contiguous devices and "
                     "cores, and Karpenter, which cannot see the Neuron scheduler extension, packs such requests "
                     "as if any would do, so a node it launches may not hold the pod; fix: request a power of two "
                     f"(e.g. {1 << (count.bit_length() - 1)} or {1 << count.bit_length()})")


def _shape(pod: dict) -> PodShape:
    """The pod's requests as the simulator's pod shape: its accelerator resource (a MIG device, a GPU or Neuron)
    and count."""
    totals = _requests(pod)
    mig = sorted(r for r in totals if r.startswith(MIG_RESOURCE_PREFIX) and totals[r])
    resource = next(iter(mig), None) or next((r for r in ACCELERATOR_RESOURCES if totals.get(r)), NVIDIA_GPU)
    return PodShape(gpus=int(totals.get(resource, 0)), gpu_resource=resource, cpu=totals.get("cpu", Decimal(0)),
                    memory=totals.get("memory", Decimal(0)),
                    tolerations=tuple(_dict(t) for t in pod.get("tolerations") or []),
                    node_selector=_dict(pod.get("nodeSelector")),
                    required_affinity=tuple(r for req in pod_requirements(pod).values() for r in req.to_dicts()
                                            if req.key not in _dict(pod.get("nodeSelector"))))


# --------------------------------------------------------------------------- MIG (KG445-KG449)

#: The GPU Operator values file (``GpuOperatorValues``) the MIG rules compare the pools with.
GPU_OPERATOR_VALUES = "gpu-operator.values.yaml"
_DEVICE_PLUGIN_CONFIG_LABEL = "nvidia.com/device-plugin.config"


def _time_sliced(values: dict, pool: _Pool) -> bool:
    """Whether the device-plugin config the pool's nodes get (their ``nvidia.com/device-plugin.config`` label,
    else ``devicePlugin.config.default``) shares GPUs by time slicing."""
    config = _dict(_dict(values.get("devicePlugin")).get("config"))
    key = pool.labels.get(_DEVICE_PLUGIN_CONFIG_LABEL) or config.get("default")
    text = _dict(config.get("data")).get(key) if isinstance(key, str) else None
    return isinstance(text, str) and "timeSlicing" in text


def _mig_resources(report: Any) -> set[str]:
    return {str(r) for c in report.candidates for r, v in c.capacity.items()
            if str(r).startswith(MIG_RESOURCE_PREFIX) and v > 0}


def _check_mig(pools: list[_Pool], workloads: list[_Workload], reports: dict, values: dict) -> None:
    """KG445-KG449: MIG pools (template label ``nvidia.com/mig.config``), the MIG resources their NodeOverlays
    advertise (as the simulator applies them), the workloads asking for MIG devices, and the GPU Operator values
    (``mig.strategy``, ``migManager.enabled``, ``devicePlugin.config``) when the environment has them."""
    strategy = _dict(values.get("mig")).get("strategy") if values else None
    manager = _dict(values.get("migManager")).get("enabled") if values else None
    table = mig_table()
    mig_pools: dict[str, _Pool] = {}
    for pool in pools:
        config = pool.labels.get(MIG_CONFIG_LABEL)
        if not isinstance(config, str) or config == MIG_DISABLED:
            continue
        mig_pools[pool.name] = pool
        where = f"{pool.LABELS}[{MIG_CONFIG_LABEL}]"
        report = reports.get(pool.name)
        if report is not None:
            bad = [c.name for c in report.candidates
                   if (gpu := table.gpu_for(c.instance.labels)) is None or not gpu.config(config)]
            if bad:
                pool.add("KG449", where, f"MIG config {config} does not exist for the GPUs of {', '.join(bad)}, which "
                                         "this pool can launch: MIG Manager fails to apply it there (node label "
                                         "nvidia.com/mig.config.state=failed) and those nodes advertise no MIG device; "
                                         "fix: restrict the pool to instance types whose GPU has the config "
                                         "(MigPartitionedPool does), or choose another config")
        if values and manager is False:
            pool.add("KG446", where, f"the pool asks MIG Manager for {config}, but the GPU Operator values have "
                                     "migManager.enabled: false: the GPUs are never partitioned and the MIG devices "
                                     "never appear; fix: enable migManager (GpuOperatorValues derives it from the pools)")
        if values and _time_sliced(values, pool):
            pool.add("KG447", where, "the pool's nodes are MIG-partitioned and also get a time-slicing device-plugin "
                                     "config: what they advertise matches neither the MIG overlays nor the "
                                     "time-slicing overlays, so Karpenter's simulation is wrong for them; fix: label "
                                     f"the pool {_DEVICE_PLUGIN_CONFIG_LABEL} with an unshared config, or drop MIG")
        if strategy == "mixed" and report is not None and not _mig_resources(report):
            sliced = [c.name for c in report.candidates if c.gpus > c.instance.gpus]
            if sliced:
                pool.add("KG446", where, f"its NodeOverlays count MIG devices as nvidia.com/gpu on {', '.join(sliced)} "
                                         "(the single strategy's way) but the GPU Operator values say mig.strategy: "
                                         "mixed, under which those nodes advertise nvidia.com/mig-* and no "
                                         "nvidia.com/gpu: pods asking for GPUs there stay Pending; fix: one strategy "
                                         "for the values and the pools")
        if strategy == "single" and report is not None and _mig_resources(report):
            pool.add("KG446", where, f"its NodeOverlays advertise {', '.join(sorted(_mig_resources(report)))} (the mixed "
                                     "strategy's names) but the GPU Operator values say mig.strategy: single, under "
                                     "which the device plugin advertises MIG devices as nvidia.com/gpu: pods asking for "
                                     "them stay Pending; fix: one strategy for the values and the pools")
    advertised = {r for report in reports.values() for r in _mig_resources(report)}
    for work in workloads:
        try:
            totals = _requests(work.pod)
        except KarpenterGpuError:
            continue
        for resource in sorted(r for r in totals if r.startswith(MIG_RESOURCE_PREFIX)):
            if resource not in advertised:
                work.add("KG445", f"{work.pod_path}.containers", f"the pod requests {resource}, which no NodePool of this "
                         "environment advertises (no MIG NodeOverlay adds it): Karpenter launches nothing for it and it "
                         "stays Pending; fix: add a MigPartitionedPool whose config has that profile, or request one "
                         f"that a pool advertises ({', '.join(sorted(advertised)) or 'none'})")
            if strategy == "single":
                work.add("KG446", f"{work.pod_path}.containers", f"the pod requests {resource}, but the GPU Operator "
                         "values say mig.strategy: single, which advertises MIG devices as nvidia.com/gpu only; fix: "
                         "request nvidia.com/gpu, or use the mixed strategy")
        target = _dict(work.pod.get("nodeSelector")).get(Label.NODEPOOL)
        targeted = mig_pools.get(target) if isinstance(target, str) else None
        report = reports.get(target) if isinstance(target, str) else None
        mixed = strategy == "mixed" or (strategy is None and report is not None and bool(_mig_resources(report)))
        if targeted is not None and mixed and totals.get(NVIDIA_GPU, Decimal(0)) > 0:
            work.add("KG448", f"{work.pod_path}.containers",
                     f"the pod requests whole GPUs (nvidia.com/gpu) on NodePool {target}, whose GPUs are MIG-partitioned "
                     "under the mixed strategy: its nodes advertise MIG devices (nvidia.com/mig-*) and no nvidia.com/gpu, "
                     "so the pod never schedules there although Karpenter (which still counts the physical GPUs) "
                     "launches nodes for it; fix: request a MIG resource the pool advertises "
                     f"({', '.join(sorted(_mig_resources(report))) if report is not None else 'see its overlays'}), "
                     "or target a pool of whole GPUs")
