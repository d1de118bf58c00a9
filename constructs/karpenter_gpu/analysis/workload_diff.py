"""``diff --workload``: what a manifest change does to the plan of the same workloads.

Each environment's plan (:func:`~karpenter_gpu.analysis.workload_plan.plan_environment`) is made on both sides of
the change, from the objects the API server admits on each side (a refused object changes nothing), under each
side's controller settings, with the same workloads, AWS facts and catalog. The comparison says which pods become
Pending (with Karpenter's reason) or are no longer Pending, which NodeClaims come and go (counted by pool, instance
type launched, capacity type and zone), and the $/h before and after. A side whose plan depends on inputs not
modelled gives no figure, and the comparison says so instead.
"""

from __future__ import annotations

import json
from collections import Counter
from decimal import Decimal
from typing import Any, Sequence

from karpenter_gpu.analysis.catalog import Catalog, default_catalog
from karpenter_gpu.analysis.diff.admission import Admitted
from karpenter_gpu.analysis.diff.cost import side_settings
from karpenter_gpu.analysis.workload_plan import plan_environment
from karpenter_gpu.k8s.aws_facts import AwsFacts
from karpenter_gpu.k8s.controller_settings import ControllerSettings
from karpenter_gpu.k8s.workloads import Workloads
from karpenter_gpu.render import escape

__all__ = ["MAX_SECTION", "compare_plans", "diff_sides", "render_lines", "with_workloads", "workload_diff"]

#: The workload section of a markdown diff stays within this many characters (the comment's own budget is diff's).
MAX_SECTION = 5_000


def _claims(plan: dict) -> Counter:
    return Counter((c["pool"], c["instance_type"] or "", c["capacity_type"] or "", c["zone"] or "")
                   for c in plan["nodeclaims"])


def compare_plans(environment: str, before: dict, after: dict) -> dict[str, Any]:
    """The difference of two plans of one environment (plain data; see the module doc)."""
    out: dict[str, Any] = {"environment": environment,
                           "not_modelled_before": before["not_modelled"], "not_modelled_after": after["not_modelled"]}
    if before["not_modelled"] or after["not_modelled"]:
        return out
    pending_before = {p["pod"]: p["reason"] for p in before["pending"]}
    pending_after = {p["pod"]: p["reason"] for p in after["pending"]}
    claims_before, claims_after = _claims(before), _claims(after)

    def counted(counter: Counter) -> list[dict]:
        return [{"pool": k[0], "instance_type": k[1] or None, "capacity_type": k[2] or None, "zone": k[3] or None,
                 "count": n}
                for k, n in sorted(counter.items())]

    out.update(
        newly_pending=[{"pod": p, "reason": r} for p, r in pending_after.items() if p not in pending_before],
        no_longer_pending=sorted(p for p in pending_before if p not in pending_after),
        nodeclaims_added=counted(claims_after - claims_before),
        nodeclaims_removed=counted(claims_before - claims_after),
        hourly_before=before["hourly"]["total"], hourly_after=after["hourly"]["total"])
    return out


def workload_diff(environments: Sequence[str], base: dict[str, list[dict]], head: dict[str, list[dict]],
                  settings: dict[str, tuple[ControllerSettings, ControllerSettings]], workloads: Workloads,
                  catalog: Catalog, aws: AwsFacts | None) -> list[dict[str, Any]]:
    """Per environment (``base``/``head``: its admitted manifests on each side, ``settings``: each side's), the
    comparison of the workloads' plans; environments where nothing changes are kept (they say so)."""
    out = []
    for env in environments:
        before = plan_environment(env, base.get(env, []), workloads, catalog, aws=aws, settings=settings[env][0])
        after = plan_environment(env, head.get(env, []), workloads, catalog, aws=aws, settings=settings[env][1])
        out.append(compare_plans(env, before, after))
    return out


def _money(value: str | None) -> str:
    return "-" if value is None else f"${Decimal(value):.2f}"


def render_lines(diffs: list[dict[str, Any]], *, markdown: bool) -> list[str]:
    """The workload section of diff's text or markdown output; manifest text escaped for where it lands."""
    esc = escape.markdown if markdown else escape.plain
    bullet = "- " if markdown else "  "
    lines = ["#### Workload plan" if markdown else "Workload plan:"]
    for d in diffs:
        env = esc(d["environment"])
        if d["not_modelled_before"] or d["not_modelled_after"]:
            gaps = sorted(set(d["not_modelled_before"]) | set(d["not_modelled_after"]))
            lines.append(f"{bullet}{env}: not known (not modelled: {esc(', '.join(gaps))})")
            continue
        change = d["newly_pending"] or d["no_longer_pending"] or d["nodeclaims_added"] or d["nodeclaims_removed"] \
            or d["hourly_before"] != d["hourly_after"]
        lines.append(f"{bullet}{env}: $/h {_money(d['hourly_before'])} -> {_money(d['hourly_after'])}"
                     + ("" if change else " (the plan does not change)"))
        lines.extend(f"{bullet}{env}: newly Pending {esc(p['pod'])}: {esc(p['reason'])}" for p in d["newly_pending"])
        lines.extend(f"{bullet}{env}: no longer Pending {esc(p)}" for p in d["no_longer_pending"])
        for sign, key in (("+", "nodeclaims_added"), ("-", "nodeclaims_removed")):
            lines.extend(f"{bullet}{env}: {sign}{c['count']} NodeClaim(s) {esc(c['pool'])} "
                         f"{esc(c['instance_type'] or '-')} {esc(c['capacity_type'] or '-')} {esc(c['zone'] or '-')}"
                         for c in d[key])
    if markdown:
        return escape.fit_lines(lines, MAX_SECTION, lambda n: f"… {n} more lines, see --format json")
    return lines


def diff_sides(admitted: Admitted, workloads: Workloads, catalog: Catalog | None, aws: AwsFacts | None,
               fallback: ControllerSettings | None) -> list[dict[str, Any]]:
    """:func:`workload_diff` of both admitted sides of a diff (``fallback``: ``--karpenter-values``)."""
    base, head = admitted.base, admitted.head
    environments = sorted(set(base) | set(head))

    def objects(side: dict, env: str) -> list[dict]:
        return [m for (api, _, _), m in side.get(env, {}).items() if api != "helm"]

    settings = {env: (side_settings(env, base.get(env, {}), fallback), side_settings(env, head.get(env, {}), fallback))
                for env in environments}
    return workload_diff(environments, {env: objects(base, env) for env in environments},
                         {env: objects(head, env) for env in environments}, settings, workloads,
                         catalog if catalog is not None else default_catalog(), aws)


def with_workloads(text: str, fmt: str, diffs: list[dict[str, Any]]) -> str:
    """diff's output with the workload section: a ``workloads`` key in the JSON, else lines after the report."""
    if fmt == "json":
        document = json.loads(text)
        document["workloads"] = diffs
        return json.dumps(document, indent=2) + "\n"
    return text + "\n" + "\n".join(render_lines(diffs, markdown=fmt == "markdown")) + "\n"
