"""Neuron: AWS Inferentia and Trainium pools and the pods on them (KG455, KG456)."""

from __future__ import annotations

from karpenter_gpu.analysis.catalog import default_catalog
from karpenter_gpu.apiserver.findings import Severity
from karpenter_gpu.check.rules._model import NEURON_FAMILY, RuleEnvironment, Req
from karpenter_gpu.check.rules._registry import rule
from karpenter_gpu.k8s.accelerators import NEURON_NAMES
from karpenter_gpu.k8s.labels import NEURON, NEURON_CORE, Label
from karpenter_gpu.k8s.scheduling import Requirement


def _admitted(r: Req) -> tuple[list[str], list[str], list[str]]:
    """(devices, admitted, left out): the Neuron devices the requirement's values name, and the catalog's instance
    types with those devices that the requirement itself admits or leaves out (by its key: the type's name or its
    family)."""
    core = Requirement.new(r.key, "In", r.values or [])
    neuron = [it for it in default_catalog() if it.accelerator_name in NEURON_NAMES]
    admitted = [it for it in neuron if core.has(it.name if r.key == Label.INSTANCE_TYPE else it.family or "")]
    devices = {str(it.accelerator_name) for it in admitted}
    left_out = [it.name for it in neuron if it.accelerator_name in devices and it not in admitted]
    return sorted(devices), [it.name for it in admitted], left_out


@rule("KG455", Severity.WARNING, "Neuron pool selected by instance-type or family names instead of accelerator labels")
def kg455_neuron_by_name(env: RuleEnvironment) -> None:
    """What it checks: a Neuron NodePool selected by ``node.kubernetes.io/instance-type In`` or
    ``karpenter.k8s.aws/instance-family In`` instead of the accelerator labels. What the selection leaves out is
    computed from the requirement itself against the catalog: an instance-type list admits only the sizes it
    names, a family admits every size of the family but no other family with the same device (trn1 leaves out
    trn1n). A family selection that leaves out nothing the catalog knows is not reported.

    Why it matters: a type the selection leaves out is never launched, and one shortage of the listed types leaves
    pods Pending; the accelerator labels admit every type of the device.

    Fix: select by ``karpenter.k8s.aws/instance-accelerator-name In [<device>]`` and
    ``instance-accelerator-manufacturer In [aws]`` (NeuronInferencePool / NeuronTrainingPool render them), with
    instance-size to bound the shape.

    Upstream: aws/karpenter-provider-aws v1.14.1 ``pkg/providers/instancetype/types.go`` ``computeRequirements``
    (every Neuron type carries ``instance-accelerator-name`` and ``instance-accelerator-manufacturer: aws``).
    """
    for pool in env.pools:
        if not pool.is_neuron or any(r.key == Label.ACCELERATOR_NAME and r.op == "In" for r in pool.selection):
            continue
        named = next((r for r in pool.reqs if r.key in (Label.INSTANCE_TYPE, Label.INSTANCE_FAMILY) and r.op == "In"
                      and r.values and any(NEURON_FAMILY.match(v.split(".", 1)[0]) for v in r.values)), None)
        if named is None:
            continue
        devices, admitted, left_out = _admitted(named)
        by_type = named.key == Label.INSTANCE_TYPE
        if not by_type and not left_out:
            continue  # every type of the catalog with those devices is in the listed families
        if by_type:
            effect = (f"it admits only the {len(admitted)} listed type(s) ({', '.join(admitted) or 'none known'})"
                      + (f" and leaves out {', '.join(left_out)}, which have the same device" if left_out else "")
                      + "; a size added later is not admitted either")
        else:
            effect = (f"it admits every size of {', '.join(named.values or [])} but leaves out {', '.join(left_out)}, "
                      "which have the same device")
        pool.add("KG455", named.path,
                 f"Neuron pool selected by {named.key} In {named.values}: {effect}, so those are never launched, and "
                 "one shortage of the admitted types leaves pods Pending; fix: select by the accelerator labels "
                 f"Karpenter sets on every Neuron type, karpenter.k8s.aws/instance-accelerator-name In "
                 f"{devices or sorted(NEURON_NAMES)} and instance-accelerator-manufacturer In [aws] "
                 "(NeuronInferencePool / NeuronTrainingPool render them), with instance-size to bound the shape")


@rule("KG456", Severity.INFO, "Neuron request that is not a power of two")
def kg456_neuron_power_of_two(env: RuleEnvironment) -> None:
    """What it checks: a pod requesting a number of ``aws.amazon.com/neuron`` devices or ``neuroncore`` cores that
    is not a power of two.

    Why it matters: the Neuron device plugin allocates contiguous devices and cores, and Karpenter, which cannot
    see the Neuron scheduler extension, packs such requests as if any would do, so a node it launches may not hold
    the pod.

    Fix: request a power of two (1, 2, 4, 8 …).

    Upstream: Karpenter docs, "Extended resources" (Neuron: request like-sized powers of two); the Neuron scheduler
    extension's topology-aware allocation.
    """
    for work in env.workloads:
        totals = work.requests or {}
        for resource in (NEURON, NEURON_CORE):
            amount = totals.get(resource)
            if amount is None or amount != amount.to_integral_value() or amount < 1:
                continue
            count = int(amount)
            if count & (count - 1):
                work.add("KG456", f"{work.pod_path}.containers",
                         f"the pod requests {count} {resource}: the Neuron device plugin allocates contiguous devices "
                         "and cores, and Karpenter, which cannot see the Neuron scheduler extension, packs such "
                         "requests as if any would do, so a node it launches may not hold the pod; fix: request a "
                         f"power of two (e.g. {1 << (count.bit_length() - 1)} or {1 << count.bit_length()})")
