"""Run the scheduler oracle family: build the Go oracle, answer seeded cases with it and with the core, compare.

    python tests/oracle/run_scheduler.py --cases 2000 --seed 1
    python tests/oracle/run_scheduler.py --cases 300 --seed 7 --vectors tests/oracle/vectors/scheduler.jsonl
    python tests/oracle/run_scheduler.py --cases 2000 --seed 1 --shrink 2   # a shrunk example per class

Prints ``oracle family scheduler: N cases, D disagreements`` and the disagreement classes with the case
inputs the core does not model; exit 1 when Go failed to answer a case, 2 when Go could not be built.
"""

from __future__ import annotations

import argparse
import collections
import copy
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


def _variants(case: dict) -> Iterator[dict]:
    for key in ("daemonsets", "existing_nodes", "capacity_reservations", "nodepools", "instance_types"):
        items = case.get(key) or []
        for i in range(len(items)):
            if key in ("nodepools", "instance_types") and len(items) == 1:
                continue
            c = copy.deepcopy(case)
            del c[key][i]
            yield c
    if case.get("kubelet"):
        for k in list(case["kubelet"]):
            c = copy.deepcopy(case)
            del c["kubelet"][k]
            if not c["kubelet"]:
                c["kubelet"] = None
            yield c
    for i, pool in enumerate(case["nodepools"]):
        spec = pool["spec"]
        tmpl = spec["template"]["spec"]
        for j in range(len(tmpl.get("requirements", []))):
            c = copy.deepcopy(case)
            del c["nodepools"][i]["spec"]["template"]["spec"]["requirements"][j]
            yield c
        for field in ("weight", "limits"):
            if field in spec:
                c = copy.deepcopy(case)
                del c["nodepools"][i]["spec"][field]
                yield c
        if tmpl.get("taints"):
            c = copy.deepcopy(case)
            del c["nodepools"][i]["spec"]["template"]["spec"]["taints"]
            yield c
    pod = case["pod"]["spec"]
    for field in ("nodeSelector", "affinity"):
        if field in pod:
            c = copy.deepcopy(case)
            del c["pod"]["spec"][field]
            yield c
    requests = pod["containers"][0]["resources"]["requests"]
    for k in list(requests):
        c = copy.deepcopy(case)
        del c["pod"]["spec"]["containers"][0]["resources"]["requests"][k]
        yield c
    for t in case["instance_types"]:
        if set(t["zones"]) != {z["name"] for z in case["zones"]}:
            c = copy.deepcopy(case)
            for u in c["instance_types"]:
                if u["name"] == t["name"]:
                    u["zones"] = [z["name"] for z in c["zones"]]
            yield c
    if any(f != 1.0 for f in case["spot_price_factor"].values()):
        c = copy.deepcopy(case)
        c["spot_price_factor"] = dict.fromkeys(c["spot_price_factor"], 1.0)
        yield c


def shrink(case: dict, still: Callable[[list[dict]], list[bool]], rounds: int = 60) -> dict:
    """Smaller and smaller cases for which ``still`` holds (``still`` answers a whole round of variants at once)."""
    for _ in range(rounds):
        variants = list(_variants(case))
        if not variants:
            break
        hit = next((v for v, ok in zip(variants, still(variants)) if ok), None)
        if hit is None:
            break
        case = hit
    return case


# ---------------------------------------------------------------------------------------------


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
        py = fam.python_answer(case)
        classes = fam.differences(answer["answer"], py)
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
                print(f"\n== {cls} (case {i}, shrunk)\n{json.dumps(small, sort_keys=True)}\n"
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
