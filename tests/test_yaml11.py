"""YAML 1.1 both ways, as kubectl, the API server and Helm read it (sigs.k8s.io/yaml over go-yaml v2): the reader
resolves plain scalars as go-yaml v2's ``resolve.go`` does, validate reports a label or annotation value that is not
a string (KG314), and every YAML writer of ours quotes any string go-yaml v2 would read as another type."""

from __future__ import annotations

import math
import re

import cdk8s
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import stacks
from karpenter_gpu import GpuPlatform, KarpenterControllerValuesProps, synth
from karpenter_gpu.cli.main import main
from karpenter_gpu.k8s import yaml_writer
from karpenter_gpu.k8s.input_layout import read_path
from karpenter_gpu.k8s.plain_scalars import resolve_plain
from karpenter_gpu.k8s.yaml_loader import load_documents
from karpenter_gpu.k8s.yaml_writer import dump, go_safe_text
from tests.conftest import ROOT, find_crds_dir

POOL = (ROOT / "dist" / "prod" / "NodePool.gpu-inference.k8s.yaml").read_text()

#: (plain text, what sigs.k8s.io/yaml v1.6.0 (go.yaml.in/yaml/v2 v2.4.2) decodes it to), checked with a Go program
#: that prints ``yaml.YAMLToJSON("v: <text>")``; go-yaml v2's float64 answers are floats here.
GO_YAML_V2 = [
    ("y", True), ("Y", True), ("yes", True), ("on", True), ("ON", True), ("true", True),
    ("n", False), ("N", False), ("no", False), ("off", False), ("OFF", False), ("False", False),
    ("tRUE", "tRUE"), ("t", "t"), ("~", None), ("null", None), ("", None), ("NULL", None),
    ("0o10", 8), ("0O7", 7), ("0x1F", 31), ("0X1f", 31), ("0x_1f", 31), ("-0x1F", -31), ("+0x1F", 31),
    ("0b101", 5), ("0B11", 3), ("-0b101", -5), ("0b-101", -5), ("0b+101", 5), ("-0b-101", "-0b-101"),
    ("012", 10), ("-012", -10), ("08", 8.0), ("00", 0), ("-0", 0), ("0o", "0o"), ("0o8", "0o8"), ("0x", "0x"),
    ("1e3", 1000.0), ("1E3", 1000.0), ("1e+3", 1000.0), ("1.e3", 1000.0), ("1.", 1.0), ("+.5", 0.5), (".5", 0.5),
    ("-.5e-3", -0.0005), (".5_0", 0.5), (".5e1_0", 5e9), ("._5", "._5"), (".5_", ".5_"), (".e3", ".e3"),
    ("1_000", 1000), ("1__0", 10), ("0_1", 1), ("_1", "_1"), ("1.5_0", 1.5), ("1_e3", 1000.0), ("0.1e", "0.1e"),
    ("9223372036854775807", 9223372036854775807), ("-9223372036854775808", -9223372036854775808),
    ("9223372036854775808", 9223372036854775808), ("18446744073709551615", 18446744073709551615),
    ("18446744073709551616", 18446744073709551616.0), ("-9223372036854775809", -9223372036854775809.0),
    ("99999999999999999999", 1e20), ("1e999", "1e999"), ("1e-400", 0.0), ("9" * 400, "9" * 400),
    ("0x" + "f" * 5000, "0x" + "f" * 5000),
    ("2024-01-02", "2024-01-02"), ("2024-13-45", "2024-13-45"), ("2001-12-14t21:59:43.10-05:00",
                                                                 "2001-12-14t21:59:43.10-05:00"),
    ("1:20", "1:20"), ("=", "="), ("<<", "<<"), ("+", "+"), ("Inf", "Inf"), ("+Inf", "+Inf"), ("1٢", "1٢"),
    (".inf", math.inf), ("-.Inf", -math.inf), ("+.INF", math.inf),
]


@pytest.mark.parametrize(("text", "expected"), GO_YAML_V2)
def test_plain_scalars_resolve_as_go_yaml_v2(text, expected):
    got = resolve_plain(text)
    assert (type(got), got) == (type(expected), expected)
    if text not in ("", "<<") and not text.startswith(("-", "+")):  # the reader gives the same, in a document
        [(_, data, _)] = load_documents(f"v: {text}\n", "x.yaml")
        assert (type(data["v"]), data["v"]) == (type(expected), expected)


def test_nan_resolves_as_go_yaml_v2():
    assert math.isnan(resolve_plain(".nan")) and math.isnan(resolve_plain(".NaN"))


@pytest.mark.parametrize("merge", ["base: &b {x: 1}\nd: {<<: *b, z: y}\n", "d: {<<: {x: 1}, z: y}\n"])
def test_a_plain_merge_key_still_merges(merge):
    [(_, data, _)] = load_documents(merge, "x.yaml")
    assert data["d"] == {"x": 1, "z": True}
    [(_, data, _)] = load_documents("d: {'<<': {x: 1}}\ne: <<\n", "x.yaml")  # quoted, or a value: a string
    assert data == {"d": {"<<": {"x": 1}}, "e": "<<"}


# ------------------------------------------------------------------------------------ validate

def _pool(tmp_path, labels: str, annotations: str = "", template: str = "") -> None:
    text = POOL.replace("metadata:\n  annotations:\n", f"metadata:\n  labels:\n{labels}  annotations:\n{annotations}", 1)
    text = text.replace("        gpu-operator: enabled\n", f"        gpu-operator: enabled\n{template}", 1)
    (tmp_path / "pool.yaml").write_text(text)


def _validate(tmp_path, capsys) -> tuple[int, str]:
    code = main(["validate", str(tmp_path), "--crds", str(find_crds_dir())])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "KG919" not in captured.out + captured.err
    return code, captured.out


@pytest.mark.parametrize("value", ["y", "n", "Y", "N", "yes", "off", "0o10", "1e3", "0x1F", "012", "1_000"])
def test_validate_reports_a_label_value_go_yaml_reads_as_no_string(tmp_path, capsys, value):
    _pool(tmp_path, f"    team: {value}\n")
    code, out = _validate(tmp_path, capsys)
    assert code == 1
    [line] = [x for x in out.splitlines() if "KG314" in x]
    assert "metadata.labels.team" in line and "write the value in quotes" in line
    _pool(tmp_path, f"    team: '{value}'\n")  # quoted: a string, and a fine label value
    code, out = _validate(tmp_path, capsys)
    assert "KG314" not in out and code == 0, out


def test_validate_reports_annotations_and_nodepool_template_labels(tmp_path, capsys):
    _pool(tmp_path, "    team: ml\n", "    build: 0o10\n", "        queue: y\n")
    code, out = _validate(tmp_path, capsys)
    assert code == 1
    lines = [x for x in out.splitlines() if "KG314" in x]
    assert len(lines) == 2
    assert "metadata.annotations.build" in lines[0] and "number 8" in lines[0]
    assert "spec.template.metadata.labels.queue" in lines[1] and "boolean true" in lines[1]


def test_values_go_yaml_reads_as_strings_are_accepted(tmp_path, capsys):
    """Dates, sexagesimal ``1:20`` and ``=`` are strings for go-yaml v2 (PyYAML's YAML 1.1 makes them a date, 80 and
    a value key): the API server takes them, so validate does too."""
    _pool(tmp_path, "    since: 2024-01-02\n", "    window: 1:20\n    op: =\n    at: 2024-01-02T10:00:00Z\n")
    code, out = _validate(tmp_path, capsys)
    assert code == 0, out
    [env] = read_path(tmp_path).environments
    meta = env.manifests[0].manifest["metadata"]
    assert meta["labels"]["since"] == "2024-01-02"
    assert {k: meta["annotations"][k] for k in ("window", "op", "at")} == {
        "window": "1:20", "op": "=", "at": "2024-01-02T10:00:00Z"}


# ------------------------------------------------------------------------------------- writers

_SPECIAL = [text for text, value in GO_YAML_V2 if type(value) is not str] + [
    "yes", "No", "1:20", "2024-01-02", "=", "<<", "0o10", "y", "n", ".nan", "null", "~", "", " y", "y ", "-", "- y",
    "#", "a: b", "?", "!", "&a", "*a", "|", ">", "%", "@", "`", "'", '"', "0x1F\n", "y\nn", "\t", "\u2028", "\ufeff"]
_TEXTS = st.one_of(st.sampled_from(_SPECIAL), st.text(st.sampled_from("0123456789_+-.eExXbBoOyYnN~:= #"), max_size=8),
                   st.text(max_size=12))


def _read_back(text: str):
    [(_, data, _)] = load_documents(text, "x.yaml")
    return data


@settings(max_examples=400, deadline=None)
@given(value=_TEXTS, block=st.booleans(), flow=st.sampled_from([None, True, False]))
def test_our_writer_writes_strings_go_yaml_v2_reads_back(value, block, flow):
    """What :func:`dump` writes (Helm values, embedded configs, re-quoted manifests), read back under go-yaml v2's
    rules, is the same string: as a value, as a key, and in a list."""
    data = {"v": value, value: "k", "l": [value, {"x": value}]}
    text = dump(data, block_text=block, default_flow_style=flow, sort_keys=False, allow_unicode=True)
    assert _read_back(text) == data, text


#: Keys a JavaScript object cannot hold as data: jsii refuses to pass them to cdk8s (not a YAML question).
_JS_RESERVED_KEYS = frozenset({"__proto__"})


@settings(max_examples=150, deadline=None)
@given(value=_TEXTS.filter(lambda text: text not in _JS_RESERVED_KEYS))
def test_manifests_cdk8s_writes_read_back_as_the_same_strings(value):
    """cdk8s's Node.js YAML writer (YAML 1.1, but without 0o, 0X or 0B) fixed at the one place synth uses it."""
    manifest = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "labels": {"v": value}},
                "data": {"v": value, value: "k"}}
    text = go_safe_text(cdk8s.Yaml.stringify(manifest), manifest, "x.yaml")
    assert _read_back(text) == manifest, text


def test_cdk8s_writes_0o10_unquoted_and_the_fix_quotes_it():
    manifest = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": {"a": "0o10", "b": "1"}}
    node_text = cdk8s.Yaml.stringify(manifest)
    assert "a: 0o10\n" in node_text  # the upstream behaviour this fix exists for
    assert _read_back(node_text)["data"]["a"] == 8
    fixed = go_safe_text(node_text, manifest, "x.yaml")
    assert "a: '0o10'\n" in fixed and _read_back(fixed) == manifest
    safe = {**manifest, "data": {"a": "y"}}  # Node's YAML 1.1 quotes y itself: its bytes are kept
    assert go_safe_text(cdk8s.Yaml.stringify(safe), safe, "x.yaml") == cdk8s.Yaml.stringify(safe)


# --------------------------------------------------------------------------------------- synth

def _risky_config():
    cfg = stacks.dev.CONFIG
    node_class = cfg.node_class.model_copy(update={"tags": {**cfg.node_class.tags, "build": "0o10"}})
    karpenter = KarpenterControllerValuesProps(cluster_name="n", interruption_queue="y")
    return cfg.model_copy(update={"node_class": node_class, "karpenter": karpenter})


@pytest.mark.parametrize("as_app", [False, True])
def test_synth_quotes_a_tag_0o10_a_cluster_n_and_a_queue_y(tmp_path, as_app):
    config = _risky_config()
    if as_app:  # a user's App: written by synth from the App's charts
        item = cdk8s.App(outdir=str(tmp_path / "unused" / "dev"))
        GpuPlatform(item, props=config)
    else:
        item = config
    synth([item], tmp_path / "dist")
    env = tmp_path / "dist" / "dev"
    node_class = (env / "EC2NodeClass.gpu-inference.k8s.yaml").read_text()
    assert re.search(r"\n +build: '0o10'\n", node_class), node_class
    values = (env / "helm" / "karpenter.values.yaml").read_text()
    assert re.search(r"\n +clusterName: 'n'\n", values) and re.search(r"\n +interruptionQueue: 'y'\n", values), values
    source = read_path(tmp_path / "dist")  # read back as kubectl and Helm read them
    [dev] = source.environments
    [ec2] = [m.manifest for m in dev.manifests if m.manifest["kind"] == "EC2NodeClass"]
    assert ec2["spec"]["tags"]["build"] == "0o10"
    settings_ = dev.values["karpenter.values.yaml"]["settings"]
    assert (settings_["clusterName"], settings_["interruptionQueue"]) == ("n", "y")
    assert source.problems == []


def test_dist_files_read_the_same_with_go_yaml_and_pyyaml_strings():
    """Every string of the committed dist/ reads back as a string under go-yaml v2's rules (what kubectl sees)."""
    for path in sorted((ROOT / "dist").rglob("*.yaml")):
        text = path.read_text()
        ours = [d for _, d, _ in load_documents(text, path.name)]
        plain = list(yaml.load_all(text, Loader=yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader))
        assert [yaml_writer._same_strings(a, b) for a, b in zip(ours, plain)] == [True] * len(plain), path
