"""Pool simulation and pod fit against the packaged catalog.

Every expected name, count and price below was read by hand from
the upstream gpu-instance-types.tsv (the catalog's source), not computed with the code under test.
"""

from __future__ import annotations

import subprocess
import sys
import time
from decimal import Decimal

import pytest

from karpenter_gpu.analysis.catalog import default_catalog
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.analysis.simulator import (
    Candidate, Fit, PodShape, PoolReport, admits, first_choice, pod_fit, requirement_admits, simulate_pools,
)
from tests.conftest import ROOT

AWS = "karpenter.k8s.aws/instance-"
GPU_TAINT = {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}


def req(key: str, operator: str, *values: str, min_values: int | None = None) -> dict:
    key = key if "/" in key else AWS + key
    r = {"key": key, "operator": operator}
    if values:
        r["values"] = list(values)
    if min_values is not None:
        r["minValues"] = min_values
    return r


def pool(name: str, *reqs: dict, weight: int | None = None, limits: dict | None = None, labels: dict | None = None,
         taints: list | None = None, startup_taints: list | None = None, replicas: int | None = None) -> dict:
    tspec: dict = {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
                   "requirements": list(reqs)}
    if taints:
        tspec["taints"] = taints
    if startup_taints:
        tspec["startupTaints"] = startup_taints
    spec: dict = {"template": {"spec": tspec}}
    if labels:
        spec["template"]["metadata"] = {"labels": labels}
    if weight is not None:
        spec["weight"] = weight
    if limits:
        spec["limits"] = limits
    if replicas is not None:
        spec["replicas"] = replicas
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name}, "spec": spec}


def overlay(name: str, *reqs: dict, weight: int | None = None, **fields) -> dict:
    spec = {"requirements": list(reqs), **fields}
    if weight is not None:
        spec["weight"] = weight
    return {"apiVersion": "karpenter.sh/v1alpha1", "kind": "NodeOverlay", "metadata": {"name": name}, "spec": spec}


def one(*manifests: dict) -> PoolReport:
    reports = simulate_pools(list(manifests))
    assert len(reports) == 1
    return reports[0]


def names(report: PoolReport) -> list[str]:
    return sorted(c.instance.name for c in report.candidates)


# --- seed 000 §14: too narrow versus described by property -------------------------------------

NARROW = pool("narrow", req("gpu-name", "In", "a10g"), req("size", "In", "xlarge"),
              req("karpenter.sh/capacity-type", "In", "spot"), req("topology.kubernetes.io/zone", "In", "us-east-1a"))
BY_PROPERTY = pool("by-property", req("gpu-count", "Gt", "0"), req("gpu-memory", "Gt", "16000"),
                   req("karpenter.sh/capacity-type", "In", "spot", "on-demand"))

# gpu-count > 0 and more than 16000 MiB per GPU: everything with a whole NVIDIA GPU of >= 16 GiB.
# Not g4ad (8192 MiB), not g6f/gr6f (gpu-count 0), not inf/trn/dl2q (no GPU labels).
BY_PROPERTY_NAMES = sorted(
    [f"g4dn.{s}" for s in ("xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "metal")]
    + [f"g5.{s}" for s in ("xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge", "48xlarge")]
    + [f"g5g.{s}" for s in ("xlarge", "2xlarge", "4xlarge", "8xlarge", "16xlarge", "metal")]
    + [f"g6.{s}" for s in ("xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge", "48xlarge")]
    + [f"g6e.{s}" for s in ("xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge", "48xlarge")]
    + [f"g7.{s}" for s in ("2xlarge", "4xlarge", "8xlarge", "12xlarge", "24xlarge", "48xlarge")]
    + [f"g7e.{s}" for s in ("2xlarge", "4xlarge", "8xlarge", "12xlarge", "24xlarge", "48xlarge")]
    + ["gr6.4xlarge", "gr6.8xlarge", "p3.2xlarge", "p3.8xlarge", "p3.16xlarge", "p3dn.24xlarge", "p4d.24xlarge",
       "p4de.24xlarge", "p5.4xlarge", "p5.48xlarge", "p5en.48xlarge", "p6-b200.48xlarge",
       "p6-b300.48xlarge"]
)
# 16384 MiB per GPU: T4 (g4dn), T4G (g5g), V100 16 GB (p3).
AT_16384 = ([f"g4dn.{s}" for s in ("xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "metal")]
            + [f"g5g.{s}" for s in ("xlarge", "2xlarge", "4xlarge", "8xlarge", "16xlarge", "metal")]
            + ["p3.2xlarge", "p3.8xlarge", "p3.16xlarge"])


def test_too_narrow_leaves_exactly_one_type():
    report = one(NARROW)
    assert names(report) == ["g5.xlarge"]
    assert report.capacity_types == ("spot",)
    assert report.zones == ("us-east-1a",)
    assert report.launchable
    assert any("zone availability" in n for n in report.notes)
    assert report.gpu_names == ("a10g",)
    assert report.price_range == (Decimal("1.006"), Decimal("1.006"))


def test_by_property_keeps_a_wide_set():
    report = one(BY_PROPERTY)
    assert len(BY_PROPERTY_NAMES) == 62
    assert names(report) == BY_PROPERTY_NAMES  # p5e.48xlarge (H200) is admitted but has no price: never an option
    assert report.capacity_types == ("spot", "on-demand")
    assert report.zones == ()
    assert report.gpu_names == ("a100", "a10g", "b200", "b300", "h100", "h200", "l4", "l40s", "rtx-pro-4500",
                                "rtx-pro-server-6000", "t4", "t4g", "v100")
    # cheapest g5g.xlarge 0.42, dearest p6-b300.48xlarge 142.416
    assert report.price_range == (Decimal("0.42"), Decimal("142.416"))
    assert report.candidates[0].instance.name == "g5g.xlarge"
    assert report.candidates[-1].instance.name == "p6-b300.48xlarge"
    assert all(c.price is not None for c in report.candidates)
    assert any(n.startswith("p5e.48xlarge: no on-demand price in the catalog") for n in report.notes)


@pytest.mark.parametrize("operator, value, t4_included, count", [
    ("Gt", "16000", True, 63),    # 16384 > 16000
    ("Gte", "16384", True, 63),   # boundary included
    ("Gt", "16384", False, 47),   # boundary excluded: 63 - 16 types at 16384 MiB
    ("Gt", "16383", True, 63),
])


def test_gpu_memory_boundaries(operator, value, t4_included, count):
    report = one(pool("p", req("gpu-count", "Gt", "0"), req("gpu-memory", operator, value)))
    assert len(report.candidates) == count
    assert ("g4dn.xlarge" in names(report)) is t4_included
    assert all((n in names(report)) is t4_included for n in AT_16384)
    assert "g5.xlarge" in names(report)  # 22888 MiB


def test_gpu_memory_low_end_includes_fractional_l4():
    # Lte 8192: g4ad (8192 MiB, 5 sizes) and the g6f sizes with 2861 / 5722 MiB.
    report = one(pool("p", req("gpu-memory", "Lte", "8192")))
    assert names(report) == sorted(["g4ad.xlarge", "g4ad.2xlarge", "g4ad.4xlarge", "g4ad.8xlarge", "g4ad.16xlarge",
                                    "g6f.large", "g6f.xlarge", "g6f.2xlarge"])
    assert one(pool("p", req("gpu-memory", "Lt", "2861"))).candidates == ()


# --- operators ---------------------------------------------------------------------------------


def test_requirement_admits_all_eight_operators():
    labels = {"a": "5", "b": "x"}
    assert requirement_admits(labels, {"key": "b", "operator": "In", "values": ["x", "y"]})
    assert not requirement_admits(labels, {"key": "c", "operator": "In", "values": ["x"]})
    assert requirement_admits(labels, {"key": "c", "operator": "NotIn", "values": ["x"]})  # absent label
    assert not requirement_admits(labels, {"key": "b", "operator": "NotIn", "values": ["x"]})
    assert requirement_admits(labels, {"key": "a", "operator": "Exists"})
    assert not requirement_admits(labels, {"key": "c", "operator": "Exists"})
    assert requirement_admits(labels, {"key": "c", "operator": "DoesNotExist"})
    assert not requirement_admits(labels, {"key": "a", "operator": "DoesNotExist"})
    assert requirement_admits(labels, {"key": "a", "operator": "Gt", "values": ["4"]})
    assert not requirement_admits(labels, {"key": "a", "operator": "Gt", "values": ["5"]})
    assert requirement_admits(labels, {"key": "a", "operator": "Gte", "values": ["5"]})
    assert requirement_admits(labels, {"key": "a", "operator": "Lt", "values": ["6"]})
    assert not requirement_admits(labels, {"key": "a", "operator": "Lt", "values": ["5"]})
    assert requirement_admits(labels, {"key": "a", "operator": "Lte", "values": ["5"]})
    assert not requirement_admits(labels, {"key": "c", "operator": "Gt", "values": ["0"]})  # absent never compares
    assert not requirement_admits(labels, {"key": "b", "operator": "Gt", "values": ["0"]})  # not an integer
    with pytest.raises(KarpenterGpuError) as info:
        requirement_admits(labels, {"key": "a", "operator": "in", "values": ["5"]})
    assert info.value.code == "KG711"


def test_not_in_matches_absent_label():
    # 86 types minus the 7 g4dn (t4); t4g, accelerators and CPU-less-GPU types all stay.
    report = one(pool("p", req("gpu-name", "NotIn", "t4")))
    assert len(report.candidates) == 79
    assert "inf2.xlarge" in names(report) and "g5g.xlarge" in names(report)
    assert "g4dn.xlarge" not in names(report)


def test_does_not_exist_requires_absence():
    report = one(pool("p", req("gpu-count", "DoesNotExist")))
    assert names(report) == sorted(["dl2q.24xlarge", "inf1.xlarge", "inf1.2xlarge", "inf1.6xlarge", "inf1.24xlarge",
                                    "inf2.xlarge", "inf2.8xlarge", "inf2.24xlarge", "inf2.48xlarge", "trn1.2xlarge",
                                    "trn1.32xlarge", "trn1n.32xlarge", "trn2.48xlarge"])
    exists = one(pool("p", req("gpu-count", "Exists")))
    assert len(exists.candidates) == 73 and "g6f.large" in names(exists)  # Exists admits gpu-count 0


def test_several_requirements_on_one_key_intersect():
    report = one(pool("p", req("gpu-memory", "Gte", "22888"), req("gpu-memory", "Lt", "40000")))
    # a10g / l4 (22888), rtx-pro-4500 and p3dn's V100 32 GB (32768)
    assert names(report) == sorted(
        [f"g5.{s}" for s in ("xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge", "48xlarge")]
        + [f"g6.{s}" for s in ("xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge",
                               "48xlarge")]
        + ["gr6.4xlarge", "gr6.8xlarge", "p3dn.24xlarge"]
        + [f"g7.{s}" for s in ("2xlarge", "4xlarge", "8xlarge", "12xlarge", "24xlarge", "48xlarge")])
    families = one(pool("p", req("family", "In", "g5", "g6"), req("family", "NotIn", "g6")))
    assert {c.instance.family for c in families.candidates} == {"g5"} and len(families.candidates) == 8
    assert one(pool("p", req("family", "In", "g5"), req("family", "In", "g6"))).launchable is False


def test_admits_and_template_labels():
    g5 = default_catalog().by_name["g5.xlarge"]
    assert admits(g5, [req("gpu-name", "In", "a10g"), req("karpenter.sh/capacity-type", "In", "spot")], {})
    assert not admits(g5, [], {AWS + "family": "g6"})  # template label on an instance key restricts
    assert admits(g5, [req("team", "In", "ml")], {"team": "ml"})  # custom keys do not
    report = one(pool("p", labels={AWS + "family": "g6e", "team": "ml", "karpenter.sh/capacity-type": "spot"}))
    assert len(report.candidates) == 8 and {c.instance.family for c in report.candidates} == {"g6e"}
    assert report.capacity_types == ("spot",)


def test_capacity_types_are_offering_requirements():
    everything = one(pool("p", req("family", "In", "g5")))
    assert everything.capacity_types == ("reserved", "spot", "on-demand")
    assert any("no karpenter.sh/capacity-type requirement" in n for n in everything.notes)
    assert any("capacityReservationSelectorTerms" in n for n in everything.notes)
    reserved_first = one(pool("p", req("karpenter.sh/capacity-type", "In", "on-demand", "reserved")))
    assert reserved_first.capacity_types == ("reserved", "on-demand")
    unknown = one(pool("p", req("karpenter.sh/capacity-type", "In", "preemptible")))
    assert unknown.launchable is False and "capacity-type" in unknown.problems[0]
    no_zone = one(pool("p", req("topology.kubernetes.io/zone", "In", "us-east-1a"),
                       req("topology.kubernetes.io/zone", "In", "us-east-1b")))
    assert no_zone.launchable is False and no_zone.zones == ()


def test_min_values():
    unmet = one(pool("p", req("gpu-name", "In", "a10g"), req("family", "Exists", min_values=2)))
    assert len(unmet.candidates) == 8 and unmet.launchable is False
    assert any("minValues 2" in p for p in unmet.problems)
    met = one(pool("p", req("gpu-name", "In", "a10g"), req("node.kubernetes.io/instance-type", "Exists",
                                                           min_values=8)))
    assert met.launchable is True
    nine = one(pool("p", req("gpu-name", "In", "a10g"), req("node.kubernetes.io/instance-type", "Exists",
                                                            min_values=9)))
    assert nine.launchable is False
    fit = pod_fit(PodShape(), [pool("p", req("gpu-name", "In", "a10g"), req("family", "Exists", min_values=2))])
    assert fit[0].instance is None and fit[0].reason.startswith("pool cannot launch")


def test_no_candidate_is_not_launchable():
    report = one(pool("p", req("gpu-name", "In", "a10g"), req("kubernetes.io/arch", "In", "arm64")))
    assert report.candidates == () and not report.launchable
    assert "no instance type met the scheduling requirements" in report.problems[0]


def test_unmodelled_requirement_is_noted():
    report = one(pool("p", req("family", "In", "g5"), req("encryption-in-transit-supported", "In", "true")))
    assert len(report.candidates) == 8
    assert any("not modelled" in n for n in report.notes)


# --- g6f and NodeOverlays ----------------------------------------------------------------------

G6F = pool("g6f", req("family", "In", "g6f"), limits={"nvidia.com/gpu": "4"})
G6F_OVERLAY = overlay("g6f-gpu", req("family", "In", "g6f"), weight=10, capacity={"nvidia.com/gpu": "1"})


def test_g6f_without_overlay_reports_zero_gpus():
    report = one(G6F)
    assert names(report) == sorted(["g6f.large", "g6f.xlarge", "g6f.2xlarge", "g6f.4xlarge"])
    assert all(c.gpus == 0 and "nvidia.com/gpu" not in c.capacity for c in report.candidates)
    assert any(n.startswith("4 candidates report 0 GPUs and cannot run nvidia.com/gpu pods without a NodeOverlay")
               for n in report.notes)
    assert report.worst_case_hourly is None  # nothing with GPUs to count against the limit
    fit = pod_fit(PodShape(gpus=1), [G6F])[0]
    assert fit.instance is None and "nvidia.com/gpu" in fit.reason


def test_g6f_with_capacity_overlay_has_one_gpu():
    report = one(G6F, G6F_OVERLAY)
    assert all(c.gpus == 1 and c.capacity["nvidia.com/gpu"] == 1 for c in report.candidates)
    assert all(c.overlays == ("g6f-gpu",) for c in report.candidates)
    assert not any("report 0 GPUs" in n for n in report.notes)
    # limit 4 GPUs / 1 per node = 4 nodes x dearest g6f.4xlarge 0.95 = 3.80
    assert report.worst_case_hourly == Decimal("3.80")
    fit = first_choice(pod_fit(PodShape(gpus=1), [G6F, G6F_OVERLAY]))
    assert (fit.pool, fit.instance, fit.price) == ("g6f", "g6f.large", Decimal("0.202"))
    # the overlay is matched against instance labels: a g5 pool is untouched
    g5 = one(pool("g5", req("family", "In", "g5")), G6F_OVERLAY)
    assert all(c.overlays == () for c in g5.candidates)


def test_price_adjustment_reorders_candidates():
    p = pool("p", req("node.kubernetes.io/instance-type", "In", "g6.xlarge", "g5.xlarge"))
    plain = one(p)
    assert [c.instance.name for c in plain.candidates] == ["g6.xlarge", "g5.xlarge"]  # 0.8048 < 1.006
    adjusted = one(p, overlay("g6-dearer", req("family", "In", "g6"), priceAdjustment="+30%"))
    assert [c.instance.name for c in adjusted.candidates] == ["g5.xlarge", "g6.xlarge"]
    assert adjusted.candidates[1].price == Decimal("1.04624")  # 0.8048 x 1.3
    shape = PodShape(gpus=1)
    assert first_choice(pod_fit(shape, [p])).instance == "g6.xlarge"
    assert first_choice(pod_fit(shape, [p, overlay("g6-dearer", req("family", "In", "g6"),
                                                   priceAdjustment="+30%")])).instance == "g5.xlarge"


def test_overlay_weight_and_matching_keys():
    p = pool("p", req("node.kubernetes.io/instance-type", "In", "g6.xlarge"),
             req("karpenter.sh/capacity-type", "In", "on-demand"))
    heavy = overlay("heavy", req("family", "In", "g6"), weight=20, price="0.5")
    light = overlay("light", req("family", "In", "g6"), weight=10, priceAdjustment="+30%")
    assert one(p, light, heavy).candidates[0].price == Decimal("0.5")  # higher weight wins
    assert one(p, overlay("abs", priceAdjustment="-0.3")).candidates[0].price == Decimal("0.5048")
    spot_only = overlay("spot", req("karpenter.sh/capacity-type", "In", "spot"), price="0.1")
    assert one(p, spot_only).candidates[0].price == Decimal("0.8048")  # pool is on-demand only
    other_pool = overlay("other", req("karpenter.sh/nodepool", "In", "other"), price="0.1")
    assert one(p, other_pool).candidates[0].price == Decimal("0.8048")
    this_pool = overlay("this", req("karpenter.sh/nodepool", "In", "p"), price="0.1")
    assert one(p, this_pool).candidates[0].price == Decimal("0.1")
    merged = one(p, overlay("a", weight=5, capacity={"example.com/x": "2"}),
                 overlay("b", weight=9, capacity={"example.com/x": "3", "example.com/y": "1"}))
    assert merged.candidates[0].capacity["example.com/x"] == 3 and merged.candidates[0].capacity["example.com/y"] == 1


# --- cost --------------------------------------------------------------------------------------


def test_worst_case_for_a_50_gpu_limit():
    report = one(pool("g5", req("family", "In", "g5"), limits={"nvidia.com/gpu": 50}))
    # ceil(50 / GPUs) x price, per g5 size:
    #   xlarge 50 x 1.006 = 50.30   2xlarge 50 x 1.212 = 60.60   4xlarge 50 x 1.624 = 81.20
    #   8xlarge 50 x 2.448 = 122.40 16xlarge 50 x 4.096 = 204.80  12xlarge 13 x 5.672 = 73.736
    #   24xlarge 13 x 8.144 = 105.872  48xlarge 7 x 16.288 = 114.016  -> worst 204.80 (g5.16xlarge)
    assert report.gpu_limit == 50
    assert report.worst_case_hourly == Decimal("204.8")
    assert report.worst_case_instance == "g5.16xlarge"
    assert "limits are eventually consistent and can overrun during fast scale-out" in report.notes
    wide = one(pool("wide", *BY_PROPERTY["spec"]["template"]["spec"]["requirements"], limits={"nvidia.com/gpu": 50}))
    # The dearest node per GPU count: 8 GPUs p6-b300.48xlarge 142.416 (17.80/GPU), 4 g7e.24xlarge 16.57216,
    # 2 g7e.12xlarge 8.28608, 1 g6e.16xlarge 7.57719. A seventh p6-b300 would need 56 > 50 GPUs, which
    # filterByRemainingResources refuses: 6 x 142.416 = 854.496 for 48 GPUs, the last 2 as 2 x g6e.16xlarge
    # (15.15438 > one g7e.12xlarge 8.28608): 869.65038.
    assert wide.worst_case_hourly == Decimal("869.65038") and wide.worst_case_instance == "p6-b300.48xlarge"
    assert wide.worst_case_nodes == (("g6e.16xlarge", 2), ("p6-b300.48xlarge", 6))
    assert any(n.startswith("p5e.48xlarge: no on-demand price in the catalog") for n in wide.notes)


def test_unlimited_and_static_pools():
    unlimited = one(pool("u", req("family", "In", "g5")))
    assert unlimited.gpu_limit is None and unlimited.worst_case_hourly is None
    assert any("unbounded" in n for n in unlimited.notes)
    static = one(pool("s", req("node.kubernetes.io/instance-type", "In", "p5.48xlarge"), replicas=2,
                      limits={"nodes": 3}))
    assert (static.kind, static.weight, static.replicas) == ("static", None, 2)
    assert static.worst_case_hourly == Decimal("110.08")  # 2 x 55.04
    assert any("limits.nodes 3" in n for n in static.notes)
    fit = pod_fit(PodShape(gpus=1), [pool("s", req("node.kubernetes.io/instance-type", "In", "p5.48xlarge"),
                                          replicas=2)])[0]
    assert fit.instance is None and fit.kind == "static" and "static pool" in fit.reason


# --- pod fit -----------------------------------------------------------------------------------


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


def test_pod_shape_parse():
    shape = PodShape.parse("gpus=2,cpu=500m,memory=16Gi,tolerate=nvidia.com/gpu,select=a=b,select=c=d,"
                           f"affinity={AWS}gpu-count:Gt:1")
    assert shape.gpus == 2 and shape.cpu == Decimal("0.5") and shape.memory == 16 * 2**30
    assert shape.tolerations == ({"operator": "Exists", "key": "nvidia.com/gpu"},)
    assert dict(shape.node_selector) == {"a": "b", "c": "d"}
    assert shape.required_affinity == ({"key": AWS + "gpu-count", "operator": "Gt", "values": ["1"]},)
    default = PodShape()
    assert (default.gpus, default.cpu, default.memory) == (1, Decimal(1), 2**30)
    for bad in ("gpus=-1", "cpu=lots", "colour=red", "select=nokey", "affinity=x:Sorta:1", "tolerate=a:Never", "gpus"):
        with pytest.raises(KarpenterGpuError) as info:
            PodShape.parse(bad)
        assert info.value.code == "KG710"


def test_bad_manifests_raise_kg711():
    with pytest.raises(KarpenterGpuError) as info:
        simulate_pools([pool("p", {"key": AWS + "gpu-count", "operator": "Gt", "values": ["zero"]})])
    assert info.value.code == "KG711" and "NodePool p" in info.value.prop
    with pytest.raises(KarpenterGpuError):
        simulate_pools([pool("p"), overlay("o", priceAdjustment="30%")])


def test_only_karpenter_v1_nodepools_are_simulated():
    other = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}
    old = {**pool("old"), "apiVersion": "karpenter.sh/v1beta1"}
    assert [r.name for r in simulate_pools([other, old, pool("new")])] == ["new"]
    assert isinstance(simulate_pools([pool("new")])[0].candidates[0], Candidate)


def test_simulator_does_not_start_jsii():
    code = ("import sys, karpenter_gpu.analysis.simulator as s; s.simulate_pools([]); "
            "bad = [m for m in sys.modules if m.split('.')[0] in ('cdk8s', 'jsii', 'constructs')]; "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def test_100_pools_simulate_fast():
    default_catalog()  # loaded once, outside the timing
    pools = [pool(f"pool-{i:03d}", req("gpu-count", "Gt", "0"), req("gpu-memory", "Gte", str(8192 + 1024 * (i % 40))),
                  req("karpenter.sh/capacity-type", "In", "spot", "on-demand"), weight=1 + i % 100,
                  limits={"nvidia.com/gpu": str(8 + i)}, taints=[GPU_TAINT])
             for i in range(100)]
    overlays = [G6F_OVERLAY, overlay("discourage-p3", req("family", "In", "p3"), weight=5, priceAdjustment="+50%")]
    start = time.perf_counter()
    reports = simulate_pools(pools + overlays)
    fits = pod_fit(PodShape.parse("gpus=1,tolerate=nvidia.com/gpu"), pools + overlays)
    elapsed = time.perf_counter() - start
    print(f"\n100 pools simulated and fitted in {elapsed:.3f} s")
    assert len(reports) == 100 and len(fits) == 100
    assert elapsed < 2.0


def test_static_pool_without_surge_says_drifted_nodes_stay():
    # staticdrift.go StaticDrift.ComputeCommands reserves the replacement under limits.nodes first
    report = one(pool("s", req("node.kubernetes.io/instance-type", "In", "g5.xlarge"), replicas=2,
                      limits={"nodes": "2"}))
    assert any("never replaced" in n for n in report.notes)


def test_fit_reports_answers_like_pod_fit_from_one_simulation():
    from karpenter_gpu.analysis.simulator import fit_reports
    manifests = [pool("a", req("family", "In", "g5"), weight=5), pool("b", req("family", "In", "g6"), weight=5)]
    shape = PodShape(gpus=1)
    assert fit_reports(shape, simulate_pools(manifests)) == pod_fit(shape, manifests)


def test_simulate_pools_with_the_callers_views_matches_reading_them() -> None:
    # The rules hand over the NodePool views they built: the reports must be the ones the manifests give.
    from karpenter_gpu.k8s.input_layout import read_path
    from karpenter_gpu.k8s.views import node_pools

    for env in read_path(ROOT / "dist").environments:
        docs = [m.manifest for m in env.manifests]
        assert node_pools(docs), env.name
        given = simulate_pools(docs, pools=node_pools(docs))
        read = simulate_pools(docs)
        assert [repr(r.notes) + r.name + repr(r.candidates) for r in given] == \
               [repr(r.notes) + r.name + repr(r.candidates) for r in read]


def test_pod_shape_names_a_mig_resource():
    shape = PodShape.parse("mig-1g.10gb=2,tolerate=nvidia.com/gpu")
    assert (shape.gpu_resource, shape.gpus) == ("nvidia.com/mig-1g.10gb", 2)
    assert PodShape.parse("nvidia.com/mig-2g.20gb=1").gpu_resource == "nvidia.com/mig-2g.20gb"
    assert PodShape.parse("gpus=1,resource=nvidia.com/mig-1g.10gb").gpu_resource == "nvidia.com/mig-1g.10gb"
    assert PodShape.parse("mig-1g.10gb=1").describe().startswith("nvidia.com/mig-1g.10gb=1")
    for bad in ("mig-1g.10gb=0", "mig-1g.10gb=x", "gpus=2,mig-1g.10gb=1", "mig-1g.10gb=1,nvidia.com/mig-2g.20gb=1"):
        with pytest.raises(KarpenterGpuError) as err:
            PodShape.parse(bad)
        assert err.value.code == "KG710"


# --- EKS Auto Mode: the same candidates whichever label spelling -------------------------------------

AUTO_REF = {"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "gpu-auto"}


def auto(manifest: dict) -> dict:
    """The pool on an Auto Mode NodeClass, its instance keys in Auto Mode's spelling."""
    tspec = manifest["spec"]["template"]["spec"]
    tspec["nodeClassRef"] = dict(AUTO_REF)
    for r in tspec["requirements"]:
        r["key"] = r["key"].replace("karpenter.k8s.aws/", "eks.amazonaws.com/")
    return manifest


def test_auto_mode_keys_select_the_same_candidates():
    limits = {"nvidia.com/gpu": "8"}
    karpenter = pool("karpenter", req("gpu-name", "In", "l4"), req("gpu-count", "Gt", "0"), limits=limits)
    eks = auto(pool("auto", req("gpu-name", "In", "l4"), req("gpu-count", "Gt", "0"), limits=limits))
    assert eks["spec"]["template"]["spec"]["requirements"][0]["key"] == "eks.amazonaws.com/instance-gpu-name"
    a, b = one(karpenter), one(eks)
    assert names(a) == names(b) and names(b) and all(n.startswith(("g6.", "gr6.")) for n in names(b))
    assert b.worst_case_hourly == a.worst_case_hourly and b.worst_case_hourly is not None
    assert any("EKS Auto Mode pool" in n for n in b.notes)


def test_auto_mode_pool_gets_no_node_overlay():
    """NodeOverlay is not available on EKS Auto Mode (aws/containers-roadmap#2690): same overlay, two flavours."""
    g6f = req("family", "In", "g6f")
    karpenter = pool("karpenter", g6f)
    eks = auto(pool("auto", g6f))
    gpu = overlay("g6f-gpu", req("family", "In", "g6f"), weight=10, capacity={"nvidia.com/gpu": "1"})
    reports = {r.name: r for r in simulate_pools([karpenter, eks, gpu])}
    assert all(c.capacity.get("nvidia.com/gpu") == 1 for c in reports["karpenter"].candidates)
    assert all(not c.capacity.get("nvidia.com/gpu") and not c.overlays for c in reports["auto"].candidates)


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


def test_pod_shape_neuron_keys_request_neuron_resources():
    shape = PodShape.parse("neuron=2,cpu=4")
    assert (shape.gpus, shape.gpu_resource) == (2, "aws.amazon.com/neuron")
    cores = PodShape.parse("neuroncore=8")
    assert (cores.gpus, cores.gpu_resource) == (8, "aws.amazon.com/neuroncore")
    assert cores.describe().startswith("aws.amazon.com/neuroncore=8")


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
