"""Taints and DNS-1123 object names."""

from __future__ import annotations

from typing import Any

import pytest

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.names import check_dns1123
from karpenter_gpu.k8s.taint import Taint, TaintEffect


def test_gpu_taint_is_the_nvidia_convention() -> None:
    assert Taint.gpu().render() == {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}


def test_taint_without_value_renders_no_value_key() -> None:
    rendered = Taint("example.com/dedicated", effect=TaintEffect.NO_EXECUTE).render()
    assert rendered == {"key": "example.com/dedicated", "effect": "NoExecute"}
    assert "value" not in rendered


def test_taint_defaults_to_no_schedule() -> None:
    assert Taint("example.com/dedicated", "gpu").render() == {
        "key": "example.com/dedicated", "value": "gpu", "effect": "NoSchedule",
    }


@pytest.mark.parametrize("effect", ["NoSchedule", "PreferNoSchedule", "NoExecute", *TaintEffect])
def test_every_effect_renders_as_a_plain_string(effect: Any) -> None:
    rendered = Taint("example.com/x", "y", effect).render()
    assert rendered["effect"] == str(effect)
    assert type(rendered["effect"]) is str


@pytest.mark.parametrize("value", ["true", "a", "A-b_c.d", "x" * 63])
def test_valid_taint_values_pass(value: str) -> None:
    assert Taint("example.com/x", value).render()["value"] == value


def test_taint_equality_and_hash() -> None:
    assert Taint.gpu() == Taint("nvidia.com/gpu", "true", "NoSchedule")
    assert hash(Taint.gpu()) == hash(Taint("nvidia.com/gpu", "true", TaintEffect.NO_SCHEDULE))
    assert Taint.gpu() != Taint("nvidia.com/gpu", "true", TaintEffect.NO_EXECUTE)
    assert Taint.gpu() != Taint("nvidia.com/gpu", None)
    assert Taint("a", None) != Taint("a", "x")


@pytest.mark.parametrize("effect", ["noschedule", "NoScheduleX", "", "Evict", None])
def test_fails_when_effect_is_unknown(effect: Any) -> None:
    with pytest.raises(KarpenterGpuError) as exc:
        Taint("nvidia.com/gpu", "true", effect)
    assert exc.value.code == "KG121"
    assert exc.value.prop == "taints.effect"
    assert repr(effect) in str(exc.value)


@pytest.mark.parametrize("value", ["has space", "-true", "true-", "a/b", "x" * 64, "ü"])
def test_fails_when_value_is_not_a_label_value(value: str) -> None:
    with pytest.raises(KarpenterGpuError) as exc:
        Taint("nvidia.com/gpu", value)
    assert exc.value.code == "KG121"
    assert exc.value.prop == "taints.value"
    assert repr(value) in str(exc.value)


@pytest.mark.parametrize("key", ["bad key!", "", "Nvidia.com/gpu", "nvidia.com/", "karpenter.sh/nodepool"])
def test_fails_when_key_is_invalid(key: str) -> None:
    with pytest.raises(KarpenterGpuError) as exc:
        Taint(key, "true")
    assert exc.value.code == "KG111"
    assert exc.value.prop == "taints.key"
    assert repr(key) in str(exc.value)
    assert str(exc.value).startswith("[KG111] taints.key=")


# --------------------------------------------------------------------------- DNS-1123 names


@pytest.mark.parametrize("name", ["gpu-inference", "a", "0", "gpu-1", "a" * 63])
def test_check_dns1123_accepts_labels(name: str) -> None:
    assert check_dns1123(name) == name


@pytest.mark.parametrize("name", ["GPU", "-a", "a-", "a_b", "a.b", "", " a", "a" * 64, 7, None])
def test_fails_when_name_is_not_dns1123(name: Any) -> None:
    with pytest.raises(KarpenterGpuError) as exc:
        check_dns1123(name)
    assert exc.value.code == "KG120"
    assert exc.value.prop == "name"
    assert repr(name) in str(exc.value)


def test_check_dns1123_reports_the_prop_it_is_given() -> None:
    with pytest.raises(KarpenterGpuError) as exc:
        check_dns1123("GPU", prop="pool_name")
    assert exc.value.prop == "pool_name"
    assert "pool_name='GPU'" in str(exc.value)


def test_fails_when_taint_value_is_empty():
    # The CRD's taint value pattern needs at least one alphanumeric character.
    with pytest.raises(KarpenterGpuError) as exc:
        Taint("example.com/x", "")
    assert exc.value.code == "KG121"


def test_neuron_taint_is_the_device_plugin_key() -> None:
    assert Taint.neuron().render() == {"key": "aws.amazon.com/neuron", "value": "true", "effect": "NoSchedule"}
