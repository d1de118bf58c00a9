"""The coded refusals raised at more than one step of a replacement: an output replaced while synth ran (KG803),
a staging folder replaced (KG810), entries its marker does not list (KG805)."""

from __future__ import annotations

from pathlib import Path

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.output.marker import MARKER


def replaced(out: Path, what: str) -> KarpenterGpuError:
    """KG803: ``out`` is no longer the real folder checked when the run started (``what`` it is now)."""
    return KarpenterGpuError(
        "KG803", prop="outdir", value=str(out),
        allowed=f"the real folder synth checked when it started; it was replaced while synth ran ({what}); it and "
                "what it points to were left as they are, nothing was installed",
        fix="put the output folder back (or remove what replaced it), then run again; do not replace the output "
            "folder while synth runs")


def swapped_staging(staging: Path) -> KarpenterGpuError:
    """KG810: the staging folder is no longer the one this run made."""
    return KarpenterGpuError(
        "KG810", prop="path", value=str(staging),
        allowed="the staging folder this run made; it was replaced (by a symbolic link or another folder) while "
                "synth ran, and was left untouched; nothing was installed",
        fix="look at what is there now and remove it yourself if it is yours to remove; do not rename or link "
            "folders beside the output while synth runs")


def added(out: Path, unlisted: list[str], how: str) -> KarpenterGpuError:
    """KG805: ``out`` holds ``unlisted`` entries its marker does not list (``how`` they came)."""
    return KarpenterGpuError(
        "KG805", prop="outdir", value=str(out),
        allowed=f"a previous synth output holding only what its {MARKER} lists; {names(sorted(unlisted))} "
                f"not listed there ({how})",
        fix="move those files out of the output folder (or remove them yourself), or choose another folder")


def names(entries: list[str], most: int = 3) -> str:
    """The first ``most`` entries and how many more: ``a, b, c and 2 more``."""
    shown = ", ".join(entries[:most])
    return shown + (f" and {len(entries) - most} more" if len(entries) > most else "")
