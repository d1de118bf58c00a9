"""diff of git revisions: the committed dist/ is read where it is, through links and submodules, or refused."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from karpenter_gpu.analysis.diff import Category, classify, load_side
from karpenter_gpu.cli.main import main
from karpenter_gpu.errors import KarpenterGpuError
from tests.test_diff import git, objects, write

POOL = "NodePool.gpu-inference.k8s.yaml"


def _commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message)


def _repo(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q")
    return path


def _diff(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["diff", *argv])
    out = capsys.readouterr()
    assert "KG919" not in out.err
    return code, out.out, out.err


def _monorepo(tmp_path: Path) -> Path:
    """repo/platform/gpu/dist: v1 with every object, v2 without the inference pool."""
    repo = _repo(tmp_path / "repo")
    (repo / "README.md").write_text("monorepo\n")
    write(repo / "platform" / "gpu" / "dist", objects())
    _commit(repo, "v1")
    (repo / "platform" / "gpu" / "dist" / "prod" / POOL).unlink()
    _commit(repo, "v2")
    return repo


def test_monorepo_dist_is_found_from_the_current_folder(tmp_path, monkeypatch, capsys):
    repo = _monorepo(tmp_path)
    for cwd in (repo / "platform" / "gpu", repo / "platform" / "gpu" / "dist" / "prod"):
        monkeypatch.chdir(cwd)
        code, out, _ = _diff(capsys, "HEAD~1", "HEAD", "--fail-on", "drift")
        assert code == 1 and "NodePool gpu-inference: drains a pool" in out, out
    monkeypatch.chdir(repo)  # from the top: no dist/ there on either side
    code, _, err = _diff(capsys, "HEAD~1", "HEAD", "--fail-on", "drift")
    assert code == 2 and "[KG602]" in err and "dist" in err
    code, out, _ = _diff(capsys, "HEAD~1", "HEAD", "--fail-on", "drift", "--dist", "platform/gpu/dist")
    assert code == 1 and "drains a pool" in out
    monkeypatch.chdir(repo / "platform")
    code, out, _ = _diff(capsys, "HEAD~1", "HEAD", "--dist", "gpu/dist", "--fail-on", "drift")
    assert code == 1 and "drains a pool" in out
    code, _, err = _diff(capsys, "HEAD~1", "HEAD", "--dist", "../../elsewhere")
    assert code == 2 and "[KG610]" in err


def test_wrong_dist_path_is_an_error_never_no_changes(tmp_path, monkeypatch, capsys):
    repo = _monorepo(tmp_path)
    monkeypatch.chdir(repo)
    code, out, err = _diff(capsys, "HEAD~1", "HEAD", "--dist", "platform/gpu/dsit")
    assert (code, out) == (2, "") and "[KG602]" in err and "platform/gpu/dsit" in err
    with pytest.raises(KarpenterGpuError) as error:
        load_side("HEAD", dist="nowhere")
    assert error.value.code == "KG602"


def test_the_change_that_first_adds_dist_is_all_new(tmp_path, monkeypatch, capsys):
    repo = _repo(tmp_path / "repo")
    (repo / "README.md").write_text("start\n")
    _commit(repo, "no dist yet")
    write(repo / "dist", objects())
    _commit(repo, "dist")
    monkeypatch.chdir(repo)
    code, out, err = _diff(capsys, "HEAD~1", "HEAD", "--fail-on", "drift")
    assert code == 0 and out.startswith("7 changes: 7 new object")
    assert "note: base HEAD~1 has nothing at dist: compared as a side without objects" in err


def test_a_dist_folder_without_objects_is_an_error(tmp_path, monkeypatch, capsys):
    repo = _repo(tmp_path / "repo")
    (repo / "dist").mkdir()
    (repo / "dist" / "README.md").write_text("generated later\n")
    _commit(repo, "placeholder")
    write(repo / "dist", objects())
    _commit(repo, "dist")
    monkeypatch.chdir(repo)
    code, _, err = _diff(capsys, "HEAD~1", "HEAD")
    assert code == 2 and "[KG907]" in err and "HEAD~1:dist" in err


def test_a_symlinked_file_is_read_at_its_target_in_the_same_revision(tmp_path, monkeypatch, capsys):
    repo = _repo(tmp_path / "repo")
    files = objects()
    write(repo / "common", {POOL: files.pop(POOL)}, environment="pools")
    write(repo / "dist", files)
    os.symlink(f"../../common/pools/{POOL}", repo / "dist" / "prod" / POOL)
    _commit(repo, "v1")
    target = repo / "common" / "pools" / POOL
    target.write_text(target.read_text().replace("value: 'true'", "value: 'yes'"))
    _commit(repo, "v2")
    assert git(repo, "ls-tree", "HEAD", f"dist/prod/{POOL}").startswith("120000")
    [change] = classify(load_side("HEAD~1", repo), load_side("HEAD", repo))
    assert (change.name, change.category) == ("gpu-inference", Category.REPLACES_NODES)
    assert "nvidia.com/gpu=yes:NoSchedule added" in change.reasons[0]
    monkeypatch.chdir(repo)
    assert _diff(capsys, "HEAD~1", "HEAD", "--fail-on", "drift")[0] == 1


@pytest.mark.parametrize(("target", "code"), [
    ("../../../outside.yaml", "KG605"),  # leaves the repository
    ("/etc/hostname", "KG605"),  # absolute
    ("loop-a.yaml", "KG605"),  # loop-a.yaml -> loop-b.yaml -> loop-a.yaml
    ("missing.yaml", "KG607"),  # dangles
    ("../prod", "KG607"),  # a folder
])
def test_a_symlink_that_leaves_the_revision_is_refused(tmp_path, monkeypatch, capsys, target, code):
    repo = _repo(tmp_path / "repo")
    write(repo / "dist", objects())
    link = repo / "dist" / "prod" / "linked.yaml"
    if target == "loop-a.yaml":
        os.symlink("loop-b.yaml", repo / "dist" / "prod" / "loop-a.yaml")
        os.symlink("loop-a.yaml", repo / "dist" / "prod" / "loop-b.yaml")
    os.symlink(target, link)
    _commit(repo, "links")
    monkeypatch.chdir(repo)
    exit_code, out, err = _diff(capsys, "HEAD", "HEAD")
    assert (exit_code, out) == (2, "") and f"[{code}]" in err, err
    assert "dist/prod/linked.yaml" in err or "dist/prod/loop-" in err, err


def _with_submodule(tmp_path: Path) -> Path:
    """super/platform/gpu is a submodule whose dist/ loses the inference pool from v1 to v2."""
    gpu = _repo(tmp_path / "gpu")
    write(gpu / "dist", objects())
    _commit(gpu, "v1")
    top = _repo(tmp_path / "super")
    git(top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(gpu), "platform/gpu")
    _commit(top, "gpu v1")
    sub = top / "platform" / "gpu"
    (sub / "dist" / "prod" / POOL).unlink()
    _commit(sub, "v2")
    _commit(top, "gpu v2")
    return top


def test_a_dist_inside_a_submodule_is_read_at_the_recorded_commit(tmp_path, monkeypatch, capsys):
    top = _with_submodule(tmp_path)
    assert git(top, "ls-tree", "HEAD", "platform/gpu").startswith("160000")
    monkeypatch.chdir(top)
    code, out, _ = _diff(capsys, "HEAD~1", "HEAD", "--dist", "platform/gpu/dist", "--fail-on", "drift")
    assert code == 1 and "NodePool gpu-inference: drains a pool" in out
    monkeypatch.chdir(top / "platform")  # the nearest dist/ at or above: platform/dist, dist; then --dist
    code, out, _ = _diff(capsys, "HEAD~1", "HEAD", "--dist", "gpu/dist", "--fail-on", "drift")
    assert code == 1


def test_a_submodule_without_its_objects_is_refused(tmp_path, monkeypatch, capsys):
    top = _with_submodule(tmp_path)
    git(top, "submodule", "deinit", "-q", "-f", "platform/gpu")  # the folder stays, empty; no objects there
    monkeypatch.chdir(top)
    code, out, err = _diff(capsys, "HEAD~1", "HEAD", "--dist", "platform/gpu/dist")
    assert (code, out) == (2, "") and "[KG608]" in err and "platform/gpu" in err


def _object_file(repo: Path, oid: str) -> Path:
    return repo / ".git" / "objects" / oid[:2] / oid[2:]


@pytest.mark.parametrize("what", ["blob", "tree"])
def test_a_missing_object_is_a_coded_error(tmp_path, monkeypatch, capsys, what):
    repo = _repo(tmp_path / "repo")
    write(repo / "dist", objects())
    _commit(repo, "v1")
    path = f"dist/prod/{POOL}" if what == "blob" else "dist/prod"
    _object_file(repo, git(repo, "rev-parse", f"HEAD:{path}").strip()).unlink()
    monkeypatch.chdir(repo)
    code, out, err = _diff(capsys, "HEAD", "HEAD")
    assert (code, out) == (2, "") and "[KG604]" in err, err
