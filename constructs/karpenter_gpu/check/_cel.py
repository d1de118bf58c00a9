"""CEL evaluation of a CRD's `x-kubernetes-validations` rules, as kube-apiserver does on create.

Private to :mod:`karpenter_gpu.check.conformance`. Rules are evaluated with the pure-Python
`cel-python` package (pinned in pyproject.toml), plus the few Kubernetes CEL library functions
the Karpenter v1.14.1 CRDs call that it lacks:

- `<string>.find(<regex>)`: the first RE2 match, or "" (Kubernetes regex library);
- `<string>.split(<sep>[, <limit>])`: Go `strings.Split`/`SplitN` semantics (Kubernetes strings library);
- `int(<string>)`: replaced by a strict version -- base-10 only, as cel-go's `strconv.ParseInt`
  (cel-python also accepts "0x1f", " 5" and "1_000").

Standard CEL that cel-python already provides and the CRDs use: `has()`, `all/exists/exists_one/
filter/map`, `size()`, `in`, `matches` (RE2, unanchored), `startsWith`, `endsWith`, `?:`.

As on the server: each rule runs with `self` bound to the (defaulted, pruned) value at its schema
node, and only when that value is present and not null; objects and maps are CEL maps, arrays are
lists, int-or-string values are ints or strings. Rules that mention `oldSelf` are transition rules
and are not run on create (they are reported through `skipped`). A rule that fails to parse, calls
an unknown function, errors, or does not return a bool is reported as a problem, never passed.

Not covered: compile-time type checking against the schema (cel-python is dynamically typed, so
e.g. a misspelt field surfaces only when evaluated), the cost budget / estimated-cost limits,
`optionalOldSelf` rules (reported as problems: cel-python has no optional types), `format:
date-time`/`duration` strings as CEL timestamps/durations, `reason`, and Kubernetes library
functions these CRDs do not use (quantity, url, ip, cidr, lists.*, format, ...).
"""

from __future__ import annotations

import functools
import json
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import celpy
import lark
import re2
from celpy import celtypes
from celpy.evaluation import CELEvalError, base_functions

from karpenter_gpu.check.conformance import _Problems, _join

Schema = dict[str, Any]

# cel-python logs every failed function call at ERROR level; the problem is reported here instead.
logging.getLogger("celpy").setLevel(logging.CRITICAL)

_MACROS = frozenset({"has", "all", "exists", "exists_one", "map", "filter"})
_INT64 = (-(2**63), 2**63 - 1)
_DECIMAL = re.compile(r"[+-]?[0-9]+")


def _find(text: Any, pattern: Any) -> Any:
    """Kubernetes regex library: `<string>.find(<string>) -> <string>`, the first match or ""."""
    if not (isinstance(text, str) and isinstance(pattern, str)):
        return CELEvalError("no such overload: find", TypeError, (text, pattern))
    try:
        match = re2.search(pattern, text)
    except re2.error as ex:
        return CELEvalError(f"invalid regex {str(pattern)!r}", type(ex), None)
    return celtypes.StringType(match.group(0) if match else "")


def _split(text: Any, sep: Any, limit: Any = None) -> Any:
    """Kubernetes strings library: `<string>.split(<string>[, <int>]) -> <list<string>>` (Go semantics)."""
    if not (isinstance(text, str) and isinstance(sep, str)) or not (limit is None or isinstance(limit, int)):
        return CELEvalError("no such overload: split", TypeError, (text, sep, limit))
    if limit == 0:
        parts: list[str] = []
    elif sep == "":  # Go splits into UTF-8 sequences; the last one takes the rest
        parts = list(text) if limit is None or limit < 0 or limit >= len(text) else [
            *text[: limit - 1], text[limit - 1 :]
        ]
    else:
        parts = text.split(sep) if limit is None or limit < 0 else text.split(sep, limit - 1)
    return celtypes.ListType([celtypes.StringType(p) for p in parts])


def _int(value: Any) -> Any:
    """`int()` as in cel-go: strings parse base 10 only (strconv.ParseInt(s, 10, 64))."""
    if isinstance(value, CELEvalError):
        return value
    if isinstance(value, str):
        if not _DECIMAL.fullmatch(value):
            return CELEvalError(f"cannot convert {str(value)!r} to int", ValueError, None)
        number = int(value)
        if not _INT64[0] <= number <= _INT64[1]:
            return CELEvalError(f"int64 overflow converting {str(value)!r}", OverflowError, None)
        return celtypes.IntType(number)
    return celtypes.IntType(value)


FUNCTIONS: dict[str, Any] = {"find": _find, "split": _split, "int": _int}
KNOWN_FUNCTIONS = frozenset(base_functions) | frozenset(FUNCTIONS) | _MACROS

_ENV = celpy.Environment()


@dataclass(frozen=True)
class Compiled:
    """One compiled rule (or message expression): a runnable program or why there is none."""

    program: celpy.Runner | None
    error: str | None
    transition: bool  # mentions oldSelf


@functools.cache
def compile_rule(text: str) -> Compiled:
    """Parse a CEL expression once per distinct text; unknown functions are compile errors too."""
    try:
        ast = _ENV.compile(text)
    except Exception as ex:  # CELParseError, and lark errors it does not wrap
        return Compiled(None, f"syntax error: {_first_line(ex)}", False)
    idents, calls = _names(ast)
    unknown = sorted(calls - KNOWN_FUNCTIONS)
    if unknown:
        return Compiled(None, f"undeclared reference to function(s) {', '.join(unknown)}", "oldSelf" in idents)
    return Compiled(_ENV.program(ast, functions=FUNCTIONS), None, "oldSelf" in idents)


def _names(ast: lark.Tree) -> tuple[set[str], set[str]]:
    """Free identifiers and called function/method names in a parsed expression."""
    idents: set[str] = set()
    calls: set[str] = set()
    for node in _subtrees(ast):
        tokens = [c for c in node.children if isinstance(c, lark.Token)]
        if node.data == "ident" and tokens:
            idents.add(str(tokens[0]))
        elif node.data in ("ident_arg", "dot_ident_arg", "member_dot_arg") and tokens:
            calls.add(str(tokens[0]))
    return idents, calls


def _subtrees(tree: lark.Tree) -> Iterator[lark.Tree]:
    yield tree
    for child in tree.children:
        if isinstance(child, lark.Tree):
            yield from _subtrees(child)


def to_cel(value: Any, schema: Schema) -> Any:
    """The CEL value of `value` typed by its structural schema (fields the server prunes are dropped)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return celtypes.BoolType(value)
    if isinstance(value, dict):
        props: dict[str, Schema] = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        keep_unknown = schema.get("x-kubernetes-preserve-unknown-fields") or extra is True
        out: dict[Any, Any] = {}
        for key, child in value.items():
            if key in props:
                out[celtypes.StringType(key)] = to_cel(child, props[key])
            elif isinstance(extra, dict):
                out[celtypes.StringType(key)] = to_cel(child, extra)
            elif keep_unknown:
                out[celtypes.StringType(key)] = celpy.json_to_cel(child)
        return celtypes.MapType(out)
    if isinstance(value, list):
        item_schema = schema.get("items")
        items = item_schema if isinstance(item_schema, dict) else {}
        return celtypes.ListType([to_cel(item, items) for item in value])
    if isinstance(value, str):
        return celtypes.StringType(value)
    if isinstance(value, (int, float)):
        if schema.get("type") == "number" or (isinstance(value, float) and not value.is_integer()):
            return celtypes.DoubleType(value)
        return celtypes.IntType(int(value))
    return celpy.json_to_cel(value)


def run(compiled: Compiled, self_value: Any) -> tuple[Any, str | None]:
    """Evaluate a compiled rule with `self`; returns (result, error text)."""
    assert compiled.program is not None
    try:
        result = compiled.program.evaluate({"self": self_value})
    except CELEvalError as ex:
        return None, _eval_error(ex)
    except Exception as ex:  # an interpreter bug is still not a pass
        return None, f"{type(ex).__name__}: {_first_line(ex)}"
    if isinstance(result, CELEvalError):
        return None, _eval_error(result)
    return result, None


# Rule outcomes by (rule, canonical JSON of `self`): rules are pure, and GPU pools repeat the same
# requirements, taints and budgets, so most evaluations are repeats (celpy costs ~3 ms per run).
_OUTCOMES: dict[tuple[str, str], tuple[Any, str | None]] = {}
_MAX_OUTCOMES = 100_000


class _Self:
    """`self` for one schema node, converted to CEL only when a rule actually has to run."""

    def __init__(self, value: Any, schema: Schema) -> None:
        self.value, self.schema, self._cel = value, schema, None
        self.key = json.dumps(value, sort_keys=True, default=str)

    def cel(self) -> Any:
        if self._cel is None:
            self._cel = to_cel(self.value, self.schema)
        return self._cel


def _outcome(compiled: Compiled, text: str, self_: _Self) -> tuple[Any, str | None]:
    key = (text, self_.key)
    if key not in _OUTCOMES:
        if len(_OUTCOMES) >= _MAX_OUTCOMES:
            _OUTCOMES.clear()
        _OUTCOMES[key] = run(compiled, self_.cel())
    return _OUTCOMES[key]


def validate(value: Any, schema: Schema, path: str, problems: _Problems, skipped: list[str]) -> None:
    """Evaluate every x-kubernetes-validations rule under `schema` whose value is present."""
    if value is None or not isinstance(schema, dict):
        return
    rules = schema.get("x-kubernetes-validations") or []
    if rules:
        self_ = _Self(value, schema)
        for rule in rules:
            _apply(rule, self_, path, problems, skipped)
    if isinstance(value, dict):
        props, extra = schema.get("properties", {}), schema.get("additionalProperties")
        for key, child in value.items():
            sub = props.get(key, extra if isinstance(extra, dict) else None)
            if sub:
                validate(child, sub, _join(path, key), problems, skipped)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            validate(item, schema["items"], f"{path}[{index}]", problems, skipped)


def _apply(rule: dict[str, Any], self_: _Self, path: str, problems: _Problems, skipped: list[str]) -> None:
    text = str(rule.get("rule", ""))
    here = path or "<root>"
    compiled = compile_rule(text)
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
    elif not isinstance(result, celtypes.BoolType):
        problems.add("KG302", here, f"CEL rule returned {type(result).__name__}, not bool", rule=text)
    elif not result:
        field_path = str(rule.get("fieldPath") or "")
        if field_path:
            here = f"{path}{field_path}" if path else field_path.lstrip(".")
        problems.add("KG302", here, _message(rule, self_.cel()), rule=text, violated=True)


def _message(rule: dict[str, Any], self_value: Any) -> str:
    # As on the server: a messageExpression that yields a non-empty string wins, else `message`,
    # else the rule text.
    expression = rule.get("messageExpression")
    if expression:
        compiled = compile_rule(str(expression))
        if compiled.program is not None and not compiled.transition:
            result, error = run(compiled, self_value)
            if error is None and isinstance(result, str) and result.strip():
                return str(result)
    return str(rule.get("message") or rule.get("rule", ""))


def _eval_error(error: CELEvalError) -> str:
    args = error.args
    text = str(args[0]) if args else repr(error)
    text = text.split(" (in activation", 1)[0].split(" (in container", 1)[0]
    cause = args[2] if len(args) > 2 else None
    if cause and not text.startswith("undeclared"):
        detail = cause[0] if isinstance(cause, tuple) and len(cause) == 1 else cause
        text = f"{text} ({detail!r})" if not isinstance(detail, str) else f"{text} ({detail})"
    return text[:300]


def _first_line(ex: BaseException) -> str:
    return (str(ex).strip().splitlines() or [type(ex).__name__])[0][:300]
