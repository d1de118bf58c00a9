"""karpenter_gpu.k8s.mig: the MIG profile tables, MIG Manager's config names and what the device plugin advertises."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from karpenter_gpu.analysis.catalog import default_catalog
from karpenter_gpu.k8s.mig import (BALANCED, DISABLED, advertised, config_name, mig_table, profile_of_resource,
                                   resource_name)
from tests.conftest import ROOT


def gpu(model):
    return next(g for g in mig_table().gpus if g.model == model)


def test_catalog_gpus_with_mig_are_matched_by_name_and_memory():
    found = {it.name: mig_table().gpu_for(it.labels).model for it in default_catalog().types
             if mig_table().gpu_for(it.labels) is not None}
    assert found == {"p4d.24xlarge": "A100-SXM4-40GB", "p4de.24xlarge": "A100-SXM4-80GB",
                     "p5.4xlarge": "H100-SXM5-80GB", "p5.48xlarge": "H100-SXM5-80GB",
                     "p5e.48xlarge": "H200-SXM5-141GB", "p5en.48xlarge": "H200-SXM5-141GB",
                     "p6-b200.48xlarge": "B200-180GB", "p6-b300.48xlarge": "B300-288GB"}


def test_user_guide_counts():
    # NVIDIA MIG user guide, "Supported MIG Profiles" (A100-SXM4-40GB table)
    a100 = {p.name: p.max_instances for p in gpu("A100-SXM4-40GB").profiles}
    assert a100 == {"1g.5gb": 7, "1g.5gb+me": 1, "1g.10gb": 4, "2g.10gb": 3, "3g.20gb": 2, "4g.20gb": 1,
                    "7g.40gb": 1}
    assert {p.name: p.max_instances for p in gpu("H100-SXM5-80GB").profiles}["1g.10gb"] == 7


@pytest.mark.parametrize(("model", "config", "devices"), [
    ("A100-SXM4-40GB", "all-1g.10gb", {"1g.10gb": 4}),
    ("A100-SXM4-80GB", "all-1g.10gb", {"1g.10gb": 7}),
    ("H200-SXM5-141GB", "all-1g.10gb", None),  # no such profile: MIG Manager fails
    ("H100-SXM5-80GB", "all-1g.10gb.me", {"1g.10gb+me": 1}),
    ("A100-SXM4-40GB", BALANCED, {"1g.5gb": 2, "2g.10gb": 1, "3g.20gb": 1}),  # 1g.5gb (7) over 1g.10gb (4)
    ("B200-180GB", BALANCED, {"1g.23gb": 2, "2g.45gb": 1, "3g.90gb": 1}),
    ("H100-SXM5-80GB", DISABLED, {}),
])
def test_configs_follow_mig_parted(model, config, devices):
    assert gpu(model).config(config) == devices


def test_names_and_resources():
    assert config_name("1g.10gb+me") == "all-1g.10gb.me"
    assert resource_name("1g.10gb+me", "mixed") == "nvidia.com/mig-1g.10gb.me"
    assert resource_name("1g.10gb", "single") == "nvidia.com/gpu"
    assert profile_of_resource("nvidia.com/mig-1g.10gb") == "1g.10gb"
    assert profile_of_resource("nvidia.com/gpu") is None
    assert "all-balanced" in mig_table().config_names() and DISABLED not in mig_table().config_names()
    assert {g.model for g in mig_table().supporting("all-1g.10gb")} == {"A100-SXM4-40GB", "A100-SXM4-80GB",
                                                                       "H100-SXM5-80GB"}


def test_advertised():
    assert advertised({"1g.10gb": 7}, 8, "mixed") == {"nvidia.com/mig-1g.10gb": 56}
    assert advertised({"1g.10gb": 7}, 8, "single") == {"nvidia.com/gpu": 56}
    assert advertised({"1g.10gb": 2, "2g.20gb": 1}, 8, "single") is None  # the plugin refuses mixed devices
    assert advertised({}, 8, "mixed") == {}


def _tool():
    spec = importlib.util.spec_from_file_location("check_mig_profiles", ROOT / "tools" / "check_mig_profiles.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["check_mig_profiles"] = module
    spec.loader.exec_module(module)
    return module


def test_check_tool_reports_a_configmap_that_disagrees():
    tool = _tool()
    table = mig_table()
    # A ConfigMap written from our own derivation agrees ...
    configs: dict[str, list[dict]] = {}
    for g in table.gpus:
        for name in g.config_names():
            configs.setdefault(name, []).append({"device-filter": [g.pci_device_id], "devices": "all",
                                                 "mig-enabled": True, "mig-devices": g.config(name)})
    assert tool.differences(table, configs) == []
    # ... and one count changed is reported, naming the GPU and the config.
    configs["all-1g.10gb"][0]["mig-devices"] = {"1g.10gb": 5}
    assert tool.differences(table, configs) == ["A100-SXM4-40GB: all-1g.10gb: derived {'1g.10gb': 4}, "
                                                "ConfigMap {'1g.10gb': 5}"]


def test_check_tool_refuses_an_unpinned_file(tmp_path, capsys):
    other = tmp_path / "cm.yaml"
    other.write_text("data: {}\n")
    assert _tool().main([str(other)]) == 2
    assert "is not the pinned" in capsys.readouterr().err


def test_pinned_config_file_agrees_with_the_derivation():
    from karpenter_gpu.k8s.mig import mig_parted_config

    table = mig_table()
    document = mig_parted_config(table.config_names())
    assert document["mig-configs"][DISABLED] == [{"devices": "all", "mig-enabled": False}]
    assert _tool().differences(table, document["mig-configs"]) == []
    assert mig_parted_config(["all-1g.10gb"])["mig-configs"]["all-1g.10gb"][0] == {
        "device-filter": ["0x20B010DE"], "devices": "all", "mig-enabled": True, "mig-devices": {"1g.10gb": 4}}


def test_mig_partitioned_reads_the_config_label():
    from karpenter_gpu.k8s.mig import mig_partitioned

    assert mig_partitioned({"nvidia.com/mig.config": "all-1g.10gb"}) == "all-1g.10gb"
    assert mig_partitioned({"nvidia.com/mig.config": "all-disabled"}) is None
    assert mig_partitioned({}) is None and mig_partitioned({"nvidia.com/mig.config": 3}) is None
