"""The batch scheduler (karpenter_gpu.analysis.batch): a workload's pods placed as Karpenter v1.14.1's ``Solve``
places them. Expected figures are worked out by hand from the upstream rules (scheduler.go subtractMax,
topologygroup.go nextDomainTopologySpread / nextDomainAntiAffinity, existingnode.go CanAdd) and the catalog's
g6 sizes (g6.xlarge 1 GPU ... g6.12xlarge 4 GPUs 4.6016 $/h), not computed with the code under test."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal

import pytest

from karpenter_gpu.analysis.batch import schedule_batch
from karpenter_gpu.analysis.batch.gosort import go_sort_slice
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.aws_facts import aws_facts_from_documents
from karpenter_gpu.k8s.cluster_nodes import cluster_nodes
from karpenter_gpu.k8s.controller_settings import DEFAULT_ON, ControllerSettings, FeatureGate
from tests.test_simulator import GPU_TAINT, pool, req

ZONES = ("us-east-1a", "us-east-1b", "us-east-1c")
ON_DEMAND = req("karpenter.sh/capacity-type", "In", "on-demand")


def gpu_pod(name: str, gpus: int = 1, labels: dict | None = None, **spec) -> dict:
    requests = {"nvidia.com/gpu": str(gpus), "cpu": "1", "memory": "4Gi"}
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "ml", "labels": labels or {"app": "vllm"}},
            "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": requests}}],
                     "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                     **spec}}


def facts(types: list[str]):
    """Every type offered in the three zones (describe-instance-type-offerings)."""
    offerings = [{"InstanceType": t, "LocationType": "availability-zone", "Location": z} for t in types for z in ZONES]
    return aws_facts_from_documents([("offerings.json", {"InstanceTypeOfferings": offerings})])


G6 = ["g6.xlarge", "g6.2xlarge", "g6.4xlarge", "g6.8xlarge", "g6.12xlarge", "g6.16xlarge", "g6.24xlarge",
      "g6.48xlarge"]


def test_five_one_gpu_pods_under_a_four_gpu_limit_get_one_four_gpu_node_and_one_pending():
    p = pool("gpu", req("family", "In", "g6"), ON_DEMAND, limits={"nvidia.com/gpu": "4"}, taints=[GPU_TAINT])
    plan = schedule_batch([p], [gpu_pod(f"p{i}") for i in range(5)])
    assert plan.not_modelled == ()
    (claim,) = plan.nodeclaims
    # the first pod's NodeClaim may become any g6 of <= 4 GPUs: subtractMax charges 4 GPUs at once, so the four
    # pods that fit one 4-GPU node join it and the fifth finds no type within what is left (0 GPUs)
    assert claim.pods == ("ml/p0", "ml/p1", "ml/p2", "ml/p3")
    assert claim.options == ("g6.12xlarge", "g6.24xlarge")
    assert (claim.instance_type, claim.capacity_type, claim.hourly) == ("g6.12xlarge", "on-demand",
                                                                        Decimal("4.6016"))
    (pending,) = plan.pending
    assert pending.pod == "ml/p4" and pending.reason == "all available instance types exceed limits for nodepool"
    assert plan.remaining == {"gpu": {"nvidia.com/gpu": Decimal(0)}}
    assert plan.hourly == Decimal("4.6016")


def spread(key: str = "topology.kubernetes.io/zone", when: str = "DoNotSchedule", skew: int = 1) -> dict:
    return {"maxSkew": skew, "topologyKey": key, "whenUnsatisfiable": when,
            "labelSelector": {"matchLabels": {"app": "vllm"}}}


def test_three_replicas_spread_over_zones_get_three_nodeclaims_in_three_zones():
    p = pool("gpu", req("family", "In", "g6"), ON_DEMAND, taints=[GPU_TAINT])
    pods = [gpu_pod(f"vllm-{i}", topologySpreadConstraints=[spread()]) for i in range(3)]
    plan = schedule_batch([p], pods, aws=facts(G6))
    assert plan.not_modelled == () and plan.pending == ()
    assert len(plan.nodeclaims) == 3
    assert sorted(c.zone for c in plan.nodeclaims) == list(ZONES)
    assert all(len(c.pods) == 1 and c.instance_type == "g6.xlarge" for c in plan.nodeclaims)
    # without the spread the three pods share one node (in-flight NodeClaim): a 4-GPU g6.12xlarge
    together = schedule_batch([p], [gpu_pod(f"vllm-{i}") for i in range(3)], aws=facts(G6))
    assert [len(c.pods) for c in together.nodeclaims] == [3]


def test_spread_domains_come_from_every_pool_and_schedule_anyway_is_relaxed_only_when_unmet():
    # zone a from pool gpu; zones b and c only from a pool whose taint the pods do not tolerate: with
    # nodeTaintsPolicy Ignore (the default) b and c still count as empty domains (buildDomainGroups)
    a = pool("gpu", req("family", "In", "g6"), ON_DEMAND, req("topology.kubernetes.io/zone", "In", "us-east-1a"),
             taints=[GPU_TAINT])
    bc = pool("other", req("family", "In", "g6"), ON_DEMAND,
              req("topology.kubernetes.io/zone", "In", "us-east-1b", "us-east-1c"),
              taints=[{"key": "dedicated", "value": "x", "effect": "NoSchedule"}])
    strict = schedule_batch([a, bc], [gpu_pod(f"s{i}", topologySpreadConstraints=[spread()]) for i in range(3)],
                            aws=facts(G6))
    assert [c.pods for c in strict.nodeclaims] == [("ml/s0",)]
    assert [x.pod for x in strict.pending] == ["ml/s1", "ml/s2"]
    # templates in weight order (equal weights: name descending): other, then gpu
    assert all(x.parts == ("did not tolerate taint",
                           "unsatisfiable topology constraint for topology spread, key=topology.kubernetes.io/zone")
               for x in strict.pending)
    honor = dict(spread(), nodeTaintsPolicy="Honor")  # b and c are on nodes the pods do not tolerate: not counted
    honored = schedule_batch([a, bc], [gpu_pod(f"s{i}", topologySpreadConstraints=[honor]) for i in range(3)],
                             aws=facts(G6))
    assert honored.pending == () and [len(c.pods) for c in honored.nodeclaims] == [3]
    soft = schedule_batch([a, bc], [gpu_pod(f"s{i}", topologySpreadConstraints=[spread(when="ScheduleAnyway")])
                                    for i in range(3)], aws=facts(G6))
    assert soft.pending == () and [len(c.pods) for c in soft.nodeclaims] == [3]


def test_hostname_anti_affinity_puts_each_replica_on_its_own_node():
    p = pool("gpu", req("family", "In", "g6"), ON_DEMAND, taints=[GPU_TAINT])
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "vllm"}}}]}}
    plan = schedule_batch([p], [gpu_pod(f"a{i}", affinity=anti) for i in range(3)])
    assert [c.pods for c in plan.nodeclaims] == [("ml/a0",), ("ml/a1",), ("ml/a2",)]
    assert {c.instance_type for c in plan.nodeclaims} == {"g6.xlarge"}
    # a pod the selector does not pick may share a node with them
    other = gpu_pod("other", labels={"app": "other"})
    shared = schedule_batch([p], [gpu_pod(f"a{i}", affinity=anti) for i in range(2)] + [other])
    assert len(shared.nodeclaims) == 2 and sorted(len(c.pods) for c in shared.nodeclaims) == [1, 2]


def existing_claim(pool_name: str, instance_type: str, capacity: dict) -> dict:
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim", "metadata": {"name": "running-0", "labels": {
        "karpenter.sh/nodepool": pool_name, "node.kubernetes.io/instance-type": instance_type,
        "topology.kubernetes.io/zone": "us-east-1a", "karpenter.sh/capacity-type": "on-demand"}},
        "status": {"providerID": "aws:///us-east-1a/i-0", "capacity": capacity}}


def test_an_existing_node_takes_a_pod_before_any_new_nodeclaim():
    p = pool("gpu", req("family", "In", "g6"), ON_DEMAND, limits={"nvidia.com/gpu": "8"}, taints=[GPU_TAINT])
    nodes = cluster_nodes([existing_claim("gpu", "g6.12xlarge", {"cpu": "48", "memory": "192Gi",
                                                                 "nvidia.com/gpu": "4", "pods": "234"})])
    plan = schedule_batch([p], [gpu_pod(f"p{i}") for i in range(5)], nodes=nodes)
    # the running g6.12xlarge (4 GPUs) takes four pods; it used 4 of the 8 GPUs, so one new node of <= 4 GPUs
    (use,) = plan.existing
    assert use.node == "running-0" and use.pods == ("ml/p0", "ml/p1", "ml/p2", "ml/p3")
    (claim,) = plan.nodeclaims
    assert claim.pods == ("ml/p4",) and claim.instance_type == "g6.xlarge"
    assert plan.pending == ()


def test_an_existing_node_counts_only_the_daemonsets_its_labels_admit():
    """getCompatibleDaemonPods: a DaemonSet counts on an existing node when the node's labels meet its selector, not
    when the node's type could carry it somewhere (a spot-only agent does not run on an on-demand node)."""
    p = pool("gpu", req("family", "In", "g6"), ON_DEMAND, taints=[GPU_TAINT])
    nodes = cluster_nodes([existing_claim("gpu", "g6.12xlarge", {"cpu": "48", "memory": "192Gi",
                                                                 "nvidia.com/gpu": "4", "pods": "234"})])

    def agent(capacity_type: str) -> dict:
        return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": f"{capacity_type}-agent"},
                "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": {
                    "metadata": {"labels": {"app": "agent"}},
                    "spec": {"nodeSelector": {"karpenter.sh/capacity-type": capacity_type},
                             "tolerations": [{"operator": "Exists"}],
                             "containers": [{"name": "a", "image": "x", "resources": {"requests": {"cpu": "45"}}}]}}}}

    pods = [gpu_pod(f"p{i}") for i in range(4)]
    spot_only = schedule_batch([p, agent("spot")], pods, nodes=nodes)
    (use,) = spot_only.existing
    assert use.pods == ("ml/p0", "ml/p1", "ml/p2", "ml/p3") and spot_only.nodeclaims == ()
    # an agent the on-demand node runs leaves it under 3 CPUs: two pods of 1 CPU, the other two on a new node
    on_demand = schedule_batch([p, agent("on-demand")], pods, nodes=nodes)
    (use,) = on_demand.existing
    assert use.pods == ("ml/p0", "ml/p1") and [c.pods for c in on_demand.nodeclaims] == [("ml/p2", "ml/p3")]


def test_an_existing_nodes_prefer_no_schedule_taint_keeps_out_a_daemonset_only_without_templates():
    """isDaemonPodCompatibleWithNode tolerates with the DaemonSet pod's own tolerations, but NewScheduler first checks
    the same pods against its NodeClaim templates (buildDaemonOverheadGroups / isDaemonPodCompatible), which appends
    a PreferNoSchedule toleration to each: with a template, the node's PreferNoSchedule taint no longer keeps the
    DaemonSet out (oracle seed 21 case 354); with none (the pool's requirements leave no type), it does."""
    soft = {"key": "example.com/soft", "effect": "PreferNoSchedule"}
    nodes = cluster_nodes([existing_claim("gpu", "g6.12xlarge", {"cpu": "48", "memory": "192Gi",
                                                                 "nvidia.com/gpu": "4", "pods": "234"})])
    agent = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"},
             "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": {
                 "metadata": {"labels": {"app": "agent"}},
                 "spec": {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                          "containers": [{"name": "a", "image": "x", "resources": {"requests": {"cpu": "45"}}}]}}}}
    pods = [gpu_pod(f"p{i}", tolerations=[{"operator": "Exists"}]) for i in range(4)]
    none = pool("gpu", req("family", "In", "g6"), req("node.kubernetes.io/instance-type", "In", "g6.nosuch"),
                ON_DEMAND, taints=[GPU_TAINT, soft])
    plan = schedule_batch([none, agent], pods, nodes=nodes)
    (use,) = plan.existing
    assert use.pods == ("ml/p0", "ml/p1", "ml/p2", "ml/p3") and plan.nodeclaims == ()
    some = pool("gpu", req("family", "In", "g6"), ON_DEMAND, taints=[GPU_TAINT, soft])
    plan = schedule_batch([some, agent], pods, nodes=nodes)
    # g6.12xlarge: 48 vCPUs less 110m kube-reserved less the agent's 45 leave 2.89 CPUs: two 1-CPU pods
    (use,) = plan.existing
    assert use.pods == ("ml/p0", "ml/p1")
    assert [c.pods for c in plan.nodeclaims] == [("ml/p2", "ml/p3")]


def test_host_ports_keep_two_pods_off_one_node():
    p = pool("gpu", req("family", "In", "g6"), ON_DEMAND, taints=[GPU_TAINT])
    port = [{"name": "c", "image": "x", "ports": [{"containerPort": 80, "hostPort": 8080, "protocol": "TCP"}],
             "resources": {"requests": {"nvidia.com/gpu": "1"}}}]
    plan = schedule_batch([p], [gpu_pod(f"h{i}", containers=port) for i in range(2)])
    assert [c.pods for c in plan.nodeclaims] == [("ml/h0",), ("ml/h1",)]


def test_what_the_core_does_not_model_is_said_with_no_figure():
    p = pool("gpu", req("family", "In", "g6"), ON_DEMAND, taints=[GPU_TAINT])
    odd = gpu_pod("x", topologySpreadConstraints=[spread(key="example.com/rack")])
    plan = schedule_batch([p], [odd])
    assert plan.not_modelled == ("pod ml/x: topologyKey example.com/rack",)
    assert plan.nodeclaims == () and plan.hourly is None
    zone = schedule_batch([p], [gpu_pod("z", topologySpreadConstraints=[spread()])])
    assert zone.not_modelled and "zones each type is offered in" in zone.not_modelled[0]


@pytest.mark.parametrize("pods", [[gpu_pod("a"), gpu_pod("a")], ["not a pod"], [{"metadata": {}, "spec": {}}]])
def test_fails_when_a_pod_cannot_be_read(pods):
    with pytest.raises(KarpenterGpuError) as err:
        schedule_batch([pool("gpu", req("family", "In", "g6"))], pods)
    assert err.value.code == "KG480"


def test_the_batch_oracle_comparison_can_fail():
    """A committed batch vector whose recorded answer moves a pod to another NodeClaim, or drops a Pending reason,
    disagrees (tests/oracle/vectors/batch.jsonl holds Karpenter's Solve answers)."""
    import json
    from pathlib import Path

    from tests.oracle import compare

    lines = (Path(__file__).parent / "oracle" / "vectors" / "batch.jsonl").read_text().splitlines()
    vectors = [json.loads(line) for line in lines]
    first = [v["answer"]["answers"][0] if v["answer"]["answers"] else {} for v in vectors]
    claims = next(v for v, a in zip(vectors, first) if len(a.get("nodeclaims") or []) >= 2)
    moved = json.loads(json.dumps(claims["answer"]))
    moved["answers"][0]["nodeclaims"][0]["pods"].append(moved["answers"][0]["nodeclaims"][1]["pods"].pop())
    assert compare.differences("batch", claims["case"], claims["answer"]) == []
    assert compare.differences("batch", claims["case"], moved)
    pending = next(v for v, a in zip(vectors, first) if a.get("pending"))
    fewer = json.loads(json.dumps(pending["answer"]))
    fewer["answers"][0]["pending"].pop()
    assert compare.differences("batch", pending["case"], fewer)


def test_a_pod_tried_again_meets_the_capacity_type_its_spread_can_launch():
    """nextDomainTopologySpread takes the first domain of least count its map iteration meets, and Solve tries a pod
    again after each relaxation step (preferences.go Relax), drawing again: a pod tried twice almost always meets
    the domain a NodeClaim can launch. Domains on-demand and spot (pool gpu's offerings) and reserved (pool capped's
    In requirement); capped's limit leaves it no type, and without the reservedCapacity gate nothing is reserved."""
    gpu = pool("gpu", req("family", "In", "g6"), weight=10, taints=[GPU_TAINT])
    capped = pool("capped", req("family", "In", "g6"), req("karpenter.sh/capacity-type", "In", "spot", "reserved"),
                  limits={"nvidia.com/gpu": "0"}, taints=[GPU_TAINT])
    port = [{"name": "c", "image": "x", "ports": [{"containerPort": 80, "hostPort": 8080, "protocol": "TCP"}],
             "resources": {"requests": {"nvidia.com/gpu": "1"}}}]
    prefer = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 50, "preference": {"matchExpressions": [req("family", "In", "g6")]}}]}}
    ct = spread(key="karpenter.sh/capacity-type")

    no_reservations = ControllerSettings(gates=DEFAULT_ON - {FeatureGate.RESERVED_CAPACITY})

    def plan(**extra):
        return schedule_batch([gpu, capped], [gpu_pod(f"c{i}", containers=port, topologySpreadConstraints=[ct],
                                                       **extra) for i in range(3)], settings=no_reservations)

    tried = plan(affinity=prefer)
    assert tried.not_modelled == ()
    # c0 takes on-demand (all counts 0, the first domain); c1 draws reserved first (nothing launches there: gpu has no
    # reserved offering, capped's types all exceed its limit), is relaxed and tried again, and meets spot; c2 may
    # only go to reserved (on-demand and spot hold one pod each, reserved none) and stays Pending
    assert [(c.pool, c.pods, c.capacity_type) for c in tried.nodeclaims] == [("gpu", ("ml/c0",), "on-demand"),
                                                                             ("gpu", ("ml/c1",), "spot")]
    assert [p.pod for p in tried.pending] == ["ml/c2"]
    # without a preference to relax, c1 is tried once (Solve stops when a pass of the queue places nobody): its one
    # draw is reserved, as Karpenter's mostly is
    once = plan()
    assert [(c.pool, c.pods) for c in once.nodeclaims] == [("gpu", ("ml/c0",))]
    assert [p.pod for p in once.pending] == ["ml/c1", "ml/c2"]
    # the templates in weight order: gpu (no type offers reserved), then capped
    assert once.pending[0].parts == (
        "no instance type met the scheduling requirements or had enough resources or had a required offering",
        "all available instance types exceed limits for nodepool")


def _two_zone_facts(types: list[str]):
    offerings = [{"InstanceType": t, "LocationType": "availability-zone", "Location": z} for t in types
                 for z in ZONES[:2]]
    return aws_facts_from_documents([("offerings.json", {"InstanceTypeOfferings": offerings})])


def test_spreads_equal_but_for_min_domains_are_one_group_the_first_made():
    """TopologyGroup.Hash (topologygroup.go) leaves minDomains out and hashes the selector with hashSelector, where a
    matchLabelKeys key the pod lacks adds nothing: the two spreads below are one group, the first made (Update). Two
    zones, one 8-GPU pod per g6.48xlarge: alone, minDomains 3 keeps the global minimum at 0 and maxSkew 2 lets each
    zone take 2 pods (the fifth Pending); after a spread without minDomains it is that spread's group, which
    places all five (3 + 2)."""
    p = pool("gpu", req("family", "In", "g6"), ON_DEMAND, taints=[GPU_TAINT])
    plain = {**spread(skew=2)}
    floor = {**spread(skew=2), "minDomains": 3, "matchLabelKeys": ["absent"]}

    def plan(*spreads):
        pods = [gpu_pod(f"t{i}", gpus=8, topologySpreadConstraints=list(spreads)) for i in range(5)]
        return schedule_batch([p], pods, aws=_two_zone_facts(G6))

    both = plan(plain, floor)
    assert both.not_modelled == () and both.pending == ()
    assert sorted(Counter(c.zone for c in both.nodeclaims).values()) == [2, 3]
    alone = plan(floor)
    assert len(alone.nodeclaims) == 4 and [p.pod for p in alone.pending] == ["ml/t4"]
    assert alone.pending[0].reason == "unsatisfiable topology constraint for topology spread, " \
                                      "key=topology.kubernetes.io/zone"
    first = plan(floor, plain)  # the minDomains spread made first: its group is the one
    assert len(first.nodeclaims) == 4 and [p.pod for p in first.pending] == ["ml/t4"]


def test_in_flight_nodeclaims_of_equal_pod_count_are_met_in_the_order_go_sort_slice_leaves_them():
    """Scheduler.add sorts the in-flight NodeClaims with sort.Slice by pod count: beyond 12 a pdqsort, not stable.
    13 pods of 8 GPUs get a g6.48xlarge each (b00 ... b12, in queue order); the first small pod joins b00's (13
    equal counts: already sorted, untouched); for the second the counts are [2, 1 x 12], which Go's sort.Slice
    orders as [6, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 0] (run with Go 1.26): it joins b06's, not b01's."""
    p = pool("gpu", req("family", "In", "g6"), ON_DEMAND, taints=[GPU_TAINT])
    small = {"cpu": "100m", "memory": "128Mi"}
    pods = [gpu_pod(f"b{i:02d}", gpus=8) for i in range(13)] + [
        {**gpu_pod(f"s{i}"), "spec": {**gpu_pod(f"s{i}")["spec"], "containers": [
            {"name": "c", "image": "x", "resources": {"requests": small}}]}} for i in range(2)]
    plan = schedule_batch([p], pods)
    assert plan.not_modelled == () and plan.pending == ()
    shared = sorted(c.pods for c in plan.nodeclaims if len(c.pods) == 2)
    assert shared == [("ml/b00", "ml/s0"), ("ml/b06", "ml/s1")]


def test_go_sort_slice_orders_equal_keys_as_go_does():
    """Orders printed by Go 1.26's sort.Slice (index permutations) for keys with many equal elements."""
    cases = {(1,) * 13: list(range(13)),
             (2,) + (1,) * 12: [6, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 0],
             (2,) + (1,) * 13: [6, 12, 2, 3, 4, 5, 8, 13, 1, 9, 10, 11, 7, 0],
             (3, 1, 2, 1, 2, 1, 2, 1, 3, 1, 2, 1, 1, 1, 2, 1, 3, 1, 2, 1):
                 [15, 1, 19, 3, 17, 5, 13, 7, 9, 11, 12, 10, 6, 14, 4, 18, 2, 8, 0, 16]}
    for keys, order in cases.items():
        items = list(range(len(keys)))
        go_sort_slice(items, keys)
        assert items == order, keys


def test_the_batch_oracle_compares_nodeclaims_alike_but_for_the_capacity_type_as_a_set():
    """Two NodeClaims of one pool, pod class and options, one on-demand and one spot, are one answer whichever
    Karpenter made first (regression vector batch-11-6455: both orders come out of its Solve)."""
    import json
    from pathlib import Path

    from tests.oracle import compare

    lines = (Path(__file__).parent / "oracle" / "vectors" / "regressions.jsonl").read_text().splitlines()
    vector = next(json.loads(line) for line in lines if json.loads(line)["id"] == "batch-11-6455")
    answer = vector["answer"]
    claims = answer["answers"][0]["nodeclaims"]
    assert sorted(c["launch"]["capacity_type"] for c in claims) == ["on-demand", "spot"]
    assert compare.differences("batch", vector["case"], answer) == []
    swapped = json.loads(json.dumps(answer))
    swapped["answers"][0]["nodeclaims"].reverse()
    assert compare.differences("batch", vector["case"], swapped) == []
    both_spot = json.loads(json.dumps(answer))
    for claim in both_spot["answers"][0]["nodeclaims"]:
        claim["launch"]["capacity_type"] = "spot"
    assert compare.differences("batch", vector["case"], both_spot)


def test_a_reservation_outside_a_pools_zones_still_makes_reserved_a_capacity_type_domain():
    """buildDomainGroups (topology.go) intersects each type's requirements with the template's key by key: a
    g6.xlarge reserved in us-east-1c gives pool zonal (zones a and b, no capacity-type requirement) the domain
    reserved, though zonal can launch nothing reserved. So the spread's least count is reserved's 0: after an
    on-demand and a spot NodeClaim the third pod may only go to reserved, and stays Pending (seed 36 case 9155)."""
    reservation = {"CapacityReservationId": "cr-0000000000000000a", "InstanceType": "g6.xlarge",
                   "AvailabilityZone": "us-east-1c", "AvailableInstanceCount": 2, "State": "active",
                   "ReservationType": "default", "Tags": [], "OwnerId": "012345678901",
                   "InstanceMatchCriteria": "targeted"}
    offerings = [{"InstanceType": t, "LocationType": "availability-zone", "Location": z} for t in G6 for z in ZONES]
    aws = aws_facts_from_documents([("offerings.json", {"InstanceTypeOfferings": offerings}),
                                    ("reservations.json", {"CapacityReservations": [reservation]})])
    node_class = {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "gpu"},
                  "spec": {"amiSelectorTerms": [{"alias": "al2023@latest"}], "role": "r",
                           "capacityReservationSelectorTerms": [{"id": "cr-0000000000000000a"}]}}
    spread_pool = pool("spread", req("family", "In", "g6"),
                       req("karpenter.sh/capacity-type", "In", "on-demand", "spot"), weight=10, taints=[GPU_TAINT])
    zonal = pool("zonal", req("family", "In", "g6"), req("topology.kubernetes.io/zone", "In", *ZONES[:2]),
                 taints=[GPU_TAINT])
    pods = [gpu_pod(f"r{i}", topologySpreadConstraints=[spread(key="karpenter.sh/capacity-type")]) for i in range(3)]
    plan = schedule_batch([node_class, spread_pool, zonal], pods, aws=aws)
    assert plan.not_modelled == ()
    assert [(c.pool, c.pods, c.capacity_type) for c in plan.nodeclaims] == [("spread", ("ml/r0",), "on-demand"),
                                                                            ("spread", ("ml/r1",), "spot")]
    (pending,) = plan.pending
    # spread: neither of its capacity types is within the skew; zonal: reserved, which g6.xlarge's requirements admit
    # (met) but no offering of zones a and b has (InstanceTypeFilterError: no fit with a required offering)
    assert pending.pod == "ml/r2" and pending.parts == (
        "unsatisfiable topology constraint for topology spread, key=karpenter.sh/capacity-type",
        "no instance type had enough resources or had a required offering")
    # a node class selecting no reservation: the least count is 1 and the third pod joins the on-demand NodeClaim
    unreserved = {**node_class, "spec": {k: v for k, v in node_class["spec"].items()
                                         if k != "capacityReservationSelectorTerms"}}
    plain = schedule_batch([unreserved, spread_pool, zonal], pods, aws=aws)
    assert plain.not_modelled == ()
    assert plain.pending == () and [c.pods for c in plain.nodeclaims] == [("ml/r0", "ml/r2"), ("ml/r1",)]


def test_a_pod_tried_twice_takes_the_one_zone_of_three_that_fits_as_karpenter_mostly_does():
    """With one of three equally good zones fitting, Karpenter's two random draws (a try, a relaxation step, a try)
    meet it with probability 1 - (2/3)^2 = 5/9, its one draw with 1/3: a pod tried twice lands in us-east-1c, the
    only zone offering g6.xlarge (g5.xlarge makes a and b domains of the zone spread), a pod tried once stays
    Pending."""
    offerings = [{"InstanceType": "g6.xlarge", "LocationType": "availability-zone", "Location": "us-east-1c"}] + [
        {"InstanceType": "g5.xlarge", "LocationType": "availability-zone", "Location": z} for z in ZONES]
    aws = aws_facts_from_documents([("offerings.json", {"InstanceTypeOfferings": offerings})])
    p = pool("gpu", req("node.kubernetes.io/instance-type", "In", "g6.xlarge"), ON_DEMAND, taints=[GPU_TAINT])
    prefer = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 50, "preference": {"matchExpressions": [req("family", "In", "g6")]}}]}}
    tried = schedule_batch([p], [gpu_pod("z", topologySpreadConstraints=[spread()], affinity=prefer)], aws=aws)
    assert tried.not_modelled == () and tried.pending == ()
    assert [(c.pods, c.zone) for c in tried.nodeclaims] == [(("ml/z",), "us-east-1c")]
    once = schedule_batch([p], [gpu_pod("z", topologySpreadConstraints=[spread()])], aws=aws)
    assert once.nodeclaims == () and [x.pod for x in once.pending] == ["ml/z"]
