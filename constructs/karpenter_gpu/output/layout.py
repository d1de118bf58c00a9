"""What an output holds: ``<env>/<Kind>.<name>.k8s.yaml`` (cdk8s's file-per-resource layout) and the Helm values
under ``<env>/helm/``, and the test by which an output written before the marker existed is recognised."""

from __future__ import annotations

import os
import re
from pathlib import Path

from karpenter_gpu.output.files import raise_error
from karpenter_gpu.output.marker import MARKER

#: Helm values files go one level down, so `kubectl apply -f dist/<env>` (not recursive) skips them.
HELM_DIR = "helm"
#: How every manifest file's name ends (cdk8s's FILE_PER_RESOURCE layout).
FILE_EXTENSION = ".k8s.yaml"
#: An environment's folder name.
ENVIRONMENT = r"[A-Za-z0-9][A-Za-z0-9_.-]*"


def synth_layout(out: Path) -> bool:
    """Whether every entry is something synth writes: ``<env>/``, ``<env>/<Kind>.<name>.k8s.yaml``,
    ``<env>/helm/``, ``<env>/helm/*.yaml`` (and a marker being written) — at least one file."""
    files = 0
    for path, dirs, names in os.walk(out, onerror=raise_error):
        rel = Path(path).relative_to(out).parts
        for name in dirs + names:
            full = Path(path) / name
            if full.is_symlink():
                return False
            if full.is_dir():
                good = bool(not rel and re.fullmatch(ENVIRONMENT, name) and name.lower() != HELM_DIR) or \
                       (len(rel) == 1 and name == HELM_DIR)
            else:
                files += 1
                good = (not rel and name == f"{MARKER}.tmp") or \
                       bool(len(rel) == 1 and re.fullmatch(r"[^.]+\..+" + re.escape(FILE_EXTENSION), name)) or \
                       (len(rel) == 2 and rel[1] == HELM_DIR and name.endswith(".yaml"))
            if not good:
                return False
    return files > 0
