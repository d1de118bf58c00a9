"""The cluster boundary: uniqueness per cluster, derivation from the final tree, a three-team platform."""

from __future__ import annotations

import itertools
from pathlib import Path

import cdk8s
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from karpenter_gpu import (CapacityType, Duration, GpuInferencePool, GpuInferencePoolProps, GpuMonitoring,
                           GpuNodeClass, GpuOperatorValues, GpuPlatform, GpuTrainingPool, GpuWorkload,
                           KarpenterControllerValues, KarpenterControllerValuesProps, KarpenterGpuError,
                           NodeClassConfig, NodeOverlayDiscourage, NodeOverlayDiscourageProps, PlatformConfig,
                           PriceAdjustment, SpotTier, StaticCapacityPool, Taint, TieredSpotPools, pod_placement)
from karpenter_gpu.check.validate import validate_dir
from karpenter_gpu.cluster import Cluster, cluster_of, finalize, members_of
from karpenter_gpu.pools._node_pool import NodePoolConstruct
from karpenter_gpu.k8s.yaml_writer import dump
from tests.conftest import find_crds_dir, load

AMI = "al2023@v20251103"
TEAMS = ("team-a", "team-b", "team-c")


def write_cluster(charts: list[cdk8s.Chart], out: Path) -> dict[str, str]:
    """One file per object (as `cdk8s synth` writes dist/) plus helm/ values; returns {file: text}."""
    files: dict[str, str] = {}
    for chart in charts:
        for m in cdk8s.Testing.synth(chart):
            name = f"{m['kind']}.{m['metadata']['name']}.k8s.yaml"
            assert name not in files, f"{name} written twice"
            files[name] = dump(m, sort_keys=False)
    for values in [c for chart in charts[:1] for c in chart.node.find_all() if hasattr(c, "to_yaml")]:
        files[f"helm/{values.file_name}"] = values.to_yaml()
    out.mkdir(parents=True, exist_ok=True)
    (out / "helm").mkdir(exist_ok=True)
    for name, text in files.items():
        (out / name).write_text(text)
    return files


# -- hand-composed: one Cluster, a platform chart and one chart per team, any order -------------------

def team_steps(cluster: Cluster, classes: dict) -> dict:
    """Construction steps of one cluster; each may run in any order (the node classes come first)."""
    platform = cluster.node.find_child("platform")
    teams: dict = {}

    def chart(team: str) -> cdk8s.Chart:  # created by the team's step: the tree order follows the steps
        if team not in teams:
            teams[team] = cdk8s.Chart(cluster, team)
        return teams[team]

    def team_a():
        warm = StaticCapacityPool(chart("team-a"), "Warm", node_class=classes["inference"], name="team-a-warm",
                                  replicas=1, instance_types=("g5.xlarge",),
                                  taints=(Taint.gpu(), Taint("team", "a")))
        serve = GpuInferencePool(chart("team-a"), "Serve", node_class=classes["inference"], name="team-a-serve",
                                 gpu_limit=8, taints=(Taint.gpu(), Taint("team", "a")))
        GpuWorkload(chart("team-a"), "Serve-smoke", pools=(warm, serve), name="team-a-serve")

    def team_b():
        ladder = TieredSpotPools(chart("team-b"), "Batch", node_class=classes["inference"], name="team-b-batch",
                                 taints=(Taint.gpu(), Taint("team", "b")),
                                 tiers=(SpotTier(suffix="a10g", gpu_names=("a10g",), gpu_limit=8),
                                        SpotTier(suffix="l4", gpu_names=("l4",), gpu_limit=8)),
                                 on_demand_floor=SpotTier(suffix="floor", gpu_names=("a10g", "l4"), gpu_limit=4,
                                                          capacity_types=(CapacityType.ON_DEMAND,)))
        GpuWorkload(chart("team-b"), "Batch-smoke", pools=(ladder,), name="team-b-batch")

    def team_c():
        train = GpuTrainingPool(chart("team-c"), "Train", node_class=classes["training"], name="team-c-train",
                                gpu_limit=16, gpu_names=("a100", "h100"), expire_after=Duration.never(),
                                capacity_types=(CapacityType.ON_DEMAND,),
                                taints=(Taint.gpu(), Taint("team", "c")))
        GpuWorkload(chart("team-c"), "Train-smoke", pool=train, name="team-c-train")

    def overlay():
        NodeOverlayDiscourage(platform, "Discourage", name="discourage-multi-gpu", weight=10,
                              price_adjustment=PriceAdjustment.percent(30), instance_types=("g5.12xlarge",))

    return {
        "team-a": team_a, "team-b": team_b, "team-c": team_c, "overlay": overlay,
        "operator": lambda: GpuOperatorValues(platform, "GpuOperator"),
        "monitoring": lambda: GpuMonitoring(platform, "Monitoring"),
        "karpenter": lambda: KarpenterControllerValues(platform, "Karpenter", cluster_name="ml",
                                                       interruption_queue="ml"),
    }


STEP_NAMES = ("team-a", "team-b", "team-c", "overlay", "operator", "monitoring", "karpenter")


def build_hand_composed(order: tuple[str, ...], environments=("prod",)) -> tuple[cdk8s.App, dict]:
    app = cdk8s.Testing.app()
    clusters = {}
    for env in environments:
        cluster = Cluster(app, env)
        platform = cdk8s.Chart(cluster, "platform")
        base = dict(ami=AMI, role=f"KarpenterNodeRole-{env}", cluster_name=f"ml-{env}")
        classes = {"inference": GpuNodeClass.inference(platform, "Inference", name="gpu-inference", **base),
                   "training": GpuNodeClass.training(platform, "Training", name="gpu-training", **base)}
        steps = team_steps(cluster, classes)
        for name in order:
            steps[name]()
        clusters[env] = cluster
    return app, clusters


def charts_of(cluster) -> list[cdk8s.Chart]:
    return [c for c in cluster.node.find_all() if isinstance(c, cdk8s.Chart)]


def synth_files(order, tmp: Path) -> dict[str, str]:
    app, clusters = build_hand_composed(tuple(order))
    finalize(app)
    return write_cluster(charts_of(clusters["prod"]), tmp)


@pytest.fixture(scope="module")
def reference_files(tmp_path_factory) -> dict[str, str]:
    return synth_files(STEP_NAMES, tmp_path_factory.mktemp("ref"))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(order=st.permutations(STEP_NAMES))
def test_output_is_byte_identical_in_every_construction_order(order, reference_files, tmp_path_factory):
    """Values, alerts, gates and overlays built before or after the pools: the same bytes."""
    assert synth_files(order, tmp_path_factory.mktemp("perm")) == reference_files


def test_values_built_first_see_every_team_and_pass_strict_validation(tmp_path):
    app, clusters = build_hand_composed(("operator", "monitoring", "karpenter", "overlay", "team-c", "team-b",
                                         "team-a"), environments=("prod", "staging"))
    finalize(app)
    files = write_cluster(charts_of(clusters["prod"]), tmp_path / "prod")
    report = validate_dir(tmp_path / "prod", find_crds_dir())
    assert not report.failed(strict=True), [f.line() for f in report.findings]
    workloads = [load(t) for f, t in files.items() if f.startswith("Deployment.")]
    assert {w["metadata"]["name"] for w in workloads} == {"team-a-serve", "team-b-batch", "team-c-train"}
    operator = load(files["helm/gpu-operator.values.yaml"])
    tolerated = {(t["key"], t.get("value")) for t in operator["daemonsets"]["tolerations"]}
    assert {("team", "a"), ("team", "b"), ("team", "c")} <= tolerated
    rules = load(files["PrometheusRule.karpenter-gpu-alerts.k8s.yaml"])["spec"]["groups"][0]["rules"]
    near = [r["labels"]["nodepool"] for r in rules if r["alert"] == "GPUNodePoolNearLimit"]
    assert near == ["team-a-serve", "team-b-batch-a10g", "team-b-batch-floor", "team-b-batch-l4", "team-c-train"]
    gates = load(files["helm/karpenter.values.yaml"])["settings"]["featureGates"]
    assert gates["staticCapacity"] is True and gates["nodeOverlay"] is True


# -- GpuPlatform: prod and staging in one App, one chart per team inside each -----------------------

def platform_config(env: str) -> PlatformConfig:
    return PlatformConfig(
        environment=env,
        node_class=NodeClassConfig(ami=AMI, role=f"KarpenterNodeRole-{env}", cluster_name=f"ml-{env}"),
        karpenter=KarpenterControllerValuesProps(cluster_name=f"ml-{env}", interruption_queue=f"ml-{env}"),
        inference=(GpuInferencePoolProps(name="gpu-inference", gpu_limit=8),),
        # The same overlay weight in prod and staging: weights are unique per cluster, not per App.
        discourage_overlays=(NodeOverlayDiscourageProps(name="discourage-multi-gpu", weight=10,
                                                        price_adjustment=PriceAdjustment.percent(30),
                                                        instance_types=("g5.12xlarge",)),),
    )


def add_team(platform: GpuPlatform, team: str) -> None:
    chart = cdk8s.Chart(platform, team)
    taints = (Taint.gpu(), Taint("team", team.rsplit("-", 1)[-1]))
    if team == "team-c":
        GpuTrainingPool(chart, "Train", node_class=platform.inference_class, name=f"{team}-train", gpu_limit=16,
                        gpu_names=("a100", "h100"), expire_after=Duration.never(), taints=taints,
                        capacity_types=(CapacityType.ON_DEMAND,))
        return
    StaticCapacityPool(chart, "Warm", node_class=platform.inference_class, name=f"{team}-warm", replicas=1,
                       instance_types=("g5.xlarge",), taints=taints)
    GpuInferencePool(chart, "Serve", node_class=platform.inference_class, name=f"{team}-serve", gpu_limit=8,
                     taints=taints)


@pytest.mark.parametrize("team_order", list(itertools.permutations(TEAMS))[::2], ids="-".join)
def test_three_team_platform_prod_and_staging_in_one_app(team_order, tmp_path):
    app = cdk8s.Testing.app()
    platforms = {env: GpuPlatform(app, props=platform_config(env)) for env in ("prod", "staging")}
    for team in team_order:
        for platform in platforms.values():
            add_team(platform, team)
    finalize(app)
    crds = find_crds_dir()
    for env, platform in platforms.items():
        out = tmp_path / env
        files = write_cluster(charts_of(platform), out)
        report = validate_dir(out, crds)
        assert not report.failed(strict=True), [f.line() for f in report.findings]
        pools = {m["metadata"]["name"] for m in map(load, files.values()) if m.get("kind") == "NodePool"}
        assert pools == {"gpu-inference", "team-a-warm-static", "team-a-serve", "team-b-warm-static",
                         "team-b-serve", "team-c-train"}
        smoke = {f for f in files if f.startswith("Deployment.")}
        assert smoke == {f"Deployment.{p}-smoke.k8s.yaml" for p in pools}
        operator = load(files["helm/gpu-operator.values.yaml"])
        assert {("team", t) for t in "abc"} <= {(t["key"], t.get("value"))
                                                for t in operator["daemonsets"]["tolerations"]}
        rules = load(files["PrometheusRule.karpenter-gpu-alerts.k8s.yaml"])["spec"]["groups"][0]["rules"]
        assert {r["labels"]["nodepool"] for r in rules if r["alert"] == "GPUNodePoolNearLimit"} == {
            "gpu-inference", "team-a-serve", "team-b-serve", "team-c-train"}
        gates = load(files["helm/karpenter.values.yaml"])["settings"]["featureGates"]
        assert gates["staticCapacity"] is True and gates["nodeOverlay"] is True
        summary = platform.feature_gate_summary()
        assert "team-a/Warm" in summary and "team-b/Warm" in summary


# -- uniqueness per cluster ------------------------------------------------------------------------

def test_same_overlay_weight_in_two_clusters_of_one_app():
    """KG183 was app-wide: prod and staging sharing weight 10 failed."""
    app = cdk8s.Testing.app()
    for env in ("prod", "staging"):
        NodeOverlayDiscourage(cdk8s.Chart(Cluster(app, env), "platform"), "Discourage", name="discourage",
                              weight=10, price_adjustment=PriceAdjustment.percent(30), instance_types=("g5.12xlarge",))
    finalize(app)


def test_same_overlay_weight_in_one_cluster_fails():
    app = cdk8s.Testing.app()
    NodeOverlayDiscourage(cdk8s.Chart(app, "a"), "D", name="d1", weight=10,
                          price_adjustment=PriceAdjustment.percent(30), instance_types=("g5.12xlarge",))
    with pytest.raises(KarpenterGpuError) as exc:
        NodeOverlayDiscourage(cdk8s.Chart(app, "b"), "D", name="d2", weight=10,
                              price_adjustment=PriceAdjustment.percent(30), instance_types=("g5.12xlarge",))
    assert exc.value.code == "KG183" and "a/D" in exc.value.allowed


def test_two_pools_of_one_name_in_one_chart_fail_naming_both_paths(chart):
    """Used to synthesize one file: the last pool silently won."""
    nc = GpuNodeClass(chart, "Class", name="gpu", ami=AMI, role="R", cluster_name="c")
    GpuInferencePool(chart, "A", node_class=nc, name="gpu-inference", gpu_limit=4)
    with pytest.raises(KarpenterGpuError) as exc:
        GpuInferencePool(chart, "B", node_class=nc, name="gpu-inference", gpu_limit=8)
    assert exc.value.code == "KG171"
    assert "test/A/Resource" in exc.value.allowed and exc.value.path == "test/B/Resource"


def test_duplicate_written_by_hand_is_caught_at_synth(chart):
    nc = GpuNodeClass(chart, "Class", name="gpu", ami=AMI, role="R", cluster_name="c")
    GpuInferencePool(chart, "A", node_class=nc, name="gpu-inference", gpu_limit=4)
    cdk8s.ApiObject(chart, "Raw", api_version="karpenter.sh/v1", kind="NodePool",
                    metadata=cdk8s.ApiObjectMetadata(name="gpu-inference"))
    with pytest.raises(KarpenterGpuError) as exc:
        finalize(chart)
    assert exc.value.code == "KG171" and "test/A/Resource" in exc.value.allowed and exc.value.path == "test/Raw"
    with pytest.raises(RuntimeError, match=r"\[KG171\]"):  # inside app.synth(): the same coded line
        cdk8s.Testing.synth(chart)


def test_a_cluster_is_read_again_once_its_tree_changes(chart):
    """members() reuses a cluster's list while the tree is unchanged; a pool added after a read is in the next
    one, and an object a user adds with plain cdk8s after a read is seen by the synth-time pass."""
    nc = GpuNodeClass(chart, "Class", name="gpu", ami=AMI, role="R", cluster_name="c")
    GpuInferencePool(chart, "A", node_class=nc, name="gpu-a", gpu_limit=4)
    assert [p.name for p in members_of(chart, NodePoolConstruct)] == ["gpu-a"]
    GpuInferencePool(chart, "B", node_class=nc, name="gpu-b", gpu_limit=4)
    assert [p.name for p in members_of(chart, NodePoolConstruct)] == ["gpu-a", "gpu-b"]
    cdk8s.ApiObject(chart, "Raw", api_version="karpenter.sh/v1", kind="NodePool",
                    metadata=cdk8s.ApiObjectMetadata(name="gpu-b"))  # no construct of ours: nothing is told
    with pytest.raises(KarpenterGpuError) as exc:
        finalize(chart)
    assert exc.value.code == "KG171" and exc.value.path == "test/Raw"


def test_two_helm_values_files_of_one_name_in_a_cluster(chart):
    KarpenterControllerValues(chart, "K1", cluster_name="c")
    with pytest.raises(KarpenterGpuError) as exc:
        KarpenterControllerValues(chart, "K2", cluster_name="c")
    assert exc.value.code == "KG171" and exc.value.prop == "file_name"


def test_cluster_is_the_outermost_boundary():
    app = cdk8s.Testing.app()
    outer = Cluster(app, "prod")
    inner = cdk8s.Chart(Cluster(outer, "nested"), "c")
    assert cluster_of(inner).node.path == "prod"
    assert cluster_of(cdk8s.Chart(app, "loose")).node.path == ""


def test_pool_outside_a_chart_is_kg197():
    app = cdk8s.Testing.app()
    nc_chart = cdk8s.Chart(app, "c")
    nc = GpuNodeClass(nc_chart, "Class", name="gpu", ami=AMI, role="R", cluster_name="c")
    with pytest.raises(KarpenterGpuError) as exc:
        GpuInferencePool(Cluster(app, "x"), "Pool", node_class=nc, name="gpu-inference", gpu_limit=4)
    assert exc.value.code == "KG197"


def test_placement_across_a_static_pool_and_a_ladder_admits_exactly_their_union(chart):
    nc = GpuNodeClass(chart, "Class", name="gpu", ami=AMI, role="R", cluster_name="c")
    warm = StaticCapacityPool(chart, "Warm", node_class=nc, name="warm", replicas=1, zones=("us-east-1a", "us-east-1b"))
    ladder = TieredSpotPools(chart, "Batch", node_class=nc, name="batch", taints=(Taint.gpu(), Taint("team", "b")),
                             tiers=(SpotTier(suffix="a10g", gpu_names=("a10g",), gpu_limit=8),
                                    SpotTier(suffix="l4", gpu_names=("l4",), gpu_limit=8)))
    placement = pod_placement(warm, ladder, prefer_reserved=True)
    assert "nodeSelector" not in placement
    (term,) = placement["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"]
    assert term["matchExpressions"] == [{"key": "karpenter.sh/nodepool", "operator": "In", "values": [
        "warm-static-us-east-1a", "warm-static-us-east-1b", "batch-a10g", "batch-l4"]}]
    assert placement["affinity"]["nodeAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"][0][
        "preference"]["matchExpressions"][0]["values"] == ["reserved"]
    assert placement["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"},
        {"key": "team", "operator": "Equal", "value": "b", "effect": "NoSchedule"}]


def test_two_clusters_writing_one_file_per_resource_into_one_folder_collide(tmp_path):
    app = cdk8s.App(outdir=str(tmp_path), yaml_output_type=cdk8s.YamlOutputType.FILE_PER_RESOURCE)
    for env in ("prod", "staging"):
        chart = cdk8s.Chart(Cluster(app, env), "platform")
        GpuNodeClass(chart, "Class", name="gpu", ami=AMI, role="R", cluster_name=env)
    with pytest.raises(KarpenterGpuError) as exc:
        finalize(app)
    assert exc.value.code == "KG171" and "FOLDER_PER_CHART_FILE_PER_RESOURCE" in exc.value.fix
    with pytest.raises(RuntimeError, match=r"\[KG171\]"):
        app.synth()
    folders = cdk8s.App(outdir=str(tmp_path / "ok"),
                        yaml_output_type=cdk8s.YamlOutputType.FOLDER_PER_CHART_FILE_PER_RESOURCE)
    for env in ("prod", "staging"):
        chart = cdk8s.Chart(Cluster(folders, env), "platform")
        GpuNodeClass(chart, "Class", name="gpu", ami=AMI, role="R", cluster_name=env)
    folders.synth()
    assert len(list((tmp_path / "ok").rglob("EC2NodeClass.gpu.k8s.yaml"))) == 2


def test_synth_pipeline_writes_each_cluster_of_one_app_to_its_own_folder(tmp_path):
    """Two clusters of one App may share object names (one EC2NodeClass "gpu" each): karpenter_gpu.synth writes
    each to a folder named after the cluster, as it writes each PlatformConfig to its environment's."""
    from karpenter_gpu import synth

    app = cdk8s.App(outdir="both")
    for env in ("prod", "staging"):
        chart = cdk8s.Chart(Cluster(app, env), "platform")
        GpuNodeClass(chart, "Class", name="gpu", ami=AMI, role="R", cluster_name=env)
    synth([app], tmp_path / "dist")
    for env in ("prod", "staging"):
        assert env in (tmp_path / "dist" / env / "EC2NodeClass.gpu.k8s.yaml").read_text()
    assert not (tmp_path / "dist" / "both").exists()


def test_synth_pipeline_refuses_a_cluster_folder_another_item_writes(tmp_path):
    from karpenter_gpu import synth
    from stacks import prod

    app = cdk8s.App(outdir="both")
    for env in ("prod", "staging"):
        chart = cdk8s.Chart(Cluster(app, env), "platform")
        GpuNodeClass(chart, "Class", name="gpu", ami=AMI, role="R", cluster_name=env)
    with pytest.raises(KarpenterGpuError) as exc:
        synth([prod.CONFIG, app], tmp_path / "dist")
    assert exc.value.code == "KG802" and exc.value.value == "prod"
    assert not (tmp_path / "dist").exists()
