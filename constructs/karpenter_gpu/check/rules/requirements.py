"""Requirements: what a NodePool's or NodeOverlay's requirements and template labels really select
(KG406-KG410, KG422)."""

from __future__ import annotations

from typing import Iterable

from karpenter_gpu.apiserver.findings import Severity
from karpenter_gpu.check.rules._model import RuleEnvironment, Pool, Req, RuleObject, requirements
from karpenter_gpu.check.rules._registry import rule
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.labels import OVERLAY_KIND, Label
from karpenter_gpu.k8s.requirements import check_label_key, check_overlay_key
from karpenter_gpu.k8s.scheduling import COMPARISONS, Requirement, Requirements, atoi
from karpenter_gpu.k8s.units import REPORTED_GPU_MEMORY_MIB
from karpenter_gpu.perf import cached
from karpenter_gpu.upstream import KARPENTER_TAG

_INSTANCE_PODS = "karpenter.k8s.aws/instance-pods"


def _selections(env: RuleEnvironment) -> Iterable[tuple[RuleObject, list[Req], bool]]:
    """(object, requirements, is an overlay) for every NodePool and NodeOverlay."""
    for pool in env.pools:
        yield pool, pool.reqs, False
    for obj in env.of_kind(OVERLAY_KIND):
        yield obj, requirements(obj.spec.get("requirements"), "spec.requirements"), True


def _gpu_groups(names: Iterable[str]) -> str:
    """'t4, t4g, v100 (16384), a10g, l4 (22888)': GPU names grouped by reported MiB."""
    by_mib: dict[int, list[str]] = {}
    for name in names:
        by_mib.setdefault(REPORTED_GPU_MEMORY_MIB[name], []).append(name)
    return ", ".join(f"{', '.join(sorted(n))} ({mib})" for mib, n in sorted(by_mib.items()))


def _threshold(r: Req) -> Requirement | None:
    """A well-formed comparison requirement in the core's terms, else None (KG409 or the CRD says why)."""
    if r.op not in COMPARISONS or not r.values or len(r.values) != 1:
        return None
    try:
        return Requirement.from_dict({"key": r.key, "operator": r.op, "values": r.values})
    except KarpenterGpuError:
        return None


@rule("KG406", Severity.WARNING, "instance-gpu-memory threshold that looks like GB or decimal, not MiB per GPU")
def kg406_gpu_memory(env: RuleEnvironment) -> None:
    """What it checks: an ``instance-gpu-memory`` comparison whose value is below 1024 or a multiple of 1000.

    Why it matters: the label is MiB per GPU as EC2 reports it (A10G and L4 report 22888), so a threshold written
    in GB or decimal units admits or excludes other GPUs than meant; the message lists which.

    Fix: write the threshold in reported MiB per GPU (t4 16384, a10g/l4 22888, a100 40960, l40s 45776, h100
    81920).

    Upstream: aws/karpenter-provider-aws v1.14.1 ``pkg/providers/instancetype/types.go`` ``computeRequirements``
    (``instance-gpu-memory`` from ``GpuInfo.TotalGpuMemoryInMiB`` / count).
    """
    for obj, reqs, _ in _selections(env):
        for r in reqs:
            if r.attr != Label.GPU_MEMORY:
                continue
            core = _threshold(r)
            value = atoi(r.values[0]) if core is not None and r.values else None
            if core is None or value is None or value == 0 or not (value % 1000 == 0 or value < 1024):
                continue
            kept = [n for n, mib in REPORTED_GPU_MEMORY_MIB.items() if core.has(str(mib))]
            dropped = [n for n in REPORTED_GPU_MEMORY_MIB if n not in kept]
            if r.op in ("Gt", "Gte"):
                smallest = min((REPORTED_GPU_MEMORY_MIB[n] for n in kept), default=None)
                effect = (f"it admits {_gpu_groups(n for n in kept if REPORTED_GPU_MEMORY_MIB[n] == smallest)} as "
                          "its smallest GPUs" if kept else "it admits no known GPU")
                if dropped:
                    effect += f" and excludes {_gpu_groups(dropped)}"
            else:
                effect = f"it admits {_gpu_groups(kept)}" if kept else "it admits no known GPU"
            looks = "GB" if value < 1024 else "decimal GB/MB"
            obj.add("KG406", r.path,
                    f"instance-gpu-memory {r.op} {value} looks like {looks}, but the label is MiB per GPU as EC2 "
                    f"reports it: {effect}; note A10G and L4 report 22888, so '24 GiB' = 24576 excludes them; fix: "
                    "write the threshold in reported MiB per GPU (t4 16384, a10g/l4 22888, a100 40960, l40s 45776, "
                    "h100 81920), e.g. Gt 16384 for 'more than 16 GiB' or Gte 22888 for A10G/L4 and up")


def _named_gpus(reqs: list[Req]) -> set[str]:
    """The GPU names the instance-gpu-name requirements admit (their intersection), empty when unbounded."""
    core = Requirements()
    for r in reqs:
        if r.attr == Label.GPU_NAME and r.op == "In" and r.values:
            core.add(Requirement.new(r.attr, "In", r.values))
    req = core.get(Label.GPU_NAME)
    return set(req.values) if Label.GPU_NAME in core else set()


@rule("KG407", Severity.ERROR, "instance-gpu-memory threshold excludes every named GPU")
def kg407_no_gpu_left(env: RuleEnvironment) -> None:
    """What it checks: a NodePool whose ``instance-gpu-name In`` list and ``instance-gpu-memory`` thresholds
    exclude every named GPU (by the memory each GPU reports).

    Why it matters: no instance type can match, so pods for the pool stay Pending ("no instance type met the
    scheduling requirements").

    Fix: move the threshold so the named GPUs pass (A10G/L4 report 22888, not 24 GiB = 24576) or drop it.

    Upstream: kubernetes-sigs/karpenter v1.14.1 ``pkg/scheduling/requirements.go`` ``Intersects``.
    """
    for pool in env.pools:
        names = _named_gpus(pool.reqs)
        if not names or not names <= REPORTED_GPU_MEMORY_MIB.keys():
            continue  # an unknown name may report anything
        memory = [(r, core) for r in pool.reqs if r.attr == Label.GPU_MEMORY and (core := _threshold(r)) is not None]
        if not memory or any(all(core.has(str(REPORTED_GPU_MEMORY_MIB[n])) for _, core in memory) for n in names):
            continue
        cond = " and ".join(f"{r.op} {(r.values or [''])[0]}" for r, _ in memory)  # _threshold: one value
        pool.add("KG407", memory[0][0].path,
                 f"no instance type can match: instance-gpu-name In {sorted(names)} (reported MiB per GPU: "
                 f"{_gpu_groups(names)}) and instance-gpu-memory {cond} exclude every one of them, so pods for this "
                 "pool stay Pending ('no instance type met the scheduling requirements'); fix: move the threshold so "
                 "the named GPUs pass (A10G/L4 report 22888, not 24 GiB = 24576) or drop the memory requirement")


@rule("KG408", Severity.WARNING, "instance-gpu-count Exists admits g6f/gr6f (0 GPUs)")
def kg408_gpu_count_exists(env: RuleEnvironment) -> None:
    """What it checks: a NodePool requirement ``instance-gpu-count Exists``.

    Why it matters: it also admits g6f/gr6f (fractional L4), which report 0 GPUs: Karpenter models them with no
    ``nvidia.com/gpu``, so GPU pods never fit them while the pool may still launch them for other pods.

    Fix: use operator Gt with values ['0'] (and a NodeOverlay if you want g6f).

    Upstream: aws/karpenter-provider-aws v1.14.1 ``pkg/providers/instancetype/types.go`` ``computeRequirements``
    and ``computeCapacity`` (``nvidia.com/gpu`` from the GPU count).
    """
    for pool in env.pools:
        for r in pool.reqs:
            if r.attr == Label.GPU_COUNT and r.op == "Exists":
                pool.add("KG408", r.path,
                         "instance-gpu-count Exists also admits g6f/gr6f (fractional L4), which report 0 GPUs: "
                         "Karpenter models them with no nvidia.com/gpu, so GPU pods never fit them while the pool may "
                         "still launch them for other pods that tolerate its taints; fix: use operator Gt with values "
                         "['0'] (and a NodeOverlay if you want g6f)")


@rule("KG409", Severity.WARNING,
      "requirement operator and values disagree (Exists/DoesNotExist with values, NotIn without)")
def kg409_operator_values(env: RuleEnvironment) -> None:
    """What it checks: a requirement ``Exists`` or ``DoesNotExist`` with values, or ``NotIn`` without values.

    Why it matters: the CRD accepts both, but Karpenter ignores the values of Exists/DoesNotExist (so it means
    any value, not the listed ones) and a NotIn without values excludes nothing.

    Fix: use In (or NotIn) to select those values, or drop the values; list what NotIn should exclude.

    Upstream: kubernetes-sigs/karpenter v1.14.1 ``pkg/scheduling/requirement.go`` ``NewRequirementWithFlexibility``.
    """
    for obj, reqs, _ in _selections(env):
        for r in reqs:
            if r.op in ("Exists", "DoesNotExist") and r.values:
                obj.add("KG409", r.path,
                        f"operator {r.op} with values {r.values}: Karpenter ignores the values, so this means "
                        f"'{r.key} {r.op}' for any value, not the listed ones (the CRD does not reject it); fix: use "
                        f"In (or NotIn) to select those values, or drop values")
            elif r.op == "NotIn" and not r.values:
                obj.add("KG409", r.path,
                        f"operator NotIn on {r.key} without values excludes nothing (the NodePool CRD accepts it), "
                        "so the instances meant to be excluded are still launched; fix: list the values to exclude, "
                        "or remove the requirement")


@cached(maxsize=4096)
def _key_problem(key: str, *, overlay: bool, prop: str) -> KarpenterGpuError | None:
    """Why the CRD refuses ``key``, None when it accepts it (a verdict on the text alone: the same keys recur in
    every pool, so each is judged once)."""
    try:
        (check_overlay_key if overlay else check_label_key)(key, prop)
    except KarpenterGpuError as error:
        return error
    return None


def _kg410_message(key: str, where: str, error: KarpenterGpuError, kind: str) -> str:
    if key == _INSTANCE_PODS:
        return (f"{where} {key} appears in the Karpenter well-known label docs, but Karpenter never sets it and "
                f"the {KARPENTER_TAG} {kind} CRD allow-list rejects it, so the apply fails; fix: drop it and cap pods "
                "per node with EC2NodeClass spec.kubelet.maxPods (or select instance sizes)")
    return (f"{where} {key!r} is rejected by the {KARPENTER_TAG} {kind} CRD (allowed: {error.allowed}), so the apply "
            f"(kubectl, Argo CD, Flux) fails for the whole object; fix: {error.fix}")


@rule("KG410", Severity.ERROR, "requirement key or template label outside the Karpenter allow-lists")
def kg410_keys(env: RuleEnvironment) -> None:
    """What it checks: requirement keys and template labels against the allow-lists of the NodePool and
    NodeOverlay CRDs (restricted domains, ``karpenter.k8s.aws/instance-pods``).

    Why it matters: the API server refuses the whole object, so the apply (kubectl, Argo CD, Flux) fails.

    Fix: drop the key, or use a key of your own domain; the message names the allowed forms.

    Upstream: kubernetes-sigs/karpenter v1.14.1 ``pkg/apis/v1/labels.go`` (``RestrictedLabelDomains``,
    ``WellKnownLabels``) and the CEL rules of ``pkg/apis/crds/karpenter.sh_nodepools.yaml``.
    """
    for obj, reqs, overlay in _selections(env):
        for r in reqs:
            error = _key_problem(r.key, overlay=overlay, prop="requirements")
            if error is not None:
                obj.add("KG410", r.path, _kg410_message(r.key, "requirement key", error, obj.kind))
        if isinstance(obj, Pool):
            for key in obj.labels:
                error = _key_problem(str(key), overlay=False, prop="labels")
                if error is not None:
                    obj.add("KG410", f"{obj.LABELS}[{key}]",
                            _kg410_message(str(key), "template label", error, obj.kind))


@rule("KG422", Severity.ERROR, "custom-label requirement Karpenter cannot pick a value from (it panics)")
def kg422_label_panic(env: RuleEnvironment) -> None:
    """What it checks: a NodePool requirement on a label that is not well known (one of your own) whose bounds leave
    ``Requirement.Any`` no value to pick: ``Lt 0`` or below, ``Gt -2`` or below, ``Gt`` near the int64 maximum.

    Why it matters: when Karpenter creates a NodeClaim of the pool it labels the node with a value of each such
    requirement (``Requirement.Any``: ``rand.Intn(max-min) + min``, from 0 without a lower bound, in wrapping int64
    arithmetic), and ``rand.Intn`` panics on a range that is not positive. The API server accepts the NodePool;
    every NodeClaim of it then fails as it is created, so the pods the scheduler sends there stay Pending.

    Fix: give the label a range that holds a non-negative integer (``Gt 0``, ``Lt 10``), name values with ``In``, or
    drop the requirement.

    Upstream: kubernetes-sigs/karpenter v1.14.1 ``pkg/controllers/provisioning/scheduling/nodeclaimtemplate.go``
    ``resolveCustomLabelsFromRequirements`` and ``pkg/scheduling/requirement.go`` ``Requirement.Any``.
    """
    for pool in env.pools:
        panic = pool.view.label_panic
        if panic is None:
            continue
        key, text = panic
        written = [r for r in pool.reqs if r.key == key]
        path = written[0].path if written else pool.REQS
        shown = "; ".join(f"{r.key} {r.op} {r.values}" for r in written) or text
        pool.add("KG422", path,
                 f"requirement {shown} leaves Karpenter no value to label nodes with: Requirement.Any panics "
                 "(rand.Intn: invalid argument) when it creates each NodeClaim of this pool, so the pods it schedules "
                 "here stay Pending (the API server accepts it); allowed: Gt -1 or more, Lt 1 or more (above any Gt), "
                 "or values with In; fix: use e.g. Gt 0 or Lt 10, or drop the requirement")
