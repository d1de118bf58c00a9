"""Disruption windows: local hours compiled to Karpenter's UTC-only budget schedules.

Every expected schedule below is worked out by hand in the comment above it.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, UTC
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from karpenter_gpu._props import build
from karpenter_gpu.pools.disruption_window import (
    REFERENCE_YEARS,
    Budget,
    DisruptionReason,
    DisruptionWindow,
    compile_budgets,
)
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.units import Duration


def window(**kw: Any) -> DisruptionWindow:
    return build(DisruptionWindow, None, **{"days": "MON-FRI", **kw})


def compiled(**kw: Any) -> Budget:
    (budget,) = window(**kw).budgets()
    return budget


def expect_error(code: str, model: type, shown: str, **kw: Any) -> KarpenterGpuError:
    with pytest.raises(KarpenterGpuError) as info:
        build(model, "np/gpu", **kw)
    assert info.value.code == code, str(info.value)
    assert shown in str(info.value), str(info.value)
    return info.value


# --- fixed-offset zones: exact conversion -----------------------------------------------


def test_the_trap_seoul_office_hours_start_at_midnight_utc() -> None:
    # KST = UTC+9: 09:00 KST = 00:00 UTC same day; 09:00-19:00 = 10h.
    # The trap '0 9 * * MON-FRI' would block 18:00-04:00 KST instead.
    b = compiled(start="09:00", end="19:00", time_zone="Asia/Seoul")
    assert b.render() == {"nodes": "0", "schedule": "0 0 * * MON-FRI", "duration": "10h"}
    assert b.note == ("at most 0 nodes disrupted Mon-Fri 09:00-19:00 Asia/Seoul (UTC+09:00); "
                      "compiled to UTC '0 0 * * MON-FRI' for 10h")


def test_seoul_start_before_09_moves_to_previous_utc_day() -> None:
    # 08:00 KST Monday = 23:00 UTC Sunday, so MON-FRI becomes SUN-THU.
    b = compiled(start="08:00", end="18:00", time_zone="Asia/Seoul")
    assert (b.schedule, str(b.duration)) == ("0 23 * * SUN-THU", "10h")


def test_window_crossing_local_midnight() -> None:
    # 22:00 KST = 13:00 UTC; 22:00 -> 06:00 next day = 8h.
    b = compiled(days="DAILY", start="22:00", end="06:00", time_zone="Asia/Seoul")
    assert (b.schedule, str(b.duration)) == ("0 13 * * *", "8h")
    assert "(ends next day)" in (b.note or "")


def test_utc_window_is_unchanged() -> None:
    b = compiled(start="09:00", end="17:30", time_zone="UTC")
    assert (b.schedule, str(b.duration)) == ("0 9 * * MON-FRI", "8h30m")


def test_half_hour_offset_produces_minutes() -> None:
    # IST = UTC+5:30: 09:00 IST = 03:30 UTC.
    b = compiled(start="09:00", end="18:00", time_zone="Asia/Kolkata")
    assert (b.schedule, str(b.duration)) == ("30 3 * * MON-FRI", "9h")


def test_quarter_hour_offset_crossing_to_previous_day() -> None:
    # NPT = UTC+5:45: 00:10 Friday = 18:25 UTC Thursday; FRI-SUN -> THU-SAT; 50m.
    b = compiled(days="fri-sun", start="00:10", end="01:00", time_zone="Asia/Kathmandu")
    assert (b.schedule, str(b.duration)) == ("25 18 * * THU-SAT", "50m")


def test_etc_gmt_sign_is_posix_inverted_and_shown_in_note() -> None:
    # Etc/GMT+5 is UTC-5: 09:00 local = 14:00 UTC. The note spells the real offset.
    b = compiled(days="MON", start="09:00", end="10:00", time_zone="Etc/GMT+5")
    assert b.schedule == "0 14 * * MON"
    assert "(UTC-05:00)" in (b.note or "")


# --- day lists -------------------------------------------------------------------------


def test_day_set_across_sunday_renders_without_wraparound() -> None:
    # cron counts SUN=0..SAT=6, so {SAT, SUN, MON, TUE} is 'SUN-TUE,SAT', never 'SAT-TUE'.
    b = compiled(days=("sat", "Sunday", "MON", "tue"), start="09:00", end="10:00", time_zone="UTC")
    assert b.schedule == "0 9 * * SUN-TUE,SAT"


def test_shifted_weekend_renders_two_runs() -> None:
    # 08:00 KST SAT/SUN = 23:00 UTC FRI/SAT.
    b = compiled(days="SAT-SUN", start="08:00", end="09:00", time_zone="Asia/Seoul")
    assert b.schedule == "0 23 * * FRI-SAT"
    b = compiled(days=("SUN", "MON"), start="08:00", end="09:00", time_zone="Asia/Seoul")
    assert b.schedule == "0 23 * * SUN,SAT"  # SAT (from SUN) and SUN (from MON)


def test_days_default_to_every_day_and_render_star() -> None:
    w = build(DisruptionWindow, None, start="01:00", end="02:00", time_zone="UTC")
    assert w.days == ("MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN")
    assert w.budgets()[0].schedule == "0 1 * * *"
    assert window(days="*", start="01:00", end="02:00", time_zone="UTC").budgets()[0].schedule == "0 1 * * *"


# --- DST zones: widening --------------------------------------------------------------


def test_new_york_is_widened_to_cover_est_and_edt() -> None:
    # EDT = UTC-4: 09:00 local = 13:00 UTC (the later of the two UTC starts would be 14:00
    # under EST, so 13:00 covers both). EST = UTC-5: 17:00 local = 22:00 UTC (the later end).
    # 13:00 -> 22:00 UTC = 9h: 8h of local hours + the 1h DST delta.
    b = compiled(start="09:00", end="17:00", time_zone="America/New_York")
    assert (b.schedule, str(b.duration)) == ("0 13 * * MON-FRI", "9h")
    assert "widened by 1h to cover both UTC-05:00 and UTC-04:00" in (b.note or "")


def test_berlin_is_widened_to_cover_cet_and_cest() -> None:
    # CEST = UTC+2: 09:00 local = 07:00 UTC. CET = UTC+1: 17:00 local = 16:00 UTC. 07 -> 16 = 9h.
    b = compiled(start="09:00", end="17:00", time_zone="Europe/Berlin")
    assert (b.schedule, str(b.duration)) == ("0 7 * * MON-FRI", "9h")


def test_dst_widening_can_shift_days() -> None:
    # PDT = UTC-7: 20:00 Monday local = 03:00 UTC Tuesday, so MON-FRI -> TUE-SAT; 2h + 1h.
    b = compiled(start="20:00", end="22:00", time_zone="America/Los_Angeles")
    assert (b.schedule, str(b.duration)) == ("0 3 * * TUE-SAT", "3h")


def test_half_hour_dst_delta() -> None:
    # Lord Howe: +10:30 / +11:00. 09:00 at +11 = 22:00 UTC the day before; 8h + 30m.
    b = compiled(start="09:00", end="17:00", time_zone="Australia/Lord_Howe")
    assert (b.schedule, str(b.duration)) == ("0 22 * * SUN-THU", "8h30m")


def test_dst_window_reaching_24h_is_rejected() -> None:
    # 09:00 -> 08:00 is 23h; + 1h DST delta = 24h: no time left for disruption.
    err = expect_error("KG152", DisruptionWindow, "09:00-08:00 America/New_York",
                       start="09:00", end="08:00", time_zone="America/New_York")
    assert "less than 23h" in err.fix
    # The same 23h window is fine in a fixed-offset zone.
    assert compiled(start="09:00", end="08:00", time_zone="Asia/Seoul").duration == Duration.hours(23)


@pytest.mark.parametrize(
    ("zone", "start", "end", "days"),
    [
        ("America/New_York", "09:00", "17:00", "MON-FRI"),
        ("America/New_York", "01:00", "04:00", "DAILY"),  # spans the 02:00 transitions
        ("Europe/Berlin", "22:00", "03:30", "SAT-SUN"),
        ("Australia/Sydney", "00:30", "02:30", "MON"),
        ("Australia/Lord_Howe", "09:00", "17:00", "MON-FRI"),
        ("America/Santiago", "23:00", "01:00", "DAILY"),
        ("Asia/Kolkata", "09:00", "18:00", "MON-FRI"),
    ],
)
def test_compiled_budget_covers_every_local_window_in_reference_years(
    zone: str, start: str, end: str, days: str
) -> None:
    """Brute force: each local window, converted with the real offsets, lies in a UTC occurrence."""
    w = window(days=days, start=start, end=end, time_zone=zone)
    b = w.budgets()[0]
    minute, hour, _, _, dow = b.schedule.split(" ")
    cron_names = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]
    cron_days = set(range(7)) if dow == "*" else set()
    for part in [] if dow == "*" else dow.split(","):
        lo, _, hi = part.partition("-")
        cron_days.update(range(cron_names.index(lo), cron_names.index(hi or lo) + 1))
    assert b.duration is not None
    length = timedelta(seconds=b.duration.total_seconds)

    tz, s, e = ZoneInfo(zone), time.fromisoformat(start), time.fromisoformat(end)
    day = date(REFERENCE_YEARS.start, 1, 1)
    while day.year < REFERENCE_YEARS.stop:
        if day.strftime("%a").upper() in w.days:
            local_start = datetime.combine(day, s, tz)
            local_end = datetime.combine(day + timedelta(days=e <= s), e, tz)
            u0, u1 = local_start.astimezone(UTC), local_end.astimezone(UTC)
            occurrences = [
                datetime.combine(u0.date() - timedelta(days=back), time(int(hour), int(minute)), UTC)
                for back in (0, 1)
            ]
            assert any(
                (o.isoweekday() % 7) in cron_days and o <= u0 and u1 <= o + length for o in occurrences
            ), f"{day} {start}-{end} {zone} not covered by {b.schedule!r} {b.duration}"
        day += timedelta(days=1)


# --- Budget ---------------------------------------------------------------------------


def test_budget_render_key_order_and_content() -> None:
    b = build(Budget, None, nodes="10%", reasons=("underutilized", DisruptionReason.EMPTY),
              schedule="0 0 * * MON-FRI", duration=Duration.hours(10), note="office hours")
    assert list(b.render()) == ["nodes", "schedule", "duration", "reasons"]
    assert b.render() == {"nodes": "10%", "schedule": "0 0 * * MON-FRI", "duration": "10h",
                          "reasons": ["Underutilized", "Empty"]}
    assert Budget.count(3).render() == {"nodes": "3"}
    assert Budget.percent(10, reasons=("Drifted",)).render() == {"nodes": "10%", "reasons": ["Drifted"]}
    assert compiled(start="00:00", end="01:30", time_zone="UTC", nodes=2,
                    reasons=["Drifted"]).render() == {
        "nodes": "2", "schedule": "0 0 * * MON-FRI", "duration": "1h30m", "reasons": ["Drifted"]}


def test_compile_budgets_puts_plain_budgets_first() -> None:
    plain = Budget.percent(10)
    w1 = window(start="09:00", end="19:00", time_zone="Asia/Seoul")
    w2 = window(start="09:00", end="17:00", time_zone="America/New_York", nodes="20%")
    out = compile_budgets([plain], [w1, w2])
    assert [b.render() for b in out] == [
        {"nodes": "10%"},
        {"nodes": "0", "schedule": "0 0 * * MON-FRI", "duration": "10h"},
        {"nodes": "20%", "schedule": "0 13 * * MON-FRI", "duration": "9h"},
    ]


# --- errors, by code ------------------------------------------------------------------

SEOUL = {"start": "09:00", "end": "17:00", "time_zone": "Asia/Seoul"}


def test_window_without_time_zone() -> None:
    err = expect_error("KG150", DisruptionWindow, "time_zone=None", start="09:00", end="17:00")
    assert "Asia/Seoul" in err.fix and "UTC" in err.fix


@pytest.mark.parametrize("zone", ["Mars/Olympus", "../../etc/localtime", "/usr/share/zoneinfo/UTC",
                                  "Asia/../Asia/Seoul", "Factory", ""])
def test_unknown_or_path_like_zone(zone: str) -> None:
    expect_error("KG151", DisruptionWindow, repr(zone), **{**SEOUL, "time_zone": zone})


@pytest.mark.parametrize(("zone", "meant"), [("EST", "America/New_York"), ("PST8PDT", "America/Los_Angeles"),
                                           ("CET", "Europe/Brussels"), ("HST", "Pacific/Honolulu")])
def test_legacy_zone_names_are_refused_naming_the_iana_zone(zone: str, meant: str) -> None:
    err = expect_error("KG156", DisruptionWindow, repr(zone), **{**SEOUL, "time_zone": zone})
    assert f"time_zone={meant!r}" in err.fix
    assert window(**{**SEOUL, "time_zone": meant}).budgets()  # the zone it names is accepted


def test_legacy_zone_names_are_all_in_tzdata_and_their_replacements_too() -> None:
    from karpenter_gpu.k8s.windows import LEGACY_ZONES, _zone_names

    assert set(LEGACY_ZONES) | set(LEGACY_ZONES.values()) <= _zone_names()


def test_fixed_offsets_stay_expressible_with_etc_names() -> None:
    assert window(**{**SEOUL, "time_zone": "Etc/GMT+5"}).budgets()


def test_zone_names_are_case_sensitive_with_a_hint() -> None:
    err = expect_error("KG151", DisruptionWindow, "'asia/seoul'", **{**SEOUL, "time_zone": "asia/seoul"})
    assert "'Asia/Seoul'" in err.fix


@pytest.mark.parametrize(("prop", "value"), [("start", "9:00"), ("start", "25:00"), ("end", "24:00"),
                                             ("end", "17h")])
def test_bad_hhmm(prop: str, value: str) -> None:
    expect_error("KG152", DisruptionWindow, f"{prop}={value!r}", **{**SEOUL, prop: value})


def test_start_equal_end() -> None:
    expect_error("KG152", DisruptionWindow, "'09:00'", **{**SEOUL, "end": "09:00"})


@pytest.mark.parametrize("days", ["SAT-MON", "MON-FUN", (), ("MON", 1)])
def test_bad_days(days: Any) -> None:
    expect_error("KG152", DisruptionWindow, "days=", **{**SEOUL, "days": days})


def test_unknown_reason_lists_the_allowed_three() -> None:
    err = expect_error("KG153", Budget, "'Expired'", nodes=1, reasons=["Expired"])
    for name in ("Underutilized", "Empty", "Drifted"):
        assert name in str(err)
    expect_error("KG153", DisruptionWindow, "'Expired'", **SEOUL, reasons=["Drifted", "Expired"])


def test_duplicate_reason() -> None:
    expect_error("KG153", Budget, "'Drifted'", nodes=1, reasons=["Drifted", "drifted"])


@pytest.mark.parametrize("nodes", ["150%", -1, "10 %", True, 1.5])
def test_bad_node_count(nodes: Any) -> None:
    err = expect_error("KG155", Budget, f"nodes={nodes!r}", nodes=nodes)
    assert "%" in err.allowed and "Budget.percent" in err.fix
    expect_error("KG155", DisruptionWindow, f"nodes={nodes!r}", **SEOUL, nodes=nodes)


def test_more_than_50_budgets() -> None:
    with pytest.raises(KarpenterGpuError) as info:
        compile_budgets([Budget.count(1)] * 50, [window(**SEOUL)])
    err = info.value
    assert err.code == "KG154" and "51" in str(err) and "maxItems 50" in str(err)
    assert len(compile_budgets([Budget.count(1)] * 49, [window(**SEOUL)])) == 50


def test_schedule_and_duration_go_together() -> None:
    expect_error("KG152", Budget, "'0 0 * * *'", nodes=0, schedule="0 0 * * *")
    expect_error("KG152", Budget, "'1h'", nodes=0, duration=Duration.hours(1))


@pytest.mark.parametrize(("schedule", "duration"), [
    ("CRON_TZ=Asia/Seoul 0 9 * * MON-FRI", "10h"),  # Karpenter evaluates in UTC only
    ("0 9 * *", "10h"),
    ("@every 1h", "10h"),
])
def test_bad_schedule(schedule: str, duration: str) -> None:
    expect_error("KG152", Budget, repr(schedule), nodes=0, schedule=schedule, duration=duration)


@pytest.mark.parametrize(("duration", "shown"), [("90s", "'1m30s'"), ("Never", "'Never'"), ("0s", "'0s'")])
def test_duration_must_be_positive_whole_minutes(duration: str, shown: str) -> None:
    expect_error("KG152", Budget, shown, nodes=0, schedule="@daily", duration=duration)


@pytest.mark.parametrize("schedule", ["99 99 * * *", "0 24 * * *", "60 0 * * *", "0 0 0 * *", "0 0 * 13 *",
                                      "0 0 * * 7", "0 0 * * FRI-MON", "*/0 * * * *", "0 0 * * XYZ"])
def test_cron_fields_out_of_range_are_refused(schedule):
    """The CRD pattern accepts any five fields; Karpenter's cron.ParseStandard fails and the budget fails closed."""
    with pytest.raises(KarpenterGpuError) as exc:
        Budget(nodes=0, schedule=schedule, duration=Duration.hours(1))
    assert exc.value.code == "KG152"


@pytest.mark.parametrize("schedule", ["0 0 * * MON-FRI", "*/15 8-18 ? JAN-DEC 1-5", "30 23 1,15 * SUN", "0 0 * * *",
                                      "0 ? * * *"])  # robfig/cron v3 reads '?' as '*' in any field
def test_cron_fields_in_range_are_accepted(schedule):
    assert Budget(nodes=0, schedule=schedule, duration=Duration.hours(1)).schedule == schedule
