"""The public API type-checks: ``mypy --strict`` passes on a platform app, this repository's stacks/ and
the README examples, and fails, with exactly the expected errors, on a file of deliberate mistakes
(tests/fixtures/typing/).

mypy sees the package as a user does after ``pip install``: from a folder laid out like the wheel
(``karpenter_gpu`` with ``crds`` inside), with errors inside the library itself not reported (mypy
does not report them for installed packages either). The config lives here, not in pyproject.toml.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import karpenter_gpu
from tests.conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "typing"
#: ``# error: [code]`` at the end of a line in mistakes.py: mypy must report that code on that line.
EXPECTED = re.compile(r"#\s*error:\s*\[([a-z-]+)\]")
REPORTED = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+): error: (?P<message>.*?)\s+\[(?P<code>[a-z-]+)\]$")


@pytest.fixture(scope="module")
def mypy(tmp_path_factory):
    """Run mypy --strict on files; the package layout and the cache are shared by the module's runs."""
    base = tmp_path_factory.mktemp("mypy")
    package = base / "site" / "karpenter_gpu"
    package.mkdir(parents=True)
    for entry in (ROOT / "constructs" / "karpenter_gpu").iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    (package / "crds").symlink_to(ROOT / "imports")
    config = base / "mypy.ini"
    config.write_text(f"[mypy]\nstrict = True\nmypy_path = {base / 'site'}\ncache_dir = {base / 'cache'}\n"
                      "show_error_codes = True\nno_error_summary = True\n"
                      "[mypy-karpenter_gpu.*]\nignore_errors = True\n")

    def run(*files: Path) -> tuple[list[re.Match[str]], str]:
        # A process of its own: mypy's API, called in the test process, unfreezes the collector (mypy freezes and
        # unfreezes around a build) and leaves some 1.3 million objects of its build alive there, which every
        # later full pass of the collector in this worker would scan.
        done = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(config), *map(str, files)],
                              capture_output=True, text=True, timeout=600)
        errors = [m for m in map(REPORTED.match, done.stdout.splitlines()) if m]
        return errors, done.stdout + done.stderr

    return run


#: Modules the README's examples import as stand-ins for a platform repository's own code.
README_STAND_INS = {"my_platform": "from karpenter_gpu import PlatformConfig\n\n"
                                   "ENVIRONMENTS: tuple[PlatformConfig, ...] = ()\n"}


def _readme_blocks(tmp_path: Path) -> list[Path]:
    text = (ROOT / "README.md").read_text()
    for module, source in README_STAND_INS.items():
        (tmp_path / f"{module}.py").write_text(source)  # found beside the examples
    files = []
    for i, block in enumerate(re.findall(r"```python\n(.*?)```", text, re.S)):
        path = tmp_path / f"readme_example_{i}.py"
        path.write_text(block)
        files.append(path)
    assert len(files) >= 2
    return files


REVEALED = re.compile(r'^(?P<file>[^:]+):(?P<line>\d+): note: Revealed type is "(?P<type>.*)"$')


def test_platform_app_stacks_and_readme_examples_pass_mypy_strict(mypy, tmp_path):
    # Plus every root export, revealed: none may be Any (the lazy export table must not hide them).
    exports = tmp_path / "root_exports.py"
    exports.write_text("import karpenter_gpu\n" + "".join(f"reveal_type(karpenter_gpu.{name})\n"
                                                        for name in karpenter_gpu.__all__))
    errors, output = mypy(FIXTURES / "platform_app.py", ROOT / "stacks", *_readme_blocks(tmp_path), exports)
    assert not errors and ": error:" not in output, "\n".join(line for line in output.splitlines() if ": note:" not in line)
    revealed = {int(m["line"]): m["type"] for m in map(REVEALED.match, output.splitlines()) if m}
    assert len(revealed) == len(karpenter_gpu.__all__) > 50
    untyped = [karpenter_gpu.__all__[line - 2] for line, t in revealed.items() if t == "Any"]
    assert not untyped, f"statically Any at the package root: {untyped}"


def test_deliberate_mistakes_fail_mypy_strict_with_the_expected_errors(mypy):
    path = FIXTURES / "mistakes.py"
    expected = {(n, m.group(1)) for n, line in enumerate(path.read_text().splitlines(), 1)
                if (m := EXPECTED.search(line))}
    assert len(expected) >= 10
    errors, output = mypy(path)
    assert {(int(e["line"]), e["code"]) for e in errors} == expected, output
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
