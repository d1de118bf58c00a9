"""``karpenter-gpu diff BASE HEAD``: review a manifest change by what Karpenter will do to running GPU nodes.

Each side is a dist/ folder, a file, stdin or a git revision whose committed dist/ is read without a
checkout, all through :mod:`karpenter_gpu.k8s.reader`. Objects are matched per environment by kind and name, and every
difference is sorted into a :class:`Category` following Karpenter v1.14.1:

- NodePool: ``spec.template`` is hashed (labels, annotations, taints, startupTaints, expireAfter,
  terminationGracePeriod, nodeClassRef) and a change drifts every node of the pool; requirements are
  compared semantically (only nodes that no longer match drift); weight, limits and disruption are
  behavioural; static ↔ dynamic and nodeClassRef group/kind changes are refused by the transition rules.
- EC2NodeClass: the whole spec is hashed except the selector terms, ipPrefixCount and amiFamily, which
  drift through their resolved values (an AMI alias version bump resolves to new AMIs).
- NodeOverlay: the scheduling simulation only. Helm values: pods restart, nodes stay.

The hash comparison follows Karpenter's (hashstructure with slices as sets, unset == empty), and the
CRD defaults that the API server fills in (``expireAfter: 720h``, the disruption block, metadataOptions)
are applied to both sides, so a change that only spells out a default is not reported.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from karpenter_gpu.analysis.catalog import INSTANCE_LABEL_KEYS, Catalog, default_catalog
from karpenter_gpu.analysis.simulator import PoolReport, simulate_pools
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.drift import (
    RESOLVED_AMI_FAMILY, canonical, hash_form, node_class_hash_fields, requirement_drift, same_hash, same_map,
    static_drift_blocked, template_hash_fields,
)
from karpenter_gpu.k8s.labels import AUTO_MODE_NODE_CLASS_KIND, NODE_CLASS_KIND, NODEPOOL_KIND, OVERLAY_KIND
from karpenter_gpu.k8s.offerings import pool_offerings, zone_universe
from karpenter_gpu.k8s.scheduling import Requirements
from karpenter_gpu.k8s.views import NodeClassView, NodePoolView
from karpenter_gpu.k8s.reader import Problem, Source, metadata, read

Key = tuple[str, str, str]  # (apiVersion, kind, name)
Side = dict[str, dict[Key, dict]]


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


# ----------------------------------------------------------------------------------------------- loading


class InputProblems(Exception):
    """The reader found malformed or ambiguous objects on a side: diff refuses to guess (exit 2)."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(p.line() for p in problems))


def side_of(source: Source) -> Side:
    """Environment key → {(apiVersion, kind, name): manifest}; Helm values become ``("helm", "Values", file)``.

    Namespaced objects are named ``"<namespace>/<name>"``. The root environment (files directly in the
    folder) is keyed :data:`~karpenter_gpu.k8s.reader.ROOT` whatever the folder is called, so two flat
    folders compare as one environment.
    """
    if source.problems:
        raise InputProblems(source.problems)
    side: Side = {}
    for env in source.environments:
        objects: dict[Key, dict] = {}
        for file_name, values in sorted(env.values.items()):
            objects[("helm", "Values", file_name)] = values
        for m in env.manifests:
            meta = metadata(m.manifest)
            name = str(meta.get("name", ""))
            if meta.get("namespace"):
                name = f"{meta['namespace']}/{name}"
            objects[(str(m.manifest["apiVersion"]), str(m.manifest["kind"]), name)] = m.manifest
        if objects:
            side[env.key] = objects
    return dict(sorted(side.items()))


def load_side(spec: str, repo: Path | None = None, *, dist: str = "dist") -> Side:
    """A folder, a file, ``-`` (stdin) or a git revision of ``repo`` whose ``dist`` folder is read (no checkout).

    Read by :func:`karpenter_gpu.k8s.reader.read`, exactly as ``validate`` and ``explain`` read input.
    """
    return side_of(read(spec, repo, dist=dist, allow_empty=True))


# ------------------------------------------------------------------------------------------- formatting


def _short(value: Any, limit: int | None = None) -> str:
    """``value`` in one line, in full (a before/after pair cut to the same prefix hides the change)."""
    if value is None:
        return "unset"
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, (int, float, str)):
        text = str(value).replace("\n", "\\n")
    elif isinstance(value, list):
        text = "[" + ", ".join(_short(v, limit) for v in value) + "]"
    elif isinstance(value, dict):
        text = "{" + ", ".join(f"{k}: {_short(v, limit)}" for k, v in value.items()) + "}"
    else:
        text = str(value)
    return text if limit is None or len(text) <= limit else text[: limit - 1] + "…"


_canon = canonical
_norm = hash_form
_same = same_hash


def _leaves(old: Any, new: Any, path: str) -> list[str]:
    """Every differing leaf as ``path: old → new``; lists as the items added and removed (order ignored)."""
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[str] = []
        for key in sorted(set(old) | set(new), key=str):
            sub = f"{path}.{key}" if path else str(key)
            if key not in new:
                out.append(f"{sub} removed (was {_short(old[key])})")
            elif key not in old:
                out.append(f"{sub} added: {_short(new[key])}")
            else:
                out.extend(_leaves(old[key], new[key], sub))
        return out
    if _same(old, new):
        return []
    if isinstance(old, list) and isinstance(new, list):
        gone = [x for x in old if not any(_same(x, y) for y in new)]
        came = [y for y in new if not any(_same(x, y) for x in old)]
        if gone and len(gone) == len(came) and all(isinstance(x, dict) for x in gone + came):
            # the same number of maps changed: show what changed inside each (paired in list order)
            return [leaf for x, y in zip(gone, came) for leaf in _leaves(x, y, f"{path}[{old.index(x)}]")]
        return [f"{path}: {'; '.join(_list_diff(old, new, _short))}"]
    return [f"{path}: {_short(old)} → {_short(new)}"]


def _few(items: list[str], limit: int = 4) -> str:
    return "; ".join(items[:limit]) + (f"; and {len(items) - limit} more" if len(items) > limit else "")


def _map_diff(old: dict | None, new: dict | None) -> list[str]:
    old, new = old or {}, new or {}
    out = []
    for key in sorted(set(old) | set(new)):
        if key not in old:
            out.append(f"{key}={_short(new[key])} added")
        elif key not in new:
            out.append(f"{key} removed")
        elif not _same(old[key], new[key]):
            out.append(f"{key}: {_short(old[key])} → {_short(new[key])}")
    return out


def _list_diff(old: list | None, new: list | None, fmt: Callable[[Any], str]) -> list[str]:
    """Items added and removed, as multisets (order is not part of the hash)."""
    a = Counter(_canon(_norm(x)) for x in old or [])
    b = Counter(_canon(_norm(x)) for x in new or [])
    show = {_canon(_norm(x)): fmt(x) for x in [*(old or []), *(new or [])]}
    added = [f"{show[k]} added" for k in sorted((b - a).elements(), key=lambda k: show[k])]
    removed = [f"{show[k]} removed" for k in sorted((a - b).elements(), key=lambda k: show[k])]
    return added + removed


def _taint(t: Any) -> str:
    if not isinstance(t, dict):
        return _short(t)
    value = f"={t['value']}" if t.get("value") not in (None, "") else ""
    return f"{t.get('key', '?')}{value}:{t.get('effect', '?')}"


def _budget(b: Any) -> str:
    if not isinstance(b, dict):
        return _short(b)
    text = f"nodes {b.get('nodes', '?')}"
    if b.get("schedule"):
        text += f" at '{b['schedule']}' for {b.get('duration', '?')}"
    if b.get("reasons"):
        text += " (" + ",".join(map(str, b["reasons"])) + ")"
    return text


def _device(d: Any) -> str:
    if not isinstance(d, dict):
        return _short(d)
    ebs = d.get("ebs") or {}
    bits = [str(d.get("deviceName", "?"))] + [str(ebs[k]) for k in ("volumeSize", "volumeType") if k in ebs]
    extra = {k: v for k, v in ebs.items() if k not in ("volumeSize", "volumeType")}
    if extra:
        bits.append(_short(extra))
    return " ".join(bits)


def _term(t: Any) -> str:
    return _short(t)


def _requirement(r: dict) -> str:
    op = r.get("operator", "?")
    values = r.get("values") or []
    text = f"{op} [{', '.join(map(str, values))}]" if values or op in ("In", "NotIn") else str(op)
    if r.get("minValues") is not None:
        text += f" minValues {r['minValues']}"
    return text


# ------------------------------------------------------------------------------------------ requirements


def _by_key(requirements: list | None) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for r in requirements or []:
        if isinstance(r, dict):
            out.setdefault(str(r.get("key")), []).append(r)
    return out


def _requirements_text(old: list | None, new: list | None) -> str:
    a, b = _by_key(old), _by_key(new)
    parts = []
    for key in sorted(set(a) | set(b)):
        if _same(a.get(key), b.get(key)):
            continue
        before = " + ".join(_requirement(r) for r in a.get(key, [])) or "(none)"
        after = " + ".join(_requirement(r) for r in b.get(key, [])) or "(none)"
        parts.append(f"{key} {before} → {after}")
    return _few(parts)


class _Simulations:
    """One simulator run per side, shared by every NodePool of the environment."""

    def __init__(self, base_env: dict[Key, dict], catalog: Catalog | None = None) -> None:
        self.base_env = base_env
        self.catalog = catalog
        self._reports: dict[str, PoolReport] | None = None
        self.error: KarpenterGpuError | None = None

    def old(self, pool: str) -> PoolReport | None:
        return self.reports().get(pool)

    def reports(self) -> dict[str, PoolReport]:
        if self._reports is None:
            manifests = [m for (api, _, _), m in sorted(self.base_env.items()) if api != "helm"]
            try:
                self._reports = {r.name: r for r in simulate_pools(manifests, self.catalog)}
            except KarpenterGpuError as error:
                self._reports, self.error = {}, error
        return self._reports


def _offering_prices(reports: dict[str, PoolReport], overlay: str) -> tuple[dict, dict]:
    """(pool, instance type, offering) → (price, overlay): those ``overlay`` prices on this side, and all."""
    out = {}
    for pool, report in reports.items():
        for c in report.candidates:
            for o in c.offerings:
                out[(pool, c.instance.name, o.offering.label)] = (o.price, o.overlay)
    return {k: v for k, v in out.items() if v[1] == overlay}, out


def _repriced(overlay: str, base: _Simulations, head: _Simulations) -> str:
    """The exact offerings whose simulated price changes where ``overlay`` prices them on either side."""
    mine_old, all_old = _offering_prices(base.reports(), overlay)
    mine_new, all_new = _offering_prices(head.reports(), overlay)
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

_DISRUPTION_DEFAULTS = {"consolidationPolicy": "WhenEmptyOrUnderutilized", "budgets": [{"nodes": "10%"}]}
_TEMPLATE_SPEC_KNOWN = {"nodeClassRef", "requirements", "taints", "startupTaints", "expireAfter",
                        "terminationGracePeriod"}


def _disruption(spec: dict) -> dict:
    block = dict(spec.get("disruption") or {"consolidateAfter": "0s"})
    for key, value in _DISRUPTION_DEFAULTS.items():
        block.setdefault(key, value)
    return block


class _Collector:
    def __init__(self) -> None:
        self.reasons: dict[Category, list[str]] = {}

    def add(self, category: Category, reason: str) -> None:
        self.reasons.setdefault(category, []).append(reason)

    def changes(self, environment: str, kind: str, name: str) -> list[Change]:
        return [Change(environment, kind, name, c, tuple(r)) for c, r in self.reasons.items() if r]


def _node_pool(name: str, old: dict, new: dict, base_env: dict[Key, dict], head_env: dict[Key, dict],
               out: _Collector, sims: _Simulations | None = None) -> None:
    so, sn = old.get("spec") or {}, new.get("spec") or {}
    to, tn = so.get("template") or {}, sn.get("template") or {}
    mo, mn = to.get("metadata") or {}, tn.get("metadata") or {}
    po, pn = to.get("spec") or {}, tn.get("spec") or {}
    drift = f"every node of NodePool {name} is replaced"

    # Transition rules: the API server refuses the whole update.
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
    ro, rn = po.get("nodeClassRef") or {}, pn.get("nodeClassRef") or {}
    for field in ("group", "kind"):
        if ro.get(field) != rn.get(field):
            out.add(Category.REFUSED,
                    f"spec.template.spec.nodeClassRef.{field} changed: {_short(ro.get(field))} → "
                    f"{_short(rn.get(field))}: nodeClassRef.{field} is immutable, the update is refused")

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
    if not hashed_same("spec", "expireAfter", po.get("expireAfter", "720h"), pn.get("expireAfter", "720h")):
        out.add(Category.REPLACES_NODES, f"spec.template.spec.expireAfter changed: {po.get('expireAfter', '720h')} → "
                                         f"{pn.get('expireAfter', '720h')} — {drift}")
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
    do, dn = _disruption(so), _disruption(sn)
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
_METADATA_DEFAULTS = {"httpEndpoint": "enabled", "httpProtocolIPv6": "disabled", "httpPutResponseHopLimit": 1,
                      "httpTokens": "required"}


def _pools_using(node_class: str, env: dict[Key, dict]) -> list[str]:
    return sorted(v.name for v in (NodePoolView.of(m) for (api, kind, _), m in env.items()
                                   if (api, kind) == NODEPOOL_KIND) if v.node_class_ref.get("name") == node_class)


def _auto_mode_node_class(name: str, old: dict, new: dict, base_env: dict[Key, dict], out: _Collector) -> None:
    """An EKS Auto Mode NodeClass change. AWS publishes neither its schema nor which fields it hashes for drift, so
    unlike an EC2NodeClass nothing is certain: nodes of the pools using it may be replaced."""
    leaves = _leaves(old.get("spec"), new.get("spec"), "spec")
    if not leaves:
        return
    pools = sorted(v.name for v in (NodePoolView.of(m) for (api, kind, _), m in base_env.items()
                                    if (api, kind) == NODEPOOL_KIND) if v.auto_mode and v.node_class_ref.get("name") == name)
    out.add(Category.MAY_REPLACE_NODES if pools else Category.INFO,
            f"{_few(leaves)} — EKS Auto Mode NodeClass: AWS does not publish which fields drift its nodes"
            + (f"; nodes of {', '.join(pools)} may be replaced" if pools else "; no NodePool uses it"))


def _alias(terms: Any) -> str | None:
    if isinstance(terms, list) and len(terms) == 1 and isinstance(terms[0], dict) and "alias" in terms[0]:
        return str(terms[0]["alias"])
    return None


def _node_class(name: str, old: dict, new: dict, base_env: dict[Key, dict], out: _Collector) -> None:
    so, sn = old.get("spec") or {}, new.get("spec") or {}
    pools = _pools_using(name, base_env)
    drift_cat = Category.REPLACES_NODES if pools else Category.INFO
    who = (f"every node of NodePools using EC2NodeClass {name}: {', '.join(pools)} is replaced" if pools else
           f"no NodePool uses EC2NodeClass {name}, so no node is replaced")
    ho, hn = node_class_hash_fields(NodeClassView.of(old)), node_class_hash_fields(NodeClassView.of(new))
    for field in sorted((set(ho) | set(hn)) - {RESOLVED_AMI_FAMILY}):
        a, b = ho.get(field), hn.get(field)
        if field == "metadataOptions":
            a, b = {**_METADATA_DEFAULTS, **(a or {})}, {**_METADATA_DEFAULTS, **(b or {})}
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


def _removed(kind: str, name: str, head_env: dict[Key, dict], out: _Collector,
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

    # Rename: a removed NodePool and an added one with the same spec.
    for kind, old_name in [k for k in removed if k[0] == NODEPOOL_KIND[1]]:
        match = next((k for k in added if k[0] == NODEPOOL_KIND[1]
                      and _spec_key(head[k][1]) == _spec_key(base[(NODEPOOL_KIND[1], old_name)][1])), None)
        if match is None:
            continue
        new_name = match[1]
        removed.remove((kind, old_name))
        added.remove(match)
        changes.append(Change(environment, kind, f"{old_name} → {new_name}", Category.DRAINS_POOL,
                              (f"renamed {old_name} → {new_name}: every node of {old_name} is drained and replaced "
                               f"by {new_name}",)))

    for kind, name in removed:
        out = _Collector()
        _removed(kind, name, head_env, out, (sims, head_sims))
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
            _node_class(name, old, new, base_env, out)
        elif (api_new, kind) == AUTO_MODE_NODE_CLASS_KIND:
            _auto_mode_node_class(name, old, new, base_env, out)
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


def classify(base: Side, head: Side, catalog: Catalog | None = None) -> list[Change]:
    """Every difference between two sides, one :class:`Change` per object and category, deterministic order.

    ``catalog`` prices the re-pricing notes of NodeOverlay changes (default: the embedded catalog).
    """
    changes: list[Change] = []
    for environment in sorted(set(base) | set(head)):
        changes.extend(_environment(environment, base.get(environment, {}), head.get(environment, {}), catalog))
    return sorted(changes, key=Change.sort_key)


# -------------------------------------------------------------------------------------------------- cost

EVENTUALLY_CONSISTENT = ("limits are eventually consistent: Karpenter counts launched capacity after the fact, so a "
                         "pool can overrun its limit during fast scale-out (ceilings are what the limit allows, not a "
                         "hard cap)")


@dataclass(frozen=True)
class Choice:
    """A pool's cheapest candidate (``OrderByPrice``) and the offering that price is for."""

    instance: str
    offering: str | None
    price: Decimal


@dataclass(frozen=True)
class PoolCost:
    """What a change does to one NodePool's capacity and spend.

    ``added``/``removed`` map a capacity type to the instance types the pool admits with an offering of that
    type after/before but not before/after. ``ceiling_*`` is the simulator's ``worst_case_hourly`` (None:
    unbounded or not priced, see ``unbounded_*``); ``present_*`` False when the pool is absent on that side.
    """

    pool: str
    present_before: bool
    present_after: bool
    added: Mapping[str, tuple[str, ...]]
    removed: Mapping[str, tuple[str, ...]]
    ceiling_before: Decimal | None
    ceiling_after: Decimal | None
    first_before: Choice | None
    first_after: Choice | None
    unbounded_before: bool
    unbounded_after: bool


@dataclass(frozen=True)
class EnvironmentCost:
    """The sum of the worst-case ceilings of an environment's pools, before and after, and its changed pools."""

    environment: str
    before: Decimal
    after: Decimal
    unbounded_before: tuple[str, ...]
    unbounded_after: tuple[str, ...]
    pools: tuple[PoolCost, ...]

    @property
    def increase_percent(self) -> Decimal | None:
        """(after - before) / before in percent; None when ``before`` is 0 (any rise is unbounded in percent)."""
        if self.before == 0:
            return None
        return (self.after - self.before) * 100 / self.before

    def exceeds(self, percent: Decimal) -> bool:
        """Whether the ceiling rises by more than ``percent``; a new unbounded pool, or a rise from 0, always does."""
        if set(self.unbounded_after) - set(self.unbounded_before):
            return True
        change = self.increase_percent
        return self.after > self.before if change is None else change > percent


@dataclass(frozen=True)
class CostReport:
    """Per-environment cost changes and the price list they were computed with."""

    catalog: Catalog
    embedded: bool
    environments: tuple[EnvironmentCost, ...]

    def price_list(self) -> str:
        where = "embedded catalog" if self.embedded else "catalog file"
        return f"{where} {self.catalog.source} ({self.catalog.region}, {self.catalog.date}; on-demand prices)"


def _unbounded(report: PoolReport) -> bool:
    """A dynamic pool without a GPU limit: its spend has no ceiling (the simulator's note says so)."""
    return report.kind == "dynamic" and report.gpu_limit is None and bool(report.candidates)


def _offered(report: PoolReport | None) -> set[tuple[str, str]]:
    """(capacity type, instance type) for every admitted type and offering the simulator found for the pool."""
    if report is None:
        return set()
    return {(o.offering.capacity_type, c.name) for c in report.candidates for o in c.offerings}


def _first(report: PoolReport | None) -> Choice | None:
    """The cheapest priced candidate (candidates are sorted by price, unknown prices last)."""
    if report is None or not report.candidates:
        return None
    c = report.candidates[0]
    return None if c.price is None else Choice(c.name, c.cheapest_offering(Requirements()), c.price)


def _by_capacity(pairs: set[tuple[str, str]]) -> dict[str, tuple[str, ...]]:
    out: dict[str, list[str]] = {}
    for capacity_type, name in sorted(pairs):
        out.setdefault(capacity_type, []).append(name)
    return {k: tuple(v) for k, v in out.items()}


def _reports(env: dict[Key, dict], catalog: Catalog) -> dict[str, PoolReport]:
    manifests = [m for (api, _, _), m in sorted(env.items()) if api != "helm"]
    return {r.name: r for r in simulate_pools(manifests, catalog)}


def _environment_cost(environment: str, base_env: dict[Key, dict], head_env: dict[Key, dict],
                      catalog: Catalog) -> EnvironmentCost:
    old, new = _reports(base_env, catalog), _reports(head_env, catalog)
    pools = []
    for name in sorted(set(old) | set(new)):
        a, b = old.get(name), new.get(name)
        before, after = _offered(a), _offered(b)
        cost = PoolCost(
            pool=name, present_before=a is not None, present_after=b is not None,
            added=_by_capacity(after - before), removed=_by_capacity(before - after),
            ceiling_before=a.worst_case_hourly if a else None, ceiling_after=b.worst_case_hourly if b else None,
            first_before=_first(a), first_after=_first(b),
            unbounded_before=bool(a and _unbounded(a)), unbounded_after=bool(b and _unbounded(b)))
        if (cost.added or cost.removed or cost.ceiling_before != cost.ceiling_after or cost.first_before !=
                cost.first_after or cost.present_before != cost.present_after
                or cost.unbounded_before != cost.unbounded_after):
            pools.append(cost)
    total = lambda reports: sum((r.worst_case_hourly or Decimal(0) for r in reports.values()), Decimal(0))  # noqa: E731
    return EnvironmentCost(environment, total(old), total(new),
                           tuple(sorted(n for n, r in old.items() if _unbounded(r))),
                           tuple(sorted(n for n, r in new.items() if _unbounded(r))), tuple(pools))


def cost_changes(base: Side, head: Side, catalog: Catalog | None = None) -> CostReport:
    """What the change does to each environment's GPU capacity and worst-case spend.

    Every figure comes from :func:`~karpenter_gpu.analysis.simulator.simulate_pools` run on each side (the
    scheduling core matches requirements, the overlay resolution re-prices offerings), so NodeOverlay, limit,
    requirement and capacity-type changes show up as the simulator sees them. Environments without a
    cost change are left out.
    """
    embedded = catalog is None
    catalog = catalog if catalog is not None else default_catalog()
    envs = []
    for environment in sorted(set(base) | set(head)):
        cost = _environment_cost(environment, base.get(environment, {}), head.get(environment, {}), catalog)
        if cost.pools or cost.before != cost.after:
            envs.append(cost)
    return CostReport(catalog, embedded, tuple(envs))


def _usd(amount: Decimal | None, unbounded: bool = False) -> str:
    if unbounded:
        return "unbounded"
    return "—" if amount is None else f"${amount:,.2f}/h"


def _delta(before: Decimal, after: Decimal) -> str:
    sign = "+" if after >= before else "-"
    text = f"{sign}${abs(after - before):,.2f}/h"
    if before:
        text += f" ({sign}{abs(after - before) * 100 / before:.1f}%)"
    return text


def _choice(choice: Choice | None) -> str:
    if choice is None:
        return "none"
    return f"{choice.instance} {choice.offering or ''} ${choice.price:,.2f}/h".replace("  ", " ")


def _types(by_capacity: Mapping[str, tuple[str, ...]]) -> str:
    return "; ".join(f"{ct}: {', '.join(names)}" for ct, names in by_capacity.items()) or "none"


def _pool_ceiling(p: PoolCost, before: bool) -> str:
    if not (p.present_before if before else p.present_after):
        return "absent"
    return _usd(p.ceiling_before if before else p.ceiling_after, p.unbounded_before if before else p.unbounded_after)


def _ceilings(p: PoolCost) -> str:
    a, b = _pool_ceiling(p, True), _pool_ceiling(p, False)
    return f"{a} (unchanged)" if a == b else f"{a} → {b}"


def _choices(p: PoolCost) -> str:
    a, b = _choice(p.first_before), _choice(p.first_after)
    return f"{a} (unchanged)" if a == b else f"{a} → {b}"


def cost_json(report: CostReport) -> dict:
    """The cost report as plain JSON types; money as strings with two decimals, keys in a fixed order."""
    money = lambda d: None if d is None else f"{d:.2f}"  # noqa: E731
    choice = lambda c: None if c is None else {"instance": c.instance, "offering": c.offering,  # noqa: E731
                                               "price": money(c.price)}
    return {
        "priceList": {"embedded": report.embedded, "source": report.catalog.source,
                      "region": report.catalog.region, "date": report.catalog.date},
        "note": EVENTUALLY_CONSISTENT,
        "environments": [{
            "environment": e.environment, "ceilingBefore": money(e.before), "ceilingAfter": money(e.after),
            "increasePercent": None if e.increase_percent is None else f"{e.increase_percent:.1f}",
            "unboundedBefore": list(e.unbounded_before), "unboundedAfter": list(e.unbounded_after),
            "pools": [{
                "nodePool": p.pool, "presentBefore": p.present_before, "presentAfter": p.present_after,
                "ceilingBefore": money(p.ceiling_before), "ceilingAfter": money(p.ceiling_after),
                "unboundedBefore": p.unbounded_before, "unboundedAfter": p.unbounded_after,
                "firstChoiceBefore": choice(p.first_before), "firstChoiceAfter": choice(p.first_after),
                "typesAdded": {k: list(v) for k, v in p.added.items()},
                "typesRemoved": {k: list(v) for k, v in p.removed.items()},
            } for p in e.pools],
        } for e in report.environments],
    }


def cost_text(report: CostReport) -> str:
    lines = [f"Cost (prices: {report.price_list()}; {EVENTUALLY_CONSISTENT}):"]
    if not report.environments:
        lines.append("  no change to any pool's instance types, first choice or worst-case ceiling")
    for e in report.environments:
        lines.append(f"  {e.environment}: worst-case ceiling {_usd(e.before)} → {_usd(e.after)} "
                     f"({_delta(e.before, e.after)})")
        if e.unbounded_after:
            lines.append(f"    unbounded (no GPU limit) after: {', '.join(e.unbounded_after)}")
        for p in e.pools:
            lines.append(f"    NodePool {p.pool}: ceiling {_ceilings(p)}; first choice {_choices(p)}")
            if p.added:
                lines.append(f"      types added: {_types(p.added)}")
            if p.removed:
                lines.append(f"      types removed: {_types(p.removed)}")
    return "\n".join(lines) + "\n"


def cost_markdown(report: CostReport) -> str:
    lines = ["| Environment | Worst-case before | Worst-case after | Change |", "|---|---|---|---|"]
    for e in report.environments:
        after = _usd(e.after) + (f" + unbounded: {', '.join(e.unbounded_after)}" if e.unbounded_after else "")
        lines.append(f"| {_cell(e.environment)} | {_usd(e.before)} | {_cell(after)} | {_delta(e.before, e.after)} |")
    if not report.environments:
        lines.append("| (none) | — | — | no cost change |")
    lines += ["", f"Prices: {_cell(report.price_list())}. {EVENTUALLY_CONSISTENT[0].upper()}{EVENTUALLY_CONSISTENT[1:]}."]
    pools = [(e.environment, p) for e in report.environments for p in e.pools]
    if pools:
        lines += ["", "| Environment | NodePool | Ceiling | First choice | Types added | Types removed |",
                  "|---|---|---|---|---|---|"]
        for env, p in pools:
            lines.append(f"| {_cell(env)} | `{p.pool}` | {_ceilings(p)} | {_cell(_choices(p))} | "
                         f"{_cell(_types(p.added))} | {_cell(_types(p.removed))} |")
    return "\n".join(lines) + "\n"


def cost_exceeded(report: CostReport, percent: Decimal) -> list[str]:
    """The environments whose worst-case ceiling rises by more than ``percent`` (``--fail-on cost-increase``)."""
    return [e.environment for e in report.environments if e.exceeds(percent)]


# ----------------------------------------------------------------------------------------------- render


def summary(changes: list[Change]) -> str:
    if not changes:
        return "No changes."
    counts = Counter(c.category for c in changes)
    parts = [f"{counts[c]} {c.value}" for c in Category if counts[c]]
    return f"{len(changes)} change{'s' if len(changes) != 1 else ''}: " + ", ".join(parts)


def _environments(changes: list[Change]) -> dict[str, list[Change]]:
    grouped: dict[str, list[Change]] = {}
    for change in sorted(changes, key=Change.sort_key):
        grouped.setdefault(change.environment, []).append(change)
    return grouped


def _object(change: Change) -> str:
    return f"helm {change.name}" if change.kind == "Values" else f"{change.kind} {change.name}"


def render_text(changes: list[Change], cost: CostReport | None = None) -> str:
    """The changes by environment and category, then the cost section when ``cost`` is given."""
    tail = "\n" + cost_text(cost) if cost is not None else ""
    if not changes:
        return "No changes.\n" + tail
    lines = [summary(changes)]
    for environment, items in _environments(changes).items():
        lines += ["", f"{environment}:"]
        for change in items:
            lines.append(f"  {_object(change)}: {change.category.value}")
            lines += [f"    - {reason}" for reason in change.reasons]
    return "\n".join(lines) + "\n" + tail


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def render_markdown(changes: list[Change], cost: CostReport | None = None) -> str:
    """A pull-request comment: the cost summary table on top (when ``cost`` is given), then the changes."""
    top = ["", cost_markdown(cost).rstrip("\n")] if cost is not None else []
    if not changes:
        return "\n".join(["**karpenter-gpu diff**: No changes.", *top]) + "\n"
    lines = [f"**karpenter-gpu diff**: {summary(changes)}", *top]
    for environment, items in _environments(changes).items():
        lines += ["", f"### {environment}", "", "| Object | Category | Reasons |", "|---|---|---|"]
        for change in items:
            obj = f"helm `{change.name}`" if change.kind == "Values" else f"{change.kind} `{change.name}`"
            reasons = "<br>".join(_cell(r) for r in change.reasons)
            lines.append(f"| {obj} | {change.category.value} | {reasons} |")
    return "\n".join(lines) + "\n"


def render_json(changes: list[Change], cost: CostReport | None = None) -> str:
    """Stable JSON for machines: sorted changes, the cost report, fixed key order."""
    import json
    document: dict[str, Any] = {
        "summary": summary(changes),
        "changes": [{"environment": c.environment, "kind": c.kind, "name": c.name, "category": c.category.name,
                     "effect": c.category.value, "reasons": list(c.reasons)} for c in changes],
    }
    if cost is not None:
        document["cost"] = cost_json(cost)
    return json.dumps(document, indent=2) + "\n"


# ---------------------------------------------------------------------------------------------------- CLI


def failed(changes: list[Change], fail_on: Iterable[str]) -> bool:
    watched = frozenset().union(*(FAIL_ON[f] for f in fail_on))
    return any(c.category in watched for c in changes)
