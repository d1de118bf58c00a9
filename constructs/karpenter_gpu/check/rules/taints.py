"""Taints: what keeps other pods off GPU nodes, and the device plugins on them (KG402)."""

from __future__ import annotations

from karpenter_gpu.apiserver.findings import Severity
from karpenter_gpu.check.rules._model import RuleEnvironment, as_dict, as_list
from karpenter_gpu.check.rules._registry import rule
from karpenter_gpu.k8s.labels import AMD_GPU, NVIDIA_GPU

_ISOLATING_EFFECTS = ("NoSchedule", "NoExecute")


@rule("KG402", Severity.WARNING, "GPU pool without a NoSchedule/NoExecute taint on nvidia.com/gpu")
def kg402_gpu_taint(env: RuleEnvironment) -> None:
    """What it checks: a GPU or Neuron NodePool without a NoSchedule/NoExecute taint keyed on its device resource
    (``nvidia.com/gpu``, ``amd.com/gpu``, ``aws.amazon.com/neuron``).

    Why it matters: without an isolating taint any pod that fits (batch, web or system pods without GPU requests)
    lands on GPU nodes, gets them launched for CPU work and keeps them from consolidating. With another taint
    only, the device plugin DaemonSets (which tolerate the resource taint by default) stay off the nodes and the
    GPUs never appear in allocatable.

    Fix: add the taint ``<resource>=true:NoSchedule`` to ``spec.template.spec.taints`` and tolerate it in GPU
    pods.

    Upstream: kubernetes ``k8s.io/component-helpers/scheduling/corev1`` ``TolerationsTolerateTaint``; the NVIDIA
    device plugin and GPU Operator charts' default tolerations (``nvidia.com/gpu`` Exists).
    """
    for pool in env.pools:
        if not pool.is_gpu:
            continue
        taints = [as_dict(t) for t in as_list(pool.tspec.get("taints"))]
        isolating = [t for t in taints if t.get("effect") in _ISOLATING_EFFECTS]
        resource = pool.gpu_resource()
        if any(t.get("key") in (NVIDIA_GPU, AMD_GPU, resource) for t in isolating):
            continue
        plugin = "Neuron device plugin DaemonSet tolerates" if pool.is_neuron else \
            "NVIDIA device plugin and GPU Operator DaemonSets tolerate"
        if not isolating:
            pool.add("KG402", "spec.template.spec.taints",
                     "GPU pool without a NoSchedule/NoExecute taint: any pod that fits (batch, web or system pods "
                     "without GPU requests) can land on $30+/h GPU nodes, get them launched for CPU work and keep them "
                     f"from consolidating; fix: add taint {resource}=true:NoSchedule to spec.template.spec.taints and "
                     "tolerate it in GPU pods")
            continue
        names = ", ".join(f"{t.get('key')}={t.get('value', '')}:{t.get('effect')}" for t in isolating)
        pool.add("KG402", "spec.template.spec.taints",
                 f"GPU pool tainted only with {names}, not {resource}: the {plugin} {resource} by default, not this "
                 f"taint, so unless each gets an extra toleration they stay off the node, {resource} never appears in "
                 f"allocatable and GPU pods stay Pending; fix: add taint {resource}=true:NoSchedule (keep the other "
                 "taint if you need it)")
