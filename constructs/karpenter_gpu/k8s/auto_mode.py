"""What the EKS user guide documents about the Auto Mode ``NodeClass`` (eks.amazonaws.com/v1), in pure Python.

AWS publishes no CRD for it, so these documented facts stand in for a schema: the construct
(:class:`~karpenter_gpu.pools.auto_mode_node_class.AutoModeNodeClass`) enforces them on props and ``validate``
(KG443) on hand-written manifests. Source: "Create a Node Class for Amazon EKS",
https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html (Node Class Specification).
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from karpenter_gpu.k8s.labels import AUTO_MODE_GROUP, AWS_GROUP, CANONICAL_KEYS, COMPUTE_TYPE, auto_mode_key
from karpenter_gpu.k8s.units import Duration

__all__ = ["AUTO_MODE_MAX_EXPIRY", "DOCUMENTED_FIELDS", "IOPS", "RESTRICTED_TAGS", "THROUGHPUT", "WrongFlavour",
           "beyond_auto_mode_lifetime", "check_node_class_spec", "check_size", "restricted_tag", "wrong_flavour_key"]

#: EKS Auto Mode's maximum node lifetime: 21 days ("nodes launched by EKS Auto Mode have a maximum lifetime of
#: 21 days (which you can reduce)", https://docs.aws.amazon.com/eks/latest/userguide/automode.html; "EKS Auto Mode
#: automatically terminates instances exceeding this lifetime",
#: https://docs.aws.amazon.com/eks/latest/userguide/auto-security.html).
AUTO_MODE_MAX_EXPIRY = Duration.days(21)


def beyond_auto_mode_lifetime(expiry: Duration) -> bool:
    """Whether an ``expireAfter`` promises more than Auto Mode keeps a node: Never, or above 21 days. The pool
    construct refuses it (KG205), ``validate`` warns about a written one (KG440)."""
    return expiry.is_never or expiry.total_seconds > AUTO_MODE_MAX_EXPIRY.total_seconds


class WrongFlavour(NamedTuple):
    """A label key of the other flavour of Karpenter, and the key of the pool's own flavour that names the same
    attribute (None when there is none)."""

    key: str
    replacement: str | None


def wrong_flavour_key(key: str, *, auto_mode: bool, requirement: bool) -> WrongFlavour | None:
    """Whether ``key`` belongs to the other flavour than the pool's (KG206 on props, KG441/KG442 on manifests).

    - On EKS Auto Mode: every ``karpenter.k8s.aws/`` key. "EKS Auto Mode uses different labels than Karpenter"
      (https://docs.aws.amazon.com/eks/latest/userguide/auto-migrate-karpenter.html); the supported list of
      https://docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html has no karpenter.k8s.aws key.
    - On self-managed Karpenter (an EC2NodeClass): the eks.amazonaws.com instance keys and compute-type, and any
      eks.amazonaws.com key in a requirement. Karpenter neither sets nor models them, so a requirement on them
      selects no instance type (kubernetes-sigs/karpenter ``pkg/scheduling/requirements.go`` ``Intersects`` only
      compares keys both sides define) and a single ``In`` value becomes a node label (``Requirements.Labels``).

    ``requirement``: the key is a requirement's (True) or a template label's (False).
    """
    group = key.split("/", 1)[0]
    if auto_mode:
        if group != AWS_GROUP:
            return None
        eks = auto_mode_key(key)
        return WrongFlavour(key, eks if eks != key else None)
    if key in CANONICAL_KEYS or key == COMPUTE_TYPE or (group == AUTO_MODE_GROUP and requirement):
        return WrongFlavour(key, CANONICAL_KEYS.get(key))
    return None

# ephemeralStorage.size: "Range: 1-59000Gi or 1-64000G or 1-58Ti or 1-64T".
_SIZE = re.compile(r"^([1-9][0-9]*)(Gi|G|Ti|T)\Z")
_SIZE_MAX = {"Gi": 59000, "G": 64000, "Ti": 58, "T": 64}
#: ephemeralStorage.iops "Range: 3000-16000" and throughput "Range: 125-1000" (MiB/s): narrower than gp3's.
IOPS = (3000, 16000)
THROUGHPUT = (125, 1000)
#: Tag keys Auto Mode sets itself ("Cannot use restricted tags like ..."), besides kubernetes.io/cluster/*.
RESTRICTED_TAGS = ("karpenter.sh/provisioner-name", "karpenter.sh/nodepool", "karpenter.sh/nodeclaim",
                   "karpenter.sh/managed-by", "eks.amazonaws.com/nodeclass")


def check_size(size: str) -> bool:
    """An ``ephemeralStorage.size`` within the documented range."""
    m = _SIZE.match(size)
    return bool(m) and int(m.group(1)) <= _SIZE_MAX[m.group(2)]  # type: ignore[union-attr]


def restricted_tag(key: str) -> bool:
    return key in RESTRICTED_TAGS or key.startswith("kubernetes.io/cluster")


#: Top-level ``spec`` fields the guide documents, and the EC2NodeClass fields people carry over by mistake.
DOCUMENTED_FIELDS = frozenset({
    "role", "subnetSelectorTerms", "securityGroupSelectorTerms", "podSubnetSelectorTerms",
    "podSecurityGroupSelectorTerms", "snatPolicy", "networkPolicy", "networkPolicyEventLogs", "ephemeralStorage",
    "advancedNetworking", "advancedSecurity", "certificateBundles", "capacityReservationSelectorTerms", "tags",
})
_ENUMS = {"snatPolicy": ("Random", "Disabled"), "networkPolicy": ("DefaultAllow", "DefaultDeny"),
          "networkPolicyEventLogs": ("Disabled", "Enabled")}


def check_node_class_spec(spec: Any) -> list[tuple[str, str]]:
    """(path, problem) for a hand-written NodeClass ``spec``, against the documented fields, enums and ranges.

    What :class:`~karpenter_gpu.pools.auto_mode_node_class.AutoModeNodeClassProps` enforces, read tolerantly (a wrong type is a problem, not a crash), for
    ``validate`` (KG443): there is no CRD to do it.
    """
    out: list[tuple[str, str]] = []
    if not isinstance(spec, dict):
        return [("spec", "missing or not an object: role, subnetSelectorTerms and securityGroupSelectorTerms are "
                         "required")]
    for key in sorted(str(k) for k in spec if k not in DOCUMENTED_FIELDS):
        why = ("Auto Mode runs Bottlerocket only and picks the AMI itself" if key in (
            "amiSelectorTerms", "amiFamily", "userData", "blockDeviceMappings", "kubelet", "metadataOptions")
               else "not a documented field")
        out.append((f"spec.{key}", f"{why}: Auto Mode's NodeClass has no {key}, so it does nothing (the API server "
                                   "prunes or refuses it)"))
    for key in ("role", "subnetSelectorTerms", "securityGroupSelectorTerms"):
        if not spec.get(key):
            out.append((f"spec.{key}", "missing: the guide lists it as required"))
    for key, allowed in _ENUMS.items():
        if key in spec and spec[key] not in allowed:
            out.append((f"spec.{key}", f"{spec[key]!r} is not one of {list(allowed)}"))
    storage = spec.get("ephemeralStorage")
    if storage is not None:
        storage = storage if isinstance(storage, dict) else {}
        size = storage.get("size")
        if size is not None and not check_size(str(size)):
            out.append(("spec.ephemeralStorage.size", f"{size!r} is outside 1-59000Gi / 1-64000G / 1-58Ti / 1-64T"))
        for key, (low, high) in (("iops", IOPS), ("throughput", THROUGHPUT)):
            value = storage.get(key)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high):
                out.append((f"spec.ephemeralStorage.{key}", f"{value!r} is outside {low}..{high}"))
    tags = spec.get("tags")
    for key in (tags if isinstance(tags, dict) else {}):
        if restricted_tag(str(key)):
            out.append((f"spec.tags[{key}]", "a restricted tag key: Auto Mode sets it itself"))
    return out


