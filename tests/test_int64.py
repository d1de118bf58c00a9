"""Counts of thousands of digits in a manifest are out of range, as Go reads them, never an internal error.

Python's int() refuses a decimal text of more than 4,300 digits; found by the odd-numbers fuzz (test_cli), as a
KG919 from a disruption budget's ``nodes``. karpenter_gpu.k8s.int64 is the one place that converts such a text.
"""

from __future__ import annotations

import pytest

from karpenter_gpu.apiserver._cel_lib import CelFunctionError, to_int
from karpenter_gpu.k8s import cron
from karpenter_gpu.k8s.disruption import always_blocked, budget_nodes_as_read
from karpenter_gpu.k8s.int64 import MAX, MIN, ascii_digits, int64_of
from karpenter_gpu.k8s.mig import mig_table
from karpenter_gpu.k8s.scheduling import atoi, untolerated

HUGE = "9" * 5000


@pytest.mark.parametrize("text, value", [
    ("0", 0), ("007", 7), (str(MAX), MAX), (str(MIN), MIN), ("+5", 5), ("0" * 5000 + "5", 5),
    (str(MAX + 1), None), (str(MIN - 1), None), ("1" + "0" * 19, None), (HUGE, None), ("-" + HUGE, None),
])
def test_int64_of_reads_what_go_reads_and_never_converts_thousands_of_digits(text, value):
    assert int64_of(text) == value


def test_ascii_digits_refuses_digits_int_refuses():
    assert ascii_digits("0123") and not ascii_digits("²") and not ascii_digits("") and not ascii_digits("-1")


def test_a_budget_of_thousands_of_digits_is_read_as_zero():
    assert budget_nodes_as_read(HUGE) == 0  # beyond int64: Karpenter's intstr parse fails closed
    assert budget_nodes_as_read("0" * 5000 + "3") == 3  # strconv.Atoi reads leading zeros
    assert always_blocked([{"nodes": HUGE}]) == {"Empty": 0, "Drifted": 0, "Underutilized": 0}


def test_a_cron_field_of_thousands_of_digits_is_an_error_message():
    assert cron.field_error(HUGE, 0) is not None
    assert cron.field_error(f"*/{HUGE}", 0) is not None
    assert cron.field_error("*/15", 0) is None


def test_taint_values_and_label_values_of_thousands_of_digits_compare_as_no_number():
    assert atoi(HUGE) is None
    taint = {"key": "k", "value": HUGE, "effect": "NoSchedule"}
    assert untolerated([taint], [{"key": "k", "operator": "Gt", "value": "1", "effect": "NoSchedule"}]) == [taint]


def test_cel_int_of_thousands_of_digits_is_an_overflow_error():
    with pytest.raises(CelFunctionError, match="int64 overflow"):
        to_int(HUGE)
    assert to_int(str(MAX)) == MAX


def test_a_gpu_memory_label_that_is_no_ascii_number_is_no_mig_gpu():
    table = mig_table()
    assert table.gpu_for({"karpenter.k8s.aws/instance-gpu-name": "a100", "karpenter.k8s.aws/instance-gpu-memory": "²"}) is None
    assert table.gpu_for({"karpenter.k8s.aws/instance-gpu-name": "a100", "karpenter.k8s.aws/instance-gpu-memory": HUGE}) is None
