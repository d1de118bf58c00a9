"""Which objects of one environment become construct calls: every ``EC2NodeClass`` a checked ``GpuNodeClass``
call (every Auto Mode ``NodeClass`` a checked ``AutoModeNodeClass`` call) keeps as it is, then every ``NodePool`` on such a node class that a checked pool call keeps as it is (a pool
construct refers to its node class by object, so a pool on a node class kept as given stays as given too), and
every ``NodeOverlay`` a checked ``NodeOverlayDiscourage`` call keeps as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from karpenter_gpu.importer.fit import (
    Call,
    Checker,
    Unfit,
    auto_mode_node_class_call,
    dig,
    node_class_call,
    variable_name,
)
from karpenter_gpu.importer.pool_fit import POOLS, pool_call
from karpenter_gpu.k8s.input_layout import metadata
from karpenter_gpu.importer.overlay_fit import overlay_call
from karpenter_gpu.k8s.labels import AUTO_MODE_NODE_CLASS_KIND, NODE_CLASS_KIND, NODEPOOL_KIND, OVERLAY_KIND


@dataclass
class Adopted:
    """The node class calls (written first, in input order) and, per object index, its call or why not."""

    node_classes: list[Call] = field(default_factory=list)
    calls: dict[int, Call] = field(default_factory=dict)
    unfit: dict[int, Unfit] = field(default_factory=dict)


def _is(manifest: dict, kind: tuple[str, str]) -> bool:
    return (manifest.get("apiVersion"), manifest.get("kind")) == kind


def _without_node_class(manifest: dict, construct_id: str, ref: object, checker: Checker) -> Unfit:
    """Why a pool whose node class is no construct stays as given: that, and the pool's own field when a pool
    construct would not keep it either (checked on a stand-in node class of the referenced name)."""
    name = ref.get("name") if isinstance(ref, dict) else None
    kept = Unfit(POOLS, "spec.template.spec.nodeClassRef", "its EC2NodeClass is not a GpuNodeClass construct here "
                 "(kept as given or not in this environment), and a pool construct refers to one")
    if not isinstance(name, str):
        return kept
    stand_in = Call("GpuNodeClass", "stand_in", "GpuNodeClass(chart, 'stand-in', name=" + repr(name) +
                    ", ami='al2023@v20251103', role='stand-in', cluster_name='stand-in')", {"GpuNodeClass"})
    found = pool_call(manifest, construct_id, "stand_in")
    own = checker.check([stand_in], found, manifest) if isinstance(found, Call) else found
    if own is None:
        kept.detail += "; the pool itself would be written as it is once its node class is one"
        return kept
    own.detail += "; besides, its EC2NodeClass is not a GpuNodeClass construct here"
    return own


def adopt(manifests: list[dict], ids: list[str], checker: Checker) -> Adopted:
    """The construct calls that keep ``manifests`` (objects as read, ``ids`` their construct ids) as they are."""
    out = Adopted()
    by_name: dict[tuple[str, str], Call] = {}  # (kind, name): the two node class kinds may share a name
    variables: set[str] = set()
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
    referenced: set[str] = set()
    for index, manifest in enumerate(manifests):
        if not _is(manifest, NODEPOOL_KIND):
            continue
        ref = dig(manifest, "spec", "template", "spec", "nodeClassRef")
        groups = {kind: api.split("/")[0] for api, kind in (NODE_CLASS_KIND, AUTO_MODE_NODE_CLASS_KIND)}
        known = isinstance(ref, dict) and groups.get(str(ref.get("kind"))) == ref.get("group")
        node_class = by_name.get((str(ref.get("kind")), str(ref.get("name")))) if known else None
        if node_class is None or node_class.variable is None:
            out.unfit[index] = _without_node_class(manifest, ids[index], ref, checker)
            continue
        found = pool_call(manifest, ids[index], node_class.variable)
        if isinstance(found, Call):
            found = checker.check([node_class], found, manifest) or found
        if isinstance(found, Call):
            out.calls[index] = found
            referenced.add(node_class.variable)
        else:
            out.unfit[index] = found
    for index, manifest in enumerate(manifests):
        if _is(manifest, OVERLAY_KIND):
            found = overlay_call(manifest, ids[index])
            if isinstance(found, Call):
                found = checker.check([], found, manifest) or found
            if isinstance(found, Call):
                out.calls[index] = found
            else:
                out.unfit[index] = found
    for c in out.node_classes:
        if c.variable not in referenced:
            c.variable = None  # nothing refers to it: a bare call (no unused name)
    return out
