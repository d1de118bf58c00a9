"""What the schema walk (``conformance``), the CEL walk (``_cel``) and defaulting (``_defaults``) share: which values
and schema nodes are worth a cache entry (the caches themselves: :mod:`karpenter_gpu.perf`).

All three are pure: what they report for a value depends on the schema node and the value only (the path only names
where). GPU pools repeat whole subtrees -- requirements, taints, budgets, node class references -- across objects
and environments, so a subtree found clean (or defaulted) once is not walked again when it recurs.
"""

from __future__ import annotations

from typing import Any

Schema = dict[str, Any]
#: The value types a cache entry is made for (scalars are cached by value where it pays).
CONTAINERS = frozenset({dict, list})


def descends(schema: Schema) -> bool:
    """Whether a walk under ``schema`` visits children by schema (worth a cache entry; a node without
    ``properties``, ``items`` or ``additionalProperties`` costs no more to check than its key)."""
    return (isinstance(schema.get("properties"), dict) or isinstance(schema.get("items"), dict)
            or isinstance(schema.get("additionalProperties"), dict))
