"""NodeOverlays: overlays Karpenter refuses for a conflict with another of the same weight (KG460) or at run time
(KG464)."""

from __future__ import annotations

from karpenter_gpu.apiserver.findings import Severity
from karpenter_gpu.check.rules._model import RuleEnvironment
from karpenter_gpu.check.rules._registry import rule
from karpenter_gpu.k8s.labels import OVERLAY_KIND
from karpenter_gpu.k8s.overlay_resolution import overlay_refusal_at
from karpenter_gpu.k8s.views import OverlayView


@rule("KG460", Severity.WARNING, "NodeOverlay dropped for a conflict with another overlay of the same weight")
def kg460_overlay_conflict(env: RuleEnvironment) -> None:
    """What it checks: NodeOverlays that price the same offering or set the same capacity resource of the same
    instance type in the same pool as another overlay of equal weight, as the overlay core that explain and the
    simulator use resolves them (of equal weights, the one ``OrderByWeight`` puts first is kept: names descending).

    Why it matters: Karpenter validates each overlay against the ones already stored and drops a conflicting one
    whole: its price or capacity never applies (its status condition says ValidationSucceeded False), so pods that
    need its capacity stay Pending or the pool is priced otherwise than written.

    Fix: give the overlays different weights (the higher one wins), or make their requirements disjoint.

    Upstream: kubernetes-sigs/karpenter v1.14.1 ``pkg/controllers/nodeoverlay/controller.go``
    ``validateAndUpdateInstanceTypeOverrides``.
    """
    dropped: dict[str, str] = {}
    for pool in env.pools:
        report = env.report(pool)
        if report is not None:
            dropped.update(report.dropped_overlays)
    for obj in env.of_kind(OVERLAY_KIND):
        why = dropped.get(obj.name)
        if why is not None:
            obj.add("KG460", "spec.weight",
                    f"Karpenter drops this NodeOverlay: it {why}; none of its price or capacity applies, so pods "
                    "that need its capacity stay Pending or the pool is priced otherwise than written; fix: give the "
                    "overlays different weights (the higher one wins) or make their requirements disjoint")


@rule("KG464", Severity.ERROR, "NodeOverlay Karpenter's runtime validation refuses, so it never applies")
def kg464_overlay_runtime_refusal(env: RuleEnvironment) -> None:
    """What it checks: NodeOverlays the CRD admits but Karpenter's runtime validation refuses: a
    ``karpenter.sh/capacity-type In`` requirement with no known value (on-demand, spot, reserved), or a capacity
    resource the provider reports itself (``aws.amazon.com/neuron``, ``aws.amazon.com/neuroncore``,
    ``vpc.amazonaws.com/efa``, ``vpc.amazonaws.com/pod-eni``, ``habana.ai/gaudi``; the CRD refuses cpu, memory,
    ephemeral-storage and pods itself). The same check the overlay core applies (it never applies such an overlay).

    Why it matters: the API server stores the overlay, but Karpenter's overlay controller sets its
    ValidationSucceeded condition False (reason RuntimeValidation) and applies none of its price or capacity: pods
    that need the capacity it advertises stay Pending, or the pool is priced otherwise than written.

    Fix: name at least one of on-demand, spot or reserved in the capacity-type requirement; leave the resources the
    provider reports (Neuron devices and cores, EFA, pod ENIs) out of ``spec.capacity``.

    Upstream: kubernetes-sigs/karpenter v1.14.1 ``pkg/apis/v1alpha1/nodeoverlay_validation.go``
    ``NodeOverlay.RuntimeValidate`` (``validateRequirements``, ``validateCapacity``), called by
    ``pkg/controllers/nodeoverlay/controller.go`` ``Reconcile``.
    """
    for obj in env.of_kind(OVERLAY_KIND):
        view = OverlayView.of(obj.manifest)
        found = None if view.problem is not None else overlay_refusal_at(view)
        if found is not None:
            field, why = found
            fix = ("name on-demand, spot or reserved in the capacity-type requirement" if field == "spec.requirements"
                   else "leave the resources the provider reports out of spec.capacity")
            obj.add("KG464", field,
                    f"Karpenter's runtime validation refuses this NodeOverlay: {why}; it is stored but never applied "
                    f"(ValidationSucceeded False, RuntimeValidation), so none of its price or capacity counts; fix: {fix}")
