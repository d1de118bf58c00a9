"""The YAML loader: hostile input refused within bounds and with a code, the one-pass event reader giving exactly
what PyYAML's composer and constructor give, and the C LibYAML loader giving what the pure-Python loader gives."""

from __future__ import annotations

import gc
import resource
import time

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from karpenter_gpu.check.validate import validate_dir
from karpenter_gpu.cli.main import main
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s import yaml_loader
from karpenter_gpu.k8s.input_layout import read_path
from karpenter_gpu.k8s.plain_scalars import go_loader
from tests import soak
from tests.conftest import ROOT, find_crds_dir
from tests.test_input_layout import POOL, cli_refuses, refused


@pytest.fixture(autouse=True)
def _crds(monkeypatch):
    """explain and diff check Karpenter objects against the CRDs: the ones beside the checkout, never a download."""
    monkeypatch.setenv("KARPENTER_GPU_CRDS", str(find_crds_dir()))


def test_loaders_agree_on_the_bundled_dist(monkeypatch):
    monkeypatch.setattr(yaml_loader, "Loader", yaml.CSafeLoader)
    fast = read_path(ROOT / "dist")
    monkeypatch.setattr(yaml_loader, "Loader", yaml.SafeLoader)
    slow = read_path(ROOT / "dist")
    assert fast == slow
    assert yaml_loader.loader_name() == "SafeLoader"


def test_validate_gives_identical_findings_with_either_loader(monkeypatch):
    corpus = ROOT / "tests" / "fixtures" / "seeds"
    monkeypatch.setattr(yaml_loader, "Loader", yaml.CSafeLoader)
    fast = validate_dir(corpus, find_crds_dir())
    monkeypatch.setattr(yaml_loader, "Loader", yaml.SafeLoader)
    slow = validate_dir(corpus, find_crds_dir())
    assert fast.findings and fast == slow


# ------------------------------------------------------------------------------------------------------------ hostile


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


def test_large_files_load_in_bounded_time(tmp_path):
    # A quarter of the bound in real NodePools under distinct names: ~1 s with LibYAML on an idle 2-core
    # machine (the whole 16 MiB bound: ~4 s), against ~10 s per 4 MiB for the pure-Python loader.
    template = POOL.replace("name: gpu-inference\n", "name: pool-{}\n", 1)
    count = yaml_loader.MAX_FILE_BYTES // 4 // (len(template) + 8)
    (tmp_path / "many.yaml").write_text("---\n".join(template.format(i) for i in range(count)))
    start = time.perf_counter()
    [env] = read_path(tmp_path).environments
    assert len(env.manifests) == count
    assert time.perf_counter() - start < 10


@pytest.mark.parametrize("scalar", ["!!int " + "9" * 5000, "!!timestamp 2024-13-45", "!!timestamp 0000-01-01",
                                    "!!int 0x" + "f" * 5000, "!!int 0" + "7" * 400, "!!int -0x" + "f" * 300])
def test_scalar_python_cannot_convert_is_kg915(loader, tmp_path, capsys, scalar):
    """A tagged scalar PyYAML's constructor cannot convert (plain, the same texts are strings as kubectl reads them:
    tests/test_yaml11.py)."""
    (tmp_path / "x.yaml").write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: x}}\ndata: {{a: {scalar}}}\n")
    assert "document 1" in cli_refuses(capsys, tmp_path, "KG915")


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
    """PyYAML's composer and constructor, resolving plain scalars as go-yaml v2 does (the loader's node path)."""
    try:
        return ("ok", list(yaml.load_all(text, Loader=go_loader(yaml_loader.Loader))))
    except yaml.YAMLError as ex:
        return ("error", type(ex).__name__)


def _ours(text: str):
    try:
        return ("ok", [doc for _, doc, _ in yaml_loader.load_documents(text, "x.yaml")] if text.strip() else [])
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


# ------------------------------------------------------------------------------------------------------ size and cost


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
    """CPU seconds of this process for one read (other processes on a loaded machine do not count), the cyclic
    collector paused: its passes over the objects the suite already holds are not the reader's cost (they made the
    deep-nesting ratio 26.5 where the reader's is ~10)."""
    collecting = gc.isenabled()
    gc.collect()
    gc.disable()
    start = time.process_time()
    try:
        read_path(path)
    except KarpenterGpuError as err:
        assert err.code == "KG916"  # refused with a code, as cheaply
    finally:
        seconds = time.process_time() - start
        if collecting:
            gc.enable()
    return seconds


@pytest.mark.soak
@pytest.mark.parametrize("shape", SHAPES)
def test_one_line_documents_cost_linear_time(tmp_path, shape):
    """A one-line document of each shape ten times as long as another costs about ten times as much (a quadratic
    reader: a hundred): 1 MiB against 100 KiB, except that the costly shapes (mappings, sequences, nesting) are
    read at 320 KiB against 32 KiB outside the soak step; at 14 MiB each shape reads in a few seconds (the figures
    are in the history of k8s/yaml_loader.py and, before it, k8s/reader.py)."""
    small, large = tmp_path / "small.yaml", tmp_path / "large.yaml"
    kib = 100 if "string" in shape else soak.size(32, 100)
    small.write_text(one_line_document(shape, kib * 1024))
    large.write_text(one_line_document(shape, 10 * kib * 1024))
    baseline = min(_read_seconds(small) for _ in range(3))
    assert min(_read_seconds(large) for _ in range(2)) < 25 * baseline + 0.1  # the constant: timer granularity


def test_a_file_of_more_events_than_the_bound_is_refused_before_it_is_built(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(yaml_loader, "MAX_EVENTS", 100_000)
    (tmp_path / "x.yaml").write_text(one_line_document("flow sequence", 1024 * 1024))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.process_time()
    assert "more than 100000 YAML events" in cli_refuses(capsys, tmp_path, "KG916")
    assert time.process_time() - start < 2
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss < 50 * 1024  # KiB: the data was never built


@pytest.mark.parametrize("loader_class", [yaml.SafeLoader, yaml.CSafeLoader])
def test_the_event_pass_counts_too(tmp_path, capsys, monkeypatch, loader_class):
    """Without LibYAML's count (the pure-Python loader), the building pass stops at the bound."""
    monkeypatch.setattr(yaml_loader, "Loader", loader_class)
    monkeypatch.setattr(yaml_loader, "MAX_EVENTS", 5_000)
    (tmp_path / "x.yaml").write_text(one_line_document("flow sequence", 100 * 1024))
    cli_refuses(capsys, tmp_path, "KG916")


def test_a_large_file_needing_the_composer_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(yaml_loader, "MAX_COMPOSED_EVENTS", 10_000)
    (tmp_path / "x.yaml").write_text("base: &b {x: 1}\nmerged: {<<: *b}\n"
                                     + one_line_document("flow sequence", 200 * 1024).replace("{apiVersion", "y: {a", 1))
    assert "merge key" in cli_refuses(capsys, tmp_path, "KG916")


def test_aliases_in_a_large_file_are_read_in_the_event_pass(tmp_path, monkeypatch):
    """An anchor no longer sends a whole file to PyYAML's composer (a 14 MiB sequence with one anchor: 51 s)."""
    def composer(*_: object) -> None:
        raise AssertionError("the file went to PyYAML's composer")

    monkeypatch.setattr(yaml_loader, "_load_nodes", composer)
    text = one_line_document("flow sequence", 1024 * 1024).replace("items2: [0,", "items2: [&a 0, *a, &l [x], *l,", 1)
    (tmp_path / "x.yaml").write_text(text)
    [env] = read_path(tmp_path).environments
    items = env.manifests[0].manifest["items2"]
    assert items[:5] == [0, 0, ["x"], ["x"], 1] and items[2] is items[3]  # shared, as PyYAML shares them


def _counted_loader(monkeypatch) -> list[int]:
    """Count the LibYAML loaders the loader makes (one per pass over a text)."""
    made = [0]

    class Counted(yaml.CSafeLoader):
        def __init__(self, stream):
            made[0] += 1
            super().__init__(stream)

    monkeypatch.setattr(yaml_loader, "Loader", Counted)
    return made


def test_a_text_too_short_to_exceed_the_event_bound_is_parsed_once(tmp_path, monkeypatch):
    made = _counted_loader(monkeypatch)
    (tmp_path / "pool.yaml").write_text(POOL)
    assert len(read_path(tmp_path).environments[0].manifests) == 1
    assert made[0] == 1  # the event pass only
    monkeypatch.setattr(yaml_loader, "MAX_EVENTS", len(POOL))  # now the text could hold more events than allowed
    made[0] = 0
    read_path(tmp_path)
    assert made[0] == 2  # LibYAML counts first, then the event pass


def test_plain_scalars_are_resolved_once_for_all_files(tmp_path, monkeypatch):
    from karpenter_gpu import perf

    monkeypatch.setattr(yaml_loader, "_RESOLVED", perf.OwnerCache(entries=yaml_loader._MAX_RESOLVED + 1))
    monkeypatch.setattr(perf._SWITCH, "on", True)  # caching on for this test (the suite also runs with it off)
    calls: list[str] = []
    real = yaml_loader.resolve_plain

    def resolve(value):
        calls.append(value)
        return real(value)

    monkeypatch.setattr(yaml_loader, "resolve_plain", resolve)
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: NAME}\ndata: {a: 'x', b: true, m: 1.5, t: ~, w: yes}\n"
    for name in ("one", "two"):
        (tmp_path / f"{name}.yaml").write_text(text.replace("NAME", name))
    source = read_path(tmp_path)
    data = [m.manifest for m in source.environments[0].manifests]
    assert data == [yaml.safe_load(text.replace("NAME", name)) for name in ("one", "two")]  # PyYAML's data too
    assert calls and len(calls) == len(set(calls))  # the second file resolved nothing again
    long_text = "n" + "o" * yaml_loader._MAX_RESOLVED_TEXT  # a plain scalar the resolver looks at (it starts with n)
    (tmp_path / "three.yaml").write_text(text.replace("NAME", "three").replace("'x'", long_text))
    [three] = [m.manifest for m in read_path(tmp_path).environments[0].manifests if m.file == "three.yaml"]
    assert three["data"]["a"] == long_text
    kept = [t for cache in yaml_loader._RESOLVED.values() for t in cache]
    assert "yes" in kept and long_text not in kept  # long texts stay with their documents only
