"""karpenter_gpu.apiserver.crd_source: --crds / $KARPENTER_GPU_CRDS / the packaged copy, and its regeneration tool."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from karpenter_gpu.apiserver.conformance import load_crds
from karpenter_gpu.apiserver.crd_source import (
    PACKAGED_DIR, CrdSourceError, pinned_crds, pinned_sources, resolve_crd_dir, verify_packaged,
)
from tests.conftest import ROOT

TOOL = ROOT / "tools" / "regen_imports.py"


def load_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("regen_imports", TOOL)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def packaged_copy(tmp_path: Path) -> Path:
    """A writable copy of the packaged folder (CRDs + SOURCES.json)."""
    return Path(shutil.copytree(PACKAGED_DIR, tmp_path / "crds"))


def test_packaged_copy_is_inside_the_package_and_matches_its_pins() -> None:
    assert PACKAGED_DIR == ROOT / "constructs" / "karpenter_gpu" / "data" / "crds"
    assert verify_packaged() == []
    assert sorted(pinned_crds()) == sorted(p.name for p in PACKAGED_DIR.glob("*.yaml"))


def test_pins_name_karpenter_v1_14_1_prometheus_operator_and_gitops_sources() -> None:
    sources = {entry["file"]: entry for entry in pinned_sources()}
    assert {"karpenter.sh_nodepools.yaml", "karpenter.sh_nodeoverlays.yaml", "karpenter.sh_nodeclaims.yaml",
            "karpenter.k8s.aws_ec2nodeclasses.yaml", "monitoring.coreos.com_servicemonitors.yaml",
            "monitoring.coreos.com_prometheusrules.yaml", "argoproj.io_applications.yaml",
            "source.toolkit.fluxcd.io_helmrepositories.yaml", "helm.toolkit.fluxcd.io_helmreleases.yaml"} == set(sources)
    # one Flux release: helm-controller v1.6.3 builds against source-controller's v1.9 API
    assert (sources["argoproj.io_applications.yaml"]["tag"], sources["helm.toolkit.fluxcd.io_helmreleases.yaml"]["tag"],
            sources["source.toolkit.fluxcd.io_helmrepositories.yaml"]["tag"]) == ("v3.5.1", "v1.6.3", "v1.9.1")
    nodepools = sources["karpenter.sh_nodepools.yaml"]
    assert nodepools["tag"] == "v1.14.1" and nodepools["sha256"] == \
        "3bb64a20c80776b77aa19a699ebdaf34480a7b2e7ec4ef890b43225b3517f878"
    for entry in sources.values():
        assert entry["url"] == (f"https://raw.githubusercontent.com/{entry['repository']}/{entry['tag']}/"
                                f"{entry['path']}")
        assert len(entry["commit"]) == 40 and len(entry["sha256"]) == 64


def test_packaged_copy_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KARPENTER_GPU_CRDS", raising=False)
    assert resolve_crd_dir() == PACKAGED_DIR
    crds = load_crds(resolve_crd_dir())
    assert ("karpenter.sh/v1", "NodePool") in crds and ("monitoring.coreos.com/v1", "PrometheusRule") in crds


def test_explicit_folder_wins_over_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KARPENTER_GPU_CRDS", str(tmp_path / "env"))
    assert resolve_crd_dir(tmp_path / "mine") == tmp_path / "mine"
    assert resolve_crd_dir(str(tmp_path / "mine")) == tmp_path / "mine"
    assert resolve_crd_dir() == tmp_path / "env"
    assert resolve_crd_dir("") == tmp_path / "env"


def test_user_folders_are_not_hash_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KARPENTER_GPU_CRDS", raising=False)
    (tmp_path / "karpenter.sh_nodepools.yaml").write_text("# another Karpenter version\n")
    assert resolve_crd_dir(tmp_path) == tmp_path  # returned as is: may hold other versions on purpose


def test_verify_reports_altered_missing_and_unpinned_files(packaged_copy: Path) -> None:
    (packaged_copy / "karpenter.sh_nodepools.yaml").write_text("truncated")
    (packaged_copy / "karpenter.sh_nodeclaims.yaml").unlink()
    (packaged_copy / "extra.yaml").write_text("kind: CustomResourceDefinition\n")
    problems = verify_packaged(packaged_copy)
    assert [p.split(":")[0] for p in problems] == ["karpenter.sh_nodeclaims.yaml", "karpenter.sh_nodepools.yaml",
                                                   "extra.yaml"]
    assert "missing" in problems[0] and "recorded 3bb64a20" in problems[1] and "SOURCES.json" in problems[2]


def test_unreadable_provenance_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CrdSourceError, match=r"SOURCES.json.*--crds DIR"):
        pinned_sources(tmp_path)


def test_regen_check_passes_on_the_committed_copy() -> None:
    done = subprocess.run([sys.executable, str(TOOL), "--check"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert load_tool().check_imports_list() == []  # cdk8s.yaml imports the packaged files, nothing online


def test_regen_reads_an_offline_folder_and_refuses_a_tampered_file(tmp_path: Path, packaged_copy: Path) -> None:
    tool = load_tool()
    source = Path(shutil.copytree(PACKAGED_DIR, tmp_path / "offline"))
    files = tool.read_sources(source, packaged_copy)
    assert set(files) == set(pinned_crds()) and all(files[n] == (PACKAGED_DIR / n).read_bytes() for n in files)

    # An upstream file that is not the pinned one is refused before anything is written.
    tampered = (source / "karpenter.sh_nodepools.yaml").read_bytes().replace(b"karpenter", b"Karpenter", 1)
    (source / "karpenter.sh_nodepools.yaml").write_bytes(tampered)
    with pytest.raises(tool.PinMismatch, match=r"karpenter.sh_nodepools.yaml: sha256 .* pinned 3bb64a20"):
        tool.read_sources(source, packaged_copy)
    (source / "karpenter.sh_nodeclaims.yaml").unlink()
    with pytest.raises(tool.PinMismatch, match=r"karpenter.sh_nodeclaims.yaml"):
        tool.read_sources(source, packaged_copy)


def test_regen_writes_verbatim_copies_and_drops_unpinned_files(packaged_copy: Path) -> None:
    tool = load_tool()
    (packaged_copy / "old.yaml").write_text("stale")
    (packaged_copy / "karpenter.sh_nodepools.yaml").write_text("stale")
    tool.write_packaged(tool.read_sources(PACKAGED_DIR, packaged_copy), packaged_copy)
    assert verify_packaged(packaged_copy) == []
    assert json.loads((packaged_copy / "SOURCES.json").read_text()) == \
        json.loads((PACKAGED_DIR / "SOURCES.json").read_text())


def test_regen_writes_the_schema_cache_and_the_check_finds_it_stale(packaged_copy: Path) -> None:
    tool = load_tool()
    (packaged_copy / "schemas.json").unlink()
    assert tool.check_schema_cache(packaged_copy) == ["schemas.json: not made from the CRD files beside it"]
    tool.write_packaged(tool.read_sources(PACKAGED_DIR, packaged_copy), packaged_copy)
    assert tool.check_schema_cache(packaged_copy) == []
    assert (packaged_copy / "schemas.json").read_bytes() == (PACKAGED_DIR / "schemas.json").read_bytes()
    path = packaged_copy / "karpenter.sh_nodepools.yaml"
    path.write_text(path.read_text() + "# edited\n")
    assert tool.check_schema_cache(packaged_copy) != []
