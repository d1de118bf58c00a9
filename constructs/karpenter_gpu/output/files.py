"""Files and folders as the output folder library sees them: which real folder is at a path (``lstat``, never
through a symbolic link), a new file written whole, a small file read, a walk that stops at its first fault."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TypeAlias

from karpenter_gpu._fs import printable

#: A real folder: (st_dev, st_ino).
Identity: TypeAlias = tuple[int, int]


def here(path: Path) -> os.stat_result | None:
    """``lstat`` of ``path`` (a link is not followed), None when nothing is there."""
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


def folder_id(found: os.stat_result | None) -> Identity | None:
    """Which real folder ``found`` is, None when it is no folder (absent, a link, a file)."""
    return (found.st_dev, found.st_ino) if found is not None and stat.S_ISDIR(found.st_mode) else None


def what_is(path: Path, found: os.stat_result | None) -> str:
    """What is at ``path`` now, ``found`` by :func:`here`, said for a refusal (``now a symbolic link to …``)."""
    if found is None:
        return "it was removed"
    if stat.S_ISLNK(found.st_mode):
        try:
            return f"now a symbolic link to {printable(os.readlink(path))}"
        except OSError:
            return "now a symbolic link"
    return "now another folder" if stat.S_ISDIR(found.st_mode) else "now a file"


def write_file(path: Path, text: str) -> None:
    """A new file with ``text`` (mode 0666 & ~umask); an ``OSError`` (disk full, ...) leaves it partial,
    inside a folder of ours that the caller removes."""
    data = text.encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def read_small(path: Path) -> str | None:
    """The text of the regular file ``path`` (not a link, at most 1 MiB, UTF-8), else None."""
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > 1 << 20:
            return None
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def raise_error(ex: OSError) -> None:
    """``os.walk``'s ``onerror``: a folder that cannot be read stops the walk (never silently skipped)."""
    raise ex
