"""The notes of a pool's cost and limits: the cluster's existing nodes against the limits, what the limits exclude,
a static pool's worst case, the dynamic worst case and its bounds. One :class:`~karpenter_gpu.analysis.notes.Note`
class per kind, as in :mod:`karpenter_gpu.analysis.notes`."""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Mapping, Sequence
from decimal import Decimal

from karpenter_gpu.k8s.cluster_nodes import ClusterNode
from karpenter_gpu.analysis.notes import Note, NoteKind, amount_text, money, joined


@dataclass(frozen=True)
class ExistingNodes(Note, kind=NoteKind.EXISTING_NODES):
    #: (instance type, count) of the nodes that count, by type name ("unknown type" when a node names none).
    types: tuple[tuple[str, int], ...]
    #: (resource, amount used, the limit as shown) per limit; empty: the pool has no limits.
    usage: tuple[tuple[str, Decimal, str], ...]
    #: Nodes marked for deletion, which do not count.
    deleting: int

    @property
    def text(self) -> str:
        active = sum(count for _, count in self.types)
        mix = ", ".join(f"{count} x {name}" for name, count in self.types) or "none"
        counted = "; ".join(f"{r} {amount_text(r, used)} of {shown}"
                            for r, used, shown in self.usage) if self.usage else "no limits"
        gone = f"; {self.deleting} marked for deletion, not counted (MarkedForDeletion)" if self.deleting else ""
        return (f"{active} existing node(s) count against the limits ({mix}): {counted} "
                f"(updateRemainingResources){gone}")


@dataclass(frozen=True)
class LimitExcluded(Note, kind=NoteKind.LIMIT_EXCLUDED):
    #: (instance type, the limit one node of it exceeds).
    excluded: tuple[tuple[str, str], ...]
    after_existing: bool

    @property
    def text(self) -> str:
        left = " what is left of" if self.after_existing else ""
        return (f"{len(self.excluded)} type(s) exceed{left} a limit with one node and are never launched "
                "(filterByRemainingResources): " + ", ".join(f"{n} ({why})" for n, why in self.excluded))


@dataclass(frozen=True)
class StaticWorstCase(Note, kind=NoteKind.STATIC_WORST_CASE):
    replicas: int | None
    instance: str
    price: Decimal
    hourly: Decimal

    @property
    def text(self) -> str:
        return (f"static pool: {self.replicas} replicas x dearest candidate {self.instance} ({self.price}/h) = "
                f"{money(self.hourly)}/h")


@dataclass(frozen=True)
class StaticSurge(Note, kind=NoteKind.STATIC_SURGE):
    nodes: Decimal
    price: Decimal

    @property
    def text(self) -> str:
        return (f"limits.nodes {self.nodes} lets drift/expiry replacement surge to {self.nodes} nodes "
                f"({money(self.nodes * self.price)}/h at the dearest candidate)")


@dataclass(frozen=True)
class StaticNoNodesLimit(Note, kind=NoteKind.STATIC_NO_NODES_LIMIT):
    @property
    def text(self) -> str:
        return "no limits.nodes: drift/expiry replacement can surge above replicas"


@dataclass(frozen=True)
class StaticDriftBlocked(Note, kind=NoteKind.STATIC_DRIFT_BLOCKED):
    #: :func:`~karpenter_gpu.k8s.drift.static_drift_blocked`'s answer.
    why: str

    @property
    def text(self) -> str:
        return self.why


@dataclass(frozen=True)
class Unbounded(Note, kind=NoteKind.UNBOUNDED):
    #: The priced candidates that need none of the limited resources.
    types: tuple[str, ...]
    #: The limited resources the ceiling counts.
    limited: tuple[str, ...]

    @property
    def why(self) -> str:
        """Why no limit bounds the spend."""
        return (f"{joined(self.types)} need(s) none of the limited resources ({joined(self.limited) or 'none'}), so "
                "no limit stops Karpenter launching them")

    @property
    def text(self) -> str:
        return f"the pool's spend is unbounded: {self.why}"


@dataclass(frozen=True)
class WorstCaseUnknown(Note, kind=NoteKind.WORST_CASE_UNKNOWN):
    unpriced: tuple[str, ...]

    @property
    def text(self) -> str:
        return f"worst case unknown: no candidate has a price ({joined(self.unpriced)})"


@dataclass(frozen=True)
class WorstCase(Note, kind=NoteKind.WORST_CASE):
    hourly: Decimal
    #: (instance type, count) of the dearest fill.
    nodes: tuple[tuple[str, int], ...]
    #: Whether the search proved the optimum; else ``reached`` is the best fill it found.
    exact: bool
    reached: Decimal
    #: Candidates without a price, which can launch too.
    unpriced: tuple[str, ...]
    beyond_existing: bool
    #: (resource, as shown) of the limits that bound it.
    limits: tuple[tuple[str, str], ...]
    limit_unit: str | None
    price_basis: str

    @property
    def text(self) -> str:
        mix = " + ".join(f"{n} x {name}" for name, n in self.nodes) or "nothing priced"
        exact = "" if self.exact else (f" (an upper bound: the search stopped before proving the optimum; "
                                       f"{money(self.reached)}/h is reached)")
        if self.unpriced:
            exact += f" (at least: {joined(self.unpriced)} can launch too and have no price)"
        unit = f" ({self.limit_unit})" if self.limit_unit else ""
        more = " more, beyond the existing nodes," if self.beyond_existing else ""
        return (f"worst case {money(self.hourly)}/h{exact}: {mix}{more} before the limits "
                f"{', '.join(f'{r} {shown}' for r, shown in self.limits)}{unit} stop it ({self.price_basis})")


@dataclass(frozen=True)
class LimitsEventual(Note, kind=NoteKind.LIMITS_EVENTUAL):
    @property
    def text(self) -> str:
        return "limits are eventually consistent and can overrun during fast scale-out"


def existing_nodes(existing: Sequence[ClusterNode], used: Mapping[str, Decimal],
                   limits: Sequence[tuple[str, str, Decimal]]) -> ExistingNodes:
    """The note of what the pool's existing nodes are and use of its limits (``simulate_pools(nodes=...)``)."""
    active = [n for n in existing if not n.marked_for_deletion]
    kinds: dict[str, int] = {}
    for n in active:
        kinds[n.instance_type or "unknown type"] = kinds.get(n.instance_type or "unknown type", 0) + 1
    return ExistingNodes(tuple(sorted(kinds.items())),
                              tuple((r, used.get(r, Decimal(0)), shown) for r, shown, _ in limits),
                              len(existing) - len(active))
