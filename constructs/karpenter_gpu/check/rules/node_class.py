"""Node classes: the AMI an EC2NodeClass follows, and node settings written in the wrong object (KG411, KG415)."""

from __future__ import annotations

from karpenter_gpu.apiserver.findings import Severity
from karpenter_gpu.check.rules._model import RuleEnvironment, as_dict, as_list
from karpenter_gpu.check.rules._registry import rule
from karpenter_gpu.k8s.labels import NODE_CLASS_KIND

#: The environment name in which KG411 (``@latest`` AMI alias) is an error.
PROD_ENVIRONMENT = "prod"


@rule("KG411", Severity.WARNING, "@latest AMI alias (error in prod)")
def kg411_latest_alias(env: RuleEnvironment) -> None:
    """What it checks: an EC2NodeClass ``amiSelectorTerms`` alias ending in ``@latest``; an error in the
    environment named ``prod``.

    Why it matters: the alias follows the newest EKS AMI, so every AMI release drifts and replaces every node of
    the class (running GPU jobs included) and changes the NVIDIA driver without review.

    Fix: pin a version (e.g. ``al2023@v20251103``, ``bottlerocket@v1.x.y``; Windows: an id or ssmParameter term)
    and roll it forward deliberately.

    Upstream: aws/karpenter-provider-aws v1.14.1 ``pkg/providers/amifamily/ami.go`` (alias resolution) and
    ``pkg/cloudprovider/drift.go`` (``AMIDrift``).
    """
    prod = env.name == PROD_ENVIRONMENT
    for obj in env.of_kind(NODE_CLASS_KIND):
        for i, raw in enumerate(as_list(obj.spec.get("amiSelectorTerms"))):
            alias = as_dict(raw).get("alias")
            if not isinstance(alias, str) or not alias.endswith("@latest"):
                continue
            family = alias.split("@", 1)[0]
            pin = ("Windows aliases accept only 'latest': pin with an id or ssmParameter term and amiFamily"
                   if family.startswith("windows") else
                   "pin a version, e.g. bottlerocket@v1.x.y" if family == "bottlerocket" else
                   f"pin a version, e.g. {family}@vYYYYMMDD such as {family}@v20251103")
            obj.add("KG411", f"spec.amiSelectorTerms[{i}].alias",
                    f"alias {alias!r} follows the newest EKS AMI: every AMI release drifts and replaces every node of "
                    "this class (running GPU jobs included) and changes the NVIDIA driver without review"
                    f"{' — not acceptable in prod' if prod else ''}; fix: {pin}, and roll it forward deliberately",
                    severity=Severity.ERROR if prod else None)


@rule("KG415", Severity.WARNING, "kubelet in a NodePool (v1 moved it to EC2NodeClass; pruned silently)")
def kg415_kubelet(env: RuleEnvironment) -> None:
    """What it checks: a ``kubelet`` block in a NodePool (``spec``, ``spec.template`` or
    ``spec.template.spec``).

    Why it matters: karpenter.sh/v1 moved kubelet settings to the EC2NodeClass; the API server prunes the field
    silently, so the settings never reach the nodes.

    Fix: move them to ``spec.kubelet`` of the EC2NodeClass named in ``nodeClassRef``.

    Upstream: kubernetes-sigs/karpenter v1.14.1 ``pkg/apis/v1/nodepool.go`` (no kubelet field) and
    aws/karpenter-provider-aws ``pkg/apis/v1/ec2nodeclass.go`` ``KubeletConfiguration``.
    """
    for pool in env.pools:
        where = [("spec.kubelet", pool.spec), ("spec.template.kubelet", pool.template),
                 ("spec.template.spec.kubelet", pool.tspec)]
        node_class = as_dict(pool.tspec.get("nodeClassRef")).get("name") or "its EC2NodeClass"
        for path, holder in where:
            if "kubelet" not in holder:
                continue
            keys = ", ".join(sorted(str(k) for k in as_dict(holder["kubelet"]))) or "its settings"
            pool.add("KG415", path,
                     f"{path} is not a NodePool field in karpenter.sh/v1: kubelet settings moved to the EC2NodeClass "
                     f"and the API server prunes this field silently, so {keys} never reach the nodes; fix: move them "
                     f"to spec.kubelet of the EC2NodeClass named in nodeClassRef ({node_class})")
