"""Offerings and NodeOverlay application (karpenter_gpu.k8s.offerings), each against the upstream function."""

from __future__ import annotations

from decimal import Decimal

from karpenter_gpu.analysis.pod_fit import first_choice, pod_fit
from karpenter_gpu.analysis.pod_shape import PodShape
from karpenter_gpu.analysis.simulator import simulate_pools
from karpenter_gpu.analysis.catalog import default_catalog
from karpenter_gpu.k8s.controller_settings import read_settings
from karpenter_gpu.k8s.offerings import instance_requirements, pool_offerings
from karpenter_gpu.k8s.overlay_resolution import OverlayResolution
from karpenter_gpu.k8s.views import NodePoolView, OverlayView
from tests.test_simulator import overlay, pool, req

AWS = "karpenter.k8s.aws/instance-"
ZONE = "topology.kubernetes.io/zone"
CT = "karpenter.sh/capacity-type"
#: The controller these overlays are written for: a values file turning the nodeOverlay gate on (the chart's default
#: is off, and then no NodeOverlay is applied: tests/test_controller_settings.py), the other settings the chart's.
OVERLAYS = read_settings({"settings": {"featureGates": {"nodeOverlay": True}}})


G5X = pool("p", req("node.kubernetes.io/instance-type", "In", "g5.xlarge"), req(ZONE, "In", "us-east-1a", "us-east-1b"),
           req(CT, "In", "spot", "on-demand"))


def prices(report) -> dict[str, Decimal | None]:
    return {o.offering.label: o.price for o in report.candidates[0].offerings}


def test_overlay_naming_a_zone_reprices_only_that_zones_offerings():
    # controller.go getOverlaidOfferings -> Offerings.Compatible; store.go applyPriceOverlays per offering
    report = simulate_pools([G5X, overlay("cheap-1a", req(ZONE, "In", "us-east-1a"), price="0.5")], settings=OVERLAYS)[0]
    assert prices(report) == {"spot/us-east-1a": Decimal("0.5"), "spot/us-east-1b": Decimal("1.006"),
                              "on-demand/us-east-1a": Decimal("0.5"), "on-demand/us-east-1b": Decimal("1.006")}
    assert report.candidates[0].price == Decimal("0.5")  # OrderByPrice: the cheapest compatible offering
    # a pod that needs us-east-1b pays the untouched price
    fit = pod_fit(PodShape.parse(f"select={ZONE}=us-east-1b"), [G5X, overlay("cheap-1a", req(ZONE, "In", "us-east-1a"),
                                                                                price="0.5")], settings=OVERLAYS)[0]
    assert (fit.price, fit.offering) == (Decimal("1.006"), "spot/us-east-1b")


def test_overlay_naming_a_capacity_type_reprices_only_those_offerings():
    report = simulate_pools([G5X, overlay("spot-cheap", req(CT, "In", "spot"), priceAdjustment="-50%")],
                            settings=OVERLAYS)[0]
    assert prices(report)["spot/us-east-1a"] == Decimal("0.503")
    assert prices(report)["on-demand/us-east-1a"] == Decimal("1.006")


def test_higher_weight_wins_per_offering():
    report = simulate_pools([G5X, overlay("all", weight=5, price="2"),
                             overlay("spot", req(CT, "In", "spot"), weight=9, price="0.3")], settings=OVERLAYS)[0]
    assert prices(report)["spot/us-east-1b"] == Decimal("0.3") and prices(report)["on-demand/us-east-1b"] == Decimal("2")
    assert report.candidates[0].overlays == ("spot", "all")


def test_equal_weight_conflict_drops_the_alphabetically_earlier_overlay_everywhere():
    # NodeOverlayList.OrderByWeight (name descending) then validateAndUpdateInstanceTypeOverrides: "zeta" is stored
    # first; "alpha" prices an offering zeta already priced at the same weight -> Conflict, applied nowhere.
    other = pool("q", req(AWS + "family", "In", "g6"))
    manifests = [G5X, other, overlay("alpha", req(AWS + "family", "In", "g5", "g6"), weight=7, price="9"),
                 overlay("zeta", req("node.kubernetes.io/instance-type", "In", "g5.xlarge"), weight=7, price="0.1")]
    reports = {r.name: r for r in simulate_pools(manifests, settings=OVERLAYS)}
    assert set(prices(reports["p"]).values()) == {Decimal("0.1")}
    assert all(c.overlays == () for c in reports["q"].candidates)  # alpha is dropped for pool q too
    assert "alpha" in reports["q"].dropped_overlays and "zeta prices g5.xlarge" in reports["q"].dropped_overlays["alpha"]
    assert any(n.text.startswith("NodeOverlay alpha is not applied anywhere") for n in reports["q"].notes)


def test_equal_weight_without_shared_offerings_do_not_conflict():
    manifests = [G5X, overlay("a", req(CT, "In", "spot"), weight=3, price="0.2"),
                 overlay("b", req(CT, "In", "on-demand"), weight=3, price="0.4")]
    report = simulate_pools(manifests, settings=OVERLAYS)[0]
    assert report.dropped_overlays == {}
    assert prices(report)["spot/us-east-1a"] == Decimal("0.2") and prices(report)["on-demand/us-east-1a"] == Decimal("0.4")


def test_equal_weight_capacity_overlays_conflict_on_a_shared_resource():
    # store.go isCapacityUpdateConflicting: same weight, overlapping resource names
    manifests = [G5X, overlay("a", weight=2, capacity={"example.com/x": "1"}),
                 overlay("b", weight=2, capacity={"example.com/x": "2", "example.com/y": "1"})]
    report = simulate_pools(manifests, settings=OVERLAYS)[0]
    assert list(report.dropped_overlays) == ["a"]
    assert report.candidates[0].capacity["example.com/x"] == 2


def test_pool_without_capacity_type_admits_spot_first():
    # Requirements.Get of an undefined key is Exists; aws instance.go getCapacityType prefers reserved, then spot
    view = NodePoolView.of(pool("p", req(AWS + "family", "In", "g5")))
    assert view.capacity_types == ("reserved", "spot", "on-demand") and not view.declares_capacity_type
    on_demand = NodePoolView.of(pool("p", req(CT, "In", "on-demand")))
    assert on_demand.capacity_types == ("on-demand",)


def test_bare_metal_hypervisor_label_is_empty_not_absent():
    # aws types.go computeRequirements: instance-hypervisor In [string(info.Hypervisor)], "" on .metal
    metal = default_catalog().by_name["g4dn.metal"]
    assert metal.node_labels[AWS + "hypervisor"] == ""
    names = {c.name for c in simulate_pools([pool("p", req(AWS + "family", "In", "g4dn"),
                                                   req(AWS + "hypervisor", "Exists"))])[0].candidates}
    assert "g4dn.metal" in names  # Exists: the label exists, with value ""
    gone = {c.name for c in simulate_pools([pool("p", req(AWS + "family", "In", "g4dn"),
                                                  req(AWS + "hypervisor", "DoesNotExist"))])[0].candidates}
    assert gone == set()
    nitro = {c.name for c in simulate_pools([pool("p", req(AWS + "family", "In", "g4dn"),
                                                   req(AWS + "hypervisor", "In", "nitro"))])[0].candidates}
    assert "g4dn.metal" not in nitro and "g4dn.xlarge" in nitro


def test_intersection_to_does_not_exist_admits_types_without_the_label():
    # requirements.go Add: gpu-name In [a10g] + In [t4] is DoesNotExist -> the accelerators without a GPU name
    report = simulate_pools([pool("p", req(AWS + "gpu-name", "In", "a10g"), req(AWS + "gpu-name", "In", "t4"))])[0]
    assert report.candidates and all(AWS + "gpu-name" not in c.instance.labels for c in report.candidates)
    assert "inf2.xlarge" in report.candidate_names and report.launchable


def test_instance_requirements_define_every_modelled_key():
    reqs = instance_requirements({AWS + "family": "inf2"}, {AWS + "family", AWS + "gpu-name"})
    assert reqs[AWS + "gpu-name"].operator == "DoesNotExist" and reqs[AWS + "hypervisor"].values == frozenset({""})


def test_offerings_split_named_zones_from_the_rest():
    view = NodePoolView.of(pool("p", req(CT, "In", "spot")))
    assert [o.label for o in pool_offerings(view, ("us-east-1a",))] == ["spot/us-east-1a", "spot/other zones"]


def test_overlays_are_indexed_by_what_they_can_match():
    # an overlay selecting one pool is never consulted for another pool's instance types
    views = [NodePoolView.of(pool(f"p{i}", req(AWS + "family", "In", "g5"))) for i in range(3)]
    target = OverlayView.of(overlay("o", req("karpenter.sh/nodepool", "In", "p1"), price="1"))
    catalog = {it.name: it.requirements for it in default_catalog().types}
    resolution = OverlayResolution([target], views, catalog)
    assert list(resolution._candidates(0, "p0", "g5.xlarge")) == []
    assert list(resolution._candidates(0, "p1", "g5.xlarge")) == [0]
    assert first_choice(pod_fit(PodShape(), [pool("p1", req(AWS + "family", "In", "g5")),
                                             overlay("o", req("karpenter.sh/nodepool", "In", "p1"),
                                                     price="0.01")], settings=OVERLAYS)).price == Decimal("0.01")


def test_overlay_on_a_label_the_catalog_does_not_model_is_assumed_to_match():
    # computeRequirements defines topology.kubernetes.io/region on every type; the catalog has no region
    report = simulate_pools([G5X, overlay("region", req("topology.kubernetes.io/region", "In", "us-east-1"),
                                          price="0.7")], settings=OVERLAYS)[0]
    assert set(prices(report).values()) == {Decimal("0.7")}
    assert any("topology.kubernetes.io/region are not modelled" in n.text for n in report.notes)


def test_pools_an_overlay_tells_apart_do_not_share_candidates():
    # a nodepool-specific overlay: the candidates of p and q must differ although their requirements match
    manifests = [pool("p", req(AWS + "family", "In", "g5")), pool("q", req(AWS + "family", "In", "g5")),
                 overlay("only-p", req("karpenter.sh/nodepool", "In", "p"), price="0.01")]
    reports = {r.name: r for r in simulate_pools(manifests, settings=OVERLAYS)}
    assert reports["p"].candidates[0].price == Decimal("0.01") and reports["q"].candidates[0].price != Decimal("0.01")
    labelled = [pool("p", req(AWS + "family", "In", "g5"), labels={"example.com/team": "a"}),
                pool("q", req(AWS + "family", "In", "g5"), labels={"example.com/team": "b"}),
                overlay("team-a", req("example.com/team", "In", "a"), price="0.02")]
    reports = {r.name: r for r in simulate_pools(labelled, settings=OVERLAYS)}
    assert reports["p"].candidates[0].price == Decimal("0.02") and reports["q"].candidates[0].price != Decimal("0.02")


def test_overlay_with_zone_notin_leaves_that_zones_offerings_alone():
    # InjectOfferings makes one offering per zone; getOverlaidOfferings -> Offerings.Compatible drops exactly the zone
    # NotIn names, so that zone is named apart from the "other zones" offering.
    both = pool("p", req("node.kubernetes.io/instance-type", "In", "g5.xlarge"), req(CT, "In", "spot", "on-demand"))
    report = simulate_pools([both, overlay("not-1a", req(ZONE, "NotIn", "us-east-1a"), price="0.5")], settings=OVERLAYS)[0]
    assert prices(report) == {"spot/us-east-1a": Decimal("1.006"), "spot/other zones": Decimal("0.5"),
                              "on-demand/us-east-1a": Decimal("1.006"), "on-demand/other zones": Decimal("0.5")}


def _node_class(reservations: bool) -> dict:
    spec: dict = {"role": "r", "amiSelectorTerms": [{"alias": "al2023@latest"}]}
    if reservations:
        spec["capacityReservationSelectorTerms"] = [{"id": "cr-0123456789abcdef0"}]
    return {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "gpu"}, "spec": spec}


RESERVED_SHARES = [overlay("a", req(CT, "In", "reserved"), weight=3, capacity={"example.com/shares": "2"}),
                   overlay("b", req(CT, "In", "reserved"), weight=3, capacity={"example.com/shares": "4"})]


def test_reserved_offerings_come_from_the_node_classs_reservations_not_the_pools_requirements():
    # ReservedCapacityResolver.ResolveOfferings: reserved offerings only for the reservations the node class selects;
    # GetInstanceTypes does not filter by the pool, and validateInstanceTypesOverride checks every offering it gets.
    admits = pool("p", req("node.kubernetes.io/instance-type", "In", "g5.xlarge"))  # admits reserved
    without = simulate_pools([admits, _node_class(False), *RESERVED_SHARES], settings=OVERLAYS)[0]
    assert without.dropped_overlays == {} and without.candidates[0].capacity.get("example.com/shares") is None
    on_demand = pool("p", req("node.kubernetes.io/instance-type", "In", "g5.xlarge"), req(CT, "In", "on-demand"))
    with_terms = simulate_pools([on_demand, _node_class(True), *RESERVED_SHARES], settings=OVERLAYS)[0]
    assert list(with_terms.dropped_overlays) == ["a"]  # b (name later) is stored first; a conflicts on shares


def test_overlays_runtime_validation_refuses_are_never_applied():
    # NodeOverlay.RuntimeValidate: validateWellKnownValues (capacity-type In with no known value) and
    # validateCapacity (WellKnownResources, which the AWS provider extends with Neuron and EFA)
    views = [OverlayView.of(overlay("dedicated", req(CT, "In", "dedicated"), price="0.1")),
             OverlayView.of(overlay("neuron", capacity={"aws.amazon.com/neuron": "1", "nvidia.com/gpu": "1"})),
             OverlayView.of(overlay("mixed", req(CT, "In", "dedicated", "spot"), price="0.2"))]
    resolution = OverlayResolution(views, [NodePoolView.of(G5X)],
                                   {it.name: it.requirements for it in default_catalog().types})
    assert sorted(resolution.refused) == ["dedicated", "neuron"] and [o.name for o in resolution.order] == ["mixed"]
    report = simulate_pools([G5X, overlay("dedicated", req(CT, "In", "dedicated"), price="0.1"),
                             overlay("neuron", capacity={"aws.amazon.com/neuron": "1", "nvidia.com/gpu": "4"})],
                            settings=OVERLAYS)[0]
    assert set(prices(report).values()) == {Decimal("1.006")} and report.candidates[0].capacity["nvidia.com/gpu"] == 1


def test_the_universe_holds_every_capacity_type_the_provider_offers():
    # GetInstanceTypes: on-demand and spot offerings in every zone whatever the pool's requirements
    view = NodePoolView.of(pool("p", req(CT, "In", "on-demand"), req(ZONE, "In", "us-east-1a")))
    resolution = OverlayResolution([], [view], {}, reservations={"p": False})
    assert [o.label for o in resolution.universe(view)] == ["spot/us-east-1a", "spot/other zones",
                                                            "on-demand/us-east-1a", "on-demand/other zones"]


def test_an_overlay_naming_a_zone_the_subnets_lack_applies_to_no_offering():
    # aws offering.DefaultProvider.InjectOfferings: offerings only in the subnets' zones, so getOverlaidOfferings finds
    # none for a zone outside them (oracle overlay family, seed 2): capacity stays the type's own, and no conflict.
    view = NodePoolView.of(pool("inference"))
    catalog = {it.name: it.requirements for it in default_catalog().types}
    gpus = [OverlayView.of(overlay(n, req(ZONE, "In", "amd64"), capacity={"nvidia.com/gpu": "4"})) for n in "ab"]
    closed = OverlayResolution(gpus, [view], catalog, ["us-east-1b"], closed=True, reservations={"inference": False})
    assert closed.dropped == {} and closed.zone_unknown == frozenset()
    assert [o.label for o in closed.universe(view)] == ["spot/us-east-1b", "on-demand/us-east-1b"]
    applied = closed.apply(view, "g5.12xlarge", closed.universe(view), Decimal(1), {"nvidia.com/gpu": Decimal(4)})
    assert all(p.overlay is None for p in applied.prices)
    # Zones unknown: whether it applies is not known, and the answer says so rather than give a figure.
    report = simulate_pools([pool("p", req("node.kubernetes.io/instance-type", "In", "g5.xlarge")),
                             overlay("b-gpu", req(ZONE, "In", "amd64"), capacity={"nvidia.com/gpu": "4"})],
                            settings=OVERLAYS)[0]
    assert report.unmodelled == ("the node class's subnet zones",) and report.worst_case_hourly is None
    assert any(n.text.startswith("not modelled: the node class's subnet zones: NodeOverlay b-gpu") for n in report.notes)
    # A zone a pool names is one its subnets have: applied with confidence.
    named = simulate_pools([pool("p", req("node.kubernetes.io/instance-type", "In", "g5.xlarge"),
                                 req(ZONE, "In", "us-east-1a")),
                            overlay("a-zone", req(ZONE, "In", "us-east-1a"), price="0.5")], settings=OVERLAYS)[0]
    assert named.unmodelled == () and named.candidates[0].price == Decimal("0.5")
