"""Python source for manifest data: every string through ``repr``, so no input text can end a literal, open a
comment or run code; the layout is readable (short containers on one line, long ones one item a line, multi-line
strings one line a piece)."""

from __future__ import annotations

import math
from typing import Any

#: Containers whose one-line form is longer than this are written one item a line.
WIDTH = 100
INDENT = "    "


def literal(value: Any, level: int = 0) -> str:
    """``value`` (YAML data: mappings, lists, strings, numbers, booleans, null) as a Python expression."""
    flat = _flat(value)
    if len(flat) + len(INDENT) * level <= WIDTH and "\n" not in flat:
        return flat
    pad, inner = INDENT * level, INDENT * (level + 1)
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f"{inner}{_string(str(k)) if isinstance(k, str) else _flat(k)}: {literal(v, level + 1)},"
                 for k, v in value.items()]
        return "{\n" + "\n".join(items) + f"\n{pad}}}"
    if isinstance(value, list):
        if not value:
            return "[]"
        return "[\n" + "\n".join(f"{inner}{literal(v, level + 1)}," for v in value) + f"\n{pad}]"
    if isinstance(value, str):
        return _long_string(value, level)
    return flat


def _flat(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_flat(k)}: {_flat(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flat(v) for v in value) + "]"
    if isinstance(value, str):
        return _string(value)
    if value is None or isinstance(value, bool | int):
        return repr(value)
    if isinstance(value, float):
        if math.isnan(value):
            return 'float("nan")'
        if math.isinf(value):
            return 'float("inf")' if value > 0 else 'float("-inf")'
        return repr(value)
    raise TypeError(f"not YAML data: {type(value).__name__}")


def _string(text: str) -> str:
    return repr(text)


def _long_string(text: str, level: int) -> str:
    """A long string as adjacent literals in parentheses: one per line of the text, long lines cut in pieces."""
    pieces: list[str] = []
    for line in text.splitlines(keepends=True) or [text]:
        while len(line) > WIDTH - 20:
            cut = line.rfind(" ", 0, WIDTH - 20) + 1 or WIDTH - 20  # after a space when there is one
            pieces.append(line[:cut])
            line = line[cut:]
        if line:
            pieces.append(line)
    if len(pieces) < 2:
        return _string(text)
    inner = INDENT * (level + 1)
    return "(\n" + "\n".join(f"{inner}{_string(p)}" for p in pieces) + f"\n{INDENT * level})"
