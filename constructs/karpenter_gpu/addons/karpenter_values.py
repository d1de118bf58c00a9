"""KarpenterControllerValues → Helm values for the Karpenter v1.14.1 controller chart, read from the tree.

The manifests rely on controller settings that the API server never checks: a static NodePool
with ``staticCapacity`` off, or a NodeOverlay with ``nodeOverlay`` off, is accepted and then
silently does nothing; a spot pool without ``settings.interruptionQueue`` loses the 2-minute
reclaim notice. This construct reads what the constructs under ``scope`` need and renders the
chart's ``settings`` so that the values and the manifests cannot disagree::

    KarpenterControllerValues(chart, "Karpenter", cluster_name="prod", interruption_queue="prod")

It reads the constructs of its cluster (every chart of it; see :mod:`karpenter_gpu.cluster`) from the
final tree when the values are rendered: create the constructs in any order.
``helm upgrade --install karpenter oci://public.ecr.aws/karpenter/karpenter --version 1.14.1
-n kube-system -f karpenter.values.yaml``.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from constructs import Construct
from pydantic import field_validator, model_validator
from typing_extensions import TypedDict, Unpack

from karpenter_gpu.pools._node_pool import NodePoolConstruct
from karpenter_gpu.pools.gpu_node_class import EKS_CLUSTER_NAME
from karpenter_gpu._props import Props, build, check_known
from karpenter_gpu._construct_tree import path_of
from karpenter_gpu._signature import ConstructSignature
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.feature_gates import DEFAULT_ON, FeatureGate, GateNeed, required_feature_gates
from karpenter_gpu.addons.helm_values import HelmValues
from karpenter_gpu.cluster import (cluster_of, karpenter_line_of, members, members_of, register_derived,
                                   sorted_by_name)
from karpenter_gpu.k8s.requirements import CapacityType
from karpenter_gpu.upstream import (KARPENTER_CHART, KARPENTER_CHART_VERSION, KARPENTER_IMAGE, KARPENTER_LINES,
                                    KARPENTER_TAG, KARPENTER_VERSION, DEFAULT_LINE, INTRODUCED, KarpenterLine)

CHART = KARPENTER_CHART
VERSION = KARPENTER_CHART_VERSION
FILE_NAME = "karpenter.values.yaml"

#: What goes wrong when a gate a construct needs is off (the API server accepts the objects anyway).
GATE_OFF_EFFECT: dict[FeatureGate, str] = {
    FeatureGate.STATIC_CAPACITY: "a static NodePool with staticCapacity off silently launches nothing",
    FeatureGate.NODE_OVERLAY: "a NodeOverlay with nodeOverlay off is accepted and silently ignored "
                              "(prices and capacity stay as if it did not exist)",
    FeatureGate.RESERVED_CAPACITY: "with reservedCapacity off Karpenter offers no reserved capacity: a pool "
                                   "relying on a capacity reservation never launches into it",
    FeatureGate.SPOT_TO_SPOT_CONSOLIDATION: "with spotToSpotConsolidation off spot nodes are never replaced "
                                            "by cheaper spot nodes",
    FeatureGate.NODE_REPAIR: "with nodeRepair off unhealthy nodes are not repaired",
    FeatureGate.CAPACITY_BUFFER: "with capacityBuffer off capacity buffers are ignored",
}


# SQS queue names: 1-80 characters, alphanumerics, '-' and '_' (FIFO queues end in '.fifo').
_QUEUE_NAME = re.compile(r"^[A-Za-z0-9_-]{1,75}(\.fifo)?\Z|^[A-Za-z0-9_-]{1,80}\Z")


def _spot_pools(scope: Construct) -> list[NodePoolConstruct]:
    """Spot pools this controller serves: not EKS Auto Mode's, whose controller AWS runs and which handles spot
    interruptions natively (https://docs.aws.amazon.com/eks/latest/userguide/automode.html)."""
    return [c for c in members_of(scope, NodePoolConstruct)
            if CapacityType.SPOT in c.props.capacity_types and not c.auto_mode]


def _gate(key: Any) -> FeatureGate:
    try:
        return FeatureGate(key)
    except ValueError:
        names = [str(g) for g in FeatureGate]
        hint = next((n for n in names if n.lower() == str(key).lower()), None)
        raise KarpenterGpuError(
            "KG524", prop="feature_gates", value=key,
            allowed=f"a Helm settings.featureGates key of the {KARPENTER_TAG} chart: {names}",
            fix=f"use {hint!r} (the Helm key, not the binary's FEATURE_GATES name)" if hint
                else "use a FeatureGate member, e.g. FeatureGate.NODE_OVERLAY") from None


class KarpenterControllerValuesProps(Props):
    """Props of :class:`KarpenterControllerValues`."""

    #: ``settings.clusterName`` (required): the EKS cluster name, not its ARN.
    cluster_name: str
    #: ``settings.interruptionQueue``: the SQS queue **name** (not its URL or ARN). The getting-started
    #: CloudFormation names it after the cluster. Default: - none: interruption handling is off,
    #: which is an error while any pool offers spot (see ``allow_spot_without_interruption_queue``).
    interruption_queue: str | None = None
    #: Explicit ``settings.featureGates`` overrides. ``True`` forces a gate on; ``False`` forces it off
    #: and is an error (KG522) when a construct under the scope needs it.
    #: Default: - gates follow the constructs, else the chart defaults.
    feature_gates: Mapping[FeatureGate | str, bool] = {}
    #: ``settings.featureGates.spotToSpotConsolidation`` (alpha): let consolidation replace spot
    #: nodes with cheaper spot nodes. Default: False.
    spot_to_spot_consolidation: bool = False
    #: Accept spot pools without an interruption queue. Only for throw-away dev/test clusters without
    #: the SQS queue and EventBridge rules, where a reclaimed node vanishing without a drain is acceptable.
    #: Default: False (KG523).
    allow_spot_without_interruption_queue: bool = False

    @model_validator(mode="before")
    @classmethod
    def _cluster_name_given(cls, data: Any) -> Any:
        if isinstance(data, dict):
            check_known(cls, data)  # a misspelt cluster_name is a typo, not a missing name
        if isinstance(data, dict) and data.get("cluster_name") is None:
            raise KarpenterGpuError("KG520", prop="cluster_name", value=None,
                                    allowed="the EKS cluster name (settings.clusterName is required by the chart)",
                                    fix="pass cluster_name='<cluster-name>'")
        return data

    @field_validator("cluster_name", mode="before")
    @classmethod
    def _cluster_name(cls, v: Any) -> str:
        if not isinstance(v, str) or not EKS_CLUSTER_NAME.match(v):
            arn = isinstance(v, str) and v.startswith("arn:")
            raise KarpenterGpuError(
                "KG520", prop="cluster_name", value=v,
                allowed="a non-empty EKS cluster name: 1-100 alphanumerics, '-' or '_', starting alphanumeric"
                        + (" (the name, not the cluster ARN)" if arn else ""),
                fix=f"pass cluster_name={v.rsplit('/', 1)[-1]!r}" if arn else "pass cluster_name='<cluster-name>'")
        return v

    @field_validator("interruption_queue", mode="before")
    @classmethod
    def _queue(cls, v: Any) -> Any:
        if v is None:
            return v
        if not isinstance(v, str) or v.startswith(("https://", "http://", "arn:")) or not _QUEUE_NAME.match(v):
            name = v.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1] if isinstance(v, str) else ""
            kind = ("a queue URL" if isinstance(v, str) and v.startswith(("https://", "http://"))
                    else "a queue ARN" if isinstance(v, str) and v.startswith("arn:") else "not a queue name")
            fix = (f"pass the name only: interruption_queue={name!r}" if name and _QUEUE_NAME.match(name)
                   else "pass interruption_queue='<cluster-name>' (the getting-started CloudFormation names the "
                        "queue after the cluster), or omit it (None) to leave interruption handling off")
            raise KarpenterGpuError(
                "KG521", prop="interruption_queue", value=v,
                allowed=f"the SQS queue name Karpenter reads as settings.interruptionQueue ({kind}): 1-80 "
                        "alphanumerics, '-' or '_', optionally ending in '.fifo'",
                fix=fix)
        return v

    @field_validator("feature_gates", mode="before")
    @classmethod
    def _gates(cls, v: Any) -> dict[FeatureGate, bool]:
        if not isinstance(v, Mapping):
            raise KarpenterGpuError("KG524", prop="feature_gates", value=v,
                                    allowed="a mapping of feature gate to True/False",
                                    fix="e.g. feature_gates={FeatureGate.NODE_REPAIR: True}")
        out: dict[FeatureGate, bool] = {}
        for key, on in v.items():
            gate = _gate(key)
            if not isinstance(on, bool):
                raise KarpenterGpuError("KG524", prop=f"feature_gates[{gate}]", value=on,
                                        allowed="True or False", fix=f"pass feature_gates={{'{gate}': True}}")
            if gate in out:
                raise KarpenterGpuError("KG524", prop="feature_gates", value=str(gate),
                                        allowed="each gate once", fix="drop the duplicate key")
            out[gate] = on
        return out

    @model_validator(mode="after")
    def _spot_to_spot(self) -> "KarpenterControllerValuesProps":
        forced = self.feature_gates.get(FeatureGate.SPOT_TO_SPOT_CONSOLIDATION)
        if (forced is not None and "spot_to_spot_consolidation" in self.model_fields_set
                and forced != self.spot_to_spot_consolidation):
            raise KarpenterGpuError(
                "KG525", prop="feature_gates[spotToSpotConsolidation]", value=forced,
                allowed=f"the same value as spot_to_spot_consolidation ({self.spot_to_spot_consolidation})",
                fix="set it in one place: spot_to_spot_consolidation=...")
        return self

    @property
    def spot_to_spot(self) -> bool:
        """The effective spotToSpotConsolidation: the prop, or a ``feature_gates`` override."""
        return self.feature_gates.get(FeatureGate.SPOT_TO_SPOT_CONSOLIDATION, self.spot_to_spot_consolidation)


class KarpenterControllerValuesKwargs(TypedDict, total=False):
    """The keyword props of :class:`KarpenterControllerValues`: the fields of
    :class:`KarpenterControllerValuesProps`, same types."""

    cluster_name: str
    interruption_queue: str | None
    feature_gates: Mapping[FeatureGate | str, bool]
    spot_to_spot_consolidation: bool
    allow_spot_without_interruption_queue: bool


class KarpenterControllerValues(HelmValues):
    """``settings`` for the Karpenter v1.14.1 Helm chart, derived from the constructs of its cluster.

    - ``settings.clusterName`` and ``settings.interruptionQueue`` (omitted when None).
    - ``settings.featureGates`` with all six gates, as the chart renders them: a gate is on when a
      construct of the cluster needs it (:func:`required_feature_gates`) or ``feature_gates``
      forces it on, else the chart default (only ``reservedCapacity`` on). Forcing off a gate
      that a construct needs is an error (KG522).
    - A NodePool offering spot without ``interruption_queue`` is an error (KG523) unless
      ``allow_spot_without_interruption_queue=True``.

    Values are computed from the final tree of the cluster when read; what is already wrong at
    construction (KG522, KG523) fails there too.
    """

    __signature__ = ConstructSignature()

    def __init__(self, scope: Construct, id: str, *, props: KarpenterControllerValuesProps | None = None,
                 **kwargs: Unpack[KarpenterControllerValuesKwargs]) -> None:
        """Keyword props (see :class:`KarpenterControllerValuesProps` for defaults) or ``props=``, not both
        (KG820)."""
        path = path_of(scope, id)
        self.props = build(KarpenterControllerValuesProps, path, props, **kwargs)
        self._path = path
        #: The Karpenter line of the cluster (``karpenter_version`` of its Cluster or PlatformConfig).
        self.line: KarpenterLine = karpenter_line_of(scope)
        self._check(required_feature_gates(cluster_of(scope), members(cluster_of(scope))), _spot_pools(scope))
        super().__init__(scope, id, chart=CHART, version=self.line.chart_version, file_name=FILE_NAME)
        register_derived(self)

    @property
    def gate_needs(self) -> tuple[GateNeed, ...]:
        """What the constructs of the cluster need, sorted by gate and path."""
        cluster = cluster_of(self)
        return tuple(sorted(required_feature_gates(cluster, members(cluster)), key=lambda n: (n.gate, n.path)))

    @property
    def spot_pools(self) -> tuple[NodePoolConstruct, ...]:
        """The NodePools of the cluster offering spot, in name order."""
        return tuple(sorted_by_name(_spot_pools(self)))

    @property
    def feature_gates(self) -> dict[str, bool]:
        return self._resolve_gates(self.props, self.gate_needs, self._path, self.line)

    def render_values(self) -> dict[str, Any]:
        p = self.props
        needs = self.gate_needs
        self._check(needs, self.spot_pools)
        settings: dict[str, Any] = {"clusterName": p.cluster_name}
        if p.interruption_queue is not None:
            settings["interruptionQueue"] = p.interruption_queue
        settings["featureGates"] = self._resolve_gates(p, needs, self._path, self.line)
        # The chart inside a release tag pins the previous release's controller image: pin the line's own.
        image = {"repository": KARPENTER_IMAGE, "tag": self.line.image_tag, "digest": self.line.image_digest}
        return {"settings": settings, "controller": {"image": image}}

    def _check(self, needs: tuple[GateNeed, ...], spot_pools: Any) -> None:
        p, path = self.props, self._path
        self._resolve_gates(p, needs, path, self.line)  # KG522, KG662
        spot_pools = sorted_by_name(spot_pools)
        if spot_pools and p.interruption_queue is None and not p.allow_spot_without_interruption_queue:
            pools = ", ".join(f"{c.props.name} ({c.node.path})" for c in spot_pools)
            raise KarpenterGpuError(
                "KG523", prop="interruption_queue", value=None,
                allowed=f"an SQS queue name while NodePools offer spot ({pools}): without "
                        "settings.interruptionQueue spot reclaim notices never reach Karpenter, the 2-minute "
                        "warning is lost and reclaimed GPU nodes vanish without a drain (pods lose everything "
                        "since their last checkpoint)",
                fix=f"pass interruption_queue={p.cluster_name!r} (the getting-started CloudFormation names the "
                    "queue after the cluster; it must exist with its EventBridge rules), drop spot from those "
                    "pools, or, for a throw-away dev cluster only, allow_spot_without_interruption_queue=True",
                path=path)

    def notes(self) -> list[str]:
        return [f"featureGates.{n.gate} is needed by {n.path}: {n.reason}" for n in self.gate_needs]

    @staticmethod
    def _resolve_gates(p: KarpenterControllerValuesProps, needs: tuple[GateNeed, ...], path: str,
                       line: KarpenterLine = KARPENTER_LINES[DEFAULT_LINE]) -> dict[str, bool]:
        forced = {FeatureGate(g): on for g, on in p.feature_gates.items()}
        if "spot_to_spot_consolidation" in p.model_fields_set:
            forced[FeatureGate.SPOT_TO_SPOT_CONSOLIDATION] = p.spot_to_spot_consolidation
        needed = {n.gate for n in needs}
        for gate in FeatureGate:
            if gate in line.gates or not (gate in needed or forced.get(gate)):
                continue
            who = "; ".join(f"{n.path} ({n.reason})" for n in needs if n.gate == gate) or "feature_gates forces it on"
            raise KarpenterGpuError(
                "KG662", prop=f"feature_gates[{gate}]", value=True,
                allowed=f"a gate of the Karpenter v{line.version} chart ({', '.join(map(str, line.gates))}): "
                        f"{gate} first appears in Karpenter v{INTRODUCED.get(gate.value, KARPENTER_VERSION)}; "
                        f"needed by {who}",
                fix=f"target a line that has it (karpenter_version={DEFAULT_LINE!r}), or drop what needs it", path=path)
        for gate in FeatureGate:
            if gate in needed and forced.get(gate) is False:
                users = [n for n in needs if n.gate == gate]
                who = "; ".join(f"{n.path} ({n.reason})" for n in users)
                raise KarpenterGpuError(
                    "KG522", prop=f"feature_gates[{gate}]", value=False,
                    allowed=f"True: {who} need{'s' if len(users) == 1 else ''} it, and "
                            f"{GATE_OFF_EFFECT[gate]} (the API server accepts the objects anyway)",
                    fix=f"drop '{gate}' from feature_gates (it is then rendered true), or remove the constructs "
                        "that need it",
                    path=path)
        # Chart order (FACTS §7); every gate of the line rendered explicitly, as the chart does.
        return {str(g): bool(g in needed or forced.get(g, g in DEFAULT_ON)) for g in FeatureGate if g in line.gates}
