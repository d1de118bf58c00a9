"""The packaged instance-type catalog and the user-catalog loader.

Expectations are read by hand from the upstream gpu-instance-types.tsv (FACTS.md §9), the source the
catalog was generated from; the regeneration test runs when $KARPENTER_GPU_CATALOG_TSV names a copy.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

from karpenter_gpu.analysis.catalog import (
    INSTANCE_LABEL_KEYS, Catalog, InstanceType, default_catalog, load_catalog,
)
from karpenter_gpu.errors import CODES, KarpenterGpuError
from tests.conftest import ROOT

DATA = ROOT / "constructs" / "karpenter_gpu" / "data" / "gpu-instance-types.json"
MI = 2**20


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return default_catalog()


def test_86_types_26_families(catalog):
    # FACTS.md §9 says "27 families", but the TSV has 26: the 21 of the brief + g7, g7e, gr6f, p6-b300, dl2q.
    assert len(catalog.types) == 86
    assert len({t.labels["karpenter.k8s.aws/instance-family"] for t in catalog.types}) == 26
    assert (catalog.date, catalog.region) == ("2026-07-20", "us-east-1")
    assert catalog.notes and "zone" in " ".join(catalog.notes).lower()


def test_default_catalog_is_cached(catalog):
    assert default_catalog() is catalog


def test_g5_xlarge(catalog):
    g5 = catalog.by_name["g5.xlarge"]
    assert catalog.by_name("g5.xlarge") is g5 and "g5.xlarge" in catalog
    aws = "karpenter.k8s.aws/instance-"
    assert dict(g5.labels) == {
        "node.kubernetes.io/instance-type": "g5.xlarge",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/os": "linux",
        aws + "category": "g",
        aws + "family": "g5",
        aws + "generation": "5",
        aws + "size": "xlarge",
        aws + "cpu": "4",
        aws + "memory": "16384",
        aws + "cpu-manufacturer": "amd",
        aws + "gpu-name": "a10g",
        aws + "gpu-manufacturer": "nvidia",
        aws + "gpu-count": "1",
        aws + "gpu-memory": "22888",  # MiB per GPU, not 24 GB
        aws + "local-nvme": "250",
        aws + "network-bandwidth": "2500",
        aws + "ebs-bandwidth": "3500",
        aws + "hypervisor": "nitro",
    }
    assert set(g5.labels) <= INSTANCE_LABEL_KEYS
    assert dict(g5.allocatable) == {"cpu": Decimal("3.92"), "memory": Decimal(14162 * MI), "pods": Decimal(58),
                                    "nvidia.com/gpu": Decimal(1)}
    assert g5.price == Decimal("1.006")
    assert (g5.gpus, g5.gpu_name, g5.gpu_memory_mib) == (1, "a10g", 22888)


@pytest.mark.parametrize("name, memory", [("g6f.large", "2861"), ("g6f.xlarge", "2861"), ("g6f.2xlarge", "5722"),
                                          ("g6f.4xlarge", "11444"), ("gr6f.4xlarge", "11444")])
def test_fractional_l4_reports_zero_gpus(catalog, name, memory):
    t = catalog.by_name[name]
    assert t.labels["karpenter.k8s.aws/instance-gpu-count"] == "0"  # present, and zero
    assert t.labels["karpenter.k8s.aws/instance-gpu-name"] == "l4"
    assert t.labels["karpenter.k8s.aws/instance-gpu-memory"] == memory
    assert "nvidia.com/gpu" not in t.allocatable
    assert t.gpus == 0


def test_accelerators_amd_and_efa(catalog):
    inf2 = catalog.by_name["inf2.xlarge"]
    assert inf2.labels["karpenter.k8s.aws/instance-accelerator-name"] == "inferentia2"
    assert inf2.labels["karpenter.k8s.aws/instance-accelerator-count"] == "1"
    assert not any("gpu" in k for k in inf2.labels)
    assert inf2.allocatable["aws.amazon.com/neuron"] == 1 and inf2.allocatable["aws.amazon.com/neuroncore"] == 2
    assert inf2.gpus == 0 and inf2.gpu_name is None
    g4ad = catalog.by_name["g4ad.16xlarge"]
    assert g4ad.allocatable["amd.com/gpu"] == 4 and g4ad.gpus == 4 and "nvidia.com/gpu" not in g4ad.allocatable
    assert catalog.by_name["p5.48xlarge"].allocatable["vpc.amazonaws.com/efa"] == 32
    assert "vpc.amazonaws.com/efa" not in catalog.by_name["g5.xlarge"].allocatable  # blank -> absent
    trn2 = catalog.by_name["trn2.48xlarge"]
    assert (trn2.allocatable["aws.amazon.com/neuron"], trn2.allocatable["aws.amazon.com/neuroncore"]) == (16, 128)


@pytest.mark.parametrize("name, category", [("g4dn.xlarge", "g"), ("gr6.4xlarge", "gr"), ("p6-b200.48xlarge", "p"),
                                            ("dl2q.24xlarge", "dl"), ("inf1.xlarge", "inf"), ("trn1n.32xlarge", "trn")])
def test_category_is_letters_before_first_digit(catalog, name, category):
    assert catalog.by_name[name].labels["karpenter.k8s.aws/instance-category"] == category


def test_blank_cells_are_absent(catalog):
    metal = catalog.by_name["g5g.metal"]
    assert "karpenter.k8s.aws/instance-hypervisor" not in metal.labels  # blank on .metal
    assert "karpenter.k8s.aws/instance-local-nvme" not in metal.labels
    assert metal.labels["kubernetes.io/arch"] == "arm64"
    assert catalog.by_name["p3.2xlarge"].labels["karpenter.k8s.aws/instance-hypervisor"] == "xen"
    assert [t.name for t in catalog.types if t.price is None] == ["dl2q.24xlarge", "p5e.48xlarge", "trn2.48xlarge"]
    assert catalog.by_name["p6-b300.48xlarge"].price == Decimal("142.416")


def test_json_is_sorted_and_indented():
    text = DATA.read_text()
    document = json.loads(text)
    names = [t["name"] for t in document["types"]]
    assert names == sorted(names)
    assert text == json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    g5 = next(t for t in document["types"] if t["name"] == "g5.xlarge")
    assert g5["allocatable"] == {"cpu": "3920m", "memory": "14162Mi", "pods": "58", "nvidia.com/gpu": "1"}
    assert g5["price"] == "1.006000"


def test_data_file_is_package_data():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "data/*.json" in config["tool"]["setuptools"]["package-data"]["karpenter_gpu"]


# ---------------------------------------------------------------------------------------------
# load_catalog


def _one(**overrides) -> dict:
    entry = {"name": "x1.large", "labels": {"kubernetes.io/arch": "amd64"},
             "allocatable": {"cpu": "1930m", "memory": "7002Mi", "pods": "20", "nvidia.com/gpu": "1"},
             "price": "0.5"}
    entry.update(overrides)
    return entry


def _write(tmp_path: Path, document, name="catalog.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document) if name.endswith(".json") else yaml.safe_dump(document))
    return path


def test_load_catalog_round_trips_the_packaged_file(tmp_path, catalog):
    copy = tmp_path / "copy.json"
    copy.write_text(DATA.read_text())
    loaded = load_catalog(copy)
    assert [t.name for t in loaded.types] == [t.name for t in catalog.types]
    assert loaded.by_name["g6e.xlarge"].allocatable == catalog.by_name["g6e.xlarge"].allocatable
    assert loaded.source == catalog.source


def test_load_catalog_reads_yaml(tmp_path):
    path = _write(tmp_path, {"region": "eu-west-1", "types": [
        _one(labels={"karpenter.k8s.aws/instance-gpu-count": 1}, price=None)]}, "mine.yaml")
    loaded = load_catalog(path)
    t = loaded.by_name["x1.large"]
    assert t.labels["karpenter.k8s.aws/instance-gpu-count"] == "1"  # YAML int read as the label string
    assert t.labels["node.kubernetes.io/instance-type"] == "x1.large"
    assert t.price is None and t.allocatable["cpu"] == Decimal("1.93") and t.gpus == 1
    assert loaded.region == "eu-west-1"


@pytest.mark.parametrize("types, fragment", [
    ([_one(), _one()], "types[1].name"),
    ([_one(allocatable={"cpu": "lots", "memory": "1Gi"})], "types[0] (x1.large).allocatable.cpu"),
    ([_one(allocatable={"cpu": "1", "memory": "-1Gi"})], "types[0] (x1.large).allocatable.memory"),
    ([_one(allocatable={"cpu": "1"})], "allocatable.memory"),
    ([_one(price="-0.10")], "types[0] (x1.large).price"),
    ([_one(price="cheap")], "types[0] (x1.large).price"),
    ([{k: v for k, v in _one().items() if k != "name"}], "types[0].name"),
    ([{k: v for k, v in _one().items() if k != "labels"}], "types[0] (x1.large).labels"),
    ([_one(labels={"kubernetes.io/arch": True})], "labels.kubernetes.io/arch"),
    ([_one(labels={"node.kubernetes.io/instance-type": "other"})], "instance-type"),
    ([_one(prise="1")], "types[0] (x1.large)"),
    ([], "types"),
])
def test_load_catalog_rejects_invalid_entries_with_kg700(tmp_path, types, fragment):
    path = _write(tmp_path, {"types": types})
    with pytest.raises(KarpenterGpuError) as info:
        load_catalog(path)
    assert info.value.code == "KG700"
    assert info.value.path == str(path)
    assert fragment in info.value.prop
    assert str(path) in str(info.value) and "[KG700]" in str(info.value)


def test_duplicate_name_message_points_at_the_first(tmp_path):
    path = _write(tmp_path, {"types": [_one(), _one(name="x2.large"), _one()]})
    with pytest.raises(KarpenterGpuError, match=r"types\[0\] has it already"):
        load_catalog(path)


def test_load_catalog_file_errors_are_kg701(tmp_path):
    with pytest.raises(KarpenterGpuError) as missing:
        load_catalog(tmp_path / "nope.json")
    assert missing.value.code == "KG701"
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(KarpenterGpuError) as broken:
        load_catalog(bad)
    assert broken.value.code == "KG701" and "JSON" in broken.value.allowed
    top = _write(tmp_path, ["a list"], "list.json")
    with pytest.raises(KarpenterGpuError) as shape:
        load_catalog(top)
    assert shape.value.code == "KG700"


def test_codes_are_registered():
    for code in ("KG700", "KG701", "KG710", "KG711"):
        assert code in CODES


def test_instance_type_is_hashable(catalog):
    assert len({catalog.by_name["g5.xlarge"], catalog.by_name["g5.xlarge"]}) == 1
    assert isinstance(catalog.types[0], InstanceType)


def test_yaml_catalog_alias_bomb_is_refused_as_kg701(tmp_path):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 12)]
    (tmp_path / "bomb.yaml").write_text("\n".join(lines) + "\ntypes: *a11\n")
    with pytest.raises(KarpenterGpuError) as err:
        load_catalog(tmp_path / "bomb.yaml")
    assert err.value.code == "KG701" and "KG904" in str(err.value)


def test_build_tool_refuses_a_tsv_that_is_not_the_pinned_source(tmp_path):
    other = tmp_path / "other.tsv"
    other.write_text("instance_type\tfamily\n")
    out = tmp_path / "catalog.json"
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "build_catalog.py"), str(other), "--output", str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 1 and "pinned cabefa77" in done.stderr and "--repin" in done.stderr
    assert not out.exists()


def test_instance_types_carry_the_auto_mode_spelling_of_their_labels():
    l4 = default_catalog().by_name("g6.xlarge")
    assert l4.node_labels["eks.amazonaws.com/instance-gpu-name"] == l4.labels["karpenter.k8s.aws/instance-gpu-name"]
    assert l4.requirements["eks.amazonaws.com/instance-family"].has("g6")
    inf = default_catalog().by_name("inf2.xlarge")
    assert inf.requirements["eks.amazonaws.com/instance-gpu-name"].operator == "DoesNotExist"


def test_default_kubelet_allocatable_reproduces_every_catalog_row():
    """aws types.go computeCapacity / kubeReservedResources / evictionThreshold with the defaults (AL2023, no
    kubelet settings, VM overhead 0.075, ENI-limited pods) give the catalog's allocatable for all 86 types, so the
    facts derived from the catalog (vCPUs, memory MiB, arch, ENI pods = default pods) are the provider's inputs."""
    from karpenter_gpu.k8s.kubelet import KubeletSettings, allocatable

    catalog = default_catalog()
    for it in catalog.types:
        derived = allocatable(it.node_facts, KubeletSettings())
        assert {k: derived[k] for k in ("cpu", "memory", "pods")} == \
            {k: it.allocatable[k] for k in ("cpu", "memory", "pods")}, it.name
