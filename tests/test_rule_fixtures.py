"""Every rule of the registry against its fixtures: ``tests/fixtures/rules/<CODE>/bad.yaml`` gives exactly the
findings listed in ``bad.expected`` (every finding, of any code, as ``Kind/name path: severity CODE``) and
``good.yaml`` none of that code. ``<side>.values.yaml``, when present, is the environment's GPU Operator values,
``<side>.karpenter.values.yaml`` the Karpenter controller's (its settings then apply). The fixtures are written
for a controller with every feature gate their objects need on (NodeOverlays, static pools): they run under
:data:`ON` (the chart's defaults turn nodeOverlay and staticCapacity off)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from karpenter_gpu.apiserver.findings import Finding
from karpenter_gpu.check.rules import GPU_OPERATOR_VALUES, RULES, check_rules
from karpenter_gpu.k8s.controller_settings import ControllerSettings, read_settings
from karpenter_gpu.k8s.yaml_loader import Loader
from karpenter_gpu.upstream import KARPENTER_VALUES_FILE, FeatureGate
from tests.conftest import load

FIXTURES = Path(__file__).parent / "fixtures" / "rules"
ON = ControllerSettings(gates=frozenset(FeatureGate))


def findings_of(code: str, side: str) -> list[Finding]:
    folder = FIXTURES / code
    docs = [d for d in yaml.load_all((folder / f"{side}.yaml").read_text(), Loader=Loader) if d is not None]
    values_file = folder / f"{side}.values.yaml"
    values = {GPU_OPERATOR_VALUES: load(values_file.read_text())} if values_file.exists() else None
    settings = ON
    karpenter_file = folder / f"{side}.karpenter.values.yaml"
    if karpenter_file.exists():  # the controller's values: its settings replace ON
        values = {**(values or {}), KARPENTER_VALUES_FILE: load(karpenter_file.read_text())}
        settings = read_settings(values[KARPENTER_VALUES_FILE], str(karpenter_file))
    return check_rules([(f"{side}.yaml", d) for d in docs], environment=code, values=values, settings=settings)


def expected_lines(findings: list[Finding]) -> list[str]:
    return sorted(f"{f.kind}/{f.name} {f.path}: {f.severity} {f.code}" for f in findings)


def test_every_rule_has_fixtures_and_every_fixture_a_rule():
    assert sorted(p.name for p in FIXTURES.iterdir() if p.is_dir()) == sorted(RULES)
    for code in RULES:
        assert {"bad.yaml", "good.yaml", "bad.expected"} <= {p.name for p in (FIXTURES / code).iterdir()}, code


@pytest.mark.parametrize("code", sorted(RULES))
def test_bad_fixture_gives_exactly_the_expected_findings(code):
    found = findings_of(code, "bad")
    assert any(f.code == code for f in found), f"{code}: bad.yaml does not trigger it"
    expected = [line for line in (FIXTURES / code / "bad.expected").read_text().splitlines() if line]
    assert expected_lines(found) == expected
    assert all("fix:" in f.message for f in found if f.code == code)


@pytest.mark.parametrize("code", sorted(RULES))
def test_good_fixture_is_not_reported(code):
    assert [f.line() for f in findings_of(code, "good") if f.code == code] == []
