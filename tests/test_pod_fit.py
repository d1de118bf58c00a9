"""Where a pod lands: per NodePool in weight order, the cheapest instance type it fits, or why not.

Every expected name and price below was read by hand from the upstream gpu-instance-types.tsv (the catalog's
source), not computed with the code under test.
"""

from __future__ import annotations

from decimal import Decimal

from karpenter_gpu.analysis.pod_fit import Fit, first_choice, fit_reports, pod_fit
from karpenter_gpu.analysis.pod_shape import PodShape
from karpenter_gpu.analysis.simulator import simulate_pools
from tests.test_simulator import AWS, GPU_TAINT, auto, one, pool, req


def test_three_gpu_pod_picks_cheapest_four_gpu_type():
    # 2 GPUs: g5g.16xlarge 2.744; 4 GPUs: g4dn.12xlarge 3.912, g6.12xlarge 4.6016; 8 GPUs: g5.48xlarge 16.288
    p = pool("mixed", req("node.kubernetes.io/instance-type", "In", "g5g.16xlarge", "g4dn.12xlarge", "g6.12xlarge",
                          "g5.48xlarge"))
    assert one(p).candidates[0].instance.name == "g5g.16xlarge"  # cheapest overall, but only 2 GPUs
    fit = first_choice(pod_fit(PodShape(gpus=3), [p]))
    assert (fit.instance, fit.price) == ("g4dn.12xlarge", Decimal("3.912"))
    nine = pod_fit(PodShape(gpus=9), [p])[0]
    assert nine.instance is None and "short of nvidia.com/gpu (at most 8)" in nine.reason


def test_weight_order_across_tiers():
    single = pool("single-gpu", req("gpu-count", "Lte", "1"), req("gpu-name", "In", "a10g", "l4"), weight=100)
    multi = pool("multi-gpu", req("gpu-count", "Gt", "0"), req("gpu-name", "In", "a10g", "l4"), weight=50)
    fallback = pool("fallback", req("gpu-count", "Gt", "0"))
    manifests = [fallback, multi, single]
    assert [r.name for r in simulate_pools(manifests)] == ["single-gpu", "multi-gpu", "fallback"]
    fits = pod_fit(PodShape(gpus=1), manifests)
    assert [f.pool for f in fits] == ["single-gpu", "multi-gpu", "fallback"]
    assert first_choice(fits) == Fit("single-gpu", "g6.xlarge", Decimal("0.8048"), None, "dynamic", 100)
    fits4 = pod_fit(PodShape(gpus=4), manifests)
    assert fits4[0].instance is None and "short of nvidia.com/gpu (at most 1)" in fits4[0].reason
    # 4 GPUs among a10g/l4: g6.12xlarge 4.6016 < g5.12xlarge 5.672 < g6.24xlarge 6.6752
    assert first_choice(fits4) == Fit("multi-gpu", "g6.12xlarge", Decimal("4.6016"), None, "dynamic", 50)


def test_taint_must_be_tolerated():
    taint = {"key": "example.com/team", "value": "true", "effect": "NoSchedule"}
    p = pool("gpu", req("family", "In", "g5"), taints=[taint],
             startup_taints=[{"key": "example.com/init", "effect": "NoSchedule"}])
    fit = pod_fit(PodShape(gpus=1), [p])[0]
    assert fit.instance is None and fit.reason == "taint example.com/team=true:NoSchedule is not tolerated"
    assert pod_fit(PodShape.parse("gpus=1,tolerate=example.com/team"), [p])[0].instance == "g5.xlarge"
    assert pod_fit(PodShape.parse("gpus=1,tolerate=example.com/team=true:NoSchedule"), [p])[0].instance == "g5.xlarge"
    assert pod_fit(PodShape.parse("gpus=1,tolerate=example.com/team=false"), [p])[0].instance is None
    assert pod_fit(PodShape.parse("gpus=1,tolerate=example.com/team:NoExecute"), [p])[0].instance is None
    assert pod_fit(PodShape.parse("gpus=1,tolerate=*"), [p])[0].instance == "g5.xlarge"
    soft = pool("soft", req("family", "In", "g5"), taints=[{"key": "x", "effect": "PreferNoSchedule"}])
    assert pod_fit(PodShape(gpus=1), [soft])[0].instance == "g5.xlarge"


def test_an_untolerated_prefer_no_schedule_taint_sends_the_pod_to_a_pool_it_tolerates_first():
    # Karpenter v1.14.1 Scheduler.Solve -> Preferences.Relax (scheduling/preferences.go): the pod is tried as it is,
    # and toleratePreferNoScheduleTaints adds an Exists/PreferNoSchedule toleration only after nothing fits
    soft = pool("soft", req("family", "In", "g5"), weight=100, taints=[{"key": "x", "effect": "PreferNoSchedule"}])
    plain = pool("plain", req("family", "In", "g6"), weight=1)
    fits = pod_fit(PodShape(gpus=1), [soft, plain])
    assert first_choice(fits).pool == "plain"
    assert fits[0].instance is None and "PreferNoSchedule is not tolerated" in fits[0].reason
    assert first_choice(pod_fit(PodShape.parse("gpus=1,tolerate=x"), [soft, plain])).pool == "soft"
    # no pool fits strictly: relaxed, the soft pool takes it
    assert first_choice(pod_fit(PodShape(gpus=8), [soft, pool("small", req("family", "In", "g6"),
                                                              req("gpu-count", "Lt", "2"))])).pool == "soft"


def test_eks_adds_the_extended_resource_toleration():
    """EKS runs the ExtendedResourceToleration admission plugin (kubernetes plugin/pkg/admission/
    extendedresourcetoleration ``Admit``): a pod requesting nvidia.com/gpu or aws.amazon.com/neuron tolerates
    ``<resource>:NoSchedule`` (operator Exists) before Karpenter sees it."""
    gpu = pool("gpu", req("family", "In", "g5"), taints=[GPU_TAINT])
    assert pod_fit(PodShape(gpus=1), [gpu])[0].instance == "g5.xlarge"
    # a pod without a GPU request gets no such toleration
    none = pod_fit(PodShape(gpus=0), [gpu])[0]
    assert none.instance is None and none.reason == "taint nvidia.com/gpu=true:NoSchedule is not tolerated"
    # NoExecute is not what the plugin adds
    hard = pool("gpu", req("family", "In", "g5"), taints=[{**GPU_TAINT, "effect": "NoExecute"}])
    assert pod_fit(PodShape(gpus=1), [hard])[0].instance is None
    neuron = pool("neuron", req("family", "In", "inf2"), taints=[{"key": "aws.amazon.com/neuron", "effect": "NoSchedule"}])
    assert pod_fit(PodShape.parse("neuron=1"), [neuron])[0].instance == "inf2.xlarge"


def test_selectors_and_affinity():
    inference = pool("gpu-inference", req("family", "In", "g5", "g6"), labels={"team": "ml"})
    shape = PodShape.parse("gpus=1,cpu=4,memory=16Gi,select=karpenter.sh/nodepool=gpu-inference")
    # cpu 4 > 3.92 allocatable on xlarge: the 2xlarge sizes (7.91 cpu); g6.2xlarge 0.9776 < g5.2xlarge 1.212
    assert first_choice(pod_fit(shape, [inference])).instance == "g6.2xlarge"
    other = pod_fit(PodShape.parse("select=karpenter.sh/nodepool=training"), [inference])[0]
    assert other.instance is None and "does not match pool gpu-inference" in other.reason
    assert pod_fit(PodShape.parse("select=team=ml"), [inference])[0].instance == "g6.xlarge"
    undefined = pod_fit(PodShape.parse("select=project=x"), [inference])[0]
    assert undefined.instance is None and "not defined by the pool" in undefined.reason
    a10g = pod_fit(PodShape.parse(f"affinity={AWS}gpu-name:In:a10g"), [inference])[0]
    assert a10g.instance == "g5.xlarge"
    none = pod_fit(PodShape.parse(f"affinity={AWS}gpu-name:In:h100"), [inference])[0]
    assert none.instance is None and "admits none" in none.reason
    spot_pool = pool("spot", req("family", "In", "g5"), req("karpenter.sh/capacity-type", "In", "spot"))
    od = pod_fit(PodShape.parse("select=karpenter.sh/capacity-type=on-demand"), [spot_pool])[0]
    assert od.instance is None and "capacity types" in od.reason
    assert pod_fit(PodShape.parse("select=topology.kubernetes.io/zone=us-east-1a"), [spot_pool])[0].instance
    zoned = pool("zoned", req("family", "In", "g5"), req("topology.kubernetes.io/zone", "In", "us-east-1b"))
    assert pod_fit(PodShape.parse("select=topology.kubernetes.io/zone=us-east-1a"), [zoned])[0].instance is None


def test_limit_smaller_than_one_node():
    p = pool("big", req("family", "In", "g5"), req("size", "In", "12xlarge", "48xlarge"),
             limits={"nvidia.com/gpu": "2"})
    fit = pod_fit(PodShape(gpus=1), [p])[0]
    assert fit.instance is None and fit.reason == ("pool cannot launch: every candidate exceeds the pool's limits "
                                                   "with one node: 'all available instance types exceed limits for "
                                                   "nodepool'")
    roomier = pool("big", req("family", "In", "g5"), req("size", "In", "12xlarge", "48xlarge"),
                   limits={"nvidia.com/gpu": "4"})
    assert pod_fit(PodShape(gpus=1), [roomier])[0].instance == "g5.12xlarge"  # 48xlarge's 8 GPUs exceed 4


def test_fit_reports_answers_like_pod_fit_from_one_simulation():
    manifests = [pool("a", req("family", "In", "g5"), weight=5), pool("b", req("family", "In", "g6"), weight=5)]
    shape = PodShape(gpus=1)
    assert fit_reports(shape, simulate_pools(manifests)) == pod_fit(shape, manifests)


def test_auto_mode_pod_fit_uses_auto_mode_labels():
    taint = [GPU_TAINT]
    karpenter = pool("karpenter", req("gpu-name", "In", "l4", "l40s"), req("gpu-count", "Gt", "0"), taints=taint,
                     limits={"nvidia.com/gpu": "8"}, weight=50)
    eks = auto(pool("auto", req("gpu-name", "In", "l4", "l40s"), req("gpu-count", "Gt", "0"), taints=taint,
                    limits={"nvidia.com/gpu": "8"}, weight=10))
    tolerate = ({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},)
    # The guide's accelerated workload: nodeSelector compute-type auto and eks.amazonaws.com/instance-gpu-name.
    shape = PodShape(gpus=1, tolerations=tolerate, node_selector={"eks.amazonaws.com/compute-type": "auto",
                                                                  "eks.amazonaws.com/instance-gpu-name": "l40s"})
    fits = {f.pool: f for f in pod_fit(shape, [karpenter, eks])}
    assert fits["auto"].instance is not None and fits["auto"].instance.startswith("g6e.")
    assert fits["karpenter"].instance is None and "does not have known values" in (fits["karpenter"].reason or "")
    # A karpenter.k8s.aws selector is not an Auto Mode label: it does not match Auto Mode nodes.
    shape = PodShape(gpus=1, tolerations=tolerate, node_selector={"karpenter.k8s.aws/instance-gpu-name": "l40s"})
    fits = {f.pool: f for f in pod_fit(shape, [karpenter, eks])}
    assert fits["karpenter"].instance is not None and fits["auto"].instance is None


def test_a_pod_whose_zone_requirements_exclude_each_other_fits_no_offering():
    # aws BaseResolver.ResolveOfferings: every offering is In one zone; the pod's zone In [a] and In [b] intersect to
    # DoesNotExist, which no offering meets (Karpenter: "no instance type met the scheduling requirements")
    p = pool("gpu", req("family", "In", "g5"))
    shape = PodShape(gpus=1, node_selector={"topology.kubernetes.io/zone": "us-east-1b"},
                     required_affinity=({"key": "topology.kubernetes.io/zone", "operator": "In",
                                         "values": ["us-east-1d"]},))
    fit = pod_fit(shape, [p])[0]
    assert fit.instance is None and "admits none" in fit.reason
    assert pod_fit(PodShape(gpus=1, node_selector={"topology.kubernetes.io/zone": "us-east-1b"}), [p])[0].instance


def test_every_requested_resource_must_fit():
    """``resources.Fits`` on the type's allocatable for every resource the pod asks for: EFA only where the type has
    it, ephemeral storage within the root volume (AL2023's 20Gi by default: 17Gi allocatable after kube-reserved and
    the 10% nodefs eviction threshold), a resource no type has (an unknown extended resource, huge pages) nowhere
    unless the pod asks for none of it."""
    g5 = pool("gpu", req("family", "In", "g5"), taints=[GPU_TAINT])
    efa = pod_fit(PodShape.parse("gpus=1,res=vpc.amazonaws.com/efa:1"), [g5])[0]
    assert efa.instance == "g5.8xlarge"  # the smallest g5 with an EFA
    small = pool("gpu", {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g5.xlarge", "g5.2xlarge"]},
                 taints=[GPU_TAINT])
    none = pod_fit(PodShape.parse("gpus=1,res=vpc.amazonaws.com/efa:1"), [small])[0]
    assert none.instance is None and "short of vpc.amazonaws.com/efa (at most 0)" in none.reason
    assert pod_fit(PodShape.parse("gpus=1,res=ephemeral-storage:17Gi"), [g5])[0].instance == "g5.xlarge"
    beyond = pod_fit(PodShape.parse("gpus=1,res=ephemeral-storage:18Gi"), [g5])[0]
    assert beyond.instance is None and "short of ephemeral-storage (at most 17Gi)" in beyond.reason
    for resource in ("example.com/foo:1", "hugepages-2Mi:2Mi"):
        assert pod_fit(PodShape.parse(f"gpus=1,res={resource}"), [g5])[0].instance is None
    assert pod_fit(PodShape.parse("gpus=1,res=example.com/foo:0"), [g5])[0].instance == "g5.xlarge"


def node_class(**spec) -> dict:
    return {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "gpu"},
            "spec": {"amiSelectorTerms": [{"alias": "al2023@latest"}], "role": "r", **spec}}


def test_ephemeral_storage_comes_from_the_node_class():
    """aws ``ephemeralStorage``: the rootVolume mapping's size, else the family's device (/dev/xvda on AL2023),
    RAID0 the NVMe total (``<GB>G``); less kube-reserved, system-reserved and the nodefs eviction threshold."""
    g5 = pool("gpu", req("family", "In", "g5"), taints=[GPU_TAINT])
    big = PodShape.parse("gpus=1,res=ephemeral-storage:80Gi")
    root = node_class(blockDeviceMappings=[{"deviceName": "/dev/xvdb", "ebs": {"volumeSize": "20Gi"}},
                                           {"deviceName": "/dev/sdf", "rootVolume": True, "ebs": {"volumeSize": "100Gi"}}])
    assert pod_fit(big, [g5, root])[0].instance == "g5.xlarge"  # 100Gi - 1Gi - 10Gi = 89Gi
    other = node_class(blockDeviceMappings=[{"deviceName": "/dev/xvdb", "ebs": {"volumeSize": "200Gi"}}])
    assert pod_fit(big, [g5, other])[0].instance is None  # not the ephemeral device: the default 20Gi
    raid = node_class(instanceStorePolicy="RAID0")
    assert pod_fit(PodShape.parse("gpus=1,res=ephemeral-storage:200G"), [g5, raid])[0].instance == "g5.xlarge"  # 250G
    reserved = node_class(kubelet={"kubeReserved": {"ephemeral-storage": "3Gi"},
                                   "evictionHard": {"nodefs.available": "1Gi"}})
    assert pod_fit(PodShape.parse("gpus=1,res=ephemeral-storage:16Gi"), [g5, reserved])[0].instance == "g5.xlarge"
    assert pod_fit(PodShape.parse("gpus=1,res=ephemeral-storage:17Gi"), [g5, reserved])[0].instance is None
    tiny = node_class(blockDeviceMappings=[{"deviceName": "/dev/xvda", "ebs": {"volumeSize": "1Gi"}}])
    below = pod_fit(PodShape(gpus=1), [g5, tiny])[0]  # 1Gi - 1Gi - 0.1Gi < 0: Fits refuses every type
    assert below.instance is None and "allocatable ephemeral-storage is below 0" in below.reason


def test_a_resource_whose_capacity_is_not_modelled_gives_no_answer():
    g5 = pool("gpu", req("family", "In", "g5"), taints=[GPU_TAINT], weight=10)
    other = pool("other", req("family", "In", "g6"), taints=[GPU_TAINT])
    fits = pod_fit(PodShape.parse("gpus=1,res=vpc.amazonaws.com/pod-eni:1"), [g5, other])
    assert [f.unmodelled for f in fits] == [("vpc.amazonaws.com/pod-eni",)] * 2
    assert fits[0].reason.startswith("not modelled: vpc.amazonaws.com/pod-eni")
    assert first_choice(fits) is None
