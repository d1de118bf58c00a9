"""The ``placement`` oracle family: the real charts, rendered by helm v4, against the Python placement model.

The Go program (tests/oracle/charts/, its own module: helm v4.3.2 and the k8s.io v0.37 libraries, apart from the
Karpenter module's) renders charts/karpenter of aws/karpenter-provider-aws v1.14.1 and the NVIDIA GPU Operator
v26.7.0 chart with each case's values, applies the operator's operand transform and places the NFD worker, every
enabled operand and the Karpenter controller on the case's synthetic nodes with component-helpers' predicates; it
also answers the controller's ``FEATURE_GATES``. :func:`core_answer` answers the same with
:mod:`karpenter_gpu.analysis.operand_placement` and :func:`karpenter_gpu.k8s.controller_settings.read_settings`.

Cases: generated platforms (pools, Auto Mode and hybrid nodes, NVIDIA, Neuron and CPU accelerators, MIG-capable
GPUs, random taints and labels incl. preset deploy labels) with random values: tolerations, selectors and required
affinity terms aimed at the nodes, every operand switch and feature gate of the charts, and any key path of the
charts' whole key trees set to a random value of its default's type, ``null`` or misspelt
(:mod:`tests.oracle.placement_values`); the Neuron device plugin's placement values (its chart is not reachable
offline: the Go program places the pod the values describe, it renders no chart); and every dist/ environment's pools
and values.

    python -m tests.oracle.placement_family --gpu-operator DIR [--count N] [--seed S]
    python -m tests.oracle.placement_family --gpu-operator DIR --write-vectors   # tests/oracle/vectors/placement.jsonl

``python -m tests.oracle.run`` (``make oracle``) runs the family too, when it finds the chart source
(``$KARPENTER_GPU_GPU_OPERATOR_SOURCE``, else the vendored copy tests/oracle/charts/gpu-operator), and says so
when it does not.

``--gpu-operator``: a checkout of NVIDIA/gpu-operator at the v26.7.0 tag (the module proxy does not serve that
module at the tag's commit). ``make test`` checks the committed vectors without Go or the charts
(tests/test_placement_vectors.py).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

from karpenter_gpu.analysis.operand_placement import (NEURON_DEVICE_PLUGIN, PlacementNode, chart_data, chart_refusals,
                                                      controller_placement, gpu_operator_placement, karpenter_refusals,
                                                      neuron_not_modelled, neuron_plugin_placement, not_modelled)
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.controller_settings import read_settings
from karpenter_gpu.upstream import DEFAULT_LINE, KARPENTER_LINES, KARPENTER_VERSION
from tests.oracle import placement_values

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
BUILD = ROOT / "build" / "oracle"
VECTORS = HERE / "vectors" / "placement.jsonl"
VECTOR_SEED = 20261203
VECTOR_COUNT = 400
FRESH_COUNT = 1000
KARPENTER_TAG = f"v{KARPENTER_VERSION}"

TAINT_KEYS = ["nvidia.com/gpu", "workload", "team", "aws.amazon.com/neuron", "on-premises", "example.com/x",
              "CriticalAddonsOnly", "node.kubernetes.io/unschedulable", "node.kubernetes.io/network-unavailable"]
TAINT_VALUES = ["", "true", "training", "research"]
EFFECTS = ["NoSchedule", "NoExecute", "PreferNoSchedule"]
LABEL_KEYS = ["gpu-operator", "workload", "team", "eks.amazonaws.com/compute-type", "karpenter.sh/nodepool",
              "kubernetes.io/os", "nvidia.com/gpu.deploy.driver", "nvidia.com/gpu.deploy.device-plugin",
              "nvidia.com/gpu.deploy.operands", "nvidia.com/gpu.deploy.mig-manager",
              "nvidia.com/gpu.deploy.container-toolkit", "nvidia.com/gpu.deploy.gpu-feature-discovery"]
LABEL_VALUES = ["enabled", "true", "false", "", "auto", "hybrid", "training", "linux", "p1"]
#: Every switch of the GPU Operator chart (a key path ending in ``enabled``, ``enable``, ``deployCR`` or
#: ``hostNetwork``, the NFD subchart's included), and every feature gate of the Karpenter chart: from the charts' key
#: trees, not from what the core knows.
SWITCHES = [p for p in placement_values.key_paths("gpu-operator")
            if p[-1] in ("enabled", "enable", "deployCR", "hostNetwork")]
GATES = sorted(chart_data()["karpenter"]["keys"]["settings"]["featureGates"])


def _taint(rng: random.Random) -> dict:
    out = {"key": rng.choice(TAINT_KEYS), "effect": rng.choice(EFFECTS)}
    value = rng.choice(TAINT_VALUES)
    if value:
        out["value"] = value
    return out


def _toleration(rng: random.Random, taints: list[dict]) -> dict:
    if taints and rng.random() < 0.5:  # aimed at a taint of the case
        base = dict(rng.choice(taints))
        if rng.random() < 0.5:
            return {"key": base["key"], "operator": "Exists", **({"effect": base["effect"]} if rng.random() < 0.7
                                                                 else {})}
        return {"key": base["key"], "operator": "Equal", "value": base.get("value", rng.choice(TAINT_VALUES)),
                "effect": base["effect"]}
    operator = rng.choice(["Exists", "Equal", ""])
    out: dict[str, Any] = {}
    if operator != "Exists" or rng.random() < 0.8:
        out["key"] = rng.choice(TAINT_KEYS)
    if operator:
        out["operator"] = operator
    if operator != "Exists":
        out["value"] = rng.choice(TAINT_VALUES)
    if rng.random() < 0.8:
        out["effect"] = rng.choice(EFFECTS)
    return out


def _labels(rng: random.Random, n: int) -> dict[str, str]:
    return {rng.choice(LABEL_KEYS): rng.choice(LABEL_VALUES) for _ in range(n)}


def _affinity(rng: random.Random) -> dict:
    terms = []
    for _ in range(rng.randint(1, 2)):
        exprs = []
        for _ in range(rng.randint(1, 2)):
            op = rng.choice(["In", "NotIn", "Exists", "DoesNotExist"])
            expr: dict[str, Any] = {"key": rng.choice(LABEL_KEYS), "operator": op}
            if op in ("In", "NotIn"):
                expr["values"] = sorted({rng.choice(LABEL_VALUES[:-1] + ["x"]) for _ in range(rng.randint(1, 2))})
            exprs.append(expr)
        terms.append({"matchExpressions": exprs})
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}


def _node(rng: random.Random, i: int) -> dict:
    kind = rng.choice(["pool", "pool", "pool", "auto", "hybrid"])
    labels = _labels(rng, rng.randint(0, 4))
    if kind != "hybrid":
        labels["karpenter.sh/nodepool"] = f"p{i}"
    if kind == "auto":
        labels["eks.amazonaws.com/compute-type"] = "auto"
    if kind == "hybrid":
        labels["eks.amazonaws.com/compute-type"] = "hybrid"
    if rng.random() < 0.7:
        labels["kubernetes.io/os"] = "linux"
    taints = [_taint(rng) for _ in range(rng.randint(0, 3))]
    return {"name": f"n{i}", "kind": kind, "labels": labels, "taints": taints,
            "accelerator": rng.choice(["nvidia", "nvidia", "nvidia", "neuron", ""]), "mig_capable": rng.random() < 0.3}


def _operator_values(rng: random.Random, taints: list[dict]) -> dict:
    values: dict[str, Any] = {}
    if rng.random() < 0.8:
        values["daemonsets"] = {"tolerations": [_toleration(rng, taints) for _ in range(rng.randint(0, 4))]}
    worker: dict[str, Any] = {}
    if rng.random() < 0.6:
        worker["nodeSelector"] = _labels(rng, rng.randint(0, 2))
    if rng.random() < 0.5:
        worker["affinity"] = _affinity(rng)
    if rng.random() < 0.8:
        worker["tolerations"] = [_toleration(rng, taints) for _ in range(rng.randint(0, 4))]
    if worker:
        values["node-feature-discovery"] = {"worker": worker}
    for switch in SWITCHES:
        if rng.random() < 0.04:
            placement_values.set_path(values, switch, rng.random() < 0.5)
    if rng.random() < 0.05:
        values["nfd"] = {"enabled": False}
    placement_values.draw(rng, "gpu-operator", values, _placement_draws(rng, taints))
    return values


def _placement_draws(rng: random.Random, taints: list[dict]) -> dict:
    """The draws of the keys Kubernetes reads as placement, wherever they appear in a chart's tree."""
    return {"tolerations": lambda: [_toleration(rng, taints) for _ in range(rng.randint(0, 3))],
            "nodeSelector": lambda: _labels(rng, rng.randint(0, 2)), "affinity": lambda: _affinity(rng)}


def _karpenter_values(rng: random.Random, taints: list[dict]) -> dict:
    values: dict[str, Any] = {"settings": {"clusterName": "c"}}
    gates = {g: rng.random() < 0.5 for g in GATES if rng.random() < 0.5}
    if gates:
        values["settings"]["featureGates"] = gates
    roll = rng.random()
    if roll < 0.2:
        values["affinity"] = {"nodeAffinity": None}
    elif roll < 0.4:
        values["affinity"] = _affinity(rng)
    if rng.random() < 0.4:
        values["tolerations"] = [_toleration(rng, taints) for _ in range(rng.randint(0, 3))]
    if rng.random() < 0.3:
        values["nodeSelector"] = _labels(rng, rng.randint(0, 2)) if rng.random() < 0.7 else {"kubernetes.io/os": None}
    placement_values.draw(rng, "karpenter", values, _placement_draws(rng, taints))
    return values


def _neuron_values(rng: random.Random, taints: list[dict], nodes: list[dict]) -> dict:
    """The Neuron chart's device plugin placement: the product's shape (pools named, Auto Mode and hybrid kept off)
    or random affinity, tolerations aimed at the nodes' taints, now and then a nodeSelector; rarely an affinity or
    tolerations left to the chart, or the switch off (not modelled)."""
    plugin: dict[str, Any] = {"enabled": rng.random() > 0.01}
    pools = sorted({n["labels"]["karpenter.sh/nodepool"] for n in nodes if "karpenter.sh/nodepool" in n["labels"]
                    and rng.random() < 0.5}) or ["none"]
    if rng.random() > 0.015:
        plugin["affinity"] = _affinity(rng) if rng.random() < 0.5 else {"nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [
                {"key": "karpenter.sh/nodepool", "operator": "In", "values": pools},
                {"key": "eks.amazonaws.com/compute-type", "operator": "NotIn", "values": ["fargate", "hybrid", "auto"]}]}]}}}
    if rng.random() > 0.015:
        plugin["tolerations"] = [_toleration(rng, taints) for _ in range(rng.randint(0, 3))]
    if rng.random() < 0.3:
        plugin["nodeSelector"] = _labels(rng, rng.randint(0, 2))
    return {"devicePlugin": plugin}


def generated(seed: int, count: int) -> Iterator[dict]:
    rng = random.Random(seed)
    for i in range(count):
        nodes = [_node(rng, j) for j in range(rng.randint(1, 4))]
        taints = [t for n in nodes for t in n["taints"]]
        case: dict[str, Any] = {"nodes": nodes, "gpu_operator_values": None, "karpenter_values": None}
        if rng.random() < 0.9:
            case["gpu_operator_values"] = _operator_values(rng, taints)
        if rng.random() < 0.6 or case["gpu_operator_values"] is None:
            case["karpenter_values"] = _karpenter_values(rng, taints)
        if rng.random() < 0.4:
            case["neuron_values"] = _neuron_values(rng, taints, nodes)
        yield {"id": f"placement-{seed}-{i}", "case": case}


def _node_json(node: PlacementNode) -> dict:
    return {"name": node.name, "kind": node.kind, "labels": dict(node.labels), "taints": [dict(t) for t in node.taints],
            "accelerator": node.accelerator, "mig_capable": node.mig_capable}


def dist_cases() -> Iterator[dict]:
    """One case per dist/ environment: its GPU pools' and hybrid groups' nodes (as validate builds them) and values."""
    from karpenter_gpu.check.rules._model import RuleEnvironment
    from karpenter_gpu.check.rules.operands import _nodes
    from karpenter_gpu.k8s.controller_settings import environment_settings
    from karpenter_gpu.k8s.input_layout import read_path
    for folder in sorted(p for p in (ROOT / "dist").iterdir() if p.is_dir()):
        (source,) = read_path(folder).environments
        env = RuleEnvironment([(m.file, m.manifest) for m in source.manifests], source.name, source.values,
                              environment_settings(source.values, str(folder)))
        nodes = [_node_json(node) for _, node in _nodes(env)]
        line = KARPENTER_LINES[_intended_line(folder.name)]
        case = {"nodes": nodes, "gpu_operator_values": source.values.get("gpu-operator.values.yaml"),
                "karpenter_values": source.values.get("karpenter.values.yaml"),
                "neuron_values": source.values.get("neuron-device-plugin.values.yaml")}
        if line.version != KARPENTER_VERSION:  # rendered by its own line's chart
            case["karpenter_chart"] = str(karpenter_chart(line.tag))
        yield {"id": f"placement-dist-{folder.name}", "intended": line.version, "case": case}


def _intended_line(environment: str) -> str:
    """The Karpenter line stacks/ targets for a dist/ environment (what its values must install)."""
    import stacks

    configs = {config.environment: config for config in stacks.ENVIRONMENTS}
    return configs[environment].karpenter_version if environment in configs else DEFAULT_LINE


def core_answer(case: dict) -> dict:
    """The Python model's answer, in the Go program's shape."""
    out: dict[str, Any] = {}
    nodes = [PlacementNode(n["name"], n["kind"], n["labels"], tuple(n["taints"]), n["accelerator"],
                           mig_capable=n["mig_capable"]) for n in case["nodes"]]
    neuron = case.get("neuron_values")
    if neuron is not None:
        missing = neuron_not_modelled(neuron)
        if missing:
            return {"not modelled": [f"neuron values {path}" for path in missing]}
        for node in nodes:
            out.setdefault(node.name, {})[NEURON_DEVICE_PLUGIN] = neuron_plugin_placement(neuron, node).lands
    if case["gpu_operator_values"] is not None:
        refused = chart_refusals(case["gpu_operator_values"])  # the chart refuses them: nothing is placed
        missing = [] if refused else not_modelled(case["gpu_operator_values"])
        if missing:
            return {"not modelled": [f"gpu-operator values {path}" for path in missing]}
        if refused:
            out["gpu-operator refused"] = refused[0][1]
        for node in nodes if not refused else []:
            placed = gpu_operator_placement(case["gpu_operator_values"], node)
            out.setdefault(node.name, {}).update({k: v.lands for k, v in placed.items()})
    if case["karpenter_values"] is not None:
        refused = karpenter_refusals(case["karpenter_values"])
        if refused:
            out["karpenter refused"] = refused[0][1]
            return out
        try:
            out["feature_gates"] = sorted(g.value for g in read_settings(case["karpenter_values"], "case").gates)
        except KarpenterGpuError as error:  # validate refuses settings the chart passes on: no gates to compare
            out["refused by validate"] = [error.code]
        for node in nodes:
            if node.kind != "hybrid":
                out.setdefault(node.name, {})["karpenter"] = controller_placement(case["karpenter_values"], node).lands
    return out


def normalised(answer: dict) -> dict:
    """Go's answer with ``FEATURE_GATES`` ("NodeOverlay=true,…") as the sorted values names that are on, without the
    controller image (the core does not model it; :func:`image_problems` checks dist/'s)."""
    out = dict(answer)
    out.pop("controller_image", None)
    if "feature_gates" in out and isinstance(out["feature_gates"], str):
        out["feature_gates"] = sorted(part.split("=")[0][:1].lower() + part.split("=")[0][1:]
                                      for part in out["feature_gates"].split(",") if part.endswith("=true"))
    return out


def differences(case: dict, answer: dict) -> list[str]:
    """What the core answers differently; nothing where the core says the case is not modelled (it gives no
    answer then, rather than a guess)."""
    mine, theirs = core_answer(case), normalised(answer)
    if "not modelled" in mine:
        return []
    if mine.pop("refused by validate", None):  # the placement is compared, the gates the reader refused are not
        theirs.pop("feature_gates", None)
    out = []
    for key in sorted(set(mine) | set(theirs)):
        if mine.get(key) != theirs.get(key):
            out.append(f"{key}: core {mine.get(key)} != charts {theirs.get(key)}")
    return out


def image_problems(requests: list[dict], answers: list[dict]) -> list[str]:
    """dist/'s Karpenter values must pin the controller image of the intended version (the chart at a release tag
    names the previous one): the rendered Deployment's image tag must be the release of the line stacks/ targets for
    the environment (:data:`KARPENTER_VERSION` for the default line)."""
    out = []
    for request, got in zip(requests, answers, strict=True):
        image = (got.get("answer") or {}).get("controller_image")
        intended = request.get("intended", KARPENTER_VERSION)
        if request["id"].startswith("placement-dist-") and image is not None and \
                image.rpartition("/")[2].split("@")[0] != f"controller:{intended}":
            out.append(f"{request['id']}: the controller image rendered is {image}, not {intended}")
    return out


def build() -> Path:
    go = shutil.which("go")
    if go is None:
        sys.exit("oracle: Go is not on PATH (the placement family needs Go 1.26)")
    BUILD.mkdir(parents=True, exist_ok=True)
    binary = BUILD / "charts"
    subprocess.run([go, "build", "-o", str(binary), "."], cwd=HERE / "charts", check=True)
    return binary


def karpenter_chart(tag: str = KARPENTER_TAG) -> Path:
    """charts/karpenter of the aws/karpenter-provider-aws module at ``tag`` (downloaded into Go's module cache)."""
    cache = subprocess.run(["go", "env", "GOMODCACHE"], capture_output=True, text=True, check=True).stdout.strip()
    chart = Path(cache) / "github.com" / "aws" / f"karpenter-provider-aws@{tag}" / "charts" / "karpenter"
    if not chart.is_dir():
        subprocess.run(["go", "mod", "download", f"github.com/aws/karpenter-provider-aws@{tag}"],
                       cwd=HERE, check=True)
    return chart


def ask(binary: Path, gpu_operator: Path, requests: list[dict]) -> list[dict]:
    text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in requests)
    done = subprocess.run([str(binary), "-karpenter-chart", str(karpenter_chart()), "-gpu-operator", str(gpu_operator)],
                          input=text, capture_output=True, text=True, check=True)
    return [json.loads(line) for line in done.stdout.splitlines()]


def run(gpu_operator: Path, seed: int, count: int) -> int:
    started = time.monotonic()
    bad = _fresh(gpu_operator, seed, count, started)
    return 1 if bad else 0


def vector_text(gpu_operator: Path) -> str:
    """The vectors file: the fixed-seed cases with the charts' answers (not dist/: a change there must not make the
    vectors stale; fresh runs add every dist/ environment)."""
    requests = list(generated(VECTOR_SEED, VECTOR_COUNT))
    lines = []
    for request, got in zip(requests, ask(build(), gpu_operator, requests), strict=True):
        if got.get("error"):
            raise SystemExit(f"oracle: the charts could not answer vector {request['id']}: {got['error']}")
        lines.append(json.dumps({"id": request["id"], "case": request["case"], "answer": got["answer"]},
                                sort_keys=True, separators=(",", ":")))
    return "".join(line + "\n" for line in lines)


def write_vectors(gpu_operator: Path) -> int:
    text = vector_text(gpu_operator)
    VECTORS.write_text(text)
    print(f"oracle: wrote {text.count(chr(10))} placement vectors (seed {VECTOR_SEED}) to {VECTORS.relative_to(ROOT)}")
    return 0


#: Where ``make oracle`` finds the GPU Operator chart source: this variable, else the copy vendored beside the
#: renderer (tests/oracle/charts/gpu-operator: the tag's chart and operand assets, unmodified; VENDORED.json holds
#: the commit and a digest tests/test_placement_vectors.py checks).
SOURCE_VARIABLE = "KARPENTER_GPU_GPU_OPERATOR_SOURCE"
VENDORED = Path(__file__).resolve().parent / "charts" / "gpu-operator"
GPU_OPERATOR_COMMIT = "10ee5b3638b89e11e949412aafa5ba99279c3721"


def gpu_operator_source() -> Path | None:
    """A checkout of NVIDIA/gpu-operator v26.7.0 (``$KARPENTER_GPU_GPU_OPERATOR_SOURCE``, else the vendored copy),
    None when there is none."""
    path = Path(os.environ.get(SOURCE_VARIABLE) or VENDORED)
    return path if (path / "deployments" / "gpu-operator" / "Chart.yaml").is_file() else None


def from_run(seed: int, count: int | None, check_vectors: bool) -> tuple[int, int]:
    """The family as ``python -m tests.oracle.run`` runs it: (cases, disagreements); a stale vectors file counts as
    one disagreement. Without the chart source it says so and runs nothing (the committed vectors are still checked
    against the core by ``make test``)."""
    source = gpu_operator_source()
    if source is None:
        print(f"oracle family placement: not run: no GPU Operator v26.7.0 chart source (set {SOURCE_VARIABLE} to a "
              f"checkout of NVIDIA/gpu-operator at {GPU_OPERATOR_COMMIT[:12]}; the module proxy does not serve that "
              f"module); its {VECTOR_COUNT} committed vectors are checked by make test")
        return 0, 0
    stale = 0
    if check_vectors:
        before = VECTORS.read_text() if VECTORS.exists() else ""
        after = vector_text(source)
        if after != before:
            print("oracle: the committed placement vectors are stale: run `python -m tests.oracle.placement_family "
                  "--gpu-operator DIR --write-vectors` and commit tests/oracle/vectors/placement.jsonl")
            stale = 1
    started = time.monotonic()
    count = count or FRESH_COUNT
    bad = _fresh(source, seed, count, started)
    return count + len(list(dist_cases())), bad + stale


def _fresh(gpu_operator: Path, seed: int, count: int, started: float) -> int:
    """Fresh cases and every dist/ environment against the charts; prints the family's line and its coverage
    lines; the disagreements."""
    requests = list(generated(seed, count)) + list(dist_cases())
    binary = build()
    answers = ask(binary, gpu_operator, requests)
    bad = _compare(requests, answers)
    for problem in image_problems(requests, answers):
        print(f"  {problem}")
        bad += 1
    mine = [core_answer(r["case"]) for r in requests]
    left_out = sum("not modelled" in m for m in mine)
    refused = sum("refused by validate" in m for m in mine)
    by_chart = sum("gpu-operator refused" in m or "karpenter refused" in m for m in mine)
    table = placement_values.Coverage()
    table.add(requests, answers, lambda variants: ask(binary, gpu_operator, variants))
    print(f"oracle family placement: {len(requests)} cases, {bad} disagreements ({time.monotonic() - started:.1f}s; "
          f"seed {seed}; {left_out} not modelled by the core, left out; {refused} whose settings validate refuses, "
          f"compared without the gates; {by_chart} refused by a chart, compared)")
    for line in table.lines():
        print(line)
    return bad


def _compare(requests: list[dict], answers: list[dict]) -> int:
    bad = 0
    for request, got in zip(requests, answers, strict=True):
        found = [f"charts could not render: {got['error']}"] if got.get("error") else \
            differences(request["case"], got["answer"])
        if found:
            bad += 1
            if bad <= 5:
                print(f"  {request['id']}: {json.dumps(request['case'], sort_keys=True)}")
                for line in found[:6]:
                    print(f"    {line}")
    return bad


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.oracle.placement_family", description=__doc__.split("\n")[0])
    parser.add_argument("--gpu-operator", type=Path, default=gpu_operator_source(),
                        help=f"a checkout of NVIDIA/gpu-operator at the v26.7.0 tag (default: ${SOURCE_VARIABLE}, "
                             "else the vendored tests/oracle/charts/gpu-operator)")
    parser.add_argument("--seed", type=int, help="seed of the fresh cases (default: a new one)")
    parser.add_argument("--count", type=int, default=FRESH_COUNT, help=f"fresh cases (default {FRESH_COUNT})")
    parser.add_argument("--write-vectors", action="store_true", help="rebuild tests/oracle/vectors/placement.jsonl")
    args = parser.parse_args(argv)
    if args.gpu_operator is None:
        parser.error(f"no GPU Operator v26.7.0 chart source: give --gpu-operator or set {SOURCE_VARIABLE}")
    if args.write_vectors:
        return write_vectors(args.gpu_operator)
    return run(args.gpu_operator, args.seed if args.seed is not None else secrets.randbelow(2**31), args.count)


if __name__ == "__main__":
    raise SystemExit(main())
