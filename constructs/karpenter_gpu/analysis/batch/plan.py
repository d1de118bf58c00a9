"""What a batch plan says: the NodeClaims Karpenter creates (and what launches for each), the pods existing nodes
take, the pods left Pending with Karpenter's reason, and what is left of each NodePool's limits."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal

from karpenter_gpu.analysis.launch import Launch
from karpenter_gpu.analysis.simulator import PoolReport

__all__ = ["BatchPlan", "ExistingUse", "Pending", "PlannedClaim"]


@dataclass(frozen=True)
class PlannedClaim:
    """One new NodeClaim (``Scheduler.newNodeClaims`` after ``FinalizeScheduling``): its pool, its pods
    (``namespace/name`` in the order they were added), its instance-type options (names, sorted), and what the
    provider launches for it (:func:`~karpenter_gpu.analysis.launch.launch`): type, capacity type, zone, $/h."""

    pool: str
    pods: tuple[str, ...]
    options: tuple[str, ...]
    instance_type: str | None
    capacity_type: str | None
    zone: str | None
    hourly: Decimal | None
    launch: Launch | None = field(default=None, compare=False, repr=False)
    #: The zones of the launched capacity type's offerings the provider gives CreateFleet (sorted).
    zones: tuple[str, ...] = ()
    #: What else may launch (the NodeClaim's DaemonSet requests follow a Go map's order,
    #: :func:`~karpenter_gpu.analysis.launch.claim_overheads`); the fields above are the cheapest answer.
    alternatives: tuple[Launch, ...] = field(default=(), compare=False, repr=False)


@dataclass(frozen=True)
class ExistingUse:
    """Pods an existing node (``--nodes``) takes."""

    node: str
    pool: str | None
    pods: tuple[str, ...]


@dataclass(frozen=True)
class Pending:
    """A pod left Pending: ``reason`` is Karpenter's error for it (the parts joined with "; "), ``parts`` the
    error heads (one per NodePool tried, one per untolerated taint)."""

    pod: str
    reason: str
    parts: tuple[str, ...] = ()


@dataclass(frozen=True)
class BatchPlan:
    """The answer of :func:`~karpenter_gpu.analysis.batch.schedule_batch`. With ``not_modelled`` non-empty the
    batch depends on inputs the core does not model: no NodeClaim, no Pending pod and no figure is given."""

    nodeclaims: tuple[PlannedClaim, ...] = ()
    existing: tuple[ExistingUse, ...] = ()
    pending: tuple[Pending, ...] = ()
    remaining: Mapping[str, Mapping[str, Decimal]] = field(default_factory=dict)
    not_modelled: tuple[str, ...] = ()
    #: The NodePools as the batch simulated them (``simulate_pools`` without their limits, which the scheduler applies
    #: per NodeClaim): their price basis, notes and problems, for a caller that reports them without a second
    #: simulation.
    pools: tuple[PoolReport, ...] = field(default=(), compare=False, repr=False)

    @property
    def hourly(self) -> Decimal | None:
        """The new NodeClaims' $/h summed; None when one has no price or the plan is not modelled."""
        if self.not_modelled or any(c.hourly is None for c in self.nodeclaims):
            return None
        return sum((c.hourly for c in self.nodeclaims if c.hourly is not None), Decimal(0))

    def hourly_by_pool(self) -> dict[str, Decimal | None]:
        out: dict[str, Decimal | None] = {}
        for c in self.nodeclaims:
            have = out.get(c.pool, Decimal(0))
            out[c.pool] = None if have is None or c.hourly is None else have + c.hourly
        return out

    def pods_of(self, pool: str) -> tuple[str, ...]:
        return tuple(p for c in self.nodeclaims if c.pool == pool for p in c.pods)
