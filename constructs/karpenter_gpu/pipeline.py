"""The all-or-nothing synth pipeline: :func:`synth` (``karpenter_gpu.synth``, ``karpenter-gpu synth``).

1. Build every environment (constructs validate their props, raising :class:`KarpenterGpuError`).
2. Write each one into a private staging folder beside the output: ``<env>/<Kind>.<name>.k8s.yaml``
   (cdk8s's file-per-resource layout; a string cdk8s's Node.js YAML writer leaves unquoted but go-yaml v2 would
   read as another type is quoted) and its Helm values under ``<env>/helm/`` (one level down, so
   ``kubectl apply -f <out>/<env>`` skips them).
3. Validate the whole staging folder (CRD schema + CEL + pitfall rules, as ``karpenter-gpu validate``).
4. Only when everything passed, write the marker (the list of every file and folder written) and swap the
   staging folder in for the output folder.

The output folder itself (which folders may be replaced, the marker, the lock, recovery after a crash, the
exchange, removal without following a link) is :mod:`karpenter_gpu.output`'s job; its docstring lists what is
guaranteed. Whatever fails, the output folder is left as it was and no staging folder remains.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from karpenter_gpu._construct_tree import node_of
from karpenter_gpu._fs import os_error, printable
from karpenter_gpu.apiserver.crd_source import resolve_crd_dir
from karpenter_gpu.apiserver.findings import Severity
from karpenter_gpu.check.validate import Report, validate_dir
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.yaml_writer import go_safe_text, written_as_meant
from karpenter_gpu.output import ENVIRONMENT, FILE_EXTENSION, HELM_DIR, Staging, replacing, write_file

if TYPE_CHECKING:
    import cdk8s

    from karpenter_gpu.gpu_platform import PlatformConfig

    SynthItem: TypeAlias = PlatformConfig | Mapping[str, Any] | cdk8s.App


class SynthFailed(KarpenterGpuError):
    """The synthesized manifests have validation errors; the output folder was left as it was.

    The message carries the first :data:`LISTED` failing findings (each names its file, object and field) and
    how many there are; ``.report`` holds them all. ``printed``: the caller printed every finding itself (the
    command line), so the message only points at them.
    """

    #: Failing findings quoted in the message: one line stays readable, ``.report`` has the rest.
    LISTED = 3

    def __init__(self, report: Report, outdir: Path, strict: bool = False, printed: bool = False) -> None:
        self.report = report
        self.outdir = outdir
        self.strict = strict
        failing = [f for f in report.findings
                   if f.severity == Severity.ERROR or (strict and f.severity == Severity.WARNING)]
        if printed:
            which = "correct the findings printed above (each names its file, object and field)"
        else:
            more = f" (and {len(failing) - self.LISTED} more in .report.findings)" if len(failing) > self.LISTED else ""
            which = (f"correct the {len(failing)} failing finding{'s' if len(failing) != 1 else ''}: "
                     + " | ".join(f.line() for f in failing[:self.LISTED]) + more)
        super().__init__(
            "KG801", prop="output", value=str(outdir),
            allowed=f"manifests without validation errors; this output has {report.summary()}",
            fix=f"{which}; {outdir.name}/ was left unchanged")

    def __reduce__(self):  # pickled with its report, not as a plain KarpenterGpuError
        return (SynthFailed, (self.report, self.outdir, self.strict))


def synth(items: Iterable[SynthItem], outdir: str | Path = "dist", *, crds: str | Path | None = None,
          strict: bool = False, lock_timeout: float | None = None) -> Report:
    """Build, write, validate and atomically install every environment in ``items`` under ``outdir``.

    ``items``: :class:`PlatformConfig` objects (or mappings of their fields), each rendered by a
    :class:`GpuPlatform` into ``<outdir>/<environment>/``; and/or ``cdk8s.App`` objects you built,
    each written into ``<outdir>/<last part of the app's outdir>/`` (``cdk8s.App(outdir="dist/dev")``
    lands in ``dev/``). Helm values: every :class:`HelmValues` construct in the app (see
    :func:`karpenter_gpu.helm_values_in`) is written to ``<env>/helm/<file_name>``.

    ``outdir``: absent, empty, or a previous output of this function (see :mod:`karpenter_gpu.output`'s guarantees).
    ``crds``: CRD folder for validation (default: ``$KARPENTER_GPU_CRDS``, else the packaged CRDs).
    ``strict``: warnings fail the run too.
    ``lock_timeout``: seconds to wait for another synth of the same folder. Default: - wait for ever
    (saying on stderr for which pid).

    Returns the validation report (warnings and info findings included). Raises
    :class:`KarpenterGpuError` for a bad prop or input (nothing written), a refused output folder
    (KG803-KG806), a lock timeout (KG807) or a file-system fault (KG930-KG933), and :class:`SynthFailed`
    (code KG801, with ``.report``) when the output has validation errors. In every case the output
    folder is left as it was and no staging folder remains.
    """
    from karpenter_gpu._nodejs import ensure_node

    ensure_node()
    if lock_timeout is not None and not lock_timeout >= 0:
        raise KarpenterGpuError("KG802", prop="lock_timeout", value=lock_timeout, allowed="seconds, 0 or more",
                                fix="pass a number of seconds, or None to wait for ever")
    crd_dir = resolve_crd_dir(crds)
    items = list(items)
    try:
        return _synth(items, Path(os.path.abspath(outdir)), str(outdir), crd_dir, strict, lock_timeout)
    except OSError as ex:
        raise os_error(ex, f"synth into {printable(str(outdir))}") from ex


def _synth(items: list[Any], out: Path, outdir: str, crd_dir: Path, strict: bool,
           lock_timeout: float | None) -> Report:
    with replacing(out, outdir, lock_timeout):
        staging = Staging(out)
        try:
            _render(items, staging.path)
            report = validate_dir(staging.path, crd_dir)
            if report.failed(strict):
                raise SynthFailed(report, out, strict)
        except BaseException:
            staging.abandon()
            raise
        staging.install()
        return report


def _render(items: list[Any], staging: Path) -> None:
    import cdk8s

    from karpenter_gpu.addons.helm_values import helm_values_in, writing_values
    from karpenter_gpu.cluster import ref_of
    from karpenter_gpu.gpu_platform import GpuPlatform, PlatformConfig

    seen: dict[str, str] = {}

    def claim(environment: str, what: str) -> Path:
        if not re.fullmatch(ENVIRONMENT, environment) or environment.startswith(".."):
            raise KarpenterGpuError("KG802", prop="environment", value=environment,
                                    allowed="a folder name (letters, digits, '.', '_', '-')",
                                    fix="rename the environment, or give the app an outdir ending in such a name")
        if environment.lower() == HELM_DIR:
            raise KarpenterGpuError("KG802", prop="environment", value=environment,
                                    allowed=f"a name other than {HELM_DIR!r} (a top-level {HELM_DIR}/ folder holds "
                                            "the Helm values of the output's root environment, so readers would "
                                            "not see this environment's manifests as one)",
                                    fix="rename the environment, e.g. helm-dev")
        if environment in seen:
            raise KarpenterGpuError("KG802", prop="environment", value=environment,
                                    allowed=f"one item per environment ({seen[environment]} already writes it)",
                                    fix="give each PlatformConfig or app its own environment name")
        seen[environment] = what
        return staging / environment

    # Build everything before writing anything: a bad prop in the last item writes nothing.
    built: list[tuple[Path, Any, bool]] = []
    apps: dict[str, list[tuple[Path, list, list]]] = {}  # a user App's environments: folder, charts, values
    for index, item in enumerate(items):
        if isinstance(item, cdk8s.App):
            apps[ref_of(item)] = [(claim(name, f"item {index} (an App)"), charts, values)
                                  for name, charts, values in _environments_of(item)]
            built.append((staging, item, False))
            continue
        if isinstance(item, Mapping):
            item = PlatformConfig(**item)
        if not isinstance(item, PlatformConfig):
            raise KarpenterGpuError("KG802", prop=f"items[{index}]", value=type(item).__name__,
                                    allowed="a PlatformConfig, a mapping of its fields, or a cdk8s.App",
                                    fix="pass the environments' configs or the apps you built")
        env_dir = claim(item.environment, f"item {index}")
        app = cdk8s.App(outdir=str(env_dir), yaml_output_type=cdk8s.YamlOutputType.FILE_PER_RESOURCE)
        GpuPlatform(app, props=item)
        built.append((env_dir, app, True))
    from karpenter_gpu.cluster import finalize

    for _, app, own in built:
        # one folder per cluster of a user App with several: their files may share names (checked per folder)
        finalize(app, one_folder=own or len(apps[ref_of(app)]) < 2)  # objects derived from the final tree, per-cluster uniqueness: a coded error, nothing written
    for env_dir, app, own in built:
        if own:
            with writing_values():  # written below: the App's own synth needs no notice (KG809)
                _node_synth(app)  # validates the constructs, then writes <Kind>.<name>.k8s.yaml per object
                _requote(app, env_dir)
            _write_values(env_dir, helm_values_in(app))
            continue
        with writing_values():
            app.synth_yaml()  # runs the constructs' validations and resolves dependencies, like App.synth
        for folder, charts, values in apps[ref_of(app)]:
            _write_app(charts, folder)
            _write_values(folder, values)


def _environments_of(app: Any) -> list[tuple[str, list, list]]:
    """The environments a user App writes: (folder name, charts, Helm values). One, named after the App's outdir,
    unless the App holds two or more clusters (:class:`~karpenter_gpu.cluster.Cluster`, GpuPlatform): then one per
    cluster, named after its id (each cluster's objects may share names with another's), and the App's folder
    only for charts outside every cluster."""
    from karpenter_gpu.addons.helm_values import helm_values_in
    from karpenter_gpu.cluster import cluster_of, clusters, ref_of

    charts, values = list(app.charts), helm_values_in(app)
    found = clusters(app)[1:]
    if len(found) < 2:
        return [(Path(app.outdir).name, charts, values)]

    def of(cluster: Any) -> tuple[list, list]:
        return ([c for c in charts if ref_of(cluster_of(c)) == ref_of(cluster)],
                [v for v in values if ref_of(cluster_of(v)) == ref_of(cluster)])

    outside = of(app)
    return ([(Path(app.outdir).name, *outside)] if outside[0] or outside[1] else []) + [
        (node_of(cluster).id, *of(cluster)) for cluster in found]


def _write_values(env_dir: Path, values: list) -> None:
    """Each Helm values file into ``<env>/helm/``."""
    if values:
        (env_dir / HELM_DIR).mkdir(exist_ok=True)
    for helm in values:
        write_file(env_dir / HELM_DIR / helm.file_name, helm.to_yaml())


#: How Node.js reports a failed file-system call: ``Error: ENOSPC: no space left on device, open '/x/y'``
#: (a failed ``write`` names no path).
_NODE_FS_ERROR = re.compile(r"(?:Error: )?(E[A-Z0-9]+): ([^,\n]+)(?:, \w+(?: '([^'\n]*)')?)?$")


def _node_synth(app: Any) -> None:
    """``app.synth()``, whose files Node.js writes: its file-system faults become the ``OSError`` they are."""
    try:
        app.synth()
    except RuntimeError as ex:
        found = _NODE_FS_ERROR.match(str(ex))
        number = getattr(errno, found.group(1), None) if found else None
        if found is None or not isinstance(number, int):
            raise
        raise OSError(number, found.group(2), found.group(3) or app.outdir) from ex


def _write_app(charts: list, env_dir: Path) -> None:
    """Charts of a user's App, in the layout and bytes ``App.synth`` writes with FILE_PER_RESOURCE (cdk8s
    lib/app.js)."""
    import cdk8s

    env_dir.mkdir()
    for chart in charts:
        for manifest in chart.to_json():
            path = env_dir / _file_name(manifest)
            if path.exists():  # two clusters of one App sharing an object name: one file would silently win
                raise KarpenterGpuError(
                    "KG171", prop="items", value=path.name,
                    allowed="one object per file name in an environment's folder (two charts of this App, e.g. two "
                            "clusters, render it)",
                    fix="synthesize each cluster as its own App (outdir dist/<cluster>)")
            write_file(path, go_safe_text(cdk8s.Yaml.stringify(manifest), manifest, path.name))


def _file_name(manifest: dict) -> str:
    """The file ``App.synth`` writes ``manifest`` to with FILE_PER_RESOURCE (cdk8s lib/app.js)."""
    return re.sub(r"[^0-9a-zA-Z-_.]", "", f"{manifest['kind']}.{manifest['metadata']['name']}") + FILE_EXTENSION


def _requote(app: Any, env_dir: Path) -> None:
    """Rewrite each file cdk8s's Node.js YAML library wrote with a string go-yaml v2 reads as another type
    (``0o10``, ``0X1F``, ``0B11`` unquoted: :func:`~karpenter_gpu.k8s.yaml_writer.go_safe_text`), so that kubectl
    and Helm read every string back as written; the other files keep cdk8s's bytes. The files are read back first
    (:func:`~karpenter_gpu.k8s.yaml_writer.written_as_meant`): only when one is suspect are the charts' objects
    fetched over jsii, so the usual synth makes no extra round trip."""
    suspects = {path.name for path in env_dir.glob(f"*{FILE_EXTENSION}")
                if not written_as_meant(path.read_text(encoding="utf-8"), path.name)}
    if not suspects:
        return
    for chart in app.charts:
        for manifest in chart.to_json():
            path = env_dir / _file_name(manifest)
            if path.name not in suspects:
                continue
            text = path.read_text(encoding="utf-8")
            safe = go_safe_text(text, manifest, path.name)
            if safe != text:
                write_file(path, safe)
