"""Run the oracle: Karpenter v1.14.1's own Go code answers generated cases, the Python core answers them too.

    python -m tests.oracle.run                    # fresh cases, a new seed each run (printed)
    python -m tests.oracle.run --seed 7 --count 20000
    python -m tests.oracle.run --write-vectors    # rebuild tests/oracle/vectors/ (fixed seed)
    python -m tests.oracle.run --check-vectors    # fail if the committed vectors differ from a rebuild
    python -m tests.oracle.run --keep-disagreements  # add build/oracle-disagreements/ to the regression vectors

Needs Go (the program is built with ``go build`` into build/oracle/, outside the tracked files). Prints one line
per family and a total; exits 1 on any disagreement, writing each one, shrunk to a minimal case, as JSON into
build/oracle-disagreements/ (ready to be added to the vectors as a regression case). Then the coverage table
(tests/oracle/coverage.py): per family, how many cases set each CRD leaf path and controller setting, and how many
of a sample change Karpenter's answer without it; a leaf path no case sets fails the run too.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Iterable

from tests.oracle import batch_family, cases, compare, coverage
from tests.oracle import lines, placement_family

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
BUILD = ROOT / "build" / "oracle"
DISAGREEMENTS = ROOT / "build" / "oracle-disagreements"
VECTORS = HERE / "vectors"
VECTOR_SEED = 20260714
VECTOR_COUNT = {"requirements": 800, "tolerations": 1500, "drift": 500, "apiserver": 1400, "scheduler": 400,
                "overlay": 300, "cron": 600, "budgets": 600, "batch": 150}
#: Fresh cases per family when --count is not given: 109,000 in all (issue 35: >= 100,000 per `make oracle`; issue 36:
#: >= 10,000 batch cases).
FRESH_COUNT = {"requirements": 17000, "tolerations": 17000, "drift": 17000, "apiserver": 30000, "scheduler": 8000,
               "overlay": 6000, "cron": 5000, "budgets": 3000, "batch": 10000}
#: Shrunk disagreements kept as regression cases (added with --keep-disagreements), answers from Karpenter.
REGRESSIONS = VECTORS / "regressions.jsonl"
KARPENTER = "Karpenter v1.14.1"


def build(line: str = "1.14") -> Path:
    """``go build`` the oracle of a Karpenter line (its module: tests/oracle/lines.py) into build/oracle/ (Go's cache
    makes a rebuild take a second)."""
    go = shutil.which("go")
    if go is None:
        sys.exit("oracle: Go is not on PATH (the oracle needs Go 1.26; `make test` checks the committed vectors "
                 "without it)")
    BUILD.mkdir(parents=True, exist_ok=True)
    binary = BUILD / ("oracle" if line == "1.14" else f"oracle-v{line}")
    subprocess.run([go, "build", "-o", str(binary), "."], cwd=lines.MODULES[line][0], check=True,
                   env=lines.go_env(line))
    return binary


class Oracle:
    """The Go program as a long-running process: a batch is streamed through it, single cases go one by one."""

    def __init__(self, binary: Path, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen([str(binary)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     bufsize=1 << 20, env=env)

    def batch(self, requests: list[dict]) -> list[dict]:
        assert self.proc.stdin and self.proc.stdout

        def feed() -> None:
            assert self.proc.stdin
            for request in requests:
                self.proc.stdin.write(json.dumps(request, sort_keys=True) + "\n")
            self.proc.stdin.flush()

        writer = threading.Thread(target=feed)
        writer.start()
        out = [json.loads(self.proc.stdout.readline()) for _ in requests]
        writer.join()
        return out

    def one(self, family: str, case: dict) -> dict:
        return self.batch([{"id": "shrink", "family": family, "case": case}])[0]

    def close(self) -> None:
        assert self.proc.stdin
        self.proc.stdin.close()
        self.proc.wait()


def _shrunk(oracle: Oracle, family: str, case: dict, first: dict) -> dict:
    go_failed = bool(first.get("error"))

    def still(candidate: dict) -> bool:
        got = oracle.one(family, candidate)
        if bool(got.get("error")) != go_failed:
            return False  # a candidate Go cannot read is not a smaller case of a disagreement on an answer
        return bool(compare.differences(family, candidate, got.get("answer"), got.get("error")))

    small = compare.shrink(case, still, family=family)
    got = oracle.one(family, small)
    return {"family": family, "case": small, "answer": got.get("answer"), "error": got.get("error"),
            "core": compare.differences(family, small, got.get("answer"), got.get("error"))}


def check(oracle: Oracle, family: str, requests: list[dict], report: list[dict], shrink_limit: int = 5,
          answers_out: list[dict] | None = None) -> int:
    """Answer ``requests`` with both; shrink up to ``shrink_limit`` disagreements into ``report`` (Karpenter's
    answers into ``answers_out``)."""
    answers = oracle.batch(requests)
    bad = 0
    for i, (request, got) in enumerate(zip(requests, answers)):
        assert got["id"] == request["id"], (got["id"], request["id"])
        if compare.differences(family, request["case"], got.get("answer"), got.get("error")) and family == "batch":
            # one answer in RUNS solves, not the core's: Karpenter may still give the core's, rarely (a pick of its
            # map iteration); RECHECK_RUNS more solves look for it before it counts as a disagreement
            again = oracle.one(family, {**request["case"], "runs": batch_family.RECHECK_RUNS})
            got = answers[i] = {**again, "id": request["id"], "rechecked": True}
        if compare.differences(family, request["case"], got.get("answer"), got.get("error")):
            bad += 1
            if bad <= shrink_limit:
                report.append({"id": request["id"], **_shrunk(oracle, family, request["case"], got)})
    if answers_out is not None:
        answers_out.extend(answers)
    return bad


def _write_disagreements(report: list[dict]) -> None:
    if DISAGREEMENTS.exists():
        shutil.rmtree(DISAGREEMENTS)
    if not report:
        return
    DISAGREEMENTS.mkdir(parents=True)
    for item in report:
        (DISAGREEMENTS / f"{item['id']}.json").write_text(json.dumps(item, indent=2, sort_keys=True) + "\n")
        print(f"  {item['id']} (shrunk): {json.dumps(item['case'], sort_keys=True)}")
        for line in item["core"][:6]:
            print(f"    {line}")


def older_line(line: str, families: list[str], seed: int, count: int | None, report: list[dict]) -> tuple[int, int]:
    """Fresh cases of ``families`` against an older Karpenter line's own Go module (tests/oracle/lines.py), the
    core reading that line's packaged CRDs: (cases, disagreements), one printed line per family with the version."""
    oracle = Oracle(build(line), lines.go_env(line))
    lines.use(line)
    total = bad_total = 0
    try:
        for family in families:
            started = time.monotonic()
            fresh = count or lines.FRESH_COUNT.get(line, {}).get(family) or FRESH_COUNT.get(family, 17000)
            requests = list(cases.generate(family, seed, fresh))
            for request in requests:
                request["id"] = f"v{line}-{request['id']}"
            bad = check(oracle, family, requests, report)
            total, bad_total = total + len(requests), bad_total + bad
            print(f"oracle family {family} ({lines.label(line)}): {len(requests)} cases, {bad} disagreements "
                  f"({time.monotonic() - started:.1f}s)")
    finally:
        lines.use("1.14")
        oracle.close()
    return total, bad_total


def older_vectors(families: Iterable[str] | None) -> dict[str, str]:
    """The vectors of each older Karpenter line's families (``v1.9/<family>.jsonl``), answered by its own module."""
    out = {}
    for line in [name for name in lines.MODULES if name != "1.14"]:
        wanted = lines.families(line, list(families) if families is not None else list(VECTOR_COUNT))
        if not wanted:
            continue
        oracle = Oracle(build(line), lines.go_env(line))
        lines.use(line)
        try:
            out |= {f"v{line}/{family}.jsonl": text for family, text in vector_lines(oracle, wanted).items()}
        finally:
            lines.use("1.14")
            oracle.close()
    return out


def vector_lines(oracle: Oracle, families: Iterable[str] | None = None) -> dict[str, str]:
    """The vectors' text per family (``families``: only these): the fixed-seed cases with Karpenter's answers, one
    JSON line each."""
    out = {}
    for family, count in VECTOR_COUNT.items():
        if families is not None and family not in families:
            continue
        requests = list(cases.generate(family, VECTOR_SEED, count, dist=False))
        if family == "batch":  # more solves per case: see batch_family.VECTOR_RUNS
            for request in requests:
                request["case"]["runs"] = batch_family.VECTOR_RUNS
        answers = oracle.batch(requests)
        lines = []
        for request, got in zip(requests, answers):
            if got.get("error"):
                raise SystemExit(f"oracle: Karpenter could not answer vector {request['id']}: {got['error']}")
            lines.append(json.dumps({"id": request["id"], "case": request["case"], "answer": got["answer"]},
                                    sort_keys=True, separators=(",", ":")))
        out[family] = "\n".join(lines) + "\n"
    return out


def same_vectors(name: str, committed: str, rebuilt: str) -> bool:
    """Whether the committed vectors file ``name`` is current: byte for byte, except the batch family's, where Go
    stops at the first of its answers equal to the core's and Karpenter may answer a case in several ways (map order):
    a case whose core answer Go gives rarely is found by one rebuild's solves and not by another's (``varied``). There
    the cases must be equal, and each answer equal unless either rebuild says ``varied``."""
    if name != "batch.jsonl" or committed == rebuilt:
        return committed == rebuilt
    old, new = committed.splitlines(), rebuilt.splitlines()
    if len(old) != len(new):
        return False
    for before, after in zip(map(json.loads, old), map(json.loads, new)):
        if before["id"] != after["id"] or before["case"] != after["case"]:
            return False
        varied = any(isinstance(v["answer"], dict) and v["answer"].get("varied") for v in (before, after))
        if not varied and before["answer"] != after["answer"]:
            return False
    return True


def keep_disagreements(oracle: Oracle) -> int:
    """Append each shrunk disagreement, answered afresh by Karpenter, to the regression vectors (once)."""
    lines = REGRESSIONS.read_text().splitlines() if REGRESSIONS.exists() else []
    known = {json.loads(line)["id"] for line in lines}
    for path in sorted(DISAGREEMENTS.glob("*.json")):
        item = json.loads(path.read_text())
        got = oracle.one(item["family"], item["case"])
        if got.get("error") or item["id"] in known:
            continue
        lines.append(json.dumps({"id": item["id"], "family": item["family"], "case": item["case"],
                                 "answer": got["answer"]}, sort_keys=True, separators=(",", ":")))
    REGRESSIONS.write_text("".join(line + "\n" for line in lines))
    print(f"oracle: {len(lines)} regression vectors in {REGRESSIONS.relative_to(ROOT)}")
    return 0


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.oracle.run", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, help="seed of the fresh cases (default: a new one, printed)")
    parser.add_argument("--count", type=int, help="fresh cases per family (default: " + ", ".join(
        f"{f} {n}" for f, n in FRESH_COUNT.items()) + ")")
    parser.add_argument("--family", action="append", choices=sorted(cases.GENERATORS), help="only these families")
    parser.add_argument("--write-vectors", action="store_true", help="rebuild tests/oracle/vectors/ and stop")
    parser.add_argument("--check-vectors", action="store_true",
                        help="fail if the committed vectors differ from a rebuild, then run fresh cases")
    parser.add_argument("--keep-disagreements", action="store_true",
                        help=f"add the shrunk cases of {DISAGREEMENTS.relative_to(ROOT)}/ to "
                             f"{REGRESSIONS.relative_to(ROOT)} (with Karpenter's answers) and stop")
    args = parser.parse_args(list(argv) if argv is not None else None)

    oracle = Oracle(build())
    try:
        if args.keep_disagreements:
            return keep_disagreements(oracle)
        if args.write_vectors or args.check_vectors:
            fresh = vector_lines(oracle, args.family)
            files = {f"{family}.jsonl": text for family, text in fresh.items()} | older_vectors(args.family)
            if args.write_vectors:
                for name, text in files.items():
                    (VECTORS / name).parent.mkdir(parents=True, exist_ok=True)
                    (VECTORS / name).write_text(text)
                print(f"oracle: wrote {sum(text.count(chr(10)) for text in files.values())} vectors in {len(files)} "
                      f"files (seed {VECTOR_SEED}) to {VECTORS.relative_to(ROOT)}")
                return 0
            stale = [name for name, text in files.items()
                     if not (VECTORS / name).exists() or not same_vectors(name, (VECTORS / name).read_text(), text)]
            if stale:
                print(f"oracle: the committed vectors are stale for {', '.join(stale)}: run "
                      "`python -m tests.oracle.run --write-vectors` and commit tests/oracle/vectors/")
                return 1
            print(f"oracle: vectors up to date ({sum(VECTOR_COUNT.values())} cases, seed {VECTOR_SEED})")
        seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
        per = f"{args.count} cases per family" if args.count else \
            ", ".join(f"{f} {n}" for f, n in FRESH_COUNT.items()) + " cases"
        print(f"oracle: seed {seed} ({per}; rerun with --seed {seed})")
        families = args.family or list(cases.GENERATORS)
        report: list[dict] = []
        table = coverage.Coverage()
        total = bad_total = 0
        for family in families:
            started = time.monotonic()
            requests = list(cases.generate(family, seed, args.count or FRESH_COUNT.get(family, 17000)))
            answers: list[dict] = []
            bad = check(oracle, family, requests, report, answers_out=answers)
            table.add(family, requests, answers, oracle.batch)
            total, bad_total = total + len(requests), bad_total + bad
            print(f"oracle family {family} ({lines.label('1.14')}): {len(requests)} cases, {bad} disagreements "
                  f"({time.monotonic() - started:.1f}s)")
            if family == "batch":  # compared, unstable in Karpenter, not modelled by the core
                print(batch_family.tally(requests, answers))
        if not args.family:  # its own Go module, on the charts (tests/oracle/placement_family.py)
            placed, placed_bad = placement_family.from_run(seed, args.count, args.check_vectors)
            total, bad_total = total + placed, bad_total + placed_bad
        for older in [name for name in lines.MODULES if name != "1.14" and lines.families(name, families)]:
            checked, older_bad = older_line(older, lines.families(older, families), seed, args.count, report)
            total, bad_total = total + checked, bad_total + older_bad
        for line in table.lines():
            print(line)
        unset = table.unset() if set(coverage.OBJECTS) <= set(families) else []
        for path in unset:
            print(f"oracle coverage: no case set {path} (a generator that never sets a field cannot see it)")
        _write_disagreements(report)
        print(f"oracle: {total} cases in {len(families)} families, {bad_total} disagreements ({KARPENTER}; "
              f"{', '.join(f'{lines.label(name)}: {len(lines.families(name, families))} families' for name in lines.MODULES if name != '1.14')})")
        if report:
            print(f"oracle: shrunk cases in {DISAGREEMENTS.relative_to(ROOT)}/")
        return 1 if bad_total or unset else 0
    finally:
        oracle.close()


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
