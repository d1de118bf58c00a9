"""GpuMonitoring → prometheus-operator ``ServiceMonitor`` s and one ``PrometheusRule`` for the GPU pools.

Seed 000 §9 (collect Karpenter and DCGM metrics, alert on GPU pools) and §17 (watch
``ConsistentStateFound``), rendered with the typed bindings of the prometheus-operator v0.93.0
CRDs (``monitoring.coreos.com/v1``)::

    GpuMonitoring(chart, "Monitoring")   # reads the pools of its cluster at synth

Renders, all with ``labels`` (default ``release: kube-prometheus-stack``, what that chart's Prometheus
selects ServiceMonitors and PrometheusRules by):

- ``ServiceMonitor/karpenter`` in ``namespace``: Services labelled ``app.kubernetes.io/name: karpenter``,
  port ``http-metrics``, path ``/metrics``, every 15s. A ServiceMonitor without a namespaceSelector
  only sees Services in its own namespace, so ``namespace`` must be the namespace the Karpenter chart
  is installed in (the upstream getting-started uses ``kube-system``; the seed uses ``karpenter``).
  Turn it off (``karpenter_service_monitor=False``) when the chart's ``serviceMonitor.enabled`` is on.
- ``ServiceMonitor/dcgm-exporter`` in ``dcgm_namespace``, **only** with ``dcgm_service_monitor=True`` or when
  the cluster has hybrid node groups
  (GpuOperatorValues gives the GPU Operator chart's own ServiceMonitor these ``labels`` as additionalLabels):
  the GPU Operator chart creates its own (``dcgmExporter.serviceMonitor.enabled``), and two monitors
  on one Service scrape every GPU twice (duplicate series, doubled averages' inputs). Port
  ``gpu-metrics``: the name the GPU Operator gives the exporter's Service port (the seed's ``metrics``
  matches no port of that Service, and a ServiceMonitor with no matching port scrapes nothing).
  It attaches node metadata (``attachMetadata.node``, Prometheus ≥ 2.37; Prometheus needs list/watch on
  nodes, which kube-prometheus-stack grants) and relabels every DCGM series with ``location`` (the node's
  ``topology.kubernetes.io/region``, overridden by a hybrid node's ``karpenter-gpu.io/location``),
  ``hybrid_group`` and ``compute_type`` (``eks.amazonaws.com/compute-type``). The chart's own monitor cannot
  (ClusterPolicy's ``serviceMonitor`` has ``relabelings`` but no ``attachMetadata``, and the endpoints a
  ServiceMonitor discovers carry pod, not node, labels), so with hybrid groups GpuOperatorValues turns it off.
- ``PrometheusRule/karpenter-gpu-alerts`` in ``namespace``, group ``karpenter-gpu``:

  - ``GPUNodePoolNearLimit``, **one per dynamic GPU pool** under ``scope`` (every NodePool construct
    with a ``gpu_limit``; static pools have no GPU limit). The expression divides the pool's
    ``karpenter_nodepools_usage{resource_type="nvidia.com/gpu"}`` by the pool's own limit as a literal
    (not by ``karpenter_nodepools_limit``), so the alert cannot drift from the construct; the rule
    carries a ``nodepool`` label. Metric name as Karpenter v1 exports it (the seed's
    ``karpenter_nodepool_usage`` is the pre-v1 name); the ``resource_type`` value is the resource name
    lower-cased with '-' → '_', i.e. ``nvidia.com/gpu``.
  - ``HybridGPUNodeGroupNearCapacity``, one per hybrid node group: GPUs in use by pods (DCGM series with an
    ``exported_pod`` label, see :data:`DCGM_ALLOCATED_LABEL`) divided by the group's fixed GPU count (nodes × GPUs per node) as a literal, above
    ``near_limit_ratio`` for 5m. Hybrid nodes have no Karpenter limit: their capacity is what is racked.
  - ``HybridGPUsMissing``, one per hybrid node group: fewer GPUs report to DCGM than the group has, for
    ``consistent_state_grace`` (a server down, or its driver or device plugin failed).
  - ``NeuronNodePoolNearLimit``: the same for each dynamic Neuron pool (Inferentia, Trainium), on
    ``resource_type="aws.amazon.com/neuron"`` against its ``neuron_limit``.
  - ``LowGPUUtilization``: a node's GPUs (DCGM exporter, ``Hostname`` label) averaged below
    ``low_utilization_percent`` over ``low_utilization_for``, sustained for ``low_utilization_for``.
  - ``KarpenterProvisioningFailed``: NodeClaims Karpenter gave up on in the last 15 minutes — see
    :data:`PROVISIONING_FAILED_EXPR` for why this is not the seed's expression.
  - ``KarpenterNodeClaimInconsistentState``: ``operator_status_condition_count{type="ConsistentStateFound",
    kind="NodeClaim",status="False"} > 0`` for ``consistent_state_grace``. On a fresh GPU node the value
    is 1 for a few minutes as a matter of course (the GPU Operator installs the driver and device plugin
    after the node is Ready; until then ``nvidia.com/gpu`` is missing from allocatable); only a value
    that persists points at the GPU Operator or the instance.

Every alert has a ``severity`` label and ``summary``/``description`` annotations. ``karpenter_alerts=False`` leaves
out the ones on Karpenter's metrics (the NodePool near-limit alerts and the two ``Karpenter*`` ones): on an EKS
Auto Mode cluster EKS runs Karpenter and its metrics are not scraped in the cluster.

The pools are those of its cluster (every chart of it; see :mod:`karpenter_gpu.cluster`), read from the
final tree at synth: create the constructs in any order. One GpuMonitoring per cluster (a second renders
the same objects: KG171). No GPU pool and no hybrid node group in the cluster is an error (KG540): the rule
would watch nothing.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Mapping

import cdk8s
from constructs import Construct
from pydantic import BeforeValidator, StrictBool, field_validator
from typing_extensions import TypedDict, Unpack

from karpenter_gpu import _api_object
from karpenter_gpu.pools._gpu_pool import GpuPool
from karpenter_gpu.pools.hybrid_gpu_nodes import HYBRID_GROUP_LABEL, LOCATION_LABEL, HybridGpuNodeGroup, hybrid_groups_of
from karpenter_gpu._props import Props, build, DnsLabel
from karpenter_gpu._construct_tree import path_of
from karpenter_gpu._signature import ConstructSignature
from karpenter_gpu.k8s.accelerators import NVIDIA
from karpenter_gpu.k8s.labels import COMPUTE_TYPE, NVIDIA_GPU, Label
from karpenter_gpu.crds.prometheusrule.com.coreos.monitoring import PrometheusRule
from karpenter_gpu.crds.servicemonitor.com.coreos.monitoring import ServiceMonitor
from karpenter_gpu.cluster import cluster_of, members_of, register_derived, require_chart, ScopedConstruct, sorted_by_name
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.names import is_label_value, is_qualified_name
from karpenter_gpu.k8s.units import Duration

KARPENTER_SERVICE_MONITOR = "karpenter"
DCGM_SERVICE_MONITOR = "dcgm-exporter"
RULE_NAME = "karpenter-gpu-alerts"
RULE_GROUP = "karpenter-gpu"
#: Scrape interval of both ServiceMonitors (seed 000 §9).
SCRAPE_INTERVAL = "15s"
#: How long a pool must stay above the ratio before GPUNodePoolNearLimit fires (seed 000 §9).
NEAR_LIMIT_FOR = "5m"
#: ``resource_type`` label of Karpenter's nodepool metrics for GPUs: the resource name, lower-cased,
#: '-' replaced by '_' (which leaves ``nvidia.com/gpu`` as it is).
GPU_RESOURCE_TYPE = NVIDIA_GPU
#: DCGM exporter's label naming the node a GPU sits in.
DCGM_NODE_LABEL = "Hostname"
#: NodeClaims deleted because a launch or registration failed: ICE (``insufficient_capacity``), no
#: launch within 5m (``launch_timeout``), no node registered within 15m (``registration_timeout``).
#: The seed's ``increase(karpenter_nodeclaims_terminated_total{reason="ProvisioningFailed"}[15m]) > 0``
#: can never fire on Karpenter v1: that counter is labelled only by nodepool, capacity_type and zone,
#: so the ``reason`` matcher selects no series.
PROVISIONING_FAILED_EXPR = (
    'sum by (nodepool, reason) (increase(karpenter_nodeclaims_disrupted_total'
    '{reason=~"insufficient_capacity|launch_timeout|registration_timeout"}[15m])) > 0'
)
#: One series per GPU. dcgm-exporter labels the series of a GPU allocated to a pod with that pod's ``pod``
#: (its Kubernetes mapping, on in the GPU Operator); a free GPU's series has none. The ServiceMonitor's own
#: target label ``pod`` (the exporter's pod) wins with ``honorLabels: false``, the default, and Prometheus
#: keeps the scraped one as ``exported_pod``: that is the label that tells allocated GPUs apart.
DCGM_GPU_SERIES = "DCGM_FI_DEV_GPU_UTIL"
DCGM_ALLOCATED_LABEL = "exported_pod"


def _meta(label: str) -> str:
    """Prometheus' Kubernetes SD name of a node label: ``__meta_kubernetes_node_label_`` + the name with every
    character outside [a-zA-Z0-9_] replaced by '_' (``strutil.SanitizeLabelName``)."""
    return "__meta_kubernetes_node_label_" + re.sub(r"[^a-zA-Z0-9_]", "_", label)


#: DCGM relabelings (order matters: a hybrid node's location replaces its region). Regex ``(.+)``: a node
#: without the label keeps what it had (the default ``(.*)`` would set an empty value, i.e. drop the label).
DCGM_RELABELINGS: tuple[dict[str, Any], ...] = (
    {"sourceLabels": [_meta(Label.REGION)], "regex": "(.+)", "targetLabel": "location", "replacement": "$1",
     "action": "replace"},
    {"sourceLabels": [_meta(LOCATION_LABEL)], "regex": "(.+)", "targetLabel": "location", "replacement": "$1",
     "action": "replace"},
    {"sourceLabels": [_meta(HYBRID_GROUP_LABEL)], "regex": "(.+)", "targetLabel": "hybrid_group",
     "replacement": "$1", "action": "replace"},
    {"sourceLabels": [_meta(COMPUTE_TYPE)], "regex": "(.+)", "targetLabel": "compute_type",
     "replacement": "$1", "action": "replace"},
)
#: Seed 000 §17 / the Karpenter v1.14 troubleshooting guide. Karpenter also exports it as
#: ``operator_nodeclaim_status_condition_count`` (no ``kind`` label).
INCONSISTENT_STATE_SERIES = 'operator_status_condition_count{type="ConsistentStateFound",kind="NodeClaim",status="False"}'

# Prometheus durations, as the PrometheusRule CRD's pattern for `for` (units in this order, no spaces).
_PROM_DURATION = re.compile(r"^(?:([0-9]+)y)?(?:([0-9]+)w)?(?:([0-9]+)d)?(?:([0-9]+)h)?(?:([0-9]+)m)?(?:([0-9]+)s)?(?:([0-9]+)ms)?\Z")
# Label keys: optional DNS-subdomain prefix and '/', then a name; values ≤63 chars.


def _prom_duration(value: Any) -> str:
    """A non-zero Prometheus duration such as ``30m``, ``1h30m`` or ``2d`` (KG542)."""
    text = str(value) if isinstance(value, Duration) and not value.is_never else value
    m = _PROM_DURATION.match(text) if isinstance(text, str) and text else None
    if m is None or not any(int(g) for g in m.groups() if g):
        raise KarpenterGpuError(
            "KG542", prop="duration", value=value if isinstance(value, (str, int, float)) else repr(value),
            allowed="a non-zero Prometheus duration: digits with units y, w, d, h, m, s, ms in that order, "
                    "e.g. '30m', '1h30m', '2d' (no spaces, no fractions, no ISO 8601 'PT30M')",
            fix="e.g. '30m' or Duration.minutes(30)")
    return text


#: A props field holding a Prometheus duration, given as a str or a :class:`~karpenter_gpu.k8s.units.Duration`
#: (both are typed, for keyword props and the props model alike) and always stored as its text.
PromDuration = Annotated[str | Duration, BeforeValidator(_prom_duration)]


def _number(value: Any, prop: str, low: float, high: float, what: str, example: str) -> float | int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low < value <= high:
        raise KarpenterGpuError("KG541", prop=prop, value=value, allowed=f"{what}: a number > {low:g} and ≤ {high:g}",
                                fix=f"e.g. {prop}={example}")
    return value


def _num(value: float | int) -> str:
    """0.9 → '0.9', 20 → '20', 20.0 → '20' (PromQL literals, no trailing zeros)."""
    return f"{value:g}" if isinstance(value, float) else str(value)


class GpuMonitoringProps(Props):
    """Props of :class:`GpuMonitoring`."""

    #: Namespace of the Karpenter ServiceMonitor and the PrometheusRule: where the Karpenter chart runs.
    #: Default: "karpenter".
    namespace: DnsLabel = "karpenter"
    #: Render ``ServiceMonitor/karpenter``. Off when the Karpenter chart's own serviceMonitor is on.
    #: Default: True.
    karpenter_service_monitor: StrictBool = True
    #: Render the alerts on Karpenter's metrics (each pool's NodePoolNearLimit, KarpenterProvisioningFailed,
    #: KarpenterNodeClaimInconsistentState). Off for an EKS Auto Mode cluster: EKS runs Karpenter and its
    #: metrics are not scraped in the cluster. Default: True.
    karpenter_alerts: StrictBool = True
    #: Render ``ServiceMonitor/dcgm-exporter``. Default: False — the GPU Operator chart can create its own
    #: (``dcgmExporter.serviceMonitor.enabled``); both together scrape every GPU twice. Rendered anyway when
    #: the cluster has hybrid node groups (their metrics need the node's location; see the module doc).
    dcgm_service_monitor: StrictBool = False
    #: Namespace of the GPU Operator (its DCGM exporter Service). Default: "gpu-operator".
    dcgm_namespace: DnsLabel = "gpu-operator"
    #: GPUNodePoolNearLimit fires above this share of a pool's GPU limit, 0 < r ≤ 1. Default: 0.9.
    near_limit_ratio: float = 0.9
    #: LowGPUUtilization fires below this average GPU utilization (percent, 0 < p ≤ 100). Default: 20.
    low_utilization_percent: float = 20
    #: Averaging window and ``for`` of LowGPUUtilization. Default: "30m".
    low_utilization_for: PromDuration = "30m"
    #: ``for`` of KarpenterNodeClaimInconsistentState: longer than the device plugin takes to arrive
    #: on a new GPU node. Default: "15m".
    consistent_state_grace: PromDuration = "15m"
    #: Labels of every object (Prometheus selects rules and monitors by them).
    #: Default: {"release": "kube-prometheus-stack"}.
    labels: Mapping[str, str] = {"release": "kube-prometheus-stack"}

    @field_validator("near_limit_ratio", mode="before")
    @classmethod
    def _ratio(cls, v: Any) -> float | int:
        return _number(v, "near_limit_ratio", 0, 1, "a share of the pool's GPU limit", "0.9")

    @field_validator("low_utilization_percent", mode="before")
    @classmethod
    def _percent(cls, v: Any) -> float | int:
        return _number(v, "low_utilization_percent", 0, 100, "a GPU utilization in percent (DCGM_FI_DEV_GPU_UTIL)",
                       "20")

    @field_validator("labels", mode="before")
    @classmethod
    def _labels(cls, v: Any) -> dict[str, str]:
        if not isinstance(v, Mapping):
            raise KarpenterGpuError("KG121", prop="labels", value=repr(v), allowed="a mapping of label keys to values",
                                    fix="e.g. labels={'release': 'kube-prometheus-stack'}")
        for key, value in v.items():
            if not is_qualified_name(key):
                raise KarpenterGpuError("KG121", prop="labels", value=key,
                                        allowed="a label key: [prefix/]name, name ≤63 alphanumerics, '-', '_', '.'",
                                        fix="e.g. 'release'")
            if not is_label_value(value):
                raise KarpenterGpuError("KG121", prop=f"labels[{key}]", value=value,
                                        allowed="a label value (≤63 chars, alphanumerics, '-', '_', '.')",
                                        fix="e.g. 'kube-prometheus-stack'")
        return dict(v)


def hybrid_groups(scope: Construct) -> tuple[HybridGpuNodeGroup, ...]:
    """The hybrid node groups of the cluster of ``scope``, by name."""
    return tuple(hybrid_groups_of(scope))


def gpu_pools(scope: Construct) -> tuple[GpuPool, ...]:
    """The dynamic GPU pools of the cluster of ``scope`` (NodePool constructs with a ``gpu_limit``), by name."""
    return tuple(sorted_by_name(members_of(scope, GpuPool)))


class GpuMonitoringKwargs(TypedDict, total=False):
    """The keyword props of :class:`GpuMonitoring`: the fields of :class:`GpuMonitoringProps`, same types."""

    namespace: str
    karpenter_service_monitor: bool
    karpenter_alerts: bool
    dcgm_service_monitor: bool
    dcgm_namespace: str
    near_limit_ratio: float
    low_utilization_percent: float
    low_utilization_for: str | Duration
    consistent_state_grace: str | Duration
    labels: Mapping[str, str]


class GpuMonitoring(ScopedConstruct):
    """ServiceMonitors for Karpenter (and optionally DCGM) plus the GPU alert rules; see the module doc.

    Attributes: ``karpenter_service_monitor`` / ``dcgm_service_monitor`` (the ApiObjects, or None when
    not rendered), ``prometheus_rule`` (ApiObject), ``rule_group`` (the rendered group, a dict) and
    ``pools`` (the GPU pools the near-limit alerts are generated from); the last two are read from
    the tree when accessed.
    """

    __signature__ = ConstructSignature()

    def __init__(self, scope: Construct, id: str, *, props: GpuMonitoringProps | None = None,
                 **kwargs: Unpack[GpuMonitoringKwargs]) -> None:
        """Keyword props (see :class:`GpuMonitoringProps` for defaults) or ``props=``, not both (KG820)."""
        path = path_of(scope, id)
        self.props = p = build(GpuMonitoringProps, path, props, **kwargs)
        require_chart(scope, path, "GpuMonitoring")  # before super().__init__: nothing is added on error
        self._path = path
        super().__init__(scope, id)
        obj_labels = dict(p.labels)

        self.karpenter_service_monitor: cdk8s.ApiObject | None = None
        if p.karpenter_service_monitor:
            self.karpenter_service_monitor = _api_object.create(
                Construct(self, "KarpenterServiceMonitor"), binding=ServiceMonitor, name=KARPENTER_SERVICE_MONITOR,
                namespace=p.namespace, labels=obj_labels, spec={
                    "selector": {"matchLabels": {"app.kubernetes.io/name": "karpenter"}},
                    "endpoints": [{"port": "http-metrics", "interval": SCRAPE_INTERVAL, "path": "/metrics"}],
                })

        self.dcgm_service_monitor: cdk8s.ApiObject | None = None
        if p.dcgm_service_monitor:
            self._dcgm_monitor()

        self.prometheus_rule: cdk8s.ApiObject = _api_object.create(
            Construct(self, "Rules"), binding=PrometheusRule, name=RULE_NAME, namespace=p.namespace,
            labels=obj_labels, spec={}, render=lambda: {"groups": [self.rule_group]})
        register_derived(self)

    @property
    def pools(self) -> tuple[GpuPool, ...]:
        """The dynamic GPU pools of the cluster, by name (KG540 when there is neither one nor a hybrid group)."""
        return _check_pools(self, self._path)[0]

    def _hybrid_rules(self, group: HybridGpuNodeGroup) -> list[dict[str, Any]]:
        p = self.props
        name, count = group.name, group.gpu_count
        series = f'{DCGM_GPU_SERIES}{{hybrid_group="{name}"'
        shape = f"{group.props.nodes} nodes × {group.props.gpus_per_node} {group.props.gpu_name}"
        return [{
            "alert": "HybridGPUNodeGroupNearCapacity",
            "expr": f'count({series}, {DCGM_ALLOCATED_LABEL}!=""}}) / {count} > {_num(p.near_limit_ratio)}',
            "for": NEAR_LIMIT_FOR,
            "labels": {"severity": "warning", "hybrid_group": name},
            "annotations": {
                "summary": (f"Hybrid GPU nodes {name} ({group.props.location}) are above "
                            f"{_pct(p.near_limit_ratio)} of their {count} GPUs"),
                "description": (f"Pods hold {{{{ $value | humanizePercentage }}}} of the {count} GPUs of hybrid node "
                                f"group {name} ({shape} at {group.props.location}). These servers are fixed: no "
                                "node is added when they are full, and pods that only fit there stay Pending. "
                                "Move load to a Karpenter pool or add servers."),
            },
        }, {
            "alert": "HybridGPUsMissing",
            "expr": f"(count({series}}}) or vector(0)) < {count}",
            "for": p.consistent_state_grace,
            "labels": {"severity": "warning", "hybrid_group": name},
            "annotations": {
                "summary": f"Fewer than {count} GPUs of hybrid node group {name} report to DCGM",
                "description": (f"{{{{ $value }}}} of the {count} GPUs of hybrid node group {name} ({shape} at "
                                f"{group.props.location}) report DCGM metrics. A server is down or unreachable, or "
                                "the GPU Operator's driver, toolkit or device plugin failed on it: check `kubectl "
                                f"get nodes -l {HYBRID_GROUP_LABEL}={name}` and the gpu-operator pods there."),
            },
        }]

    @property
    def rule_group(self) -> dict[str, Any]:
        """The rendered rule group, from the final tree."""
        return {"name": RULE_GROUP, "rules": self._rules()}

    def _dcgm_monitor(self) -> None:
        p = self.props
        self.dcgm_service_monitor = _api_object.create(
            Construct(self, "DcgmServiceMonitor"), binding=ServiceMonitor, name=DCGM_SERVICE_MONITOR,
            namespace=p.dcgm_namespace, labels=dict(p.labels), spec={
                "selector": {"matchLabels": {"app": "nvidia-dcgm-exporter"}},
                "attachMetadata": {"node": True},
                "endpoints": [{"port": "gpu-metrics", "interval": SCRAPE_INTERVAL, "path": "/metrics",
                               "relabelings": [dict(r) for r in DCGM_RELABELINGS]}],
            })

    @property
    def renders_dcgm_monitor(self) -> bool:
        """Whether ``ServiceMonitor/dcgm-exporter`` is (or will be, at synth) rendered."""
        return self.props.dcgm_service_monitor or bool(hybrid_groups(self))

    def materialize(self) -> None:
        """The DCGM ServiceMonitor when hybrid node groups need it (the rule's spec is rendered at synth)."""
        if self.dcgm_service_monitor is None and self.renders_dcgm_monitor:
            self._dcgm_monitor()

    def check_final(self) -> None:
        self._rules()

    def _rules(self) -> list[dict[str, Any]]:
        p = self.props
        ratio, percent = _num(p.near_limit_ratio), _num(p.low_utilization_percent)
        rules: list[dict[str, Any]] = []
        seen: set[str] = set()
        pools, groups = _check_pools(self, self._path)
        for pool in pools if p.karpenter_alerts else ():
            name, limit = pool.props.name, pool.props.accelerator_limit
            if name in seen:
                continue  # pool names are unique in a cluster (KG171); never twice
            seen.add(name)
            accelerator = pool.props.accelerator
            resource = accelerator.resource
            kind, knob = ("GPU", "gpu_limit") if accelerator is NVIDIA else ("Neuron", "neuron_limit")
            rules.append({
                "alert": f"{kind}NodePoolNearLimit",
                "expr": (f'max by (nodepool) (karpenter_nodepools_usage{{nodepool="{name}", '
                         f'resource_type="{resource}"}}) / {limit} > {ratio}'),
                "for": NEAR_LIMIT_FOR,
                "labels": {"severity": "warning", "nodepool": name},
                "annotations": {
                    "summary": f"{kind} NodePool {name} is above {_pct(p.near_limit_ratio)} of its {kind} limit ({limit})",
                    "description": (f"NodePool {name} runs {{{{ $value | humanizePercentage }}}} of its limit of "
                                    f"{limit} {resource}. At the limit Karpenter launches no more nodes for it "
                                    f"and {kind} pods stay Pending; limits are checked eventually, so a fast scale-out "
                                    f"can overrun it briefly. Raise {knob} or move load to another pool."),
                },
            })
        for group in groups:
            rules.extend(self._hybrid_rules(group))
        rules.append({
            "alert": "LowGPUUtilization",
            "expr": (f"avg by ({DCGM_NODE_LABEL}) (avg_over_time(DCGM_FI_DEV_GPU_UTIL[{p.low_utilization_for}])) "
                     f"< {percent}"),
            "for": p.low_utilization_for,
            "labels": {"severity": "info"},
            "annotations": {
                "summary": f"GPU utilization below {percent}% for {p.low_utilization_for}",
                "description": (f"The GPUs of node {{{{ $labels.{DCGM_NODE_LABEL} }}}} averaged "
                                f"{{{{ $value | humanize }}}}% utilization (DCGM_FI_DEV_GPU_UTIL) over "
                                f"{p.low_utilization_for}. Pods that hold GPUs without using them keep the node "
                                "from being consolidated; check requests, batch sizes or a smaller GPU type."),
            },
        })
        if p.karpenter_alerts:
            rules.extend(self._karpenter_rules())
        return rules

    def _karpenter_rules(self) -> list[dict[str, Any]]:
        """The alerts on Karpenter's own metrics (not on a cluster whose Karpenter EKS runs)."""
        p = self.props
        rules: list[dict[str, Any]] = []
        rules.append({
            "alert": "KarpenterProvisioningFailed",
            "expr": PROVISIONING_FAILED_EXPR,
            "labels": {"severity": "critical"},
            "annotations": {
                "summary": "Karpenter failed to provision GPU node",
                "description": ("NodePool {{ $labels.nodepool }}: {{ $value | humanize }} NodeClaim(s) deleted in "
                                "15m for {{ $labels.reason }} (insufficient_capacity: EC2 had no capacity for "
                                "the offering; launch_timeout / registration_timeout: no instance or no node "
                                "within 5m / 15m). Check `kubectl get nodeclaims`, the NodeClaim events and the "
                                "Karpenter controller logs."),
            },
        })
        rules.append({
            "alert": "KarpenterNodeClaimInconsistentState",
            "expr": f"{INCONSISTENT_STATE_SERIES} > 0",
            "for": p.consistent_state_grace,
            "labels": {"severity": "warning"},
            "annotations": {
                "summary": (f"NodeClaim {{{{ $labels.name }}}} has lacked its expected resources for "
                            f"{p.consistent_state_grace}"),
                "description": ("ConsistentStateFound=False: the node does not have the resources Karpenter "
                                "expected (on GPU nodes usually nvidia.com/gpu). Normal for a few minutes on a "
                                "new GPU node: the GPU Operator installs the driver, container toolkit and device "
                                "plugin only after the node is Ready, and nvidia.com/gpu appears in allocatable "
                                "when the device plugin starts. Firing means the state persisted for "
                                f"{p.consistent_state_grace}: check the GPU Operator pods on that node "
                                "(driver, device plugin) and `kubectl get node -o json | jq .status.allocatable`."),
            },
        })
        return rules


def _pct(ratio: float) -> str:
    return f"{ratio * 100:g}%"


def _check_pools(scope: Construct, path: str) -> tuple[tuple[GpuPool, ...], tuple[HybridGpuNodeGroup, ...]]:
    pools, groups = gpu_pools(scope), hybrid_groups(scope)
    if not pools and not groups:
        raise KarpenterGpuError(
            "KG540", prop="scope", value=cluster_of(scope).node.path or "<app>",
            allowed="a cluster holding at least one dynamic GPU pool (a NodePool construct with gpu_limit, e.g. "
                    "GpuInferencePool, GpuTrainingPool, TieredSpotPools) or hybrid node group in any of its charts; "
                    "static pools have no GPU limit to watch",
            fix="add the pools to the same App, Cluster or GpuPlatform as GpuMonitoring", path=path)
    return pools, groups
