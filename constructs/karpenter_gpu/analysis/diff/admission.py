"""What the API server makes of each side before Karpenter sees it: the objects it refuses, and the CRD
defaults it fills in on the others.

Refusals: every object of both sides goes through the schema check ``validate`` runs
(:func:`karpenter_gpu.apiserver.conformance.assess`: the CRD's ``openAPIV3Schema`` types, patterns, bounds and
enums, ObjectMeta, and the CEL rules; kube-apiserver ``customresource`` validation). An object with an error
there (a weight of 101, a budget of ``"1 node"`` or ``"101%"``, ``expireAfter: 30d``), or a Karpenter kind at
an apiVersion the CRDs do not serve, is refused; unknown fields are not refusals, the server prunes them
(KG301). What a refusal means for the review:

- a refused head object: the update (or create) is refused, so the cluster keeps the base object (or has
  none); the object is reported :attr:`~karpenter_gpu.analysis.diff.classify.Category.REFUSED` with the
  field paths and reasons, and is compared as if it were still the base object;
- a refused base object was never stored as written: it is compared as absent (so an accepted head object
  is new) and noted as info; when the head object is refused too, the refusal says so.

Defaults are read from the CRDs' ``default:`` values (:func:`karpenter_gpu.apiserver.conformance.apply_defaults`,
the same structural defaulting ``validate`` applies), never typed again here: ``expireAfter: 720h``, the
disruption block (``consolidateAfter: 0s``, ``consolidationPolicy``, ``budgets: [{nodes: 10%}]``), the
EC2NodeClass ``metadataOptions`` and whatever else the loaded CRDs default. Objects no loaded CRD serves (a
ConfigMap, Helm values) are compared as written.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from karpenter_gpu.analysis.diff.read import Key, Side
from karpenter_gpu.apiserver.conformance import SCHEMA_VIOLATION, UNKNOWN_FIELD, UNKNOWN_KIND, Crds, apply_defaults, assess
from karpenter_gpu.apiserver.crd_source import resolve_crd_dir
from karpenter_gpu.apiserver.findings import Severity
from karpenter_gpu.apiserver.crds import crds_from
from karpenter_gpu.k8s.labels import NODE_CLASS_KIND, NODEPOOL_KIND, OVERLAY_KIND

#: API groups whose every served kind the CRDs define: any other apiVersion of theirs does not exist.
_KARPENTER_GROUPS = frozenset(api.rpartition("/")[0] for api, _ in (NODEPOOL_KIND, NODE_CLASS_KIND, OVERLAY_KIND))


def crds_or_default(crds: Crds | None) -> Crds:
    """``crds``, else the CRDs ``validate`` would load (``$KARPENTER_GPU_CRDS`` or the packaged copy)."""
    return crds if crds is not None else crds_from(resolve_crd_dir())


@dataclass(frozen=True)
class Refusal:
    """An object of one side that the API server refuses, and why (``field.path: message (KGnnn)`` each)."""

    side: str  # "base" or "head"
    environment: str
    key: Key
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class Admitted:
    """Both sides as the cluster would hold them after applying each (defaulted), and what was refused."""

    base: Side
    head: Side
    refusals: tuple[Refusal, ...]


def refusal_reasons(key: Key, manifest: dict, crds: Crds) -> tuple[str, ...]:
    """Why the API server refuses ``manifest``: one ``path: message (code)`` per error; empty when it accepts it."""
    if key[0] == "helm":
        return ()
    found, _ = assess(manifest, crds, "", cel=True)
    unserved = key[0].rpartition("/")[0] in _KARPENTER_GROUPS
    return tuple(f"{f.path}: {f.message} ({f.code})" for f in found
                 if (f.severity is Severity.ERROR and f.code != UNKNOWN_FIELD)
                 or (unserved and f.path == "<root>" and f.code in (SCHEMA_VIOLATION, UNKNOWN_KIND)))


def _stored_as(key: Key) -> tuple[str, str, str]:
    """What identifies a stored object: API group, kind and (namespaced) name; the version is only how it is
    served."""
    return (key[0].rpartition("/")[0], key[1], key[2])


def _defaulted(key: Key, manifest: dict, crds: Crds) -> dict:
    if key[0] == "helm":
        return manifest
    try:
        return apply_defaults(manifest, crds)
    except KeyError:  # no served CRD for this apiVersion/kind
        return manifest


def with_defaults(side: Side, crds: Crds, like: tuple[Side, Side] | None = None) -> Side:
    """``side`` with every object the CRDs serve defaulted as the API server would store it. ``like``: the
    other side, raw and defaulted (``(raw, defaulted)``), whose objects written the same are not defaulted again."""
    empty: tuple[Side, Side] = ({}, {})
    raw, done = like if like is not None else empty

    def defaulted(env: str, key: Key, manifest: dict) -> dict:
        if key in raw.get(env, {}) and raw[env][key] == manifest:
            return done[env][key]
        return _defaulted(key, manifest, crds)

    return {env: {key: defaulted(env, key, m) for key, m in objects.items()} for env, objects in side.items()}


def admit(base: Side, head: Side, crds: Crds | None = None, *,
          crds_of: Callable[[str, str], Crds] | None = None) -> Admitted:
    """Both sides through the API server: refused objects set aside (see the module docstring), defaults applied.
    ``crds_of(side, environment)``: the CRDs of each side's environment (its Karpenter line's), instead of ``crds``."""
    crds = crds_or_default(crds) if crds_of is None else {}
    of = crds_of or (lambda side, environment: crds)
    refusals: list[Refusal] = []
    kept_base: Side = {}
    kept_head: Side = {}
    for environment in sorted(set(base) | set(head)):
        old, new = base.get(environment, {}), head.get(environment, {})
        old_crds, new_crds = of("base", environment), of("head", environment)
        old_reasons = {k: refusal_reasons(k, m, old_crds) for k, m in old.items()}
        # An object written the same on both sides (under the same CRDs) gets the same answer: it is checked once.
        new_reasons = {k: old_reasons[k] if k in old and old[k] == m and old_crds is new_crds
                       else refusal_reasons(k, m, new_crds) for k, m in new.items()}
        old_refused = {k: r for k, r in old_reasons.items() if r}
        new_refused = {k: r for k, r in new_reasons.items() if r}
        kept_base[environment] = {k: m for k, m in old.items() if k not in old_refused}
        kept_head[environment] = {k: m for k, m in new.items() if k not in new_refused}
        stored: dict[tuple[str, str, str], list[Key]] = {}  # the kept base objects by group, kind and name, once
        for k in kept_base[environment]:
            stored.setdefault(_stored_as(k), []).append(k)
        for key in new_refused:  # the cluster keeps what it had: the same group, kind and name, at any version
            for kept in stored.get(_stored_as(key), ()):
                kept_head[environment].setdefault(kept, kept_base[environment][kept])
        refusals += [Refusal("head", environment, k, r) for k, r in sorted(new_refused.items())]
        refusals += [Refusal("base", environment, k, r) for k, r in sorted(old_refused.items())]
    if crds_of is None:
        defaulted_base = with_defaults(kept_base, crds)
        return Admitted(defaulted_base, with_defaults(kept_head, crds, (kept_base, defaulted_base)), tuple(refusals))
    defaulted_base, defaulted_head = {}, {}
    for environment in kept_base:
        defaulted_base.update(with_defaults({environment: kept_base[environment]}, of("base", environment)))
    for environment in kept_head:
        same = of("base", environment) is of("head", environment)
        defaulted_head.update(with_defaults({environment: kept_head[environment]}, of("head", environment),
                                            (kept_base, defaulted_base) if same else None))
    return Admitted(defaulted_base, defaulted_head, tuple(refusals))
