"""``--karpenter-version`` of validate, explain and diff: the Karpenter line an answer is for."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable

from karpenter_gpu.apiserver.crd_source import PACKAGED_DIR
from karpenter_gpu.k8s.target_line import TargetLine, environment_line, explicit_line, values_line
from karpenter_gpu.upstream import DEFAULT_LINE, KARPENTER_LINES, KARPENTER_VALUES_FILE

if TYPE_CHECKING:
    from karpenter_gpu.k8s.input_layout import Environment

KARPENTER_VERSION_HELP = (f"the Karpenter line to answer for: {', '.join(KARPENTER_LINES)} (default: what each "
                          "environment's helm/karpenter.values.yaml installs, its controller.image.tag; else the "
                          f"--karpenter-values file's; else {DEFAULT_LINE}); its packaged CRDs check the manifests")


def values_file_line(spec: str | None) -> TargetLine | None:
    """The line ``--karpenter-values FILE`` installs (its ``controller.image.tag``); None without one."""
    if spec is None:
        return None
    from karpenter_gpu.k8s.input_layout import read_values_file

    return values_line(read_values_file(spec), str(spec))


def environment_lines(version: str | None, values_file: str | None) -> Callable[["Environment"], TargetLine]:
    """Each environment's line (:func:`~karpenter_gpu.k8s.target_line.environment_line`) for ``--karpenter-version``
    and ``--karpenter-values``; both are read (and refused, KG660) before any environment is."""
    explicit, fallback = explicit_line(version), values_file_line(values_file)

    def line_of(env: "Environment") -> TargetLine:
        return environment_line(explicit, env.values, env.value_paths.get(KARPENTER_VALUES_FILE, KARPENTER_VALUES_FILE),
                                fallback)
    return line_of


def crds_for(crd_dir: str | Path, line_of: Callable[["Environment"], TargetLine]) -> "dict | Callable":
    """The CRDs of a command: a folder of the user's as it is, else each environment's line's packaged CRDs."""
    from karpenter_gpu.apiserver.crds import crds_from, line_crds

    if Path(crd_dir).resolve() != PACKAGED_DIR.resolve():
        return crds_from(crd_dir)
    return lambda env: line_crds(line_of(env).line)
