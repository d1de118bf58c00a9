"""Pool simulation against the packaged catalog (where a pod lands: tests/test_pod_fit.py).

Every expected name, count and price below was read by hand from
the upstream gpu-instance-types.tsv (the catalog's source), not computed with the code under test.
"""

from __future__ import annotations

import subprocess
import sys
import time
from decimal import Decimal

import pytest

from karpenter_gpu.k8s.controller_settings import ControllerSettings
from karpenter_gpu.upstream import FeatureGate
from karpenter_gpu.analysis.catalog import default_catalog
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.analysis.candidates import Candidate
from karpenter_gpu.analysis.pod_fit import first_choice, pod_fit
from karpenter_gpu.analysis.pod_shape import PodShape
from karpenter_gpu.analysis.simulator import PoolReport, simulate_pools
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


#: The feature gates these tests' manifests rely on (NodeOverlays, static pools), on: the chart's defaults turn
#: nodeOverlay and staticCapacity off (tests/test_controller_settings.py).
ON = ControllerSettings(gates=frozenset(FeatureGate))


def one(*manifests: dict) -> PoolReport:
    reports = simulate_pools(list(manifests), settings=ON)
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
    assert any("zone availability" in n.text for n in report.notes)
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
    assert any(n.text.startswith("p5e.48xlarge: no on-demand price in the catalog") for n in report.notes)


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


def test_capacity_types_are_offering_requirements():
    everything = one(pool("p", req("family", "In", "g5")))
    assert everything.capacity_types == ("reserved", "spot", "on-demand")
    assert any("no karpenter.sh/capacity-type requirement" in n.text for n in everything.notes)
    assert any("capacityReservationSelectorTerms" in n.text for n in everything.notes)
    reserved_first = one(pool("p", req("karpenter.sh/capacity-type", "In", "on-demand", "reserved")))
    assert reserved_first.capacity_types == ("reserved", "on-demand")
    unknown = one(pool("p", req("karpenter.sh/capacity-type", "In", "preemptible")))
    assert unknown.launchable is False and "capacity-type" in unknown.problems[0].text
    no_zone = one(pool("p", req("topology.kubernetes.io/zone", "In", "us-east-1a"),
                       req("topology.kubernetes.io/zone", "In", "us-east-1b")))
    assert no_zone.launchable is False and no_zone.zones == ()


def test_min_values():
    unmet = one(pool("p", req("gpu-name", "In", "a10g"), req("family", "Exists", min_values=2)))
    assert len(unmet.candidates) == 8 and unmet.launchable is False
    assert any("minValues 2" in p.text for p in unmet.problems)
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
    assert "no instance type met the scheduling requirements" in report.problems[0].text


def test_unmodelled_requirement_is_noted():
    report = one(pool("p", req("family", "In", "g5"), req("encryption-in-transit-supported", "In", "true")))
    assert len(report.candidates) == 8
    assert any("not modelled" in n.text for n in report.notes)


# --- g6f and NodeOverlays ----------------------------------------------------------------------

G6F = pool("g6f", req("family", "In", "g6f"), limits={"nvidia.com/gpu": "4"})
G6F_OVERLAY = overlay("g6f-gpu", req("family", "In", "g6f"), weight=10, capacity={"nvidia.com/gpu": "1"})


def test_g6f_without_overlay_reports_zero_gpus():
    report = one(G6F)
    assert names(report) == sorted(["g6f.large", "g6f.xlarge", "g6f.2xlarge", "g6f.4xlarge"])
    assert all(c.gpus == 0 and "nvidia.com/gpu" not in c.capacity for c in report.candidates)
    assert any(n.text.startswith("4 candidates report 0 GPUs and cannot run nvidia.com/gpu pods without a NodeOverlay")
               for n in report.notes)
    assert report.worst_case_hourly is None  # nothing with GPUs to count against the limit
    fit = pod_fit(PodShape(gpus=1), [G6F])[0]
    assert fit.instance is None and "nvidia.com/gpu" in fit.reason


def test_g6f_with_capacity_overlay_has_one_gpu():
    report = one(G6F, G6F_OVERLAY)
    assert all(c.gpus == 1 and c.capacity["nvidia.com/gpu"] == 1 for c in report.candidates)
    assert all(c.overlays == ("g6f-gpu",) for c in report.candidates)
    assert not any("report 0 GPUs" in n.text for n in report.notes)
    # limit 4 GPUs / 1 per node = 4 nodes x dearest g6f.4xlarge 0.95 = 3.80
    assert report.worst_case_hourly == Decimal("3.80")
    fit = first_choice(pod_fit(PodShape(gpus=1), [G6F, G6F_OVERLAY], settings=ON))
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
                                                   priceAdjustment="+30%")], settings=ON)).instance == "g5.xlarge"


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
    assert "limits are eventually consistent and can overrun during fast scale-out" in [n.text for n in report.notes]
    wide = one(pool("wide", *BY_PROPERTY["spec"]["template"]["spec"]["requirements"], limits={"nvidia.com/gpu": 50}))
    # The dearest node per GPU count: 8 GPUs p6-b300.48xlarge 142.416 (17.80/GPU), 4 g7e.24xlarge 16.57216,
    # 2 g7e.12xlarge 8.28608, 1 g6e.16xlarge 7.57719. A seventh p6-b300 would need 56 > 50 GPUs, which
    # filterByRemainingResources refuses: 6 x 142.416 = 854.496 for 48 GPUs, the last 2 as 2 x g6e.16xlarge
    # (15.15438 > one g7e.12xlarge 8.28608): 869.65038.
    assert wide.worst_case_hourly == Decimal("869.65038") and wide.worst_case_instance == "p6-b300.48xlarge"
    assert wide.worst_case_nodes == (("g6e.16xlarge", 2), ("p6-b300.48xlarge", 6))
    assert any(n.text.startswith("p5e.48xlarge: no on-demand price in the catalog") for n in wide.notes)


def test_unlimited_and_static_pools():
    unlimited = one(pool("u", req("family", "In", "g5")))
    assert unlimited.gpu_limit is None and unlimited.worst_case_hourly is None
    assert any("unbounded" in n.text for n in unlimited.notes)
    static = one(pool("s", req("node.kubernetes.io/instance-type", "In", "p5.48xlarge"), replicas=2,
                      limits={"nodes": 3}))
    assert (static.kind, static.weight, static.replicas) == ("static", None, 2)
    assert static.worst_case_hourly == Decimal("110.08")  # 2 x 55.04
    assert any("limits.nodes 3" in n.text for n in static.notes)
    fit = pod_fit(PodShape(gpus=1), [pool("s", req("node.kubernetes.io/instance-type", "In", "p5.48xlarge"),
                                          replicas=2)])[0]
    assert fit.instance is None and fit.kind == "static" and "static pool" in fit.reason


def test_bad_manifests_raise_kg711():
    with pytest.raises(KarpenterGpuError) as info:
        simulate_pools([pool("p", {"key": AWS + "gpu-count", "operator": "Gt", "values": ["zero"]})])
    assert info.value.code == "KG711" and "NodePool p" in info.value.prop
    with pytest.raises(KarpenterGpuError):
        simulate_pools([pool("p"), overlay("o", priceAdjustment="30%")], settings=ON)


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
    reports = simulate_pools(pools + overlays, settings=ON)
    fits = pod_fit(PodShape.parse("gpus=1,tolerate=nvidia.com/gpu"), pools + overlays)
    elapsed = time.perf_counter() - start
    print(f"\n100 pools simulated and fitted in {elapsed:.3f} s")
    assert len(reports) == 100 and len(fits) == 100
    assert elapsed < 2.0


def test_static_pool_without_surge_says_drifted_nodes_stay():
    # staticdrift.go StaticDrift.ComputeCommands reserves the replacement under limits.nodes first
    report = one(pool("s", req("node.kubernetes.io/instance-type", "In", "g5.xlarge"), replicas=2,
                      limits={"nodes": "2"}))
    assert any("never replaced" in n.text for n in report.notes)


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
    assert any("EKS Auto Mode pool" in n.text for n in b.notes)


def test_auto_mode_pool_gets_no_node_overlay():
    """NodeOverlay is not available on EKS Auto Mode (aws/containers-roadmap#2690): same overlay, two flavours."""
    g6f = req("family", "In", "g6f")
    karpenter = pool("karpenter", g6f)
    eks = auto(pool("auto", g6f))
    gpu = overlay("g6f-gpu", req("family", "In", "g6f"), weight=10, capacity={"nvidia.com/gpu": "1"})
    reports = {r.name: r for r in simulate_pools([karpenter, eks, gpu], settings=ON)}
    assert all(c.capacity.get("nvidia.com/gpu") == 1 for c in reports["karpenter"].candidates)
    assert all(not c.capacity.get("nvidia.com/gpu") and not c.overlays for c in reports["auto"].candidates)
