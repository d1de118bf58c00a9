"""``karpenter-gpu explain``: what each NodePool admits, costs and blocks, before anything is applied.

Per environment: a table of pools (kind, weight, capacity types, candidate instance types, GPU types,
$/h range, worst-case $/h at the GPU limit, feature gates needed), the disruption windows in local time
and UTC, an optional pod-fit answer, and a weekly SVG timeline of blocked disruption. Formats: text
table, markdown (pull-request comments, with the SVG written beside it) and JSON (stable, for machines).

Every piece of text in the table and markdown renderings that came from the manifests (environment, pool and
instance names, GPU names and locations, notes built from labels and annotations, window text, overlay names,
the pod shape) goes through :mod:`karpenter_gpu.render.escape`: ``plain`` in the table, ``markdown`` in the
report, so it stays literal text and a table cell stays one cell. The report is cut to :data:`MAX_MARKDOWN`
characters with a line saying how much was left out (the JSON keeps everything, as data).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any
from urllib.parse import quote

from karpenter_gpu.analysis.budget_report import READINESS_NOTE, budget_lines, pool_budgets, pool_node_count
from karpenter_gpu.analysis.catalog import Catalog
from karpenter_gpu.k8s.aws_facts import AwsFacts
from karpenter_gpu.analysis.hybrid import HYBRID_KIND, hybrid_fits, node_shape
from karpenter_gpu.analysis.notes import NoteKind, OverlaysIgnored, amount_text
from karpenter_gpu.analysis.pod_fit import first_choice, pod_fit, unmodelled
from karpenter_gpu.analysis.pod_shape import PodShape
from karpenter_gpu.analysis.region import region_warnings
from karpenter_gpu.analysis.simulator import PoolReport, price_basis, simulate_pools
from karpenter_gpu.k8s.cluster_nodes import ClusterNode
from karpenter_gpu.k8s.controller_settings import CHART_DEFAULTS, ControllerSettings
from karpenter_gpu.k8s.views import NodePoolView, hybrid_groups, node_pools
from karpenter_gpu.k8s.windows import window_notes, window_zone
from karpenter_gpu.render import escape
from karpenter_gpu.upstream import KARPENTER_VALUES_FILE, FeatureGate

ZONE_NOTE = "zones are as declared: the catalog does not know which zones offer an instance type"
#: Longest markdown report: GitHub refuses a pull-request comment over 65,536 characters.
MAX_MARKDOWN = 60_000
#: Longest note or reason shown in full (they quote manifest text: labels, annotations, overlay names).
MAX_NOTE = 4 * escape.MAX_VALUE


def _money(value: Decimal | None) -> str:
    return "-" if value is None else f"${value:.2f}"


def _gates(view: NodePoolView, report: PoolReport) -> list[str]:
    """Controller feature gates this pool relies on (the Karpenter values file turns them on). None on EKS Auto Mode:
    AWS runs that controller, and the pool's features need no gate there."""
    if view.auto_mode:
        return []
    gates = []
    if "reserved" in report.capacity_types:
        gates.append(FeatureGate.RESERVED_CAPACITY.value)
    if view.static:
        gates.append(FeatureGate.STATIC_CAPACITY.value)
    if any(c.overlays for c in report.candidates):  # an overlay changes what Karpenter sees of its candidates
        gates.append(FeatureGate.NODE_OVERLAY.value)
    return gates


def _windows(view: NodePoolView) -> list[dict]:
    local = window_notes(view.annotations)
    out = []
    for i, budget in enumerate(view.budgets):
        if "schedule" in budget:
            out.append({"nodes": str(budget.get("nodes")), "utc": f"{budget['schedule']} for {budget.get('duration')}",
                        "reasons": list(budget.get("reasons") or []), "local": local.get(i, "")})
    return out


def _zone(pools: list[NodePoolView]) -> str:
    for pool in pools:
        for window in _windows(pool):
            zone = window_zone(window["local"])
            if zone:
                return zone
    return "UTC"


def _facts_notes(basis: str, aws: AwsFacts | None) -> list[str]:
    """What the zones and $/h figures rest on: the catalog alone, or AWS facts (``--aws``) for some of it."""
    offerings = aws.sources.get("offerings") if aws is not None else None
    zone_note = (f"zones: a type is an option only in the zones {', '.join(offerings)} offers it in"
                 if offerings else ZONE_NOTE)
    stand_in = [kind for kind, known in (("spot", aws is not None and bool(aws.sources.get("spot"))),
                                          ("reserved", aws is not None and aws.knows_reservations)) if not known]
    if aws is None:
        return [zone_note, f"$/h figures are {basis}s (spot and reserved shown at it)"]
    shown = f" ({' and '.join(stand_in)} shown at the on-demand list price)" if stand_in else ""
    return [zone_note, f"$/h figures: {basis}{shown}"]


def _defaults_notes(settings: ControllerSettings, reports: list[PoolReport]) -> list[str]:
    """With no values file read (the chart's defaults stand in): what those defaults switch off that these manifests
    rely on, and how to give the controller's own values. Nothing when a values file was read."""
    if settings.source != CHART_DEFAULTS:
        return []
    overlays = sorted({name for r in reports for n in r.notes if isinstance(n, OverlaysIgnored) for name in n.overlays})
    static = sorted({r.name for r in reports if any(p.kind is NoteKind.STATIC_CAPACITY_OFF for p in r.problems)})
    off = []
    if overlays:
        many = len(overlays) > 1
        off.append(f"featureGates.nodeOverlay off, so NodeOverlay{'s' if many else ''} {', '.join(overlays)} "
                   f"{'are' if many else 'is'} not applied")
    if static:
        many = len(static) > 1
        off.append(f"featureGates.staticCapacity off, so static pool{'s' if many else ''} {', '.join(static)} "
                   f"launch{'' if many else 'es'} nothing")
    if not off:
        return []
    return [f"no Karpenter values were read, so the chart's defaults apply: {'; '.join(off)}; if the controller runs "
            f"with {'these gates' if len(off) > 1 else 'the gate'} on, put its values in helm/{KARPENTER_VALUES_FILE} "
            "beside the manifests or pass --karpenter-values FILE"]


def explain_environment(name: str, manifests: list[dict], catalog: Catalog, pod: PodShape | None = None,
                        zone: str | None = None, nodes: list[ClusterNode] | None = None,
                        aws: AwsFacts | None = None, settings: ControllerSettings | None = None,
                        node_count: int | None = None, now: datetime | None = None) -> dict[str, Any]:
    """Everything the report shows for one environment, as plain data (the JSON format). ``settings``: the
    controller's (:func:`~karpenter_gpu.k8s.controller_settings.environment_settings`; None: the chart's defaults),
    named in the report's first note; without a values file, the next says what the chart's defaults switch off
    that the manifests rely on and how to give the controller's values. ``nodes``: the cluster's
    nodes (``explain --nodes``): limits are what they leave, the worst case what can still launch; the JSON then
    has ``nodes`` and, per pool, ``existing_nodes``, ``used`` and ``remaining`` (base units). ``aws``: the account's
    facts (:func:`~karpenter_gpu.k8s.aws_facts.load_aws_facts`), which the offerings and prices follow. With
    ``nodes`` or ``node_count``, each NodePool's entry has ``budgets``: the disruptions its budgets allow per reason
    at ``now`` (default: the current time) and over that week (:mod:`~karpenter_gpu.analysis.budget_report`)."""
    pools = node_pools(manifests)  # read once: the simulator, the region check and the report share the views
    settings = settings if settings is not None else ControllerSettings()
    reports: list[PoolReport] = simulate_pools(manifests, catalog, pools=pools, nodes=nodes or (), aws=aws,
                                               settings=settings)
    basis = reports[0].price_basis if reports else price_basis(catalog, aws)
    out: dict[str, Any] = {"environment": name, "zone": zone or _zone(pools), "prices": basis,
                           "settings": settings.describe(),
                           "notes": [settings.describe(), *_defaults_notes(settings, reports), *settings.notes,
                                     *settings.unmodelled(),
                                     *_facts_notes(basis, aws),
                                     *(n.text for n in region_warnings(manifests, catalog, pools=pools))],
                           "pools": []}
    for r in reports:
        view = r.view
        assert view is not None  # simulate_pools gives every report its pool's view
        low_high = r.price_range
        out["pools"].append({
            "name": r.name, "kind": r.kind, "weight": r.weight, "capacity_types": list(r.capacity_types),
            "zones": list(r.zones), "candidates": [c.instance.name for c in r.candidates],
            "offerings": sorted({o.offering.label for c in r.candidates for o in c.offerings}),
            "overlaid_offerings": _overlaid(r),
            "gpu_names": list(r.gpu_names), "price_range": [str(v) for v in low_high] if low_high else None,
            "gpu_limit": r.gpu_limit,
            "worst_case_hourly": None if r.worst_case_hourly is None else str(r.worst_case_hourly),
            "worst_case_exact": r.worst_case_exact, "worst_case_nodes": [list(n) for n in r.worst_case_nodes],
            "bounded_by": list(r.bounded_by), "unbounded": r.unbounded, "limit_unit": r.limit_unit,
            "excluded": [{"instance": n, "limit": why} for n, why in r.excluded],
            "launchable": r.launchable, "notes": [n.text for n in r.notes], "feature_gates": _gates(view, r),
            "windows": _windows(view),
        })
        if nodes is not None:
            out["pools"][-1].update(existing_nodes=list(r.existing_nodes),
                                    used={k: f"{v.normalize():f}" for k, v in sorted(r.used.items())},
                                    remaining={k: f"{v.normalize():f}" for k, v in sorted(r.remaining.items())})
        if nodes is not None or node_count is not None:
            out["pools"][-1]["budgets"] = pool_budgets(view, pool_node_count(r.name, nodes, node_count),
                                                       now or datetime.now(UTC), out["zone"])
    if nodes is not None or node_count is not None:
        out["notes"].append(READINESS_NOTE)
    if nodes is not None:
        out["nodes"] = _nodes_summary(nodes, reports)
        out["notes"].append(f"limits are what the {out['nodes']['counted']} existing node(s) of the cluster leave "
                            "(--nodes); worst $/h is what can still launch beyond them")
    for group in hybrid_groups(manifests):  # fixed on-premises nodes: no catalog, price or Karpenter limit
        out["pools"].append({
            "name": group.name, "kind": HYBRID_KIND, "weight": None, "capacity_types": ["on-premises"],
            "zones": [group.location], "candidates": [node_shape(group)], "offerings": [], "overlaid_offerings": {},
            "gpu_names": [group.gpu_name], "price_range": None, "gpu_limit": group.gpu_count,
            "worst_case_hourly": None, "launchable": False,
            "notes": [f"{group.nodes} on-premises node(s) × {group.gpus_per_node} {group.gpu_name} at {group.location} "
                      f"(EKS Hybrid Nodes: fixed, {group.gpu_count} GPUs, not launched by Karpenter)"]
                     + ([f"description unreadable: {group.problem}"] if group.problem else []),
            "feature_gates": [], "windows": [],
        })
    if pod is not None:
        # Existing (hybrid) nodes first: the scheduler binds a pod to a node that fits before Karpenter provisions.
        fits = hybrid_fits(pod, manifests) + pod_fit(pod, manifests, catalog, nodes=nodes or (), aws=aws,
                                                     settings=settings)
        choice = first_choice(fits)
        out["pod"] = {"shape": pod.describe(), "fits": [{"pool": f.pool, "instance": f.instance, "offering": f.offering,
                                                  "price": None if f.price is None else str(f.price),
                                                  "reason": f.reason} for f in fits],
                      "first_choice": None if choice is None else {"pool": choice.pool, "instance": choice.instance}}
        unknown = unmodelled(fits)
        if unknown:  # no first choice is stated without them
            out["pod"]["not_modelled"] = list(unknown)
        if choice is not None and choice.panics is not None:
            out["pod"]["panics"] = choice.panics
        if choice is not None and choice.launch is not None:  # what the provider asks EC2 for (analysis.launch)
            launched = choice.launch
            out["pod"]["launch"] = {"capacity_type": launched.capacity_type, "instance_types": list(launched.types),
                                    "zones": [z if z is not None else "other zones" for z in launched.zones],
                                    "dropped": {name: list(types) for name, types in launched.dropped},
                                    # Karpenter's NodeClaim requests follow a Go map's order (launch.claim_overheads)
                                    "alternatives": [{"instance": o.instance, "offering": o.offering.offering.label,
                                                      "price": None if o.price is None else str(o.price),
                                                      "instance_types": list(o.types)}
                                                     for o in choice.launch_alternatives]}
    return out


def _nodes_summary(nodes: list[ClusterNode], reports: list[PoolReport]) -> dict[str, Any]:
    """The cluster's nodes: how many were read, count against limits, are marked for deletion, have no NodePool, or
    belong to a NodePool that is not among the manifests (no limit of theirs is known)."""
    names = {r.name for r in reports}
    active = [n for n in nodes if not n.marked_for_deletion]
    return {"read": len(nodes), "counted": sum(1 for n in active if n.nodepool in names),
            "marked_for_deletion": len(nodes) - len(active),
            "without_nodepool": sum(1 for n in active if n.nodepool is None),
            "other_nodepools": sorted({n.nodepool for n in active if n.nodepool is not None and n.nodepool not in names})}


def _overlaid(report: PoolReport) -> dict[str, list[str]]:
    """Overlay name → the exact ``instance-type capacity-type/zone`` offerings it re-prices in this pool."""
    out: dict[str, list[str]] = {}
    for c in report.candidates:
        for o in c.offerings:
            if o.overlay is not None:
                out.setdefault(o.overlay, []).append(f"{c.instance.name} {o.offering.label}")
    return {k: sorted(v) for k, v in sorted(out.items())}


def _price_range(p: dict) -> str:
    price = p["price_range"]
    return "-" if not price else f"{_money(Decimal(price[0]))}-{_money(Decimal(price[1]))}"


def _left(remaining: dict[str, str]) -> str:
    return ", ".join(f"{k} {amount_text(k, Decimal(v))}" for k, v in remaining.items()) or "-"


#: The table's columns, in order: (header, the cell of a pool's JSON entry, shown only with --nodes). One list, so a
#: column's header and value cannot drift apart.
COLUMNS: tuple[tuple[str, Callable[[dict], str], bool], ...] = (
    ("pool", lambda p: p["name"], False),
    ("kind", lambda p: p["kind"], False),
    ("weight", lambda p: "-" if p["weight"] is None else str(p["weight"]), False),
    ("capacity", lambda p: ",".join(p["capacity_types"]), False),
    ("#types", lambda p: str(len(p["candidates"])), False),
    ("GPUs", lambda p: ",".join(p["gpu_names"]) or "-", False),
    ("$/h", _price_range, False),
    ("worst $/h", lambda p: _money(None if p["worst_case_hourly"] is None else Decimal(p["worst_case_hourly"])), False),
    # With --nodes: the pool's existing nodes and what they leave of its limits.
    ("nodes", lambda p: str(len(p.get("existing_nodes", []))), True),
    ("left of limits", lambda p: _left(p.get("remaining", {})), True),
    ("gates", lambda p: ",".join(p["feature_gates"]) or "-", False),
)


def _columns(env: dict) -> list[tuple[str, Callable[[dict], str], bool]]:
    return [c for c in COLUMNS if not c[2] or "nodes" in env]


def _header(env: dict) -> list[str]:
    return [name for name, _, _ in _columns(env)]


def _rows(env: dict, esc: Callable[[Any], str]) -> list[list[str]]:
    """One table row per pool, every cell escaped with ``esc`` (manifest text in each)."""
    columns = _columns(env)
    return [[esc(cell(p)) for _, cell, _ in columns] for p in env["pools"]]


def render_text(envs: list[dict]) -> str:
    out = []
    for env in envs:
        header = _header(env)
        rows = [header] + _rows(env, escape.plain)
        widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
        out.append(f"== {escape.plain(env['environment'])} ==")
        out.extend("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)
        out.extend(_details(env, markdown=False))
        out.append("")
    return "\n".join(out)


def render_markdown(envs: list[dict], svg_names: dict[str, str] | None = None) -> str:
    """The report for a pull-request comment, at most :data:`MAX_MARKDOWN` characters (a cut is said)."""
    out = []
    for env in envs:
        out.append(f"### {escape.markdown(env['environment'])}\n")
        out.append("| " + " | ".join(_header(env)) + " |")
        out.append("|" + "---|" * len(_header(env)))
        out.extend("| " + " | ".join(r) + " |" for r in _rows(env, escape.markdown))
        out.append("")
        out.extend(_details(env, markdown=True))
        if svg_names and env["environment"] in svg_names:
            # A link destination, percent-encoded: the file name is the environment's folder name.
            out.append(f"\n![disruption timeline]({quote(svg_names[env['environment']], safe='')})")
        out.append("")
    # The blank line first: a line right after a table row would be read as one more row.
    return "\n".join(escape.fit_lines(out, MAX_MARKDOWN, lambda n: f"\n… {n} more rows, see --format json"))


def _details(env: dict, *, markdown: bool) -> list[str]:
    bullet = "- " if markdown else "  "
    esc = escape.markdown if markdown else escape.plain

    def note_text(text: str) -> str:
        return esc(text, MAX_NOTE)

    lines = []
    for p in env["pools"]:
        pool = esc(p["name"])
        for note in p["notes"]:
            lines.append(f"{bullet}{pool}: {note_text(note)}")
        for overlay, offerings in p["overlaid_offerings"].items():
            per_type: dict[str, int] = {}
            for entry in offerings:
                per_type[entry.split(" ", 1)[0]] = per_type.get(entry.split(" ", 1)[0], 0) + 1
            if any(n < len(p["offerings"]) for n in per_type.values()):  # re-prices some offerings only
                lines.append(f"{bullet}{pool}: NodeOverlay {esc(overlay)} re-prices only "
                             f"{note_text(', '.join(offerings))}")
        for w in p["windows"]:
            lines.append(f"{bullet}{pool} window: {esc(w['local'] or w['utc'])} (UTC: {esc(w['utc'])})")
        lines.extend(budget_lines(p, bullet, esc))
    for note in env["notes"]:
        lines.append(f"{bullet}note: {note_text(note)}")
    nodes = env.get("nodes")
    if nodes:
        others = nodes["other_nodepools"]
        lines.append(f"{bullet}nodes: {nodes['read']} read, {nodes['counted']} counted against limits, "
                     f"{nodes['marked_for_deletion']} marked for deletion, {nodes['without_nodepool']} without a "
                     "NodePool" + (f"; of NodePools not in the manifests: {note_text(', '.join(others))}"
                                   if others else ""))
    pod = env.get("pod")
    if pod:
        choice = pod["first_choice"]
        unknown = pod.get("not_modelled")
        outcome = (f"lands on {esc(choice['pool'])} as {esc(choice['instance'])}" if choice else
                   f"not known (not modelled: {esc(', '.join(unknown))})" if unknown else "fits no pool")
        lines.append(f"{bullet}pod {esc(pod['shape'])}: " + outcome)
        lines.extend(f"{bullet}  {esc(f['pool'])}: " + (f"{esc(f['instance'])} ({esc(f['offering'])})" if f["instance"]
                                                        else note_text(f["reason"]))
                     for f in pod["fits"])
        if pod.get("panics"):
            lines.append(f"{bullet}  but Karpenter panics creating that NodeClaim ({esc(pod['panics'])}: "
                         "Requirement.Any has no value to pick), so the pod stays Pending")
        others = (pod.get("launch") or {}).get("alternatives") or []
        if others:
            lines.append(f"{bullet}  or launches " + " or ".join(
                f"{esc(o['instance'])} ({esc(o['offering'])})" for o in others) +
                ": the options run different DaemonSets, and the DaemonSet requests Karpenter adds to the NodeClaim "
                "follow the order of a Go map (addDaemonRequests), so which type launches is not determined")
    return lines
