"""EKS Auto Mode: pools and NodeClasses of AWS's managed Karpenter, and keys of the other flavour
(KG440-KG444)."""

from __future__ import annotations

from karpenter_gpu.apiserver.findings import Severity
from karpenter_gpu.check.rules._model import RuleEnvironment, requirements
from karpenter_gpu.check.rules._registry import rule
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.auto_mode import (
    AUTO_MODE_MAX_EXPIRY, beyond_auto_mode_lifetime, check_node_class_spec, wrong_flavour_key,
)
from karpenter_gpu.k8s.labels import AUTO_MODE_NODE_CLASS_KIND, OVERLAY_KIND, Label
from karpenter_gpu.k8s.units import Duration


@rule("KG440", Severity.WARNING,
      "EKS Auto Mode pool with expireAfter above 21 days or Never (Auto Mode replaces nodes at 21 days)")
def kg440_auto_mode_expiry(env: RuleEnvironment) -> None:
    """What it checks: an EKS Auto Mode NodePool (nodeClassRef to an eks.amazonaws.com NodeClass) whose
    ``expireAfter`` is Never or above 21 days (the same predicate the pool constructs refuse as KG205).

    Why it matters: Auto Mode terminates its nodes after at most 21 days whatever the NodePool says, so nodes go
    earlier than written and jobs longer than that are cut.

    Fix: set expireAfter to at most 21 days (e.g. 336h) and plan checkpoints and terminationGracePeriod around it,
    or run such jobs on a self-managed Karpenter pool.

    Upstream: EKS user guide, https://docs.aws.amazon.com/eks/latest/userguide/automode.html ("a maximum lifetime
    of 21 days") and auto-security.html.
    """
    for pool in env.pools:
        raw = pool.tspec.get("expireAfter")
        if not pool.view.auto_mode or not isinstance(raw, str):
            continue
        try:
            expiry = Duration.parse(raw)
        except KarpenterGpuError:
            continue  # the CRD pattern says why
        if beyond_auto_mode_lifetime(expiry):
            pool.add("KG440", "spec.template.spec.expireAfter",
                     f"expireAfter {raw} on an EKS Auto Mode pool: Auto Mode terminates its nodes after at most 21 "
                     "days whatever the NodePool says, so the pool's nodes go earlier than written and jobs longer "
                     f"than that are cut; fix: set expireAfter to at most {AUTO_MODE_MAX_EXPIRY} (e.g. 336h) and plan "
                     "checkpoints and terminationGracePeriod around it, or run such jobs on a self-managed Karpenter "
                     "pool")


def _report_wrong_keys(env: RuleEnvironment, code: str, *, auto_mode: bool, why: str, otherwise: str) -> None:
    """Report ``code`` on every key of the other flavour on the pools of this flavour
    (:func:`~karpenter_gpu.k8s.auto_mode.wrong_flavour_key`): "<key> <why>; fix: use <replacement>", or
    ``otherwise`` when the key has no replacement."""
    for pool in env.pools:
        if bool(pool.view.auto_mode) != auto_mode:
            continue
        for r in pool.selection:
            wrong = wrong_flavour_key(r.key, auto_mode=auto_mode, requirement=r.path.startswith(pool.REQS))
            if wrong is not None:
                pool.add(code, r.path, f"{r.key} {why}; fix: "
                                       + (f"use {wrong.replacement}" if wrong.replacement else otherwise))


@rule("KG441", Severity.WARNING,
      "karpenter.k8s.aws key on an EKS Auto Mode pool (Auto Mode documents eks.amazonaws.com keys)")
def kg441_karpenter_keys(env: RuleEnvironment) -> None:
    """What it checks: a ``karpenter.k8s.aws/`` requirement or template label on an EKS Auto Mode NodePool (the
    same predicate the pool constructs refuse as KG206).

    Why it matters: "EKS Auto Mode uses different labels than Karpenter": its instance labels are
    eks.amazonaws.com/…, so nothing documents what the requirement selects there, and pods selecting it look for a
    label Auto Mode does not document on its nodes.

    Fix: use the eks.amazonaws.com key of the same attribute, or drop it when there is none.

    Upstream: https://docs.aws.amazon.com/eks/latest/userguide/auto-migrate-karpenter.html and the supported list
    of https://docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html.
    """
    _report_wrong_keys(env, "KG441", auto_mode=True, otherwise="drop it (Auto Mode documents no equivalent)",
                       why="on an EKS Auto Mode pool (nodeClassRef eks.amazonaws.com NodeClass): \"EKS Auto Mode "
                           "uses different labels than Karpenter\" — its instance labels are eks.amazonaws.com/… and "
                           "its supported list has no karpenter.k8s.aws key, so nothing documents what this "
                           "requirement selects there, and pods selecting it look for a label Auto Mode does not "
                           "document on its nodes")


@rule("KG442", Severity.WARNING,
      "eks.amazonaws.com key on an EC2NodeClass pool (self-managed Karpenter does not know it)")
def kg442_auto_mode_keys(env: RuleEnvironment) -> None:
    """What it checks: an EKS Auto Mode key (eks.amazonaws.com instance keys, compute-type, or any
    eks.amazonaws.com requirement) on a self-managed Karpenter NodePool (the same predicate the pool constructs
    refuse as KG206).

    Why it matters: Karpenter neither sets nor models these keys, so the requirement restricts nothing it can see
    and a single ``In`` value becomes a label on every node, true or not.

    Fix: use the karpenter.k8s.aws key of the same attribute, drop it, or point the pool at an eks.amazonaws.com
    NodeClass.

    Upstream: kubernetes-sigs/karpenter v1.14.1 ``pkg/scheduling/requirements.go`` ``Intersects`` (only keys both
    sides define) and ``Requirements.Labels``.
    """
    _report_wrong_keys(env, "KG442", auto_mode=False,
                       otherwise="drop it, or point the pool at an eks.amazonaws.com NodeClass",
                       why="on a self-managed Karpenter pool: it is an EKS Auto Mode label that Karpenter neither "
                           "sets nor uses to pick instance types, so the requirement restricts nothing and may stamp "
                           "a wrong label on every node (explain models it as on Auto Mode)")


@rule("KG443", Severity.WARNING,
      "EKS Auto Mode NodeClass field or value outside the EKS documentation (no public CRD)")
def kg443_auto_mode_node_class(env: RuleEnvironment) -> None:
    """What it checks: an eks.amazonaws.com/v1 NodeClass against the fields, enums and ranges the EKS user guide
    documents (the same table the AutoModeNodeClass construct enforces).

    Why it matters: EKS publishes no CRD for it, so a field carried over from an EC2NodeClass (amiSelectorTerms,
    userData, kubelet…) or a value out of range is not what Auto Mode runs.

    Fix: follow the guide's Node Class Specification.

    Upstream: https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html.
    """
    for obj in env.of_kind(AUTO_MODE_NODE_CLASS_KIND):
        for path, problem in check_node_class_spec(obj.manifest.get("spec")):
            obj.add("KG443", path, f"{problem}; EKS publishes no CRD for eks.amazonaws.com/v1 NodeClass, so this is "
                                   "checked against the EKS user guide (https://docs.aws.amazon.com/eks/latest/"
                                   "userguide/create-node-class.html); fix: follow the guide's Node Class "
                                   "Specification")


@rule("KG444", Severity.WARNING,
      "NodeOverlay naming an EKS Auto Mode pool (NodeOverlay is not available on Auto Mode)")
def kg444_overlay_on_auto_mode(env: RuleEnvironment) -> None:
    """What it checks: a NodeOverlay whose ``karpenter.sh/nodepool In`` requirement names EKS Auto Mode pools.

    Why it matters: AWS's Karpenter on Auto Mode reads no NodeOverlay, so the capacity or price it states never
    reaches those pools and pods that need it (time-sliced or MIG resources) stay Pending.

    Fix: serve those pods from a self-managed Karpenter pool (EC2NodeClass), or drop the Auto Mode pools from the
    overlay.

    Upstream: aws/containers-roadmap#2690 (NodeOverlay on Auto Mode, open).
    """
    auto = {p.name for p in env.pools if p.view.auto_mode}
    for obj in env.of_kind(OVERLAY_KIND):
        for r in requirements(obj.spec.get("requirements"), "spec.requirements"):
            if r.key != Label.NODEPOOL or r.op != "In" or not r.values:
                continue
            named = sorted(auto & set(r.values))
            if named:
                obj.add("KG444", r.path,
                        f"NodeOverlay names EKS Auto Mode pool(s) {', '.join(named)}: NodeOverlay is not available on "
                        "Auto Mode (aws/containers-roadmap#2690), so Karpenter there never sees this capacity or price "
                        "and pods that need it (time-sliced or MIG resources) stay Pending; fix: serve those pods from "
                        "a self-managed Karpenter pool (EC2NodeClass), or drop the Auto Mode pools from the overlay")
