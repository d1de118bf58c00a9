"""karpenter_gpu.apiserver._schema_cache: the packaged CRDs' served schemas as JSON, read while they match the YAML."""

from __future__ import annotations

import datetime
import json
import shutil
from pathlib import Path

import pytest

from karpenter_gpu.apiserver import _schema_cache, conformance
from karpenter_gpu.apiserver.conformance import load_crds, validate_manifest
from karpenter_gpu.apiserver.crd_source import PACKAGED_DIR

NAMES = sorted(p.name for p in PACKAGED_DIR.glob("*.yaml"))


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A copy of the packaged CRDs with their cache."""
    return Path(shutil.copytree(PACKAGED_DIR, tmp_path / "crds"))


def _no_yaml(monkeypatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("the CRD YAML was parsed")

    monkeypatch.setattr(conformance.yaml, "load_all", refuse)


def test_the_packaged_cache_is_current():
    """`make imports` writes it; a CRD changed without it fails here (regenerate with `make imports`)."""
    assert (PACKAGED_DIR / _schema_cache.CACHE_FILE).read_text(encoding="utf-8") == \
        conformance.schema_cache_text(PACKAGED_DIR)


def test_the_cache_holds_what_the_yaml_says():
    cached = _schema_cache.read(PACKAGED_DIR, NAMES)
    assert cached is not None and len(cached) >= 6
    assert _schema_cache._same(cached, conformance._parse_crds(PACKAGED_DIR, NAMES))


def test_loading_reads_the_cache_and_not_the_yaml(folder: Path, monkeypatch):
    expected = conformance._parse_crds(folder, NAMES)
    _no_yaml(monkeypatch)
    assert _schema_cache._same(load_crds(folder), expected)


def _pool(weight: int) -> dict:
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "p"},
            "spec": {"weight": weight, "template": {"spec": {"requirements": [], "nodeClassRef": {
                "group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"}}}}}


def test_an_edited_crd_is_read_from_its_yaml(folder: Path):
    """An edit of the same size (weight's maximum 100 -> 300) still changes the CRC: the YAML is read."""
    path = folder / "karpenter.sh_nodepools.yaml"
    text = path.read_text(encoding="utf-8")
    assert text.count("maximum: 100\n") == 1
    path.write_text(text.replace("maximum: 100\n", "maximum: 300\n"), encoding="utf-8")
    assert [f.code for f in validate_manifest(_pool(150), load_crds(folder)) if f.code == "KG300"] == []
    assert [f.code for f in validate_manifest(_pool(150), load_crds(PACKAGED_DIR)) if f.code == "KG300"] == ["KG300"]


@pytest.mark.parametrize("cache", ["{not json", '{"format": 1, "files": {}, "crds": []}', "[]", ""])
def test_a_broken_or_foreign_cache_is_ignored(folder: Path, cache: str):
    (folder / _schema_cache.CACHE_FILE).write_text(cache, encoding="utf-8")
    assert _schema_cache.read(folder, NAMES) is None
    assert _schema_cache._same(load_crds(folder), conformance._parse_crds(folder, NAMES))


def test_a_removed_crd_file_is_not_served_from_the_cache(folder: Path):
    (folder / "karpenter.sh_nodeoverlays.yaml").unlink()
    assert ("karpenter.sh/v1alpha1", "NodeOverlay") not in load_crds(folder)


def test_schemas_that_json_cannot_carry_are_refused():
    crds = {("x/v1", "X"): {"schema": {"type": "object", "default": datetime.date(2024, 1, 1)}, "scope": "Cluster"}}
    with pytest.raises(ValueError, match="JSON cannot carry"):
        _schema_cache.render(crds, {})
    crds[("x/v1", "X")]["schema"] = {"type": "object", "maximum": 1.0}  # a float stays a float
    assert _schema_cache._same(_schema_cache._entries(json.loads(_schema_cache.render(crds, {}))),
                               crds)
