"""What never changes about a construct, read over jsii once: its ``constructs.Node``, its path, and the path a child
will have. Every read over jsii is a pipe round trip to the Node.js process behind cdk8s, so these are kept on the
Python object (:func:`read_once`) at the first read. Not a cache (the caches are :mod:`karpenter_gpu.perf`'s, under
its switch): immutable state of the construct tree, read once, whatever the switch."""

from __future__ import annotations

from typing import Any, Callable, cast

_UNSET = object()


def read_once(obj: Any, attr: str, read: Callable[[], Any]) -> Any:
    """``read()``, kept on ``obj`` as ``attr`` at the first call: for what never changes about a construct, whose
    every read over jsii is a pipe round trip. (A proxy jsii makes for a JS-created construct is new on every read
    of it, so such a construct's value is read once per proxy.)"""
    value = getattr(obj, attr, _UNSET)
    if value is _UNSET:
        value = read()
        try:
            setattr(obj, attr, value)
        except AttributeError:  # pragma: no cover - jsii proxies accept attributes; be safe
            pass
    return value


def node_of(construct: Any) -> Any:
    """``construct.node`` (its ``constructs.Node``), read over jsii once per Python object (:func:`read_once`)."""
    return read_once(construct, "_kg_node", lambda: construct.node)


def construct_path(scope: Any) -> str:
    """``scope.node.path``, read over jsii once per construct (:func:`read_once`: a path never changes once the
    construct exists)."""
    return str(read_once(scope, "_kg_path", lambda: node_of(scope).path))


class ConstructPath:
    """The construct path a child ``id`` of ``scope`` will have, read over jsii only when formatted.

    A path is needed only for error messages; building a valid construct never formats it, so a
    chart's path costs no round trip. ``str()``, f-strings and ``==`` with a str give the path.
    """

    __slots__ = ("_id", "_scope", "_text")

    def __init__(self, scope: Any, id: str) -> None:
        self._scope: Any = scope
        self._id = id
        self._text: str | None = None

    def __str__(self) -> str:
        text = self._text
        if text is None:
            text = self._text = f"{construct_path(self._scope)}/{self._id}".lstrip("/")
            self._scope = None  # the text is all that is needed from now on
        return text

    __repr__ = __str__

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __eq__(self, other: object) -> bool:
        return str(self) == (str(other) if isinstance(other, (str, ConstructPath)) else other)

    def __hash__(self) -> int:
        return hash(str(self))


def path_of(scope: Any, id: str) -> str:
    """The construct path a child ``id`` of ``scope`` will have: errors name it before the child exists.

    Lazy (a :class:`ConstructPath`, typed as the str it formats to): the jsii read of the scope's path
    happens only when a message needs it.
    """
    return cast(str, ConstructPath(scope, id))
