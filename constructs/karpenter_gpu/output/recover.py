"""Recovery after a crash: what killed runs left beside the output (or inside it) is finished or removed."""

from __future__ import annotations

import re
from pathlib import Path

from karpenter_gpu.output.install import IN_PLACE, roll_forward
from karpenter_gpu.output.marker import marker_entries
from karpenter_gpu.output.remove import proven, remove_own


def recover(out: Path) -> None:
    """Under the lock: restore an output lost between the fallback's two renames, complete a replacement
    of a mount point's contents cut short, and remove the folders of killed runs that prove to be ours."""
    pattern = re.compile(rf"\.{re.escape(out.name)}\.(staging|old)-\d+-[0-9a-f]{{8}}")
    leftovers = sorted(p for p in out.parent.iterdir() if pattern.fullmatch(p.name) and proven(p))
    olds = [p for p in leftovers if p.name.startswith(f".{out.name}.old-")]
    if not out.exists() and olds:
        olds[-1].rename(out)
    for path in leftovers:
        if path.exists():
            remove_own(path)
    if out.is_dir() and not out.is_symlink():
        inside = sorted(p for p in out.iterdir() if IN_PLACE.fullmatch(p.name) and proven(p))
        for new in (p for p in inside if p.name.startswith(".karpenter-gpu-new-")):
            if marker_entries(new) is not None:
                roll_forward(out, new)  # complete: finish installing it
        for path in inside:
            if path.exists():
                remove_own(path)
