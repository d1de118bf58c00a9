"""What launches (analysis/launch.py, node-class compatibility in the simulator): the provider's launch filters,
the capacity-reservation type of reserved offerings and IsCompatibleWithNodeClass, each against the answer the
cheapest offering alone would give."""

from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace

from karpenter_gpu.analysis.catalog import default_catalog
from karpenter_gpu.analysis.explain import explain_environment
from karpenter_gpu.analysis.launch import claim_overheads
from karpenter_gpu.analysis.notes import NoteKind
from karpenter_gpu.analysis.pod_fit import first_choice, pod_fit
from karpenter_gpu.analysis.pod_shape import PodShape
from karpenter_gpu.analysis.simulator import simulate_pools
from karpenter_gpu.k8s.aws_facts import aws_facts_from_documents
from karpenter_gpu.k8s.compatibility import network_limits

EFA = "vpc.amazonaws.com/efa"


def node_class(**spec) -> dict:
    return {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "gpu"},
            "spec": {"amiSelectorTerms": [{"alias": "al2023@latest"}], "role": "r", **spec}}


def pool(requirements: list[dict], name: str = "gpu") -> dict:
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name},
            "spec": {"template": {"spec": {
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
                "requirements": requirements}}}}


def families(*names: str) -> dict:
    return {"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": list(names)}


def types(*names: str) -> dict:
    return {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": list(names)}


def on_demand() -> dict:
    return {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]}


EFA_ONLY = [{"networkCardIndex": 0, "deviceIndex": 0, "interfaceType": "interface"},
            {"networkCardIndex": 0, "deviceIndex": 1, "interfaceType": "efa-only"}]


def test_efa_only_node_class_offers_only_efa_types():
    manifests = [node_class(networkInterfaces=EFA_ONLY), pool([families("g6", "p5"), on_demand()])]
    env = explain_environment("dev", manifests, default_catalog())
    candidates = env["pools"][0]["candidates"]
    catalog = default_catalog().by_name
    assert candidates and all(catalog[n].allocatable.get(EFA, 0) >= 1 for n in candidates)
    assert "g6.xlarge" not in candidates and "g6.8xlarge" in candidates
    assert any("is not compatible with" in n and "g6.xlarge" in n for n in env["pools"][0]["notes"])
    plain = explain_environment("dev", [node_class(), pool([families("g6", "p5"), on_demand()])], default_catalog())
    assert "g6.xlarge" in plain["pools"][0]["candidates"]


def test_efa_only_interfaces_set_the_efa_capacity_and_take_an_eni_from_max_pods():
    manifests = [node_class(networkInterfaces=EFA_ONLY), pool([types("p5.48xlarge"), on_demand()])]
    candidate = simulate_pools(manifests)[0].candidates[0]
    assert candidate.capacity[EFA] == 1  # efas: the efa-only interfaces, not the 32 the type supports
    limits = network_limits("p5.48xlarge")
    assert limits is not None and candidate.capacity["pods"] == limits.eni_pods(1) < limits.eni_pods(0)


def test_connection_tracking_needs_nitro():
    manifests = [node_class(connectionTracking={"tcpEstablishedTimeout": 300}), pool([families("p3", "g5"), on_demand()])]
    names = simulate_pools(manifests)[0].candidate_names
    assert names and not any(n.startswith("p3.") for n in names)
    assert all(default_catalog().by_name[n].labels["karpenter.k8s.aws/instance-hypervisor"] == "nitro" for n in names)


def test_a_network_card_the_type_lacks_refuses_it():
    interfaces = [{"networkCardIndex": 1, "deviceIndex": 0, "interfaceType": "efa-only"}]
    names = simulate_pools([node_class(networkInterfaces=interfaces), pool([families("g6", "p5"), on_demand()])]
                           )[0].candidate_names
    assert names == ("p5.48xlarge",)  # the only one with a second network card


def test_placement_group_is_not_modelled_and_no_first_choice_or_ceiling_is_stated():
    manifests = [node_class(placementGroupSelector={"name": "pg"}), pool([families("g6"), on_demand()])]
    report = simulate_pools(manifests)[0]
    assert report.unmodelled == ("spec.placementGroupSelector",) and report.worst_case_hourly is None
    assert any(n.kind is NoteKind.NOT_MODELLED for n in report.notes)
    fits = pod_fit(PodShape.parse("gpu=1"), manifests)
    assert fits[0].instance is None and fits[0].unmodelled and first_choice(fits) is None


def test_cpu_only_pod_on_a_gpu_pool_launches_the_plain_type():
    manifests = [node_class(), pool([types("g6.xlarge", "g6f.4xlarge"), on_demand()])]
    fit = first_choice(pod_fit(PodShape.parse("gpu=0,cpu=2,memory=4Gi"), manifests))
    assert fit is not None and fit.launch is not None
    # g6.xlarge ($0.80) is the cheapest option, but it has nvidia.com/gpu: ExoticInstanceTypeFilter drops it
    assert set(fit.options) == {"g6.xlarge", "g6f.4xlarge"}
    assert (fit.instance, fit.price) == ("g6f.4xlarge", Decimal("0.950000"))
    assert fit.launch.types == ("g6f.4xlarge",)
    assert ("exotic-instance-filter", ("g6.xlarge",)) in fit.launch.dropped


def test_min_values_keeps_the_exotic_types():
    minimum = {**types("g6.xlarge", "g6f.4xlarge"), "minValues": 2}
    fit = first_choice(pod_fit(PodShape.parse("gpu=0,cpu=2,memory=4Gi"), [node_class(), pool([minimum, on_demand()])]))
    assert fit is not None and fit.instance == "g6.xlarge"


def _reservation_facts():
    stamp = "2025-11-03T00:00:00+00:00"
    reservations = [
        {"CapacityReservationId": "cr-0000000000000000a", "InstanceType": "g6.xlarge", "AvailabilityZone": "us-east-1a",
         "AvailableInstanceCount": 2, "State": "active", "ReservationType": "default", "Tags": [],
         "OwnerId": "012345678901", "InstanceMatchCriteria": "targeted"},
        {"CapacityReservationId": "cr-0000000000000000b", "InstanceType": "g6.2xlarge",
         "AvailabilityZone": "us-east-1b", "AvailableInstanceCount": 1, "State": "active",
         "ReservationType": "capacity-block", "Tags": [], "OwnerId": "012345678901",
         "InstanceMatchCriteria": "targeted"}]
    offerings = [{"InstanceType": t, "LocationType": "availability-zone", "Location": z}
                 for t in ("g6.xlarge", "g6.2xlarge") for z in ("us-east-1a", "us-east-1b")]
    spot = [{"AvailabilityZone": z, "InstanceType": t, "ProductDescription": "Linux/UNIX", "SpotPrice": "0.5",
             "Timestamp": stamp} for t in ("g6.xlarge", "g6.2xlarge") for z in ("us-east-1a", "us-east-1b")]
    return aws_facts_from_documents([("spot.json", {"SpotPriceHistory": spot}),
                                     ("offerings.json", {"InstanceTypeOfferings": offerings}),
                                     ("reservations.json", {"CapacityReservations": reservations})])


def _reserved_manifests(extra: list[dict]) -> list[dict]:
    terms = [{"id": "cr-0000000000000000a"}, {"id": "cr-0000000000000000b"}]
    return [node_class(capacityReservationSelectorTerms=terms),
            pool([families("g6"), {"key": "karpenter.sh/capacity-type", "operator": "In",
                                   "values": ["reserved", "on-demand"]}, *extra])]


def test_capacity_block_only_pool_does_not_launch_on_an_odcr():
    block = {"key": "karpenter.k8s.aws/capacity-reservation-type", "operator": "In", "values": ["capacity-block"]}
    fit = first_choice(pod_fit(PodShape.parse("gpu=1"), _reserved_manifests([block]), aws=_reservation_facts()))
    assert fit is not None and fit.launch is not None
    assert (fit.instance, fit.launch.capacity_type) == ("g6.2xlarge", "reserved")
    assert fit.offering == "reserved/us-east-1b (cr-0000000000000000b)"
    report = simulate_pools(_reserved_manifests([block]), aws=_reservation_facts())[0]
    assert not any(n.kind is NoteKind.UNMODELLED_REQUIREMENT for n in report.notes)


def test_reserved_launch_prefers_the_odcr_partition_at_its_price():
    fit = first_choice(pod_fit(PodShape.parse("gpu=1"), _reserved_manifests([]), aws=_reservation_facts()))
    assert fit is not None and fit.launch is not None
    # both reservations are compatible: the default (ODCR) partition has the cheaper offering
    assert (fit.instance, fit.launch.capacity_type, fit.launch.types) == ("g6.xlarge", "reserved", ("g6.xlarge",))


def test_spot_dearer_than_on_demand_is_not_asked_for():
    spot_pool = pool([types("g6.xlarge", "g6.2xlarge"),
                      {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot", "on-demand"]}])
    dear = aws_facts_from_documents([
        ("spot.json", {"SpotPriceHistory": [
            {"AvailabilityZone": "us-east-1a", "InstanceType": t, "ProductDescription": "Linux/UNIX",
             "SpotPrice": price, "Timestamp": "2025-11-03T00:00:00+00:00"}
            for t, price in (("g6.xlarge", "0.85"), ("g6.2xlarge", "0.9"))]}),
        ("offerings.json", {"InstanceTypeOfferings": [
            {"InstanceType": t, "LocationType": "availability-zone", "Location": "us-east-1a"}
            for t in ("g6.xlarge", "g6.2xlarge")]})])
    fit = first_choice(pod_fit(PodShape.parse("gpu=1"), [node_class(), spot_pool], aws=dear))
    # every spot price ($0.85, $0.90) is above g6.xlarge on-demand ($0.80): SpotOfferingFilter drops them all
    assert fit is not None and fit.launch is not None
    assert (fit.launch.capacity_type, fit.instance) == ("on-demand", "g6.xlarge")


def test_explain_states_what_launches():
    manifests = [node_class(), pool([types("g6.xlarge", "g6f.4xlarge"), on_demand()])]
    pod = explain_environment("dev", manifests, default_catalog(), PodShape.parse("gpu=0,cpu=2,memory=4Gi"))["pod"]
    assert pod["first_choice"] == {"pool": "gpu", "instance": "g6f.4xlarge"}
    assert pod["launch"] == {"capacity_type": "on-demand", "instance_types": ["g6f.4xlarge"], "zones": ["other zones"],
                             "dropped": {"exotic-instance-filter": ["g6.xlarge"]}, "alternatives": []}


def _group(*daemons: tuple[str, dict]) -> SimpleNamespace:
    """An option whose DaemonSets are ``daemons`` (name, requests): what claim_overheads reads of a Candidate."""
    overhead: dict[str, Decimal] = {}
    for _, requests in daemons:
        for k, v in {**requests, "pods": 1}.items():
            overhead[k] = overhead.get(k, Decimal(0)) + Decimal(v)
    return SimpleNamespace(daemons=tuple(name for name, _ in daemons), daemon_overhead=overhead)


def test_claim_overheads_are_every_order_of_the_daemonset_groups():
    cpu, mem = ("d1", {"cpu": 1}), ("d2", {"memory": 4})
    one = {"cpu": Decimal(1), "pods": Decimal(1)}
    # one group: its overhead, whatever the order (v1.9's per-template overhead is always this case)
    assert claim_overheads([_group(cpu), _group(cpu)]) == (one,)
    # a group without DaemonSets empties the running minimum, so the next group's overhead is taken whole
    assert claim_overheads([_group(cpu), _group()]) == ({}, one)
    # MinResources keeps the resources both have: "pods" (every daemon pod counts one)
    assert claim_overheads([_group(cpu), _group(mem)]) == ({"pods": Decimal(1)},)
    both = _group(cpu, mem)
    assert claim_overheads([both, _group(cpu)]) == (one,)
    # three groups, one without DaemonSets: where it falls in the order decides what is left
    assert claim_overheads([_group(cpu), _group(mem), _group()]) == (
        {}, {"pods": Decimal(1)}, one, {"memory": Decimal(4), "pods": Decimal(1)})


#: A DaemonSet that runs only on types of more than one GPU.
AGENT = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "kube-system"},
         "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": {
             "metadata": {"labels": {"app": "agent"}},
             "spec": {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                 "nodeSelectorTerms": [{"matchExpressions": [
                     {"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Gt", "values": ["1"]}]}]}}},
                 "tolerations": [{"operator": "Exists"}],
                 "containers": [{"name": "a", "image": "example.com/a:1",
                                 "resources": {"requests": {"cpu": "1", "memory": "4Gi"}}}]}}}}


def test_launch_follows_the_daemonset_requests_karpenter_adds_to_the_nodeclaim():
    # a DaemonSet on the multi-GPU type only: the NodeClaim's requests may carry its overhead (Go map order), and
    # then the provider's CompatibleAvailableFilter drops the 1-GPU type the pod just fits
    manifests = [node_class(), pool([types("g6e.16xlarge", "g7e.48xlarge"), on_demand()])]
    catalog = default_catalog()
    small = next(c for c in simulate_pools(manifests, catalog)[0].candidates if c.name == "g6e.16xlarge")
    room = small.free("memory") - Decimal(2**20)  # the pod leaves 1 MiB of the 1-GPU type free
    shape = PodShape.parse(f"gpu=0,memory={int(room) // 2**20}Mi")
    fit = first_choice(pod_fit(shape, [*manifests, AGENT], catalog))
    assert fit is not None and fit.instance == "g6e.16xlarge"
    assert [o.instance for o in fit.launch_alternatives] == ["g7e.48xlarge"]
    env = explain_environment("dev", [*manifests, AGENT], catalog, shape)
    assert [o["instance"] for o in env["pod"]["launch"]["alternatives"]] == ["g7e.48xlarge"]
    # without the DaemonSet's selector on the GPU count it runs on both types: one overhead, one answer
    plain = first_choice(pod_fit(shape, manifests, catalog))
    assert plain is not None and plain.launch_alternatives == ()


def test_a_planned_nodeclaim_names_what_else_it_may_launch():
    """plan: the same NodeClaim in a batch (scheduler.py ``_planned``) launches the 1-GPU type at its cheapest and
    names the 8-GPU type it launches when Go's map order adds the DaemonSet's requests; the JSON carries both."""
    from karpenter_gpu.analysis.batch import schedule_batch

    manifests = [node_class(), pool([types("g6e.16xlarge", "g7e.48xlarge"), on_demand()])]
    catalog = default_catalog()
    small = next(c for c in simulate_pools(manifests, catalog)[0].candidates if c.name == "g6e.16xlarge")
    memory = f"{(int(small.free('memory')) - 2**20) // 2**20}Mi"
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "big", "namespace": "ml"},
           "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"memory": memory}}}]}}
    (claim,) = schedule_batch([*manifests, AGENT], [pod], catalog=catalog).nodeclaims
    assert claim.instance_type == "g6e.16xlarge" and [o.instance for o in claim.alternatives] == ["g7e.48xlarge"]
    (alone,) = schedule_batch(manifests, [pod], catalog=catalog).nodeclaims
    assert alone.instance_type == "g6e.16xlarge" and alone.alternatives == ()


def test_claim_overheads_equal_every_order_folded():
    """The closure :func:`claim_overheads` computes equals folding the groups in every order (``addDaemonRequests``
    run on each permutation), on random groups of DaemonSets over cpu, memory and a GPU resource."""
    import itertools
    import random

    from karpenter_gpu.analysis.launch import _min_resources

    rng = random.Random(7)
    for _ in range(300):
        options = []
        for g in range(rng.randint(1, 5)):
            daemons = [(f"d{g}-{i}", {k: rng.randint(0, 3) for k in rng.sample(["cpu", "memory", EFA], rng.randint(0, 3))})
                       for i in range(rng.choice((0, 1, 1, 2)))]
            options.append(_group(*daemons))
        groups = {}
        for c in options:
            groups.setdefault(tuple(sorted(c.daemons)), tuple(sorted(c.daemon_overhead.items())) if c.daemons else ())
        folded = set()
        for order in itertools.permutations(groups.values()):
            running: tuple = ()
            for o in order:
                running = o if not running else _min_resources(running, o)
            folded.add(running)
        assert {tuple(sorted(o.items())) for o in claim_overheads(options)} == folded
