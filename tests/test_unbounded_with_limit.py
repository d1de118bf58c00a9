"""validate reports the unbounded spend explain reports: a GPU pool with its nvidia.com/gpu limit set that can launch
types the limit never counts (0-GPU g6f / gr6f, AMD g4ad) is KG401, naming them and the fix."""

from __future__ import annotations

import copy

from karpenter_gpu.analysis.cost_notes import Unbounded
from karpenter_gpu.analysis.simulator import simulate_pools
from karpenter_gpu.analysis.catalog import default_catalog
from karpenter_gpu.check.rules import check_rules

POOL = {
    "apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "frac"},
    "spec": {
        "template": {"spec": {
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
            "requirements": [{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g6", "g6f"]},
                             {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]}],
            "taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}],
            "expireAfter": "720h",
        }},
        "disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "10m"},
        "limits": {"nvidia.com/gpu": "8"},
    },
}


def test_zero_gpu_types_under_a_gpu_limit_are_kg401_as_explain_reports():
    (finding,) = [f for f in check_rules([("p.yaml", POOL)]) if f.code == "KG401"]
    assert finding.severity == "warning" and finding.path == "spec.limits"
    assert "unbounded although spec.limits['nvidia.com/gpu'] is set" in finding.message
    assert "g6f.xlarge" in finding.message and "instance-gpu-count Gt ['0']" in finding.message
    (report,) = simulate_pools([POOL], default_catalog())
    (note,) = [n for n in report.notes if isinstance(n, Unbounded)]
    assert note.why in finding.message  # the same types and reason explain prints


def test_a_pool_whose_limit_counts_every_type_is_not_reported():
    pool = copy.deepcopy(POOL)
    pool["spec"]["template"]["spec"]["requirements"][0]["values"] = ["g6"]
    assert [f for f in check_rules([("p.yaml", pool)]) if f.code == "KG401"] == []
