"""Run the scheduler oracle family: build the Go oracle, answer seeded cases with it and with the core, compare.

    python tests/oracle/run_scheduler.py --cases 2000 --seed 1
    python tests/oracle/run_scheduler.py --cases 400 --seed 7 --vectors build/scheduler-cases.jsonl
    python tests/oracle/run_scheduler.py --cases 2000 --seed 1 --attribute   # disagreements by input
    python tests/oracle/run_scheduler.py --cases 2000 --seed 1 --shrink 2   # a shrunk example per class

``make oracle`` runs the same cases (``scheduler_family.oracle_case``); this runner explores them with a chosen seed
and count, attributes disagreements to the case's inputs and shrinks them. Prints
``oracle family scheduler: N cases, D disagreements`` and the disagreement classes with the case
inputs involved; exit 1 when Go failed to answer a case, 2 when Go could not be built.
"""

from __future__ import annotations

import argparse
import collections
import copy
import itertools
import json
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterator

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "constructs"))

import scheduler_family as fam  # noqa: E402

from karpenter_gpu.errors import KarpenterGpuError  # noqa: E402

BINARY = ROOT / "build" / "oracle" / "oracle"


def build() -> Path:
    BINARY.parent.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["go", "build", "-o", str(BINARY), "."], cwd=HERE, capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit(2)
    return BINARY


def ask(binary: Path, cases: list[dict]) -> list[dict]:
    """Go's answers for the cases, in order (one process, all lines in, all lines out)."""
    lines = "".join(json.dumps({"id": str(i), "family": fam.FAMILY, "case": c}) + "\n" for i, c in enumerate(cases))
    done = subprocess.run([str(binary)], input=lines, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit(1)
    return [json.loads(line) for line in done.stdout.splitlines()]


# ---------------------------------------------------------------------------------------------
# Shrinking: drop parts of a case while the same disagreement classes remain


def shrink(case: dict, still: Callable[[list[dict]], list[bool]], rounds: int = 60) -> dict:
    """Smaller and smaller cases for which ``still`` holds (``still`` answers a whole round of variants at once)."""
    for _ in range(rounds):
        variants = list(fam.smaller(case))
        if not variants:
            break
        hit = next((v for v, ok in zip(variants, still(variants)) if ok), None)
        if hit is None:
            break
        case = hit
    return case


# ---------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# Attribution: which single input, taken away, makes the two sides agree


def _pools(case: dict) -> Iterator[dict]:
    yield from (p["spec"] for p in case["nodepools"])


def _no_reserved(case: dict) -> None:
    for spec in _pools(case):
        reqs = spec["template"]["spec"].setdefault("requirements", [])
        ct = [r for r in reqs if r["key"] == "karpenter.sh/capacity-type"]
        if not ct:
            reqs.append({"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot", "on-demand"]})
        for r in ct:
            if r["operator"] == "In":
                r["values"] = [v for v in r["values"] if v != "reserved"] or ["on-demand"]
    sel = case["pod"]["spec"].get("nodeSelector", {})
    if sel.get("karpenter.sh/capacity-type") == "reserved":
        sel["karpenter.sh/capacity-type"] = "on-demand"


def _drop_limit(resource: str) -> Callable[[dict], None]:
    def drop(case: dict) -> None:
        for spec in _pools(case):
            spec.get("limits", {}).pop(resource, None)
    return drop


def _no_min_values(case: dict) -> None:
    for spec in _pools(case):
        for r in spec["template"]["spec"].get("requirements", []):
            r.pop("minValues", None)


def _no_prefer(case: dict) -> None:
    for spec in _pools(case):
        tmpl = spec["template"]["spec"]
        if "taints" in tmpl:
            tmpl["taints"] = [t for t in tmpl["taints"] if t["effect"] != "PreferNoSchedule"]


def _set(key: str, value: Any) -> Callable[[dict], None]:
    def put(case: dict) -> None:
        case[key] = copy.deepcopy(value)
    return put


def _spot_on_demand(case: dict) -> None:
    case["spot_price_factor"] = dict.fromkeys(case["spot_price_factor"], 1.0)


def _all_zones(case: dict) -> None:
    for t in case["instance_types"]:
        t["zones"] = [z["name"] for z in case["zones"]]


def _priced(case: dict) -> None:
    case["instance_types"] = [t for t in case["instance_types"] if t["price"] is not None] or case["instance_types"]
    kept = {t["name"] for t in case["instance_types"]}  # the Go side registers nodes of the case's types only
    case["existing_nodes"] = [e for e in case.get("existing_nodes") or [] if e["instance_type"] in kept]


CAUSES: list[tuple[str, Callable[[dict], None]]] = [
    ("reserved offerings without a reservation", _no_reserved),
    ("limits.pods", _drop_limit("pods")),
    ("limits.memory", _drop_limit("memory")),
    ("limits.cpu", _drop_limit("cpu")),
    ("limits.nodes", _drop_limit("nodes")),
    ("limits.nvidia.com/gpu", _drop_limit("nvidia.com/gpu")),
    ("limits.aws.amazon.com/neuron", _drop_limit("aws.amazon.com/neuron")),
    ("minValues", _no_min_values),
    ("PreferNoSchedule taints", _no_prefer),
    ("DaemonSets", _set("daemonsets", [])),
    ("kubelet settings", _set("kubelet", None)),
    ("existing nodes", _set("existing_nodes", [])),
    ("capacity reservations", _set("capacity_reservations", [])),
    ("spot prices", _spot_on_demand),
    ("zone availability", _all_zones),
    ("unpriced types", _priced),
]


def attribute(binary: Path, cases: list[dict], max_size: int = 2) -> list[list[str]]:
    """For each disagreeing case, the causes whose removal alone makes both sides agree, else the pairs of causes
    that do together (``a & b``); empty when no pair does."""
    out: list[list[str]] = [[] for _ in cases]
    for size in range(1, max_size + 1):
        variants, owners = [], []
        for i, case in enumerate(cases):
            if out[i]:
                continue
            for combo in itertools.combinations(CAUSES, size):
                v = copy.deepcopy(case)
                for _, change in combo:
                    change(v)
                if v != case:
                    variants.append(v)
                    owners.append((i, " & ".join(name for name, _ in combo)))
        for (i, name), v, go in zip(owners, variants, ask(binary, variants)):
            if not go.get("error") and _agrees(v, go["answer"]):
                out[i].append(name)
    return out


def _agrees(case: dict, go: dict) -> bool:
    try:
        return fam.agree(go, fam.python_answer(case))
    except KarpenterGpuError:
        return False


def compact(case: dict) -> dict:
    """A shrunk case for reading: defaults left out, instance types by name (with their offered zones)."""
    out: dict[str, Any] = {k: v for k, v in case.items()
                           if v and k not in ("region", "zones", "instance_types", "spot_price_factor", "nodepools", "pod")}
    if any(f != 1.0 for f in case["spot_price_factor"].values()):
        out["spot_price_factor"] = case["spot_price_factor"]
    out["zones"] = [z["name"] for z in case["zones"]]
    out["instance_types"] = {t["name"]: {"zones": t["zones"], "price": t["price"]} for t in case["instance_types"]}
    out["nodepools"] = [{"name": p["metadata"]["name"], **{k: v for k, v in p["spec"].items() if k != "template"},
                         **{k: v for k, v in p["spec"]["template"]["spec"].items() if k != "nodeClassRef" and v}}
                        for p in case["nodepools"]]
    out["pod"] = {k: v for k, v in case["pod"]["spec"].items() if k != "containers"}
    out["pod"]["requests"] = case["pod"]["spec"]["containers"][0]["resources"]["requests"]
    return out


def _still(case: dict, go: dict, want: set[str]) -> bool:
    if go.get("error"):
        return False
    try:
        py = fam.python_answer(case)
    except Exception:  # noqa: BLE001 - a variant the core rejects is not a smaller example
        return False
    return want <= set(fam.differences(go["answer"], py))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--vectors", type=Path, help="write the cases with Go's answers (JSON lines) here")
    parser.add_argument("--shrink", type=int, default=0, help="shrink this many examples per disagreement class")
    parser.add_argument("--show", type=int, default=0, help="print this many disagreements")
    parser.add_argument("--attribute", action="store_true",
                        help="count the disagreements by the one input whose removal makes the sides agree")
    args = parser.parse_args(argv)

    rng = random.Random(args.seed)
    cases = fam.generate(rng, args.cases)
    binary = build()
    start = time.perf_counter()
    answers = ask(binary, cases)
    seconds = time.perf_counter() - start
    go_errors = [(i, a["error"]) for i, a in enumerate(answers) if a.get("error")]
    by_class: dict[str, list[int]] = collections.defaultdict(list)
    by_feature: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    disagreements = 0
    for i, (case, answer) in enumerate(zip(cases, answers)):
        if answer.get("error"):
            continue
        try:
            py = fam.python_answer(case)
        except KarpenterGpuError as exc:
            py = {"error": str(exc)}
        classes = fam.differences(answer["answer"], py) if "error" not in py else ["py-error"]
        if classes:
            disagreements += 1
            for cls in classes:
                by_class[cls].append(i)
                by_feature[cls].update(fam.features(case) or ["(none)"])
            if args.show and disagreements <= args.show:
                print(f"case {i}: {fam.explain(answer['answer'], py)}")
    print(f"oracle family scheduler: {len(cases)} cases, {disagreements} disagreements")
    print(f"go: {len(cases) / seconds * 60:.0f} cases/minute ({seconds:.1f} s)")
    for cls, ids in sorted(by_class.items(), key=lambda kv: -len(kv[1])):
        feats = ", ".join(f"{k} {v}" for k, v in by_feature[cls].most_common())
        print(f"  {cls}: {len(ids)} (case inputs: {feats})")
    if args.attribute:
        bad = sorted({i for ids in by_class.values() for i in ids})
        causes = collections.Counter(" + ".join(c) if c else "(no single input)"
                                     for c in attribute(binary, [cases[i] for i in bad]))
        print("disagreements by cause (the input whose removal alone makes the sides agree):")
        for cause, count in causes.most_common():
            print(f"  {count:5d}  {cause}")
        involved = collections.Counter(name for found in causes.elements() if not found.startswith("(")
                                       for name in {n for part in found.split(" + ") for n in part.split(" & ")})
        print("disagreements each input takes part in:")
        for cause, count in involved.most_common():
            print(f"  {count:5d}  {cause}")
    for i, err in go_errors[:10]:
        print(f"  go error in case {i}: {err}")
    if args.shrink:
        for cls, ids in sorted(by_class.items()):
            for i in ids[: args.shrink]:
                want = set(fam.differences(answers[i]["answer"], fam.python_answer(cases[i])))

                def still(variants: list[dict], want: set[str] = want) -> list[bool]:
                    return [_still(v, go, want) for v, go in zip(variants, ask(binary, variants))]

                small = shrink(cases[i], still)
                go = ask(binary, [small])[0]["answer"]
                print(f"\n== {cls} (case {i}, shrunk)\n{json.dumps(compact(small), sort_keys=True)}\n"
                      f"-> {fam.explain(go, fam.python_answer(small))}")
    if args.vectors:
        args.vectors.parent.mkdir(parents=True, exist_ok=True)
        with args.vectors.open("w", encoding="utf-8") as out:
            for i, (case, answer) in enumerate(zip(cases, answers)):
                record: dict[str, Any] = {"id": f"scheduler-{args.seed}-{i}", "family": fam.FAMILY, "case": case,
                                          "answer": answer.get("answer")}
                if answer.get("error"):
                    record["error"] = answer["error"]
                out.write(json.dumps(record, sort_keys=True, separators=(",", ":")) + "\n")
        print(f"wrote {args.vectors} ({args.vectors.stat().st_size} bytes)")
    return 1 if go_errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
