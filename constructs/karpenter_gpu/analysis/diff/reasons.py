"""Reason text: manifest values in one line, maps and lists as what was added, removed and changed.

The reasons a classifier writes are data (they quote manifest values verbatim); every renderer escapes
them for where they land (:mod:`karpenter_gpu.analysis.diff.render`).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable

from karpenter_gpu.k8s.drift import canonical, hash_form, same_hash
from karpenter_gpu.render.escape import clip


def _short(value: Any) -> str:
    """``value`` in one line; every string in it is cut at :data:`~karpenter_gpu.render.escape.MAX_VALUE`
    characters with a count of the rest (:func:`~karpenter_gpu.render.escape.clip`)."""
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_short(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{clip(str(k))}: {_short(v)}" for k, v in value.items()) + "}"
    return clip(str(value))


def _change(old: Any, new: Any) -> str:
    """``old → new``; when both are cut to the same text, where they start to differ."""
    a, b = _short(old), _short(new)
    if a != b:
        return f"{a} → {b}"
    x, y = str(old), str(new)
    first = next((i for i, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
    return f"{a} → {b} (they differ from character {first + 1} on)"


_canon = canonical
_norm = hash_form
_same = same_hash


def _leaves(old: Any, new: Any, path: str) -> list[str]:
    """Every differing leaf as ``path: old → new``; lists as the items added and removed (order ignored)."""
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[str] = []
        for key in sorted(set(old) | set(new), key=str):
            sub = f"{path}.{clip(str(key))}" if path else clip(str(key))
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
    return [f"{path}: {_change(old, new)}"]


def _few(items: list[str], limit: int = 4) -> str:
    return "; ".join(items[:limit]) + (f"; and {len(items) - limit} more" if len(items) > limit else "")


def _map_diff(old: dict | None, new: dict | None) -> list[str]:
    old, new = old or {}, new or {}
    out = []
    for key in sorted(set(old) | set(new)):
        if key not in old:
            out.append(f"{clip(str(key))}={_short(new[key])} added")
        elif key not in new:
            out.append(f"{clip(str(key))} removed")
        elif not _same(old[key], new[key]):
            out.append(f"{clip(str(key))}: {_change(old[key], new[key])}")
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

