"""``karpenter-gpu import DIR|FILE|- --out app.py``: existing Karpenter YAML as a Python app that synthesizes the
same objects (see :mod:`karpenter_gpu.importer` for the contract). Exit codes: 0 written, 2 usage or input error
(malformed input as every command refuses it, KG770 nothing to import, KG771 the output file exists)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from karpenter_gpu._fs import printable
from karpenter_gpu.cli.main import PROG, stop_on
from karpenter_gpu.errors import KarpenterGpuError


def run(args: argparse.Namespace) -> int:
    from karpenter_gpu.importer import import_source
    from karpenter_gpu.k8s.input_layout import read_path

    source = read_path(args.input)
    if source.problems:
        return stop_on(source.problems)
    imported = import_source(source)
    if not imported.environments:
        raise KarpenterGpuError("KG770", prop="input", value=args.input,
                                allowed="NodePools, EC2NodeClasses, NodeOverlays or the values files karpenter-gpu "
                                        "writes (karpenter.values.yaml, gpu-operator.values.yaml, neuron-device-plugin.values.yaml)",
                                fix="point at the folder or file holding the Karpenter manifests")
    if args.out == "-":
        sys.stdout.write(imported.code)
    else:
        out = Path(args.out)
        try:
            with open(out, "x", encoding="utf-8") as handle:  # never replaces a file of the user's
                handle.write(imported.code)
        except FileExistsError:
            raise KarpenterGpuError("KG771", prop="--out", value=args.out, allowed="a file that does not exist yet",
                                    fix="choose another name, or move the existing file away first") from None
        except OSError as ex:
            raise KarpenterGpuError("KG771", prop="--out", value=args.out,
                                    allowed=f"a file that can be created ({ex.strerror})",
                                    fix="choose a writable path") from None
        module = out.stem if out.stem.isidentifier() else "<module>"
        print(f"{PROG}: wrote {printable(args.out)}: {imported.objects} object(s) ({imported.constructs} as construct "
              f"calls, the rest as given), {imported.values} values file(s) "
              f"in {len(imported.environments)} environment(s) ({', '.join(imported.environments)}); synthesize "
              f"with `{PROG} synth --app {module}:apps --out <folder>`", file=sys.stderr)
    for path in imported.skipped_values:
        print(f"{PROG}: note: not imported: {printable(path)} (a values file karpenter-gpu does not write)",
              file=sys.stderr)
    return 0


def register(commands: argparse._SubParsersAction) -> None:
    """Add ``import INPUT --out FILE``."""
    parser = commands.add_parser(
        "import", help="write a Python app that synthesizes existing Karpenter YAML unchanged",
        description="Read NodePools, EC2NodeClasses, NodeOverlays (any object) and the values files karpenter-gpu "
                    "writes, one environment per top-level folder, and write a cdk8s app whose synth gives the same "
                    "objects: karpenter-gpu diff INPUT OUTPUT --fail-on drift exits 0. An object a construct writes as "
                    "it was read becomes that construct's call (checked at import); the others are kept as given, "
                    "their reason naming the field that kept the construct out. Exit codes: 0 written, 2 usage or input "
                    "error.")
    parser.add_argument("input", help="folder, file or - for stdin")
    parser.add_argument("--out", required=True, metavar="FILE",
                        help="the Python file to write (never replaced when it exists), or - for stdout")
    parser.set_defaults(run=run)
