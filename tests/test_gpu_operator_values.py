"""GpuOperatorValues → NVIDIA GPU Operator v26.7.0 values derived from the NodePools under a scope."""

from __future__ import annotations

import pytest
import yaml

from karpenter_gpu import (Duration, GpuCapacityOverlay, GpuInferencePool, GpuNodeClass, GpuTrainingPool,
                           KarpenterGpuError, Taint, TaintEffect)
from karpenter_gpu.addons.feature_gates import FeatureGate, required_feature_gates
from karpenter_gpu.addons.gpu_operator_chart import check_chart_validations
from karpenter_gpu.addons.gpu_operator_values import (CHART, FILE_NAME, OPTIONAL_OPERANDS, VERSION, GpuOperatorValues,
                                               GpuOperatorValuesProps, time_slicing_config)
from karpenter_gpu.addons.gpu_monitoring import GpuMonitoring
from karpenter_gpu.addons.helm_values import helm_values_in
from karpenter_gpu.cluster import Cluster, finalize
from karpenter_gpu import HybridGpuNodeGroup
from karpenter_gpu.addons.gpu_operator_nodes import nfd_worker_runs, operand_runs
from karpenter_gpu.k8s.views import hybrid_groups, node_pools
from tests.conftest import manifests

LABELS = {"gpu-operator": "enabled", "workload": "inference"}
GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
TRAINING_TOLERATION = {"key": "workload", "operator": "Equal", "value": "training", "effect": "NoSchedule"}


def node_class(chart, id="Class", ami="al2023@v20251103", name=None):
    return GpuNodeClass(chart, id, name=name or id.lower(), ami=ami, role="R", cluster_name="c")


def inference(chart, nc, id="Inference", name="gpu-inference", **props):
    return GpuInferencePool(chart, id, node_class=nc, **{"name": name, "gpu_limit": 16, "labels": LABELS, **props})


def training(chart, nc, id="Training", name="gpu-training", **props):
    return GpuTrainingPool(chart, id, node_class=nc, **{
        "name": name, "gpu_limit": 64, "labels": {"gpu-operator": "enabled", "workload": "training"},
        "taints": (Taint.gpu(), Taint("workload", "training")), "expire_after": Duration.never(), **props})


@pytest.fixture
def platform(chart):
    nc = node_class(chart)
    inference(chart, nc)
    training(chart, nc)
    return chart


def code_of(exc) -> str:
    return exc.value.code


# -- snapshot and the derived values --------------------------------------------------------------

def test_values_snapshot(platform, snapshot):
    values = GpuOperatorValues(platform, "GpuOperator")
    assert values.values == snapshot
    assert (values.chart, values.version, values.file_name) == ("nvidia/gpu-operator", "v26.7.0",
                                                                "gpu-operator.values.yaml")
    assert (CHART, VERSION, FILE_NAME) == (values.chart, values.version, values.file_name)


def test_key_order_is_stable(platform):
    keys = list(GpuOperatorValues(platform, "GpuOperator").values)
    assert keys == ["daemonsets", "operator", "mig", "driver", "toolkit", "devicePlugin", "dcgmExporter",
                    "migManager", *OPTIONAL_OPERANDS, "node-feature-discovery"]


def test_custom_taint_tolerated_by_operands_and_nfd_worker(platform):
    v = GpuOperatorValues(platform, "GpuOperator").values
    # nvidia.com/gpu=true:NoSchedule is covered by the Exists toleration: no second entry.
    assert v["daemonsets"]["tolerations"] == [GPU_TOLERATION, TRAINING_TOLERATION]
    assert v["node-feature-discovery"]["worker"]["tolerations"] == [GPU_TOLERATION, TRAINING_TOLERATION]


def test_gpu_toleration_always_present_and_startup_taints_tolerated(chart):
    nc = node_class(chart)
    inference(chart, nc, taints=(Taint("dedicated", effect=TaintEffect.NO_EXECUTE),),
              startup_taints=(Taint("example.com/warming", "true"),))
    tolerations = GpuOperatorValues(chart, "GpuOperator").values["daemonsets"]["tolerations"]
    assert tolerations == [
        {"key": "dedicated", "operator": "Exists", "effect": "NoExecute"},
        {"key": "example.com/warming", "operator": "Equal", "value": "true", "effect": "NoSchedule"},
        GPU_TOLERATION,
    ]


def test_tolerations_deduplicated_across_pools(chart):
    nc = node_class(chart)
    training(chart, nc)
    training(chart, nc, id="Training2", name="gpu-training-2")
    tolerations = GpuOperatorValues(chart, "GpuOperator").values["daemonsets"]["tolerations"]
    assert tolerations == [GPU_TOLERATION, TRAINING_TOLERATION]


def test_placement_keeps_auto_mode_out(platform):
    v = GpuOperatorValues(platform, "GpuOperator").values
    not_auto = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "eks.amazonaws.com/compute-type", "operator": "NotIn", "values": ["auto"]}]}]}}}
    worker = v["node-feature-discovery"]["worker"]
    assert worker["nodeSelector"] == {"gpu-operator": "enabled"}
    assert worker["affinity"] == not_auto
    assert v["operator"] == {"affinity": not_auto}  # not pinned to GPU nodes (would hold one up for ever)
    assert "nodeSelector" not in v["daemonsets"]  # the chart has no such key


def test_custom_node_label(chart):
    nc = node_class(chart)
    inference(chart, nc, labels={"example.com/gpu-stack": "operator"})
    v = GpuOperatorValues(chart, "GpuOperator", node_label=("example.com/gpu-stack", "operator")).values
    assert v["node-feature-discovery"]["worker"]["nodeSelector"] == {"example.com/gpu-stack": "operator"}


def test_al2023_runs_the_operators_device_plugin_not_driver_or_toolkit(platform):
    v = GpuOperatorValues(platform, "GpuOperator").values
    assert v["devicePlugin"] == {"enabled": True}
    assert v["driver"] == {"enabled": False}
    assert v["toolkit"] == {"enabled": False}


def test_bottlerocket_only_disables_device_plugin_driver_and_toolkit(chart):
    nc = node_class(chart, ami="bottlerocket@v1.44.0")
    inference(chart, nc)
    training(chart, node_class(chart, "Class2", ami="bottlerocket@1.45.0"))
    v = GpuOperatorValues(chart, "GpuOperator").values
    assert v["devicePlugin"] == {"enabled": False}
    assert v["driver"] == {"enabled": False}
    assert v["toolkit"] == {"enabled": False}


def test_bottlerocket_mixed_with_al2023_is_refused(chart):
    inference(chart, node_class(chart, "Al2023"))
    training(chart, node_class(chart, "Bottlerocket", ami="bottlerocket@v1.44.0"))
    with pytest.raises(KarpenterGpuError) as exc:
        GpuOperatorValues(chart, "GpuOperator")
    assert code_of(exc) == "KG501"
    assert "test/Bottlerocket" in str(exc.value) and "test/Al2023" in str(exc.value)
    assert "device plugin" in exc.value.allowed
    assert helm_values_in(chart) == []


def test_no_pools_is_refused_at_synth(chart):
    node_class(chart)
    GpuOperatorValues(chart, "GpuOperator")  # pools may still come: the tree is read at synth
    with pytest.raises(KarpenterGpuError) as exc:
        finalize(chart)
    assert code_of(exc) == "KG500"
    assert exc.value.path == "test/GpuOperator"


def test_pools_in_sibling_charts_of_the_cluster_are_read():
    """KG500 was raised when the pools lived in another chart of the same App (one chart per team)."""
    import cdk8s

    app = cdk8s.Testing.app()
    values = GpuOperatorValues(cdk8s.Chart(app, "platform"), "GpuOperator")
    team = cdk8s.Chart(app, "team-a")
    inference(team, node_class(team), labels={**LABELS, "team": "a"},
              taints=(Taint.gpu(), Taint("team", "a", TaintEffect.NO_SCHEDULE)))
    finalize(app)
    assert [p.name for p in values.pools] == ["gpu-inference"]
    assert {"key": "team", "operator": "Equal", "value": "a", "effect": "NoSchedule"} in \
        values.values["daemonsets"]["tolerations"]


def test_pool_without_operator_label_is_refused(chart):
    nc = node_class(chart)
    inference(chart, nc)
    inference(chart, nc, id="Unlabelled", name="gpu-unlabelled", labels={"workload": "inference"},
              gpu_operator=False)
    with pytest.raises(KarpenterGpuError) as exc:
        GpuOperatorValues(chart, "GpuOperator")
    assert code_of(exc) == "KG502"
    assert "gpu-unlabelled" in exc.value.prop
    assert "'gpu-operator': 'enabled'" in exc.value.fix and "test/Unlabelled" in exc.value.fix
    assert "never appear" in exc.value.allowed


def test_wrong_label_value_is_refused(chart):
    inference(chart, node_class(chart), labels={"gpu-operator": "disabled"})
    with pytest.raises(KarpenterGpuError) as exc:
        GpuOperatorValues(chart, "GpuOperator")
    assert code_of(exc) == "KG502"
    assert exc.value.value == "disabled"


def test_only_pools_of_its_cluster_are_read():
    import cdk8s

    app = cdk8s.Testing.app()
    other = cdk8s.Chart(Cluster(app, "other"), "platform")
    inference(other, node_class(other), labels={"workload": "inference"})  # unlabelled, another cluster
    mine = cdk8s.Chart(Cluster(app, "mine"), "platform")
    inference(mine, node_class(mine))
    assert GpuOperatorValues(mine, "GpuOperator").pools[0].node.path == "mine/platform/Inference"


# -- MIG, DCGM, operands ----------------------------------------------------------------------------

def test_mig_and_dcgm(platform):
    v = GpuOperatorValues(platform, "GpuOperator", mig_strategy="mixed", mig_manager=True,
                          dcgm_service_monitor=False).values
    assert v["mig"] == {"strategy": "mixed"}
    assert v["migManager"] == {"enabled": True}
    assert v["dcgmExporter"] == {"enabled": True, "serviceMonitor": {"enabled": False}}


def test_dcgm_service_monitor_carries_the_monitoring_release_label(platform):
    """Without the release label a kube-prometheus-stack Prometheus never scrapes DCGM."""
    values = GpuOperatorValues(platform, "GpuOperator")
    assert values.values["dcgmExporter"]["serviceMonitor"] == {
        "enabled": True, "additionalLabels": {"release": "kube-prometheus-stack"}}
    GpuMonitoring(platform, "Monitoring", labels={"release": "prom"})  # created later: still followed
    assert values.values["dcgmExporter"]["serviceMonitor"]["additionalLabels"] == {"release": "prom"}


def test_mig_strategy_is_checked(platform):
    with pytest.raises(KarpenterGpuError) as exc:
        GpuOperatorValues(platform, "GpuOperator", mig_strategy="none")
    assert code_of(exc) == "KG100" and exc.value.prop == "mig_strategy"


def test_operands_off_by_default(platform):
    v = GpuOperatorValues(platform, "GpuOperator").values
    for operand in ("vgpuManager", "vgpuDeviceManager", "vfioManager", "kataManager", "sandboxDevicePlugin",
                    "ccManager", "gds", "gdrcopy", "kataSandboxDevicePlugin"):
        assert v[operand] == {"enabled": False}, operand
    assert v["migManager"] == {"enabled": False}
    assert v["dcgmExporter"]["enabled"] is True
    assert "cdi" not in v and "gfd" not in v and "nfd" not in v  # chart defaults, not emitted


def test_operands_on_when_asked(platform):
    v = GpuOperatorValues(platform, "GpuOperator", extra_operands={"gds", "gdrcopy"}).values
    assert v["gds"] == {"enabled": True} and v["gdrcopy"] == {"enabled": True}
    assert v["vgpuManager"] == {"enabled": False}


@pytest.mark.parametrize("operands", [{"devicePlugin"}, {"gdr-copy"}, "gds"])
def test_unknown_operands_refused(platform, operands):
    with pytest.raises(KarpenterGpuError) as exc:
        GpuOperatorValues(platform, "GpuOperator", extra_operands=operands)
    assert code_of(exc) == "KG506"


# -- time slicing ------------------------------------------------------------------------------------

def test_time_slicing_device_plugin_config(platform):
    values = GpuOperatorValues(platform, "GpuOperator", time_slicing_replicas=4)
    config = values.values["devicePlugin"]["config"]
    assert config == {
        "create": True, "name": "time-slicing-config", "default": "any",
        "data": {"any": "version: v1\nsharing:\n  timeSlicing:\n    renameByDefault: false\n    resources:\n"
                        "    - name: nvidia.com/gpu\n      replicas: 4\n"},
    }
    assert yaml.safe_load(config["data"]["any"]) == {"version": "v1", "sharing": {"timeSlicing": {
        "renameByDefault": False, "resources": [{"name": "nvidia.com/gpu", "replicas": 4}]}}}
    assert values.values["devicePlugin"]["enabled"] is True


def test_time_slicing_config_is_written_as_a_block_scalar(platform):
    values = GpuOperatorValues(platform, "GpuOperator", time_slicing_replicas=4)
    text = values.to_yaml()
    assert "      any: |\n        version: v1\n        sharing:\n          timeSlicing:\n" in text
    assert "\\n" not in text  # no escaped line feeds: the embedded file reads as a file
    assert yaml.safe_load(text)["devicePlugin"]["config"] == values.values["devicePlugin"]["config"]


def test_time_slicing_creates_the_overlays(platform):
    values = GpuOperatorValues(platform, "GpuOperator", time_slicing_replicas=4, overlay_weight=200)
    overlays = [m for m in manifests(platform) if m["kind"] == "NodeOverlay"]
    assert [o["spec"]["weight"] for o in overlays] == [200, 201, 202, 203]
    assert [o["spec"]["capacity"] for o in overlays] == [{"nvidia.com/gpu": str(4 * k)} for k in (1, 2, 4, 8)]
    for o in overlays:
        assert {"key": "karpenter.sh/nodepool", "operator": "In",
                "values": ["gpu-inference", "gpu-training"]} in o["spec"]["requirements"]
    assert values.time_slicing is not None and values.time_slicing.node.path == "test/GpuOperator/TimeSlicing"
    assert {n.gate for n in required_feature_gates(platform)} == {FeatureGate.NODE_OVERLAY}


def test_no_time_slicing_no_overlay_no_config(platform):
    values = GpuOperatorValues(platform, "GpuOperator")
    assert values.time_slicing is None
    assert "config" not in values.values["devicePlugin"]
    assert not [m for m in manifests(platform) if m["kind"] == "NodeOverlay"]


@pytest.mark.parametrize("replicas", [1, 0, -2, True, 2.5, "4"])
def test_time_slicing_replicas_below_two_refused(platform, replicas):
    with pytest.raises(KarpenterGpuError) as exc:
        GpuOperatorValues(platform, "GpuOperator", time_slicing_replicas=replicas)
    assert code_of(exc) == "KG504"
    assert helm_values_in(platform) == []


def test_time_slicing_on_bottlerocket_refused(chart):
    inference(chart, node_class(chart, ami="bottlerocket@v1.44.0"))
    with pytest.raises(KarpenterGpuError) as exc:
        GpuOperatorValues(chart, "GpuOperator", time_slicing_replicas=4)
    assert code_of(exc) == "KG507"


def test_subset_needs_the_device_plugin_config_label(platform):
    GpuOperatorValues(platform, "GpuOperator", time_slicing_replicas=4, time_sliced_pools=("gpu-inference",))
    with pytest.raises(KarpenterGpuError) as exc:
        finalize(platform)
    assert code_of(exc) == "KG505"
    assert "gpu-inference" in exc.value.prop and "nvidia.com/device-plugin.config" in exc.value.fix


def test_subset_with_label_gets_an_unshared_default(chart):
    nc = node_class(chart)
    inference(chart, nc, labels={**LABELS, "nvidia.com/device-plugin.config": "any"})
    training(chart, nc)
    values = GpuOperatorValues(chart, "GpuOperator", time_slicing_replicas=3, time_sliced_pools=("gpu-inference",))
    config = values.values["devicePlugin"]["config"]
    assert config["default"] == "exclusive"
    assert config["data"] == {"any": time_slicing_config(3), "exclusive": "version: v1\n"}
    overlays = [m for m in manifests(chart) if m["kind"] == "NodeOverlay"]
    assert all({"key": "karpenter.sh/nodepool", "operator": "In", "values": ["gpu-inference"]}
               in o["spec"]["requirements"] for o in overlays)


def test_pool_labelled_for_another_config_refused(chart):
    inference(chart, node_class(chart), labels={**LABELS, "nvidia.com/device-plugin.config": "a100"})
    GpuOperatorValues(chart, "GpuOperator", time_slicing_replicas=2)
    with pytest.raises(KarpenterGpuError) as exc:
        finalize(chart)
    assert code_of(exc) == "KG505"


def test_unknown_time_sliced_pool_refused(platform):
    GpuOperatorValues(platform, "GpuOperator", time_slicing_replicas=4, time_sliced_pools=("gpu-inferense",))
    with pytest.raises(KarpenterGpuError) as exc:
        finalize(platform)
    assert code_of(exc) == "KG505" and exc.value.value == ["gpu-inferense"]


def test_time_sliced_pools_without_replicas_refused(platform):
    with pytest.raises(KarpenterGpuError) as exc:
        GpuOperatorValues(platform, "GpuOperator", time_sliced_pools=("gpu-inference",))
    assert code_of(exc) == "KG505"


def test_overlay_weight_clash_fails_before_anything_is_added(platform):
    GpuCapacityOverlay(platform, "Fractional", name="fractional", weight=102)
    with pytest.raises(KarpenterGpuError) as exc:
        GpuOperatorValues(platform, "GpuOperator", time_slicing_replicas=4)
    assert code_of(exc) == "KG183"
    assert exc.value.path == "test/GpuOperator/TimeSlicing/Gpus4"
    assert helm_values_in(platform) == []
    assert [m["metadata"]["name"] for m in manifests(platform) if m["kind"] == "NodeOverlay"] == ["fractional"]


# -- chart validations, YAML, props ------------------------------------------------------------------

@pytest.mark.parametrize("values, prop", [
    ({"devicePlugin": {"config": {"create": True, "name": "x", "data": {}}}}, "devicePlugin.config.data"),
    ({"devicePlugin": {"config": {"create": True, "name": "", "data": {"any": "version: v1\n"}}}},
     "devicePlugin.config.name"),
    ({"devicePlugin": {"config": {"create": True, "name": "x", "default": "all", "data": {"any": "v"}}}},
     "devicePlugin.config.default"),
    ({"cdi": {"nriPluginEnabled": True}, "toolkit": {"enabled": False}}, "cdi.nriPluginEnabled"),
    ({"gpuCluster": {"deployCR": True}}, "gpuCluster.deployCR"),
])


def test_chart_validations(values, prop):
    with pytest.raises(KarpenterGpuError) as exc:
        check_chart_validations(values, "p")
    assert code_of(exc) == "KG503" and exc.value.prop == prop


def test_rendered_values_pass_chart_validations(platform):
    check_chart_validations(GpuOperatorValues(platform, "GpuOperator", time_slicing_replicas=2).values)


def test_to_yaml_round_trips(platform):
    values = GpuOperatorValues(platform, "GpuOperator", time_slicing_replicas=4)
    text = values.to_yaml()
    assert text.startswith("# Helm values for nvidia/gpu-operator v26.7.0")
    assert yaml.safe_load(text) == values.values


def test_props_object_accepted(platform):
    props = GpuOperatorValuesProps(mig_manager=True)
    assert GpuOperatorValues(platform, "GpuOperator", props=props).values["migManager"] == {"enabled": True}


@pytest.mark.parametrize("label", [("gpu-operator",), ("karpenter.sh/nodepool", "x"), ("gpu-operator", "")])
def test_invalid_node_label_refused(platform, label):
    with pytest.raises(KarpenterGpuError) as exc:
        GpuOperatorValues(platform, "GpuOperator", node_label=label)
    assert code_of(exc) in ("KG111", "KG121")


def test_time_slicing_outside_a_chart_is_kg197_and_adds_nothing():
    import cdk8s

    app = cdk8s.Testing.app()
    with pytest.raises(KarpenterGpuError) as exc:
        GpuOperatorValues(app, "GpuOperator", time_slicing_replicas=4)
    assert code_of(exc) == "KG197" and exc.value.path == "GpuOperator/TimeSlicing"
    assert app.node.try_find_child("GpuOperator") is None


# -- hybrid nodes: driver and toolkit only where no driver is preinstalled ------------------------

ON_PREM = Taint("on-premises")


def hybrid(chart, id="Dc1", name="dc1-a100", **props):
    return HybridGpuNodeGroup(chart, id, **{"name": name, "gpu_name": "a100", "gpus_per_node": 8, "nodes": 4,
                                            "location": "seoul-dc1", "taints": (Taint.gpu(), ON_PREM), **props})


def rendered_nodes(chart) -> dict[str, tuple[dict, list]]:
    """Node name → (labels, taints) of one node of each pool and hybrid group, from the synthesized manifests:
    a Karpenter node carries its pool's template labels plus karpenter.sh/nodepool, and on an Auto Mode pool
    (nodeClassRef group eks.amazonaws.com) also EKS's compute-type: auto; a hybrid node carries the labels and
    taints its group's ConfigMap describes."""
    docs = manifests(chart)
    nodes = {}
    for pool in node_pools(docs):
        labels = {**pool.labels, "karpenter.sh/nodepool": pool.name}
        if (pool.template_spec.get("nodeClassRef") or {}).get("group") == "eks.amazonaws.com":
            labels["eks.amazonaws.com/compute-type"] = "auto"
        nodes[pool.name] = (labels, pool.taints)
    for group in hybrid_groups(docs):
        nodes[group.name] = (dict(group.node_labels), list(group.taints))
    return nodes


def runs(values, operand, node) -> bool:
    labels, taints = node
    return operand_runs(values, operand, labels, taints)


def test_driver_and_toolkit_never_on_eks_ami_or_auto_mode_nodes_and_always_on_hybrid_nodes(chart):
    from karpenter_gpu import AutoModeNodeClass

    inference(chart, node_class(chart))
    training(chart, node_class(chart, "TrainingClass"))
    auto = AutoModeNodeClass(chart, "Auto", **AUTO)
    GpuInferencePool(chart, "AutoPool", node_class=auto, name="auto-inference", gpu_limit=8)
    hybrid(chart)
    hybrid(chart, "Dc2", name="dc2-l40s", gpu_name="l40s", taints=(ON_PREM,))
    ops = GpuOperatorValues(chart, "GpuOperator")
    GpuMonitoring(chart, "Monitoring")
    finalize(chart.node.root)
    values = ops.values
    nodes = rendered_nodes(chart)
    assert values["driver"]["enabled"] and values["toolkit"]["enabled"]
    assert set(nodes) == {"gpu-inference", "gpu-training", "auto-inference", "dc1-a100", "dc2-l40s"}
    for operand in ("driver", "toolkit"):
        assert not runs(values, operand, nodes["gpu-inference"]), operand           # AL2023 ships both
        assert not runs(values, operand, nodes["gpu-training"]), operand
        assert not runs(values, operand, nodes["auto-inference"]), operand         # Auto Mode: no operand at all
        assert runs(values, operand, nodes["dc1-a100"]), operand
        assert runs(values, operand, nodes["dc2-l40s"]), operand
    # The rest of the stack still reaches the EKS AMI nodes, nothing reaches Auto Mode nodes.
    assert runs(values, "devicePlugin", nodes["gpu-inference"]) and runs(values, "dcgmExporter", nodes["dc1-a100"])
    assert not nfd_worker_runs(values, *nodes["auto-inference"])
    assert not any(runs(values, op, nodes["auto-inference"]) for op in ("devicePlugin", "dcgmExporter", "gfd"))


def test_without_hybrid_nodes_the_pools_are_not_relabelled(platform):
    ops = GpuOperatorValues(platform, "GpuOperator")
    finalize(platform.node.root)
    assert ops.deploy_labels() == {}
    assert not ops.values["driver"]["enabled"]
    assert all("nvidia.com/gpu.deploy.driver" not in p.labels for p in node_pools(manifests(platform)))


def test_deploy_labels_reach_every_pool_whatever_the_construction_order(chart):
    ops = GpuOperatorValues(chart, "GpuOperator", dcgm_service_monitor=False)
    hybrid(chart)
    nc = node_class(chart)
    inference(chart, nc)
    training(chart, nc)
    finalize(chart.node.root)
    finalize(chart.node.root)  # idempotent: one patch per label
    labels = {p.name: p.labels for p in node_pools(manifests(chart))}
    for name in ("gpu-inference", "gpu-training"):
        assert labels[name]["nvidia.com/gpu.deploy.driver"] == "false"
        assert labels[name]["nvidia.com/gpu.deploy.container-toolkit"] == "false"
    assert ops.deploy_labels() == {n: {"nvidia.com/gpu.deploy.container-toolkit": "false",
                                       "nvidia.com/gpu.deploy.driver": "false"} for n in ("gpu-inference", "gpu-training")}
    header = ops.to_yaml().split("daemonsets:")[0]  # says why, and how to relabel nodes launched before
    assert ("#   kubectl label nodes -l 'karpenter.sh/nodepool in (gpu-inference,gpu-training)' "
            "nvidia.com/gpu.deploy.container-toolkit=false nvidia.com/gpu.deploy.driver=false --overwrite") in header


def test_preinstalled_hybrid_driver_keeps_the_driver_off(chart):
    inference(chart, node_class(chart))
    hybrid(chart, driver_preinstalled=True)
    ops = GpuOperatorValues(chart, "GpuOperator", dcgm_service_monitor=False)
    finalize(chart.node.root)
    values = ops.values
    assert not values["driver"]["enabled"] and values["toolkit"]["enabled"]
    nodes = rendered_nodes(chart)
    assert not runs(values, "driver", nodes["dc1-a100"]) and runs(values, "toolkit", nodes["dc1-a100"])
    assert not runs(values, "toolkit", nodes["gpu-inference"])


def test_bottlerocket_pools_keep_their_own_device_plugin_beside_hybrid_nodes(chart):
    inference(chart, node_class(chart, ami="bottlerocket@v1.44.0"))
    hybrid(chart)
    ops = GpuOperatorValues(chart, "GpuOperator", dcgm_service_monitor=False)
    finalize(chart.node.root)
    values = ops.values
    nodes = rendered_nodes(chart)
    assert values["devicePlugin"]["enabled"]
    assert not runs(values, "devicePlugin", nodes["gpu-inference"])
    assert runs(values, "devicePlugin", nodes["dc1-a100"])


def test_hybrid_taints_are_tolerated_by_every_operand_and_nfd(chart):
    inference(chart, node_class(chart))
    hybrid(chart)
    values = GpuOperatorValues(chart, "GpuOperator", dcgm_service_monitor=False).values
    on_prem = {"key": "on-premises", "operator": "Exists", "effect": "NoSchedule"}
    assert on_prem in values["daemonsets"]["tolerations"]
    assert on_prem in values["node-feature-discovery"]["worker"]["tolerations"]


def test_only_hybrid_groups_is_a_cluster_the_operator_serves(chart):
    hybrid(chart)
    values = GpuOperatorValues(chart, "GpuOperator", dcgm_service_monitor=False).values
    assert values["driver"]["enabled"] and values["devicePlugin"]["enabled"]


def test_time_slicing_leaves_hybrid_nodes_unshared(chart):
    inference(chart, node_class(chart), labels={**LABELS, "nvidia.com/device-plugin.config": "any"})
    hybrid(chart)
    values = GpuOperatorValues(chart, "GpuOperator", time_slicing_replicas=4, dcgm_service_monitor=False).values
    assert values["devicePlugin"]["config"]["default"] == "exclusive"


def test_fails_when_time_sliced_pool_lacks_the_label_beside_hybrid_nodes(chart):
    inference(chart, node_class(chart))
    hybrid(chart)
    GpuOperatorValues(chart, "GpuOperator", time_slicing_replicas=4, dcgm_service_monitor=False)
    with pytest.raises(KarpenterGpuError) as exc:
        finalize(chart.node.root)
    assert code_of(exc) == "KG505"


def test_fails_when_a_hybrid_group_lacks_the_operator_label(chart):
    inference(chart, node_class(chart))
    hybrid(chart, gpu_operator=False)
    with pytest.raises(KarpenterGpuError) as exc:
        GpuOperatorValues(chart, "GpuOperator")
    assert code_of(exc) == "KG580"


def test_hybrid_dcgm_metrics_need_gpu_monitoring(chart):
    inference(chart, node_class(chart))
    hybrid(chart)
    GpuOperatorValues(chart, "GpuOperator")
    with pytest.raises(KarpenterGpuError) as exc:
        finalize(chart.node.root)
    assert code_of(exc) == "KG581"


def test_with_hybrid_groups_gpu_monitoring_scrapes_dcgm_instead_of_the_chart(chart):
    inference(chart, node_class(chart))
    hybrid(chart)
    ops = GpuOperatorValues(chart, "GpuOperator")
    GpuMonitoring(chart, "Monitoring")
    finalize(chart.node.root)
    assert ops.values["dcgmExporter"]["serviceMonitor"] == {"enabled": False}
    assert [m["metadata"]["name"] for m in manifests(chart) if m["kind"] == "ServiceMonitor"] == \
        ["karpenter", "dcgm-exporter"]


# --- EKS Auto Mode: the operator never serves those pools ---------------------------------------

AUTO = {"name": "gpu-auto", "role": "AmazonEKSAutoNodeRole", "subnet_ids": ("subnet-0a",),
        "security_group_ids": ("sg-0a",)}


def test_not_auto_mode_affinity_excludes_exactly_auto_mode_nodes(platform):
    """The NotIn-auto affinity, read by the scheduling core: an Auto Mode node is refused, a node without the label
    (EKS AMI, Bottlerocket under Karpenter) and one of another compute type are admitted."""
    from karpenter_gpu.k8s.scheduling import Requirements

    term = GpuOperatorValues(platform, "GpuOperator").values["node-feature-discovery"]["worker"]["affinity"][
        "nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0]
    reqs = Requirements.from_dicts(term["matchExpressions"])
    assert reqs.admits_labels({"eks.amazonaws.com/compute-type": "auto"}) is not None
    assert reqs.admits_labels({"gpu-operator": "enabled"}) is None
    assert reqs.admits_labels({"eks.amazonaws.com/compute-type": "hybrid"}) is None


def test_auto_mode_pools_are_left_out(chart):
    from karpenter_gpu import AutoModeNodeClass

    nc = node_class(chart)
    inference(chart, nc)
    auto = AutoModeNodeClass(chart, "Auto", **AUTO)
    # No gpu-operator label, a taint of its own: neither KG502 nor an extra toleration for the operands.
    GpuInferencePool(chart, "AutoPool", node_class=auto, name="gpu-auto", gpu_limit=8,
                     taints=(Taint.gpu(), Taint("example.com/auto", "yes")))
    values = GpuOperatorValues(chart, "GpuOperator")
    assert [p.props.name for p in values.pools] == ["gpu-inference"]
    assert values.values["daemonsets"]["tolerations"] == [GPU_TOLERATION]
    assert values.values["driver"] == {"enabled": False}  # from the al2023 class alone; Auto Mode has no AMI


def test_only_auto_mode_pools_is_kg570(chart):
    from karpenter_gpu import AutoModeNodeClass

    auto = AutoModeNodeClass(chart, "Auto", **AUTO)
    GpuInferencePool(chart, "AutoPool", node_class=auto, name="gpu-auto", gpu_limit=8)
    GpuOperatorValues(chart, "GpuOperator")
    with pytest.raises(KarpenterGpuError) as exc:
        finalize(chart)
    assert code_of(exc) == "KG570" and "gpu-auto" in str(exc.value.value)


def test_time_slicing_an_auto_mode_pool_is_kg571(chart):
    from karpenter_gpu import AutoModeNodeClass

    inference(chart, node_class(chart))
    auto = AutoModeNodeClass(chart, "Auto", **AUTO)
    GpuInferencePool(chart, "AutoPool", node_class=auto, name="gpu-auto", gpu_limit=8)
    GpuOperatorValues(chart, "GpuOperator", time_slicing_replicas=4, time_sliced_pools=("gpu-auto",))
    with pytest.raises(KarpenterGpuError) as exc:
        finalize(chart)
    assert code_of(exc) == "KG571"


# -- MIG: derived from the MigPartitionedPools ----------------------------------------------------

def mig(chart, nc, id="Mig", name="gpu-mig", **props):
    from karpenter_gpu import MigPartitionedPool

    return MigPartitionedPool(chart, id, node_class=nc, **{"name": name, "gpu_limit": 16,
                                                           "mig_config": "all-1g.10gb", **props})


def test_mig_off_without_mig_pools(platform):
    v = GpuOperatorValues(platform, "GpuOperator").values
    assert (v["mig"], v["migManager"]) == ({"strategy": "single"}, {"enabled": False})


@pytest.mark.parametrize("strategy", ["mixed", "single"])
def test_mig_strategy_and_manager_from_the_pools_in_any_order(chart, strategy):
    values = GpuOperatorValues(chart, "GpuOperator")  # created first: read at synth
    nc = node_class(chart)
    inference(chart, nc)
    mig(chart, nc, mig_strategy=strategy, taints=(Taint.gpu(), Taint("mig", "true")))
    v = yaml.safe_load(values.to_yaml())
    assert v["mig"] == {"strategy": strategy}
    assert v["migManager"] == {"enabled": True, "config": {"default": "all-disabled"}}
    # the MIG pool's own taint is tolerated by every operand, MIG Manager included
    assert {"key": "mig", "operator": "Equal", "value": "true", "effect": "NoSchedule"} in v["daemonsets"]["tolerations"]


def test_fails_when_mig_pools_disagree_on_the_strategy(chart):
    nc = node_class(chart)
    mig(chart, nc)
    mig(chart, nc, id="Single", name="gpu-mig-single", mig_config="all-3g.40gb", mig_strategy="single",
        overlay_weight=300)
    with pytest.raises(KarpenterGpuError) as err:
        GpuOperatorValues(chart, "GpuOperator")
    assert code_of(err) == "KG575"


@pytest.mark.parametrize(("props", "prop"), [({"mig_strategy": "single"}, "mig_strategy"),
                                             ({"mig_manager": False}, "mig_manager")])
def test_fails_when_a_prop_contradicts_the_mig_pools(chart, props, prop):
    values = GpuOperatorValues(chart, "GpuOperator", **props)
    nc = node_class(chart)
    mig(chart, nc)
    with pytest.raises(KarpenterGpuError) as err:
        finalize(chart)
    assert code_of(err) == "KG576" and err.value.prop == prop
    assert values.props.mig_manager is props.get("mig_manager")


def test_explicit_values_that_agree_are_kept(chart):
    nc = node_class(chart)
    mig(chart, nc)
    v = GpuOperatorValues(chart, "GpuOperator", mig_strategy="mixed", mig_manager=True).values
    assert v["mig"] == {"strategy": "mixed"} and v["migManager"]["enabled"] is True


def test_fails_on_time_slicing_a_mig_pool(chart):
    nc = node_class(chart)
    inference(chart, nc)
    mig(chart, nc)
    with pytest.raises(KarpenterGpuError) as err:
        GpuOperatorValues(chart, "GpuOperator", time_slicing_replicas=4)
    assert code_of(err) == "KG577"


def test_time_slicing_other_pools_beside_a_mig_pool(chart):
    nc = node_class(chart)
    inference(chart, nc, labels={**LABELS, "nvidia.com/device-plugin.config": "any"})
    mig(chart, nc)
    v = GpuOperatorValues(chart, "GpuOperator", time_slicing_replicas=4, time_sliced_pools=("gpu-inference",)).values
    assert v["devicePlugin"]["config"]["default"] == "exclusive"
    assert v["migManager"]["enabled"] is True


def test_fails_on_time_slicing_a_mig_pool_added_later(chart):
    nc = node_class(chart)
    inference(chart, nc)
    GpuOperatorValues(chart, "GpuOperator", time_slicing_replicas=4)
    mig(chart, nc)
    with pytest.raises(KarpenterGpuError) as err:
        finalize(chart)
    assert code_of(err) == "KG577"


def test_mig_config_map_pins_exactly_the_pools_layouts(chart):
    nc = node_class(chart)
    mig(chart, nc)
    mig(chart, nc, id="Balanced", name="gpu-mig-balanced", mig_config="all-balanced", overlay_weight=300)
    config = GpuOperatorValues(chart, "GpuOperator", mig_config_map="gpu-mig-layouts").values["migManager"]["config"]
    assert (config["create"], config["name"], config["default"]) == (True, "gpu-mig-layouts", "all-disabled")
    document = yaml.safe_load(config["data"]["config.yaml"])
    assert sorted(document["mig-configs"]) == ["all-1g.10gb", "all-balanced", "all-disabled"]
    by_filter = {e["device-filter"][0]: e["mig-devices"] for e in document["mig-configs"]["all-1g.10gb"]}
    assert by_filter == {"0x20B010DE": {"1g.10gb": 4}, "0x20B210DE": {"1g.10gb": 7}, "0x233010DE": {"1g.10gb": 7}}
    assert len(document["mig-configs"]["all-balanced"]) == 6


def test_mig_config_map_refuses_a_label_the_tables_do_not_know(chart):
    nc = node_class(chart)
    inference(chart, nc, labels={**LABELS, "nvidia.com/mig.config": "custom-layout"})
    with pytest.raises(KarpenterGpuError) as err:
        GpuOperatorValues(chart, "GpuOperator", mig_config_map="gpu-mig-layouts")
    assert code_of(err) == "KG576" and err.value.prop == "mig_config_map"


# --- EKS Auto Mode: the operator never serves those pools ---------------------------------------

def test_neuron_pools_are_left_to_the_neuron_device_plugin(platform):
    from karpenter_gpu import NeuronInferencePool

    nc = node_class(platform, "NeuronClass")
    NeuronInferencePool(platform, "Inferentia", node_class=nc, name="neuron-inference", neuron_limit=8)
    values = GpuOperatorValues(platform, "GpuOperator").values  # no KG502: the Neuron pool needs no operator label
    tolerated = {t["key"] for t in values["daemonsets"]["tolerations"]}
    assert "aws.amazon.com/neuron" not in tolerated
    assert values["node-feature-discovery"]["worker"]["nodeSelector"] == {"gpu-operator": "enabled"}
