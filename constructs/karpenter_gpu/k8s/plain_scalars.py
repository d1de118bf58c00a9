"""Plain YAML scalars as kubectl, the API server and Helm read them: go-yaml v2's YAML 1.1, not PyYAML's.

They read YAML with sigs.k8s.io/yaml over go-yaml v2 (:func:`resolve_plain`): an unquoted ``y`` or ``0o10`` is a
boolean or a number, a date, ``1:20`` or ``=`` a string. The loader (:mod:`~karpenter_gpu.k8s.yaml_loader`) reads
every plain scalar this way on both of its paths (the event pass, and :func:`go_loader` for the node path); the
writer (:mod:`~karpenter_gpu.k8s.yaml_writer`) quotes every string go-yaml v2 would read as another type.
"""

from __future__ import annotations

import math
import re
from typing import Any

from yaml.nodes import ScalarNode

#: The go-yaml v2 ``resolveTable`` hints: a plain scalar whose first character is none of these is a string
#: (:data:`GO_FIRST`).
_GO_SIGN, _GO_DIGITS, _GO_IN_MAP = "+-", "0123456789", "yYnNtTfFoO~"
GO_FIRST = frozenset(_GO_SIGN + _GO_DIGITS + _GO_IN_MAP + ".")
#: go-yaml v2 ``resolveMapList`` ("<<" leaves out: its first character has no hint, so resolve() never looks it up).
_GO_MAP: dict[str, Any] = {
    **dict.fromkeys(("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    **dict.fromkeys(("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
    **dict.fromkeys(("", "~", "null", "Null", "NULL"), None),
    **dict.fromkeys((".nan", ".NaN", ".NAN"), float("nan")),
    **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), float("inf")),
    **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), float("-inf")),
}
#: go-yaml v2 ``yamlStyleFloat`` (Go's regexp: ``$`` is the end of the text, ``[0-9]`` ASCII only).
_GO_YAML_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
#: What Go's ``strconv.ParseFloat`` reads of a text that starts with ".": digits, an exponent, and underscores
#: only between digits (``underscoreOK``).
_GO_DOT_FLOAT = re.compile(r"\.[0-9]+(_[0-9]+)*([eE][-+]?[0-9]+(_[0-9]+)*)?")
_UINT64_LIMIT, _INT64_LIMIT = 1 << 64, 1 << 63


def _go_parse_uint(text: str, base: int) -> int | None:
    """Go's ``strconv.ParseUint(text, base, 64)`` for a text without underscores (go-yaml removes them first):
    base 0 takes the prefixes 0b/0B, 0o/0O, 0x/0X and a leading 0 (octal); no sign; None on any error."""
    if not text:
        return None
    if base == 0:
        base = 10
        if text[0] == "0":
            prefix = text[1:2].lower() if len(text) >= 3 else ""
            if prefix and prefix in "box":
                base, text = {"b": 2, "o": 8, "x": 16}[prefix], text[2:]
            else:
                base, text = 8, text[1:]
    value = 0
    for char in text:
        if "0" <= char <= "9":
            digit = ord(char) - 48
        elif "a" <= char <= "z" or "A" <= char <= "Z":
            digit = ord(char.lower()) - 87
        else:
            return None
        if digit >= base:
            return None
        value = value * base + digit
        if value >= _UINT64_LIMIT:  # ErrRange (and a long text costs at most 64 digits)
            return None
    return value


def _go_parse_int(text: str, base: int) -> int | None:
    """Go's ``strconv.ParseInt(text, base, 64)``: one optional sign, then :func:`_go_parse_uint`, int64's range."""
    negative = text[:1] == "-"
    value = _go_parse_uint(text[1:] if text[:1] in _GO_SIGN else text, base)
    if value is None or value > _INT64_LIMIT or (value == _INT64_LIMIT and not negative):
        return None
    return -value if negative else value


def _go_parse_float(text: str) -> float | None:
    """Go's ``strconv.ParseFloat(text, 64)`` for a text go-yaml has matched: None when it overflows (ErrRange)."""
    value = float(text)
    return None if math.isinf(value) else value


def resolve_plain(text: str) -> Any:
    """What kubectl, the API server and Helm make of the plain (unquoted, untagged) scalar ``text``.

    They read YAML with sigs.k8s.io/yaml, which decodes into ``interface{}`` with go-yaml v2 (gopkg.in/yaml.v2 and
    its continuation go.yaml.in/yaml/v2, whose ``resolve.go`` is the same from v2.4.0 to v2.4.3): this is
    ``resolve("", text)`` of ``resolve.go`` followed by ``decoder.scalar`` into an interface. Its YAML 1.1 is not
    PyYAML's: ``y``, ``Y``, ``n``, ``N`` are booleans; ``0o10``, ``0X1F``, ``0B11``, ``1e3``, ``08`` and
    ``99999999999999999999`` are numbers (Go's ``strconv.ParseInt(s, 0, 64)``, ``ParseUint`` and ``ParseFloat``
    after removing every ``_``); while dates and times stay strings (``decode.go`` sets a timestamp's text into an
    interface, "for backward compatibility"), and sexagesimal ``1:20``, ``=`` and ``<<`` (as a value) are strings
    (base 60 is "purposefully unsupported"; the other two have no hint). A number beyond float64's range is a
    string too (``ParseFloat`` fails with ErrRange). The result is a ``str``, ``bool``, ``int``, ``float`` or None.
    """
    hint = text[:1]
    if hint and hint not in GO_FIRST:
        return text
    if text in _GO_MAP:
        return _GO_MAP[text]
    if hint in _GO_IN_MAP:
        return text
    if hint == ".":
        return _go_parse_float(text.replace("_", "")) if _GO_DOT_FLOAT.fullmatch(text) else text
    # 'D' and 'S': a timestamp (four digits and '-') reads as its own text; then int, uint, float, 0b forms.
    plain = text.replace("_", "")
    number: int | float | None = _go_parse_int(plain, 0)
    if number is None:
        number = _go_parse_uint(plain, 0)
    if number is None and _GO_YAML_FLOAT.fullmatch(plain):
        number = _go_parse_float(plain)
    if number is None and plain.startswith("0b"):  # a sign after the prefix: "0b-101" is -5
        number = _go_parse_int(plain[2:], 2)
        if number is None:
            number = _go_parse_uint(plain[2:], 2)
    elif number is None and plain.startswith("-0b"):
        number = _go_parse_int("-" + plain[3:], 2)
    return text if number is None else number


def go_reads_as_string(text: str) -> bool:
    """Whether ``text`` written plain (unquoted) reads back as this very string under go-yaml v2."""
    return type(resolve_plain(text)) is str


#: The YAML tag of a string.
STR_TAG = "tag:yaml.org,2002:str"
#: The YAML tag of each type :func:`resolve_plain` returns.
GO_TAGS: dict[type, str] = {str: STR_TAG, bool: "tag:yaml.org,2002:bool",
                            int: "tag:yaml.org,2002:int", float: "tag:yaml.org,2002:float",
                            type(None): "tag:yaml.org,2002:null"}
#: PyYAML's tag of a plain ``<<`` key (merged by PyYAML's composer, as go-yaml's decoder merges it).
MERGE_TAG = "tag:yaml.org,2002:merge"
_GO_LOADERS: dict[type, Any] = {}


def go_loader(base: Any) -> Any:
    """``base`` (a PyYAML loader class) reading plain scalars as :func:`resolve_plain` does, for the node path.

    Its resolver gives a plain scalar the tag of the type go-yaml v2 reads (``<<`` stays a merge key: go-yaml's
    decoder merges a plain ``<<`` key); the bool, int, float and null constructors take :func:`resolve_plain`'s
    value for a plain scalar of that type, and PyYAML's own for any other (``!!int '7'``). Tagged scalars
    (``!!str``, ``!!binary``, ``!!timestamp``) keep PyYAML's constructors.
    """
    if base in _GO_LOADERS:
        return _GO_LOADERS[base]

    def resolve(self: Any, kind: type, value: str, implicit: tuple[bool, bool]) -> str:
        if kind is ScalarNode and implicit[0]:
            return MERGE_TAG if value == "<<" else GO_TAGS[type(resolve_plain(value))]
        return base.resolve(self, kind, value, implicit)

    made: Any = type(f"GoYaml{base.__name__}", (base,), {"resolve": resolve, "__doc__": go_loader.__doc__})
    for tag in ("bool", "int", "float", "null"):
        long = f"tag:yaml.org,2002:{tag}"
        made.add_constructor(long, _go_constructor(base.yaml_constructors[long]))
    made.add_constructor(MERGE_TAG, lambda loader, node: node.value)  # a plain "<<" that is not a key: a string
    _GO_LOADERS[base] = made
    return made


def _go_constructor(pyyaml: Any) -> Any:
    def construct(loader: Any, node: ScalarNode) -> Any:
        if not node.style:  # plain: None from PyYAML's parser, "" from LibYAML's
            value = resolve_plain(node.value)
            if GO_TAGS[type(value)] == node.tag:
                return value
        return pyyaml(loader, node)
    return construct
