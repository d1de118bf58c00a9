"""The documentation site: every generated page current (tools/docs_site.py), every construct of ``__all__``, every
validate rule and every command with its page, and every page in the navigation (``mkdocs build --strict`` itself
runs in ``make docs``, with the docs extra)."""

from __future__ import annotations

import importlib.util
import re
import shutil
from types import ModuleType

import pytest
import yaml

import karpenter_gpu
from karpenter_gpu._signature import keyword_props
from karpenter_gpu.check.rules import RULES, SECTIONS
from karpenter_gpu.check.rules._reference import reference_markdown, rule_page
from karpenter_gpu.cli.main import COMMANDS
from tests.conftest import ROOT

DOCS = ROOT / "docs"


@pytest.fixture(scope="module")
def tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_site", ROOT / "tools" / "docs_site.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _nav_pages(nav: list) -> list[str]:
    found: list[str] = []
    for entry in nav:
        values = entry.values() if isinstance(entry, dict) else [entry]
        for value in values:
            found += _nav_pages(value) if isinstance(value, list) else [value]
    return found


def test_the_generated_pages_are_current(tool, capsys):
    assert tool.main(["--check"]) == 0, capsys.readouterr().err


def test_a_stale_or_orphaned_page_fails_the_check_and_is_rewritten(tool, tmp_path, monkeypatch, capsys):
    shutil.copytree(DOCS, tmp_path / "docs")
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    monkeypatch.setattr(tool, "ROOT", tmp_path)
    monkeypatch.setattr(tool, "DOCS", tmp_path / "docs")
    monkeypatch.setattr(tool, "MKDOCS", tmp_path / "mkdocs.yml")
    assert tool.main(["--check"]) == 0
    page = tmp_path / "docs" / "rules" / "KG401.md"
    page.write_text(page.read_text().replace("## Fix", "## Fix it"))
    orphan = tmp_path / "docs" / "rules" / "KG499.md"
    orphan.write_text(rule_page("KG401"))  # a rule the registry no longer has
    mine = tmp_path / "docs" / "rules" / "notes.md"
    mine.write_text("# my notes\n")  # not written by the tool: never deleted
    help_page = tmp_path / "docs" / "commands" / "diff.md"
    help_page.write_text(help_page.read_text().replace("usage: karpenter-gpu diff", "usage: old"))
    assert tool.main(["--check"]) == 1
    err = capsys.readouterr().err
    assert all(f"docs/{p} is stale" in err for p in ("rules/KG401.md", "rules/KG499.md", "commands/diff.md")), err
    assert "notes.md" not in err
    assert tool.main([]) == 0
    assert tool.main(["--check"]) == 0
    assert page.read_text() == rule_page("KG401") and not orphan.exists() and mine.exists()


def test_every_construct_of_the_public_api_has_its_page():
    from constructs import Construct

    names = [n for n in karpenter_gpu.__all__
             if isinstance(getattr(karpenter_gpu, n), type) and issubclass(getattr(karpenter_gpu, n), Construct)]
    assert {"GpuInferencePool", "GpuPlatform", "Cluster", "HybridGpuNodeGroup", "TieredSpotPools"} <= set(names)
    index = (DOCS / "constructs" / "index.md").read_text()
    for name in names:
        page = (DOCS / "constructs" / f"{name}.md").read_text()
        assert page.splitlines()[2] == f"# {name}" and f"]({name}.md)" in index, name
        model, typed_dict = keyword_props(getattr(karpenter_gpu, name).__init__)
        if model is not None:  # every keyword prop in the table, a required one said so
            for prop, field in model.model_fields.items():
                if typed_dict is None or prop in typed_dict.__annotations__:
                    row = next((line for line in page.splitlines() if line.startswith(f"| `{prop}` |")), None)
                    assert row is not None, (name, prop)
                    assert (" | required | " in row) == field.is_required(), (name, row)
    api = (DOCS / "reference" / "api.md").read_text()
    assert all(f"`{name}`" in api for name in karpenter_gpu.__all__)


def test_every_rule_has_its_page_and_a_row_in_the_index():
    index = (DOCS / "rules.md").read_text(encoding="utf-8")
    assert index == reference_markdown()
    for code in RULES:
        assert f"| [{code}](rules/{code}.md) |" in index
        page = (DOCS / "rules" / f"{code}.md").read_text(encoding="utf-8")
        assert page == rule_page(code)
        assert all(f"\n## {section}\n" in page for section in SECTIONS), code
    assert sorted(p.stem for p in (DOCS / "rules").glob("*.md")) == sorted(RULES)


def test_every_command_has_its_page_with_its_help():
    for command in COMMANDS:
        page = (DOCS / "commands" / f"{command}.md").read_text(encoding="utf-8")
        help_text = re.search(r"<!-- docs_site: help (\w+) -->\n```text\n(.*?)```\n<!-- /docs_site -->", page, re.S)
        assert help_text is not None and help_text.group(1) == command, command
        assert help_text.group(2).startswith(f"usage: karpenter-gpu {command} "), command


def test_every_page_is_in_the_navigation_and_every_entry_is_a_page():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert (config["site_name"], config["theme"]["name"], config["docs_dir"]) == ("karpenter-gpu", "material", "docs")
    listed = _nav_pages(config["nav"])
    assert len(listed) == len(set(listed))
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")} - {"PYPI.md"}
    assert set(listed) == pages
    assert "PYPI.md" in config["exclude_docs"]


def test_generated_pages_quote_no_runnable_example():
    """Docstring fragments are ```py: only the hand-written pages' ```python blocks are programs (doc_examples)."""
    generated = [*(DOCS / "constructs").glob("*.md"), *(DOCS / "rules").glob("*.md"), DOCS / "reference" / "api.md"]
    assert [p.name for p in generated if "```python" in p.read_text(encoding="utf-8")] == []


def test_the_docs_extra_is_pinned_in_the_lock():
    import tomllib

    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["docs"]
    lock = {line.split("==")[0].lower().replace("_", "-"): line.split("==")[1]
            for line in (ROOT / "constraints.txt").read_text().splitlines() if "==" in line and not line.startswith("#")}
    for requirement in extra:
        name, version = requirement.split("==")
        assert lock[name.lower()] == version, requirement
    assert {"markdown", "pymdown-extensions", "jinja2", "babel"} <= set(lock)  # and what they bring
