"""What the karpenter_gpu.synth tests (tests/test_pipeline*.py) and the output folder's own (tests/test_output.py)
share: the output's leftovers, a killed run's folder, someone else's folder, a child process, and file system
faults raised by monkeypatching ``os``."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from karpenter_gpu.output import install
from karpenter_gpu.output.marker import MARKER, PROOF
from tests.conftest import ROOT, tree


def leftovers(out: Path) -> list[str]:
    """The folders and files a run leaves beside ``out`` (named ``.<out>.…``)."""
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}."))


def own(folder: Path) -> Path:
    """A folder as a killed run leaves it: its proof first, then some of the output."""
    (folder / "dev").mkdir(parents=True)
    (folder / PROOF).write_text(f"karpenter-gpu-staging 1 {folder.name}\n")
    (folder / "dev" / "NodePool.x.k8s.yaml").write_text("kind: NodePool\n")
    return folder


def someone_elses(folder: Path) -> dict[str, bytes]:
    """A folder full of files that are not synth's (one of them a previous output of another project)."""
    (folder / "deep" / "er").mkdir(parents=True)
    (folder / "notes.txt").write_text("mine")
    (folder / "deep" / "er" / "data.bin").write_bytes(b"\x00\x01")
    (folder / "dev").mkdir()
    (folder / "dev" / "NodePool.gpu-inference.k8s.yaml").write_text("kind: NodePool\n")
    (folder / MARKER).write_text("karpenter-gpu-output 1\ndev/\ndev/NodePool.gpu-inference.k8s.yaml\n")
    return tree(folder)


def spawn(script: str, env: dict[str, str] | None = None, umask: int | None = None) -> subprocess.Popen:
    """``python -c script`` from the repository's root, its stdin, stdout and stderr as text pipes."""
    code = textwrap.dedent(script)
    return subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})},
                            preexec_fn=(lambda: os.umask(umask)) if umask is not None else None)


def fault(monkeypatch, name: str, number: int, when) -> None:
    """os.<name> raises OSError(number) for the paths ``when`` accepts (a file descriptor's path for write; a name
    relative to ``dir_fd`` joined to that folder's path)."""
    real = getattr(os, name)

    def faulty(*args, **kwargs):
        target = os.readlink(f"/proc/self/fd/{args[0]}") if name == "write" else os.fspath(args[0])
        if kwargs.get("dir_fd") is not None and not os.path.isabs(target):
            target = os.path.join(os.readlink(f"/proc/self/fd/{kwargs['dir_fd']}"), target)
        if when(str(target)):
            raise OSError(number, os.strerror(number), target)
        return real(*args, **kwargs)

    monkeypatch.setattr(os, name, faulty)


def unmovable(monkeypatch, out: Path, number: int) -> None:
    """The output folder itself cannot be renamed (a mount point: EBUSY; an overlay's lower layer: EXDEV)."""
    for name in ("rename", "replace"):
        fault(monkeypatch, name, number, lambda path: path == str(out))
    real_rename = os.rename

    def rename(src, dst, *args, **kwargs):
        if os.fspath(dst) == str(out):
            raise OSError(number, os.strerror(number), os.fspath(src), None, os.fspath(dst))
        return real_rename(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "rename", rename)
    monkeypatch.setattr(install, "exchange", lambda a, b: (_ for _ in ()).throw(
        OSError(number, os.strerror(number), str(a), None, str(b))))
