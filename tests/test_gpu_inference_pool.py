"""GpuInferencePool → NodePool."""

from __future__ import annotations

import pytest

from karpenter_gpu import (CapacityType, DisruptionWindow, Duration, GpuInferencePool, GpuInferencePoolProps,
                           GpuMemory, GpuNodeClass,
                           KarpenterGpuError, Label, Requirement, Taint)
from karpenter_gpu.apiserver.conformance import check
from tests.conftest import manifests, only


@pytest.fixture
def node_class(chart):
    return GpuNodeClass(chart, "Class", name="gpu-inference", ami="al2023@v20251103", role="R", cluster_name="c")


def pool(chart, node_class, **props):
    GpuInferencePool(chart, "Pool", node_class=node_class, **{"name": "gpu-inference", "gpu_limit": 16, **props})
    return only(chart, "NodePool")


def reqs(nodepool: dict) -> dict:
    return {r["key"]: (r["operator"], r.get("values")) for r in nodepool["spec"]["template"]["spec"]["requirements"]}


def test_defaults_snapshot(chart, node_class, snapshot):
    GpuInferencePool(chart, "Pool", node_class=node_class, name="gpu-inference", gpu_limit=16)
    assert manifests(chart) == snapshot


def test_describes_instances_by_properties(chart, node_class):
    r = reqs(pool(chart, node_class))
    assert r[Label.GPU_COUNT] == ("Gt", ["0"])  # also keeps out g6f, which reports 0 GPUs
    assert r[Label.GPU_NAME] == ("In", ["t4", "a10g", "l4"])
    assert r[Label.CAPACITY_TYPE] == ("In", ["spot", "on-demand"])
    assert r[Label.ARCH] == ("In", ["amd64"])
    assert Label.INSTANCE_TYPE not in r


def test_taint_limit_consolidation_weight_labels(chart, node_class):
    spec = pool(chart, node_class)["spec"]
    assert spec["template"]["spec"]["taints"] == [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]
    assert spec["limits"] == {"nvidia.com/gpu": "16"}
    assert spec["disruption"]["consolidationPolicy"] == "WhenEmptyOrUnderutilized"
    assert spec["disruption"]["consolidateAfter"] == "5m"
    assert spec["weight"] == 60
    assert spec["template"]["metadata"]["labels"] == {"node-type": "gpu-inference", "workload": "inference",
                                                      "gpu-operator": "enabled"}
    assert spec["template"]["spec"]["expireAfter"] == "720h"


def test_node_class_ref_from_object(chart, node_class):
    ref = pool(chart, node_class)["spec"]["template"]["spec"]["nodeClassRef"]
    assert ref == {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu-inference"}


def test_optional_filters(chart, node_class):
    r = reqs(pool(chart, node_class, min_gpu_memory=GpuMemory.of_gpu("a10g"), instance_sizes=("xlarge", "2xlarge"),
                  zones=("us-east-1a",), architectures=("amd64", "arm64"), capacity_types=(CapacityType.SPOT,),
                  requirements=(Requirement.not_in(Label.INSTANCE_FAMILY, ["g4ad"]),),
                  cpu_limit="256", memory_limit="1Ti"))
    assert r[Label.GPU_MEMORY] == ("Gte", ["22888"])
    assert r[Label.INSTANCE_SIZE] == ("In", ["xlarge", "2xlarge"])
    assert r[Label.ZONE] == ("In", ["us-east-1a"])
    assert r[Label.ARCH] == ("In", ["amd64", "arm64"])
    assert r[Label.CAPACITY_TYPE] == ("In", ["spot"])
    assert r[Label.INSTANCE_FAMILY] == ("NotIn", ["g4ad"])


def test_custom_taints_and_limits(chart, node_class):
    spec = pool(chart, node_class, taints=(Taint.gpu(), Taint("example.com/team", "ml")),
                cpu_limit="256", memory_limit="1Ti")["spec"]
    assert spec["template"]["spec"]["taints"][1] == {"key": "example.com/team", "value": "ml", "effect": "NoSchedule"}
    assert spec["limits"] == {"nvidia.com/gpu": "16", "cpu": "256", "memory": "1Ti"}


def test_window_compiles_to_utc_budget_with_local_meaning(chart, node_class):
    m = pool(chart, node_class, disruption_windows=(
        DisruptionWindow(days="MON-FRI", start="09:00", end="19:00", time_zone="Asia/Seoul", nodes=0),))
    assert m["spec"]["disruption"]["budgets"] == [
        {"nodes": "1"}, {"nodes": "0", "schedule": "0 0 * * MON-FRI", "duration": "10h"}]
    note = m["metadata"]["annotations"]["karpenter-gpu.io/disruption-windows"]
    assert "09:00-19:00 Asia/Seoul" in note and note.startswith("budgets[1]:")


def test_output_matches_crd_schema(chart, node_class, crds):
    assert check(pool(chart, node_class, disruption_windows=(
        DisruptionWindow(start="22:00", end="06:00", time_zone="Europe/Berlin"),)), crds) == []


@pytest.mark.parametrize("change, code", [
    ({"gpu_limit": 0}, "KG130"),
    ({"gpu_limit": -4}, "KG130"),
    ({"weight": 500}, "KG131"),
    ({"weight": 0}, "KG131"),
    ({"name": "GPU Inference"}, "KG120"),
    ({"gpu_names": ()}, "KG110"),
    ({"gpu_names": ("A10G",)}, "KG110"),
    ({"capacity_types": ()}, "KG132"),
    ({"capacity_types": ("spot", "spot")}, "KG132"),
    ({"capacity_types": ("preemptible",)}, "KG100"),
    ({"labels": {"karpenter.sh/nodepool": "x"}}, "KG111"),
    ({"labels": {"karpenter.k8s.aws/instance-pods": "8"}}, "KG111"),
    ({"labels": {"team": "ml platform"}}, "KG121"),
    ({"consolidate_after": "PT5M"}, "KG101"),
    # "24 GB" A10G/L4 report 22888 MiB: 24 GiB excludes every named GPU.
    ({"gpu_names": ("a10g", "l4"), "min_gpu_memory": GpuMemory.gib(24)}, "KG103"),
    ({"min_gpu_memory": 16000}, "KG103"),
    ({"disruption_windows": ({"start": "09:00", "end": "19:00"},)}, "KG150"),
    ({"disruption_windows": ({"start": "09:00", "end": "19:00", "time_zone": "Asia/Sejong"},)}, "KG151"),
    ({"zones": ("us-east-1",)}, "KG110"),  # a region, not a zone: the requirement would match no node
])
def test_fails_when_props_are_bad(chart, node_class, change, code):
    with pytest.raises(KarpenterGpuError) as exc:
        GpuInferencePool(chart, "Pool", node_class=node_class, **{"name": "gpu-inference", "gpu_limit": 16, **change})
    assert exc.value.code == code
    assert "test/Pool" in str(exc.value)
    assert chart.node.try_find_child("Pool") is None


def test_fails_when_gpu_limit_missing(chart, node_class):
    with pytest.raises(KarpenterGpuError) as exc:
        GpuInferencePool(chart, "Pool", node_class=node_class, name="gpu-inference")
    assert exc.value.code == "KG100" and exc.value.prop == "gpu_limit"


def test_fails_when_node_class_is_a_name(chart):
    with pytest.raises(KarpenterGpuError) as exc:
        GpuInferencePool(chart, "Pool", node_class="gpu-inference", name="gpu-inference", gpu_limit=1)
    assert exc.value.code == "KG100" and exc.value.prop == "node_class"


def test_fails_when_more_than_50_budgets(chart, node_class):
    windows = tuple(DisruptionWindow(start=f"{h:02d}:00", end=f"{h:02d}:30", time_zone="UTC") for h in range(24))
    with pytest.raises(KarpenterGpuError) as exc:
        GpuInferencePool(chart, "Pool", node_class=node_class, name="p", gpu_limit=1,
                         disruption_windows=windows + windows + windows[:3])
    assert exc.value.code == "KG154"


def test_consolidate_after_rendered_even_when_defaulted(chart, node_class):
    assert pool(chart, node_class, consolidate_after=Duration.minutes(2))["spec"]["disruption"]["consolidateAfter"] == "2m"


def test_accepts_validated_props_object(chart, node_class):
    props = GpuInferencePoolProps(name="gpu-inference", gpu_limit=16)
    built = GpuInferencePool(chart, "Pool", node_class=node_class, props=props)
    assert built.props is props  # used as it is, not validated again
    assert only(chart, "NodePool")["spec"]["limits"] == {"nvidia.com/gpu": "16"}


def test_fails_when_props_object_and_keywords_are_mixed(chart, node_class):
    with pytest.raises(KarpenterGpuError) as exc:
        GpuInferencePool(chart, "Pool", node_class=node_class,
                         props=GpuInferencePoolProps(name="gpu-inference", gpu_limit=16), weight=10)
    assert exc.value.code == "KG820" and exc.value.prop == "weight"


def test_gpu_operator_label_can_be_left_off(chart, node_class):
    labels = pool(chart, node_class, gpu_operator=False)["spec"]["template"]["metadata"]["labels"]
    assert "gpu-operator" not in labels


# -- issue 12: accepted props the cluster rejects, typos and container types ----------------------

@pytest.mark.parametrize("props, code, prop", [
    ({"termination_grace_period": Duration.never()}, "KG101", "termination_grace_period"),
    ({"expire_after": Duration.seconds(0)}, "KG160", "expire_after"),
    ({"cpu_limit": "-1"}, "KG102", "cpu_limit"),
    ({"cpu_limit": "0"}, "KG102", "cpu_limit"),
    ({"memory_limit": "0Gi"}, "KG102", "memory_limit"),
    ({"taints": (Taint.gpu(), Taint.gpu())}, "KG121", "taints[1]"),
    ({"startup_taints": (Taint.gpu(),)}, "KG121", "startup_taints[0]"),
], ids=["grace-never", "expire-0s", "cpu-negative", "cpu-zero", "memory-zero", "duplicate-taint",
        "startup-duplicates-taint"])
def test_fails_on_values_the_cluster_rejects_or_cannot_use(chart, node_class, props, code, prop):
    with pytest.raises(KarpenterGpuError) as exc:
        GpuInferencePool(chart, "Pool", node_class=node_class, name="gpu-inference", gpu_limit=16, **props)
    assert (exc.value.code, exc.value.prop) == (code, prop)


def test_misspelt_prop_names_the_closest_one(chart, node_class):
    with pytest.raises(KarpenterGpuError) as exc:
        GpuInferencePool(chart, "Pool", node_class=node_class, name="gpu-inference", gpu_limt=16)
    assert exc.value.prop == "gpu_limt" and "did you mean 'gpu_limit'" in exc.value.allowed


def test_single_window_where_a_tuple_is_expected_says_so(chart, node_class):
    window = DisruptionWindow(start="09:00", end="18:00", time_zone="UTC", nodes=0)
    with pytest.raises(KarpenterGpuError) as exc:
        GpuInferencePool(chart, "Pool", node_class=node_class, name="gpu-inference", gpu_limit=16,
                         disruption_windows=window)
    assert exc.value.code == "KG100" and exc.value.prop == "disruption_windows"
    assert "a tuple of DisruptionWindow, not a single DisruptionWindow" in exc.value.allowed
    assert "disruption_windows=(" in exc.value.fix and len(str(exc.value)) < 400


@pytest.mark.parametrize(("names", "shown", "meant"), [(("a10",), "'a10'", "'a10g'"), (("l4", "h10"), "'h10'", "'h100'"),
                                                      (("l40",), "'l40'", "'l40s'")])
def test_fails_when_a_gpu_name_is_not_in_the_catalog_with_did_you_mean(chart, node_class, names, shown, meant):
    with pytest.raises(KarpenterGpuError) as exc:
        GpuInferencePool(chart, "Pool", node_class=node_class, name="gpu-inference", gpu_limit=4, gpu_names=names)
    assert exc.value.code == "KG112" and exc.value.prop == "gpu_names"
    assert f"gpu_names={shown}" in str(exc.value) and f"did you mean {meant}?" in exc.value.fix
    assert str(exc.value).startswith("[KG112] ") and "Pool" in str(exc.value)


def test_every_gpu_name_of_the_catalog_is_accepted(chart, node_class):
    from karpenter_gpu.analysis.catalog import default_catalog

    names = tuple(sorted({t.gpu_name for t in default_catalog() if t.gpu_name}))
    pool = GpuInferencePool(chart, "Pool", node_class=node_class, name="gpu-inference", gpu_limit=4, gpu_names=names)
    assert pool.props.gpu_names == names


@pytest.mark.parametrize(("zones", "said"), [
    (("us-east-1",), "is a region, its zones are us-east-1a"),
    (("us-east-1a", "us-east-1a"), "distinct zone names"),
    (("zone-a",), "availability zone names such as"),
    (("us-east-1a\n",), "availability zone names such as"),
])
def test_zones_must_be_availability_zone_names(chart, zones, said):
    """A region given for a zone renders a requirement no node matches: refused, saying which zones it has."""
    from karpenter_gpu.k8s.names import check_zones
    with pytest.raises(KarpenterGpuError) as err:
        check_zones(zones)
    assert err.value.code == "KG110" and said in str(err.value)
    assert check_zones(("us-east-1a", "us-west-2-lax-1a")) == ("us-east-1a", "us-west-2-lax-1a")


def test_instance_types_is_answered_with_how_to_pin_types(chart, node_class):
    """There is no instance_types prop; the closest spelling, instance_sizes, means something else: the error says how
    to pin types (a requirement on node.kubernetes.io/instance-type), and that fix works."""
    with pytest.raises(KarpenterGpuError) as exc:
        GpuInferencePool(chart, "Pool", node_class=node_class, name="gpu-inference", gpu_limit=4,
                         instance_types=("g5.xlarge",))
    assert exc.value.code == "KG100" and "Requirement.in_(Label.INSTANCE_TYPE" in str(exc.value)
    assert "instance_sizes" not in str(exc.value)
    GpuInferencePool(chart, "Pinned", node_class=node_class, name="gpu-pinned", gpu_limit=4,
                     requirements=(Requirement.in_(Label.INSTANCE_TYPE, ("g5.xlarge", "g5.2xlarge")),))
