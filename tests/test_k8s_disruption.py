"""What disruption budgets block, per reason (GetAllowedDisruptionsByReason)."""

from __future__ import annotations

from karpenter_gpu.k8s.disruption import CONSOLIDATION_REASONS, always_blocked, budget_applies, budget_nodes_as_read


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


def test_budget_counts_beyond_int32_are_read_as_karpenter_reads_them():
    """pkg/apis/v1/nodepool.go GetIntStrFromValue: strconv.Atoi (int64), then intstr.FromInt keeps the low 32 bits;
    beyond int64 the digits stay a string, which GetScaledValueFromIntOrPercent refuses (fail closed: 0)."""
    assert budget_nodes_as_read("2147483647") == 2147483647
    assert budget_nodes_as_read("2147483648") == -2147483648
    assert budget_nodes_as_read("4294967296") == 0 and budget_nodes_as_read("4294967301") == 5
    assert budget_nodes_as_read("9223372036854775807") == -1
    assert budget_nodes_as_read("9223372036854775808") == 0
    assert always_blocked([{"nodes": "4294967296"}]) == {"Empty": 0, "Drifted": 0, "Underutilized": 0}
    assert always_blocked([{"nodes": "4294967301"}]) == {}
