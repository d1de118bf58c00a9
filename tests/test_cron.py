"""Budget schedules parsed as Karpenter's robfig/cron ParseStandard does (karpenter_gpu.k8s.cron)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from karpenter_gpu.k8s.cron import Cron, field_error

JAN_4 = datetime(2027, 1, 4, tzinfo=UTC)  # a Monday


def starts(schedule: str, days: int = 7) -> list[str]:
    return [f"{t:%a %d %H:%M}" for t in Cron.parse(schedule).starts(JAN_4, JAN_4 + timedelta(days=days))]


def test_weekdays_range_and_names_agree():
    assert starts("0 9 * * 1-5") == starts("0 9 * * MON-FRI") == [
        "Mon 04 09:00", "Tue 05 09:00", "Wed 06 09:00", "Thu 07 09:00", "Fri 08 09:00"]


def test_day_of_month_and_month_restrict_the_days():
    assert starts("0 9 1 * *", days=60) == ["Mon 01 09:00", "Mon 01 09:00"]  # 2027-02-01 and 2027-03-01
    assert starts("0 9 1 * *") == []  # not every day: the week of January 4 holds no 1st
    assert starts("@monthly", days=40) == ["Mon 01 00:00"]
    assert starts("0 9 * 2 *", days=30) == ["Mon 01 09:00", "Tue 02 09:00"]  # February only (to February 3)


def test_both_day_fields_restricted_match_either_one_starred_both():
    assert starts("0 0 5 * SAT") == ["Tue 05 00:00", "Sat 09 00:00"]
    assert starts("0 0 5 * *") == ["Tue 05 00:00"]
    assert starts("0 0 */1 * SAT") == ["Sat 09 00:00"]  # '*/1' keeps the star bit
    assert starts("0 0 */2 * SAT") == ["Tue 05 00:00", "Thu 07 00:00", "Sat 09 00:00"]  # a step clears it: OR


def test_a_single_value_with_a_step_runs_to_the_maximum():
    assert Cron.parse("50/5 0 * * *").minutes == frozenset({50, 55})


@pytest.mark.parametrize("schedule, reason", [
    ("0 9 * * 7", "day of week 7 is outside 0-6"),
    ("60 9 * * *", "minute 60 is outside 0-59"),
    ("0 9 ? * *", None),
    ("0 ? * * *", None),  # robfig/cron v3 getRange: '?' is '*' in any field (the oracle's cron family)
    ("0 9 * * 1,,5", None),  # strings.FieldsFunc skips the empty list item
    ("0 9 * * *-3", None),  # what follows '*-' is not read
    ("0 9 * * +5", None),  # strconv.Atoi takes a sign
    ("0 9 * * 1-2-3", "too many hyphens"),
    ("0 9 * * */1/2", "too many slashes"),
    ("0 9 * * */-1", "is negative"),
    ("@DAILY", "not a descriptor"),
    ("@every 1h", "not a descriptor"),
    ("0\u00a09 * * * *", "has 6 fields"),  # Go's white space includes U+00A0
    ("0 9 * * *\x1f", "is not a number"),  # ... but not U+001F, which Python's str.split takes
    ("0 9 * * FRI-MON", "day of week range 'FRI-MON' runs backwards"),
    ("0 9 * *", "has 4 fields"),
])
def test_what_does_not_parse_says_why(schedule, reason):
    if reason is None:
        assert Cron.parse(schedule).days_star
        return
    with pytest.raises(ValueError, match=reason):
        Cron.parse(schedule)


def test_field_error_is_what_budget_validation_uses():
    assert field_error("0-6", 4) is None and field_error("7", 4) == "day of week 7 is outside 0-6"
