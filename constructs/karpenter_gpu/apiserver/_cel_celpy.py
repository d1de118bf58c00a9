"""The pure-Python CEL backend: cel-python (`celpy`), a tree-walking interpreter.

Private to :mod:`karpenter_gpu.apiserver._cel`: the fallback wherever the compiled runtime has no wheel
(see that module's docstring). It installs everywhere and is ~100x slower per evaluation.
cel-python is dynamically typed, so the names a rule calls are checked against the functions
both backends provide here, at compile time, instead of by a type checker.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import celpy
import lark
from celpy import celtypes
from celpy.evaluation import CELEvalError, base_functions

from karpenter_gpu.apiserver import _cel_lib
from karpenter_gpu.apiserver._cel_lib import CelFunctionError

# cel-python logs every failed function call at ERROR level; the problem is reported by _cel instead.
logging.getLogger("celpy").setLevel(logging.CRITICAL)

_MACROS = frozenset({"has", "all", "exists", "exists_one", "map", "filter"})
# The celpy built-ins that cel-expr-python's standard library has too: a rule that calls anything
# else does not compile on either backend (the same verdict everywhere).
_STANDARD = frozenset(
    {"size", "matches", "startsWith", "endsWith", "contains", "string", "double", "uint", "bool", "bytes",
     "timestamp", "duration", "type", "dyn", "getDate", "getDayOfMonth", "getDayOfWeek", "getDayOfYear",
     "getFullYear", "getHours", "getMilliseconds", "getMinutes", "getMonth", "getSeconds"}
) & frozenset(base_functions)


def _wrap(fn: Any) -> Any:
    def call(*args: Any) -> Any:
        if any(isinstance(a, CELEvalError) for a in args):
            return next(a for a in args if isinstance(a, CELEvalError))
        try:
            return _to_celpy(fn(*[_plain(a) for a in args]))
        except CelFunctionError as ex:
            return CELEvalError(str(ex), CelFunctionError, None)
    return call


FUNCTIONS: dict[str, Any] = {"find": _wrap(_cel_lib.find), "split": _wrap(_cel_lib.split),
                             "int": _wrap(_cel_lib.to_int)}
KNOWN_FUNCTIONS = _STANDARD | frozenset(FUNCTIONS) | _MACROS


class CelpyBackend:
    name = "celpy"

    def __init__(self) -> None:
        self._env = celpy.Environment()

    def compile(self, text: str) -> tuple[Any, str | None, bool]:
        """(program or None, error, transition)."""
        try:
            ast = self._env.compile(text)
        except Exception as ex:  # CELParseError, and lark errors it does not wrap
            return None, f"syntax error: {_first_line(ex)}", "oldSelf" in text
        idents, calls = _names(ast)
        unknown = sorted(calls - KNOWN_FUNCTIONS)
        if unknown:
            return None, f"undeclared reference to function(s) {', '.join(unknown)}", "oldSelf" in idents
        return self._env.program(ast, functions=FUNCTIONS), None, "oldSelf" in idents

    def bind(self, self_value: Any) -> Any:
        """`self` converted to celpy values once, for every rule on one node (or why it cannot be: each rule
        reports it)."""
        try:
            return {"self": _to_celpy(self_value)}
        except Exception as ex:  # noqa: BLE001 - raised again, and reported, by every evaluation
            return _Unconvertible(ex)

    def evaluate(self, program: Any, bound: Any) -> tuple[Any, str | None]:
        """(plain Python result, error)."""
        try:
            if isinstance(bound, _Unconvertible):
                raise bound.error
            result = program.evaluate(bound)
        except CELEvalError as ex:
            return None, _eval_error(ex)
        except Exception as ex:  # an interpreter bug is still not a pass
            return None, f"{type(ex).__name__}: {_first_line(ex)}"
        if isinstance(result, CELEvalError):
            return None, _eval_error(result)
        return _plain(result), None


class _Unconvertible:
    """A `self` that :func:`_to_celpy` refused, and why."""

    def __init__(self, error: Exception) -> None:
        self.error = error


def _to_celpy(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, bool):
        return celtypes.BoolType(value)
    if isinstance(value, int):
        return celtypes.IntType(value)
    if isinstance(value, float):
        return celtypes.DoubleType(value)
    if isinstance(value, str):
        return celtypes.StringType(value)
    if isinstance(value, dict):
        return celtypes.MapType({_to_celpy(k): _to_celpy(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return celtypes.ListType([_to_celpy(v) for v in value])
    return celpy.json_to_cel(value)


def _plain(value: Any) -> Any:
    """celtypes -> plain Python, keeping the CEL kind (bool before int, uint apart from int)."""
    if isinstance(value, celtypes.BoolType):
        return bool(value)
    if isinstance(value, celtypes.UintType):
        return _cel_lib.Uint(int(value))
    if isinstance(value, celtypes.IntType):
        return int(value)
    if isinstance(value, celtypes.DoubleType):
        return float(value)
    if isinstance(value, celtypes.StringType):
        return str(value)
    if isinstance(value, celtypes.BytesType):
        return bytes(value)
    if isinstance(value, celtypes.MapType):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, celtypes.ListType):
        return [_plain(v) for v in value]
    return value


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
