"""The wheel, installed with the lowest versions pyproject.toml allows, works as the README promises.

A fresh venv gets the built wheel with every dependency pinned to its declared lower bound (the
`lowest-direct` resolution), then, with no Node on PATH, no JSII_NODE, and sockets refused (offline),
a platform app synthesizes through the library API and `karpenter-gpu validate` passes. Run by
.ci/run and `make lowest` (-m install): it installs from the package index and takes minutes.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.conftest import ROOT

pytestmark = pytest.mark.install

#: Put first on the path of every command below: any network connection fails the run.
OFFLINE = '''import socket
def _refuse(*args, **kwargs):
    raise OSError("network disabled by the lowest-versions test")
socket.socket.connect = _refuse
socket.create_connection = _refuse
'''


def lowest_pins(requires: list[str]) -> list[str]:
    """``name==lower bound`` for each requirement that applies here (extras and other platforms skipped)."""
    pins = []
    for line in requires:
        req = Requirement(line)
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        lower = [s.version for s in req.specifier if s.operator == ">="]
        assert lower, f"{line}: every dependency needs a tested lower bound (>=)"
        pins.append(f"{req.name}=={lower[0]}")
    return pins


def test_lowest_pins_cover_every_runtime_dependency() -> None:
    pins = lowest_pins(["pydantic>=2.10,<3", "x>=1; sys_platform == 'nonexistent'", "y[z]>=2; extra == 'lint'"])
    assert pins == ["pydantic==2.10"]


def run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=1200, **kwargs)
    assert done.returncode == 0, f"{cmd}: {done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def test_wheel_with_lowest_versions_synthesizes_without_node_and_validates_offline(tmp_path: Path) -> None:
    # Build from a copy: setuptools writes build/ and *.egg-info into the folder it builds.
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", ".venv", "node_modules", "build", "dist",
                                                                "*.egg-info", "__pycache__", "tests", ".*_cache"))
    wheels = tmp_path / "wheels"
    run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(wheels), str(source)])
    (wheel,) = wheels.glob("karpenter_gpu-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        metadata = archive.read(next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    requires = [line.split(":", 1)[1].strip() for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    pins = lowest_pins(requires)
    (tmp_path / "lowest.txt").write_text("\n".join(pins) + "\n")

    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", str(venv)])
    started = time.monotonic()
    run([str(venv / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check", str(wheel),
         "-c", str(tmp_path / "lowest.txt")])
    print(f"install with lowest versions: {time.monotonic() - started:.0f} s ({len(pins)} pins)")
    frozen = dict(line.split("==") for line in run([str(venv / "bin" / "pip"), "freeze"]).stdout.splitlines()
                  if "==" in line)
    installed = {canonicalize_name(name): Version(version) for name, version in frozen.items()}
    for pin in pins:  # the lower bounds are what got installed, not something newer
        name, version = pin.split("==")
        assert installed.get(canonicalize_name(name)) == Version(version), (pin, installed.get(canonicalize_name(name)))

    # A platform repo: its own modules (this repository's stacks, copied), nothing else beside them.
    app = tmp_path / "platform"
    shutil.copytree(ROOT / "stacks", app / "stacks", ignore=shutil.ignore_patterns("__pycache__"))
    (app / "offline").mkdir()
    (app / "offline" / "sitecustomize.py").write_text(OFFLINE)
    env = {"PATH": str(venv / "bin"), "HOME": str(tmp_path / "home"), "PYTHONPATH": str(app / "offline"),
           "TMPDIR": str(tmp_path), "LANG": "C.UTF-8"}
    assert shutil.which("node", path=env["PATH"]) is None
    done = run([str(venv / "bin" / "python"), "-c",
                "import karpenter_gpu, stacks; karpenter_gpu.synth(stacks.ENVIRONMENTS, 'dist')"], cwd=app, env=env)
    assert "end-of-life" not in done.stdout + done.stderr and done.stderr == "", done.stderr
    tree = {str(p.relative_to(app / "dist")) for p in (app / "dist").rglob("*") if p.is_file()}
    assert tree == {str(p.relative_to(ROOT / "dist")) for p in (ROOT / "dist").rglob("*") if p.is_file()}
    differing = sorted(name for name in tree if (app / "dist" / name).read_bytes() != (ROOT / "dist" / name).read_bytes())
    assert differing == [], f"the lowest versions render differently: {differing}"

    done = run([str(venv / "bin" / "karpenter-gpu"), "validate", "dist"], cwd=app, env=env)
    assert done.stdout.strip().splitlines()[-1].startswith("ok: 0 errors")
    done = run([str(venv / "bin" / "karpenter-gpu"), "synth", "--app", "stacks:ENVIRONMENTS", "--out", "dist2"],
               cwd=app, env=env)
    assert done.stdout.startswith("ok: dist2/ written")
