"""``karpenter-gpu validate``: one line per finding, a summary line, exit 1 when a finding fails the run."""

from __future__ import annotations

import argparse

from karpenter_gpu.apiserver.crd_source import resolve_crd_dir
from karpenter_gpu.apiserver.findings import Severity
from karpenter_gpu.check.validate import validate_dir
from karpenter_gpu.cli.main import KARPENTER_VALUES_HELP, karpenter_values
from karpenter_gpu.cli.versions import KARPENTER_VERSION_HELP, values_file_line
from karpenter_gpu.upstream import KARPENTER_TAG


def run(args: argparse.Namespace) -> int:
    report = validate_dir(args.dist, resolve_crd_dir(args.crds), each_file=args.each_file,
                          karpenter_values=karpenter_values(args.karpenter_values),
                          karpenter_version=args.karpenter_version,
                          fallback_line=values_file_line(args.karpenter_values))
    if args.format != "text":
        from karpenter_gpu.cli import validate_output

        print(validate_output.as_json(report, strict=args.strict, verbose=args.verbose) if args.format == "json"
              else validate_output.as_sarif(report, args.dist, verbose=args.verbose))
        return 1 if report.failed(args.strict) else 0
    lines = [f.line() for f in report.findings if f.severity != Severity.INFO or args.verbose]
    failed = report.failed(args.strict)
    lines.extend(f"settings: {line}" for line in report.settings)
    lines.extend(f"karpenter: {line}" for line in report.versions)
    lines.append(("FAILED: " if failed else "ok: ") + report.summary())
    print("\n".join(lines))
    return 1 if failed else 0


def register(commands: argparse._SubParsersAction) -> None:
    cmd = commands.add_parser(
        "validate", help=f"check manifests against the Karpenter {KARPENTER_TAG} CRDs (schema + CEL) and GPU pitfall rules")
    cmd.add_argument("dist", nargs="?", default="dist", help="a manifest file or folder, or - for stdin "
                                                             "(default: dist)")
    cmd.add_argument("--crds", help="folder of CRD YAML files (default: $KARPENTER_GPU_CRDS, else the Karpenter "
                                    f"{KARPENTER_TAG} and prometheus-operator CRDs shipped in the package)")
    cmd.add_argument("--strict", action="store_true", help="warnings fail the run too")
    cmd.add_argument("--each-file", action="store_true", help="every file of the folder is its own environment "
                                                              "(a folder of independent examples), not one per "
                                                              "sub-folder")
    cmd.add_argument("--karpenter-values", metavar="FILE", help=KARPENTER_VALUES_HELP)
    cmd.add_argument("--karpenter-version", metavar="LINE", help=KARPENTER_VERSION_HELP)
    cmd.add_argument("-v", "--verbose", action="store_true", help="also print info findings")
    cmd.add_argument("--format", choices=("text", "json", "sarif"), default="text",
                     help="text (default), json, or sarif (SARIF 2.1.0, for code scanning: file-level locations)")
    cmd.set_defaults(run=run)
