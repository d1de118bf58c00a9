"""Reason text: manifest values in one line, maps and lists as what was added, removed and changed.

The reasons a classifier writes are data (they quote manifest values verbatim); every renderer escapes
them for where they land (:mod:`karpenter_gpu.analysis.diff.render`).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable

from karpenter_gpu.k8s.drift import canonical, hash_form, same_hash

def _short(value: Any, limit: int | None = None) -> str:
    """``value`` in one line, in full (a before/after pair cut to the same prefix hides the change)."""
    if value is None:
        return "unset"
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, (int, float, str)):
        text = str(value).replace("\n", "\\n")
    elif isinstance(value, list):
        text = "[" + ", ".join(_short(v, limit) for v in value) + "]"
    elif isinstance(value, dict):
        text = "{" + ", ".join(f"{k}: {_short(v, limit)}" for k, v in value.items()) + "}"
    else:
        text = str(value)
    return text if limit is None or len(text) <= limit else text[: limit - 1] + "…"


_canon = canonical
_norm = hash_form
_same = same_hash



_canon = canonical
_norm = hash_form
_same = same_hash


def _leaves(old: Any, new: Any, path: str) -> list[str]:
    """Every differing leaf as ``path: old → new``; lists as the items added and removed (order ignored)."""
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[str] = []
        for key in sorted(set(old) | set(new), key=str):
            sub = f"{path}.{key}" if path else str(key)
            if key not in new:
                out.append(f"{sub} removed (was {_short(old[key])})")
            elif key not in old:
                out.append(f"{sub} added: {_short(new[key])}")
            else:
                out.extend(_leaves(old[key], new[key], sub))
        return out
    if _same(old, new):
        return []
    if isinstance(old, list) and isinstance(new, list):
        gone = [x for x in old if not any(_same(x, y) for y in new)]
        came = [y for y in new if not any(_same(x, y) for x in old)]
        if gone and len(gone) == len(came) and all(isinstance(x, dict) for x in gone + came):
            # the same number of maps changed: show what changed inside each (paired in list order)
            return [leaf for x, y in zip(gone, came) for leaf in _leaves(x, y, f"{path}[{old.index(x)}]")]
        return [f"{path}: {'; '.join(_list_diff(old, new, _short))}"]
    return [f"{path}: {_short(old)} → {_short(new)}"]


def _few(items: list[str], limit: int = 4) -> str:
    return "; ".join(items[:limit]) + (f"; and {len(items) - limit} more" if len(items) > limit else "")


def _map_diff(old: dict | None, new: dict | None) -> list[str]:
    old, new = old or {}, new or {}
    out = []
    for key in sorted(set(old) | set(new)):
        if key not in old:
            out.append(f"{key}={_short(new[key])} added")
        elif key not in new:
            out.append(f"{key} removed")
        elif not _same(old[key], new[key]):
            out.append(f"{key}: {_short(old[key])} → {_short(new[key])}")
    return out


def _list_diff(old: list | None, new: list | None, fmt: Callable[[Any], str]) -> list[str]:
    """Items added and removed, as multisets (order is not part of the hash)."""
    a = Counter(_canon(_norm(x)) for x in old or [])
    b = Counter(_canon(_norm(x)) for x in new or [])
    show = {_canon(_norm(x)): fmt(x) for x in [*(old or []), *(new or [])]}
    added = [f"{show[k]} added" for k in sorted((b - a).elements(), key=lambda k: show[k])]
    removed = [f"{show[k]} removed" for k in sorted((a - b).elements(), key=lambda k: show[k])]
    return added + removed


def _taint(t: Any) -> str:
    if not isinstance(t, dict):
        return _short(t)
    value = f"={t['value']}" if t.get("value") not in (None, "") else ""
    return f"{t.get('key', '?')}{value}:{t.get('effect', '?')}"


def _budget(b: Any) -> str:
    if not isinstance(b, dict):
        return _short(b)
    text = f"nodes {b.get('nodes', '?')}"
    if b.get("schedule"):
        text += f" at '{b['schedule']}' for {b.get('duration', '?')}"
    if b.get("reasons"):
        text += " (" + ",".join(map(str, b["reasons"])) + ")"
    return text


def _device(d: Any) -> str:
    if not isinstance(d, dict):
        return _short(d)
    ebs = d.get("ebs") or {}
    bits = [str(d.get("deviceName", "?"))] + [str(ebs[k]) for k in ("volumeSize", "volumeType") if k in ebs]
    extra = {k: v for k, v in ebs.items() if k not in ("volumeSize", "volumeType")}
    if extra:
        bits.append(_short(extra))
    return " ".join(bits)


def _term(t: Any) -> str:
    return _short(t)


def _requirement(r: dict) -> str:
    op = r.get("operator", "?")
    values = r.get("values") or []
    text = f"{op} [{', '.join(map(str, values))}]" if values or op in ("In", "NotIn") else str(op)
    if r.get("minValues") is not None:
        text += f" minValues {r['minValues']}"
    return text



def _by_key(requirements: list | None) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for r in requirements or []:
        if isinstance(r, dict):
            out.setdefault(str(r.get("key")), []).append(r)
    return out


def _requirements_text(old: list | None, new: list | None) -> str:
    a, b = _by_key(old), _by_key(new)
    parts = []
    for key in sorted(set(a) | set(b)):
        if _same(a.get(key), b.get(key)):
            continue
        before = " + ".join(_requirement(r) for r in a.get(key, [])) or "(none)"
        after = " + ".join(_requirement(r) for r in b.get(key, [])) or "(none)"
        parts.append(f"{key} {before} → {after}")
    return _few(parts)

