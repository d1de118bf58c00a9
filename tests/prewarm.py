"""What every ``pytest -n N`` worker would work out for itself, worked out once for the run.

Each worker collects every test module, so on a fresh clone each one parses, rewrites (pytest's assertion
rewriting) and compiles all of them, at the same moment: about 4.5 s of CPU per worker on two cores. Then
hypothesis, at the end of collection, parses every local module for the constants it mixes into generated
data (about 0.9 s per worker), and a worker's first character strategy builds hypothesis's table of Unicode
categories. Here the controller does each once:

- :func:`prepare`, before the workers start, spread over the cores: pytest's own rewritten ``.pyc`` files for the
  test modules and conftests, plain ones for the package, the stacks, the generated bindings and the tools (next
  to the sources, in ``__pycache__``, as the workers would write them);
- :func:`start_caches`, beside the workers while they start and collect, in a process of its own: hypothesis's
  category table and constants cache (content-addressed by the source's hash), in the run's shared hypothesis
  folder (``conftest.pytest_configure`` points every worker there). A worker that gets there first works them
  out itself, as before.

The suite's text strategies name their alphabets (ASCII, or listed characters): hypothesis's default one,
``characters(codec="utf-8")`` (``st.text()``, ``st.from_regex``), costs a table of every code point UTF-8 can
encode, 2.5 s of CPU, built in the first worker that draws from it.

Only speed depends on it. A file it skips, or a pytest or hypothesis whose internals differ (``supported()`` is
False), is worked out by the workers as before; a stale or partial file is never read (a ``.pyc`` carries its
source's hash or mtime, a constants file its source's hash, the table its Unicode version, and each is
written to a temporary name and renamed).
"""

from __future__ import annotations

import compileall
import fnmatch
import multiprocessing
import os
import types
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from _pytest.assertion import rewrite
from hypothesis.errors import HypothesisSideeffectWarning
from hypothesis.internal import charmap, constants_ast

#: The folders of plain (not rewritten) modules, relative to the repository root.
PLAIN = ("constructs", "stacks", "imports", "tools")


def supported() -> bool:
    """pytest and hypothesis still have the internals this module calls (they are private: checked, not assumed)."""
    return (all(hasattr(rewrite, name) for name in ("_rewrite_test", "_write_pyc", "_read_pyc", "get_cache_dir",
                                                    "try_makedirs", "PYC_TAIL"))
            and hasattr(constants_ast, "constants_from_module")
            and hasattr(charmap, "charmap"))


def _rewritten(path: Path, patterns: list[str]) -> bool:
    return path.name == "conftest.py" or any(fnmatch.fnmatch(path.name, p) for p in patterns)


class _Quiet:
    """The ``AssertionState`` stand-in ``_write_pyc`` / ``_read_pyc`` take: only its ``trace`` is used."""

    def trace(self, *args: Any) -> None:
        pass


def _rewrite_one(fn: str) -> None:
    path = Path(fn)
    pyc = rewrite.get_cache_dir(path) / (path.name[:-3] + rewrite.PYC_TAIL)
    if rewrite._read_pyc(path, pyc, _Quiet().trace) is not None:
        return
    if not rewrite.try_makedirs(pyc.parent):
        return
    # config=None: the rewrite then only differs from the workers' with `enable_assertion_pass_hook` set,
    # which this suite does not set (see prepare()).
    source_hash, co = rewrite._rewrite_test(path, None)  # type: ignore[arg-type]
    rewrite._write_pyc(_Quiet(), co, source_hash, pyc)  # type: ignore[arg-type]


def _constants_of(fn: str) -> None:
    """What hypothesis's _get_local_constants reads for a local module (test modules are not local to it)."""
    module = types.ModuleType("_prewarm")
    module.__file__ = fn
    constants_ast.constants_from_module(module)


def _compile(item: tuple[bool, str]) -> None:
    rewritten, fn = item
    try:
        if rewritten:
            _rewrite_one(fn)
        else:
            compileall.compile_file(fn, quiet=2)
    except Exception:  # a syntax error or an unreadable file: the worker that imports it reports it
        pass


def _forks() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def _plain(root: Path) -> list[Path]:
    return [p for folder in PLAIN for p in sorted((root / folder).rglob("*.py"))]


def prepare(root: Path, config: Any, processes: int) -> int:
    """Write the bytecode the run's workers will read; returns how many files were looked at.

    Nothing when PYTHONDONTWRITEBYTECODE is set (the workers then write none either)."""
    if not supported() or config.getini("enable_assertion_pass_hook") or not _forks() or \
            os.environ.get("PYTHONDONTWRITEBYTECODE"):
        return 0
    patterns = list(config.getini("python_files"))
    items = [(_rewritten(p, patterns), str(p)) for p in sorted((root / "tests").rglob("*.py"))]
    items += [(False, str(p)) for p in [*_plain(root), root / "main.py"]]
    items.sort(key=lambda item: -os.path.getsize(item[1]))  # largest first, so the processes end together
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=max(1, processes), mp_context=context) as pool:
        list(pool.map(_compile, items, chunksize=4))
    return len(items)


def _caches(files: list[str]) -> None:
    """In the order the workers need them: the category table (0.2 s), then the constants (at the end of their
    collection)."""
    with warnings.catch_warnings():
        # Hypothesis ends its initialization in its own pytest_sessionstart, after the controller's: its warning
        # about touching storage before then is about a process's start-up time, which this child does not have.
        warnings.simplefilter("ignore", HypothesisSideeffectWarning)
        charmap.charmap()
        for fn in files:
            try:
                _constants_of(fn)
            except Exception:  # as in _compile
                pass


def start_caches(root: Path) -> multiprocessing.process.BaseProcess | None:
    """Start writing hypothesis's category table and constants in a process of its own, and return it; nobody
    waits for it (multiprocessing reaps it when the run ends)."""
    if not supported() or not _forks():
        return None
    files = [str(p) for p in sorted(_plain(root), key=lambda p: -p.stat().st_size)]
    process = multiprocessing.get_context("fork").Process(target=_caches, args=(files,), name="prewarm-caches",
                                                          daemon=True)
    process.start()
    return process
