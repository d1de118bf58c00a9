"""Behaviours that change the scheduler's answer between the Karpenter lines, each encoded once behind the target line
(karpenter_gpu.upstream.BEHAVIOUR_SINCE, read through ControllerSettings.has) and checked on Karpenter v1.9.3's own
answers (tests/oracle/vectors/v1.9/behaviours.jsonl, rebuilt by ``python -m tests.oracle.line_behaviours``)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from karpenter_gpu.analysis.simulator import simulate_pools
from karpenter_gpu.k8s.controller_settings import ControllerSettings
from karpenter_gpu.upstream import BEHAVIOUR_SINCE, DEFAULT_LINE, KARPENTER_LINES, line_has
from tests.oracle import compare
from tests.oracle import lines as oracle_lines
from tests.oracle.line_behaviours import FAMILY, lacking, switched_on

VECTORS = Path(__file__).parent / "oracle" / "vectors"


def _vectors(line: str) -> list[dict]:
    return [json.loads(text) for text in (VECTORS / f"v{line}" / "behaviours.jsonl").read_text().splitlines() if text]


def test_each_behaviour_names_a_release_between_the_lines():
    versions = sorted(tuple(int(p) for p in line.version.split(".")) for line in KARPENTER_LINES.values())
    for name, since in BEHAVIOUR_SINCE.items():
        assert versions[0] < tuple(int(p) for p in since.split(".")) <= versions[-1], name
        assert line_has(DEFAULT_LINE, name) and not line_has("1.9", name)


@pytest.mark.parametrize("behaviour", lacking("1.9"))
def test_the_v1_9_line_is_answered_without_the_behaviour(behaviour):
    """Karpenter v1.9.3's answer is the core's as v1.9, and not the core's once the behaviour is switched on."""
    vectors = [v for v in _vectors("1.9") if v["behaviour"] == behaviour]
    assert vectors, f"no v1.9 vector tells {behaviour} apart"
    oracle_lines.use("1.9")
    try:
        for vector in vectors:
            assert not compare.differences(FAMILY, vector["case"], vector["answer"]), vector["id"]
            with switched_on(behaviour):
                assert compare.differences(FAMILY, vector["case"], vector["answer"]), vector["id"]
    finally:
        oracle_lines.use("1.14")


def _pool(limits: dict) -> list[dict]:
    return [{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "gpu"},
             "spec": {"limits": limits, "template": {"spec": {
                 "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                 "requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In",
                                   "values": ["g6.xlarge"]}]}}}}]


def test_limits_nodes_bounds_a_dynamic_pool_from_v1_11_only():
    """kubernetes-sigs/karpenter#2526: nothing left of limits.nodes stops a dynamic pool on v1.14, not on v1.9,
    where the worst case is bounded by the GPU limit alone."""
    manifests = _pool({"nodes": "0"})
    new, old = (simulate_pools(manifests, settings=replace(ControllerSettings(), line=line))[0]
                for line in ("1.14", "1.9"))
    assert not new.launchable and new.worst_case_hourly == 0
    assert old.launchable
    bounded = _pool({"nodes": "2", "nvidia.com/gpu": "4"})
    new, old = (simulate_pools(bounded, settings=replace(ControllerSettings(), line=line))[0]
                for line in ("1.14", "1.9"))
    assert new.worst_case_hourly * 2 == old.worst_case_hourly
