"""The accelerator table: what a pool limits, how it selects its instances, what it is tainted with."""

from __future__ import annotations

from karpenter_gpu.analysis.catalog import default_catalog
from karpenter_gpu.k8s.accelerators import ACCELERATORS, NEURON_ACCELERATOR, NEURON_NAMES, NVIDIA


def test_neuron_names_and_cores_agree_with_the_catalog():
    # types.go awsNeuronCores = devices x cores per device; the catalog records both resources.
    seen: dict[str, set[int]] = {}
    for it in default_catalog():
        if it.labels.get(NEURON_ACCELERATOR.manufacturer_label) != NEURON_ACCELERATOR.manufacturer:
            continue
        devices = int(it.allocatable[NEURON_ACCELERATOR.resource])
        assert devices == int(it.labels[NEURON_ACCELERATOR.count_label])
        seen.setdefault(it.accelerator_name or "", set()).add(int(it.allocatable["aws.amazon.com/neuroncore"]) // devices)
    assert {name: cores.pop() for name, cores in seen.items() if len(cores) == 1} == NEURON_NAMES


def test_each_kind_has_its_own_resource_and_taint():
    assert [a.resource for a in ACCELERATORS] == ["nvidia.com/gpu", "amd.com/gpu", "aws.amazon.com/neuron"]
    assert NVIDIA.taint_key == "nvidia.com/gpu" and NEURON_ACCELERATOR.taint_key == "aws.amazon.com/neuron"
    assert NEURON_ACCELERATOR.resources == ("aws.amazon.com/neuron", "aws.amazon.com/neuroncore")
    assert NEURON_ACCELERATOR.name_label == "karpenter.k8s.aws/instance-accelerator-name"
