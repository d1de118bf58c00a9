"""The lock that serializes runs on one output (KG807 when a run gives up waiting)."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from karpenter_gpu._fs import printable
from karpenter_gpu.errors import KarpenterGpuError


@contextlib.contextmanager
def locked(out: Path, timeout: float | None = None) -> Iterator[None]:
    """Exclusive lock held for the whole run; the kernel releases it if the process dies.

    POSIX: ``flock`` on the output's parent folder itself, so no lock file is left in the user's
    repository; the holder's pid is read from ``/proc/locks`` (Linux). Elsewhere: a ``.<name>.lock``
    file beside the output. A run that has to wait says so on stderr with the pid holding the lock;
    ``timeout`` (seconds; None: for ever) bounds the wait (KG807).
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
