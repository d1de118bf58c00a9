"""karpenter_gpu.synth: all-or-nothing, atomic replacement, lock, stale-folder cleanup, umask, apps."""

from __future__ import annotations

import errno
import json
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
from tests import soak
from tests.conftest import ROOT

#: Kill-9 iterations of the synth crash test (twice as many, plus two, of the install-step one): one in
#: ``make test``, twelve in ``make soak``; KARPENTER_GPU_KILL_ITERATIONS sets another count.
KILL_ITERATIONS = int(os.environ.get("KARPENTER_GPU_KILL_ITERATIONS", str(soak.size(1, 12))))
#: Rounds of the concurrency test: each of two processes synthesizes all environments this many times.
CONCURRENT_ROUNDS = soak.size(1, 4)


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
    # The library prints nothing: the message itself carries the failing findings and their count.
    errors = [f.line() for f in failed.value.report.findings if f.severity == "error"]
    message = str(failed.value)
    assert f"correct the {len(errors)} failing finding" in message and errors[0] in message
    assert "printed above" not in message and len(message.splitlines()) == 1


def test_validation_failure_message_quotes_the_first_findings_and_counts_the_rest(tmp_path):
    from karpenter_gpu.check.findings import Finding, Severity
    from karpenter_gpu.check.validate import Report

    findings = tuple(Finding(f"dev/NodePool.p{i}.k8s.yaml", "NodePool", f"p{i}", "spec.weight", "KG300",
                             Severity.ERROR, "too big") for i in range(5))
    warning = Finding("dev/NodePool.w.k8s.yaml", "NodePool", "w", "spec", "KG401", Severity.WARNING, "a warning")
    report = Report(findings + (warning,), objects=6, files=6)
    message = str(pipeline.SynthFailed(report, tmp_path / "dist"))
    assert "correct the 5 failing findings: " in message and "(and 2 more in .report.findings)" in message
    assert findings[2].line() in message and findings[3].line() not in message and "KG401" not in message
    strict = str(pipeline.SynthFailed(report, tmp_path / "dist", strict=True))
    assert "correct the 6 failing findings" in strict
    printed = str(pipeline.SynthFailed(report, tmp_path / "dist", printed=True))
    assert "printed above" in printed and findings[0].line() not in printed


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


@pytest.mark.soak
def test_concurrent_runs_are_serialized(tmp_path, trees):
    out = tmp_path / "dist"
    script = f"""
        import stacks, karpenter_gpu
        for _ in range({CONCURRENT_ROUNDS}):
            karpenter_gpu.synth(stacks.ENVIRONMENTS, {str(out)!r})
    """
    children = [_child(script) for _ in range(2)]
    for child in children:
        assert child.wait(timeout=300) == 0, child.stderr.read()
    assert tree(out) == trees["b"] and leftovers(out) == []


@pytest.mark.soak
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
        files[pipeline.MARKER] = ("karpenter-gpu-output 1\n" + pipeline._MARKER_NOTE + listing).encode()
    missing = 0
    for _ in range(KILL_ITERATIONS * 2 + 2):
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


# --- what synth may replace -------------------------------------------------------------------


def test_the_output_carries_a_marker_listing_every_file_it_wrote(tmp_path):
    out = tmp_path / "dist"
    synth([stacks.dev.CONFIG], out)
    lines = (out / pipeline.MARKER).read_text().splitlines()
    listed = [line for line in lines[1:] if not line.startswith("#")]
    written = sorted(p.relative_to(out).as_posix() + ("/" if p.is_dir() else "") for p in out.rglob("*")
                     if p.name != pipeline.MARKER)
    assert lines[0] == "karpenter-gpu-output 1" and listed == written
    assert "dev/" in listed and f"dev/{HELM_DIR}/karpenter.values.yaml" in listed


def test_a_folder_of_someone_elses_files_is_refused_and_every_file_kept(tmp_path):
    out = tmp_path / "mine"
    (out / "dev").mkdir(parents=True)
    (out / "notes.txt").write_text("mine")
    (out / "dev" / "NodePool.x.k8s.yaml").write_text("kind: NodePool\n")
    before = tree(out)
    with pytest.raises(KarpenterGpuError, match=r"notes.txt.*no marker.*choose an empty or new folder") as raised:
        synth([stacks.dev.CONFIG], out)
    assert raised.value.code == "KG804" and raised.value.value == str(out)
    assert tree(out) == before and leftovers(out) == []


def test_a_file_added_to_a_marked_output_is_refused_and_named(tmp_path):
    out = tmp_path / "dist"
    synth([stacks.dev.CONFIG], out)
    (out / "dev" / "my-extra.yaml").write_text("kind: Mine\n")
    (out / "mine").mkdir()
    (out / "mine" / "a.txt").write_text("a")
    before = tree(out)
    with pytest.raises(KarpenterGpuError, match=r"dev/my-extra.yaml, mine not listed there \(added since: refused, not deleted"
                       ) as raised:
        synth(stacks.ENVIRONMENTS, out)
    assert raised.value.code == "KG805" and tree(out) == before and leftovers(out) == []


def test_a_repository_root_is_refused(tmp_path):
    out = tmp_path / "repo"
    (out / ".git").mkdir(parents=True)
    (out / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    with pytest.raises(KarpenterGpuError, match="repository root") as raised:
        synth([stacks.dev.CONFIG], out)
    assert raised.value.code == "KG806" and sorted(tree(out)) == [".git/HEAD"]


def test_the_apps_own_source_folder_is_refused(tmp_path, monkeypatch):
    package = tmp_path / "my_stacks"
    package.mkdir()
    (package / "__init__.py").write_text("import stacks\nENVIRONMENTS = [stacks.dev.CONFIG]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import my_stacks  # type: ignore[import-not-found]

    with pytest.raises(KarpenterGpuError, match=r"Python source this program runs.*module my_stacks") as raised:
        synth(my_stacks.ENVIRONMENTS, package)
    assert raised.value.code == "KG806" and sorted(tree(package)) == ["__init__.py"]
    with pytest.raises(KarpenterGpuError, match="module stacks") as raised:  # this repository's stacks/
        synth(stacks.ENVIRONMENTS, ROOT / "stacks")
    assert raised.value.code == "KG806"


def test_an_output_written_before_the_marker_is_adopted_once(tmp_path, trees):
    out = tmp_path / "dist"
    synth([stacks.dev.CONFIG], out)
    (out / pipeline.MARKER).unlink()  # as every output was before the marker
    synth(stacks.ENVIRONMENTS, out)
    assert tree(out) == trees["b"]
    (out / pipeline.MARKER).unlink()
    (out / "README.md").write_text("mine")  # not something synth writes: not adopted
    with pytest.raises(KarpenterGpuError, match=r"README.md") as raised:
        synth(stacks.ENVIRONMENTS, out)
    assert raised.value.code == "KG804" and (out / "README.md").read_text() == "mine"


def test_an_environment_named_helm_is_refused(tmp_path):
    config = {**{k: getattr(stacks.dev.CONFIG, k) for k in stacks.dev.CONFIG.model_fields_set}, "environment": "helm"}
    with pytest.raises(KarpenterGpuError, match=r"a name other than 'helm'.*Fix: rename the environment") as raised:
        synth([config], tmp_path / "dist")
    assert raised.value.code == "KG802" and not (tmp_path / "dist").exists()


# --- environment faults -----------------------------------------------------------------------


def _fault(monkeypatch, name: str, number: int, when) -> None:
    """os.<name> raises OSError(number) for the paths ``when`` accepts (a file descriptor's path for write)."""
    real = getattr(os, name)

    def faulty(*args, **kwargs):
        target = os.readlink(f"/proc/self/fd/{args[0]}") if name == "write" else os.fspath(args[0])
        if when(str(target)):
            raise OSError(number, os.strerror(number), target)
        return real(*args, **kwargs)

    monkeypatch.setattr(os, name, faulty)


@pytest.mark.parametrize("name, number, suffix, code", [
    ("write", errno.ENOSPC, ".values.yaml", "KG930"),
    ("write", errno.EDQUOT, pipeline.PROOF, "KG930"),
    ("open", errno.EACCES, ".values.yaml", "KG931"),
    ("open", errno.EROFS, f"{pipeline.MARKER}.tmp", "KG931"),
    ("mkdir", errno.EPERM, f"/{HELM_DIR}", "KG931"),
    ("write", errno.EIO, f"{pipeline.MARKER}.tmp", "KG933"),
], ids=["enospc", "edquot", "eacces", "erofs", "eperm", "eio"])
def test_file_system_faults_are_coded_and_leave_nothing_behind(name, number, suffix, code, tmp_path, trees,
                                                                monkeypatch):
    out = tmp_path / "dist"
    synth([stacks.dev.CONFIG], out)
    _fault(monkeypatch, name, number, lambda path: path.startswith(str(tmp_path)) and path.endswith(suffix))
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
        _fault(monkeypatch, "mkdir", errno.EACCES, lambda path: path.startswith(str(parent) + "/"))
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


def test_a_read_only_folder_in_the_old_output_is_removed_after_the_swap(tmp_path, trees, monkeypatch):
    out = tmp_path / "dist"
    synth([stacks.dev.CONFIG], out)
    for folder in (out / "dev" / HELM_DIR, out / "dev", out):
        folder.chmod(0o555)
    if os.geteuid() == 0:  # root removes anyway: refuse as the kernel would refuse anyone else
        for name in ("unlink", "rmdir"):
            _fault(monkeypatch, name, errno.EACCES,
                   lambda path: path.startswith(str(tmp_path)) and not os.stat(os.path.dirname(path)).st_mode & 0o200)
    synth(stacks.ENVIRONMENTS, out)
    assert tree(out) == trees["b"] and leftovers(out) == []


# --- a mount point as output --------------------------------------------------------------------


def _unmovable(monkeypatch, out: Path, number: int) -> None:
    """The output folder itself cannot be renamed (a mount point: EBUSY; an overlay's lower layer: EXDEV)."""
    for name in ("rename", "replace"):
        _fault(monkeypatch, name, number, lambda path: path == str(out))
    real_rename = os.rename

    def rename(src, dst, *args, **kwargs):
        if os.fspath(dst) == str(out):
            raise OSError(number, os.strerror(number), os.fspath(src), None, os.fspath(dst))
        return real_rename(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "rename", rename)
    monkeypatch.setattr(pipeline, "_exchange", lambda a, b: (_ for _ in ()).throw(
        OSError(number, os.strerror(number), str(a), None, str(b))))


@pytest.mark.parametrize("number", [errno.EBUSY, errno.EXDEV], ids=["mount-point", "overlay-lower-layer"])
def test_an_output_that_cannot_be_renamed_gets_its_contents_replaced(number, tmp_path, trees, monkeypatch):
    out = tmp_path / "dist"
    out.mkdir()  # an empty mount point
    _unmovable(monkeypatch, out, number)
    synth(stacks.ENVIRONMENTS, out)
    assert tree(out) == trees["b"]
    synth([stacks.dev.CONFIG], out)  # prod, staging and fleet go; dev is replaced
    assert tree(out) == trees["a"] and leftovers(out) == [] and sorted(os.listdir(out)) == [pipeline.MARKER, "dev"]


def test_a_contents_replacement_cut_short_is_completed_by_the_next_run(tmp_path, trees, monkeypatch):
    out = tmp_path / "dist"
    synth([stacks.dev.CONFIG], out)
    _unmovable(monkeypatch, out, errno.EBUSY)
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
    with pipeline._locked(out):
        pipeline._recover(out)
    assert tree(out) == trees["b"] and leftovers(out) == []


# --- the lock -----------------------------------------------------------------------------------


def test_a_run_waiting_for_the_lock_says_for_whom_and_gives_up_after_the_timeout(tmp_path, capsys):
    out = tmp_path / "dist"
    holder = _child(f"""
        from pathlib import Path
        from karpenter_gpu.pipeline import _locked
        with _locked(Path({str(out)!r})):
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


def _unshare_works() -> bool:
    """Whether this machine lets a user mount in a private namespace (`unshare -rm`, Linux user namespaces)."""
    try:
        return subprocess.run(["unshare", "-rm", "true"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


_REAL_MOUNT_CHILD = """
import json, sys
from pathlib import Path
import stacks, karpenter_gpu
from karpenter_gpu import KarpenterGpuError

def tree(d):
    return {str(p.relative_to(d)): p.read_bytes().hex() for p in sorted(d.rglob("*")) if p.is_file()}

mount, out, reference = (Path(p) for p in sys.argv[1:4])
result = {}
try:
    for name, items in (("b", stacks.ENVIRONMENTS), ("a", [stacks.dev.CONFIG])):
        karpenter_gpu.synth(items, out)
        karpenter_gpu.synth(items, reference / name)
        result[name] = tree(out) == tree(reference / name)
except KarpenterGpuError as err:
    result["code"] = err.code
result["left"] = sorted(p.name for p in mount.iterdir()) + (sorted(p.name for p in out.iterdir()) if out.is_dir()
                                                              and out != mount else [])
print(json.dumps(result))
"""


@pytest.mark.parametrize("scenario", ["mount-point", "disk-full", "read-only"])
def test_real_mounts_in_a_private_mount_namespace(scenario, tmp_path, trees, monkeypatch):
    """A tmpfs mounted as the output (rename of it: EBUSY), a full one (ENOSPC) and a read-only one (EROFS) as its
    parent, for real in a private mount namespace; where this machine allows no such namespace, the same faults
    are raised by the tests above' monkeypatches."""
    parent = tmp_path / "mnt"
    out = parent / "dist" if scenario != "mount-point" else parent
    parent.mkdir()
    if not _unshare_works():
        _unmovable(monkeypatch, out, errno.EBUSY) if scenario == "mount-point" else _fault(
            monkeypatch, "write" if scenario == "disk-full" else "mkdir",
            errno.ENOSPC if scenario == "disk-full" else errno.EROFS, lambda path: path.startswith(str(parent)))
        try:
            synth(stacks.ENVIRONMENTS, out)
            assert scenario == "mount-point" and tree(out) == trees["b"]
        except KarpenterGpuError as err:
            assert err.code == {"disk-full": "KG930", "read-only": "KG931"}[scenario]
        return
    options = {"mount-point": "", "disk-full": "-o size=96k", "read-only": "-o ro"}[scenario]
    done = subprocess.run(
        ["unshare", "-rm", "sh", "-c", f'mount -t tmpfs {options} none "$1" && exec "$0" -c "$2" "$1" "$3" "$4"',
         sys.executable, str(parent), _REAL_MOUNT_CHILD, str(out), str(tmp_path / "reference")],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    expected = {
        "mount-point": {"b": True, "a": True, "left": [pipeline.MARKER, "dev"]},  # nothing else inside
        "disk-full": {"code": "KG930", "left": []},  # nothing half-written, no staging folder
        "read-only": {"code": "KG931", "left": []},
    }[scenario]
    assert result == expected
