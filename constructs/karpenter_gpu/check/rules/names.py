"""Names that Karpenter copies into label values (KG461)."""

from __future__ import annotations

from karpenter_gpu.apiserver.findings import Severity
from karpenter_gpu.check.rules._model import RuleEnvironment
from karpenter_gpu.check.rules._registry import rule
from karpenter_gpu.k8s.labels import NODE_CLASS_KIND

#: The longest label value (apimachinery ``validation.LabelValueMaxLength``).
LABEL_VALUE_MAX = 63
_LABEL_OF = {"NodePool": "karpenter.sh/nodepool", NODE_CLASS_KIND[1]: "karpenter.k8s.aws/ec2nodeclass"}


@rule("KG461", Severity.ERROR, "NodePool or EC2NodeClass name longer than a label value (63 characters)")
def kg461_name_is_a_label_value(env: RuleEnvironment) -> None:
    """What it checks: a NodePool or EC2NodeClass whose ``metadata.name`` is longer than 63 characters.

    Why it matters: the API server accepts names up to 253 characters, but Karpenter labels every NodeClaim it
    creates with ``karpenter.sh/nodepool: <NodePool name>`` and ``karpenter.k8s.aws/ec2nodeclass: <EC2NodeClass
    name>``, and a label value holds at most 63 characters: the API server refuses each NodeClaim, so the pool
    never launches a node.

    Fix: rename the object to at most 63 characters (and the references to it: nodeClassRef, pod selectors).

    Upstream: kubernetes-sigs/karpenter v1.14.1 ``pkg/controllers/provisioning/scheduling/nodeclaimtemplate.go``
    (``NewNodeClaimTemplate``: the nodepool and node-class labels), k8s.io/apimachinery
    ``pkg/util/validation.IsValidLabelValue`` (``LabelValueMaxLength`` 63).
    """
    objects = [*env.pools, *env.of_kind(NODE_CLASS_KIND)]
    for obj in objects:
        if len(obj.name) > LABEL_VALUE_MAX:
            label = _LABEL_OF[obj.kind]
            obj.add("KG461", "metadata.name",
                    f"name of {len(obj.name)} characters: Karpenter labels every NodeClaim {label}=<name>, and a "
                    f"label value holds at most {LABEL_VALUE_MAX}, so the API server refuses each NodeClaim and no "
                    f"node launches; fix: rename it to at most {LABEL_VALUE_MAX} characters")
