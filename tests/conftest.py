"""Shared fixtures: a chart to build into, synthesized manifests, the v1.14.1 CRDs."""

from __future__ import annotations

import gc
import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

import pytest
import yaml

from karpenter_gpu.apiserver.conformance import load_crds
from karpenter_gpu.apiserver.crd_source import resolve_crd_dir
from karpenter_gpu.k8s import yaml_loader
from karpenter_gpu.k8s.yaml_loader import Loader

if TYPE_CHECKING:
    import cdk8s

    from karpenter_gpu.k8s.controller_settings import ControllerSettings

ROOT = Path(__file__).resolve().parents[1]


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    """Temporary files of this run, the jsii runtime's included, go under pytest's own tmp folder.

    ``cdk8s.Testing.app()`` makes a ``cdk8s.outdir.*`` folder in Node's ``os.tmpdir()`` per call and
    never removes it; the jsii runtime starts at the first ``import cdk8s`` (collection, after this
    hook) and reads TMPDIR then, so pointing TMPDIR here keeps those folders inside the basetemp,
    which pytest prunes (the last 3 runs are kept).
    """
    factory = getattr(config, "_tmp_path_factory", None)
    if factory is None:
        return
    # hypothesis keeps its example database and caches in ./.hypothesis unless told otherwise: here in the run's
    # basetemp, one folder for the controller and every xdist worker (whose basetemp is a popen-gwN folder in it),
    # so the workers read the constants cache the controller wrote (tests/prewarm.py). Both are safe to share.
    from hypothesis.configuration import set_hypothesis_home_dir

    base = factory.getbasetemp()
    set_hypothesis_home_dir((base.parent if hasattr(config, "workerinput") else base) / "hypothesis")
    if "cdk8s" in sys.modules:
        return
    tmp = factory.getbasetemp() / "tmp"
    tmp.mkdir(exist_ok=True)
    os.environ["TMPDIR"] = str(tmp)
    tempfile.tempdir = None  # re-read TMPDIR


#: The test modules that take longest, longest first (their own time in a `make test` run: subprocesses of
#: Python and Node, kill -9 rounds, mypy, the CEL differential; BENCHMARKS.md "Issue 25"). They run first, so
#: the modules left at the end of a run are short ones and the `--dist loadfile` workers finish together
#: (`make test` passes --no-loadscope-reorder, which keeps this order). Only the order: a name missing here
#: costs balance, never a result.
SLOWEST_FIRST = (
    "test_dist.py", "test_pipeline_crash.py", "test_pipeline_mounts.py", "test_cluster.py", "test_pipeline_lock.py",
    "test_cel_backends.py", "test_typing.py", "test_pipeline.py", "test_gpu_platform.py", "test_contract.py",
    "test_yaml_loader.py", "test_nodejs.py", "test_pipeline_faults.py", "test_cli_synth.py", "test_pipeline_recovery.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Modules in SLOWEST_FIRST first, in its order; the others after them, as collected (a stable sort: the
    order within a module never changes)."""
    rank = {name: i for i, name in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


def pytest_collection_finish(session: pytest.Session) -> None:
    """With ``KARPENTER_GPU_TUNE_GC=1`` (``make test`` sets it): what collection imported (the package, cdk8s's
    bindings, hypothesis, every test module) lives until the process ends, so it is frozen out of the cyclic
    collector's passes, which would otherwise re-scan it at every full pass, and the passes are spaced as the CLI
    spaces its own (``karpenter_gpu.perf.tune_collector``): together about 3 s of CPU per `make test`. Cycles the
    tests create are still collected. Without it, the collector runs as Python sets it."""
    from karpenter_gpu import perf

    if perf.tuning_collector():
        gc.collect()
        gc.freeze()
        perf.tune_collector()


_ROOT_ENTRIES: set[str] = set()
#: Opt-in to tests/prewarm.py in the controller of a ``-n`` run (``make test`` sets it).
PREWARM_ENV = "KARPENTER_GPU_PREWARM"


def pytest_sessionstart(session: pytest.Session) -> None:
    """Notes the repository's top level (see pytest_sessionfinish). In the controller of a ``-n`` run, works out
    once what each worker would otherwise work out for itself (tests/prewarm.py), when ``KARPENTER_GPU_PREWARM=1``
    asks (``make test`` sets it): the checkout's bytecode on every core, before xdist starts the workers (its own
    pytest_sessionstart is trylast); then hypothesis's constants and category table, beside the starting
    workers."""
    _ROOT_ENTRIES.update(p.name for p in ROOT.iterdir())
    config = session.config
    if (os.environ.get(PREWARM_ENV, "").strip() == "1" and not hasattr(config, "workerinput")
            and config.pluginmanager.hasplugin("dsession")):
        from tests import prewarm

        prewarm.prepare(config.rootpath, config, len(os.sched_getaffinity(0)))
        prewarm.start_caches(config.rootpath)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Tests write only under pytest's tmp paths: a new entry at the repository's top level fails the run."""
    new = sorted(p.name for p in ROOT.iterdir() if p.name not in _ROOT_ENTRIES and p.name != "__pycache__")
    if new and _ROOT_ENTRIES:
        print(f"\ntests wrote outside pytest's tmp paths, into the repository: {', '.join(new)}", file=sys.stderr)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def load(text: str) -> Any:
    """``yaml.safe_load`` through the package's LibYAML loader (``yaml_loader.Loader``): the same data, without PyYAML's
    pure-Python scanner and parser (a tenth of the workers' time when test helpers read and wrote fixtures with
    them)."""
    return yaml.load(text, Loader=Loader)


def tree(directory: Path) -> dict[str, bytes]:
    """Every file under ``directory``: its path relative to it, and its bytes."""
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


@pytest.fixture(scope="session")
def synthesized(tmp_path_factory) -> Iterator[dict[str, Path]]:
    """What ``karpenter_gpu.synth`` writes for dev alone (``"a"``) and for every environment (``"b"``), once per
    test process. Tests only read these folders; a test that changes an existing output works on a copy
    (``shutil.copytree``). A change to them fails the run at the end, naming the folder."""
    import stacks
    from karpenter_gpu import synth

    base = tmp_path_factory.mktemp("synthesized")
    outputs = {"a": base / "a", "b": base / "b"}
    synth([stacks.dev.CONFIG], outputs["a"])
    synth(stacks.ENVIRONMENTS, outputs["b"])
    written = {name: tree(out) for name, out in outputs.items()}
    yield outputs
    changed = changed_outputs(outputs, written)
    assert not changed, f"a test changed a shared synth output (work on a shutil.copytree of it): {changed}"


def changed_outputs(outputs: dict[str, Path], written: dict[str, dict[str, bytes]]) -> list[str]:
    """The folders of ``outputs`` whose files are no longer ``written``."""
    return [str(out) for name, out in outputs.items() if tree(out) != written[name]]


@pytest.fixture(scope="session")
def trees(synthesized: dict[str, Path]) -> dict[str, dict[str, bytes]]:
    """The files of the ``synthesized`` outputs: ``"a"`` (dev alone) and ``"b"`` (every environment)."""
    return {name: tree(out) for name, out in synthesized.items()}


def find_crds_dir() -> Path:
    """The CRDs the tests check against: $KARPENTER_GPU_CRDS when set, else the packaged copy."""
    return resolve_crd_dir()


@pytest.fixture
def chart() -> cdk8s.Chart:
    import cdk8s

    return cdk8s.Chart(cdk8s.Testing.app(), "test")


def manifests(chart: cdk8s.Chart) -> list[dict[str, Any]]:
    """What `cdk8s synth` writes for this chart, as dicts."""
    import cdk8s

    return cdk8s.Testing.synth(chart)


def helm_values(scope: Any) -> dict[str, Any]:
    """The Helm values files synthesized for ``scope``'s environment (``helm/<file>``), by file name, each read back
    from its text as validate and explain read them."""
    from karpenter_gpu.addons.helm_values import helm_values_in

    return {v.file_name: yaml.safe_load(v.to_yaml()) for v in helm_values_in(scope)}


def karpenter_settings(scope: Any) -> ControllerSettings:
    """The Karpenter settings validate and explain use for ``scope``'s environment: its synthesized
    helm/karpenter.values.yaml (a KarpenterControllerValues), else the chart's defaults."""
    from karpenter_gpu.k8s.controller_settings import environment_settings
    from karpenter_gpu.upstream import KARPENTER_VALUES_FILE

    return environment_settings(helm_values(scope), f"helm/{KARPENTER_VALUES_FILE}")


def only(chart: cdk8s.Chart, kind: str) -> dict:
    found = [m for m in manifests(chart) if m["kind"] == kind]
    assert len(found) == 1, f"expected one {kind}, got {len(found)}"
    return found[0]


@pytest.fixture(scope="session")
def crds() -> dict:
    directory = find_crds_dir()
    if not (directory / "karpenter.sh_nodepools.yaml").is_file():
        pytest.fail(f"Karpenter v1.14.1 CRDs not found in {directory}: unset KARPENTER_GPU_CRDS to use the "
                    "packaged copy, or point it at a folder holding the CRD YAML files")
    return load_crds(directory)


def auto_mode_app(outdir: Path) -> cdk8s.App:
    """An EKS Auto Mode environment: an Auto Mode NodeClass, inference / training / static pools on it and a smoke
    workload, in a ``cdk8s.App`` whose outdir names the environment (``karpenter_gpu.synth`` writes it there)."""
    import cdk8s

    from karpenter_gpu import (AutoModeEphemeralStorage, AutoModeNodeClass, Duration, GpuInferencePool,
                               GpuTrainingPool, GpuWorkload, StaticCapacityPool)

    app = cdk8s.App(outdir=str(outdir))
    chart = cdk8s.Chart(app, "auto")
    auto = AutoModeNodeClass(chart, "Auto", name="gpu-auto", role="AmazonEKSAutoNodeRole",
                             subnet_tags={"kubernetes.io/role/internal-elb": "1"},
                             security_group_tags={"aws:eks:cluster-name": "ml"},
                             ephemeral_storage=AutoModeEphemeralStorage.gpu())
    inference = GpuInferencePool(chart, "Inference", node_class=auto, name="auto-inference", gpu_limit=8,
                                 gpu_names=("l4", "a10g"))
    GpuTrainingPool(chart, "Training", node_class=auto, name="auto-training", gpu_limit=16,
                    expire_after=Duration.days(14))
    StaticCapacityPool(chart, "Warm", node_class=auto, name="auto-warm", replicas=1, gpu_names=("l4",))
    GpuWorkload(chart, "Smoke", pool=inference)
    return app


@pytest.fixture(params=["c", "python"])
def loader(request, monkeypatch):
    """The test runs with LibYAML's loader and with the pure-Python fallback (tests/test_input_layout.py,
    tests/test_yaml_loader.py, tests/test_git_revision.py)."""
    if request.param == "c":
        if not yaml.__with_libyaml__:
            pytest.fail("PyYAML without LibYAML: the C loader cannot be tested here")
        monkeypatch.setattr(yaml_loader, "Loader", yaml.CSafeLoader)
    else:
        monkeypatch.setattr(yaml_loader, "Loader", yaml.SafeLoader)
    return request.param
