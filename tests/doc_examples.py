"""The documentation's Python examples: the README's first app and the examples of the docs site's pages.

Every ```` ```python ```` block of these files is a complete program: tests/test_readme.py runs the ones whose
output it checks, tests/test_typing.py type-checks all of them with ``mypy --strict`` and tests/test_packaging.py
runs all of them from the installed wheel. Generated pages (docs/constructs/, docs/rules/) quote docstring
fragments as ```` ```py ````, which are not programs and are not collected.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import ROOT

_BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def example_docs() -> list[Path]:
    """README.md and every page of the docs site, in a stable order (docs/PYPI.md is the package's own)."""
    pages = sorted(p for p in (ROOT / "docs").rglob("*.md") if p.name != "PYPI.md")
    return [ROOT / "README.md", *pages]


def python_examples() -> list[str]:
    """Every Python example of the README and of the docs site."""
    return [code for doc in example_docs() for code in _BLOCK.findall(doc.read_text(encoding="utf-8"))]


def example_after(doc: str, heading: str) -> str:
    """The first Python example after the line ``heading`` in ``doc`` (a path relative to the repository)."""
    text = (ROOT / doc).read_text(encoding="utf-8")
    start = text.index(f"\n{heading}\n") if not text.startswith(f"{heading}\n") else 0
    found = _BLOCK.search(text, start)
    assert found is not None, f"{doc}: no Python example after {heading!r}"
    return found.group(1)
