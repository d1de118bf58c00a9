"""The exit-code contract of every command: 0 clean, 1 findings or a --fail-on hit, 2 usage or input error, and
every error one coded line on stderr, never a traceback.

The fuzz test changes the type of random fields of dist/prod's objects (a seeded generator, so a failure is
replayed by its case number) and runs validate, explain and diff on the result.
"""

from __future__ import annotations

import contextlib
import copy
import io
import random
import re
import sys
import time
from pathlib import Path

import pytest
import yaml

from karpenter_gpu.cli.main import main
from tests.conftest import ROOT, find_crds_dir

PROD = ROOT / "dist" / "prod"
CODED = re.compile(r"^karpenter-gpu: error: \[KG\d{3}\] ")
#: Values of every JSON/YAML type, including the awkward ones (int64 overflow, floats, empty containers).
VALUES = [None, 0, -1, 7, 2**63, -(2**70), 1.5, float("inf"), True, False, "", "x", "Gt", "10%", "1e309",
          "NoSchedule", [], [1], ["a", "b"], [{"key": "k"}], {}, {"a": 1}, {"key": [1]}]


def objects() -> list[dict]:
    return [d for p in sorted(PROD.glob("*.yaml")) for d in yaml.safe_load_all(p.read_text())]


ORIGINAL = objects()


def paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, sub in value.items():
            yield from paths(sub, (*prefix, key))
    elif isinstance(value, list):
        for i, sub in enumerate(value):
            yield from paths(sub, (*prefix, i))


def mutate(rng: random.Random, doc: dict) -> dict:
    doc = copy.deepcopy(doc)
    for _ in range(rng.randint(1, 3)):
        where = [p for p in paths(doc) if p]
        path = rng.choice(where)
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        if rng.random() < 0.1 and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = copy.deepcopy(rng.choice(VALUES))
    return doc


def run(argv: list[str], stdin: str | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdin
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode()))
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    finally:
        sys.stdin = old
    return code, out.getvalue(), err.getvalue()


def assert_contract(code: int, out: str, err: str, case: str) -> None:
    assert code in (0, 1, 2), case
    assert "Traceback" not in out + err, case
    assert "[KG919]" not in err, f"{case}: {err}"  # the safety net must never be what answers
    if code == 2:
        lines = err.splitlines()
        assert lines and all(CODED.match(line) for line in lines), f"{case}: {err}"


def dump(docs: list[dict]) -> str:
    return yaml.safe_dump_all(docs, sort_keys=False)


CASES = 1500


def test_fuzz_type_changes_hold_the_contract(tmp_path):
    crds = str(find_crds_dir())
    pool = next(d for d in ORIGINAL if d["kind"] == "NodePool")
    node_class = next(d for d in ORIGINAL if d["kind"] == "EC2NodeClass")
    rng = random.Random(int(__import__("os").environ.get("FUZZ_SEED", "20261201")))
    codes = {0: 0, 1: 0, 2: 0}
    start = time.perf_counter()
    for case in range(CASES):
        index = rng.randrange(len(ORIGINAL))
        target = ORIGINAL[index]
        companions = [d for d in (pool, node_class) if d is not target]
        base = [target, *companions]
        head = dump([mutate(rng, target), *companions])
        (tmp_path / "base.yaml").write_text(dump(base))
        label = f"case {case}: {target['kind']}/{target['metadata']['name']}"
        for argv in (["validate", "-", "--crds", crds], ["explain", "-"],
                     ["diff", str(tmp_path / "base.yaml"), "-", "--fail-on", "drift"]):
            code, out, err = run(argv, head)
            assert_contract(code, out, err, f"{label} {argv[0]}\n{head}")
            codes[code] += 1
    elapsed = time.perf_counter() - start
    print(f"{CASES} cases, {3 * CASES} runs in {elapsed:.1f}s, exit codes {codes}")
    assert codes[0] and codes[1] and codes[2]  # the generator reaches every outcome
