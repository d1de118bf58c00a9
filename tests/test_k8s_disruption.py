"""What disruption budgets block, per reason (GetAllowedDisruptionsByReason)."""

from __future__ import annotations

from karpenter_gpu.k8s.disruption import CONSOLIDATION_REASONS, always_blocked, budget_applies


def test_a_budget_without_reasons_applies_to_every_reason():
    assert all(budget_applies({"nodes": "1"}, r) for r in ("Empty", "Drifted", "Underutilized"))
    assert budget_applies({"nodes": "1", "reasons": ["Drifted"]}, "Drifted")
    assert not budget_applies({"nodes": "1", "reasons": ["Drifted"]}, "Empty")


def test_only_an_unscheduled_zero_budget_blocks_for_good():
    assert always_blocked([{"nodes": "0"}]) == {"Empty": 0, "Drifted": 0, "Underutilized": 0}
    assert always_blocked([{"nodes": "1"}, {"nodes": "0%", "reasons": ["Underutilized"]}]) == {"Underutilized": 1}
    assert always_blocked([{"nodes": "0", "schedule": "0 9 * * *", "duration": "8h"}]) == {}
    assert always_blocked([{"nodes": "10%"}, {"nodes": "1"}]) == {}  # a percentage rounds up: never 0 nodes


def test_the_first_blocking_budget_is_named():
    budgets = [{"nodes": "0", "reasons": ["Drifted"]}, {"nodes": "0"}]
    assert always_blocked(budgets) == {"Empty": 1, "Drifted": 0, "Underutilized": 1}


def test_consolidation_policies_and_their_reasons():
    assert CONSOLIDATION_REASONS["WhenEmpty"] == {"Empty"}
    assert CONSOLIDATION_REASONS["WhenEmptyOrUnderutilized"] == {"Empty", "Underutilized"}
