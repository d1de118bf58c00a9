"""karpenter_gpu.synth killed with SIGKILL at random moments: the output is never missing or partial, and the
next run cleans up after the killed ones."""

from __future__ import annotations

import os
import random
import shutil
import signal
import threading
import time

import pytest

import stacks
from karpenter_gpu import synth
from karpenter_gpu.output import MARKER, marker
from karpenter_gpu.output.lock import locked
from karpenter_gpu.output.recover import recover
from tests import soak
from tests.conftest import tree
from tests.pipeline_support import leftovers, spawn

#: Kill-9 iterations of the synth crash test (twice as many, plus two, of the install-step one): one in
#: ``make test``, twelve in ``make soak``; KARPENTER_GPU_KILL_ITERATIONS sets another count.
KILL_ITERATIONS = int(os.environ.get("KARPENTER_GPU_KILL_ITERATIONS", str(soak.size(1, 12))))


@pytest.mark.soak
def test_kill_9_at_random_moments_never_leaves_a_missing_or_partial_output(synthesized, tmp_path, trees):
    """A child synthesizes A and B in turn; it is killed at a random moment while a reader polls the output.

    After every kill the output is exactly A or exactly B; the reader never saw it missing.
    """
    out = tmp_path / "dist"
    shutil.copytree(synthesized["a"], out)  # an output of dev written by synth
    rng = random.Random(int(os.environ.get("KARPENTER_GPU_KILL_SEED", str(time.time_ns()))))
    missing: list[float] = []
    stop = threading.Event()
    writing = threading.Event()  # from a child's first synth to its death: the only time the output changes

    def reader() -> None:
        while not stop.is_set():
            writing.wait(0.05)  # no busy loop while a child starts Python and Node (the run's other core)
            while writing.is_set():
                if not out.is_dir():
                    missing.append(time.monotonic())

    watcher = threading.Thread(target=reader, daemon=True)
    watcher.start()
    swaps = 0
    try:
        for _ in range(KILL_ITERATIONS):
            child = spawn(f"""
                import stacks, karpenter_gpu
                print("started", flush=True)
                karpenter_gpu.synth([stacks.dev.CONFIG], {str(out)!r})  # warm: the next ones take ~1 s
                print("ready", flush=True)
                while True:
                    karpenter_gpu.synth(stacks.ENVIRONMENTS, {str(out)!r})
                    print("swapped", flush=True)
                    karpenter_gpu.synth([stacks.dev.CONFIG], {str(out)!r})
                    print("swapped", flush=True)
            """)
            assert child.stdout.readline().strip() == "started", child.stderr.read()
            writing.set()
            assert child.stdout.readline().strip() == "ready", child.stderr.read()
            # Let 0-2 replacements complete, then kill at a random point of the next cycle (timed on this
            # machine, whatever its load), so kills land in build, validation, exchange and clean-up alike.
            started, cycle = time.monotonic(), 1.0
            for _ in range(rng.randint(0, 2)):
                assert child.stdout.readline().strip() == "swapped", child.stderr.read()
                swaps += 1
                cycle, started = time.monotonic() - started, time.monotonic()
            time.sleep(rng.uniform(0.0, cycle))
            os.kill(child.pid, signal.SIGKILL)
            child.wait(timeout=30)
            writing.clear()
            swaps += len(child.stdout.read().splitlines())
            assert tree(out) in (trees["a"], trees["b"]), sorted(tree(out))
    finally:
        writing.clear()
        stop.set()
        watcher.join()
    assert missing == []
    synth(stacks.ENVIRONMENTS, out)  # the next run cleans up after the killed ones
    assert tree(out) == trees["b"] and leftovers(out) == []
    # Not an assertion on luck: the count of completed swaps is in the report of a failure only.
    print(f"{KILL_ITERATIONS} kills, {swaps} completed swaps before them")


@pytest.mark.soak
def test_replacement_step_under_a_polling_reader_and_kill_9(tmp_path):
    """The install step alone, thousands of times a second: a reader never sees the output missing, and a
    kill at a random moment leaves exactly one complete version (the full synth above is too slow to hit
    the microseconds of a swap often enough for a non-atomic swap to fail it)."""
    out = tmp_path / "dist"
    rng = random.Random(int(os.environ.get("KARPENTER_GPU_KILL_SEED", str(time.time_ns()))))
    versions = {f"v{i}": {f"env/f{n}.yaml": f"v{i} {n}\n".encode() for n in range(20)} for i in (0, 1)}
    listing = "".join(["env/\n", *sorted(f"env/f{n}.yaml\n" for n in range(20))])
    for files in versions.values():
        files[MARKER] = ("karpenter-gpu-output 1\n" + marker._MARKER_NOTE + listing).encode()
    missing = 0
    for _ in range(KILL_ITERATIONS * 2 + 2):
        child = spawn(f"""
            import os
            from pathlib import Path
            from karpenter_gpu.output.install import install
            from karpenter_gpu.output.lock import locked
            from karpenter_gpu.output.marker import PROOF, write_marker
            from karpenter_gpu.output.recover import recover
            from karpenter_gpu.output.remove import own_dir, remove_own
            out = Path({str(out)!r})
            i = 0
            while True:
                with locked(out):
                    recover(out)
                    staging = own_dir(out.parent, ".dist.staging")
                    (staging / "env").mkdir()
                    for n in range(20):
                        (staging / "env" / f"f{{n}}.yaml").write_text(f"v{{i % 2}} {{n}}\\n")
                    write_marker(staging)
                    os.unlink(staging / PROOF)
                    install(staging, out)
                    if staging.exists():
                        remove_own(staging)
                if i == 1:
                    print("ready", flush=True)
                i += 1
        """)
        assert child.stdout.readline().strip() == "ready", child.stderr.read()
        deadline = time.monotonic() + rng.uniform(0.0, 0.5)
        while time.monotonic() < deadline:
            missing += not out.is_dir()
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
        assert tree(out) in versions.values()
    assert missing == 0
    with locked(out):
        recover(out)
    assert leftovers(out) == []  # what the killed runs left always proves to be ours
