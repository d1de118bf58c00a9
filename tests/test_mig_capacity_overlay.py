"""MigCapacityOverlay → one NodeOverlay adding MIG devices to one instance type of one NodePool."""

from __future__ import annotations

import pytest

from karpenter_gpu import KarpenterGpuError, MigCapacityOverlay
from karpenter_gpu.apiserver.conformance import check
from tests.conftest import manifests

BASE = dict(name="gpu-mig-p5-48xlarge", weight=200, node_pool="gpu-mig", instance_type="p5.48xlarge",
            capacity={"nvidia.com/mig-1g.10gb": 56})


def test_renders_exact_requirements_and_capacity(chart, crds):
    MigCapacityOverlay(chart, "P5", **BASE)
    [overlay] = manifests(chart)
    assert overlay["spec"] == {
        "requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["p5.48xlarge"]},
                         {"key": "karpenter.sh/nodepool", "operator": "In", "values": ["gpu-mig"]}],
        "capacity": {"nvidia.com/mig-1g.10gb": "56"}, "weight": 200}
    assert check(overlay, crds) == []


@pytest.mark.parametrize("capacity", [{"cpu": 1}, {"nvidia.com/mig-1g.10gb": -1}, {}, {"aws.amazon.com/neuron": 1}])
def test_fails_on_bad_capacity(chart, capacity):
    with pytest.raises(KarpenterGpuError) as err:
        MigCapacityOverlay(chart, "P5", **{**BASE, "capacity": capacity})
    assert err.value.code == "KG181"


@pytest.mark.parametrize(("prop", "value"), [("instance_type", "P5.48XLARGE"), ("node_pool", ""),
                                             ("instance_type", ("p5.48xlarge",))])
def test_fails_on_bad_match(chart, prop, value):
    with pytest.raises(KarpenterGpuError) as err:
        MigCapacityOverlay(chart, "P5", **{**BASE, prop: value})
    assert err.value.code == "KG182"
