"""A git revision's manifests, read without a checkout: the same files a folder of that revision holds, read the same
way (non-ASCII and dot-file names included), and a diff between two revisions."""

from __future__ import annotations

import shutil

import pytest
import yaml

from karpenter_gpu.cli.main import main
from karpenter_gpu.k8s.git_revision import read
from karpenter_gpu.k8s.input_layout import read_path
from karpenter_gpu.k8s.yaml_writer import dump
from tests.conftest import find_crds_dir
from tests.test_diff import git
from tests.test_input_layout import POOL


@pytest.fixture(autouse=True)
def _crds(monkeypatch):
    """explain and diff check Karpenter objects against the CRDs: the ones beside the checkout, never a download."""
    monkeypatch.setenv("KARPENTER_GPU_CRDS", str(find_crds_dir()))


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_git_revision_with_a_non_ascii_file_name_is_read(loader, tmp_path, capsys):
    repo = tmp_path / "repo"
    (repo / "dist" / "prod").mkdir(parents=True)
    git(repo, "init", "-q")
    target = repo / "dist" / "prod" / "NodePool.gpu-추론.k8s.yaml"  # git quotes this name without -z
    target.write_text(POOL)
    (repo / "dist" / "prod" / ".dot.yaml").write_text(POOL.replace("gpu-inference", "gpu-dot"))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "v1")
    pool = yaml.safe_load(POOL)
    pool["spec"]["template"]["spec"]["taints"].append({"key": "x", "value": "y", "effect": "NoExecute"})
    target.write_text(dump(pool))  # PyYAML's own dumper writes y unquoted: a boolean for kubectl
    git(repo, "commit", "-q", "-am", "v2")

    source = read("HEAD", repo)
    [env] = source.environments
    assert sorted(m.file for m in env.manifests) == ["prod/.dot.yaml", "prod/NodePool.gpu-추론.k8s.yaml"]
    assert source == read("HEAD", repo)
    # The node-replacing change is seen, and --fail-on drift fails the run.
    assert main(["diff", "HEAD~1", "HEAD", "--repo", str(repo), "--fail-on", "drift"]) == 1
    assert "replaces nodes (drift)" in capsys.readouterr().out
    # The same files as a folder read the same way as the revision.
    folder = read_path(repo / "dist")
    assert [(m.file, m.manifest) for m in folder.environments[0].manifests] == \
           [(m.file, m.manifest) for m in env.manifests]
