"""The safe output folder: how synth replaces its output folder without ever deleting anyone else's files, and
without leaving it missing or partial. Imports nothing of the synth pipeline (:mod:`karpenter_gpu.pipeline`
builds, writes and validates the manifests in the staging folder this package gives it).

A replacement: ``with replacing(out, outdir, lock_timeout):`` (the checks, the lock, recovery), then a
:class:`Staging` folder beside the output; the caller writes the new output into ``staging.path``, then calls
``staging.install()`` (or ``staging.abandon()`` on failure).

What is guaranteed:

- **Nothing of anyone else's is deleted.** The output folder is replaced only when it is absent, empty,
  or carries the marker and holds nothing the marker does not list. A folder of someone else's files
  (KG804), a marked output to which a file was added (KG805, naming it: it is refused, not deleted), a
  repository root (``.git``) or a folder of the Python source the app runs from (KG806), the current
  folder or one of its parents, a file or a symlink (KG803) are refused before anything is built
  (:mod:`.target`). An output written before the marker existed is adopted once (the marker is written into
  it) when every entry is something synth writes: ``<env>/``, ``<env>/<Kind>.<name>.k8s.yaml``,
  ``<env>/helm/*.yaml`` (:mod:`.layout`).
- **Nor while it builds.** Right before the exchange the output is checked again (:mod:`.install`): still the
  real folder checked at the start (same ``st_dev``/``st_ino``, by ``lstat``), else KG803 (a symbolic link put
  in its place and the folder it points to are left as they are); still holding only what its marker lists,
  else KG805: the run fails, nothing is installed, the added files stay where they were written. The exchange
  is then checked: if what it moved out is not the folder checked (replaced in between), it is exchanged back
  and the run refused (KG803). Files added after that last check are not lost either: the old output is
  removed entry by entry against its marker (:func:`.remove.discard_old`), and what the marker does not list
  (files, folders, symbolic links) is kept in ``.<name>.kept-<pid>-<token>`` beside the output, a name synth
  never removes. The new output is then installed and the run reports the kept entries with KG805 (exit 2
  from the command line).
- **Only its own folders are removed.** Staging and old folders are named ``.<name>.staging-<pid>-<token>``
  and ``.<name>.old-<pid>-<token>``; one is removed only when it proves to be ours: it holds the proof
  file :data:`PROOF` naming the folder (written first), or the marker :data:`MARKER` with nothing unlisted
  beside it (an old output), or nothing at all. Anything else of that name is left alone. Removal takes the
  proof or the marker last, so a removal cut short stays provable, and makes our own read-only
  folders writable first. It never follows a symbolic link: folders are opened with ``O_NOFOLLOW``
  relative to their parent's descriptor and entries removed by name relative to it (a link is removed
  itself, never what it points to); a staging folder or an old output that turned out to be a link
  (or another folder than the run's) is left untouched (KG810) (:mod:`.remove`).
- **The output is never missing or partial.** On Linux ``renameat2(RENAME_EXCHANGE)`` exchanges the two
  folders in one step, so a reader or a ``kill -9`` at any moment finds the whole old output or the
  whole new one, and the output stays a real folder (it is committed). Where the exchange is not
  available two renames are used, and a run killed between them leaves the old output in
  ``.<name>.old-*``, which the next run restores before doing anything else (:mod:`.recover`).
- **A mount point (or a lower layer of an overlay) as output**, whose folder cannot be renamed (EBUSY,
  EXDEV): its *contents* are replaced instead, file by file, from a complete copy of the new output made
  inside it (``.karpenter-gpu-new-*``), the old files kept in ``.karpenter-gpu-old-*`` beside it until
  the new marker is in place. A reader during that replacement sees old and new environments mixed
  (every file whole); a run killed during it is completed by the next run before anything else.
- **Environment faults are coded** by the caller (:func:`karpenter_gpu._fs.os_error`): disk full KG930,
  permission or read-only KG931, mount point or cross-device KG932, any other KG933; nothing is half-written
  and no staging folder is left behind.
- Runs on the same output are serialized by an exclusive lock; a run that has to wait says so on stderr
  with the pid holding the lock, and ``lock_timeout`` bounds the wait (KG807) (:mod:`.lock`).
- Files and folders get the modes the umask gives (no 0700 staging folder becomes the output).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from karpenter_gpu.output.files import write_file
    from karpenter_gpu.output.layout import ENVIRONMENT, FILE_EXTENSION, HELM_DIR
    from karpenter_gpu.output.marker import MARKER, PROOF
    from karpenter_gpu.output.replace import Staging, replacing

__all__ = ["ENVIRONMENT", "FILE_EXTENSION", "HELM_DIR", "MARKER", "PROOF", "Staging", "replacing", "write_file"]

#: Where each name lives: imported on first use, so a reader of the layout (``karpenter_gpu.k8s.input_layout``
#: reads ``HELM_DIR``) does not load the replacing machinery (locks, subprocess) it never runs.
_HOMES = {"write_file": "files", "ENVIRONMENT": "layout", "FILE_EXTENSION": "layout", "HELM_DIR": "layout",
          "MARKER": "marker", "PROOF": "marker", "Staging": "replace", "replacing": "replace"}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
    globals()[name] = value
    return value
