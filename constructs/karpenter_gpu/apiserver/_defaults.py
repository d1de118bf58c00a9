"""Structural defaulting of a custom resource, as kube-apiserver applies a CRD's ``default:`` values on create.

Private to :mod:`karpenter_gpu.apiserver.conformance` (its public form is ``conformance.apply_defaults``). Upstream:
kubernetes apiextensions-apiserver ``pkg/apiserver/schema/defaulting`` (``structuraldefaulting.Default``: absent
properties get their schema's default, then the walk goes on into them, and
``PruneNonNullableNullsWithoutDefaults``).

The walk shares what it does not change (with the input, the schema and earlier objects), and remembers each distinct
non-empty object or array under a node with children as its own copy: GPU pools repeat whole templates, so most
subtrees are defaulted once per process. Treat the result as read-only; ``apply_defaults`` returns a deep copy.
"""

from __future__ import annotations

from typing import Any, Callable

from karpenter_gpu.apiserver._schema_walk import CONTAINERS, Schema, descends
from karpenter_gpu.perf import BoundedCache, OwnerCache, is_shared, share, value_repr


#: Defaulted subtrees by (id(schema node), repr of the value as written) -> (the node, the result): the result is
#: the memo's own copy, shared by every object with that subtree (read-only), so the checks find it again.
_DEFAULTED = BoundedCache(entries=1 << 14)


def _defaulted(value: Any, schema: Schema) -> Any:
    """:func:`defaulted_tree`, once per distinct non-empty object or array under a node with children."""
    if type(value) not in CONTAINERS or not value or not descends(schema):
        return defaulted_tree(value, schema)
    key = (id(schema), value_repr(value))
    entry = _DEFAULTED.get(key)
    if entry is None:
        # Its own copy (the caller's manifest may change later), sharing what a memo owns already (never changed):
        # the checks that walk the result next find those subtrees' reprs made.
        result = deep_copy(defaulted_tree(value, schema), keep=is_shared)
        entry = (schema, result)
        _DEFAULTED.put(key, entry, len(key[1]) + len(share(result)))
    return entry[1]


def defaulted_tree(value: Any, schema: Schema) -> Any:
    """``value`` with the schema's defaults filled in, in one walk: the parts it changes are new objects, the
    rest (and the defaults themselves) is shared with ``value``, the schema and earlier objects, so treat it as
    read-only."""
    # Same algorithm as apiextensions-apiserver's structural defaulting: fill absent properties
    # (and nulls in non-nullable ones, which the server prunes first), then recurse -- including
    # into freshly defaulted values, so nested defaults apply too.
    if isinstance(value, dict):
        props: dict[str, Schema] = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        extra = extra if isinstance(extra, dict) else None
        out = {}
        changed = False
        for key, child in value.items():
            sub = props.get(key, extra)
            if not sub:
                out[key] = child
            elif child is None:
                if not sub.get("nullable") and sub.get("default") is None:
                    changed = True
                    continue  # structuraldefaulting.PruneNonNullableNullsWithoutDefaults
                out[key] = None
            elif isinstance(child, (dict, list)):
                out[key] = new = _defaulted(child, sub)
                changed = changed or new is not child
            else:
                out[key] = child  # a scalar has no defaults of its own
        for key, prop in _with_default(schema):
            absent = key not in out or (out[key] is None and not prop.get("nullable"))
            if absent:
                out[key] = _defaulted(prop["default"], prop)
                changed = True
        return out if changed else value
    if isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, dict):
            out_items = [_defaulted(item, items) for item in value]
            if any(new is not old for new, old in zip(out_items, value)):
                return out_items
        return value
    return value


#: The properties with a default, by schema node (held, so that its id is not reused).
_DEFAULTS = OwnerCache(owners=1 << 14)


def _with_default(schema: Schema) -> tuple[tuple[str, Schema], ...]:
    found: tuple[tuple[str, Schema], ...] | None = _DEFAULTS.get(schema)
    if found is None:
        props: dict[str, Schema] = schema.get("properties", {})
        found = _DEFAULTS.put(schema, tuple((key, prop) for key, prop in props.items()
                                            if prop.get("default") is not None))
    return found


def deep_copy(value: Any, keep: Callable[[Any], bool] | None = None) -> Any:
    """A deep copy of a parsed document (dicts, lists and immutable scalars): ~4x faster than deepcopy. ``keep``:
    the subtrees to share instead of copying (those it says True of)."""
    if keep is not None and keep(value):
        return value
    if isinstance(value, dict):
        return {key: deep_copy(child, keep) for key, child in value.items()}
    if isinstance(value, list):
        return [deep_copy(child, keep) for child in value]
    return value
