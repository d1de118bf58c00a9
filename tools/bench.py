"""Benchmarks: synth, validate and simulator cost, side by side with their floors.

A script, not a test: it never fails on a target (exit 0). One run measures, for stacks of 10, 100
and 1,000 GPU pools (10 pools per environment, one cdk8s App per environment as main.py does):

- project   props -> validation -> cdk8s synth -> files, constructs built inside the timed region;
- bindings  the same manifests built directly as cdk8s.ApiObject + JsonPatch with the generated
            binding GVKs (karpenter_gpu._api_object.create) and synthesized: the floor of the design;
- yaml      the same dicts written with the LibYAML dumper (yaml.CSafeDumper): the physical floor;
- load      the project output's files read and parsed with the LibYAML loader (yaml.CSafeLoader):
            the floor of validate;
- validate  karpenter_gpu.check.validate.validate_dir on the project output (CRD schema + CEL + rules),
            in this process after a warm-up run (the CEL memo is warm);
- validate-cli `karpenter-gpu validate <output>` in a fresh process each time (CEL memo empty,
            interpreter start-up and imports included, the package's bytecode compiled first, as an
            installed wheel has it): what a user and CI wait for;
- simulate  karpenter_gpu.analysis.simulator.simulate_pools on the manifests, default catalog;
- pod_fit   one karpenter_gpu.analysis.pod_fit.pod_fit query on the manifests;
- cdk8s-cli `cdk8s synth` end to end for the bundled stacks (CLI + Node + Python start-up);
- make-test what `make test` runs: `karpenter-gpu validate dist`, then the whole suite with
            pytest-xdist (property test at its default 2,000 examples included), once.
- validate-mixed, diff-mixed  `karpenter-gpu validate` and `karpenter-gpu diff` (against a copy changed on many
            pools, node classes and overlays), each in a fresh process, of ONE environment of 500 and of 5,000 pools
            (reserved pools, spot ladders, many node classes, overlays: mixed_path), the two sizes side by side round
            by round; target time(5000)/time(500) <= 11 (every rule and the diff classifier index objects once).
- against   with --against REV: `validate`, `explain`, `explain --pod` and `diff` (against a copy with
            one pool per environment edited) on the 1,000-pool output, each in a fresh process, run by this
            checkout's package and by REV's (its constructs/ from `git archive`, first on PYTHONPATH, same
            interpreter and dependencies), side by side round by round: the ratio is this / REV.

Figures and their floors run interleaved, one repetition of each per round, and a ratio to a floor is
the median of the rounds' ratios: on a shared machine both sides of a ratio then see the same load.
simulate and pod_fit run the same way at 100 and 1,000 pools, so their scaling time(1000)/time(100) is
the median of per-round ratios too; so do project, validate and validate-cli, after the sizes' own figures
(the machine's speed can change between two sizes' blocks, and a ratio of their medians would show it). A garbage collection precedes every timed repetition (untimed), so
each starts from the same collector state.

Usage: python tools/bench.py [--sizes 10,100,1000] [--json FILE] [--reps-cli N] [--no-tests] [--against REV]
       python tools/bench.py --only validate-mixed,diff-mixed   (just those figures and their targets)
"""

from __future__ import annotations

import argparse
import compileall
import copy
import gc
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

import karpenter_gpu  # noqa: E402  (first: it points JSII_NODE at the packaged Node before cdk8s starts one)
import cdk8s  # noqa: E402
import yaml  # noqa: E402

from karpenter_gpu.k8s.yaml_loader import Loader  # noqa: E402  (LibYAML's C classes when PyYAML has them)
from karpenter_gpu.k8s.yaml_writer import Dumper  # noqa: E402
from constructs import Construct  # noqa: E402

from karpenter_gpu import (AmiAlias, CapacityReservationTerm, CapacityType, DisruptionWindow, Duration,  # noqa: E402
                           Fallback, GpuInferencePool, GpuNodeClass, GpuTrainingPool, NodeOverlayDiscourage,
                           PriceAdjustment, ReservedCapacityPool, RootVolume, SpotTier, TieredSpotPools)
from karpenter_gpu import _api_object  # noqa: E402
from karpenter_gpu.analysis.catalog import default_catalog  # noqa: E402
from karpenter_gpu.apiserver.crd_source import resolve_crd_dir  # noqa: E402
from karpenter_gpu.crds.ec2nodeclass.aws.k8s.karpenter import Ec2NodeClass  # noqa: E402
from karpenter_gpu.crds.nodeoverlay.sh.karpenter import NodeOverlay  # noqa: E402
from karpenter_gpu.crds.nodepool.sh.karpenter import NodePool  # noqa: E402
from karpenter_gpu.analysis import ceiling, simulator  # noqa: E402
from karpenter_gpu.k8s import offerings  # noqa: E402
from karpenter_gpu.analysis.pod_fit import pod_fit  # noqa: E402
from karpenter_gpu.analysis.pod_shape import PodShape  # noqa: E402
from karpenter_gpu.analysis.simulator import simulate_pools  # noqa: E402
from karpenter_gpu.apiserver import _cel  # noqa: E402
from karpenter_gpu.check.validate import validate_dir  # noqa: E402

# LibYAML where PyYAML has it (the floors must not be set by the pure-Python emitter/parser).
LOADER, DUMPER = Loader, Dumper  # the reader's choice: LibYAML's C classes, pure Python only without LibYAML
POOLS_PER_ENV = 10
#: A repetition slower than this stops the series early (the 2-core time box).
SLOW_REP_S = 60.0
ZONES = ("Asia/Seoul", "UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo")
BIG_TYPES = ("g5.12xlarge", "g5.24xlarge", "g6e.12xlarge", "g6e.24xlarge")
BINDINGS = {"EC2NodeClass": Ec2NodeClass, "NodePool": NodePool, "NodeOverlay": NodeOverlay}
POD = "gpus=1,cpu=4,memory=16Gi,tolerate=nvidia.com/gpu"

# figure -> the figure it is compared with (its floor)
FLOORS = {"project": "bindings", "bindings": "yaml", "validate": "load", "validate-cli": "load"}


# ---------------------------------------------------------------------------------------------
# The stacks


def _environments(pools: int) -> list[tuple[int, int]]:
    """(environment index, pools in it) for ``pools`` pools, 10 per environment."""
    envs, left, i = [], pools, 0
    while left > 0:
        envs.append((i, min(POOLS_PER_ENV, left)))
        left -= POOLS_PER_ENV
        i += 1
    return envs


def _build_env(app: cdk8s.App, env: int, pools: int) -> None:
    """GpuPlatform-like content from the public constructs: 2 node classes, pools, one overlay."""
    chart = cdk8s.Chart(app, f"env-{env:03d}")
    base = dict(ami=AmiAlias.al2023("v20251103"), role=f"KarpenterNodeRole-ml-{env}", cluster_name=f"ml-{env}",
                tags={"environment": f"env-{env}", "team": "ml-platform"})
    inference = GpuNodeClass(chart, "InferenceClass", name="gpu-inference", root_volume=RootVolume.inference(), **base)
    training = GpuNodeClass(chart, "TrainingClass", name="gpu-training", root_volume=RootVolume.training(), **base)
    for j in range(pools):
        window = DisruptionWindow(days="MON-FRI", start="09:00", end="19:00", time_zone=ZONES[(env + j) % len(ZONES)],
                                  nodes=0)
        if j % 2 == 0:
            GpuInferencePool(chart, f"Inference{j}", node_class=inference, name=f"gpu-inference-{j}",
                             gpu_limit=8 + j, weight=60 - j, disruption_windows=(window,))
        else:
            GpuTrainingPool(chart, f"Training{j}", node_class=training, name=f"gpu-training-{j}",
                            gpu_limit=16 + j, weight=90 - j, expire_after=Duration.never(),
                            disruption_windows=(window,))
        if (j + 1) % 10 == 0:  # one overlay every 10 pools, weights unique over the whole stack
            NodeOverlayDiscourage(chart, f"Discourage{j}", name=f"discourage-big-gpu-{env}-{j}",
                                  weight=env * 10 + j // 10 + 1, instance_types=BIG_TYPES,
                                  price_adjustment=PriceAdjustment.percent(30))


def project_path(pools: int, outdir: Path) -> None:
    for env, n in _environments(pools):
        app = cdk8s.App(outdir=str(outdir / f"env-{env:03d}"), yaml_output_type=cdk8s.YamlOutputType.FILE_PER_RESOURCE)
        _build_env(app, env, n)
        app.synth()


def read_manifests(outdir: Path) -> dict[str, list[dict]]:
    """environment -> manifest dicts, in file order."""
    out: dict[str, list[dict]] = {}
    for sub in sorted(p for p in outdir.iterdir() if p.is_dir()):
        docs = []
        for path in sorted(sub.glob("*.yaml")):
            docs.extend(d for d in yaml.load_all(path.read_text(), Loader=LOADER) if isinstance(d, dict))
        out[sub.name] = docs
    return out


def bindings_floor(manifests: dict[str, list[dict]], outdir: Path) -> None:
    for env, docs in manifests.items():
        app = cdk8s.App(outdir=str(outdir / env), yaml_output_type=cdk8s.YamlOutputType.FILE_PER_RESOURCE)
        chart = cdk8s.Chart(app, env)
        for i, doc in enumerate(docs):
            meta = doc["metadata"]
            _api_object.create(Construct(chart, f"R{i}"), binding=BINDINGS[doc["kind"]], name=meta["name"], spec=doc["spec"],
                               annotations=meta.get("annotations"), labels=meta.get("labels"),
                               namespace=meta.get("namespace"))
        app.synth()


def yaml_floor(manifests: dict[str, list[dict]], outdir: Path) -> None:
    for env, docs in manifests.items():
        folder = outdir / env
        folder.mkdir(parents=True)
        for doc in docs:
            with open(folder / f"{doc['kind']}.{doc['metadata']['name']}.k8s.yaml", "w") as f:
                yaml.dump(doc, f, Dumper=DUMPER, sort_keys=False)


def load_floor(outdir: Path) -> int:
    """Read and parse every manifest file under ``outdir`` with the LibYAML loader; the document count."""
    count = 0
    for path in sorted(outdir.rglob("*.yaml")):
        count += sum(1 for _ in yaml.load_all(path.read_text(), Loader=LOADER))
    return count


def validate_cli_once(outdir: Path):
    """A callable running `karpenter-gpu validate` in a fresh process (CEL memo empty); it returns a note."""
    return cli_once(["validate", str(outdir)])


def revision_package(rev: str, into: Path) -> Path:
    """The ``constructs/`` folder of git revision ``rev`` of this repository, extracted under ``into``."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev, "constructs"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into / "constructs"


def edited_copy(outdir: Path, into: Path) -> Path:
    """A copy of ``outdir`` with the first NodePool of every environment edited (weight and GPU limit): the
    other side of the ``diff`` figure."""
    shutil.copytree(outdir, into)
    for env in sorted(p for p in into.iterdir() if p.is_dir()):
        for path in sorted(env.glob("*.yaml")):
            doc = yaml.load(path.read_text(), Loader=LOADER)
            if isinstance(doc, dict) and doc.get("kind") == "NodePool":
                doc["spec"]["weight"] = doc["spec"].get("weight", 0) % 100 + 1
                doc["spec"].setdefault("limits", {})["nvidia.com/gpu"] = "64"
                path.write_text(yaml.dump(doc, Dumper=DUMPER, sort_keys=False))
                break
    return into


# One large environment: every object in one folder, as the rules and the diff see them together (the 10-pool
# environments above never grow a cross-object comparison past 10 pools).
MIXED_BLOCK = 10  # pools per block: 2 reserved, a spot ladder of 3, 3 inference, 2 training; 2 node classes, 1 overlay
SPOT_LADDER = (SpotTier(suffix="a10g-spot", gpu_names=("a10g",), gpu_limit=20),
               SpotTier(suffix="l4-spot", gpu_names=("l4",), gpu_limit=20))
SPOT_FLOOR = SpotTier(suffix="a10g-on-demand", gpu_names=("a10g",), gpu_limit=10,
                      capacity_types=(CapacityType.ON_DEMAND,))


def _build_mixed_block(chart: cdk8s.Chart, b: int) -> None:
    """Block ``b`` of a mixed environment (:data:`MIXED_BLOCK` pools): a node class selecting capacity reservations
    with two ReservedCapacityPools on it, a plain node class with a TieredSpotPools ladder (3 pools), 3 inference and
    2 training pools on it, and one NodeOverlay; names unique over the environment."""
    base = dict(ami=AmiAlias.al2023("v20251103"), role="KarpenterNodeRole-ml", cluster_name="ml",
                tags={"block": f"b{b}", "team": "ml-platform"})
    reserved = GpuNodeClass(chart, f"Reserved{b}", name=f"gpu-reserved-{b}", root_volume=RootVolume.training(),
                            capacity_reservations=(CapacityReservationTerm.by_tags({"block": f"b{b}"}),), **base)
    plain = GpuNodeClass(chart, f"Plain{b}", name=f"gpu-plain-{b}", root_volume=RootVolume.inference(), **base)
    window = DisruptionWindow(days="MON-FRI", start="09:00", end="19:00", time_zone=ZONES[b % len(ZONES)], nodes=0)
    for j in range(2):  # every other block ranks one below its training pools (KG463)
        ReservedCapacityPool(chart, f"Reserved{b}-{j}", node_class=reserved, name=f"gpu-reserved-{b}-{j}",
                             gpu_limit=16 + j, expire_after=Duration.never(), fallback=Fallback.ON_DEMAND,
                             weight=89 if j and b % 2 else 100)
    TieredSpotPools(chart, f"Spot{b}", node_class=plain, name=f"gpu-batch-{b}", tiers=SPOT_LADDER,
                    on_demand_floor=SPOT_FLOOR)
    for j in range(3):
        GpuInferencePool(chart, f"Inference{b}-{j}", node_class=plain, name=f"gpu-inference-{b}-{j}",
                         gpu_limit=8 + j, weight=60 - j, disruption_windows=(window,))
    for j in range(2):
        GpuTrainingPool(chart, f"Training{b}-{j}", node_class=plain, name=f"gpu-training-{b}-{j}", gpu_limit=16 + j,
                        weight=90 - j, expire_after=Duration.never(), disruption_windows=(window,))
    NodeOverlayDiscourage(chart, f"Discourage{b}", name=f"discourage-big-gpu-{b}", weight=b + 1,
                          instance_types=BIG_TYPES, price_adjustment=PriceAdjustment.percent(30))


def mixed_path(pools: int, outdir: Path) -> None:
    """``pools`` pools (a multiple of :data:`MIXED_BLOCK`) in ONE environment, ``outdir/env-000``: many reserved
    pools, node classes, spot ladders and overlays side by side (the scale the cross-object rules and the diff's
    per-object look-ups must stay linear at). Every seventh inference pool loses its weight, as a hand edit would
    (KG404: the constructs always write one)."""
    app = cdk8s.App(outdir=str(outdir / "env-000"), yaml_output_type=cdk8s.YamlOutputType.FILE_PER_RESOURCE)
    chart = cdk8s.Chart(app, "env-000")
    for b in range(pools // MIXED_BLOCK):
        _build_mixed_block(chart, b)
    app.synth()
    for path in sorted((outdir / "env-000").glob("NodePool.gpu-inference-*.k8s.yaml"))[::7]:
        doc = yaml.load(path.read_text(), Loader=LOADER)
        doc["spec"].pop("weight", None)
        path.write_text(yaml.dump(doc, Dumper=DUMPER, sort_keys=False))


def edited_mixed(outdir: Path, into: Path) -> Path:
    """A copy of a :func:`mixed_path` output changed all over, the head side of the large ``diff`` figure: every
    third NodePool's weight and GPU limit, every fifth's requirements (one more instance size), every second
    EC2NodeClass's tags (a drift naming its pools), every overlay's price adjustment (a re-pricing), and per 100
    pools one pool removed, one renamed (same spec) and one added."""
    shutil.copytree(outdir, into)
    counts: dict[str, int] = {}
    for path in sorted(into.rglob("*.yaml")):
        doc = yaml.load(path.read_text(), Loader=LOADER)
        if not isinstance(doc, dict):
            continue
        kind = doc.get("kind")
        i = counts[kind] = counts.get(kind, -1) + 1
        spec = doc.get("spec") or {}
        if kind == "NodePool":
            if i % 100 == 1:
                path.unlink()  # removed
                continue
            if i % 100 == 2:  # renamed: the same spec under another name
                path.unlink()
                doc["metadata"]["name"] += "-renamed"
                path = path.with_name(path.name.replace(".k8s.yaml", "-renamed.k8s.yaml"))
            elif i % 100 == 3:  # added: a copy under a new name
                extra = copy.deepcopy(doc)
                extra["metadata"]["name"] += "-added"
                path.with_name(path.name.replace(".k8s.yaml", "-added.k8s.yaml")).write_text(
                    yaml.dump(extra, Dumper=DUMPER, sort_keys=False))
            if i % 3 == 0:
                spec["weight"] = spec.get("weight", 0) % 100 + 1
                spec.setdefault("limits", {})["nvidia.com/gpu"] = "64"
            if i % 5 == 0:
                spec["template"]["spec"]["requirements"].append(
                    {"key": "karpenter.k8s.aws/instance-size", "operator": "NotIn", "values": ["metal"]})
        elif kind == "EC2NodeClass" and i % 2 == 0:
            spec.setdefault("tags", {})["cost-center"] = f"cc-{i}"
        elif kind == "NodeOverlay":
            spec["priceAdjustment"] = "+40%"
        else:
            continue
        path.write_text(yaml.dump(doc, Dumper=DUMPER, sort_keys=False))
    return into


def cli_commands(outdir: Path, edited: Path) -> dict[str, list[str]]:
    """The user-facing commands of the ``against`` figures (arguments after ``karpenter-gpu``)."""
    return {"validate": ["validate", str(outdir)],
            "explain": ["explain", str(outdir), "--format", "json"],
            "explain --pod": ["explain", str(outdir), "--pod", POD, "--format", "json"],
            "diff": ["diff", str(outdir), str(edited), "--format", "json"]}


def cli_once(args: list[str], pythonpath: str | None = None):
    """A callable running ``karpenter-gpu ARGS`` (what the console script runs, with this interpreter) in a fresh
    process, ``pythonpath`` first on the path; it returns a note: the exit code and the last line of output."""
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [sys.executable, "-m", "karpenter_gpu.cli.main", *args]

    def run() -> str:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        note = f"exit {proc.returncode}: {(proc.stdout.strip().splitlines() or [''])[-1][:160]}"
        return note + (f"; stderr: {proc.stderr.strip()[:200]}" if proc.stderr.strip() else "")

    return run


def against_figures(outdir: Path, rev: str, reps: int) -> list[dict]:
    """The ``against`` figures: each command of :func:`cli_commands` by this checkout and by ``rev``, side by
    side round by round; ``ratio`` is the median of the rounds' this / rev."""
    out = []
    rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", rev], capture_output=True, text=True,
                         check=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="kg-bench-against-") as tmp:
        old = revision_package(rev, Path(tmp))
        compileall.compile_dir(str(old / "karpenter_gpu"), quiet=1)  # its bytecode too, as for this checkout
        edited = edited_copy(outdir, Path(tmp) / "edited")
        for name, args in cli_commands(outdir, edited).items():
            m = measure_interleaved({"rev": (cli_once(args, str(old)), False, None),
                                     "this": (cli_once(args, None), False, "rev")}, reps)
            this, base = m["this"], m["rev"]
            out.append({"command": name, "rev": rev, "n": this["n"], "this": this["median"], "base": base["median"],
                        "ratio": statistics.median(this["paired_ratios"]),
                        "note": f"this: {this['_last']}; {rev}: {base['_last']}"})
            print(f"  against    {name:<14} this {_fmt(this['median']):>10}  {rev} {_fmt(base['median']):>10}  "
                  f"ratio {out[-1]['ratio']:.2f}x  [{out[-1]['note']}]", file=sys.stderr, flush=True)
    return out


# ---------------------------------------------------------------------------------------------
# Timing


def measure(fn, reps: int, fresh_dir: bool = False) -> dict:
    """Median/min/max of ``reps`` calls (fewer if one takes longer than SLOW_REP_S)."""
    times: list[float] = []
    note = ""
    for _ in range(reps):
        tmp = Path(tempfile.mkdtemp(prefix="kg-bench-")) if fresh_dir else None
        gc.collect()  # every repetition starts from the same collector state (untimed)
        try:
            t0 = time.perf_counter()
            last = fn(tmp) if fresh_dir else fn()
            times.append(time.perf_counter() - t0)
        finally:
            if tmp is not None:
                shutil.rmtree(tmp, ignore_errors=True)
        if times[-1] > SLOW_REP_S and len(times) < reps:
            note = f"stopped after {len(times)} of {reps} repetitions (> {SLOW_REP_S:.0f} s each)"
            break
    return {"n": len(times), "median": statistics.median(times), "min": min(times), "max": max(times),
            "times": times, "note": note, "_last": last}


def measure_interleaved(fns: dict[str, tuple], reps: int) -> dict[str, dict]:
    """Like :func:`measure` for several figures at once, one repetition of each per round.

    On a shared machine the load changes from second to second; run side by side, a figure and its
    floor see the same load, so each round gives one ratio (``ratios[name]``, figure / floor) whose
    median is the ratio reported. ``fns``: name -> (callable, fresh_dir, floor name or None).
    """
    times: dict[str, list[float]] = {name: [] for name in fns}
    last: dict[str, object] = {}
    note = ""
    for _ in range(reps):
        for name, (fn, fresh_dir, _floor) in fns.items():
            tmp = Path(tempfile.mkdtemp(prefix="kg-bench-")) if fresh_dir else None
            gc.collect()  # every repetition starts from the same collector state (untimed)
            try:
                t0 = time.perf_counter()
                last[name] = fn(tmp) if fresh_dir else fn()
                times[name].append(time.perf_counter() - t0)
            finally:
                if tmp is not None:
                    shutil.rmtree(tmp, ignore_errors=True)
        if max(t[-1] for t in times.values()) > SLOW_REP_S and len(times[next(iter(fns))]) < reps:
            note = f"stopped after {len(times[next(iter(fns))])} of {reps} rounds (> {SLOW_REP_S:.0f} s)"
            break
    out = {}
    for name, (_fn, _fresh_dir, floor) in fns.items():
        ts = times[name]
        m = {"n": len(ts), "median": statistics.median(ts), "min": min(ts), "max": max(ts), "times": ts,
             "note": note, "_last": last.get(name)}
        if floor in times:
            m["paired_ratios"] = [a / b for a, b in zip(ts, times[floor])]
        out[name] = m
    return out


def side_by_side(fig: str, at_100, at_1000, fresh_dir: bool, reps: int,
                 sizes: tuple[int, int] = (100, 1000)) -> tuple[dict, dict]:
    """``fig`` at 100 and at 1,000 pools (or the two ``sizes``), one repetition of each per round
    (:func:`measure_interleaved`): the second's ``paired_ratios`` are its scaling, round by round."""
    small, large = (f"{fig}@{n}" for n in sizes)
    m = measure_interleaved({small: (at_100, fresh_dir, None), large: (at_1000, fresh_dir, small)}, reps)
    return m[small], m[large]


#: The sizes of the one-environment rounds (:func:`mixed_path`), run side by side: validate and diff stay linear.
MIXED_SIZES = (500, 5000)
#: figure -> what it runs on a mixed environment of N pools.
MIXED_FIGURES = ("validate-mixed", "diff-mixed")


def mixed_figures(wanted: set[str], reps: int) -> tuple[list[tuple[str, int, dict]], dict[str, float]]:
    """``karpenter-gpu validate`` and ``karpenter-gpu diff --format json`` (against :func:`edited_mixed`) of one
    environment of 500 and of 5,000 pools (:func:`mixed_path`), each in a fresh process (:func:`cli_once`: what a user
    and CI wait for; in one process the bounded memos hold all of 500 pools' subtrees but not 5,000's, which would
    compare a warm run with a cold one), the two sizes side by side round by round: (figure, size, measurement)
    records and each figure's scaling, the median of the rounds' time(5000)/time(500)."""
    records: list[tuple[str, int, dict]] = []
    scaling: dict[str, float] = {}
    figures = [f for f in MIXED_FIGURES if f in wanted]
    if not figures:
        return records, scaling
    with tempfile.TemporaryDirectory(prefix="kg-bench-mixed-") as tmp:
        trees = {}
        for n in MIXED_SIZES:
            t0 = time.perf_counter()
            base = Path(tmp) / f"base-{n}"
            mixed_path(n, base)
            head = edited_mixed(base, Path(tmp) / f"head-{n}") if "diff-mixed" in figures else base
            trees[n] = (base, head)
            print(f"  (generated the {n:,}-pool environment and its edited copy in {time.perf_counter() - t0:.1f} s)",
                  file=sys.stderr, flush=True)
        make = {"validate-mixed": lambda n: cli_once(["validate", str(trees[n][0])]),
                "diff-mixed": lambda n: cli_once(["diff", str(trees[n][0]), str(trees[n][1]), "--format", "json"])}
        for fig in figures:
            small, large = side_by_side(fig, make[fig](MIXED_SIZES[0]), make[fig](MIXED_SIZES[1]), False, reps,
                                        MIXED_SIZES)
            for m in (small, large):
                m["note"] = (m["note"] + "; " if m["note"] else "") + str(m["_last"])
            large["scaling_ratios"] = large.pop("paired_ratios")
            scaling[fig] = statistics.median(large["scaling_ratios"])
            records += [(fig, MIXED_SIZES[0], small), (fig, MIXED_SIZES[1], large)]
    return records, scaling


def _fmt(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds < 1:
        return f"{seconds * 1000:.1f} ms"
    return f"{seconds:.2f} s"


def cdk8s_cli(reps: int) -> dict:
    env = dict(os.environ, PATH=f"{ROOT / 'node_modules' / '.bin'}:{os.environ.get('PATH', '')}",
               CDK8S_CHECK_UPGRADE="false")
    cli = str(ROOT / "node_modules" / ".bin" / "cdk8s")

    def run(tmp: Path) -> None:
        subprocess.run([cli, "synth", "-o", str(tmp / "dist"), "--no-check-upgrade"], cwd=ROOT, env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    return measure(run, reps, fresh_dir=True)


def _forget() -> None:
    """Empty what the simulator caches across calls (the limit ceilings, the admitted types per catalog, the overlay
    matches per requirements mapping): ``cache_clear`` of :mod:`karpenter_gpu.perf`'s caches."""
    ceiling._dearest_fill_memo.cache_clear()
    simulator._ADMITTED.cache_clear()
    offerings._SEEN.cache_clear()


#: GPU limits of the ceiling figures; CPU and memory limits scale with them (12 vCPU, 100 GiB per GPU).
CEILING_GPUS = (10, 100, 1000, 10000)


def ceiling_figures(flat: list[dict], catalog) -> list[dict]:
    """``simulate_pools`` at 1,000 pools with every pool limited to N GPUs, N*12 CPUs and N*100Gi (three limits:
    the branch and bound of several limits), empty memos each time: time, and how many ceilings stopped at the
    node budget (``ceiling.BUDGET``) instead of being proven."""
    out = []
    for gpus in CEILING_GPUS:
        docs = copy.deepcopy(flat)
        for d in docs:
            if d.get("kind") == "NodePool":
                d["spec"]["limits"] = {"nvidia.com/gpu": str(gpus), "cpu": str(gpus * 12), "memory": f"{gpus * 100}Gi"}
        times, reports = [], []
        for _ in range(3):
            _forget()
            t0 = time.perf_counter()
            reports = simulate_pools(docs, catalog)
            times.append(time.perf_counter() - t0)
        out.append({"gpus": gpus, "pools": len(reports), "median": statistics.median(times),
                    "capped": sum(not r.worst_case_exact for r in reports),
                    "nodes": max((sum(n for _, n in r.worst_case_nodes) for r in reports), default=0)})
    return out


def test_suite(timeout: float) -> dict:
    """`make test`'s commands, once: validate dist/, then the suite on every core (property test included)."""
    py = str(ROOT / ".venv" / "bin" / "python")
    cmds = [[py, "-m", "karpenter_gpu.cli.main", "validate", "dist"], [py, "-m", "pytest", "-q", "-n", "auto",
                                                                        "--dist", "loadfile", "--no-loadscope-reorder"]]
    env = dict(os.environ, KARPENTER_GPU_PREWARM="1", KARPENTER_GPU_TUNE_GC="1")  # what `make test` sets
    t0 = time.perf_counter()
    last, code = "", 0
    for cmd in cmds:
        try:
            proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            return {"n": 0, "median": None, "note": f"not measured: timed out after {timeout:.0f} s"}
        last, code = (proc.stdout.strip().splitlines() or [""])[-1], proc.returncode
        if code:
            break
    elapsed = time.perf_counter() - t0
    return {"n": 1, "median": elapsed, "min": elapsed, "max": elapsed, "times": [elapsed],
            "note": f"exit {code}: {last}"}


# ---------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10,100,1000", help="pool counts, comma-separated (default 10,100,1000)")
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    ap.add_argument("--reps", type=int, default=5, help="repetitions below 1,000 pools (default 5)")
    ap.add_argument("--reps-large", type=int, default=3, help="repetitions at 1,000 pools and more (default 3)")
    ap.add_argument("--reps-scaling", type=int, default=9,
                    help="rounds of the analyzers at 100 and 1,000 pools side by side (default 9)")
    ap.add_argument("--reps-cli", type=int, default=2, help="repetitions of `cdk8s synth` (default 2; 0 skips)")
    ap.add_argument("--figures", default="project,bindings,yaml,load,validate,validate-cli,simulate,pod_fit,"
                    + ",".join(MIXED_FIGURES), help="figures to measure (default: all)")
    ap.add_argument("--reps-mixed", type=int, default=5,
                    help="rounds of validate-mixed and diff-mixed at 500 and 5,000 pools side by side (default 5)")
    ap.add_argument("--only", metavar="FIGURES", help="measure only these figures (comma-separated, e.g. "
                    "validate-mixed,diff-mixed: validate and diff of one environment at 500 and 5,000 pools side by "
                    "side) and print only their targets: no other size, no cdk8s synth, no test suite")
    ap.add_argument("--no-tests", action="store_true", help="do not time the test suite")
    ap.add_argument("--tests-timeout", type=float, default=600, help="give up on the test suite after this (s)")
    ap.add_argument("--against", metavar="REV", help="also run validate, explain and diff at 1,000 pools with the "
                    "package of git revision REV, side by side (needs size 1000)")
    ap.add_argument("--reps-against", type=int, default=5, help="rounds of the --against figures (default 5)")
    args = ap.parse_args(argv)
    load_start = os.getloadavg()  # the machine may be shared: say how busy it was
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    wanted = set(args.figures.split(","))
    if args.only:
        wanted = set(args.only.split(","))
        sizes = [] if wanted <= set(MIXED_FIGURES) else sizes
        args.reps_cli, args.no_tests = 0, True
    crd_dir = resolve_crd_dir()
    os.environ.setdefault("KARPENTER_GPU_CRDS", str(crd_dir))  # for validate-cli
    cel_backend = _cel.backend().name if hasattr(_cel, "backend") else "celpy"  # (before the backends)
    catalog = default_catalog()
    shape = PodShape.parse(POD)

    # The package's bytecode, as an installed wheel has it (pip compiles on install): the fresh-process figures
    # measure a user's run, not the compiler (the editable checkout has none when PYTHONDONTWRITEBYTECODE is set).
    compileall.compile_dir(str(Path(karpenter_gpu.__file__).parent), quiet=1)
    # Warm-up outside every timed region: the jsii runtime (Node start-up) and lazy imports.
    with tempfile.TemporaryDirectory() as tmp:
        project_path(2, Path(tmp))
        validate_dir(Path(tmp), crd_dir)
        simulate_pools([d for docs in read_manifests(Path(tmp)).values() for d in docs], catalog)

    results: list[dict] = []
    against: list[dict] = []
    flats: dict[int, list[dict]] = {}  # size -> the project's manifests, for the analyzers
    trees: dict[int, Path] = {}  # 100 and 1,000 pools: the project's output, kept for the scaling rounds

    def record(figure: str, size: int | str, m: dict) -> None:
        m.pop("_last", None)
        results.append({"figure": figure, "size": size, **m})
        print(f"  {figure:<10} {size!s:>6}  median {_fmt(m.get('median')):>10}  (n={m.get('n')}) {m.get('note', '')}",
              file=sys.stderr, flush=True)

    for size in sizes:
        reps = args.reps if size < 1000 else args.reps_large
        keep = Path(tempfile.mkdtemp(prefix=f"kg-bench-{size}-"))
        try:
            # Once, untimed: the project's output, whose dicts feed the floors, validate and the simulator.
            project_path(size, keep)
            manifests = read_manifests(keep)
            flat = [d for docs in manifests.values() for d in docs]
            # Figures and their floors interleaved round by round (see measure_interleaved).
            timed: dict[str, tuple] = {}
            if "bindings" in wanted:
                timed["bindings"] = (lambda tmp: bindings_floor(manifests, tmp), True, "yaml")
            if "project" in wanted:
                timed["project"] = (lambda tmp: project_path(size, tmp), True, "bindings")
            if "yaml" in wanted:
                timed["yaml"] = (lambda tmp: yaml_floor(manifests, tmp), True, None)
            if "load" in wanted:
                timed["load"] = (lambda: load_floor(keep), False, None)
            if "validate" in wanted:
                validate_dir(keep, crd_dir)  # warm: CEL rules compiled, outcomes memoized
                timed["validate"] = (lambda: validate_dir(keep, crd_dir), False, "load")
            if "validate-cli" in wanted:
                timed["validate-cli"] = (validate_cli_once(keep), False, "load")
            measured = measure_interleaved(timed, reps) if timed else {}
            for name, m in measured.items():
                if name == "load":
                    m["note"] = f"{m['_last']} documents"
                elif name == "validate":
                    m["note"] = (m["note"] + "; " if m["note"] else "") + m["_last"].summary() + f"; CEL: {cel_backend}"
                elif name == "validate-cli":
                    m["note"] = (m["note"] + "; " if m["note"] else "") + m["_last"]
            for name in ("project", "bindings", "yaml", "load", "validate", "validate-cli"):
                if name in measured:
                    record(name, size, measured[name])
            flats[size] = flat
            if args.against and size == 1000:
                against = against_figures(keep, args.against, args.reps_against)
        finally:
            if size in (100, 1000):
                trees[size] = keep
            else:
                shutil.rmtree(keep, ignore_errors=True)

    # The analyzers' scaling: time(1000)/time(100) from the two sizes run side by side, round by round
    # (as the floors are), so both see the same load; other sizes are measured on their own.
    # Each call starts from empty memos (the ceilings and admitted types remembered across calls): per call.
    analyzers = {"simulate": lambda flat: (lambda: (_forget(), simulate_pools(flat, catalog))),
                 "pod_fit": lambda flat: (lambda: (_forget(), pod_fit(shape, flat, catalog)))}
    for fig, make in analyzers.items():
        if fig not in wanted:
            continue
        paired = (100, 1000) if {100, 1000} <= flats.keys() else ()
        if paired:
            small, large = side_by_side(fig, make(flats[100]), make(flats[1000]), False, args.reps_scaling)
            large["scaling_ratios"] = large.pop("paired_ratios")
            record(fig, 100, small)
            record(fig, 1000, large)
        for size in sorted(set(flats) - set(paired)):
            record(fig, size, measure(make(flats[size]), args.reps if size < 1000 else args.reps_large))

    # The same for the project path and validate: the two sizes side by side, round by round (their figures at
    # each size above are for the ratios to their floors).
    paired_scaling: dict[str, list[float]] = {}
    if {100, 1000} <= trees.keys():
        sides = {"project": lambda size: (lambda tmp: project_path(size, tmp), True, args.reps_large),
                 "validate": lambda size: (lambda: validate_dir(trees[size], crd_dir), False, args.reps_scaling),
                 "validate-cli": lambda size: (validate_cli_once(trees[size]), False, args.reps_large)}
        for fig, side in sides.items():
            if fig not in wanted:
                continue
            (fn100, fresh, reps), (fn1000, _, _) = side(100), side(1000)
            paired_scaling[fig] = side_by_side(fig, fn100, fn1000, fresh, reps)[1]["paired_ratios"]
    for tree in trees.values():
        shutil.rmtree(tree, ignore_errors=True)

    ceilings = ceiling_figures(flats[1000], catalog) if 1000 in flats and "simulate" in wanted else []

    mixed, mixed_scaling = mixed_figures(wanted, args.reps_mixed)
    for fig, size, m in mixed:
        record(fig, size, m)

    if args.reps_cli > 0:
        record("cdk8s-cli", "stacks", cdk8s_cli(args.reps_cli))
    if args.only:
        pass
    elif args.no_tests:
        record("make-test", "suite", {"n": 0, "median": None, "note": "not measured"})
    else:
        record("make-test", "suite", test_suite(args.tests_timeout))

    # Ratios to the floor (same size) and scaling time(1000)/time(100).
    by = {(r["figure"], r["size"]): r for r in results}
    for r in results:
        floor = by.get((FLOORS.get(r["figure"]), r["size"]))
        r["floor"] = FLOORS.get(r["figure"])
        if r.get("paired_ratios"):  # measured side by side with its floor: the median of the rounds' ratios
            r["ratio_to_floor"] = statistics.median(r["paired_ratios"])
        else:
            r["ratio_to_floor"] = (r["median"] / floor["median"]) if floor and r.get("median") and floor.get("median") else None
    scaling = {}
    for fig in dict.fromkeys(r["figure"] for r in results):
        a, b = by.get((fig, 100)), by.get((fig, 1000))
        if b and b.get("scaling_ratios"):  # side by side: the median of the rounds' ratios
            scaling[fig] = statistics.median(b["scaling_ratios"])
        elif paired_scaling.get(fig):
            scaling[fig] = statistics.median(paired_scaling[fig])
        elif fig in mixed_scaling:
            scaling[fig] = mixed_scaling[fig]
        elif a and b and a.get("median") and b.get("median"):
            scaling[fig] = b["median"] / a["median"]

    # Targets.
    targets = []

    def target(name: str, value: float | None, limit: float, unit: str, figure: str | None = None) -> None:
        if args.only and figure not in wanted:
            return  # --only: the targets of the figures asked for
        if value is None:
            targets.append({"target": name, "value": None, "limit": limit, "status": "NOT MEASURED"})
        else:
            targets.append({"target": name, "value": value, "limit": limit,
                            "status": "PASS" if value <= limit else "FAIL", "unit": unit})

    # Issue 33: validate and diff linear in the size of one environment (every rule and the diff index once).
    for fig in MIXED_FIGURES:
        if fig in wanted:
            target(f"time(5000)/time(500) <= 11: {fig.removesuffix('-mixed')}, one environment (reserved pools, "
                   "node classes, spot ladders, overlays)", scaling.get(fig), 11, "x", fig)

    # The targets of issue 14 (measured in this run), then the earlier ones.
    v = by.get(("validate-cli", 1000))
    target("validate 1,000 pools, fresh process (CEL memo empty) <= 1.5 s", v and v["median"], 1.5, "s")
    target("validate 1,000 pools, fresh process <= 2x reading+parsing its files (LibYAML)",
           v and v["ratio_to_floor"], 2, "x")
    p = by.get(("project", 1000))
    target("project path <= 1.25x bindings floor at 1,000 pools", p and p["ratio_to_floor"], 1.25, "x")
    for fig in ("simulate", "pod_fit"):
        if (fig, 100) in by or (fig, 1000) in by:
            target(f"time(1000)/time(100) <= 11: {fig}{' (explain --pod)' * (fig == 'pod_fit')}",
                   scaling.get(fig), 11, "x")
    t = by.get(("make-test", "suite"))
    target("make test (quick sizes; the deep runs are make soak) <= 60 s", t and t.get("median"), 60, "s")
    # The floors (bindings, yaml, load) are not the project's code: their scaling is printed above, not judged.
    for fig in ("project", "validate", "validate-cli"):
        if (fig, 100) in by or (fig, 1000) in by:
            target(f"time(1000)/time(100) <= 11: {fig}", scaling.get(fig), 11, "x")
    w = by.get(("validate", 1000))
    target("validate 1,000 pools, warm, <= 1.5 s", w and w["median"], 1.5, "s")
    s = by.get(("simulate", 100))
    target("simulator 100 pools <= 50 ms", s and s["median"], 0.050, "s")
    for a in against:  # within 5%: the rounds' own spread on an idle machine
        target(f"{a['command']} 1,000 pools, fresh process, no slower than {a['rev']} (<= 1.05x)", a["ratio"], 1.05,
               "x")

    # Report.
    head = f"{'figure':<12} {'size':>6} {'n':>2} {'median':>10} {'min':>10} {'max':>10}  {'ratio to floor':<26}"
    lines = [head, "-" * len(head)]
    for r in results:
        ratio = (f"{r['ratio_to_floor']:.2f}x {r['figure']}/{r['floor']}" + (" (p)" if r.get("paired_ratios") else "")
                 if r.get("ratio_to_floor") else "")
        lines.append(f"{r['figure']:<12} {r['size']!s:>6} {r.get('n', 0):>2} {_fmt(r.get('median')):>10} "
                     f"{_fmt(r.get('min')):>10} {_fmt(r.get('max')):>10}  {ratio:<26}"
                     + (f"  [{r['note']}]" if r.get("note") else ""))
    lines += ["(p): the median of per-round ratios, the figure and its floor run side by side in each round"]
    lines += ["", "scaling time(1000)/time(100) (the -mixed figures: time(5000)/time(500)):"]
    lines += [f"  {fig:<10} {ratio:.2f}x{' (p)' if fig in paired_scaling or fig in mixed_scaling or (by.get((fig, 1000)) or {}).get('scaling_ratios') else ''}"
              for fig, ratio in scaling.items()] or ["  (needs sizes 100 and 1000)"]
    lines += ["  (p): the median of per-round ratios, the two sizes run side by side in each round"]
    if against:
        lines += ["", f"against {against[0]['rev']} at 1,000 pools (fresh processes, side by side; ratio: this / "
                      f"{against[0]['rev']}):"]
        lines += [f"  {a['command']:<14} this {_fmt(a['this']):>10}  {a['rev']} {_fmt(a['base']):>10}  {a['ratio']:.2f}x"
                  f"  [{a['note']}]" for a in against]
    if ceilings:
        lines += ["", f"exact ceilings at 1,000 pools (limits: N GPUs, 12N CPUs, 100N Gi; budget {ceiling.BUDGET:,} "
                      "branch-and-bound nodes per pool):"]
        lines += [f"  N={c['gpus']:>6}  simulate {_fmt(c['median']):>10}  {c['capped']} of {c['pools']} pools at the "
                  f"budget (LP bound quoted), largest fill {c['nodes']:,} nodes" for c in ceilings]
    load_end = os.getloadavg()
    lines += ["", f"load average (1/5/15 min) on {os.cpu_count()} cores: at start "
                  f"{'/'.join(f'{x:.1f}' for x in load_start)}, at end {'/'.join(f'{x:.1f}' for x in load_end)}"]
    lines += ["", "targets:"]
    for t in targets:
        value = "-" if t["value"] is None else (_fmt(t["value"]) if t.get("unit") == "s" else f"{t['value']:.2f}x")
        lines.append(f"  {t['status']:<12} {t['target']}  (measured {value})")
    print("\n".join(lines))

    if args.json:
        machine = {"python": platform.python_version(), "platform": platform.platform(), "nproc": os.cpu_count(),
                   "cel_backend": cel_backend, "yaml_loader": LOADER.__name__, "yaml_dumper": DUMPER.__name__,
                   "loadavg_start": load_start, "loadavg_end": load_end}
        Path(args.json).write_text(json.dumps({"machine": machine, "results": results, "scaling": scaling,
                                               "ceilings": ceilings, "against": against,
                                               "targets": targets}, indent=2, default=str) + "\n")
    return 0  # never fail on a target


if __name__ == "__main__":
    sys.exit(main())
