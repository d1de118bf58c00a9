"""Shrunk scheduler cases that tell an older Karpenter line's behaviours apart: ``vectors/v<line>/behaviours.jsonl``.

Each behaviour of :data:`karpenter_gpu.upstream.BEHAVIOUR_SINCE` an older line lacks gets one case (or more) the
line's own Go module answered and on which the core disagrees when it is told the line has the behaviour: fresh
scheduler cases of the line are run until one such case turns up, shrunk with the oracle's shrinker (Go answering
every candidate, the core answering with the behaviour switched on) and kept with Karpenter's answer.
tests/test_line_behaviours.py checks, without Go, that the core agrees with each kept answer as the line and
disagrees once the behaviour is switched on.

    python -m tests.oracle.line_behaviours [--seed S] [--count N]    # rebuilds the files (Go needed)
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from contextlib import contextmanager

from karpenter_gpu import upstream
from tests.oracle import cases, compare, lines
from tests.oracle.run import VECTORS, Oracle, _shrunk, build

FAMILY = "scheduler"


@contextmanager
def switched_on(behaviour: str) -> Iterator[None]:
    """The core answering as if every line had ``behaviour``."""
    since = upstream.BEHAVIOUR_SINCE[behaviour]
    upstream.BEHAVIOUR_SINCE[behaviour] = "0.0.0"
    try:
        yield
    finally:
        upstream.BEHAVIOUR_SINCE[behaviour] = since


def lacking(line: str) -> list[str]:
    """The behaviours ``line`` does not have."""
    return [name for name in upstream.BEHAVIOUR_SINCE if not upstream.line_has(line, name)]


def path(line: str):
    return VECTORS / f"v{line}" / "behaviours.jsonl"


def rebuild(line: str, seed: int, count: int) -> int:
    oracle = Oracle(build(line), lines.go_env(line))
    lines.use(line)
    out: list[str] = []
    try:
        requests = list(cases.generate(FAMILY, seed, count))
        answers = oracle.batch(requests)
        for behaviour in lacking(line):
            found = None
            for request, got in zip(requests, answers):
                if got.get("error") or compare.differences(FAMILY, request["case"], got["answer"]):
                    continue
                with switched_on(behaviour):
                    if compare.differences(FAMILY, request["case"], got["answer"]):
                        found = _shrunk(oracle, FAMILY, request["case"], got)
                        break
            if found is None:
                print(f"oracle: no case of {count} (seed {seed}) tells {behaviour} apart on v{line}")
                return 1
            if compare.differences(FAMILY, found["case"], found["answer"]):
                print(f"oracle: the core disagrees with v{line} on the shrunk case of {behaviour}")
                return 1
            out.append(json.dumps({"id": f"v{line}-{behaviour}", "behaviour": behaviour, "case": found["case"],
                                   "answer": found["answer"]}, sort_keys=True, separators=(",", ":")))
    finally:
        lines.use("1.14")
        oracle.close()
    path(line).write_text("".join(text + "\n" for text in out))
    print(f"oracle: {len(out)} behaviour vectors in {path(line)}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.oracle.line_behaviours", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--count", type=int, default=4000)
    args = parser.parse_args()
    return max(rebuild(line, args.seed, args.count) for line in lines.MODULES if line != "1.14")


if __name__ == "__main__":
    raise SystemExit(main())
