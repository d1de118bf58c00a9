"""KarpenterControllerValues → Helm values of the Karpenter v1.14.1 chart, derived from the construct tree."""

from __future__ import annotations

import cdk8s
import pytest
import yaml
from pydantic import ValidationError

from karpenter_gpu.cluster import Cluster

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.addons.feature_gates import FeatureGate
from karpenter_gpu.pools.gpu_inference_pool import GpuInferencePool
from karpenter_gpu.pools.gpu_node_class import GpuNodeClass
from karpenter_gpu.pools.gpu_training_pool import GpuTrainingPool
from karpenter_gpu.addons.helm_values import HelmValues, helm_values_in
from karpenter_gpu.addons.karpenter_values import KarpenterControllerValues, KarpenterControllerValuesProps
from karpenter_gpu.overlays.node_overlay_discourage import NodeOverlayDiscourage
from karpenter_gpu.overlays.overlay_price import PriceAdjustment
from karpenter_gpu.k8s.requirements import CapacityType
from karpenter_gpu.pools.static_capacity_pool import StaticCapacityPool
from karpenter_gpu.k8s.units import Duration

ALL_GATES = ["reservedCapacity", "spotToSpotConsolidation", "nodeOverlay", "staticCapacity", "nodeRepair",
             "capacityBuffer"]
DEFAULTS = {"reservedCapacity": True, "spotToSpotConsolidation": False, "nodeOverlay": False,
            "staticCapacity": False, "nodeRepair": False, "capacityBuffer": False}


@pytest.fixture
def node_class(chart):
    return GpuNodeClass(chart, "Class", name="gpu", ami="al2023@v20251103", role="R", cluster_name="c")


def training(chart, node_class, **props):
    return GpuTrainingPool(chart, "Training", node_class=node_class,
                           **{"name": "gpu-training", "gpu_limit": 16, "expire_after": Duration.never(), **props})


def inference(chart, node_class, **props):
    return GpuInferencePool(chart, "Inference", node_class=node_class, **{"name": "gpu-inference", "gpu_limit": 8,
                                                                           **props})


def static(chart, node_class):
    return StaticCapacityPool(chart, "Warm", node_class=node_class, name="gpu-warm", replicas=1)


def overlay(chart):
    return NodeOverlayDiscourage(chart, "Discourage", name="discourage-big", instance_types=("g5.12xlarge",),
                                 price_adjustment=PriceAdjustment.percent(30), weight=10)


def values(chart, **props):
    return KarpenterControllerValues(chart, "Karpenter", **{"cluster_name": "prod", **props})


# --- rendering ---------------------------------------------------------------------------------


def test_nothing_special_renders_chart_defaults(chart, node_class):
    training(chart, node_class)
    v = values(chart)
    assert v.values == {"settings": {"clusterName": "prod", "featureGates": DEFAULTS}, "controller": {"image": {
        "repository": "public.ecr.aws/karpenter/controller", "tag": "1.14.1",
        "digest": "sha256:723130949e4cab989461ff07d1be4cd781d63515432494641b33c235f300ae23"}}}
    assert list(v.feature_gates) == ALL_GATES  # all six, in chart order
    assert v.feature_gates == DEFAULTS
    assert "interruptionQueue" not in v.values["settings"]


def test_empty_chart_renders_defaults(chart):
    assert values(chart).feature_gates == DEFAULTS


def test_chart_metadata(chart):
    v = values(chart)
    assert isinstance(v, HelmValues)
    assert (v.chart, v.version, v.file_name) == ("oci://public.ecr.aws/karpenter/karpenter", "1.14.1",
                                                 "karpenter.values.yaml")
    assert helm_values_in(chart) == [v]


def test_node_overlay_turns_gate_on(chart, node_class):
    training(chart, node_class)
    overlay(chart)
    v = values(chart)
    assert v.feature_gates == {**DEFAULTS, "nodeOverlay": True}
    assert [n.gate for n in v.gate_needs] == [FeatureGate.NODE_OVERLAY]


def test_static_pool_turns_gate_on(chart, node_class):
    static(chart, node_class)
    assert values(chart).feature_gates == {**DEFAULTS, "staticCapacity": True}


def test_values_key_order(chart, node_class):
    static(chart, node_class)
    inference(chart, node_class)
    v = values(chart, interruption_queue="prod")
    assert list(v.values) == ["settings", "controller"]
    assert list(v.values["settings"]) == ["clusterName", "interruptionQueue", "featureGates"]
    assert list(v.values["settings"]["featureGates"]) == ALL_GATES


def test_user_forces_gates_on(chart):
    v = values(chart, feature_gates={FeatureGate.NODE_REPAIR: True, "capacityBuffer": True})
    assert v.feature_gates == {**DEFAULTS, "nodeRepair": True, "capacityBuffer": True}


def test_user_may_turn_off_an_unneeded_default(chart, node_class):
    training(chart, node_class)
    assert values(chart, feature_gates={"reservedCapacity": False}).feature_gates == {
        **DEFAULTS, "reservedCapacity": False}


def test_spot_to_spot_from_the_prop(chart):
    assert values(chart, spot_to_spot_consolidation=True).feature_gates["spotToSpotConsolidation"] is True


def test_spot_to_spot_also_via_feature_gates(chart):
    v = values(chart, feature_gates={"spotToSpotConsolidation": True})
    assert v.feature_gates["spotToSpotConsolidation"] is True


def test_spot_to_spot_conflict(chart):
    with pytest.raises(KarpenterGpuError) as err:
        values(chart, spot_to_spot_consolidation=False, feature_gates={"spotToSpotConsolidation": True})
    assert err.value.code == "KG525"


def test_reads_every_chart_of_its_cluster_only(node_class):
    app = node_class.node.scope.node.scope  # the App holding the fixture's chart: one cluster
    other = cdk8s.Chart(app, "other")
    StaticCapacityPool(other, "Warm", node_class=node_class, name="gpu-warm", replicas=1)
    values_chart = cdk8s.Chart(app, "values")
    v = KarpenterControllerValues(values_chart, "K", cluster_name="prod")
    assert v.feature_gates["staticCapacity"] is True  # a sibling chart of the same cluster
    elsewhere = cdk8s.Chart(Cluster(app, "staging"), "values")
    assert KarpenterControllerValues(elsewhere, "K", cluster_name="s").feature_gates["staticCapacity"] is False


def test_created_before_a_static_pool_still_turns_its_gate_on(chart, node_class):
    """Built before the StaticCapacityPool, the values used to render staticCapacity: false."""
    v = KarpenterControllerValues(chart, "K", cluster_name="prod")
    StaticCapacityPool(chart, "Warm", node_class=node_class, name="gpu-warm", replicas=1)
    assert v.values["settings"]["featureGates"]["staticCapacity"] is True
    assert any("gpu-warm-static" in line for line in v.notes())


# --- spot and the interruption queue -----------------------------------------------------------


def test_spot_pool_without_queue_is_kg523(chart, node_class):
    inference(chart, node_class)  # spot + on-demand by default
    training(chart, node_class)
    with pytest.raises(KarpenterGpuError) as err:
        values(chart)
    e = err.value
    assert e.code == "KG523"
    assert e.prop == "interruption_queue"
    assert e.path == "test/Karpenter"
    assert "gpu-inference (test/Inference)" in e.allowed
    assert "gpu-training" not in e.allowed  # on-demand only
    assert "2-minute" in e.allowed and "without a drain" in e.allowed
    assert "interruption_queue='prod'" in e.fix


def test_spot_pool_with_queue_renders_it(chart, node_class):
    inference(chart, node_class)
    v = values(chart, interruption_queue="prod")
    assert v.values["settings"]["interruptionQueue"] == "prod"
    assert [p.props.name for p in v.spot_pools] == ["gpu-inference"]


def test_spot_allowed_without_queue_on_request(chart, node_class):
    inference(chart, node_class)
    v = values(chart, allow_spot_without_interruption_queue=True)
    assert "interruptionQueue" not in v.values["settings"]


def test_on_demand_only_needs_no_queue(chart, node_class):
    inference(chart, node_class, capacity_types=(CapacityType.ON_DEMAND,))
    assert "interruptionQueue" not in values(chart).values["settings"]


@pytest.mark.parametrize("queue, name", [
    ("https://sqs.us-east-1.amazonaws.com/123456789012/prod", "prod"),
    ("arn:aws:sqs:us-east-1:123456789012:prod", "prod"),
])
def test_queue_url_or_arn_is_kg521(chart, queue, name):
    with pytest.raises(KarpenterGpuError) as err:
        values(chart, interruption_queue=queue)
    assert err.value.code == "KG521"
    assert err.value.prop == "interruption_queue"
    assert f"interruption_queue={name!r}" in err.value.fix


@pytest.mark.parametrize("queue", ["", "my queue", "x" * 81])
def test_queue_not_a_name_is_kg521(chart, queue):
    with pytest.raises(KarpenterGpuError) as err:
        values(chart, interruption_queue=queue)
    assert err.value.code == "KG521"


def test_fifo_queue_name_accepted(chart):
    assert values(chart, interruption_queue="prod.fifo").values["settings"]["interruptionQueue"] == "prod.fifo"


# --- feature gate conflicts --------------------------------------------------------------------


def test_forcing_off_a_needed_gate_is_kg522(chart):
    overlay(chart)
    with pytest.raises(KarpenterGpuError) as err:
        values(chart, feature_gates={FeatureGate.NODE_OVERLAY: False})
    e = err.value
    assert e.code == "KG522"
    assert e.prop == "feature_gates[nodeOverlay]"
    assert "test/Discourage" in e.allowed
    assert "silently ignored" in e.allowed


def test_forcing_off_static_capacity_names_every_pool(chart, node_class):
    StaticCapacityPool(chart, "Warm", node_class=node_class, name="gpu-warm", replicas=1,
                       zones=("us-east-1a", "us-east-1b"))
    with pytest.raises(KarpenterGpuError) as err:
        values(chart, feature_gates={"staticCapacity": False})
    e = err.value
    assert e.code == "KG522"
    assert "test/Warm/us-east-1a" in e.allowed and "test/Warm/us-east-1b" in e.allowed
    assert "silently launches nothing" in e.allowed


@pytest.mark.parametrize("gates", [{"NodeOverlay": True}, {"nodeoverlay": True}, {"bogus": True},
                                   {"nodeOverlay": "yes"}, ["nodeOverlay"]])
def test_bad_feature_gate_override_is_kg524(chart, gates):
    with pytest.raises(KarpenterGpuError) as err:
        values(chart, feature_gates=gates)
    assert err.value.code == "KG524"


def test_binary_gate_name_gets_a_hint(chart):
    with pytest.raises(KarpenterGpuError) as err:
        values(chart, feature_gates={"NodeOverlay": True})
    assert "'nodeOverlay'" in err.value.fix


# --- cluster name ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["", None, " prod", "-prod", "prod/x"])
def test_bad_cluster_name_is_kg520(chart, name):
    with pytest.raises(KarpenterGpuError) as err:
        KarpenterControllerValues(chart, "K", cluster_name=name)
    assert err.value.code == "KG520"
    assert err.value.prop == "cluster_name"


def test_missing_cluster_name_is_kg520(chart):
    with pytest.raises(KarpenterGpuError) as err:
        KarpenterControllerValues(chart, "K")
    assert err.value.code == "KG520"


def test_cluster_arn_gets_the_name_as_fix(chart):
    with pytest.raises(KarpenterGpuError) as err:
        values(chart, cluster_name="arn:aws:eks:us-east-1:123456789012:cluster/prod")
    assert err.value.code == "KG520"
    assert "cluster_name='prod'" in err.value.fix


def test_unknown_prop_is_kg100(chart):
    with pytest.raises(KarpenterGpuError) as err:
        values(chart, interruptionQueue="prod")
    assert err.value.code == "KG100"


def test_validated_props_object(chart):
    props = KarpenterControllerValuesProps(cluster_name="prod", interruption_queue="prod")
    v = KarpenterControllerValues(chart, "K", props=props)
    assert v.props is props
    with pytest.raises(ValidationError):
        props.cluster_name = "other"  # frozen
    with pytest.raises(KarpenterGpuError):
        KarpenterControllerValuesProps(cluster_name="")


# --- output ------------------------------------------------------------------------------------


def test_values_snapshot(chart, node_class, snapshot):
    inference(chart, node_class)
    training(chart, node_class)
    static(chart, node_class)
    overlay(chart)
    v = values(chart, interruption_queue="prod", spot_to_spot_consolidation=True)
    assert v.values == snapshot
    assert v.to_yaml() == snapshot


def test_yaml_round_trips(chart, node_class):
    static(chart, node_class)
    overlay(chart)
    inference(chart, node_class)
    v = values(chart, interruption_queue="prod")
    text = v.to_yaml()
    assert text.startswith("# Helm values for oci://public.ecr.aws/karpenter/karpenter 1.14.1")
    assert yaml.safe_load(text) == v.values


def test_values_construct_makes_no_manifests(chart):
    values(chart)
    assert cdk8s.Testing.synth(chart) == []


def test_misspelt_required_prop_names_the_typo_not_the_missing_prop(chart):
    """cluster_nme= used to report 'cluster_name=None … required', hiding the typo."""
    with pytest.raises(KarpenterGpuError) as exc:
        KarpenterControllerValues(chart, "K", cluster_nme="prod")
    assert exc.value.code == "KG100" and exc.value.prop == "cluster_nme"
    assert "did you mean 'cluster_name'" in exc.value.allowed


def test_auto_mode_pools_need_no_interruption_queue_or_feature_gate(chart):
    """AWS runs Auto Mode's Karpenter (spot interruptions handled there): an Auto Mode spot pool and static pool
    ask nothing of this controller's values."""
    from karpenter_gpu import AutoModeNodeClass

    auto = AutoModeNodeClass(chart, "Auto", name="gpu-auto", role="AmazonEKSAutoNodeRole",
                             subnet_ids=("subnet-0a",), security_group_ids=("sg-0a",))
    inference(chart, auto)  # spot + on-demand
    StaticCapacityPool(chart, "Warm", node_class=auto, name="gpu-warm", replicas=1)
    v = values(chart)
    assert v.spot_pools == () and v.gate_needs == ()
    assert v.values["settings"]["featureGates"]["staticCapacity"] is False
