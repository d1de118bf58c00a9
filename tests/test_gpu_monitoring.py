"""GpuMonitoring → ServiceMonitors and the GPU PrometheusRule (seed 000 §9, §17)."""

from __future__ import annotations

import re

import cdk8s
import pydantic
import pytest

from karpenter_gpu import Duration, GpuInferencePool, GpuNodeClass, GpuTrainingPool, HybridGpuNodeGroup, KarpenterGpuError
from karpenter_gpu.apiserver.conformance import check
from karpenter_gpu.cluster import Cluster, finalize
from karpenter_gpu.addons.gpu_monitoring import (DCGM_RELABELINGS, INCONSISTENT_STATE_SERIES, PROVISIONING_FAILED_EXPR,
                                                 GpuMonitoring, GpuMonitoringProps, gpu_pools)
from karpenter_gpu.pools.static_capacity_pool import StaticCapacityPool
from karpenter_gpu.pools.tiered_spot_pools import SpotTier, TieredSpotPools
from tests.conftest import manifests, only

MONITORING = "monitoring.coreos.com/v1"


@pytest.fixture
def node_class(chart):
    return GpuNodeClass(chart, "Class", name="gpu", ami="al2023@v20251103", role="R", cluster_name="c")


@pytest.fixture
def pools(chart, node_class):
    """Two dynamic pools with different limits and one static pool."""
    inference = GpuInferencePool(chart, "Inference", node_class=node_class, name="gpu-inference", gpu_limit=16)
    training = GpuTrainingPool(chart, "Training", node_class=node_class, name="gpu-training", gpu_limit=64,
                               expire_after=Duration.never())
    StaticCapacityPool(chart, "Static", node_class=node_class, name="gpu-warm", replicas=2)
    return inference, training


def monitoring_objects(chart) -> list[dict]:
    return [m for m in manifests(chart) if m["apiVersion"] == MONITORING]


def rules(chart) -> list[dict]:
    (group,) = only(chart, "PrometheusRule")["spec"]["groups"]
    assert group["name"] == "karpenter-gpu"
    return group["rules"]


def alerts(chart, name: str) -> list[dict]:
    return [r for r in rules(chart) if r["alert"] == name]


def test_snapshot(chart, pools, snapshot):
    GpuMonitoring(chart, "Monitoring", dcgm_service_monitor=True)
    assert monitoring_objects(chart) == snapshot


def test_one_near_limit_alert_per_dynamic_pool_with_its_own_limit(chart, pools):
    GpuMonitoring(chart, "Monitoring")
    near = alerts(chart, "GPUNodePoolNearLimit")
    assert [r["labels"] for r in near] == [{"severity": "warning", "nodepool": "gpu-inference"},
                                           {"severity": "warning", "nodepool": "gpu-training"}]
    assert near[0]["expr"] == ('max by (nodepool) (karpenter_nodepools_usage{nodepool="gpu-inference", '
                               'resource_type="nvidia.com/gpu"}) / 16 > 0.9')
    assert near[1]["expr"] == ('max by (nodepool) (karpenter_nodepools_usage{nodepool="gpu-training", '
                               'resource_type="nvidia.com/gpu"}) / 64 > 0.9')
    for rule in near:
        # The literal limit of the construct, never the limit metric: the alert cannot drift from the pool.
        assert "karpenter_nodepools_limit" not in rule["expr"]
        assert rule["for"] == "5m"


def test_static_pools_are_excluded(chart, node_class, pools):
    monitoring = GpuMonitoring(chart, "Monitoring")
    assert [p.props.name for p in monitoring.pools] == ["gpu-inference", "gpu-training"]
    assert not any("gpu-warm" in r["expr"] or r["labels"].get("nodepool", "").startswith("gpu-warm")
                   for r in rules(chart))


def test_limit_follows_the_pool(chart, node_class):
    GpuInferencePool(chart, "Inference", node_class=node_class, name="gpu-inference", gpu_limit=3)
    GpuMonitoring(chart, "Monitoring", near_limit_ratio=0.75)
    (near,) = alerts(chart, "GPUNodePoolNearLimit")
    assert near["expr"].endswith("/ 3 > 0.75")
    assert "75%" in near["annotations"]["summary"] and "(3)" in near["annotations"]["summary"]


def test_tiered_spot_pools_get_one_alert_per_tier(chart, node_class):
    TieredSpotPools(chart, "Batch", node_class=node_class, name="gpu-batch", tiers=(
        SpotTier(suffix="a10g-spot", gpu_names=("a10g",), gpu_limit=20),
        SpotTier(suffix="t4-spot", gpu_names=("t4",), gpu_limit=12)))
    GpuMonitoring(chart, "Monitoring")
    near = {r["labels"]["nodepool"]: r["expr"] for r in alerts(chart, "GPUNodePoolNearLimit")}
    assert set(near) == {"gpu-batch-a10g-spot", "gpu-batch-t4-spot"}
    assert near["gpu-batch-a10g-spot"].endswith("/ 20 > 0.9") and near["gpu-batch-t4-spot"].endswith("/ 12 > 0.9")


def test_objects_pass_the_crd_conformance_check(chart, pools, crds):
    assert (MONITORING, "ServiceMonitor") in crds and (MONITORING, "PrometheusRule") in crds
    GpuMonitoring(chart, "Monitoring", dcgm_service_monitor=True)
    objects = monitoring_objects(chart)
    assert sorted(m["kind"] for m in objects) == ["PrometheusRule", "ServiceMonitor", "ServiceMonitor"]
    for m in objects:
        assert check(m, crds) == [], m["metadata"]["name"]


def test_conformance_check_does_look_at_the_rules(chart, pools, crds):
    # The check is not vacuous for these kinds: a bad `for` breaks the CRD pattern.
    GpuMonitoring(chart, "Monitoring")
    rule = only(chart, "PrometheusRule")
    rule["spec"]["groups"][0]["rules"][0]["for"] = "5 minutes"
    rule["spec"]["groups"][0]["rules"][0]["severity"] = "warning"
    problems = check(rule, crds)
    assert len(problems) == 2
    assert problems[0].startswith("spec.groups[0].rules[0].for: '5 minutes' does not match pattern")
    assert problems[1].startswith("spec.groups[0].rules[0].severity: unknown field")


def test_namespaced_objects_carry_their_namespace(chart, pools):
    GpuMonitoring(chart, "Monitoring", dcgm_service_monitor=True)
    by_name = {m["metadata"]["name"]: m["metadata"] for m in monitoring_objects(chart)}
    assert by_name["karpenter"]["namespace"] == "karpenter"
    assert by_name["karpenter-gpu-alerts"]["namespace"] == "karpenter"
    assert by_name["dcgm-exporter"]["namespace"] == "gpu-operator"
    for meta in by_name.values():
        assert meta["labels"] == {"release": "kube-prometheus-stack"}
    # The cluster-scoped Karpenter kinds stay without one.
    assert all("namespace" not in m["metadata"] for m in manifests(chart) if m["apiVersion"] != MONITORING)


def test_custom_namespaces_and_labels(chart, pools):
    GpuMonitoring(chart, "Monitoring", namespace="kube-system", dcgm_service_monitor=True,
                  dcgm_namespace="nvidia", labels={"prometheus": "main", "team.example.com/owner": "ml"})
    by_name = {m["metadata"]["name"]: m["metadata"] for m in monitoring_objects(chart)}
    assert by_name["karpenter"]["namespace"] == by_name["karpenter-gpu-alerts"]["namespace"] == "kube-system"
    assert by_name["dcgm-exporter"]["namespace"] == "nvidia"
    assert by_name["karpenter"]["labels"] == {"prometheus": "main", "team.example.com/owner": "ml"}


def test_karpenter_service_monitor_like_the_seed(chart, pools):
    monitoring = GpuMonitoring(chart, "Monitoring")
    (sm,) = [m for m in manifests(chart) if m["kind"] == "ServiceMonitor"]
    assert sm["metadata"]["name"] == "karpenter"
    assert sm["spec"] == {"selector": {"matchLabels": {"app.kubernetes.io/name": "karpenter"}},
                          "endpoints": [{"port": "http-metrics", "interval": "15s", "path": "/metrics"}]}
    assert cdk8s.ApiObject.of(monitoring.karpenter_service_monitor).kind == "ServiceMonitor"


def test_dcgm_service_monitor_only_on_request(chart, pools):
    monitoring = GpuMonitoring(chart, "Monitoring")
    assert monitoring.dcgm_service_monitor is None
    assert [m["metadata"]["name"] for m in manifests(chart) if m["kind"] == "ServiceMonitor"] == ["karpenter"]


def test_dcgm_service_monitor_selects_the_gpu_operator_service(chart, pools):
    GpuMonitoring(chart, "Monitoring", dcgm_service_monitor=True)
    sm = next(m for m in manifests(chart) if m["metadata"]["name"] == "dcgm-exporter")
    # The GPU Operator names the exporter Service port gpu-metrics (the seed's `metrics` matches nothing).
    assert sm["spec"] == {"selector": {"matchLabels": {"app": "nvidia-dcgm-exporter"}},
                          "attachMetadata": {"node": True},
                          "endpoints": [{"port": "gpu-metrics", "interval": "15s", "path": "/metrics",
                                         "relabelings": [dict(r) for r in DCGM_RELABELINGS]}]}


def test_karpenter_service_monitor_can_be_left_to_the_chart(chart, pools):
    monitoring = GpuMonitoring(chart, "Monitoring", karpenter_service_monitor=False)
    assert monitoring.karpenter_service_monitor is None
    assert [m["kind"] for m in monitoring_objects(chart)] == ["PrometheusRule"]


def test_every_alert_has_severity_summary_and_description(chart, pools):
    GpuMonitoring(chart, "Monitoring")
    names = [r["alert"] for r in rules(chart)]
    assert names == ["GPUNodePoolNearLimit", "GPUNodePoolNearLimit", "LowGPUUtilization",
                     "KarpenterProvisioningFailed", "KarpenterNodeClaimInconsistentState"]
    for rule in rules(chart):
        assert rule["labels"]["severity"] in {"info", "warning", "critical"}
        assert rule["annotations"]["summary"] and rule["annotations"]["description"]
        assert set(rule) <= {"alert", "expr", "for", "labels", "annotations"}


def test_low_utilization_rule(chart, pools):
    GpuMonitoring(chart, "Monitoring", low_utilization_percent=15, low_utilization_for="1h")
    (rule,) = alerts(chart, "LowGPUUtilization")
    assert rule["expr"] == "avg by (Hostname) (avg_over_time(DCGM_FI_DEV_GPU_UTIL[1h])) < 15"
    assert rule["for"] == "1h"
    assert rule["labels"] == {"severity": "info"}


def test_provisioning_failed_rule_uses_labels_karpenter_v1_exports(chart, pools):
    GpuMonitoring(chart, "Monitoring")
    (rule,) = alerts(chart, "KarpenterProvisioningFailed")
    assert rule["expr"] == PROVISIONING_FAILED_EXPR
    # karpenter_nodeclaims_terminated_total has no `reason` label in v1: the seed's matcher selects nothing.
    assert "karpenter_nodeclaims_terminated_total" not in rule["expr"]
    assert rule["labels"] == {"severity": "critical"}


def test_inconsistent_state_rule_waits_for_the_device_plugin(chart, pools):
    GpuMonitoring(chart, "Monitoring", consistent_state_grace=Duration.minutes(20))
    (rule,) = alerts(chart, "KarpenterNodeClaimInconsistentState")
    assert rule["expr"] == ('operator_status_condition_count{type="ConsistentStateFound",kind="NodeClaim",'
                            'status="False"} > 0')
    assert rule["expr"].startswith(INCONSISTENT_STATE_SERIES)
    assert rule["for"] == "20m"
    assert "device plugin" in rule["annotations"]["description"]
    assert "after the node is Ready" in rule["annotations"]["description"]


def test_defaults():
    p = GpuMonitoringProps()
    assert (p.namespace, p.karpenter_service_monitor, p.dcgm_service_monitor, p.dcgm_namespace) == \
        ("karpenter", True, False, "gpu-operator")
    assert (p.near_limit_ratio, p.low_utilization_percent, p.low_utilization_for, p.consistent_state_grace) == \
        (0.9, 20, "30m", "15m")
    assert p.labels == {"release": "kube-prometheus-stack"}
    with pytest.raises(pydantic.ValidationError):
        p.namespace = "other"  # frozen


def test_gpu_pools_helper(chart, pools):
    assert gpu_pools(chart) == pools


# --- errors ---------------------------------------------------------------------------------------


def error(chart, **props) -> KarpenterGpuError:
    with pytest.raises(KarpenterGpuError) as exc:
        GpuMonitoring(chart, "Monitoring", **props)
    return exc.value


def final_error(chart) -> KarpenterGpuError:
    """GpuMonitoring reads the pools at synth: the error comes from the synth-time pass."""
    with pytest.raises(KarpenterGpuError) as exc:
        finalize(chart)
    return exc.value


def test_kg540_no_pools(chart, node_class):
    GpuMonitoring(chart, "Monitoring")
    err = final_error(chart)
    assert err.code == "KG540" and err.path == "test/Monitoring"
    assert "same App, Cluster or GpuPlatform" in err.fix


def test_kg540_only_static_pools(chart, node_class):
    StaticCapacityPool(chart, "Static", node_class=node_class, name="gpu-warm", replicas=2)
    GpuMonitoring(chart, "Monitoring")
    assert final_error(chart).code == "KG540"


def test_created_before_the_pools_sees_them(chart, node_class):
    GpuMonitoring(chart, "Monitoring")
    GpuInferencePool(chart, "Inference", node_class=node_class, name="gpu-inference", gpu_limit=4)
    (near,) = alerts(chart, "GPUNodePoolNearLimit")
    assert near["labels"]["nodepool"] == "gpu-inference"


def test_kg197_monitoring_outside_a_chart():
    app = cdk8s.Testing.app()
    with pytest.raises(KarpenterGpuError) as exc:
        GpuMonitoring(app, "Monitoring")
    assert exc.value.code == "KG197" and exc.value.path == "Monitoring"
    assert app.node.try_find_child("Monitoring") is None


def test_monitoring_in_one_team_chart_watches_every_team_of_the_cluster():
    app = cdk8s.Testing.app()
    platform = cdk8s.Chart(app, "platform")
    nc = GpuNodeClass(platform, "Class", name="gpu", ami="al2023@v20251103", role="R", cluster_name="c")
    monitoring = GpuMonitoring(platform, "Monitoring")
    for team, limit in (("team-b", 8), ("team-a", 4)):
        GpuInferencePool(cdk8s.Chart(app, team), "Pool", node_class=nc, name=f"{team}-serve", gpu_limit=limit)
    assert [r["labels"]["nodepool"] for r in alerts(platform, "GPUNodePoolNearLimit")] == [
        "team-a-serve", "team-b-serve"]
    assert [p.name for p in monitoring.pools] == ["team-a-serve", "team-b-serve"]


def test_second_monitoring_in_a_cluster_is_a_duplicate():
    """Today one team's PrometheusRule silently replaced the other's; now KG171 names both."""
    app = cdk8s.Testing.app()
    GpuMonitoring(cdk8s.Chart(app, "team-a"), "Monitoring")
    with pytest.raises(KarpenterGpuError) as exc:
        GpuMonitoring(cdk8s.Chart(app, "team-b"), "Monitoring")
    assert exc.value.code == "KG171"
    assert "team-a/Monitoring" in exc.value.allowed and exc.value.path.startswith("team-b/Monitoring")


@pytest.mark.parametrize("ratio", [0, 0.0, -0.1, 1.01, 2, True, "0.9", None])
def test_kg541_bad_ratio(chart, pools, ratio):
    err = error(chart, near_limit_ratio=ratio)
    assert (err.code, err.prop) == ("KG541", "near_limit_ratio")


@pytest.mark.parametrize("ratio", [1, 1.0, 0.5, 0.001])
def test_ratio_bounds_accepted(chart, pools, ratio):
    GpuMonitoring(chart, "Monitoring", near_limit_ratio=ratio)
    assert alerts(chart, "GPUNodePoolNearLimit")[0]["expr"].endswith(f"> {ratio:g}")


@pytest.mark.parametrize("percent", [0, -5, 100.5, False, "20"])
def test_kg541_bad_percent(chart, pools, percent):
    err = error(chart, low_utilization_percent=percent)
    assert (err.code, err.prop) == ("KG541", "low_utilization_percent")


@pytest.mark.parametrize("prop", ["low_utilization_for", "consistent_state_grace"])
@pytest.mark.parametrize("value", ["", "0", "0m", "30", "30 m", "PT30M", "1.5h", "30min", "1m1h", "Never",
                                   Duration.never(), 30, None])
def test_kg542_bad_duration(chart, pools, prop, value):
    err = error(chart, **{prop: value})
    assert (err.code, err.prop) == ("KG542", prop)


@pytest.mark.parametrize("value, rendered", [("45m", "45m"), ("1h30m", "1h30m"), ("2d", "2d"), ("1w", "1w"),
                                             ("90s", "90s"), (Duration.hours(2), "2h")])
def test_prometheus_durations_accepted(chart, pools, value, rendered):
    GpuMonitoring(chart, "Monitoring", consistent_state_grace=value)
    assert alerts(chart, "KarpenterNodeClaimInconsistentState")[0]["for"] == rendered


def test_bad_namespace_and_labels(chart, pools):
    assert (error(chart, namespace="Karpenter").code, error(chart, namespace="Karpenter").prop) == \
        ("KG120", "namespace")
    assert error(chart, dcgm_namespace="gpu_operator").prop == "dcgm_namespace"
    assert error(chart, labels={"release": "not valid!"}).code == "KG121"
    assert error(chart, labels={"-bad": "x"}).code == "KG121"
    assert error(chart, dcgm_service_monitor="yes").code == "KG100"


def test_same_pool_name_in_two_clusters_each_with_its_own_limit():
    app = cdk8s.Testing.app()
    charts = []
    for env, limit in (("dev", 4), ("prod", 32)):
        chart = cdk8s.Chart(Cluster(app, env), "platform")
        nc = GpuNodeClass(chart, "Class", name="gpu", ami="al2023@v20251103", role="R", cluster_name=env)
        GpuInferencePool(chart, "Inference", node_class=nc, name="gpu-inference", gpu_limit=limit)
        GpuMonitoring(chart, "Monitoring")
        charts.append(chart)
    for chart, limit in zip(charts, (4, 32)):
        (near,) = alerts(chart, "GPUNodePoolNearLimit")
        assert near["expr"].endswith(f"/ {limit} > 0.9")


def test_same_pool_name_twice_in_one_cluster_is_a_duplicate():
    app = cdk8s.Testing.app()
    for env, limit in (("dev", 4), ("prod", 32)):
        chart = cdk8s.Chart(app, env)
        nc = GpuNodeClass(chart, "Class", name=f"gpu-{env}", ami="al2023@v20251103", role="R", cluster_name=env)
        if env == "dev":
            GpuInferencePool(chart, "Inference", node_class=nc, name="gpu-inference", gpu_limit=limit)
            continue
        with pytest.raises(KarpenterGpuError) as exc:
            GpuInferencePool(chart, "Inference", node_class=nc, name="gpu-inference", gpu_limit=limit)
        assert exc.value.code == "KG171"
        assert "dev/Inference/Resource" in exc.value.allowed and exc.value.path == "prod/Inference/Resource"


def test_error_messages_are_complete(chart, pools):
    err = error(chart, low_utilization_for="PT30M")
    assert re.search(r"\[KG542\] test/Monitoring: low_utilization_for='PT30M' is not allowed: .*Fix: ", str(err))


# -- hybrid node groups ---------------------------------------------------------------------------


def hybrid(chart, id="Dc1", name="dc1-a100", **props):
    return HybridGpuNodeGroup(chart, id, **{"name": name, "gpu_name": "a100", "gpus_per_node": 8, "nodes": 4,
                                            "location": "seoul-dc1", **props})


def test_hybrid_alerts_use_the_fixed_gpu_count(chart, pools):
    hybrid(chart)
    GpuMonitoring(chart, "Monitoring", near_limit_ratio=0.8)
    (near,) = alerts(chart, "HybridGPUNodeGroupNearCapacity")
    assert near["expr"] == 'count(DCGM_FI_DEV_GPU_UTIL{hybrid_group="dc1-a100", exported_pod!=""}) / 32 > 0.8'
    assert near["labels"] == {"severity": "warning", "hybrid_group": "dc1-a100"}
    (missing,) = alerts(chart, "HybridGPUsMissing")
    assert missing["expr"] == '(count(DCGM_FI_DEV_GPU_UTIL{hybrid_group="dc1-a100"}) or vector(0)) < 32'
    assert missing["for"] == "15m"
    assert len(alerts(chart, "GPUNodePoolNearLimit")) == 2  # the pools keep their limit-based alert


def test_hybrid_groups_alone_are_enough_to_monitor(chart):
    hybrid(chart)
    monitoring = GpuMonitoring(chart, "Monitoring")
    finalize(chart.node.root)
    assert monitoring.pools == ()
    assert [r["alert"] for r in rules(chart)][:2] == ["HybridGPUNodeGroupNearCapacity", "HybridGPUsMissing"]


def test_hybrid_groups_bring_the_dcgm_monitor_with_location_labels(chart, pools, crds):
    monitoring = GpuMonitoring(chart, "Monitoring")
    assert monitoring.dcgm_service_monitor is None
    hybrid(chart)  # created afterwards: read at synth
    finalize(chart.node.root)
    sm = next(m for m in manifests(chart) if m["metadata"]["name"] == "dcgm-exporter")
    assert sm["spec"]["attachMetadata"] == {"node": True}
    relabel = sm["spec"]["endpoints"][0]["relabelings"]
    assert [(r["sourceLabels"], r["targetLabel"]) for r in relabel] == [
        (["__meta_kubernetes_node_label_topology_kubernetes_io_region"], "location"),
        (["__meta_kubernetes_node_label_karpenter_gpu_io_location"], "location"),
        (["__meta_kubernetes_node_label_karpenter_gpu_io_hybrid_group"], "hybrid_group"),
        (["__meta_kubernetes_node_label_eks_amazonaws_com_compute_type"], "compute_type")]
    assert all(r["regex"] == "(.+)" for r in relabel)  # an absent label keeps what an earlier rule set
    assert check(sm, crds) == []  # the prometheus-operator CRD accepts it


def test_dcgm_relabelings_label_a_hybrid_series_with_its_site_and_a_cloud_series_with_its_region():
    """Prometheus' ``replace`` relabeling, applied in order: a rule whose regex does not match changes nothing."""
    def relabel(meta: dict[str, str]) -> dict[str, str]:
        labels = dict(meta)
        for rule in DCGM_RELABELINGS:
            value = ";".join(labels.get(s, "") for s in rule["sourceLabels"])
            match = re.fullmatch(rule["regex"], value)
            if match:
                labels[rule["targetLabel"]] = match.expand(rule["replacement"].replace("$", "\\"))
        return {k: v for k, v in labels.items() if not k.startswith("__")}
    hybrid_node = {"__meta_kubernetes_node_label_karpenter_gpu_io_location": "seoul-dc1",
                   "__meta_kubernetes_node_label_karpenter_gpu_io_hybrid_group": "dc1-a100",
                   "__meta_kubernetes_node_label_eks_amazonaws_com_compute_type": "hybrid"}
    cloud_node = {"__meta_kubernetes_node_label_topology_kubernetes_io_region": "us-east-1"}
    assert relabel(hybrid_node) == {"location": "seoul-dc1", "hybrid_group": "dc1-a100", "compute_type": "hybrid"}
    assert relabel(cloud_node) == {"location": "us-east-1"}


def test_neuron_pool_gets_a_near_limit_alert_on_its_neuron_limit(chart, node_class, pools):
    from karpenter_gpu import NeuronInferencePool

    NeuronInferencePool(chart, "Inferentia", node_class=node_class, name="neuron-inference", neuron_limit=32)
    GpuMonitoring(chart, "Monitoring")
    (near,) = alerts(chart, "NeuronNodePoolNearLimit")
    assert near["expr"] == ('max by (nodepool) (karpenter_nodepools_usage{nodepool="neuron-inference", '
                            'resource_type="aws.amazon.com/neuron"}) / 32 > 0.9')
    assert "neuron_limit" in near["annotations"]["description"]
    assert [r["labels"]["nodepool"] for r in alerts(chart, "GPUNodePoolNearLimit")] == ["gpu-inference",
                                                                                        "gpu-training"]
