"""Pods on hybrid nodes (karpenter_gpu.analysis.hybrid): the scheduler's fit on a fixed, described node group."""

from __future__ import annotations

import json

from karpenter_gpu.analysis.catalog import default_catalog
from karpenter_gpu.analysis.explain import explain_environment, render_text
from karpenter_gpu.analysis.hybrid import hybrid_fit, hybrid_fits, node_shape
from karpenter_gpu.analysis.pod_shape import PodShape
from karpenter_gpu.k8s.views import HybridGroupView, hybrid_groups

LABELS = {"eks.amazonaws.com/compute-type": "hybrid", "karpenter-gpu.io/hybrid-group": "dc1-a100",
          "karpenter-gpu.io/location": "seoul-dc1", "gpu-operator": "enabled", "kubernetes.io/arch": "amd64"}
TAINTS = [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}, {"key": "on-premises",
                                                                               "effect": "NoSchedule"}]


def config_map(**data: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "hybrid-gpu-dc1-a100", "labels": {"karpenter-gpu.io/hybrid-group": "dc1-a100"}},
            "data": {"gpuName": "a100", "gpusPerNode": "8", "nodes": "4", "location": "seoul-dc1",
                     "nodeLabels": json.dumps(LABELS), "taints": json.dumps(TAINTS), "cpu": "96", "memory": "1000Gi",
                     **data}}


def group(**data: str) -> HybridGroupView:
    (view,) = hybrid_groups([config_map(**data)])
    return view


HYBRID_POD = "gpus=8,tolerate=nvidia.com/gpu,tolerate=on-premises,select=eks.amazonaws.com/compute-type=hybrid"


def test_a_pod_that_tolerates_and_selects_the_group_fits():
    assert hybrid_fit(PodShape.parse(HYBRID_POD), group()) == (None, None)
    assert node_shape(group()) == "8x a100 hybrid node"


def test_placement_reasons():
    untolerating = PodShape.parse("gpus=1,tolerate=nvidia.com/gpu")
    assert hybrid_fit(untolerating, group()).placement == "taint on-premises:NoSchedule is not tolerated"
    wrong_site = PodShape.parse(HYBRID_POD + ",select=karpenter-gpu.io/location=busan-dc2")
    assert "karpenter-gpu.io/location='seoul-dc1' does not satisfy" in hybrid_fit(wrong_site, group()).placement
    # A label the nodes do not carry satisfies only NotIn / DoesNotExist.
    ok = PodShape.parse(HYBRID_POD + ",affinity=example.com/rack:DoesNotExist")
    assert hybrid_fit(ok, group()) == (None, None)


def test_resource_reasons():
    assert "a node has 8" in hybrid_fit(PodShape.parse(HYBRID_POD.replace("gpus=8", "gpus=9")), group()).resources
    assert "memory (a node has 1000Gi)" in hybrid_fit(PodShape.parse(HYBRID_POD + ",memory=2000Gi"), group()).resources
    assert "not nvidia.com/mig-1g.10gb" in hybrid_fit(PodShape.parse(HYBRID_POD + ",resource=nvidia.com/mig-1g.10gb"),
                                                     group()).resources
    # cpu/memory not described: not checked.
    data = config_map()["data"]
    del data["cpu"]
    (undescribed,) = hybrid_groups([{**config_map(), "data": data}])
    assert hybrid_fit(PodShape.parse(HYBRID_POD + ",cpu=500"), undescribed) == (None, None)


def test_an_unreadable_description_is_a_reason_not_a_crash():
    view = group(nodeLabels="not json", nodes="four")
    assert view.problem == "data.nodeLabels is not a JSON dict"
    assert "cannot be read" in hybrid_fit(PodShape.parse(HYBRID_POD), view).placement


def test_hybrid_fits_list_the_node_shape_or_the_reason():
    fits = hybrid_fits(PodShape.parse(HYBRID_POD), [config_map()])
    assert [(f.pool, f.instance, f.offering, f.kind) for f in fits] == [
        ("dc1-a100", "8x a100 hybrid node", "on-premises/seoul-dc1", "hybrid")]
    (miss,) = hybrid_fits(PodShape.parse("gpus=1"), [config_map()])
    assert miss.instance is None and "not tolerated" in miss.reason


def test_explain_shows_the_group_and_puts_a_fitting_pod_on_it():
    env = explain_environment("fleet", [config_map()], default_catalog(), PodShape.parse(HYBRID_POD))
    (row,) = env["pools"]
    assert (row["kind"], row["candidates"], row["gpu_limit"], row["zones"]) == (
        "hybrid", ["8x a100 hybrid node"], 32, ["seoul-dc1"])
    assert env["pod"]["first_choice"] == {"pool": "dc1-a100", "instance": "8x a100 hybrid node"}
    text = render_text([env])
    assert "lands on dc1-a100 as 8x a100 hybrid node" in text
    assert "4 on-premises node(s) × 8 a100 at seoul-dc1" in text
