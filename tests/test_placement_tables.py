"""The golden placement table of each environment (``tests/placement/<env>.md``): which node agent runs on which GPU
pool and hybrid group of dist/, from its Helm values and the pinned charts' defaults (``data/charts.json``). A chart
bump, a values change or a new pool shows as a reviewable diff; ``pytest --snapshot-update`` rewrites the tables."""

from __future__ import annotations

from pathlib import Path

import pytest

from karpenter_gpu.check.rules._model import RuleEnvironment
from karpenter_gpu.check.rules.operands import placement_table
from karpenter_gpu.k8s.controller_settings import environment_settings
from karpenter_gpu.k8s.input_layout import read_path

ROOT = Path(__file__).resolve().parents[1]
DIST = ROOT / "dist"
TABLES = Path(__file__).parent / "placement"
ENVIRONMENTS = sorted(p.name for p in DIST.iterdir() if p.is_dir())


def table(env: str) -> str:
    (source,) = read_path(DIST / env).environments
    rules_env = RuleEnvironment([(m.file, m.manifest) for m in source.manifests], source.name, source.values,
                                environment_settings(source.values, f"dist/{env}/helm"))
    return (f"# Placement: {env}\n\nWhere each node agent runs on the GPU pools and hybrid groups of dist/{env}, from "
            "its Helm values and the pinned charts (`tests/test_placement_tables.py`; `runs`, `off`: disabled in "
            "the values, `no (n)`: note n says why, `-`: no values file).\n\n" + placement_table(rules_env))


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_golden_placement_table(env, request):
    path = TABLES / f"{env}.md"
    text = table(env)
    if request.config.getoption("--snapshot-update", default=False):
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text


def test_every_table_is_an_environment():
    assert sorted(p.stem for p in TABLES.glob("*.md")) == ENVIRONMENTS


def test_dist_operands_land_on_every_nvidia_pool():
    prod = table("prod")
    assert "| NodePool search-inference | runs |" in prod
    assert "| EKS Auto Mode NodePool auto-inference | no (1) |" in table("fleet")
