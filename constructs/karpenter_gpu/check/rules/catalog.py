"""Catalog: what the embedded instance catalog says a pool can launch and a pod can fit (KG418, KG419, KG421)."""

from __future__ import annotations

from karpenter_gpu.analysis.notes import NodeClassRefusesAll, NoteKind
from karpenter_gpu.analysis.pod_fit import fit_reports
from karpenter_gpu.apiserver.findings import Severity
from karpenter_gpu.check.rules._model import RuleEnvironment
from karpenter_gpu.check.rules._registry import rule
from karpenter_gpu.errors import KarpenterGpuError

#: KG418 threshold: with fewer candidates a spot or zone shortage leaves pods Pending
#: ("no instance type met the scheduling requirements or had a required offering").
MIN_CANDIDATES = 3


@rule("KG418", Severity.WARNING, "dynamic GPU pool admitting fewer than 3 instance types of the catalog")
def kg418_few_candidates(env: RuleEnvironment) -> None:
    """What it checks: a dynamic GPU NodePool that can launch fewer than 3 instance types of the catalog (after
    its requirements, limits and offerings).

    Why it matters: one shortage of that type in the declared zones or capacity types leaves pods Pending.

    Fix: widen GPU names or sizes, or acknowledge when the pool is meant to be this narrow.

    Upstream: kubernetes-sigs/karpenter v1.14.1 ``pkg/controllers/provisioning/scheduling/nodeclaim.go``
    (``InstanceTypeOptions`` filtered by requirements and offerings).
    """
    for pool in env.pools:
        report = env.report(pool)
        if (report is None or not pool.dynamic_gpu or not report.candidates or not report.launchable
                or len(report.candidates) >= MIN_CANDIDATES):
            continue
        pool.add("KG418", pool.REQS, f"only {len(report.candidates)} instance type(s) qualify "
                                     f"({', '.join(report.candidate_names)}); one shortage of that type in the "
                                     "declared zones leaves pods Pending; fix: widen GPU names or sizes, or "
                                     "acknowledge when the pool is meant to be this narrow")


@rule("KG419", Severity.ERROR, "pool that can launch no instance type of the catalog")
def kg419_launches_nothing(env: RuleEnvironment) -> None:
    """What it checks: a GPU NodePool for which the simulator finds no launchable instance type of the catalog
    (requirements, offerings, limits, node class). Each pool is judged on its own report, also when another pool
    of the folder has the same name.

    Why it matters: pods for it stay Pending with "no instance type met the scheduling requirements or had a
    required offering".

    Fix: describe instances by properties (GPU count, memory) instead of listing them; the message says what
    excluded every type (for a static pool with the ``staticCapacity`` gate off: turn the gate on; for a node class
    with a block device mapping without ``deviceName`` or ``ebs``, which launches nothing whatever the type: complete
    or remove the mapping).

    Upstream: kubernetes-sigs/karpenter v1.14.1 ``pkg/controllers/provisioning/scheduling/scheduler.go``
    (``Solve``: no instance type) and ``pkg/scheduling/requirements.go`` ``Intersects``.
    """
    for pool in env.pools:
        report = env.report(pool)
        if report is None or not pool.is_gpu or (report.candidates and report.launchable):
            continue
        why = "; ".join(p.text for p in report.problems) or "no instance type of the catalog matches every requirement"
        broken = next((p for p in report.problems if isinstance(p, NodeClassRefusesAll) and p.launches_nothing),
                      None)
        if any(p.kind is NoteKind.STATIC_CAPACITY_OFF for p in report.problems):
            fix = ("turn on settings.featureGates.staticCapacity in the Karpenter values (no static controller runs "
                   "without it)")
        elif broken is not None:
            fix = (f"give every spec.blockDeviceMappings entry of EC2NodeClass {broken.node_class} both a deviceName "
                   "and an ebs volume, or remove the entry (KG473); no requirement of the pool changes this")
        else:
            fix = "describe instances by properties (GPU count, memory) instead of listing them"
        pool.add("KG419", pool.REQS, f"this pool can launch nothing: {why}; pods stay Pending with 'no instance "
                                     f"type met the scheduling requirements or had a required offering'; fix: {fix}")


@rule("KG421", Severity.ERROR, "workload pod shape fits no instance type of the pool it targets")
def kg421_pod_fits_nothing(env: RuleEnvironment) -> None:
    """What it checks: a workload whose nodeSelector names a dynamic NodePool, where the pod's requests fit no
    instance type that pool can launch. The requests are every resource the pod asks for, as Karpenter sums them
    (containers, init containers and sidecars, the pod overhead, limits standing in for missing requests): GPUs,
    cpu, memory, ``vpc.amazonaws.com/efa`` (only types with EFA), ``ephemeral-storage`` (the node class's root
    volume, AL2023's 20Gi by default, or the NVMe total with ``instanceStorePolicy: RAID0``, less kube-reserved,
    system-reserved and the eviction threshold), huge pages and any extended resource (none on a type that does not
    advertise it), after DaemonSet overhead and kubelet reservations. Quiet where KG417 already says the pod cannot
    land there, and for a resource whose capacity is not modelled (``vpc.amazonaws.com/pod-eni``).

    Why it matters: Karpenter launches nothing for the pod and it stays Pending.

    Fix: ask for fewer resources or admit bigger instance types.

    Upstream: kubernetes-sigs/karpenter v1.14.1 ``pkg/controllers/provisioning/scheduling/nodeclaim.go``
    (``filterInstanceTypesByRequirements``: ``resources.Fits``), ``pkg/utils/resources`` (``RequestsForPods``);
    aws/karpenter-provider-aws v1.14.1 ``pkg/providers/instancetype/types.go`` (``computeCapacity``).
    """
    if not env.simulated:
        return
    for workload in env.workloads:
        target = workload.target
        report = env.report_named(target) if target is not None else None
        if report is None or workload.has("KG417") or report.kind == "static":
            continue  # no pool, no selector, or it cannot land there at all (KG417 says why)
        try:
            shape = workload.shape()
        except KarpenterGpuError:
            continue  # a request that cannot be read: the schema says so
        fit = next(iter(fit_reports(shape, [report])), None)
        if fit is not None and fit.instance is None and not fit.unmodelled:
            workload.add("KG421", workload.pod_path, f"the pod cannot run on NodePool {target}: {fit.reason}; "
                                                     "fix: ask for fewer resources or admit bigger instance types")
