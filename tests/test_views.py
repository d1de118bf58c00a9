"""Manifest views (karpenter_gpu.k8s.views): the one NodePool / EC2NodeClass / NodeOverlay parser."""

from __future__ import annotations

from decimal import Decimal

from karpenter_gpu.k8s.views import NodePoolView, OverlayView, node_pools, ordered_overlays, ordered_pools, overlays


def test_wrong_types_read_as_unset_and_bad_requirements_are_kept_as_a_problem():
    view = NodePoolView.of({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "p"},
                            "spec": {"weight": "x", "template": {"metadata": {"labels": ["a"]},
                                                                 "spec": {"taints": "t", "requirements": [
                                                                     {"key": "k", "operator": "Gt", "values": ["a"]}]}}}})
    assert view.weight is None and view.labels == {} and view.taints == []
    assert view.requirements is None and view.problem is not None and view.problem.code == "KG620"


def test_template_requirements_add_labels_nodepool_and_node_class():
    # nodeclaimtemplate.go NewNodeClaimTemplate
    view = NodePoolView.of({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "p"},
                            "spec": {"template": {"metadata": {"labels": {"team": "ml"}}, "spec": {
                                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
                                "requirements": [{"key": "team", "operator": "In", "values": ["ml", "ai"]}]}}}})
    reqs = view.template_requirements
    assert reqs["team"].values == frozenset({"ml"})
    assert reqs["karpenter.sh/nodepool"].values == frozenset({"p"})
    assert reqs["karpenter.k8s.aws/ec2nodeclass"].values == frozenset({"gpu"})


def test_overlay_view_prices():
    # cloudprovider/types.go AdjustedPrice: absolute replaces, percent scales, never below 0
    def view(**spec):
        return OverlayView.of({"metadata": {"name": "o"}, "spec": spec})
    assert view(price="0.5").adjusted(Decimal(2)) == Decimal("0.5")
    assert view(priceAdjustment="+10%").adjusted(Decimal(2)) == Decimal("2.2")
    assert view(priceAdjustment="-5").adjusted(Decimal(2)) == Decimal(0)
    assert view(priceAdjustment="10%").problem.code == "KG620"


def test_ordering_helpers():
    def np(name, weight):
        return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name},
                "spec": {"weight": weight}}
    def ov(name, weight):
        return {"apiVersion": "karpenter.sh/v1alpha1", "kind": "NodeOverlay", "metadata": {"name": name},
                "spec": {"weight": weight}}
    manifests = [np("a", 1), np("b", 1), np("c", 2), ov("x", 3), ov("y", 3), {"kind": "Other"}, "text"]
    assert [p.name for p in ordered_pools(node_pools(manifests))] == ["c", "b", "a"]
    assert [o.name for o in ordered_overlays(overlays(manifests))] == ["y", "x"]


def test_auto_mode_pool_view():
    auto = NodePoolView.of({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "a"}, "spec": {
        "template": {"spec": {"nodeClassRef": {"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "gpu"},
                              "requirements": []}}}})
    karpenter = NodePoolView.of({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "k"}, "spec": {
        "template": {"spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
                              "requirements": []}}}})
    assert auto.auto_mode and not karpenter.auto_mode
    # Auto Mode nodes carry compute-type auto (the node-class label of the NodeClaim template there).
    assert auto.template_requirements["eks.amazonaws.com/compute-type"].values == {"auto"}
    assert "eks.amazonaws.com/compute-type" not in karpenter.template_requirements
    assert "eks.amazonaws.com/instance-gpu-name" in auto.well_known_labels
    assert "karpenter.k8s.aws/instance-gpu-name" not in auto.well_known_labels
    assert "karpenter.k8s.aws/instance-gpu-name" in karpenter.well_known_labels
    assert "eks.amazonaws.com/instance-gpu-name" not in karpenter.well_known_labels
