"""karpenter_gpu.synth: all-or-nothing, atomic replacement, lock, stale-folder cleanup, umask, apps."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import cdk8s
import pytest

import stacks
from karpenter_gpu import GpuPlatform, KarpenterGpuError, synth
from karpenter_gpu import pipeline
from karpenter_gpu.pipeline import HELM_DIR
from tests.conftest import ROOT

#: Kill-9 iterations of the synth crash test (twice as many of the install-step one); raise for a deeper run.
KILL_ITERATIONS = int(os.environ.get("KARPENTER_GPU_KILL_ITERATIONS", "3"))


def tree(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def leftovers(out: Path) -> list[str]:
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}."))


@pytest.fixture(scope="module")
def trees(tmp_path_factory) -> dict[str, dict[str, bytes]]:
    """What a synth of dev alone (A) and of all three environments (B) writes."""
    base = tmp_path_factory.mktemp("trees")
    synth([stacks.dev.CONFIG], base / "a")
    synth(stacks.ENVIRONMENTS, base / "b")
    return {"a": tree(base / "a"), "b": tree(base / "b")}


def test_writes_environments_and_helm_values_and_returns_the_report(tmp_path, trees):
    report = synth(stacks.ENVIRONMENTS, tmp_path / "dist")
    # prod: the search and research teams add 5 objects; staging: the Inferentia pool and its smoke workload 2;
    # fleet: Auto Mode, MIG and hybrid nodes, 15 objects
    assert not report.failed() and report.objects == 61
    assert tree(tmp_path / "dist") == trees["b"] == tree(ROOT / "dist")
    assert f"dev/{HELM_DIR}/karpenter.values.yaml" in trees["b"]
    assert leftovers(tmp_path / "dist") == []


def test_a_user_app_is_written_like_a_config(tmp_path, trees):
    app = cdk8s.App(outdir="anywhere/dev")  # only the last part names the environment
    GpuPlatform(app, props=stacks.dev.CONFIG)
    synth([app], tmp_path / "dist")
    assert tree(tmp_path / "dist") == trees["a"]


def test_mappings_are_configs(tmp_path, trees):
    config = {k: getattr(stacks.dev.CONFIG, k) for k in stacks.dev.CONFIG.model_fields_set}
    synth([config], tmp_path / "dist")
    assert tree(tmp_path / "dist") == trees["a"]


@pytest.mark.parametrize("items, match", [
    (lambda: [stacks.dev.CONFIG, stacks.dev.CONFIG], "environment='dev'.*one item per environment"),
    (lambda: [42], r"items\[0\]='int'"),
    (lambda: [cdk8s.App(outdir="/")], "environment=''"),
], ids=["duplicate-environment", "not-a-config", "unnamed-app"])
def test_bad_items_fail_with_kg802_and_write_nothing(items, match, tmp_path):
    with pytest.raises(KarpenterGpuError, match=match) as raised:
        synth(items(), tmp_path / "dist")
    assert raised.value.code == "KG802"
    assert not (tmp_path / "dist").exists() and leftovers(tmp_path / "dist") == []


def test_output_must_be_a_real_folder(tmp_path):
    (tmp_path / "file").write_text("x")
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    for name in ("file", "link"):
        with pytest.raises(KarpenterGpuError) as raised:
            synth([stacks.dev.CONFIG], tmp_path / name)
        assert raised.value.code == "KG803"


def test_the_current_folder_and_its_parents_are_never_replaced(tmp_path, monkeypatch):
    work = tmp_path / "repo" / "sub"
    work.mkdir(parents=True)
    (work / "keep.txt").write_text("mine")
    monkeypatch.chdir(work)
    for out in (".", "..", str(tmp_path), "/"):
        with pytest.raises(KarpenterGpuError, match="not the current folder or one of its parents") as raised:
            synth([stacks.dev.CONFIG], out)
        assert raised.value.code == "KG803"
    assert (work / "keep.txt").read_text() == "mine" and sorted(p.name for p in tmp_path.iterdir()) == ["repo"]


def own(folder: Path) -> Path:
    """A folder as a killed run leaves it: its proof first, then some of the output."""
    (folder / "dev").mkdir(parents=True)
    (folder / pipeline.PROOF).write_text(f"karpenter-gpu-staging 1 {folder.name}\n")
    (folder / "dev" / "NodePool.x.k8s.yaml").write_text("kind: NodePool\n")
    return folder


def test_stale_staging_folders_of_killed_runs_are_removed(tmp_path, trees):
    out = tmp_path / "dist"
    synth([stacks.dev.CONFIG], out)
    own(tmp_path / ".dist.staging-1-0000dead")
    shutil.copytree(out, tmp_path / ".dist.old-2-0000beef")  # an old output: its marker proves it
    (tmp_path / ".dist.staging-3-0000cafe").mkdir()  # killed before its proof was written
    (tmp_path / ".dist.staging-4-0000f00d").mkdir()
    (tmp_path / ".dist.staging-4-0000f00d" / pipeline.PROOF).write_text("karpenter-gpu-sta")  # ... while writing it
    (tmp_path / ".other.staging-1-0000dead").mkdir()  # another output's: not ours to remove
    synth(stacks.ENVIRONMENTS, out)
    assert leftovers(out) == [] and (tmp_path / ".other.staging-1-0000dead").is_dir()
    assert tree(out) == trees["b"]


def test_folders_named_like_ours_without_proof_survive(tmp_path, trees):
    """Never a glob: a user's `.dist.backup-…/`, and a folder named like a staging folder but not proven ours."""
    out = tmp_path / "dist"
    synth([stacks.dev.CONFIG], out)
    backup = tmp_path / ".dist.backup-2024-01-01"
    shutil.copytree(out, backup)
    (backup / "notes.txt").write_text("mine")
    unproven = tmp_path / ".dist.staging-1-0000dead"
    (unproven / "dev").mkdir(parents=True)
    (unproven / "dev" / "mine.yaml").write_text("kind: Mine\n")
    wrong = own(tmp_path / ".dist.old-2-0000beef")
    (wrong / pipeline.PROOF).write_text("karpenter-gpu-staging 1 .dist.old-9-00000000\n")  # a copy of another's
    marked = tmp_path / ".dist.old-3-0000cafe"
    shutil.copytree(out, marked)
    (marked / "dev" / "added.txt").write_text("mine")  # a marker, and something it does not list
    before = {p.name: tree(p) for p in (backup, unproven, wrong, marked)}
    synth(stacks.ENVIRONMENTS, out)
    assert {p.name: tree(p) for p in (backup, unproven, wrong, marked)} == before
    assert tree(out) == trees["b"]


def test_an_output_lost_between_the_fallback_renames_is_restored(tmp_path, trees):
    out = tmp_path / "dist"
    synth([stacks.dev.CONFIG], out)
    out.rename(tmp_path / ".dist.old-1-0000dead")  # killed after the first of the two renames
    own(tmp_path / ".dist.staging-1-0000beef")
    pipeline._recover(out)
    assert tree(out) == trees["a"] and leftovers(out) == []


def test_fallback_without_exchange_installs_the_new_output(tmp_path, trees, monkeypatch):
    out = tmp_path / "dist"
    synth([stacks.dev.CONFIG], out)
    monkeypatch.setattr(pipeline, "_exchange", lambda a, b: False)
    synth(stacks.ENVIRONMENTS, out)
    assert tree(out) == trees["b"] and leftovers(out) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="renameat2 is Linux's")
def test_exchange_swaps_two_folders_in_one_step(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "from-a").write_text("")
    (tmp_path / "b").mkdir()
    assert pipeline._exchange(tmp_path / "a", tmp_path / "b")
    assert [p.name for p in (tmp_path / "b").iterdir()] == ["from-a"] and not any((tmp_path / "a").iterdir())


def test_validation_failure_keeps_the_old_output(tmp_path, trees):
    out = tmp_path / "dist"
    synth([stacks.dev.CONFIG], out)
    app = cdk8s.App(outdir="prod")
    pool = GpuPlatform(app, props=stacks.prod.CONFIG).inference[0]
    cdk8s.ApiObject.of(pool.resource).add_json_patch(cdk8s.JsonPatch.replace("/spec/weight", 500))
    with pytest.raises(pipeline.SynthFailed) as failed:
        synth([app], out)
    assert failed.value.code == "KG801" and "KG300" in {f.code for f in failed.value.report.findings}
    assert tree(out) == trees["a"] and leftovers(out) == []


def _child(script: str, env: dict[str, str] | None = None, umask: int | None = None) -> subprocess.Popen:
    code = textwrap.dedent(script)
    return subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, **(env or {})},
                            preexec_fn=(lambda: os.umask(umask)) if umask is not None else None)


def test_files_and_folders_follow_the_umask(tmp_path):
    out = tmp_path / "dist"
    child = _child(f"""
        import stacks, karpenter_gpu
        karpenter_gpu.synth([stacks.dev.CONFIG], {str(out)!r})
        karpenter_gpu.synth([stacks.dev.CONFIG], {str(out)!r})  # the replacement too, not only the first
    """, umask=0o027)
    assert child.wait(timeout=120) == 0, child.stderr.read()
    modes = {p.relative_to(out).as_posix(): p.stat().st_mode & 0o777 for p in [out, *out.rglob("*")]}
    assert modes["."] == 0o750 and modes["dev"] == 0o750 and modes[f"dev/{HELM_DIR}"] == 0o750
    assert modes["dev/NodePool.gpu-inference.k8s.yaml"] == 0o640
    assert modes[f"dev/{HELM_DIR}/karpenter.values.yaml"] == 0o640


def test_concurrent_runs_are_serialized(tmp_path, trees):
    out = tmp_path / "dist"
    script = f"""
        import stacks, karpenter_gpu
        for _ in range(2):
            karpenter_gpu.synth(stacks.ENVIRONMENTS, {str(out)!r})
    """
    children = [_child(script) for _ in range(2)]
    for child in children:
        assert child.wait(timeout=300) == 0, child.stderr.read()
    assert tree(out) == trees["b"] and leftovers(out) == []


def test_kill_9_at_random_moments_never_leaves_a_missing_or_partial_output(tmp_path, trees):
    """A child synthesizes A and B in turn; it is killed at a random moment while a reader polls the output.

    After every kill the output is exactly A or exactly B; the reader never saw it missing.
    """
    out = tmp_path / "dist"
    synth([stacks.dev.CONFIG], out)
    rng = random.Random(int(os.environ.get("KARPENTER_GPU_KILL_SEED", str(time.time_ns()))))
    missing: list[float] = []
    stop = threading.Event()

    def reader() -> None:
        while not stop.is_set():
            if not out.is_dir():
                missing.append(time.monotonic())

    watcher = threading.Thread(target=reader, daemon=True)
    watcher.start()
    swaps = 0
    try:
        for _ in range(KILL_ITERATIONS):
            child = _child(f"""
                import stacks, karpenter_gpu
                karpenter_gpu.synth([stacks.dev.CONFIG], {str(out)!r})  # warm: the next ones take ~1 s
                print("ready", flush=True)
                while True:
                    karpenter_gpu.synth(stacks.ENVIRONMENTS, {str(out)!r})
                    print("swapped", flush=True)
                    karpenter_gpu.synth([stacks.dev.CONFIG], {str(out)!r})
                    print("swapped", flush=True)
            """)
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
            swaps += len(child.stdout.read().splitlines())
            assert tree(out) in (trees["a"], trees["b"]), sorted(tree(out))
    finally:
        stop.set()
        watcher.join()
    assert missing == []
    synth(stacks.ENVIRONMENTS, out)  # the next run cleans up after the killed ones
    assert tree(out) == trees["b"] and leftovers(out) == []
    # Not an assertion on luck: the count of completed swaps is in the report of a failure only.
    print(f"{KILL_ITERATIONS} kills, {swaps} completed swaps before them")


def test_replacement_step_under_a_polling_reader_and_kill_9(tmp_path):
    """The install step alone, thousands of times a second: a reader never sees the output missing, and a
    kill at a random moment leaves exactly one complete version (the full synth above is too slow to hit
    the microseconds of a swap often enough for a non-atomic swap to fail it)."""
    out = tmp_path / "dist"
    rng = random.Random(int(os.environ.get("KARPENTER_GPU_KILL_SEED", str(time.time_ns()))))
    versions = {f"v{i}": {f"env/f{n}.yaml": f"v{i} {n}\n".encode() for n in range(20)} for i in (0, 1)}
    listing = "".join(["env/\n", *sorted(f"env/f{n}.yaml\n" for n in range(20))])
    for files in versions.values():
        files[pipeline.MARKER] = ("karpenter-gpu-output 1\n" + pipeline._MARKER_NOTE + listing).encode()
    missing = 0
    for _ in range(KILL_ITERATIONS * 2):
        child = _child(f"""
            import os
            from pathlib import Path
            from karpenter_gpu import pipeline
            out = Path({str(out)!r})
            i = 0
            while True:
                with pipeline._locked(out):
                    pipeline._recover(out)
                    staging = pipeline._own_dir(out.parent, ".dist.staging")
                    (staging / "env").mkdir()
                    for n in range(20):
                        (staging / "env" / f"f{{n}}.yaml").write_text(f"v{{i % 2}} {{n}}\\n")
                    pipeline._write_marker(staging)
                    os.unlink(staging / pipeline.PROOF)
                    pipeline._install(staging, out)
                    if staging.exists():
                        pipeline._remove_own(staging)
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
    with pipeline._locked(out):
        pipeline._recover(out)
    assert leftovers(out) == []  # what the killed runs left always proves to be ours


def test_lock_is_released_when_a_holder_dies(tmp_path):
    out = tmp_path / "dist"
    holder = _child(f"""
        from pathlib import Path
        from karpenter_gpu.pipeline import _locked
        with _locked(Path({str(out)!r})):
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
