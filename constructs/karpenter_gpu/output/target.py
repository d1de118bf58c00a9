"""Which output folders synth may replace: refused before anything is built.

The output folder is replaced only when it is absent, empty, or carries the marker and holds nothing the marker
does not list. A file or a symbolic link, the current folder or one of its parents (KG803), a folder of someone
else's files (KG804), a marked output to which a file was added (KG805, naming it: it is refused, not deleted),
a repository root (``.git``) or a folder of the Python source the app runs from (KG806) are refused. An output
written before the marker existed is adopted once (the marker is written into it) when every entry is something
synth writes (:func:`karpenter_gpu.output.layout.synth_layout`).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.output.layout import synth_layout
from karpenter_gpu.output.marker import MARKER, unlisted, write_marker
from karpenter_gpu.output.refusals import added, names


def check_path(out: Path, outdir: str) -> None:
    """Refuse (KG803) an output path ``out`` (absolute; ``outdir`` as given) that is a file or a symbolic link,
    the current folder or one of its parents."""
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise KarpenterGpuError(
            "KG803", prop="outdir", value=str(out), allowed="a real folder, or a path that does not exist yet",
            fix="remove the file or symlink, or choose another output folder")
    if out == out.parent or Path.cwd().resolve().is_relative_to(out.resolve()):
        # The output is replaced whole: never the folder we run in or one of its parents.
        raise KarpenterGpuError(
            "KG803", prop="outdir", value=str(outdir), allowed="a folder of its own (it is replaced whole), "
            "not the current folder or one of its parents", fix="write to a sub-folder, e.g. --out dist")


def check_target(out: Path) -> None:
    """Refuse an output folder that is not ours to replace (KG804-KG806); adopt a pre-marker output."""
    if not out.exists():
        return
    entries = sorted(os.listdir(out))
    if not entries:
        return
    if ".git" in entries:
        raise KarpenterGpuError(
            "KG806", prop="outdir", value=str(out), allowed="a folder of its own, not a repository root (it holds .git)",
            fix="write to a sub-folder, e.g. --out dist; choose an empty or new folder, or remove it yourself")
    source = source_in(out)
    if source:
        raise KarpenterGpuError(
            "KG806", prop="outdir", value=str(out),
            allowed=f"a folder of its own, not one holding the Python source this program runs ({source})",
            fix="write to a sub-folder of its own, e.g. --out dist; choose an empty or new folder")
    found = unlisted(out)
    if found is None:
        if synth_layout(out):
            write_marker(out)  # an output written before the marker: adopted once
            return
        raise KarpenterGpuError(
            "KG804", prop="outdir", value=str(out),
            allowed=f"an absent or empty folder, or a previous synth output (with {MARKER}); this one holds "
                    f"{names(entries)} and no marker",
            fix="choose an empty or new folder, or remove it yourself")
    if found:
        raise added(out, found, "added since: refused, not deleted")


def source_in(out: Path) -> str | None:
    """The first loaded module whose file lies in ``out`` (``--out stacks``, ``--out constructs``), its path
    resolved as ``os.path.realpath`` resolves it.

    Each folder is resolved once (a process has hundreds of modules in a few dozen folders, and ``realpath``
    reads every component of a path): a file's real path is its real folder and its name, unless the file is
    itself a symbolic link.
    """
    root = os.path.realpath(out) + os.sep
    folders: dict[str, str] = {}
    found: list[tuple[str, str]] = []
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if not isinstance(file, str):
            continue
        folder, base = os.path.split(file)
        real_folder = folders.get(folder)
        if real_folder is None:
            real_folder = folders[folder] = os.path.realpath(folder)
        real = os.path.realpath(file) if os.path.islink(file) else os.path.join(real_folder, base)
        if real.startswith(root):
            found.append((name, file))
    if not found:
        return None
    name, file = min(found)  # the first by name, whatever the import order
    return f"module {name}, {file}"
