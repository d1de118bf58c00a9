"""The input's layout: every source read the same way (folders, files, stdin), environments as dist/ lays them out,
malformed documents reported with a code, hostile folders and files refused within bounds. Each test reads with the C
LibYAML loader and with the pure-Python one (the ``loader`` fixture)."""

from __future__ import annotations

import io
import os
import resource
import shutil
import sys
import time

import pytest
import yaml

from karpenter_gpu.check.validate import validate_dir
from karpenter_gpu.cli.main import main
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s import input_layout
from karpenter_gpu.k8s.input_layout import ROOT as ROOT_ENV
from karpenter_gpu.k8s.input_layout import read_path
from tests.conftest import ROOT, find_crds_dir


@pytest.fixture(autouse=True)
def _crds(monkeypatch):
    """explain and diff check Karpenter objects against the CRDs: the ones beside the checkout, never a download."""
    monkeypatch.setenv("KARPENTER_GPU_CRDS", str(find_crds_dir()))

PROD = ROOT / "dist" / "prod"
POOL = (PROD / "NodePool.gpu-inference.k8s.yaml").read_text()


def codes(source) -> list[str]:
    return [p.code for p in source.problems]


def refused(path, code: str) -> KarpenterGpuError:
    with pytest.raises(KarpenterGpuError) as err:
        read_path(path)
    assert err.value.code == code
    return err.value


def cli_refuses(capsys, path, code: str) -> str:
    """``validate`` and ``explain`` both stop on ``path`` with exit 2 and the one coded line ``code``."""
    line = ""
    for argv in (["validate", str(path), "--crds", str(find_crds_dir())], ["explain", str(path)]):
        assert main(argv) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and "Traceback" not in captured.err and "KG919" not in captured.err
        [line] = captured.err.splitlines()
        assert line.startswith(f"karpenter-gpu: error: [{code}] "), line
    return line


# ------------------------------------------------------------------------------------------------------------- layout


def test_dist_reads_four_environments_with_helm_values(loader):
    source = read_path(ROOT / "dist")
    assert [e.key for e in source.environments] == ["dev", "fleet", "prod", "staging"]
    prod = source.environment("prod")
    assert set(prod.values) == {"gpu-operator.values.yaml", "karpenter.values.yaml"}
    assert {m.manifest["kind"] for m in prod.manifests} >= {"NodePool", "EC2NodeClass", "NodeOverlay"}
    assert source.problems == []


def test_flat_folder_is_the_root_environment_named_after_it(loader, tmp_path):
    shutil.copytree(PROD, tmp_path / "anything")
    source = read_path(tmp_path / "anything")
    [env] = source.environments
    assert (env.key, env.name) == (ROOT_ENV, "anything")
    assert "karpenter.values.yaml" in env.values  # helm/ belongs to the folder, not an environment of its own


def test_helm_values_files_are_not_manifests(loader, tmp_path):
    (tmp_path / "values.yaml").write_text("replicas: 2\n")
    (tmp_path / "gpu-operator.values.yaml").write_text("driver: {enabled: false}\n")
    (tmp_path / "other.yaml").write_text("replicas: 2\n")  # not a values file name: an object without kind
    source = read_path(tmp_path)
    assert set(source.environments[0].values) == {"values.yaml", "gpu-operator.values.yaml"}
    assert [(p.file, p.code) for p in source.problems] == [("other.yaml", "KG311")]


def test_dot_files_are_read_everywhere(loader, tmp_path):
    (tmp_path / ".hidden.yaml").write_text(POOL)
    [env] = read_path(tmp_path).environments
    assert [m.file for m in env.manifests] == [".hidden.yaml"]


def test_single_file_and_stdin(loader, tmp_path, monkeypatch):
    (tmp_path / "pool.yaml").write_text(POOL)
    [env] = read_path(tmp_path / "pool.yaml").environments
    assert env.manifests[0].manifest["metadata"]["name"] == "gpu-inference"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(POOL.encode())))
    [env] = read_path("-").environments
    assert env.manifests[0].file == "<stdin>"


def test_empty_input_is_kg907(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("not yaml")
    refused(tmp_path, "KG907")
    (tmp_path / "blank.yaml").write_text("---\n# nothing\n---\n")
    refused(tmp_path, "KG907")
    # diff: a folder side without objects is an error too, never "everything is new" (a git revision without
    # dist/ is the state before it existed: tests/test_diff_git.py).
    assert main(["diff", str(tmp_path), str(PROD), "--crds", str(find_crds_dir())]) == 2
    assert "[KG907]" in capsys.readouterr().err


def test_missing_path_is_kg900(tmp_path):
    refused(tmp_path / "nope", "KG900")


def test_two_flat_folders_with_different_names_compare_as_one_environment(tmp_path, capsys):
    shutil.copytree(PROD, tmp_path / "before")
    shutil.copytree(PROD, tmp_path / "after")
    pool = yaml.safe_load(POOL)
    pool["spec"]["weight"] = 61
    (tmp_path / "after" / "NodePool.gpu-inference.k8s.yaml").write_text(yaml.safe_dump(pool))
    assert main(["diff", str(tmp_path / "before"), str(tmp_path / "after"), "--fail-on", "drift"]) == 0
    out = capsys.readouterr().out
    assert "drains a pool" not in out
    assert out.startswith("1 change: 1 behavioural only") and "\nafter:\n" in out


# ---------------------------------------------------------------------------------------------------------- documents


def test_list_is_expanded_and_its_nodepool_checked(loader, tmp_path):
    pool = yaml.safe_load(POOL)
    pool["spec"]["weight"] = 500  # the CRD allows at most 100
    (tmp_path / "list.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [pool]}))
    [env] = read_path(tmp_path).environments
    assert [(m.file, m.where) for m in env.manifests] == [("list.yaml", "items[0]")]
    report = validate_dir(tmp_path, find_crds_dir())
    assert any(f.code == "KG300" and f.path == "spec.weight" and f.file == "list.yaml items[0]"
               for f in report.findings)


def test_non_mapping_and_kindless_documents_are_findings(loader, tmp_path):
    (tmp_path / "bad.yaml").write_text("- a\n- b\n---\nplain scalar\n---\nmetadata: {name: x}\n---\n"
                                       "apiVersion: v1\nkind: List\nitems: [3]\n---\n")
    source = read_path(tmp_path)
    assert codes(source) == ["KG310", "KG310", "KG311", "KG310"]
    assert source.problems[3].path == "items[0]"


def test_duplicate_keys_are_kg312(loader, tmp_path):
    (tmp_path / "dup.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  name: y\n")
    [problem] = read_path(tmp_path).problems
    assert (problem.code, problem.kind, problem.path) == ("KG312", "ConfigMap", "<line 5>")
    assert "first at line 4" in problem.message


def test_merge_keys_are_not_duplicates(loader, tmp_path):
    (tmp_path / "merge.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"
                                         "base: &b {a: 1}\ndata:\n  <<: *b\n  c: '2'\n")
    source = read_path(tmp_path)
    assert source.problems == []
    assert source.environments[0].manifests[0].manifest["data"] == {"a": 1, "c": "2"}


def test_same_object_twice_in_one_environment_is_kg313(loader, tmp_path):
    (tmp_path / "prod").mkdir()
    (tmp_path / "prod" / "a.yaml").write_text(POOL)
    (tmp_path / "prod" / "b.yaml").write_text(POOL)
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev" / "a.yaml").write_text(POOL)  # another environment: fine
    [problem] = read_path(tmp_path).problems
    assert (problem.code, problem.file, problem.name) == ("KG313", "prod/b.yaml", "gpu-inference")
    assert "prod/a.yaml" in problem.message
    assert main(["validate", str(tmp_path), "--crds", str(find_crds_dir())]) == 1


def test_namespaces_and_groups_tell_objects_apart(loader, tmp_path):
    docs = [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": ns}} for ns in "ab"]
    docs.append({"apiVersion": "other.io/v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "a"}})
    (tmp_path / "m.yaml").write_text(yaml.safe_dump_all(docs))
    assert read_path(tmp_path).problems == []


# -------------------------------------------------------------------------------------------- hostile layout and size


def test_50mb_file_is_refused_before_reading(tmp_path):
    big = tmp_path / "big.yaml"
    with big.open("wb") as f:
        f.truncate(50 * 1024 * 1024)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    refused(tmp_path, "KG906")
    assert time.perf_counter() - start < 0.5
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss < 10 * 1024  # KiB: nothing was read


def _nest(root, names: list[str]) -> None:
    """root/names[0]/names[1]/.../x.yaml, made one level at a time (no long path, no recursion)."""
    fd = os.open(root, os.O_RDONLY)
    for name in names:
        os.mkdir(name, dir_fd=fd)
        inner = os.open(name, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    with open(os.open("x.yaml", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as f:
        f.write("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    os.close(fd)


def _unnest(root) -> None:
    """Remove what :func:`_nest` made, one level at a time (shutil.rmtree recurses per level)."""
    while True:
        [top] = [p for p in root.iterdir()] or [None]
        if top is None:
            return
        held = top.rename(root / "held")
        below = [p for p in held.iterdir() if p.is_dir()]
        if below:
            below[0].rename(root / "next")
        shutil.rmtree(held)
        if below:
            (root / "next").rename(root / "n")


def test_1500_nested_folders_are_refused_with_a_code(tmp_path, capsys):
    root = tmp_path / "dist"
    root.mkdir()
    _nest(root, ["a"] * 1500)  # os.walk of Python 3.11 recurses once per level: a RecursionError, a KG919
    try:
        start = time.perf_counter()
        line = cli_refuses(capsys, root, "KG914")
        assert time.perf_counter() - start < 2
        assert f"at most {input_layout.MAX_FOLDER_DEPTH} nested folders" in line
    finally:
        _unnest(root)


def test_folders_at_the_depth_bound_are_read(tmp_path):
    root = tmp_path / "dist"
    root.mkdir()
    _nest(root, ["a"] * input_layout.MAX_FOLDER_DEPTH)
    [env] = read_path(root).environments
    assert [m.file for m in env.manifests] == ["/".join(["a"] * input_layout.MAX_FOLDER_DEPTH) + "/x.yaml"]


def test_a_path_longer_than_the_system_allows_is_kg901(tmp_path, capsys):
    root = tmp_path / "dist"
    root.mkdir()
    _nest(root, ["d" * 250] * 20)  # 5,000 characters: ENAMETOOLONG when the walk lists the deepest folders
    try:
        cli_refuses(capsys, root, "KG901")
    finally:
        _unnest(root)
