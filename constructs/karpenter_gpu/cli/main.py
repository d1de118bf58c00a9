"""Command line: ``karpenter-gpu validate | explain | diff | synth``."""

from __future__ import annotations

import argparse
import sys

from karpenter_gpu.check.crd_source import CrdSourceError, resolve_crd_dir
from karpenter_gpu.check.findings import Severity
from karpenter_gpu.check.validate import validate_dir


def _validate(args: argparse.Namespace) -> int:
    try:
        report = validate_dir(args.dist, resolve_crd_dir(args.crds))
    except CrdSourceError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    for finding in report.findings:
        if finding.severity != Severity.INFO or args.verbose:
            print(finding.line())
    print(("FAILED: " if report.failed(args.strict) else "ok: ") + report.summary())
    return 1 if report.failed(args.strict) else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="karpenter-gpu", description="Checks for Karpenter GPU manifests.")
    commands = parser.add_subparsers(dest="command", required=True)
    validate = commands.add_parser(
        "validate", help="check manifests against the Karpenter v1.14.1 CRDs (schema + CEL) and GPU pitfall rules")
    validate.add_argument("dist", nargs="?", default="dist", help="a manifest file or folder (default: dist)")
    validate.add_argument("--crds", help="folder of CRD YAML files (default: $KARPENTER_GPU_CRDS, else the "
                                         "Karpenter v1.14.1 and prometheus-operator CRDs shipped in the package)")
    validate.add_argument("--strict", action="store_true", help="warnings fail the run too")
    validate.add_argument("-v", "--verbose", action="store_true", help="also print info findings")
    validate.set_defaults(run=_validate)
    # Imported here: each subcommand module pulls in only what it needs (none starts Node.js).
    from karpenter_gpu.analysis import diff
    from karpenter_gpu.analysis import explain
    explain.register(commands)
    diff.register(commands)
    from karpenter_gpu.cli import synth
    synth.register(commands)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
