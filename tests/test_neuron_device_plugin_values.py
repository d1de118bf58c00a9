"""NeuronDevicePluginValues → neuron-helm-chart values placing the device plugin on exactly the Neuron pools."""

from __future__ import annotations

import pytest

from karpenter_gpu import (Duration, GpuInferencePool, GpuNodeClass, KarpenterGpuError, NeuronDevicePluginValues,
                           NeuronInferencePool, NeuronTrainingPool, Taint)
from karpenter_gpu.addons.helm_values import helm_values_in
from karpenter_gpu.addons.neuron_device_plugin_values import CHART, FILE_NAME, VERSION
from karpenter_gpu.cluster import Cluster
from karpenter_gpu.k8s.scheduling import untolerated

NEURON_TOLERATION = {"key": "aws.amazon.com/neuron", "operator": "Equal", "value": "true", "effect": "NoSchedule"}


@pytest.fixture
def node_class(chart):
    return GpuNodeClass(chart, "Class", name="accel", ami="al2023@v20251103", role="R", cluster_name="c")


def test_placement_is_derived_from_the_neuron_pools(chart, node_class):
    values = NeuronDevicePluginValues(chart, "Neuron")  # before the pools: read at synth
    GpuInferencePool(chart, "Gpu", node_class=node_class, name="gpu-inference", gpu_limit=4)
    NeuronTrainingPool(chart, "Trn", node_class=node_class, name="neuron-training", neuron_limit=16,
                       expire_after=Duration.never(), taints=(Taint.neuron(), Taint("workload", "training")),
                       startup_taints=(Taint("example.com/efa-ready", None),))
    NeuronInferencePool(chart, "Inf", node_class=node_class, name="neuron-inference", neuron_limit=8)
    plugin = values.values["devicePlugin"]
    [term] = plugin["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert term["matchExpressions"] == [
        {"key": "karpenter.sh/nodepool", "operator": "In", "values": ["neuron-inference", "neuron-training"]},
        {"key": "eks.amazonaws.com/compute-type", "operator": "NotIn", "values": ["fargate", "hybrid", "auto"]}]
    assert plugin["enabled"] is True
    assert {"key": "CriticalAddonsOnly", "operator": "Exists"} in plugin["tolerations"]
    assert NEURON_TOLERATION in plugin["tolerations"]
    assert {"key": "workload", "operator": "Equal", "value": "training", "effect": "NoSchedule"} in plugin["tolerations"]
    assert {"key": "example.com/efa-ready", "operator": "Exists", "effect": "NoSchedule"} in plugin["tolerations"]
    # Exactly the Neuron pools: the GPU taint is not tolerated, so the DaemonSet stays off GPU nodes.
    assert untolerated([Taint.gpu().render()], plugin["tolerations"])
    assert values.values["scheduler"] == {"enabled": False} and values.values["npd"] == {"enabled": False}
    assert (values.chart, values.version, values.file_name) == (CHART, VERSION, FILE_NAME)
    assert values in helm_values_in(chart)
    assert "aws.amazon.com/neuron" in values.to_yaml()


def test_options(chart, node_class):
    NeuronInferencePool(chart, "Inf", node_class=node_class, name="neuron-inference", neuron_limit=8)
    values = NeuronDevicePluginValues(chart, "Neuron", scheduler=True, node_problem_detector=True).values
    assert values["scheduler"] == {"enabled": True} and values["npd"] == {"enabled": True}


def test_fails_without_a_neuron_pool(chart, node_class):
    GpuInferencePool(chart, "Gpu", node_class=node_class, name="gpu-inference", gpu_limit=4)
    values = NeuronDevicePluginValues(chart, "Neuron")
    with pytest.raises(KarpenterGpuError) as err:
        values.render_values()
    assert err.value.code == "KG586"


def test_pools_of_another_cluster_are_not_placed():
    import cdk8s

    app = cdk8s.Testing.app()
    a, b = Cluster(app, "a"), Cluster(app, "b")
    for cluster in (a, b):
        chart = cdk8s.Chart(cluster, "c")
        nc = GpuNodeClass(chart, "Class", name="accel", ami="al2023@v20251103", role="R", cluster_name="c")
        NeuronInferencePool(chart, "Inf", node_class=nc, name=f"neuron-{cluster.node.id}", neuron_limit=8)
    values = NeuronDevicePluginValues(cdk8s.Chart(a, "addons"), "Neuron").values
    term = values["devicePlugin"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert term["nodeSelectorTerms"][0]["matchExpressions"][0]["values"] == ["neuron-a"]
