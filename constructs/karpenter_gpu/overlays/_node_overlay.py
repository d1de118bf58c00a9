"""What every NodeOverlay construct shares: props base, requirement rendering, weight rules, the gate.

A ``NodeOverlay`` (``karpenter.sh/v1alpha1``, alpha, needs the ``nodeOverlay`` feature gate) changes
what Karpenter *believes* about matching instance types — price, extra extended resources — in its
scheduling and consolidation simulation only. Overlays are ordered by ``weight`` (1..10000, unset = 0,
higher wins); two overlays of equal weight that conflict get ``ValidationSucceeded=False`` and are
not applied, so this module refuses a weight another overlay of the same cluster already uses
(see :mod:`karpenter_gpu.cluster`: prod and staging in one App may both use weight 10).
"""

from __future__ import annotations

import re
from typing import Any, ClassVar, Iterable

from constructs import Construct, IConstruct
from pydantic import PrivateAttr, field_validator, model_validator
from typing_extensions import TypedDict

from karpenter_gpu import _api_object
from karpenter_gpu._props import Props, build, check_known, DnsLabel
from karpenter_gpu._construct_tree import path_of
from karpenter_gpu._signature import ConstructSignature
from karpenter_gpu.cluster import cluster_of, ref_of, require_chart, ScopedConstruct
from karpenter_gpu.crds.nodeoverlay.sh.karpenter import NodeOverlay
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.feature_gates import FeatureGate, require_feature_gate
from karpenter_gpu.k8s.requirements import LABEL_VALUE, check_overlay_key

#: ``spec.weight`` bounds of the v1.14.1 CRD.
MIN_WEIGHT, MAX_WEIGHT = 1, 10000

def render_in(key: str, values: Iterable[str], prop: str) -> dict[str, Any]:
    """``{key, operator: In, values}``, checked like the CRD checks it (KG182)."""
    check_overlay_key(key, prop)
    vals = list(values)
    bad = [v for v in vals if not isinstance(v, str) or not v or len(v) > 63 or not LABEL_VALUE.match(v)]
    if not vals or bad or len(set(vals)) != len(vals):
        raise KarpenterGpuError("KG182", prop=prop, value=bad[0] if bad else vals,
                                allowed="one or more distinct label values (≤63 chars, alphanumerics, '-', '_', '.') "
                                        "for operator In",
                                fix="list the values once each")
    return {"key": key, "operator": "In", "values": vals}


def strings(value: Any, prop: str, code: str, example: str) -> tuple[str, ...]:
    """A tuple prop given as a list/tuple of strings; a bare string would become one item per character."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)) or not all(
        isinstance(v, str) for v in value
    ):
        raise KarpenterGpuError(code, prop=prop, value=value, allowed="a tuple of strings",
                                fix=f"e.g. {prop}={example}")
    return tuple(value)


class OverlayProps(Props):
    """Props every NodeOverlay construct has: the object name and a unique weight."""

    #: metadata.name of the NodeOverlay (DNS-1123). When overlays of equal weight overlap, Karpenter
    #: merges them in alphabetical order of this name.
    name: DnsLabel
    #: Precedence, 1..10000 (higher wins). Required and unique among the cluster's overlays: an unset
    #: weight is 0, and equal weights that conflict are not applied at all.
    weight: int

    _requirements: tuple[dict, ...] = PrivateAttr(())

    @model_validator(mode="before")
    @classmethod
    def _weight_given(cls, data: Any) -> Any:
        if isinstance(data, dict):
            check_known(cls, data)  # a misspelt weight is a typo, not a missing weight
        if isinstance(data, dict) and data.get("weight") is None:
            raise KarpenterGpuError("KG183", prop="weight", value=None,
                                    allowed=f"a weight {MIN_WEIGHT}..{MAX_WEIGHT}; unset is 0, below every "
                                            "weighted overlay, and ties that conflict are not applied",
                                    fix="pass weight=<a value no other overlay of this cluster uses>, e.g. weight=10")
        return data

    @field_validator("weight", mode="before")
    @classmethod
    def _weight(cls, v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or not MIN_WEIGHT <= v <= MAX_WEIGHT:
            raise KarpenterGpuError("KG183", prop="weight", value=v,
                                    allowed=f"an integer {MIN_WEIGHT}..{MAX_WEIGHT} (the CRD bounds; higher wins)",
                                    fix="pick a weight in range that no other overlay of this cluster uses")
        return v

    @model_validator(mode="after")
    def _render_requirements(self) -> "OverlayProps":
        self._requirements = tuple(render_in(key, values, prop) for prop, key, values in self.requirement_terms())
        if len(self._requirements) > 100:  # pragma: no cover - no subclass renders that many
            raise KarpenterGpuError("KG182", prop="requirements", value=len(self._requirements),
                                    allowed="at most 100 requirements", fix="drop requirements")
        return self

    # -- what a subclass provides ------------------------------------------------------------
    def requirement_terms(self) -> Iterable[tuple[str, str, tuple[str, ...]]]:
        """(prop, key, values) for each ``In`` requirement, in render order."""
        raise NotImplementedError

    def spec_fields(self) -> dict[str, Any]:
        """The spec fields between ``requirements`` and ``weight`` (price, capacity)."""
        raise NotImplementedError

    def gate_reason(self) -> str:
        """Why this overlay needs the ``nodeOverlay`` gate, for the feature-gate summary."""
        raise NotImplementedError

    # -----------------------------------------------------------------------------------------
    @property
    def requirements(self) -> tuple[dict, ...]:
        return self._requirements

    def render(self) -> dict[str, Any]:
        return {"requirements": [dict(r, values=list(r["values"])) for r in self._requirements],
                **self.spec_fields(), "weight": self.weight}


class OverlayKwargs(TypedDict, total=False):
    """The keyword props every NodeOverlay construct has: the fields of :class:`OverlayProps`, same types."""

    name: str
    weight: int


class _Overlay(ScopedConstruct):
    """Base of the NodeOverlay constructs: validate, check the weight is unique, record the gate, render.

    Subclasses declare ``**kwargs: Unpack[<Construct>Kwargs]`` for type checkers and call this.
    """

    props_type: ClassVar[type[OverlayProps]] = OverlayProps
    __signature__ = ConstructSignature()

    def __init__(self, scope: Construct, id: str, *, props: OverlayProps | None = None, **values: Any) -> None:
        path = path_of(scope, id)
        props = build(self.props_type, path, props, **values)
        _check_unique(scope, props, path)  # before super().__init__: nothing is added on error
        require_chart(scope, path, type(self).__name__)
        self.props = props
        super().__init__(scope, id)
        _OVERLAYS.setdefault(_cluster_key(scope), []).append(self)
        require_feature_gate(self, FeatureGate.NODE_OVERLAY, props.gate_reason())
        self.resource = _api_object.create(self, binding=NodeOverlay, name=props.name, spec=props.render(),
                                           render=self.render_spec if type(self).render_spec is not _Overlay.render_spec
                                           else None)

    def render_spec(self) -> dict:
        """The spec at synth; a subclass whose spec depends on the final tree overrides it."""
        return self.props.render()

    @property
    def name(self) -> str:
        return self.props.name

    @property
    def weight(self) -> int:
        return self.props.weight


# Every overlay of a cluster, in creation order: the uniqueness check reads this instead of walking the
# construct tree over jsii (findAll) for each new overlay. Keyed by the cluster's jsii reference (see
# karpenter_gpu.cluster: the Python proxy of an app made on the JS side is a new object on every read).
# Held strongly, as the tree holds them.
_OVERLAYS: dict[str, list[_Overlay]] = {}


def _cluster_key(scope: IConstruct) -> str:
    return ref_of(cluster_of(scope))


def _check_unique(scope: IConstruct, props: OverlayProps, path: str) -> None:
    """No other overlay of the cluster may share this weight (conflicting ties are dropped) or this name."""
    for node in _OVERLAYS.get(_cluster_key(scope), ()):
        if node.props.weight == props.weight:
            raise KarpenterGpuError(
                "KG183", prop="weight", value=props.weight,
                allowed=f"a weight not used by another overlay ({node.node.path} has weight {props.weight}); "
                        "equal weights that conflict are not applied by Karpenter; weights must be unique "
                        "among this cluster's overlays",
                fix="give this overlay another weight (higher wins where both match)", path=path)
        if node.props.name == props.name:
            raise KarpenterGpuError(
                "KG171", prop="name", value=props.name,
                allowed=f"a NodeOverlay name not used by another overlay ({node.node.path})",
                fix="rename one of them; the second would overwrite the first on apply", path=path)


def distinct_matching(value: Any, prop: str, pattern: re.Pattern, allowed: str, example: str) -> tuple[str, ...]:
    """A non-empty tuple of distinct strings, each ≤63 chars and matching ``pattern`` (KG182)."""
    items = strings(value, prop, "KG182", example)
    bad = [i for i in items if len(i) > 63 or not pattern.match(i)]
    if not items or bad or len(set(items)) != len(items):
        raise KarpenterGpuError("KG182", prop=prop, value=bad[0] if bad else list(items),
                                allowed=f"one or more distinct {allowed}", fix=f"e.g. {prop}={example}")
    return items
