"""CEL evaluation of a CRD's `x-kubernetes-validations` rules, as kube-apiserver does on create.

Private to :mod:`karpenter_gpu.apiserver.conformance`. The rules run on one of two backends behind the
same small interface (``compile(text)``, ``evaluate(program, self)``):

- **cel-expr-python** (``_cel_native``), the CEL project's C++ runtime (cel-cpp): ~15 µs per
  evaluation, rules parsed and type-checked once. Installed by pyproject.toml only where PyPI has a
  wheel for it (environment markers: Linux/macOS x86_64 and arm64, Windows AMD64; CPython 3.11-3.14);
- **cel-python** (``_cel_celpy``), pure Python: installs everywhere, ~1-3 ms per evaluation. The
  fallback where the compiled runtime is not installed or fails to import.

Choice (December 2026, from what PyPI offers; see BENCHMARKS.md for the figures): cel-expr-python
over `common-expression-language` (Rust, cel-interpreter). Both have Linux x86_64 and aarch64 wheels
now. For cel-expr-python: it is the CEL project's own runtime with a real type checker (a mistyped
rule fails to compile, as in cel-go), it has no dependencies, and evaluation is ~2x faster. Against
it: 16 MB wheels, glibc >= 2.27 (x86_64) / 2.26 (aarch64), no musl (Alpine) and no sdist, so pip
cannot build it where no wheel fits -- and markers cannot tell musl from glibc, so on Alpine install
with ``--no-deps`` plus the other requirements, or use a glibc image. The Rust package pulls in a CLI
stack (typer, rich, prompt-toolkit: ~0.15 s of import on every validate) and has an sdist that needs a
Rust toolchain, and its dynamically typed interpreter differs from cel-go in more corners.

``KARPENTER_GPU_CEL=celpy`` forces the fallback (``cel-expr-python`` forces the compiled one);
unset, the compiled one is used when it imports. Kubernetes' `find`, `split` and strict `int()` are
one implementation (``_cel_lib``) called by both backends, and a differential test
(tests/test_cel_backends.py) runs every non-transition rule of the Karpenter CRDs on both over
valid and invalid values and asserts the same verdicts; `validate` gives the same findings on both.

As on the server: each rule runs with `self` bound to the (defaulted, pruned) value at its schema
node, and only when that value is present and not null; objects and maps are CEL maps, arrays are
lists, int-or-string values are ints or strings. Rules that mention `oldSelf` are transition rules
and are not run on create (they are reported through `skipped`). A rule that fails to compile,
calls an unknown function, errors, or does not return a bool is reported as a problem, never passed;
their messages use the same words on both backends for syntax errors, unknown functions, missing
map keys, overloads, result types and the errors of the Kubernetes functions.

Standard CEL the CRDs use: `has()`, `all/exists/filter`, `size()`, `in`, `matches` (RE2,
unanchored), `startsWith`, `endsWith`, `?:`.

Not covered: the cost budget / estimated-cost limits, `optionalOldSelf` rules (reported as problems),
`format: date-time`/`duration` strings as CEL timestamps/durations, `reason`, and Kubernetes library
functions these CRDs do not use (quantity, url, ip, cidr, lists.*, format, ...). Broken rules can
differ between backends beyond those words: cel-python has no type checker, so `c ? 'x' : 1` fails
to compile only on cel-expr-python, and an undeclared variable is a compile error there but an
evaluation error on cel-python; both are problems (KG302) either way.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import Any, Protocol

from karpenter_gpu.apiserver import _cel_lib
from karpenter_gpu.apiserver._schema_walk import CONTAINERS
from karpenter_gpu.apiserver._problems import _Problems, _join
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.perf import OwnerCache, Store, SubtreeCache, cached, once, value_repr

Schema = dict[str, Any]

#: Environment variable choosing the backend: "celpy", "cel-expr-python", or unset/"auto".
BACKEND_ENV = "KARPENTER_GPU_CEL"


class Backend(Protocol):
    """What a CEL runtime provides: compile once per rule text, evaluate with `self`."""

    name: str

    def __hash__(self) -> int:  # backends key the per-rule caches
        ...

    def compile(self, text: str) -> tuple[Any, str | None, bool]:
        """(program or None, error text, whether the rule is a transition rule)."""

    def bind(self, self_value: Any) -> Any:
        """`self_value` (plain Python from `_cel_lib.typed`) converted for this runtime once, for every rule on
        one node."""

    def evaluate(self, program: Any, bound: Any) -> tuple[Any, str | None]:
        """(the result as plain Python, error text); ``bound`` is what :meth:`bind` made of `self`."""


def _make(name: str) -> Backend:
    if name == "celpy":
        from karpenter_gpu.apiserver._cel_celpy import CelpyBackend

        return CelpyBackend()
    if name == "cel-expr-python":
        from karpenter_gpu.apiserver._cel_native import NativeBackend

        return NativeBackend()
    raise KarpenterGpuError("KG330", prop=BACKEND_ENV, value=name, allowed="cel-expr-python, celpy or auto",
                            fix=f"unset {BACKEND_ENV} (the compiled runtime when installed, else celpy) or name one")


def backend(name: str | None = None) -> Backend:
    """The backend named (or in $KARPENTER_GPU_CEL): by default the compiled one if it imports, else celpy."""
    name = name or os.environ.get(BACKEND_ENV) or "auto"
    if name == "auto":
        return _backend(_auto())
    try:
        return _backend(name)
    except ImportError as ex:
        raise KarpenterGpuError("KG331", prop=BACKEND_ENV, value=name, allowed=", ".join(available()),
                                fix=f"pip install cel-expr-python (wheels: see pyproject.toml), or unset {BACKEND_ENV}"
                                ) from ex


@once
def _backend(name: str) -> Backend:
    return _make(name)


@once
def _auto() -> str:
    try:
        _backend("cel-expr-python")
    except ImportError:  # no wheel for this platform: the pure-Python fallback
        return "celpy"
    return "cel-expr-python"


def available() -> list[str]:
    """The backends that import here."""
    names = []
    for name in ("cel-expr-python", "celpy"):
        try:
            _backend(name)
        except ImportError:
            continue
        names.append(name)
    return names


@dataclass(frozen=True, eq=False)
class Compiled:
    """One compiled rule (or message expression): a runnable program or why there is none."""

    program: Any
    error: str | None
    transition: bool  # mentions oldSelf
    backend: Backend


def compile_rule(text: str, backend_name: str | None = None) -> Compiled:
    """Compile a CEL expression once per distinct text and backend; unknown functions are compile errors too."""
    return _compile(text, backend(backend_name))


@cached()
def _compile(text: str, runtime: Backend) -> Compiled:
    program, error, transition = runtime.compile(text)
    return Compiled(program, error, transition, runtime)


def run(compiled: Compiled, self_value: Any) -> tuple[Any, str | None]:
    """Evaluate a compiled rule with `self` (plain Python, see `_cel_lib.typed`); returns (result, error text)."""
    return _run_bound(compiled, compiled.backend.bind(self_value))


def _run_bound(compiled: Compiled, bound: Any) -> tuple[Any, str | None]:
    """:func:`run`, with `self` already bound by the rule's backend."""
    assert compiled.program is not None
    result, error = compiled.backend.evaluate(compiled.program, bound)
    if error is not None and error.startswith("no such overload"):
        error = "no such overload"  # the backends name the argument types differently
    return result, error


# Rule outcomes by (backend, rule, repr of `self`): rules are pure, and GPU pools repeat the same
# requirements, taints and budgets, so most evaluations are repeats (celpy costs ~3 ms per run). The repr tells
# apart every value the YAML loader builds (see :class:`~karpenter_gpu.perf.SubtreeCache`); the same object written in another key order only
# misses.
_OUTCOMES = Store(entries=100_000)


class _Self:
    """`self` for one schema node, converted to CEL only when a rule actually has to run."""

    def __init__(self, value: Any, schema: Schema, text: str | None = None) -> None:
        self.value, self.schema, self._cel = value, schema, None
        self._bound: tuple[Backend, Any] | None = None
        if text is not None:  # the repr the subtree memo made already
            self.key = text

    @functools.cached_property
    def key(self) -> str:
        """The value's repr (:func:`~karpenter_gpu.perf.value_repr`), the outcome memo's key (made only when
        a rule runs: not for a node whose rules are all transition rules)."""
        return value_repr(self.value)

    def cel(self) -> Any:
        if self._cel is None:
            self._cel = _cel_lib.typed(self.value, self.schema)
        return self._cel

    def bound(self, runtime: Backend) -> Any:
        """`self` bound by ``runtime`` (:meth:`Backend.bind`), once for all the rules of the node."""
        if self._bound is None or self._bound[0] is not runtime:
            self._bound = (runtime, runtime.bind(self.cel()))
        return self._bound[1]


def _outcome(compiled: Compiled, text: str, self_: _Self) -> tuple[Any, str | None]:
    key = (compiled.backend.name, text, self_.key)
    known: tuple[Any, str | None] | None = _OUTCOMES.get(key)
    if known is None:
        try:
            self_.cel()
        except (ValueError, OverflowError) as ex:  # e.g. an integer outside int64: CEL has no value for it
            why = (str(ex).strip().splitlines() or [type(ex).__name__])[0][:200]
            known = (None, f"value has no CEL equivalent ({why}): integers must fit int64")
        else:
            known = _run_bound(compiled, self_.bound(compiled.backend))
        _OUTCOMES.put(key, known)
    return known


def validate(value: Any, schema: Schema, path: str, problems: _Problems, skipped: list[str],
             runtime: Backend | None = None) -> None:
    """Evaluate every x-kubernetes-validations rule under `schema` whose value is present."""
    if value is None or not isinstance(schema, dict) or not _rules_below(schema):
        return
    runtime = runtime or backend()  # chosen once per object, not per rule
    if path and type(value) in CONTAINERS and value:
        key = _CLEAN_TREES.key(schema, value, runtime)
        notes = _CLEAN_TREES.notes(key)
        if notes is not None:  # the same subtree under the same node passed before: only its skipped rules recur
            skipped.extend(path + note for note in notes)
            return
        before, noted = len(problems), len(skipped)
        _validate_here(value, schema, path, problems, skipped, runtime, key[2])
        if len(problems) == before:
            _CLEAN_TREES.put_clean(key, schema, tuple(note[len(path):] for note in skipped[noted:]))
        return
    _validate_here(value, schema, path, problems, skipped, runtime)


#: Non-empty objects and arrays whose rules all passed under a schema node, by backend (below the root).
_CLEAN_TREES = SubtreeCache()


def _validate_here(value: Any, schema: Schema, path: str, problems: _Problems, skipped: list[str],
                   runtime: Backend, text: str | None = None) -> None:
    """The rules of ``schema`` on ``value``, then those below it (:func:`validate`'s walk, without the memo);
    ``text``: the value's repr, when the memo made it."""
    rules = schema.get("x-kubernetes-validations")
    if rules:
        self_ = _Self(value, schema, text)
        for rule in rules:
            _apply(rule, self_, path, problems, skipped, runtime)
    if isinstance(value, dict):
        props, extra = schema.get("properties", {}), schema.get("additionalProperties")
        extra = extra if isinstance(extra, dict) else None
        for key, child in value.items():
            sub = props.get(key, extra)
            if sub and _rules_below(sub):  # checked here too: no path is built for a subtree without rules
                validate(child, sub, _join(path, key), problems, skipped, runtime)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        items = schema["items"]
        if _rules_below(items):
            for index, item in enumerate(value):
                validate(item, items, f"{path}[{index}]", problems, skipped, runtime)


# Whether a schema node or anything under it has rules, by node: most of an object (metadata, labels,
# tags, ...) has none, and the walk skips it. Holds the node too, so an id is never reused meanwhile.
_RULES_BELOW = OwnerCache(owners=1 << 16)


def _rules_below(schema: Schema) -> bool:
    known: bool | None = _RULES_BELOW.get(schema)
    if known is not None:
        return known
    children = [*schema.get("properties", {}).values(), schema.get("additionalProperties"), schema.get("items")]
    found = bool(schema.get("x-kubernetes-validations")) or any(
        _rules_below(child) for child in children if isinstance(child, dict))
    return bool(_RULES_BELOW.put(schema, found))


def _apply(rule: dict[str, Any], self_: _Self, path: str, problems: _Problems, skipped: list[str],
           runtime: Backend) -> None:
    text = str(rule.get("rule", ""))
    here = path or "<root>"
    compiled = _compile(text, runtime)
    if compiled.transition:
        if rule.get("optionalOldSelf"):
            problems.add("KG302", here, "cannot evaluate optionalOldSelf transition rule on create", rule=text)
        else:
            skipped.append(f"{here}: transition rule (oldSelf) not evaluated on create (rule: {text})")
        return
    if compiled.error:
        problems.add("KG302", here, f"CEL compile error: {compiled.error}", rule=text)
        return
    result, error = _outcome(compiled, text, self_)
    if error:
        problems.add("KG302", here, f"CEL evaluation error: {error}", rule=text)
    elif not isinstance(result, bool):
        problems.add("KG302", here, f"CEL rule returned {_cel_lib.type_name(result)}, not bool", rule=text)
    elif not result:
        field_path = str(rule.get("fieldPath") or "")
        if field_path:
            here = f"{path}{field_path}" if path else field_path.lstrip(".")
        problems.add("KG302", here, _message(rule, self_, runtime), rule=text, violated=True)


def _message(rule: dict[str, Any], self_: _Self, runtime: Backend) -> str:
    # As on the server: a messageExpression that yields a non-empty string wins, else `message`,
    # else the rule text.
    expression = rule.get("messageExpression")
    if expression:
        compiled = _compile(str(expression), runtime)
        if compiled.program is not None and not compiled.transition:
            result, error = _run_bound(compiled, self_.bound(runtime))
            if error is None and isinstance(result, str) and result.strip():
                return str(result)
    return str(rule.get("message") or rule.get("rule", ""))
