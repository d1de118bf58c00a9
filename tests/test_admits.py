"""Requirement dicts against node labels and catalog instance types, and KG711 for one Karpenter cannot read."""

from __future__ import annotations

import pytest

from karpenter_gpu.analysis.admits import admits, requirement_admits
from karpenter_gpu.analysis.catalog import default_catalog
from karpenter_gpu.errors import KarpenterGpuError
from tests.test_simulator import AWS, one, pool, req


def test_requirement_admits_all_eight_operators():
    labels = {"a": "5", "b": "x"}
    assert requirement_admits(labels, {"key": "b", "operator": "In", "values": ["x", "y"]})
    assert not requirement_admits(labels, {"key": "c", "operator": "In", "values": ["x"]})
    assert requirement_admits(labels, {"key": "c", "operator": "NotIn", "values": ["x"]})  # absent label
    assert not requirement_admits(labels, {"key": "b", "operator": "NotIn", "values": ["x"]})
    assert requirement_admits(labels, {"key": "a", "operator": "Exists"})
    assert not requirement_admits(labels, {"key": "c", "operator": "Exists"})
    assert requirement_admits(labels, {"key": "c", "operator": "DoesNotExist"})
    assert not requirement_admits(labels, {"key": "a", "operator": "DoesNotExist"})
    assert requirement_admits(labels, {"key": "a", "operator": "Gt", "values": ["4"]})
    assert not requirement_admits(labels, {"key": "a", "operator": "Gt", "values": ["5"]})
    assert requirement_admits(labels, {"key": "a", "operator": "Gte", "values": ["5"]})
    assert requirement_admits(labels, {"key": "a", "operator": "Lt", "values": ["6"]})
    assert not requirement_admits(labels, {"key": "a", "operator": "Lt", "values": ["5"]})
    assert requirement_admits(labels, {"key": "a", "operator": "Lte", "values": ["5"]})
    assert not requirement_admits(labels, {"key": "c", "operator": "Gt", "values": ["0"]})  # absent never compares
    assert not requirement_admits(labels, {"key": "b", "operator": "Gt", "values": ["0"]})  # not an integer
    with pytest.raises(KarpenterGpuError) as info:
        requirement_admits(labels, {"key": "a", "operator": "in", "values": ["5"]})
    assert info.value.code == "KG711"


def test_admits_and_template_labels():
    g5 = default_catalog().by_name["g5.xlarge"]
    assert admits(g5, [req("gpu-name", "In", "a10g"), req("karpenter.sh/capacity-type", "In", "spot")], {})
    assert not admits(g5, [], {AWS + "family": "g6"})  # template label on an instance key restricts
    assert admits(g5, [req("team", "In", "ml")], {"team": "ml"})  # custom keys do not
    report = one(pool("p", labels={AWS + "family": "g6e", "team": "ml", "karpenter.sh/capacity-type": "spot"}))
    assert len(report.candidates) == 8 and {c.instance.family for c in report.candidates} == {"g6e"}
    assert report.capacity_types == ("spot",)
