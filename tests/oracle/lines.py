"""The Karpenter line an oracle pass checks: its Go module, the CRDs both sides read, the families it runs.

The v1.14 line is the parent module (tests/oracle/go.mod, every family). The v1.9 line is tests/oracle/v1_9/ (its own
go.mod pinning the v1.9 modules, the parent's sources by symbolic link): the families whose API exists there and whose
Go code builds against it. While a pass runs, :func:`current` is its line: the apiserver family's core answer reads
that line's packaged CRDs (:func:`karpenter_gpu.apiserver.crds.line_crds`) and the schema generator draws from them
(:func:`crd_file`), as the Go side reads them from ``ORACLE_CRDS``.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from karpenter_gpu.apiserver.crd_source import PACKAGED_DIR
from karpenter_gpu.apiserver.crds import line_crds
from karpenter_gpu.upstream import DEFAULT_LINE, KARPENTER_LINES, KarpenterLine

HERE = Path(__file__).resolve().parent

#: Per line: the Go module folder, the families it runs (None: every family), and the Go toolchain it needs.
MODULES: dict[str, tuple[Path, tuple[str, ...] | None, str | None]] = {
    "1.14": (HERE, None, None),
    "1.9": (HERE / "v1_9", ("apiserver", "requirements", "drift", "scheduler", "overlay", "tolerations", "cron",
                                 "budgets"), "go1.27.3"),  # provider v1.9.3 asks for Go 1.26.10
}

#: Fresh cases per family of an older line's pass when --count is not given (the whole v1.9 pass stays near 3
#: minutes beside the v1.14 one; the scheduler family at 4,000 or more).
FRESH_COUNT: dict[str, dict[str, int]] = {
    "1.9": {"apiserver": 10000, "requirements": 17000, "drift": 6000, "scheduler": 5000, "overlay": 3000,
            "tolerations": 17000, "cron": 5000, "budgets": 3000},
}

_CURRENT = [DEFAULT_LINE]


def use(line: str) -> None:
    """Make ``line`` the current pass's line."""
    _CURRENT[0] = KARPENTER_LINES[line].line


def current() -> KarpenterLine:
    return KARPENTER_LINES[_CURRENT[0]]


def label(line: str | None = None) -> str:
    """``Karpenter v1.9.3`` for a line (the current one by default), as the run prints it in each line."""
    return f"Karpenter v{KARPENTER_LINES[line or _CURRENT[0]].version}"


def crd_file(name: str) -> Path:
    """A packaged CRD file of the current line (its sub-folder's, else the folder's)."""
    sub = current().crd_subdir
    if sub and (PACKAGED_DIR / sub / name).exists():
        return PACKAGED_DIR / sub / name
    return PACKAGED_DIR / name


def crds() -> dict:
    """The current line's packaged CRDs, as the core reads them."""
    return line_crds(current())


def crd_folder(line: str) -> Path:
    """A folder holding exactly the line's CRD files (links), for the Go side's ``ORACLE_CRDS``."""
    sub = KARPENTER_LINES[line].crd_subdir
    if not sub:
        return PACKAGED_DIR
    folder = Path(tempfile.mkdtemp(prefix=f"oracle-crds-{line}-"))
    own = {p.name for p in (PACKAGED_DIR / sub).glob("*.yaml")}
    for path in PACKAGED_DIR.glob("*.yaml"):
        (folder / path.name).symlink_to(PACKAGED_DIR / sub / path.name if path.name in own else path)
    return folder


def go_env(line: str) -> dict[str, str]:
    """The environment of the Go build and program of a line."""
    toolchain = MODULES[line][2]
    env = dict(os.environ, ORACLE_CRDS=str(crd_folder(line)))
    if toolchain:
        env["GOTOOLCHAIN"] = toolchain
    return env


def families(line: str, wanted: list[str]) -> list[str]:
    """The families of ``wanted`` a line's module runs."""
    runs = MODULES[line][1]
    return [f for f in wanted if runs is None or f in runs]


__all__ = ["FRESH_COUNT", "MODULES", "crd_file", "crd_folder", "crds", "current", "families", "go_env", "label", "use"]
