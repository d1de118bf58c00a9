"""HybridGpuNodeGroup → on-premises GPU servers (EKS Hybrid Nodes): props, labels, the description ConfigMap."""

from __future__ import annotations

import json

import pytest

from karpenter_gpu import HybridGpuNodeGroup, HybridGpuNodeGroupProps, KarpenterGpuError, Quantity, Taint
from karpenter_gpu.k8s.views import hybrid_groups
from karpenter_gpu.pools.hybrid_gpu_nodes import hybrid_groups_of
from tests.conftest import manifests, only

BASE = dict(name="dc1-a100", gpu_name="a100", gpus_per_node=8, nodes=4, location="seoul-dc1")


def group(chart, id="Dc1", **props):
    return HybridGpuNodeGroup(chart, id, **{**BASE, **props})


def test_snapshot(chart, snapshot):
    group(chart, taints=(Taint.gpu(), Taint("on-premises")), labels={"team": "research"}, cpu=Quantity("96"),
          memory=Quantity("1000Gi"))
    assert manifests(chart) == snapshot


def test_node_labels_carry_compute_type_group_location_and_operator_label(chart):
    g = group(chart)
    assert g.node_labels == {"eks.amazonaws.com/compute-type": "hybrid", "gpu-operator": "enabled",
                             "karpenter-gpu.io/hybrid-group": "dc1-a100", "karpenter-gpu.io/location": "seoul-dc1",
                             "kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux"}
    assert g.gpu_count == 32


def test_preinstalled_driver_and_toolkit_are_labelled_off_for_the_gpu_operator(chart):
    g = group(chart, driver_preinstalled=True, toolkit_preinstalled=True)
    assert g.node_labels["nvidia.com/gpu.deploy.driver"] == "false"
    assert g.node_labels["nvidia.com/gpu.deploy.container-toolkit"] == "false"
    assert "nvidia.com/gpu.deploy.driver" not in group(chart, "Other", name="other").node_labels


def test_kubelet_flags_register_the_labels_and_taints_nodeadm_must_pass(chart):
    g = group(chart, taints=(Taint.gpu(), Taint("on-premises")))
    # compute-type is set by nodeadm, arch and os by the kubelet: not repeated.
    assert g.props.kubelet_flags == [
        "--node-labels=gpu-operator=enabled,karpenter-gpu.io/hybrid-group=dc1-a100,"
        "karpenter-gpu.io/location=seoul-dc1",
        "--register-with-taints=nvidia.com/gpu=true:NoSchedule,on-premises:NoSchedule"]


def test_the_configmap_is_what_the_analyzers_read_back(chart):
    group(chart, taints=(Taint("on-premises"),), cpu=Quantity("96"))
    cm = only(chart, "ConfigMap")
    assert cm["metadata"]["name"] == "hybrid-gpu-dc1-a100"
    assert cm["metadata"]["namespace"] == "kube-system"
    assert json.loads(cm["data"]["taints"]) == [{"key": "on-premises", "effect": "NoSchedule"}]
    (view,) = hybrid_groups([cm])
    assert (view.name, view.gpu_name, view.gpus_per_node, view.nodes, view.location, view.cpu, view.problem) == \
        ("dc1-a100", "a100", 8, 4, "seoul-dc1", "96", None)
    assert view.node_labels == group(chart, "Again", name="again").node_labels | {
        "karpenter-gpu.io/hybrid-group": "dc1-a100"}


def test_groups_of_a_cluster_in_name_order(chart):
    b = group(chart, "B", name="b-site")
    a = group(chart, "A", name="a-site")
    assert hybrid_groups_of(chart) == [a, b]


def test_props_object_form(chart):
    g = HybridGpuNodeGroup(chart, "Dc1", props=HybridGpuNodeGroupProps(**BASE))
    assert g.name == "dc1-a100" and g.taints == (Taint.gpu(),)


def test_a_second_group_of_the_same_name_is_a_duplicate(chart):
    group(chart)
    with pytest.raises(KarpenterGpuError) as err:
        group(chart, "Again")
    assert err.value.code == "KG171"


@pytest.mark.parametrize(("prop", "value", "code"), [
    ("gpu_name", "A100", "KG240"),
    ("gpu_name", "", "KG240"),
    ("location", "seoul dc1", "KG240"),
    ("gpus_per_node", 0, "KG241"),
    ("gpus_per_node", 65, "KG241"),
    ("nodes", True, "KG241"),
    ("labels", {"eks.amazonaws.com/compute-type": "auto"}, "KG242"),
    ("labels", {"karpenter-gpu.io/location": "x"}, "KG242"),
    ("labels", {"team": "a b"}, "KG242"),
    ("labels", {"karpenter.sh/nodepool": "x"}, "KG111"),
    ("cpu", Quantity("0"), "KG243"),
    ("taints", (Taint.gpu(), Taint("nvidia.com/gpu", "other")), "KG244"),
    ("name", "Not_DNS", "KG120"),
])
def test_fails_on_bad_props(chart, prop, value, code):
    with pytest.raises(KarpenterGpuError) as err:
        group(chart, **{prop: value})
    assert err.value.code == code


def test_fails_outside_a_chart():
    import cdk8s

    with pytest.raises(KarpenterGpuError) as err:
        HybridGpuNodeGroup(cdk8s.Testing.app(), "Dc1", **BASE)
    assert err.value.code == "KG197"
