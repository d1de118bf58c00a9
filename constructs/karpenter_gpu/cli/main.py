"""Command line: ``karpenter-gpu validate | explain | diff | synth | import``; argument parsing and rendering only.

Exit codes, for every command: 0 clean, 1 findings (or a ``--fail-on`` hit), 2 usage or input error.
Every error is one coded line on stderr (``karpenter-gpu: error: [KGnnn] ...``), never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import TYPE_CHECKING, NoReturn

from karpenter_gpu._version import __version__
from karpenter_gpu.apiserver.crd_source import CrdSourceError
from karpenter_gpu.errors import KarpenterGpuError, one_line

if TYPE_CHECKING:
    from karpenter_gpu.k8s.controller_settings import ControllerSettings
    from karpenter_gpu.k8s.input_layout import Environment

PROG = "karpenter-gpu"

#: ``--aws`` of explain and diff.
AWS_HELP = ("AWS CLI JSON output (--output json) of ec2 describe-spot-price-history, describe-instance-type-offerings "
            "--location-type availability-zone or describe-capacity-reservations (repeatable): spot prices per zone, "
            "the zones each type is offered in and the reservations the node classes select (default: on-demand list "
            "prices standing in, every type in every zone)")

#: ``--karpenter-values`` of validate, explain and diff.
KARPENTER_VALUES_HELP = ("the Karpenter chart's values file the controller runs with, for an environment without "
                         "helm/karpenter.values.yaml (default: the chart's defaults): feature gates, minValuesPolicy, "
                         "vmMemoryOverheadPercent, reservedENIs")

OK, FINDINGS, ERROR = 0, 1, 2


def karpenter_values(spec: str | None) -> "ControllerSettings | None":
    """The settings of ``--karpenter-values FILE`` (None when not given); a bad file or value is a coded error."""
    if spec is None:
        return None
    from karpenter_gpu.k8s.controller_settings import read_settings
    from karpenter_gpu.k8s.input_layout import read_values_file
    return read_settings(read_values_file(spec), str(spec))


def settings_of(env: "Environment", fallback: "ControllerSettings | None") -> "ControllerSettings":
    """An environment's controller settings: its helm/karpenter.values.yaml, else ``fallback``, else the chart's."""
    from karpenter_gpu.k8s.controller_settings import environment_settings
    from karpenter_gpu.upstream import KARPENTER_VALUES_FILE
    return environment_settings(env.values, env.value_paths.get(KARPENTER_VALUES_FILE, KARPENTER_VALUES_FILE),
                                fallback)


class Parser(argparse.ArgumentParser):
    """argparse, with usage errors as one coded line (argparse prints the usage block and exits 2)."""

    def error(self, message: str) -> NoReturn:
        error_line(f"[KG911] {self.prog}: {message}. Fix: run '{self.prog} --help'")
        raise SystemExit(ERROR)


def error_line(text: str) -> None:
    """One error, one line: a file name, git's message or a value quoted in ``text`` cannot break or hide it."""
    print(f"{PROG}: error: {one_line(text)}", file=sys.stderr)


def stop_on(items: list) -> int:
    """Print reader problems / blocking findings as coded error lines; the command exits 2 on them."""
    for item in items:
        error_line(item.error_text() if hasattr(item, "error_text") else
                   f"[{item.code}] " + item.line().replace(f": {item.severity} {item.code} ", ": ", 1))
    return ERROR


#: The commands, in the order ``--help`` lists them, and the module that registers and runs each.
COMMANDS = ("validate", "explain", "plan", "diff", "synth", "import")
#: A command whose module is named otherwise (``import`` is a Python keyword).
_MODULES = {"import": "import_cmd"}


def build_parser(argv: list[str] | None = None) -> Parser:
    """The parser; built per call: defaults may read the environment (synth's CDK8S_OUTDIR).

    When ``argv`` names a command, only that command's module is imported: `explain` and `diff` pull in the
    catalog, the timeline and pydantic, a third of `validate`'s start-up. Otherwise (``--help``, a typo)
    every command is registered, so the usage lists them all.
    """
    parser = Parser(prog=PROG, description="Checks for Karpenter GPU manifests. Exit codes: 0 clean, "
                                           "1 findings or a --fail-on hit, 2 usage or input error.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    # Each command module pulls in only what it needs (none starts Node.js).
    wanted = [argv[0]] if argv and argv[0] in COMMANDS else COMMANDS
    for name in wanted:
        importlib.import_module(f"karpenter_gpu.cli.{_MODULES.get(name, name)}").register(commands)
    return parser


def _silence_stdout() -> None:
    # The reader of our output went away (`| head`): later writes and the flush at exit must not raise.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout replaced by an object without a descriptor
        pass


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns the exit code (0, 1 or 2) and never raises."""
    try:
        argv = sys.argv[1:] if argv is None else list(argv)
        args = build_parser(argv).parse_args(argv)
        return args.run(args)
    except SystemExit as ex:  # argparse: --help (0) and usage errors (2, already printed)
        return ex.code if isinstance(ex.code, int) else ERROR
    except KarpenterGpuError as err:
        error_line(str(err))
    except CrdSourceError as err:
        error_line(f"[KG912] {err}")
    except BrokenPipeError:
        _silence_stdout()
        error_line("[KG909] output closed before everything was written (broken pipe). Fix: read the whole output, "
                   "or ignore this line after `| head`")
    except KeyboardInterrupt:
        error_line("[KG918] interrupted. Fix: run the command again")
    except Exception as ex:  # noqa: BLE001 - the contract: one coded line, never a traceback
        import traceback  # late: only a bug needs it

        frame = traceback.extract_tb(ex.__traceback__)[-1]
        error_line(f"[KG919] internal error {type(ex).__name__}: {ex} (at {os.path.basename(frame.filename)}:"
                   f"{frame.lineno}). Fix: this is a bug; please report it with the input")
    return ERROR


def command() -> int:
    """The ``karpenter-gpu`` script and ``python -m karpenter_gpu``: :func:`main` in a process of its own, with the
    collector tuned for it (:func:`~karpenter_gpu.perf.tune_for_command`; ``KARPENTER_GPU_TUNE_GC=0`` turns it off).
    Library callers use :func:`main`, which leaves their process's collector alone."""
    from karpenter_gpu.perf import tune_for_command

    tune_for_command()
    return main()


if __name__ == "__main__":
    sys.exit(command())
