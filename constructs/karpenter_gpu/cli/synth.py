"""``karpenter-gpu synth --app module:attr --out dist``: the library's all-or-nothing synth as a command.

``--app`` names what to synthesize, imported like ``python -m`` would (the current folder first on the
path): ``module:attr`` where ``attr`` is a PlatformConfig, a cdk8s.App, an iterable of those, or a
function returning one of them (called with no arguments). See :func:`karpenter_gpu.synth` for what is
guaranteed about the output folder. An exception raised by that code (at import or when called) is KG808,
naming ``module:attr``; a module that does not exist is KG802.
Exit codes: 0 written, 2 bad input, a refused output folder, an environment fault or validation errors (the
output folder is left unchanged).

``--check`` writes nothing into the output folder: it synthesizes into a temporary folder and compares
(:mod:`karpenter_gpu.synth_check`), printing one line per file that differs, is missing or is extra. Exit codes:
0 the output is what synth writes, 1 it differs (stale), 2 as above (KG816: the output folder is not a folder).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Any

from karpenter_gpu._fs import printable
from karpenter_gpu.errors import KarpenterGpuError


def register(commands: Any) -> None:
    cmd = commands.add_parser(
        "synth", help="build, validate and atomically replace an output folder (Helm values under <env>/helm/)")
    cmd.add_argument("--app", required=True, metavar="MODULE:ATTR",
                     help="what to synthesize, e.g. stacks:ENVIRONMENTS (configs, apps, or a function returning them)")
    cmd.add_argument("--out", default=os.environ.get("CDK8S_OUTDIR", "dist"),
                     help="output folder, replaced only when complete (default: $CDK8S_OUTDIR, else dist)")
    cmd.add_argument("--crds", help="CRD folder for validation (default: $KARPENTER_GPU_CRDS, else the packaged CRDs)")
    cmd.add_argument("--strict", action="store_true", help="warnings fail the run too")
    cmd.add_argument("--lock-timeout", type=float, metavar="SECONDS",
                     help="give up (KG807) when another synth of the same folder holds the lock this long "
                          "(default: wait, saying for which pid)")
    cmd.add_argument("--check", action="store_true",
                     help="write nothing: synthesize into a temporary folder and exit 1 when the output folder "
                          "differs from it, one line per file that differs, is missing or is extra (0: identical)")
    cmd.add_argument("-v", "--verbose", action="store_true", help="also print info findings")
    cmd.set_defaults(run=run)


def load_app(reference: str) -> Any:
    """The object ``module:attr`` names (called when it is a function), or KG802."""
    module_name, _, attr = reference.partition(":")
    if not module_name or not attr:
        raise _bad(reference, "MODULE:ATTR, e.g. stacks:ENVIRONMENTS")
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # like `python -m`: the project's own modules are importable
    try:
        target: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as ex:
        if not _names_module(ex.name, module_name):
            raise _raised(reference, "importing", ex) from ex  # the module exists; something it imports does not
        raise _bad(reference, f"an importable module ({ex})") from ex
    except KarpenterGpuError:
        raise  # already says what and where (e.g. a bad prop of a config built at import)
    except Exception as ex:  # noqa: BLE001 - the user's module failed: their code, not ours
        raise _raised(reference, "importing", ex) from ex
    for part in attr.split("."):
        if not hasattr(target, part):
            raise _bad(reference, f"an attribute of {module_name} ({part!r} not found)")
        target = getattr(target, part)
    if not callable(target) or isinstance(target, type):
        return target
    try:
        return target()
    except KarpenterGpuError:
        raise  # already says what and where (e.g. a bad prop of a config built there)
    except Exception as ex:  # noqa: BLE001 - the user's function failed: their code, not ours
        raise _raised(reference, "calling", ex) from ex


def _user_frame(ex: BaseException) -> str | None:
    """``file:line`` of the innermost frame of the user's own code in ``ex``'s traceback: not this package, not
    the standard library or an installed package (a library the code called), not a frozen import frame. When
    every frame is installed code (the app is an installed package), the innermost frame outside this package."""
    import sysconfig
    import traceback

    ours = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    installed = {os.path.realpath(sysconfig.get_paths()[key]) for key in ("stdlib", "platstdlib", "purelib", "platlib")}

    def under(path: str, folders: set[str]) -> bool:
        return any(path == folder or path.startswith(folder + os.sep) for folder in folders)

    frames = [(os.path.realpath(f.filename), f) for f in traceback.extract_tb(ex.__traceback__)
              if not f.filename.startswith("<")]
    frames = [(path, f) for path, f in frames if not under(path, {ours})]
    chosen = next((f for path, f in reversed(frames) if not under(path, installed)), None)
    if chosen is None and frames:
        chosen = frames[-1][1]
    if chosen is None:
        return None
    shown = os.path.relpath(chosen.filename) if under(os.path.realpath(chosen.filename), {os.getcwd()}) \
        else chosen.filename
    return f"{shown}:{chosen.lineno}"


def _names_module(missing: str | None, module_name: str) -> bool:
    """Whether the missing module is the one named (or a package on its way)."""
    return missing is not None and (module_name == missing or module_name.startswith(missing + "."))


def _raised(reference: str, doing: str, ex: Exception) -> KarpenterGpuError:
    frame = _user_frame(ex)
    at = f" at {printable(frame)}" if frame else ""
    return KarpenterGpuError(
        "KG808", prop="--app", value=reference,
        allowed=f"code that runs; {doing} it raised {type(ex).__name__}{at}: {printable(str(ex))[:300]}",
        fix=f"correct the code of {reference} (run `python -c 'import {reference.partition(':')[0]}'` to see "
            "the traceback)")


def run(args: argparse.Namespace) -> int:
    from karpenter_gpu.pipeline import SynthFailed, synth

    try:
        items = load_app(args.app)
        items = [items] if not _is_iterable(items) else items
        if args.check:
            return _check(items, args)
        report = synth(items, args.out, crds=args.crds, strict=args.strict, lock_timeout=args.lock_timeout)
    except SynthFailed as failed:
        _print_findings(failed.report, args.verbose, sys.stderr)
        print(f"error: {SynthFailed(failed.report, failed.outdir, failed.strict, printed=True)}", file=sys.stderr)
        return 2
    except KarpenterGpuError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    _print_findings(report, args.verbose, sys.stderr)
    print(f"ok: {printable(args.out)}/ written ({report.summary()})")
    return 0


def _check(items: list[Any], args: argparse.Namespace) -> int:
    from karpenter_gpu.synth_check import check_output

    report, differences = check_output(items, args.out, crds=args.crds, strict=args.strict)
    _print_findings(report, args.verbose, sys.stderr)
    for difference in differences:
        print(difference.line(args.out))
    shown = printable(args.out)
    if differences:
        n = len(differences)
        print(f"error: {shown}/ is stale: {n} entr{'ies' if n != 1 else 'y'} differ{'' if n != 1 else 's'} from a "
              f"fresh synth of {printable(args.app)}; run `karpenter-gpu synth --app {printable(args.app)} --out "
              f"{shown}` and commit the result", file=sys.stderr)
        return 1
    print(f"ok: {shown}/ is what synth writes ({report.summary()})")
    return 0


def _print_findings(report: Any, verbose: bool, stream: Any) -> None:
    from karpenter_gpu.apiserver.findings import Severity

    for finding in report.findings:
        if finding.severity != Severity.INFO or verbose:
            print(finding.line(), file=stream)


def _is_iterable(value: Any) -> bool:
    import cdk8s  # an App is a construct, and constructs are not iterables of items

    from karpenter_gpu.gpu_platform import PlatformConfig

    if isinstance(value, (PlatformConfig, cdk8s.App, dict, str)):
        return False
    try:
        iter(value)
    except TypeError:
        return False
    return True


def _bad(reference: str, allowed: str) -> KarpenterGpuError:
    return KarpenterGpuError("KG802", prop="--app", value=reference, allowed=allowed,
                             fix="name a module on the path and an attribute holding PlatformConfigs or cdk8s apps")
