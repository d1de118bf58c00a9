"""One home for what the package targets upstream (karpenter_gpu.upstream): no other module spells the Karpenter
release, a chart version or a feature-gate name as a value. Docstrings and comments may cite "v1.14.1" (where a rule
was read); string constants that the code uses may not."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from karpenter_gpu import upstream
from karpenter_gpu.upstream import FeatureGate

PACKAGE = Path(upstream.__file__).resolve().parent
HOME = Path(upstream.__file__).resolve()

#: Values that belong to the upstream module only, and how they may appear inside a longer string constant.
VERSIONS = (upstream.KARPENTER_VERSION, upstream.KARPENTER_LINES["1.9"].version, upstream.GPU_OPERATOR_VERSION, upstream.PROMETHEUS_OPERATOR_TAG)
GATES = frozenset(g.value for g in FeatureGate)


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the string constants that are docstrings (module, class, function) or bare expression statements."""
    out = set()
    for node in ast.walk(tree):
        for stmt in getattr(node, "body", []) if isinstance(getattr(node, "body", None), list) else []:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value,
                                                                                                  str):
                out.add(id(stmt.value))
    return out


def second_homes(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)) or id(node) in skip:
            continue
        text = node.value
        if text in GATES:
            found.append(f"{path.name}:{node.lineno}: feature gate {text!r}")
        found.extend(f"{path.name}:{node.lineno}: version {v!r} in {text[:60]!r}" for v in VERSIONS if v in text)
    return found


def test_no_module_but_upstream_spells_a_version_or_a_gate():
    found = [hit for path in sorted(PACKAGE.rglob("*.py")) if path != HOME for hit in second_homes(path)]
    assert found == []


@pytest.mark.parametrize("source", [
    'VERSION = "1.14.1"\n',
    'help = "check against the Karpenter v1.14.1 CRDs"\n',
    'gates = ["nodeOverlay"]\n',
    'def f():\n    """Cites v1.14.1."""\n    return "reservedCapacity"\n',
])
def test_the_check_finds_a_second_home(tmp_path: Path, source: str):
    module = tmp_path / "m.py"
    module.write_text(source)
    assert second_homes(module)


def test_a_docstring_citation_is_not_a_second_home(tmp_path: Path):
    module = tmp_path / "m.py"
    module.write_text('"""Upstream: kubernetes-sigs/karpenter v1.14.1 nodepool.go."""\n\n\ndef f():\n'
                      '    """Read at v1.14.1."""\n')
    assert second_homes(module) == []


def test_the_charts_read_the_versions_from_upstream():
    from karpenter_gpu.addons import gpu_operator_values, karpenter_values
    from karpenter_gpu.apiserver import crd_source
    assert karpenter_values.VERSION == upstream.KARPENTER_CHART_VERSION == upstream.KARPENTER_VERSION
    assert gpu_operator_values.VERSION == upstream.GPU_OPERATOR_VERSION
    assert crd_source.KARPENTER_VERSION == f"v{upstream.KARPENTER_VERSION}"
