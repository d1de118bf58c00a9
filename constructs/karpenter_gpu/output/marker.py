"""The marker and the proof: the two files by which synth knows a folder for its own.

The marker :data:`MARKER`, at the top of every output, lists every folder (``dev/``) and file synth wrote; the
output is replaced only while it holds nothing else. The proof :data:`PROOF`, written first into every staging
folder, names that folder: it proves the folder is this program's to remove.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from karpenter_gpu.output.files import raise_error, read_small, write_file

#: Written at the top of every output: a format line, then every folder (``dev/``) and file synth wrote.
#: Not ``*.yaml``: the manifest reader and kubectl never read it.
MARKER = ".karpenter-gpu-output"
#: Written first into every staging folder: proves the folder is this program's to remove.
PROOF = ".karpenter-gpu-staging"
_MARKER_FORMAT = "karpenter-gpu-output 1"
PROOF_FORMAT = "karpenter-gpu-staging 1"
_MARKER_NOTE = ("# Written by karpenter-gpu synth with the files below; it replaces this folder only while the\n"
                "# folder holds nothing else. Do not add files here: synth refuses to replace them.\n")


def listing(folder: Path) -> list[str]:
    """Every folder (``dev/``) and file under ``folder``, but the marker and the proof at its top."""
    entries: list[str] = []
    for path, dirs, files in os.walk(folder, onerror=raise_error):
        rel = Path(path).relative_to(folder)
        entries += [(rel / name).as_posix() + "/" for name in dirs]
        entries += [(rel / name).as_posix() for name in files if rel.parts or name not in (MARKER, PROOF)]
    return sorted(entries)


def write_marker(folder: Path) -> None:
    """The marker, written whole or not at all (a temporary file renamed over it)."""
    text = f"{_MARKER_FORMAT}\n{_MARKER_NOTE}" + "".join(f"{entry}\n" for entry in listing(folder))
    temporary = folder / f"{MARKER}.tmp"
    write_file(temporary, text)
    os.replace(temporary, folder / MARKER)


def marker_entries(folder: Path) -> set[str] | None:
    """What the marker of ``folder`` lists, or None when it has no (readable, well-formed) marker."""
    return _parse_marker(read_small(folder / MARKER))


def _parse_marker(text: str | None) -> set[str] | None:
    if text is None or text.split("\n", 1)[0] != _MARKER_FORMAT:
        return None
    return {line for line in text.splitlines()[1:] if line and not line.startswith("#")}


def marker_at(fd: int) -> set[str] | None:
    """What the marker in the open folder ``fd`` lists (never through a symbolic link), or None."""
    try:
        marker = os.open(MARKER, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fd)
    except OSError:
        return None
    try:
        info = os.fstat(marker)
        if not stat.S_ISREG(info.st_mode) or info.st_size > 1 << 20:
            return None
        with open(marker, "rb", closefd=False) as file:
            return _parse_marker(file.read(1 << 20).decode("utf-8"))
    except (OSError, UnicodeDecodeError):
        return None
    finally:
        os.close(marker)


def unlisted(folder: Path) -> list[str] | None:
    """Entries of ``folder`` its marker does not list (symlinks never are ours); None without a marker."""
    listed = marker_entries(folder)
    if listed is None:
        return None
    found = []
    for path, dirs, files in os.walk(folder, onerror=raise_error):
        rel = Path(path).relative_to(folder)
        for name in sorted(dirs + files):
            entry = (rel / name).as_posix()
            full = Path(path) / name
            if not rel.parts and name in (MARKER, f"{MARKER}.tmp"):
                continue
            if full.is_symlink() or (entry + "/" if full.is_dir() else entry) not in listed:
                found.append(entry)
        dirs[:] = [d for d in dirs if (rel / d).as_posix() not in found]  # report a foreign folder once
    return found
