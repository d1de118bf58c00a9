"""karpenter_gpu.synth when someone else changes the output while it builds: a file written into it is kept and
reported (KG805), an output replaced by a symbolic link is refused (KG803) with the link and every file it points
to left as they are, and removal never follows a symbolic link (its own tests: tests/test_output.py).

Each race is staged at an exact moment by wrapping the function that runs then (validation: during the build;
the exchange: after the last check; the removal of the old output: after the exchange), and once more from outside
a child process running the command line while its build is held."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import stacks
from karpenter_gpu import KarpenterGpuError, synth
from karpenter_gpu import pipeline
from karpenter_gpu.output import PROOF, install, remove
from tests.conftest import tree
from tests.pipeline_support import leftovers, someone_elses, spawn


def _output_and_theirs(tmp_path: Path, synthesized: dict) -> tuple[Path, Path, dict[str, bytes]]:
    """An output of dev written by synth (``dist``), and a folder of someone else's files beside it with its
    contents (what must survive)."""
    out = tmp_path / "dist"
    shutil.copytree(synthesized["a"], out)
    other = tmp_path / "other"
    other.mkdir()
    return out, other, someone_elses(other)


def _linked_away(out: Path, other: Path) -> Path:
    """``out`` moved aside and replaced by a symbolic link to ``other``; where the real folder went."""
    moved = out.with_name("moved")
    out.rename(moved)
    out.symlink_to(other, target_is_directory=True)
    return moved


def _during_validation(monkeypatch, action, after: bool = False) -> None:
    """``action(staging)`` runs while synth builds: after rendering, before (``after``: after) validation, before
    the marker and the install."""
    real = pipeline.validate_dir

    def validate_dir(staging, crd_dir):
        if not after:
            action(staging)
        report = real(staging, crd_dir)
        if after:
            action(staging)
        return report

    monkeypatch.setattr(pipeline, "validate_dir", validate_dir)


def _before_exchange(monkeypatch, action, exchange: bool) -> None:
    """``action()`` runs after the last check, right before the first exchange (or, ``exchange`` False, the two
    renames of the fallback)."""
    real = install.exchange
    calls: list[int] = []

    def racing(a, b):
        if not calls:
            action()
        calls.append(1)
        return real(a, b) if exchange else False

    monkeypatch.setattr(install, "exchange", racing)


# --- (a) a file written into the output while synth builds ---------------------------------------------------


def test_a_file_added_during_the_build_is_refused_and_kept_in_place(synthesized, tmp_path, trees, monkeypatch):
    out = tmp_path / "dist"
    shutil.copytree(synthesized["a"], out)  # an output of dev written by synth
    _during_validation(monkeypatch, lambda staging: (out / "dev" / "new.txt").write_text("mine"))
    with pytest.raises(KarpenterGpuError, match=r"dev/new.txt not listed there \(added while synth ran: refused, "
                                                r"not deleted; nothing was installed\)") as raised:
        synth(stacks.ENVIRONMENTS, out)
    assert raised.value.code == "KG805"
    assert tree(out) == {**trees["a"], "dev/new.txt": b"mine"} and leftovers(out) == []


@pytest.mark.parametrize("exchange", [True, False], ids=["exchange", "two-renames"])
def test_what_is_added_after_the_last_check_is_kept_beside_the_new_output(synthesized, tmp_path, trees, monkeypatch,
                                                                          exchange):
    """Added between the last check and the exchange: the new output is installed, the old one removed entry by
    entry against its marker, and what it does not list stays in ``.dist.kept-*`` (KG805 names it)."""
    out, other, theirs = _output_and_theirs(tmp_path, synthesized)
    listed = "dev/NodePool.gpu-inference.k8s.yaml"

    def add() -> None:
        (out / "dev" / "new.txt").write_text("mine")
        (out / "mine" / "deep").mkdir(parents=True)
        (out / "mine" / "deep" / "a.txt").write_text("a")
        (out / "dev" / "link").symlink_to(other, target_is_directory=True)  # a link to a folder full of files
        (out / listed).unlink()
        (out / listed).symlink_to(other / "notes.txt")  # a listed name, now a link: not synth's file any more

    _before_exchange(monkeypatch, add, exchange)
    with pytest.raises(KarpenterGpuError, match=r"dev/NodePool.gpu-inference.k8s.yaml, dev/link, dev/new.txt and 1 "
                                                r"more not listed there \(added while synth ran\): kept, not deleted, "
                                                r"in .*\.dist\.kept-\d+-[0-9a-f]{8}; the new output is installed"
                       ) as raised:
        synth(stacks.ENVIRONMENTS, out)
    assert raised.value.code == "KG805"
    assert tree(out) == trees["b"]  # installed
    [kept] = leftovers(out)
    assert kept.startswith(".dist.kept-") and str(tmp_path / kept) in str(raised.value)
    assert sorted(str(p.relative_to(tmp_path / kept)) for p in (tmp_path / kept).rglob("*")) == [
        "dev", "dev/NodePool.gpu-inference.k8s.yaml", "dev/link", "dev/new.txt", "mine", "mine/deep",
        "mine/deep/a.txt"]  # the old output's own files are gone, its marker too
    assert (tmp_path / kept / "dev" / "new.txt").read_text() == "mine"
    assert os.readlink(tmp_path / kept / listed) == str(other / "notes.txt")
    assert tree(other) == theirs
    synth(stacks.ENVIRONMENTS, out)  # the next run replaces the output and leaves the kept folder alone
    assert leftovers(out) == [kept]


# --- (b) the output replaced by a symbolic link while synth builds ----------------------------------------------


def test_an_output_replaced_by_a_symlink_during_the_build_is_refused_and_nothing_is_touched(synthesized, tmp_path,
                                                                                           trees, monkeypatch):
    out, other, theirs = _output_and_theirs(tmp_path, synthesized)
    moved: list[Path] = []
    _during_validation(monkeypatch, lambda staging: moved.append(_linked_away(out, other)))
    with pytest.raises(KarpenterGpuError, match=r"replaced while synth ran \(now a symbolic link to .*other\)"
                       ) as raised:
        synth(stacks.ENVIRONMENTS, out)
    assert raised.value.code == "KG803" and "KG919" not in str(raised.value) and "KG933" not in str(raised.value)
    assert out.is_symlink() and os.readlink(out) == str(other)
    assert tree(other) == theirs and tree(moved[0]) == trees["a"] and leftovers(out) == []


@pytest.mark.parametrize("exchange", [True, False], ids=["exchange", "two-renames"])
def test_an_output_replaced_by_a_symlink_after_the_last_check_is_put_back(synthesized, tmp_path, trees, monkeypatch,
                                                                          exchange):
    """Replaced between the last check and the exchange: what the exchange (or the first rename) moved out is not
    the folder checked, so the move is undone, the run refused, and nothing removed through the link."""
    out, other, theirs = _output_and_theirs(tmp_path, synthesized)
    moved: list[Path] = []
    _before_exchange(monkeypatch, lambda: moved.append(_linked_away(out, other)), exchange)
    with pytest.raises(KarpenterGpuError, match=r"now a symbolic link to .*nothing was installed") as raised:
        synth(stacks.ENVIRONMENTS, out)
    assert raised.value.code == "KG803"
    assert out.is_symlink() and os.readlink(out) == str(other)
    assert tree(other) == theirs and tree(moved[0]) == trees["a"] and leftovers(out) == []


def test_an_output_that_appears_during_the_build_is_not_replaced(tmp_path, monkeypatch):
    out = tmp_path / "dist"
    other = tmp_path / "other"
    other.mkdir()
    theirs = someone_elses(other)
    _during_validation(monkeypatch, lambda staging: out.symlink_to(other, target_is_directory=True))
    with pytest.raises(KarpenterGpuError, match=r"it appeared while synth ran") as raised:
        synth(stacks.ENVIRONMENTS, out)
    assert raised.value.code == "KG803" and os.readlink(out) == str(other) and tree(other) == theirs
    assert leftovers(out) == []


def test_a_staging_folder_replaced_by_a_symlink_is_left_alone(synthesized, tmp_path, trees, monkeypatch):
    out, other, theirs = _output_and_theirs(tmp_path, synthesized)
    staged: list[Path] = []

    def steal(staging: Path) -> None:
        staging.rename(tmp_path / "stolen")
        staging.symlink_to(other, target_is_directory=True)
        staged.append(staging)

    _during_validation(monkeypatch, steal, after=True)
    with pytest.raises(KarpenterGpuError, match=r"staging folder this run made; it was replaced") as raised:
        synth(stacks.ENVIRONMENTS, out)
    assert raised.value.code == "KG810" and raised.value.value == str(staged[0])
    assert tree(out) == trees["a"] and tree(other) == theirs and os.readlink(staged[0]) == str(other)
    assert PROOF in os.listdir(tmp_path / "stolen")  # the folder it made: no marker written into it


def test_an_old_output_replaced_by_a_symlink_after_the_exchange_is_left_alone(synthesized, tmp_path, trees,
                                                                              monkeypatch):
    out, other, theirs = _output_and_theirs(tmp_path, synthesized)
    real = remove.discard_old

    def racing(old: Path, out_: Path, before):
        old.rename(tmp_path / "moved")
        old.symlink_to(other, target_is_directory=True)
        return real(old, out_, before)

    monkeypatch.setattr(remove, "discard_old", racing)
    with pytest.raises(KarpenterGpuError, match=r"previous output, which synth moved there; it was replaced") as raised:
        synth(stacks.ENVIRONMENTS, out)
    assert raised.value.code == "KG810" and tree(out) == trees["b"]
    assert tree(other) == theirs and tree(tmp_path / "moved") == trees["a"]


# --- the same races from outside, against the command line --------------------------------------------------


def _held_cli_synth(out: Path):
    """``karpenter-gpu synth`` of every environment into ``out`` in a child process, held after rendering until
    a line is written to its stdin."""
    return spawn(f"""
        import sys
        from karpenter_gpu import pipeline
        from karpenter_gpu.cli.main import main
        real = pipeline.validate_dir

        def held(staging, crd_dir):
            print("building", flush=True)
            sys.stdin.readline()
            return real(staging, crd_dir)

        pipeline.validate_dir = held
        sys.exit(main(["synth", "--app", "stacks:ENVIRONMENTS", "--out", {str(out)!r}]))
    """)


@pytest.mark.parametrize("race", ["file-added", "symlinked"])
def test_the_command_line_keeps_every_file_through_either_race(race, synthesized, tmp_path, trees):
    out, other, theirs = _output_and_theirs(tmp_path, synthesized)
    child = _held_cli_synth(out)
    assert child.stdout.readline().strip() == "building", child.stderr.read()
    moved = None
    if race == "file-added":
        (out / "dev" / "new.txt").write_text("mine")
    else:
        moved = _linked_away(out, other)
    _, stderr = child.communicate("go\n", timeout=300)
    assert child.returncode == 2, stderr
    assert "Traceback" not in stderr and "KG919" not in stderr and "KG933" not in stderr
    assert tree(other) == theirs
    if race == "file-added":
        assert "[KG805]" in stderr and "dev/new.txt" in stderr
        assert tree(out) == {**trees["a"], "dev/new.txt": b"mine"}
    else:
        assert "[KG803]" in stderr and out.is_symlink() and moved is not None and tree(moved) == trees["a"]
    assert leftovers(out) == []


def test_an_output_removed_during_the_build_is_written_anew(synthesized, tmp_path, trees, monkeypatch):
    out = tmp_path / "dist"
    shutil.copytree(synthesized["a"], out)  # an output of dev written by synth
    _during_validation(monkeypatch, lambda staging: out.rename(tmp_path / "moved"))
    synth(stacks.ENVIRONMENTS, out)
    assert tree(out) == trees["b"] and tree(tmp_path / "moved") == trees["a"] and leftovers(out) == []
