"""Memos kept across calls: for an immutable object (a catalog, its requirements mapping), keyed by its ``id``
(:func:`memo_for`), and of values read from text (:func:`remember`)."""

from __future__ import annotations

from typing import Any

#: Owners kept per store, and entries per owner: past either, the store (or the owner's memo) starts again.
OWNERS = 16
ENTRIES = 4096


def memo_for(store: dict[int, tuple[Any, dict]], owner: Any) -> dict:
    """The memo ``store`` keeps for ``owner``. The store holds ``owner`` itself, so that its ``id`` is not reused by
    another object while the memo lives; bounded (:data:`OWNERS`, :data:`ENTRIES`)."""
    held, memo = store.get(id(owner), (None, {}))
    if held is not owner:
        if len(store) >= OWNERS:
            store.clear()
        memo = {}
        store[id(owner)] = (owner, memo)
    if len(memo) >= ENTRIES:
        memo.clear()
    return memo


def remember(store: dict, key: Any, value: Any) -> Any:
    """Keep ``value`` under ``key`` in a process-wide ``store`` of immutable answers, bounded by :data:`ENTRIES` (a
    full store starts again); returns ``value``."""
    if len(store) >= ENTRIES:
        store.clear()
    store[key] = value
    return value
