"""The ``GpuInferencePool`` / ``GpuTrainingPool`` call a NodePool suggests (checked by :class:`.fit.Checker`).

The pool constructs write the template's requirements in one order (``karpenter_gpu.pools._node_pool``
``NodePoolProps._derive_requirements``): ``instance-gpu-count Gt 0``, ``instance-gpu-name In``, then
``instance-gpu-memory Gte``, ``instance-size In``, ``topology.kubernetes.io/zone In``, ``kubernetes.io/arch In`` when
set, ``karpenter.sh/capacity-type In``, then the extra ``requirements``. A NodePool whose requirements start that way
maps onto the props; the rest of its fields map one to one (labels, ``gpu-operator=enabled`` as ``gpu_operator``,
taints, expiry, grace period, disruption, limits, weight; the budgets' notes from the
``karpenter-gpu.io/disruption-windows`` annotation). Whether the call keeps the object as it is, the check says.
"""

from __future__ import annotations

from typing import Any

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.importer.fit import Call, Unfit, _plain_prop
from karpenter_gpu.importer.pysource import call
from karpenter_gpu.k8s.input_layout import metadata
from karpenter_gpu.k8s.labels import Label, auto_mode_key
from karpenter_gpu.k8s.requirements import CapacityType, Operator, Requirement
from karpenter_gpu.k8s.taint import Taint
from karpenter_gpu.k8s.units import Duration, GpuMemory, Quantity
from karpenter_gpu.k8s.windows import WINDOWS_ANNOTATION, window_notes
from karpenter_gpu.pools._gpu_pool import ConsolidationPolicy, GpuPoolProps
from karpenter_gpu.pools._node_pool import GPU_OPERATOR_LABEL
from karpenter_gpu.pools.disruption_window import Budget, DisruptionReason
from karpenter_gpu.pools.gpu_inference_pool import GpuInferencePoolProps
from karpenter_gpu.pools.gpu_training_pool import GpuTrainingPoolProps

#: The derived requirements after the GPU selection, in the order the constructs write them: (key, prop).
_OPTIONAL = ((Label.INSTANCE_SIZE, "instance_sizes"), (Label.ZONE, "zones"), (Label.ARCH, "architectures"))
POOLS = "GpuInferencePool / GpuTrainingPool"
_PROPS: dict[str, type[GpuPoolProps]] = {"GpuInferencePool": GpuInferencePoolProps,
                                         "GpuTrainingPool": GpuTrainingPoolProps}


def _take(reqs: list[Any], key: str, operator: str) -> dict | None:
    """The next requirement when it is ``key operator`` without minValues (and removes it), else None. ``key`` in
    either spelling: a pool on an Auto Mode node class writes ``eks.amazonaws.com/`` keys (the check tells which
    spelling the construct writes)."""
    if reqs and isinstance(reqs[0], dict) and reqs[0].get("key") == auto_mode_key(key):
        reqs[0] = {**reqs[0], "key": key}
    if reqs and isinstance(reqs[0], dict) and reqs[0].get("key") == key and reqs[0].get("operator") == operator \
            and "minValues" not in reqs[0] and isinstance(reqs[0].get("values"), list):
        return reqs.pop(0)
    return None


def _requirements(reqs: list[Any], kwargs: dict[str, Any]) -> Unfit | None:
    count = _take(reqs, Label.GPU_COUNT, "Gt")
    if count is None or count["values"] != ["0"]:
        return Unfit(POOLS, "spec.template.spec.requirements[0]",
                     "the pool constructs start with instance-gpu-count Gt 0")
    names = _take(reqs, Label.GPU_NAME, "In")
    if names is None:
        return Unfit(POOLS, "spec.template.spec.requirements[1]",
                     "the pool constructs select GPUs by instance-gpu-name In")
    kwargs["gpu_names"] = tuple(names["values"])
    memory = _take(reqs, Label.GPU_MEMORY, "Gte")
    if memory is not None and len(memory["values"]) == 1 and str(memory["values"][0]).isdigit():
        kwargs["min_gpu_memory"] = GpuMemory.mib(int(memory["values"][0]))
    elif memory is not None:
        reqs.insert(0, memory)
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
    kwargs["requirements"] = tuple(Requirement(r["key"], Operator(r["operator"]), r.get("values") or (),
                                               r.get("minValues")) for r in reqs)
    return None


def _template(template: dict, kwargs: dict[str, Any]) -> Unfit | None:
    labels = dict((template.get("metadata") or {}).get("labels") or {})
    key, value = GPU_OPERATOR_LABEL
    kwargs["gpu_operator"] = labels.get(key) == value
    if kwargs["gpu_operator"]:
        del labels[key]
    kwargs["labels"] = labels
    spec = template.get("spec") or {}
    unfit = _requirements(list(spec.get("requirements") or []), kwargs)
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


def _limits(spec: dict, kwargs: dict[str, Any]) -> Unfit | None:
    limits = dict(spec.get("limits") or {})
    gpus = limits.pop("nvidia.com/gpu", None)
    if not isinstance(gpus, str) or not gpus.isdigit():
        return Unfit(POOLS, "spec.limits", "the pool constructs write limits.nvidia.com/gpu as a count")
    kwargs["gpu_limit"] = int(gpus)
    for key, prop in (("cpu", "cpu_limit"), ("memory", "memory_limit")):
        if key in limits:
            kwargs[prop] = Quantity(str(limits.pop(key)))
    if limits:
        return Unfit(POOLS, "spec.limits", "the pool constructs limit GPUs, CPU and memory only")
    if "weight" not in spec:
        return Unfit(POOLS, "spec.weight", "the pool constructs always write a weight 1..100")
    kwargs["weight"] = spec["weight"]
    return None


def _construct(kwargs: dict[str, Any]) -> str:
    """GpuTrainingPool for a pool that says it trains (name or labels), else GpuInferencePool: with every prop
    given, both write the same object; the choice only decides which defaults the call can leave out."""
    said = [kwargs["name"], *kwargs["labels"].values()]
    return "GpuTrainingPool" if any("training" in str(s) for s in said) else "GpuInferencePool"


def _shown(construct: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    """The props the call must give: those that differ from the construct's defaults."""
    props = _PROPS[construct]
    if construct == "GpuTrainingPool":
        drift = props.model_fields["drift_budget"].default
        if kwargs["budgets"] and kwargs["budgets"][-1] == drift:
            kwargs["budgets"] = kwargs["budgets"][:-1]  # the default drift budget, written last
        else:
            kwargs["drift_budget"] = None
    built = props(**kwargs)
    shown = {}
    for name, value in kwargs.items():
        f = props.model_fields[name]
        if name in ("name", "expire_after") or f.is_required() or getattr(built, name) != f.default:
            shown[name] = value
    return shown


def pool_call(manifest: dict, construct_id: str, node_class: str) -> Call | Unfit:
    """The pool construct call a NodePool suggests, on the node class construct named ``node_class``."""
    spec = manifest.get("spec")
    meta = metadata(manifest)
    if not isinstance(spec, dict) or not isinstance(spec.get("template"), dict):
        return Unfit(POOLS, "spec.template", "missing")
    extra = sorted(str(k) for k in meta if k not in ("name", "annotations"))
    annotations = meta.get("annotations") or {}
    if extra or not isinstance(annotations, dict) or set(annotations) - {WINDOWS_ANNOTATION}:
        return Unfit(POOLS, f"metadata.{extra[0] if extra else 'annotations'}",
                     "the pool constructs write the NodePool's name (and the disruption windows' notes) only")
    kwargs: dict[str, Any] = {"name": meta.get("name")}
    try:
        unfit = _template(spec["template"], kwargs) or _limits(spec, kwargs)
        if unfit is not None:
            return unfit
        _disruption(manifest, kwargs)
        construct = _construct(kwargs)
        shown = _shown(construct, kwargs)
    except KarpenterGpuError as err:
        return Unfit(POOLS, f"the construct refuses it ({err.code}, {_plain_prop(err.prop)})", str(err))
    except (ValueError, TypeError, KeyError, AttributeError):  # a field of another shape (pydantic's ValueError)
        return Unfit(POOLS, "spec", "a field of another shape than the construct's")
    names: set[str] = set()
    text = call(construct, shown, names, 0, head=f"chart, {construct_id!r}, node_class={node_class}")
    return Call(construct, None, text, names)
