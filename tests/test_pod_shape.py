"""The ``--pod`` shorthand read into a pod's requests, tolerations, node selector and required affinity."""

from __future__ import annotations

from decimal import Decimal

import pytest

from karpenter_gpu.analysis.pod_shape import PodShape
from karpenter_gpu.errors import KarpenterGpuError
from tests.test_simulator import AWS


def test_pod_shape_parse():
    shape = PodShape.parse("gpus=2,cpu=500m,memory=16Gi,tolerate=nvidia.com/gpu,select=a=b,select=c=d,"
                           f"affinity={AWS}gpu-count:Gt:1")
    assert shape.gpus == 2 and shape.cpu == Decimal("0.5") and shape.memory == 16 * 2**30
    assert shape.tolerations == ({"operator": "Exists", "key": "nvidia.com/gpu"},)
    assert dict(shape.node_selector) == {"a": "b", "c": "d"}
    assert shape.required_affinity == ({"key": AWS + "gpu-count", "operator": "Gt", "values": ["1"]},)
    default = PodShape()
    assert (default.gpus, default.cpu, default.memory) == (1, Decimal(1), 2**30)
    for bad in ("gpus=-1", "cpu=lots", "colour=red", "select=nokey", "affinity=x:Sorta:1", "tolerate=a:Never", "gpus"):
        with pytest.raises(KarpenterGpuError) as info:
            PodShape.parse(bad)
        assert info.value.code == "KG710"


def test_pod_shape_names_a_mig_resource():
    shape = PodShape.parse("mig-1g.10gb=2,tolerate=nvidia.com/gpu")
    assert (shape.gpu_resource, shape.gpus) == ("nvidia.com/mig-1g.10gb", 2)
    assert PodShape.parse("nvidia.com/mig-2g.20gb=1").gpu_resource == "nvidia.com/mig-2g.20gb"
    assert PodShape.parse("gpus=1,resource=nvidia.com/mig-1g.10gb").gpu_resource == "nvidia.com/mig-1g.10gb"
    assert PodShape.parse("mig-1g.10gb=1").describe().startswith("nvidia.com/mig-1g.10gb=1")
    for bad in ("mig-1g.10gb=0", "mig-1g.10gb=x", "gpus=2,mig-1g.10gb=1", "mig-1g.10gb=1,nvidia.com/mig-2g.20gb=1"):
        with pytest.raises(KarpenterGpuError) as err:
            PodShape.parse(bad)
        assert err.value.code == "KG710"


def test_pod_shape_neuron_keys_request_neuron_resources():
    shape = PodShape.parse("neuron=2,cpu=4")
    assert (shape.gpus, shape.gpu_resource) == (2, "aws.amazon.com/neuron")
    cores = PodShape.parse("neuroncore=8")
    assert (cores.gpus, cores.gpu_resource) == (8, "aws.amazon.com/neuroncore")
    assert cores.describe().startswith("aws.amazon.com/neuroncore=8")
