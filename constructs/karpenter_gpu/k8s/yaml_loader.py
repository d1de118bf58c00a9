"""The YAML loader every manifest reader uses: a file's documents as data, within bounds, as kubectl reads them.

YAML is parsed by the C LibYAML loader (``yaml.CSafeLoader``); the pure-Python ``SafeLoader`` is used only
where PyYAML was built without LibYAML. Both give the same data and the same findings. The data is built in
one pass over the parser's events (:func:`_read_events`), at a third of the cost of composing nodes; files
with merge keys or tagged collections are composed into nodes as PyYAML does, and the documents without
anchors among them turned into data by :func:`_construct_tree`. Plain scalars are read as kubectl, the API server and
Helm read them (sigs.k8s.io/yaml over go-yaml v2: :func:`~karpenter_gpu.k8s.plain_scalars.resolve_plain`), not by
PyYAML's YAML 1.1 resolver. Duplicate mapping keys are reported with their lines (sigs.k8s.io/yaml decodes strictly
and refuses them: :mod:`~karpenter_gpu.k8s.input_layout` turns them into KG312 findings).

Hostile input is refused before anything walks it (:class:`~karpenter_gpu.errors.KarpenterGpuError`):
files over :data:`MAX_FILE_BYTES` (KG906), alias expansion beyond the ratio that gopkg.in/yaml
(``decode.go`` ``allowedAliasRatio``, used by sigs.k8s.io/yaml in kubectl and the API server) allows,
and self-referencing anchors (KG904), nesting deeper than :data:`MAX_DEPTH` (KG905), non-UTF-8 (KG902) files and
YAML syntax errors (KG903), scalars Python cannot convert (KG915) and files of more than :data:`MAX_EVENTS` parser
events (KG916): the cost of reading stays linear in the size and bounded.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

import yaml
from yaml.composer import ComposerError
from yaml.events import (AliasEvent, DocumentStartEvent, MappingEndEvent, MappingStartEvent, ScalarEvent,
                         SequenceEndEvent, SequenceStartEvent, StreamEndEvent)
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.plain_scalars import GO_FIRST, STR_TAG, go_loader, resolve_plain
from karpenter_gpu.perf import OwnerCache

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

Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def loader_name() -> str:
    return Loader.__name__


# ------------------------------------------------------------------------------------------- errors


def refuse_file(code: str, file: str, value: Any, allowed: str, fix: str) -> KarpenterGpuError:
    """The error refusing input file ``file`` (``""``: standard input)."""
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
                raise refuse_file("KG905", file, f"nesting deeper than {MAX_DEPTH} (line {node.start_mark.line + 1})",
                                  f"at most {MAX_DEPTH} nested mappings/sequences",
                                  "flatten the document; Kubernetes objects nest far less")
            done[key] = (size, depth)
            continue
        if key in done:
            continue
        if key in started:  # reached again while still being expanded: the anchor contains itself
            raise refuse_file("KG904", file, f"anchor at line {node.start_mark.line + 1} contains itself",
                              "aliases to finished anchors only", "remove the recursive alias")
        started.add(key)
        stack.append((node, True))
        for child in _children(node):
            if id(child) in started and id(child) not in done:
                raise refuse_file("KG904", file, f"anchor at line {child.start_mark.line + 1} contains itself",
                                  "aliases to finished anchors only", "remove the recursive alias")
            if id(child) not in done:
                stack.append((child, False))
    _check_aliasing(file, len(done), done[id(root)][0])


def _check_aliasing(file: str, distinct: int, expanded: int) -> None:
    """KG904 when ``distinct`` nodes expand to ``expanded`` beyond the ratio gopkg.in/yaml allows."""
    aliased = expanded - distinct
    if aliased > 100 and expanded > 1000 and aliased / expanded > _allowed_alias_ratio(expanded):
        raise refuse_file("KG904", file, f"{distinct} YAML nodes expanding to {expanded} through aliases",
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


_MAP, _SEQ = "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"


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
        return node.value if node.tag == STR_TAG else _bounded(loader.construct_object(node))
    if kind is MappingNode and node.tag == _MAP:
        out = {}
        for key, value in node.value:
            if type(key) is not ScalarNode or key.tag != STR_TAG:
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
            raise refuse_file("KG905", file, f"nesting deeper than {MAX_DEPTH} (line {node.start_mark.line + 1})",
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
        raise file_too_big(file, len(data))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as ex:
        raise refuse_file("KG902", file, f"byte {ex.start}: {data[ex.start:ex.start + 4]!r}", "UTF-8 text",
                          "save the file as UTF-8") from None


def file_too_big(file: str, size: int) -> KarpenterGpuError:
    return refuse_file("KG906", file, f"{size} bytes", f"at most {MAX_FILE_BYTES} bytes per file",
                       "split the file; one object is at most 1.5 MiB in etcd")


def _scalar_error(file: str, index: int, ex: ValueError) -> KarpenterGpuError:
    """A scalar PyYAML resolves but Python cannot convert: an int of more than 4,300 digits, a date like 2024-13-45."""
    return refuse_file("KG915", file, f"document {index + 1}: {ex}", "YAML scalars that are numbers, dates or strings "
                       "Kubernetes can read", "quote the value, or write a realistic one")


def _too_many_events(file: str, where: str) -> KarpenterGpuError:
    return refuse_file("KG916", file, f"more than {MAX_EVENTS} YAML events ({where})",
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


_NO_KEY = object()
_DECIMAL_INT = re.compile(r"-?[1-9][0-9]{0,17}|0")  # what Go's ParseInt reads as int(text) itself


#: Plain scalar texts the resolver looked at, and their immutable data, by loader class (kept between files).
_MAX_RESOLVED = 1 << 14
_RESOLVED = OwnerCache(entries=_MAX_RESOLVED + 1)
_MAX_RESOLVED_TEXT = 256


def _read_events(loader: Any, file: str) -> list[tuple[Any, list[tuple[str, int, int]]]] | None:
    """(data, duplicate keys) of every document of the stream, built in one pass over the parser's events; None
    when a document needs PyYAML's composer, after the pass has counted every event (:data:`MAX_EVENTS`).

    Composing nodes costs PyYAML about ten microseconds a node (a Python resolver call and a node object for
    each, from the C parser), so a 14 MiB file of small nodes took a minute; from the events, a plain scalar
    whose first character starts no implicit type is a string at once, a decimal int an int, every other plain
    scalar is read by :func:`resolve_plain` (once per distinct text: keys repeat) and a tagged one by the loader's
    constructor, so the data is what the node path (:func:`~karpenter_gpu.k8s.plain_scalars.go_loader`) gives.
    Anchors and aliases share their data as PyYAML's do, and are checked as :func:`_inspect` checks nodes: an alias
    inside its own anchor (KG904), expansion beyond gopkg.in/yaml's ratio (KG904), nesting deeper than
    :data:`MAX_DEPTH` through aliases too (KG905). A tag on a mapping or sequence, a merge (``<<``) key and a key
    that is not a string are left to the node path (:func:`_count_rest`).
    """
    first_chars = GO_FIRST | {"<"}  # and "<<", a merge key
    get_event = loader.get_event
    docs: list[tuple[Any, list[tuple[str, int, int]]]] = []
    stack: list[list[Any]] = []  # open collections: [dict or list, pending key, {key: line} or None, anchor]
    resolved = _resolved_texts(type(loader))
    # name -> [data, expanded size, height, open, line, distinct/extra/deepest when it opened]
    anchors: dict[str, list[Any]] = {}
    duplicates: list[tuple[str, int, int]] = []
    # Per document: distinct nodes, nodes added by alias expansion, deepest collection level reached.
    events = distinct = extra = deepest = 0
    while True:
        event = get_event()
        kind = type(event)
        events += 1
        if events > MAX_EVENTS:
            raise _too_many_events(file, f"at line {event.start_mark.line + 1}")
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
                    _count_rest(get_event, events, file)
                    return None
                else:
                    data = _resolve_and_keep(value, resolved)
            else:
                data = _construct_scalar(loader, tag, event, file, len(docs))
            if event.anchor is not None:
                _anchor(anchors, event, [data, 1, 0, False, event.start_mark.line + 1])
        elif kind is MappingStartEvent or kind is SequenceStartEvent:
            if event.tag is not None and event.tag != "!":
                _count_rest(get_event, events, file)
                return None
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
                _anchor(anchors, event, [collection, 0, 0, True, event.start_mark.line + 1, distinct - 1, extra, deepest])
                deepest = level
            continue
        elif kind is MappingEndEvent or kind is SequenceEndEvent:
            data, _, _, anchor = stack.pop()
            if anchor is not None:
                deepest = _close_anchor(anchors[anchor], distinct, extra, deepest, len(stack))
        elif kind is AliasEvent:
            data, size, deepest = _alias(anchors, event, file, len(stack), deepest)
            extra += size
        elif kind is DocumentStartEvent:
            anchors, duplicates, distinct, extra, deepest = {}, [], 0, 0, 0
            continue
        elif kind is StreamEndEvent:
            return docs
        else:  # stream start, document end
            continue
        if not stack:  # the document's root
            docs.append(_document(data, duplicates, file, distinct, extra))
            continue
        top = stack[-1]
        lines = top[2]
        if lines is None:
            top[0].append(data)
        elif top[1] is _NO_KEY:
            if type(data) is not str:  # PyYAML keys of other types (int, bool, null, a collection)
                _count_rest(get_event, events, file)
                return None
            if data in lines:  # kubectl refuses it; PyYAML keeps the last value
                duplicates.append((data, event.start_mark.line + 1, lines[data]))
            else:
                lines[data] = event.start_mark.line + 1
            top[1] = data
        else:
            top[0][top[1]] = data
            top[1] = _NO_KEY


def _document(data: Any, duplicates: list[tuple[str, int, int]], file: str, distinct: int,
              extra: int) -> tuple[Any, list[tuple[str, int, int]]]:
    """A finished document's (data, duplicate keys), once its ``distinct`` nodes and the ``extra`` ones aliases add
    are within the ratio gopkg.in/yaml allows (KG904)."""
    if extra:
        _check_aliasing(file, distinct, distinct + extra)
    return data, duplicates


def _resolved_texts(loader_class: type) -> dict[str, Any]:
    """Plain scalar text -> its data, for the texts the resolver had to look at: a plain scalar's type depends on
    its text alone, and files of one folder repeat the same keys and values (emptied past :data:`_MAX_RESOLVED`)."""
    return _RESOLVED.for_owner(loader_class)


def _resolve_and_keep(value: str, resolved: dict[str, Any]) -> Any:
    """:func:`resolve_plain`'s data of a plain scalar text seen for the first time, kept in ``resolved`` when short."""
    data = resolve_plain(value)
    if len(value) <= _MAX_RESOLVED_TEXT:  # a long text is kept only by its documents
        resolved[value] = data
    return data


def _close_anchor(entry: list[Any], distinct: int, extra: int, deepest: int, level: int) -> int:
    """Keep the expanded size and height of an anchored collection closing at ``level``, for the aliases to it (its
    height counts from ``deepest``, which restarted at its level when it opened); the document's deepest level again."""
    entry[1:4] = distinct - entry[5] + extra - entry[6], deepest - level, False
    return max(deepest, entry[7])


def _alias(anchors: dict[str, list[Any]], event: Any, file: str, level: int, deepest: int) -> tuple[Any, int, int]:
    """(data, expanded size, deepest level reached) of an alias at ``level`` to a finished anchor: PyYAML's error
    when none has its name, KG904 for an alias inside its own anchor, KG905 when the anchor's height from here
    nests deeper than :data:`MAX_DEPTH`."""
    target = anchors.get(event.anchor)
    if target is None:
        raise ComposerError(None, None, f"found undefined alias {event.anchor!r}", event.start_mark)
    if target[3]:
        raise refuse_file("KG904", file, f"anchor at line {target[4]} contains itself",
                          "aliases to finished anchors only", "remove the recursive alias")
    reach = level + target[2]
    if reach > deepest:
        deepest = reach
        if reach > MAX_DEPTH:
            raise _too_deep(file, event.start_mark.line + 1)
    return target[0], target[1], deepest


def _count_rest(get_event: Any, events: int, file: str) -> None:
    """Count the rest of a stream left to PyYAML's composer (a merge key, a tagged mapping or sequence, a key that is
    not a string), ``events`` read so far: more than :data:`MAX_EVENTS` in all is KG916, and so is more than
    :data:`MAX_COMPOSED_EVENTS` (the composer takes ten times as long an event)."""
    while True:
        event = get_event()
        events += 1
        if events > MAX_EVENTS:
            raise _too_many_events(file, f"at line {event.start_mark.line + 1}")
        if type(event) is StreamEndEvent:
            break
    if events > MAX_COMPOSED_EVENTS:
        raise refuse_file("KG916", file, f"{events} YAML events with a merge key, a tagged mapping or "
                          "sequence, or a key that is not a string", f"at most {MAX_COMPOSED_EVENTS} "
                          "events in such a file", "split the file, or write the merged keys out")


def _anchor(anchors: dict[str, list[Any]], event: Any, entry: list[Any]) -> None:
    if event.anchor in anchors:  # as PyYAML's composer
        raise ComposerError(None, None, f"found duplicate anchor {event.anchor!r}", event.start_mark)
    anchors[event.anchor] = entry


def _too_deep(file: str, line: int) -> KarpenterGpuError:
    return refuse_file("KG905", file, f"nesting deeper than {MAX_DEPTH} (line {line})",
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
        loader = go_loader(Loader)(text)
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
        raise refuse_file("KG903", file, f"{where}{problem}", "valid YAML", "fix the YAML syntax") from None
    except RecursionError:  # the pure-Python composer recurses per nesting level
        raise refuse_file("KG905", file, "nesting too deep to parse", f"at most {MAX_DEPTH} nested levels",
                          "flatten the document") from None


def _load_nodes(text: str, file: str) -> Iterator[tuple[int, Any, list[tuple[str, int, int]]]]:
    """The node path: compose each document, refuse bombs and deep nesting, find duplicate keys, construct."""
    loader = go_loader(Loader)(text)
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
