"""The coverage table of a fresh oracle run: which CRD leaf paths and controller settings the cases set, and whether
they matter to Karpenter.

Per family, for each leaf path of the NodePool, EC2NodeClass and NodeOverlay CRDs (:mod:`tests.oracle.schema_gen`)
and each controller setting of the scheduler family's ``settings`` (a setting counts as set when it differs from
the chart's default), the table counts the cases that set it and, for a bounded sample of them (the first
:data:`SAMPLE` in case order), how many answers of Karpenter change when the path is removed from the case (every
occurrence, in every object of that kind; a setting goes back to its default). A leaf path no family sets fails the
run, unless :func:`tests.oracle.schema_gen.allowed_unset` gives a reason.
"""

from __future__ import annotations

import copy
import json
from collections import defaultdict
from typing import Any, Callable, Iterator

from tests.oracle import schema_gen
from tests.oracle import scheduler_schema

#: Cases per family and path re-run without the path (bounded: the run stays within CI's budget).
SAMPLE = 6
KINDS = tuple(schema_gen.CRD_FILES)


# ----------------------------------------------------------------------------------------------- objects of a case

def _apiserver_objects(case: dict) -> list[tuple[str, Any]]:
    obj = case.get("object")
    kind = obj.get("kind") if isinstance(obj, dict) else None
    return [(kind, obj)] if kind in KINDS else []


def _apiserver_without(case: dict, kind: str, path: str) -> dict:
    return {**case, "object": schema_gen.without(case["object"], path)}


def _drift_objects(case: dict) -> list[tuple[str, Any]]:
    return [(case["kind"], case["old"]), (case["kind"], case["new"])]


def _drift_without(case: dict, kind: str, path: str) -> dict:
    return {**case, "old": schema_gen.without(case["old"], path), "new": schema_gen.without(case["new"], path)}


def _overlay_objects(case: dict) -> list[tuple[str, Any]]:
    return [("NodeOverlay", o) for o in case.get("overlays", [])] + [("NodePool", p) for p in case["nodepools"]]


def _overlay_without(case: dict, kind: str, path: str) -> dict:
    field = "overlays" if kind == "NodeOverlay" else "nodepools"
    return {**case, field: [schema_gen.without(o, path) for o in case[field]]}


OBJECTS: dict[str, Callable[[dict], list[tuple[str, Any]]]] = {
    "apiserver": _apiserver_objects, "drift": _drift_objects, "overlay": _overlay_objects,
    "scheduler": scheduler_schema.objects,
}
WITHOUT: dict[str, Callable[[dict, str, str], dict]] = {
    "apiserver": _apiserver_without, "drift": _drift_without, "overlay": _overlay_without,
    "scheduler": scheduler_schema.without,
}


# ----------------------------------------------------------------------------------------------- settings

def _settings_leaves(value: Any, prefix: str) -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _settings_leaves(child, f"{prefix}.{key}")
    else:
        yield prefix, value


def _settings_set(case: dict) -> set[str]:
    defaults = dict(_settings_leaves(scheduler_schema.default_settings(), "settings"))
    return {path for path, v in _settings_leaves(case.get("settings") or {}, "settings")
            if path not in defaults or defaults[path] != v}


def _settings_without(case: dict, path: str) -> dict:
    out = copy.deepcopy(case)
    parts = path.split(".")[1:]
    here: Any = out["settings"]
    default: Any = scheduler_schema.default_settings()
    for part in parts[:-1]:
        here, default = here[part], (default or {}).get(part)
    if isinstance(default, dict) and parts[-1] in default:
        here[parts[-1]] = default[parts[-1]]
    else:
        here.pop(parts[-1], None)
    return out


# ----------------------------------------------------------------------------------------------- the table

def paths_set(family: str, case: dict) -> set[tuple[str, str]]:
    """``(kind, path)`` of every leaf the case sets (kind ``settings`` for the controller's settings)."""
    out = {(kind, path) for kind, obj in OBJECTS[family](case) for path in schema_gen.leaves_set(kind, obj)}
    if family == "scheduler":
        out |= {("settings", p) for p in _settings_set(case)}
    return out


def _variant(family: str, case: dict, kind: str, path: str) -> dict:
    if kind == "settings":
        return _settings_without(case, path)
    return WITHOUT[family](case, kind, path)


def _same(a: dict, b: dict) -> bool:
    return json.dumps([a.get("answer"), a.get("error")], sort_keys=True) == \
        json.dumps([b.get("answer"), b.get("error")], sort_keys=True)


class Coverage:
    """What the fresh cases of each family set, and (on a sample) what changes Karpenter's answer."""

    def __init__(self) -> None:
        self.set: dict[str, dict[tuple[str, str], int]] = defaultdict(lambda: defaultdict(int))
        self.sampled: dict[str, dict[tuple[str, str], int]] = defaultdict(lambda: defaultdict(int))
        self.changed: dict[str, dict[tuple[str, str], int]] = defaultdict(lambda: defaultdict(int))
        self.families: list[str] = []

    def add(self, family: str, requests: list[dict], answers: list[dict], run: Callable[[list[dict]], list[dict]]
            ) -> None:
        """Count the cases of a family and re-run a sample of them without each path (``run``: the oracle's
        batch)."""
        if family not in OBJECTS:
            return
        self.families.append(family)
        variants: list[dict] = []
        keys: list[tuple[tuple[str, str], dict]] = []
        for request, got in zip(requests, answers):
            for key in sorted(paths_set(family, request["case"])):
                self.set[family][key] += 1
                if self.sampled[family][key] < SAMPLE:
                    self.sampled[family][key] += 1
                    variants.append({"id": f"{request['id']}-without-{key[1]}", "family": family,
                                     "case": _variant(family, request["case"], *key)})
                    keys.append((key, got))
        for (key, got), again in zip(keys, run(variants)):
            if not _same(got, again):
                self.changed[family][key] += 1

    def unset(self) -> list[str]:
        """The leaf paths no family set (allow-listed ones aside)."""
        reached = {key for family in self.families for key in self.set[family]}
        return [f"{kind} {path}" for kind in KINDS for path in schema_gen.settable(kind)
                if (kind, path) not in reached]

    def lines(self) -> list[str]:
        """The table: one row per path, per family ``set/changed of sampled`` (``-``: not set)."""
        families = self.families
        rows = [(kind, path) for kind in KINDS for path in schema_gen.leaf_paths(kind)]
        rows += sorted({key for f in families for key in self.set[f] if key[0] == "settings"})
        width = max(len(f"{kind} {path}") for kind, path in rows)
        head = f"{'path':<{width}}  " + "  ".join(f"{f:>20}" for f in families)
        out = ["oracle coverage: cases setting each path, and of a sample of them (at most "
               f"{SAMPLE}) how many change Karpenter's answer without it", head]
        for key in rows:
            reason = schema_gen.allowed_unset(key[1]) if key[0] != "settings" else None
            if reason is not None:
                continue
            cells = []
            for f in families:
                count = self.set[f].get(key, 0)
                cells.append(f"{count} ({self.changed[f].get(key, 0)}/{self.sampled[f].get(key, 0)})"
                             if count else "-")
            out.append(f"{key[0] + ' ' + key[1]:<{width}}  " + "  ".join(f"{c:>20}" for c in cells))
        allowed = sorted({p.split(".")[0].removesuffix("[]") for kind in KINDS for p in schema_gen.leaf_paths(kind)
                          if schema_gen.allowed_unset(p) is not None})
        out.extend(f"  not generated: {name}: {schema_gen.ALLOWED_UNSET[name]}" for name in allowed)
        return out
