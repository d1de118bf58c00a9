"""Whether a construct can keep an imported object as it is: the candidate call, and its check.

A candidate call is derived from the object (:mod:`.pool_fit`, :func:`node_class_call`), then *checked*: the call's
source is run in a scratch chart, synthesized, and the object it writes is compared with the object read as
``karpenter-gpu diff`` compares them (both with the CRDs' defaults applied,
:func:`karpenter_gpu.apiserver.conformance.apply_defaults`, as :mod:`karpenter_gpu.analysis.diff.admission` admits
them). Only an equal object makes the call part of the generated app; otherwise the object stays an
``ImportedObject`` whose reason names the first field that kept the construct out. The derivation may guess;
the check never does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from karpenter_gpu.analysis.diff.admission import crds_or_default
from karpenter_gpu.check.acknowledge import acknowledge
from karpenter_gpu.apiserver.conformance import Crds, apply_defaults
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.importer.pysource import call
from karpenter_gpu.k8s.input_layout import metadata
from karpenter_gpu.k8s.requirements import CapacityType, Operator, Requirement
from karpenter_gpu.k8s.taint import Taint, TaintEffect
from karpenter_gpu.k8s.units import Duration, GpuMemory, Quantity
from karpenter_gpu.overlays.gpu_capacity_overlay import GpuCapacityOverlay
from karpenter_gpu.overlays.mig_capacity_overlay import MigCapacityOverlay
from karpenter_gpu.overlays.node_overlay_discourage import NodeOverlayDiscourage
from karpenter_gpu.overlays.overlay_price import Price, PriceAdjustment
from karpenter_gpu.pools._gpu_pool import ConsolidationPolicy
from karpenter_gpu.pools.auto_mode_node_class import AutoModeNodeClass
from karpenter_gpu.overlays.time_slicing_overlay import TimeSlicingOverlay
from karpenter_gpu.pools.capacity_reservation import CapacityReservationTerm, InstanceMatchCriteria, ReservationType
from karpenter_gpu.pools.disruption_window import Budget, DisruptionReason
from karpenter_gpu.pools.gpu_inference_pool import GpuInferencePool
from karpenter_gpu.pools.gpu_node_class import GpuNodeClass, GpuNodeClassProps, RootVolume
from karpenter_gpu.pools.gpu_training_pool import GpuTrainingPool
from karpenter_gpu.pools.hybrid_gpu_nodes import HybridGpuNodeGroup
from karpenter_gpu.pools.mig_partitioned_pool import MigPartitionedPool
from karpenter_gpu.pools.neuron_inference_pool import NeuronInferencePool
from karpenter_gpu.pools.neuron_reserved_capacity_pool import NeuronReservedCapacityPool
from karpenter_gpu.pools.neuron_training_pool import NeuronTrainingPool
from karpenter_gpu.pools.reserved_capacity_pool import Fallback, ReservedCapacityPool
from karpenter_gpu.pools.static_capacity_pool import StaticCapacityPool
from karpenter_gpu.pools.tiered_spot_pools import SpotTier, TieredSpotPools

#: What the generated code may call, by the name ``karpenter_gpu`` exports it under (the same objects: the
#: check runs the source the app will run).
CALLABLE: dict[str, Any] = {c.__name__: c for c in (
    AutoModeNodeClass, Budget, CapacityReservationTerm, CapacityType, ConsolidationPolicy, DisruptionReason, Duration,
    Fallback, GpuCapacityOverlay, GpuInferencePool, GpuMemory, GpuNodeClass, GpuTrainingPool, HybridGpuNodeGroup,
    InstanceMatchCriteria, MigCapacityOverlay,
    MigPartitionedPool, NeuronInferencePool, NeuronReservedCapacityPool, NeuronTrainingPool, NodeOverlayDiscourage,
    Operator, Price, PriceAdjustment, Quantity, Requirement, ReservationType, ReservedCapacityPool, RootVolume,
    SpotTier, StaticCapacityPool, Taint, TaintEffect, TieredSpotPools, TimeSlicingOverlay, acknowledge)}

#: A key shown in a field path as it is; any other key is shown as ``<key>`` (no input text in a comment).
_PLAIN_KEY = re.compile(r"[A-Za-z][A-Za-z0-9]{0,62}\Z", re.ASCII)
_DISCOVERY = "karpenter.sh/discovery"
#: The kinds a construct writing several objects may write only as the input has them.
_GROUPED = ("NodePool", "NodeOverlay")


@dataclass
class Call:
    """A construct call that keeps its object as it is: the call's source (inside the environment's function,
    without indentation), the variable a pool refers to it by (None for a call nothing refers to) and the
    ``karpenter_gpu`` names it uses."""

    construct: str
    variable: str | None
    text: str
    names: set[str] = field(default_factory=set)
    #: Statements after the call (``acknowledge(variable, ...)``), each a line of generated source.
    after: list[str] = field(default_factory=list)
    #: The props the call was derived from (a node class's: those it gives): what a PlatformConfig is built from.
    props: dict[str, Any] = field(default_factory=dict)

    def lines(self) -> list[str]:
        """The statement: ``variable = call(...)``, or the call alone; then the statements after it."""
        return (f"{self.variable} = {self.text}" if self.variable else self.text).splitlines() + self.after


@dataclass
class Unfit:
    """Why no construct keeps the object as it is: ``field`` a path of the object, ``detail`` what the construct
    would write there or refuses. Both go into the ``reason=`` string (a repr), never into a comment."""

    construct: str
    field: str
    detail: str

    def reason(self) -> str:
        return (f"kept as given (no drift): {self.construct} would not keep it as it is ({self.field}: "
                f"{self.detail}); adopt it later as a change reviewed with karpenter-gpu diff")


def dig(value: Any, *keys: str) -> Any:
    """``value[k1][k2]...`` through mappings only; None where a step is missing or not a mapping."""
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def first_difference(expected: Any, got: Any, path: str = "") -> str | None:
    """The path of the first field where ``got`` differs from ``expected`` (None when equal)."""
    if isinstance(expected, dict) and isinstance(got, dict):
        for key in [*expected, *(k for k in got if k not in expected)]:
            shown = key if isinstance(key, str) and _PLAIN_KEY.match(key) else "<key>"
            if key not in expected or key not in got:
                return f"{path}.{shown}".lstrip(".")
            found = first_difference(expected[key], got[key], f"{path}.{shown}")
            if found is not None:
                return found
        return None
    if isinstance(expected, list) and isinstance(got, list):
        for i, (a, b) in enumerate(zip(expected, got, strict=False)):
            found = first_difference(a, b, f"{path}[{i}]")
            if found is not None:
                return found
        return None if len(expected) == len(got) else f"{path}[{min(len(expected), len(got))}]".lstrip(".")
    same = expected == got and type(expected) is type(got)
    return None if same else (path.lstrip(".") or "<root>")


def _defaulted(manifest: dict, crds: Crds) -> dict:
    try:
        return apply_defaults(manifest, crds)
    except KeyError:  # no CRD serves it: compared as written
        return manifest


class Checker:
    """Runs candidate calls in scratch charts and compares what they write with the objects read."""

    def __init__(self, crds: Crds | None = None) -> None:
        self.crds = crds_or_default(crds)

    def _run(self, setup: list[Call], candidate: Call) -> list[dict] | Unfit:
        """What running ``setup`` then ``candidate`` in a scratch chart synthesizes, or why it does not."""
        import cdk8s

        app = cdk8s.App()
        namespace: dict[str, Any] = {"chart": cdk8s.Chart(app, "candidate")}
        for c in (*setup, candidate):
            namespace.update({n: CALLABLE[n] for n in c.names})
        try:
            for c in (*setup, candidate):
                exec("\n".join(c.lines()), namespace)  # the generated source itself: every input string a repr
            return list(cdk8s.Testing.synth(namespace["chart"]))
        except (KarpenterGpuError, ValueError, TypeError) as err:  # ValueError: pydantic's, for a wrong type
            if not isinstance(err, KarpenterGpuError):
                return Unfit(candidate.construct, "spec", "a field of another type than the construct's")
            return Unfit(candidate.construct, refusal_field(err), str(err))

    def build(self, setup: list[Call], candidate: Call) -> Unfit | None:
        """None when the construct builds ``candidate`` (after ``setup``), else why not."""
        written = self._run(setup, candidate)
        return written if isinstance(written, Unfit) else None

    def check(self, setup: list[Call], candidate: Call, expected: dict | list[dict]) -> Unfit | None:
        """None when running ``setup`` then ``candidate`` writes ``expected`` (defaulted alike; a list: every one
        of them, and no other NodePool or NodeOverlay), else why not."""
        written = self._run(setup, candidate)
        if isinstance(written, Unfit):
            return written
        wanted = expected if isinstance(expected, list) else [expected]
        keys = {(e.get("kind"), metadata(e).get("name")) for e in wanted}
        extra = [o for o in written if o.get("kind") in _GROUPED and (o.get("kind"), metadata(o).get("name")) not in keys]
        if extra:
            return Unfit(candidate.construct, "metadata.name", f"the construct also writes a {extra[0].get('kind')} "
                                                               "that is not in the input")
        for one in wanted:
            kind, name = one.get("kind"), metadata(one).get("name")
            found = [o for o in written if o.get("kind") == kind and metadata(o).get("name") == name]
            if len(found) != 1:
                return Unfit(candidate.construct, "metadata.name", "the construct writes no object of this name")
            path = first_difference(_defaulted(one, self.crds), _defaulted(found[0], self.crds))
            if path is not None:
                return Unfit(candidate.construct, path, "the construct writes it otherwise")
        return None


def _plain_prop(prop: object) -> str:
    text = str(prop)
    return text if re.fullmatch(r"[A-Za-z0-9_.\[\]-]{1,80}", text, re.ASCII) else "a prop"


def refusal_field(err: Exception) -> str:
    """Where a construct's props refused what was read: its code and prop for a coded refusal, else ``spec`` (a
    value of another type, pydantic's ValueError)."""
    if isinstance(err, KarpenterGpuError):
        return f"the construct refuses it ({err.code}, {_plain_prop(err.prop)})"
    return "spec"


def variable_name(prefix: str, name: object, index: int, used: set[str]) -> str:
    """A Python identifier for a construct: ``prefix_<name>`` when the name makes one, else ``prefix_<index>``."""
    text = re.sub(r"[^a-z0-9]", "_", str(name).lower()) if isinstance(name, str) else ""
    base = f"{prefix}_{text}" if text and re.fullmatch(r"[a-z0-9_]{1,60}", text) else f"{prefix}_{index}"
    out = base
    while out in used:
        out = f"{base}_{index}"
        index += 1
    used.add(out)
    return out


def node_class_call(manifest: dict, construct_id: str, variable: str) -> Call | Unfit:
    """The ``GpuNodeClass`` call an ``EC2NodeClass`` suggests (checked afterwards)."""
    spec = manifest.get("spec")
    if not isinstance(spec, dict):
        return Unfit("GpuNodeClass", "spec", "missing")
    kwargs: dict[str, Any] = {"name": metadata(manifest).get("name")}
    terms = spec.get("amiSelectorTerms")
    if not (isinstance(terms, list) and len(terms) == 1 and isinstance(terms[0], dict) and list(terms[0]) == ["alias"]):
        return Unfit("GpuNodeClass", "spec.amiSelectorTerms", "the construct selects one pinned alias")
    kwargs["ami"] = terms[0]["alias"]
    if str(kwargs["ami"]).endswith("@latest"):
        kwargs["allow_latest_ami"] = True
    unfit = identity_props(spec, kwargs)
    if unfit is not None:
        return unfit
    volume = _root_volume(spec.get("blockDeviceMappings"))
    if volume is None:
        return Unfit("GpuNodeClass", "spec.blockDeviceMappings", "the construct writes one encrypted gp3 root volume")
    kwargs["root_volume"] = volume
    if spec.get("instanceStorePolicy") == "RAID0":
        kwargs["instance_store_raid0"] = True
    options = spec.get("metadataOptions")
    if isinstance(options, dict) and "httpPutResponseHopLimit" in options:
        kwargs["imds_hop_limit"] = options["httpPutResponseHopLimit"]
    for key, prop in (("tags", "tags"), ("userData", "user_data")):
        if key in spec:
            kwargs[prop] = spec[key]
    try:
        if "capacityReservationSelectorTerms" in spec:
            kwargs["capacity_reservations"] = tuple(_reservation(t) for t in spec["capacityReservationSelectorTerms"])
        kwargs["root_volume"] = RootVolume(**{**volume, "size": Quantity(volume["size"])})
        props = GpuNodeClassProps(**kwargs)
    except (KarpenterGpuError, ValueError, TypeError) as err:  # ValueError: pydantic's, for a wrong type
        if not isinstance(err, KarpenterGpuError):
            return Unfit("GpuNodeClass", "spec", "a field of another type than the construct's")
        return Unfit("GpuNodeClass", refusal_field(err), str(err))
    shown = {k: v for k, v in kwargs.items()
             if k == "name" or GpuNodeClassProps.model_fields[k].is_required() or getattr(props, k) !=
             GpuNodeClassProps.model_fields[k].default}
    names: set[str] = set()
    text = call("GpuNodeClass", shown, names, 0, head=f"chart, {construct_id!r}")
    return Call("GpuNodeClass", variable, text, names, props=shown)


def auto_mode_node_class_call(manifest: dict, construct_id: str, variable: str) -> Call | Unfit:
    """The ``AutoModeNodeClass`` call an EKS Auto Mode ``NodeClass`` suggests (checked afterwards): its role,
    subnet, security group and pod selection (ids or one tag term each), and tags; any other field is the check's
    to name."""
    spec = manifest.get("spec")
    if not isinstance(spec, dict):
        return Unfit("AutoModeNodeClass", "spec", "missing")
    kwargs: dict[str, Any] = {"name": metadata(manifest).get("name"), "role": spec.get("role")}
    for key, prop in (("subnetSelectorTerms", "subnet"), ("securityGroupSelectorTerms", "security_group"),
                      ("podSubnetSelectorTerms", "pod_subnet"), ("podSecurityGroupSelectorTerms", "pod_security_group")):
        terms = spec.get(key)
        if terms is None:
            continue
        if isinstance(terms, list) and len(terms) == 1 and isinstance(terms[0], dict) and list(terms[0]) == ["tags"]:
            kwargs[f"{prop}_tags"] = terms[0]["tags"]
        elif isinstance(terms, list) and terms and all(isinstance(t, dict) and list(t) == ["id"] for t in terms):
            kwargs[f"{prop}_ids"] = tuple(t["id"] for t in terms)
        else:
            return Unfit("AutoModeNodeClass", f"spec.{key}", "the construct selects by ids or by one tag term")
    if "tags" in spec:
        kwargs["tags"] = spec["tags"]
    names: set[str] = set()
    try:
        text = call("AutoModeNodeClass", kwargs, names, 0, head=f"chart, {construct_id!r}")
    except TypeError:  # not YAML data
        return Unfit("AutoModeNodeClass", "spec", "a field of another type than the construct's")
    return Call("AutoModeNodeClass", variable, text, names, props=kwargs)


def _reservation(term: dict) -> CapacityReservationTerm:
    """A ``capacityReservationSelectorTerms`` entry as the term that renders it (unknown keys: a TypeError)."""
    names = {"id": "id", "tags": "tags", "ownerID": "owner_id", "instanceMatchCriteria": "instance_match_criteria"}
    if not isinstance(term, dict):
        raise TypeError("a term is a mapping")
    return CapacityReservationTerm(**{names[k] if k in names else f"<{k}>": v for k, v in term.items()})


def identity_props(spec: dict, kwargs: dict[str, Any]) -> Unfit | None:
    """The node class's role or instance profile and its subnet and security-group selection as ``GpuNodeClass``
    props (added to ``kwargs``); an :class:`Unfit` when the construct cannot select as the object does."""
    for key, prop in (("role", "role"), ("instanceProfile", "instance_profile")):
        if key in spec:
            kwargs[prop] = spec[key]
    for key, prop in (("subnetSelectorTerms", "subnet_ids"), ("securityGroupSelectorTerms", "security_group_ids")):
        selector = _selector(spec.get(key))
        if selector is None:
            return Unfit("GpuNodeClass", f"spec.{key}", "the construct selects by ids or by the discovery tag")
        if isinstance(selector, tuple):
            kwargs[prop] = selector
        elif kwargs.setdefault("cluster_name", selector) != selector:
            return Unfit("GpuNodeClass", f"spec.{key}", "another discovery tag value than the subnets'")
    return None


def _selector(terms: Any) -> str | tuple[str, ...] | None:
    """A cluster name (one ``karpenter.sh/discovery`` tag term) or ids (one ``id`` per term), else None."""
    if not isinstance(terms, list) or not terms or not all(isinstance(t, dict) for t in terms):
        return None
    if len(terms) == 1 and list(terms[0]) == ["tags"] and isinstance(terms[0]["tags"], dict) \
            and list(terms[0]["tags"]) == [_DISCOVERY] and isinstance(terms[0]["tags"][_DISCOVERY], str):
        return terms[0]["tags"][_DISCOVERY]
    if all(list(t) == ["id"] and isinstance(t["id"], str) for t in terms):
        return tuple(t["id"] for t in terms)
    return None


def _root_volume(mappings: Any) -> dict[str, Any] | None:
    """The root volume's size, IOPS, throughput and key (the construct writes the rest)."""
    if not isinstance(mappings, list):
        return None
    roots = [m for m in mappings if isinstance(m, dict) and m.get("rootVolume") is True]
    ebs = roots[0].get("ebs") if len(roots) == 1 else None
    if not isinstance(ebs, dict) or not isinstance(ebs.get("volumeSize"), str):
        return None
    out: dict[str, Any] = {"size": ebs["volumeSize"]}
    for key, prop in (("iops", "iops"), ("throughput", "throughput"), ("kmsKeyID", "kms_key_id")):
        if key in ebs:
            out[prop] = ebs[key]
    return out
