"""``karpenter-gpu plan``: arguments, input selection and the three renderings (table, markdown, JSON) of a workload
plan (:mod:`karpenter_gpu.analysis.workload_plan`)."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from typing import Any, Callable

from karpenter_gpu.analysis.catalog import default_catalog, load_catalog
from karpenter_gpu.analysis.workload_plan import plan_environment, render_markdown, render_text
from karpenter_gpu.apiserver.crd_source import resolve_crd_dir
from karpenter_gpu.check.validate import schema_refusals
from karpenter_gpu.cli.explain import _read_nodes
from karpenter_gpu.cli.main import AWS_HELP, KARPENTER_VALUES_HELP, karpenter_values, settings_of, stop_on
from karpenter_gpu.cli.versions import KARPENTER_VERSION_HELP, crds_for, environment_lines
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.aws_facts import load_aws_facts
from karpenter_gpu.k8s.cluster_nodes import ClusterNode
from karpenter_gpu.k8s.input_layout import Environment, read_path
from karpenter_gpu.k8s.target_line import TargetLine
from karpenter_gpu.k8s.workloads import Workloads, read_workloads

WORKLOAD_HELP = ("the workloads to plan: a file or folder of Pods, Deployments, ReplicaSets, StatefulSets, Jobs, "
                 "LeaderWorkerSets and DaemonSets (repeatable)")


def selected_environments(spec: str, crds: str | None, wanted: list[str] | None,
                          line_of: Callable[[Environment], TargetLine]) -> list[Environment] | int:
    """The environments of ``spec`` that ``wanted`` names (all when None); the exit code when the reader found
    problems or the schema check refused an object (plan cannot tell what such an object means): ``crds``, else the
    packaged CRDs of each environment's Karpenter line (``line_of``)."""
    source = read_path(spec)
    if source.problems:
        return stop_on(source.problems)
    refused = schema_refusals(source, crds_for(resolve_crd_dir(crds), line_of))
    if refused:
        return stop_on(refused)
    names = [env.name for env in source.environments]
    unknown = sorted(set(wanted or []) - set(names))
    if unknown:
        raise KarpenterGpuError("KG908", prop="--env", value=", ".join(unknown), allowed=f"one of {names}",
                                fix="pick an environment the input holds (a sub-folder name)")
    return [env for env in source.environments if not wanted or env.name in wanted]


def plan_all(args: argparse.Namespace, workloads: Workloads) -> list[dict[str, Any]] | int:
    """The plan of each selected environment for ``workloads``, or the exit code of an input problem."""
    catalog = load_catalog(args.catalog) if args.catalog else default_catalog()
    aws = load_aws_facts(args.aws) if args.aws else None
    line_of = environment_lines(args.karpenter_version, args.karpenter_values)
    selected = selected_environments(args.dist, args.crds, args.env, line_of)
    if isinstance(selected, int):
        return selected
    fallback = karpenter_values(args.karpenter_values)
    nodes: list[ClusterNode] = []
    if args.nodes:
        if len(selected) > 1:
            raise KarpenterGpuError("KG723", prop="--nodes", value=", ".join(env.name for env in selected),
                                    allowed="one environment: the nodes are those of one cluster",
                                    fix="select the cluster's environment with --env")
        read = _read_nodes(args.nodes)
        if isinstance(read, int):
            return read
        nodes = read
    out = []
    for env in selected:  # answered as the environment's Karpenter line behaves, and saying which release it is
        target = line_of(env)
        plan = plan_environment(env.name, [m.manifest for m in env.manifests], workloads, catalog, nodes=nodes,
                                aws=aws, settings=replace(settings_of(env, fallback), line=target.line.line))
        plan["karpenter"] = {"line": target.line.line, "version": target.line.version, "why": target.why}
        if args.format != "json":  # the renderers escape notes (environment names and paths are input)
            plan["notes"].append(f"answered for {target.describe()}")
        out.append(plan)
    return out


def run(args: argparse.Namespace) -> int:
    workloads = read_workloads(args.workload)
    if isinstance(workloads, list):
        return stop_on(workloads)
    envs = plan_all(args, workloads)
    if isinstance(envs, int):
        return envs
    if args.format == "json":
        print(json.dumps({"environments": envs}, indent=1, sort_keys=True))
    elif args.format == "markdown":
        print(render_markdown(envs))
    else:
        print(render_text(envs))
    return 0


def add_input_options(cmd: argparse.ArgumentParser) -> None:
    """The options plan shares with explain: environments, CRDs, catalog, nodes, AWS facts, controller values."""
    cmd.add_argument("--env", action="append", help="only this environment (repeatable)")
    cmd.add_argument("--crds", help="folder of CRD YAML files for the schema check of the input (default: as for "
                                    "validate)")
    cmd.add_argument("--catalog", help="instance catalog file (default: the embedded us-east-1 catalog)")
    cmd.add_argument("--nodes", action="append", metavar="FILE",
                     help="the cluster's NodeClaims and/or Nodes (`kubectl get nodeclaims -o yaml`, `kubectl get nodes "
                          "-o yaml`; a file or folder, repeatable): they take pods first and count against limits "
                          "(one environment)")
    cmd.add_argument("--aws", action="append", metavar="FILE", help=AWS_HELP)
    cmd.add_argument("--karpenter-values", metavar="FILE", help=KARPENTER_VALUES_HELP)
    cmd.add_argument("--karpenter-version", metavar="LINE", help=KARPENTER_VERSION_HELP)


def register(commands: argparse._SubParsersAction) -> None:
    cmd = commands.add_parser("plan", help="schedule workloads' pods as Karpenter does: NodeClaims, Pending pods, $/h")
    cmd.add_argument("dist", nargs="?", default="dist", help="a dist/ folder, a manifest file, or - for stdin "
                                                             "(default: dist)")
    cmd.add_argument("--workload", action="append", required=True, metavar="FILE", help=WORKLOAD_HELP)
    cmd.add_argument("--format", choices=("table", "markdown", "json"), default="table")
    add_input_options(cmd)
    cmd.set_defaults(run=run)
