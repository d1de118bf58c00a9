"""The one manifest reader: folders, single files, stdin and git revisions, read the same way.

Every command that looks at manifests (``validate``, ``explain``, ``diff``) reads them here, so a file
is either seen by all of them or refused by all of them with a coded reason:

- Files: every ``*.yaml`` / ``*.yml`` under the folder, dot-files included (``kubectl apply -f -R`` reads
  them too); a git revision is listed with ``git ls-tree -z`` (no quoting of non-ASCII names) and read
  with one ``git cat-file --batch``, without a checkout (symbolic links followed inside the revision,
  submodules read at their recorded commit, a missing object refused: :func:`read_git`). ``values.yaml`` and ``*.values.yaml`` files are
  Helm values, not manifests.
- Environments: each top-level sub-folder is one environment (the layout of dist/); files directly in
  the folder (or a single file, or stdin) form the root environment, whose key is :data:`ROOT` whatever
  the folder is called, so two flat folders compare as one environment. A top-level ``helm/`` folder
  belongs to the root environment.
- Documents: ``kind: ...List`` objects are expanded into their items (kubectl decodes any object with
  ``items`` as a list: apimachinery ``unstructured.UnstructuredJSONScheme.decode``); empty documents are
  skipped; a document that is not a mapping (KG310), an object without apiVersion/kind (KG311), a
  duplicate mapping key (KG312: sigs.k8s.io/yaml decodes strictly and refuses it), the same
  (group, kind, namespace, name) twice in one environment (KG313) and a label or annotation value that is not a
  string (KG314) are :class:`Problem` findings.
- Hostile input is refused before anything walks it (:class:`~karpenter_gpu.errors.KarpenterGpuError`):
  files over :data:`MAX_FILE_BYTES` (KG906; every file, pipe and stdin is read by :func:`karpenter_gpu._fs.read_bounded`,
  never more than the bound), devices, sockets and pipes found in a folder (KG920: a committed ``x.yaml`` link to
  ``/dev/zero`` or a FIFO), alias expansion beyond the ratio that gopkg.in/yaml
  (``decode.go`` ``allowedAliasRatio``, used by sigs.k8s.io/yaml in kubectl and the API server) allows,
  and self-referencing anchors (KG904), nesting deeper than :data:`MAX_DEPTH` (KG905), unreadable
  (KG901) or non-UTF-8 (KG902) files and YAML syntax errors (KG903), folders nested deeper than
  :data:`MAX_FOLDER_DEPTH` (KG914), scalars Python cannot convert (KG915) and files of more than
  :data:`MAX_EVENTS` parser events (KG916): the cost of reading stays linear in the size and bounded.

YAML is parsed by the C LibYAML loader (``yaml.CSafeLoader``); the pure-Python ``SafeLoader`` is used only
where PyYAML was built without LibYAML. Both give the same data and the same findings. The data is built in
one pass over the parser's events (:func:`_read_events`), at a third of the cost of composing nodes; files
with merge keys or tagged collections are composed into nodes as PyYAML does, and the documents without
anchors among them turned into data by :func:`_construct_tree`. Plain scalars are read as kubectl, the API server and
Helm read them (sigs.k8s.io/yaml over go-yaml v2: :func:`resolve_plain`), not by PyYAML's YAML 1.1 resolver: an
unquoted ``y`` or ``0o10`` is a boolean or a number, a date, ``1:20`` or ``=`` a string; a label or annotation value
that is then not a string is a KG314 finding. :func:`dump` writes what go-yaml v2 reads back as the same strings.
"""

from __future__ import annotations

import math
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, BinaryIO, Iterable, Iterator

import yaml
from yaml.composer import ComposerError
from yaml.events import (AliasEvent, DocumentStartEvent, MappingEndEvent, MappingStartEvent, ScalarEvent,
                         SequenceEndEvent, SequenceStartEvent, StreamEndEvent)
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from karpenter_gpu._fs import read_bounded
from karpenter_gpu.errors import KarpenterGpuError, one_line
from karpenter_gpu.render import escape

if TYPE_CHECKING:
    import subprocess

#: The root environment's key: files directly in the folder, a single file, stdin.
ROOT = "."
SUFFIXES = (".yaml", ".yml")
VALUES_SUFFIX = ".values.yaml"
#: Folder of Helm values files inside an environment (never an environment of its own).
HELM_DIR = "helm"
#: A file larger than this is refused unread. The API server takes request bodies up to 3 MiB and etcd
#: objects up to 1.5 MiB; 16 MiB leaves room for many objects in one file (a ``kubectl get -o yaml``
#: dump of thousands of NodePools) and loads in about 3 s with LibYAML.
MAX_FILE_BYTES = 16 * 1024 * 1024
#: Deepest nesting accepted. Real manifests stay under 20 levels; the checks that walk a manifest
#: recurse, and Python's recursion limit (1000) needs headroom.
MAX_DEPTH = 100
#: Most YAML parser events (a scalar or alias is one, a mapping or sequence two: its start and end) read from
#: one file. Real manifests take about 10 bytes an event, so a 16 MiB dump of thousands of objects has about
#: 1.5 million; a file of tiny nodes (``[1,1,1,...]``, ``[[[[1]]]]``) is refused, counted by LibYAML without
#: building anything (under a second for 16 MiB), instead of being read for minutes.
MAX_EVENTS = 2_000_000
#: Most events of a file that needs PyYAML's composer (a merge key, a tagged mapping or sequence, a key that is
#: not a string: hand-written files), about three seconds of composing.
MAX_COMPOSED_EVENTS = 300_000
#: Deepest folder accepted below the input folder (dist/ is two levels deep: environment, helm/).
MAX_FOLDER_DEPTH = 64

Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def loader_name() -> str:
    return Loader.__name__


@dataclass(frozen=True)
class Problem:
    """A reader finding: the input can be read, but an object in it is malformed or ambiguous."""

    file: str
    kind: str
    name: str
    path: str
    code: str
    message: str

    def line(self) -> str:
        """One line: file, object and path are input text (escaped), the message is kept on one line."""
        where = f"{escape.plain(self.file, None)}: " if self.file else ""
        what = f"{escape.plain(self.kind)}/{escape.plain(self.name)}" if self.kind or self.name else "-"
        return f"{where}{what} {escape.plain(self.path or '-', None)}: error {self.code} {one_line(self.message)}"

    def error_text(self) -> str:
        """The same, as an error line of a command that stops on it: ``[KG311] file: kind/name path: ...``."""
        return f"[{self.code}] " + self.line().replace(f": error {self.code} ", ": ", 1)


@dataclass(frozen=True)
class Manifest:
    """One Kubernetes object and where it came from (``where``: ``items[3]`` inside a List, else "")."""

    file: str
    manifest: dict
    where: str = ""


@dataclass
class Environment:
    key: str  # ROOT, or the top-level sub-folder's name
    name: str  # display name: the folder's own name for ROOT
    manifests: list[Manifest] = field(default_factory=list)
    values: dict[str, dict] = field(default_factory=dict)  # Helm values by file name
    files: int = 0


@dataclass
class Source:
    """What was read: environments in name order, the reader's findings, and how many files."""

    label: str
    environments: list[Environment]
    problems: list[Problem]
    files: int

    def environment(self, key: str) -> Environment | None:
        return next((e for e in self.environments if e.key == key), None)


# ------------------------------------------------------------------------------------------- errors


def _refuse(code: str, file: str, value: Any, allowed: str, fix: str) -> KarpenterGpuError:
    return KarpenterGpuError(code, prop="file", value=value, allowed=allowed, fix=fix, path=file or "<stdin>")


# ------------------------------------------------------------------------------------------ parsing


def _allowed_alias_ratio(decoded: int) -> float:
    """gopkg.in/yaml v2/v3 ``decode.go`` ``allowedAliasRatio``: 99% up to 400k nodes, 10% from 4M, linear between."""
    low, high = 400_000, 4_000_000
    if decoded <= low:
        return 0.99
    if decoded >= high:
        return 0.10
    return 0.99 - 0.89 * (decoded - low) / (high - low)


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return node.value
    if isinstance(node, MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def _inspect(root: Node, file: str) -> None:
    """Refuse alias bombs, self-referencing anchors and deep nesting, without expanding anything.

    Aliases share their node, so the expanded size of every node is memoized: linear in the number of
    distinct nodes however large the expansion would be.
    """
    done: dict[int, tuple[int, int]] = {}  # id(node) -> (expanded size, depth)
    started: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        if finished:
            size, depth = 1, 0
            for child in _children(node):
                s, d = done[id(child)]
                size += s
                depth = max(depth, d)
            depth += 1
            if depth > MAX_DEPTH:
                raise _refuse("KG905", file, f"nesting deeper than {MAX_DEPTH} (line {node.start_mark.line + 1})",
                              f"at most {MAX_DEPTH} nested mappings/sequences",
                              "flatten the document; Kubernetes objects nest far less")
            done[key] = (size, depth)
            continue
        if key in done:
            continue
        if key in started:  # reached again while still being expanded: the anchor contains itself
            raise _refuse("KG904", file, f"anchor at line {node.start_mark.line + 1} contains itself",
                          "aliases to finished anchors only", "remove the recursive alias")
        started.add(key)
        stack.append((node, True))
        for child in _children(node):
            if id(child) in started and id(child) not in done:
                raise _refuse("KG904", file, f"anchor at line {child.start_mark.line + 1} contains itself",
                              "aliases to finished anchors only", "remove the recursive alias")
            if id(child) not in done:
                stack.append((child, False))
    _check_aliasing(file, len(done), done[id(root)][0])


def _check_aliasing(file: str, distinct: int, expanded: int) -> None:
    """KG904 when ``distinct`` nodes expand to ``expanded`` beyond the ratio gopkg.in/yaml allows."""
    aliased = expanded - distinct
    if aliased > 100 and expanded > 1000 and aliased / expanded > _allowed_alias_ratio(expanded):
        raise _refuse("KG904", file, f"{distinct} YAML nodes expanding to {expanded} through aliases",
                      "alias expansion within the ratio gopkg.in/yaml allows (sigs.k8s.io/yaml refuses "
                      "'document contains excessive aliasing')", "write the values out instead of aliasing them")


def _mapping_duplicates(node: MappingNode) -> list[tuple[str, int, int]]:
    out = []
    first: dict[tuple[str, str], int] = {}
    for k, _ in node.value:
        if isinstance(k, ScalarNode) and k.tag != "tag:yaml.org,2002:merge":
            ident = (k.tag, k.value)
            if ident in first:
                out.append((k.value, k.start_mark.line + 1, first[ident]))
            else:
                first[ident] = k.start_mark.line + 1
    return out


_STR, _MAP, _SEQ = "tag:yaml.org,2002:str", "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"


class _Unusual(Exception):
    """A node :func:`_construct_tree` leaves to PyYAML's constructor: a merge key, a key that is not a
    string, a tagged mapping or sequence."""


def _construct_tree(root: Node, loader: Any) -> Any:
    """What ``loader.construct_document(root)`` returns, for a document without anchors (a tree).

    Manifests are almost all string-keyed mappings, sequences and strings: those are built here directly,
    without PyYAML's per-node dispatch (half of the parse time); every other scalar (int, bool, null,
    timestamp, ...) goes through the loader's own constructor. Anything else falls back to the whole
    document through the loader, so the result is always PyYAML's (``tests/test_reader.py`` compares them).
    """
    try:
        return _plain(root, loader)
    except _Unusual:
        return loader.construct_document(root)
    finally:
        loader.constructed_objects = {}  # as construct_document leaves it


def _plain(node: Node, loader: Any) -> Any:
    kind = type(node)
    if kind is ScalarNode:
        return node.value if node.tag == _STR else _bounded(loader.construct_object(node))
    if kind is MappingNode and node.tag == _MAP:
        out = {}
        for key, value in node.value:
            if type(key) is not ScalarNode or key.tag != _STR:
                raise _Unusual
            out[key.value] = _plain(value, loader)  # a repeated key: the last wins, as in PyYAML
        return out
    if kind is SequenceNode and node.tag == _SEQ:
        return [_plain(child, loader) for child in node.value]
    raise _Unusual


def _check_tree(root: Node, file: str, shared: bool) -> list[tuple[str, int, int]]:
    """Duplicate keys as (key, line, first line), after refusing bombs and deep nesting.

    ``shared``: the text has anchors, so nodes may be shared and the memoized walk of :func:`_inspect`
    runs first; without anchors the nodes form a tree and one plain walk checks the depth.
    """
    if shared:
        _inspect(root, file)
    out: list[tuple[str, int, int]] = []
    seen: set[int] = set()
    stack: list[tuple[Node, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if shared:
            if id(node) in seen:
                continue
            seen.add(id(node))
        elif depth > MAX_DEPTH:
            raise _refuse("KG905", file, f"nesting deeper than {MAX_DEPTH} (line {node.start_mark.line + 1})",
                          f"at most {MAX_DEPTH} nested mappings/sequences",
                          "flatten the document; Kubernetes objects nest far less")
        if type(node) is MappingNode:
            pairs = node.value
            if len({k.value for k, _ in pairs if type(k) is ScalarNode}) != len(pairs):
                out.extend(_mapping_duplicates(node))
            for k, v in pairs:
                if type(v) is not ScalarNode:
                    stack.append((v, depth + 1))
                if type(k) is not ScalarNode:
                    stack.append((k, depth + 1))
        elif type(node) is SequenceNode:
            for child in node.value:
                if type(child) is not ScalarNode:
                    stack.append((child, depth + 1))
    return out


def decode(data: bytes, file: str) -> str:
    if len(data) > MAX_FILE_BYTES:
        raise _too_big(file, len(data))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as ex:
        raise _refuse("KG902", file, f"byte {ex.start}: {data[ex.start:ex.start + 4]!r}", "UTF-8 text",
                      "save the file as UTF-8") from None


def _too_big(file: str, size: int) -> KarpenterGpuError:
    return _refuse("KG906", file, f"{size} bytes", f"at most {MAX_FILE_BYTES} bytes per file",
                   "split the file; one object is at most 1.5 MiB in etcd")


def _scalar_error(file: str, index: int, ex: ValueError) -> KarpenterGpuError:
    """A scalar PyYAML resolves but Python cannot convert: an int of more than 4,300 digits, a date like 2024-13-45."""
    return _refuse("KG915", file, f"document {index + 1}: {ex}", "YAML scalars that are numbers, dates or strings "
                   "Kubernetes can read", "quote the value, or write a realistic one")


def _too_many_events(file: str, where: str) -> KarpenterGpuError:
    return _refuse("KG916", file, f"more than {MAX_EVENTS} YAML events ({where})",
                   f"at most {MAX_EVENTS} parser events per file (one per scalar, two per mapping or sequence)",
                   "split the file; a dump of thousands of objects stays far below the bound")


#: Most parser events one character of YAML makes (``?`` alone: a mapping, its null key and null value), with
#: room to spare; the densest texts found make one event a character.
_EVENTS_PER_CHAR = 4


def _count_events(text: str, file: str) -> None:
    """Refuse a stream of more than :data:`MAX_EVENTS` events before anything is built: LibYAML parses it
    without making a Python object (``CParser.raw_parse``). A text too short to hold that many events is not
    counted twice (the event pass of :func:`_read_events` counts as it goes, and stops at the bound too); nor is
    one the pure-Python loader reads, which has no such count."""
    if len(text) * _EVENTS_PER_CHAR + 16 <= MAX_EVENTS:
        return
    counter = Loader(text)
    try:
        raw_parse = getattr(counter, "raw_parse", None)
        events = raw_parse() if raw_parse is not None else 0
    finally:
        counter.dispose()
    if events > MAX_EVENTS:
        raise _too_many_events(file, f"{events} in all")


# ------------------------------------------------------------------ YAML 1.1 as kubectl and Helm read it

#: The go-yaml v2 ``resolveTable`` hints: a plain scalar whose first character is none of these is a string.
_GO_SIGN, _GO_DIGITS, _GO_IN_MAP = "+-", "0123456789", "yYnNtTfFoO~"
_GO_FIRST = frozenset(_GO_SIGN + _GO_DIGITS + _GO_IN_MAP + ".")
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
    if hint and hint not in _GO_FIRST:
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


_GO_TAGS: dict[type, str] = {str: "tag:yaml.org,2002:str", bool: "tag:yaml.org,2002:bool",
                             int: "tag:yaml.org,2002:int", float: "tag:yaml.org,2002:float",
                             type(None): "tag:yaml.org,2002:null"}
_GO_LOADERS: dict[type, Any] = {}


def _go_loader(base: Any) -> Any:
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
            return _MERGE if value == "<<" else _GO_TAGS[type(resolve_plain(value))]
        return base.resolve(self, kind, value, implicit)

    made: Any = type(f"GoYaml{base.__name__}", (base,), {"resolve": resolve, "__doc__": _go_loader.__doc__})
    for tag in ("bool", "int", "float", "null"):
        long = f"tag:yaml.org,2002:{tag}"
        made.add_constructor(long, _go_constructor(base.yaml_constructors[long]))
    made.add_constructor(_MERGE, lambda loader, node: node.value)  # a plain "<<" that is not a key: a string
    _GO_LOADERS[base] = made
    return made


def _go_constructor(pyyaml: Any) -> Any:
    def construct(loader: Any, node: ScalarNode) -> Any:
        if not node.style:  # plain: None from PyYAML's parser, "" from LibYAML's
            value = resolve_plain(node.value)
            if _GO_TAGS[type(value)] == node.tag:
                return value
        return pyyaml(loader, node)
    return construct


_NO_KEY = object()
_MERGE = "tag:yaml.org,2002:merge"
_DECIMAL_INT = re.compile(r"-?[1-9][0-9]{0,17}|0")  # what Go's ParseInt reads as int(text) itself


#: Plain scalar texts the resolver looked at, and their immutable data, by loader class (kept between files).
_RESOLVED: dict[type, dict[str, Any]] = {}
_MAX_RESOLVED = 1 << 14
_MAX_RESOLVED_TEXT = 256


def _read_events(loader: Any, file: str) -> list[tuple[Any, list[tuple[str, int, int]]]] | None:
    """(data, duplicate keys) of every document of the stream, built in one pass over the parser's events; None
    when a document needs PyYAML's composer, after the pass has counted every event (:data:`MAX_EVENTS`).

    Composing nodes costs PyYAML about ten microseconds a node (a Python resolver call and a node object for
    each, from the C parser), so a 14 MiB file of small nodes took a minute; from the events, a plain scalar
    whose first character starts no implicit type is a string at once, a decimal int an int, every other plain
    scalar is read by :func:`resolve_plain` (once per distinct text: keys repeat) and a tagged one by the loader's
    constructor, so the data is what the node path (:func:`_go_loader`) gives. Anchors and aliases share their data as PyYAML's do, and are checked as :func:`_inspect`
    checks nodes: an alias inside its own anchor (KG904), expansion beyond gopkg.in/yaml's ratio (KG904),
    nesting deeper than :data:`MAX_DEPTH` through aliases too (KG905). A tag on a mapping or sequence, a merge
    (``<<``) key and a key that is not a string are left to the node path.
    """
    first_chars = _GO_FIRST | {"<"}  # and "<<", a merge key
    get_event = loader.get_event
    docs: list[tuple[Any, list[tuple[str, int, int]]]] = []
    stack: list[list[Any]] = []  # open collections: [dict or list, pending key, {key: line} or None, anchor]
    # Plain scalar text -> its data, for the texts the resolver had to look at: a plain scalar's type depends on
    # its text alone, and files of one folder repeat the same keys and values.
    resolved = _RESOLVED.setdefault(type(loader), {})
    if len(resolved) > _MAX_RESOLVED:
        resolved.clear()
    # name -> [data, expanded size, height, open, line, distinct/extra/deepest when it opened]
    anchors: dict[str, list[Any]] = {}
    duplicates: list[tuple[str, int, int]] = []
    # Per document: distinct nodes, nodes added by alias expansion, deepest collection level reached.
    events = distinct = extra = deepest = 0
    unusual = False
    while True:
        event = get_event()
        kind = type(event)
        events += 1
        if events > MAX_EVENTS:
            raise _too_many_events(file, f"at line {event.start_mark.line + 1}")
        if unusual:
            if kind is StreamEndEvent:
                if events > MAX_COMPOSED_EVENTS:  # PyYAML's composer takes ten times as long an event
                    raise _refuse("KG916", file, f"{events} YAML events with a merge key, a tagged mapping or "
                                  "sequence, or a key that is not a string", f"at most {MAX_COMPOSED_EVENTS} "
                                  "events in such a file", "split the file, or write the merged keys out")
                return None
            continue
        if kind is ScalarEvent:
            distinct += 1
            value, tag = event.value, event.tag
            if tag is None or tag == "!":
                if not event.implicit[0] or (value and value[0] not in first_chars):
                    data = value
                elif value in resolved:
                    data = resolved[value]
                elif _DECIMAL_INT.fullmatch(value):
                    data = int(value)
                elif value == "<<":  # a merge key (a string elsewhere): PyYAML's composer merges
                    unusual = True
                    continue
                else:
                    data = resolve_plain(value)
                    if len(value) <= _MAX_RESOLVED_TEXT:  # a long text is kept only by its documents
                        resolved[value] = data
            else:
                data = _construct_scalar(loader, tag, event, file, len(docs))
            if event.anchor is not None:
                _anchor(anchors, event, [data, 1, 0, False, event.start_mark.line + 1])
        elif kind is MappingStartEvent or kind is SequenceStartEvent:
            if event.tag is not None and event.tag != "!":
                unusual = True
                continue
            distinct += 1
            mapping = kind is MappingStartEvent
            collection: Any = {} if mapping else []
            stack.append([collection, _NO_KEY, {} if mapping else None, event.anchor])
            level = len(stack)
            if level > deepest:
                deepest = level
                if level > MAX_DEPTH:
                    raise _too_deep(file, event.start_mark.line + 1)
            if event.anchor is not None:
                _anchor(anchors, event, [collection, 0, 0, True, event.start_mark.line + 1, distinct - 1, extra,
                                         deepest])
                deepest = level
            continue
        elif kind is MappingEndEvent or kind is SequenceEndEvent:
            data, _, _, anchor = stack.pop()
            if anchor is not None:  # its expanded size and height, for the aliases to it
                entry = anchors[anchor]
                entry[1:4] = distinct - entry[5] + extra - entry[6], deepest - len(stack), False
                deepest = max(deepest, entry[7])
        elif kind is AliasEvent:
            target = anchors.get(event.anchor)
            if target is None:
                raise ComposerError(None, None, f"found undefined alias {event.anchor!r}", event.start_mark)
            if target[3]:
                raise _refuse("KG904", file, f"anchor at line {target[4]} contains itself",
                              "aliases to finished anchors only", "remove the recursive alias")
            data = target[0]
            extra += target[1]
            reach = len(stack) + target[2]
            if reach > deepest:
                deepest = reach
                if reach > MAX_DEPTH:
                    raise _too_deep(file, event.start_mark.line + 1)
        elif kind is DocumentStartEvent:
            anchors, duplicates, distinct, extra, deepest = {}, [], 0, 0, 0
            continue
        elif kind is StreamEndEvent:
            return docs
        else:  # stream start, document end
            continue
        if not stack:  # the document's root
            if extra:
                _check_aliasing(file, distinct, distinct + extra)
            docs.append((data, duplicates))
            continue
        top = stack[-1]
        lines = top[2]
        if lines is None:
            top[0].append(data)
        elif top[1] is _NO_KEY:
            if type(data) is not str:  # PyYAML keys of other types (int, bool, null, a collection)
                unusual = True
                continue
            if data in lines:  # kubectl refuses it; PyYAML keeps the last value
                duplicates.append((data, event.start_mark.line + 1, lines[data]))
            else:
                lines[data] = event.start_mark.line + 1
            top[1] = data
        else:
            top[0][top[1]] = data
            top[1] = _NO_KEY


def _anchor(anchors: dict[str, list[Any]], event: Any, entry: list[Any]) -> None:
    if event.anchor in anchors:  # as PyYAML's composer
        raise ComposerError(None, None, f"found duplicate anchor {event.anchor!r}", event.start_mark)
    anchors[event.anchor] = entry


def _too_deep(file: str, line: int) -> KarpenterGpuError:
    return _refuse("KG905", file, f"nesting deeper than {MAX_DEPTH} (line {line})",
                   f"at most {MAX_DEPTH} nested mappings/sequences",
                   "flatten the document; Kubernetes objects nest far less")


#: Largest integer magnitude read (float64's range: Kubernetes' JSON decoding reads no larger number). A YAML 1.1
#: hex, octal or sexagesimal int has no digit limit in Python, and a larger one cannot even be printed.
_MAX_INT_BITS = 1024


def _bounded(value: Any) -> Any:
    """``value``, or ValueError for an int beyond float64's range (reported as KG915)."""
    if type(value) is int and value.bit_length() > _MAX_INT_BITS:
        raise ValueError(f"an integer of {value.bit_length()} bits, beyond any number Kubernetes decodes")
    return value


def _construct_scalar(loader: Any, tag: str, event: Any, file: str, index: int) -> Any:
    node = ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
    try:
        return _bounded(loader.construct_object(node))
    except ValueError as ex:
        raise _scalar_error(file, index, ex) from None
    finally:
        loader.constructed_objects.pop(node, None)


def load_documents(text: str, file: str) -> Iterator[tuple[int, Any, list[tuple[str, int, int]]]]:
    """(index, data, duplicate keys) for every document of ``text``; empty documents are skipped.

    One pass over the parser's events builds the data (:func:`_read_events`); a stream it leaves to PyYAML
    (anchors, tags on collections, merge keys, duplicate keys) is composed into nodes and checked as before.
    """
    try:
        _count_events(text, file)
        loader = _go_loader(Loader)(text)
        try:
            built = _read_events(loader, file)
        finally:
            loader.dispose()
        if built is not None:
            for index, (data, duplicates) in enumerate(built):
                yield index, data, duplicates
            return
        yield from _load_nodes(text, file)
    except yaml.YAMLError as ex:
        mark = getattr(ex, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        problem = getattr(ex, "problem", None) or str(ex)
        raise _refuse("KG903", file, f"{where}{problem}", "valid YAML", "fix the YAML syntax") from None
    except RecursionError:  # the pure-Python composer recurses per nesting level
        raise _refuse("KG905", file, "nesting too deep to parse", f"at most {MAX_DEPTH} nested levels",
                      "flatten the document") from None


def _load_nodes(text: str, file: str) -> Iterator[tuple[int, Any, list[tuple[str, int, int]]]]:
    """The node path: compose each document, refuse bombs and deep nesting, find duplicate keys, construct."""
    loader = _go_loader(Loader)(text)
    shared = "&" in text  # an alias needs an anchor: without one, the nodes form a tree
    index = -1
    try:
        while loader.check_node():
            node = loader.get_node()
            index += 1
            if node is None:
                continue
            duplicates = _check_tree(node, file, shared)
            try:
                data = loader.construct_document(node) if shared else _construct_tree(node, loader)
            except ValueError as ex:
                raise _scalar_error(file, index, ex) from None
            yield index, data, duplicates
    finally:
        loader.dispose()


def _identity(doc: dict) -> tuple[str, str]:
    meta = doc.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    return (doc["kind"] if isinstance(doc.get("kind"), str) else "", name if isinstance(name, str) else "")


def _objects(doc: Any, file: str, where: str, problems: list[Problem], out: list[Manifest], index: int = 0) -> None:
    """Append the object(s) in one document; Lists are expanded, malformed documents become problems."""
    label = where or f"<document {index + 1}>"
    if not isinstance(doc, dict):
        problems.append(Problem(file, "", "", label, "KG310",
                                f"a {_type_name(doc)} where a Kubernetes object (a mapping) was expected"))
        return
    api_version, kind = doc.get("apiVersion"), doc.get("kind")
    missing = [k for k, v in (("apiVersion", api_version), ("kind", kind)) if not isinstance(v, str) or not v]
    if isinstance(doc.get("items"), list) and isinstance(kind, str) and kind.endswith("List"):
        for i, item in enumerate(doc["items"]):
            _objects(item, file, f"{where}items[{i}]" if not where else f"{where}.items[{i}]", problems, out)
        return
    if missing:
        problems.append(Problem(file, *_identity(doc), label, "KG311",
                                f"{' and '.join(missing)} missing or not a non-empty string: not a Kubernetes "
                                "object (the API server refuses it)"))
        return
    out.append(Manifest(file, doc, where))
    _non_string_meta(doc, file, where, problems)


#: Where an object holds string-to-string metadata maps: its own, and a template's (NodePool, pod templates).
_META_PATHS = (("metadata",), ("spec", "template", "metadata"))


def _non_string_meta(doc: dict, file: str, where: str, problems: list[Problem]) -> None:
    """KG314 for a label or annotation value that go-yaml v2 reads as a boolean or a number (:func:`resolve_plain`:
    ``y``, ``on``, ``0o10``, ``1e3``): kubectl and Helm send it as one and the API server refuses the object (a
    label value must be a string). A null value is the empty string's zero value and not reported here."""
    for path in _META_PATHS:
        meta: Any = doc
        for step in path:
            meta = meta.get(step) if isinstance(meta, dict) else None
        if not isinstance(meta, dict):
            continue
        for kind in ("labels", "annotations"):
            values = meta.get(kind)
            if not isinstance(values, dict):
                continue
            for key, value in values.items():
                if isinstance(value, (bool, int, float)):
                    shown = str(value).lower() if isinstance(value, bool) else repr(value)
                    at = ".".join((*path, kind, str(key)))
                    problems.append(Problem(
                        file, *_identity(doc), f"{where}.{at}" if where else at, "KG314",
                        f"the {kind[:-1]} value is read as {_type_name(value)} {shown}: kubectl, Helm and the API "
                        "server read an unquoted y, n, yes, on, off, 0o10, 0x1F, 012 or 1e3 as YAML 1.1 (go-yaml v2) "
                        f"does, and refuse a {kind[:-1]} value that is not a string; write the value in quotes"))


def _type_name(value: Any) -> str:
    return {list: "list", str: "string", int: "number", float: "number", bool: "boolean",
            type(None): "null"}.get(type(value), type(value).__name__)


def _read_file(rel: str, data: bytes, problems: list[Problem]) -> tuple[list[Manifest], dict | None]:
    text = decode(data, rel)
    if is_values_file(rel):
        values: dict = {}
        for _, doc, dups in load_documents(text, rel):
            _duplicates(rel, "", "", dups, problems)
            if isinstance(doc, dict):
                values.update(doc)
            elif doc is not None:
                problems.append(Problem(rel, "", "", "<document>", "KG310",
                                        f"a {_type_name(doc)} where Helm values (a mapping) were expected"))
        return [], values
    manifests: list[Manifest] = []
    for index, doc, dups in load_documents(text, rel):
        if doc is None:  # an empty document (`---` at the end of a file)
            continue
        _objects(doc, rel, "", problems, manifests, index)
        kind, name = _identity(doc) if isinstance(doc, dict) else ("", "")
        _duplicates(rel, kind, name, dups, problems)
    return manifests, None


def is_values_file(rel: str) -> bool:
    """Helm values (``values.yaml``, ``<chart>.values.yaml``), not manifests: no apiVersion/kind expected."""
    name = rel.rpartition("/")[2]  # a relative POSIX path: its last part
    return name == "values.yaml" or name.endswith(VALUES_SUFFIX)


def _duplicates(rel: str, kind: str, name: str, dups: list[tuple[str, int, int]], problems: list[Problem]) -> None:
    for key, line, first in dups:
        problems.append(Problem(rel, kind, name, f"<line {line}>", "KG312",
                                f"duplicate key {key!r} (first at line {first}): kubectl and the API server refuse "
                                "it; PyYAML would silently keep the last one"))


# ----------------------------------------------------------------------------------- environments


def _environment_of(rel: str) -> str:
    top, slash, _ = rel.partition("/")  # a relative POSIX path: its first part
    if not slash or top == HELM_DIR:
        return ROOT
    return top


def _build(label: str, root_name: str, files: Iterable[tuple[str, bytes]], *, allow_empty: bool = False,
           each_file: bool = False) -> Source:
    """``each_file``: every file is an environment of its own (a folder of independent examples), named by its
    path, instead of one per top-level sub-folder."""
    envs: dict[str, Environment] = {}
    problems: list[Problem] = []
    count = 0
    for rel, data in files:
        count += 1
        key = rel if each_file else _environment_of(rel)
        env = envs.setdefault(key, Environment(key, root_name if key == ROOT else key))
        env.files += 1
        manifests, values = _read_file(rel, data, problems)
        if values is not None:
            env.values[rel.rpartition("/")[2]] = values
        env.manifests.extend(manifests)
    if not allow_empty and not problems and not any(e.manifests or e.values for e in envs.values()):
        raise KarpenterGpuError("KG907", prop="input", value=label,
                                allowed="at least one Kubernetes object in a *.yaml or *.yml file",
                                fix="point at a dist/ folder, a manifest file, or '-' for stdin")
    for env in envs.values():
        problems.extend(_same_object_twice(env))
    ordered = sorted(envs.values(), key=lambda e: (e.key != ROOT, e.key))
    return Source(label, ordered, problems, count)


def metadata(manifest: dict) -> dict:
    """``metadata`` when it is a mapping, else empty (a malformed one is the schema check's to report)."""
    meta = manifest.get("metadata")
    return meta if isinstance(meta, dict) else {}


def object_key(manifest: dict) -> tuple[str, str, str, str]:
    """(API group, kind, namespace, name): what the API server stores one object under."""
    group = str(manifest.get("apiVersion", "")).rpartition("/")[0]
    meta = metadata(manifest)
    name = meta.get("name") if meta.get("name") is not None else meta.get("generateName", "")
    return group, str(manifest.get("kind")), str(meta.get("namespace") or ""), str(name)


def _same_object_twice(env: Environment) -> list[Problem]:
    seen: dict[tuple[str, str, str, str], Manifest] = {}
    out = []
    for m in env.manifests:
        key = object_key(m.manifest)
        meta = m.manifest.get("metadata")
        if isinstance(meta, dict) and meta.get("name") is None and meta.get("generateName"):
            continue  # generateName: the server picks a fresh name for each
        if key in seen:
            first = seen[key]
            where = f"{first.file}{' ' + first.where if first.where else ''}"
            namespaced = f"{key[2]}/{key[3]}" if key[2] else key[3]
            out.append(Problem(m.file, key[1], key[3], m.where or "<root>", "KG313",
                               f"{key[1]} {namespaced} is also defined in {where} (environment {env.name}): the "
                               "second replaces the first when applied; keep one"))
        else:
            seen[key] = m
    return out


# ------------------------------------------------------------------------------------------ sources


def _read_bytes(path: str | Path | BinaryIO, rel: str, *, named: bool = False) -> bytes:
    """At most :data:`MAX_FILE_BYTES` of one file (:func:`~karpenter_gpu._fs.read_bounded`): a regular file, or a
    pipe when ``named`` on the command line; a device, a socket, or a pipe found in a folder is KG920."""
    return read_bounded(path, MAX_FILE_BYTES, named=named,
                        refuse=lambda code, value, allowed, fix: _refuse(code, rel, value, allowed, fix),
                        unreadable="KG901", too_large="KG906",
                        too_large_fix="split the file; one object is at most 1.5 MiB in etcd")


def _walk(root: Path) -> list[tuple[str, str]]:
    """Every ``*.yaml`` / ``*.yml`` file under ``root`` as (relative POSIX path, path), in path order.

    What ``os.walk`` finds (symlinked folders listed but not entered, a symlinked or dangling file listed), but
    without recursion: Python 3.11's ``os.walk`` recurses once per folder level, so 1,000 nested folders end in a
    RecursionError. A folder deeper than :data:`MAX_FOLDER_DEPTH` levels is refused (KG914) before it is listed.
    """
    found = []
    pending: list[tuple[str, int, str]] = [(str(root), 0, "")]  # folder, depth, its relative path + "/"
    while pending:
        folder, depth, prefix = pending.pop()
        try:
            with os.scandir(folder) as entries:
                listing = list(entries)
        except OSError as ex:
            raise _refuse("KG901", str(ex.filename or folder), ex.strerror or str(ex), "a readable folder",
                          "check the path and its permissions") from None
        for entry in listing:
            try:
                is_dir = entry.is_dir()
                descend = is_dir and not entry.is_symlink()
            except OSError:  # as os.walk: an entry that cannot be examined is not a folder
                is_dir = descend = False
            if descend:
                if depth + 1 > MAX_FOLDER_DEPTH:
                    raise KarpenterGpuError(
                        "KG914", prop="folder", value=prefix + entry.name,
                        allowed=f"at most {MAX_FOLDER_DEPTH} nested folders below the input folder",
                        fix="point at the dist/ folder itself; manifests are one or two levels deep", path=str(root))
                pending.append((entry.path, depth + 1, f"{prefix}{entry.name}/"))
            elif not is_dir and entry.name.endswith(SUFFIXES):
                found.append((prefix + entry.name, entry.path))
    return sorted(found)


def read_stdin(label: str = "<stdin>", *, allow_empty: bool = False) -> Source:
    stream = getattr(sys.stdin, "buffer", None)  # None when the process has no standard input at all
    data = _read_bytes(stream, "<stdin>") if stream is not None else b""
    return _build(label, "stdin", [("<stdin>", data)], allow_empty=allow_empty)


def read_path(spec: str | Path, *, allow_empty: bool = False, each_file: bool = False) -> Source:
    """A folder, a single file (a pipe too: ``<(kubectl get nodes -o yaml)``), or ``-`` for stdin. Input without
    any object or values file is KG907 unless ``allow_empty`` (diff: a side before dist/ existed). ``each_file``: a
    folder's files are independent environments, one per file (see :func:`_build`). Every file is read by
    :func:`_read_bytes`: in a folder only regular files (a ``*.yaml`` link to a device or FIFO is KG920)."""
    if str(spec) == "-":
        return read_stdin(allow_empty=allow_empty)
    path = Path(spec)
    if path.is_dir():
        return _build(str(spec), path.resolve().name, ((rel, _read_bytes(p, rel)) for rel, p in _walk(path)),
                      allow_empty=allow_empty, each_file=each_file)
    if path.exists():  # a file, a pipe (a device is refused by the reader)
        return _build(str(spec), path.name, [(path.name, _read_bytes(path, str(spec), named=True))],
                      allow_empty=allow_empty)
    raise KarpenterGpuError("KG900", prop="input", value=str(spec), allowed="an existing folder, a file, or '-'",
                            fix="check the path")


#: Symbolic links one path may pass through inside a revision before it is called a loop (Linux ``MAXSYMLINKS``).
MAX_LINKS = 40
#: The folder a git side is read from when none is given: the nearest ``dist`` at or above the current folder.
DIST = "dist"
_LINK, _GITLINK = "120000", "160000"


def _git(top: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    import subprocess  # late: only git sides need it, and it is a tenth of validate's imports

    return subprocess.run(["git", "-C", str(top), *args], input=stdin, capture_output=True, check=False)


def _git_text(top: Path, *args: str) -> str | None:
    """The output of a git command that must succeed, stripped; None when it fails or git is missing."""
    try:
        done = _git(top, *args)
    except OSError:  # no git installed
        return None
    return done.stdout.decode(errors="surrogateescape").strip() if done.returncode == 0 else None


def is_git_revision(rev: str, repo: Path | None = None) -> Path | None:
    """The top folder of ``repo``'s git repository when ``rev`` names a commit there, else None."""
    start = Path(repo) if repo is not None else Path.cwd()
    top = _git_text(start, "rev-parse", "--show-toplevel")
    if top is None or rev.startswith("-"):
        return None
    root = Path(top)
    if _git_text(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}") is None:
        return None
    return root


def dist_candidates(start: Path, root: Path, dist: str | None = None) -> list[str]:
    """The repository paths a git side's folder is looked for at, nearest first.

    ``dist`` given: that path, relative to ``start`` (the current folder, or ``--repo DIR``) as any path
    argument is, or absolute. Not given: a folder named ``dist`` in ``start`` and in each folder above it up to
    the repository's top (``git rev-parse --show-prefix``), so ``diff`` run from ``repo/platform/gpu`` or from
    ``repo/platform/gpu/dist/prod`` reads ``platform/gpu/dist``. A path outside the repository is KG610.
    """
    prefix = _git_text(start, "rev-parse", "--show-prefix") or ""
    here = PurePosixPath(prefix.strip("/")) if prefix.strip("/") else PurePosixPath()
    if dist is not None:
        given = Path(dist)
        if given.is_absolute():
            try:
                rel = given.resolve().relative_to(root.resolve()).as_posix()
            except ValueError:
                rel = None
        else:
            rel = _inside(str(here / dist)) if str(here) != "." else _inside(dist)
        if rel is None:
            raise KarpenterGpuError("KG610", prop="--dist", value=dist, allowed=f"a folder inside the repository {root}",
                                    fix="name the dist folder relative to the current folder, inside the repository")
        return [rel]
    parts = here.parts
    return [PurePosixPath(*parts[:n], DIST).as_posix() for n in range(len(parts), -1, -1)]


def _inside(path: str) -> str | None:
    """``path`` normalised (``a/./b/../c`` → ``a/c``), or None when it climbs above the repository's top."""
    out: list[str] = []
    for part in PurePosixPath(path).parts:
        if part in ("", "."):
            continue
        if part == "..":
            if not out:
                return None
            out.pop()
        else:
            out.append(part)
    return "/".join(out)


@dataclass(frozen=True)
class _Repo:
    """A repository whose objects are read: the outermost one, or a submodule's folder (``where``: its path)."""

    top: Path
    tree: str  # the root tree of the revision (or of the submodule's recorded commit)
    where: str = ""


@dataclass(frozen=True)
class _Entry:
    repo: _Repo
    mode: str
    oid: str
    path: str  # inside ``repo``

    @property
    def is_tree(self) -> bool:
        return self.mode == "040000"


class _Revision:
    """One revision of a repository and of the submodules it records, read without a checkout.

    Symbolic links are followed inside the revision, as a checkout would resolve them (relative to the link's
    folder; a link that leaves its repository, is absolute, dangles or loops is refused); a submodule is read
    at its recorded commit from the submodule's folder when its objects are there. A missing object is KG604.
    """

    def __init__(self, rev: str, root: Path) -> None:
        self.rev = rev
        tree = _git_text(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{tree}}")
        if tree is None:
            raise self._missing(f"{rev}^{{tree}}", "the commit's tree")
        self.root = _Repo(root, tree)
        self._trees: dict[tuple[Path, str], dict[str, tuple[str, str]]] = {}

    def _label(self, repo: _Repo, path: str) -> str:
        return f"{self.rev}:{repo.where + '/' if repo.where else ''}{path}"

    def _missing(self, what: str, detail: str) -> KarpenterGpuError:
        return KarpenterGpuError(
            "KG604", prop="diff side", value=what, allowed=f"a revision whose objects are all in the repository ({detail})",
            fix="fetch the missing objects (git fetch, or git fetch --unshallow for a shallow clone) or repair the "
                "repository (git fsck)")

    def _listing(self, repo: _Repo, tree: str, path: str) -> dict[str, tuple[str, str]]:
        """name → (mode, oid) of one tree."""
        key = (repo.top, tree)
        if key not in self._trees:
            done = _git(repo.top, "ls-tree", "-z", tree)
            if done.returncode != 0:
                raise self._missing(self._label(repo, path or "."), done.stderr.decode(errors="replace").strip())
            entries: dict[str, tuple[str, str]] = {}
            for item in done.stdout.split(b"\0"):
                if item:
                    meta, _, name = item.partition(b"\t")
                    mode, _, oid = meta.decode().split()
                    entries[os.fsdecode(name)] = (mode, oid)
            self._trees[key] = entries
        return self._trees[key]

    def blobs(self, repo: _Repo, wanted: list[tuple[str, str]]) -> list[bytes]:
        """The contents of ``wanted`` ((path, oid) in ``repo``), in order, with one ``git cat-file --batch``."""
        if not wanted:
            return []
        request = b"".join(f"{oid}\n".encode() for _, oid in wanted)
        check = _git(repo.top, "cat-file", "--batch-check", stdin=request)  # sizes first: nothing huge is read
        if check.returncode != 0:
            raise self._missing(self._label(repo, wanted[0][0]), check.stderr.decode(errors="replace").strip())
        for (path, _), line in zip(wanted, check.stdout.decode(errors="replace").splitlines()):
            header = line.split()
            if len(header) != 3 or header[1] != "blob":  # "<oid> missing"
                raise self._missing(self._label(repo, path), "a file's blob is missing from the object store")
            if int(header[2]) > MAX_FILE_BYTES:
                raise _too_big(self._label(repo, path), int(header[2]))
        done = _git(repo.top, "cat-file", "--batch", stdin=request)
        if done.returncode != 0:
            raise self._missing(self._label(repo, wanted[0][0]), done.stderr.decode(errors="replace").strip())
        out, offset, contents = done.stdout, 0, []
        for _ in wanted:  # cat-file answers in request order: "<oid> blob <size>\n<content>\n"
            end = out.index(b"\n", offset)
            size = int(out[offset:end].split()[2])
            contents.append(out[end + 1:end + 1 + size])
            offset = end + 1 + size + 1
        return contents

    def _submodule(self, repo: _Repo, path: str, commit: str) -> _Repo:
        """The submodule recorded at ``path`` of ``repo``, read from its folder; KG608 when its objects are not there."""
        folder = repo.top / path
        where = f"{repo.where}/{path}" if repo.where else path
        own = _git_text(folder, "rev-parse", "--show-toplevel") if folder.is_dir() else None
        tree = _git_text(folder, "rev-parse", "--verify", "--quiet", f"{commit}^{{tree}}") if own else None
        if own is None or Path(own).resolve() != folder.resolve() or tree is None:
            raise KarpenterGpuError(
                "KG608", prop="diff side", value=f"{self.rev}:{where} (submodule at commit {commit[:12]})",
                allowed="a submodule whose objects are in its folder (git submodule update --init)",
                fix=f"run `git submodule update --init {where}` (and fetch the recorded commit), or pass the "
                    "checked-out folder instead of a revision")
        return _Repo(folder, tree, where)

    def find(self, path: str) -> _Entry | None:
        """The entry at ``path`` (a repository path), through links and submodules; None when nothing is there."""
        return self._find(self.root, path, 0)

    def _find(self, repo: _Repo, path: str, hops: int) -> _Entry | None:
        parts = [p for p in PurePosixPath(path).parts if p not in ("", ".")]
        entry = _Entry(repo, "040000", repo.tree, "")
        done: list[str] = []
        while parts:
            name = parts.pop(0)
            if not entry.is_tree:
                return None
            listing = self._listing(entry.repo, entry.oid, "/".join(done))
            if name not in listing:  # paths come normalised (_inside): no ".." here
                return None
            mode, oid = listing[name]
            here = "/".join([*done, name])
            if mode == _LINK:
                target = self._link_target(entry.repo, here, oid, hops)
                return self._find(entry.repo, "/".join([target, *parts]), hops + 1)
            if mode == _GITLINK:
                sub = self._submodule(entry.repo, here, oid)
                entry, done = _Entry(sub, "040000", sub.tree, ""), []
                continue
            entry = _Entry(entry.repo, mode, oid, here)
            done.append(name)
        return entry

    def _link_target(self, repo: _Repo, link: str, oid: str, hops: int) -> str:
        """Where the symbolic link at ``link`` points, as a path inside ``repo``; KG605 when it leaves it or loops."""
        label = self._label(repo, link)
        [raw] = self.blobs(repo, [(link, oid)])
        target = os.fsdecode(raw)
        resolved = None if target.startswith("/") else _inside(str(PurePosixPath(link).parent / target))
        if hops >= MAX_LINKS or resolved is None:
            why = (f"passes through more than {MAX_LINKS} links (a loop)" if hops >= MAX_LINKS else
                   "points outside the repository" if not target.startswith("/") else "is an absolute path")
            raise KarpenterGpuError(
                "KG605", prop="diff side", value=f"{label} -> {target}",
                allowed="symbolic links to files inside the same repository (a checkout reads them there)",
                fix=f"the link {why}: commit the file itself, or a link relative to a file in the repository")
        return resolved

    def files(self, entry: _Entry, rel: str = "") -> list[tuple[str, bytes]]:
        """(path relative to ``entry``, content) of every ``*.yaml`` / ``*.yml`` file under the tree ``entry``."""
        if not entry.is_tree:  # the path names one file
            return list(zip([PurePosixPath(entry.path).name], self.blobs(entry.repo, [(entry.path, entry.oid)])))
        done = _git(entry.repo.top, "ls-tree", "-r", "-z", entry.oid)
        if done.returncode != 0:
            raise self._missing(self._label(entry.repo, entry.path or "."),
                                done.stderr.decode(errors="replace").strip())
        blobs: list[tuple[str, str, str]] = []  # (rel, path in repo, oid)
        found: list[tuple[str, bytes]] = []
        for item in done.stdout.split(b"\0"):
            if not item:
                continue
            meta, _, raw = item.partition(b"\t")
            mode, _, oid = meta.decode().split()
            sub = os.fsdecode(raw)
            path = f"{entry.path}/{sub}" if entry.path else sub
            here = f"{rel}{sub}"
            if mode == _GITLINK:
                repo = self._submodule(entry.repo, path, oid)
                found.extend(self.files(_Entry(repo, "040000", repo.tree, ""), f"{here}/"))
            elif not sub.endswith(SUFFIXES):
                continue  # what the folder reader skips too
            elif mode == _LINK:
                target = self._find(entry.repo, self._link_target(entry.repo, path, oid, 0), 1)
                if target is None or target.is_tree:
                    raise KarpenterGpuError(
                        "KG607", prop="diff side", value=self._label(entry.repo, path),
                        allowed="a symbolic link to a file of the same revision",
                        fix="the link dangles or points to a folder in that revision: fix the link or commit the file")
                found.extend(zip([here], self.blobs(target.repo, [(target.path, target.oid)])))
            else:
                blobs.append((here, path, oid))
        found.extend(zip([r for r, _, _ in blobs], self.blobs(entry.repo, [(p, o) for _, p, o in blobs])))
        return sorted(found)


def git_has(rev: str, root: Path, path: str) -> bool:
    """Whether commit ``rev`` of the repository at ``root`` has anything at ``path`` (through links and submodules)."""
    return _Revision(rev, root).find(path) is not None


def read_git(rev: str, root: Path, dist: str = DIST, *, allow_empty: bool = False) -> Source:
    """The folder (or file) at repository path ``dist`` of commit ``rev`` of the repository at ``root``, read
    without a checkout.

    Nothing at ``dist`` in that revision is KG602, unless ``allow_empty`` (diff: the revision before the folder
    existed), which gives a side without environments; a folder without any object is KG907.
    """
    return _read_revision(_Revision(rev, root), [dist], allow_empty=allow_empty)


def _read_revision(revision: _Revision, candidates: list[str], *, allow_empty: bool) -> Source:
    """The first of ``candidates`` that ``revision`` has; none of them: KG602, or an empty side if ``allow_empty``."""
    for path in candidates:
        entry = revision.find(path)
        if entry is not None:
            return _build(f"{revision.rev}:{path}", PurePosixPath(path).name, revision.files(entry))
    if allow_empty:
        return Source(f"{revision.rev}:{candidates[0]}", [], [], 0)
    raise KarpenterGpuError("KG602", prop="diff side", value=revision.rev,
                            allowed=f"a revision with a folder at {' or '.join(candidates)}",
                            fix="run diff from the folder that holds dist/, or pass --dist PATH")


def read(spec: str, repo: Path | None = None, *, dist: str | None = None, allow_empty: bool = False) -> Source:
    """A folder, a file, ``-`` (stdin), or else a git revision of ``repo`` whose dist folder is read
    (:func:`dist_candidates`: ``dist`` relative to the current folder, or the nearest ``dist`` at or above it)."""
    if spec == "-" or Path(spec).exists():
        return read_path(spec, allow_empty=allow_empty)
    root = git_root(spec, repo)
    candidates = dist_candidates(Path(repo) if repo is not None else Path.cwd(), root, dist)
    return _read_revision(_Revision(spec, root), candidates, allow_empty=allow_empty)


def git_root(spec: str, repo: Path | None = None) -> Path:
    """The top of the repository in which ``spec`` names a commit; KG600 when it names none."""
    root = is_git_revision(spec, repo)
    if root is None:
        where = Path(repo) if repo is not None else Path.cwd()
        raise KarpenterGpuError(
            "KG600", prop="diff side", value=spec,
            allowed=f"an existing folder or file, '-', or a commit of the git repository at {where}",
            fix="pass a dist/ folder, or a commit, branch or tag of the repository (--repo DIR picks the repository)")
    return root


class GoQuoting:
    """A PyYAML dumper's resolver (mixed in before the dumper) that quotes every string go-yaml v2 would read as another type (:func:`resolve_plain`: ``y``,
    ``n``, ``0o10``, ``0X1F``, ``1e3``, ``08``), besides those PyYAML's own YAML 1.1 resolver quotes (``yes``,
    ``1:20``, ``2024-01-02``): what it writes, kubectl and Helm read back as the same strings. The serializer writes
    a string plain only when the resolver gives a plain text of it the string tag."""

    def resolve(self, kind: type, value: str, implicit: tuple[bool, bool]) -> str:
        tag: str = super().resolve(kind, value, implicit)  # type: ignore[misc]
        if kind is ScalarNode and implicit[0] and tag == _STR and not go_reads_as_string(value):
            return _GO_TAGS[type(resolve_plain(value))]
        return tag


class GoSafeDumper(GoQuoting, Dumper):  # type: ignore[misc, valid-type]
    """:data:`Dumper` quoting as :class:`GoQuoting` does."""


class BlockDumper(GoSafeDumper):
    """:class:`GoSafeDumper` writing every multi-line string as a literal block scalar (``|``), as a person would
    write an embedded file (the device plugin's time-slicing config); the emitter falls back to a quoted scalar when
    a block cannot hold the text exactly (trailing spaces, control characters)."""


def _block_text(dumper: Any, text: str) -> Any:
    if "\n" in text:
        return dumper.represent_scalar("tag:yaml.org,2002:str", text, style="|")
    return dumper.represent_str(text)


BlockDumper.add_representer(str, _block_text)


def dump(data: Any, stream: Any = None, *, block_text: bool = False, **options: Any) -> Any:
    """``yaml.dump`` with the C LibYAML dumper when PyYAML has it (the output of ``yaml.safe_dump``, but for the
    strings go-yaml v2 reads as another type, which are quoted: :class:`GoSafeDumper`). ``block_text``: multi-line
    strings as literal block scalars (:class:`BlockDumper`)."""
    return yaml.dump(data, stream, Dumper=BlockDumper if block_text else GoSafeDumper, **options)


def go_safe_text(text: str, data: Any, file: str) -> str:
    """``text``, the YAML another writer made of the one document ``data`` (cdk8s's Node.js YAML library, whose
    YAML 1.1 writes ``0o10``, ``0X1F`` and ``0B11`` unquoted), when go-yaml v2 reads every string of ``data``
    back from it as that string (:func:`load_documents`); else ``data`` written by :func:`dump`, which quotes them."""
    try:
        read = [doc for _, doc, _ in load_documents(text, file)]
    except KarpenterGpuError:  # e.g. a key "<<" written plain: a merge of a scalar, which go-yaml refuses too
        read = []
    if len(read) == 1 and _same_strings(read[0], data):
        return text
    return dump(data, sort_keys=False, default_flow_style=False, allow_unicode=True, width=1 << 30)


def _same_strings(read: Any, data: Any) -> bool:
    """Whether ``read`` is ``data`` with every string (key or value) still a string, and every other value not one."""
    if isinstance(data, dict):
        return isinstance(read, dict) and len(read) == len(data) and all(
            type(key) is str and key in data and _same_strings(value, data[key]) for key, value in read.items())
    if isinstance(data, list):
        return isinstance(read, list) and len(read) == len(data) and all(map(_same_strings, read, data))
    if isinstance(data, str) or isinstance(read, str):
        return read == data and type(read) is type(data)
    return True  # numbers, booleans, null: written and read by one writer's rules (1.0 may read back as 1)
