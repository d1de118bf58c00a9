"""A wheel built from the repository works in a fresh virtual environment, outside the checkout."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
import venv
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.packaging  # a separate CI step: `pytest -m packaging`

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


def test_wheel_installs_and_synthesizes_outside_checkout(tmp_path: Path):
    # Build from a copy: setuptools leaves build/ behind, and a stale build/ could leak into a wheel.
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", ".venv", "node_modules", "build", "dist",
                                                                 "*.egg-info", "__pycache__", "tests"))
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(wheels), str(source)],
                   check=True, capture_output=True, text=True)
    wheel = next(wheels.glob("karpenter_gpu-*.whl"))
    with zipfile.ZipFile(wheel) as archive:  # the CRDs validation reads ship in the wheel, with their pins
        crds = sorted(n.rsplit("/", 1)[1] for n in archive.namelist() if n.startswith("karpenter_gpu/data/crds/"))
    assert crds == ["SOURCES.json", *sorted(p.name for p in (ROOT / "constructs/karpenter_gpu/data/crds").glob("*.yaml"))]
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    py = env_dir / "bin" / "python"
    install = subprocess.run([str(py), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(wheel)],
                             capture_output=True, text=True)
    assert install.returncode == 0, install.stderr
    work = tmp_path / "elsewhere"
    work.mkdir()
    result = subprocess.run([str(py), "-c", SCRIPT], cwd=work, capture_output=True, text=True, timeout=300,
                            env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
                                 "JSII_NODE": str(ROOT / "node_modules" / ".bin" / "node")})
    assert result.returncode == 0, result.stderr
    assert "kind: NodePool" in result.stdout and "name: team-gpu" in result.stdout
    assert "end-of-life" not in result.stderr
    assert "cel cel-expr-python (True, None)" in result.stdout
