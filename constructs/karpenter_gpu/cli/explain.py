"""``karpenter-gpu explain``: arguments, input selection and the three renderings (table, markdown, JSON)."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from karpenter_gpu.analysis import timeline
from karpenter_gpu.analysis.catalog import default_catalog, load_catalog
from karpenter_gpu.analysis.explain import explain_environment, render_markdown, render_text
from karpenter_gpu.analysis.pod_shape import PodShape
from karpenter_gpu.apiserver.crd_source import resolve_crd_dir
from karpenter_gpu.check.validate import schema_refusals
from karpenter_gpu.cli.main import AWS_HELP, KARPENTER_VALUES_HELP, karpenter_values, settings_of, stop_on
from karpenter_gpu.cli.versions import KARPENTER_VERSION_HELP, crds_for, environment_lines
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.aws_facts import load_aws_facts
from karpenter_gpu.k8s.cluster_nodes import ClusterNode, cluster_nodes
from karpenter_gpu.k8s.labels import NODEPOOL_KIND, is_kind
from karpenter_gpu.k8s.input_layout import read_path
from karpenter_gpu.k8s.windows import load_zone


def run(args: argparse.Namespace) -> int:
    catalog = load_catalog(args.catalog) if args.catalog else default_catalog()
    aws = load_aws_facts(args.aws) if args.aws else None
    pod = PodShape.parse(args.pod) if args.pod else None
    if args.zone:
        load_zone(args.zone)  # KG151 before any work
    source = read_path(args.dist)
    # explain cannot tell which of two objects, or what a malformed or refused one, means: exit 2 on them.
    if source.problems:
        return stop_on(source.problems)
    line_of = environment_lines(args.karpenter_version, args.karpenter_values)
    refused = schema_refusals(source, crds_for(resolve_crd_dir(args.crds), line_of))
    if refused:
        return stop_on(refused)
    names = [env.name for env in source.environments]
    unknown = sorted(set(args.env or []) - set(names))
    if unknown:
        raise KarpenterGpuError("KG908", prop="--env", value=", ".join(unknown), allowed=f"one of {names}",
                                fix="pick an environment the input holds (a sub-folder name)")
    fallback = karpenter_values(args.karpenter_values)
    selected = [env for env in source.environments if not args.env or env.name in args.env]
    loaded = [(env.name, [m.manifest for m in env.manifests]) for env in selected]
    settings = [replace(settings_of(env, fallback), line=line_of(env).line.line) for env in selected]
    nodes: list[ClusterNode] | None = None
    if args.nodes:
        if len(loaded) > 1:
            raise KarpenterGpuError("KG723", prop="--nodes", value=", ".join(name for name, _ in loaded),
                                    allowed="one environment: the nodes are those of one cluster",
                                    fix="select the cluster's environment with --env")
        read = _read_nodes(args.nodes)
        if isinstance(read, int):
            return read
        nodes = read
    now = parse_now(args.now)
    if args.node_count is not None and args.node_count < 0:
        raise KarpenterGpuError("KG756", prop="--node-count", value=args.node_count, allowed="a whole number >= 0",
                                fix="give the pools' node count")
    envs = [explain_environment(name, docs, catalog, pod, args.zone, nodes, aws, env_settings,
                                node_count=args.node_count, now=now)
            for (name, docs), env_settings in zip(loaded, settings)]
    targets = [line_of(env) for env in selected]
    for env, target in zip(envs, targets):  # each answer says the release it is for
        env["karpenter"] = {"line": target.line.line, "version": target.line.version, "why": target.why}
        if args.format != "json":  # the renderers escape notes (environment names and paths are input text)
            env["notes"].append(f"answered for {target.describe()}")
    if args.format == "json":
        print(json.dumps({"catalog": {"source": catalog.source, "date": catalog.date, "region": catalog.region},
                          "environments": envs}, indent=1, sort_keys=True))
    elif args.format == "markdown":
        svg_names: dict[str, str] = {}
        if args.out:
            out = Path(args.out)
            try:
                out.mkdir(parents=True, exist_ok=True)
                for (name, docs), env in zip(loaded, envs):
                    svg_names[name] = f"disruption-{name}.svg"
                    pools = [d for d in docs if is_kind(d, NODEPOOL_KIND)]
                    (out / svg_names[name]).write_text(timeline.svg(pools, env["zone"],
                                                                    f"{name}: disruption windows"))
                (out / "explain.md").write_text(render_markdown(envs, svg_names))
            except OSError as ex:
                raise KarpenterGpuError("KG910", prop="--out", value=str(out), allowed="a writable folder",
                                        fix=f"{ex.strerror or ex}: pick another folder") from None
        print(render_markdown(envs, svg_names))
    else:
        print(render_text(envs))
    return 0


def parse_now(text: str | None) -> datetime | None:
    """``--now``: an ISO 8601 time with a UTC offset (``2027-03-01T09:00:00+09:00``, ``...Z``); None when absent."""
    if text is None:
        return None
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        when = None
    if when is None or when.tzinfo is None:
        raise KarpenterGpuError("KG756", prop="--now", value=text, allowed="an ISO 8601 time with a UTC offset",
                                fix="write it as 2027-03-01T09:00:00+09:00 or 2027-03-01T00:00:00Z")
    return when


def _read_nodes(specs: list[str]) -> list[ClusterNode] | int:
    """The cluster's nodes from each ``--nodes`` file or folder (NodeClaims and/or Nodes, Lists expanded); the exit
    code when the reader found problems in them."""
    objects: list[tuple[str, dict]] = []
    for spec in specs:
        source = read_path(spec, allow_empty=True)  # `kubectl get nodeclaims -o yaml` of no nodes: an empty List
        if source.problems:
            return stop_on(source.problems)
        folder = spec.rstrip("/") + "/" if Path(spec).is_dir() else ""  # a file or a pipe: <(kubectl get ...)
        objects.extend((f"{folder}{m.file}{' ' + m.where if m.where else ''}", m.manifest)
                       for env in source.environments for m in env.manifests)
    return cluster_nodes(objects)


def register(commands: argparse._SubParsersAction) -> None:
    cmd = commands.add_parser("explain", help="candidate instance types, costs and disruption windows per pool")
    cmd.add_argument("dist", nargs="?", default="dist", help="a dist/ folder, a manifest file, or - for stdin "
                                                             "(default: dist)")
    cmd.add_argument("--env", action="append", help="only this environment (repeatable)")
    cmd.add_argument("--pod", help="a pod shape, e.g. 'gpus=1,cpu=4,memory=16Gi,tolerate=nvidia.com/gpu'")
    cmd.add_argument("--format", choices=("table", "markdown", "json"), default="table")
    cmd.add_argument("--out", help="with --format markdown: write explain.md and one SVG timeline per environment here")
    cmd.add_argument("--zone", help="time zone of the timeline (default: the zone of the pools' windows, else UTC)")
    cmd.add_argument("--crds", help="folder of CRD YAML files for the schema check of the input (default: as for "
                                    "validate)")
    cmd.add_argument("--catalog", help="instance catalog file (default: the embedded us-east-1 catalog)")
    cmd.add_argument("--nodes", action="append", metavar="FILE",
                     help="the cluster's NodeClaims and/or Nodes (`kubectl get nodeclaims -o yaml`, `kubectl get nodes "
                          "-o yaml`; a file or folder, repeatable): limits are what they leave (one environment)")
    cmd.add_argument("--node-count", type=int, metavar="N",
                     help="each pool's node count for its disruption budgets (default: with --nodes, the pool's nodes)")
    cmd.add_argument("--now", metavar="TIME", help="the time the budgets are evaluated at, ISO 8601 with a UTC offset "
                                                   "(default: the current time)")
    cmd.add_argument("--aws", action="append", metavar="FILE", help=AWS_HELP)
    cmd.add_argument("--karpenter-values", metavar="FILE", help=KARPENTER_VALUES_HELP)
    cmd.add_argument("--karpenter-version", metavar="LINE", help=KARPENTER_VERSION_HELP)
    cmd.set_defaults(run=run)
