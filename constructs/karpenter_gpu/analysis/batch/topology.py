"""Topology spread, pod affinity and pod anti-affinity as the provisioning scheduler tracks them (Karpenter v1.14.1,
``pkg/controllers/provisioning/scheduling``: ``topology.go`` ``Topology``, ``topologygroup.go`` ``TopologyGroup``,
``topologynodefilter.go`` ``TopologyNodeFilter``, ``topologydomaingroup.go`` ``TopologyDomainGroup``).

Upstream picks among equally good domains by Go map (or set) iteration, which differs from one try to the next; here
the first in the NodePool's written order, else sorted, is taken. Karpenter tries a pod again after each relaxation
step and each pass of its queue, drawing again each time. So when the first pick leaves a NodeClaim without a type,
the other equally good picks are tried too (:meth:`Topology.requirement_choices`): with f of the k picks fitting, a
pod on its n-th try has met one of them in n random draws with probability 1 - (1 - f/k)^n, and the first that fits
is taken when that is above one half (Karpenter's likelier answer), else the first pick's refusal stands. A pod
tried three times thus meets one of two picks that fits; a pod tried once keeps the refusal unless most picks fit.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import islice, product
from typing import Any, Iterable, Iterator, Sequence

from karpenter_gpu.analysis.batch.pods import BatchPod, mapping, selects
from karpenter_gpu.k8s.scheduling import Requirement, Requirements, untolerated

__all__ = ["AFFINITY", "ANTI_AFFINITY", "SPREAD", "NodeFilter", "Topology", "TopologyError", "TopologyGroup"]

SPREAD, AFFINITY, ANTI_AFFINITY = "topology spread", "pod affinity", "pod anti-affinity"
_MAX_INT32 = 2**31 - 1
HOSTNAME = "kubernetes.io/hostname"
#: Combinations of the spreads' equally good domains tried for one NodeClaim (:meth:`Topology.requirement_choices`).
MAX_CHOICES = 64

#: domain -> the taint sets of the NodePools that offer it (``TopologyDomainGroup``), per topology key.
DomainGroups = dict[str, dict[str, list[tuple[Mapping[str, Any], ...]]]]


def _exists(key: str) -> Requirement:
    return Requirement(key, True, frozenset())


def _in(key: str, values: Iterable[str]) -> Requirement:
    return Requirement(key, False, frozenset(values))


def _tolerated(taints: Sequence[Mapping[str, Any]], tolerations: Sequence[Mapping[str, Any]]) -> bool:
    """``Taints.Tolerates``: every taint (PreferNoSchedule too) tolerated."""
    return not untolerated(taints, tolerations, relax_preferences=False)


def _tolerations(spec: Mapping[str, Any]) -> tuple[Mapping[str, Any], ...]:
    raw = spec.get("tolerations")
    return tuple(t for t in raw if isinstance(t, Mapping)) if isinstance(raw, list) else ()


@dataclass(frozen=True)
class NodeFilter:
    """``TopologyNodeFilter``: which nodes a spread counts. ``requirements`` None is the zero filter of affinity
    groups (always matches); else one Requirements per required node-affinity term (with the node selector), ORed."""

    requirements: tuple[Requirements, ...] | None = None
    taint_policy: str = ""
    affinity_policy: str = ""
    tolerations: tuple[Mapping[str, Any], ...] = ()

    @classmethod
    def of(cls, spec: Mapping[str, Any], taint_policy: str, affinity_policy: str) -> "NodeFilter":
        """``MakeTopologyNodeFilter``."""
        selector = mapping(spec.get("nodeSelector"))
        base = Requirements.from_labels(selector)
        affinity = mapping(spec.get("affinity"))
        node = mapping(affinity.get("nodeAffinity"))
        required = node.get("requiredDuringSchedulingIgnoredDuringExecution")
        if not isinstance(required, Mapping):
            return cls((base,), taint_policy, affinity_policy, _tolerations(spec))
        terms = []
        for term in required.get("nodeSelectorTerms") or []:
            exprs = term.get("matchExpressions") if isinstance(term, Mapping) else None
            terms.append(base.merged(Requirements.from_dicts(exprs or [], "nodeSelectorTerms")))
        return cls(tuple(terms), taint_policy, affinity_policy, _tolerations(spec))

    def matches(self, taints: Sequence[Mapping[str, Any]], requirements: Requirements) -> bool:
        """``TopologyNodeFilter.Matches`` (``matchesRequirements`` is called without compatibility options)."""
        if self.requirements is None:
            return True
        if self.affinity_policy == "Honor" and self.requirements and \
                not any(requirements.compatible(r) is None for r in self.requirements):
            return False
        return not (self.taint_policy == "Honor" and not _tolerated(taints, self.tolerations))

    def key(self) -> tuple:
        """The filter as ``TopologyGroup.Hash`` sees it (hashstructure v2, ``SlicesAsSets``): only exported fields, so
        of each term's requirements only their keys and minValues (``Requirement``'s values are unexported); the terms
        and the tolerations as slices hashed by XOR (an element twice cancels out)."""
        terms = _odd(frozenset((r.key, r.min_values or 0) for r in reqs.values()) for reqs in self.requirements or ())
        tolerations = _odd((str(t.get("key") or ""), str(t.get("operator") or ""), str(t.get("value") or ""),
                            str(t.get("effect") or ""), t.get("tolerationSeconds") or 0) for t in self.tolerations)
        return (terms, self.taint_policy, self.affinity_policy, tolerations)


def _odd(items: Iterable[Any]) -> frozenset:
    """A slice hashed as a set by hashstructure (XOR of the elements' hashes): the elements present an odd number of
    times."""
    out: set = set()
    for item in items:
        out ^= {item}
    return frozenset(out)


def _selector_key(selector: Any) -> Any:
    """``hashSelector``: the set of the matchExpressions' hashes (each with its values as a set, XOR) and the
    matchLabels' hash (an absent and an empty map alike); a selector not a mapping keeps its own text."""
    if selector is None:
        return None
    if not isinstance(selector, Mapping):
        return json.dumps(selector, sort_keys=True)
    exprs = set()
    for expr in selector.get("matchExpressions") or []:
        if not isinstance(expr, Mapping) or not isinstance(expr.get("values") or [], list):
            return json.dumps(selector, sort_keys=True)
        exprs.add((str(expr.get("key") or ""), str(expr.get("operator") or ""),
                   _odd(str(v) for v in expr.get("values") or [])))
    labels = selector.get("matchLabels") or {}
    if not isinstance(labels, Mapping):
        return json.dumps(selector, sort_keys=True)
    return (frozenset(exprs), frozenset((str(k), str(v)) for k, v in labels.items()))


@dataclass(eq=False)
class TopologyGroup:
    """``TopologyGroup``: pod counts per domain of one topology key for the pods a selector picks."""

    kind: str
    key: str
    namespaces: frozenset[str]
    selector: Any
    max_skew: int
    min_domains: int | None
    node_filter: NodeFilter
    domains: dict[str, int] = field(default_factory=dict)
    empty: set[str] = field(default_factory=set)
    owners: set[str] = field(default_factory=set)

    def hash_key(self) -> tuple:
        """``TopologyGroup.Hash`` (topologygroup.go, v1.14.1): key, type, namespaces, maxSkew, node filter and
        ``hashSelector`` of the selector, not minDomains: groups equal in these are one group, the first made."""
        return (self.key, self.kind, self.namespaces, self.max_skew, self.node_filter.key(),
                _selector_key(self.selector))

    def selects(self, pod: BatchPod) -> bool:
        return pod.namespace in self.namespaces and selects(self.selector, pod.labels)

    def counts(self, pod: BatchPod, taints: Sequence[Mapping[str, Any]], requirements: Requirements) -> bool:
        return self.selects(pod) and self.node_filter.matches(taints, requirements)

    def record(self, *domains: str) -> None:
        for domain in domains:
            self.domains[domain] = self.domains.get(domain, 0) + 1
            self.empty.discard(domain)

    def register(self, *domains: str) -> None:
        for domain in domains:
            if domain not in self.domains:
                self.domains[domain] = 0
                self.empty.add(domain)

    def get(self, pod: BatchPod, pod_domains: Requirement, node_domains: Requirement,
            order: Sequence[str] = ()) -> Requirement:
        """``TopologyGroup.Get``: the domains the pod may go to on a node with ``node_domains``. ``order``: the
        NodePool's own order of the key's values, in which upstream's iteration meets equally good domains."""
        if self.kind == SPREAD:
            return _in(self.key, self._spread(pod, pod_domains, node_domains, order)[:1])
        if self.kind == AFFINITY:
            return self._affinity(pod, pod_domains, node_domains)
        return self._anti_affinity(pod_domains, node_domains)

    def _min_count(self, pod_domains: Requirement) -> int:
        """``domainMinCount``: hostname 0; else the least count among the domains the pod allows, 0 when fewer
        such domains than minDomains."""
        if self.key == HOSTNAME:
            return 0
        supported = [count for domain, count in self.domains.items() if pod_domains.has(domain)]
        low = min(supported, default=_MAX_INT32)
        if self.min_domains is not None and len(supported) < self.min_domains:
            return 0
        return low

    def choices(self, pod: BatchPod, pod_domains: Requirement, node_domains: Requirement,
                order: Sequence[str] = ()) -> list[Requirement]:
        """What :meth:`get` may answer: for a spread, one requirement per domain of least count it may pick (the
        first is :meth:`get`'s; upstream takes whichever its map or set iteration meets first, and each retry of the
        pod draws again); else :meth:`get`'s answer alone."""
        if self.kind != SPREAD:
            return [self.get(pod, pod_domains, node_domains, order)]
        tied = self._spread(pod, pod_domains, node_domains, order)
        return [_in(self.key, [d]) for d in tied] or [_in(self.key, [])]

    def _spread(self, pod: BatchPod, pod_domains: Requirement, node_domains: Requirement,
                order: Sequence[str] = ()) -> list[str]:
        """``nextDomainTopologySpread``: the valid domains of least count, the one upstream picks first when its
        iteration meets them in ``order`` (else sorted); none when no domain is valid."""
        low = self._min_count(pod_domains)
        own = 1 if self.selects(pod) else 0
        if self.key == HOSTNAME and len(node_domains.values) == 1:
            host = next(iter(node_domains.values))
            return [host] if self.domains.get(host, 0) + own <= self.max_skew else []
        if node_domains.operator == "In":
            rank = {d: i for i, d in enumerate(order)}
            choices = [d for d in sorted(node_domains.values, key=lambda d: (rank.get(d, len(rank)), d))
                       if d in self.domains]
        else:
            choices = [d for d in sorted(self.domains) if node_domains.has(d)]
        valid = [(d, self.domains[d] + own) for d in choices if self.domains[d] + own - low <= self.max_skew]
        least = min((count for _, count in valid), default=None)
        return [d for d, count in valid if count == least]

    def _any_compatible(self, pod_domains: Requirement) -> bool:
        return any(pod_domains.has(d) and c > 0 for d, c in self.domains.items())

    def _affinity(self, pod: BatchPod, pod_domains: Requirement, node_domains: Requirement) -> Requirement:
        """``nextDomainAffinity``."""
        bootstrap = self.selects(pod) and (len(self.domains) == len(self.empty) or
                                           not self._any_compatible(pod_domains))
        if self.key == HOSTNAME and len(node_domains.values) == 1:
            host = next(iter(node_domains.values))
            if not pod_domains.has(host):
                return _in(self.key, [])
            return _in(self.key, [host] if self.domains.get(host, 0) > 0 or bootstrap else [])
        if node_domains.operator == "In":
            options = {d for d in node_domains.values if pod_domains.has(d) and self.domains.get(d, 0) > 0}
        else:
            options = {d for d, c in self.domains.items() if pod_domains.has(d) and c > 0 and node_domains.has(d)}
        if options or not bootstrap:
            return _in(self.key, options)
        both = pod_domains.intersection(node_domains)
        picked = [next((d for d in sorted(self.domains) if both.has(d)), None),
                  next((d for d in sorted(self.domains) if pod_domains.has(d)), None)]
        return _in(self.key, {d for d in picked if d is not None})

    def _anti_affinity(self, pod_domains: Requirement, node_domains: Requirement) -> Requirement:
        """``nextDomainAntiAffinity``: only domains without a selected pod."""
        if self.key == HOSTNAME and len(node_domains.values) == 1:
            host = next(iter(node_domains.values))
            return _in(self.key, [host] if self.domains.get(host, 0) == 0 else [])
        return _in(self.key, {d for d in self.empty if node_domains.has(d) and pod_domains.has(d)})


class TopologyError(Exception):
    """``topologyError``: no domain left for a group."""

    def __init__(self, group: TopologyGroup) -> None:
        super().__init__(f"unsatisfiable topology constraint for {group.kind}, key={group.key}")
        self.group = group


def _terms(affinity: Mapping[str, Any], kind: str, preferred: bool) -> list[Mapping[str, Any]]:
    holder = mapping(affinity.get(kind))
    out = [t for t in holder.get("requiredDuringSchedulingIgnoredDuringExecution") or [] if isinstance(t, Mapping)]
    if preferred:
        out += [t["podAffinityTerm"] for t in holder.get("preferredDuringSchedulingIgnoredDuringExecution") or []
                if isinstance(t, Mapping) and isinstance(t.get("podAffinityTerm"), Mapping)]
    return out


class Topology:
    """``Topology``: the groups the batch's pods own, and the inverse anti-affinity groups."""

    def __init__(self, domain_groups: DomainGroups) -> None:
        self.domain_groups = domain_groups
        self.groups: dict[tuple, TopologyGroup] = {}
        self.inverse: dict[tuple, TopologyGroup] = {}

    def _new(self, kind: str, key: str, pod: BatchPod, spec: Mapping[str, Any], namespaces: frozenset[str],
             selector: Any, max_skew: int = _MAX_INT32, min_domains: int | None = None,
             taint_policy: str | None = None, affinity_policy: str | None = None) -> TopologyGroup:
        """``NewTopologyGroup``: the domains of the key the NodePools offer; unless the taint policy is Ignore (a
        spread's default), only those of pools whose taints the pod tolerates (``ForEachDomain``: the zero filter of
        an affinity group has policy "", which is not Ignore)."""
        node_filter = NodeFilter.of(spec, taint_policy or "Ignore", affinity_policy or "Honor") if kind == SPREAD \
            else NodeFilter()
        group = TopologyGroup(kind, key, namespaces, selector, max_skew, min_domains, node_filter)
        tolerations = _tolerations(spec)
        for domain, taint_sets in self.domain_groups.get(key, {}).items():
            if node_filter.taint_policy == "Ignore" or any(_tolerated(t, tolerations) for t in taint_sets):
                group.register(domain)
        return group

    def _namespaces(self, pod: BatchPod, term: Mapping[str, Any]) -> frozenset[str]:
        """``buildNamespaceList`` (a namespaceSelector is refused before: not modelled)."""
        names = term.get("namespaces") or []
        return frozenset(names) if names else frozenset({pod.namespace})

    def update(self, pod: BatchPod, spec: Mapping[str, Any]) -> None:
        """``Topology.Update``: the pod owns the groups of its spreads and (anti-)affinity terms, and nothing else."""
        for group in self.groups.values():
            group.owners.discard(pod.key)
        affinity = mapping(spec.get("affinity"))
        anti = mapping(affinity.get("podAntiAffinity"))
        if anti.get("requiredDuringSchedulingIgnoredDuringExecution") or \
                anti.get("preferredDuringSchedulingIgnoredDuringExecution"):
            for term in _terms(affinity, "podAntiAffinity", False):
                group = self._new(ANTI_AFFINITY, str(term.get("topologyKey")), pod, spec,
                                  self._namespaces(pod, term), term.get("labelSelector"))
                group = self.inverse.setdefault(group.hash_key(), group)
                group.owners.add(pod.key)
        new = []
        for tsc in spec.get("topologySpreadConstraints") or []:
            selector = _with_match_label_keys(tsc.get("labelSelector"), tsc.get("matchLabelKeys"), pod.labels)
            new.append(self._new(SPREAD, str(tsc.get("topologyKey")), pod, spec, frozenset({pod.namespace}),
                                 selector, int(tsc.get("maxSkew") or 0), tsc.get("minDomains"),
                                 tsc.get("nodeTaintsPolicy"), tsc.get("nodeAffinityPolicy")))
        for kind, name in ((AFFINITY, "podAffinity"), (ANTI_AFFINITY, "podAntiAffinity")):
            for term in _terms(affinity, name, True):
                new.append(self._new(kind, str(term.get("topologyKey")), pod, spec, self._namespaces(pod, term),
                                     term.get("labelSelector")))
        for group in new:
            group = self.groups.setdefault(group.hash_key(), group)
            group.owners.add(pod.key)

    def record(self, pod: BatchPod, taints: Sequence[Mapping[str, Any]], requirements: Requirements) -> None:
        """``Topology.Record``: count the pod where it lands (anti-affinity: every domain it could be in)."""
        for group in self.groups.values():
            if group.counts(pod, taints, requirements):
                domains = requirements.get(group.key)
                if group.kind == ANTI_AFFINITY:
                    group.record(*sorted(domains.values))
                elif not domains.complement and len(domains.values) == 1:
                    group.record(next(iter(domains.values)))
        for group in self.inverse.values():
            if pod.key in group.owners:
                group.record(*sorted(requirements.get(group.key).values))

    def add_requirements(self, pod: BatchPod, taints: Sequence[Mapping[str, Any]], pod_requirements: Requirements,
                         node_requirements: Requirements,
                         order: Mapping[str, Sequence[str]] | None = None) -> Requirements:
        """``Topology.AddRequirements``: the node's requirements narrowed to the domains each group allows;
        raises :class:`TopologyError` for a group that allows none."""
        return next(self.requirement_choices(pod, taints, pod_requirements, node_requirements, order))

    def requirement_choices(self, pod: BatchPod, taints: Sequence[Mapping[str, Any]],
                            pod_requirements: Requirements, node_requirements: Requirements,
                            order: Mapping[str, Sequence[str]] | None = None) -> Iterator[Requirements]:
        """What ``Topology.AddRequirements`` may answer, :meth:`add_requirements`'s first, then each other pick of
        the spreads' equally good domains (:meth:`TopologyGroup.choices`; at most :data:`MAX_CHOICES` in all);
        raises :class:`TopologyError` for a group that allows none. Each group reads the node's requirements as
        given, not as narrowed by the groups before it (upstream's loop), so the picks combine freely."""
        matching = [g for g in self.groups.values() if pod.key in g.owners] + \
            [g for g in self.inverse.values() if g.counts(pod, taints, node_requirements)]
        picks = []
        for group in matching:
            pod_domains = pod_requirements[group.key] if group.key in pod_requirements else _exists(group.key)
            node_domains = node_requirements[group.key] if group.key in node_requirements else _exists(group.key)
            choices = group.choices(pod, pod_domains, node_domains, (order or {}).get(group.key, ()))
            if not choices[0].complement and not choices[0].values:
                raise TopologyError(group)
            picks.append(choices)
        for combination in islice(product(*picks), MAX_CHOICES):
            out = Requirements(node_requirements.values())
            for domains in combination:
                out.add(domains)
            yield out

    def register(self, key: str, domain: str) -> None:
        """``Topology.Register``."""
        for group in (*self.groups.values(), *self.inverse.values()):
            if group.key == key:
                group.register(domain)


def _with_match_label_keys(selector: Any, keys: Any, labels: Mapping[str, str]) -> Any:
    """``newForTopologies``: each matchLabelKeys key the pod has becomes an ``In [its value]`` expression."""
    if not keys or not isinstance(selector, Mapping):
        return selector
    exprs = list(selector.get("matchExpressions") or [])
    exprs += [{"key": k, "operator": "In", "values": [labels[k]]} for k in keys if k in labels]
    return {**selector, "matchExpressions": exprs}
