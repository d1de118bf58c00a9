"""File-system faults as coded errors: :func:`os_error` maps an ``OSError`` to a :class:`KarpenterGpuError`.

A full disk, a permission or a mount point is the environment's fault, not a bug of ours and not the user's
input: each family gets its own code (``KG930``-``KG933``), the path it happened on and a fix, so no caller
needs to let an ``OSError`` reach the command line's catch-all (KG919).
"""

from __future__ import annotations

import errno
from pathlib import Path

from karpenter_gpu.errors import KarpenterGpuError

#: errno -> (code, what is allowed, how to fix it), by family.
_FAMILIES: tuple[tuple[frozenset[int], str, str, str], ...] = (
    (frozenset({errno.ENOSPC, errno.EDQUOT}), "KG930", "a file system with free space (and quota) for the output",
     "free space on that file system (or raise the quota), or write to another folder"),
    (frozenset({errno.EACCES, errno.EPERM, errno.EROFS}), "KG931",
     "a folder this user may write to, on a file system mounted read-write",
     "check the permissions of the folder and its parent (ls -ld), or write to another folder"),
    (frozenset({errno.EXDEV, errno.EBUSY}), "KG932",
     "a folder that can be renamed (not a mount point, not a lower layer of an overlay)",
     "write to a sub-folder of the mount point, or to a folder on one file system"),
)


def os_error(ex: OSError, action: str, path: object = None) -> KarpenterGpuError:
    """The coded error for ``ex``, raised while doing ``action`` (e.g. "write the synth output").

    ``prop`` is ``path``, ``value`` the path it happened on (``path`` if given, else the error's own file
    names), ``allowed`` says what failed and what would have worked.
    """
    where = path if path is not None else " -> ".join(str(p) for p in (ex.filename, ex.filename2) if p is not None)
    name = errno.errorcode.get(ex.errno or 0, "")
    reason = f"{action} failed: {ex.strerror or ex}" + (f" ({name})" if name else "")
    for numbers, code, allowed, fix in _FAMILIES:
        if ex.errno in numbers:
            return KarpenterGpuError(code, prop="path", value=str(where) if where else "",
                                     allowed=f"{reason}; needs {allowed}", fix=fix)
    return KarpenterGpuError("KG933", prop="path", value=str(where) if where else "",
                             allowed=f"{reason}; needs a working file system at that path",
                             fix="check the path, the device and the system log, then run again")


def read_input(file: Path, code: str, prop: str, *, max_bytes: int | None = None, too_large: str = "",
               path: str | None = None) -> str:
    """The text of a file the user names on the command line (a catalog, AWS facts), or ``code`` when it cannot be
    read (missing, permissions, not UTF-8) or, with ``max_bytes``, is larger (``too_large``: the fix then). ``path``:
    the error's location prefix, as :class:`KarpenterGpuError` takes it."""
    try:
        if max_bytes is not None and file.stat().st_size > max_bytes:
            raise KarpenterGpuError(code, prop=prop, value=str(file), allowed=f"a file of at most {max_bytes} bytes",
                                    fix=too_large, path=path)
        return file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise KarpenterGpuError(code, prop=prop, value=str(file), allowed="a readable UTF-8 file",
                                fix=f"check the path ({exc.__class__.__name__}: {exc})", path=path) from None


def printable(text: str) -> str:
    """``text`` with control characters escaped (``\\n``, ``\\x1b``): a newline in a path must not split
    a message line, nor an escape sequence recolour a terminal."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
