"""karpenter_gpu.synth under file system faults (a full disk, no permission, a read-only folder, I/O errors,
Node.js's own errors): each is one coded error, and nothing is left behind or half-written."""

from __future__ import annotations

import errno
import os
import shutil

import pytest

import stacks
from karpenter_gpu import KarpenterGpuError, synth
from karpenter_gpu import pipeline
from karpenter_gpu.output import HELM_DIR, MARKER, PROOF
from tests.conftest import tree
from tests.pipeline_support import fault, leftovers


@pytest.mark.parametrize("name, number, suffix, code", [
    ("write", errno.ENOSPC, ".values.yaml", "KG930"),
    ("write", errno.EDQUOT, PROOF, "KG930"),
    ("open", errno.EACCES, ".values.yaml", "KG931"),
    ("open", errno.EROFS, f"{MARKER}.tmp", "KG931"),
    ("mkdir", errno.EPERM, f"/{HELM_DIR}", "KG931"),
    ("write", errno.EIO, f"{MARKER}.tmp", "KG933"),
], ids=["enospc", "edquot", "eacces", "erofs", "eperm", "eio"])
def test_file_system_faults_are_coded_and_leave_nothing_behind(synthesized, name, number, suffix, code, tmp_path, trees,
                                                                monkeypatch):
    out = tmp_path / "dist"
    shutil.copytree(synthesized["a"], out)  # an output of dev written by synth
    fault(monkeypatch, name, number, lambda path: path.startswith(str(tmp_path)) and path.endswith(suffix))
    with pytest.raises(KarpenterGpuError) as raised:
        synth(stacks.ENVIRONMENTS, out)
    assert raised.value.code == code and suffix in raised.value.value and "KG919" not in str(raised.value)
    assert errno.errorcode[number] in raised.value.allowed
    assert tree(out) == trees["a"] and leftovers(out) == []


def test_a_read_only_parent_folder_is_kg931(tmp_path, monkeypatch):
    parent = tmp_path / "ro"
    parent.mkdir()
    parent.chmod(0o555)
    if os.geteuid() == 0:  # root writes anyway: the kernel's answer to anyone else, as a fault
        fault(monkeypatch, "mkdir", errno.EACCES, lambda path: path.startswith(str(parent) + "/"))
    try:
        with pytest.raises(KarpenterGpuError, match="Permission denied") as raised:
            synth([stacks.dev.CONFIG], parent / "dist")
    finally:
        parent.chmod(0o755)
    assert raised.value.code == "KG931" and os.listdir(parent) == []


@pytest.mark.parametrize("message, number, filename", [
    ("Error: ENOTDIR: not a directory, mkdir '/x/dev'", errno.ENOTDIR, "/x/dev"),
    ("Error: ENOSPC: no space left on device, write", errno.ENOSPC, "/out/dev"),  # as Node.js says it
])
def test_node_file_system_errors_become_os_errors(message, number, filename):
    class App:
        outdir = "/out/dev"

        def synth(self):
            raise RuntimeError(message)

    with pytest.raises(OSError) as raised:
        pipeline._node_synth(App())
    assert raised.value.errno == number and raised.value.filename == filename


def test_a_read_only_folder_in_the_old_output_is_removed_after_the_swap(synthesized, tmp_path, trees, monkeypatch):
    out = tmp_path / "dist"
    shutil.copytree(synthesized["a"], out)  # an output of dev written by synth
    for folder in (out / "dev" / HELM_DIR, out / "dev", out):
        folder.chmod(0o555)
    if os.geteuid() == 0:  # root removes anyway: refuse as the kernel would refuse anyone else
        for name in ("unlink", "rmdir"):
            fault(monkeypatch, name, errno.EACCES,
                   lambda path: path.startswith(str(tmp_path)) and not os.stat(os.path.dirname(path)).st_mode & 0o200)
    synth(stacks.ENVIRONMENTS, out)
    assert tree(out) == trees["b"] and leftovers(out) == []
