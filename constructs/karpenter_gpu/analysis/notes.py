"""What the simulation says about a pool, as typed records: one :class:`Note` per kind of sentence.

A note holds the facts it is built from as fields and renders its sentence with :attr:`Note.text`; callers that
look for a note look for its :class:`NoteKind` (``note.kind is NoteKind.UNBOUNDED``), never for words in its text.
``PoolReport.notes`` holds them (the problems first), ``PoolReport.problems`` the ones that make a pool unable to
launch; explain prints their text. The figures in them are written by :func:`money` and :func:`amount_text`.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from typing import Any, ClassVar

from karpenter_gpu.k8s.aws_facts import Reservation
from karpenter_gpu.k8s.scheduling import Requirement

__all__ = ["Note", "NoteKind", "amount_text", "bytes_text", "money"]


def money(amount: Decimal) -> str:
    """USD with two decimals."""
    return f"{amount:.2f}"  # rounds half-even like quantize, without its 28-digit precision limit


def amount_text(resource: str, amount: Decimal) -> str:
    """An amount of a resource in base units as a person reads it (memory in Gi/Mi/Ki when exact)."""
    return bytes_text(amount) if resource == "memory" else f"{amount.normalize():f}"


def bytes_text(amount: Decimal) -> str:
    """Bytes in Gi, Mi or Ki when exact, else as the number."""
    for unit, size in (("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
        if amount >= size and amount == amount.to_integral_value() and int(amount) % size == 0:  # exact for any size
            return f"{int(amount // size)}{unit}"
    return f"{amount.normalize():f}"


class NoteKind(StrEnum):
    """Every kind of sentence the simulation writes."""

    # Problems: the pool launches nothing.
    NO_CAPACITY_TYPE = "no-capacity-type"
    NO_ZONE = "no-zone"
    NO_OFFERING = "no-offering"
    NODES_EXHAUSTED = "nodes-exhausted"
    ALL_EXCEED_LIMITS = "all-exceed-limits"
    NO_AVAILABLE_OFFERING = "no-available-offering"
    NODE_CLASS_REFUSES_ALL = "node-class-refuses-all"
    NO_INSTANCE_TYPE = "no-instance-type"
    MIN_VALUES_UNMET = "min-values-unmet"
    STATIC_CAPACITY_OFF = "static-capacity-off"
    NODE_CLASS_NOT_READY = "node-class-not-ready"
    # Offerings, node class, requirements.
    LABEL_PANIC = "label-panic"
    ANY_CAPACITY_TYPE = "any-capacity-type"
    RESERVED_NEEDS_SELECTION = "reserved-needs-selection"
    DECLARED_ZONES = "declared-zones"
    NODE_CLASS_MISSING = "node-class-missing"
    RESERVATIONS_SELECTED = "reservations-selected"
    KUBELET_ALLOCATABLE = "kubelet-allocatable"
    NO_RESERVATION_TERMS = "no-reservation-terms"
    UNMODELLED_REQUIREMENT = "unmodelled-requirement"
    NODE_CLASS_INCOMPATIBLE = "node-class-incompatible"
    NOT_MODELLED = "not-modelled"
    MIN_VALUES_UNCHECKED = "min-values-unchecked"
    AUTO_MODE = "auto-mode"
    # Candidates.
    UNPRICED_UNOFFERED = "unpriced-unoffered"
    UNOFFERED = "unoffered"
    DAEMON_OVERHEAD = "daemon-overhead"
    SPOT_STAND_IN = "spot-stand-in"
    PRICE_STAND_IN = "price-stand-in"
    ZERO_GPU = "zero-gpu"
    ARM64 = "arm64"
    UNPRICED = "unpriced"
    OVERLAYS_APPLIED = "overlays-applied"
    OVERLAY_REQUIREMENTS_UNMODELLED = "overlay-requirements-unmodelled"
    OVERLAY_ZONES_UNMODELLED = "overlay-zones-unmodelled"
    OVERLAY_DROPPED = "overlay-dropped"
    # Controller settings (helm/karpenter.values.yaml).
    OVERLAYS_IGNORED = "overlays-ignored"
    RESERVED_CAPACITY_OFF = "reserved-capacity-off"
    MIN_VALUES_RELAXED = "min-values-relaxed"
    # Limits and the worst case.
    EXISTING_NODES = "existing-nodes"
    LIMIT_EXCLUDED = "limit-excluded"
    STATIC_WORST_CASE = "static-worst-case"
    STATIC_SURGE = "static-surge"
    STATIC_NO_NODES_LIMIT = "static-no-nodes-limit"
    STATIC_DRIFT_BLOCKED = "static-drift-blocked"
    UNBOUNDED = "unbounded"
    WORST_CASE_UNKNOWN = "worst-case-unknown"
    WORST_CASE = "worst-case"
    LIMITS_EVENTUAL = "limits-eventual"
    # About the environment, not one pool.
    OTHER_REGION = "other-region"


@dataclass(frozen=True)
class Note:
    """One sentence of the simulation: its :class:`NoteKind` and the facts it is built from (the subclass' fields)."""

    kind: ClassVar[NoteKind]

    def __init_subclass__(cls, *, kind: NoteKind, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.kind = kind

    @property
    def text(self) -> str:
        """The sentence, as explain prints it."""
        raise NotImplementedError(type(self).__name__)


def joined(names: tuple[str, ...]) -> str:
    return ", ".join(names)


@dataclass(frozen=True)
class NoCapacityType(Note, kind=NoteKind.NO_CAPACITY_TYPE):
    requirement: Requirement

    @property
    def text(self) -> str:
        return ("the karpenter.sh/capacity-type requirements admit none of reserved, spot, on-demand "
                f"({self.requirement})")


@dataclass(frozen=True)
class NoZone(Note, kind=NoteKind.NO_ZONE):
    requirement: Requirement

    @property
    def text(self) -> str:
        return (f"the topology.kubernetes.io/zone requirements intersect to DoesNotExist ({self.requirement}): every "
                "node has a zone, so no offering qualifies")


@dataclass(frozen=True)
class NoOffering(Note, kind=NoteKind.NO_OFFERING):
    @property
    def text(self) -> str:
        return "no offering (capacity type x zone) satisfies the template's requirements"


@dataclass(frozen=True)
class NodesExhausted(Note, kind=NoteKind.NODES_EXHAUSTED):
    #: ``limits.nodes`` as shown (with what is left after the existing nodes).
    limit: str

    @property
    def text(self) -> str:
        return f"'node limits have been exhausted for nodepool': nothing is left of limits.nodes {self.limit}"


@dataclass(frozen=True)
class AllExceedLimits(Note, kind=NoteKind.ALL_EXCEED_LIMITS):
    after_existing: bool

    @property
    def text(self) -> str:
        left = " what is left of" if self.after_existing else ""
        return (f"every candidate exceeds{left} the pool's limits with one node: 'all available instance types "
                "exceed limits for nodepool'")


@dataclass(frozen=True)
class NoAvailableOffering(Note, kind=NoteKind.NO_AVAILABLE_OFFERING):
    #: Whether the AWS facts left types without an offering.
    unoffered: bool
    #: Types without a price, hence without an on-demand or spot offering.
    unpriced: tuple[str, ...]

    @property
    def text(self) -> str:
        why = "; ".join(w for w, hit in (
            ("AWS facts: zones offered, spot prices, capacity reservations", self.unoffered),
            (f"no price for {joined(self.unpriced)}", self.unpriced)) if hit)
        return (f"no instance type the pool admits has an available offering ({why}): 'no instance type met the "
                "scheduling requirements or had a required offering'")


@dataclass(frozen=True)
class NoInstanceType(Note, kind=NoteKind.NO_INSTANCE_TYPE):
    catalog_types: int

    @property
    def text(self) -> str:
        return (f"no instance type in the catalog ({self.catalog_types} types) meets the requirements: 'no instance "
                "type met the scheduling requirements or had a required offering'")


@dataclass(frozen=True)
class MinValuesUnmet(Note, kind=NoteKind.MIN_VALUES_UNMET):
    wanted: int
    key: str
    values: tuple[str, ...]

    @property
    def text(self) -> str:
        return (f"minValues {self.wanted} on {self.key}: only {len(self.values)} distinct value(s) among the "
                f"candidates ({joined(self.values) or 'none'}); Karpenter will not launch (minValuesPolicy Strict)")


@dataclass(frozen=True)
class LabelPanic(Note, kind=NoteKind.LABEL_PANIC):
    """Karpenter panics creating each NodeClaim of the pool (:attr:`NodePoolView.label_panic`)."""

    key: str
    requirement: str

    @property
    def text(self) -> str:
        return (f"Karpenter panics creating every NodeClaim of this pool: requirement {self.requirement} leaves "
                f"Requirement.Any no value to pick for the label {self.key} (rand.Intn: invalid argument; "
                "NodeClaimTemplate.resolveCustomLabelsFromRequirements), so the pods it schedules here stay Pending")


@dataclass(frozen=True)
class AnyCapacityType(Note, kind=NoteKind.ANY_CAPACITY_TYPE):
    @property
    def text(self) -> str:
        return ("no karpenter.sh/capacity-type requirement: every capacity type is admitted, and the provider "
                "launches spot whenever a spot offering exists (getCapacityType: reserved > spot > on-demand)")


@dataclass(frozen=True)
class ReservedNeedsSelection(Note, kind=NoteKind.RESERVED_NEEDS_SELECTION):
    @property
    def text(self) -> str:
        return ("reserved offerings exist only for capacity reservations the EC2NodeClass selects "
                "(capacityReservationSelectorTerms); Karpenter prefers reserved > spot > on-demand")


@dataclass(frozen=True)
class DeclaredZones(Note, kind=NoteKind.DECLARED_ZONES):
    zones: tuple[str, ...]
    #: The AWS facts files that list the zones each type is offered in; empty: the catalog, which has none.
    offered_by: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        if self.offered_by:
            return (f"zones {joined(self.zones)} as declared: a type is an option only where "
                    f"{joined(self.offered_by)} offers it")
        return (f"zones {joined(self.zones)} as declared: the catalog has no zone availability, so every candidate is "
                "assumed to be offered there (fewer zones, fewer spot pools)")


@dataclass(frozen=True)
class NodeClassMissing(Note, kind=NoteKind.NODE_CLASS_MISSING):
    node_class_kind: str
    name: str

    @property
    def text(self) -> str:
        return (f"{self.node_class_kind} {self.name} is not among the manifests: allocatable assumes the catalog's "
                "defaults (no kubelet settings) and reserved offerings are not checked")


@dataclass(frozen=True)
class ReservationsSelected(Note, kind=NoteKind.RESERVATIONS_SELECTED):
    node_class_kind: str
    name: str
    sources: tuple[str, ...]
    reservations: tuple[Reservation, ...]

    @property
    def text(self) -> str:
        listed = ", ".join(f"{r.id} ({r.instance_type} in {r.zone}, {r.reservation_type}, {r.available} left)"
                           for r in self.reservations)
        return (f"capacity reservations {self.node_class_kind} {self.name} selects (from {joined(self.sources)}): "
                + (listed or "none"))


@dataclass(frozen=True)
class KubeletAllocatable(Note, kind=NoteKind.KUBELET_ALLOCATABLE):
    name: str
    ami_family: str
    max_pods: int | None
    pods_per_core: int | None
    kube_reserved: bool
    system_reserved: bool
    eviction_hard: bool

    @property
    def text(self) -> str:
        return (f"allocatable from EC2NodeClass {self.name}'s kubelet settings (amiFamily {self.ami_family}"
                f"{', maxPods ' + str(self.max_pods) if self.max_pods is not None else ''}"
                f"{', podsPerCore ' + str(self.pods_per_core) if self.pods_per_core else ''}"
                f"{', kubeReserved' if self.kube_reserved else ''}"
                f"{', systemReserved' if self.system_reserved else ''}"
                f"{', evictionHard' if self.eviction_hard else ''}), as the AWS provider computes it")


@dataclass(frozen=True)
class NoReservationTerms(Note, kind=NoteKind.NO_RESERVATION_TERMS):
    node_class: str
    #: The capacity types the pool launches instead (reserved left out).
    launches: tuple[str, ...]

    @property
    def text(self) -> str:
        return (f"the node class {self.node_class} has no capacityReservationSelectorTerms: the provider creates "
                "reserved offerings only from the reservations it selects, so this pool has none and launches "
                + (" or ".join(self.launches) or "nothing"))


@dataclass(frozen=True)
class UnmodelledRequirement(Note, kind=NoteKind.UNMODELLED_REQUIREMENT):
    requirement: Requirement

    @property
    def text(self) -> str:
        return f"requirement {self.requirement} is not modelled by the catalog and was not applied"


@dataclass(frozen=True)
class NodeClassIncompatible(Note, kind=NoteKind.NODE_CLASS_INCOMPATIBLE):
    """Types the pool admits that its EC2NodeClass refuses (``IsCompatibleWithNodeClass``): every offering of
    theirs is unavailable, so Karpenter never launches them."""

    node_class: str
    refused: tuple[tuple[str, str], ...]  # (type, why)

    @property
    def text(self) -> str:
        whys: dict[str, list[str]] = {}
        for name, why in self.refused:
            whys.setdefault(why, []).append(name)
        return (f"EC2NodeClass {self.node_class} is not compatible with " + "; ".join(
            f"{joined(tuple(names))} ({why})" for why, names in whys.items())
                + ": their offerings are unavailable (IsCompatibleWithNodeClass)")


@dataclass(frozen=True)
class NodeClassRefusesAll(Note, kind=NoteKind.NODE_CLASS_REFUSES_ALL):
    node_class: str
    count: int
    #: Why the class launches no type whatever the type (``NodeClassCompatibility.launches_nothing``: a block
    #: device mapping without ``deviceName`` or ``ebs``); None: each type is refused for its own reason.
    launches_nothing: str | None = None

    @property
    def text(self) -> str:
        return (f"EC2NodeClass {self.node_class} is compatible with none of the {self.count} instance type(s) the "
                "pool admits: Karpenter launches nothing")


@dataclass(frozen=True)
class NodeClassNotReady(Note, kind=NoteKind.NODE_CLASS_NOT_READY):
    """The pool's EC2NodeClass is not Ready by the AWS facts: its selector terms select no subnet or no security
    group (aws ``pkg/controllers/nodeclass`` ``Subnet.Reconcile``, ``SecurityGroup.Reconcile``); Karpenter ignores
    a NodePool that is not Ready (``Provisioner.NewScheduler``)."""

    node_class: str
    terms: str
    files: tuple[str, ...]

    @property
    def text(self) -> str:
        return (f"EC2NodeClass {self.node_class} is not Ready: its {self.terms} select none of the "
                f"{'subnets' if self.terms.startswith('subnet') else 'security groups'} in {joined(self.files)}, so "
                "Karpenter ignores the pool and launches nothing")


@dataclass(frozen=True)
class NotModelled(Note, kind=NoteKind.NOT_MODELLED):
    """An input that changes which instance types launch and that the core does not model: no first choice or
    worst case is stated without it."""

    path: str
    what: str

    @property
    def text(self) -> str:
        return f"not modelled: {self.path} ({self.what}): no first choice or worst case is stated for this pool"


@dataclass(frozen=True)
class MinValuesUnchecked(Note, kind=NoteKind.MIN_VALUES_UNCHECKED):
    wanted: int
    key: str

    @property
    def text(self) -> str:
        return f"minValues {self.wanted} on {self.key}: zone availability is not in the catalog, not checked"


@dataclass(frozen=True)
class AutoMode(Note, kind=NoteKind.AUTO_MODE):
    @property
    def text(self) -> str:
        return ("EKS Auto Mode pool: AWS runs its Karpenter, NVIDIA driver and device plugin, replaces nodes after "
                "at most 21 days and applies no NodeOverlay (aws/containers-roadmap#2690)")


@dataclass(frozen=True)
class UnpricedUnoffered(Note, kind=NoteKind.UNPRICED_UNOFFERED):
    types: tuple[str, ...]

    @property
    def text(self) -> str:
        return (f"{joined(self.types)}: no on-demand price in the catalog, and the provider makes an on-demand or "
                "spot offering available only with a price (BaseResolver.ResolveOfferings): never launched on-demand "
                "or spot unless a NodeOverlay prices it by instance type (GetOverlayPrice) or Karpenter's pricing API "
                "lists a price the catalog lacks; a selected capacity reservation still launches it")


@dataclass(frozen=True)
class Unoffered(Note, kind=NoteKind.UNOFFERED):
    types: tuple[str, ...]
    #: Where the offerings come from (the AWS facts files, or "capacity reservations").
    facts: str

    @property
    def text(self) -> str:
        return (f"{len(self.types)} type(s) have no available offering in the zones and capacity types the pool "
                f"admits ({self.facts}): {joined(self.types)}")


@dataclass(frozen=True)
class DaemonOverhead(Note, kind=NoteKind.DAEMON_OVERHEAD):
    daemons: tuple[str, ...]

    @property
    def text(self) -> str:
        return f"DaemonSets counted against each node's allocatable (daemonOverhead): {joined(self.daemons)}"


@dataclass(frozen=True)
class SpotStandIn(Note, kind=NoteKind.SPOT_STAND_IN):
    capacity_types: tuple[str, ...]
    types: tuple[str, ...]
    sources: tuple[str, ...]

    @property
    def text(self) -> str:
        return (f"{' and '.join(self.capacity_types)} offerings of {joined(self.types)} are shown at the on-demand "
                f"list price: {joined(self.sources)} has no spot price for them")


@dataclass(frozen=True)
class PriceStandIn(Note, kind=NoteKind.PRICE_STAND_IN):
    capacity_types: tuple[str, ...]
    price_basis: str

    @property
    def text(self) -> str:
        return (f"{' and '.join(self.capacity_types)} offerings are shown at the {self.price_basis}: the catalog has "
                f"no {' or '.join(self.capacity_types)} prices")


@dataclass(frozen=True)
class ZeroGpu(Note, kind=NoteKind.ZERO_GPU):
    types: tuple[str, ...]

    @property
    def text(self) -> str:
        return (f"{len(self.types)} candidates report 0 GPUs and cannot run nvidia.com/gpu pods without a "
                f"NodeOverlay ({joined(self.types)})")


@dataclass(frozen=True)
class Arm64(Note, kind=NoteKind.ARM64):
    types: tuple[str, ...]

    @property
    def text(self) -> str:
        return (f"{len(self.types)} arm64 GPU type(s) admitted ({joined(self.types)}): pods landing there need arm64 "
                "or multi-arch images (an amd64-only image fails with 'exec format error')")


@dataclass(frozen=True)
class Unpriced(Note, kind=NoteKind.UNPRICED):
    types: tuple[str, ...]

    @property
    def text(self) -> str:
        return (f"{len(self.types)} candidate(s) have no price in the catalog ({joined(self.types)}): left out of "
                "cost figures")


@dataclass(frozen=True)
class OverlaysApplied(Note, kind=NoteKind.OVERLAYS_APPLIED):
    overlays: tuple[str, ...]

    @property
    def text(self) -> str:
        return f"NodeOverlays applied: {joined(self.overlays)} (scheduling simulation only, not billing)"


@dataclass(frozen=True)
class OverlayRequirementsUnmodelled(Note, kind=NoteKind.OVERLAY_REQUIREMENTS_UNMODELLED):
    keys: tuple[str, ...]

    @property
    def text(self) -> str:
        return (f"NodeOverlay requirements on {joined(self.keys)} are not modelled by the catalog and were assumed "
                "to match")


@dataclass(frozen=True)
class OverlayZonesUnmodelled(Note, kind=NoteKind.OVERLAY_ZONES_UNMODELLED):
    overlays: tuple[str, ...]

    @property
    def text(self) -> str:
        return (f"not modelled: the node class's subnet zones: NodeOverlay {joined(self.overlays)} names only zones no "
                "NodePool names, and applies only where the subnets have one (give AWS facts naming the zones); no "
                "cost figure")


@dataclass(frozen=True)
class OverlayDropped(Note, kind=NoteKind.OVERLAY_DROPPED):
    overlay: str
    why: str

    @property
    def text(self) -> str:
        return f"NodeOverlay {self.overlay} is not applied anywhere (ValidationSucceeded=False, Conflict): {self.why}"


@dataclass(frozen=True)
class OtherRegion(Note, kind=NoteKind.OTHER_REGION):
    pools: tuple[str, ...]
    regions: tuple[str, ...]
    catalog_region: str

    @property
    def text(self) -> str:
        return (f"NodePool{'s' if len(self.pools) > 1 else ''} {joined(self.pools)}: zones in {joined(self.regions)}, "
                f"but the prices are {self.catalog_region} on-demand list prices: costs there differ")


@dataclass(frozen=True)
class StaticCapacityOff(Note, kind=NoteKind.STATIC_CAPACITY_OFF):
    """A static pool while ``featureGates.staticCapacity`` is off: the static controllers are not registered
    (sigs.k8s.io/karpenter ``pkg/controllers/controllers.go`` ``NewControllers``), so nothing launches its nodes."""

    replicas: int
    source: str

    @property
    def text(self) -> str:
        return (f"static pool (replicas {self.replicas}) with featureGates.staticCapacity off ({self.source}): no "
                "static controller runs, so Karpenter launches none of its nodes")


@dataclass(frozen=True)
class OverlaysIgnored(Note, kind=NoteKind.OVERLAYS_IGNORED):
    """NodeOverlays while ``featureGates.nodeOverlay`` is off: the NodeOverlay controller is not registered
    (``controllers.go`` ``NewControllers``) and the overlay cloud provider returns the types unchanged
    (``pkg/cloudprovider/overlay/cloudprovider.go`` ``GetInstanceTypes``)."""

    overlays: tuple[str, ...]
    source: str

    @property
    def text(self) -> str:
        return (f"NodeOverlay{'s' if len(self.overlays) > 1 else ''} {joined(self.overlays)} ignored: "
                f"featureGates.nodeOverlay is off ({self.source}); prices and capacity are as without them")


@dataclass(frozen=True)
class ReservedCapacityOff(Note, kind=NoteKind.RESERVED_CAPACITY_OFF):
    """A pool admitting reserved capacity while ``featureGates.reservedCapacity`` is off: the provider builds no
    reserved offering (``offering/reserved_capacity_resolver.go`` ``ResolveOfferings``) and the scheduler reserves
    none (``scheduling/nodeclaim.go`` ``offeringsToReserve``)."""

    source: str

    @property
    def text(self) -> str:
        return (f"featureGates.reservedCapacity is off ({self.source}): no reserved offering exists, the pool "
                "launches on its other capacity types only")


@dataclass(frozen=True)
class MinValuesRelaxed(Note, kind=NoteKind.MIN_VALUES_RELAXED):
    """``minValuesPolicy: BestEffort``: the scheduler keeps the types and lowers the NodeClaim's minValues to what
    they meet (``filterInstanceTypesByRequirements`` with ``relaxMinValues``; ``NodeClaim.CanAdd``)."""

    wanted: int
    key: str
    values: tuple[str, ...]

    @property
    def text(self) -> str:
        return (f"minValues {self.wanted} on {self.key}: only {len(self.values)} distinct value(s) among the "
                f"candidates ({joined(self.values) or 'none'}); minValuesPolicy BestEffort relaxes it to "
                f"{len(self.values)} and Karpenter launches")
