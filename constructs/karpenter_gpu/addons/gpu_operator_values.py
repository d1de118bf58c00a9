"""GpuOperatorValues → Helm values for the NVIDIA GPU Operator chart v26.7.0, derived from the NodePools.

The GPU Operator only works on the nodes it tolerates and finds: its operands tolerate just
``nvidia.com/gpu`` by default, and a pool with another taint (``workload=training:NoSchedule``)
gets no device plugin, so its GPUs never appear. Whether the operator must install the driver,
the container toolkit and the device plugin depends on the node classes' AMIs. This construct
reads every NodePool under ``scope`` and renders values that cannot disagree with them::

    GpuOperatorValues(chart, "GpuOperator", time_slicing_replicas=4)

The pools are those of the values' cluster (every chart of it; see :mod:`karpenter_gpu.cluster`), read
from the final tree when the values are rendered: create the constructs in any order.
``helm repo add nvidia https://helm.ngc.nvidia.com/nvidia`` then
``helm upgrade --install gpu-operator nvidia/gpu-operator --version v26.7.0 -n gpu-operator
-f gpu-operator.values.yaml``.

Placement (seed 003 §4-6): operands must run on the Karpenter GPU nodes labelled
``gpu-operator: enabled`` and never on EKS Auto Mode nodes (read-only root, AWS-managed driver and
device plugin: a second device plugin conflicts). The chart has no ``daemonsets.nodeSelector`` or
affinity: operands follow the ``nvidia.com/gpu.present`` label the operator sets from the
Node Feature Discovery labels. So the values pin the **NFD worker** to ``gpu-operator: enabled`` nodes
outside Auto Mode (``eks.amazonaws.com/compute-type NotIn [auto]``): nodes it does not run on never get
``pci-10de`` labels, hence no operands. The operator Deployment (a controller, not a node agent) gets
the same NotIn-auto affinity but **not** the ``gpu-operator`` selector: pinned to GPU nodes it would
either stay Pending (it does not tolerate ``nvidia.com/gpu``) or, tolerating it, keep a GPU node
running for ever so that pools never scale to zero.

Hybrid nodes (:class:`~karpenter_gpu.pools.hybrid_gpu_nodes.HybridGpuNodeGroup`, on-premises servers joined
with EKS Hybrid Nodes) have no AWS GPU stack: the operator must install the driver and the container
toolkit there, and must not on EKS-optimized AMIs, which ship both (a second driver fails to load; a second
toolkit rewrites the AMI's containerd config). The chart has no per-operand node selector (ClusterPolicy
has none; the NVIDIADriver CR's ``nodeSelector`` covers the driver only, not the toolkit), so the switch is
per node: the operator labels every GPU node ``nvidia.com/gpu.deploy.<operand>=true`` **unless the label
already has a non-empty value** (NVIDIA/gpu-operator v26.7.0 ``controllers/state_manager.go``
``addGPUStateLabels``), and each operand's DaemonSet selects ``nvidia.com/gpu.deploy.<operand>: "true"``
(``assets/state-driver/0500_daemonset.yaml``, ``assets/state-container-toolkit/0500_daemonset.yaml``). So when
a hybrid group needs them, ``driver`` / ``toolkit`` are enabled and every Karpenter NodePool whose node class
ships them gets ``nvidia.com/gpu.deploy.driver: "false"`` / ``nvidia.com/gpu.deploy.container-toolkit: "false"``
as template labels (added to the NodePools at synth, from the final tree; without hybrid nodes needing them
nothing changes). Bottlerocket pools likewise get ``nvidia.com/gpu.deploy.device-plugin: "false"`` when the
operator's device plugin is on for hybrid nodes. Auto Mode nodes get nothing at all: the NFD worker never
runs there. :mod:`karpenter_gpu.addons.gpu_operator_nodes` evaluates all this against a node's labels.

DCGM metrics by location: the chart's ServiceMonitor supports ``relabelings`` but not ``attachMetadata``, and
without node metadata a relabeling cannot see a node's labels. With hybrid groups in the cluster the chart's
monitor is therefore turned off and :class:`~karpenter_gpu.addons.gpu_monitoring.GpuMonitoring` renders the
DCGM ServiceMonitor with node metadata and ``location`` / ``hybrid_group`` relabelings (KG581 without one).
"""

from __future__ import annotations

from typing import Any, Literal, Sequence

import cdk8s
from constructs import Construct
from pydantic import field_validator, model_validator
from typing_extensions import TypedDict, Unpack

from karpenter_gpu.pools._node_pool import NodePoolConstruct
from karpenter_gpu.pools.hybrid_gpu_nodes import (DEPLOY_DEVICE_PLUGIN, DEPLOY_DRIVER, DEPLOY_TOOLKIT,
                                                  HybridGpuNodeGroup, hybrid_groups_of)
from karpenter_gpu.pools.gpu_node_class import GpuNodeClass
from karpenter_gpu._props import Props, build, DnsLabel
from karpenter_gpu._construct_tree import path_of
from karpenter_gpu._signature import ConstructSignature
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.addons.chart_delivery import delivered
from karpenter_gpu.addons.gpu_monitoring import GpuMonitoring, GpuMonitoringProps
from karpenter_gpu.addons.gpu_operator_chart import check_chart_validations
from karpenter_gpu.addons.gpu_operator_mig import mig_manager_values, mig_pools, mig_settings
from karpenter_gpu.addons.helm_values import HelmValues
from karpenter_gpu.cluster import cluster_of, members_of, ref_of, register_derived, require_chart, sorted_by_name
from karpenter_gpu.k8s.accelerators import NVIDIA
from karpenter_gpu.k8s.labels import AUTO_COMPUTE_TYPE, COMPUTE_TYPE, NVIDIA_GPU
from karpenter_gpu.k8s.requirements import LABEL_VALUE, check_label_key
from karpenter_gpu.overlays.time_slicing_overlay import (DEFAULT_GPU_COUNTS, TimeSlicingOverlay,
                                                         TimeSlicingOverlayKwargs, check_replicas, plan)
from karpenter_gpu.k8s.scheduling import tolerations_for
from karpenter_gpu.upstream import GPU_OPERATOR_CHART, GPU_OPERATOR_VERSION

#: ``helm repo add nvidia https://helm.ngc.nvidia.com/nvidia``; NVIDIA's chart versions carry the "v".
CHART = GPU_OPERATOR_CHART
VERSION = GPU_OPERATOR_VERSION
FILE_NAME = "gpu-operator.values.yaml"

#: Operands EKS GPU nodes do not use (vGPU, VFIO/KubeVirt/Kata sandboxes, confidential computing,
#: GPUDirect Storage / RDMA copy). Rendered ``enabled: false`` unless named in ``extra_operands``.
#: kataSandboxDevicePlugin (new in 26.3) and ccManager (26.x) default to enabled in the chart.
OPTIONAL_OPERANDS: tuple[str, ...] = ("vgpuManager", "vgpuDeviceManager", "vfioManager", "kataManager",
                                      "sandboxDevicePlugin", "kataSandboxDevicePlugin", "ccManager", "gds",
                                      "gdrcopy")

#: AMI alias families that ship the NVIDIA driver and container toolkit on GPU instances.
EKS_OPTIMIZED_FAMILIES = frozenset({"al2023", "bottlerocket"})
#: ...and of those, the ones whose NVIDIA variant also runs its own device plugin.
SHIPS_DEVICE_PLUGIN = frozenset({"bottlerocket"})

#: Label the device plugin reads to pick a key of ``devicePlugin.config.data`` (else ``default``).
DEVICE_PLUGIN_CONFIG_LABEL = "nvidia.com/device-plugin.config"
#: ``devicePlugin.config`` keys: the time-sliced configuration, and (when only some pools are
#: time-sliced) the unshared one the other pools get by default.
TIME_SLICED_KEY = "any"
EXCLUSIVE_KEY = "exclusive"
TIME_SLICING_CONFIG_NAME = "time-slicing-config"

#: EKS sets ``eks.amazonaws.com/compute-type: auto`` on Auto Mode nodes.
COMPUTE_TYPE_LABEL = COMPUTE_TYPE
#: Every GPU operand tolerates at least this (the chart default).
GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


def time_slicing_config(replicas: int) -> str:
    """The device plugin's config for ``replicas`` time slices per GPU (keeps the name nvidia.com/gpu)."""
    return ("version: v1\n"
            "sharing:\n"
            "  timeSlicing:\n"
            "    renameByDefault: false\n"
            "    resources:\n"
            "    - name: nvidia.com/gpu\n"
            f"      replicas: {replicas}\n")


class GpuOperatorValuesProps(Props):
    """Props of :class:`GpuOperatorValues`. Everything about the nodes is read from the pools."""

    #: ``mig.strategy``: how MIG devices are advertised (``single``: as nvidia.com/gpu; ``mixed``: per profile).
    #: Default: - the strategy of the cluster's MigPartitionedPools, else "single" (the chart default). A value
    #: that contradicts the pools is KG576.
    mig_strategy: Literal["single", "mixed"] | None = None
    #: ``migManager.enabled`` (it only acts on MIG-capable GPUs with a ``nvidia.com/mig.config`` label).
    #: Default: - True when a pool of the cluster carries that label (a MigPartitionedPool), else False;
    #: False beside such a pool is KG576.
    mig_manager: bool | None = None
    #: Name of a ConfigMap the chart creates (``migManager.config``) holding exactly the MIG layouts of the
    #: cluster's MIG pools, one entry per GPU model (``device-filter``), so MIG Manager applies what the pools'
    #: NodeOverlays describe whatever its hardware discovery would generate. Default: - none: MIG Manager
    #: generates its configs from the hardware (the same layouts for the GPUs of the MIG tables).
    mig_config_map: DnsLabel | None = None
    #: Time-slicing replicas per GPU (≥ 2): renders ``devicePlugin.config`` and a :class:`TimeSlicingOverlay`.
    #: Default: - no time slicing.
    time_slicing_replicas: int | None = None
    #: NodePool names to time-slice. Default: - every pool, when ``time_slicing_replicas`` is set. A subset
    #: needs the pools' template label ``nvidia.com/device-plugin.config: any`` (the others get an unshared
    #: default).
    time_sliced_pools: tuple[str, ...] = ()
    #: ``dcgmExporter.serviceMonitor.enabled`` (needs the Prometheus Operator CRDs), labelled like the cluster's
    #: GpuMonitoring objects (``additionalLabels``; default ``release: kube-prometheus-stack``). Default: True.
    dcgm_service_monitor: bool = True
    #: Optional operands to turn on (all are rendered off otherwise): see :data:`OPTIONAL_OPERANDS`.
    extra_operands: frozenset[str] = frozenset()
    #: Node label (key, value) every GPU NodePool's template must carry; the NFD worker, hence every
    #: operand, only runs on nodes with it. Default: ("gpu-operator", "enabled").
    node_label: tuple[str, str] = ("gpu-operator", "enabled")
    #: Weight of the first time-slicing NodeOverlay (one per GPU count, consecutive). Default: 100.
    overlay_weight: int = 100
    #: Name prefix of the time-slicing NodeOverlays. Default: "gpu-time-slicing".
    overlay_name: DnsLabel = "gpu-time-slicing"

    @field_validator("time_slicing_replicas", mode="before")
    @classmethod
    def _replicas(cls, v: Any) -> int | None:
        return None if v is None else check_replicas(v, "time_slicing_replicas")

    @field_validator("time_sliced_pools", mode="before")
    @classmethod
    def _pools(cls, v: Any) -> tuple[str, ...]:
        if isinstance(v, (str, bytes)) or not isinstance(v, (list, tuple)) or not all(isinstance(p, str) for p in v) \
                or len(set(v)) != len(v):
            raise KarpenterGpuError("KG505", prop="time_sliced_pools", value=v,
                                    allowed="a tuple of distinct NodePool names",
                                    fix="e.g. time_sliced_pools=('gpu-inference',)")
        return tuple(v)

    @field_validator("extra_operands", mode="before")
    @classmethod
    def _operands(cls, v: Any) -> frozenset[str]:
        if isinstance(v, (str, bytes)) or not isinstance(v, (list, tuple, set, frozenset)):
            raise KarpenterGpuError("KG506", prop="extra_operands", value=v, allowed="a set of operand names",
                                    fix="e.g. extra_operands={'gdrcopy'}")
        unknown = sorted(str(o) for o in v if o not in OPTIONAL_OPERANDS)
        if unknown:
            raise KarpenterGpuError("KG506", prop="extra_operands", value=unknown,
                                    allowed=f"names among {list(OPTIONAL_OPERANDS)} (the chart's value keys; the "
                                            "core operands are derived, not optional)",
                                    fix="use the chart's key spelling, e.g. extra_operands={'gdrcopy'}")
        return frozenset(v)

    @field_validator("node_label", mode="before")
    @classmethod
    def _node_label(cls, v: Any) -> tuple[str, str]:
        if not isinstance(v, (list, tuple)) or len(v) != 2 or not all(isinstance(x, str) for x in v):
            raise KarpenterGpuError("KG121", prop="node_label", value=v, allowed="a (key, value) pair of strings",
                                    fix="e.g. node_label=('gpu-operator', 'enabled')")
        key, value = v
        check_label_key(key, prop="node_label")
        if not value or len(value) > 63 or not LABEL_VALUE.match(value):
            raise KarpenterGpuError("KG121", prop="node_label", value=value,
                                    allowed="a non-empty label value (≤63 chars, alphanumerics, '-', '_', '.')",
                                    fix="e.g. 'enabled'")
        return key, value

    @model_validator(mode="after")
    def _pools_need_replicas(self) -> "GpuOperatorValuesProps":
        if self.time_sliced_pools and self.time_slicing_replicas is None:
            raise KarpenterGpuError("KG505", prop="time_sliced_pools", value=list(self.time_sliced_pools),
                                    allowed="only with time_slicing_replicas",
                                    fix="set time_slicing_replicas, or drop time_sliced_pools")
        return self


#: Placeholder pool of the time-slicing overlays until the pools are read at synth (never rendered).
_PENDING = "pending"


def _pools_under(scope: Construct) -> list[NodePoolConstruct]:
    """Every NodePool construct of the cluster of ``scope`` (all its charts) the operator serves, in tree order:
    the NVIDIA pools, not the EKS Auto Mode ones, whose nodes run AWS's NVIDIA driver and device plugin (the
    operands are kept off them by the NotIn-auto affinity, see the module docstring). Neuron pools are left out
    too: their nodes carry no ``gpu-operator`` label (so the NFD worker, hence every operand, stays off them)
    and the operator must not tolerate their taint."""
    return [pool for pool in members_of(scope, NodePoolConstruct)
            if pool.props.accelerator is NVIDIA and not pool.auto_mode]


def _auto_mode_pools(scope: Construct) -> list[NodePoolConstruct]:
    return [pool for pool in members_of(scope, NodePoolConstruct) if pool.auto_mode]


def _family(pool: NodePoolConstruct) -> str:
    """The AMI family of a pool the operator serves (never an Auto Mode one: :func:`_pools_under`)."""
    node_class = pool.node_class
    return node_class.props.ami.family if isinstance(node_class, GpuNodeClass) else ""


def _pool_names(pools: list[NodePoolConstruct]) -> list[str]:
    return sorted(dict.fromkeys(pool.props.name for pool in pools))


def _tolerations(pools: list[NodePoolConstruct], groups: Sequence[HybridGpuNodeGroup] = ()) -> list[dict]:
    """Every taint and startup taint of the pools and every taint of the hybrid groups, tolerated; an
    ``Exists`` covers ``Equal`` on its key/effect."""
    taints = [{"key": NVIDIA_GPU, "effect": "NoSchedule"}]
    taints += [t.render() for pool in pools for t in (*pool.props.taints, *pool.props.startup_taints)]
    taints += [t.render() for group in groups for t in group.props.taints]
    return tolerations_for(taints)


def ships(pool: NodePoolConstruct) -> frozenset[str]:
    """The deploy labels of the operands a pool's nodes already have: the EKS-optimized AMIs ship the driver
    and toolkit, Bottlerocket's NVIDIA variant also a device plugin. Empty for node classes without an AMI alias."""
    family = _family(pool)
    if family not in EKS_OPTIMIZED_FAMILIES:
        return frozenset()
    own = {DEPLOY_DRIVER, DEPLOY_TOOLKIT}
    if family in SHIPS_DEVICE_PLUGIN:
        own.add(DEPLOY_DEVICE_PLUGIN)
    return frozenset(own)


def _check_not_mig(pools: list[NodePoolConstruct], p: GpuOperatorValuesProps, path: str) -> None:
    """KG577: no time-sliced pool may be MIG-partitioned (stays true as pools are added: checked early too)."""
    if p.time_slicing_replicas is None:
        return
    partitioned = sorted(pool.props.name for pool in mig_pools(pools)
                         if not p.time_sliced_pools or pool.props.name in p.time_sliced_pools)
    if partitioned:
        raise KarpenterGpuError(
            "KG577", prop="time_sliced_pools", value=list(p.time_sliced_pools) or "every pool",
            allowed=f"pools without MIG: {partitioned} are MIG-partitioned, and the time-slicing overlays "
                    "(nvidia.com/gpu = GPUs x replicas) would contradict what their nodes advertise (MIG "
                    "devices, not GPUs)",
            fix="list the other pools in time_sliced_pools (and label them nvidia.com/device-plugin.config: "
                f"{TIME_SLICED_KEY!r}), or drop time slicing", path=path)


def _not_auto_mode() -> dict:
    """Required node affinity ``eks.amazonaws.com/compute-type NotIn [auto]``: NotIn also matches nodes without the
    label (every non-Auto-Mode node), and no Auto Mode node (https://docs.aws.amazon.com/eks/latest/userguide/
    associate-workload.html: Auto Mode nodes carry ``eks.amazonaws.com/compute-type: auto``)."""
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": COMPUTE_TYPE_LABEL, "operator": "NotIn", "values": [AUTO_COMPUTE_TYPE]}]}]}}}


class GpuOperatorValuesKwargs(TypedDict, total=False):
    """The keyword props of :class:`GpuOperatorValues`: the fields of :class:`GpuOperatorValuesProps`, same types."""

    mig_strategy: Literal["single", "mixed"] | None
    mig_manager: bool | None
    mig_config_map: str | None
    time_slicing_replicas: int | None
    time_sliced_pools: tuple[str, ...]
    dcgm_service_monitor: bool
    extra_operands: frozenset[str]
    node_label: tuple[str, str]
    overlay_weight: int
    overlay_name: str


class GpuOperatorValues(HelmValues):
    """Values for the NVIDIA GPU Operator v26.7.0 on the Karpenter GPU pools under ``scope``.

    Derived from the pools (never re-typed):

    - ``daemonsets.tolerations`` and ``node-feature-discovery.worker.tolerations``: every pool taint and
      startup taint (``Equal`` with its value, ``Exists`` without), plus ``nvidia.com/gpu`` Exists NoSchedule.
    - ``driver`` / ``toolkit`` off when every node class uses an EKS-optimized alias (al2023, bottlerocket
      ship both) and no hybrid node group needs them; on for hybrid groups, with the pools' templates
      labelled ``nvidia.com/gpu.deploy.driver`` / ``.container-toolkit: "false"`` (see the module docstring).
      ``devicePlugin`` off when every node class is Bottlerocket (its NVIDIA variant runs one) and there is
      no hybrid group, on otherwise; a mix of pool families is KG501. A hybrid group without the
      ``node_label`` is KG580; hybrid groups with the chart's DCGM ServiceMonitor and no GpuMonitoring, KG581.
    - NFD worker ``nodeSelector`` = the ``node_label`` and affinity ``eks.amazonaws.com/compute-type NotIn
      [auto]``; operator affinity NotIn [auto] (see the module docstring). A pool without the label is KG502.
    - ``devicePlugin.config`` for time slicing, and a :class:`TimeSlicingOverlay` child ("TimeSlicing") so
      Karpenter's simulation counts GPUs × replicas on the time-sliced pools. Pool GPU limits then count
      replicas too.

    - ``mig.strategy`` and ``migManager`` from the MIG pools (:class:`MigPartitionedPool`, or any pool labelled
      ``nvidia.com/mig.config``): MIG Manager on, ``config.default: all-disabled`` (MIG-capable nodes without the
      label keep whole GPUs), the strategy of the pools (KG575 when they disagree, KG576 when a prop contradicts
      them). MIG Manager is placed like every operand (NFD labels ``nvidia.com/mig.capable`` nodes; the
      operand tolerations above include the MIG pools' taints). Time slicing on a MIG pool is KG577.

    Only keys set here are emitted; everything else stays at the chart default.
    """

    __signature__ = ConstructSignature()

    def __init__(self, scope: Construct, id: str, *, props: GpuOperatorValuesProps | None = None,
                 **kwargs: Unpack[GpuOperatorValuesKwargs]) -> None:
        """Keyword props (see :class:`GpuOperatorValuesProps` for defaults) or ``props=``, not both (KG820)."""
        path = path_of(scope, id)
        p = build(GpuOperatorValuesProps, path, props, **kwargs)
        pools = _pools_under(scope)
        groups = hybrid_groups_of(scope)
        if pools or groups:  # what is wrong already stays wrong in the final tree: fail early
            self._check_labels(pools, p, path, groups)
            _check_not_mig(pools, p, path)
            self._render(pools, p, (), path, final=False, groups=groups)
        overlay: TimeSlicingOverlayKwargs | None = None
        if p.time_slicing_replicas is not None:
            sliced = tuple(n for n in _pool_names(pools) if not p.time_sliced_pools or n in p.time_sliced_pools)
            # The overlays' pools are re-derived at synth; a placeholder keeps the props valid until then.
            overlay = TimeSlicingOverlayKwargs(name=p.overlay_name, replicas=p.time_slicing_replicas,
                           node_pools=sliced or p.time_sliced_pools or (_PENDING,),
                           weight=p.overlay_weight, gpu_counts=DEFAULT_GPU_COUNTS)
            plan(scope, f"{path}/TimeSlicing", **overlay)  # fail before anything is added
            require_chart(scope, f"{path}/TimeSlicing", "GpuOperatorValues with time slicing (its NodeOverlays)")
        self.props = p
        self._path = path
        #: (pool ref, label) pairs already added to NodePool templates (materialize is idempotent).
        self._deploy_patched: set[tuple[str, str]] = set()
        super().__init__(scope, id, chart=CHART, version=VERSION, file_name=FILE_NAME)
        self.time_slicing: TimeSlicingOverlay | None = None
        if overlay is not None:
            self.time_slicing = TimeSlicingOverlay(self, "TimeSlicing", **overlay)
            self.time_slicing.node_pools_of = self.sliced_pools
        register_derived(self)

    # -- derived from the final tree ---------------------------------------------------------
    @property
    def pools(self) -> tuple[NodePoolConstruct, ...]:
        """Every NodePool construct of the cluster, in name order."""
        return tuple(sorted_by_name(_pools_under(self)))

    @property
    def hybrid_groups(self) -> tuple[HybridGpuNodeGroup, ...]:
        """Every hybrid node group of the cluster, in name order."""
        return tuple(hybrid_groups_of(self))

    def sliced_pools(self) -> tuple[str, ...]:
        """Names of the time-sliced NodePools of the cluster (sorted); () without time slicing."""
        return self._sliced_pools(list(self.pools), self.props, self._path, hybrid=bool(self.hybrid_groups))

    def deploy_labels(self) -> dict[str, dict[str, str]]:
        """NodePool name → the ``nvidia.com/gpu.deploy.*: "false"`` template labels it gets at synth: the
        operands the values enable (for hybrid nodes) that the pool's nodes already ship."""
        values = self.render_values()
        enabled = {DEPLOY_DRIVER: values["driver"]["enabled"], DEPLOY_TOOLKIT: values["toolkit"]["enabled"],
                   DEPLOY_DEVICE_PLUGIN: values["devicePlugin"]["enabled"]}
        out: dict[str, dict[str, str]] = {}
        for pool in self.pools:
            labels = {k: "false" for k in sorted(ships(pool)) if enabled[k] and k not in pool.props.node_labels}
            if labels:
                out[pool.name] = labels
        return out

    def materialize(self) -> None:
        """Add the deploy labels of :meth:`deploy_labels` to the NodePools' templates (once each)."""
        by_name = {pool.name: pool for pool in self.pools}
        for name, labels in self.deploy_labels().items():
            pool = by_name[name]
            for key, value in labels.items():
                mark = (ref_of(pool), key)
                if mark in self._deploy_patched:
                    continue
                self._deploy_patched.add(mark)
                cdk8s.ApiObject.of(pool.resource).add_json_patch(cdk8s.JsonPatch.add(
                    "/spec/template/metadata/labels/" + key.replace("~", "~0").replace("/", "~1"), value))

    def notes(self) -> list[str]:
        """Why the pools carry deploy labels, and the command for nodes launched before they did: Karpenter puts
        template labels on new nodes only, and the operator has already labelled running nodes ``=true``."""
        patched = self.deploy_labels()
        if not patched:
            return []
        by_labels: dict[tuple[str, ...], list[str]] = {}
        for name, labels in patched.items():
            by_labels.setdefault(tuple(labels), []).append(name)
        lines = ["Hybrid nodes get the driver/toolkit/device plugin from this release; these NodePools ship them and",
                 "carry nvidia.com/gpu.deploy.<operand>=false template labels instead: "
                 + "; ".join(f"{name}: {', '.join(labels)}" for name, labels in patched.items()),
                 "Apply the NodePools first; nodes they launched earlier keep =true until replaced (drift), so",
                 "before upgrading this release run:" if not delivered(self) else
                 "once, when these labels first ship, run this one-off (no GitOps sync runs it; drift replaces the "
                 "nodes anyway, it only closes the window until then):"]
        for keys, names in by_labels.items():
            lines.append(f"  kubectl label nodes -l 'karpenter.sh/nodepool in ({','.join(names)})' "
                         + " ".join(f"{key}=false" for key in keys) + " --overwrite")
        return lines

    def monitoring_labels(self) -> dict[str, str]:
        """Labels for the chart's DCGM ServiceMonitor: those of the cluster's GpuMonitoring (what its Prometheus
        selects by), else GpuMonitoring's default ``release: kube-prometheus-stack``."""
        found = members_of(self, GpuMonitoring)
        return dict(found[0].props.labels) if found else dict(GpuMonitoringProps.model_fields["labels"].default)

    def render_values(self) -> dict:
        pools = list(self.pools)
        groups = list(self.hybrid_groups)
        if not pools and not groups and _auto_mode_pools(self):
            raise KarpenterGpuError(
                "KG570", prop="scope", value=sorted(p.props.name for p in _auto_mode_pools(self)),
                allowed="at least one self-managed Karpenter GPU pool (GpuNodeClass) or hybrid node group: every pool "
                        "here runs on EKS Auto Mode, where AWS runs the NVIDIA driver and device plugin and the "
                        "operator cannot run",
                fix="drop GpuOperatorValues from this cluster (Auto Mode needs none), or add the Karpenter GPU pools "
                    "it should serve", path=self._path)
        if not pools and not groups:
            raise KarpenterGpuError("KG500", prop="scope", value=cluster_of(self).node.path or "<app>",
                                    allowed="a cluster with at least one GPU NodePool construct or hybrid node group "
                                            "(in any of its charts)",
                                    fix="add the pools to the same App, Cluster or GpuPlatform as the values",
                                    path=self._path)
        self._check_labels(pools, self.props, self._path, groups)
        monitors = members_of(self, GpuMonitoring)
        if groups and self.props.dcgm_service_monitor and not monitors:
            raise KarpenterGpuError(
                "KG581", prop="dcgm_service_monitor", value=True,
                allowed="hybrid nodes' DCGM metrics labelled by location: the chart's ServiceMonitor cannot attach "
                        "node metadata (no attachMetadata in ClusterPolicy's serviceMonitor), so a GpuMonitoring in "
                        "the cluster must scrape DCGM (it does, with location relabelings, when hybrid groups exist)",
                fix="add GpuMonitoring to the cluster, or set dcgm_service_monitor=False and scrape DCGM yourself",
                path=self._path)
        rendered = self._render(pools, self.props, self.sliced_pools(), self._path,
                                monitor_labels=self.monitoring_labels(), groups=groups,
                                chart_monitor=self.props.dcgm_service_monitor and not (groups and monitors))
        check_chart_validations(rendered, self._path)
        return rendered

    # -- checks ------------------------------------------------------------------------------
    @staticmethod
    def _check_labels(pools: list[NodePoolConstruct], p: GpuOperatorValuesProps, path: str,
                      groups: Sequence[HybridGpuNodeGroup] = ()) -> None:
        key, value = p.node_label
        for group in groups:
            if group.node_labels.get(key) != value:
                raise KarpenterGpuError(
                    "KG580", prop=f"hybrid group {group.name} labels[{key}]", value=group.node_labels.get(key),
                    allowed=f"{value!r}: the GPU Operator (NFD worker, hence every operand) only runs on nodes labelled "
                            f"{key}={value}; these servers have no AWS GPU stack, so without it they get no driver and "
                            "no device plugin and their GPUs never appear",
                    fix=f"keep gpu_operator=True on {group.node.path} (or match node_label to its labels)", path=path)
        for pool in pools:
            if pool.props.node_labels.get(key) != value:
                raise KarpenterGpuError(
                    "KG502", prop=f"NodePool {pool.props.name} labels[{key}]", value=pool.props.node_labels.get(key),
                    allowed=f"{value!r} on every GPU NodePool: the GPU Operator only runs on nodes labelled "
                            f"{key}={value}, so this pool's nodes would get no device plugin and their GPUs "
                            "would never appear",
                    fix=f"add labels={{..., {key!r}: {value!r}}} to {pool.node.path}", path=path)

    @staticmethod
    def _sliced_pools(pools: list[NodePoolConstruct], p: GpuOperatorValuesProps, path: str,
                      hybrid: bool = False) -> tuple[str, ...]:
        if p.time_slicing_replicas is None:
            return ()
        names = _pool_names(pools)
        unknown = [n for n in p.time_sliced_pools if n not in names]
        auto = [n for n in unknown if n in {pool.props.name for pool in _auto_mode_pools(pools[0])}] if pools else []
        if auto:
            raise KarpenterGpuError("KG571", prop="time_sliced_pools", value=auto,
                                    allowed="self-managed Karpenter pools only: EKS Auto Mode runs its own device "
                                            "plugin (not the operator's devicePlugin.config) and offers no NodeOverlay "
                                            "to tell Karpenter about the extra slices",
                                    fix="drop the Auto Mode pools from time_sliced_pools", path=path)
        if unknown:
            raise KarpenterGpuError("KG505", prop="time_sliced_pools", value=unknown,
                                    allowed=f"names of NodePools under the scope ({names})",
                                    fix="fix the spelling, or add the pool to this cluster", path=path)
        chosen = set(p.time_sliced_pools or names)
        sliced = tuple(n for n in names if n in chosen)
        _check_not_mig(pools, p, path)
        # Hybrid nodes take the default config: unshared (no NodeOverlay describes them, their count is fixed).
        default = TIME_SLICED_KEY if len(sliced) == len(names) and not hybrid else EXCLUSIVE_KEY
        for pool in pools:
            label = pool.props.node_labels.get(DEVICE_PLUGIN_CONFIG_LABEL)
            effective = label or default
            wants = pool.props.name in chosen
            if effective not in (TIME_SLICED_KEY, EXCLUSIVE_KEY) or (effective == TIME_SLICED_KEY) != wants:
                need = TIME_SLICED_KEY if wants else (EXCLUSIVE_KEY if default == TIME_SLICED_KEY else None)
                fix = (f"set labels[{DEVICE_PLUGIN_CONFIG_LABEL!r}] = {need!r} on {pool.node.path}" if need
                       else f"drop the {DEVICE_PLUGIN_CONFIG_LABEL} label from {pool.node.path}")
                raise KarpenterGpuError(
                    "KG505", prop=f"NodePool {pool.props.name} labels[{DEVICE_PLUGIN_CONFIG_LABEL}]", value=label,
                    allowed=f"a device-plugin config that matches time_sliced_pools: nodes without the label get "
                            f"{default!r}; {TIME_SLICED_KEY!r} is time-sliced"
                            + (f", {EXCLUSIVE_KEY!r} is not" if default == EXCLUSIVE_KEY else "")
                            + " (Karpenter's overlay must describe what the device plugin advertises)",
                    fix=fix, path=path)
        return sliced

    # -- rendering ---------------------------------------------------------------------------
    @staticmethod
    def _render(pools: list[NodePoolConstruct], p: GpuOperatorValuesProps, sliced: tuple[str, ...],
                path: str, final: bool = True, monitor_labels: dict[str, str] | None = None,
                groups: Sequence[HybridGpuNodeGroup] = (),
                chart_monitor: bool | None = None) -> dict:
        families = {_family(pool) for pool in pools}
        own_plugin = families & SHIPS_DEVICE_PLUGIN
        if own_plugin and families - SHIPS_DEVICE_PLUGIN:
            by_family = {f: sorted({pool.node_class.node.path for pool in pools
                                    if _family(pool) == f}) for f in sorted(families)}
            raise KarpenterGpuError(
                "KG501", prop="node classes", value=by_family,
                allowed="node classes that agree on the device plugin: Bottlerocket's NVIDIA variant runs its own "
                        "(the operator's would be a second one on the same GPUs), the others need the operator's; "
                        "one values file cannot do both",
                fix="use one AMI family for the pools under this scope, or split them into separate charts "
                    "(clusters) with a GpuOperatorValues each", path=path)
        eks_optimized = families <= EKS_OPTIMIZED_FAMILIES
        # Hybrid nodes ship no GPU stack unless the group says the host has it.
        driver = not eks_optimized or any(not g.props.driver_preinstalled for g in groups)
        toolkit = not eks_optimized or any(not g.props.toolkit_preinstalled for g in groups)
        device_plugin = bool(groups) or not own_plugin
        if p.time_slicing_replicas is not None and own_plugin:
            raise KarpenterGpuError(
                "KG507", prop="time_slicing_replicas", value=p.time_slicing_replicas,
                allowed="only with the operator's device plugin; on Bottlerocket the host's device plugin is "
                        "configured through the node settings, not devicePlugin.config",
                fix="drop time_slicing_replicas (configure Bottlerocket's settings.kubelet-device-plugins.nvidia "
                    "time-slicing in the node class user data), or use al2023 node classes", path=path)
        tolerations = _tolerations(pools, groups)
        mig_strategy, mig_manager = mig_settings(pools, p, path)
        key, value = p.node_label
        plugin: dict = {"enabled": device_plugin}
        if p.time_slicing_replicas is not None and final:
            every = len(sliced) == len({pool.props.name for pool in pools}) and not groups
            data = {TIME_SLICED_KEY: time_slicing_config(p.time_slicing_replicas)}
            if not every:
                data[EXCLUSIVE_KEY] = "version: v1\n"
            plugin["config"] = {"create": True, "name": TIME_SLICING_CONFIG_NAME,
                                "default": TIME_SLICED_KEY if every else EXCLUSIVE_KEY, "data": data}
        out: dict = {
            "daemonsets": {"tolerations": tolerations},
            "operator": {"affinity": _not_auto_mode()},
            "mig": {"strategy": mig_strategy},
            "driver": {"enabled": driver},
            "toolkit": {"enabled": toolkit},
            "devicePlugin": plugin,
            # The chart's ServiceMonitor carries no release label by default: a kube-prometheus-stack
            # Prometheus (selecting by release) would never scrape DCGM. additionalLabels adds it.
            "dcgmExporter": {"enabled": True, "serviceMonitor": (
                {"enabled": True, "additionalLabels": dict(monitor_labels or {})}
                if (p.dcgm_service_monitor if chart_monitor is None else chart_monitor) else {"enabled": False})},
            "migManager": mig_manager_values(pools, p, mig_manager, path),
        }
        for operand in OPTIONAL_OPERANDS:
            out[operand] = {"enabled": operand in p.extra_operands}
        out["node-feature-discovery"] = {"worker": {
            "nodeSelector": {key: value},
            "affinity": _not_auto_mode(),
            "tolerations": [dict(t) for t in tolerations],
        }}
        return out
