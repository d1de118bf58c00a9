"""Accelerator kinds: what a pool limits, how it selects its instances, how it keeps other pods off.

One table for the constructs, the rules, the simulator and the workloads, so that "a pool of NVIDIA
GPUs" and "a pool of Neuron devices" differ only in data (pure Python, no jsii):

- NVIDIA: ``nvidia.com/gpu`` (``nvidiaGPUs``), selected by ``instance-gpu-*`` labels, tainted
  ``nvidia.com/gpu`` (the key the NVIDIA device plugin and GPU Operator tolerate).
- Neuron (Inferentia, Trainium): ``aws.amazon.com/neuron`` devices (``awsNeuronDevices``) and
  ``aws.amazon.com/neuroncore`` (``awsNeuronCores``: devices x cores per device), selected by the
  ``instance-accelerator-*`` labels that ``computeRequirements`` sets from EC2 ``NeuronInfo`` (name
  lower-kebab, manufacturer "aws", count = devices), tainted ``aws.amazon.com/neuron`` (the key the
  Neuron device plugin's DaemonSet tolerates in the ``neuron-helm-chart`` values).

Sources: aws/karpenter-provider-aws v1.14.1 ``pkg/providers/instancetype/types.go`` (``computeRequirements``,
``computeCapacity``, ``awsNeuronDevices``, ``awsNeuronCores``) and ``pkg/apis/v1/labels.go`` (the label keys,
``ResourceAWSNeuron``, ``ResourceAWSNeuronCore``).
"""

from __future__ import annotations

from dataclasses import dataclass

from karpenter_gpu.k8s.labels import AMD_GPU, NEURON, NEURON_CORE, NVIDIA_GPU, Label

__all__ = ["ACCELERATORS", "AMD", "NEURON_ACCELERATOR", "NEURON_NAMES", "NVIDIA", "Accelerator"]


@dataclass(frozen=True)
class Accelerator:
    """One accelerator kind as Karpenter sees it."""

    #: Short name used in messages and pod shapes ("gpu", "neuron").
    kind: str
    #: The device resource: what pool limits cap and what a whole-device pod requests.
    resource: str
    #: Every resource of this kind a pod may request (Neuron: devices or cores).
    resources: tuple[str, ...]
    #: The taint key the kind's device plugin tolerates by default.
    taint_key: str
    #: Instance-type labels: name, manufacturer and count of the accelerator.
    name_label: str
    manufacturer_label: str
    count_label: str
    #: The value of ``manufacturer_label`` on this kind's instances.
    manufacturer: str

    def describe(self) -> str:
        return f"{self.kind} ({self.resource})"


NVIDIA = Accelerator("gpu", NVIDIA_GPU, (NVIDIA_GPU,), NVIDIA_GPU, Label.GPU_NAME, Label.GPU_MANUFACTURER,
                     Label.GPU_COUNT, "nvidia")
AMD = Accelerator("amd-gpu", AMD_GPU, (AMD_GPU,), AMD_GPU, Label.GPU_NAME, Label.GPU_MANUFACTURER,
                  Label.GPU_COUNT, "amd")
NEURON_ACCELERATOR = Accelerator("neuron", NEURON, (NEURON, NEURON_CORE), NEURON, Label.ACCELERATOR_NAME,
                                 Label.ACCELERATOR_MANUFACTURER, Label.ACCELERATOR_COUNT, "aws")
ACCELERATORS: tuple[Accelerator, ...] = (NVIDIA, AMD, NEURON_ACCELERATOR)

#: ``instance-accelerator-name`` values of Neuron instances (EC2 NeuronInfo device names, lower-kebab) and
#: the NeuronCores per device (``aws.amazon.com/neuroncore`` / ``aws.amazon.com/neuron`` in the catalog).
NEURON_NAMES: dict[str, int] = {"inferentia": 4, "inferentia2": 2, "trainium": 2, "trainium2": 8}

