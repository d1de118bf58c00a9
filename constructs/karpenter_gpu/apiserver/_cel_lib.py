"""What every CEL backend shares: `self` as the API server types it, and Kubernetes' CEL functions.

Private to :mod:`karpenter_gpu.apiserver._cel`. Both backends (``_cel_native`` and ``_cel_celpy``) call
these functions, so `find`, `split` and `int` behave the same whichever runs the rule; they take
and return plain Python values and raise :class:`CelFunctionError` for a CEL error.

- `<string>.find(<regex>)`: the first RE2 match, or "" (Kubernetes regex library,
  k8s.io/apiserver/pkg/cel/library/regex.go `find`);
- `<string>.split(<sep>[, <limit>])`: Go `strings.Split`/`SplitN` (cel-go ext/strings.go `split`,
  which Kubernetes enables);
- `int(<value>)`: cel-go's conversion: strings parse base 10 only (`strconv.ParseInt(s, 10, 64)`,
  so no "0x1f", " 5" or "1_000"), doubles truncate within int64, bools are no overload.
"""

from __future__ import annotations

import math
import re
from typing import Any

import re2

from karpenter_gpu.k8s.int64 import MAX as INT64_MAX
from karpenter_gpu.k8s.int64 import MIN as INT64_MIN
from karpenter_gpu.k8s.int64 import int64_of

Schema = dict[str, Any]

_DECIMAL = re.compile(r"[+-]?[0-9]+")


class CelFunctionError(Exception):
    """A CEL evaluation error raised by one of the functions here; its text is the finding's."""


def find(text: Any, pattern: Any) -> str:
    """Kubernetes regex library: `<string>.find(<string>) -> <string>`, the first match or ""."""
    if not (isinstance(text, str) and isinstance(pattern, str)):
        raise CelFunctionError("no such overload: find")
    try:
        match = re2.search(pattern, text)
    except re2.error as ex:
        detail = ex.args[0] if ex.args else ex
        detail = detail.decode(errors="replace") if isinstance(detail, bytes) else detail
        raise CelFunctionError(f"invalid regex {pattern!r} ({detail})") from None
    return match.group(0) if match else ""


def split(text: Any, sep: Any, limit: Any = None) -> list[str]:
    """`<string>.split(<string>[, <int>]) -> <list<string>>` with Go's strings.SplitN semantics."""
    if not (isinstance(text, str) and isinstance(sep, str)) or not (
        limit is None or (isinstance(limit, int) and not isinstance(limit, bool))
    ):
        raise CelFunctionError("no such overload: split")
    if limit == 0:
        return []
    if sep == "":  # Go splits into UTF-8 sequences; the last one takes the rest
        if limit is None or limit < 0 or limit >= len(text):
            return list(text)
        return [*text[: limit - 1], text[limit - 1 :]]
    return text.split(sep) if limit is None or limit < 0 else text.split(sep, limit - 1)


def to_int(value: Any) -> int:
    """`int()` as in cel-go (see the module docstring)."""
    if isinstance(value, bool):
        raise CelFunctionError("no such overload: int(bool)")
    if isinstance(value, int):
        number = value
    elif isinstance(value, str):
        if not _DECIMAL.fullmatch(value):
            raise CelFunctionError(f"cannot convert {value!r} to int")
        parsed = int64_of(value)  # never int() of thousands of digits (Python refuses beyond 4,300)
        if parsed is None:
            raise CelFunctionError(f"int64 overflow converting {value!r}")
        number = parsed
    elif isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise CelFunctionError(f"cannot convert {value!r} to int")
        number = int(value)  # truncates toward zero, as Go's int64(float64)
    else:
        raise CelFunctionError(f"no such overload: int({type(value).__name__})")
    if not INT64_MIN <= number <= INT64_MAX:
        raise CelFunctionError(f"int64 overflow converting {value!r}")
    return number


def typed(value: Any, schema: Schema) -> Any:
    """`self` as the API server hands it to CEL, in plain Python: fields it would prune are dropped,
    values of `type: number` are doubles (a YAML `1` is 1.0 there), everything else as read."""
    if isinstance(value, dict):
        props: dict[str, Schema] = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        keep_unknown = schema.get("x-kubernetes-preserve-unknown-fields") or extra is True
        out: dict[Any, Any] = {}
        for key, child in value.items():
            if key in props:
                out[key] = typed(child, props[key])
            elif isinstance(extra, dict):
                out[key] = typed(child, extra)
            elif keep_unknown:
                out[key] = child
        return out
    if isinstance(value, list):
        items = schema.get("items")
        item_schema: Schema = items if isinstance(items, dict) else {}
        return [typed(item, item_schema) for item in value]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if schema.get("type") == "number" or (isinstance(value, float) and not value.is_integer()):
            return float(value)
        return int(value)
    return value


class Uint(int):
    """A CEL `uint` result (a plain int is a CEL `int`), so a rule's result type reads the same on every backend."""


def type_name(value: Any) -> str:
    """The CEL type name of a backend's plain-Python result."""
    for kind, name in ((bool, "bool"), (Uint, "uint"), (int, "int"), (float, "double"), (str, "string"),
                       (bytes, "bytes"), (list, "list"), (dict, "map"), (type(None), "null_type")):
        if isinstance(value, kind):
            return name
    return type(value).__name__
