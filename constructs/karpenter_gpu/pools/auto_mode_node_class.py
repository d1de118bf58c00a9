"""AutoModeNodeClass → ``NodeClass`` (eks.amazonaws.com/v1): the node class of EKS Auto Mode.

EKS Auto Mode runs Karpenter, the NVIDIA driver and the device plugin itself; a ``karpenter.sh/v1`` NodePool
targets it with ``nodeClassRef: {group: eks.amazonaws.com, kind: NodeClass, name}``. Pass an
:class:`AutoModeNodeClass` as ``node_class=`` to any pool construct of this library (inference, training,
static, reserved, tiered) and the pool renders Auto Mode's label keys and rules
(:mod:`karpenter_gpu.pools._node_pool`).

**No public CRD.** AWS documents the fields in the EKS user guide but publishes no CustomResourceDefinition
or schema for ``eks.amazonaws.com/v1 NodeClass``: ``karpenter-gpu validate`` cannot schema-check it and says
so (KG304, info). What *can* be checked is checked here, from the documentation, with coded errors: required
fields, the documented enums and ranges, tag restrictions, and that nothing selects an AMI (Auto Mode runs
Bottlerocket only and chooses the image itself). Hand-written NodeClasses get the same checks from
``validate`` (KG443).

Sources (EKS user guide):

- "Create a Node Class for Amazon EKS": https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html
  (role, subnet / security-group selector terms, snatPolicy, networkPolicy, networkPolicyEventLogs,
  ephemeralStorage size 1-59000Gi / 1-64000G / 1-58Ti / 1-64T, iops 3000-16000, throughput 125-1000, kmsKeyID,
  advancedNetworking httpsProxy ≤255 characters, noProxy ≤50 entries of ≤255, ipv4PrefixSize ``Auto`` or
  ``"32"``, pod subnet / security group selector terms, restricted tags, "do not name your custom node class
  default").
- "Control deployment of workloads into Capacity Reservations with EKS Auto Mode":
  https://docs.aws.amazon.com/eks/latest/userguide/auto-odcr.html (``capacityReservationSelectorTerms`` with
  ``id``, or ``tags`` and an optional ``owner``; once any NodeClass sets them, Auto Mode stops using open ODCRs
  for every NodeClass of the cluster).
- "Learn about ... EKS Auto Mode" https://docs.aws.amazon.com/eks/latest/userguide/automode.html (Bottlerocket-
  based immutable AMIs, 21-day maximum node lifetime).
"""

from __future__ import annotations

import re
from typing import Any, ClassVar, Literal, Mapping

from constructs import Construct
from pydantic import field_validator, model_validator
from typing_extensions import TypedDict, Unpack

from karpenter_gpu import _api_object
from karpenter_gpu.cluster import ScopedConstruct
from karpenter_gpu._props import Props, build, DnsLabel
from karpenter_gpu._construct_tree import path_of
from karpenter_gpu._signature import ConstructSignature
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.auto_mode import (IOPS, RESTRICTED_TAGS, THROUGHPUT, check_node_class_spec, check_size,
                                         restricted_tag)
from karpenter_gpu.k8s.labels import AUTO_MODE_NODE_CLASS_KIND
from karpenter_gpu.k8s.units import Quantity
from karpenter_gpu.pools.capacity_reservation import CapacityReservationTerm

__all__ = ["AutoModeEphemeralStorage", "AutoModeNodeClass", "AutoModeNodeClassKwargs", "AutoModeNodeClassProps",
           "check_node_class_spec", "render_spec"]

_SUBNET_ID = re.compile(r"^subnet-[0-9a-z]+\Z")
_SG_ID = re.compile(r"^sg-[0-9a-z]+\Z")
#: Props an EC2NodeClass has and an Auto Mode NodeClass must not: Auto Mode runs Bottlerocket only, picks the
#: AMI itself and takes no user data or block-device mappings (its volume is ``ephemeral_storage``).
_NOT_AUTO_MODE = ("ami", "allow_latest_ami", "user_data", "root_volume", "instance_store_raid0", "imds_hop_limit",
                  "instance_profile", "cluster_name")


class _NodeClassGvk:
    """What :func:`karpenter_gpu._api_object.create` reads of a generated binding: there is none to import
    (no public CRD), so the apiVersion/kind are stated here, once."""

    class GVK:
        api_version, kind = AUTO_MODE_NODE_CLASS_KIND


def _fail(prop: str, value: Any, allowed: str, fix: str, code: str = "KG200") -> KarpenterGpuError:
    return KarpenterGpuError(code, prop=prop, value=value, allowed=allowed, fix=fix)


class AutoModeEphemeralStorage(Props):
    """``spec.ephemeralStorage``: the node's data volume (images, emptyDir, logs). Auto Mode's default is
    80Gi, 3000 IOPS, 125 MiB/s; GPU images (CUDA, PyTorch, model weights) usually need more."""

    size: Quantity
    #: 3000..16000. Default: - Auto Mode's (3000).
    iops: int | None = None
    #: MiB/s, 125..1000. Default: - Auto Mode's (125).
    throughput: int | None = None
    #: KMS key id, ARN, alias name or alias ARN. Default: - the account's default EBS key.
    kms_key_id: str | None = None

    @field_validator("size")
    @classmethod
    def _size(cls, v: Quantity) -> Quantity:
        if not check_size(str(v)):
            raise _fail("size", str(v), "1-59000Gi, 1-64000G, 1-58Ti or 1-64T (the documented range)",
                        "e.g. Quantity.gi(200)", "KG201")
        return v

    @field_validator("iops")
    @classmethod
    def _iops(cls, v: int | None) -> int | None:
        if v is not None and not IOPS[0] <= v <= IOPS[1]:
            raise _fail("iops", v, "3000..16000 (Auto Mode's documented range, narrower than gp3's)",
                        "e.g. iops=6000", "KG201")
        return v

    @field_validator("throughput")
    @classmethod
    def _throughput(cls, v: int | None) -> int | None:
        if v is not None and not THROUGHPUT[0] <= v <= THROUGHPUT[1]:
            raise _fail("throughput", v, "125..1000 MiB/s (Auto Mode's documented range, narrower than gp3's)",
                        "e.g. throughput=250", "KG201")
        return v

    @field_validator("kms_key_id")
    @classmethod
    def _kms(cls, v: str | None) -> str | None:
        if v is not None and not v.strip():
            raise _fail("kms_key_id", v, "a KMS key id, key ARN, alias name or alias ARN", "drop it or name the key",
                        "KG201")
        return v

    @classmethod
    def gpu(cls) -> "AutoModeEphemeralStorage":
        """200Gi / 6000 IOPS / 250 MiB/s: room for CUDA images and pulled model weights."""
        return cls(size=Quantity.gi(200), iops=6000, throughput=250)

    def render(self) -> dict[str, Any]:
        out: dict[str, Any] = {"size": str(self.size)}
        if self.iops is not None:
            out["iops"] = self.iops
        if self.throughput is not None:
            out["throughput"] = self.throughput
        if self.kms_key_id is not None:
            out["kmsKeyID"] = self.kms_key_id
        return out


def _ids(prop: str, ids: tuple[str, ...], pattern: re.Pattern[str]) -> None:
    bad = [i for i in ids if not pattern.match(i)]
    if bad:
        raise _fail(prop, bad[0], f"ids matching {pattern.pattern}", "copy the id from the VPC console or IaC outputs")


def _selector(prop: str, ids: tuple[str, ...], tags: Mapping[str, str], *, required: bool) -> list[dict] | None:
    if ids and tags:
        raise _fail(prop, {"ids": list(ids), "tags": dict(tags)},
                    "ids or tags, not both (each becomes its own term, and terms are ORed: the tags would select "
                    "more than the ids)", f"pass only {prop}_ids or only {prop}_tags")
    if ids:
        return [{"id": i} for i in ids]
    if tags:
        if any(not k or not isinstance(v, str) for k, v in tags.items()):
            raise _fail(f"{prop}_tags", dict(tags), "non-empty keys with string values", "fix the tag")
        return [{"tags": dict(sorted(tags.items()))}]
    if required:
        raise _fail(f"{prop}_ids/{prop}_tags", None, "ids or tags (the field is required)",
                    f"pass {prop}_ids=('…',) or {prop}_tags={{'Name': '…'}}")
    return None


class AutoModeNodeClassProps(Props):
    """Props of :class:`AutoModeNodeClass` (fields of the EKS user guide's "Node Class Specification")."""

    refused_props: ClassVar[tuple[str, ...]] = _NOT_AUTO_MODE

    #: metadata.name (DNS-1123). Not ``default`` (EKS's built-in class has that name).
    name: DnsLabel
    #: IAM role **name** of the nodes; it needs an EC2 access entry with ``AmazonEKSAutoNodePolicy``.
    role: str
    #: ``subnetSelectorTerms`` by id. Exactly one of subnet_ids / subnet_tags.
    subnet_ids: tuple[str, ...] = ()
    #: ``subnetSelectorTerms`` by tags (one term: every tag must match).
    subnet_tags: Mapping[str, str] = {}
    #: ``securityGroupSelectorTerms`` by id. Exactly one of security_group_ids / security_group_tags.
    security_group_ids: tuple[str, ...] = ()
    #: ``securityGroupSelectorTerms`` by tags.
    security_group_tags: Mapping[str, str] = {}
    #: ``podSubnetSelectorTerms`` by id: pods get IPs from other subnets than nodes. Set together with
    #: pod_security_group_*. Default: - the node subnets.
    pod_subnet_ids: tuple[str, ...] = ()
    pod_subnet_tags: Mapping[str, str] = {}
    #: ``podSecurityGroupSelectorTerms``. Default: - the node security groups.
    pod_security_group_ids: tuple[str, ...] = ()
    pod_security_group_tags: Mapping[str, str] = {}
    #: ``snatPolicy``. Default: - Auto Mode's (Random).
    snat_policy: Literal["Random", "Disabled"] | None = None
    #: ``networkPolicy``. Default: - Auto Mode's (DefaultAllow).
    network_policy: Literal["DefaultAllow", "DefaultDeny"] | None = None
    #: ``networkPolicyEventLogs``. Default: - Auto Mode's (Disabled).
    network_policy_event_logs: Literal["Disabled", "Enabled"] | None = None
    #: ``ephemeralStorage``. Default: - Auto Mode's 80Gi / 3000 IOPS / 125 MiB/s.
    ephemeral_storage: AutoModeEphemeralStorage | None = None
    #: ``advancedNetworking.ipv4PrefixSize``: ``Auto`` (prefix delegation, /28 per node) or ``"32"``
    #: (secondary IPs, for pod-sparse GPU nodes at scale). Default: - Auto Mode's (Auto).
    ipv4_prefix_size: Literal["Auto", "32"] | None = None
    #: ``advancedNetworking.httpsProxy`` (≤255 characters). Default: - none.
    https_proxy: str | None = None
    #: ``advancedNetworking.noProxy`` (≤50 entries of ≤255 characters). Default: - none.
    no_proxy: tuple[str, ...] = ()
    #: ``advancedNetworking.associatePublicIPAddress``. Default: - the subnet's setting.
    associate_public_ip_address: bool | None = None
    #: ``capacityReservationSelectorTerms`` (id, or tags with an optional owner). Setting any, on any NodeClass,
    #: stops Auto Mode from using open ODCRs cluster-wide. Default: - none.
    capacity_reservations: tuple[CapacityReservationTerm, ...] = ()
    #: EC2 tags. Default: - none.
    tags: Mapping[str, str] = {}

    @model_validator(mode="before")
    @classmethod
    def _bottlerocket_only(cls, data: Any) -> Any:
        if isinstance(data, dict):
            given = [k for k in _NOT_AUTO_MODE if k in data]
            if given:
                raise _fail(given[0], data[given[0]],
                            "nothing: EKS Auto Mode runs Bottlerocket only and picks and patches the AMI itself (no "
                            "AMI selection, user data, block devices or IMDS settings); instances reach the cluster "
                            "through the role's access entry",
                            "drop it; size the node's volume with ephemeral_storage, or use GpuNodeClass for "
                            "self-managed Karpenter", "KG204")
        return data

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if v == "default":
            raise _fail("name", v, "any name but 'default' (EKS's built-in NodeClass; the guide says not to use it)",
                        "e.g. name='gpu'")
        return v

    @field_validator("role")
    @classmethod
    def _role(cls, v: str) -> str:
        if not v or "/" in v or v.startswith("arn:"):
            raise _fail("role", v, "the IAM role name (not an ARN or path), non-empty",
                        "e.g. role='AmazonEKSAutoNodeRole'")
        return v

    @field_validator("tags")
    @classmethod
    def _tags(cls, v: Mapping[str, str]) -> dict[str, str]:
        for key, value in v.items():
            if not key or restricted_tag(key):
                raise _fail("tags", key, f"any non-empty key except {list(RESTRICTED_TAGS)} and kubernetes.io/cluster/* "
                                         "(restricted: Auto Mode sets them)", "rename or drop the tag", "KG202")
            if key.lower().startswith("aws:") or len(key) > 128:
                raise _fail("tags", key, "an EC2 tag key of at most 128 characters, not starting with 'aws:'",
                            "shorten or rename the tag", "KG202")
            if not isinstance(value, str) or len(value) > 256:
                raise _fail(f"tags[{key}]", value, "a string of at most 256 characters (EC2 tag value limit)",
                            "shorten the value", "KG202")
        return dict(v)

    @field_validator("https_proxy")
    @classmethod
    def _proxy(cls, v: str | None) -> str | None:
        if v is not None and (not v.startswith(("http://", "https://")) or len(v) > 255):
            raise _fail("https_proxy", v, "an http(s) URL of at most 255 characters, e.g. http://192.0.2.4:3128",
                        "write the proxy as a URL with its port")
        return v

    @field_validator("no_proxy")
    @classmethod
    def _no_proxy(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if len(v) > 50 or any(not e or len(e) > 255 for e in v):
            raise _fail("no_proxy", list(v), "at most 50 non-empty entries of at most 255 characters",
                        "list fewer domains (a leading '.' covers a whole domain)")
        return v

    @field_validator("capacity_reservations")
    @classmethod
    def _reservations(cls, v: tuple[CapacityReservationTerm, ...]) -> tuple[CapacityReservationTerm, ...]:
        for i, term in enumerate(v):
            if term.instance_match_criteria is not None:
                raise _fail(f"capacity_reservations[{i}]", term.render(),
                            "a term by id, or by tags with an optional owner (Auto Mode documents no "
                            "instanceMatchCriteria)", "use CapacityReservationTerm.by_id or by_tags", "KG190")
        return v

    @model_validator(mode="after")
    def _check(self) -> "AutoModeNodeClassProps":
        _ids("subnet_ids", self.subnet_ids, _SUBNET_ID)
        _ids("pod_subnet_ids", self.pod_subnet_ids, _SUBNET_ID)
        _ids("security_group_ids", self.security_group_ids, _SG_ID)
        _ids("pod_security_group_ids", self.pod_security_group_ids, _SG_ID)
        _selector("subnet", self.subnet_ids, self.subnet_tags, required=True)
        _selector("security_group", self.security_group_ids, self.security_group_tags, required=True)
        pod_subnets = _selector("pod_subnet", self.pod_subnet_ids, self.pod_subnet_tags, required=False)
        pod_groups = _selector("pod_security_group", self.pod_security_group_ids, self.pod_security_group_tags,
                               required=False)
        if (pod_subnets is None) != (pod_groups is None):
            raise _fail("pod_subnet_*/pod_security_group_*", {"pod subnets": pod_subnets, "pod groups": pod_groups},
                        "both or neither: podSubnetSelectorTerms and podSecurityGroupSelectorTerms are set together",
                        "add the missing selector", "KG203")
        return self


class AutoModeNodeClassKwargs(TypedDict, total=False):
    """The keyword props of :class:`AutoModeNodeClass`: the fields of :class:`AutoModeNodeClassProps`."""

    name: str
    role: str
    subnet_ids: tuple[str, ...]
    subnet_tags: Mapping[str, str]
    security_group_ids: tuple[str, ...]
    security_group_tags: Mapping[str, str]
    pod_subnet_ids: tuple[str, ...]
    pod_subnet_tags: Mapping[str, str]
    pod_security_group_ids: tuple[str, ...]
    pod_security_group_tags: Mapping[str, str]
    snat_policy: Literal["Random", "Disabled"] | None
    network_policy: Literal["DefaultAllow", "DefaultDeny"] | None
    network_policy_event_logs: Literal["Disabled", "Enabled"] | None
    ephemeral_storage: AutoModeEphemeralStorage | None
    ipv4_prefix_size: Literal["Auto", "32"] | None
    https_proxy: str | None
    no_proxy: tuple[str, ...]
    associate_public_ip_address: bool | None
    capacity_reservations: tuple[CapacityReservationTerm, ...]
    tags: Mapping[str, str]


def render_spec(p: AutoModeNodeClassProps) -> dict[str, Any]:
    """The NodeClass ``spec`` for validated props."""
    spec: dict[str, Any] = {"role": p.role,
                            "subnetSelectorTerms": _selector("subnet", p.subnet_ids, p.subnet_tags, required=True),
                            "securityGroupSelectorTerms": _selector("security_group", p.security_group_ids,
                                                                    p.security_group_tags, required=True)}
    pod_subnets = _selector("pod_subnet", p.pod_subnet_ids, p.pod_subnet_tags, required=False)
    if pod_subnets is not None:
        spec["podSubnetSelectorTerms"] = pod_subnets
        spec["podSecurityGroupSelectorTerms"] = _selector("pod_security_group", p.pod_security_group_ids,
                                                          p.pod_security_group_tags, required=False)
    for key, value in (("snatPolicy", p.snat_policy), ("networkPolicy", p.network_policy),
                       ("networkPolicyEventLogs", p.network_policy_event_logs)):
        if value is not None:
            spec[key] = value
    if p.ephemeral_storage is not None:
        spec["ephemeralStorage"] = p.ephemeral_storage.render()
    advanced: dict[str, Any] = {}
    if p.ipv4_prefix_size is not None:
        advanced["ipv4PrefixSize"] = p.ipv4_prefix_size
    if p.https_proxy is not None:
        advanced["httpsProxy"] = p.https_proxy
    if p.no_proxy:
        advanced["noProxy"] = list(p.no_proxy)
    if p.associate_public_ip_address is not None:
        advanced["associatePublicIPAddress"] = p.associate_public_ip_address
    if advanced:
        spec["advancedNetworking"] = advanced
    if p.capacity_reservations:
        spec["capacityReservationSelectorTerms"] = [
            {("owner" if k == "ownerID" else k): v for k, v in t.render().items()} for t in p.capacity_reservations]
    if p.tags:
        spec["tags"] = dict(sorted(p.tags.items()))
    return spec


class AutoModeNodeClass(ScopedConstruct):
    """An EKS Auto Mode ``NodeClass`` (``eks.amazonaws.com/v1``): where Auto Mode nodes run and as whom.

    Auto Mode runs Bottlerocket with the NVIDIA driver and device plugin preinstalled and replaces nodes at
    most every 21 days; no AMI, user data or GPU Operator. Pools reference it by object (``node_class=auto``)
    and then render ``eks.amazonaws.com/`` label keys. There is no public CRD for this kind (see the module
    docstring): the props are checked against the EKS user guide instead.

    Example::

        auto = AutoModeNodeClass(chart, "Auto", name="gpu-auto", role="AmazonEKSAutoNodeRole",
                                 subnet_tags={"kubernetes.io/role/internal-elb": "1"},
                                 security_group_tags={"aws:eks:cluster-name": "ml"},
                                 ephemeral_storage=AutoModeEphemeralStorage.gpu())
        GpuInferencePool(chart, "Inference", node_class=auto, name="gpu-auto", gpu_limit=8)
    """

    __signature__ = ConstructSignature()
    #: Pools read this to pick the label spelling and the Auto Mode rules.
    auto_mode: ClassVar[bool] = True

    def __init__(self, scope: Construct, id: str, *, props: AutoModeNodeClassProps | None = None,
                 **kwargs: Unpack[AutoModeNodeClassKwargs]) -> None:
        """Keyword props (see :class:`AutoModeNodeClassProps` for defaults) or ``props=``, not both (KG820)."""
        self.props: AutoModeNodeClassProps = build(AutoModeNodeClassProps, path_of(scope, id), props, **kwargs)
        super().__init__(scope, id)
        self.resource = _api_object.create(self, binding=_NodeClassGvk, name=self.props.name,
                                           spec=render_spec(self.props))

    @property
    def name(self) -> str:
        return self.props.name

    @property
    def ref(self) -> dict[str, Any]:
        """The NodePool ``nodeClassRef``: ``{group: eks.amazonaws.com, kind: NodeClass, name}``."""
        api_version, kind = AUTO_MODE_NODE_CLASS_KIND
        return {"group": api_version.split("/")[0], "kind": kind, "name": self.props.name}
