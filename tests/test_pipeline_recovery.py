"""karpenter_gpu.synth replacing an output: what killed runs left beside it is removed only when proven
ours, and both ways of installing the new output (an atomic exchange, or two renames) leave it complete."""

from __future__ import annotations

import shutil


import stacks
from karpenter_gpu import synth
from karpenter_gpu.output import install
from karpenter_gpu.output.marker import PROOF
from tests.conftest import tree
from tests.pipeline_support import leftovers, own


def test_stale_staging_folders_of_killed_runs_are_removed(synthesized, tmp_path, trees):
    out = tmp_path / "dist"
    shutil.copytree(synthesized["a"], out)  # an output of dev written by synth
    own(tmp_path / ".dist.staging-1-0000dead")
    shutil.copytree(out, tmp_path / ".dist.old-2-0000beef")  # an old output: its marker proves it
    (tmp_path / ".dist.staging-3-0000cafe").mkdir()  # killed before its proof was written
    (tmp_path / ".dist.staging-4-0000f00d").mkdir()
    (tmp_path / ".dist.staging-4-0000f00d" / PROOF).write_text("karpenter-gpu-sta")  # ... while writing it
    (tmp_path / ".other.staging-1-0000dead").mkdir()  # another output's: not ours to remove
    synth(stacks.ENVIRONMENTS, out)
    assert leftovers(out) == [] and (tmp_path / ".other.staging-1-0000dead").is_dir()
    assert tree(out) == trees["b"]


def test_folders_named_like_ours_without_proof_survive(synthesized, tmp_path, trees):
    """Never a glob: a user's `.dist.backup-…/`, and a folder named like a staging folder but not proven ours."""
    out = tmp_path / "dist"
    shutil.copytree(synthesized["a"], out)  # an output of dev written by synth
    backup = tmp_path / ".dist.backup-2024-01-01"
    shutil.copytree(out, backup)
    (backup / "notes.txt").write_text("mine")
    unproven = tmp_path / ".dist.staging-1-0000dead"
    (unproven / "dev").mkdir(parents=True)
    (unproven / "dev" / "mine.yaml").write_text("kind: Mine\n")
    wrong = own(tmp_path / ".dist.old-2-0000beef")
    (wrong / PROOF).write_text("karpenter-gpu-staging 1 .dist.old-9-00000000\n")  # a copy of another's
    marked = tmp_path / ".dist.old-3-0000cafe"
    shutil.copytree(out, marked)
    (marked / "dev" / "added.txt").write_text("mine")  # a marker, and something it does not list
    before = {p.name: tree(p) for p in (backup, unproven, wrong, marked)}
    synth(stacks.ENVIRONMENTS, out)
    assert {p.name: tree(p) for p in (backup, unproven, wrong, marked)} == before
    assert tree(out) == trees["b"]


def test_fallback_without_exchange_installs_the_new_output(synthesized, tmp_path, trees, monkeypatch):
    out = tmp_path / "dist"
    shutil.copytree(synthesized["a"], out)  # an output of dev written by synth
    monkeypatch.setattr(install, "exchange", lambda a, b: False)
    synth(stacks.ENVIRONMENTS, out)
    assert tree(out) == trees["b"] and leftovers(out) == []
