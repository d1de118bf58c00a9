"""NodeOverlays: overlays Karpenter refuses for a conflict with another of the same weight (KG460)."""

from __future__ import annotations

from karpenter_gpu.check.findings import Severity
from karpenter_gpu.check.rules._model import Environment
from karpenter_gpu.check.rules._registry import rule
from karpenter_gpu.k8s.labels import OVERLAY_KIND


@rule("KG460", Severity.WARNING, "NodeOverlay dropped for a conflict with another overlay of the same weight")
def kg460_overlay_conflict(env: Environment) -> None:
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
