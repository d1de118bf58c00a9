"""The project's pure-Python core answers the oracle's cases; disagreements are found and shrunk.

``answer(family, case)`` gives the core's answer in the shape the Go program gives Karpenter's, and
``differences(family, case, karpenter)`` lists where they part. ``shrink`` drops requirements, values,
taints, tolerations, fields and list items greedily while a case still disagrees.
"""

from __future__ import annotations

import copy
import itertools
from datetime import UTC, datetime, timedelta
from typing import Any, Callable, Iterator

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.cron import Cron
from karpenter_gpu.k8s.drift import same_drift_hash
from karpenter_gpu.k8s.labels import WELL_KNOWN_LABELS
from karpenter_gpu.k8s.scheduling import Requirement, Requirements, satisfies_min_values, untolerated
from tests.oracle import apiserver_family, batch_family, budgets_family, overlay_family, scheduler_family


# ----------------------------------------------------------------------------------------------- requirements

def _build(raw: list[dict]) -> Requirements:
    return Requirements(Requirement.new(r["key"], r["operator"], list(r.get("values") or []), r.get("minValues"))
                        for r in raw)


def _describe(reqs: Requirements, probe: list[str]) -> dict:
    out = {}
    for key, req in reqs.items():
        rendered = sorted(req.to_dicts(), key=lambda d: d["operator"])
        out[key] = {"operator": req.operator, "values": sorted(req.values), "minValues": req.min_values,
                    "rendered": rendered, "has": [req.has(v) for v in probe]}
    return out


def _per_key(incoming: Requirements, check: Callable[[Requirements], str | None]) -> dict:
    return {"ok": check(incoming) is None,
            "badKeys": [k for k in sorted(incoming) if check(Requirements([incoming[k]])) is not None]}


def _requirements(case: dict) -> dict:
    a, b = _build(case["a"]), _build(case["b"])
    ab = a.merged(b)
    types = [Requirements.from_labels(labels) for labels in case["instanceTypes"]]
    needed, unmet = satisfies_min_values(types, ab)
    probe = case["probe"]
    return {
        "a": _describe(a, probe), "b": _describe(b, probe), "ab": _describe(ab, probe),
        "compatible": _per_key(b, a.compatible),
        "compatibleWellKnown": _per_key(b, lambda r: a.compatible(r, WELL_KNOWN_LABELS)),
        "intersects": _per_key(b, a.intersects),
        "minValues": {"hasMinValues": any(r.min_values is not None for r in ab.values()), "needed": needed,
                      "unmet": unmet, "ok": not unmet},
    }


# ----------------------------------------------------------------------------------------------- tolerations

def _tolerations(case: dict) -> dict:
    taints, tols = case["taints"], case["tolerations"]
    return {"tolerated": not untolerated(taints, tols, relax_preferences=False),
            "perTaint": [not untolerated([t], tols, relax_preferences=False) for t in taints]}


# ----------------------------------------------------------------------------------------------- drift

def _drift(case: dict) -> dict:
    old, new = ({**m, "kind": case["kind"]} for m in (case["old"], case["new"]))
    try:
        return {"equal": same_drift_hash(old, new)}
    except KarpenterGpuError as error:
        return {"error": error.code}


# ----------------------------------------------------------------------------------------------- cron

def _cron(case: dict) -> dict:
    """:meth:`Cron.parse` of the schedule and its starts after ``from`` (``SpecSchedule.Next``: the first start
    strictly after a time), those before ``until``, at most ``count``."""
    try:
        schedule = Cron.parse(case["schedule"])
    except ValueError:
        return {"parses": False}
    begin = datetime.strptime(case["from"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC) + timedelta(seconds=1)
    until = datetime.strptime(case["until"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    starts = itertools.islice(schedule.starts(begin, until), case["count"])
    return {"parses": True, "next": [t.strftime("%Y-%m-%dT%H:%M:%SZ") for t in starts]}


ANSWERS: dict[str, Callable[[dict], dict]] = {
    "requirements": _requirements, "tolerations": _tolerations, "drift": _drift,
    "apiserver": apiserver_family.core_answer,
    "scheduler": scheduler_family.python_answer,
    "overlay": overlay_family.core_answer,
    "cron": _cron,
    "budgets": budgets_family.core_answer,
    "batch": batch_family.python_answer,
}
#: Per family, the cases one step smaller than a case (default: :func:`_smaller` on the case's fields).
SMALLER: dict[str, Callable[[dict], Iterator[dict]]] = {"scheduler": scheduler_family.smaller,
                                                        "overlay": overlay_family.smaller,
                                                        "batch": batch_family.smaller}


def answer(family: str, case: dict) -> Any:
    return ANSWERS[family](case)


def _comparable(family: str, karpenter: Any, case: dict) -> Any:
    """The part of Karpenter's answer the core answers too (the drift hashes themselves are Go's)."""
    if family == "apiserver":
        return apiserver_family.comparable(karpenter, case)
    if family == "drift" and isinstance(karpenter, dict):
        return {"equal": karpenter.get("equal")}
    return karpenter


def _diff(path: str, ours: Any, theirs: Any) -> Iterator[str]:
    if isinstance(ours, dict) and isinstance(theirs, dict):
        for key in sorted(set(ours) | set(theirs)):
            yield from _diff(f"{path}.{key}" if path else str(key), ours.get(key, "<absent>"),
                             theirs.get(key, "<absent>"))
    elif ours != theirs:
        yield f"{path}: core {ours!r}, Karpenter {theirs!r}"


def differences(family: str, case: dict, karpenter: Any, error: str | None = None) -> list[str]:
    """Where the core's answer differs from Karpenter's (empty: they agree)."""
    if error:
        if family == "scheduler" and scheduler_family.expected_panic(case, error):
            return []
        return [f"Karpenter could not answer: {error}"]
    try:
        if family == "scheduler":
            return scheduler_family.core_differences(case, karpenter)
        if family == "overlay":
            return overlay_family.core_differences(case, karpenter)
        if family == "batch":
            return batch_family.core_differences(case, karpenter)
        ours = answer(family, case)
        if family == "apiserver":
            ours = apiserver_family.core_comparable(ours, karpenter)
    except Exception as exc:  # noqa: BLE001 - any failure of the core on a case is a disagreement
        return [f"core raised {type(exc).__name__}: {exc}"]
    return list(_diff("", ours, _comparable(family, karpenter, case)))


# ----------------------------------------------------------------------------------------------- shrinking

def _smaller(value: Any) -> Iterator[Any]:
    """Candidates one step smaller than ``value``: an item or key dropped, or one part made smaller."""
    if isinstance(value, list):
        for i in range(len(value)):
            yield value[:i] + value[i + 1:]
        for i, item in enumerate(value):
            for smaller in _smaller(item):
                yield value[:i] + [smaller] + value[i + 1:]
    elif isinstance(value, dict):
        for key in list(value):
            if key in ("key", "operator", "kind"):  # what makes a requirement, taint or case readable
                continue
            yield {k: v for k, v in value.items() if k != key}
        for key, item in value.items():
            for smaller in _smaller(item):
                yield {**value, key: smaller}


def shrink(case: dict, still_disagrees: Callable[[dict], bool], budget: int = 400, family: str | None = None) -> dict:
    """Greedy: take the first smaller case that still disagrees, until none does (or ``budget`` tries);
    ``family``'s own :data:`SMALLER` steps when it has them."""
    current = copy.deepcopy(case)
    tries = 0
    progress = True
    while progress and tries < budget:
        progress = False
        # the case's own fields stay (a, b, taints, old, new ...): only what is inside them shrinks
        inner = SMALLER[family](current) if family in SMALLER else \
            ({**current, key: smaller} for key, value in current.items() for smaller in _smaller(value))
        for candidate in inner:
            tries += 1
            if still_disagrees(candidate):
                current, progress = candidate, True
                break
            if tries >= budget:
                break
    return current
