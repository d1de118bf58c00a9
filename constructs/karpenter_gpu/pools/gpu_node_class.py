"""GpuNodeClass → ``EC2NodeClass`` (karpenter.k8s.aws/v1) for GPU nodes."""

from __future__ import annotations

import re
from typing import Any, Mapping

from constructs import Construct
from pydantic import field_validator, model_validator
from typing_extensions import TypedDict, Unpack

from karpenter_gpu.cluster import ScopedConstruct
from karpenter_gpu import _api_object
from karpenter_gpu._props import Props, build, DnsLabel
from karpenter_gpu._construct_tree import path_of
from karpenter_gpu._signature import ConstructSignature, keyword_signature
from karpenter_gpu.crds.ec2nodeclass.aws.k8s.karpenter import Ec2NodeClass
from karpenter_gpu.pools.capacity_reservation import CapacityReservationTerm
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.units import Quantity

# One alias serves CPU, NVIDIA and Neuron variants (Karpenter picks the AMI per instance type).
_ALIAS_VERSION = {
    "al2023": (re.compile(r"^v[0-9]{8}\Z"), "a date tag such as 'v20251010'"),
    "bottlerocket": (re.compile(r"^v?[0-9]+\.[0-9]+\.[0-9]+\Z"), "a release such as 'v1.44.0'"),
}


class AmiAlias:
    """An EKS-optimized AMI alias, pinned: ``AmiAlias.al2023("v20251010")``.

    ``@latest`` drifts every node of the class on each AMI release (for GPU fleets: all GPU nodes
    replaced), so it is only accepted with ``GpuNodeClass(allow_latest_ami=True)``.
    """

    __slots__ = ("family", "version")

    def __init__(self, family: str, version: str) -> None:
        if family not in _ALIAS_VERSION:
            raise KarpenterGpuError("KG141", prop="ami", value=f"{family}@{version}",
                                    allowed="family al2023 or bottlerocket (al2 ends at Kubernetes 1.32 and has "
                                            "no arm64 GPU AMI; Windows has no GPU variant)",
                                    fix="use AmiAlias.al2023('vYYYYMMDD') or AmiAlias.bottlerocket('vX.Y.Z')")
        pattern, example = _ALIAS_VERSION[family]
        if version != "latest" and not pattern.match(version):
            raise KarpenterGpuError("KG141", prop="ami", value=f"{family}@{version}",
                                    allowed=f"'latest' or {example}", fix=f"pin {family}@{example.split()[-1]}")
        self.family, self.version = family, version

    @classmethod
    def al2023(cls, version: str) -> "AmiAlias":
        return cls("al2023", version)

    @classmethod
    def bottlerocket(cls, version: str) -> "AmiAlias":
        return cls("bottlerocket", version)

    @classmethod
    def parse(cls, value: Any) -> "AmiAlias":
        if isinstance(value, AmiAlias):
            return value
        if isinstance(value, str) and value.count("@") == 1:
            return cls(*value.split("@"))
        raise KarpenterGpuError("KG141", prop="ami", value=value, allowed="'family@version'",
                                fix="e.g. 'al2023@v20251010'")

    @property
    def is_latest(self) -> bool:
        return self.version == "latest"

    def __str__(self) -> str:
        return f"{self.family}@{self.version}"

    def __repr__(self) -> str:
        return f"AmiAlias({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AmiAlias) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))


# volumeSize pattern of the v1.14.1 CRD, restated as bounds per unit.
_VOLUME = re.compile(r"^([1-9][0-9]*)(Gi|G|Ti|T)\Z")
_VOLUME_MAX = {"Gi": 59000, "G": 64000, "Ti": 58, "T": 64}


class RootVolume(Props):
    """The gp3, encrypted volume that holds images and ephemeral storage.

    Presets: :meth:`inference` (200Gi, 6000 IOPS, 250 MiB/s) and :meth:`training`
    (500Gi, 16000 IOPS, 1000 MiB/s), from the seed's two node classes.
    """

    size: Quantity
    #: gp3 IOPS, 3000..80000. Default: 3000 (gp3 baseline).
    iops: int = 3000
    #: gp3 throughput in MiB/s, 125..2000. Default: 125 (gp3 baseline).
    throughput: int = 125
    #: KMS key for encryption. Default: - the account's default EBS key.
    kms_key_id: str | None = None

    @field_validator("size")
    @classmethod
    def _size(cls, v: Quantity) -> Quantity:
        m = _VOLUME.match(str(v))
        if not m or int(m.group(1)) > _VOLUME_MAX[m.group(2)]:
            raise KarpenterGpuError("KG144", prop="size", value=str(v),
                                    allowed="an EBS size in Gi (≤59000), G (≤64000), Ti (≤58) or T (≤64)",
                                    fix="e.g. Quantity.gi(200)")
        return v

    @field_validator("iops")
    @classmethod
    def _iops(cls, v: int) -> int:
        if not 3000 <= v <= 80000:
            raise KarpenterGpuError("KG144", prop="iops", value=v, allowed="gp3 IOPS 3000..80000",
                                    fix="use 3000 (baseline) up to 80000")
        return v

    @field_validator("throughput")
    @classmethod
    def _throughput(cls, v: int) -> int:
        if not 125 <= v <= 2000:
            raise KarpenterGpuError("KG144", prop="throughput", value=v,
                                    allowed="gp3 throughput 125..2000 MiB/s", fix="use 125 (baseline) up to 2000")
        return v

    @classmethod
    @keyword_signature
    def inference(cls) -> "RootVolume":
        return cls(size=Quantity.gi(200), iops=6000, throughput=250)

    @classmethod
    @keyword_signature
    def training(cls) -> "RootVolume":
        return cls(size=Quantity.gi(500), iops=16000, throughput=1000)

    def render(self, alias: AmiAlias) -> list[dict[str, Any]]:
        ebs: dict = {"volumeSize": str(self.size), "volumeType": "gp3", "iops": self.iops,
                     "throughput": self.throughput, "encrypted": True, "deleteOnTermination": True}
        if self.kms_key_id:
            ebs["kmsKeyID"] = self.kms_key_id
        if alias.family == "bottlerocket":
            # Bottlerocket: /dev/xvda is the small OS volume, images and pods live on /dev/xvdb.
            os_volume = {"volumeSize": "4Gi", "volumeType": "gp3", "encrypted": True, "deleteOnTermination": True}
            return [{"deviceName": "/dev/xvda", "ebs": os_volume},
                    {"deviceName": "/dev/xvdb", "rootVolume": True, "ebs": ebs}]
        return [{"deviceName": "/dev/xvda", "rootVolume": True, "ebs": ebs}]


_FORBIDDEN_TAGS = ("eks:eks-cluster-name", "karpenter.sh/nodepool", "karpenter.sh/nodeclaim",
                   "karpenter.k8s.aws/ec2nodeclass")
_SUBNET_ID = re.compile(r"^subnet-[0-9a-z]+\Z")
_SG_ID = re.compile(r"^sg-[0-9a-z]+\Z")
#: EKS cluster names: 1-100 characters, alphanumerics, '-' and '_', starting alphanumeric.
EKS_CLUSTER_NAME = re.compile(r"^[0-9A-Za-z][A-Za-z0-9_-]{0,99}\Z")


class NodeClassConfig(Props):
    """Where nodes run and as whom: what every node class of a platform shares."""

    #: AMI alias, pinned (``AmiAlias.al2023("v20251010")`` or ``"al2023@v20251010"``).
    ami: AmiAlias
    #: Accept ``@latest`` (drifts all nodes on every AMI release). Default: False.
    allow_latest_ami: bool = False
    #: IAM role for nodes; Karpenter manages the instance profile. Exactly one of role / instance_profile.
    role: str | None = None
    #: Pre-provisioned instance profile. Exactly one of role / instance_profile.
    instance_profile: str | None = None
    #: Cluster whose ``karpenter.sh/discovery`` tag selects subnets and security groups.
    #: Default: - none; then subnet_ids and security_group_ids are required.
    cluster_name: str | None = None
    #: Explicit subnet ids instead of discovery tags. Default: - discovery by cluster_name.
    subnet_ids: tuple[str, ...] = ()
    #: Explicit security group ids instead of discovery tags. Default: - discovery by cluster_name.
    security_group_ids: tuple[str, ...] = ()
    #: EC2 tags. Default: - none (Karpenter adds its own).
    tags: Mapping[str, str] = {}

    @field_validator("ami", mode="before")
    @classmethod
    def _ami(cls, v: Any) -> AmiAlias:
        return AmiAlias.parse(v)

    @field_validator("tags")
    @classmethod
    def _tags(cls, v: Mapping[str, str]) -> dict[str, str]:
        for key, value in v.items():
            if not key or key in _FORBIDDEN_TAGS or key.startswith("kubernetes.io/cluster"):
                raise KarpenterGpuError("KG100", prop="tags", value=key,
                                        allowed=f"any non-empty key except {list(_FORBIDDEN_TAGS)} and "
                                                "kubernetes.io/cluster* (Karpenter sets those)",
                                        fix="rename or drop the tag")
            # EC2 tag limits (CreateTags): keys ≤128 characters, values ≤256, and the aws: prefix is reserved.
            # The CRD does not check them; the launch then fails for every node of the class.
            if key.lower().startswith("aws:") or len(key) > 128:
                raise KarpenterGpuError("KG100", prop="tags", value=key,
                                        allowed="an EC2 tag key of at most 128 characters, not starting with 'aws:' "
                                                "(reserved for AWS): EC2 refuses the launch otherwise",
                                        fix="shorten or rename the tag")
            if not isinstance(value, str) or len(value) > 256:
                raise KarpenterGpuError("KG100", prop=f"tags[{key}]", value=value,
                                        allowed="a string of at most 256 characters (EC2 tag value limit)",
                                        fix="shorten the value")
        return dict(v)

    @field_validator("cluster_name")
    @classmethod
    def _cluster_name(cls, v: str | None) -> str | None:
        # Used as the karpenter.sh/discovery tag value of the selectors: '*' is a wildcard there and would
        # select every tagged subnet and security group of the account. EKS cluster names are 1-100
        # alphanumerics, '-' and '_', starting alphanumeric.
        if v is not None and not EKS_CLUSTER_NAME.match(v):
            raise KarpenterGpuError("KG143", prop="cluster_name", value=v,
                                    allowed="an EKS cluster name (1-100 alphanumerics, '-' or '_', starting "
                                            "alphanumeric): it becomes the karpenter.sh/discovery tag selector, where "
                                            "'*' matches every tagged subnet and security group",
                                    fix="pass the cluster's name, e.g. cluster_name='ml-prod'")
        return v

    @model_validator(mode="after")
    def _check(self) -> "NodeClassConfig":
        if self.ami.is_latest and not self.allow_latest_ami:
            raise KarpenterGpuError("KG140", prop="ami", value=str(self.ami),
                                    allowed="a pinned version; '@latest' replaces every GPU node of this class on "
                                            "each AMI release",
                                    fix=f"pin it (e.g. {self.ami.family}@{'v20251010' if self.ami.family == 'al2023' else 'v1.44.0'}) "
                                        "or pass allow_latest_ami=True deliberately")
        if (self.role is None) == (self.instance_profile is None) or (self.role == "" or self.instance_profile == ""):
            raise KarpenterGpuError("KG142", prop="role/instance_profile",
                                    value={"role": self.role, "instance_profile": self.instance_profile},
                                    allowed="exactly one, non-empty", fix="pass role='KarpenterNodeRole-<cluster>'")
        for prop, ids, pattern in (("subnet_ids", self.subnet_ids, _SUBNET_ID),
                                   ("security_group_ids", self.security_group_ids, _SG_ID)):
            bad = [i for i in ids if not pattern.match(i)]
            if bad:
                raise KarpenterGpuError("KG143", prop=prop, value=bad[0], allowed=f"ids matching {pattern.pattern}",
                                        fix="copy the id from the VPC console or IaC outputs")
            if not ids and not self.cluster_name:
                raise KarpenterGpuError("KG143", prop=prop, value=(),
                                        allowed="explicit ids, or cluster_name for karpenter.sh/discovery tags",
                                        fix="pass cluster_name='<cluster>'")
        return self


class GpuNodeClassProps(NodeClassConfig):
    """Props of :class:`GpuNodeClass`."""

    #: metadata.name of the EC2NodeClass (DNS-1123).
    name: DnsLabel
    #: Root volume. Default: RootVolume.inference().
    root_volume: RootVolume = RootVolume.inference()
    #: IMDS hop limit; 1 keeps pods away from the node's credentials (IMDSv2 is always required).
    #: Default: 1.
    imds_hop_limit: int = 1
    #: Local NVMe as RAID0 for kubelet/containerd storage. Default: False.
    instance_store_raid0: bool = False
    #: Extra user data merged with Karpenter's (AL2023 NodeConfig/MIME, Bottlerocket TOML). Default: - none.
    user_data: str | None = None
    #: ODCRs / Capacity Blocks nodes of this class may launch into (none is matched implicitly).
    #: Default: - none.
    capacity_reservations: tuple[CapacityReservationTerm, ...] = ()

    @field_validator("capacity_reservations")
    @classmethod
    def _reservations(cls, v: tuple[CapacityReservationTerm, ...]) -> tuple[CapacityReservationTerm, ...]:
        if len(v) > 30:
            raise KarpenterGpuError("KG190", prop="capacity_reservations", value=len(v),
                                    allowed="at most 30 selector terms (CRD maxItems)",
                                    fix="select by tags instead of listing ids")
        return v

    @field_validator("imds_hop_limit")
    @classmethod
    def _hops(cls, v: int) -> int:
        if not 1 <= v <= 64:
            raise KarpenterGpuError("KG100", prop="imds_hop_limit", value=v, allowed="1..64",
                                    fix="use 1, or 2 if pods must reach IMDS")
        return v


class NodeClassConfigKwargs(TypedDict, total=False):
    """The fields of :class:`NodeClassConfig`, same types: settings several node classes share, e.g.
    ``common: NodeClassConfigKwargs = {...}`` then ``GpuNodeClass(..., **common)``."""

    ami: AmiAlias
    allow_latest_ami: bool
    role: str | None
    instance_profile: str | None
    cluster_name: str | None
    subnet_ids: tuple[str, ...]
    security_group_ids: tuple[str, ...]
    tags: Mapping[str, str]


class GpuNodeClassKwargs(NodeClassConfigKwargs, total=False):
    """The keyword props of :class:`GpuNodeClass`: the fields of :class:`GpuNodeClassProps`, same types."""

    name: str
    root_volume: RootVolume
    imds_hop_limit: int
    instance_store_raid0: bool
    user_data: str | None
    capacity_reservations: tuple[CapacityReservationTerm, ...]


class GpuNodeClass(ScopedConstruct):
    """An ``EC2NodeClass`` for GPU nodes: pinned AMI alias, IMDSv2, encrypted gp3 root volume.

    Pools reference it by object (``node_class=gpu_class``); the ``nodeClassRef`` is derived.
    Use :meth:`inference` / :meth:`training` for the seed's volume presets.
    """

    __signature__ = ConstructSignature()

    def __init__(self, scope: Construct, id: str, *, props: GpuNodeClassProps | None = None,
                 **kwargs: Unpack[GpuNodeClassKwargs]) -> None:
        """Keyword props (see :class:`GpuNodeClassProps` for defaults) or ``props=``, not both (KG820)."""
        self.props: GpuNodeClassProps = build(GpuNodeClassProps, path_of(scope, id), props, **kwargs)
        super().__init__(scope, id)
        self.resource = _api_object.create(self, binding=Ec2NodeClass, name=self.props.name, spec=self._render())

    @classmethod
    @keyword_signature
    def inference(cls, scope: Construct, id: str, *, props: GpuNodeClassProps | None = None,
                  **kwargs: Unpack[GpuNodeClassKwargs]) -> GpuNodeClass:
        """200Gi / 6000 IOPS / 250 MiB/s root volume unless ``root_volume`` is given."""
        return cls._preset(scope, id, RootVolume.inference(), props, kwargs)

    @classmethod
    @keyword_signature
    def training(cls, scope: Construct, id: str, *, props: GpuNodeClassProps | None = None,
                 **kwargs: Unpack[GpuNodeClassKwargs]) -> GpuNodeClass:
        """500Gi / 16000 IOPS / 1000 MiB/s root volume unless ``root_volume`` is given."""
        return cls._preset(scope, id, RootVolume.training(), props, kwargs)

    @classmethod
    def _preset(cls, scope: Construct, id: str, volume: RootVolume, props: GpuNodeClassProps | None,
                kwargs: GpuNodeClassKwargs) -> GpuNodeClass:
        if props is not None and not kwargs and "root_volume" not in props.model_fields_set:
            props = props.model_copy(update={"root_volume": volume})  # a validated RootVolume: nothing to re-check
        elif props is None:
            kwargs = {"root_volume": volume, **kwargs}
        return cls(scope, id, props=props, **kwargs)

    @property
    def name(self) -> str:
        return self.props.name

    @property
    def ref(self) -> dict[str, Any]:
        """The NodePool ``nodeClassRef`` for this class."""
        api_version, kind = _api_object.gvk_of(Ec2NodeClass)
        return {"group": api_version.split("/")[0], "kind": kind,
                "name": self.props.name}

    def _selector(self, ids: tuple[str, ...]) -> list[dict]:
        if ids:
            return [{"id": i} for i in ids]
        return [{"tags": {"karpenter.sh/discovery": self.props.cluster_name}}]

    def _render(self) -> dict:
        p = self.props
        spec: dict = {"amiSelectorTerms": [{"alias": str(p.ami)}]}
        if p.role:
            spec["role"] = p.role
        else:
            spec["instanceProfile"] = p.instance_profile
        spec["subnetSelectorTerms"] = self._selector(p.subnet_ids)
        spec["securityGroupSelectorTerms"] = self._selector(p.security_group_ids)
        spec["blockDeviceMappings"] = p.root_volume.render(p.ami)
        if p.instance_store_raid0:
            spec["instanceStorePolicy"] = "RAID0"
        spec["metadataOptions"] = {"httpEndpoint": "enabled", "httpProtocolIPv6": "disabled",
                                   "httpPutResponseHopLimit": p.imds_hop_limit, "httpTokens": "required"}
        if p.tags:
            spec["tags"] = dict(sorted(p.tags.items()))
        if p.user_data:
            spec["userData"] = p.user_data
        if p.capacity_reservations:
            spec["capacityReservationSelectorTerms"] = [t.render() for t in p.capacity_reservations]
        return spec
