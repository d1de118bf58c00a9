"""The one manifest reader: every source read the same way, malformed input reported with a code, hostile input
refused within bounds, and the C LibYAML loader giving what the pure-Python loader gives."""

from __future__ import annotations

import io
import os
import resource
import shutil
import sys
import time

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from karpenter_gpu.check.validate import validate_dir
from karpenter_gpu.cli.main import main
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s import reader
from karpenter_gpu.k8s.reader import ROOT as ROOT_ENV
from karpenter_gpu.k8s.reader import read, read_path
from tests import soak
from tests.conftest import ROOT, find_crds_dir
from tests.test_diff import git


@pytest.fixture(autouse=True)
def _crds(monkeypatch):
    """explain and diff check Karpenter objects against the CRDs: the ones beside the checkout, never a download."""
    monkeypatch.setenv("KARPENTER_GPU_CRDS", str(find_crds_dir()))

PROD = ROOT / "dist" / "prod"
POOL = (PROD / "NodePool.gpu-inference.k8s.yaml").read_text()


@pytest.fixture(params=["c", "python"])
def loader(request, monkeypatch):
    """Every reader test runs with LibYAML's loader and with the pure-Python fallback."""
    if request.param == "c":
        if not yaml.__with_libyaml__:
            pytest.fail("PyYAML without LibYAML: the C loader cannot be tested here")
        monkeypatch.setattr(reader, "Loader", yaml.CSafeLoader)
    else:
        monkeypatch.setattr(reader, "Loader", yaml.SafeLoader)
    return request.param


def codes(source) -> list[str]:
    return [p.code for p in source.problems]


def refused(path, code: str) -> KarpenterGpuError:
    with pytest.raises(KarpenterGpuError) as err:
        read_path(path)
    assert err.value.code == code
    return err.value


# ------------------------------------------------------------------------------------------ layout


def test_dist_reads_four_environments_with_helm_values(loader):
    source = read_path(ROOT / "dist")
    assert [e.key for e in source.environments] == ["dev", "fleet", "prod", "staging"]
    prod = source.environment("prod")
    assert set(prod.values) == {"gpu-operator.values.yaml", "karpenter.values.yaml"}
    assert {m.manifest["kind"] for m in prod.manifests} >= {"NodePool", "EC2NodeClass", "NodeOverlay"}
    assert source.problems == []


def test_loaders_agree_on_the_bundled_dist(monkeypatch):
    monkeypatch.setattr(reader, "Loader", yaml.CSafeLoader)
    fast = read_path(ROOT / "dist")
    monkeypatch.setattr(reader, "Loader", yaml.SafeLoader)
    slow = read_path(ROOT / "dist")
    assert fast == slow
    assert reader.loader_name() == "SafeLoader"


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


# ------------------------------------------------------------------------------------ documents


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


# -------------------------------------------------------------------------------------- hostile


def test_unreadable_and_non_utf8_files(tmp_path):
    (tmp_path / "latin1.yaml").write_bytes("kind: caf\xe9\n".encode("latin-1"))
    assert "byte 9" in str(refused(tmp_path, "KG902"))


def test_yaml_syntax_error_is_kg903_with_the_line(loader, tmp_path):
    (tmp_path / "bad.yaml").write_text("a: b\n  c: [\n")
    assert "line " in str(refused(tmp_path, "KG903"))


def test_unknown_tag_is_kg903(loader, tmp_path):
    (tmp_path / "tag.yaml").write_text("!!python/object:os.system x\n")
    refused(tmp_path, "KG903")


def test_deep_nesting_is_kg905(loader, tmp_path):
    (tmp_path / "deep.yaml").write_text("[" * 150 + "]" * 150)
    refused(tmp_path, "KG905")
    (tmp_path / "deep.yaml").write_text("[" * 1100 + "]" * 1100)  # past LibYAML's own limit and the recursion one
    with pytest.raises(KarpenterGpuError) as err:
        read_path(tmp_path)
    assert err.value.code in ("KG903", "KG905")


def test_recursive_anchor_is_kg904(loader, tmp_path):
    (tmp_path / "loop.yaml").write_text("a: &x [*x]\n")
    assert "contains itself" in str(refused(tmp_path, "KG904"))


def bomb(levels: int = 12) -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def test_alias_bomb_under_1kb_is_refused_fast_in_every_command(loader, tmp_path, capsys):
    text = bomb()
    assert len(text) < 1024  # 10^12 scalars when expanded
    (tmp_path / "bomb.yaml").write_text(text)
    start = time.perf_counter()
    assert "expanding to" in str(refused(tmp_path, "KG904"))
    for argv in (["validate", str(tmp_path), "--crds", str(find_crds_dir())], ["explain", str(tmp_path)],
                 ["diff", str(tmp_path), str(tmp_path)]):
        assert main(argv) == 2
        assert "[KG904]" in capsys.readouterr().err
    assert time.perf_counter() - start < 2


def test_moderate_aliasing_is_accepted(loader, tmp_path):
    (tmp_path / "ok.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"
                                      "data: {a: &v hello, b: *v, c: *v}\n")
    assert read_path(tmp_path).problems == []


def test_50mb_file_is_refused_before_reading(tmp_path):
    big = tmp_path / "big.yaml"
    with big.open("wb") as f:
        f.truncate(50 * 1024 * 1024)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    refused(tmp_path, "KG906")
    assert time.perf_counter() - start < 0.5
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss < 10 * 1024  # KiB: nothing was read


def test_large_files_load_in_bounded_time(tmp_path):
    # A quarter of the bound in real NodePools under distinct names: ~1 s with LibYAML on an idle 2-core
    # machine (the whole 16 MiB bound: ~4 s), against ~10 s per 4 MiB for the pure-Python loader.
    template = POOL.replace("name: gpu-inference\n", "name: pool-{}\n", 1)
    count = reader.MAX_FILE_BYTES // 4 // (len(template) + 8)
    (tmp_path / "many.yaml").write_text("---\n".join(template.format(i) for i in range(count)))
    start = time.perf_counter()
    [env] = read_path(tmp_path).environments
    assert len(env.manifests) == count
    assert time.perf_counter() - start < 10


# ------------------------------------------------------------------------------------------ git


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_git_revision_with_a_non_ascii_file_name_is_read(loader, tmp_path, capsys):
    repo = tmp_path / "repo"
    (repo / "dist" / "prod").mkdir(parents=True)
    git(repo, "init", "-q")
    target = repo / "dist" / "prod" / "NodePool.gpu-추론.k8s.yaml"  # git quotes this name without -z
    target.write_text(POOL)
    (repo / "dist" / "prod" / ".dot.yaml").write_text(POOL.replace("gpu-inference", "gpu-dot"))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "v1")
    pool = yaml.safe_load(POOL)
    pool["spec"]["template"]["spec"]["taints"].append({"key": "x", "value": "y", "effect": "NoExecute"})
    target.write_text(reader.dump(pool))  # PyYAML's own dumper writes y unquoted: a boolean for kubectl
    git(repo, "commit", "-q", "-am", "v2")

    source = read("HEAD", repo)
    [env] = source.environments
    assert sorted(m.file for m in env.manifests) == ["prod/.dot.yaml", "prod/NodePool.gpu-추론.k8s.yaml"]
    assert source == read("HEAD", repo)
    # The node-replacing change is seen, and --fail-on drift fails the run.
    assert main(["diff", "HEAD~1", "HEAD", "--repo", str(repo), "--fail-on", "drift"]) == 1
    assert "replaces nodes (drift)" in capsys.readouterr().out
    # The same files as a folder read the same way as the revision.
    folder = read_path(repo / "dist")
    assert [(m.file, m.manifest) for m in folder.environments[0].manifests] == \
           [(m.file, m.manifest) for m in env.manifests]


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


def test_c_dumper_writes_what_the_python_dumper_writes():
    data = {"b": [1, "x: y", None, True], "a": {"ü": "multi\nline", "m": 1.5}}
    assert reader.dump(data, sort_keys=False) == yaml.safe_dump(data, sort_keys=False)
    data["a"]["n"] = ["y", "0o10"]  # quoted for go-yaml v2 by both emitters
    python = type("PythonGoSafeDumper", (reader.GoQuoting, yaml.SafeDumper), {})
    assert reader.dump(data, sort_keys=False) == yaml.dump(data, Dumper=python, sort_keys=False)
    assert "'n':\n  - 'y'\n  - '0o10'\n" in reader.dump(data, sort_keys=False)
    assert reader.Dumper is (yaml.CSafeDumper if yaml.__with_libyaml__ else yaml.SafeDumper)


def test_validate_gives_identical_findings_with_either_loader(monkeypatch):
    corpus = ROOT / "tests" / "fixtures" / "seeds"
    monkeypatch.setattr(reader, "Loader", yaml.CSafeLoader)
    fast = validate_dir(corpus, find_crds_dir())
    monkeypatch.setattr(reader, "Loader", yaml.SafeLoader)
    slow = validate_dir(corpus, find_crds_dir())
    assert fast.findings and fast == slow


# --- the direct constructor for anchor-free documents gives exactly PyYAML's data ----------------------

_CONSTRUCT_CASES = [
    "a: b\nc: [1, 2.5, true, null, ~, '3', \"x\"]\nd: {e: 2026-01-01, f: 2026-01-01T10:00:00Z}\n",
    "a: 1\na: 2\n",  # a repeated key: the last wins
    "1: a\nb: c\n",  # a key that is not a string
    "base: &b {x: 1}\n",  # an anchor (never reaches the direct constructor)
    "? [a]\n: b\n",  # an unhashable key: PyYAML's error
    "a: !!str 5\nb: !!int '7'\nc: !!binary aGk=\nd: 0x1f\ne: .inf\nf: 1_000\n",
    "a: !!set {x, y}\n",
    "a: !!omap [{x: 1}]\n",
    "!!map {a: b}\n",
    "- a\n- {b: [c, {d: e}]}\n",
    "plain\n",
    "a: {<<: {x: 1}, y: 2}\n",  # a merge key without anchors
    "a: !custom x\n",  # an unknown tag: PyYAML's error
    "= : x\n",  # the value key
    "a: &x {k: [1, 2]}\nb: *x\nc: [*x, *x]\n",  # aliases share their data
    "a: &s text\nb: *s\n*s : key\n",  # an aliased scalar, as a value and as a key
    "a: &x 1\nb: &x 2\n",  # a duplicate anchor: PyYAML's error
    "a: *nowhere\n",  # an undefined alias: PyYAML's error
    "- &a [x]\n- &a2 [*a, *a]\n---\n- &a [y]\n- *a\n",  # anchors are per document
    "a: {<<: *m}\n",  # a merge of an undefined alias
    "base: &b {x: 1, y: 2}\nd: {<<: *b, y: 3}\n",  # a merge key with an anchor: the node path
    "a: 012\nb: -0\nc: +5\nd: 1e3\ne: 9999999999999999999\nf: -17\ng: 0\nh: 1:30\n",  # ints and not-quite-ints
    "a: yes\nb: No\nc: null\nd: ''\ne:\nf: ~\ng: .NaN\nh: 2026-01-01\ni: 2026-01-01\n",
    "k: ! 5\nl: !!str\nm: ! [a]\n",  # the non-specific tag
    "a: 1\n---\n---\nb: 2\n...\n",  # empty documents
]


def _pyyaml(text: str):
    """PyYAML's composer and constructor, resolving plain scalars as go-yaml v2 does (the reader's node path)."""
    try:
        return ("ok", list(yaml.load_all(text, Loader=reader._go_loader(reader.Loader))))
    except yaml.YAMLError as ex:
        return ("error", type(ex).__name__)


def _ours(text: str):
    try:
        return ("ok", [doc for _, doc, _ in reader.load_documents(text, "x.yaml")] if text.strip() else [])
    except KarpenterGpuError as ex:
        assert ex.code == "KG903"
        return ("error", "YAMLError")


@pytest.mark.parametrize("text", _CONSTRUCT_CASES)
def test_direct_constructor_matches_pyyaml(text: str) -> None:
    expected, got = _pyyaml(text), _ours(text)
    if expected[0] == "error":
        assert got[0] == "error"
    else:
        assert repr(got) == repr(expected)  # repr: True and 1, 1.0 and 1 compare equal


_SCALARS = st.one_of(st.integers(), st.floats(allow_nan=False), st.booleans(), st.none(), st.dates(),
                     st.text(st.sampled_from("ab1 -:.#'\"yYnN~0x_e+"), max_size=8))
_DATA = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=4)
                     | st.dictionaries(st.text(st.sampled_from("abyn1 -:"), max_size=4), inner, max_size=4),
                     max_leaves=20)


@settings(max_examples=200, deadline=None)
@given(data=_DATA, share=st.booleans(), flow=st.sampled_from([None, True, False]))
def test_event_reader_matches_pyyaml_on_any_data(data, share, flow) -> None:
    """The one-pass event reader gives PyYAML's data, shared sub-structures (anchors and aliases) included."""
    document = {"first": data, "second": data} if share else data  # safe_dump writes &id001 / *id001 when shared
    text = yaml.safe_dump(document, default_flow_style=flow, allow_unicode=True)
    assert repr(_ours(text)) == repr(_pyyaml(text)), text


def test_direct_constructor_matches_pyyaml_on_dist() -> None:
    for path in sorted((ROOT / "dist").rglob("*.yaml")):
        text = path.read_text()
        assert repr(_ours(text)) == repr(_pyyaml(text)), path


# ------------------------------------------------------------------------------ hostile layout and size


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
        assert f"at most {reader.MAX_FOLDER_DEPTH} nested folders" in line
    finally:
        _unnest(root)


def test_folders_at_the_depth_bound_are_read(tmp_path):
    root = tmp_path / "dist"
    root.mkdir()
    _nest(root, ["a"] * reader.MAX_FOLDER_DEPTH)
    [env] = read_path(root).environments
    assert [m.file for m in env.manifests] == ["/".join(["a"] * reader.MAX_FOLDER_DEPTH) + "/x.yaml"]


def test_a_path_longer_than_the_system_allows_is_kg901(tmp_path, capsys):
    root = tmp_path / "dist"
    root.mkdir()
    _nest(root, ["d" * 250] * 20)  # 5,000 characters: ENAMETOOLONG when the walk lists the deepest folders
    try:
        cli_refuses(capsys, root, "KG901")
    finally:
        _unnest(root)


@pytest.mark.parametrize("scalar", ["!!int " + "9" * 5000, "!!timestamp 2024-13-45", "!!timestamp 0000-01-01",
                                    "!!int 0x" + "f" * 5000, "!!int 0" + "7" * 400, "!!int -0x" + "f" * 300])
def test_scalar_python_cannot_convert_is_kg915(loader, tmp_path, capsys, scalar):
    """A tagged scalar PyYAML's constructor cannot convert (plain, the same texts are strings as kubectl reads them:
    tests/test_yaml11.py)."""
    (tmp_path / "x.yaml").write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: x}}\ndata: {{a: {scalar}}}\n")
    assert "document 1" in cli_refuses(capsys, tmp_path, "KG915")


def one_line_document(shape: str, size: int) -> str:
    """A ConfigMap on one line whose ``data`` (or an extra field) is ``size`` characters of one shape."""
    head = "{apiVersion: v1, kind: ConfigMap, metadata: {name: x}, "
    if shape == "flow mapping":
        body = "data: {" + ", ".join(f"k{i}: {i}" for i in range(size // 12)) + "}"
    elif shape == "flow sequence":
        body = "items2: [" + ", ".join(str(i) for i in range(size // 8)) + "]"
    elif shape == "long string":
        body = "data: {a: " + "x" * size + "}"
    elif shape == "escaped string":
        body = 'data: {a: "' + '\\t\\u00e9\\"' * (size // 10) + '"}'
    else:  # deep but allowed nesting, repeated
        unit = "[" * 90 + "1" + "]" * 90
        body = "items2: [" + ", ".join([unit] * (size // (len(unit) + 2))) + "]"
    return head + body + "}\n"


SHAPES = ["flow mapping", "flow sequence", "long string", "escaped string", "deep nesting"]


def _read_seconds(path) -> float:
    """CPU seconds of this process for one read (other processes on a loaded machine do not count)."""
    start = time.process_time()
    try:
        read_path(path)
    except KarpenterGpuError as err:
        assert err.code == "KG916"  # refused with a code, as cheaply
    return time.process_time() - start


@pytest.mark.soak
@pytest.mark.parametrize("shape", SHAPES)
def test_one_line_documents_cost_linear_time(tmp_path, shape):
    """A one-line document of each shape ten times as long as another costs about ten times as much (a quadratic
    reader: a hundred): 1 MiB against 100 KiB, except that the costly shapes (mappings, sequences, nesting) are
    read at 320 KiB against 32 KiB outside the soak step; at 14 MiB each shape reads in a few seconds (the figures
    are in the reader's history)."""
    small, large = tmp_path / "small.yaml", tmp_path / "large.yaml"
    kib = 100 if "string" in shape else soak.size(32, 100)
    small.write_text(one_line_document(shape, kib * 1024))
    large.write_text(one_line_document(shape, 10 * kib * 1024))
    baseline = min(_read_seconds(small) for _ in range(3))
    assert min(_read_seconds(large) for _ in range(2)) < 25 * baseline + 0.1  # the constant: timer granularity


def test_a_file_of_more_events_than_the_bound_is_refused_before_it_is_built(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(reader, "MAX_EVENTS", 100_000)
    (tmp_path / "x.yaml").write_text(one_line_document("flow sequence", 1024 * 1024))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.process_time()
    assert "more than 100000 YAML events" in cli_refuses(capsys, tmp_path, "KG916")
    assert time.process_time() - start < 2
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss < 50 * 1024  # KiB: the data was never built


@pytest.mark.parametrize("loader_class", [yaml.SafeLoader, yaml.CSafeLoader])
def test_the_event_pass_counts_too(tmp_path, capsys, monkeypatch, loader_class):
    """Without LibYAML's count (the pure-Python loader), the building pass stops at the bound."""
    monkeypatch.setattr(reader, "Loader", loader_class)
    monkeypatch.setattr(reader, "MAX_EVENTS", 5_000)
    (tmp_path / "x.yaml").write_text(one_line_document("flow sequence", 100 * 1024))
    cli_refuses(capsys, tmp_path, "KG916")


def test_a_large_file_needing_the_composer_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(reader, "MAX_COMPOSED_EVENTS", 10_000)
    (tmp_path / "x.yaml").write_text("base: &b {x: 1}\nmerged: {<<: *b}\n"
                                     + one_line_document("flow sequence", 200 * 1024).replace("{apiVersion", "y: {a", 1))
    assert "merge key" in cli_refuses(capsys, tmp_path, "KG916")


def test_aliases_in_a_large_file_are_read_in_the_event_pass(tmp_path, monkeypatch):
    """An anchor no longer sends a whole file to PyYAML's composer (a 14 MiB sequence with one anchor: 51 s)."""
    def composer(*_: object) -> None:
        raise AssertionError("the file went to PyYAML's composer")

    monkeypatch.setattr(reader, "_load_nodes", composer)
    text = one_line_document("flow sequence", 1024 * 1024).replace("items2: [0,", "items2: [&a 0, *a, &l [x], *l,", 1)
    (tmp_path / "x.yaml").write_text(text)
    [env] = read_path(tmp_path).environments
    items = env.manifests[0].manifest["items2"]
    assert items[:5] == [0, 0, ["x"], ["x"], 1] and items[2] is items[3]  # shared, as PyYAML shares them


def _counted_loader(monkeypatch) -> list[int]:
    """Count the LibYAML loaders the reader makes (one per pass over a text)."""
    made = [0]

    class Counted(yaml.CSafeLoader):
        def __init__(self, stream):
            made[0] += 1
            super().__init__(stream)

    monkeypatch.setattr(reader, "Loader", Counted)
    return made


def test_a_text_too_short_to_exceed_the_event_bound_is_parsed_once(tmp_path, monkeypatch):
    made = _counted_loader(monkeypatch)
    (tmp_path / "pool.yaml").write_text(POOL)
    assert len(read_path(tmp_path).environments[0].manifests) == 1
    assert made[0] == 1  # the event pass only
    monkeypatch.setattr(reader, "MAX_EVENTS", len(POOL))  # now the text could hold more events than allowed
    made[0] = 0
    read_path(tmp_path)
    assert made[0] == 2  # LibYAML counts first, then the event pass


def test_plain_scalars_are_resolved_once_for_all_files(tmp_path, monkeypatch):
    monkeypatch.setattr(reader, "_RESOLVED", {})
    calls: list[str] = []
    real = reader.resolve_plain

    def resolve(value):
        calls.append(value)
        return real(value)

    monkeypatch.setattr(reader, "resolve_plain", resolve)
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: NAME}\ndata: {a: 'x', b: true, m: 1.5, t: ~, w: yes}\n"
    for name in ("one", "two"):
        (tmp_path / f"{name}.yaml").write_text(text.replace("NAME", name))
    source = read_path(tmp_path)
    data = [m.manifest for m in source.environments[0].manifests]
    assert data == [yaml.safe_load(text.replace("NAME", name)) for name in ("one", "two")]  # PyYAML's data too
    assert calls and len(calls) == len(set(calls))  # the second file resolved nothing again
    long_text = "n" + "o" * reader._MAX_RESOLVED_TEXT  # a plain scalar the resolver looks at (it starts with n)
    (tmp_path / "three.yaml").write_text(text.replace("NAME", "three").replace("'x'", long_text))
    [three] = [m.manifest for m in read_path(tmp_path).environments[0].manifests if m.file == "three.yaml"]
    assert three["data"]["a"] == long_text
    kept = [t for cache in reader._RESOLVED.values() for t in cache]
    assert "yes" in kept and long_text not in kept  # long texts stay with their documents only
