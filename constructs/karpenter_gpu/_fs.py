"""File-system faults as coded errors: :func:`os_error` maps an ``OSError`` to a :class:`KarpenterGpuError`.

A full disk, a permission or a mount point is the environment's fault, not a bug of ours and not the user's
input: each family gets its own code (``KG930``-``KG933``), the path it happened on and a fix, so no caller
needs to let an ``OSError`` reach the command line's catch-all (KG919).
"""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path
from typing import Any, BinaryIO, Callable

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


#: Builds the error of a refused read: (code, value, what is allowed, the fix).
Refusal = Callable[[str, Any, str, str], KarpenterGpuError]
#: What one ``os.read`` asks for: a pipe gives at most 64 KiB a call, a file as much as is asked.
_CHUNK = 1 << 20


def _kind(mode: int) -> str:
    return ("a character device" if stat.S_ISCHR(mode) else "a block device" if stat.S_ISBLK(mode) else
            "a socket" if stat.S_ISSOCK(mode) else "a FIFO (named pipe)" if stat.S_ISFIFO(mode) else
            "a folder" if stat.S_ISDIR(mode) else "not a regular file")


def read_bounded(source: str | os.PathLike[str] | BinaryIO, limit: int, *, named: bool = True,
                 refuse: Refusal | None = None, unreadable: str = "KG901", too_large: str = "KG906",
                 too_large_fix: str = "split the file") -> bytes:
    """The bytes of one input, never more than ``limit``: the one reader of every file the user gives (manifests,
    ``--aws``, ``--nodes``, ``--catalog``) and of standard input.

    - ``source`` a path (a symbolic link is judged by what it points to): a regular file is read when its size
      (``fstat`` of the opened descriptor) is at most ``limit``, and never more than ``limit + 1`` bytes of it (a
      file that grows meanwhile, or a ``/proc`` file that reports no size, is still bounded). A pipe (a process
      substitution ``<(kubectl ...)``, ``/dev/stdin``, a named FIFO) is read up to ``limit`` bytes when ``named``
      (the path was given on the command line: it is read as ``cat`` reads it, waiting for a writer), and refused
      unopened (KG920) when it was found while walking a folder (``named=False``): a committed ``x.yaml`` can be a
      symbolic link to a FIFO that nobody writes. Character and block devices (``/dev/zero``, ``/dev/urandom``,
      a terminal) and sockets are refused unopened (KG920), whoever names them.
    - ``source`` an open binary stream (standard input): read up to ``limit`` bytes, whatever it is.

    ``unreadable`` is the code of an OS error (missing, permissions), ``too_large`` of more than ``limit`` bytes;
    ``refuse`` builds the error (by default ``prop=file``, the path as its location).
    """
    label = str(source) if isinstance(source, (str, os.PathLike)) else "<stdin>"
    fail: Refusal = refuse or (lambda code, value, allowed, fix: KarpenterGpuError(
        code, prop="file", value=value, allowed=allowed, fix=fix, path=label))

    def big(size: int | None) -> KarpenterGpuError:
        shown = f"{size} bytes" if size is not None else f"more than {limit} bytes"
        return fail(too_large, shown, f"at most {limit} bytes", too_large_fix)

    if not isinstance(source, (str, os.PathLike)):
        data = source.read(limit + 1)
        if len(data) > limit:
            raise big(None)
        return data
    try:
        mode = os.stat(source).st_mode  # the link's target: nothing is opened yet
        if not (stat.S_ISREG(mode) or (named and stat.S_ISFIFO(mode))):
            raise _refused_kind(fail, mode, named)
        # O_NONBLOCK: a regular file swapped for a FIFO after the stat above does not hang the open (a FIFO named
        # on the command line is opened as cat opens it: blocking until a writer comes).
        flags = os.O_RDONLY | os.O_CLOEXEC | os.O_NOCTTY | (os.O_NONBLOCK if stat.S_ISREG(mode) else 0)
        fd = os.open(source, flags)
    except OSError as ex:
        raise fail(unreadable, ex.strerror or str(ex), "a readable file", "check the path and its permissions"
                   ) from None
    try:
        opened = os.fstat(fd)
        if not (stat.S_ISREG(opened.st_mode) or (named and stat.S_ISFIFO(opened.st_mode))):
            raise _refused_kind(fail, opened.st_mode, named)  # changed between the stat and the open
        if stat.S_ISREG(opened.st_mode) and opened.st_size > limit:
            raise big(opened.st_size)
        if stat.S_ISFIFO(opened.st_mode):
            os.set_blocking(fd, True)
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(fd, min(_CHUNK, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:
            raise big(None)
        return b"".join(chunks)
    except OSError as ex:
        raise fail(unreadable, ex.strerror or str(ex), "a readable file", "check the path and its permissions"
                   ) from None
    finally:
        os.close(fd)


def _refused_kind(fail: Refusal, mode: int, named: bool) -> KarpenterGpuError:
    allowed = ("a regular file, or a pipe named on the command line (<(command), /dev/stdin)" if named else
               "a regular file (a pipe, device or socket inside a folder is not read)")
    return fail("KG920", _kind(mode), allowed,
                "point at the file itself: a device such as /dev/zero or /dev/urandom never ends, a FIFO in a "
                "folder may never be written (replace a symbolic link to one by the file, or remove it)")


def read_input(file: Path, code: str, prop: str, *, max_bytes: int, too_large: str = "",
               path: str | None = None) -> str:
    """The text of a file the user names on the command line (a catalog, AWS facts: :func:`read_bounded`, a pipe
    included), or ``code`` when it cannot be read (missing, permissions, not UTF-8) or is larger than
    ``max_bytes`` (``too_large``: the fix then); KG920 for a device or socket. ``path``: the error's location
    prefix, as :class:`KarpenterGpuError` takes it."""

    def refuse(err_code: str, value: Any, allowed: str, fix: str) -> KarpenterGpuError:
        return KarpenterGpuError(err_code, prop=prop, value=str(file), allowed=f"{allowed} (it is {value})"
                                 if err_code == "KG920" else f"{allowed} ({value})", fix=fix, path=path)

    data = read_bounded(file, max_bytes, refuse=refuse, unreadable=code, too_large=code, too_large_fix=too_large)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise KarpenterGpuError(code, prop=prop, value=str(file), allowed="a readable UTF-8 file",
                                fix=f"check the path ({exc.__class__.__name__}: {exc})", path=path) from None


class DuplicateKey(ValueError):
    """A JSON object that holds ``key`` twice (Python's ``json`` would keep the last one silently)."""

    def __init__(self, key: str) -> None:
        super().__init__(f"duplicate key {key!r}")
        self.key = key


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKey(key)
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON (RFC 8259 has no NaN or Infinity)")


def loads_json(text: str) -> Any:
    """``json.loads`` as strict as the JSON the user's tools print: a key twice in one object is
    :class:`DuplicateKey`, ``NaN``/``Infinity`` (which Python's ``json`` accepts) a ``ValueError``."""
    return json.loads(text, object_pairs_hook=_unique, parse_constant=_no_constant)


def printable(text: str) -> str:
    """``text`` with control characters escaped (``\\n``, ``\\x1b``): a newline in a path must not split
    a message line, nor an escape sequence recolour a terminal."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
