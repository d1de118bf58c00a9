"""karpenter_gpu.apiserver._cel backends: the compiled runtime (cel-expr-python) and the fallback (cel-python)
give the same verdicts on every rule of the Karpenter CRDs, and `validate` the same findings.

The differential test draws, for every non-transition x-kubernetes-validations rule of the four
Karpenter CRDs, values from the rule's own schema node (valid and invalid: missing fields, empty and
odd strings, restricted label keys, signed and non-decimal numbers, duplicate entries) and compares
(verdict, message) on both backends.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from karpenter_gpu.apiserver import _cel, _cel_lib
from karpenter_gpu.apiserver._cel_native import route_int
from karpenter_gpu.apiserver.conformance import Crds, validate_manifest
from karpenter_gpu.check.validate import validate_dir
from karpenter_gpu.errors import KarpenterGpuError

from . import soak
from .conftest import find_crds_dir

from .test_conformance import CEL_INVALID, CEL_VALID, INVALID, VALID

ROOT = Path(__file__).resolve().parents[1]
BACKENDS = ("cel-expr-python", "celpy")
KINDS = ("NodePool", "NodeClaim", "EC2NodeClass", "NodeOverlay")
SAMPLES_PER_RULE = soak.size(80, 400)
#: Values compared per rule before a rule whose samples have reached both of its sides may stop early (celpy takes
#: ~1 ms per evaluation); the deep run compares every sample.
AT_LEAST_PER_RULE = soak.size(40, 400)

# A string condition: evaluated at each test's setup in the worker that runs this module, not at collection in
# every worker (building the pure-Python backend's parser takes about 0.4 s).
pytestmark = pytest.mark.skipif("_cel.available() != list(BACKENDS)",
                                reason="the compiled CEL runtime has no wheel for this platform")

# Strings that exercise the rules: label keys in and out of the restricted domains, AMI aliases,
# numbers as strings (strict int()), and the empty string.
STRINGS = (
    "", "a", "gpu", "-1", "0", "7", "+7", " 5", "0x10", "1_000", "9223372036854775808", "-x",
    "karpenter.sh/nodepool", "karpenter.sh/capacity-type", "karpenter.sh/custom", "kubernetes.io/hostname",
    "karpenter.k8s.aws/instance-gpu-count", "karpenter.k8s.aws/unknown", "node.kubernetes.io/instance-type",
    "team", "al2023@latest", "al2023@v20240807", "bottlerocket@1.2", "windows2022@latest", "windows2019@v1",
    "al2@x", "ubuntu@1", "al2023", "@", "Custom", "AL2023", "AL2", "Bottlerocket", "Windows2022",
    "In", "NotIn", "Exists", "Gt", "Lt", "Gte", "Lte", "interface", "efa-only", "memory.available",
    "nodefs.available", "cpu", "memory", "pods", "eks:eks-cluster-name", "kubernetes.io/cluster/x",
    "karpenter.k8s.aws/ec2nodeclass", "karpenter.sh/nodeclaim", "windows2025@latest", "windows2019@latest",
    "5m", "10%",
)


def _rules(crds: Crds) -> list[tuple[str, str, dict[str, Any]]]:
    """(kind, rule text, schema node) for every distinct non-transition rule of the four CRDs."""
    found: dict[tuple[str, str], dict[str, Any]] = {}

    def walk(kind: str, schema: Any) -> None:
        if isinstance(schema, dict):
            for rule in schema.get("x-kubernetes-validations", []) or []:
                found.setdefault((kind, rule["rule"]), schema)
            for value in schema.values():
                walk(kind, value)
        elif isinstance(schema, list):
            for value in schema:
                walk(kind, value)

    for (_api_version, kind), crd in sorted(crds.items()):
        if kind in KINDS:
            walk(kind, crd["schema"])
    return [(kind, text, schema) for (kind, text), schema in found.items()
            if not _cel.compile_rule(text, "celpy").transition]


def _sample(schema: dict[str, Any], rng: random.Random, depth: int = 0) -> Any:
    """A value for `schema`, often valid, sometimes not (with its required fields, as CEL only runs then)."""
    if schema.get("enum") and rng.random() < 0.7:
        return rng.choice(schema["enum"])
    kind = schema.get("type") or ("int-or-string" if schema.get("x-kubernetes-int-or-string") else "object")
    if kind == "int-or-string":
        return rng.choice([rng.randint(-2, 10), rng.choice(STRINGS)])
    if kind == "string":
        return rng.choice(STRINGS)
    if kind == "integer":
        return rng.choice([-1, 0, 1, 2, 3, 5, 100])
    if kind == "number":
        return rng.choice([0, 1.5, 50, 85.0, 90])
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "array":
        items = schema.get("items") or {"type": "string"}
        size = rng.choice([0, 1, 1, 2, 3]) if depth < 4 else 0
        value = [_sample(items, rng, depth + 1) for _ in range(size)]
        if value and rng.random() < 0.2:
            value.append(value[0])  # duplicates matter to the network-interface rules
        return value
    props: dict[str, Any] = schema.get("properties", {})
    extra = schema.get("additionalProperties")
    out: dict[str, Any] = {}
    required = set(schema.get("required", []))  # the server runs CEL only when these are present
    for key, sub in props.items():
        if key in required or (depth < 5 and rng.random() < 0.55):
            out[key] = _sample(sub, rng, depth + 1)
    if isinstance(extra, dict):
        for _ in range(rng.choice([0, 1, 2, 3])):
            out[rng.choice(STRINGS)] = _sample(extra, rng, depth + 1)
    return out


def _verdict(text: str, backend: str, value: Any, schema: dict[str, Any]) -> tuple[str, Any]:
    compiled = _cel.compile_rule(text, backend)
    assert compiled.error is None, (backend, text, compiled.error)
    result, error = _cel.run(compiled, _cel_lib.typed(value, schema))
    if error is not None:
        return "error", error
    return ("pass" if result else "fail") if isinstance(result, bool) else "non-bool", _cel_lib.type_name(result)


@pytest.mark.soak
def test_every_rule_gives_the_same_verdict_on_both_backends(crds: Crds) -> None:
    rules = _rules(crds)
    assert len({kind for kind, _, _ in rules}) == 4 and len(rules) > 60
    outcomes: dict[str, set[str]] = {}
    for index, (kind, text, schema) in enumerate(rules):
        rng = random.Random(index)
        values = {json.dumps(v, sort_keys=True): v for v in (_sample(schema, rng) for _ in range(SAMPLES_PER_RULE))}
        for compared, value in enumerate(values.values()):  # distinct ones only
            if compared >= AT_LEAST_PER_RULE and {"pass", "fail"} <= outcomes[text]:
                break
            native, fallback = (_verdict(text, b, value, schema) for b in BACKENDS)
            # The verdict always; the detail too unless both errored (an error inside `?:` or `&&`
            # propagates with a different chain of words on each backend; either way the rule rejects).
            same = native[0] == fallback[0] if native[0] == "error" else native == fallback
            assert same, f"{kind} rule {text!r} on self={value!r}: {native} vs {fallback}"
            outcomes.setdefault(text, set()).add(native[0])
    # The samples reach both sides of most rules (a rule that only ever passed would prove little).
    both = [text for text, seen in outcomes.items() if {"pass", "fail"} <= seen]
    assert len(both) >= 0.9 * len(outcomes), sorted(set(outcomes) - set(both))
    assert any("error" in seen for seen in outcomes.values())  # int("0x10") and friends


@pytest.mark.parametrize(("text", "value", "expected"), [
    ("self.find('^([^/]+)')", "karpenter.sh/nodepool", "karpenter.sh"),
    ("self.find('[0-9]+')", "abc", ""),
    ("self.split('@')", "al2023@v1", ["al2023", "v1"]),
    ("self.split('@', 2)", "a@b@c", ["a", "b@c"]),
    ("self.split('', 2)", "abc", ["a", "bc"]),
    ("self.split('@', 0)", "a@b", []),
    ("self.matches('^[a-zA-Z0-9]+@.+$')", "al2023@latest", True),
    ("self.matches('^a')", "ba", False),
    ("self.startsWith('-')", "-5", True),
    ("self.endsWith('karpenter.sh')", "x.karpenter.sh", True),
    ("int(self) >= 0", "+7", True),
    ("int(self)", " 5", "cannot convert ' 5' to int"),
    ("int(self)", "0x10", "cannot convert '0x10' to int"),
    ("int(self)", "1_000", "cannot convert '1_000' to int"),
    ("int(self)", "9223372036854775808", "int64 overflow converting '9223372036854775808'"),
    ("int( self ) == 3", "3", True),
    ("'int(x)' == self", "int(x)", True),  # a string literal is not a call
    ("self.find('(')", "a", "invalid regex '(' (missing ): ()"),
    ("self.missing == 1", {}, "no such member in mapping: 'missing'"),
    ("self.a.startsWith(self.b)", {"a": "x", "b": 1}, "no such overload"),
])
def test_kubernetes_functions_behave_the_same_on_both_backends(text: str, value: Any, expected: Any) -> None:
    for backend in BACKENDS:
        compiled = _cel.compile_rule(text, backend)
        assert compiled.error is None, (backend, compiled.error)
        result, error = _cel.run(compiled, value)
        assert (error if error is not None else result) == expected, backend


def test_int_calls_are_routed_only_where_they_are_calls() -> None:
    assert route_int("int(x) + int (y)") == "kgStrictInt(x) + kgStrictInt (y)"
    assert route_int("'int(' + \"int(\" + x.int() + y.intx(1)") == "'int(' + \"int(\" + x.int() + y.intx(1)"
    assert route_int("int // int(\n") == "int // int(\n"


def test_broken_rules_read_the_same_on_both_backends() -> None:
    for text, error in [("self.a ==", "syntax error"), ("self.quantity() > 1", "undeclared reference to function(s) quantity")]:
        for backend in BACKENDS:
            compiled = _cel.compile_rule(text, backend)
            assert compiled.program is None and compiled.error.startswith(error), (backend, compiled.error)
    for backend in BACKENDS:
        compiled = _cel.compile_rule("size(self)", backend)
        result, error = _cel.run(compiled, "abc")
        assert error is None and _cel_lib.type_name(result) == "int"


def test_transition_rules_are_recognised_on_both_backends() -> None:
    for backend in BACKENDS:
        assert _cel.compile_rule("self.group == oldSelf.group", backend).transition
        assert not _cel.compile_rule("self.all(x, x != 'oldSelf')", backend).transition


def _findings(backend: str, monkeypatch: pytest.MonkeyPatch, fn: Any) -> Any:
    monkeypatch.setenv(_cel.BACKEND_ENV, backend)
    assert _cel.backend().name == backend
    return fn()


def test_validate_gives_the_same_findings_on_both_backends(monkeypatch: pytest.MonkeyPatch, crds: Crds,
                                                           tmp_path: Path) -> None:
    manifests = [m for m in VALID.values()] + [m for m, _ in INVALID.values()] + list(CEL_VALID.values()) + [
        m for m, _ in CEL_INVALID.values()]
    per_object = {b: _findings(b, monkeypatch, lambda: [validate_manifest(m, crds, file="x") for m in manifests])
                  for b in BACKENDS}
    assert per_object["cel-expr-python"] == per_object["celpy"]
    assert sum(f.code == "KG302" for fs in per_object["celpy"] for f in fs) >= len(CEL_INVALID)
    crd_dir = find_crds_dir()
    assert crd_dir is not None
    for folder in (ROOT / "dist", ROOT / "tests" / "fixtures" / "seeds"):
        reports = {b: _findings(b, monkeypatch, lambda folder=folder: validate_dir(folder, crd_dir)) for b in BACKENDS}
        assert reports["cel-expr-python"] == reports["celpy"], folder


def test_fails_when_the_backend_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(_cel.BACKEND_ENV, "cel-go")
    with pytest.raises(KarpenterGpuError) as err:
        _cel.backend()
    assert err.value.code == "KG330" and err.value.value == "cel-go"


def test_fails_when_the_named_backend_is_not_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> Any:
        raise ImportError(name)

    monkeypatch.setattr(_cel, "_backend", missing)
    monkeypatch.setenv(_cel.BACKEND_ENV, "cel-expr-python")
    with pytest.raises(KarpenterGpuError) as err:
        _cel.backend()
    assert err.value.code == "KG331"


def test_cli_reports_a_bad_backend_in_one_coded_line(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture,
                                                    tmp_path: Path) -> None:
    from karpenter_gpu.cli.main import main

    monkeypatch.setenv(_cel.BACKEND_ENV, "cel-go")
    (tmp_path / "pool.yaml").write_text(yaml.safe_dump(VALID["minimal"] if "minimal" in VALID else next(iter(VALID.values()))))
    crd_dir = find_crds_dir()
    assert main(["validate", str(tmp_path), "--crds", str(crd_dir)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "KG330" in err[0]


def test_compiled_runtime_is_required_only_where_it_has_wheels() -> None:
    from packaging.requirements import Requirement

    text = (ROOT / "pyproject.toml").read_text()
    line = next(line for line in text.splitlines() if line.strip().startswith('"cel-expr-python'))
    requirement = Requirement(line.strip().rstrip(",").strip('"'))
    # Wheels of cel-expr-python 0.1.3 on PyPI: CPython 3.11-3.14, manylinux x86_64/aarch64, macOS x86_64/arm64,
    # Windows AMD64. Everywhere else only cel-python is installed, and the rules run on it.
    has_wheel = [("x86_64", "3.11"), ("aarch64", "3.12"), ("arm64", "3.13"), ("AMD64", "3.14")]
    no_wheel = [("ppc64le", "3.12"), ("s390x", "3.12"), ("ARM64", "3.12"), ("riscv64", "3.12"), ("x86_64", "3.15")]
    for machine, python in has_wheel + no_wheel:
        env = {"platform_machine": machine, "python_version": python}
        assert requirement.marker.evaluate(env) == ((machine, python) in has_wheel), env
    assert "cel-python" in text  # the fallback is always installed


def test_auto_falls_back_to_celpy_without_the_compiled_runtime(monkeypatch: pytest.MonkeyPatch) -> None:
    make = _cel._make

    def no_wheel(name: str) -> Any:
        if name == "cel-expr-python":
            raise ImportError("No module named 'cel_expr_python'")
        return make(name)

    monkeypatch.setattr(_cel, "_make", no_wheel)
    monkeypatch.delenv(_cel.BACKEND_ENV, raising=False)
    _cel._auto.cache_clear()
    _cel._backend.cache_clear()
    try:
        assert _cel.backend().name == "celpy"
    finally:
        _cel._auto.cache_clear()
        _cel._backend.cache_clear()


def test_a_self_no_backend_can_convert_fails_every_rule_of_its_node() -> None:
    """`self` is converted once per node (bound), and a value CEL has no type for still fails each rule."""
    import datetime

    from karpenter_gpu.apiserver._problems import _Problems

    schema = {"type": "object", "x-kubernetes-preserve-unknown-fields": True,
              "x-kubernetes-validations": [{"rule": "self.size() > 0"}, {"rule": "has(self.a)"}]}
    for backend in BACKENDS:
        problems: _Problems = _Problems()
        _cel.validate({"a": datetime.date(2024, 1, 2)}, schema, "spec", problems, [], _cel.backend(backend))
        assert [(p.path, p.message.split(":")[0]) for p in problems] == [("spec", "CEL evaluation error")] * 2, backend


def test_a_node_with_only_transition_rules_is_not_keyed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The outcome memo's key (the repr of `self`) is made only when a rule runs."""
    from karpenter_gpu.apiserver._problems import _Problems

    def refuse(*args: Any, **kwargs: Any) -> str:
        raise AssertionError("self was keyed")

    monkeypatch.setattr(_cel, "value_repr", refuse)
    schema = {"type": "object", "x-kubernetes-preserve-unknown-fields": True,
              "x-kubernetes-validations": [{"rule": "self.a == oldSelf.a"}]}
    skipped: list[str] = []
    _cel.validate({"a": "transition-only"}, schema, "", _Problems(), skipped)
    assert skipped == ["<root>: transition rule (oldSelf) not evaluated on create (rule: self.a == oldSelf.a)"]
