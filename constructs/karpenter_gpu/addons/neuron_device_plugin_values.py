"""NeuronDevicePluginValues → Helm values for the Neuron chart, placing the device plugin on exactly the Neuron pools.

Without the Neuron device plugin a Neuron node never reports ``aws.amazon.com/neuron`` /
``aws.amazon.com/neuroncore``, Karpenter never marks it initialized and Neuron pods stay Pending.
The chart's default placement (aws-neuron/neuron-helm-charts ``charts/neuron-helm-chart/values.yaml``,
``devicePlugin.affinity``: ``node.kubernetes.io/instance-type In <neuronInstances>``, a fixed list of
sizes; ``devicePlugin.tolerations``: ``aws.amazon.com/neuron`` Exists) misses new sizes and any other
taint a pool carries. These values are derived from the Neuron NodePools of the cluster, read from the
final tree at synth like :class:`~karpenter_gpu.addons.gpu_operator_values.GpuOperatorValues`:

- ``devicePlugin.affinity``: required ``karpenter.sh/nodepool In [<Neuron pools>]`` (Karpenter labels
  every node with its pool) and ``eks.amazonaws.com/compute-type NotIn [fargate, hybrid, auto]`` (the
  chart's own exclusion: Auto Mode runs AWS's device plugin). Helm replaces the chart's list of terms
  with this one (lists are not merged), so the instance-type list no longer applies.
- ``devicePlugin.tolerations``: every taint and startup taint of those pools (``Equal`` with its value,
  ``Exists`` without) plus the chart's ``CriticalAddonsOnly`` — nothing broader, so the DaemonSet stays
  off GPU nodes.
- ``scheduler.enabled`` / ``npd.enabled``: the scheduler extension (Karpenter's simulation cannot see it,
  so Neuron pods should request whole devices or power-of-two core counts) and the node problem
  detector (its DaemonSet tolerates every taint) are off unless asked for.

``helm upgrade --install neuron oci://public.ecr.aws/neuron/neuron-helm-chart --version 1.1.2
-n kube-system -f neuron-device-plugin.values.yaml``
"""

from __future__ import annotations

from constructs import Construct
from typing_extensions import TypedDict, Unpack

from karpenter_gpu._props import Props, build
from karpenter_gpu._construct_tree import path_of
from karpenter_gpu._signature import ConstructSignature
from karpenter_gpu.addons.helm_values import HelmValues
from karpenter_gpu.cluster import cluster_of, members_of, register_derived, sorted_by_name
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.accelerators import NEURON_ACCELERATOR
from karpenter_gpu.k8s.labels import Label
from karpenter_gpu.k8s.scheduling import tolerations_for
from karpenter_gpu.pools._node_pool import NodePoolConstruct

__all__ = ["CHART", "FILE_NAME", "VERSION", "NeuronDevicePluginValues", "NeuronDevicePluginValuesKwargs",
           "NeuronDevicePluginValuesProps", "neuron_pools"]

CHART = "oci://public.ecr.aws/neuron/neuron-helm-chart"
VERSION = "1.1.2"
FILE_NAME = "neuron-device-plugin.values.yaml"
#: Compute types the chart's default affinity keeps the plugin off (EKS sets the label on those nodes).
EXCLUDED_COMPUTE_TYPES = ("fargate", "hybrid", "auto")
_COMPUTE_TYPE = "eks.amazonaws.com/compute-type"
_CRITICAL_ADDONS = {"key": "CriticalAddonsOnly", "operator": "Exists"}


def neuron_pools(scope: Construct) -> list[NodePoolConstruct]:
    """The Neuron NodePool constructs of the cluster of ``scope``, in name order."""
    return sorted_by_name(p for p in members_of(scope, NodePoolConstruct) if p.props.accelerator is NEURON_ACCELERATOR)


class NeuronDevicePluginValuesProps(Props):
    """Props of :class:`NeuronDevicePluginValues`. Placement is read from the pools."""

    #: ``scheduler.enabled``: the Neuron scheduler extension (topology-aware core allocation). Default: False.
    scheduler: bool = False
    #: ``npd.enabled``: the Neuron node problem detector. Default: False.
    node_problem_detector: bool = False


class NeuronDevicePluginValuesKwargs(TypedDict, total=False):
    """The keyword props of :class:`NeuronDevicePluginValues`: the fields of its props, same types."""

    scheduler: bool
    node_problem_detector: bool


class NeuronDevicePluginValues(HelmValues):
    """Values for the Neuron Helm chart that run its device plugin on exactly the cluster's Neuron pools.

    See the module docstring for what is derived. KG586 when the cluster has no Neuron pool at synth.
    """

    __signature__ = ConstructSignature()

    def __init__(self, scope: Construct, id: str, *, props: NeuronDevicePluginValuesProps | None = None,
                 **kwargs: Unpack[NeuronDevicePluginValuesKwargs]) -> None:
        """Keyword props (see :class:`NeuronDevicePluginValuesProps` for defaults) or ``props=``, not both (KG820)."""
        path = path_of(scope, id)
        self.props = build(NeuronDevicePluginValuesProps, path, props, **kwargs)
        self._path = path
        super().__init__(scope, id, chart=CHART, version=VERSION, file_name=FILE_NAME)
        register_derived(self)

    @property
    def pools(self) -> list[NodePoolConstruct]:
        """The Neuron pools of the cluster, by name."""
        return neuron_pools(self)

    def render_values(self) -> dict:
        pools = self.pools
        if not pools:
            raise KarpenterGpuError("KG586", prop="scope", value=cluster_of(self).node.path or "<app>",
                                    allowed="a cluster with at least one Neuron pool (NeuronInferencePool, "
                                            "NeuronTrainingPool, NeuronReservedCapacityPool) in any of its charts",
                                    fix="add the Neuron pools to the same App, Cluster or GpuPlatform, or drop "
                                        "these values", path=self._path)
        taints = [t.render() for pool in pools for t in (*pool.props.taints, *pool.props.startup_taints)]
        names = list(dict.fromkeys(p.name for p in pools))
        affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [
                {"key": Label.NODEPOOL, "operator": "In", "values": names},
                {"key": _COMPUTE_TYPE, "operator": "NotIn", "values": list(EXCLUDED_COMPUTE_TYPES)}]}]}}}
        return {
            "devicePlugin": {"enabled": True, "affinity": affinity,
                             "tolerations": [dict(_CRITICAL_ADDONS), *tolerations_for(taints)]},
            "scheduler": {"enabled": self.props.scheduler},
            "npd": {"enabled": self.props.node_problem_detector},
        }
