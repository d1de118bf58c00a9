"""The all-or-nothing synth pipeline: :func:`synth` (``karpenter_gpu.synth``, ``karpenter-gpu synth``).

1. Build every environment (constructs validate their props, raising :class:`KarpenterGpuError`).
2. Write each one into a private staging folder beside the output: ``<env>/<Kind>.<name>.k8s.yaml``
   (cdk8s's file-per-resource layout) and its Helm values under ``<env>/helm/`` (one level down, so
   ``kubectl apply -f <out>/<env>`` skips them).
3. Validate the whole staging folder (CRD schema + CEL + pitfall rules, as ``karpenter-gpu validate``).
4. Only when everything passed, write the marker :data:`MARKER` (the list of every file and folder
   written) and swap the staging folder in for the output folder.

What is guaranteed:

- **Nothing of anyone else's is deleted.** The output folder is replaced only when it is absent, empty,
  or carries the marker and holds nothing the marker does not list. A folder of someone else's files
  (KG804), a marked output to which a file was added (KG805, naming it: it is refused, not deleted), a
  repository root (``.git``) or a folder of the Python source the app runs from (KG806), the current
  folder or one of its parents, a file or a symlink (KG803) are refused before anything is built.
  An output written before the marker existed is adopted once (the marker is written into it) when every
  entry is something synth writes: ``<env>/``, ``<env>/<Kind>.<name>.k8s.yaml``, ``<env>/helm/*.yaml``.
- **Nor while it builds.** Right before the exchange the output is checked again (:func:`_check_unchanged`):
  still the real folder checked at the start (same ``st_dev``/``st_ino``, by ``lstat``), else KG803 (a
  symbolic link put in its place and the folder it points to are left as they are); still holding only
  what its marker lists, else KG805: the run fails, nothing is installed, the added files stay where they
  were written. The exchange is then checked: if what it moved out is not the folder checked (replaced in
  between), it is exchanged back and the run refused (KG803). Files added after that last check are not
  lost either: the old output is removed entry by entry against its marker (:func:`_discard_old`), and
  what the marker does not list (files, folders, symbolic links) is kept in ``.<name>.kept-<pid>-<token>``
  beside the output, a name synth never removes. The new output is then installed and the run reports
  the kept entries with KG805 (exit 2 from the command line).
- **Only its own folders are removed.** Staging and old folders are named ``.<name>.staging-<pid>-<token>``
  and ``.<name>.old-<pid>-<token>``; one is removed only when it proves to be ours: it holds the proof
  file :data:`PROOF` naming the folder (written first), or the marker with nothing unlisted beside it
  (an old output), or nothing at all. Anything else of that name is left alone. Removal takes the
  proof or the marker last, so a removal cut short stays provable, and makes our own read-only
  folders writable first. It never follows a symbolic link: folders are opened with ``O_NOFOLLOW``
  relative to their parent's descriptor and entries removed by name relative to it (a link is removed
  itself, never what it points to); a staging folder or an old output that turned out to be a link
  (or another folder than the run's) is left untouched (KG810).
- **The output is never missing or partial.** On Linux ``renameat2(RENAME_EXCHANGE)`` exchanges the two
  folders in one step, so a reader or a ``kill -9`` at any moment finds the whole old output or the
  whole new one, and the output stays a real folder (it is committed). Where the exchange is not
  available two renames are used, and a run killed between them leaves the old output in
  ``.<name>.old-*``, which the next run restores before doing anything else.
- **A mount point (or a lower layer of an overlay) as output**, whose folder cannot be renamed (EBUSY,
  EXDEV): its *contents* are replaced instead, file by file, from a complete copy of the new output made
  inside it (``.karpenter-gpu-new-*``), the old files kept in ``.karpenter-gpu-old-*`` beside it until
  the new marker is in place. A reader during that replacement sees old and new environments mixed
  (every file whole); a run killed during it is completed by the next run before anything else.
- **Environment faults are coded** (:func:`karpenter_gpu._fs.os_error`): disk full KG930, permission or
  read-only KG931, mount point or cross-device KG932, any other KG933; nothing is half-written and no
  staging folder is left behind.
- Runs on the same output are serialized by an exclusive lock; a run that has to wait says so on stderr
  with the pid holding the lock, and ``lock_timeout`` bounds the wait (KG807).
- Files and folders get the modes the umask gives (no 0700 staging folder becomes the output).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import os
import re
import secrets
import stat
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from karpenter_gpu._fs import os_error, printable
from karpenter_gpu.check.crd_source import resolve_crd_dir
from karpenter_gpu.check.findings import Severity
from karpenter_gpu.check.validate import Report, validate_dir
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.reader import go_safe_text

if TYPE_CHECKING:
    import cdk8s

    from karpenter_gpu.gpu_platform import PlatformConfig

    SynthItem: TypeAlias = PlatformConfig | Mapping[str, Any] | cdk8s.App

#: Helm values files go one level down, so `kubectl apply -f dist/<env>` (not recursive) skips them.
HELM_DIR = "helm"
#: Written at the top of every output: a format line, then every folder (``dev/``) and file synth wrote.
#: Not ``*.yaml``: the manifest reader and kubectl never read it.
MARKER = ".karpenter-gpu-output"
#: Written first into every staging folder: proves the folder is this program's to remove.
PROOF = ".karpenter-gpu-staging"
_MARKER_FORMAT = "karpenter-gpu-output 1"
_PROOF_FORMAT = "karpenter-gpu-staging 1"
_MARKER_NOTE = ("# Written by karpenter-gpu synth with the files below; it replaces this folder only while the\n"
                "# folder holds nothing else. Do not add files here: synth refuses to replace them.\n")
_FILE_EXTENSION = ".k8s.yaml"
_RENAME_EXCHANGE = 2  # linux/fs.h
_ENVIRONMENT = r"[A-Za-z0-9][A-Za-z0-9_.-]*"
#: Folders are opened as descriptors, never through a symbolic link (removal works by name relative to them).
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_PARENT_FLAGS = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)
_RENAME_NOREPLACE = 1  # linux/fs.h
#: A real folder: (st_dev, st_ino).
_Identity: TypeAlias = tuple[int, int]
#: The folders inside a mount-point output while its contents are replaced.
_IN_PLACE = re.compile(r"\.karpenter-gpu-(new|old)-\d+-[0-9a-f]{8}")


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

    ``outdir``: absent, empty, or a previous output of this function (see the module's guarantees).
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
    from karpenter_gpu._node import ensure_node

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
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise KarpenterGpuError(
            "KG803", prop="outdir", value=str(out), allowed="a real folder, or a path that does not exist yet",
            fix="remove the file or symlink, or choose another output folder")
    if out == out.parent or Path.cwd().resolve().is_relative_to(out.resolve()):
        # The output is replaced whole: never the folder we run in or one of its parents.
        raise KarpenterGpuError(
            "KG803", prop="outdir", value=str(outdir), allowed="a folder of its own (it is replaced whole), "
            "not the current folder or one of its parents", fix="write to a sub-folder, e.g. --out dist")
    out.parent.mkdir(parents=True, exist_ok=True)
    with _locked(out, lock_timeout):
        _recover(out)
        _check_target(out)
        return _synth_into(items, out, crd_dir, strict)


def _synth_into(items: list[Any], out: Path, crd_dir: Path, strict: bool) -> Report:
    found = _here(out)
    before = _folder_id(found)
    if found is not None and before is None:  # replaced since _synth looked
        raise _replaced(out, _what_is(out, found))
    staging = _own_dir(out.parent, f".{out.name}.staging")
    ours = _folder_id(_here(staging))
    try:
        _render(items, staging)
        report = validate_dir(staging, crd_dir)
        if report.failed(strict):
            raise SynthFailed(report, out, strict)
        if _folder_id(_here(staging)) != ours:  # no marker written through what replaced it
            raise _swapped_staging(staging)
        _write_marker(staging)
        os.unlink(staging / PROOF)  # the marker proves it from here on; the output holds no proof file
        how = _install(staging, out, (before, ours))
    except BaseException:
        with contextlib.suppress(OSError):  # the first fault is the one to report
            _remove_own(staging, ours)  # only while it is still the folder this run made
        raise
    try:
        if how == "in-place":
            _remove_own(staging, ours)  # its files were copied into the output
        elif how == "exchanged" and before is not None:
            kept = _discard_old(staging, out, before)  # it holds the old output
            if kept is not None:
                raise KarpenterGpuError(
                    "KG805", prop="outdir", value=str(out),
                    allowed=f"a previous synth output holding only what its {MARKER} lists; "
                            f"{_names(kept[1])} not listed there (added while synth ran): kept, not deleted, in "
                            f"{printable(str(kept[0]))}; the new output is installed in {out.name}/",
                    fix=f"move what you need out of {printable(str(kept[0]))} (synth never removes it), then delete "
                        "that folder yourself; do not write into the output folder while synth runs")
    except OSError as ex:
        raise os_error(ex, f"the new output is installed in {out}; removing the previous one, kept in "
                           f"{staging},") from ex
    return report


def _render(items: list[Any], staging: Path) -> None:
    import cdk8s

    from karpenter_gpu.addons.helm_values import helm_values_in, writing_values
    from karpenter_gpu.gpu_platform import GpuPlatform, PlatformConfig

    seen: dict[str, str] = {}

    def claim(environment: str, what: str) -> Path:
        if not re.fullmatch(_ENVIRONMENT, environment) or environment.startswith(".."):
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
        with writing_values():  # written below: the App's own synth needs no notice (KG809)
            if own:
                _node_synth(app)  # validates the constructs, then writes <Kind>.<name>.k8s.yaml per object
                _requote(app, env_dir)
            else:
                _write_app(app, env_dir)
        values = helm_values_in(app)
        if values:
            (env_dir / HELM_DIR).mkdir(exist_ok=True)
        for helm in values:
            _write_file(env_dir / HELM_DIR / helm.file_name, helm.to_yaml())


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


def _write_app(app: Any, env_dir: Path) -> None:
    """A user's App, in the layout and bytes ``App.synth`` writes with FILE_PER_RESOURCE (cdk8s lib/app.js)."""
    import cdk8s

    app.synth_yaml()  # runs the constructs' validations and resolves dependencies, like App.synth
    env_dir.mkdir()
    for chart in app.charts:
        for manifest in chart.to_json():
            path = env_dir / _file_name(manifest)
            if path.exists():  # two clusters of one App sharing an object name: one file would silently win
                raise KarpenterGpuError(
                    "KG171", prop="items", value=path.name,
                    allowed="one object per file name in an environment's folder (two charts of this App, e.g. two "
                            "clusters, render it)",
                    fix="synthesize each cluster as its own App (outdir dist/<cluster>)")
            _write_file(path, go_safe_text(cdk8s.Yaml.stringify(manifest), manifest, path.name))


def _file_name(manifest: dict) -> str:
    """The file ``App.synth`` writes ``manifest`` to with FILE_PER_RESOURCE (cdk8s lib/app.js)."""
    return re.sub(r"[^0-9a-zA-Z-_.]", "", f"{manifest['kind']}.{manifest['metadata']['name']}") + _FILE_EXTENSION


def _requote(app: Any, env_dir: Path) -> None:
    """Rewrite each file cdk8s's Node.js YAML library wrote with a string go-yaml v2 reads as another type
    (``0o10``, ``0X1F``, ``0B11`` unquoted: :func:`~karpenter_gpu.k8s.reader.go_safe_text`), so that kubectl and
    Helm read every string back as written; the other files keep cdk8s's bytes."""
    for chart in app.charts:
        for manifest in chart.to_json():
            path = env_dir / _file_name(manifest)
            text = path.read_text(encoding="utf-8")
            safe = go_safe_text(text, manifest, path.name)
            if safe != text:
                _write_file(path, safe)


def _write_file(path: Path, text: str) -> None:
    """A new file with ``text`` (mode 0666 & ~umask); an ``OSError`` (disk full, ...) leaves it partial,
    inside a folder of ours that the caller removes."""
    data = text.encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


# --- the marker and the proof -----------------------------------------------------------------


def _listing(folder: Path) -> list[str]:
    """Every folder (``dev/``) and file under ``folder``, but the marker and the proof at its top."""
    entries: list[str] = []
    for path, dirs, files in os.walk(folder, onerror=_raise):
        rel = Path(path).relative_to(folder)
        entries += [(rel / name).as_posix() + "/" for name in dirs]
        entries += [(rel / name).as_posix() for name in files if rel.parts or name not in (MARKER, PROOF)]
    return sorted(entries)


def _raise(ex: OSError) -> None:
    raise ex


def _write_marker(folder: Path) -> None:
    """The marker, written whole or not at all (a temporary file renamed over it)."""
    text = f"{_MARKER_FORMAT}\n{_MARKER_NOTE}" + "".join(f"{entry}\n" for entry in _listing(folder))
    temporary = folder / f"{MARKER}.tmp"
    _write_file(temporary, text)
    os.replace(temporary, folder / MARKER)


def _read_small(path: Path) -> str | None:
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > 1 << 20:
            return None
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _marker_entries(folder: Path) -> set[str] | None:
    """What the marker of ``folder`` lists, or None when it has no (readable, well-formed) marker."""
    return _parse_marker(_read_small(folder / MARKER))


def _parse_marker(text: str | None) -> set[str] | None:
    if text is None or text.split("\n", 1)[0] != _MARKER_FORMAT:
        return None
    return {line for line in text.splitlines()[1:] if line and not line.startswith("#")}


def _marker_at(fd: int) -> set[str] | None:
    """What the marker in the open folder ``fd`` lists (never through a symbolic link), or None."""
    try:
        marker = os.open(MARKER, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fd)
    except OSError:
        return None
    try:
        info = os.fstat(marker)
        if not stat.S_ISREG(info.st_mode) or info.st_size > 1 << 20:
            return None
        with open(marker, "rb", closefd=False) as file:
            return _parse_marker(file.read(1 << 20).decode("utf-8"))
    except (OSError, UnicodeDecodeError):
        return None
    finally:
        os.close(marker)


def _unlisted(folder: Path) -> list[str] | None:
    """Entries of ``folder`` its marker does not list (symlinks never are ours); None without a marker."""
    listed = _marker_entries(folder)
    if listed is None:
        return None
    unlisted = []
    for path, dirs, files in os.walk(folder, onerror=_raise):
        rel = Path(path).relative_to(folder)
        for name in sorted(dirs + files):
            entry = (rel / name).as_posix()
            full = Path(path) / name
            if not rel.parts and name in (MARKER, f"{MARKER}.tmp"):
                continue
            if full.is_symlink() or (entry + "/" if full.is_dir() else entry) not in listed:
                unlisted.append(entry)
        dirs[:] = [d for d in dirs if (rel / d).as_posix() not in unlisted]  # report a foreign folder once
    return unlisted


def _own_dir(parent: Path, prefix: str) -> Path:
    """A new folder ``<prefix>-<pid>-<token>`` whose first content is the proof naming it."""
    return _make_own(parent / f"{prefix}-{os.getpid()}-{secrets.token_hex(4)}")


def _make_own(folder: Path) -> Path:
    folder.mkdir()  # mode 0777 & ~umask, like any folder the user makes
    try:
        _write_file(folder / PROOF, f"{_PROOF_FORMAT} {folder.name}\n")
    except BaseException:
        with contextlib.suppress(OSError):
            _remove_own(folder)
        raise
    return folder


def _proven(folder: Path) -> bool:
    """Whether ``folder`` (named as ours) is ours to remove: its proof, or a marker listing all it holds."""
    if folder.is_symlink() or not folder.is_dir():
        return False
    entries = os.listdir(folder)
    if not entries:
        return True
    if PROOF in entries:
        expected = f"{_PROOF_FORMAT} {folder.name}\n"
        text = _read_small(folder / PROOF)
        if text == expected:
            return True
        if entries == [PROOF] and text is not None and expected.startswith(text):
            return True  # killed while writing the proof, before anything else
    return _unlisted(folder) == []


def _remove_own(folder: Path, identity: _Identity | None = None) -> bool:
    """Remove a folder of ours: everything but the proof and the marker, then those, then the folder.

    Cut short, the folder stays provable. Read-only folders inside it (ours) are made writable first;
    the folder's parent (the user's) is never changed. No symbolic link is ever followed: every folder
    is opened with ``O_NOFOLLOW`` relative to its parent's descriptor and every entry removed by name
    relative to that descriptor, so a link inside is removed itself, never what it points to. When
    ``folder`` is a symbolic link or a file (or, given ``identity``, another folder than the one this
    run made) it is left as it is and False returned.
    """
    parent = os.open(folder.parent, _PARENT_FLAGS)
    try:
        try:
            fd = _open_dir(folder.name, parent)
        except OSError as ex:
            if ex.errno in (errno.ELOOP, errno.ENOTDIR):
                return False
            raise
        try:
            if identity is not None and _folder_id(os.fstat(fd)) != identity:
                return False
            _make_writable(fd)
            last = (PROOF, MARKER)
            for name in sorted(os.listdir(fd)):
                if name not in last:
                    _remove_entry(fd, name)
            for name in last:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(name, dir_fd=fd)
        finally:
            os.close(fd)
        os.rmdir(folder.name, dir_fd=parent)
        return True
    finally:
        os.close(parent)


def _remove_entry(dir_fd: int, name: str) -> None:
    """Remove ``name`` (a file, a link, or a folder with all it holds) from the open folder ``dir_fd``."""
    if not stat.S_ISDIR(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode):
        os.unlink(name, dir_fd=dir_fd)  # a symbolic link: the link itself
        return
    try:
        fd = _open_dir(name, dir_fd)
    except OSError as ex:
        if ex.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
        os.unlink(name, dir_fd=dir_fd)  # turned into a link or a file since: the link itself
        return
    try:
        _make_writable(fd)
        for entry in os.listdir(fd):
            _remove_entry(fd, entry)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=dir_fd)


def _discard_old(old: Path, out: Path, before: _Identity) -> tuple[Path, list[str]] | None:
    """Remove the previous output, which the exchange moved to ``old``, but every entry its marker does not list.

    Each entry is checked, recursively, against the old output's marker: a listed file is removed, a listed
    folder entered; anything else (a file or folder added to the output while synth ran, a symbolic link, an
    entry that changed its type) is kept where it is. The marker goes too. When something was kept, the folder
    is renamed ``.<name>.kept-<pid>-<token>`` (a name synth never removes) and that path is returned with the
    kept entries (relative to it); otherwise the folder is removed and None returned. Nothing is followed
    through a symbolic link (see :func:`_remove_own`); when ``old`` is no longer the folder that was the output
    (``before``), nothing is removed (KG810).
    """
    parent = os.open(old.parent, _PARENT_FLAGS)
    try:
        try:
            fd = _open_dir(old.name, parent)
        except OSError as ex:
            if ex.errno not in (errno.ELOOP, errno.ENOTDIR):
                raise
            raise _swapped(old, out) from None
        kept: list[str] = []
        try:
            if _folder_id(os.fstat(fd)) != before:
                raise _swapped(old, out)
            listed = _marker_at(fd) or set()
            _make_writable(fd)
            _discard(fd, "", listed, kept)
            for name in (MARKER, f"{MARKER}.tmp"):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(name, dir_fd=fd)
            if not kept:
                try:
                    os.rmdir(old.name, dir_fd=parent)
                    return None
                except OSError as ex:
                    if ex.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                        raise
                    kept = sorted(os.listdir(fd))  # added while the old output was being removed
        finally:
            os.close(fd)
    finally:
        os.close(parent)
    keep = old.with_name(f".{out.name}.kept-{os.getpid()}-{secrets.token_hex(4)}")
    os.rename(old, keep)
    return keep, kept


def _discard(fd: int, prefix: str, listed: set[str], kept: list[str]) -> None:
    for name in sorted(os.listdir(fd)):
        entry = prefix + name
        if not prefix and name in (MARKER, f"{MARKER}.tmp"):
            continue
        mode = os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode
        if stat.S_ISREG(mode) and entry in listed:
            os.unlink(name, dir_fd=fd)
        elif stat.S_ISDIR(mode) and f"{entry}/" in listed:
            try:
                sub = _open_dir(name, fd)
            except OSError as ex:
                if ex.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
                kept.append(entry)  # turned into a link or a file since
                continue
            count = len(kept)
            try:
                _make_writable(sub)
                _discard(sub, f"{entry}/", listed, kept)
            finally:
                os.close(sub)
            if len(kept) > count:
                continue  # holds what was kept
            try:
                os.rmdir(name, dir_fd=fd)
            except OSError as ex:
                if ex.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                    raise
                kept.append(entry)  # something was added to it meanwhile
        else:
            kept.append(entry)


def _swapped(old: Path, out: Path) -> KarpenterGpuError:
    return KarpenterGpuError(
        "KG810", prop="path", value=str(old),
        allowed=f"the previous output, which synth moved there; it was replaced (by a symbolic link or another "
                f"folder) before synth removed it, and was left untouched; the new output is installed in {out}",
        fix="look at what is there now and remove it yourself if it is yours to remove; do not rename or link "
            "folders beside the output while synth runs")


def _open_dir(name: str, dir_fd: int) -> int:
    """The folder ``name`` in the open folder ``dir_fd``, opened without following a symbolic link (ELOOP for a
    link, ENOTDIR for a file). A folder of ours this user may not read (mode 0o000) is made readable first, through
    a descriptor of that very folder, never through its name."""
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    except PermissionError:
        if not hasattr(os, "O_PATH") or not os.path.isdir("/proc/self/fd"):
            raise
    pinned = os.open(name, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    try:
        os.chmod(f"/proc/self/fd/{pinned}", stat.S_IMODE(os.fstat(pinned).st_mode) | 0o700)
        return os.open(f"/proc/self/fd/{pinned}", _DIR_FLAGS & ~os.O_NOFOLLOW)  # the same folder, not a name
    finally:
        os.close(pinned)


def _make_writable(fd: int) -> None:
    mode = os.fstat(fd).st_mode
    if mode & 0o700 != 0o700:
        os.fchmod(fd, stat.S_IMODE(mode) | 0o700)


# --- the target ------------------------------------------------------------------------------


def _check_target(out: Path) -> None:
    """Refuse an output folder that is not ours to replace (KG804-KG806); adopt a pre-marker output."""
    if not out.exists():
        return
    entries = sorted(os.listdir(out))
    if not entries:
        return
    if ".git" in entries:
        raise KarpenterGpuError(
            "KG806", prop="outdir", value=str(out), allowed="a folder of its own, not a repository root (it holds .git)",
            fix="write to a sub-folder, e.g. --out dist; choose an empty or new folder, or remove it yourself")
    source = _source_in(out)
    if source:
        raise KarpenterGpuError(
            "KG806", prop="outdir", value=str(out),
            allowed=f"a folder of its own, not one holding the Python source this program runs ({source})",
            fix="write to a sub-folder of its own, e.g. --out dist; choose an empty or new folder")
    unlisted = _unlisted(out)
    if unlisted is None:
        if _synth_layout(out):
            _write_marker(out)  # an output written before the marker: adopted once
            return
        raise KarpenterGpuError(
            "KG804", prop="outdir", value=str(out),
            allowed=f"an absent or empty folder, or a previous synth output (with {MARKER}); this one holds "
                    f"{_names(entries)} and no marker",
            fix="choose an empty or new folder, or remove it yourself")
    if unlisted:
        raise _added(out, unlisted, "added since: refused, not deleted")


def _names(entries: list[str], most: int = 3) -> str:
    shown = ", ".join(entries[:most])
    return shown + (f" and {len(entries) - most} more" if len(entries) > most else "")


def _source_in(out: Path) -> str | None:
    """The first loaded module whose file lies in ``out`` (``--out stacks``, ``--out constructs``), its path
    resolved as ``os.path.realpath`` resolves it.

    Each folder is resolved once (a process has hundreds of modules in a few dozen folders, and ``realpath``
    reads every component of a path): a file's real path is its real folder and its name, unless the file is
    itself a symbolic link.
    """
    root = os.path.realpath(out) + os.sep
    folders: dict[str, str] = {}
    found: list[tuple[str, str]] = []
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if not isinstance(file, str):
            continue
        folder, base = os.path.split(file)
        real_folder = folders.get(folder)
        if real_folder is None:
            real_folder = folders[folder] = os.path.realpath(folder)
        real = os.path.realpath(file) if os.path.islink(file) else os.path.join(real_folder, base)
        if real.startswith(root):
            found.append((name, file))
    if not found:
        return None
    name, file = min(found)  # the first by name, whatever the import order
    return f"module {name}, {file}"


def _synth_layout(out: Path) -> bool:
    """Whether every entry is something synth writes: ``<env>/``, ``<env>/<Kind>.<name>.k8s.yaml``,
    ``<env>/helm/``, ``<env>/helm/*.yaml`` (and a marker being written) — at least one file."""
    files = 0
    for path, dirs, names in os.walk(out, onerror=_raise):
        rel = Path(path).relative_to(out).parts
        for name in dirs + names:
            full = Path(path) / name
            if full.is_symlink():
                return False
            if full.is_dir():
                good = bool(not rel and re.fullmatch(_ENVIRONMENT, name) and name.lower() != HELM_DIR) or \
                       (len(rel) == 1 and name == HELM_DIR)
            else:
                files += 1
                good = (not rel and name == f"{MARKER}.tmp") or \
                       bool(len(rel) == 1 and re.fullmatch(r"[^.]+\..+\.k8s\.yaml", name)) or \
                       (len(rel) == 2 and rel[1] == HELM_DIR and name.endswith(".yaml"))
            if not good:
                return False
    return files > 0


# --- installing the output ------------------------------------------------------------------


@contextlib.contextmanager
def _locked(out: Path, timeout: float | None = None) -> Iterator[None]:
    """Exclusive lock held for the whole run; the kernel releases it if the process dies.

    POSIX: ``flock`` on the output's parent folder itself, so no lock file is left in the user's
    repository; the holder's pid is read from ``/proc/locks`` (Linux). Elsewhere: a ``.<name>.lock``
    file beside the output.
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
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _lock_holder(fd)
            print(f"karpenter-gpu: waiting for the synth lock on {printable(str(out.parent))} (held by {holder})"
                  + ("" if timeout is None else f", for at most {timeout:g} s"), file=sys.stderr, flush=True)
            _wait_for_lock(fd, out, holder, timeout)
        yield
    finally:
        os.close(fd)


def _wait_for_lock(fd: int, out: Path, holder: str, timeout: float | None) -> None:
    import fcntl

    if timeout is None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            left = deadline - time.monotonic()
            if left <= 0:
                raise KarpenterGpuError(
                    "KG807", prop="lock_timeout", value=timeout,
                    allowed=f"the synth lock on {out.parent} within the timeout; it is held by {holder}",
                    fix="wait for that synth to finish (or stop it: it may be stopped or hung), then run again") from None
            time.sleep(min(0.05, left))


def _lock_holder(fd: int) -> str:
    """``pid N`` of the process holding the flock on ``fd``'s folder, from ``/proc/locks`` (Linux)."""
    info = os.fstat(fd)
    key = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as locks:
            for line in locks:
                fields = line.split()
                if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == key and fields[4].isdigit():
                    return f"pid {fields[4]}"
    except OSError:
        pass
    return "another process (its pid is not visible here)"


def _recover(out: Path) -> None:
    """Under the lock: restore an output lost between the fallback's two renames, complete a replacement
    of a mount point's contents cut short, and remove the folders of killed runs that prove to be ours."""
    pattern = re.compile(rf"\.{re.escape(out.name)}\.(staging|old)-\d+-[0-9a-f]{{8}}")
    leftovers = sorted(p for p in out.parent.iterdir() if pattern.fullmatch(p.name) and _proven(p))
    olds = [p for p in leftovers if p.name.startswith(f".{out.name}.old-")]
    if not out.exists() and olds:
        olds[-1].rename(out)
    for path in leftovers:
        if path.exists():
            _remove_own(path)
    if out.is_dir() and not out.is_symlink():
        inside = sorted(p for p in out.iterdir() if _IN_PLACE.fullmatch(p.name) and _proven(p))
        for new in (p for p in inside if p.name.startswith(".karpenter-gpu-new-")):
            if _marker_entries(new) is not None:
                _roll_forward(out, new)  # complete: finish installing it
        for path in inside:
            if path.exists():
                _remove_own(path)


def _install(staging: Path, out: Path, expected: tuple[_Identity | None, _Identity | None] | None = None) -> str:
    """Put the complete output in ``staging`` in place of ``out``; says how: ``"renamed"`` (there was no output),
    ``"exchanged"`` (``staging`` now holds the old output, for :func:`_discard_old`) or ``"in-place"`` (``out``
    is a mount point: its contents were replaced, ``staging`` still holds the new output).

    ``expected``: the identities of ``out`` (None: absent) and ``staging`` when the run began (default: as they
    are now). Right before the exchange both are checked again (:func:`_check_unchanged`): an output replaced
    meanwhile (by a symbolic link, another folder, a file, or one that appeared) is refused with KG803 and left
    as it is, with what it points to; files added to the output are refused with KG805 (nothing installed,
    nothing deleted). What the exchange moved out is checked once more: when it is not the folder checked (it
    was replaced between the check and the exchange), the exchange is undone and the run refused with KG803.
    """
    if expected is None:
        expected = (_folder_id(_here(out)), _folder_id(_here(staging)))
    before, ours = expected
    present = _check_unchanged(out, staging, before, ours)
    try:
        if not present:
            _rename_new(staging, out)
            return "renamed"
        assert before is not None
        if _exchange(staging, out):
            found = _here(staging)
            if _folder_id(found) != before:  # replaced between the check and the exchange: undo it
                _exchange(staging, out)
                raise _replaced(out, _what_is(out, found))
            return "exchanged"
        # Fallback: two renames; a kill between them leaves .<name>.old-*, which _recover restores.
        old = out.with_name(f".{out.name}.old-{os.getpid()}-{secrets.token_hex(4)}")
        os.rename(out, old)
        found = _here(old)
        if _folder_id(found) != before:  # replaced between the check and the rename: put it back
            what = _what_is(old, found)
            os.rename(old, out)
            raise _replaced(out, what)
        os.rename(staging, out)
        os.rename(old, staging)  # the caller removes what it holds
        return "exchanged"
    except OSError as ex:
        if ex.errno not in (errno.EBUSY, errno.EXDEV) or before is None or _folder_id(_here(out)) != before:
            raise
        _install_in_place(staging, out)  # a mount point (EBUSY) or an overlay's lower layer (EXDEV)
        return "in-place"


def _check_unchanged(out: Path, staging: Path, before: _Identity | None, ours: _Identity | None) -> bool:
    """Refuse, right before the exchange, an output that changed while synth built (nothing is installed and
    nothing touched): no longer the real folder checked at the start (KG803: a symbolic link, another folder, a
    file, or one where there was none), holding entries its marker does not list (KG805) or no marker any more
    (KG804); and a staging folder that is no longer this run's (KG810). Whether the output is there (an output
    removed meanwhile is simply written anew)."""
    if _folder_id(_here(staging)) != ours or ours is None:
        raise _swapped_staging(staging)
    found = _here(out)
    if found is None:
        return False
    if before is None or _folder_id(found) != before:
        raise _replaced(out, _what_is(out, found) if before is not None else "it appeared while synth ran")
    unlisted = _unlisted(out)
    if unlisted is None and os.listdir(out):
        raise KarpenterGpuError(
            "KG804", prop="outdir", value=str(out),
            allowed=f"a previous synth output (with {MARKER}); its marker was removed while synth ran, so what it "
                    "holds cannot be told from someone else's files: nothing was installed, nothing deleted",
            fix="check the output folder, then run again (remove the folder yourself to start afresh)")
    if unlisted:
        raise _added(out, unlisted, "added while synth ran: refused, not deleted; nothing was installed")
    return True


def _rename_new(staging: Path, out: Path) -> None:
    """``staging`` renamed to ``out``, which must not exist (never replacing a folder that appeared meanwhile)."""
    try:
        if _renameat2_call(staging, out, _RENAME_NOREPLACE):
            return
        os.rename(staging, out)  # replaces only an empty folder; refuses a file, a link or a folder with files
    except OSError as ex:
        if ex.errno not in (errno.EEXIST, errno.ENOTEMPTY, errno.ENOTDIR, errno.EISDIR):
            raise
        raise _replaced(out, "it appeared while synth ran") from None


def _here(path: Path) -> os.stat_result | None:
    """``lstat`` of ``path`` (a link is not followed), None when nothing is there."""
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


def _folder_id(found: os.stat_result | None) -> _Identity | None:
    """Which real folder ``found`` is, None when it is no folder (absent, a link, a file)."""
    return (found.st_dev, found.st_ino) if found is not None and stat.S_ISDIR(found.st_mode) else None


def _what_is(path: Path, found: os.stat_result | None) -> str:
    if found is None:
        return "it was removed"
    if stat.S_ISLNK(found.st_mode):
        try:
            return f"now a symbolic link to {printable(os.readlink(path))}"
        except OSError:
            return "now a symbolic link"
    return "now another folder" if stat.S_ISDIR(found.st_mode) else "now a file"


def _replaced(out: Path, what: str) -> KarpenterGpuError:
    return KarpenterGpuError(
        "KG803", prop="outdir", value=str(out),
        allowed=f"the real folder synth checked when it started; it was replaced while synth ran ({what}); it and "
                "what it points to were left as they are, nothing was installed",
        fix="put the output folder back (or remove what replaced it), then run again; do not replace the output "
            "folder while synth runs")


def _swapped_staging(staging: Path) -> KarpenterGpuError:
    return KarpenterGpuError(
        "KG810", prop="path", value=str(staging),
        allowed="the staging folder this run made; it was replaced (by a symbolic link or another folder) while "
                "synth ran, and was left untouched; nothing was installed",
        fix="look at what is there now and remove it yourself if it is yours to remove; do not rename or link "
            "folders beside the output while synth runs")


def _added(out: Path, unlisted: list[str], how: str) -> KarpenterGpuError:
    return KarpenterGpuError(
        "KG805", prop="outdir", value=str(out),
        allowed=f"a previous synth output holding only what its {MARKER} lists; {_names(sorted(unlisted))} "
                f"not listed there ({how})",
        fix="move those files out of the output folder (or remove them yourself), or choose another folder")


def _install_in_place(staging: Path, out: Path) -> None:
    """Replace the contents of ``out`` (which cannot be renamed) from ``staging``, file by file."""
    new = _own_dir(out, ".karpenter-gpu-new")  # keeps its proof until the replacement is done
    for entry in _listing(staging):
        if entry.endswith("/"):
            (new / entry).mkdir()
        else:
            _write_file(new / entry, (staging / entry).read_text(encoding="utf-8"))
    _write_marker(new)  # last: from here on the new output is complete, and the next run finishes the job
    _roll_forward(out, new)
    for path in (new, new.with_name(new.name.replace("-new-", "-old-", 1))):
        if path.exists():
            _remove_own(path)


def _roll_forward(out: Path, new: Path) -> None:
    """Move the complete output in ``new`` into ``out``; old files go to the matching ``-old-`` folder.

    Idempotent: a run killed at any step is completed by calling it again. ``out``'s own marker (the
    old output's list) is replaced last, so until then it says which files are the old output's.
    """
    wanted = _marker_entries(new) or set()
    previous = _marker_entries(out) or set()
    old = new.with_name(new.name.replace("-new-", "-old-", 1))
    if not old.exists():
        _make_own(old)
    for entry in sorted(wanted):  # a folder sorts before its files
        if entry.endswith("/"):
            (out / entry).mkdir(exist_ok=True)
            continue
        source, target = new / entry, out / entry
        if not source.exists():
            continue  # moved by a run cut short
        if target.exists() or target.is_symlink():
            if entry not in previous:
                raise KarpenterGpuError(
                    "KG805", prop="outdir", value=str(out),
                    allowed=f"a previous synth output holding only what its {MARKER} lists; {entry} not listed "
                            "there (added since: refused, not deleted)",
                    fix="move that file out of the output folder, then run again")
            (old / entry).parent.mkdir(parents=True, exist_ok=True)
            os.rename(target, old / entry)
        os.rename(source, target)
    for entry in sorted(previous - wanted, reverse=True):  # files before their folders
        target = out / entry
        if entry.endswith("/"):
            with contextlib.suppress(FileNotFoundError, OSError):
                os.rmdir(target)  # left when someone else's file is inside: the next run names it
        elif target.is_file() and not target.is_symlink():
            (old / entry).parent.mkdir(parents=True, exist_ok=True)
            os.rename(target, old / entry)
    os.replace(new / MARKER, out / MARKER)


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths with renameat2(RENAME_EXCHANGE); False where the system cannot."""
    return _renameat2_call(a, b, _RENAME_EXCHANGE)


def _renameat2_call(a: Path, b: Path, flags: int) -> bool:
    """renameat2(a, b, flags); False where the system cannot (no call, or not for this file system or flag)."""
    renameat2 = _renameat2()
    if renameat2 is None:
        return False
    at_fdcwd = -100
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), flags) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False  # old kernel or a file system without exchange
    raise OSError(err, f"renameat2({'RENAME_EXCHANGE' if flags == _RENAME_EXCHANGE else 'RENAME_NOREPLACE'}): "
                       f"{os.strerror(err)}", str(a), None, str(b))


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
