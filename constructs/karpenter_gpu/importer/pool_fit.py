"""The pool construct call a NodePool suggests (checked by :class:`.fit.Checker`).

The pool constructs write the template's requirements in one order (``karpenter_gpu.pools._node_pool``
``NodePoolProps._derive_requirements``): the accelerator selection (``instance-gpu-count Gt 0``,
``instance-gpu-name In``, ``instance-gpu-memory Gte``; a Neuron pool ``instance-accelerator-manufacturer In [aws]``,
``instance-accelerator-name In``; a MIG pool then ``node.kubernetes.io/instance-type In``, derived from its config),
``instance-size In``, ``topology.kubernetes.io/zone In``, ``kubernetes.io/arch In`` when set,
``karpenter.sh/capacity-type In``, then the extra ``requirements``, then what the construct appends (a static pool's
``node.kubernetes.io/instance-type In``, a reserved pool's ``capacity-reservation-type NotIn``). A NodePool whose
requirements start that way maps onto the props; the rest of its fields map one to one (labels,
``gpu-operator=enabled`` as ``gpu_operator``, ``nvidia.com/mig.config`` as ``mig_config``, taints, expiry, grace
period, disruption, limits, weight or replicas; the budgets' notes from the ``karpenter-gpu.io/disruption-windows``
annotation, the acknowledgements of ``karpenter-gpu.io/acknowledge`` as ``acknowledge`` calls).

Which construct: a pool with ``replicas`` is a ``StaticCapacityPool``, one labelled ``nvidia.com/mig.config`` a
``MigPartitionedPool`` (with its MIG NodeOverlays), one whose capacity types start with ``reserved`` a
``ReservedCapacityPool`` (its fallback the other types), a Neuron selection the Neuron pool of that kind; else a
``GpuTrainingPool`` when it says it trains, a ``GpuInferencePool`` otherwise. Whether the call keeps the objects as
they are, the check says.
"""

from __future__ import annotations

import re
from typing import Any

from karpenter_gpu.apiserver.findings import ACKNOWLEDGE_ANNOTATION
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.importer.fit import Call, Unfit, refusal_field
from karpenter_gpu.importer.pysource import call
from karpenter_gpu.k8s.input_layout import metadata
from karpenter_gpu.k8s.labels import Label, auto_mode_key
from karpenter_gpu.k8s.mig import MIG_CONFIG_LABEL
from karpenter_gpu.k8s.requirements import CapacityType, Operator, Requirement
from karpenter_gpu.k8s.taint import Taint
from karpenter_gpu.k8s.units import Duration, GpuMemory, Quantity
from karpenter_gpu.k8s.windows import WINDOWS_ANNOTATION, window_notes
from karpenter_gpu.pools._gpu_pool import ConsolidationPolicy
from karpenter_gpu.pools._node_pool import GPU_OPERATOR_LABEL, NodePoolProps
from karpenter_gpu.pools.capacity_reservation import ReservationType
from karpenter_gpu.pools.disruption_window import Budget, DisruptionReason
from karpenter_gpu.pools.gpu_inference_pool import GpuInferencePoolProps
from karpenter_gpu.pools.gpu_training_pool import GpuTrainingPoolProps
from karpenter_gpu.pools.mig_partitioned_pool import MigPartitionedPoolProps
from karpenter_gpu.pools.neuron_inference_pool import NeuronInferencePoolProps
from karpenter_gpu.pools.neuron_reserved_capacity_pool import NeuronReservedCapacityPoolProps
from karpenter_gpu.pools.neuron_training_pool import NeuronTrainingPoolProps
from karpenter_gpu.pools.reserved_capacity_pool import Fallback, ReservedCapacityPoolProps
from karpenter_gpu.pools.static_capacity_pool import SUFFIX as STATIC_SUFFIX, StaticCapacityPoolProps

#: The derived requirements after the accelerator selection, in the order the constructs write them: (key, prop).
_OPTIONAL = ((Label.INSTANCE_SIZE, "instance_sizes"), (Label.ZONE, "zones"), (Label.ARCH, "architectures"))
POOLS = "GpuInferencePool / GpuTrainingPool"
_PROPS: dict[str, type[NodePoolProps]] = {
    "GpuInferencePool": GpuInferencePoolProps, "GpuTrainingPool": GpuTrainingPoolProps,
    "ReservedCapacityPool": ReservedCapacityPoolProps, "StaticCapacityPool": StaticCapacityPoolProps,
    "MigPartitionedPool": MigPartitionedPoolProps, "NeuronInferencePool": NeuronInferencePoolProps,
    "NeuronTrainingPool": NeuronTrainingPoolProps, "NeuronReservedCapacityPool": NeuronReservedCapacityPoolProps}
#: ``fallback`` by the capacity types after ``reserved``.
_FALLBACKS = {(): Fallback.NONE, ("spot",): Fallback.SPOT, ("on-demand",): Fallback.ON_DEMAND,
              ("spot", "on-demand"): Fallback.SPOT_AND_ON_DEMAND}
#: The limit resource of each selection.
_NEURON_LIMIT = "aws.amazon.com/neuron"
_ACK = re.compile(r"(KG[0-9]{3}): (.+)\Z", re.DOTALL)


def _take(reqs: list[Any], key: str, operator: str, last: bool = False) -> dict | None:
    """The next (``last``: the last) requirement when it is ``key operator`` without minValues (and removes it),
    else None. ``key`` in either spelling: a pool on an Auto Mode node class writes ``eks.amazonaws.com/`` keys (the
    check tells which spelling the construct writes)."""
    at = -1 if last else 0
    if reqs and isinstance(reqs[at], dict) and reqs[at].get("key") == auto_mode_key(key):
        reqs[at] = {**reqs[at], "key": key}
    if reqs and isinstance(reqs[at], dict) and reqs[at].get("key") == key and reqs[at].get("operator") == operator \
            and "minValues" not in reqs[at] and isinstance(reqs[at].get("values"), list):
        return reqs.pop(at)
    return None


def _selection(reqs: list[Any], kwargs: dict[str, Any], neuron: bool, mig: bool) -> Unfit | None:
    """The accelerator selection at the head of the requirements."""
    if neuron:
        maker = _take(reqs, Label.ACCELERATOR_MANUFACTURER, "In")
        names = _take(reqs, Label.ACCELERATOR_NAME, "In") if maker and maker["values"] == ["aws"] else None
        if names is None:
            return Unfit("NeuronInferencePool / NeuronTrainingPool", "spec.template.spec.requirements[1]",
                         "the Neuron pools select by instance-accelerator-name In after the manufacturer aws")
        kwargs["accelerator_names"] = tuple(names["values"])
        return None
    count = _take(reqs, Label.GPU_COUNT, "Gt")
    if count is None or count["values"] != ["0"]:
        return Unfit(POOLS, "spec.template.spec.requirements[0]",
                     "the pool constructs start with instance-gpu-count Gt 0")
    names = _take(reqs, Label.GPU_NAME, "In")
    if names is None:
        return Unfit(POOLS, "spec.template.spec.requirements[1]",
                     "the pool constructs select GPUs by instance-gpu-name In")
    kwargs["gpu_names"] = tuple(names["values"])
    if mig and _take(reqs, Label.INSTANCE_TYPE, "In") is None:
        return Unfit("MigPartitionedPool", "spec.template.spec.requirements[2]",
                     "a MIG pool admits the instance types its config partitions (node.kubernetes.io/instance-type In)")
    memory = _take(reqs, Label.GPU_MEMORY, "Gte")
    if memory is not None and len(memory["values"]) == 1 and str(memory["values"][0]).isdigit():
        kwargs["min_gpu_memory"] = GpuMemory.mib(int(memory["values"][0]))
    elif memory is not None:
        reqs.insert(0, memory)
    return None


def _requirements(reqs: list[Any], kwargs: dict[str, Any], neuron: bool, mig: bool) -> Unfit | None:
    unfit = _selection(reqs, kwargs, neuron, mig)
    if unfit is not None:
        return unfit
    kwargs["architectures"] = ()
    for key, prop in _OPTIONAL:
        found = _take(reqs, key, "In")
        if found is not None:
            kwargs[prop] = tuple(found["values"])
    capacity = _take(reqs, Label.CAPACITY_TYPE, "In")
    if capacity is None:
        return Unfit(POOLS, "spec.template.spec.requirements",
                     "the pool constructs write karpenter.sh/capacity-type In after the instance requirements")
    kwargs["capacity_types"] = tuple(CapacityType(v) for v in capacity["values"])
    if kwargs["capacity_types"][:1] == (CapacityType.RESERVED,):
        fallback = _FALLBACKS.get(tuple(str(c) for c in kwargs.pop("capacity_types")[1:]))
        if fallback is None:
            return Unfit("ReservedCapacityPool", "spec.template.spec.requirements",
                         "the reserved pools write reserved, then spot and/or on-demand as the fallback")
        kwargs["fallback"] = fallback
        other = _take(reqs, Label.CAPACITY_RESERVATION_TYPE, "NotIn", last=True)
        if other is not None:
            kinds = [t for t in ReservationType if [str(t)] != other["values"]]
            if len(kinds) != 1:
                reqs.append(other)
            else:
                kwargs["reservation_type"] = kinds[0]
    if kwargs.get("static"):
        types = _take(reqs, Label.INSTANCE_TYPE, "In", last=True)
        if types is not None:
            kwargs["instance_types"] = tuple(types["values"])
    kwargs["requirements"] = tuple(Requirement(r["key"], Operator(r["operator"]), r.get("values") or (),
                                               r.get("minValues")) for r in reqs)
    return None


def _template(template: dict, kwargs: dict[str, Any], neuron: bool) -> Unfit | None:
    labels = dict((template.get("metadata") or {}).get("labels") or {})
    key, value = GPU_OPERATOR_LABEL
    kwargs["gpu_operator"] = labels.get(key) == value
    if kwargs["gpu_operator"]:
        del labels[key]
    if MIG_CONFIG_LABEL in labels:
        kwargs["mig_config"] = labels.pop(MIG_CONFIG_LABEL)
    kwargs["labels"] = labels
    spec = template.get("spec") or {}
    unfit = _requirements(list(spec.get("requirements") or []), kwargs, neuron, "mig_config" in kwargs)
    if unfit is not None:
        return unfit
    kwargs["taints"] = tuple(Taint(t["key"], t.get("value"), t.get("effect")) for t in spec.get("taints") or ())
    kwargs["startup_taints"] = tuple(Taint(t["key"], t.get("value"), t.get("effect"))
                                     for t in spec.get("startupTaints") or ())
    kwargs["expire_after"] = Duration.parse(spec.get("expireAfter", "720h"))
    if "terminationGracePeriod" in spec:
        kwargs["termination_grace_period"] = Duration.parse(spec["terminationGracePeriod"])
    return None


def _disruption(manifest: dict, kwargs: dict[str, Any]) -> None:
    disruption = (manifest.get("spec") or {}).get("disruption") or {}
    if not kwargs.get("static"):  # a static pool has no consolidation (KG195); the check reads what it writes
        kwargs["consolidation_policy"] = ConsolidationPolicy(disruption.get("consolidationPolicy",
                                                                            "WhenEmptyOrUnderutilized"))
        kwargs["consolidate_after"] = Duration.parse(disruption.get("consolidateAfter", "0s"))
    notes = window_notes(metadata(manifest).get("annotations") or {})
    budgets = []
    for i, b in enumerate(disruption.get("budgets", [{"nodes": "10%"}])):
        nodes = b["nodes"]
        budgets.append(Budget(nodes=int(nodes) if str(nodes).isdigit() else nodes,
                              reasons=tuple(DisruptionReason(r) for r in b.get("reasons") or ()),
                              schedule=b.get("schedule"),
                              duration=Duration.parse(b["duration"]) if "duration" in b else None, note=notes.get(i)))
    kwargs["budgets"] = tuple(budgets)


def _limits(spec: dict, kwargs: dict[str, Any], neuron: bool) -> Unfit | None:
    limits = dict(spec.get("limits") or {})
    if kwargs.get("static"):
        nodes = limits.pop("nodes", None)
        if limits or not isinstance(nodes, str) or not nodes.isdigit() or "weight" in spec:
            return Unfit("StaticCapacityPool", "spec.limits", "a static pool writes limits.nodes only, and no weight")
        kwargs["node_limit"] = int(nodes)
        return None
    resource, prop = (_NEURON_LIMIT, "neuron_limit") if neuron else ("nvidia.com/gpu", "gpu_limit")
    found = limits.pop(resource, None)
    if not isinstance(found, str) or not found.isdigit():
        return Unfit(POOLS, "spec.limits", f"the pool constructs write limits.{resource} as a count")
    kwargs[prop] = int(found)
    for key, prop in (("cpu", "cpu_limit"), ("memory", "memory_limit")):
        if key in limits:
            kwargs[prop] = Quantity(str(limits.pop(key)))
    if limits:
        return Unfit(POOLS, "spec.limits", "the pool constructs limit the accelerators, CPU and memory only")
    if "weight" not in spec:
        return Unfit(POOLS, "spec.weight", "the pool constructs always write a weight 1..100")
    kwargs["weight"] = spec["weight"]
    return None


def _construct(kwargs: dict[str, Any], neuron: bool) -> str:
    """The construct of the pool's shape (module docstring). GpuTrainingPool for a pool that says it trains (name or
    labels), else GpuInferencePool: with every prop given, both write the same object; the choice only decides which
    defaults the call can leave out (likewise for the Neuron pools)."""
    if kwargs.get("static"):
        return "StaticCapacityPool"
    if "mig_config" in kwargs:
        return "MigPartitionedPool"
    if "fallback" in kwargs:
        return "NeuronReservedCapacityPool" if neuron else "ReservedCapacityPool"
    said = [kwargs["name"], *kwargs["labels"].values()]
    training = any("training" in str(s) for s in said)
    if neuron:
        return "NeuronTrainingPool" if training else "NeuronInferencePool"
    return "GpuTrainingPool" if training else "GpuInferencePool"


def _static_name(kwargs: dict[str, Any]) -> Unfit | None:
    """A static pool's construct name: its NodePool is ``<name>-static`` or, for one zone, ``<name>-static-<zone>``."""
    name, zones = str(kwargs["name"]), tuple(kwargs.get("zones") or ())
    tails = [f"-{STATIC_SUFFIX}-{zone}" for zone in zones[:1] if len(zones) == 1] + [f"-{STATIC_SUFFIX}"]
    for tail in tails:
        if name.endswith(tail) and len(name) > len(tail):
            kwargs["name"] = name[:-len(tail)]
            return None
    return Unfit("StaticCapacityPool", "metadata.name",
                 "StaticCapacityPool names its NodePools <name>-static, or <name>-static-<zone> per zone")


def shown(construct: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    """The props the call must give: those that differ from the construct's defaults."""
    props = _PROPS[construct]
    kwargs = dict(kwargs)
    if issubclass(props, GpuTrainingPoolProps):
        drift = props.model_fields["drift_budget"].default
        if kwargs["budgets"] and kwargs["budgets"][-1] == drift:
            kwargs["budgets"] = kwargs["budgets"][:-1]  # the default drift budget, written last
        else:
            kwargs["drift_budget"] = None
    built = props(**kwargs)
    out = {}
    for name, value in kwargs.items():
        f = props.model_fields[name]
        if name in ("name", "expire_after") or f.is_required() or getattr(built, name) != f.default:
            out[name] = value
    return out


def _acknowledgements(annotations: dict) -> list[tuple[str, str]] | None:
    """The (code, reason) pairs of the acknowledge annotation as ``acknowledge`` writes them, else None."""
    text = annotations.get(ACKNOWLEDGE_ANNOTATION)
    if text is None:
        return []
    if not isinstance(text, str):
        return None
    found = [_ACK.match(entry) for entry in text.split("; ")]
    pairs = [(m.group(1), m.group(2)) for m in found if m is not None]
    return pairs if len(pairs) == len(found) and "; ".join(f"{c}: {r}" for c, r in sorted(pairs)) == text else None


def pool_kwargs(manifest: dict) -> tuple[str, dict[str, Any], list[tuple[str, str]]] | Unfit:
    """The construct, its props and the acknowledgements a NodePool suggests (not yet checked)."""
    spec = manifest.get("spec")
    meta = metadata(manifest)
    if not isinstance(spec, dict) or not isinstance(spec.get("template"), dict):
        return Unfit(POOLS, "spec.template", "missing")
    extra = sorted(str(k) for k in meta if k not in ("name", "annotations"))
    annotations = meta.get("annotations") or {}
    acks = _acknowledgements(annotations) if isinstance(annotations, dict) else None
    if extra or acks is None or set(annotations) - {WINDOWS_ANNOTATION, ACKNOWLEDGE_ANNOTATION}:
        return Unfit(POOLS, f"metadata.{extra[0] if extra else 'annotations'}",
                     "the pool constructs write the NodePool's name (the disruption windows' notes and the "
                     "acknowledgements) only")
    kwargs: dict[str, Any] = {"name": meta.get("name")}
    first = ((spec["template"].get("spec") or {}).get("requirements") or [None])[0]
    neuron = isinstance(first, dict) and first.get("key") in (Label.ACCELERATOR_MANUFACTURER,
                                                              auto_mode_key(Label.ACCELERATOR_MANUFACTURER))
    if "replicas" in spec:
        kwargs["static"] = True
    try:
        unfit = _template(spec["template"], kwargs, neuron) or _limits(spec, kwargs, neuron)
        if unfit is not None:
            return unfit
        _disruption(manifest, kwargs)
        construct = _construct(kwargs, neuron)
        if kwargs.pop("static", False):
            kwargs["replicas"] = spec["replicas"]
            unfit = _static_name(kwargs)
            if unfit is not None:
                return unfit
        shown(construct, kwargs)  # refused props are the construct's answer, named here
    except KarpenterGpuError as err:
        return Unfit(POOLS, refusal_field(err), str(err))
    except (ValueError, TypeError, KeyError, AttributeError, IndexError):  # another shape (pydantic's ValueError)
        return Unfit(POOLS, "spec", "a field of another shape than the construct's")
    return construct, kwargs, acks


def pool_text(construct: str, kwargs: dict[str, Any], acks: list[tuple[str, str]], construct_id: str,
              node_class: str, variable: str | None) -> Call:
    """The call's source for ``kwargs`` (the defaults left out); ``variable`` names it for its acknowledgements."""
    names: set[str] = set()
    text = call(construct, shown(construct, kwargs), names, 0,
                head=f"chart, {construct_id!r}, node_class={node_class}")
    found = Call(construct, variable if acks else None, text, names, props=kwargs)
    if acks:
        names.add("acknowledge")
        found.after = [f"acknowledge({variable}, {code!r}, {reason!r})" for code, reason in acks]
    return found

