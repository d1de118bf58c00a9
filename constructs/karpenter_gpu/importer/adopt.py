"""Which objects of one environment become construct calls: every ``EC2NodeClass`` a checked ``GpuNodeClass``
call (every Auto Mode ``NodeClass`` a checked ``AutoModeNodeClass`` call) keeps as it is, then every ``NodePool`` on
such a node class that a checked pool call keeps as it is (a pool construct refers to its node class by object, so a
pool on a node class kept as given stays as given too), then every ``NodeOverlay`` a checked overlay call keeps as it
is, and every hybrid group's ConfigMap a checked ``HybridGpuNodeGroup`` call keeps as it is. A call may write several objects: a ``MigPartitionedPool`` its NodePool and its MIG NodeOverlays, a
``StaticCapacityPool`` one NodePool per zone, a ``TimeSlicingOverlay`` one NodeOverlay per GPU count; it is kept only
when it writes each of them as read and nothing else (the others are ``covered`` by it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from karpenter_gpu.importer.fit import (
    Call,
    Checker,
    Unfit,
    auto_mode_node_class_call,
    dig,
    node_class_call,
    variable_name,
)
from karpenter_gpu.importer.ladder_fit import ladder_call, ladders
from karpenter_gpu.importer.hybrid_fit import hybrid_call, is_hybrid
from karpenter_gpu.importer.overlay_fit import (
    gpu_capacity_call,
    is_gpu_capacity,
    mig_overlay,
    mig_overlay_call,
    overlay_call,
    time_slicing_call,
    time_slicing_groups,
)
from karpenter_gpu.importer.pool_fit import POOLS, pool_kwargs, pool_text
from karpenter_gpu.k8s.input_layout import metadata
from karpenter_gpu.k8s.labels import AUTO_MODE_NODE_CLASS_KIND, NODE_CLASS_KIND, NODEPOOL_KIND, OVERLAY_KIND


@dataclass
class Adopted:
    """The node class calls (written first, in input order) and, per object index, its call or why not; an object
    another object's call writes too is ``covered`` (its index → that object's index)."""

    node_classes: list[Call] = field(default_factory=list)
    calls: dict[int, Call] = field(default_factory=dict)
    unfit: dict[int, Unfit] = field(default_factory=dict)
    covered: dict[int, int] = field(default_factory=dict)


def _is(manifest: dict, kind: tuple[str, str]) -> bool:
    return (manifest.get("apiVersion"), manifest.get("kind")) == kind


def _mig_overlays(manifests: list[dict], kwargs: dict[str, Any]) -> list[int]:
    """The overlays of the input a MIG pool of these props would write (one per instance type, its pool by name);
    their first weight and resources give ``overlay_weight`` and ``mig_strategy``."""
    found = [(i, mig_overlay(m)) for i, m in enumerate(manifests) if _is(m, OVERLAY_KIND)]
    mine = [(i, f) for i, f in found if f is not None and f[0] == kwargs["name"]]
    weights = [f[3] for _, f in mine if isinstance(f[3], int)]
    if weights:
        kwargs["overlay_weight"] = min(weights)
    if any("nvidia.com/gpu" in f[2] for _, f in mine):
        kwargs["mig_strategy"] = "single"
    return [i for i, _ in mine]


def _candidate(manifests: list[dict], index: int) -> tuple[str, dict[str, Any], list, list[int]] | Unfit:
    """The pool construct, props, acknowledgements and the overlay indices its call would write too."""
    found = pool_kwargs(manifests[index])
    if isinstance(found, Unfit):
        return found
    construct, kwargs, acks = found
    related = _mig_overlays(manifests, kwargs) if construct == "MigPartitionedPool" else []
    return construct, kwargs, acks, related


def _without_node_class(manifests: list[dict], index: int, construct_id: str, ref: object, checker: Checker) -> Unfit:
    """Why a pool whose node class is no construct stays as given: that, and the pool's own field when a pool
    construct would not keep it either (checked on a stand-in node class of the referenced name)."""
    name = ref.get("name") if isinstance(ref, dict) else None
    kept = Unfit(POOLS, "spec.template.spec.nodeClassRef", "its EC2NodeClass is not a GpuNodeClass construct here "
                 "(kept as given or not in this environment), and a pool construct refers to one")
    if not isinstance(name, str):
        return kept
    stand_in = Call("GpuNodeClass", "stand_in", "GpuNodeClass(chart, 'stand-in', name=" + repr(name) +
                    ", ami='al2023@v20251103', role='stand-in', cluster_name='stand-in')", {"GpuNodeClass"})
    found = _candidate(manifests, index)
    if isinstance(found, Unfit):
        own: Unfit | None = found
    else:
        construct, kwargs, acks, related = found
        candidate = pool_text(construct, kwargs, acks, construct_id, "stand_in", "pool")
        own = checker.check([stand_in], candidate, [manifests[i] for i in (index, *related)])
    if own is None:
        kept.detail += "; the pool itself would be written as it is once its node class is one"
        return kept
    own.detail += "; besides, its EC2NodeClass is not a GpuNodeClass construct here"
    return own


def _node_classes(manifests: list[dict], ids: list[str], checker: Checker, out: Adopted,
                  variables: set[str]) -> dict[tuple[str, str], Call]:
    by_name: dict[tuple[str, str], Call] = {}  # (kind, name): the two node class kinds may share a name
    for index, manifest in enumerate(manifests):
        if _is(manifest, NODE_CLASS_KIND):
            make = node_class_call
        elif _is(manifest, AUTO_MODE_NODE_CLASS_KIND):
            make = auto_mode_node_class_call
        else:
            continue
        name = metadata(manifest).get("name")
        found = make(manifest, ids[index], variable_name("node_class", name, index, variables))
        if isinstance(found, Call):
            found = checker.check([], found, manifest) or found
        if isinstance(found, Call) and isinstance(name, str):
            by_name[(str(manifest["kind"]), name)] = found
            out.node_classes.append(found)
            out.calls[index] = found
        elif isinstance(found, Unfit):
            out.unfit[index] = found
    return by_name


def _keep(out: Adopted, indices: list[int], found: Call) -> None:
    out.calls[indices[0]] = found
    out.covered.update({i: indices[0] for i in indices[1:]})
    for i in indices:  # a larger call tried first may have said why not
        out.unfit.pop(i, None)


def _static_groups(manifests: list[dict], ids: list[str], checker: Checker, out: Adopted, referenced: set[str],
                   statics: dict[tuple[str, str], list[tuple[int, Call, tuple]]], variables: set[str]) -> None:
    """Static pools of one name and node class: one call for every zone when the pools differ only in their zone
    (and that call writes them all as read), else one call each."""
    for (variable, _), members in statics.items():
        first = members[0][2]
        zones = [m[2][1].get("zones") or () for m in members]
        same = all({k: v for k, v in m[2][1].items() if k != "zones"} == {k: v for k, v in first[1].items()
                                                                          if k != "zones"} and m[2][2] == first[2]
                   for m in members)
        if len(members) > 1 and same and all(len(z) == 1 for z in zones) \
                and _static_call(manifests, ids, checker, out, members, variable, variables):
            referenced.add(variable)
            continue
        for member in members:
            if _static_call(manifests, ids, checker, out, [member], variable, variables):
                referenced.add(variable)


def _static_call(manifests: list[dict], ids: list[str], checker: Checker, out: Adopted,
                 group: list[tuple[int, Call, tuple]], variable: str, variables: set[str]) -> bool:
    """Whether one ``StaticCapacityPool`` call (the group's zones) writes the group's NodePools as read; kept if so,
    else each member's reason recorded."""
    index, node_class, (construct, kwargs, acks) = group[0]
    kwargs = {**kwargs, "zones": tuple(z for m in group for z in m[2][1].get("zones") or ())}
    if not kwargs["zones"]:
        del kwargs["zones"]
    name = variable_name("pool", kwargs["name"], index, variables) if acks else None
    candidate = pool_text(construct, kwargs, acks, ids[index], variable, name)
    unfit = checker.check([node_class], candidate, [manifests[m[0]] for m in group])
    if unfit is None:
        _keep(out, [m[0] for m in group], candidate)
        return True
    out.unfit.update({m[0]: unfit for m in group})
    return False


def _pools(manifests: list[dict], ids: list[str], checker: Checker, out: Adopted,
           by_name: dict[tuple[str, str], Call], variables: set[str]) -> set[str]:
    referenced: set[str] = set()
    statics: dict[tuple[str, str], list[tuple[int, Call, tuple]]] = {}
    plain: dict[str, list[tuple[int, dict[str, Any]]]] = {}  # inference pools by node class: maybe a ladder
    for index, manifest in enumerate(manifests):
        if not _is(manifest, NODEPOOL_KIND):
            continue
        ref = dig(manifest, "spec", "template", "spec", "nodeClassRef")
        groups = {kind: api.split("/")[0] for api, kind in (NODE_CLASS_KIND, AUTO_MODE_NODE_CLASS_KIND)}
        known = isinstance(ref, dict) and groups.get(str(ref.get("kind"))) == ref.get("group")
        node_class = by_name.get((str(ref.get("kind")), str(ref.get("name")))) if known else None
        if node_class is None or node_class.variable is None:
            out.unfit[index] = _without_node_class(manifests, index, ids[index], ref, checker)
            continue
        found = _candidate(manifests, index)
        if isinstance(found, Unfit):
            out.unfit[index] = found
            continue
        construct, kwargs, acks, related = found
        if construct == "StaticCapacityPool":
            statics.setdefault((node_class.variable, kwargs["name"]), []).append(
                (index, node_class, (construct, kwargs, acks)))
            continue
        name = variable_name("pool", kwargs["name"], index, variables) if acks else None
        candidate = pool_text(construct, kwargs, acks, ids[index], node_class.variable, name)
        unfit = checker.check([node_class], candidate, [manifests[i] for i in (index, *related)])
        if unfit is None:
            _keep(out, [index, *related], candidate)
            referenced.add(node_class.variable)
            if construct == "GpuInferencePool" and not acks:
                plain.setdefault(node_class.variable, []).append((index, kwargs))
        else:
            out.unfit[index] = unfit
    _static_groups(manifests, ids, checker, out, referenced, statics, variables)
    _ladders(manifests, ids, checker, out, by_name, plain)
    return referenced


def _ladders(manifests: list[dict], ids: list[str], checker: Checker, out: Adopted,
             by_name: dict[tuple[str, str], Call], plain: dict[str, list[tuple[int, dict[str, Any]]]]) -> None:
    """Inference pools (each already kept by its own call) that one ``TieredSpotPools`` call writes together."""
    classes = {c.variable: c for c in by_name.values()}
    for variable, members in plain.items():
        for indices, props in ladders(members):
            candidate = ladder_call(props, ids[indices[0]], variable)
            if checker.check([classes[variable]], candidate, [manifests[i] for i in indices]) is None:
                for i in indices:
                    del out.calls[i]
                _keep(out, indices, candidate)


def _overlays(manifests: list[dict], ids: list[str], checker: Checker, out: Adopted) -> None:
    rest = {i: m for i, m in enumerate(manifests) if _is(m, OVERLAY_KIND) and i not in out.covered}
    for indices, kwargs in time_slicing_groups(rest):
        found = time_slicing_call(kwargs, ids[indices[0]])
        if isinstance(found, Call) and checker.check([], found, [manifests[i] for i in indices]) is None:
            _keep(out, indices, found)
    for index, manifest in rest.items():
        if index in out.calls or index in out.covered:
            continue
        make = mig_overlay_call if mig_overlay(manifest) is not None else \
            gpu_capacity_call if is_gpu_capacity(manifest) else overlay_call
        _record(out, index, make(manifest, ids[index]), manifest, checker)


def _record(out: Adopted, index: int, found: Call | Unfit, manifest: dict, checker: Checker) -> None:
    """A one-object call kept when its synth writes ``manifest`` as read, else the reason it is not."""
    if isinstance(found, Call):
        found = checker.check([], found, manifest) or found
    if isinstance(found, Call):
        out.calls[index] = found
    else:
        out.unfit[index] = found


def adopt(manifests: list[dict], ids: list[str], checker: Checker) -> Adopted:
    """The construct calls that keep ``manifests`` (objects as read, ``ids`` their construct ids) as they are."""
    out = Adopted()
    variables: set[str] = set()
    by_name = _node_classes(manifests, ids, checker, out, variables)
    referenced = _pools(manifests, ids, checker, out, by_name, variables)
    _overlays(manifests, ids, checker, out)
    for index, manifest in enumerate(manifests):  # a hybrid group's description ConfigMap
        if is_hybrid(manifest):
            _record(out, index, hybrid_call(manifest, ids[index]), manifest, checker)
    for c in out.node_classes:
        if c.variable not in referenced:
            c.variable = None  # nothing refers to it: a bare call (no unused name)
    return out
