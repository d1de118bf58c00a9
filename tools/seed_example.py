"""Write (or ``--check``) docs/guides/workload-plan.md from the example in examples/seed-004/.

The page's hand-written prose stays; what ``karpenter-gpu plan`` answers for each variant of the example is written
between the markers ``<!-- seed-004: VARIANT -->`` and ``<!-- /seed-004 -->``, and the comparison of the variants'
$/h between ``<!-- seed-004: summary -->`` and ``<!-- /seed-004 -->``, by running the real command from the checkout
(relative paths, so the page is the same on every machine). tests/test_plan_example.py fails when the page is stale.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import sys
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = Path("examples") / "seed-004"
PAGE = ROOT / "docs" / "guides" / "workload-plan.md"
#: The variants, in the page's order: folder and what it changes.
VARIANTS = {"without": "the pool as the seed had it", "with": "plus the seed's NodeOverlay discourage-big-gpu (+30%)",
            "one-gpu": "the pool offers one-GPU types only"}


def _plan(variant: str, fmt: str) -> str:
    sys.path.insert(0, str(ROOT / "constructs"))
    from karpenter_gpu.cli.main import main

    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(out):
            code = main(["plan", str(EXAMPLE / variant), "--workload", str(EXAMPLE / "jobs.yaml"),
                         "--aws", str(EXAMPLE / "spot-prices.json"), "--format", fmt])
    finally:
        os.chdir(cwd)
    if code != 0:
        raise SystemExit(f"plan of {variant} exited {code}")
    return out.getvalue()


def _summary() -> str:
    rows = ["| variant | NodeClaims | launched | $/h |", "|---|---|---|---|"]
    for variant, meaning in VARIANTS.items():
        [env] = json.loads(_plan(variant, "json"))["environments"]
        launched: dict[str, int] = {}
        for claim in env["nodeclaims"]:
            launched[claim["instance_type"]] = launched.get(claim["instance_type"], 0) + 1
        total = env["hourly"]["total"]
        rows.append(f"| `{variant}`: {meaning} | {len(env['nodeclaims'])} | "
                    f"{', '.join(f'{n} × {t}' for t, n in sorted(launched.items()))} | "
                    f"{'-' if total is None else f'${Decimal(total):.2f}'} |")
    return "\n".join(rows) + "\n"


def page(text: str) -> str:
    """The page with every generated block rewritten."""
    def block(match: re.Match) -> str:
        name = match.group(1)
        body = _summary() if name == "summary" else "```text\n" + _plan(name, "table").rstrip() + "\n```\n"
        return f"<!-- seed-004: {name} -->\n{body}<!-- /seed-004 -->"
    return re.sub(r"<!-- seed-004: ([a-z0-9-]+) -->\n.*?<!-- /seed-004 -->", block, text, flags=re.S)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only check that the page is current")
    args = parser.parse_args(argv)
    current = PAGE.read_text(encoding="utf-8")
    wanted = page(current)
    if args.check:
        if wanted != current:
            print(f"{PAGE} is stale: run python tools/seed_example.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
