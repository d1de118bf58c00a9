"""One ``PlatformConfig`` for a whole environment, when its synth gives every object and values file read.

Built from the construct calls :mod:`.adopt` kept (so only when every Karpenter object of the environment is a
call's): the node classes' shared settings become ``node_class`` (the built-in ``gpu-inference``, ``gpu-training``
and ``gpu-reserved`` classes their volumes and reservations, any other a ``PlatformNodeClass``, the Auto Mode one
``auto_mode_node_class``), each pool call its props in the field of its kind (``pool_node_classes`` where it runs on
another class than its kind's), the acknowledge annotations ``acknowledgements``, the discourage and GPU
capacity overlays and the hybrid node groups their fields; the values files the constructs write are reversed into
their props
(``karpenter.values.yaml``: ``settings.clusterName`` / ``interruptionQueue`` / ``featureGates.spotToSpotConsolidation``
and the controller tag's line as ``karpenter_version``; ``gpu-operator.values.yaml``: the time-slicing overlays'
replicas, weight and name, ``dcgmExporter.serviceMonitor.enabled``); the monitoring objects say whether
``monitoring`` is on, the smoke Deployments whether ``smoke_workloads`` is.

The derivation may guess; the check never does: the config's source is evaluated, a ``GpuPlatform`` synthesizes
it in a scratch app, and every object (compared as ``diff`` compares them, the CRDs' defaults applied) and every
values file must equal the ones read, with nothing more and nothing less. Otherwise the environment stays construct
calls, and the reason names the first object or values file that differs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from karpenter_gpu.addons.gpu_operator_values import GpuOperatorValuesProps
from karpenter_gpu.addons.karpenter_values import KarpenterControllerValuesProps
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.gpu_platform import (
    INFERENCE_CLASS,
    POOL_TABLE,
    RESERVED_CLASS,
    TRAINING_CLASS,
    PlatformConfig,
    PlatformNodeClass,
)
from karpenter_gpu.importer.adopt import Adopted
from karpenter_gpu.importer.fit import CALLABLE, Checker, Unfit, _defaulted, refusal_field, dig, first_difference
from karpenter_gpu.importer.pool_fit import _PROPS, _acknowledgements, shown
from karpenter_gpu.overlays.gpu_capacity_overlay import GpuCapacityOverlayProps
from karpenter_gpu.overlays.node_overlay_discourage import NodeOverlayDiscourageProps
from karpenter_gpu.pools.auto_mode_node_class import AutoModeNodeClassProps
from karpenter_gpu.pools.hybrid_gpu_nodes import HybridGpuNodeGroupProps
from karpenter_gpu.pools.tiered_spot_pools import TieredSpotPoolsProps
from karpenter_gpu.upstream import FeatureGate
from karpenter_gpu.importer.pysource import Invocation, call
from karpenter_gpu.k8s.input_layout import metadata
from karpenter_gpu.pools.gpu_node_class import NodeClassConfig, RootVolume

#: What the generated config may name, by the name ``karpenter_gpu`` exports it under: the calls' values and the
#: props classes of a PlatformConfig (the check evaluates the source the app will run).
_CLASSES: tuple[type, ...] = (
    AutoModeNodeClassProps, GpuCapacityOverlayProps, GpuOperatorValuesProps, HybridGpuNodeGroupProps,
    KarpenterControllerValuesProps,
    NodeClassConfig, NodeOverlayDiscourageProps, PlatformConfig, PlatformNodeClass, TieredSpotPoolsProps,
    *_PROPS.values())
NAMES: dict[str, Any] = {**CALLABLE, **{c.__name__: c for c in _CLASSES}}

CONSTRUCT = "PlatformConfig"
#: A pool construct → (its PlatformConfig field, its props class name, the built-in class it runs on by default).
POOL_FIELDS = {kind.construct.__name__: (kind.field, f"{kind.construct.__name__}Props", kind.node_class)
               for kind in POOL_TABLE if kind.node_class is not None}
#: The GpuNodeClass props a platform's node classes share (``NodeClassConfig``) and those each has of its own.
_SHARED = tuple(NodeClassConfig.model_fields)
_OWN = ("root_volume", "capacity_reservations", "instance_store_raid0")
#: The other calls a PlatformConfig holds a tuple of props of: construct → field.
_LISTS = {"NodeOverlayDiscourage": "discourage_overlays", "GpuCapacityOverlay": "gpu_capacity_overlays",
          "HybridGpuNodeGroup": "hybrid"}
_MONITORING_KINDS = ("ServiceMonitor", "PrometheusRule")
_DEPLOY = "nvidia.com/gpu.deploy."
_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}\Z", re.ASCII)


@dataclass
class Platform:
    """The ``PlatformConfig(...)`` expression and the ``karpenter_gpu`` names it uses."""

    text: str
    names: set[str] = field(default_factory=set)


def _named(kind: object, name: object) -> str:
    """``<kind> <name>`` for a reason in a comment: input text only when it is a plain DNS name."""
    plain = [t if isinstance(t, str) and _PLAIN.match(t) else None for t in (kind, name)]
    return f"{plain[0] or 'object'} {plain[1] or '(name in the manifest)'}"


def _invoke(name: str, kwargs: dict[str, Any]) -> Invocation:
    return Invocation(name, kwargs)


def _node_classes(adopted: Adopted, config: dict[str, Any]) -> Unfit | None:
    shared: dict[str, Any] | None = None
    extra = []
    for c in adopted.node_classes:
        if c.construct == "AutoModeNodeClass":
            config["auto_mode_node_class"] = _invoke("AutoModeNodeClassProps", c.props)
            continue
        props = dict(c.props)
        name = props.pop("name")
        own = {k: props.pop(k) for k in _OWN if k in props}
        other = sorted(k for k in props if k not in _SHARED)
        if other:
            return Unfit(CONSTRUCT, f"{_named('EC2NodeClass', name)}: {other[0]}",
                         "a PlatformConfig's node classes share NodeClassConfig's settings and differ only in root "
                         "volume, reservations and instance store")
        if shared is None:
            shared = props
        elif props != shared:
            return Unfit(CONSTRUCT, _named("EC2NodeClass", name), "its AMI, role, selection or tags differ from the other "
                                                            "node classes' (a PlatformConfig shares them)")
        volume = own.get("root_volume")
        if name == INFERENCE_CLASS and volume is not None and volume != RootVolume.inference():
            config["inference_volume"] = volume
        elif name in (TRAINING_CLASS, RESERVED_CLASS) and volume is not None and volume != RootVolume.training():
            config["training_volume"] = volume
        if name == RESERVED_CLASS and own.get("capacity_reservations"):
            config["reservations"] = own["capacity_reservations"]
        if name not in (INFERENCE_CLASS, TRAINING_CLASS, RESERVED_CLASS):
            extra.append(_invoke("PlatformNodeClass", {"name": name, **own}))
    if shared is not None:
        config["node_class"] = _invoke("NodeClassConfig", shared)
    if extra:
        config["node_classes"] = tuple(extra)
    return None


def _pools(manifests: list[dict], adopted: Adopted, config: dict[str, Any]) -> Unfit | None:
    placed: dict[str, str] = {}
    time_slicing = None
    for index, c in sorted(adopted.calls.items()):
        kind = manifests[index].get("kind")
        if c.construct in POOL_FIELDS:
            prop, props_name, default_class = POOL_FIELDS[c.construct]
            kwargs = c.props if c.construct == "TieredSpotPools" else shown(c.construct, c.props)
            config.setdefault(prop, []).append(_invoke(props_name, kwargs))
            node_class = dig(manifests[index], "spec", "template", "spec", "nodeClassRef", "name")
            if node_class != default_class:
                placed[str(c.props["name"])] = str(node_class)
        elif c.construct in _LISTS:
            config.setdefault(_LISTS[c.construct], []).append(_invoke(f"{c.construct}Props", c.props))
        elif c.construct == "TimeSlicingOverlay" and time_slicing is None:
            time_slicing = c.props
        elif c.construct not in ("GpuNodeClass", "AutoModeNodeClass"):
            return Unfit(CONSTRUCT, _named(kind, metadata(manifests[index]).get("name")),
                         f"a {c.construct} call has no place in a PlatformConfig")
    for key in [k for k, v in config.items() if isinstance(v, list)]:
        config[key] = tuple(config[key])
    if placed:
        config["pool_node_classes"] = placed
    acks = [(metadata(m).get("name"), code, reason) for m in manifests if m.get("kind") == "NodePool"
            for code, reason in _acknowledgements(metadata(m).get("annotations") or {}) or ()]
    if acks:
        config["acknowledgements"] = tuple(acks)
    _gpu_operator(time_slicing, config)
    return None


def _gpu_operator(time_slicing: dict[str, Any] | None, config: dict[str, Any]) -> None:
    operator: dict[str, Any] = config.pop("_gpu_operator", {})
    if time_slicing is not None:
        operator["time_slicing_replicas"] = time_slicing["replicas"]
        operator.update({prop: time_slicing[key] for key, prop, default in
                         (("weight", "overlay_weight", 100), ("name", "overlay_name", "gpu-time-slicing"))
                         if time_slicing[key] != default})
    if operator:
        config["gpu_operator"] = _invoke("GpuOperatorValuesProps", operator)


def _values(values: dict[str, Any], config: dict[str, Any]) -> None:
    karpenter = values.get("karpenter.values.yaml")
    if isinstance(karpenter, dict):
        settings = karpenter.get("settings") or {}
        props: dict[str, Any] = {"cluster_name": settings.get("clusterName")}
        if "interruptionQueue" in settings:
            props["interruption_queue"] = settings["interruptionQueue"]
        if (settings.get("featureGates") or {}).get(str(FeatureGate.SPOT_TO_SPOT_CONSOLIDATION)) is True:
            props["spot_to_spot_consolidation"] = True
        config["karpenter"] = _invoke("KarpenterControllerValuesProps", props)
        tag = dig(karpenter, "controller", "image", "tag")
        if isinstance(tag, str) and tag.startswith("1.9."):
            config["karpenter_version"] = "1.9"
    operator = values.get("gpu-operator.values.yaml")
    if isinstance(operator, dict) and dig(operator, "dcgmExporter", "serviceMonitor", "enabled") is False:
        config["_gpu_operator"] = {"dcgm_service_monitor": False}


def _others(manifests: list[dict], config: dict[str, Any]) -> None:
    kinds = {m.get("kind") for m in manifests}
    if not kinds & set(_MONITORING_KINDS):
        config["monitoring"] = None
    if not any(m.get("kind") == "Deployment" and str(metadata(m).get("name")).endswith("-smoke") for m in manifests):
        config["smoke_workloads"] = False


def _derived_labels(config: dict[str, Any]) -> None:
    """With hybrid node groups the platform's GPU Operator values label each pool whose nodes ship the driver,
    toolkit or device plugin ``nvidia.com/gpu.deploy.<operand>: "false"`` (``GpuOperatorValues.deploy_labels``):
    left to it, not given as the pool's own labels (the check says whether it adds them back)."""
    for prop, _, _ in POOL_FIELDS.values():
        for invocation in config.get(prop, ()):
            labels = invocation.kwargs.get("labels")
            if not isinstance(labels, dict):
                continue
            kept = {k: v for k, v in labels.items() if not (k.startswith(_DEPLOY) and v == "false")}
            default = NAMES[invocation.function].model_fields["labels"].default
            if kept == default:
                del invocation.kwargs["labels"]
            else:
                invocation.kwargs["labels"] = kept


def platform_config(folder: str, manifests: list[dict], values: dict[str, Any], adopted: Adopted) -> Platform | Unfit:
    """The ``PlatformConfig`` the environment's construct calls and values suggest (not yet checked)."""
    for index, m in enumerate(manifests):
        if m.get("kind") in ("EC2NodeClass", "NodeClass", "NodePool", "NodeOverlay") \
                and index not in adopted.calls and index not in adopted.covered:
            return Unfit(CONSTRUCT, _named(m.get("kind"), metadata(m).get("name")), "kept as given (no construct call)")
    config: dict[str, Any] = {"environment": folder}
    _values(values, config)
    unfit = _node_classes(adopted, config) or _pools(manifests, adopted, config)
    if unfit is not None:
        return unfit
    _others(manifests, config)
    if "hybrid" in config:
        _derived_labels(config)
    order = ["environment", "node_class", "karpenter", "karpenter_version", "auto_mode_node_class", "gpu_operator"]
    ordered = {k: config[k] for k in order if k in config} | {k: v for k, v in config.items() if k not in order}
    names: set[str] = set()
    return Platform(call(CONSTRUCT, ordered, names, 1), names)


def check(platform: Platform, manifests: list[dict], values: dict[str, Any], checker: Checker) -> Unfit | None:
    """None when the config's ``GpuPlatform`` synthesizes exactly ``manifests`` and ``values``, else the first
    object or values file that differs."""
    import cdk8s
    import yaml

    from karpenter_gpu.gpu_platform import GpuPlatform

    try:
        config = eval(platform.text, {n: NAMES[n] for n in platform.names})  # the generated source
        built = GpuPlatform(cdk8s.Testing.app(), props=config)
        written = list(cdk8s.Testing.synth(built))
        files = {h.file_name: yaml.safe_load(h.to_yaml()) for h in built.helm_values}
    except KarpenterGpuError as err:
        return Unfit(CONSTRUCT, refusal_field(err),
                     "the derived config is not one the constructs accept")
    read = {(m.get("kind"), metadata(m).get("name")): m for m in manifests}
    made = {(o.get("kind"), metadata(o).get("name")): o for o in written}
    for key in [*read, *(k for k in made if k not in read)]:
        if key not in read or key not in made:
            return Unfit(CONSTRUCT, _named(*key), "written but not read" if key in made else "read but not written")
        path = first_difference(_defaulted(read[key], checker.crds), _defaulted(made[key], checker.crds))
        if path is not None:
            return Unfit(CONSTRUCT, f"{_named(*key)}: {path}", "the platform writes it otherwise")
    for name in sorted(set(values) | set(files)):
        path = first_difference(values.get(name), files.get(name))
        if path is not None:
            return Unfit(CONSTRUCT, f"helm/{name}: {path}", "the platform writes it otherwise")
    return None
