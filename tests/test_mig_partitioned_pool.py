"""MigPartitionedPool → a NodePool labelled for MIG Manager plus one NodeOverlay per instance type with its MIG devices."""

from __future__ import annotations

import pytest

from karpenter_gpu import GpuNodeClass, KarpenterControllerValues, KarpenterGpuError, MigPartitionedPool, Taint
from karpenter_gpu.addons.feature_gates import FeatureGate, required_feature_gates
from karpenter_gpu.analysis.catalog import default_catalog
from karpenter_gpu.analysis.pod_fit import first_choice, pod_fit
from karpenter_gpu.analysis.pod_shape import PodShape
from karpenter_gpu.analysis.simulator import simulate_pools
from karpenter_gpu.apiserver.conformance import check
from karpenter_gpu.k8s.mig import MIG_CONFIG_LABEL, mig_table
from tests.conftest import karpenter_settings, manifests


def node_class(chart, ami="al2023@v20251103"):
    return GpuNodeClass(chart, "Class", name="gpu-mig", ami=ami, role="R", cluster_name="c")


def pool(chart, nc=None, id="Mig", **props):
    return MigPartitionedPool(chart, id, node_class=nc or node_class(chart),
                              **{"name": "gpu-mig", "gpu_limit": 16, "mig_config": "all-1g.10gb", **props})


def of_kind(chart, kind):
    return [m for m in manifests(chart) if m["kind"] == kind]


def test_snapshot(chart, snapshot):
    pool(chart)
    assert manifests(chart) == snapshot


def test_template_label_and_exact_instance_types(chart, crds):
    pool(chart)
    [nodepool] = of_kind(chart, "NodePool")
    assert nodepool["spec"]["template"]["metadata"]["labels"][MIG_CONFIG_LABEL] == "all-1g.10gb"
    reqs = {r["key"]: r for r in nodepool["spec"]["template"]["spec"]["requirements"]}
    # 1g.10gb exists on A100 40GB (4 per GPU), A100 80GB and H100 (7): not on H200/B200.
    assert reqs["karpenter.k8s.aws/instance-gpu-name"]["values"] == ["a100", "h100"]
    assert reqs["node.kubernetes.io/instance-type"]["values"] == ["p4d.24xlarge", "p4de.24xlarge", "p5.48xlarge",
                                                                  "p5.4xlarge"]
    assert check(nodepool, crds) == []
    for overlay in of_kind(chart, "NodeOverlay"):
        assert check(overlay, crds) == []


def test_done_when_overlay_counts_equal_catalog_gpus_times_table(chart):
    """Issue 15 "Done when": the synthesized overlays make each MIG resource visible with count per GPU × GPUs."""
    for config, strategy, weight in (("all-1g.10gb", "mixed", 200), ("all-balanced", "mixed", 300),
                                     ("all-3g.71gb", "single", 400)):
        pool(chart, node_class(chart) if config == "all-1g.10gb" else chart.node.find_child("Class"),
             id=config, name=f"p-{config.replace('.', '-')}", mig_config=config, mig_strategy=strategy,
             overlay_weight=weight)
    table, catalog = mig_table(), default_catalog().by_name
    overlays = of_kind(chart, "NodeOverlay")
    seen = 0
    for nodepool in of_kind(chart, "NodePool"):
        config = nodepool["spec"]["template"]["metadata"]["labels"][MIG_CONFIG_LABEL]
        types = next(r["values"] for r in nodepool["spec"]["template"]["spec"]["requirements"]
                     if r["key"] == "node.kubernetes.io/instance-type")
        for name in types:
            it = catalog[name]
            devices = table.gpu_for(it.labels).config(config)
            [overlay] = [o for o in overlays if {"key": "node.kubernetes.io/instance-type", "operator": "In",
                                                 "values": [name]} in o["spec"]["requirements"]
                         and {"key": "karpenter.sh/nodepool", "operator": "In",
                              "values": [nodepool["metadata"]["name"]]} in o["spec"]["requirements"]]
            capacity = {k: int(v) for k, v in overlay["spec"]["capacity"].items()}
            if config == "all-3g.71gb":  # single: MIG devices as nvidia.com/gpu
                assert capacity == {"nvidia.com/gpu": 2 * it.gpus}
            else:
                assert capacity == {f"nvidia.com/mig-{p}": n * it.gpus for p, n in devices.items()}
            seen += 1
    assert seen == len(overlays) == 4 + 8 + 2
    # the figures that matter on p4d (8 x A100 40GB) and p5 (8 x H100)
    by_name = {o["metadata"]["name"]: o["spec"]["capacity"] for o in overlays}
    assert by_name["p-all-1g-10gb-p4d-24xlarge"] == {"nvidia.com/mig-1g.10gb": "32"}
    assert by_name["p-all-1g-10gb-p5-48xlarge"] == {"nvidia.com/mig-1g.10gb": "56"}
    assert by_name["p-all-balanced-p4d-24xlarge"] == {"nvidia.com/mig-1g.5gb": "16", "nvidia.com/mig-2g.10gb": "8",
                                                      "nvidia.com/mig-3g.20gb": "8"}
    assert by_name["p-all-3g-71gb-p5en-48xlarge"] == {"nvidia.com/gpu": "16"}


def with_controller(chart):
    """The chart's Karpenter controller values (the nodeOverlay gate the pool's overlays need), read back as explain
    reads helm/karpenter.values.yaml: without them the chart's defaults leave nodeOverlay off."""
    KarpenterControllerValues(chart, "Karpenter", cluster_name="c")
    settings = karpenter_settings(chart)
    assert settings.node_overlay and settings.source == "helm/karpenter.values.yaml"
    return settings


def test_simulation_sees_the_overlay_capacity(chart):
    pool(chart)
    settings = with_controller(chart)
    reports = {r.name: r for r in simulate_pools(manifests(chart), settings=settings)}
    capacity = {c.name: int(c.capacity["nvidia.com/mig-1g.10gb"]) for c in reports["gpu-mig"].candidates}
    assert capacity == {"p4d.24xlarge": 32, "p4de.24xlarge": 56, "p5.48xlarge": 56, "p5.4xlarge": 7}
    # physical GPUs stay: gpu_limit still caps them under the mixed strategy
    assert {c.name: c.gpus for c in reports["gpu-mig"].candidates}["p5.48xlarge"] == 8
    fit = first_choice(pod_fit(PodShape.parse("mig-1g.10gb=40,tolerate=nvidia.com/gpu"), manifests(chart),
                               settings=settings))
    assert (fit.pool, fit.instance) == ("gpu-mig", "p4de.24xlarge")  # 56 >= 40, cheaper than p5


def test_needs_the_node_overlay_gate(chart):
    construct = pool(chart)
    assert {need.gate for need in required_feature_gates(chart)} == {FeatureGate.NODE_OVERLAY}
    assert len(construct.mig_overlays) == 4
    assert [o.weight for o in construct.mig_overlays] == [200, 201, 202, 203]


def test_gpu_names_narrow_the_types(chart):
    construct = pool(chart, gpu_names=("h100",))
    assert construct.props.instance_types == ("p5.48xlarge", "p5.4xlarge")


def test_default_resource_is_what_most_types_advertise(chart):
    # all-balanced on a100/h100/h200/b200/b300: 1g/2g/3g profiles differ per GPU; the most common one wins
    construct = pool(chart, mig_config="all-balanced")
    counts = {}
    for caps in construct.props.devices_per_instance_type().values():
        for r in caps:
            counts[r] = counts.get(r, 0) + 1
    assert construct.default_resource == min(counts, key=lambda r: (-counts[r], r))
    assert construct.default_resource == "nvidia.com/mig-1g.10gb"


def test_fails_on_unknown_config(chart):
    with pytest.raises(KarpenterGpuError) as err:
        pool(chart, mig_config="all-1g.11gb")
    assert err.value.code == "KG220"


def test_fails_on_disabled_config(chart):
    with pytest.raises(KarpenterGpuError) as err:
        pool(chart, mig_config="all-disabled")
    assert err.value.code == "KG220"


def test_fails_on_a_gpu_without_the_config(chart):
    with pytest.raises(KarpenterGpuError) as err:
        pool(chart, gpu_names=("h200",))  # H200 has 1g.18gb, not 1g.10gb
    assert err.value.code == "KG220" and err.value.prop == "gpu_names"


def test_fails_on_single_strategy_with_several_profiles(chart):
    with pytest.raises(KarpenterGpuError) as err:
        pool(chart, mig_config="all-balanced", mig_strategy="single")
    assert err.value.code == "KG222"


def test_fails_on_bottlerocket(chart):
    with pytest.raises(KarpenterGpuError) as err:
        pool(chart, node_class(chart, ami="bottlerocket@v1.50.0"))
    assert err.value.code == "KG221"


def test_fails_on_an_auto_mode_node_class(chart):
    from karpenter_gpu import AutoModeNodeClass

    auto = AutoModeNodeClass(chart, "Auto", name="gpu-auto", role="AmazonEKSAutoNodeRole",
                             subnet_tags={"kubernetes.io/role/internal-elb": "1"},
                             security_group_tags={"aws:eks:cluster-name": "ml"})
    with pytest.raises(KarpenterGpuError) as err:
        pool(chart, auto)  # type: ignore[arg-type]  # refused by the type too
    assert err.value.code == "KG221" and err.value.value == "AutoModeNodeClass"


def test_fails_when_no_type_is_left(chart):
    with pytest.raises(KarpenterGpuError) as err:
        pool(chart, instance_sizes=("xlarge",))
    assert err.value.code == "KG224"


def test_fails_on_a_conflicting_mig_label(chart):
    with pytest.raises(KarpenterGpuError) as err:
        pool(chart, labels={MIG_CONFIG_LABEL: "all-7g.80gb"})
    assert err.value.code == "KG220"


def test_fails_on_an_overlay_weight_in_use_before_adding_anything(chart):
    nc = node_class(chart)
    pool(chart, nc)
    with pytest.raises(KarpenterGpuError) as err:
        pool(chart, nc, id="Other", name="other", overlay_weight=203)
    assert err.value.code == "KG183"
    assert chart.node.try_find_child("Other") is None


def test_single_strategy_counts_mig_devices_as_gpus(chart):
    construct = pool(chart, mig_config="all-3g.40gb", mig_strategy="single")
    assert construct.props.devices_per_instance_type()["p5.48xlarge"] == {"nvidia.com/gpu": 16}
    assert "p4d.24xlarge" not in construct.props.instance_types  # A100 40GB has 3g.20gb, not 3g.40gb
    # the GPU limit then counts MIG devices: Karpenter sees 16 "GPUs" on a p5
    report = {r.name: r for r in simulate_pools(manifests(chart), settings=with_controller(chart))}["gpu-mig"]
    assert {c.name: c.gpus for c in report.candidates}["p5.48xlarge"] == 16


def test_taints_are_the_props(chart):
    pool(chart, taints=(Taint.gpu(), Taint("mig", "true")))
    [nodepool] = of_kind(chart, "NodePool")
    assert {"key": "mig", "value": "true", "effect": "NoSchedule"} in nodepool["spec"]["template"]["spec"]["taints"]


def test_misspelt_prop_names_the_closest_one(chart):
    with pytest.raises(KarpenterGpuError) as err:
        MigPartitionedPool(chart, "Mig", node_class=node_class(chart), name="gpu-mig", gpu_limit=16,
                           mig_confg="all-1g.10gb")
    assert err.value.code == "KG100" and "mig_config" in str(err.value)
