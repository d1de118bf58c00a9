"""tests/prewarm.py: what the controller of a ``-n`` run works out once is what each worker would read."""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

import pytest
from _pytest.assertion import rewrite
from hypothesis.configuration import set_hypothesis_home_dir, storage_directory
from hypothesis.internal import charmap

from tests import prewarm

TEST_MODULE = "def test_x():\n    value = {'a': 1}\n    assert value == {'a': 2}\n"
PLAIN_MODULE = "LIMIT = 'gpu-prewarm-const'\n"


def checkout(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_x.py").write_text(TEST_MODULE)
    (root / "tests" / "helper.py").write_text(PLAIN_MODULE)
    (root / "constructs" / "pkg").mkdir(parents=True)
    (root / "constructs" / "pkg" / "mod.py").write_text(PLAIN_MODULE.replace("prewarm", "pkg"))
    (root / "main.py").write_text("")
    return root


def test_the_pinned_pytest_and_hypothesis_have_the_internals_it_calls():
    # False would only cost speed (the workers then work it all out themselves): this says so when an upgrade
    # takes the internals away.
    assert prewarm.supported()


def test_it_writes_the_rewritten_and_plain_bytecode_a_worker_reads(tmp_path, pytestconfig, monkeypatch):
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    root = checkout(tmp_path)
    assert prewarm.prepare(root, pytestconfig, 2) == 4  # test_x (rewritten), helper, mod and main (plain)

    test_file = root / "tests" / "test_x.py"
    pyc = rewrite.get_cache_dir(test_file) / ("test_x" + rewrite.PYC_TAIL)
    code = rewrite._read_pyc(test_file, pyc)
    assert code is not None, "pytest would rewrite the test module again"
    namespace: dict = {}
    exec(code, namespace)
    with pytest.raises(AssertionError) as failure:
        namespace["test_x"]()
    assert "{'a': 1} == {'a': 2}" in str(failure.value), "the bytecode is not pytest's rewritten one"

    for plain in (root / "tests" / "helper.py", root / "constructs" / "pkg" / "mod.py", root / "main.py"):
        assert Path(importlib.util.cache_from_source(str(plain))).is_file(), plain


def test_no_bytecode_when_the_environment_says_none(tmp_path, pytestconfig, monkeypatch):
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    root = checkout(tmp_path)
    assert prewarm.prepare(root, pytestconfig, 1) == 0
    assert not list(root.rglob("__pycache__"))


def test_the_constants_and_the_category_table_land_where_hypothesis_reads_them(tmp_path, monkeypatch):
    monkeypatch.setattr(charmap, "_charmap", None)  # as in the controller: this worker may have it in memory
    root = checkout(tmp_path)
    home = storage_directory().path
    set_hypothesis_home_dir(tmp_path / "hypothesis")
    try:
        process = prewarm.start_caches(root)
        assert process is not None
        process.join(timeout=60)
        assert process.exitcode == 0
        source = (root / "constructs" / "pkg" / "mod.py").read_bytes()
        cached = storage_directory("constants").path / hashlib.sha1(source).hexdigest()[:16]
        assert "'gpu-pkg-const'" in cached.read_text()  # what hypothesis keeps (a string of <= 20)
        assert charmap.charmap_file().is_file()
    finally:
        set_hypothesis_home_dir(home)
