"""Putting a complete new output in place of the old one, so that it is never missing or partial.

On Linux ``renameat2(RENAME_EXCHANGE)`` exchanges the two folders in one step (:func:`exchange`), so a reader or
a ``kill -9`` at any moment finds the whole old output or the whole new one, and the output stays a real folder
(it is committed). Where the exchange is not available two renames are used, and a run killed between them leaves
the old output in ``.<name>.old-*``, which the next run restores (:mod:`karpenter_gpu.output.recover`).

A mount point (or a lower layer of an overlay) as output, whose folder cannot be renamed (EBUSY, EXDEV): its
*contents* are replaced instead, file by file, from a complete copy of the new output made inside it
(``.karpenter-gpu-new-*``), the old files kept in ``.karpenter-gpu-old-*`` beside it until the new marker is in
place (:func:`roll_forward`). A reader during that replacement sees old and new environments mixed (every file
whole); a run killed during it is completed by the next run before anything else.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import os
import re
import secrets
import sys
from pathlib import Path
from typing import Any

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.output.files import Identity, folder_id, here, what_is, write_file
from karpenter_gpu.output.marker import MARKER, listing, marker_entries, unlisted, write_marker
from karpenter_gpu.output.refusals import added, replaced, swapped_staging
from karpenter_gpu.output.remove import make_own, own_dir, remove_own

_RENAME_EXCHANGE = 2  # linux/fs.h
_RENAME_NOREPLACE = 1  # linux/fs.h
#: The folders inside a mount-point output while its contents are replaced.
IN_PLACE = re.compile(r"\.karpenter-gpu-(new|old)-\d+-[0-9a-f]{8}")


def install(staging: Path, out: Path, expected: tuple[Identity | None, Identity | None] | None = None) -> str:
    """Put the complete output in ``staging`` in place of ``out``; says how: ``"renamed"`` (there was no output),
    ``"exchanged"`` (``staging`` now holds the old output, for
    :func:`~karpenter_gpu.output.remove.discard_old`) or ``"in-place"`` (``out`` is a mount point: its contents
    were replaced, ``staging`` still holds the new output).

    ``expected``: the identities of ``out`` (None: absent) and ``staging`` when the run began (default: as they
    are now). Right before the exchange both are checked again (:func:`_check_unchanged`): an output replaced
    meanwhile (by a symbolic link, another folder, a file, or one that appeared) is refused with KG803 and left
    as it is, with what it points to; files added to the output are refused with KG805 (nothing installed,
    nothing deleted). What the exchange moved out is checked once more: when it is not the folder checked (it
    was replaced between the check and the exchange), the exchange is undone and the run refused with KG803.
    """
    if expected is None:
        expected = (folder_id(here(out)), folder_id(here(staging)))
    before, ours = expected
    present = _check_unchanged(out, staging, before, ours)
    try:
        if not present:
            _rename_new(staging, out)
            return "renamed"
        assert before is not None
        if exchange(staging, out):
            found = here(staging)
            if folder_id(found) != before:  # replaced between the check and the exchange: undo it
                exchange(staging, out)
                raise replaced(out, what_is(out, found))
            return "exchanged"
        _rename_twice(staging, out, before)
        return "exchanged"
    except OSError as ex:
        if ex.errno not in (errno.EBUSY, errno.EXDEV) or before is None or folder_id(here(out)) != before:
            raise
        _install_in_place(staging, out)  # a mount point (EBUSY) or an overlay's lower layer (EXDEV)
        return "in-place"


def _rename_twice(staging: Path, out: Path, before: Identity) -> None:
    """The fallback for :func:`exchange`: two renames; a kill between them leaves ``.<name>.old-*``, which
    :func:`~karpenter_gpu.output.recover.recover` restores. ``staging`` then holds the old output."""
    old = out.with_name(f".{out.name}.old-{os.getpid()}-{secrets.token_hex(4)}")
    os.rename(out, old)
    found = here(old)
    if folder_id(found) != before:  # replaced between the check and the rename: put it back
        what = what_is(old, found)
        os.rename(old, out)
        raise replaced(out, what)
    os.rename(staging, out)
    os.rename(old, staging)  # the caller removes what it holds


def _check_unchanged(out: Path, staging: Path, before: Identity | None, ours: Identity | None) -> bool:
    """Refuse, right before the exchange, an output that changed while synth built (nothing is installed and
    nothing touched): no longer the real folder checked at the start (KG803: a symbolic link, another folder, a
    file, or one where there was none), holding entries its marker does not list (KG805) or no marker any more
    (KG804); and a staging folder that is no longer this run's (KG810). Whether the output is there (an output
    removed meanwhile is simply written anew)."""
    if folder_id(here(staging)) != ours or ours is None:
        raise swapped_staging(staging)
    found = here(out)
    if found is None:
        return False
    if before is None or folder_id(found) != before:
        raise replaced(out, what_is(out, found) if before is not None else "it appeared while synth ran")
    extra = unlisted(out)
    if extra is None and os.listdir(out):
        raise KarpenterGpuError(
            "KG804", prop="outdir", value=str(out),
            allowed=f"a previous synth output (with {MARKER}); its marker was removed while synth ran, so what it "
                    "holds cannot be told from someone else's files: nothing was installed, nothing deleted",
            fix="check the output folder, then run again (remove the folder yourself to start afresh)")
    if extra:
        raise added(out, extra, "added while synth ran: refused, not deleted; nothing was installed")
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
        raise replaced(out, "it appeared while synth ran") from None


def _install_in_place(staging: Path, out: Path) -> None:
    """Replace the contents of ``out`` (which cannot be renamed) from ``staging``, file by file."""
    new = own_dir(out, ".karpenter-gpu-new")  # keeps its proof until the replacement is done
    for entry in listing(staging):
        if entry.endswith("/"):
            (new / entry).mkdir()
        else:
            write_file(new / entry, (staging / entry).read_text(encoding="utf-8"))
    write_marker(new)  # last: from here on the new output is complete, and the next run finishes the job
    roll_forward(out, new)
    for path in (new, new.with_name(new.name.replace("-new-", "-old-", 1))):
        if path.exists():
            remove_own(path)


def roll_forward(out: Path, new: Path) -> None:
    """Move the complete output in ``new`` into ``out``; old files go to the matching ``-old-`` folder.

    Idempotent: a run killed at any step is completed by calling it again. ``out``'s own marker (the
    old output's list) is replaced last, so until then it says which files are the old output's.
    """
    wanted = marker_entries(new) or set()
    previous = marker_entries(out) or set()
    old = new.with_name(new.name.replace("-new-", "-old-", 1))
    if not old.exists():
        make_own(old)
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


def exchange(a: Path, b: Path) -> bool:
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
