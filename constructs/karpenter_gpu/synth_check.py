"""``karpenter-gpu synth --check``: is a committed output what a fresh synth writes?

:func:`check_output` synthesizes the same items with :func:`karpenter_gpu.pipeline.synth` into a temporary
folder of its own (validated as always) and compares it with the committed output, which it only reads: never a
file written, renamed or removed there, no lock taken on it. A committed entry is read only when it is a regular
file (a symlink is never followed: it is reported as differing, or as extra) and only when its size equals the
fresh file's, so a committed ``*.yaml`` symlink to ``/dev/zero`` or a FIFO costs nothing.

The marker (:data:`karpenter_gpu.output.MARKER`) lists what synth wrote, so it changes whenever a file is added
or removed: it is named only when it is missing, or when it is the only difference (e.g. a hand-edited marker or
one written by an older synth), not once more beside the files that explain it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from karpenter_gpu._fs import os_error, printable
from karpenter_gpu.check.validate import Report
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.output import MARKER
from karpenter_gpu.pipeline import synth

#: How a committed entry stands against the fresh output.
DIFFERS, MISSING, EXTRA = "differs", "missing", "extra"


@dataclass(frozen=True)
class Difference:
    """One entry of the committed output that a fresh synth would change: ``kind`` is :data:`DIFFERS` (both have
    it, other bytes or not a regular file), :data:`MISSING` (synth writes it, the committed output lacks it) or
    :data:`EXTRA` (the committed output holds it, synth does not write it). ``path``: relative, ``/``-separated,
    folders ending in ``/``."""

    kind: str
    path: str

    def line(self, outdir: str) -> str:
        """``differs: dist/dev/NodePool.x.k8s.yaml``: one line, control characters escaped."""
        return f"{self.kind}: {printable(os.path.join(outdir, self.path))}"


def check_output(items: Iterable[Any], outdir: str | Path, *, crds: str | Path | None = None,
                 strict: bool = False) -> tuple[Report, list[Difference]]:
    """Synthesize ``items`` into a temporary folder and compare it with the committed ``outdir``.

    Returns the fresh synth's validation report and the differences, sorted by path (empty: ``outdir`` is
    exactly what synth writes). ``outdir`` is only read. Raises :class:`KarpenterGpuError`: KG816 when ``outdir``
    is not a real folder (absent, a file, a symlink), and whatever :func:`karpenter_gpu.pipeline.synth` raises
    for a bad prop, validation errors (``SynthFailed``) or a file-system fault.
    """
    committed = Path(outdir)
    if committed.is_symlink() or not committed.is_dir():
        what = "a symlink" if committed.is_symlink() else "a file" if committed.exists() else "absent"
        raise KarpenterGpuError(
            "KG816", prop="outdir", value=str(outdir),
            allowed=f"the committed output folder to check (a real folder); this path is {what}",
            fix="name the folder synth writes with --out, or run synth without --check and commit its output")
    items = list(items)
    scratch = Path(tempfile.mkdtemp(prefix="karpenter-gpu-check-"))
    try:
        fresh = scratch / (committed.resolve().name or "out")
        report = synth(items, fresh, crds=crds, strict=strict)
        try:
            return report, compare(committed, fresh)
        except OSError as ex:
            raise os_error(ex, f"reading {printable(str(outdir))} to compare it with a fresh synth") from ex
    finally:
        with contextlib.suppress(OSError):
            _remove_scratch(scratch)


def compare(committed: Path, fresh: Path) -> list[Difference]:
    """Every entry in which ``committed`` differs from ``fresh`` (see :func:`check_output`); reads ``committed``
    without following a symlink and only the bytes it must."""
    have, want = _entries(committed), _entries(fresh)
    found: list[Difference] = []
    for path in sorted(set(have) | set(want)):
        if path == MARKER:
            continue
        mine, theirs = have.get(path), want.get(path)
        if mine is None:
            if not _under_reported(path, found, MISSING):
                found.append(Difference(MISSING, path))
        elif theirs is None:
            if not _under_reported(path, found, EXTRA):
                found.append(Difference(EXTRA, path))
        elif mine != theirs or (stat.S_ISREG(mine[0]) and not _same_bytes(committed / path, fresh / path,
                                                                         theirs[1])):
            found.append(Difference(DIFFERS, path))
    if MARKER not in have:
        found.append(Difference(MISSING, MARKER))
    elif not stat.S_ISREG(have[MARKER][0]) or (not found and (
            have[MARKER] != want.get(MARKER) or not _same_bytes(committed / MARKER, fresh / MARKER, want[MARKER][1]))):
        found.append(Difference(DIFFERS, MARKER))
    return sorted(found, key=lambda d: d.path)


def _under_reported(path: str, found: list[Difference], kind: str) -> bool:
    """Whether a folder above ``path`` is already reported as ``kind`` (an extra folder is one line, not one per
    file in it)."""
    return any(d.kind == kind and d.path.endswith("/") and path.startswith(d.path) for d in found)


def _entries(root: Path) -> dict[str, tuple[int, int]]:
    """``relative path -> (file type bits, size)`` of every entry under ``root``, folders as ``dev/`` (size 0);
    symlinks are entries, never followed."""
    out: dict[str, tuple[int, int]] = {}

    def walk(folder: Path, prefix: str) -> None:
        with os.scandir(folder) as it:
            for entry in it:
                info = entry.stat(follow_symlinks=False)
                kind = stat.S_IFMT(info.st_mode)
                if stat.S_ISDIR(info.st_mode):
                    out[f"{prefix}{entry.name}/"] = (kind, 0)
                    walk(Path(entry.path), f"{prefix}{entry.name}/")
                else:
                    out[f"{prefix}{entry.name}"] = (kind, info.st_size if stat.S_ISREG(info.st_mode) else 0)

    walk(root, "")
    return out


def _same_bytes(mine: Path, theirs: Path, size: int) -> bool:
    """Whether the regular file ``mine`` holds exactly the bytes of ``theirs`` (``size`` bytes): opened without
    following a symlink nor blocking on a FIFO swapped in meanwhile, read at most ``size + 1`` bytes."""
    fd = os.open(mine, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        chunks: list[bytes] = []
        left = size + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks) == theirs.read_bytes()


def _remove_scratch(scratch: Path) -> None:
    """Remove the temporary folder this module made (never a user's folder; rmtree follows no symlink)."""
    shutil.rmtree(scratch)
