"""The compiled CEL backend: cel-expr-python, the CEL project's C++ runtime (cel-cpp).

Private to :mod:`karpenter_gpu.apiserver._cel` (the choice of runtime is explained there). Rules are
parsed and type-checked once with `self` as `dyn`, and evaluated in C++ (~15 µs each). Only the
standard library is loaded; Kubernetes' `find`, `split` and `int` are the shared Python functions of
``_cel_lib`` registered as CEL functions, so they behave as on the celpy backend:

- `int()`: cel-cpp's built-in `int(string)` also accepts surrounding whitespace (" 5"), which cel-go's
  `strconv.ParseInt` rejects, and a built-in overload cannot be replaced ("overload signature
  collision"). So calls of the global `int(...)` in a rule's source are routed to ``_cel_lib.to_int``
  under another name before compiling (string literals and comments are left alone; `x.int()` is not
  the global function).
- `split` is declared here rather than taken from cel-cpp's strings extension, which would also add
  functions (`lowerAscii`, `join`, ...) that the celpy backend lacks: a rule calling them fails to
  compile on both backends alike.
"""

from __future__ import annotations

import re
from typing import Any

from cel_expr_python import cel

from karpenter_gpu.apiserver import _cel_lib
from karpenter_gpu.apiserver._cel_lib import CelFunctionError

_INT = "kgStrictInt"  # what `int(` is renamed to (a name no CEL library uses)


def _fn(impl: Any) -> Any:
    def call(*args: Any) -> Any:
        try:
            return impl(*args)
        except CelFunctionError as ex:
            raise ValueError(str(ex)) from None  # cel-cpp turns a Python exception into a CEL error
    return call


def _extension() -> Any:
    string, dyn, integer = cel.Type.STRING, cel.Type.DYN, cel.Type.INT
    strings = cel.Type.List(string)
    return cel.CelExtension("karpenter_gpu.kubernetes", [
        cel.FunctionDecl("find", [cel.Overload("kg_string_find_string", string, [string, string], is_member=True,
                                               impl=_fn(_cel_lib.find))]),
        cel.FunctionDecl("split", [
            cel.Overload("kg_string_split_string", strings, [string, string], is_member=True,
                         impl=_fn(_cel_lib.split)),
            cel.Overload("kg_string_split_string_int", strings, [string, string, integer], is_member=True,
                         impl=_fn(_cel_lib.split)),
        ]),
        cel.FunctionDecl(_INT, [cel.Overload("kg_strict_int_dyn", integer, [dyn], is_member=False,
                                             impl=_fn(_cel_lib.to_int))]),
    ])


class NativeBackend:
    name = "cel-expr-python"

    def __init__(self) -> None:
        self._env = cel.NewEnv(variables={"self": cel.Type.DYN}, extensions=[_extension()])
        self._transition_env: Any = None  # `self` and `oldSelf`: made on the first transition rule

    def compile(self, text: str) -> tuple[Any, str | None, bool]:
        """(program or None, error, transition)."""
        try:
            return self._env.compile(route_int(text)), None, False
        except Exception as ex:  # cel-cpp raises RuntimeError with every parse/check error
            message = str(ex)
        # Only `self` is declared, so a rule that needs `oldSelf` is a transition rule: checked (not
        # run) with `oldSelf` declared too, so it reports its own errors, if any.
        if any(name == "oldSelf" or name.startswith("oldSelf.") for name in _UNDECLARED.findall(message)):
            if self._transition_env is None:
                self._transition_env = cel.NewEnv(variables={"self": cel.Type.DYN, "oldSelf": cel.Type.DYN},
                                                  extensions=[_extension()])
            try:
                return self._transition_env.compile(route_int(text)), None, True
            except Exception as ex:
                return None, _compile_error(str(ex), text), True
        return None, _compile_error(message, text), False

    def bind(self, self_value: Any) -> Any:
        """`self` converted to CEL values once (an activation), for every rule on one node: the conversion costs
        ten times an evaluation. A value CEL has no type for converts to an error each rule returns."""
        return self._env.Activation(data={"self": self_value})

    def evaluate(self, program: Any, bound: Any) -> tuple[Any, str | None]:
        """(plain Python result, error)."""
        try:
            result = program.eval(activation=bound)
        except Exception as ex:  # an odd result; still not a pass
            return None, f"{type(ex).__name__}: {str(ex).strip()[:300]}"
        kind = result.type()
        if kind == cel.Type.ERROR:
            return None, _eval_error(str(result.value()))
        if kind == cel.Type.BOOL:
            return bool(result.value()), None
        if kind == cel.Type.UINT:
            return _cel_lib.Uint(result.value()), None
        if kind == cel.Type.BYTES:
            return bytes(result.value()), None
        return result.plain_value(), None


# --- the global int() renamed, outside string literals and comments ------------------------------

_TOKEN = re.compile(
    r"""(?P<string>[rRbB]{0,2}(?:'''(?:\\.|[^\\])*?'''|\"\"\"(?:\\.|[^\\])*?\"\"\"|'(?:\\.|[^\\'\n])*'|"(?:\\.|[^\\"\n])*"))"""
    r"""|(?P<comment>//[^\n]*)"""
    r"""|(?P<ident>[_A-Za-z][_A-Za-z0-9]*)"""
    r"""|(?P<other>\s+|.)""",
    re.DOTALL,
)


def route_int(text: str) -> str:
    """`text` with every call of the global `int(...)` calling the cel-go-exact conversion instead."""
    out: list[str] = []
    last = ""  # the previous significant token
    for match in _TOKEN.finditer(text):
        token = match.group(0)
        if match.lastgroup == "ident" and token == "int" and last != "." and _next_is_paren(text, match.end()):
            token = _INT
        out.append(token)
        if match.lastgroup != "other" or not token.isspace():
            last = token
    return "".join(out)


def _next_is_paren(text: str, at: int) -> bool:
    rest = text[at:].lstrip()
    return rest.startswith("(")


# --- errors in the words the celpy backend uses -----------------------------------------------------

_STATUS = re.compile(r"^[A-Z_]+: ")
_UNDECLARED = re.compile(r"undeclared reference to '([^']+)'")


def _compile_error(message: str, text: str) -> str:
    lines = [line for line in message.splitlines() if "ERROR: <input>" in line] or [message]
    first = re.sub(r"^.*?ERROR: <input>:\d+:\d+: ", "", _STATUS.sub("", lines[0])).strip()
    if first.startswith("Syntax error: "):
        return f"syntax error: {first[len('Syntax error: '):]}"[:300]
    names = sorted(set(_UNDECLARED.findall(message)) - {_INT})
    if names:
        functions = [n for n in names if re.search(rf"\b{re.escape(n)}\s*\(", text)]
        variables = [n for n in names if n not in functions]
        parts = ([f"function(s) {', '.join(functions)}"] if functions else []) + variables
        return f"undeclared reference to {', '.join(parts)}"
    return f"type error: {first}"[:300]


def _eval_error(message: str) -> str:
    text = _STATUS.sub("", message.strip())
    missing = re.fullmatch(r'Key not found in map : "(.*)"', text)
    if missing:
        return f"no such member in mapping: {missing.group(1)!r}"
    if text.startswith("No matching overloads found"):
        return "no such overload"
    return text[:300]
