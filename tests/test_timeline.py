"""Weekly timeline of blocked disruption, in local time, from the NodePools' UTC budgets."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
import yaml

from karpenter_gpu.analysis.timeline import Block, always_blocked, blocks, svg
from karpenter_gpu.render import escape
from tests.conftest import ROOT

MON, DAY = 0, 1440


def pool(name: str, env: str) -> dict:
    return yaml.safe_load((ROOT / f"dist/{env}/NodePool.{name}.k8s.yaml").read_text())


def test_seoul_training_hours_are_mon_fri_0900_1900_local():
    got = blocks(pool("gpu-training", "prod"), "Asia/Seoul")
    assert got == [Block(d * DAY + 540, d * DAY + 1140, ()) for d in range(5)]


def test_same_budget_in_utc_is_mon_fri_0000_1000():
    got = blocks(pool("gpu-training", "prod"), "UTC")
    assert got == [Block(d * DAY, d * DAY + 600, ()) for d in range(5)]


def test_new_york_window_is_widened_by_the_dst_hour():
    # staging: 08:00-18:00 America/New_York compiled to '0 12 * * MON-FRI' for 11h; in January (EST) that is
    # 07:00-18:00 local: the extra hour sits before the window.
    got = blocks(pool("gpu-inference", "staging"), "America/New_York")
    assert got[0] == Block(420, 1080, ())


def test_unscheduled_zero_budget_blocks_always():
    manifest = {"spec": {"disruption": {"budgets": [{"nodes": "0"}]}}}
    assert always_blocked(manifest) and blocks(manifest) == []


def test_svg_is_well_formed_with_one_shaded_span_per_blocked_day():
    drawing = svg([pool("gpu-training", "prod"), pool("gpu-inference", "prod")], "Asia/Seoul", "prod")
    root = ET.fromstring(drawing)
    shaded = [r for r in root.iter("{http://www.w3.org/2000/svg}rect") if r.get("fill") == "#c0392b"]
    assert len(shaded) == 5 + 1  # training blocks Mon-Fri; inference has nodes 1, not 0 (plus the legend swatch)
    assert "Asia/Seoul" in drawing


def test_scheduled_non_zero_budgets_are_drawn_as_capped():
    inference = pool("gpu-inference", "prod")  # at most 1 node Mon-Fri 09:00-19:00 Seoul
    assert blocks(inference, "Asia/Seoul") == []
    assert blocks(inference, "Asia/Seoul", limited=True)[0] == Block(540, 1140, ())
    root = ET.fromstring(svg([inference], "Asia/Seoul"))
    assert len([r for r in root.iter("{http://www.w3.org/2000/svg}rect") if r.get("fill") == "#f0b429"]) == 5 + 1


HOSTILE_NAME = 'p"><script>alert(1)</script><text x="0">forged</text>\x1b[2K\r\n\u202eevil &amp; <!-- x'


def test_hostile_pool_name_and_title_stay_text_in_a_well_formed_svg():
    hostile = pool("gpu-training", "prod")
    hostile["metadata"]["name"] = HOSTILE_NAME
    drawing = svg([hostile], "Asia/Seoul", f"env {HOSTILE_NAME}: disruption windows")
    root = ET.fromstring(drawing)  # well-formed: no raw control character, no broken tag
    ns = "{http://www.w3.org/2000/svg}"
    assert {child.tag for child in root.iter()} == {f"{ns}svg", f"{ns}rect", f"{ns}line", f"{ns}text"}
    assert not root.findall(f".//{ns}script")
    texts = [t.text for t in root.iter(f"{ns}text")]
    assert not any(t == "forged" for t in texts)
    assert all(list(t) == [] for t in root.iter(f"{ns}text"))  # no element inside any text
    row = escape.plain(HOSTILE_NAME)
    assert row in texts and any(t.startswith(f"env {row}: disruption windows") for t in texts)
    assert all(t.isprintable() for t in texts)  # the \r, \n, ESC and U+202E are shown as escapes


def budget_pool(schedule: str, duration: str = "1h", name: str = "p") -> dict:
    return {"metadata": {"name": name},
            "spec": {"disruption": {"budgets": [{"nodes": "0", "schedule": schedule, "duration": duration}]}}}


def test_a_monthly_budget_is_drawn_only_on_its_day_of_the_month():
    # The reference week is Monday 2027-01-04 .. Sunday 2027-01-10: the 1st is not in it, the 5th (a Tuesday) is.
    assert blocks(budget_pool("0 9 1 * *")) == []
    assert blocks(budget_pool("0 9 5 * *")) == [Block(1 * DAY + 540, 1 * DAY + 600, ())]
    assert blocks(budget_pool("@monthly")) == []
    assert blocks(budget_pool("0 9 * 2 *")) == []  # February only


def test_a_weekday_budget_is_drawn_monday_to_friday():
    assert blocks(budget_pool("0 9 * * 1-5")) == [Block(d * DAY + 540, d * DAY + 600, ()) for d in range(5)]


def test_day_of_month_and_day_of_week_both_given_match_either_as_cron_does():
    # 0 9 5 * SAT: the 5th (Tuesday) or any Saturday (the 9th).
    assert blocks(budget_pool("0 9 5 * SAT")) == [Block(1 * DAY + 540, 1 * DAY + 600, ()),
                                                  Block(5 * DAY + 540, 5 * DAY + 600, ())]


def test_a_schedule_karpenter_cannot_parse_is_not_drawn():
    assert blocks(budget_pool("0 9 * * 7")) == []  # day of week 0-6: refused by Budget too (KG152)


def test_svg_says_a_dated_budget_is_shown_for_this_week_only():
    drawing = svg([budget_pool("0 9 1 * *", name="monthly"), budget_pool("0 9 * * 1-5", name="weekdays")])
    texts = [t.text for t in ET.fromstring(drawing).iter("{http://www.w3.org/2000/svg}text")]
    assert "monthly (dated budget: this week only)" in texts and "weekdays" in texts


@pytest.mark.parametrize(("duration", "minutes"), [
    ("600s", 10), ("30m1h", 90), ("8h30s", 481), ("90m", 90), ("1h30m0s", 90), ("30s", 1),
])
def test_a_budget_duration_is_read_as_go_reads_it(duration: str, minutes: int):
    """The duration goes through Duration.parse (time.ParseDuration), the one parser: every Go duration is drawn,
    rounded up to whole minutes, not only the h/m spellings the CRD pattern lists."""
    (block,) = blocks(budget_pool("0 9 * * 1", duration))
    assert block.end - block.start == minutes


@pytest.mark.parametrize("duration", ["", "1d", "PT30M", "Never"])
def test_a_duration_karpenter_cannot_read_draws_an_empty_span(duration: str):
    (block,) = blocks(budget_pool("0 9 * * 1", duration))
    assert block.end == block.start
