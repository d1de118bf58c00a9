"""The two depths of the randomized and crash tests (tests/soak.py): quick in ``make test``, deep in ``make soak``."""

from __future__ import annotations

import re

import pytest

from tests import soak
from tests.conftest import ROOT


def test_size_is_quick_unless_the_soak_step_asks_for_deep(monkeypatch):
    monkeypatch.delenv(soak.ENV, raising=False)
    assert soak.size(3, 30) == 3 and not soak.deep()
    monkeypatch.setenv(soak.ENV, "1")
    assert soak.size(3, 30) == 30 and soak.deep()
    monkeypatch.setenv(soak.ENV, "0")
    assert soak.size(3, 30) == 3
    with pytest.raises(AssertionError):
        soak.size(30, 3)  # the deep size is the larger one


#: A test marked soak: the marker, other decorators, then the test.
MARKED = re.compile(r"^@pytest\.mark\.soak\n(?:@.*\n|\s+.*\n)*?def (test_\w+)", re.M)


def test_the_deep_tests_carry_the_marker_make_soak_selects():
    """`make soak` (run by .ci/run) runs the tests marked soak with KARPENTER_GPU_SOAK=1, and every module that
    sizes its tests by the step marks them."""
    recipe = re.search(r"^soak:.*\n\t(.*)$", (ROOT / "Makefile").read_text(), re.M)
    assert recipe and "KARPENTER_GPU_SOAK=1 " in recipe[1] and "-m soak" in recipe[1]
    assert "make soak" in (ROOT / ".ci" / "run").read_text()
    sources = {p.stem: p.read_text() for p in (ROOT / "tests").glob("test_*.py") if p.stem != "test_soak"}
    marked = {name for text in sources.values() for name in MARKED.findall(text)}
    assert {"test_props_raise_coded_errors_or_render_conformant_manifests",
            "test_fuzz_type_changes_hold_the_contract", "test_fuzz_text_edits_hold_the_contract",
            "test_kill_9_at_random_moments_never_leaves_a_missing_or_partial_output",
            "test_replacement_step_under_a_polling_reader_and_kill_9",
            "test_concurrent_runs_are_serialized"} <= marked
    sizing = {stem for stem, text in sources.items() if "soak.size(" in text}
    assert sizing and all(MARKED.search(sources[stem]) for stem in sizing), sizing
