"""karpenter_gpu.synth's lock: concurrent runs are serialized, a waiting run says for whom and gives up after
its timeout, and a holder's death releases it."""

from __future__ import annotations

import os
import shutil
import signal
import time

import pytest

import stacks
from karpenter_gpu import KarpenterGpuError, synth
from tests import soak
from tests.conftest import tree
from tests.pipeline_support import leftovers, spawn

#: Rounds of the concurrency test: each of two processes synthesizes all environments this many times.
CONCURRENT_ROUNDS = soak.size(1, 4)


@pytest.mark.soak
def test_concurrent_runs_are_serialized(tmp_path, trees):
    """This process and another synthesize every environment into one output, CONCURRENT_ROUNDS times each,
    starting together: the lock serializes the runs, and the output is complete with nothing left beside it."""
    out = tmp_path / "dist"
    other = spawn(f"""
        import stacks, karpenter_gpu
        print("ready", flush=True)  # Python, Node.js and the stacks loaded: the runs start when told
        input()
        for _ in range({CONCURRENT_ROUNDS}):
            karpenter_gpu.synth(stacks.ENVIRONMENTS, {str(out)!r})
    """)
    try:
        assert other.stdout.readline().strip() == "ready", other.stderr.read()
        other.stdin.write("go\n")
        other.stdin.flush()
        for _ in range(CONCURRENT_ROUNDS):
            synth(stacks.ENVIRONMENTS, out)
        assert other.wait(timeout=300) == 0, other.stderr.read()
    finally:
        other.kill()
        other.wait(timeout=30)
    assert tree(out) == trees["b"] and leftovers(out) == []


def test_lock_is_released_when_a_holder_dies(tmp_path):
    out = tmp_path / "dist"
    holder = spawn(f"""
        from pathlib import Path
        from karpenter_gpu.output.lock import locked
        with locked(Path({str(out)!r})):
            print("locked", flush=True)
            import time; time.sleep(60)
    """)
    assert holder.stdout.readline().strip() == "locked"
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait(timeout=30)
    started = time.monotonic()
    synth([stacks.dev.CONFIG], out)
    assert time.monotonic() - started < 30 and out.is_dir()
    shutil.rmtree(out)


def test_a_run_waiting_for_the_lock_says_for_whom_and_gives_up_after_the_timeout(tmp_path, capsys):
    out = tmp_path / "dist"
    holder = spawn(f"""
        from pathlib import Path
        from karpenter_gpu.output.lock import locked
        with locked(Path({str(out)!r})):
            print("locked", flush=True)
            import time; time.sleep(60)
    """)
    try:
        assert holder.stdout.readline().strip() == "locked"
        started = time.monotonic()
        with pytest.raises(KarpenterGpuError, match=f"held by pid {holder.pid}") as raised:
            synth([stacks.dev.CONFIG], out, lock_timeout=0.5)
        assert raised.value.code == "KG807" and 0.5 <= time.monotonic() - started < 10
        err = capsys.readouterr().err
        assert f"waiting for the synth lock on {tmp_path} (held by pid {holder.pid}), for at most 0.5 s" in err
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(timeout=30)
    assert not out.exists() and leftovers(out) == []
