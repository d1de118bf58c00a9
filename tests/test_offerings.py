"""Offerings and NodeOverlay application (karpenter_gpu.k8s.offerings), each against the upstream function."""

from __future__ import annotations

from decimal import Decimal

from karpenter_gpu.analysis.simulator import PodShape, first_choice, pod_fit, simulate_pools
from karpenter_gpu.analysis.catalog import default_catalog
from karpenter_gpu.k8s.offerings import OverlayResolution, instance_requirements, pool_offerings
from karpenter_gpu.k8s.views import NodePoolView, OverlayView
from tests.test_simulator import overlay, pool, req

AWS = "karpenter.k8s.aws/instance-"
ZONE = "topology.kubernetes.io/zone"
CT = "karpenter.sh/capacity-type"


G5X = pool("p", req("node.kubernetes.io/instance-type", "In", "g5.xlarge"), req(ZONE, "In", "us-east-1a", "us-east-1b"),
           req(CT, "In", "spot", "on-demand"))


def prices(report) -> dict[str, Decimal | None]:
    return {o.offering.label: o.price for o in report.candidates[0].offerings}


def test_overlay_naming_a_zone_reprices_only_that_zones_offerings():
    # controller.go getOverlaidOfferings -> Offerings.Compatible; store.go applyPriceOverlays per offering
    report = simulate_pools([G5X, overlay("cheap-1a", req(ZONE, "In", "us-east-1a"), price="0.5")])[0]
    assert prices(report) == {"spot/us-east-1a": Decimal("0.5"), "spot/us-east-1b": Decimal("1.006"),
                              "on-demand/us-east-1a": Decimal("0.5"), "on-demand/us-east-1b": Decimal("1.006")}
    assert report.candidates[0].price == Decimal("0.5")  # OrderByPrice: the cheapest compatible offering
    # a pod that needs us-east-1b pays the untouched price
    fit = pod_fit(PodShape.parse(f"select={ZONE}=us-east-1b"), [G5X, overlay("cheap-1a", req(ZONE, "In", "us-east-1a"),
                                                                                price="0.5")])[0]
    assert (fit.price, fit.offering) == (Decimal("1.006"), "spot/us-east-1b")


def test_overlay_naming_a_capacity_type_reprices_only_those_offerings():
    report = simulate_pools([G5X, overlay("spot-cheap", req(CT, "In", "spot"), priceAdjustment="-50%")])[0]
    assert prices(report)["spot/us-east-1a"] == Decimal("0.503")
    assert prices(report)["on-demand/us-east-1a"] == Decimal("1.006")


def test_higher_weight_wins_per_offering():
    report = simulate_pools([G5X, overlay("all", weight=5, price="2"),
                             overlay("spot", req(CT, "In", "spot"), weight=9, price="0.3")])[0]
    assert prices(report)["spot/us-east-1b"] == Decimal("0.3") and prices(report)["on-demand/us-east-1b"] == Decimal("2")
    assert report.candidates[0].overlays == ("spot", "all")


def test_equal_weight_conflict_drops_the_alphabetically_earlier_overlay_everywhere():
    # NodeOverlayList.OrderByWeight (name descending) then validateAndUpdateInstanceTypeOverrides: "zeta" is stored
    # first; "alpha" prices an offering zeta already priced at the same weight -> Conflict, applied nowhere.
    other = pool("q", req(AWS + "family", "In", "g6"))
    manifests = [G5X, other, overlay("alpha", req(AWS + "family", "In", "g5", "g6"), weight=7, price="9"),
                 overlay("zeta", req("node.kubernetes.io/instance-type", "In", "g5.xlarge"), weight=7, price="0.1")]
    reports = {r.name: r for r in simulate_pools(manifests)}
    assert set(prices(reports["p"]).values()) == {Decimal("0.1")}
    assert all(c.overlays == () for c in reports["q"].candidates)  # alpha is dropped for pool q too
    assert "alpha" in reports["q"].dropped_overlays and "zeta prices g5.xlarge" in reports["q"].dropped_overlays["alpha"]
    assert any(n.startswith("NodeOverlay alpha is not applied anywhere") for n in reports["q"].notes)


def test_equal_weight_without_shared_offerings_do_not_conflict():
    manifests = [G5X, overlay("a", req(CT, "In", "spot"), weight=3, price="0.2"),
                 overlay("b", req(CT, "In", "on-demand"), weight=3, price="0.4")]
    report = simulate_pools(manifests)[0]
    assert report.dropped_overlays == {}
    assert prices(report)["spot/us-east-1a"] == Decimal("0.2") and prices(report)["on-demand/us-east-1a"] == Decimal("0.4")


def test_equal_weight_capacity_overlays_conflict_on_a_shared_resource():
    # store.go isCapacityUpdateConflicting: same weight, overlapping resource names
    manifests = [G5X, overlay("a", weight=2, capacity={"example.com/x": "1"}),
                 overlay("b", weight=2, capacity={"example.com/x": "2", "example.com/y": "1"})]
    report = simulate_pools(manifests)[0]
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
                                                     price="0.01")])).price == Decimal("0.01")


def test_overlay_on_a_label_the_catalog_does_not_model_is_assumed_to_match():
    # computeRequirements defines topology.kubernetes.io/region on every type; the catalog has no region
    report = simulate_pools([G5X, overlay("region", req("topology.kubernetes.io/region", "In", "us-east-1"),
                                          price="0.7")])[0]
    assert set(prices(report).values()) == {Decimal("0.7")}
    assert any("topology.kubernetes.io/region are not modelled" in n for n in report.notes)


def test_pools_an_overlay_tells_apart_do_not_share_candidates():
    # a nodepool-specific overlay: the candidates of p and q must differ although their requirements match
    manifests = [pool("p", req(AWS + "family", "In", "g5")), pool("q", req(AWS + "family", "In", "g5")),
                 overlay("only-p", req("karpenter.sh/nodepool", "In", "p"), price="0.01")]
    reports = {r.name: r for r in simulate_pools(manifests)}
    assert reports["p"].candidates[0].price == Decimal("0.01") and reports["q"].candidates[0].price != Decimal("0.01")
    labelled = [pool("p", req(AWS + "family", "In", "g5"), labels={"example.com/team": "a"}),
                pool("q", req(AWS + "family", "In", "g5"), labels={"example.com/team": "b"}),
                overlay("team-a", req("example.com/team", "In", "a"), price="0.02")]
    reports = {r.name: r for r in simulate_pools(labelled)}
    assert reports["p"].candidates[0].price == Decimal("0.02") and reports["q"].candidates[0].price != Decimal("0.02")
