"""Where the CustomResourceDefinitions for conformance checks come from.

An explicit folder (``--crds DIR``) wins, then ``$KARPENTER_GPU_CRDS``, then the copy shipped in the
package (``karpenter_gpu/data/crds/``): the Karpenter v1.14.1 CRDs and the prometheus-operator v0.93.0
ServiceMonitor and PrometheusRule CRDs, verbatim, with their pinned source URLs and sha256 in
``SOURCES.json`` beside them. Nothing is downloaded at run time. A folder the user names is not
hash-checked: it may hold other Karpenter versions on purpose.

The packaged copy is written by ``tools/regen_imports.py`` (``make imports``) from the pins, and
:func:`verify_packaged` is what its ``--check`` mode (run by the tests) uses.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from karpenter_gpu.upstream import KARPENTER_TAG

KARPENTER_VERSION = KARPENTER_TAG
ENV_VAR = "KARPENTER_GPU_CRDS"
#: The CRDs shipped in the wheel, and the record of where each came from.
PACKAGED_DIR = Path(__file__).resolve().parent.parent / "data" / "crds"
PROVENANCE_FILE = "SOURCES.json"


class CrdSourceError(RuntimeError):
    """The CRDs could not be found or read (empty folder, broken packaged copy)."""


def pinned_sources(directory: Path = PACKAGED_DIR) -> list[dict[str, Any]]:
    """The entries of ``SOURCES.json``: file, repository, tag, commit, path, url, sha256."""
    try:
        document = json.loads((directory / PROVENANCE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as ex:
        raise CrdSourceError(f"cannot read {directory / PROVENANCE_FILE}: {ex}; reinstall karpenter-gpu or "
                             f"pass --crds DIR / set {ENV_VAR}") from ex
    return list(document["sources"])


def pinned_crds(directory: Path = PACKAGED_DIR) -> dict[str, str]:
    """File name -> sha256 of the upstream file at its pinned tag."""
    return {entry["file"]: entry["sha256"] for entry in pinned_sources(directory)}


def verify_packaged(directory: Path = PACKAGED_DIR) -> list[str]:
    """Problems with the copy in ``directory`` (missing, altered or unrecorded files); empty when intact."""
    pins = pinned_crds(directory)
    problems = []
    for name, digest in sorted(pins.items()):
        actual = sha256_of(directory / name)
        if actual is None:
            problems.append(f"{name}: missing")
        elif actual != digest:
            problems.append(f"{name}: sha256 {actual}, recorded {digest}")
    extra = sorted(p.name for p in directory.glob("*.y*ml") if p.name not in pins)
    problems.extend(f"{name}: not in {PROVENANCE_FILE} (every CRD file here must have a pinned source)"
                    for name in extra)
    return problems


def resolve_crd_dir(explicit: str | Path | None = None) -> Path:
    """The folder to load CRDs from: ``explicit``, else ``$KARPENTER_GPU_CRDS``, else the packaged copy."""
    if explicit is not None and str(explicit) != "":
        return Path(explicit)
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR])
    return PACKAGED_DIR


def sha256_of(path: Path) -> str | None:
    import hashlib  # late: only the provenance check hashes (validate does not)

    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None
