"""``karpenter-gpu import --opinionated``: the constructs' opinions as a follow-up to review, never forced.

Each EC2NodeClass and NodePool becomes its construct's call with the construct's defaults, keeping only what the
object says about *where*, *as whom* and *what* to run, which no default can know:

- ``GpuNodeClass``: the name, the AMI alias, the role (or instance profile), the subnet and security group
  selection, the EC2 tags and the user data; its opinions (the encrypted gp3 root volume preset, IMDS hop limit 1,
  the metadata options) take the defaults.
- ``GpuInferencePool`` / ``GpuTrainingPool``: the name, the node class, the GPU limit and, where a requirement
  states them, the GPU names, capacity types and zones (a training pool also keeps its ``expireAfter``, which the
  construct requires as an explicit choice); its opinions (labels, the ``gpu-operator`` label, the GPU taint,
  the derived requirements, consolidation, budgets, weight, expiry) take the defaults.

An Auto Mode ``NodeClass`` becomes the ``AutoModeNodeClass`` call that keeps it (the construct has no opinion of its
own there); its pools take the Auto Mode defaults. An object without what its construct needs (no single alias, no GPU limit, no node class construct) stays as given,
with the reason. ``karpenter-gpu diff INPUT <synth of this app>`` then shows what each opinion costs: which pools'
nodes drift or are replaced, and why (the command prints it).
"""

from __future__ import annotations

from typing import Any

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.importer.adopt import Adopted
from karpenter_gpu.importer.fit import (
    Call,
    Checker,
    Unfit,
    refusal_field,
    auto_mode_node_class_call,
    dig,
    identity_props,
    variable_name,
)
from karpenter_gpu.importer.pool_fit import POOLS
from karpenter_gpu.importer.pysource import call
from karpenter_gpu.k8s.input_layout import metadata
from karpenter_gpu.k8s.labels import AUTO_MODE_NODE_CLASS_KIND, NODE_CLASS_KIND, NODEPOOL_KIND, Label, auto_mode_key
from karpenter_gpu.k8s.requirements import CapacityType
from karpenter_gpu.k8s.units import Duration
from karpenter_gpu.pools.gpu_inference_pool import GpuInferencePoolProps
from karpenter_gpu.pools.gpu_node_class import GpuNodeClassProps
from karpenter_gpu.pools.gpu_training_pool import GpuTrainingPoolProps


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def node_class_opinion(manifest: dict, construct_id: str, variable: str) -> Call | Unfit:
    """``GpuNodeClass`` with its defaults, keeping the object's identity, AMI, role, selection, tags, user data."""
    spec = _dict(manifest.get("spec"))
    terms = spec.get("amiSelectorTerms")
    if not (isinstance(terms, list) and len(terms) == 1 and isinstance(terms[0], dict) and list(terms[0]) == ["alias"]):
        return Unfit("GpuNodeClass", "spec.amiSelectorTerms", "the construct selects one pinned alias")
    kwargs: dict[str, Any] = {"name": metadata(manifest).get("name"), "ami": terms[0]["alias"]}
    unfit = identity_props(spec, kwargs)
    if unfit is not None:
        return unfit
    for key, prop in (("tags", "tags"), ("userData", "user_data")):
        if key in spec:
            kwargs[prop] = spec[key]
    try:
        GpuNodeClassProps(**kwargs)
    except (KarpenterGpuError, ValueError, TypeError) as err:  # ValueError: pydantic's, for a wrong type
        return Unfit("GpuNodeClass", refusal_field(err), str(err))
    names: set[str] = set()
    return Call("GpuNodeClass", variable, call("GpuNodeClass", kwargs, names, 0, head=f"chart, {construct_id!r}"),
                names)


def _values(requirements: list[Any], key: str) -> tuple[str, ...] | None:
    """The values of the first ``key In`` requirement, None when there is none."""
    for r in requirements:  # in either spelling: Auto Mode pools write eks.amazonaws.com/ keys
        if isinstance(r, dict) and r.get("key") in (key, auto_mode_key(key)) and r.get("operator") == "In" \
                and isinstance(r.get("values"), list):
            return tuple(str(v) for v in r["values"])
    return None


def pool_opinion(manifest: dict, construct_id: str, node_class: str) -> Call | Unfit:
    """The pool construct with its defaults, keeping the name, node class, GPU limit, GPU names, capacity types
    and zones (and a training pool's expiry)."""
    spec = _dict(manifest.get("spec"))
    template = _dict(spec.get("template"))
    tspec = _dict(template.get("spec"))
    found = tspec.get("requirements")
    requirements: list[Any] = found if isinstance(found, list) else []
    limit = _dict(spec.get("limits")).get("nvidia.com/gpu")
    if isinstance(limit, bool) or not (isinstance(limit, int) or (isinstance(limit, str) and limit.isdigit())):
        return Unfit(POOLS, "spec.limits", "no nvidia.com/gpu count to keep, and the pool constructs require one")
    name = metadata(manifest).get("name")
    kwargs: dict[str, Any] = {"name": name}
    for key, prop in ((Label.GPU_NAME, "gpu_names"), (Label.ZONE, "zones")):
        values = _values(requirements, key)
        if values is not None:
            kwargs[prop] = values
    capacity = _values(requirements, Label.CAPACITY_TYPE)
    labels = _dict(template.get("metadata")).get("labels")
    said = [name, *(labels.values() if isinstance(labels, dict) else ())]
    training = any("training" in str(s) for s in said)
    construct = "GpuTrainingPool" if training else "GpuInferencePool"
    kwargs["gpu_limit"] = int(limit)
    try:
        if capacity is not None:
            kwargs["capacity_types"] = tuple(CapacityType(v) for v in capacity)
        if training:
            kwargs["expire_after"] = Duration.parse(tspec.get("expireAfter", "720h"))
        (GpuTrainingPoolProps if training else GpuInferencePoolProps)(**kwargs)
    except (KarpenterGpuError, ValueError, TypeError) as err:
        return Unfit(POOLS, refusal_field(err), str(err))
    names: set[str] = set()
    return Call(construct, None, call(construct, kwargs, names, 0,
                                      head=f"chart, {construct_id!r}, node_class={node_class}"), names)


def opinions(manifests: list[dict], ids: list[str], checker: Checker) -> Adopted:
    """The node class calls (written first) and, per EC2NodeClass and NodePool index, its call with the
    constructs' defaults or why it stays as given. Each call is built in a scratch chart first (a construct that
    refuses it leaves the object as given)."""
    found: dict[int, Call | Unfit] = {}
    classes: dict[tuple[str, str], Call] = {}  # (kind, name)
    variables: set[str] = set()
    for i, m in enumerate(manifests):
        kind = (m.get("apiVersion"), m.get("kind"))
        if kind not in (NODE_CLASS_KIND, AUTO_MODE_NODE_CLASS_KIND):
            continue
        name = metadata(m).get("name")
        # an Auto Mode NodeClass has no opinions of the construct's to adopt: its call keeps it as it is
        make = node_class_opinion if kind == NODE_CLASS_KIND else auto_mode_node_class_call
        c = make(m, ids[i], variable_name("node_class", name, i, variables))
        found[i] = (checker.build([], c) or c) if isinstance(c, Call) else c
        if isinstance(found[i], Call) and isinstance(name, str):
            classes[(str(m.get("kind")), name)] = c  # type: ignore[assignment]  # a Call, checked above
    used: set[str] = set()
    for i, m in enumerate(manifests):
        if (m.get("apiVersion"), m.get("kind")) != NODEPOOL_KIND:
            continue
        ref = dig(m, "spec", "template", "spec", "nodeClassRef")
        node_class = classes.get((str(ref.get("kind")), str(ref.get("name")))) if isinstance(ref, dict) else None
        if node_class is None or node_class.variable is None:
            found[i] = Unfit(POOLS, "spec.template.spec.nodeClassRef", "its node class is not a GpuNodeClass or "
                             "AutoModeNodeClass construct here, and a pool construct refers to one")
            continue
        c = pool_opinion(m, ids[i], node_class.variable)
        found[i] = (checker.build([node_class], c) or c) if isinstance(c, Call) else c
        if isinstance(found[i], Call):
            used.add(node_class.variable)
    out = Adopted(node_classes=list(classes.values()))
    for c in out.node_classes:
        if c.variable not in used:
            c.variable = None
    out.calls = {i: c for i, c in found.items() if isinstance(c, Call)}
    out.unfit = {i: c for i, c in found.items() if isinstance(c, Unfit)}
    return out
