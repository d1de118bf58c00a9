"""Decoding: objects the API server stores that Karpenter, or the kubelet, cannot read or launch from (KG470-KG474)."""

from __future__ import annotations

from karpenter_gpu.apiserver.findings import Severity
from karpenter_gpu.check.rules._model import RuleEnvironment, RuleObject
from karpenter_gpu.check.rules._registry import rule
from karpenter_gpu.errors import echo
from karpenter_gpu.k8s.go_decode import DecodeProblem, decode_problems, unlaunchable_mappings, zero_volume_sizes
from karpenter_gpu.k8s.labels import NODE_CLASS_KIND, OVERLAY_KIND

#: Where a value's problem lies: the informer (KG470), the provider's instance types (KG471), the kubelet (KG472).
_INFORMER, _PROVIDER, _KUBELET = "KG470", "KG471", "KG472"


def _code(problem: DecodeProblem) -> str:
    if problem.reader == "kubelet":
        return _KUBELET
    return _PROVIDER if "MustParse" in problem.why else _INFORMER


def _report(obj: RuleObject, code: str) -> None:
    for problem in decode_problems(obj.manifest):
        if _code(problem) != code:
            continue
        if code == _INFORMER:
            effect = (f"the API server stores it, but {problem.why}: while it is stored, Karpenter's list of "
                      f"{obj.kind} objects fails as a whole (one item it cannot decode fails the list), so it sees none")
        elif code == _PROVIDER:
            effect = (f"the API server stores it, but {problem.why} (the provider cannot build instance types from "
                      "this class), so Karpenter launches nothing from it")
        else:
            effect = f"the API server and Karpenter pass it to the node, but {problem.why}"
        obj.add(code, problem.path,
                f"{problem.path}={echo(problem.value)}: {effect}; allowed: {problem.allowed}; fix: write the value "
                "in that form")


@rule("KG470", Severity.ERROR, "value the API server stores but Karpenter's informer cannot decode")
def kg470_informer_decode(env: RuleEnvironment) -> None:
    """What it checks: values the CRD patterns admit but Karpenter's Go types refuse when its informer decodes the
    object: a NodePool ``spec.limits`` or NodeOverlay ``spec.capacity`` quantity ``ParseQuantity`` refuses (an
    exponent with a fraction, ``1e3.5``, ``.3E+0.``), a kubelet ``evictionSoftGracePeriod`` ``time.ParseDuration`` refuses (no pattern), a number outside int32 on an
    int32 field the CRD gives no bounds (``networkInterfaces[].deviceIndex``, ``kubelet.maxPods``, ...).

    Why it matters: ``kubectl apply`` succeeds, but Karpenter cannot decode the object; the list its informer
    makes of that kind fails as a whole while the object is stored, so Karpenter sees none of them.

    Fix: write the quantity with an integer exponent or a unit (``1e3``, ``100Mi``), the duration with a unit
    (``1m30s``), the integer within int32.

    Upstream: k8s.io/apimachinery v0.35 ``pkg/api/resource/quantity.go`` ``ParseQuantity`` (called by
    ``Quantity.UnmarshalJSON``) and ``pkg/apis/meta/v1/duration.go`` ``Duration.UnmarshalJSON``; the types of
    kubernetes-sigs/karpenter v1.14.1 ``pkg/apis/v1/nodepool.go``, ``pkg/apis/v1alpha1/nodeoverlay.go`` and
    aws/karpenter-provider-aws v1.14.1 ``pkg/apis/v1/ec2nodeclass.go``.
    """
    for obj in [*env.pools, *env.of_kind(OVERLAY_KIND), *env.of_kind(NODE_CLASS_KIND)]:
        _report(obj, _INFORMER)


@rule("KG471", Severity.ERROR, "kubelet reserved resource or hard eviction threshold the provider cannot parse")
def kg471_provider_parse(env: RuleEnvironment) -> None:
    """What it checks: an EC2NodeClass ``spec.kubelet`` ``kubeReserved`` or ``systemReserved`` value, or an
    ``evictionHard`` ``memory.available`` / ``nodefs.available`` value, that the CRD pattern admits and
    ``ParseQuantity`` refuses (an exponent with a fraction, an empty threshold).

    Why it matters: these maps are strings in Karpenter's types; the AWS provider parses them with
    ``resource.MustParse`` when it builds the class's instance types, which panics: Karpenter launches nothing from
    the class.

    Fix: write the value as a quantity (``100Mi``, ``1e3``) or, for an eviction threshold, a percentage (``5%``).

    Upstream: aws/karpenter-provider-aws v1.14.1 ``pkg/providers/instancetype/types.go``
    ``kubeReservedResources``, ``systemReservedResources``, ``evictionThreshold`` and ``computeEvictionSignal``.
    """
    for obj in env.of_kind(NODE_CLASS_KIND):
        _report(obj, _PROVIDER)


@rule("KG472", Severity.ERROR, "kubelet eviction threshold the kubelet refuses (nodes never register)")
def kg472_kubelet_parse(env: RuleEnvironment) -> None:
    """What it checks: an EC2NodeClass ``spec.kubelet.evictionSoft`` value, or an ``evictionHard`` value of a
    signal Karpenter does not compute with, that the CRD pattern admits and ``ParseQuantity`` refuses (an exponent
    with a fraction, an empty threshold).

    Why it matters: Karpenter passes these strings to the node's kubelet unread; the kubelet parses its eviction
    thresholds with ``ParseQuantity`` and refuses the configuration, so nodes of the class launch, are paid for and
    never register.

    Fix: write the threshold as a quantity (``500Mi``) or a percentage (``10%``).

    Upstream: aws/karpenter-provider-aws v1.14.1 ``pkg/providers/amifamily/bootstrap`` (thresholds passed as
    written) and kubernetes ``pkg/kubelet/eviction/api`` ``ParseThresholdConfig``.
    """
    for obj in env.of_kind(NODE_CLASS_KIND):
        _report(obj, _KUBELET)


@rule("KG473", Severity.WARNING, "block device mapping without deviceName or ebs: nothing launches from the class")
def kg473_incomplete_mapping(env: RuleEnvironment) -> None:
    """What it checks: an EC2NodeClass ``spec.blockDeviceMappings`` entry without ``deviceName`` or without
    ``ebs`` (both optional in the CRD).

    Why it matters: Karpenter v1.14.1 dereferences both: ``ebs`` of every mapping when it writes the launch
    template, ``deviceName`` and ``ebs`` when it sizes the node's ephemeral storage. It panics (or EC2 refuses a
    launch template without a device name): Karpenter launches nothing from the class.

    Fix: give every mapping a ``deviceName`` (``/dev/xvda`` is the AL2023 root volume) and an ``ebs`` block
    (``volumeSize``, ``volumeType``), or remove the mapping.

    Upstream: aws/karpenter-provider-aws v1.14.1 ``pkg/providers/launchtemplate/launchtemplate.go``
    ``blockDeviceMappings`` and ``pkg/providers/instancetype/types.go`` ``ephemeralStorage``.
    """
    for obj in env.of_kind(NODE_CLASS_KIND):
        for index, missing in unlaunchable_mappings(obj.manifest):
            obj.add("KG473", f"spec.blockDeviceMappings[{index}]",
                    f"block device mapping {index} has no {missing}: Karpenter dereferences both when it "
                    "sizes ephemeral storage and writes the launch template, and panics, so it launches nothing "
                    "from this EC2NodeClass; fix: give the mapping a deviceName (e.g. /dev/xvda) and an ebs block, "
                    "or remove it")


@rule("KG474", Severity.WARNING, "EBS volumeSize Karpenter reads as zero ('T', 'Ti': no number before the unit)")
def kg474_zero_volume(env: RuleEnvironment) -> None:
    """What it checks: an EC2NodeClass ``ebs.volumeSize`` of ``T`` or ``Ti``, which the CRD pattern admits (an empty
    alternative before the unit) and ``ParseQuantity`` reads as zero.

    Why it matters: Karpenter decodes it as 0 bytes: the launch template asks EC2 for a 0 GiB volume, and a root
    volume of 0 gives the node no ephemeral storage in Karpenter's scheduling, so pods requesting any never fit.

    Fix: write the size with a number (``100Gi``, ``1Ti``).

    Upstream: k8s.io/apimachinery v0.35 ``pkg/api/resource/quantity.go`` ``ParseQuantity`` (no digits read as 0);
    aws/karpenter-provider-aws v1.14.1 ``pkg/providers/launchtemplate/launchtemplate.go`` ``volumeSize`` and
    ``pkg/providers/instancetype/types.go`` ``ephemeralStorage``.
    """
    for obj in env.of_kind(NODE_CLASS_KIND):
        for index, size in zero_volume_sizes(obj.manifest):
            obj.add("KG474", f"spec.blockDeviceMappings[{index}].ebs.volumeSize",
                    f"volumeSize {echo(size)} has no number: Karpenter's ParseQuantity reads it as 0 bytes, so the "
                    "launch template asks EC2 for a 0 GiB volume and the node offers no ephemeral storage; allowed: "
                    "a size with a number, e.g. '100Gi'; fix: write the size you mean, e.g. '100Gi' or '1Ti'")
