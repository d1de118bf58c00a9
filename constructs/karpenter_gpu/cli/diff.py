"""``karpenter-gpu diff BASE HEAD``: arguments, reading both sides, rendering, and the ``--fail-on`` verdict.

Reading (:func:`karpenter_gpu.analysis.diff.read.read_sides`), classifying, costing and rendering live in
:mod:`karpenter_gpu.analysis.diff`; this module parses the arguments, prints, and says on stderr which
``--fail-on`` condition hit.
"""

from __future__ import annotations

import argparse
import sys
from decimal import Decimal, InvalidOperation
from pathlib import Path

from karpenter_gpu.analysis.catalog import load_catalog
from karpenter_gpu.analysis.diff import (
    FAIL_ON,
    InputProblems,
    Side,
    classify,
    cost_changes,
    render_json,
    render_markdown,
    render_text,
    side_of,
)
from karpenter_gpu.analysis.diff.admission import admit
from karpenter_gpu.analysis.diff.read import read_sides
from karpenter_gpu.analysis.diff.upgrade import side_lines, upgrade_json, upgrade_lines, upgrades
from karpenter_gpu.analysis.diff.render import verdict_lines
from karpenter_gpu.analysis.diff.verdict import hits
from karpenter_gpu.analysis.workload_diff import diff_sides, with_workloads
from karpenter_gpu.apiserver.crd_source import PACKAGED_DIR, resolve_crd_dir
from karpenter_gpu.apiserver.crds import crds_from, line_crds
from karpenter_gpu.cli.main import AWS_HELP, KARPENTER_VALUES_HELP, PROG, karpenter_values, stop_on
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.aws_facts import load_aws_facts
from karpenter_gpu.k8s.input_layout import ROOT
from karpenter_gpu.k8s.target_line import environment_line, explicit_line
from karpenter_gpu.k8s.workloads import read_workloads
from karpenter_gpu.render.escape import plain


def _label_root(base: Side, head: Side, name: str) -> tuple[Side, Side]:
    """Show the root environment (flat folders) under the head's folder name, unless a sub-folder has it."""
    if name in base or name in head or name == ROOT:
        return base, head
    rename = lambda side: {name if k == ROOT else k: v for k, v in side.items()}  # noqa: E731
    return rename(base), rename(head)


COST_INCREASE = "cost-increase="
#: ``--fail-on upgrade``: an environment's Karpenter release differs between the sides.
UPGRADE = "upgrade"


def parse_fail_on(items: list[str]) -> tuple[list[str], Decimal | None]:
    """Split ``--fail-on`` into change groups (``drift``, ``refused``) and the ``cost-increase=PERCENT`` threshold.

    A bad item is a usage error (KG630, exit 2), checked before any input is read.
    """
    groups: list[str] = []
    percent: Decimal | None = None
    for item in items:
        if item in FAIL_ON:
            groups.append(item)
            continue
        if item.startswith(COST_INCREASE):
            text = item[len(COST_INCREASE):].removesuffix("%")
            try:
                value = Decimal(text)
            except InvalidOperation:
                value = Decimal(-1)
            if value.is_finite() and value >= 0:
                percent = value if percent is None else min(percent, value)
                continue
        raise KarpenterGpuError(
            "KG630", prop="--fail-on", value=item,
            allowed=f"{', '.join(sorted(FAIL_ON))} or cost-increase=PERCENT (a number >= 0, e.g. cost-increase=10)",
            fix="write e.g. --fail-on drift cost-increase=10")
    return groups, percent


def run(args: argparse.Namespace) -> int:
    upgrade = UPGRADE in (args.fail_on or [])
    groups, percent = parse_fail_on([item for item in args.fail_on or [] if item != UPGRADE])
    workloads = read_workloads(args.workload) if args.workload else None
    if isinstance(workloads, list):
        return stop_on(workloads)
    catalog = load_catalog(args.catalog) if args.catalog else None
    aws = load_aws_facts(args.aws) if args.aws else None
    fallback = karpenter_values(args.karpenter_values)
    repo = Path(args.repo) if args.repo else None
    base_source, head_source, notes = read_sides(args.base, args.head, repo, dist=args.dist)
    for note in notes:
        print(f"{PROG}: note: {plain(note)}", file=sys.stderr)
    try:
        base, head = side_of(base_source), side_of(head_source)
    except InputProblems as ex:
        return stop_on(ex.problems)
    root = head_source.environment(ROOT) or base_source.environment(ROOT)
    if root is not None:
        base, head = _label_root(base, head, root.name)
    explicit = explicit_line(args.karpenter_version)
    lines = {"base": side_lines(base, explicit, "base"), "head": side_lines(head, explicit, "head")}
    default = environment_line(None, None, "")
    released = []  # the release each environment is answered for, in every answer (printed with the answer: bad
    for env in sorted(set(base) | set(head)):  # input found below stays one coded line)
        said = " -> ".join(dict.fromkeys(lines[side][env].describe() for side in lines if env in lines[side]))
        released.append(f"{PROG}: note: {plain(env)}: answered for {plain(said, None)}")
    crd_dir = resolve_crd_dir(args.crds)
    if Path(crd_dir).resolve() != PACKAGED_DIR.resolve():  # the user's CRDs, for both sides
        admitted = admit(base, head, crds_from(crd_dir))  # both sides through the API server's checks, once
    else:  # each side's environment under its line's packaged CRDs
        admitted = admit(base, head, crds_of=lambda side, env: line_crds(
            (lines[side].get(env) or lines["head" if side == "base" else "base"].get(env) or default).line))
    found = upgrades(base, head, lines["base"], lines["head"])
    changes = classify(base, head, catalog, admitted=admitted)
    cost = cost_changes(base, head, catalog, admitted=admitted, aws=aws, karpenter_values=fallback,
                        lines=({env: t.line.line for env, t in lines["base"].items()},
                               {env: t.line.line for env, t in lines["head"].items()}))
    render = {"markdown": render_markdown, "json": render_json}.get(args.format, render_text)
    text = render(changes, cost)
    if workloads is not None:
        text = with_workloads(text, args.format, diff_sides(admitted, workloads, catalog, aws, fallback))
    if args.format == "json":
        text = upgrade_json(text, found)
    elif found:
        markdown = args.format == "markdown"
        text += ("\n" if markdown else "") + "".join(f"{line}\n" for line in upgrade_lines(found, markdown=markdown))
    for line in released:
        print(line, file=sys.stderr)
    print(text, end="")
    hit = hits(changes, groups, cost, percent)
    for line in verdict_lines(hit):
        print(f"{PROG}: {line}", file=sys.stderr)
    upgraded = upgrade and bool(found)
    if upgraded:
        names = ", ".join(f"{plain(u.environment)} v{u.base.line.version} -> v{u.head.line.version}" for u in found)
        print(f"{PROG}: fail-on upgrade: the Karpenter release changes ({names})", file=sys.stderr)
    return 1 if hit or upgraded else 0


def register(commands: argparse._SubParsersAction) -> None:
    """Add ``diff BASE HEAD [--format text|markdown|json] [--fail-on drift|refused|cost-increase=N ...]
    [--catalog FILE] [--aws FILE ...] [--crds DIR] [--repo DIR] [--dist PATH]``."""
    parser = commands.add_parser(
        "diff", help="review a manifest change by what Karpenter will do to running GPU nodes",
        description="Compare two dist/ trees (folders, files, - for stdin, or git revisions) and sort every "
                    "change by its effect: refused by the API server, drains a pool, replaces nodes (drift), "
                    "may replace nodes, restarts pods, behavioural only, new object, info; then what it costs: per "
                    "changed NodePool the instance types added and removed, the worst-case $/h at its limit and "
                    "the cheapest first choice, before and after. Exit codes: 0 no "
                    "--fail-on hit, 1 a --fail-on hit, 2 usage or input error.")
    parser.add_argument("base", help="dist/ folder, file, - or git revision (its committed dist/ is read without "
                                     "checkout)")
    parser.add_argument("head", help="dist/ folder, file, - or git revision")
    parser.add_argument("--format", choices=("text", "markdown", "json"), default="text",
                        help="markdown renders a PR comment with the cost table on top; json is stable for "
                             "machines (default: text)")
    parser.add_argument("--fail-on", dest="fail_on", nargs="+", action="extend", metavar="CONDITION",
                        default=[], help="exit 1 when: drift (a change replaces nodes or drains a pool), refused (by "
                                         "the API server), cost-increase=PERCENT (an environment's worst-case "
                                         "ceiling rises by more than PERCENT, or a pool without GPU limit appears), "
                                         "upgrade (an environment's Karpenter release differs between the sides)")
    parser.add_argument("--catalog", help="instance catalog file for prices (default: the embedded catalog)")
    parser.add_argument("--aws", action="append", metavar="FILE", help=AWS_HELP)
    parser.add_argument("--karpenter-values", metavar="FILE", help=KARPENTER_VALUES_HELP)
    parser.add_argument("--karpenter-version", metavar="LINE",
                        help="the Karpenter line both sides are answered for (default: each side's "
                             "helm/karpenter.values.yaml controller.image.tag, else the default line); when the "
                             "sides' lines differ, an upgrade section lists what the change of release does")
    parser.add_argument("--workload", action="append", metavar="FILE",
                        help="workloads (as plan reads them; repeatable): what the change does to their plan -- pods "
                             "newly Pending or no longer, NodeClaims and $/h added or removed")
    parser.add_argument("--crds", help="folder of CRD YAML files for the schema check of both sides (default: as "
                                       "for validate)")
    parser.add_argument("--repo", help="git repository for revisions (default: the repository of the current folder)")
    parser.add_argument("--dist", metavar="PATH",
                        help="the folder a git revision is read from, relative to the current folder (or --repo DIR) "
                             "(default: the nearest dist/ at or above it that either revision has)")
    parser.set_defaults(run=run)
