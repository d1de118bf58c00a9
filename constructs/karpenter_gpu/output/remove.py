"""Folders of ours: made with their proof, proven ours, removed through folder descriptors.

A staging folder (``.<name>.staging-<pid>-<token>``) or an old output (``.<name>.old-<pid>-<token>``) is removed
only when it proves to be ours: it holds the proof file :data:`~karpenter_gpu.output.marker.PROOF` naming the
folder (written first), or the marker with nothing unlisted beside it (an old output), or nothing at all. Removal
takes the proof or the marker last, so a removal cut short stays provable, and makes our own read-only folders
writable first. It never follows a symbolic link: folders are opened with ``O_NOFOLLOW`` relative to their
parent's descriptor and entries removed by name relative to it (a link is removed itself, never what it points
to); a folder that turned out to be a link (or another folder than the run's) is left untouched (KG810). The
previous output is removed against its marker (:func:`discard_old`): what it does not list is kept in
``.<name>.kept-<pid>-<token>``, a name synth never removes.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.output.files import Identity, folder_id, read_small, write_file
from karpenter_gpu.output.marker import MARKER, PROOF, PROOF_FORMAT, marker_at, unlisted

#: Folders are opened as descriptors, never through a symbolic link (removal works by name relative to them).
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_PARENT_FLAGS = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)


def own_dir(parent: Path, prefix: str) -> Path:
    """A new folder ``<prefix>-<pid>-<token>`` whose first content is the proof naming it."""
    return make_own(parent / f"{prefix}-{os.getpid()}-{secrets.token_hex(4)}")


def make_own(folder: Path) -> Path:
    """The new folder ``folder`` (mode 0777 & ~umask, like any folder the user makes) with its proof."""
    folder.mkdir()
    try:
        write_file(folder / PROOF, f"{PROOF_FORMAT} {folder.name}\n")
    except BaseException:
        with contextlib.suppress(OSError):
            remove_own(folder)
        raise
    return folder


def proven(folder: Path) -> bool:
    """Whether ``folder`` (named as ours) is ours to remove: its proof, or a marker listing all it holds."""
    if folder.is_symlink() or not folder.is_dir():
        return False
    entries = os.listdir(folder)
    if not entries:
        return True
    if PROOF in entries:
        expected = f"{PROOF_FORMAT} {folder.name}\n"
        text = read_small(folder / PROOF)
        if text == expected:
            return True
        if entries == [PROOF] and text is not None and expected.startswith(text):
            return True  # killed while writing the proof, before anything else
    return unlisted(folder) == []


def remove_own(folder: Path, identity: Identity | None = None) -> bool:
    """Remove a folder of ours: everything but the proof and the marker, then those, then the folder.

    Cut short, the folder stays provable. Read-only folders inside it (ours) are made writable first;
    the folder's parent (the user's) is never changed. No symbolic link is ever followed: every folder
    is opened with ``O_NOFOLLOW`` relative to its parent's descriptor and every entry removed by name
    relative to that descriptor, so a link inside is removed itself, never what it points to. When
    ``folder`` is a symbolic link or a file (or, given ``identity``, another folder than the one this
    run made) it is left as it is and False returned.
    """
    parent = os.open(folder.parent, _PARENT_FLAGS)
    try:
        try:
            fd = _open_dir(folder.name, parent)
        except OSError as ex:
            if ex.errno in (errno.ELOOP, errno.ENOTDIR):
                return False
            raise
        try:
            if identity is not None and folder_id(os.fstat(fd)) != identity:
                return False
            _make_writable(fd)
            last = (PROOF, MARKER)
            for name in sorted(os.listdir(fd)):
                if name not in last:
                    _remove_entry(fd, name)
            for name in last:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(name, dir_fd=fd)
        finally:
            os.close(fd)
        os.rmdir(folder.name, dir_fd=parent)
        return True
    finally:
        os.close(parent)


def _remove_entry(dir_fd: int, name: str) -> None:
    """Remove ``name`` (a file, a link, or a folder with all it holds) from the open folder ``dir_fd``."""
    if not stat.S_ISDIR(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode):
        os.unlink(name, dir_fd=dir_fd)  # a symbolic link: the link itself
        return
    try:
        fd = _open_dir(name, dir_fd)
    except OSError as ex:
        if ex.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
        os.unlink(name, dir_fd=dir_fd)  # turned into a link or a file since: the link itself
        return
    try:
        _make_writable(fd)
        for entry in os.listdir(fd):
            _remove_entry(fd, entry)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=dir_fd)


def discard_old(old: Path, out: Path, before: Identity) -> tuple[Path, list[str]] | None:
    """Remove the previous output, which the exchange moved to ``old``, but every entry its marker does not list.

    Each entry is checked, recursively, against the old output's marker: a listed file is removed, a listed
    folder entered; anything else (a file or folder added to the output while synth ran, a symbolic link, an
    entry that changed its type) is kept where it is. The marker goes too. When something was kept, the folder
    is renamed ``.<name>.kept-<pid>-<token>`` (a name synth never removes) and that path is returned with the
    kept entries (relative to it); otherwise the folder is removed and None returned. Nothing is followed
    through a symbolic link (see :func:`remove_own`); when ``old`` is no longer the folder that was the output
    (``before``), nothing is removed (KG810).
    """
    parent = os.open(old.parent, _PARENT_FLAGS)
    try:
        try:
            fd = _open_dir(old.name, parent)
        except OSError as ex:
            if ex.errno not in (errno.ELOOP, errno.ENOTDIR):
                raise
            raise _swapped(old, out) from None
        kept: list[str] = []
        try:
            if folder_id(os.fstat(fd)) != before:
                raise _swapped(old, out)
            listed = marker_at(fd) or set()
            _make_writable(fd)
            _discard(fd, "", listed, kept)
            for name in (MARKER, f"{MARKER}.tmp"):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(name, dir_fd=fd)
            if not kept:
                try:
                    os.rmdir(old.name, dir_fd=parent)
                    return None
                except OSError as ex:
                    if ex.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                        raise
                    kept = sorted(os.listdir(fd))  # added while the old output was being removed
        finally:
            os.close(fd)
    finally:
        os.close(parent)
    keep = old.with_name(f".{out.name}.kept-{os.getpid()}-{secrets.token_hex(4)}")
    os.rename(old, keep)
    return keep, kept


def _discard(fd: int, prefix: str, listed: set[str], kept: list[str]) -> None:
    for name in sorted(os.listdir(fd)):
        entry = prefix + name
        if not prefix and name in (MARKER, f"{MARKER}.tmp"):
            continue
        mode = os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode
        if stat.S_ISREG(mode) and entry in listed:
            os.unlink(name, dir_fd=fd)
        elif stat.S_ISDIR(mode) and f"{entry}/" in listed:
            try:
                sub = _open_dir(name, fd)
            except OSError as ex:
                if ex.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
                kept.append(entry)  # turned into a link or a file since
                continue
            count = len(kept)
            try:
                _make_writable(sub)
                _discard(sub, f"{entry}/", listed, kept)
            finally:
                os.close(sub)
            if len(kept) > count:
                continue  # holds what was kept
            try:
                os.rmdir(name, dir_fd=fd)
            except OSError as ex:
                if ex.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                    raise
                kept.append(entry)  # something was added to it meanwhile
        else:
            kept.append(entry)


def _swapped(old: Path, out: Path) -> KarpenterGpuError:
    return KarpenterGpuError(
        "KG810", prop="path", value=str(old),
        allowed=f"the previous output, which synth moved there; it was replaced (by a symbolic link or another "
                f"folder) before synth removed it, and was left untouched; the new output is installed in {out}",
        fix="look at what is there now and remove it yourself if it is yours to remove; do not rename or link "
            "folders beside the output while synth runs")


def _open_dir(name: str, dir_fd: int) -> int:
    """The folder ``name`` in the open folder ``dir_fd``, opened without following a symbolic link (ELOOP for a
    link, ENOTDIR for a file). A folder of ours this user may not read (mode 0o000) is made readable first, through
    a descriptor of that very folder, never through its name."""
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    except PermissionError:
        if not hasattr(os, "O_PATH") or not os.path.isdir("/proc/self/fd"):
            raise
    pinned = os.open(name, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    try:
        os.chmod(f"/proc/self/fd/{pinned}", stat.S_IMODE(os.fstat(pinned).st_mode) | 0o700)
        return os.open(f"/proc/self/fd/{pinned}", _DIR_FLAGS & ~os.O_NOFOLLOW)  # the same folder, not a name
    finally:
        os.close(pinned)


def _make_writable(fd: int) -> None:
    mode = os.fstat(fd).st_mode
    if mode & 0o700 != 0o700:
        os.fchmod(fd, stat.S_IMODE(mode) | 0o700)
