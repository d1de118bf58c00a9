"""karpenter_gpu.synth into a folder that cannot be renamed (a mount point, an overlay's lower layer): the
output's contents are replaced instead, and a replacement cut short is completed by the next run; for real in
a private mount namespace where the machine allows one."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys

import pytest

import stacks
from karpenter_gpu import KarpenterGpuError, synth
from karpenter_gpu.output import MARKER
from karpenter_gpu.output.lock import locked
from karpenter_gpu.output.recover import recover
from tests.conftest import ROOT, tree
from tests.pipeline_support import fault, leftovers, unmovable


@pytest.mark.parametrize("number", [errno.EBUSY, errno.EXDEV], ids=["mount-point", "overlay-lower-layer"])
def test_an_output_that_cannot_be_renamed_gets_its_contents_replaced(number, tmp_path, trees, monkeypatch):
    out = tmp_path / "dist"
    out.mkdir()  # an empty mount point
    unmovable(monkeypatch, out, number)
    synth(stacks.ENVIRONMENTS, out)
    assert tree(out) == trees["b"]
    synth([stacks.dev.CONFIG], out)  # prod, staging and fleet go; dev is replaced
    assert tree(out) == trees["a"] and leftovers(out) == [] and sorted(os.listdir(out)) == [MARKER, "dev"]


def test_a_contents_replacement_cut_short_is_completed_by_the_next_run(synthesized, tmp_path, trees, monkeypatch):
    out = tmp_path / "dist"
    shutil.copytree(synthesized["a"], out)  # an output of dev written by synth
    unmovable(monkeypatch, out, errno.EBUSY)
    real_rename, moved = os.rename, []

    def rename(src, dst, *args, **kwargs):  # the run dies after 30 moves into the output
        if "/.karpenter-gpu-new-" in os.fspath(src):
            if len(moved) == 30:
                raise KeyboardInterrupt
            moved.append(dst)
        return real_rename(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "rename", rename)
    with pytest.raises(KeyboardInterrupt):
        synth(stacks.ENVIRONMENTS, out)
    assert tree(out) not in (trees["a"], trees["b"])  # mixed: a mount point has no atomic swap
    monkeypatch.undo()
    with locked(out):
        recover(out)
    assert tree(out) == trees["b"] and leftovers(out) == []


def _unshare_works() -> bool:
    """Whether this machine lets a user mount in a private namespace (`unshare -rm`, Linux user namespaces)."""
    try:
        return subprocess.run(["unshare", "-rm", "true"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


#: The three mounts, as the child below finds them: (scenario, tmpfs options, whether the output is the mount).
_MOUNTS = (("mount-point", "", True), ("disk-full", "-o size=96k", False), ("read-only", "-o ro", False))

_REAL_MOUNT_CHILD = """
import json, sys
from pathlib import Path
import stacks, karpenter_gpu
from karpenter_gpu import KarpenterGpuError

def tree(d):
    return {str(p.relative_to(d)): p.read_bytes().hex() for p in sorted(d.rglob("*")) if p.is_file()}

results = {}
for scenario, mount, out in json.loads(sys.argv[1]):
    mount, out = Path(mount), Path(out)
    result = results[scenario] = {}
    try:
        for name, items in (("b", stacks.ENVIRONMENTS), ("a", [stacks.dev.CONFIG])):
            karpenter_gpu.synth(items, out)
            result[name] = tree(out)  # compared with the test's own synth of the same items
    except KarpenterGpuError as err:
        result["code"] = err.code
    result["left"] = sorted(p.name for p in mount.iterdir()) + (sorted(p.name for p in out.iterdir())
                                                                if out.is_dir() and out != mount else [])
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def real_mounts(tmp_path_factory) -> dict[str, dict] | None:
    """What synth did on each of the three tmpfs mounts, mounted side by side in one private mount namespace
    (one child process: Python and Node start once); None where this machine allows no such namespace."""
    if not _unshare_works():
        return None
    base = tmp_path_factory.mktemp("mounts")
    plan = []
    for scenario, _, is_output in _MOUNTS:
        (base / scenario).mkdir()
        plan.append((scenario, str(base / scenario), str(base / scenario if is_output else base / scenario / "dist")))
    mounts = " && ".join(f'mount -t tmpfs {options} none "{base / scenario}"' for scenario, options, _ in _MOUNTS)
    done = subprocess.run(["unshare", "-rm", "sh", "-c", f'{mounts} && exec "$0" -c "$1" "$2"',
                           sys.executable, _REAL_MOUNT_CHILD, json.dumps(plan)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("scenario", [scenario for scenario, _, _ in _MOUNTS])
def test_real_mounts_in_a_private_mount_namespace(scenario, real_mounts, tmp_path, trees, monkeypatch):
    """A tmpfs mounted as the output (rename of it: EBUSY), a full one (ENOSPC) and a read-only one (EROFS) as its
    parent, for real in a private mount namespace; where this machine allows no such namespace, the same faults
    are raised by the tests above' monkeypatches."""
    if real_mounts is None:
        parent = tmp_path / "mnt"
        out = parent / "dist" if scenario != "mount-point" else parent
        parent.mkdir()
        unmovable(monkeypatch, out, errno.EBUSY) if scenario == "mount-point" else fault(
            monkeypatch, "write" if scenario == "disk-full" else "mkdir",
            errno.ENOSPC if scenario == "disk-full" else errno.EROFS, lambda path: path.startswith(str(parent)))
        try:
            synth(stacks.ENVIRONMENTS, out)
            assert scenario == "mount-point" and tree(out) == trees["b"]
        except KarpenterGpuError as err:
            assert err.code == {"disk-full": "KG930", "read-only": "KG931"}[scenario]
        return
    result = dict(real_mounts[scenario])
    for name in ("a", "b"):
        if name in result:  # what synth wrote onto the mount, as what it writes into a plain folder
            result[name] = {path: bytes.fromhex(data) for path, data in result[name].items()} == trees[name]
    expected = {
        "mount-point": {"b": True, "a": True, "left": [MARKER, "dev"]},  # nothing else inside
        "disk-full": {"code": "KG930", "left": []},  # nothing half-written, no staging folder
        "read-only": {"code": "KG931", "left": []},
    }[scenario]
    assert result == expected
