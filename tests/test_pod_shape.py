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


def test_res_gives_any_resource():
    shape = PodShape.parse("gpus=1,res=vpc.amazonaws.com/efa:1,ephemeral-storage:50Gi,cpu=2,res=hugepages-2Mi:1Gi")
    assert shape.resources == {"vpc.amazonaws.com/efa": Decimal(1), "ephemeral-storage": Decimal(50 * 2**30),
                               "hugepages-2Mi": Decimal(2**30)}
    assert shape.cpu == 2
    assert shape.requests() == {"cpu": Decimal(2), "memory": Decimal(2**30), "nvidia.com/gpu": Decimal(1),
                                **shape.resources}
    assert shape.describe() == ("nvidia.com/gpu=1, cpu=2, memory=1Gi, ephemeral-storage=50Gi, hugepages-2Mi=1Gi, "
                                "vpc.amazonaws.com/efa=1")
    # EKS's ExtendedResourceToleration covers every extended resource the pod names, zero amounts too
    keys = {t["key"] for t in PodShape.parse("gpus=0,res=example.com/foo:0").admitted_tolerations()}
    assert keys == {"example.com/foo"}
    # the old syntax is unchanged
    assert PodShape.parse("gpus=2,cpu=4,memory=16Gi").resources == {}


@pytest.mark.parametrize("text", ["res=efa", "res=vpc.amazonaws.com/efa:-1", "res=vpc.amazonaws.com/efa:1.5",
                                  "res=Bad_Name/x:1", "res=ephemeral-storage:lots", "res=cpu:2",
                                  "gpus=1,res=nvidia.com/gpu:2", "res=:1"])
def test_res_refuses_bad_input(text):
    with pytest.raises(KarpenterGpuError) as err:
        PodShape.parse(text)
    assert err.value.code == "KG710"


def test_of_pod_reads_every_resource_as_karpenter_does():
    """``resources.Ceiling(pod).Requests`` (``PodRequests``): containers summed, limits for missing requests, the
    largest init container (with the sidecars started before it) when larger, sidecars added, the overhead added,
    pod-level requests over the containers' cpu and memory."""
    spec = {
        "containers": [
            {"name": "a", "resources": {"requests": {"cpu": "1", "ephemeral-storage": "5Gi"},
                                        "limits": {"nvidia.com/gpu": "2", "vpc.amazonaws.com/efa": "1"}}},
            {"name": "b", "resources": {"limits": {"memory": "2Gi", "ephemeral-storage": "1Gi"}}},
        ],
        "initContainers": [
            {"name": "unpack", "resources": {"requests": {"ephemeral-storage": "40Gi", "example.com/foo": "0"}}},
            {"name": "proxy", "restartPolicy": "Always", "resources": {"requests": {"cpu": "500m"}}},
        ],
        "overhead": {"memory": "100Mi"},
        "tolerations": [{"key": "x", "operator": "Exists"}],
        "nodeSelector": {"topology.kubernetes.io/zone": "us-east-1a"},
    }
    shape = PodShape.of_pod(spec)
    assert (shape.gpus, shape.gpu_resource, shape.cpu, shape.memory) == (2, "nvidia.com/gpu", Decimal("1.5"),
                                                                           Decimal(2 * 2**30 + 100 * 2**20))
    assert shape.resources == {"ephemeral-storage": Decimal(40 * 2**30), "vpc.amazonaws.com/efa": Decimal(1),
                               "example.com/foo": Decimal(0)}
    level = PodShape.of_pod({**spec, "resources": {"requests": {"cpu": "8"}, "limits": {"memory": "64Gi"}}})
    assert level.cpu == 8 and level.memory == 2 * 2**30 + 100 * 2**20  # containers give memory: the limit waits
    bare = PodShape.of_pod({"containers": [{"name": "a"}], "resources": {"limits": {"memory": "4Gi"}}})
    assert bare.memory == 4 * 2**30  # no container asks for memory: the pod-level limit is the request
    with pytest.raises(KarpenterGpuError) as err:
        PodShape.of_pod({"containers": [{"name": "a", "resources": {"requests": {"ephemeral-storage": "x"}}}]})
    assert err.value.code == "KG711"
