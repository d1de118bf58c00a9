"""The disruption-window annotation: written by the pools, read back by explain, with its time zone."""

from __future__ import annotations

import pytest

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.windows import (
    WINDOWS_ANNOTATION, load_zone, span_text, window_annotation, window_notes, window_zone,
)


def test_notes_round_trip_through_the_annotation():
    notes = {2: "at most 0 nodes disrupted daily " + span_text("18:00", "04:00", True, "Asia/Seoul", "UTC+9"),
             0: "at most 1 nodes disrupted daily " + span_text("09:00", "17:00", False, "Europe/Berlin",
                                                               "UTC+1/UTC+2")}
    annotations = window_annotation(notes)
    assert annotations is not None and annotations[WINDOWS_ANNOTATION].startswith("budgets[0]: ")
    assert window_notes(annotations) == notes
    assert window_zone(notes[2]) == "Asia/Seoul" and window_zone(notes[0]) == "Europe/Berlin"
    assert "18:00-04:00 (ends next day) Asia/Seoul (UTC+9)" in notes[2]


def test_no_notes_no_annotation():
    assert window_annotation({}) is None
    assert window_notes({}) == {} and window_zone("no span here") is None


def test_zones_come_from_tzdata_and_a_typo_is_kg151():
    assert load_zone("Asia/Seoul").key == "Asia/Seoul"
    with pytest.raises(KarpenterGpuError) as err:
        load_zone("Asia/Seul")
    assert err.value.code == "KG151" and "Asia/Seoul" in err.value.fix


@pytest.mark.parametrize(("name", "fix"), [
    ("KST", "use time_zone='Asia/Seoul'"),
    ("jst", "use time_zone='Asia/Tokyo'"),
    ("IST", "one of 'Asia/Kolkata', 'Europe/Dublin', 'Asia/Jerusalem'"),
])
def test_an_abbreviation_points_at_its_zone_not_at_a_lookalike(name: str, fix: str):
    """'KST' used to suggest 'MST' (the closest spelling): an abbreviation names the zone it stands for."""
    from karpenter_gpu.errors import KarpenterGpuError
    from karpenter_gpu.k8s.windows import ABBREVIATIONS, load_zone
    with pytest.raises(KarpenterGpuError) as err:
        load_zone(name)
    assert err.value.code == "KG151" and fix in err.value.fix
    for zones in ABBREVIATIONS.values():
        assert all(load_zone(zone) for zone in zones)
