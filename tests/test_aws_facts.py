"""AWS account facts (k8s/aws_facts.py) read from AWS CLI JSON, and the offerings the simulator builds from them as
the AWS provider v1.14.1 does (``BaseResolver.ResolveOfferings``, ``ReservedCapacityResolver.ResolveOfferings``,
``pricing.DefaultProvider.SpotPrice``, ``capacityreservation.QueriesFromSelectorTerms``).

Prices: g5.xlarge 1.006/h and g6.xlarge 0.8048/h on demand in the packaged catalog (us-east-1 list prices).
"""

from __future__ import annotations

import json
import re
from datetime import datetime, UTC
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

from karpenter_gpu.analysis.pod_fit import first_choice, pod_fit
from karpenter_gpu.analysis.pod_shape import PodShape
from karpenter_gpu.analysis.simulator import simulate_pools
from karpenter_gpu.cli.main import main
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.controller_settings import ControllerSettings
from karpenter_gpu.k8s.aws_facts import aws_facts_from_documents, load_aws_facts
from tests.conftest import find_crds_dir
from tests.test_offerings import OVERLAYS

STAMP = "2025-11-03T00:00:00+00:00"
OWNER = "012345678901"


@pytest.fixture(autouse=True)
def _crds(monkeypatch):
    monkeypatch.setenv("KARPENTER_GPU_CRDS", str(find_crds_dir()))


def spot(*records: tuple[str, str, str], product: str = "Linux/UNIX", stamp: str = STAMP) -> dict:
    return {"SpotPriceHistory": [{"AvailabilityZone": z, "InstanceType": t, "ProductDescription": product,
                                  "SpotPrice": p, "Timestamp": stamp} for t, z, p in records]}


def offerings(**zones: list[str]) -> dict:
    return {"InstanceTypeOfferings": [{"InstanceType": t.replace("_", "."), "LocationType": "availability-zone",
                                       "Location": z} for t, zs in zones.items() for z in zs]}


def reservation(rid: str, itype: str, zone: str, count: int, **extra) -> dict:
    return {"CapacityReservationId": rid, "InstanceType": itype, "AvailabilityZone": zone,
            "AvailableInstanceCount": count, "State": "active", "OwnerId": OWNER, "InstanceMatchCriteria": "targeted",
            "Tags": [], **extra}


def facts(*documents: dict):
    return aws_facts_from_documents([(f"f{i}.json", d) for i, d in enumerate(documents)])


def manifests(*capacity_types: str, types: tuple[str, ...] = ("g5.xlarge", "g6.xlarge"), zones: tuple[str, ...] = (),
              terms: list | None = None) -> list[dict]:
    reqs = [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": list(types)},
            {"key": "karpenter.sh/capacity-type", "operator": "In", "values": list(capacity_types)}]
    if zones:
        reqs.append({"key": "topology.kubernetes.io/zone", "operator": "In", "values": list(zones)})
    node_class: dict = {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "gpu"},
                        "spec": {"amiSelectorTerms": [{"alias": "al2023@v20251103"}], "role": "r",
                                 "subnetSelectorTerms": [{"tags": {"k": "v"}}],
                                 "securityGroupSelectorTerms": [{"tags": {"k": "v"}}]}}
    if terms is not None:
        node_class["spec"]["capacityReservationSelectorTerms"] = terms
    pool = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "gpu"},
            "spec": {"template": {"spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass",
                                                            "name": "gpu"}, "requirements": reqs}}}}
    return [pool, node_class]


def choice(docs: list[dict], aws, shape: str = "gpus=1", settings: ControllerSettings | None = None):
    return first_choice(pod_fit(PodShape.parse(shape), docs, aws=aws, settings=settings))


# ---------------------------------------------------------------------------------------------
# Offerings


def test_spot_cheaper_in_one_zone_picks_that_zone_and_its_price():
    """``BaseResolver.ResolveOfferings`` prices each spot offering with ``SpotPrice(type, zone)``."""
    aws = facts(spot(("g5.xlarge", "us-east-1a", "0.5"), ("g5.xlarge", "us-east-1b", "0.3"),
                     ("g6.xlarge", "us-east-1a", "0.45"), ("g6.xlarge", "us-east-1b", "0.44")))
    fit = choice(manifests("spot", "on-demand"), aws)
    assert (fit.instance, fit.offering, fit.price) == ("g5.xlarge", "spot/us-east-1b", Decimal("0.3"))
    without = choice(manifests("spot", "on-demand"), None)  # no facts: on-demand list prices stand in
    assert (without.instance, without.price) == ("g6.xlarge", Decimal("0.8048"))


def test_a_zone_without_a_spot_record_has_no_spot_offering_once_the_type_is_known():
    """``SpotPrice`` returns false for a zone without a record once spot pricing is updated: no spot there."""
    aws = facts(spot(("g5.xlarge", "us-east-1a", "0.5")))
    [report] = simulate_pools(manifests("spot", types=("g5.xlarge",)), aws=aws)
    [c] = report.candidates
    assert [o.offering.label for o in c.offerings] == ["spot/us-east-1a"]
    assert c.offerings[0].basis == "spot price from f0.json"
    assert "spot: prices from f0.json" in report.price_basis


def test_the_latest_linux_spot_record_wins():
    """``UpdateSpotPricing`` asks for Linux/UNIX only, the latest record per type and zone."""
    aws = facts(spot(("g5.xlarge", "us-east-1a", "0.9"), stamp="2025-11-01T00:00:00Z"),
                spot(("g5.xlarge", "us-east-1a", "0.4")),
                spot(("g5.xlarge", "us-east-1a", "0.1"), product="Windows"))
    assert aws.spot_price("g5.xlarge", "us-east-1a") == (True, Decimal("0.4"))
    assert aws.spot_price("g6.xlarge", "us-east-1a") == (False, None)


def test_a_type_not_offered_in_the_pods_zone_is_no_option():
    """``Available`` requires ``itZones.Has(zone)`` (DescribeInstanceTypeOfferings)."""
    aws = facts(offerings(g5_xlarge=["us-east-1a", "us-east-1b"], g6_xlarge=["us-east-1b"]))
    docs = manifests("on-demand")
    fits = pod_fit(PodShape.parse("gpus=1,select=topology.kubernetes.io/zone=us-east-1a"), docs, aws=aws)
    assert (fits[0].instance, fits[0].offering, fits[0].options) == ("g5.xlarge", "on-demand/us-east-1a",
                                                                      ("g5.xlarge",))
    assert choice(docs, None, "gpus=1,select=topology.kubernetes.io/zone=us-east-1a").instance == "g6.xlarge"


def test_a_pool_whose_zones_offer_none_of_its_types_cannot_launch():
    aws = facts(offerings(g5_xlarge=["us-east-1a"], g6_xlarge=["us-east-1a"]))
    [report] = simulate_pools(manifests("on-demand", zones=("us-east-1c",)), aws=aws)
    assert not report.launchable
    # The facts name the zones the types are offered in (us-east-1a): the pool's us-east-1c has no offering at all.
    assert report.problems[0].text == "no offering (capacity type x zone) satisfies the template's requirements"


def test_a_selected_reservation_gives_a_reserved_offering_at_on_demand_over_ten_million():
    """``ReservedCapacityResolver.ResolveOfferings``: one offering per selected reservation of the type, in its
    zone, at the on-demand price / 10,000,000; ``getCapacityType`` then launches reserved."""
    aws = facts({"CapacityReservations": [reservation("cr-0a", "g5.xlarge", "us-east-1b", 2)]})
    fit = choice(manifests("reserved", "on-demand", terms=[{"id": "cr-0a"}]), aws)
    assert (fit.instance, fit.offering, fit.price) == ("g5.xlarge", "reserved/us-east-1b (cr-0a)",
                                                       Decimal("1.006") / 10_000_000)


def _priced_overlay(name: str, price: str, *reqs: dict) -> dict:
    return {"apiVersion": "karpenter.sh/v1alpha1", "kind": "NodeOverlay", "metadata": {"name": name},
            "spec": {"requirements": list(reqs), "price": price}}


_P5E = {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["p5e.48xlarge"]}


def test_a_type_without_a_price_has_no_on_demand_or_spot_offering():
    """``BaseResolver.ResolveOfferings``: an on-demand or spot offering is ``Available`` only with a price
    (``hasPrice``); p5e.48xlarge has none in the catalog (nor in the provider's static table), so a pool of it alone
    cannot launch, with or without AWS facts."""
    docs = manifests("spot", "on-demand", types=("p5e.48xlarge",))
    for aws in (None, facts(spot(("g5.xlarge", "us-east-1a", "0.5")))):
        [report] = simulate_pools(docs, aws=aws)
        assert not report.launchable and report.candidates == ()
        assert "no price for p5e.48xlarge" in report.problems[0].text
        assert any(n.text.startswith("p5e.48xlarge: no on-demand price in the catalog") for n in report.notes)
        assert choice(docs, aws, "gpus=8") is None


def test_a_node_overlay_pricing_the_type_by_name_makes_it_available():
    """``GetOverlayPrice``: an overlay whose only requirement is ``node.kubernetes.io/instance-type In`` and which
    sets ``price`` gives the type that price, so its offerings are available; one with another requirement too does
    not (its price applies only to offerings that exist)."""
    docs = manifests("on-demand", types=("p5e.48xlarge",))
    fit = choice([*docs, _priced_overlay("p5e-price", "90.5", _P5E)], None, "gpus=8", OVERLAYS)
    assert (fit.instance, fit.offering, fit.price) == ("p5e.48xlarge", "on-demand/other zones", Decimal("90.5"))
    family = {"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["p5e"]}
    assert choice([*docs, _priced_overlay("p5e-price", "90.5", _P5E, family)], None, "gpus=8", OVERLAYS) is None
    # with the chart's defaults (nodeOverlay off) no overlay prices the type: it stays unavailable
    assert choice([*docs, _priced_overlay("p5e-price", "90.5", _P5E)], None, "gpus=8") is None


def test_a_selected_reservation_launches_a_type_without_a_price_at_zero():
    """``ReservedCapacityResolver.ResolveOfferings``: the reserved offering is created without an on-demand price,
    at 0 (price = on-demand / 10,000,000 only when there is one)."""
    aws = facts({"CapacityReservations": [reservation("cr-0b", "p5e.48xlarge", "us-east-1a", 1,
                                                      ReservationType="capacity-block")]})
    fit = choice(manifests("reserved", "on-demand", types=("p5e.48xlarge",), terms=[{"id": "cr-0b"}]), aws, "gpus=8")
    assert (fit.instance, fit.offering, fit.price) == ("p5e.48xlarge", "reserved/us-east-1a (cr-0b)", Decimal(0))


def test_a_worst_case_with_an_unpriced_candidate_is_unknown_or_at_least():
    """A reserved stand-in offering (capacityReservationSelectorTerms, no reservation facts) keeps p5e.48xlarge a
    candidate without a price: the worst case is not a figure then (alone) or only a lower bound (beside priced
    types), never a confident $0."""
    [alone] = simulate_pools(manifests("reserved", types=("p5e.48xlarge",), terms=[{"id": "cr-0c"}]))
    assert alone.worst_case_hourly is None and not alone.worst_case_exact and not alone.unbounded
    assert "worst case unknown: no candidate has a price (p5e.48xlarge)" in [n.text for n in alone.notes]
    docs = manifests("reserved", types=("p5e.48xlarge", "p5.48xlarge"), terms=[{"id": "cr-0c"}])
    docs[0]["spec"]["limits"] = {"nvidia.com/gpu": "16"}
    [mixed] = simulate_pools(docs)
    assert mixed.worst_case_hourly == 2 * next(c.price for c in mixed.candidates if c.name == "p5.48xlarge")
    assert not mixed.worst_case_exact
    assert any("(at least: p5e.48xlarge can launch too and have no price)" in n.text for n in mixed.notes)


def test_a_selected_reservation_with_no_instance_left_gives_no_reserved_offering():
    """``Available`` requires ``reservationCapacity != 0``: a reserved-only pool has nothing to launch."""
    aws = facts({"CapacityReservations": [reservation("cr-0a", "g5.xlarge", "us-east-1b", 0)]})
    [report] = simulate_pools(manifests("reserved", terms=[{"id": "cr-0a"}]), aws=aws)
    assert not report.candidates and not report.launchable
    fit = choice(manifests("reserved", "on-demand", terms=[{"id": "cr-0a"}]), aws)
    assert fit.offering is not None and fit.offering.startswith("on-demand/")


def test_a_reservation_the_terms_do_not_select_is_ignored():
    """``QueriesFromSelectorTerms``: an id selects that reservation; tags (``*``: the key exists) with ownerID
    select those carrying them; only active ones (the ``state`` filter)."""
    tagged = reservation("cr-0b", "g6.xlarge", "us-east-1a", 1, Tags=[{"Key": "team", "Value": "ml"}])
    other_owner = reservation("cr-0c", "g6.xlarge", "us-east-1a", 1, OwnerId="999999999999",
                              Tags=[{"Key": "team", "Value": "ml"}])
    cancelled = reservation("cr-0d", "g5.xlarge", "us-east-1a", 1, State="cancelled")
    aws = facts({"CapacityReservations": [reservation("cr-0a", "g5.xlarge", "us-east-1b", 1), tagged, other_owner,
                                          cancelled]})
    assert [r.id for r in aws.selected_reservations([{"id": "cr-0z"}])] == []
    assert [r.id for r in aws.selected_reservations([{"tags": {"team": "ml"}, "ownerID": OWNER}])] == ["cr-0b"]
    assert [r.id for r in aws.selected_reservations([{"tags": {"team": "*"}}])] == ["cr-0b", "cr-0c"]
    assert [r.id for r in aws.selected_reservations([{"id": "cr-0d"}])] == []
    fit = choice(manifests("reserved", "on-demand", terms=[{"id": "cr-0z"}]), aws)
    assert fit.offering is not None and fit.offering.startswith("on-demand/")


def test_a_capacity_block_near_its_end_is_not_selected_as_available():
    """``CapacityReservationFromEC2``: a capacity block is expiring 40 minutes before its end, and an expiring
    reservation's offering is unavailable; an ended one is not listed (``filterReservations``)."""
    block = reservation("cr-0e", "g5.xlarge", "us-east-1a", 1, ReservationType="capacity-block",
                        EndDate="2025-11-03T01:00:00Z")
    aws = facts({"CapacityReservations": [block]})
    [r] = aws.selected_reservations([{"id": "cr-0e"}], now=datetime(2025, 11, 3, tzinfo=UTC))
    assert not r.expiring(datetime(2025, 11, 3, 0, 19, tzinfo=UTC))
    assert r.expiring(datetime(2025, 11, 3, 0, 20, tzinfo=UTC))
    assert aws.selected_reservations([{"id": "cr-0e"}], now=datetime(2025, 11, 4, tzinfo=UTC)) == ()


# ---------------------------------------------------------------------------------------------
# Bad files: one coded line, exit 2


@pytest.mark.parametrize(("content", "code"), [
    (None, "KG730"),
    (b"\xff\xfe", "KG730"),
    ("{not json", "KG731"),
    (json.dumps({"Reservations": []}), "KG732"),
    (json.dumps([1, 2]), "KG732"),
    (json.dumps({"SpotPriceHistory": [{"InstanceType": "g5.xlarge", "AvailabilityZone": "us-east-1a",
                                       "ProductDescription": "Linux/UNIX", "SpotPrice": "cheap",
                                       "Timestamp": STAMP}]}), "KG733"),
    (json.dumps({"SpotPriceHistory": [{"InstanceType": "g5.xlarge", "AvailabilityZone": "us-east-1a",
                                       "ProductDescription": "Linux/UNIX", "SpotPrice": "0.1",
                                       "Timestamp": "yesterday"}]}), "KG733"),
    (json.dumps({"InstanceTypeOfferings": [{"InstanceType": "g5.xlarge", "LocationType": "region",
                                            "Location": "us-east-1"}]}), "KG734"),
    (json.dumps({"CapacityReservations": [{"CapacityReservationId": "cr-1", "InstanceType": "g5.xlarge",
                                           "AvailabilityZone": "us-east-1a", "AvailableInstanceCount": -1}]}),
     "KG735"),
    (json.dumps({"CapacityReservations": "none"}), "KG735"),
])
def test_fails_when_an_aws_file_is_bad(tmp_path, capsys, content, code):
    path = tmp_path / "facts.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    with pytest.raises(KarpenterGpuError) as err:
        load_aws_facts([path])
    assert err.value.code == code
    assert main(["explain", str(Path(__file__).parent.parent / "dist"), "--aws", str(path)]) == 2
    out = capsys.readouterr()
    lines = [line for line in out.err.splitlines() if line.strip()]
    assert len(lines) == 1 and f"[{code}]" in lines[0] and "Traceback" not in out.err


# ---------------------------------------------------------------------------------------------
# CLI


def _write(tmp_path: Path, name: str, document: dict) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(document))
    return str(path)


def _dist(root: Path, docs: list[dict]) -> str:
    for doc in docs:
        path = root / "prod" / f"{doc['kind']}.{doc['metadata']['name']}.k8s.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump(doc))
    return str(root)


def test_explain_aws_prices_spot_per_zone_and_says_where_prices_come_from(tmp_path, capsys):
    dist = _dist(tmp_path / "dist", manifests("spot", "on-demand"))
    prices = _write(tmp_path, "spot.json", spot(("g5.xlarge", "us-east-1a", "0.5"), ("g6.xlarge", "us-east-1a", "0.2")))
    zones = _write(tmp_path, "zones.json", offerings(g5_xlarge=["us-east-1a"], g6_xlarge=["us-east-1a"]))
    assert main(["explain", dist, "--aws", prices, "--aws", zones, "--pod", "gpus=1", "--format", "json"]) == 0
    [env] = json.loads(capsys.readouterr().out)["environments"]
    assert env["prices"] == f"us-east-1 on-demand list price; spot: prices from {prices}"
    assert env["pod"]["fits"][0]["offering"] == "spot/us-east-1a" and env["pod"]["fits"][0]["price"] == "0.2"
    assert env["pools"][0]["offerings"] == ["on-demand/us-east-1a", "spot/us-east-1a"]
    # no helm/karpenter.values.yaml beside the manifests: the settings line (the chart's defaults) comes first
    assert env["notes"][0] == env["settings"] and env["settings"].startswith("Karpenter settings: chart defaults (")
    assert env["notes"][1] == f"zones: a type is an option only in the zones {zones} offers it in"
    assert main(["explain", dist]) == 0
    assert "(spot and reserved shown at it)" in capsys.readouterr().out
    assert main(["explain", dist, "--aws", prices]) == 0
    text = capsys.readouterr().out
    assert f"spot: prices from {prices}" in text and "reserved shown at the on-demand list price" in text


def test_diff_aws_cost_table_uses_the_facts(tmp_path, capsys):
    base_docs = manifests("spot", types=("g5.xlarge",))
    head_docs = manifests("spot", types=("g5.xlarge", "g6.xlarge"))
    base, head = _dist(tmp_path / "base", base_docs), _dist(tmp_path / "head", head_docs)
    prices = _write(tmp_path, "spot.json", spot(("g5.xlarge", "us-east-1a", "0.5"), ("g6.xlarge", "us-east-1a", "0.2")))
    assert main(["diff", base, head, "--format", "json", "--aws", prices]) == 0
    cost = json.loads(capsys.readouterr().out)["cost"]
    assert cost["priceList"]["basis"] == f"us-east-1 on-demand list price; spot: prices from {prices}"
    assert cost["priceList"]["aws"] == {"spot": [prices]}
    [pool] = cost["environments"][0]["pools"]
    assert pool["firstChoiceBefore"] == {"instance": "g5.xlarge", "offering": "spot/us-east-1a", "price": "0.50",
                                         "onDemandListPrice": False}  # --aws gave the spot price
    assert pool["firstChoiceAfter"] == {"instance": "g6.xlarge", "offering": "spot/us-east-1a", "price": "0.20",
                                        "onDemandListPrice": False}
    assert main(["diff", base, head, "--aws", prices]) == 0
    text = capsys.readouterr().out
    assert f"spot: prices from {prices}" in text and "standing in for reserved" in text


def test_text_from_the_files_is_data_in_every_rendering(tmp_path, capsys):
    """A reservation id and a file name reach notes and offering labels: escaped like manifest text."""
    dist = _dist(tmp_path / "dist", manifests("reserved", "on-demand", terms=[{"tags": {"team": "*"}}]))
    hostile = "cr-<img src=x onerror=alert(1)>\x1b[31m@team"
    path = _write(tmp_path, "res<b>*.json", {"CapacityReservations": [
        reservation(hostile, "g5.xlarge", "us-east-1a", 1, Tags=[{"Key": "team", "Value": "ml"}])]})
    assert main(["explain", dist, "--aws", path, "--pod", "gpus=1", "--format", "markdown"]) == 0
    markdown = capsys.readouterr().out
    assert "cr\\-\\<img" in markdown and re.search(r"(?<!\\)<(img|b>)", markdown) is None
    assert "\x1b" not in markdown and "@team" not in markdown  # no control character, no mention
    assert main(["explain", dist, "--aws", path, "--pod", "gpus=1"]) == 0
    text = capsys.readouterr().out
    assert "cr-" in text and "\x1b" not in text
    assert main(["explain", dist, "--aws", path, "--pod", "gpus=1", "--format", "json"]) == 0
    [env] = json.loads(capsys.readouterr().out)["environments"]
    assert env["pod"]["fits"][0]["offering"] == f"reserved/us-east-1a ({hostile})"  # JSON keeps the value as read


def test_a_reservations_file_alone_does_not_close_the_zones():
    """Only a spot price history or an offerings file names the region's zones: with reservations alone the zones
    no file or manifest names keep their "other zones" offering."""
    aws = facts({"CapacityReservations": [reservation("cr-0a", "g5.xlarge", "us-east-1b", 1)]})
    [report] = simulate_pools(manifests("reserved", "on-demand", types=("g5.xlarge",), terms=[{"id": "cr-0a"}]),
                              aws=aws)
    assert [o.offering.label for o in report.candidates[0].offerings] == [
        "on-demand/us-east-1b", "on-demand/other zones", "reserved/us-east-1b (cr-0a)"]
    closed = facts({"CapacityReservations": [reservation("cr-0a", "g5.xlarge", "us-east-1b", 1)]},
                   offerings(g5_xlarge=["us-east-1a", "us-east-1b"]))
    [report] = simulate_pools(manifests("on-demand", types=("g5.xlarge",)), aws=closed)
    assert [o.offering.label for o in report.candidates[0].offerings] == ["on-demand/us-east-1a",
                                                                           "on-demand/us-east-1b"]
