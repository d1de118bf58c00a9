"""GpuPlatform and this repository's dev/staging/prod stacks."""

from __future__ import annotations

import copy

import cdk8s
import pytest

from karpenter_gpu import (CapacityType, GpuInferencePool, GpuInferencePoolProps, GpuPlatform, HybridGpuNodeGroupProps, KarpenterGpuError,
                           PlatformConfig, PlatformNodeClass, Taint, finalize)
from karpenter_gpu.apiserver.conformance import validate_manifest
from karpenter_gpu.apiserver.findings import Severity
from stacks import ENVIRONMENTS, dev, prod, staging
from tests.conftest import helm_values, karpenter_settings


#: The manifests of each config, synthesized once in this module: the tests only read them (each gets a copy).
_SYNTHESIZED: dict[int, tuple[PlatformConfig, list[dict]]] = {}


def synth(config: PlatformConfig) -> list[dict]:
    """What GpuPlatform synthesizes for ``config``."""
    if id(config) not in _SYNTHESIZED:  # the config is kept with its manifests: its id is not reused
        _SYNTHESIZED[id(config)] = (config, cdk8s.Testing.synth(GpuPlatform(cdk8s.Testing.app(), props=config)))
    return copy.deepcopy(_SYNTHESIZED[id(config)][1])


@pytest.mark.parametrize("config", ENVIRONMENTS, ids=lambda c: c.environment)
def test_environment_snapshot(config, snapshot):
    assert synth(config) == snapshot


@pytest.mark.parametrize("config", ENVIRONMENTS, ids=lambda c: c.environment)
def test_environment_matches_crd_schemas(config, crds):
    for manifest in synth(config):  # Deployments are not CRD kinds: only errors count
        errors = [f.line() for f in validate_manifest(manifest, crds) if f.severity == Severity.ERROR]
        assert errors == [], manifest["metadata"]["name"]


def by_name(manifests: list[dict], kind: str) -> dict:
    return {m["metadata"]["name"]: m for m in manifests if m["kind"] == kind}


def test_environments_differ_where_they_should():
    limits = {c.environment: {n: p["spec"]["limits"].get("nvidia.com/gpu", p["spec"]["limits"].get("aws.amazon.com/neuron"))
                              for n, p in by_name(synth(c), "NodePool").items()
                              if "replicas" not in p["spec"]}  # static pools are bounded by limits.nodes
              for c in ENVIRONMENTS}
    assert limits == {"dev": {"gpu-inference": "4"},
                      "staging": {"gpu-inference": "16", "gpu-training": "8", "gpu-batch-a10g-spot": "20",
                                  "gpu-batch-t4-spot": "20", "gpu-batch-a10g-on-demand": "10",
                                  "neuron-inference": "16"},  # aws.amazon.com/neuron
                      "prod": {"gpu-inference": "64", "gpu-training": "32", "gpu-training-reserved": "32",
                               "search-inference": "16", "research-training": "16"},
                      "fleet": {"auto-inference": "16", "gpu-mig": "16"}}
    amis = {c.environment: {m["spec"]["amiSelectorTerms"][0]["alias"] for m in by_name(synth(c), "EC2NodeClass").values()}
            for c in ENVIRONMENTS}
    assert amis["staging"] == {"bottlerocket@v1.50.0"} and amis["prod"] == {"al2023@v20251103"}
    assert amis["fleet"] == {"al2023@v20251103"}  # the MIG pool's; the Auto Mode pool has no AMI to choose


def test_pools_reference_their_own_node_class():
    out = synth(prod.CONFIG)
    classes = by_name(out, "EC2NodeClass")
    for pool in by_name(out, "NodePool").values():
        assert pool["spec"]["template"]["spec"]["nodeClassRef"]["name"] in classes


def test_prod_training_hours_in_seoul_without_dst():
    training = by_name(synth(prod.CONFIG), "NodePool")["gpu-training"]
    assert {"nodes": "0", "schedule": "0 0 * * MON-FRI", "duration": "10h"} in training["spec"]["disruption"]["budgets"]
    assert training["spec"]["template"]["spec"]["expireAfter"] == "Never"


def test_staging_window_in_new_york_is_widened_for_dst():
    # 08:00-18:00 local: 12:00 UTC under EDT (UTC-4) to 23:00 UTC under EST (UTC-5) -> 11h from 12:00.
    inference = by_name(synth(staging.CONFIG), "NodePool")["gpu-inference"]
    assert {"nodes": "0", "schedule": "0 12 * * MON-FRI", "duration": "11h"} in inference["spec"]["disruption"]["budgets"]


def config_with(**changes) -> dict:
    data = prod.CONFIG.model_dump(exclude_unset=True)
    data = {k: getattr(prod.CONFIG, k) for k in data}
    for dotted, value in changes.items():
        head, _, tail = dotted.partition("__")
        if tail:
            model = data[head][0] if isinstance(data[head], tuple) else data[head]  # pool sections: the first
            section = {k: getattr(model, k) for k in type(model).model_fields if k in model.model_fields_set}
            section[tail] = value
            data[head] = (section, *data[head][1:]) if isinstance(data[head], tuple) else section
        else:
            data[head] = value
    return data


@pytest.mark.parametrize("change, code, prop", [
    ({"inference__gpu_limit": 0}, "KG130", "inference[0].gpu_limit"),
    ({"training__weight": 500}, "KG131", "training[0].weight"),
    ({"environment": "Prod"}, "KG120", "environment"),
    ({"node_class__ami": "al2023@latest"}, "KG140", "node_class.ami"),
    ({"training__name": "gpu-inference"}, "KG171", "name"),
])


def test_fails_when_config_is_bad(change, code, prop):
    with pytest.raises(KarpenterGpuError) as exc:
        GpuPlatform(cdk8s.Testing.app(), **config_with(**change))
    assert exc.value.code == code
    assert exc.value.prop.startswith(prop)


def test_fails_when_a_pool_prop_is_bad_naming_the_environment_the_kind_and_the_pool():
    data = config_with()
    second = data["inference"][1]
    data["inference"] = (data["inference"][0], {**{k: getattr(second, k) for k in second.model_fields_set},
                                                "weight": 300})
    for build in (lambda: GpuPlatform(cdk8s.Testing.app(), **data), lambda: PlatformConfig(**data)):
        with pytest.raises(KarpenterGpuError) as exc:
            build()
        assert exc.value.code == "KG131" and exc.value.prop == "inference[1].weight"
        assert str(exc.value).startswith(
            "[KG131] environment 'prod', GpuInferencePool 'search-inference': inference[1].weight=300 ")


def test_fails_when_pool_props_built_alone_are_bad_naming_the_kind_and_the_pool():
    with pytest.raises(KarpenterGpuError) as exc:
        GpuInferencePoolProps(name="search-inference", gpu_limit=4, weight=300)
    assert str(exc.value).startswith("[KG131] GpuInferencePoolProps 'search-inference': weight=300 ")


def test_fails_when_a_pool_is_refused_at_construction_naming_the_environment_and_the_pool():
    # The reserved pool moved onto a node class that selects no reservation: refused by the pool's constructor.
    with pytest.raises(KarpenterGpuError) as exc:
        GpuPlatform(cdk8s.Testing.app(), **config_with(pool_node_classes={"gpu-training-reserved": "gpu-inference"}))
    assert exc.value.code == "KG191"
    assert exc.value.path == "environment 'prod', ReservedCapacityPool 'gpu-training-reserved' (prod/Reserved)"


def test_staging_spot_ladder_weights_strictly_ordered():
    pools = by_name(synth(staging.CONFIG), "NodePool")
    ladder = [pools[f"gpu-batch-{t}"] for t in ("a10g-spot", "t4-spot", "a10g-on-demand")]
    weights = [p["spec"]["weight"] for p in ladder]
    assert weights == sorted(set(weights), reverse=True) and all(1 <= w <= 100 for w in weights)
    assert len({str(p["spec"]["template"]["spec"]["taints"]) + str(p["spec"]["template"]["metadata"]) for p in ladder}) == 1


def test_prod_static_pools_have_no_weight_and_only_node_limits():
    static = [p for p in by_name(synth(prod.CONFIG), "NodePool").values() if "replicas" in p["spec"]]
    assert [p["metadata"]["name"] for p in static] == ["gpu-warm-static-ap-northeast-2a", "gpu-warm-static-ap-northeast-2c"]
    for pool in static:
        assert "weight" not in pool["spec"] and pool["spec"]["limits"] == {"nodes": "2"}
        assert "consolidationPolicy" not in pool["spec"]["disruption"]


def test_prod_reserved_pool_and_its_node_class_select_reservations():
    out = synth(prod.CONFIG)
    pool = by_name(out, "NodePool")["gpu-training-reserved"]
    reqs = {r["key"]: (r["operator"], r.get("values")) for r in pool["spec"]["template"]["spec"]["requirements"]}
    assert reqs["karpenter.sh/capacity-type"] == ("In", ["reserved", "on-demand"])
    assert reqs["karpenter.k8s.aws/capacity-reservation-type"] == ("NotIn", ["capacity-block"])
    node_class = by_name(out, "EC2NodeClass")[pool["spec"]["template"]["spec"]["nodeClassRef"]["name"]]
    assert node_class["spec"]["capacityReservationSelectorTerms"] == [{"tags": {"purpose": "ml-training"}}]


def test_overlays_never_set_price_and_price_adjustment_together():
    overlays = [m for c in ENVIRONMENTS for m in synth(c) if m["kind"] == "NodeOverlay"]
    assert overlays, "an environment should use an overlay"
    for overlay in overlays:
        assert not {"price", "priceAdjustment"} <= set(overlay["spec"])


def test_fails_when_reserved_pool_has_no_reservations():
    data = config_with(reservations=())
    with pytest.raises(KarpenterGpuError) as exc:
        GpuPlatform(cdk8s.Testing.app(), **data)
    assert exc.value.code == "KG191"


def test_dev_time_slicing_overlays_match_the_device_plugin_replicas():
    platform = GpuPlatform(cdk8s.Testing.app(), props=dev.CONFIG)
    overlays = {m["metadata"]["name"]: m["spec"] for m in cdk8s.Testing.synth(platform) if m["kind"] == "NodeOverlay"}
    for count in (1, 2, 4, 8):  # GPUs per instance × 4 time-slicing replicas
        assert overlays[f"gpu-time-slicing-{count}gpu"]["capacity"] == {"nvidia.com/gpu": str(count * 4)}
    assert "replicas: 4" in platform.gpu_operator.values["devicePlugin"]["config"]["data"]["any"]
    assert platform.karpenter.feature_gates["nodeOverlay"] is True


def test_operator_tolerates_every_pool_taint_and_smoke_workloads_land_on_their_pools():
    from karpenter_gpu.check.rules import check_rules
    platform = GpuPlatform(cdk8s.Testing.app(), props=prod.CONFIG)
    tolerated = {(t["key"], t.get("value"), t["effect"]) for t in platform.gpu_operator.values["daemonsets"]["tolerations"]}
    for pool in platform.pools:
        for taint in pool.taints:
            assert any(k == taint.key and e == str(taint.effect) for k, _, e in tolerated), taint
    manifests = cdk8s.Testing.synth(platform)
    smoke = {m["metadata"]["name"] for m in manifests if m["kind"] == "Deployment"}
    assert smoke == {f"{p.name}-smoke" for p in platform.pools}
    assert not [f for f in check_rules([("", m) for m in manifests]) if f.code == "KG417"]


def test_one_near_limit_alert_per_dynamic_pool_with_its_own_limit():
    platform = GpuPlatform(cdk8s.Testing.app(), props=prod.CONFIG)
    rules = platform.monitoring.rule_group["rules"]
    near = {r["labels"]["nodepool"]: r["expr"] for r in rules if r["alert"] == "GPUNodePoolNearLimit"}
    assert set(near) == {"gpu-inference", "gpu-training", "gpu-training-reserved", "search-inference",
                         "research-training"}  # static pools have no GPU limit
    assert "/ 64 >" in near["gpu-inference"] and "/ 32 >" in near["gpu-training"]


def test_fails_when_spot_pools_have_no_interruption_queue():
    data = {k: getattr(staging.CONFIG, k) for k in staging.CONFIG.model_fields_set}
    data["karpenter"] = {"cluster_name": "ml-staging"}
    with pytest.raises(KarpenterGpuError) as exc:
        GpuPlatform(cdk8s.Testing.app(), **data)
    assert exc.value.code == "KG523" and "gpu-batch-a10g-spot" in exc.value.allowed


# -- issue 12: many pools per kind, pools added later -------------------------------------------------

def test_pool_added_after_construction_gets_tolerations_alerts_and_a_smoke_workload():
    """It used to be missing from the GPU Operator tolerations, the alerts and the smoke workloads."""
    platform = GpuPlatform(cdk8s.Testing.app(), props=dev.CONFIG)
    team = cdk8s.Chart(platform, "team-x")
    GpuInferencePool(team, "Pool", node_class=platform.inference_class, name="team-x-inference", gpu_limit=4,
                     capacity_types=(CapacityType.SPOT,), taints=(Taint.gpu(), Taint("team", "x")))
    finalize(platform)
    assert {"key": "team", "operator": "Equal", "value": "x", "effect": "NoSchedule"} in \
        platform.gpu_operator.values["daemonsets"]["tolerations"]
    assert "team-x-inference" in {r["labels"].get("nodepool") for r in platform.monitoring.rule_group["rules"]}
    assert "team-x-inference-smoke" in {w.name for w in platform.workloads}
    deployments = by_name(cdk8s.Testing.synth(platform), "Deployment")
    assert deployments["team-x-inference-smoke"]["spec"]["template"]["spec"]["nodeSelector"] == {
        "karpenter.sh/nodepool": "team-x-inference"}
    # The time-slicing overlays of dev follow the pool too.
    overlays = by_name(cdk8s.Testing.synth(platform), "NodeOverlay")
    assert all("team-x-inference" in o["spec"]["requirements"][1]["values"] for o in overlays.values())


def test_tuples_of_pools_on_chosen_node_classes():
    data = {k: getattr(dev.CONFIG, k) for k in dev.CONFIG.model_fields_set}
    first = dev.CONFIG.inference[0]
    data["inference"] = (first, first.model_copy(update={"name": "team-b-inference"}))
    data["node_classes"] = (PlatformNodeClass(name="gpu-team-b"),)
    data["pool_node_classes"] = {"team-b-inference": "gpu-team-b"}
    platform = GpuPlatform(cdk8s.Testing.app(), props=data)
    pools = by_name(cdk8s.Testing.synth(platform), "NodePool")
    assert pools["team-b-inference"]["spec"]["template"]["spec"]["nodeClassRef"]["name"] == "gpu-team-b"
    assert pools["gpu-inference"]["spec"]["template"]["spec"]["nodeClassRef"]["name"] == "gpu-inference"
    assert [p.node.path for p in platform.inference] == ["dev/Inference-gpu-inference", "dev/Inference-team-b-inference"]


def test_single_pool_form_still_means_a_tuple_of_one():
    data = {k: getattr(dev.CONFIG, k) for k in dev.CONFIG.model_fields_set}
    data["inference"] = dev.CONFIG.inference[0]
    config = PlatformConfig(**data)
    assert config.inference == dev.CONFIG.inference
    assert GpuPlatform(cdk8s.Testing.app(), props=config).inference[0].node.path == "dev/Inference"


@pytest.mark.parametrize("change, code, says", [
    ({"pool_node_classes": {"gpu-inference": "gpu-trainin"}}, "KG100", "did you mean 'gpu-training'"),
    ({"pool_node_classes": {"gpu-inferense": "gpu-training"}}, "KG100", "did you mean 'gpu-inference'"),
    ({"node_classes": ({"name": "gpu-training"},)}, "KG171", "distinct"),
    ({"inference": ()}, "KG170", "at least one pool"),
    ({"inference": "gpu-inference"}, "KG100", "a tuple of GpuInferencePoolProps"),
])


def test_fails_on_bad_pool_layout(change, code, says):
    data = {k: getattr(dev.CONFIG, k) for k in dev.CONFIG.model_fields_set}
    with pytest.raises(KarpenterGpuError) as exc:
        GpuPlatform(cdk8s.Testing.app(), props={**data, **change})
    assert exc.value.code == code and says in exc.value.allowed


def test_misspelt_prop_in_a_nested_section_names_the_closest_prop():
    data = {k: getattr(dev.CONFIG, k) for k in dev.CONFIG.model_fields_set}
    with pytest.raises(KarpenterGpuError) as exc:
        GpuPlatform(cdk8s.Testing.app(), props={**data, "karpenter": {"cluster_nme": "ml-dev"}})
    assert exc.value.prop == "karpenter.cluster_nme" and "did you mean 'cluster_name'" in exc.value.allowed
    with pytest.raises(KarpenterGpuError) as exc:
        GpuPlatform(cdk8s.Testing.app(), props={**data, "inference": ({"name": "x", "gpu_limt": 4},)})
    assert exc.value.prop == "inference[0].gpu_limt" and "did you mean 'gpu_limit'" in exc.value.allowed


def test_hybrid_groups_get_a_description_a_smoke_workload_and_the_operator_driver():
    group = HybridGpuNodeGroupProps(name="dc1-a100", gpu_name="a100", gpus_per_node=8, nodes=4, location="seoul-dc1",
                                    taints=(Taint.gpu(), Taint("on-premises")))
    platform = GpuPlatform(cdk8s.Testing.app(), **{**config_with(), "hybrid": group})
    docs = cdk8s.Testing.synth(platform)
    assert "hybrid-gpu-dc1-a100" in by_name(docs, "ConfigMap")
    smoke = by_name(docs, "Deployment")["dc1-a100-smoke"]["spec"]["template"]["spec"]
    assert smoke["nodeSelector"] == {"eks.amazonaws.com/compute-type": "hybrid",
                                     "karpenter-gpu.io/hybrid-group": "dc1-a100"}
    assert platform.gpu_operator.values["driver"]["enabled"]
    for pool in by_name(docs, "NodePool").values():
        assert pool["spec"]["template"]["metadata"]["labels"]["nvidia.com/gpu.deploy.driver"] == "false"


def test_a_platform_of_hybrid_groups_only():
    data = {k: v for k, v in config_with().items() if k not in ("inference", "training", "static", "reserved",
                                                                 "tiers", "reservations", "acknowledgements",
                                                                 "pool_node_classes", "node_classes")}
    platform = GpuPlatform(cdk8s.Testing.app(), **data, hybrid=(HybridGpuNodeGroupProps(
        name="dc1", gpu_name="l40s", gpus_per_node=4, nodes=2, location="busan"),))
    docs = cdk8s.Testing.synth(platform)
    assert "NodePool" not in {d["kind"] for d in docs}
    assert [r["alert"] for r in by_name(docs, "PrometheusRule")["karpenter-gpu-alerts"]["spec"]["groups"][0]["rules"]][:2] \
        == ["HybridGPUNodeGroupNearCapacity", "HybridGPUsMissing"]


def test_auto_mode_node_class_serves_the_pools_that_name_it():
    from karpenter_gpu import AutoModeNodeClassProps, GpuInferencePoolProps

    config = dev.CONFIG.model_copy(update={
        "auto_mode_node_class": AutoModeNodeClassProps(name="gpu-auto", role="AmazonEKSAutoNodeRole",
                                                       subnet_ids=("subnet-0a",), security_group_ids=("sg-0a",)),
        "inference": dev.CONFIG.inference + (GpuInferencePoolProps(name="auto-inference", gpu_limit=4,
                                                                   gpu_names=("l4",)),),
        "pool_node_classes": {"auto-inference": "gpu-auto"}})
    out = synth(PlatformConfig(**dict(config)))
    assert list(by_name(out, "NodeClass")) == ["gpu-auto"]
    pools = by_name(out, "NodePool")
    assert pools["auto-inference"]["spec"]["template"]["spec"]["nodeClassRef"] == {
        "group": "eks.amazonaws.com", "kind": "NodeClass", "name": "gpu-auto"}
    assert pools["gpu-inference"]["spec"]["template"]["spec"]["nodeClassRef"]["kind"] == "EC2NodeClass"
    smoke = by_name(out, "Deployment")["auto-inference-smoke"]["spec"]["template"]["spec"]
    assert smoke["nodeSelector"] == {"karpenter.sh/nodepool": "auto-inference", "eks.amazonaws.com/compute-type": "auto"}


def test_auto_mode_node_class_name_clash_is_refused():
    from karpenter_gpu import AutoModeNodeClassProps

    with pytest.raises(KarpenterGpuError) as exc:
        PlatformConfig(**{**dict(dev.CONFIG), "auto_mode_node_class": AutoModeNodeClassProps(
            name="gpu-inference", role="R", subnet_ids=("subnet-0a",), security_group_ids=("sg-0a",))})
    assert exc.value.code == "KG171"


def test_mig_pools_from_the_config():
    from karpenter_gpu import MigPartitionedPoolProps
    from karpenter_gpu.check.rules import check_rules

    config = prod.CONFIG.model_copy(update={"mig": (MigPartitionedPoolProps(
        name="gpu-mig", gpu_limit=8, mig_config="all-1g.10gb", overlay_weight=500),)})
    platform = GpuPlatform(cdk8s.Testing.app(), props=PlatformConfig(**dict(config)))
    manifests = cdk8s.Testing.synth(platform)
    [pool] = platform.mig
    assert by_name(manifests, "NodePool")["gpu-mig"]["spec"]["template"]["metadata"]["labels"][
        "nvidia.com/mig.config"] == "all-1g.10gb"
    smoke = by_name(manifests, "Deployment")["gpu-mig-smoke"]["spec"]["template"]["spec"]["containers"][0]
    assert smoke["resources"]["limits"]["nvidia.com/mig-1g.10gb"] == "1"
    values = next(v for v in platform.helm_values if v.file_name == "gpu-operator.values.yaml").render_values()
    assert values["mig"] == {"strategy": "mixed"} and values["migManager"]["enabled"] is True
    # as validate checks the environment: its synthesized Helm values, the Karpenter settings among them (prod's
    # static pools and NodeOverlays need staticCapacity and nodeOverlay, which the chart's defaults turn off)
    synthesized = helm_values(platform)
    assert synthesized["gpu-operator.values.yaml"] == values
    settings = karpenter_settings(platform)
    assert settings.static_capacity and settings.node_overlay
    findings = check_rules([("x", m) for m in manifests], values=synthesized, settings=settings)
    assert [f for f in findings if f.severity is Severity.ERROR] == []
    assert len([m for m in manifests if m["kind"] == "NodeOverlay" and m["metadata"]["name"].startswith("gpu-mig-")]) \
        == len(pool.props.instance_types) == 4


def test_mig_pool_beside_time_slicing_everything_is_refused():
    from karpenter_gpu import MigPartitionedPoolProps

    config = dev.CONFIG.model_copy(update={"mig": (MigPartitionedPoolProps(
        name="gpu-mig", gpu_limit=8, mig_config="all-1g.10gb", overlay_weight=500),)})
    with pytest.raises(KarpenterGpuError) as err:
        GpuPlatform(cdk8s.Testing.app(), props=PlatformConfig(**dict(config)))
    assert err.value.code == "KG577"


def test_staging_inferentia_pool_with_its_device_plugin_and_no_gpu_operator():
    platform = GpuPlatform(cdk8s.Testing.app(), props=staging.CONFIG)
    [pool] = platform.neuron_inference
    assert pool.node_class is platform.inference_class
    assert platform.neuron_device_plugin is not None
    placed = platform.neuron_device_plugin.values["devicePlugin"]["affinity"]["nodeAffinity"]
    assert placed["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0]["matchExpressions"][0][
        "values"] == ["neuron-inference"]
    assert "neuron-inference" not in {p.name for p in platform.gpu_operator.pools}
    assert {"aws.amazon.com/neuron"}.isdisjoint(t["key"] for t in platform.gpu_operator.values["daemonsets"]["tolerations"])
    assert platform.pools and GpuPlatform(cdk8s.Testing.app(), props=dev.CONFIG).neuron_device_plugin is None


def test_trainium_training_pool_on_the_training_class():
    from karpenter_gpu import Duration, NeuronTrainingPoolProps

    data = {k: getattr(prod.CONFIG, k) for k in prod.CONFIG.model_fields_set}
    data["neuron_training"] = (NeuronTrainingPoolProps(name="trainium", neuron_limit=32, expire_after=Duration.never()),)
    platform = GpuPlatform(cdk8s.Testing.app(), props=data)
    pools = by_name(cdk8s.Testing.synth(platform), "NodePool")
    assert pools["trainium"]["spec"]["template"]["spec"]["nodeClassRef"]["name"] == "gpu-training"
    assert pools["trainium"]["spec"]["limits"] == {"aws.amazon.com/neuron": "32"}
    near = {r["labels"].get("nodepool"): r["alert"] for r in platform.monitoring.rule_group["rules"]}
    assert near["trainium"] == "NeuronNodePoolNearLimit"


def test_neuron_only_environment_synthesizes_and_passes_validate_strict(tmp_path):
    from karpenter_gpu import Duration, NeuronInferencePoolProps, NeuronTrainingPoolProps, synth as synth_dist

    data = {k: getattr(dev.CONFIG, k) for k in ("node_class", "karpenter")}
    config = PlatformConfig(
        environment="neuron", **data,
        neuron_inference=(NeuronInferencePoolProps(name="inferentia", neuron_limit=16,
                                                   capacity_types=(CapacityType.ON_DEMAND,)),),
        neuron_training=(NeuronTrainingPoolProps(name="trainium", neuron_limit=64, expire_after=Duration.never()),))
    platform = GpuPlatform(cdk8s.Testing.app(), props=config)
    assert platform.gpu_operator is None and platform.neuron_device_plugin is not None
    report = synth_dist([config], tmp_path / "dist", strict=True)
    assert not report.failed()
    written = sorted(p.name for p in (tmp_path / "dist" / "neuron").rglob("*.yaml"))
    assert "NodePool.inferentia.k8s.yaml" in written and "NodePool.trainium.k8s.yaml" in written
    assert "neuron-device-plugin.values.yaml" in written and "gpu-operator.values.yaml" not in written


def test_every_pool_kind_row_has_its_typed_fields():
    """A pool kind is one row of POOL_TABLE plus its typed declarations: the config field (a tuple of the kind's
    props), the keyword prop and the platform attribute all exist, and every tuple-of-pool-props field of the config
    has a row (so a field without a row, never constructed, fails here)."""
    import typing

    from karpenter_gpu.gpu_platform import POOL_KINDS, POOL_TABLE, GpuPlatform, GpuPlatformKwargs, PlatformConfig
    fields = {kind.field for kind in POOL_TABLE}
    assert len(fields) == len(POOL_TABLE)
    assert fields <= set(PlatformConfig.model_fields) and fields <= set(GpuPlatformKwargs.__annotations__)
    hints = typing.get_type_hints(GpuPlatform)
    for kind in POOL_TABLE:
        assert typing.get_args(hints[kind.field])[0] is kind.construct
        assert POOL_KINDS[kind.field] == kind.construct.__name__
    not_pools = {"node_classes", "discourage_overlays", "gpu_capacity_overlays", "reservations", "acknowledgements"}
    tuple_fields = {name for name, f in PlatformConfig.model_fields.items()
                    if typing.get_origin(f.annotation) is tuple} - not_pools
    assert tuple_fields == fields


def test_the_same_pool_name_twice_is_one_coded_error_not_an_internal_one():
    """Two pools of one environment with one name (of one kind or two) would be two constructs with one id and two
    NodePools with one metadata.name: KG171 at the config, and at construction for a config copied without
    validation (model_copy), never jsii's RuntimeError (KG919)."""
    import cdk8s

    from karpenter_gpu.gpu_platform import GpuPlatform, PlatformConfig
    from stacks import dev
    fields = {k: getattr(dev.CONFIG, k) for k in type(dev.CONFIG).model_fields}
    twice = (dev.CONFIG.inference[0], dev.CONFIG.inference[0].model_copy(update={"gpu_limit": 8}))
    with pytest.raises(KarpenterGpuError) as err:
        PlatformConfig(**{**fields, "inference": twice})
    assert err.value.code == "KG171" and "gpu-inference" in str(err.value)
    unchecked = dev.CONFIG.model_copy(update={"inference": twice})
    with pytest.raises(KarpenterGpuError) as err:
        GpuPlatform(cdk8s.App(), props=unchecked)
    assert err.value.code == "KG171"
