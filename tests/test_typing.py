"""The public API type-checks: ``mypy --strict`` passes on a platform app, this repository's stacks/ and
the README examples, and fails, with exactly the expected errors, on a file of deliberate mistakes
(tests/fixtures/typing/).

mypy sees the package as a user does after ``pip install``: from a folder laid out like the wheel
(``karpenter_gpu`` with ``crds`` inside), with errors inside the library itself not reported (mypy
does not report them for installed packages either). The config lives here, not in pyproject.toml.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import karpenter_gpu
from tests.conftest import ROOT
from tests.doc_examples import python_examples

FIXTURES = ROOT / "tests" / "fixtures" / "typing"
#: ``# error: [code]`` at the end of a line in mistakes.py: mypy must report that code on that line.
EXPECTED = re.compile(r"#\s*error:\s*\[([a-z-]+)\]")
REPORTED = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+): error: (?P<message>.*?)\s+\[(?P<code>[a-z-]+)\]$")


#: Modules the README's examples import as stand-ins for a platform repository's own code.
README_STAND_INS = {"my_platform": "from karpenter_gpu import PlatformConfig\n\n"
                                   "ENVIRONMENTS: tuple[PlatformConfig, ...] = ()\n"}
REVEALED = re.compile(r'^(?P<file>[^:]+):(?P<line>\d+): note: Revealed type is "(?P<type>.*)"$')
MISTAKES = FIXTURES / "mistakes.py"


def _readme_blocks(folder: Path) -> list[Path]:
    """The README's and the docs site's Python examples, one file each."""
    for module, source in README_STAND_INS.items():
        (folder / f"{module}.py").write_text(source)  # found beside the examples
    files = []
    for i, block in enumerate(python_examples()):
        path = folder / f"readme_example_{i}.py"
        path.write_text(block)
        files.append(path)
    assert len(files) >= 2
    return files


@pytest.fixture(scope="module")
def checked(tmp_path_factory) -> dict[str, list[str]]:
    """``mypy --strict``'s output lines, per file, for one build of: the platform app, stacks/, the README
    examples, every root export revealed, and the deliberate mistakes. One build, not one per test: each file's
    errors are its own, and most of a run is reading the dependencies (cdk8s-plus-29 alone is a third).

    mypy sees the package from a folder laid out like the wheel; its cache is not written (nothing reads it)."""
    base = tmp_path_factory.mktemp("mypy")
    package = base / "site" / "karpenter_gpu"
    package.mkdir(parents=True)
    for entry in (ROOT / "constructs" / "karpenter_gpu").iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    (package / "crds").symlink_to(ROOT / "imports")
    config = base / "mypy.ini"
    config.write_text(f"[mypy]\nstrict = True\nmypy_path = {base / 'site'}\ncache_dir = {os.devnull}\n"
                      "show_error_codes = True\nno_error_summary = True\n"
                      "[mypy-karpenter_gpu.*]\nignore_errors = True\n")
    examples = base / "examples"
    examples.mkdir()
    exports = examples / "root_exports.py"
    exports.write_text("import karpenter_gpu\n" + "".join(f"reveal_type(karpenter_gpu.{name})\n"
                                                        for name in karpenter_gpu.__all__))
    files = [FIXTURES / "platform_app.py", ROOT / "stacks", *_readme_blocks(examples), exports, MISTAKES]
    # A process of its own: mypy's API, called in the test process, unfreezes the collector (mypy freezes and
    # unfreezes around a build) and leaves some 1.3 million objects of its build alive there, which every
    # later full pass of the collector in this worker would scan.
    done = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(config), *map(str, files)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode in (0, 1) and not done.stderr, done.stdout + done.stderr  # 1: the mistakes' errors
    lines: dict[str, list[str]] = {"mistakes": [], "others": []}
    for line in done.stdout.splitlines():
        lines["mistakes" if Path(line.split(":", 1)[0]).resolve() == MISTAKES else "others"].append(line)
    return lines


def test_platform_app_stacks_and_readme_examples_pass_mypy_strict(checked):
    # Plus every root export, revealed: none may be Any (the lazy export table must not hide them).
    output = checked["others"]
    assert not [line for line in output if ": error:" in line], "\n".join(x for x in output if ": note:" not in x)
    revealed = {int(m["line"]): m["type"] for m in map(REVEALED.match, output) if m}
    assert len(revealed) == len(karpenter_gpu.__all__) > 50
    untyped = [karpenter_gpu.__all__[line - 2] for line, t in revealed.items() if t == "Any"]
    assert not untyped, f"statically Any at the package root: {untyped}"


def test_deliberate_mistakes_fail_mypy_strict_with_the_expected_errors(checked):
    expected = {(n, m.group(1)) for n, line in enumerate(MISTAKES.read_text().splitlines(), 1)
                if (m := EXPECTED.search(line))}
    assert len(expected) >= 10
    errors = [m for m in map(REPORTED.match, checked["mistakes"]) if m]
    assert {(int(e["line"]), e["code"]) for e in errors} == expected, "\n".join(checked["mistakes"])
    messages = "\n".join(e["message"] for e in errors)
    # The two the issue names: a string GPU limit and a misspelt prop.
    assert 'Argument "gpu_limit" to "GpuInferencePool" has incompatible type "str"; expected "int"' in messages
    assert 'Unexpected keyword argument "gpu_limt" for "GpuInferencePool"' in messages


def test_platform_app_runs(tmp_path):
    """The typed app is a real one: it builds and synthesizes."""
    from tests.fixtures.typing import platform_app

    apps = platform_app.main(outdir=str(tmp_path / "dist"))
    assert [sorted(c.node.id for c in app.node.children) for app in apps] == [
        ["hand-built"], ["from-props"], ["dev", "staging"]]
    assert sorted(p.name for p in (tmp_path / "dist").iterdir()) == ["from-props", "hand-built", "platforms"]
