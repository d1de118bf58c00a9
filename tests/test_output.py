"""The safe output folder library (karpenter_gpu.output) on its own: which loaded source an output holds,
removal through folder descriptors (never following a symbolic link), recovery after a crash between the fallback's
two renames, and the atomic exchange. What it guarantees through a whole synth is tested in tests/test_pipeline*.py.
"""

from __future__ import annotations

import os
import shutil
import sys
import types
from pathlib import Path

import pytest

from karpenter_gpu.output import install, remove, target
from karpenter_gpu.output.recover import recover
from tests.conftest import tree
from tests.pipeline_support import leftovers, own, someone_elses

# --- target: the Python source this program runs is never an output ---------------------------------------------


def test_source_in_the_output_is_found_through_symbolic_links(tmp_path, monkeypatch):
    """A module counts as in the output when its real path is: reached through a linked folder, or a linked file
    (each folder is resolved once, a linked file on its own)."""
    out = tmp_path / "out"
    (out / "pkg").mkdir(parents=True)
    (out / "pkg" / "inside.py").write_text("")
    (tmp_path / "via").symlink_to(out / "pkg")  # a folder link into the output
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "linked.py").symlink_to(out / "pkg" / "inside.py")  # a file link into it
    (tmp_path / "elsewhere" / "plain.py").write_text("")
    (out / "pkg" / "outward.py").symlink_to(tmp_path / "elsewhere" / "plain.py")  # a link in it, pointing out

    def only(name: str, file: Path) -> str | None:
        for key in [k for k in sys.modules if k.startswith("kg_probe_")]:
            monkeypatch.delitem(sys.modules, key)
        module = types.ModuleType(name)
        module.__file__ = str(file)
        monkeypatch.setitem(sys.modules, name, module)
        found = target.source_in(out)
        return found if found and name in found else None

    assert only("kg_probe_a", tmp_path / "via" / "inside.py") == f"module kg_probe_a, {tmp_path / 'via' / 'inside.py'}"
    assert only("kg_probe_b", tmp_path / "elsewhere" / "linked.py") is not None
    assert only("kg_probe_c", tmp_path / "elsewhere" / "plain.py") is None
    assert only("kg_probe_d", out / "pkg" / "outward.py") is None  # its real path is outside the output
    assert only("kg_probe_e", out / "pkg" / "inside.py") is not None


# --- remove: never through a symbolic link -----------------------------------------------------------------------


def test_removing_a_folder_of_ours_never_follows_a_symlink(tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    theirs = someone_elses(other)
    folder = own(tmp_path / ".dist.staging-1-0000dead")
    (folder / "dev" / "link").symlink_to(other, target_is_directory=True)
    (folder / "file-link").symlink_to(other / "notes.txt")
    assert remove.remove_own(folder) and not folder.exists() and not folder.is_symlink()
    assert tree(other) == theirs
    link = tmp_path / ".dist.staging-2-0000beef"
    link.symlink_to(other, target_is_directory=True)  # the folder itself a link: left as it is
    assert not remove.remove_own(link) and os.readlink(link) == str(other) and tree(other) == theirs
    again = own(tmp_path / ".dist.staging-3-0000cafe")
    assert not remove.remove_own(again, (0, 0))  # another folder than the one the run made: left
    assert again.is_dir()


def test_an_unreadable_folder_of_ours_is_opened_as_itself_and_removed(tmp_path, monkeypatch):
    """A folder of ours this user may not read (mode 0o000) is made readable through a descriptor of it; root
    reads anyway, so the refusal any other user gets is raised here by a fault."""
    folder = own(tmp_path / ".dist.staging-1-0000dead")
    locked = folder / "dev" / "locked"
    locked.mkdir()
    (locked / "file").write_text("x")
    locked.chmod(0)
    real = os.open

    def refusing(path, flags, *args, dir_fd=None, **kwargs):
        if path == "locked" and not flags & os.O_PATH and not os.stat(path, dir_fd=dir_fd).st_mode & 0o400:
            raise PermissionError(13, "Permission denied", path)
        return real(path, flags, *args, dir_fd=dir_fd, **kwargs)

    monkeypatch.setattr(os, "open", refusing)
    assert remove.remove_own(folder) and not folder.exists()


# --- recover and install: a crash between the two renames, the exchange -------------------------------------------


def test_an_output_lost_between_the_fallback_renames_is_restored(synthesized, tmp_path, trees):
    out = tmp_path / "dist"
    shutil.copytree(synthesized["a"], out)  # an output of dev written by synth
    out.rename(tmp_path / ".dist.old-1-0000dead")  # killed after the first of the two renames
    own(tmp_path / ".dist.staging-1-0000beef")
    recover(out)
    assert tree(out) == trees["a"] and leftovers(out) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="renameat2 is Linux's")
def test_exchange_swaps_two_folders_in_one_step(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "from-a").write_text("")
    (tmp_path / "b").mkdir()
    assert install.exchange(tmp_path / "a", tmp_path / "b")
    assert [p.name for p in (tmp_path / "b").iterdir()] == ["from-a"] and not any((tmp_path / "a").iterdir())
