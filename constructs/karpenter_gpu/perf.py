"""Performance behind one seam: every cache of the package, the switch that turns them all off, the collector
tuning (opt-in) and how the command ends its process.

Caches. Every answer is the same with or without them; they only spare recomputing it. One naming scheme, one
primitive per shape of key:

- :func:`cached` -- a decorator: a pure function's answers by its (hashable) arguments (``functools.lru_cache``
  inside; ``cache_info`` and ``cache_clear`` as there);
- :class:`OwnerCache` -- one dictionary per immutable owner (a catalog, a requirements mapping, a schema node),
  keyed by the owner's ``id`` and holding the owner, so that the ``id`` is not reused while the entry lives;
  ``for_owner`` gives the owner's dictionary, ``get``/``put`` one value per owner;
- :class:`Store` -- a process-wide dictionary of immutable answers (values read from text), bounded in entries;
- :class:`BoundedCache` -- a dictionary bounded in entries and in the characters of the reprs it holds;
  :class:`SubtreeCache` -- one of those for the subtrees a schema check found clean, by (schema node, scope, repr);
- :func:`value_repr`, :func:`share`, :func:`is_shared` -- the reprs of values a cache owns (never changed).

The switch: ``KARPENTER_GPU_CACHE=off`` in the environment (read once, at import) makes every primitive above
compute every time and store nothing; :func:`set_caching` flips it in a process (tests), emptying every cache.
:func:`clear_caches` empties them all (benchmarks: each call from empty caches).

Not caches, so not under the switch: what is loaded once and shared because its identity is part of the contract
(:func:`once`: a CEL backend, read over jsii once per process), and the jsii reads kept on a construct
(``_construct_tree.read_once``: immutable state of the construct tree, not a computation).

The collector, opt-in: a process that asks (``KARPENTER_GPU_TUNE_GC=1``, or the ``karpenter-gpu`` command, the
one caller that asks by itself: :func:`tune_for_command`) spaces the cyclic collector's passes
(:func:`tune_collector`, :data:`GC_THRESHOLD`) and pauses it during a simulation (:func:`paused_collector`); a
library caller's process is left as Python sets it, and ``KARPENTER_GPU_TUNE_GC=0`` turns the command's tuning off.
Why the command asks: a run holds one tree of manifests until it exits, and the collector's full passes over it
grow with the tree, so an untuned diff of 5,000 pools took 11.3 times a 500-pool one (7.3 times tuned): the
tuning is what keeps the command linear.

The command's process ends as any Python process does (the interpreter frees what it holds: about 0.05 s of a
1,000-pool validate; ending it earlier needs interpreter internals to know that no exit handler waits).

Imports nothing of the package (the lowest layer).
"""

from __future__ import annotations

import functools
import gc
import os
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Protocol, TypeVar

CACHE_ENV = "KARPENTER_GPU_CACHE"
TUNE_GC_ENV = "KARPENTER_GPU_TUNE_GC"

#: Owners kept per :class:`OwnerCache`, and entries per owner (and per :class:`Store`): past either, the cache (or
#: the owner's dictionary) starts again.
OWNERS = 16
ENTRIES = 4096

F = TypeVar("F", bound=Callable[..., Any])


class _Clearable(Protocol):
    def cache_clear(self) -> None: ...


class _Switch:
    """Whether caches store (``on``), read from :data:`CACHE_ENV` once; every cache, for :func:`clear_caches`."""

    __slots__ = ("caches", "on")

    def __init__(self) -> None:
        self.on = os.environ.get(CACHE_ENV, "").strip().lower() != "off"
        self.caches: list[_Clearable] = []


_SWITCH = _Switch()


def caching() -> bool:
    """Whether the caches store (``KARPENTER_GPU_CACHE`` is not ``off``, or :func:`set_caching` said so)."""
    return _SWITCH.on


def set_caching(on: bool) -> bool:
    """Turn every cache on or off in this process (emptying them all when it changes); returns the previous
    setting."""
    was = _SWITCH.on
    if was != on:
        clear_caches()
        _SWITCH.on = on
    return was


@contextmanager
def caching_set(on: bool) -> Iterator[None]:
    """:func:`set_caching` for a block, the previous setting back after it."""
    was = set_caching(on)
    try:
        yield
    finally:
        set_caching(was)


def clear_caches() -> None:
    """Empty every cache of the package."""
    for cache in _SWITCH.caches:
        cache.cache_clear()


def _register(cache: Any) -> None:
    _SWITCH.caches.append(cache)


def cached(maxsize: int | None = None) -> Callable[[F], F]:
    """A decorator: ``fn``'s answers by its arguments, ``maxsize`` of them (None: unbounded), while caching is on;
    when off, ``fn`` runs every time. The result has ``cache_info()`` and ``cache_clear()``."""
    def wrap(fn: F) -> F:
        memo = functools.lru_cache(maxsize=maxsize)(fn)
        switch = _SWITCH

        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            return memo(*args, **kwargs) if switch.on else fn(*args, **kwargs)

        call.cache_info = memo.cache_info  # type: ignore[attr-defined]
        call.cache_clear = memo.cache_clear  # type: ignore[attr-defined]
        _register(memo)
        return call  # type: ignore[return-value]

    return wrap


def once(fn: F) -> F:
    """``fn()`` (or ``fn(arg)``) made once per process and shared, whatever the switch: for what is loaded once
    because its identity is part of the contract (a CEL backend, a value read over jsii). Not a cache."""
    return functools.cache(fn)  # type: ignore[return-value]


class OwnerCache:
    """Per immutable owner, keyed by its ``id``: a dictionary (:meth:`for_owner`) or one value (:meth:`get` /
    :meth:`put`). The entry holds the owner, so that its ``id`` is not reused by another object while the entry
    lives; bounded (``owners``, and ``entries`` per owner's dictionary)."""

    __slots__ = ("_entries", "_max_owners", "_owners")

    def __init__(self, owners: int = OWNERS, entries: int = ENTRIES) -> None:
        self._owners: dict[int, tuple[Any, Any]] = {}
        self._max_owners, self._entries = owners, entries
        _register(self)

    def for_owner(self, owner: Any) -> dict:
        """The dictionary kept for ``owner`` (a new empty one the first time, or every time when caching is
        off)."""
        if not _SWITCH.on:
            return {}
        held, memo = self._owners.get(id(owner), (None, None))
        if held is not owner or memo is None:
            memo = {}
            self._keep(owner, memo)
        elif len(memo) >= self._entries:
            memo.clear()
        return memo

    def get(self, owner: Any) -> Any:
        """The value :meth:`put` kept for ``owner``, None when there is none."""
        entry = self._owners.get(id(owner))
        return entry[1] if entry is not None and entry[0] is owner else None

    def put(self, owner: Any, value: Any) -> Any:
        """Keep ``value`` for ``owner`` (while caching is on); returns ``value``."""
        if _SWITCH.on:
            self._keep(owner, value)
        return value

    def _keep(self, owner: Any, value: Any) -> None:
        if id(owner) not in self._owners and len(self._owners) >= self._max_owners:
            self._owners.clear()
        self._owners[id(owner)] = (owner, value)

    def values(self) -> Iterator[Any]:
        """What is kept, owner by owner."""
        return (value for _, value in self._owners.values())

    def cache_clear(self) -> None:
        self._owners.clear()

    clear = cache_clear


class Store:
    """A process-wide dictionary of immutable answers, bounded by ``entries`` (a full store starts again)."""

    __slots__ = ("_entries", "_seen")

    def __init__(self, entries: int = ENTRIES) -> None:
        self._seen: dict[Any, Any] = {}
        self._entries = entries
        _register(self)

    def get(self, key: Any) -> Any:
        """The answer kept under ``key``, None when there is none."""
        return self._seen.get(key)

    def put(self, key: Any, value: Any) -> Any:
        """Keep ``value`` under ``key`` (while caching is on); returns ``value``."""
        if _SWITCH.on:
            if len(self._seen) >= self._entries:
                self._seen.clear()
            self._seen[key] = value
        return value

    def __contains__(self, key: Any) -> bool:
        return key in self._seen

    def __len__(self) -> int:
        return len(self._seen)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._seen)

    def cache_clear(self) -> None:
        self._seen.clear()

    clear = cache_clear


class BoundedCache:
    """A cache bounded in entries and in the characters of the reprs it holds (keys, or the values' own): a folder
    of thousands of distinct objects fills it, empties it and goes on, in bounded memory. A repr longer than a
    sixteenth of the budget is not kept at all (such a subtree hardly recurs)."""

    def __init__(self, entries: int = 1 << 15, chars: int = 1 << 25) -> None:
        self._seen: dict[Any, Any] = {}
        self._entries, self._chars, self._held = entries, chars, 0
        _register(self)

    def get(self, key: Any) -> Any:
        return self._seen.get(key)

    def put(self, key: Any, entry: Any, chars: int) -> None:
        if chars > self._chars >> 4 or not _SWITCH.on:
            return
        if len(self._seen) >= self._entries or self._held + chars > self._chars:
            self.cache_clear()
        self._seen[key] = entry
        self._held += chars

    def cache_clear(self) -> None:
        self._seen.clear()
        self._held = 0

    clear = cache_clear


SubtreeKey = tuple[int, Any, str]


class SubtreeCache(BoundedCache):
    """Subtrees a check found clean: (id(schema node), scope, repr(value)) -> (the node, what the walk noted
    besides problems, as suffixes of the subtree's path). ``scope`` is whatever else the verdict depends on (the
    CEL backend). The key is the value's repr: computed in C, it tells apart everything the YAML loader builds
    (``1``, ``1.0``, ``True`` and ``'1'`` differ; dict keys keep their type), so equal keys mean equal values;
    equal values written in another key order only miss. The node is held in the entry, so its ``id`` is not
    reused while the entry lives."""

    @staticmethod
    def key(schema: dict[str, Any], value: Any, scope: Any = None) -> SubtreeKey:
        return (id(schema), scope, value_repr(value))

    def notes(self, key: SubtreeKey) -> tuple[str, ...] | None:
        """The notes of a clean subtree seen before (``()`` for none), else None."""
        entry = self.get(key)
        return entry[1] if entry is not None else None

    def put_clean(self, key: SubtreeKey, schema: dict[str, Any], notes: tuple[str, ...] = ()) -> None:
        self.put(key, (schema, notes), len(key[2]))


#: The reprs of values a cache owns (shared, never changed), by id: the checks ask for them again.
_REPRS = BoundedCache()


def value_repr(value: Any) -> str:
    """``repr(value)``, looked up for a value :func:`share` registered."""
    entry = _REPRS.get(id(value))
    if entry is not None and entry[0] is value:
        return str(entry[1])
    return repr(value)


def is_shared(value: Any) -> bool:
    """Whether ``value`` is registered by :func:`share` (owned by a cache, never changed)."""
    entry = _REPRS.get(id(value))
    return entry is not None and entry[0] is value


def share(value: Any) -> str:
    """Register ``value`` (owned by a cache and never changed afterwards) and return its repr."""
    text = repr(value)
    _REPRS.put(id(value), (value, text), len(text))
    return text


# --- the collector (opt-in) ---------------------------------------------------------------------------------------

#: ``gc.set_threshold`` for the command's own process, with ``KARPENTER_GPU_TUNE_GC=1``: a run holds one tree of
#: manifests and the objects read from it until it exits and makes few reference cycles, so the collector's default
#: (a pass every 700 allocations, a full one every 100 of those) mostly re-scans live data. mypy sets its process
#: the same way.
GC_THRESHOLD = (100_000, 20, 20)


#: Whether this process is the ``karpenter-gpu`` command's (:func:`tune_for_command`).
_COMMAND = {"asked": False}


def tuning_collector() -> bool:
    """Whether the collector tuning is asked for: ``KARPENTER_GPU_TUNE_GC=1``, or the command's process unless
    ``KARPENTER_GPU_TUNE_GC=0`` (read when asked)."""
    value = os.environ.get(TUNE_GC_ENV, "").strip()
    return value == "1" or (_COMMAND["asked"] and value != "0")


def tune_for_command() -> None:
    """The ``karpenter-gpu`` command's process asks for the tuning (:func:`tuning_collector`) and tunes."""
    _COMMAND["asked"] = True
    tune_collector()


def tune_collector() -> None:
    """:data:`GC_THRESHOLD` for this process, when :func:`tuning_collector`; else nothing."""
    if tuning_collector():
        gc.set_threshold(*GC_THRESHOLD)


@contextmanager
def paused_collector() -> Iterator[None]:
    """The cyclic collector paused for the block, when :func:`tuning_collector` (else nothing changes).

    A simulation allocates many small objects that all stay alive until it returns and form no reference cycles;
    the collector's passes over them find nothing and grow with the environment. Reference counting still frees
    everything; any cycle is collected by the next pass after the collector resumes."""
    if not (tuning_collector() and gc.isenabled()):
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()

