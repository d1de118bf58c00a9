"""The YAML writer: LibYAML's C dumper writes what PyYAML's pure-Python dumper writes, both quoting every string
go-yaml v2 would read as another type (more cases, read back as kubectl reads them: tests/test_yaml11.py)."""

from __future__ import annotations

import pytest

import yaml

from karpenter_gpu.k8s import yaml_writer


def test_c_dumper_writes_what_the_python_dumper_writes():
    data = {"b": [1, "x: y", None, True], "a": {"ü": "multi\nline", "m": 1.5}}
    assert yaml_writer.dump(data, sort_keys=False) == yaml.safe_dump(data, sort_keys=False)
    data["a"]["n"] = ["y", "0o10"]  # quoted for go-yaml v2 by both emitters
    python = type("PythonGoSafeDumper", (yaml_writer.GoQuoting, yaml.SafeDumper), {})
    assert yaml_writer.dump(data, sort_keys=False) == yaml.dump(data, Dumper=python, sort_keys=False)
    assert "'n':\n  - 'y'\n  - '0o10'\n" in yaml_writer.dump(data, sort_keys=False)
    assert yaml_writer.Dumper is (yaml.CSafeDumper if yaml.__with_libyaml__ else yaml.SafeDumper)


@pytest.mark.parametrize(("text", "meant"), [
    ("metadata:\n  name: a\nspec:\n  weight: 10\n  enabled: true\n", True),
    ("tags:\n  team: '0o10'\n  queue: \"y\"\n", True),
    ("tags:\n  team: 0o10\n", False),  # YAML 1.1 means the string 0o10; go-yaml v2 reads 8
    ("tags:\n  team: 0X1F\n", False),
    ("a: 1\n---\nb: 0B11\n", False),
    ("a: [unclosed\n", False),
])
def test_written_as_meant_spots_what_go_yaml_reads_otherwise(text: str, meant: bool):
    from karpenter_gpu.k8s.yaml_writer import written_as_meant
    assert written_as_meant(text, "x.yaml") is meant
