"""``karpenter-gpu diff BASE HEAD``: arguments, reading both sides, rendering, and the ``--fail-on`` verdict."""

from __future__ import annotations

import argparse
from pathlib import Path

from karpenter_gpu.analysis.diff import (
    FAIL_ON,
    InputProblems,
    Side,
    classify,
    failed,
    render_markdown,
    render_text,
    side_of,
)
from karpenter_gpu.check.crd_source import resolve_crd_dir
from karpenter_gpu.check.validate import crds_from, schema_refusals
from karpenter_gpu.cli.main import stop_on
from karpenter_gpu.k8s.reader import ROOT, read


def _label_root(base: Side, head: Side, name: str) -> tuple[Side, Side]:
    """Show the root environment (flat folders) under the head's folder name, unless a sub-folder has it."""
    if name in base or name in head or name == ROOT:
        return base, head
    rename = lambda side: {name if k == ROOT else k: v for k, v in side.items()}  # noqa: E731
    return rename(base), rename(head)


def run(args: argparse.Namespace) -> int:
    repo = Path(args.repo) if args.repo else None
    # An empty side is a side without objects (the change that first adds dist/), not an error.
    base_source, head_source = read(args.base, repo, allow_empty=True), read(args.head, repo, allow_empty=True)
    try:
        base, head = side_of(base_source), side_of(head_source)
    except InputProblems as ex:
        return stop_on(ex.problems)
    crds = crds_from(resolve_crd_dir(args.crds))
    refused = schema_refusals(base_source, crds) + schema_refusals(head_source, crds)
    if refused:  # what Karpenter does with an object the API server refuses is not a question diff answers
        return stop_on(refused)
    root = head_source.environment(ROOT) or base_source.environment(ROOT)
    if root is not None:
        base, head = _label_root(base, head, root.name)
    changes = classify(base, head)
    render = render_markdown if args.format == "markdown" else render_text
    print(render(changes), end="")
    return 1 if failed(changes, args.fail_on or []) else 0


def register(commands: argparse._SubParsersAction) -> None:
    """Add ``diff BASE HEAD [--format text|markdown] [--fail-on drift|refused ...] [--repo DIR]``."""
    parser = commands.add_parser(
        "diff", help="review a manifest change by what Karpenter will do to running GPU nodes",
        description="Compare two dist/ trees (folders, files, - for stdin, or git revisions) and sort every "
                    "change by its effect: refused by the API server, drains a pool, replaces nodes (drift), "
                    "may replace nodes, restarts pods, behavioural only, new object, info. Exit codes: 0 no "
                    "--fail-on hit, 1 a --fail-on hit, 2 usage or input error.")
    parser.add_argument("base", help="dist/ folder, file, - or git revision (its committed dist/ is read without "
                                     "checkout)")
    parser.add_argument("head", help="dist/ folder, file, - or git revision")
    parser.add_argument("--format", choices=("text", "markdown"), default="text",
                        help="markdown renders a PR comment (default: text)")
    parser.add_argument("--fail-on", dest="fail_on", choices=sorted(FAIL_ON), nargs="+", action="extend",
                        default=[], help="exit 1 when a change of this kind exists: drift (replaces nodes or drains "
                                         "a pool), refused (by the API server)")
    parser.add_argument("--crds", help="folder of CRD YAML files for the schema check of both sides (default: as "
                                       "for validate)")
    parser.add_argument("--repo", help="git repository for revisions (default: the repository of the current folder)")
    parser.set_defaults(run=run)
