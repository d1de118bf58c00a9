"""Shared fixtures: a chart to build into, synthesized manifests, the v1.14.1 CRDs."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_NODE = ROOT / "node_modules" / ".bin" / "node"
if _NODE.exists():  # jsii on the project's Node 22 LTS (no end-of-life banner)
    os.environ.setdefault("JSII_NODE", str(_NODE))

import cdk8s  # noqa: E402
import pytest  # noqa: E402

from karpenter_gpu.check.conformance import load_crds  # noqa: E402



def find_crds_dir() -> Path | None:
    """The Karpenter v1.14.1 CRDs: $KARPENTER_GPU_CRDS, else shared/upstream/crds beside the checkout.

    The project does not copy the CRDs in; they live in the shared folder next to the repository
    (../shared/upstream/crds), looked up from the nearest ancestor that has one.
    """
    if os.environ.get("KARPENTER_GPU_CRDS"):
        return Path(os.environ["KARPENTER_GPU_CRDS"])
    for parent in ROOT.parents:
        candidate = parent / "shared" / "upstream" / "crds"
        if candidate.is_dir():
            return candidate
    return None


@pytest.fixture
def chart() -> cdk8s.Chart:
    return cdk8s.Chart(cdk8s.Testing.app(), "test")


def manifests(chart: cdk8s.Chart) -> list[dict]:
    """What `cdk8s synth` writes for this chart, as dicts."""
    return cdk8s.Testing.synth(chart)


def only(chart: cdk8s.Chart, kind: str) -> dict:
    found = [m for m in manifests(chart) if m["kind"] == kind]
    assert len(found) == 1, f"expected one {kind}, got {len(found)}"
    return found[0]


@pytest.fixture(scope="session")
def crds() -> dict:
    directory = find_crds_dir()
    if directory is None or not (directory / "karpenter.sh_nodepools.yaml").is_file():
        pytest.fail(f"Karpenter v1.14.1 CRDs not found (looked for {directory or '../shared/upstream/crds'}): "
                    "set KARPENTER_GPU_CRDS to a folder holding the CRD YAML files")
    return load_crds(directory)
