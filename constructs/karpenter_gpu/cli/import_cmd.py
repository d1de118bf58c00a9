"""``karpenter-gpu import DIR|FILE|- --out app.py``: existing Karpenter YAML as a Python app that synthesizes the
same objects (see :mod:`karpenter_gpu.importer` for the contract). Exit codes: 0 written, 2 usage or input error
(malformed input as every command refuses it, KG770 nothing to import, KG771 the output file exists, KG234
``--opinionated`` without a path input or onto ``--out``). ``--opinionated FILE`` also writes the constructs' calls
with their defaults (:mod:`karpenter_gpu.importer.opinions`) and prints the diff of the input against their synth;
an opinionated app that does not synthesize is a note (KG235), the files stay written."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from karpenter_gpu._fs import printable
from karpenter_gpu.cli.main import PROG, stop_on
from karpenter_gpu.errors import KarpenterGpuError


def run(args: argparse.Namespace) -> int:
    from karpenter_gpu.importer import import_source
    from karpenter_gpu.k8s.input_layout import read_path

    if args.opinionated is not None and (args.input == "-" or args.opinionated == "-" or
                                         Path(args.opinionated).absolute() == Path(args.out).absolute()):
        raise KarpenterGpuError("KG234", prop="--opinionated", value=args.opinionated,
                                allowed="a new file other than --out, with a folder or file input (the diff of its "
                                        "synth reads the input again)",
                                fix="pass --opinionated opinions.py with the input as a path")
    source = read_path(args.input)
    if source.problems:
        return stop_on(source.problems)
    imported = import_source(source)
    if not imported.environments:
        raise KarpenterGpuError("KG770", prop="input", value=args.input,
                                allowed="NodePools, EC2NodeClasses, NodeOverlays or the values files karpenter-gpu "
                                        "writes (karpenter.values.yaml, gpu-operator.values.yaml, neuron-device-plugin.values.yaml)",
                                fix="point at the folder or file holding the Karpenter manifests")
    if args.opinionated is not None and Path(args.opinionated).exists():  # before anything is written
        raise KarpenterGpuError("KG771", prop="--opinionated", value=args.opinionated,
                                allowed="a file that does not exist yet",
                                fix="choose another name, or move the existing file away first")
    _write(args.out, "--out", imported.code)
    if args.out != "-":
        module = Path(args.out).stem if Path(args.out).stem.isidentifier() else "<module>"
        platforms = (f"; {len(imported.platforms)} of them one PlatformConfig each ({', '.join(imported.platforms)})"
                     if imported.platforms else "")
        print(f"{PROG}: wrote {printable(args.out)}: {imported.objects} object(s) ({imported.constructs} written by "
              f"constructs, the rest as given), {imported.values} values file(s) "
              f"in {len(imported.environments)} environment(s) ({', '.join(imported.environments)}){platforms}; "
              f"synthesize with `{PROG} synth --app {module}:apps --out <folder>`", file=sys.stderr)
    if args.opinionated is not None:
        opinionated = import_source(source, opinionated=True)
        _write(args.opinionated, "--opinionated", opinionated.code)
        print(f"{PROG}: wrote {printable(args.opinionated)}: {opinionated.constructs} construct call(s) with the "
              "constructs' defaults; what adopting them changes:", file=sys.stderr)
        sys.stdout.write(_opinions_diff(args.input, opinionated, source))
    for environment, kind, name, field, detail in imported.kept:  # what a team would change to adopt the constructs
        print(f"{PROG}: note: {printable(environment)}: {printable(kind)} {printable(name)} kept as given: "
              f"{printable(field)} ({printable(detail)})", file=sys.stderr)
    for path in imported.skipped_values:
        print(f"{PROG}: note: not imported: {printable(path)} (a values file karpenter-gpu does not write)",
              file=sys.stderr)
    return 0


def _write(path: str, prop: str, code: str) -> None:
    if path == "-":
        sys.stdout.write(code)
        return
    try:
        with open(path, "x", encoding="utf-8") as handle:  # never replaces a file of the user's
            handle.write(code)
    except FileExistsError:
        raise KarpenterGpuError("KG771", prop=prop, value=path, allowed="a file that does not exist yet",
                                fix="choose another name, or move the existing file away first") from None
    except OSError as ex:
        raise KarpenterGpuError("KG771", prop=prop, value=path, allowed=f"a file that can be created ({ex.strerror})",
                                fix="choose a writable path") from None


def _opinions_diff(input_path: str, opinionated: Any, source: Any) -> str:
    """``karpenter-gpu diff INPUT <synth of the opinionated app>``'s text: which pools' nodes drift or are
    replaced by adopting the constructs' defaults. The app is synthesized in a temporary folder (removed after)."""
    import contextlib
    import io
    import tempfile

    from karpenter_gpu.cli.main import main
    from karpenter_gpu.k8s.input_layout import ROOT

    namespace: dict[str, Any] = {"__name__": "karpenter_gpu_opinions"}
    exec(compile(opinionated.code, "<opinionated app>", "exec"), namespace)  # the code just written: reprs only
    with tempfile.TemporaryDirectory(prefix="karpenter-gpu-opinions-") as tmp:
        try:
            _write_objects(namespace["apps"](), Path(tmp))
        except KarpenterGpuError as err:
            print(f"{PROG}: note: [KG235] the opinionated app does not synthesize, so no diff: {err}", file=sys.stderr)
            return ""
        flat = [env.key for env in source.environments] == [ROOT]  # a flat input is one folder named after it
        head = Path(tmp) / opinionated.environments[0] if flat else Path(tmp)
        text = io.StringIO()
        with contextlib.redirect_stdout(text):
            main(["diff", input_path, str(head)])
    return text.getvalue()


def _write_objects(apps: list[Any], folder: Path) -> None:
    """Each app's objects and Helm values as YAML under ``folder/<environment>/``, without synth's validation:
    the diff shows what the opinions change even where ``synth`` would refuse them (it says so there)."""
    import cdk8s

    from karpenter_gpu.addons.helm_values import helm_values_in
    from karpenter_gpu.k8s.yaml_writer import dump

    for app in apps:
        env = folder / Path(app.outdir).name
        (env / "helm").mkdir(parents=True)
        for chart in app.charts:
            for index, manifest in enumerate(cdk8s.Testing.synth(chart)):
                (env / f"object-{index}.yaml").write_text(dump(manifest), encoding="utf-8")
        for values in helm_values_in(app):
            (env / "helm" / values.file_name).write_text(dump(values.values), encoding="utf-8")


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
    parser.add_argument("--opinionated", metavar="FILE",
                        help="also write the constructs' calls with their defaults to FILE (a follow-up, never "
                             "replaced when it exists) and print karpenter-gpu diff of the input against its synth: "
                             "which pools' nodes each opinion drifts or replaces")
    parser.set_defaults(run=run)
