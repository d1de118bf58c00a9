"""Karpenter's scheduling semantics in pure Python: requirements, tolerations and ordering.

The one place that answers "does this node (or instance type, or offering) satisfy these requirements",
"does this pod tolerate these taints" and "in which order are NodePools / NodeOverlays tried". The
constructs' checks, the simulator, the rules, explain and diff all call it. Each function names the
upstream function (kubernetes-sigs/karpenter at tag v1.14.1 unless said otherwise) it reproduces.
"""

from __future__ import annotations

import re
from collections.abc import Mapping  # isinstance checks: the abc directly, not typing's alias
from typing import Any, Callable, Iterable, Iterator, Sequence, TypeVar

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.int64 import MAX as _INT64_MAX
from karpenter_gpu.k8s.int64 import MIN as _INT64_MIN
from karpenter_gpu.k8s.int64 import int64_of
from karpenter_gpu.k8s.labels import NORMALIZED_LABELS, WELL_KNOWN_LABELS
from karpenter_gpu.perf import Store

__all__ = [
    "COMPARISONS",
    "OPERATORS",
    "Requirement",
    "Requirements",
    "atoi",
    "order_by_weight",
    "pod_requirements",
    "satisfies_min_values",
    "taint_text",
    "tolerates",
    "toleration_for",
    "tolerations_for",
    "untolerated",
]

OPERATORS: frozenset[str] = frozenset({"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"})
COMPARISONS: frozenset[str] = frozenset({"Gt", "Lt", "Gte", "Lte"})
_INT = re.compile(r"[+-]?[0-9]+")


def _wrap64(value: int) -> int:
    """``value`` as Go's int64 arithmetic leaves it (two's complement wrap-around)."""
    return (value - _INT64_MIN) % 2**64 + _INT64_MIN


def atoi(text: Any) -> int | None:
    """Go's ``strconv.Atoi`` on a 64-bit platform: optional sign, ASCII digits, int64 range; else None.

    ``requirement.go`` ``withinBounds`` uses it for label values, so ``" 5"``, ``"5.0"`` and ``"abc"``
    are not integers and never satisfy a bound.
    """
    if not isinstance(text, str) or not _INT.fullmatch(text):
        return None
    return int64_of(text)


def _fail(where: str, value: Any, allowed: str, fix: str) -> KarpenterGpuError:
    return KarpenterGpuError("KG620", prop=where, value=value, allowed=allowed, fix=fix)


class Requirement:
    """One key's requirement: a value set, a complement flag and inclusive integer bounds.

    ``pkg/scheduling/requirement.go`` ``Requirement``: ``In`` is a set, ``NotIn``/``Exists`` are
    complements, ``DoesNotExist`` is the empty set, and ``Gt``/``Lt``/``Gte``/``Lte`` are a complement
    with bounds (``Gt N`` is stored as ``>= N+1``, ``Lt N`` as ``<= N-1``). Immutable.
    """

    __slots__ = ("_hash", "complement", "gte", "key", "lte", "min_values", "values")

    def __init__(self, key: str, complement: bool, values: frozenset[str], gte: int | None = None,
                 lte: int | None = None, min_values: int | None = None) -> None:
        self.key, self.complement, self.values = key, complement, values
        self.gte, self.lte, self.min_values = gte, lte, min_values
        self._hash: int | None = None

    # ------------------------------------------------------------------ construction

    @classmethod
    def new(cls, key: str, operator: str, values: Iterable[str] = (), min_values: int | None = None) -> "Requirement":
        """``NewRequirementWithFlexibility``: normalize the key, canonicalize Gt/Lt to Gte/Lte.

        At the int64 edges it does what Go does: ``Gt 9223372036854775807`` is a plain DoesNotExist (its
        minValues dropped) and ``Lt -9223372036854775808`` wraps to ``<= 9223372036854775807``.

        Comparison values must already be valid (the CRD guarantees it; :meth:`from_dict` checks it).
        """
        key = NORMALIZED_LABELS.get(key, key)
        vals = tuple(values)
        if operator == "In":
            return cls(key, False, frozenset(vals), min_values=min_values)
        if operator == "NotIn":
            return cls(key, True, frozenset(vals), min_values=min_values)
        if operator == "Exists":
            return cls(key, True, frozenset(), min_values=min_values)
        if operator == "DoesNotExist":
            return cls(key, False, frozenset(), min_values=min_values)
        number = atoi(vals[0]) if len(vals) == 1 else None
        if operator not in COMPARISONS or number is None:
            raise _fail(f"requirements[{key}]", {"operator": operator, "values": list(vals)},
                        f"one of {sorted(OPERATORS)}; Gt/Lt/Gte/Lte with exactly one integer",
                        "write the requirement as the NodePool CRD accepts it")
        if operator == "Gt":
            if number == _INT64_MAX:  # Gt MaxInt matches nothing: NewRequirement(key, DoesNotExist), minValues dropped
                return cls(key, False, frozenset())
            return cls(key, True, frozenset(), gte=number + 1, min_values=min_values)
        if operator == "Lt":  # Go's int64 `value--` wraps: Lt MinInt is <= MaxInt
            return cls(key, True, frozenset(), lte=number - 1 if number > _INT64_MIN else _INT64_MAX,
                       min_values=min_values)
        if operator == "Gte":
            return cls(key, True, frozenset(), gte=number, min_values=min_values)
        return cls(key, True, frozenset(), lte=number, min_values=min_values)

    @classmethod
    def from_dict(cls, raw: Any, where: str = "requirement") -> "Requirement":
        """A ``NodeSelectorRequirementWithMinValues`` dict, checked as the NodePool CRD checks it (KG620).

        Refused: no key, an unknown operator (they are case-sensitive), values that are not a list,
        ``In`` without values, ``Gt``/``Lt``/``Gte``/``Lte`` without exactly one non-negative integer
        (CEL ``int(x.values[0]) >= 0``), ``minValues`` outside 1..50 or above the ``In`` values.
        ``Exists``/``DoesNotExist`` ignore values; ``NotIn`` without values is ``Exists``.
        """
        memo = _memo_key(raw)
        known = _READ.get(memo) if memo is not None else None
        if known is not None:
            return known
        if not isinstance(raw, Mapping) or not isinstance(raw.get("key"), str) or not raw.get("key"):
            raise _fail(where, raw, "{key, operator, values[]} with a key", "write a NodeSelectorRequirement")
        key, op = raw["key"], raw.get("operator")
        if op not in OPERATORS:
            raise _fail(f"{where}.operator", op, f"one of {sorted(OPERATORS)}",
                        "use a Karpenter operator (they are case-sensitive)")
        values = raw.get("values")
        if values is None:
            values = []
        if not isinstance(values, (list, tuple)) or not all(isinstance(v, str) for v in values):
            raise _fail(f"{where}.values", values, "a list of strings", "quote every value: values: ['1']")
        if op == "In" and not values:
            raise _fail(f"{where}.values", [], "at least one value for In", "list the values or use Exists")
        if op in COMPARISONS:
            number = atoi(values[0]) if len(values) == 1 else None
            if number is None or number < 0:
                raise _fail(f"{where}.values", list(values), f"exactly one non-negative integer for {op}",
                            "e.g. values: ['0']")
        min_values = raw.get("minValues")
        if min_values is not None and (isinstance(min_values, bool) or not isinstance(min_values, int)
                                       or not 1 <= min_values <= 50 or (op == "In" and min_values > len(values))):
            raise _fail(f"{where}.minValues", min_values, "1..50 and, with In, no more than the number of values",
                        "lower minValues or list more values")
        if op in ("Exists", "DoesNotExist"):
            values = []
        read = cls.new(key, op, values, min_values)
        return _READ.put(memo, read) if memo is not None else read

    # ------------------------------------------------------------------ queries

    @property
    def operator(self) -> str:
        """``Requirement.Operator``: NotIn/Exists for complements, In/DoesNotExist for sets (bounds aside)."""
        if self.complement:
            return "NotIn" if self.values else "Exists"
        return "In" if self.values else "DoesNotExist"

    @property
    def any_panics(self) -> bool:
        """Whether ``Requirement.Any`` (``pkg/scheduling/requirement.go``) panics: for a NotIn/Exists requirement it
        returns ``rand.Intn(max-min) + min`` with ``min`` its lower bound (else 0) and ``max`` its upper bound + 1
        (else MaxInt64), in Go's wrapping int64 arithmetic, and ``rand.Intn`` panics ("invalid argument to Intn")
        unless that range is above 0: ``Lt 0`` (no lower bound, upper bound -1), or ``Gt`` near MaxInt64."""
        if not self.complement:
            return False
        low = self.gte if self.gte is not None else 0
        high = _wrap64(self.lte + 1) if self.lte is not None else _INT64_MAX
        return _wrap64(high - low) <= 0

    def _within(self, value: str, gte: int | None, lte: int | None) -> bool:
        """``withinBounds``: with a bound set, a non-integer value is outside."""
        if gte is None and lte is None:
            return True
        number = atoi(value)
        return number is not None and (gte is None or number >= gte) and (lte is None or number <= lte)

    def has(self, value: str) -> bool:
        """``Requirement.Has``: whether a node labelled ``key=value`` satisfies it."""
        if self.complement:
            return value not in self.values and self._within(value, self.gte, self.lte)
        return value in self.values and self._within(value, self.gte, self.lte)

    def admits(self, value: str | None) -> bool:
        """Whether a label set with ``value`` for this key (None: no such label) satisfies the requirement.

        An absent label satisfies exactly the requirements whose ``Operator()`` is NotIn or DoesNotExist
        (``Requirements.Compatible`` of ``NewLabelRequirements`` for a node without the key).
        """
        if value is None:
            return self.operator in ("NotIn", "DoesNotExist")
        return self.has(value)

    def intersection(self, other: "Requirement") -> "Requirement":
        """``Requirement.Intersection``; crossing bounds give DoesNotExist (with the larger minValues)."""
        complement = self.complement and other.complement
        gte = _max(self.gte, other.gte)
        lte = _min(self.lte, other.lte)
        min_values = _max(self.min_values, other.min_values)
        if gte is not None and lte is not None and gte > lte:
            return Requirement(self.key, False, frozenset(), min_values=min_values)
        if self.complement and other.complement:
            values = self.values | other.values
        elif self.complement:
            values = other.values - self.values
        elif other.complement:
            values = self.values - other.values
        else:
            values = self.values & other.values
        values = frozenset(v for v in values if self._within(v, gte, lte))
        if not complement:
            gte = lte = None
        return Requirement(self.key, complement, values, gte, lte, min_values)

    def has_intersection(self, other: "Requirement") -> bool:
        """``Requirement.HasIntersection``: some value satisfies both."""
        gte = _max(self.gte, other.gte)
        lte = _min(self.lte, other.lte)
        if gte is not None and lte is not None and gte > lte:
            return False
        if self.complement and other.complement:
            return True
        if self.complement:
            return any(v not in self.values and self._within(v, gte, lte) for v in other.values)
        if other.complement:
            return any(v not in other.values and self._within(v, gte, lte) for v in self.values)
        return any(v in other.values and self._within(v, gte, lte) for v in self.values)

    # ------------------------------------------------------------------ rendering

    def to_dicts(self) -> list[dict]:
        """``NodeSelectorRequirement`` / ``BoundedNodeSelectorRequirements``: one dict, two with both bounds."""
        def out(op: str, values: list[str] | None = None) -> dict:
            d: dict = {"key": self.key, "operator": op}
            if values is not None:
                d["values"] = values
            if self.min_values is not None:
                d["minValues"] = self.min_values
            return d
        if self.gte is not None and self.lte is not None:
            return [out("Gte", [str(self.gte)]), out("Lte", [str(self.lte)])]
        if self.gte is not None:
            return [out("Gte", [str(self.gte)])]
        if self.lte is not None:
            return [out("Lte", [str(self.lte)])]
        op = self.operator
        return [out(op, sorted(self.values)) if op in ("In", "NotIn") else out(op)]

    def __str__(self) -> str:
        """``Requirement.String``: ``key Op [values]`` plus bounds and minValues."""
        op = self.operator
        text = f"{self.key} {op}" if op in ("Exists", "DoesNotExist") else f"{self.key} {op} {sorted(self.values)}"
        if self.gte is not None:
            text += f" >={self.gte}"
        if self.lte is not None:
            text += f" <={self.lte}"
        if self.min_values is not None:
            text += f" minValues {self.min_values}"
        return text

    def _state(self) -> tuple:
        return (self.key, self.complement, self.values, self.gte, self.lte, self.min_values)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Requirement) and self._state() == other._state()

    def __hash__(self) -> int:  # memo keys hash the same requirement many times
        if self._hash is None:
            self._hash = hash(self._state())
        return self._hash

    def __repr__(self) -> str:
        return f"Requirement({self})"


def _max(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else max(a, b)


def _min(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else min(a, b)


def _memo_key(raw: Any) -> tuple | None:
    """The key :meth:`Requirement.from_dict` remembers a dict's answer by: its key, operator, values and minValues,
    each with its type (``True`` equals ``1``), or None for anything but a plain dict of plain values."""
    if type(raw) is not dict:
        return None
    values, min_values = raw.get("values"), raw.get("minValues")
    if type(values) is list:
        if not all(type(v) is str for v in values):
            return None
        values = tuple(values)
    elif values is not None:
        return None
    return (type(raw.get("key")), raw.get("key"), type(raw.get("operator")), raw.get("operator"), values,
            type(min_values), min_values)


#: What :meth:`Requirement.from_dict` read (immutable requirements, shared), by :func:`_memo_key`: pools repeat
#: their requirements. Only dicts it accepted (a :class:`~karpenter_gpu.perf.Store`).
_READ = Store()


class Requirements(Mapping[str, Requirement]):
    """Requirements by key, several on one key intersected (``pkg/scheduling/requirements.go`` ``Requirements``)."""

    __slots__ = ("_by_key",)

    def __init__(self, requirements: Iterable[Requirement] = ()) -> None:
        self._by_key: dict[str, Requirement] = {}
        self.add(*requirements)

    @classmethod
    def from_dicts(cls, items: Iterable[Any], where: str = "requirements") -> "Requirements":
        """``NewNodeSelectorRequirementsWithMinValues`` over checked dicts (:meth:`Requirement.from_dict`)."""
        return cls(Requirement.from_dict(r, f"{where}[{i}]") for i, r in enumerate(items))

    @classmethod
    def from_labels(cls, labels: Mapping[str, str]) -> "Requirements":
        """``NewLabelRequirements``: each label ``k: v`` is ``k In [v]`` (a value "" included)."""
        return cls(Requirement.new(str(k), "In", (str(v),)) for k, v in labels.items())

    def add(self, *requirements: Requirement) -> None:
        """``Requirements.Add``: intersect with what the key already has. An empty intersection is
        DoesNotExist on that key (a node without the label), not "nothing launches"."""
        for req in requirements:
            existing = self._by_key.get(req.key)
            self._by_key[req.key] = req if existing is None else req.intersection(existing)

    def merged(self, *others: "Requirements | Iterable[Requirement]") -> "Requirements":
        out = Requirements(self._by_key.values())
        for other in others:
            out.add(*(other.values() if isinstance(other, Requirements) else other))
        return out

    def get(self, key: str, default: Any = None) -> Requirement:
        """``Requirements.Get``: an undefined key allows any value (Exists)."""
        found = self._by_key.get(key)
        return found if found is not None else Requirement(key, True, frozenset())

    def __getitem__(self, key: str) -> Requirement:
        return self._by_key[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_key)

    def __len__(self) -> int:
        return len(self._by_key)

    def __contains__(self, key: object) -> bool:
        return key in self._by_key

    # the dict's own views: the Mapping mixins build a view object per call on the hot path
    def keys(self):
        return self._by_key.keys()

    def items(self):
        return self._by_key.items()

    def values(self):
        return self._by_key.values()

    def intersects(self, incoming: "Requirements") -> str | None:
        """``Requirements.Intersects``: None, or why a shared key has no common value.

        Two requirements that both exclude (NotIn/DoesNotExist) never conflict.
        """
        key = self.conflicting_key(incoming)
        return None if key is None else f"key {key}, {incoming._by_key[key]} not in {self._by_key[key]}"

    def conflicting_key(self, incoming: "Requirements") -> str | None:
        """The first key :meth:`intersects` refuses, without building the message (the hot path)."""
        mine, theirs = self._by_key, incoming._by_key
        small, large = (mine, theirs) if len(mine) <= len(theirs) else (theirs, mine)
        for key in small:
            if key not in large:
                continue
            existing, other = mine[key], theirs[key]
            if existing.has_intersection(other):
                continue
            if other.operator in ("NotIn", "DoesNotExist") and existing.operator in ("NotIn", "DoesNotExist"):
                continue
            return key
        return None

    def compatible(self, incoming: "Requirements", allow_undefined: frozenset[str] = frozenset()) -> str | None:
        """``Requirements.Compatible``: None, or why ``incoming`` cannot be met by these requirements.

        A key of ``incoming`` that these requirements do not define is refused ("label does not have
        known values") unless it is in ``allow_undefined`` (``AllowUndefinedWellKnownLabels`` passes
        :data:`~karpenter_gpu.k8s.labels.WELL_KNOWN_LABELS`) or its operator is NotIn/DoesNotExist.
        """
        for key, req in incoming._by_key.items():
            if key in allow_undefined or key in self._by_key or req.operator in ("NotIn", "DoesNotExist"):
                continue
            return f"label {key!r} does not have known values"
        return self.intersects(incoming)

    def compatible_well_known(self, incoming: "Requirements") -> str | None:
        """``Compatible(..., AllowUndefinedWellKnownLabels)``: how a pod's requirements meet a NodePool's."""
        return self.compatible(incoming, WELL_KNOWN_LABELS)

    def admits_labels(self, labels: Mapping[str, str]) -> str | None:
        """None when a node with exactly ``labels`` satisfies every requirement, else the first failure.

        ``NewLabelRequirements(labels).Compatible(self)``, the check ``areRequirementsDrifted`` in
        ``pkg/controllers/nodeclaim/disruption/drift.go`` makes for a NodeClaim.
        """
        for key, req in self._by_key.items():
            if not req.admits(labels.get(key)):
                value = labels.get(key)
                return f"{key}={value!r} does not satisfy {req}" if value is not None else \
                    f"label {key!r} is absent and {req} needs it"
        return None

    def to_dicts(self) -> list[dict]:
        return [d for req in self._by_key.values() for d in req.to_dicts()]

    def __str__(self) -> str:
        return ", ".join(sorted(str(r) for r in self._by_key.values()))

    def __repr__(self) -> str:
        return f"Requirements({self})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Requirements) and self._by_key == other._by_key

    def __hash__(self) -> int:  # Mapping is unhashable by default; these are value objects
        return hash(frozenset(self._by_key.values()))


def satisfies_min_values(instance_types: Sequence[Requirements], requirements: Requirements) -> tuple[int, dict[str, int]]:
    """``InstanceTypes.SatisfiesMinValues`` (``pkg/cloudprovider/types.go``) over instance types in order (each
    given by its requirements): how many of the first types are needed before every key with ``minValues`` sees
    that many distinct values, and the keys still short after all of them (key: distinct values seen).

    A type's values for a key are ``Requirements.Get(key).Values()``: a type without the key adds none.
    Without any minValues the answer is ``(0, {})``.
    """
    wanted = {key: req.min_values for key, req in requirements.items() if req.min_values is not None}
    if not wanted:
        return 0, {}
    seen: dict[str, set[str]] = {key: set() for key in wanted}
    short: dict[str, int] = {}
    for index, it in enumerate(instance_types):
        for key in wanted:
            seen[key].update(it.get(key).values)
        short = {key: len(seen[key]) for key, need in wanted.items() if len(seen[key]) < need}
        if not short:
            return index + 1, {}
    return len(instance_types), short


def pod_requirements(pod_spec: Mapping[str, Any]) -> Requirements:
    """``NewStrictPodRequirements`` (``pkg/scheduling/requirements.go`` ``newPodRequirements``): the
    ``nodeSelector`` as In requirements, then the first required ``nodeSelectorTerm``'s matchExpressions
    (the scheduler relaxes OR-ed terms one by one; the first is what it tries). Raises KG620."""
    selector = pod_spec.get("nodeSelector")
    reqs = Requirements.from_labels(selector if isinstance(selector, Mapping) else {})
    affinity = pod_spec.get("affinity")
    node = affinity.get("nodeAffinity") if isinstance(affinity, Mapping) else None
    required = node.get("requiredDuringSchedulingIgnoredDuringExecution") if isinstance(node, Mapping) else None
    terms = required.get("nodeSelectorTerms") if isinstance(required, Mapping) else None
    if isinstance(terms, list) and terms and isinstance(terms[0], Mapping):
        exprs = terms[0].get("matchExpressions") or []
        where = "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
        reqs.add(*Requirements.from_dicts(exprs if isinstance(exprs, list) else [exprs], where).values())
    return reqs


# --------------------------------------------------------------------------- tolerations

_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def tolerates(toleration: Mapping[str, Any], taint: Mapping[str, Any]) -> bool:
    """Kubernetes ``Toleration.ToleratesTaint`` (k8s.io/api v0.35 ``core/v1/toleration.go``, comparison
    operators enabled as Karpenter calls it from ``pkg/scheduling/taints.go`` ``Taints.Tolerates``).

    An empty effect matches every effect and an empty key every key; operator "" or Equal compares
    values ("" when unset); Exists matches any value; Gt/Lt compare the taint's integer value with the
    toleration's (``taint > toleration`` for Gt), both strict decimal int64 (:func:`_decimal_int64`);
    anything else matches nothing.
    """
    effect = toleration.get("effect") or ""
    if effect and effect != taint.get("effect"):
        return False
    key = toleration.get("key") or ""
    if key and key != taint.get("key"):
        return False
    operator = toleration.get("operator") or "Equal"
    if operator == "Equal":
        return str(toleration.get("value") or "") == str(taint.get("value") or "")
    if operator == "Exists":
        return True
    if operator in ("Gt", "Lt"):
        mine, theirs = _decimal_int64(toleration.get("value")), _decimal_int64(taint.get("value"))
        if mine is None or theirs is None:
            return False
        return theirs > mine if operator == "Gt" else theirs < mine
    return False


_DECIMAL_INTEGER = re.compile(r"0|-?[1-9][0-9]*")


def _decimal_int64(value: Any) -> int | None:
    """``compareNumericValues`` (k8s.io/api ``core/v1/toleration.go``): ``content.IsDecimalInteger`` (no sign but
    ``-``, no leading zero, so ``+2``, ``05`` and ``-0`` are refused) then ``strconv.ParseInt(v, 10, 64)``."""
    text = str(value or "")
    if not _DECIMAL_INTEGER.fullmatch(text):
        return None
    return int64_of(text)


def untolerated(taints: Iterable[Mapping[str, Any]], tolerations: Sequence[Mapping[str, Any]],
                *, relax_preferences: bool = True) -> list[Mapping[str, Any]]:
    """The taints no toleration tolerates (``Taints.Tolerates``: every taint must be tolerated).

    With ``relax_preferences`` (the scheduler's behaviour), PreferNoSchedule taints are tolerated: as soon as
    a NodePool has such a taint, ``NewScheduler`` (``scheduling/scheduler.go``) sets
    ``Preferences.ToleratePreferNoSchedule`` and ``toleratePreferNoScheduleTaints`` (``preferences.go``)
    adds an Exists/PreferNoSchedule toleration to a pod that does not fit.
    """
    out = []
    for taint in taints:
        if not isinstance(taint, Mapping):
            continue
        if relax_preferences and taint.get("effect") == "PreferNoSchedule":
            continue
        if not any(tolerates(t, taint) for t in tolerations if isinstance(t, Mapping)):
            out.append(taint)
    return out


def toleration_for(taint: Mapping[str, Any]) -> dict:
    """The narrowest toleration of ``taint``: ``Equal`` on its value, ``Exists`` when it has none."""
    if taint.get("value") in (None, ""):
        return {"key": taint.get("key"), "operator": "Exists", "effect": taint.get("effect")}
    return {"key": taint.get("key"), "operator": "Equal", "value": taint.get("value"), "effect": taint.get("effect")}


def tolerations_for(taints: Iterable[Mapping[str, Any]]) -> list[dict]:
    """One toleration per distinct taint (:func:`toleration_for`), without those another one of the list
    already covers (an ``Exists`` on a key and effect tolerates every ``Equal`` on them, by
    :func:`tolerates`). Sorted by key, effect, operator, value."""
    wanted = {(t.get("key"), t.get("effect"), t.get("value") or None): t for t in taints}
    found = [toleration_for(t) for t in wanted.values()]
    kept = [tol for tol in found if not any(other is not tol and other["operator"] == "Exists" and tolerates(
        other, {k: v for k, v in tol.items() if k != "operator"}) for other in found)]
    return sorted(kept, key=lambda t: (str(t["key"]), str(t["effect"]), t["operator"], str(t.get("value", ""))))


def taint_text(taint: Mapping[str, Any]) -> str:
    """``key=value:Effect`` (``key:Effect`` without a value), as kubectl prints a taint."""
    value = taint.get("value")
    return f"{taint.get('key')}{'=' + str(value) if value not in (None, '') else ''}:{taint.get('effect')}"


# --------------------------------------------------------------------------- ordering

T = TypeVar("T")


def order_by_weight(items: Iterable[T], weight: Callable[[T], int | None], name: Callable[[T], str]) -> list[T]:
    """Highest weight first (unset is 0); equal weights by name *descending*.

    Both ``pkg/utils/nodepool/nodepool.go`` ``OrderByWeight`` (NodePools) and
    ``pkg/apis/v1alpha1/nodeoverlay.go`` ``NodeOverlayList.OrderByWeight`` (NodeOverlays) sort this way:
    "the NodePool with the name later in the alphabet will come first".
    """
    return sorted(items, key=lambda x: (weight(x) or 0, name(x)), reverse=True)
