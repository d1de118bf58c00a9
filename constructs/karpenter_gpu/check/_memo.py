"""Subtrees a check found clean, by schema node and value, shared by the schema walk (``conformance``) and the CEL
walk (``_cel``).

Both checks are pure: what they report for a value depends on the schema node and the value only (the path only
names where). GPU pools repeat whole subtrees -- requirements, taints, budgets, node class references -- across
objects and environments, so a subtree found clean once is skipped when it recurs, in one dictionary look-up.

The key is the value's ``repr``: computed in C, it tells apart everything the YAML loader builds (``1``, ``1.0``,
``True`` and ``'1'`` differ; dict keys keep their type), so equal keys mean equal values; equal values written in
another key order only miss. The node is held in the entry, so its ``id`` is not reused while the entry lives.
"""

from __future__ import annotations

from typing import Any

Schema = dict[str, Any]
Key = tuple[int, Any, str]
#: The value types a memo entry is made for (scalars are remembered by value where it pays).
CONTAINERS = frozenset({dict, list})


class Bounded:
    """A memo dictionary bounded in entries and in the characters of the reprs it holds (keys, or the values'
    own): a folder of thousands of distinct objects fills it, empties it and goes on, in bounded memory. A repr
    longer than a sixteenth of the budget is not kept at all (such a subtree hardly recurs)."""

    def __init__(self, entries: int = 1 << 15, chars: int = 1 << 25) -> None:
        self._seen: dict[Any, Any] = {}
        self._entries, self._chars, self._held = entries, chars, 0

    def get(self, key: Any) -> Any:
        return self._seen.get(key)

    def put(self, key: Any, entry: Any, chars: int) -> None:
        if chars > self._chars >> 4:
            return
        if len(self._seen) >= self._entries or self._held + chars > self._chars:
            self.clear()
        self._seen[key] = entry
        self._held += chars

    def clear(self) -> None:
        self._seen.clear()
        self._held = 0


class CleanSubtrees(Bounded):
    """(id(schema node), scope, repr(value)) -> (the node, what the walk noted besides problems, as suffixes of
    the subtree's path). ``scope`` is whatever else the verdict depends on (the CEL backend)."""

    @staticmethod
    def key(schema: Schema, value: Any, scope: Any = None) -> Key:
        return (id(schema), scope, value_repr(value))

    def notes(self, key: Key) -> tuple[str, ...] | None:
        """The notes of a clean subtree seen before (``()`` for none), else None."""
        entry = self.get(key)
        return entry[1] if entry is not None else None

    def remember(self, key: Key, schema: Schema, notes: tuple[str, ...] = ()) -> None:
        self.put(key, (schema, notes), len(key[2]))


def descends(schema: Schema) -> bool:
    """Whether a walk under ``schema`` visits children by schema (worth a memo entry; a node without
    ``properties``, ``items`` or ``additionalProperties`` costs no more to check than its key)."""
    return (isinstance(schema.get("properties"), dict) or isinstance(schema.get("items"), dict)
            or isinstance(schema.get("additionalProperties"), dict))


#: The reprs of values held by a memo (shared, never changed), by id: the checks below ask for them again.
_REPRS = Bounded()


def value_repr(value: Any) -> str:
    """``repr(value)``, looked up for a value :func:`share` registered."""
    entry = _REPRS.get(id(value))
    if entry is not None and entry[0] is value:
        return str(entry[1])
    return repr(value)


def is_shared(value: Any) -> bool:
    """Whether ``value`` is registered by :func:`share` (owned by a memo, never changed)."""
    entry = _REPRS.get(id(value))
    return entry is not None and entry[0] is value


def share(value: Any) -> str:
    """Register ``value`` (owned by a memo and never changed afterwards) and return its repr."""
    text = repr(value)
    _REPRS.put(id(value), (value, text), len(text))
    return text
