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

from tests.support.crd_schema import load_crds  # noqa: E402

#: Karpenter v1.14.1 CRDs; tests read them from shared/, the project does not copy them in.
CRDS_DIR = Path(os.environ.get("KARPENTER_GPU_CRDS", ROOT.parent / "shared" / "upstream" / "crds"))


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
    return load_crds(CRDS_DIR)
