"""Node requirements: builders, rendering, and the keys/values the NodePool CRD refuses."""

from __future__ import annotations

from typing import Any, Callable

import pytest

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.requirements import (
    AWS_ALLOWED_KEYS,
    CapacityType,
    Label,
    Operator,
    Requirement,
    check_label_key,
)
from karpenter_gpu.k8s.units import GpuMemory

GPU_COUNT = "karpenter.k8s.aws/instance-gpu-count"
GPU_MEMORY = "karpenter.k8s.aws/instance-gpu-memory"
GPU_NAME = "karpenter.k8s.aws/instance-gpu-name"


# --------------------------------------------------------------------------- rendering


@pytest.mark.parametrize(
    ("requirement", "rendered"),
    [
        (Requirement.in_(Label.GPU_NAME, ["a10g", "l4"]),
         {"key": GPU_NAME, "operator": "In", "values": ["a10g", "l4"]}),
        (Requirement.in_(Label.GPU_NAME, ["a10g", "l4", "t4"], min_values=2),
         {"key": GPU_NAME, "operator": "In", "values": ["a10g", "l4", "t4"], "minValues": 2}),
        (Requirement.not_in(Label.INSTANCE_FAMILY, ["g6f", "gr6f"]),
         {"key": "karpenter.k8s.aws/instance-family", "operator": "NotIn", "values": ["g6f", "gr6f"]}),
        (Requirement.exists(Label.GPU_NAME), {"key": GPU_NAME, "operator": "Exists"}),
        (Requirement.exists(Label.INSTANCE_FAMILY, min_values=3),
         {"key": "karpenter.k8s.aws/instance-family", "operator": "Exists", "minValues": 3}),
        (Requirement.does_not_exist(Label.GPU_NAME), {"key": GPU_NAME, "operator": "DoesNotExist"}),
        (Requirement.gt(Label.GPU_COUNT, 0), {"key": GPU_COUNT, "operator": "Gt", "values": ["0"]}),
        (Requirement.lt(Label.GPU_COUNT, 9), {"key": GPU_COUNT, "operator": "Lt", "values": ["9"]}),
        (Requirement.gte(Label.GPU_COUNT, 4), {"key": GPU_COUNT, "operator": "Gte", "values": ["4"]}),
        (Requirement.lte(Label.GPU_COUNT, 8), {"key": GPU_COUNT, "operator": "Lte", "values": ["8"]}),
    ],
    ids=["in", "in-min-values", "not-in", "exists", "exists-min-values", "does-not-exist",
         "gt", "lt", "gte", "lte"],
)
def test_each_operator_renders_exactly(requirement: Requirement, rendered: dict) -> None:
    assert requirement.render() == rendered


def test_gt_zero_gpus_renders_the_documented_requirement() -> None:
    assert Requirement.gt(Label.GPU_COUNT, 0).render() == {
        "key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Gt", "values": ["0"],
    }


def test_rendered_operator_and_values_are_plain_strings() -> None:
    rendered = Requirement.in_(Label.CAPACITY_TYPE, [CapacityType.SPOT, CapacityType.ON_DEMAND]).render()
    assert rendered == {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot", "on-demand"]}
    assert type(rendered["operator"]) is str
    assert all(type(v) is str for v in rendered["values"])


@pytest.mark.parametrize(
    ("memory", "text"),
    [(GpuMemory.gib(16), "16384"), (GpuMemory.of_gpu("a10g"), "22888"), (GpuMemory.of_gpu("l4"), "22888")],
)
def test_gpu_memory_comparisons_render_mib_per_gpu(memory: GpuMemory, text: str) -> None:
    assert Requirement.gte(Label.GPU_MEMORY, memory).render() == {
        "key": GPU_MEMORY, "operator": "Gte", "values": [text],
    }


@pytest.mark.parametrize("builder", [Requirement.gt, Requirement.lt, Requirement.gte, Requirement.lte])
@pytest.mark.parametrize("value", [16000, 24, "16Gi"])
def test_fails_when_gpu_memory_label_gets_a_bare_value(builder: Callable, value: Any) -> None:
    with pytest.raises(KarpenterGpuError) as exc:
        builder(Label.GPU_MEMORY, value)
    assert exc.value.code == "KG103"
    assert repr(value) in str(exc.value)


def test_operator_constructor_accepts_operator_strings() -> None:
    assert Requirement(Label.GPU_COUNT, "Gte", ["1"]).render() == {
        "key": GPU_COUNT, "operator": "Gte", "values": ["1"],
    }


def test_requirement_equality_and_hash() -> None:
    a = Requirement.in_(Label.GPU_NAME, ["a10g", "l4"])
    assert a == Requirement(GPU_NAME, Operator.IN, ["a10g", "l4"])
    assert hash(a) == hash(Requirement(GPU_NAME, "In", ("a10g", "l4")))
    assert a != Requirement.in_(Label.GPU_NAME, ["l4", "a10g"])  # order is rendered, so it matters
    assert a != Requirement.not_in(Label.GPU_NAME, ["a10g", "l4"])
    assert Requirement.gt(Label.GPU_COUNT, 0) != Requirement.gte(Label.GPU_COUNT, 0)
    assert Requirement.in_(Label.GPU_NAME, ["t4"], min_values=1) != Requirement.in_(Label.GPU_NAME, ["t4"])


# --------------------------------------------------------------------------- values


@pytest.mark.parametrize("operator", [Operator.IN, Operator.NOT_IN])
def test_fails_when_in_or_not_in_has_no_values(operator: Operator) -> None:
    with pytest.raises(KarpenterGpuError) as exc:
        Requirement(Label.GPU_NAME, operator, [])
    assert exc.value.code == "KG110"
    assert exc.value.value == []
    assert GPU_NAME in str(exc.value)


def test_fails_when_in_builder_gets_no_values() -> None:
    with pytest.raises(KarpenterGpuError) as exc:
        Requirement.in_(Label.GPU_NAME, [])
    assert exc.value.code == "KG110"
    assert "[]" in str(exc.value)


@pytest.mark.parametrize("operator", [Operator.EXISTS, Operator.DOES_NOT_EXIST])
def test_fails_when_exists_or_does_not_exist_has_values(operator: Operator) -> None:
    with pytest.raises(KarpenterGpuError) as exc:
        Requirement(Label.GPU_NAME, operator, ["a10g"])
    assert exc.value.code == "KG110"
    assert "a10g" in str(exc.value)


@pytest.mark.parametrize("builder", [Requirement.gt, Requirement.lt, Requirement.gte, Requirement.lte])
@pytest.mark.parametrize("value", [-1, "abc", "1", 1.5, True])
def test_fails_when_comparison_value_is_not_a_non_negative_int(builder: Callable, value: Any) -> None:
    with pytest.raises(KarpenterGpuError) as exc:
        builder(Label.GPU_COUNT, value)
    assert exc.value.code == "KG110"
    assert repr(value) in str(exc.value)


@pytest.mark.parametrize("operator", [Operator.GT, Operator.LT, Operator.GTE, Operator.LTE])
@pytest.mark.parametrize("values", [[], ["1", "2"], ["-1"], ["abc"], ["1.5"], [" 1"]])
def test_fails_when_comparison_does_not_have_exactly_one_non_negative_integer(
    operator: Operator, values: list[str],
) -> None:
    with pytest.raises(KarpenterGpuError) as exc:
        Requirement(Label.GPU_COUNT, operator, values)
    assert exc.value.code == "KG110"
    assert repr(values) in str(exc.value)


@pytest.mark.parametrize(
    "build",
    [
        lambda: Requirement.in_(Label.GPU_NAME, ["a10g", "l4", "a10g"]),
        lambda: Requirement.not_in(Label.GPU_NAME, ["a10g", "a10g"]),
    ],
    ids=["in", "not-in"],
)
def test_fails_when_values_are_duplicated(build: Callable[[], Requirement]) -> None:
    with pytest.raises(KarpenterGpuError) as exc:
        build()
    assert exc.value.code == "KG110"
    assert "a10g" in str(exc.value)
    assert "distinct" in exc.value.allowed


@pytest.mark.parametrize(
    ("values", "min_values"),
    [(["a10g", "l4"], 0), (["a10g", "l4"], 51), (["a10g", "l4"], 3), (["a10g"], -1)],
)
def test_fails_when_min_values_is_out_of_range(values: list[str], min_values: int) -> None:
    with pytest.raises(KarpenterGpuError) as exc:
        Requirement.in_(Label.GPU_NAME, values, min_values=min_values)
    assert exc.value.code == "KG110"
    assert exc.value.value == min_values
    assert exc.value.prop.endswith(".min_values")
    assert f"min_values={min_values!r} is not allowed" in str(exc.value)


@pytest.mark.parametrize("min_values", [0, 51])
def test_fails_when_exists_min_values_is_out_of_range(min_values: int) -> None:
    with pytest.raises(KarpenterGpuError) as exc:
        Requirement.exists(Label.INSTANCE_FAMILY, min_values=min_values)
    assert exc.value.code == "KG110"
    assert f"min_values={min_values!r} is not allowed" in str(exc.value)


def test_min_values_bounds_are_inclusive() -> None:
    values = [f"v{i}" for i in range(50)]
    assert Requirement.in_(Label.INSTANCE_FAMILY, values, min_values=50).render()["minValues"] == 50
    assert Requirement.in_(Label.INSTANCE_FAMILY, ["g5"], min_values=1).render()["minValues"] == 1
    # Exists has no values to count, so only the 1..50 range applies.
    assert Requirement.exists(Label.INSTANCE_FAMILY, min_values=50).render()["minValues"] == 50


# --------------------------------------------------------------------------- keys

FORBIDDEN_KEYS = [
    "karpenter.sh/nodepool",
    "kubernetes.io/hostname",
    "karpenter.sh/foo",
    "sub.karpenter.sh/foo",  # the CRD matches the domain by suffix
    "karpenter.k8s.aws/instance-pods",  # documented, but not on the CRD allow-list
    "karpenter.k8s.aws/anything",
    "bad key!",
    "Example.com/team",  # the DNS prefix must be lowercase
    "example.com/" + "a" * 64,  # name part over 63 chars
    "",
]


@pytest.mark.parametrize("key", FORBIDDEN_KEYS)
def test_fails_when_key_is_restricted_or_malformed(key: str) -> None:
    with pytest.raises(KarpenterGpuError) as exc:
        check_label_key(key)
    assert exc.value.code == "KG111"
    assert exc.value.prop == "requirements"
    assert repr(key) in str(exc.value)


@pytest.mark.parametrize("key", FORBIDDEN_KEYS)
def test_fails_when_requirement_uses_a_restricted_or_malformed_key(key: str) -> None:
    with pytest.raises(KarpenterGpuError) as exc:
        Requirement.exists(key)
    assert exc.value.code == "KG111"
    assert repr(key) in str(exc.value)


def test_check_label_key_reports_the_prop_it_is_given() -> None:
    with pytest.raises(KarpenterGpuError) as exc:
        check_label_key("karpenter.sh/nodepool", prop="labels")
    assert exc.value.prop == "labels"


ALLOWED_KEYS = [
    "karpenter.sh/capacity-type",
    "karpenter.k8s.aws/instance-gpu-name",
    "karpenter.k8s.aws/instance-gpu-count",
    "karpenter.k8s.aws/instance-gpu-memory",
    "topology.kubernetes.io/zone",
    "node.kubernetes.io/instance-type",
    "example.com/team",
    "workload",
    "example.com/" + "a" * 63,
]


@pytest.mark.parametrize("key", ALLOWED_KEYS)
def test_allowed_keys_pass(key: str) -> None:
    check_label_key(key)
    assert Requirement.exists(key).render() == {"key": key, "operator": "Exists"}


def test_every_label_constant_but_nodepool_is_usable() -> None:
    keys = {v for k, v in vars(Label).items() if k.isupper()}
    assert Label.NODEPOOL in keys
    for key in keys - {Label.NODEPOOL}:
        check_label_key(key)


def test_aws_allow_list_matches_the_crd() -> None:
    assert len(AWS_ALLOWED_KEYS) == 28
    assert "karpenter.k8s.aws/instance-pods" not in AWS_ALLOWED_KEYS
    for key in AWS_ALLOWED_KEYS:
        check_label_key(key)


# Regressions found in review: each of these rendered something the API server would refuse.
@pytest.mark.parametrize("build_it, code", [
    (lambda: Requirement.exists("karpenter.sh"), "KG111"),
    (lambda: Requirement.exists("karpenter.k8s.aws"), "KG111"),
    (lambda: Requirement.in_(Label.GPU_NAME, "a10g"), "KG110"),
    (lambda: Requirement(Label.GPU_COUNT, Operator.GT, ["²"]), "KG110"),
    (lambda: Requirement.in_(Label.GPU_NAME, ["a10g"], min_values=True), "KG110"),
    (lambda: Requirement.gte(Label.GPU_COUNT, GpuMemory.gib(16)), "KG110"),
])
def test_fails_when_input_would_be_rejected_by_the_api_server(build_it, code):
    with pytest.raises(KarpenterGpuError) as exc:
        build_it()
    assert exc.value.code == code


def test_comparison_beyond_int64_is_refused():
    """The CRD's CEL rule evaluates int(values[0]): a value beyond int64 fails it at apply time."""
    with pytest.raises(KarpenterGpuError) as exc:
        Requirement.gt("karpenter.k8s.aws/instance-cpu", 2**63)
    assert exc.value.code == "KG110"
    assert Requirement.gt("karpenter.k8s.aws/instance-cpu", 2**63 - 1).render()["values"] == [str(2**63 - 1)]
    with pytest.raises(KarpenterGpuError):
        Requirement.lt("karpenter.k8s.aws/instance-cpu", -1)
