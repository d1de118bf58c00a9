"""karpenter_gpu.perf: one home for the caches, a switch that turns them all off (the suite passes either way), and
collector tuning only when asked."""

from __future__ import annotations

import ast
import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest

from karpenter_gpu import perf

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "constructs" / "karpenter_gpu"

#: A slice of the suite that goes through every cache: validate (schema, CEL, defaults, rules), the simulator,
#: explain and diff.
SLICE = ("tests/test_memos.py", "tests/test_conformance.py", "tests/test_explain.py", "tests/test_rules.py",
         "tests/test_diff.py")


def test_the_suite_passes_with_caching_off():
    env = dict(os.environ, **{perf.CACHE_ENV: "off"})
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *SLICE],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout.strip().splitlines()[-1]


def test_the_switch_is_read_from_the_environment_once_at_import():
    code = "from karpenter_gpu import perf; print(perf.caching())"
    for value, expected in (("off", "False"), ("OFF", "False"), ("", "True"), ("on", "True")):
        env = dict(os.environ, **{perf.CACHE_ENV: value})
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        assert out.stdout.strip() == expected, value


@pytest.fixture
def counted():
    calls: list[object] = []

    @perf.cached()
    def square(x: int) -> int:
        calls.append(x)
        return x * x

    return square, calls


def test_off_every_primitive_computes_every_time_and_stores_nothing(counted):
    square, calls = counted
    owners, store, bounded = perf.OwnerCache(), perf.Store(), perf.BoundedCache()
    owner = object()
    with perf.caching_set(False):
        assert not perf.caching()
        assert [square(3), square(3)] == [9, 9] and calls == [3, 3]  # computed twice
        memo = owners.for_owner(owner)
        memo["k"] = 1
        assert owners.for_owner(owner) == {} and owners.put(owner, 5) == 5 and owners.get(owner) is None
        assert store.put("k", 1) == 1 and store.get("k") is None and len(store) == 0
        bounded.put("k", 1, 1)
        assert bounded.get("k") is None
        value = ["shared"]
        assert perf.share(value) == repr(value) and not perf.is_shared(value)
    with perf.caching_set(True):
        calls.clear()
        assert [square(4), square(4)] == [16, 16] and calls == [4]  # computed once
        assert owners.for_owner(owner) is owners.for_owner(owner)
        assert owners.put(owner, 5) == 5 and owners.get(owner) == 5
        assert store.put("k", 1) == 1 and store.get("k") == 1
        bounded.put("k", 1, 1)
        assert bounded.get("k") == 1


def test_flipping_the_switch_empties_every_cache(counted):
    square, calls = counted
    with perf.caching_set(True):
        square(5)
        store = perf.Store()
        store.put("k", 1)
        with perf.caching_set(False):
            pass
        assert store.get("k") is None and square.cache_info().currsize == 0  # type: ignore[attr-defined]
        perf.clear_caches()
        square(5)
        assert calls == [5, 5]


def test_a_real_cache_recomputes_when_off():
    """The simulator's answers with caching off are the answers with it on, worked out again each call."""
    from decimal import Decimal as D

    from karpenter_gpu.analysis import ceiling

    items = tuple((f"t{i}", D(3 + i) / 4, (D(i + 1), D(2))) for i in range(4))
    limits = (D(9), D(7))
    with perf.caching_set(False):
        before = ceiling._dearest_fill_memo.cache_info()
        first, second = ceiling.dearest_fill_cached(items, limits), ceiling.dearest_fill_cached(items, limits)
        assert first == second and first is not second
        assert ceiling._dearest_fill_memo.cache_info() == before  # the memo was not even asked


def test_the_collector_is_tuned_only_when_asked(monkeypatch):
    threshold, enabled = gc.get_threshold(), gc.isenabled()
    try:
        gc.set_threshold(700, 10, 10)
        gc.enable()
        monkeypatch.delenv(perf.TUNE_GC_ENV, raising=False)
        perf.tune_collector()
        with perf.paused_collector():
            assert gc.isenabled()
        assert gc.get_threshold() == (700, 10, 10)
        monkeypatch.setenv(perf.TUNE_GC_ENV, "1")
        with perf.paused_collector():
            assert not gc.isenabled()
        assert gc.isenabled()
        perf.tune_collector()
        assert gc.get_threshold() == perf.GC_THRESHOLD
    finally:
        gc.set_threshold(*threshold)
        (gc.enable if enabled else gc.disable)()


def _trees() -> list[tuple[Path, ast.Module]]:
    return [(p, ast.parse(p.read_text(encoding="utf-8"))) for p in sorted(PACKAGE.rglob("*.py"))]


def test_the_caches_have_one_home():
    """functools' caches, only inside perf (everything else decorates with perf.cached / perf.once)."""
    found = []
    for path, tree in _trees():
        if path.name == "perf.py":
            continue
        for node in ast.walk(tree):
            name = (node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name)
                    else None)
            if name in ("lru_cache", "cache") and not (isinstance(node, ast.Attribute)
                                                      and not (isinstance(node.value, ast.Name)
                                                               and node.value.id == "functools")):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
            if isinstance(node, ast.ImportFrom) and node.module == "functools":
                found += [f"{path.relative_to(PACKAGE)}:{node.lineno}" for a in node.names
                          if a.name in ("lru_cache", "cache")]
    assert found == []


def test_no_private_interpreter_state_is_read():
    """No ``atexit._ncallbacks``, ``sys._getframe`` or other underscored attribute of sys, atexit or gc."""
    found = [f"{path.relative_to(PACKAGE)}:{node.lineno}" for path, tree in _trees() for node in ast.walk(tree)
             if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
             and isinstance(node.value, ast.Name) and node.value.id in ("sys", "atexit", "gc")]
    assert found == []


def test_perf_imports_nothing_of_the_package():
    tree = ast.parse((PACKAGE / "perf.py").read_text(encoding="utf-8"))
    names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert not [n for n in names if n.startswith("karpenter_gpu")]
