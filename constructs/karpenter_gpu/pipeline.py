"""The all-or-nothing synth pipeline: :func:`synth` (``karpenter_gpu.synth``, ``karpenter-gpu synth``).

1. Build every environment (constructs validate their props, raising :class:`KarpenterGpuError`).
2. Write each one into a private staging folder beside the output: ``<env>/<Kind>.<name>.k8s.yaml``
   (cdk8s's file-per-resource layout) and its Helm values under ``<env>/helm/`` (one level down, so
   ``kubectl apply -f <out>/<env>`` skips them).
3. Validate the whole staging folder (CRD schema + CEL + pitfall rules, as ``karpenter-gpu validate``).
4. Only when everything passed, swap the staging folder in for the output folder.

The swap is atomic on Linux: ``renameat2(RENAME_EXCHANGE)`` exchanges the two folders in one step, so a
reader or a ``kill -9`` at any moment finds either the whole old output or the whole new one, and the
output stays a real folder (it is committed). Where the exchange is not available (other systems, file
systems without it) two renames are used, and a run killed between them leaves the old output in
``.<name>.old-*``, which the next run restores before doing anything else. Runs on the same output are
serialized by an exclusive lock, and folders left by killed runs (``.<name>.*``) are removed under it.
Files and folders get the modes the umask gives (no 0700 staging folder becomes the output).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import os
import re
import secrets
import shutil
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from karpenter_gpu.check.crd_source import resolve_crd_dir
from karpenter_gpu.check.validate import Report, validate_dir
from karpenter_gpu.errors import KarpenterGpuError

if TYPE_CHECKING:
    import cdk8s

    from karpenter_gpu.gpu_platform import PlatformConfig

    SynthItem: TypeAlias = PlatformConfig | Mapping[str, Any] | cdk8s.App

#: Helm values files go one level down, so `kubectl apply -f dist/<env>` (not recursive) skips them.
HELM_DIR = "helm"
_FILE_EXTENSION = ".k8s.yaml"
_RENAME_EXCHANGE = 2  # linux/fs.h


class SynthFailed(KarpenterGpuError):
    """The synthesized manifests have validation errors; the output folder was left as it was."""

    def __init__(self, report: Report, outdir: Path) -> None:
        self.report = report
        super().__init__(
            "KG801", prop="output", value=str(outdir),
            allowed=f"manifests without validation errors; this output has {report.summary()}",
            fix="correct the findings printed above (each names its file, object and field); "
                f"{outdir.name}/ was left unchanged")


def synth(items: Iterable[SynthItem], outdir: str | Path = "dist", *, crds: str | Path | None = None,
          strict: bool = False) -> Report:
    """Build, write, validate and atomically install every environment in ``items`` under ``outdir``.

    ``items``: :class:`PlatformConfig` objects (or mappings of their fields), each rendered by a
    :class:`GpuPlatform` into ``<outdir>/<environment>/``; and/or ``cdk8s.App`` objects you built,
    each written into ``<outdir>/<last part of the app's outdir>/`` (``cdk8s.App(outdir="dist/dev")``
    lands in ``dev/``). Helm values: every :class:`HelmValues` construct in the app (see
    :func:`karpenter_gpu.helm_values_in`) is written to ``<env>/helm/<file_name>``.

    ``crds``: CRD folder for validation (default: ``$KARPENTER_GPU_CRDS``, else the packaged CRDs).
    ``strict``: warnings fail the run too.

    Returns the validation report (warnings and info findings included). Raises
    :class:`KarpenterGpuError` for a bad prop or input (nothing written) and :class:`SynthFailed`
    (code KG801, with ``.report``) when the output has validation errors (output left unchanged).
    """
    from karpenter_gpu._node import ensure_node

    ensure_node()
    out = Path(os.path.abspath(outdir))
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise KarpenterGpuError(
            "KG803", prop="outdir", value=str(out), allowed="a real folder, or a path that does not exist yet",
            fix="remove the file or symlink, or choose another output folder")
    if out == out.parent or Path.cwd().resolve().is_relative_to(out.resolve()):
        # The output is replaced whole: never the folder we run in or one of its parents.
        raise KarpenterGpuError(
            "KG803", prop="outdir", value=str(outdir), allowed="a folder of its own (it is replaced whole), "
            "not the current folder or one of its parents", fix="write to a sub-folder, e.g. --out dist")
    crd_dir = resolve_crd_dir(crds)
    items = list(items)
    out.parent.mkdir(parents=True, exist_ok=True)
    with _locked(out):
        _recover(out)
        staging = out.with_name(f".{out.name}.staging-{os.getpid()}-{secrets.token_hex(4)}")
        staging.mkdir()  # mode 0777 & ~umask, like any folder the user makes
        try:
            _render(items, staging)
            report = validate_dir(staging, crd_dir)
            if report.failed(strict):
                raise SynthFailed(report, out)
            _install(staging, out)
        finally:
            shutil.rmtree(staging, ignore_errors=True)  # after the exchange it holds the old output
    return report


def _render(items: list[Any], staging: Path) -> None:
    import cdk8s

    from karpenter_gpu.addons.helm_values import helm_values_in
    from karpenter_gpu.gpu_platform import GpuPlatform, PlatformConfig

    seen: dict[str, str] = {}

    def claim(environment: str, what: str) -> Path:
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", environment) or environment.startswith(".."):
            raise KarpenterGpuError("KG802", prop="environment", value=environment,
                                    allowed="a folder name (letters, digits, '.', '_', '-')",
                                    fix="rename the environment, or give the app an outdir ending in such a name")
        if environment in seen:
            raise KarpenterGpuError("KG802", prop="environment", value=environment,
                                    allowed=f"one item per environment ({seen[environment]} already writes it)",
                                    fix="give each PlatformConfig or app its own environment name")
        seen[environment] = what
        return staging / environment

    # Build everything before writing anything: a bad prop in the last item writes nothing.
    built: list[tuple[Path, Any, bool]] = []
    for index, item in enumerate(items):
        if isinstance(item, cdk8s.App):
            built.append((claim(Path(item.outdir).name, f"item {index} (an App)"), item, False))
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

    for _, app, _ in built:
        finalize(app)  # objects derived from the final tree, per-cluster uniqueness: a coded error, nothing written
    for env_dir, app, own in built:
        if own:
            app.synth()  # validates the constructs, then writes <Kind>.<name>.k8s.yaml per object
        else:
            _write_app(app, env_dir)
        values = helm_values_in(app)
        if values:
            (env_dir / HELM_DIR).mkdir(exist_ok=True)
        for helm in values:
            (env_dir / HELM_DIR / helm.file_name).write_text(helm.to_yaml(), encoding="utf-8")


def _write_app(app: Any, env_dir: Path) -> None:
    """A user's App, in the layout and bytes ``App.synth`` writes with FILE_PER_RESOURCE (cdk8s lib/app.js)."""
    import cdk8s

    app.synth_yaml()  # runs the constructs' validations and resolves dependencies, like App.synth
    env_dir.mkdir()
    for chart in app.charts:
        for manifest in chart.to_json():
            name = re.sub(r"[^0-9a-zA-Z-_.]", "", f"{manifest['kind']}.{manifest['metadata']['name']}")
            path = env_dir / (name + _FILE_EXTENSION)
            if path.exists():  # two clusters of one App sharing an object name: one file would silently win
                raise KarpenterGpuError(
                    "KG171", prop="items", value=path.name,
                    allowed="one object per file name in an environment's folder (two charts of this App, e.g. two "
                            "clusters, render it)",
                    fix="synthesize each cluster as its own App (outdir dist/<cluster>)")
            path.write_text(cdk8s.Yaml.stringify(manifest), encoding="utf-8")


# --- installing the output ------------------------------------------------------------------


@contextlib.contextmanager
def _locked(out: Path) -> Iterator[None]:
    """Exclusive lock held for the whole run; the kernel releases it if the process dies.

    POSIX: ``flock`` on the output's parent folder itself, so no lock file is left in the user's
    repository. Elsewhere: a ``.<name>.lock`` file beside the output.
    """
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        import msvcrt

        fd = os.open(out.with_name(f".{out.name}.lock"), os.O_RDWR | os.O_CREAT, 0o666)
        try:
            while True:
                try:
                    msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
                    break
                except OSError:
                    continue
            yield
        finally:
            os.close(fd)
        return
    import fcntl

    fd = os.open(out.parent, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _recover(out: Path) -> None:
    """Under the lock: restore an output lost between the fallback's two renames, drop dead runs' folders."""
    leftovers = sorted(p for p in out.parent.glob(f".{out.name}.*") if p.is_dir() and not p.is_symlink())
    olds = [p for p in leftovers if p.name.startswith(f".{out.name}.old-")]
    if not out.exists() and olds:
        olds[-1].rename(out)
    for path in leftovers:
        if path.exists():
            shutil.rmtree(path, ignore_errors=True)


def _install(staging: Path, out: Path) -> None:
    if not out.exists():
        os.rename(staging, out)
        return
    if _exchange(staging, out):
        return
    # Fallback: two renames; a kill between them leaves .<name>.old-*, which _recover restores.
    old = out.with_name(f".{out.name}.old-{os.getpid()}-{secrets.token_hex(4)}")
    os.rename(out, old)
    os.rename(staging, out)
    os.rename(old, staging)  # the caller removes staging


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths with renameat2(RENAME_EXCHANGE); False where the system cannot."""
    renameat2 = _renameat2()
    if renameat2 is None:
        return False
    at_fdcwd = -100
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False  # old kernel or a file system without exchange
    raise OSError(err, f"renameat2(RENAME_EXCHANGE) {a} <-> {b}: {os.strerror(err)}")


def _renameat2() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        function = libc.renameat2  # glibc >= 2.28, musl >= 1.2.2
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    function.restype = ctypes.c_int
    return function
