"""How the suite runs on the workers: the slowest modules first, and the synth outputs its tests share."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from types import SimpleNamespace

from tests import conftest
from tests.conftest import ROOT, tree


def test_the_slowest_modules_are_test_modules_and_every_run_keeps_their_order():
    names = conftest.SLOWEST_FIRST
    assert len(set(names)) == len(names) and all((ROOT / "tests" / name).is_file() for name in names), names
    makefile = (ROOT / "Makefile").read_text()
    for target in ("test", "soak"):
        recipe = re.search(rf"^{target}:.*\n(?:\t.*\n)*?\t(.*-m pytest -n auto.*)$", makefile, re.M)
        assert recipe and "--dist loadfile --no-loadscope-reorder" in recipe[1], target  # else xdist sorts by size
    assert '"--dist", "loadfile", "--no-loadscope-reorder"' in (ROOT / "tools" / "bench.py").read_text()


def test_collection_puts_the_slowest_modules_first_and_keeps_the_order_within_a_module():
    def item(name: str, test: str) -> SimpleNamespace:
        return SimpleNamespace(path=Path("tests") / name, name=test)

    slowest, second = conftest.SLOWEST_FIRST[:2]
    items = [item("test_a.py", "1"), item(second, "1"), item("test_b.py", "1"), item(slowest, "1"),
             item(second, "2"), item("test_a.py", "2"), item(slowest, "2")]
    conftest.pytest_collection_modifyitems(items)  # type: ignore[arg-type]
    assert [(i.path.name, i.name) for i in items] == [
        (slowest, "1"), (slowest, "2"), (second, "1"), (second, "2"),
        ("test_a.py", "1"), ("test_b.py", "1"), ("test_a.py", "2")]


def test_a_changed_shared_output_is_named(synthesized, trees, tmp_path):
    outputs = {name: tmp_path / name for name in synthesized}
    for name, out in synthesized.items():
        shutil.copytree(out, outputs[name])
    assert conftest.changed_outputs(outputs, trees) == []
    (outputs["b"] / "dev" / "mine.yaml").write_text("kind: Mine\n")
    assert conftest.changed_outputs(outputs, trees) == [str(outputs["b"])]
    assert tree(synthesized["b"]) == trees["b"]


def test_make_test_and_soak_write_bytecode_whatever_the_environment_says():
    """Dozens of Python processes in a run: each compiling the package again (PYTHONDONTWRITEBYTECODE set in the
    environment) costs the run ~20 s of CPU. An empty value is "not set" for Python."""
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^test soak: export PYTHONDONTWRITEBYTECODE :=\s*$", makefile, re.M)
