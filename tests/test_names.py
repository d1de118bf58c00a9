"""The Kubernetes name grammars have one home (karpenter_gpu.k8s.names), and every pattern of the package anchors at
the end of the text as Go's regexp does: Python's ``$`` also matches before a final newline, so ``"gpu\\n"`` passed
as a NodePool name, a label value, a quantity or a duration before."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s import names
from karpenter_gpu.k8s.names import is_dns1123_label, is_dns1123_subdomain, is_label_value, is_qualified_name

PACKAGE = Path(names.__file__).resolve().parents[1]
HOME = Path(names.__file__).resolve()

#: re.compile patterns allowed to end in '$': neither validates input (one strips spaces, one reads Node's message).
END_OF_LINE_ALLOWED = {("render/escape.py", "_EDGE_SPACES"), ("pipeline.py", "_NODE_FS_ERROR")}


def _patterns(path: Path):
    """(assigned name, pattern text) of every ``re.compile`` call with a literal or f-string pattern."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    named = {id(n.value): n.targets[0].id for n in ast.walk(tree)
             if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name)}
    for call in ast.walk(tree):
        func = getattr(call, "func", None)
        if not (isinstance(call, ast.Call) and isinstance(func, ast.Attribute) and func.attr == "compile"
                and isinstance(func.value, ast.Name) and func.value.id == "re" and call.args):
            continue
        pieces = [n.value for n in ast.walk(call.args[0]) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
        yield named.get(id(call), ""), "".join(pieces)


def _ends_with_dollar(pattern: str) -> bool:
    return any(part.endswith("$") and not part.endswith("\\$") for part in pattern.split("|"))


def test_no_pattern_anchors_before_a_final_newline():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        found += [f"{rel}: {name}" for name, text in _patterns(path)
                  if _ends_with_dollar(text) and (rel, name) not in END_OF_LINE_ALLOWED]
    assert found == [], "end patterns with \\Z (or use fullmatch): '$' also matches before a trailing newline"


def test_the_dns_grammar_has_one_home():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == HOME:
            continue
        found += [f"{path.relative_to(PACKAGE)}: {name}" for name, text in _patterns(path)
                  if "[a-z0-9]([-a-z0-9]*[a-z0-9])?" in text or "[-A-Za-z0-9_.]*" in text]
    assert found == []


@pytest.mark.parametrize("text", ["^a$", "^a$|^b\\Z", "x\\Z|y$"])
def test_the_anchor_check_finds_a_dollar(text: str):
    assert _ends_with_dollar(text)


@pytest.mark.parametrize("text", ["^a\\Z", "cost\\$", "[$]x"])
def test_the_anchor_check_passes_an_escaped_or_inner_dollar(text: str):
    assert not _ends_with_dollar(text)


@pytest.mark.parametrize(("check", "good", "bad"), [
    (is_dns1123_label, ["gpu", "a", "gpu-1", "x" * 63], ["gpu\n", "Gpu", "-gpu", "gpu-", "x" * 64, "", "gpu.a", "١"]),
    (is_dns1123_subdomain, ["a.b", "example.com", "x" * 253], ["a..b", "a.b\n", "x" * 254, ".a", ""]),
    (is_qualified_name, ["team", "example.com/team", "a/B_c.d"], ["team\n", "/team", "a/b/c", "e.com/" + "x" * 64,
                                                                    "UPPER.com/x", "", "-a"]),
    (is_label_value, ["", "v1", "A_b.c-d", "x" * 63], ["v\n", "-v", "x" * 64, "a b", 1, None]),
])
def test_the_grammars(check, good, bad):
    assert [g for g in good if not check(g)] == []
    assert [b for b in bad if check(b)] == []


def test_a_nodepool_name_with_a_trailing_newline_is_refused():
    from karpenter_gpu.k8s.names import check_dns1123
    with pytest.raises(KarpenterGpuError) as err:
        check_dns1123("gpu-inference\n")
    assert err.value.code == "KG120"


@pytest.mark.parametrize(("parse", "text"), [
    ("Quantity", "1Gi\n"), ("Quantity", "١٢"), ("Duration", "30m\n"),
])
def test_units_refuse_a_trailing_newline_and_non_ascii_digits(parse: str, text: str):
    from karpenter_gpu.k8s import units
    with pytest.raises(KarpenterGpuError):
        getattr(units, parse).parse(text)


def test_a_label_value_with_a_trailing_newline_is_refused():
    from karpenter_gpu.k8s.requirements import check_label_value
    with pytest.raises(KarpenterGpuError):
        check_label_value("gpu\n", "labels", "KG121")
