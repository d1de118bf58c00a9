"""``karpenter-gpu plan``: the pods of workload manifests scheduled as one batch, as plain data and as text.

Per environment, :func:`plan_environment` reads the pools once (``simulate_pools``), schedules the workloads' pods
(k8s/workloads.py, after defaulting and EKS admission) with :func:`~karpenter_gpu.analysis.batch.schedule_batch`
(Karpenter v1.14.1's provisioning ``Scheduler.Solve``, the DaemonSets of the workloads and the environment counted
per node) and gives:

- ``nodeclaims``: each new NodeClaim's pool, instance-type options, the ``instance_type`` launched, its
  ``capacity_type``, ``zone``, $/h and pods; ``existing``: the pods existing nodes (``--nodes``) take;
- ``pending``: each pod left Pending with Karpenter's reason;
- ``hourly``: the total, per pool and per namespace (a NodeClaim's $/h shared equally among its pods: Karpenter
  does not split a node's cost), with spot NodeClaims priced at the on-demand list price said so; a NodeClaim whose
  price a NodeOverlay set is billed at the price without it (``ranked_at``: the overlay's price, which Karpenter
  ranked the offerings by, and ``overlay`` its name);
- ``remaining``: what is left of each NodePool's limits after the existing nodes and the new NodeClaims;
- ``notes``: the controller settings line and the notes explain prints (defaults, AWS facts), the workloads' own
  (objects not read, settings not modelled) and, when the batch depends on inputs the core does not model,
  ``not_modelled`` with no NodeClaim, Pending pod or figure.

The text and markdown renderings escape every piece of manifest text for where it lands (:mod:`karpenter_gpu.render.escape`:
``plain`` in the table, ``markdown`` in table cells and list items); the markdown is cut to
:data:`~karpenter_gpu.analysis.explain.MAX_MARKDOWN` characters with a line saying so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

from karpenter_gpu.analysis.batch import BatchPlan, PlannedClaim, schedule_batch
from karpenter_gpu.analysis.catalog import Catalog
from karpenter_gpu.analysis.explain import MAX_MARKDOWN, MAX_NOTE, _defaults_notes, _facts_notes
from karpenter_gpu.analysis.notes import LabelPanic, amount_text
from karpenter_gpu.analysis.simulator import PoolReport, price_basis
from karpenter_gpu.k8s.aws_facts import AwsFacts
from karpenter_gpu.k8s.cluster_nodes import ClusterNode
from karpenter_gpu.k8s.controller_settings import ControllerSettings
from karpenter_gpu.k8s.workloads import Workloads
from karpenter_gpu.render import escape

__all__ = ["SPOT_AT_LIST", "plan_environment", "render_markdown", "render_text"]

#: How a spot NodeClaim priced at the on-demand list price is labelled (no spot price known for it).
SPOT_AT_LIST = "spot (at on-demand list price)"
_CENT = Decimal("0.0001")


def _money(value: Decimal | None) -> str:
    return "-" if value is None else f"${value:.2f}"


def _str(value: Decimal | None) -> str | None:
    return None if value is None else f"{value.normalize():f}"


def _capacity_label(claim: PlannedClaim, aws: AwsFacts | None) -> str | None:
    offering = claim.launch.offering if claim.launch is not None else None
    listed = offering.on_demand_stand_in if offering is not None and offering.overlay is None else \
        claim.instance_type is not None and (aws is None or claim.instance_type not in aws.spot_types)
    return SPOT_AT_LIST if claim.capacity_type == "spot" and listed else claim.capacity_type


def _billed(claim: PlannedClaim, catalog: Catalog, aws: AwsFacts | None) -> Decimal | None:
    """What the NodeClaim costs an hour: the launched offering's price, unless a NodeOverlay set the price Karpenter
    ranked it by; then the price without the overlay (the catalog's on-demand list price, the spot price ``--aws``
    gives for the type and zone, else the list price standing in; a reserved offering's is not known: None)."""
    offering = claim.launch.offering if claim.launch is not None else None
    if offering is None or offering.overlay is None or claim.instance_type is None:
        return claim.hourly
    listed = catalog.by_name.get(claim.instance_type)
    list_price = listed.price if listed is not None else None
    if claim.capacity_type == "spot" and aws is not None and claim.zone is not None:
        return aws.spot.get((claim.instance_type, claim.zone), list_price)
    return None if claim.capacity_type == "reserved" else list_price


def _sum(values: Sequence[Decimal | None]) -> Decimal | None:
    return None if any(v is None for v in values) else sum((v for v in values if v is not None), Decimal(0))


def _per_namespace(plan: BatchPlan, billed: Sequence[Decimal | None]) -> dict[str, str | None]:
    shares: dict[str, Decimal | None] = {}
    for claim, price in zip(plan.nodeclaims, billed):
        for pod in claim.pods:
            namespace = pod.split("/", 1)[0]
            have = shares.get(namespace, Decimal(0))
            shares[namespace] = None if have is None or price is None else have + price / len(claim.pods)
    return {ns: _str(None if v is None else v.quantize(_CENT)) for ns, v in sorted(shares.items())}


def plan_environment(name: str, manifests: Sequence[dict], workloads: Workloads, catalog: Catalog, *,
                     nodes: Sequence[ClusterNode] = (), aws: AwsFacts | None = None,
                     settings: ControllerSettings | None = None) -> dict[str, Any]:
    """The plan of one environment as plain data (the JSON format; see the module doc)."""
    settings = settings if settings is not None else ControllerSettings()
    plan = schedule_batch([*manifests, *workloads.daemonsets], workloads.pod_objects, catalog=catalog, aws=aws,
                          nodes=nodes, settings=settings)
    reports = list(plan.pools)  # the pools as the batch simulated them: one simulation for the plan and its notes
    basis = reports[0].price_basis if reports else price_basis(catalog, aws)
    billed = [_billed(c, catalog, aws) for c in plan.nodeclaims]
    out: dict[str, Any] = {
        "environment": name, "prices": basis, "settings": settings.describe(), "pods": len(workloads.pods),
        "notes": [settings.describe(), *_defaults_notes(settings, reports), *settings.notes, *settings.unmodelled(),
                  *_facts_notes(basis, aws), *workloads.notes, *_panic_notes(plan, reports)],
        "not_modelled": list(plan.not_modelled),
        "nodeclaims": [{"pool": c.pool, "options": list(c.options), "instance_type": c.instance_type,
                        "capacity_type": c.capacity_type, "price_label": _capacity_label(c, aws), "zone": c.zone,
                        "hourly": _str(price), "ranked_at": _str(c.hourly) if price != c.hourly else None,
                        "overlay": c.launch.offering.overlay if c.launch is not None else None, "pods": list(c.pods),
                        # what else may launch: the NodeClaim's DaemonSet requests follow a Go map's order
                        "or_launches": [{"instance_type": o.instance, "capacity_type": o.capacity_type,
                                         "zone": o.offering.offering.zone, "hourly": _str(o.price)}
                                        for o in c.alternatives]}
                       for c, price in zip(plan.nodeclaims, billed)],
        "existing": [{"node": e.node, "pool": e.pool, "pods": list(e.pods)} for e in plan.existing],
        "pending": [{"pod": p.pod, "reason": p.reason} for p in plan.pending],
        "remaining": {pool: {k: _str(v) for k, v in sorted(left.items())} for pool, left in sorted(plan.remaining.items())},
    }
    pools = sorted({c.pool for c in plan.nodeclaims})
    out["hourly"] = None if plan.not_modelled else {
        "total": _str(_sum(billed)),
        "per_pool": {pool: _str(_sum([p for c, p in zip(plan.nodeclaims, billed) if c.pool == pool])) for pool in pools},
        "per_namespace": _per_namespace(plan, billed),
    }
    return out


def _panic_notes(plan: BatchPlan, reports: Sequence[PoolReport]) -> list[str]:
    """The pools of planned NodeClaims that Karpenter panics creating (KG422: ``NodePoolView.label_panic``)."""
    planned = {c.pool for c in plan.nodeclaims}
    return [f"{LabelPanic(*r.view.label_panic).text} (pool {r.name}: its {sum(c.pool == r.name for c in plan.nodeclaims)}"
            " NodeClaim(s) above never launch, and their $/h is not spent)"
            for r in reports if r.name in planned and r.view is not None and r.view.label_panic is not None]


def _hourly_lines(env: dict, bullet: str, esc: Callable[..., str]) -> list[str]:
    hourly = env["hourly"]
    if hourly is None:
        return [f"{bullet}$/h: not known (the plan depends on inputs not modelled, below)"]

    def parts(values: dict[str, str | None]) -> str:
        return ", ".join(f"{esc(k)} {_money(None if v is None else Decimal(v))}" for k, v in values.items()) or "-"

    spot = any(c["price_label"] == SPOT_AT_LIST for c in env["nodeclaims"])
    total = _money(None if hourly["total"] is None else Decimal(hourly["total"]))
    return [f"{bullet}$/h: {total} for {len(env['nodeclaims'])} new NodeClaim(s)"
            + (" (spot NodeClaims at the on-demand list price)" if spot else ""),
            f"{bullet}$/h per pool: {parts(hourly['per_pool'])}",
            f"{bullet}$/h per namespace: {parts(hourly['per_namespace'])} (a NodeClaim's $/h shared equally among "
            "its pods)"]


def _claim_cells(c: dict) -> list[str]:
    options = c["options"]
    shown = ", ".join(options[:3]) + (f" +{len(options) - 3}" if len(options) > 3 else "")
    price = _money(None if c["hourly"] is None else Decimal(c["hourly"]))
    if c["overlay"]:
        price += f" (ranked at {_money(None if c['ranked_at'] is None else Decimal(c['ranked_at']))} by NodeOverlay " \
                 f"{c['overlay']})"
    return [c["pool"], c["instance_type"] or "-", c["price_label"] or "-", c["zone"] or "-", price,
            f"{len(c['pods'])}: {', '.join(c['pods'])}", f"{len(options)}: {shown}"]


CLAIM_HEADER = ["pool", "instance type", "capacity", "zone", "$/h", "pods", "options"]
PENDING_HEADER = ["pending pod", "reason"]


def _details(env: dict, *, markdown: bool) -> list[str]:
    bullet = "- " if markdown else "  "
    esc = escape.markdown if markdown else escape.plain
    lines = [f"{bullet}pods: {env['pods']} planned, where is not known (the plan depends on inputs not modelled, "
             "below)" if env["not_modelled"] else
             f"{bullet}pods: {env['pods']} planned, {sum(len(c['pods']) for c in env['nodeclaims'])} on "
             f"{len(env['nodeclaims'])} new NodeClaim(s), {sum(len(e['pods']) for e in env['existing'])} on existing "
             f"nodes, {len(env['pending'])} Pending"]
    lines.extend(f"{bullet}existing node {esc(e['node'])} ({esc(e['pool'] or 'no NodePool')}) takes "
                 f"{esc(', '.join(e['pods']), MAX_NOTE)}" for e in env["existing"])
    lines.extend(_hourly_lines(env, bullet, esc))
    lines.extend(f"{bullet}a {esc(c['pool'])} NodeClaim priced as {esc(c['instance_type'] or '-')} may launch "
                 + " or ".join(f"{esc(o['instance_type'])} ({_money(None if o['hourly'] is None else Decimal(o['hourly']))})"
                               for o in c["or_launches"])
                 + " instead: its options run different DaemonSets, and the DaemonSet requests Karpenter adds to the "
                   "NodeClaim follow the order of a Go map (addDaemonRequests)"
                 for c in env["nodeclaims"] if c["or_launches"])
    for pool, left in env["remaining"].items():
        text = ", ".join(f"{k} {amount_text(k, Decimal(v))}" for k, v in left.items() if v is not None)
        lines.append(f"{bullet}left of {esc(pool)}'s limits: {esc(text) or '-'}")
    lines.extend(f"{bullet}note: {esc(n, MAX_NOTE)}" for n in env["notes"])
    lines.extend(f"{bullet}not modelled: {esc(n, MAX_NOTE)}" for n in env["not_modelled"])
    return lines


def _table(header: list[str], rows: list[list[str]], *, markdown: bool) -> list[str]:
    if markdown:
        return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
                *("| " + " | ".join(escape.markdown(c) for c in r) + " |" for r in rows)]
    cells = [header, *([escape.plain(c) for c in r] for r in rows)]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]


def _environment(env: dict, *, markdown: bool) -> list[str]:
    out = [f"### {escape.markdown(env['environment'])}\n" if markdown else f"== {escape.plain(env['environment'])} =="]
    if env["nodeclaims"]:
        out.extend(_table(CLAIM_HEADER, [_claim_cells(c) for c in env["nodeclaims"]], markdown=markdown))
        out.append("")
    if env["pending"]:
        out.extend(_table(PENDING_HEADER, [[p["pod"], p["reason"]] for p in env["pending"]], markdown=markdown))
        out.append("")
    out.extend(_details(env, markdown=markdown))
    out.append("")
    return out


def render_text(envs: list[dict]) -> str:
    return "\n".join(line for env in envs for line in _environment(env, markdown=False))


def render_markdown(envs: list[dict]) -> str:
    """The plan for a pull-request comment, at most :data:`MAX_MARKDOWN` characters (a cut is said)."""
    lines = [line for env in envs for line in _environment(env, markdown=True)]
    return "\n".join(escape.fit_lines(lines, MAX_MARKDOWN, lambda n: f"\n… {n} more lines, see --format json"))
