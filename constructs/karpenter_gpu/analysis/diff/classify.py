"""Sort every difference between two sides into a :class:`Category`, per object, following Karpenter v1.14.1.

- NodePool: ``spec.template`` is hashed (labels, annotations, taints, startupTaints, expireAfter,
  terminationGracePeriod, nodeClassRef; ``NodePool.Hash``, pkg/apis/v1/nodepool.go) and a change drifts every
  node of the pool; requirements are compared per NodeClaim (``areRequirementsDrifted``,
  pkg/controllers/nodeclaim/disruption/drift.go: only nodes that no longer match drift); weight, limits and
  disruption are behavioural; static ↔ dynamic and nodeClassRef group/kind changes are refused by the
  transition rules.
- EC2NodeClass: the whole spec is hashed except the selector terms, ipPrefixCount and amiFamily, which
  drift through their resolved values (``EC2NodeClass.Hash``; an AMI alias version bump resolves to new AMIs).
- NodeOverlay: the scheduling simulation only. Helm values: pods restart, nodes stay.

Both sides are first put through :func:`~karpenter_gpu.analysis.diff.admission.admit`: the CRD defaults the API
server fills in are applied (read from the CRDs' ``default:`` values, never typed here), so a change that only
spells out a default is not reported, and an object the API server refuses is reported as
:attr:`Category.REFUSED` and not classified further.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from enum import Enum
from typing import Any

from karpenter_gpu.analysis.catalog import INSTANCE_LABEL_KEYS, Catalog
from karpenter_gpu.analysis.diff.admission import Admitted, Refusal, admit
from karpenter_gpu.analysis.diff.read import Key, Side
from karpenter_gpu.analysis.diff.reasons import (
    _budget, _canon, _device, _few, _leaves, _list_diff, _map_diff, _norm, _requirements_text, _same, _short, _taint,
    _term,
)
from karpenter_gpu.analysis.diff.cost import side_settings
from karpenter_gpu.analysis.simulator import PoolReport, simulate_pools
from karpenter_gpu.apiserver.conformance import Crds
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.drift import (
    RESOLVED_AMI_FAMILY, node_class_hash_fields, requirement_drift, same_map, static_drift_blocked,
    template_hash_fields,
)
from karpenter_gpu.k8s.labels import AUTO_MODE_NODE_CLASS_KIND, NODE_CLASS_KIND, NODEPOOL_KIND, OVERLAY_KIND
from karpenter_gpu.k8s.offerings import pool_offerings, zone_universe
from karpenter_gpu.k8s.views import NodeClassView, NodePoolView


class Category(Enum):
    """What applying the change does; members are declared from the most to the least severe."""

    REFUSED = "refused by the API server"
    DRAINS_POOL = "drains a pool"
    REPLACES_NODES = "replaces nodes (drift)"
    MAY_REPLACE_NODES = "may replace nodes"
    RESTARTS = "restarts pods"
    BEHAVIOURAL = "behavioural only"
    NEW = "new object"
    INFO = "info"

    @property
    def rank(self) -> int:
        return list(Category).index(self)

    def __str__(self) -> str:
        return self.value


#: ``--fail-on`` groups.
FAIL_ON: dict[str, frozenset[Category]] = {
    "drift": frozenset({Category.REPLACES_NODES, Category.DRAINS_POOL}),
    "refused": frozenset({Category.REFUSED}),
}


@dataclass(frozen=True)
class Change:
    """One object's changes of one category. ``name`` is ``"old → new"`` for a renamed NodePool."""

    environment: str
    kind: str
    name: str
    category: Category
    reasons: tuple[str, ...]

    def sort_key(self) -> tuple:
        return (self.environment, self.category.rank, self.kind, self.name, self.reasons)



class _Simulations:
    """One simulator run per side, shared by every NodePool of the environment."""

    def __init__(self, base_env: dict[Key, dict], catalog: Catalog | None = None) -> None:
        self.base_env = base_env
        self.catalog = catalog
        self._reports: dict[str, PoolReport] | None = None
        self._prices: tuple[dict[str, dict], dict] | None = None
        self.error: KarpenterGpuError | None = None

    def old(self, pool: str) -> PoolReport | None:
        return self.reports().get(pool)

    def prices(self) -> tuple[dict[str, dict], dict]:
        """(pool, instance type, offering) → (price, overlay) for every offering of this side (:func:`_offering_prices`),
        and the same grouped by the overlay that prices it: read once for every overlay of the environment."""
        if self._prices is None:
            everything = _offering_prices(self.reports())
            by_overlay: dict[str, dict] = {}
            for key, value in everything.items():
                by_overlay.setdefault(value[1], {})[key] = value
            self._prices = (by_overlay, everything)
        return self._prices

    def reports(self) -> dict[str, PoolReport]:
        if self._reports is None:
            manifests = [m for (api, _, _), m in sorted(self.base_env.items()) if api != "helm"]
            try:
                settings = side_settings("", self.base_env)  # the side's helm/karpenter.values.yaml, or the chart's
                self._reports = {r.name: r for r in simulate_pools(manifests, self.catalog, settings=settings)}
            except KarpenterGpuError as error:
                self._reports, self.error = {}, error
        return self._reports


def _offering_prices(reports: dict[str, PoolReport]) -> dict:
    """(pool, instance type, offering) → (price, overlay) on this side."""
    out = {}
    for pool, report in reports.items():
        for c in report.candidates:
            for o in c.offerings:
                out[(pool, c.instance.name, o.offering.label)] = (o.price, o.overlay)
    return out


def _repriced(overlay: str, base: _Simulations, head: _Simulations) -> str:
    """The exact offerings whose simulated price changes where ``overlay`` prices them on either side."""
    (by_old, all_old), (by_new, all_new) = base.prices(), head.prices()
    mine_old, mine_new = by_old.get(overlay, {}), by_new.get(overlay, {})
    changed = []
    for key in sorted(set(mine_old) | set(mine_new)):
        before, after = all_old.get(key, (None, None))[0], all_new.get(key, (None, None))[0]
        if before != after:
            pool, it, offering = key
            changed.append(f"{it} {offering} in {pool}: {_short(before)} → {_short(after)}")
    if not changed:
        return "no simulated price changes"
    return f"re-prices {len(changed)} offering(s): {_few(changed, 6)}"


def _requirement_change(name: str, old: dict, new: dict, sims: _Simulations) -> tuple[Category, str]:
    """Classify a requirements change per NodeClaim (``areRequirementsDrifted``), naming the instance
    types and offerings whose nodes drift."""
    ov, nv = NodePoolView.of(old), NodePoolView.of(new)
    if nv.problem is not None:
        return Category.REFUSED, f"the new requirements cannot be read ({nv.problem.prop}: {nv.problem.allowed})"
    report = sims.old(name)
    if report is None or ov.problem is not None:
        why = sims.error or ov.problem
        return Category.MAY_REPLACE_NODES, ("nodes whose labels no longer match drift; the old pool could not be "
                                            f"simulated ({why.prop if why else 'not found'}) to say which")
    named = zone_universe([ov, nv], [])
    offerings = pool_offerings(ov, named)
    outcomes = requirement_drift(ov, nv, ((c.instance.name, c.instance.labels, offerings) for c in report.candidates),
                                 INSTANCE_LABEL_KEYS)
    drifted = [o for o in outcomes if o.reason is not None]
    unsure = [o for o in outcomes if o.reason is None and not o.certain]
    total = f"{len(report.candidates)} instance type(s) x {len(offerings)} offering(s) the old pool can run"
    if drifted:
        by_type: dict[str, list[str]] = {}
        for o in drifted:
            by_type.setdefault(o.instance_type, []).append(o.offering)
        kept = len({o.instance_type for o in outcomes} - set(by_type))
        groups: dict[tuple[str, ...], list[str]] = {}
        for it, offs in sorted(by_type.items()):
            groups.setdefault(tuple(offs), []).append(it)
        shown = "; ".join(f"{', '.join(its)} ({'every offering' if len(offs) == len(offerings) else ', '.join(offs)})"
                          for offs, its in groups.items())
        return Category.REPLACES_NODES, (f"nodes drift (areRequirementsDrifted) on {shown}: {drifted[0].reason}; "
                                         f"{kept} other instance type(s) of the {total} stay")
    if unsure:
        return Category.MAY_REPLACE_NODES, (f"nodes may drift: the new requirements name labels the catalog does not "
                                            f"model (checked {total})")
    return Category.BEHAVIOURAL, (f"every node of the {total} still satisfies the new requirements "
                                  "(areRequirementsDrifted, per NodeClaim): no drift; new launches follow them")


# --------------------------------------------------------------------------------------------- NodePool

_TEMPLATE_SPEC_KNOWN = {"nodeClassRef", "requirements", "taints", "startupTaints", "expireAfter",
                        "terminationGracePeriod"}


class _Collector:
    def __init__(self) -> None:
        self.reasons: dict[Category, list[str]] = {}

    def add(self, category: Category, reason: str) -> None:
        self.reasons.setdefault(category, []).append(reason)

    def changes(self, environment: str, kind: str, name: str) -> list[Change]:
        return [Change(environment, kind, name, c, tuple(r)) for c, r in self.reasons.items() if r]


def _transitions(name: str, so: dict, sn: dict, ro: dict, rn: dict, out: _Collector) -> bool:
    """The NodePool CRD's transition rules (static <-> dynamic; nodeClassRef group and kind immutable), each refusal
    added to ``out``, and a static pool's scaling; True when the API server refuses the whole update."""
    if ("replicas" in so) != ("replicas" in sn):
        direction = "dynamic → static" if "replicas" in sn else "static → dynamic"
        verb = f"added ({sn['replicas']})" if "replicas" in sn else f"removed (was {so['replicas']})"
        out.add(Category.REFUSED,
                f"spec.replicas {verb}: {direction} is refused (\"Cannot transition NodePool between static and "
                f"dynamic provisioning modes\"); create a new NodePool instead (deleting {name} drains its nodes)")
    elif "replicas" in sn and so["replicas"] != sn["replicas"]:
        try:
            delta = int(sn["replicas"]) - int(so["replicas"])
            effect = (f"launches {delta} node(s)" if delta > 0 else
                      f"removes {-delta} node(s) (forceful, respecting PDBs)")
        except (TypeError, ValueError):
            effect = "changes the node count"
        out.add(Category.BEHAVIOURAL, f"spec.replicas {so['replicas']} → {sn['replicas']}: scale; the static pool {effect}")
    for field in ("group", "kind"):
        if ro.get(field) != rn.get(field):
            out.add(Category.REFUSED,
                    f"spec.template.spec.nodeClassRef.{field} changed: {_short(ro.get(field))} → "
                    f"{_short(rn.get(field))}: nodeClassRef.{field} is immutable, the update is refused")
    return bool(out.reasons.get(Category.REFUSED))


def _node_pool(name: str, old: dict, new: dict, base_env: dict[Key, dict], head_env: dict[Key, dict],
               out: _Collector, sims: _Simulations | None = None) -> None:
    so, sn = old.get("spec") or {}, new.get("spec") or {}
    to, tn = so.get("template") or {}, sn.get("template") or {}
    mo, mn = to.get("metadata") or {}, tn.get("metadata") or {}
    po, pn = to.get("spec") or {}, tn.get("spec") or {}
    drift = f"every node of NodePool {name} is replaced"
    if _transitions(name, so, sn, po.get("nodeClassRef") or {}, pn.get("nodeClassRef") or {}, out):
        return  # the whole update is refused: the cluster keeps the stored NodePool, so nothing else of it changes
    ro, rn = po.get("nodeClassRef") or {}, pn.get("nodeClassRef") or {}

    # spec.template: hashed, every node drifts.
    if ro.get("name") != rn.get("name"):
        out.add(Category.REPLACES_NODES, f"spec.template.spec.nodeClassRef.name changed: {_short(ro.get('name'))} → "
                                         f"{_short(rn.get('name'))} — {drift}")
    # NodePool.Hash sees the typed template (k8s.drift.hashed): 720h == 43200m, [] != unset, ...
    ho, hn = template_hash_fields(old), template_hash_fields(new)

    def hashed_same(part: str, field: str, a: Any, b: Any) -> bool:
        if ho is None or hn is None:
            return _same(a, b)
        return _canon(ho.get(part, {}).get(field)) == _canon(hn.get(part, {}).get(field))

    for field in ("labels", "annotations"):  # maps: an entry with value "" is hashed too
        if not hashed_same("metadata", field, mo.get(field), mn.get(field)):
            out.add(Category.REPLACES_NODES, f"spec.template.metadata.{field} changed: "
                                             f"{_few(_map_diff(mo.get(field), mn.get(field)))} — {drift}")
    for field in ("taints", "startupTaints"):
        if not hashed_same("spec", field, po.get(field), pn.get(field)):
            out.add(Category.REPLACES_NODES, f"spec.template.spec.{field} changed: "
                                             f"{_few(_list_diff(po.get(field), pn.get(field), _taint))} — {drift}")
    if not hashed_same("spec", "expireAfter", po.get("expireAfter"), pn.get("expireAfter")):
        out.add(Category.REPLACES_NODES, f"spec.template.spec.expireAfter changed: {_short(po.get('expireAfter'))} → "
                                         f"{_short(pn.get('expireAfter'))} — {drift}")
    if not hashed_same("spec", "terminationGracePeriod", po.get("terminationGracePeriod"),
                       pn.get("terminationGracePeriod")):
        out.add(Category.REPLACES_NODES,
                f"spec.template.spec.terminationGracePeriod changed: {_short(po.get('terminationGracePeriod'))} → "
                f"{_short(pn.get('terminationGracePeriod'))} — {drift}")
    for field in sorted((set(po) | set(pn)) - _TEMPLATE_SPEC_KNOWN):
        if _same(po.get(field), pn.get(field)):
            continue
        if field == "kubelet":
            out.add(Category.INFO, "spec.template.spec.kubelet changed: not a v1 NodePool field, the API server prunes "
                                   "it (kubelet settings live in EC2NodeClass spec.kubelet); no effect")
        else:
            out.add(Category.REPLACES_NODES, f"spec.template.spec.{field} changed: "
                                             f"{_few(_leaves(po.get(field), pn.get(field), field))} — {drift}")
    for field in sorted((set(to) | set(tn)) - {"metadata", "spec"}):
        if not _same(to.get(field), tn.get(field)):
            out.add(Category.REPLACES_NODES, f"spec.template.{field} changed — {drift}")

    # Requirements: not hashed, compared per NodeClaim.
    qo, qn = po.get("requirements"), pn.get("requirements")
    if not _same(qo, qn):
        category, tail = _requirement_change(name, old, new, sims or _Simulations(base_env))
        out.add(category, f"spec.template.spec.requirements changed: {_requirements_text(qo, qn)} — {tail}")
    blocked = static_drift_blocked(NodePoolView.of(new))
    if blocked and Category.REPLACES_NODES in out.reasons:
        out.add(Category.INFO, f"static pool: {blocked}")

    # Behavioural: never drift.
    if so.get("weight", 0) != sn.get("weight", 0):
        out.add(Category.BEHAVIOURAL, f"spec.weight {_short(so.get('weight'))} → {_short(sn.get('weight'))}: changes "
                                      "which pool new nodes come from first; running nodes untouched")
    if not _same(so.get("limits"), sn.get("limits")):
        out.add(Category.BEHAVIOURAL, f"spec.limits changed: {_few(_map_diff(so.get('limits'), sn.get('limits')))} — "
                                      "caps new launches only; running nodes are not removed")
    do, dn = so.get("disruption") or {}, sn.get("disruption") or {}
    for field in sorted(set(do) | set(dn)):
        if _same(do.get(field), dn.get(field)):
            continue
        if field == "budgets":
            what = _few(_list_diff(do.get(field), dn.get(field), _budget))
        else:
            what = f"{_short(do.get(field))} → {_short(dn.get(field))}"
        out.add(Category.BEHAVIOURAL, f"spec.disruption.{field} changed: {what} — paces voluntary disruption "
                                      "only; no drift")
    for field in sorted((set(so) | set(sn)) - {"template", "replicas", "weight", "limits", "disruption"}):
        if not _same(so.get(field), sn.get(field)):
            out.add(Category.INFO, f"spec.{field} changed: {_few(_leaves(so.get(field), sn.get(field), field))}")


# ----------------------------------------------------------------------------------------- EC2NodeClass

_SELECTORS = {
    "subnetSelectorTerms": "nodes in a subnet that is no longer selected drift; the others stay",
    "securityGroupSelectorTerms": "nodes drift when the resolved security groups differ from the ones they have",
    "capacityReservationSelectorTerms": "nodes in a capacity reservation that is no longer selected may be replaced",
}


class _Users:
    """The NodePools of one side of an environment by the node class they name (``nodeClassRef.name``), each
    NodePool read once: every node class of the side looks its pools up here."""

    def __init__(self, env: dict[Key, dict]) -> None:
        self.every: dict[str, list[str]] = {}
        self.auto_mode: dict[str, list[str]] = {}
        for (api, kind, _), m in env.items():
            if (api, kind) != NODEPOOL_KIND:
                continue
            view = NodePoolView.of(m)
            ref = view.node_class_ref.get("name")
            if not isinstance(ref, str):  # hand-written YAML: never the name of a node class
                continue
            self.every.setdefault(ref, []).append(view.name)
            if view.auto_mode:
                self.auto_mode.setdefault(ref, []).append(view.name)

    def of(self, node_class: str, auto_mode: bool = False) -> list[str]:
        """The names of the pools naming ``node_class`` (only EKS Auto Mode ones with ``auto_mode``), sorted."""
        return sorted((self.auto_mode if auto_mode else self.every).get(node_class, ()))


def _pools_using(node_class: str, env: dict[Key, dict] | _Users) -> list[str]:
    return (env if isinstance(env, _Users) else _Users(env)).of(node_class)


def _auto_mode_node_class(name: str, old: dict, new: dict, base_env: dict[Key, dict] | _Users,
                          out: _Collector) -> None:
    """An EKS Auto Mode NodeClass change. AWS publishes neither its schema nor which fields it hashes for drift, so
    unlike an EC2NodeClass nothing is certain: nodes of the pools using it may be replaced."""
    leaves = _leaves(old.get("spec"), new.get("spec"), "spec")
    if not leaves:
        return
    pools = (base_env if isinstance(base_env, _Users) else _Users(base_env)).of(name, auto_mode=True)
    out.add(Category.MAY_REPLACE_NODES if pools else Category.INFO,
            f"{_few(leaves)} — EKS Auto Mode NodeClass: AWS does not publish which fields drift its nodes"
            + (f"; nodes of {', '.join(pools)} may be replaced" if pools else "; no NodePool uses it"))


def _alias(terms: Any) -> str | None:
    if isinstance(terms, list) and len(terms) == 1 and isinstance(terms[0], dict) and "alias" in terms[0]:
        return str(terms[0]["alias"])
    return None


def _node_class(name: str, old: dict, new: dict, base_env: dict[Key, dict] | _Users, out: _Collector) -> None:
    so, sn = old.get("spec") or {}, new.get("spec") or {}
    pools = _pools_using(name, base_env)
    drift_cat = Category.REPLACES_NODES if pools else Category.INFO
    who = (f"every node of NodePools using EC2NodeClass {name}: {', '.join(pools)} is replaced" if pools else
           f"no NodePool uses EC2NodeClass {name}, so no node is replaced")
    ho, hn = node_class_hash_fields(NodeClassView.of(old)), node_class_hash_fields(NodeClassView.of(new))
    for field in sorted((set(ho) | set(hn)) - {RESOLVED_AMI_FAMILY}):
        a, b = ho.get(field), hn.get(field)
        if (same_map(a, b) if field == "tags" else _same(a, b)):
            continue
        if field == "blockDeviceMappings":
            what = _few(_list_diff(a, b, _device))
        elif field == "tags":
            what = _few(_map_diff(a, b))
        elif field == "userData":
            what = "userData differs"
        else:
            what = _few(_leaves(a, b, f"spec.{field}")) if isinstance(a, dict) and isinstance(b, dict) \
                else f"{_short(a)} → {_short(b)}"
        out.add(drift_cat, f"spec.{field} changed: {what} — {who}")

    ao, an = so.get("amiSelectorTerms"), sn.get("amiSelectorTerms")
    if not _same(ao, an):
        if _alias(ao) and _alias(an):
            out.add(drift_cat, f"spec.amiSelectorTerms alias {_alias(ao)} → {_alias(an)}: resolves to new AMIs — {who}")
        else:
            what = _few(_list_diff(ao, an, _term))
            out.add(Category.MAY_REPLACE_NODES if pools else Category.INFO,
                    f"spec.amiSelectorTerms changed: {what} — nodes drift if the resolved AMIs differ from the AMI "
                    f"they run (NodePools: {', '.join(pools) or 'none'})")
    fo, fn = ho[RESOLVED_AMI_FAMILY], hn[RESOLVED_AMI_FAMILY]
    if fo != fn:  # EC2NodeClass.Hash hashes the resolved family, not the field
        out.add(drift_cat, f"resolved AMI family {fo} → {fn} (spec.amiFamily {_short(so.get('amiFamily'))} → "
                           f"{_short(sn.get('amiFamily'))}): the EC2NodeClass hash changes — {who}")
    elif so.get("amiFamily") != sn.get("amiFamily"):
        out.add(Category.INFO, f"spec.amiFamily {_short(so.get('amiFamily'))} → {_short(sn.get('amiFamily'))}: the "
                               f"resolved AMI family stays {fn}, so the hash does not change; no drift")
    for field, effect in _SELECTORS.items():
        if not _same(so.get(field), sn.get(field)):
            out.add(Category.MAY_REPLACE_NODES if pools else Category.INFO,
                    f"spec.{field} changed: {_few(_list_diff(so.get(field), sn.get(field), _term))} — {effect} "
                    f"(NodePools: {', '.join(pools) or 'none'})")
    if so.get("ipPrefixCount") != sn.get("ipPrefixCount"):
        out.add(Category.BEHAVIOURAL, f"spec.ipPrefixCount {_short(so.get('ipPrefixCount'))} → "
                                      f"{_short(sn.get('ipPrefixCount'))}: not hashed; applies to new nodes only")


# ------------------------------------------------------------------------------------------------ Helm


def _helm(file_name: str, old: dict, new: dict, out: _Collector) -> None:
    leaves = _leaves(old, new, "")
    if not leaves:
        return
    if file_name.startswith("gpu-operator"):
        out.add(Category.RESTARTS, f"{_few(leaves)} — GPU Operator DaemonSets roll: device plugin restarts on "
                                   "every GPU node")
    elif file_name.startswith("karpenter"):
        gates = [x for x in leaves if x.startswith("settings.featureGates")]
        others = [x for x in leaves if not x.startswith("settings.featureGates")]
        text = "Karpenter controller restarts"
        if gates:
            text += "; feature gates: " + "; ".join(g.removeprefix("settings.featureGates.") for g in gates)
        if others:
            text += "; " + _few(others)
        out.add(Category.RESTARTS, text)
    else:
        out.add(Category.RESTARTS, f"{_few(leaves)} — the Helm release upgrades and its pods restart")


# ---------------------------------------------------------------------------------------------- classify


def _index(env: dict[Key, dict]) -> dict[tuple[str, str], tuple[str, dict]]:
    return {(kind, name): (api, manifest) for (api, kind, name), manifest in env.items()}


def _added(kind: str, name: str, manifest: dict) -> str:
    spec = (manifest.get("spec") or {}) if kind != "Values" else {}
    if kind == NODEPOOL_KIND[1] and "replicas" in spec:
        return f"static NodePool added: launches {spec['replicas']} node(s)"
    if kind == NODEPOOL_KIND[1]:
        return "NodePool added: Karpenter may launch nodes for pending pods that fit it"
    if kind == "Values":
        return f"Helm values {name} added"
    return f"{kind} added"


def _removed(kind: str, name: str, head_env: dict[Key, dict] | _Users, out: _Collector,
             sims: tuple[_Simulations, _Simulations] | None = None) -> None:
    if kind == NODEPOOL_KIND[1]:
        out.add(Category.DRAINS_POOL, f"NodePool {name} removed: every node of pool {name} is drained")
    elif kind == NODE_CLASS_KIND[1]:
        still = _pools_using(name, head_env)
        text = f"EC2NodeClass {name} removed: deletion waits until no NodeClaim uses it"
        if still:
            text += f"; NodePools {', '.join(still)} still reference it and cannot launch nodes"
        out.add(Category.INFO, text)
    elif kind == OVERLAY_KIND[1]:
        text = f"NodeOverlay {name} removed: scheduling simulation only"
        if sims is not None:
            text += f"; {_repriced(name, *sims)}"
        out.add(Category.BEHAVIOURAL, text)
    elif kind == "Values":
        out.add(Category.INFO, f"Helm values {name} removed: the release is not uninstalled by this")
    else:
        out.add(Category.INFO, f"{kind} {name} removed")


def _spec_key(manifest: dict) -> str:
    return _canon(_norm(manifest.get("spec")))


def _environment(environment: str, base_env: dict[Key, dict], head_env: dict[Key, dict],
                 catalog: Catalog | None = None) -> list[Change]:
    base, head = _index(base_env), _index(head_env)
    sims, head_sims = _Simulations(base_env, catalog), _Simulations(head_env, catalog)
    changes: list[Change] = []
    removed = sorted(set(base) - set(head))
    added = sorted(set(head) - set(base))

    # Rename: a removed NodePool and an added one with the same spec (the first added one, in name order, not
    # matched already); each spec read once.
    unmatched: dict[str, deque[tuple[str, str]]] = {}
    for k in added:
        if k[0] == NODEPOOL_KIND[1]:
            unmatched.setdefault(_spec_key(head[k][1]), deque()).append(k)
    renamed: set[tuple[str, str]] = set()
    for kind, old_name in [k for k in removed if k[0] == NODEPOOL_KIND[1]]:
        candidates = unmatched.get(_spec_key(base[(NODEPOOL_KIND[1], old_name)][1]))
        if not candidates:
            continue
        match = candidates.popleft()
        new_name = match[1]
        renamed.update(((kind, old_name), match))
        changes.append(Change(environment, kind, f"{old_name} → {new_name}", Category.DRAINS_POOL,
                              (f"renamed {old_name} → {new_name}: every node of {old_name} is drained and replaced "
                               f"by {new_name}",)))
    removed = [k for k in removed if k not in renamed]
    added = [k for k in added if k not in renamed]

    base_users, head_users = _Users(base_env), _Users(head_env)
    for kind, name in removed:
        out = _Collector()
        _removed(kind, name, head_users, out, (sims, head_sims))
        changes.extend(out.changes(environment, kind, name))
    for kind, name in added:
        text = _added(kind, name, head[(kind, name)][1])
        if kind == OVERLAY_KIND[1]:
            text += f"; {_repriced(name, sims, head_sims)}"
        changes.append(Change(environment, kind, name, Category.NEW, (text,)))

    for kind, name in sorted(set(base) & set(head)):
        (api_old, old), (api_new, new) = base[(kind, name)], head[(kind, name)]
        out = _Collector()
        if api_old != api_new:
            out.add(Category.INFO, f"apiVersion {api_old} → {api_new}")
        if kind == "Values":
            _helm(name, old, new, out)
        elif kind == NODEPOOL_KIND[1]:
            _node_pool(name, old, new, base_env, head_env, out, sims)
        elif kind == NODE_CLASS_KIND[1]:
            _node_class(name, old, new, base_users, out)
        elif (api_new, kind) == AUTO_MODE_NODE_CLASS_KIND:
            _auto_mode_node_class(name, old, new, base_users, out)
        elif kind == OVERLAY_KIND[1]:
            leaves = _leaves(old.get("spec"), new.get("spec"), "spec")
            if leaves:
                out.add(Category.BEHAVIOURAL, f"{_few(leaves)} — scheduling simulation only; running nodes untouched; "
                                              f"{_repriced(name, sims, head_sims)}")
        else:
            leaves = _leaves({k: v for k, v in old.items() if k not in ("status", "apiVersion")},
                             {k: v for k, v in new.items() if k not in ("status", "apiVersion")}, "")
            if leaves:
                out.add(Category.INFO, f"changed: {_few(leaves)}")
        if kind in (NODEPOOL_KIND[1], NODE_CLASS_KIND[1], OVERLAY_KIND[1]):
            mo, mn = old.get("metadata") or {}, new.get("metadata") or {}
            for field in ("labels", "annotations"):
                if not same_map(mo.get(field), mn.get(field)):
                    out.add(Category.INFO, f"metadata.{field} changed: {_few(_map_diff(mo.get(field), mn.get(field)))}"
                                           " (object metadata; no effect on nodes)")
        changes.extend(out.changes(environment, kind, name))
    return changes


def _refusals(refusals: tuple[Refusal, ...]) -> list[Change]:
    """A refused head object is :attr:`Category.REFUSED`; a refused base object alone is info (it was never stored
    as written, so it is compared as absent)."""
    head = {(r.environment, r.key) for r in refusals if r.side == "head"}
    base = {(r.environment, r.key) for r in refusals if r.side == "base"}
    out = []
    for r in refusals:
        _, kind, name = r.key
        if r.side == "head":
            tail = ("the API server refuses the object, so nothing of this change to it applies"
                    + ("; the base object is refused too" if (r.environment, r.key) in base else ""))
            out.append(Change(r.environment, kind, name, Category.REFUSED, (*r.reasons, tail)))
        elif (r.environment, r.key) not in head:
            out.append(Change(r.environment, kind, name, Category.INFO,
                              (*(f"base: {reason}" for reason in r.reasons),
                               "the API server refuses the base object, so it is compared as absent")))
    return out


def classify(base: Side, head: Side, catalog: Catalog | None = None, *, crds: Crds | None = None,
             admitted: Admitted | None = None) -> list[Change]:
    """Every difference between two sides, one :class:`Change` per object and category, deterministic order.

    ``catalog`` prices the re-pricing notes of NodeOverlay changes (default: the embedded catalog); ``crds`` check
    and default both sides (:func:`~karpenter_gpu.analysis.diff.admission.admit`; default: the CRDs ``validate``
    loads); ``admitted``: that result, when the caller already has it (the CLI checks both sides once for the
    classification and the cost).
    """
    admitted = admitted if admitted is not None else admit(base, head, crds)
    changes = _refusals(admitted.refusals)
    base, head = admitted.base, admitted.head
    for environment in sorted(set(base) | set(head)):
        changes.extend(_environment(environment, base.get(environment, {}), head.get(environment, {}), catalog))
    return sorted(changes, key=Change.sort_key)


