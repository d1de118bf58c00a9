"""What the pools of one simulation share (:class:`Context`): the manifests' node classes, which give a pool its
kubelet settings (allocatable) and the capacity reservations it can launch on, the DaemonSets that take a share of
every node, the AWS facts and what the prices are."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Mapping, Sequence

from karpenter_gpu.analysis import notes as note
from karpenter_gpu.analysis.catalog import InstanceType
from karpenter_gpu.analysis.notes import Note
from karpenter_gpu.k8s.aws_facts import AwsFacts, Reservation
from karpenter_gpu.k8s.compatibility import EFA, NodeClassCompatibility, network_limits
from karpenter_gpu.k8s.controller_settings import ControllerSettings
from karpenter_gpu.k8s.daemonsets import DaemonSetView
from karpenter_gpu.k8s.kubelet import KubeletSettings, allocatable as kubelet_allocatable, capacity as kubelet_capacity
from karpenter_gpu.k8s.labels import NODE_CLASS_KIND
from karpenter_gpu.k8s.views import NodeClassView, NodePoolView

__all__ = ["Context", "class_allocatable", "class_capacity", "class_compatibility", "class_refusal", "class_view",
           "daemon_overhead", "node_class", "pool_reservations"]


@dataclass
class Context:
    """What the pools share: their node classes (name -> manifest kind and view) and the DaemonSets."""

    classes: dict[tuple[str, str], NodeClassView]
    daemons: list[DaemonSetView]
    price_basis: str
    facts: AwsFacts | None = None
    #: The controller's settings (``helm/karpenter.values.yaml``; the chart's defaults when None is given).
    settings: ControllerSettings = field(default_factory=ControllerSettings)
    #: NodeOverlays among the manifests that are not applied (``featureGates.nodeOverlay`` off), by name.
    ignored_overlays: tuple[str, ...] = ()


def class_view(pool: NodePoolView, context: Context) -> NodeClassView | None:
    ref = pool.node_class_ref
    name, kind = ref.get("name"), ref.get("kind")
    return context.classes.get((str(kind), str(name))) if isinstance(name, str) else None


def class_network(pool: NodePoolView, context: Context) -> tuple[Context, Note | None]:
    """``context`` for the pool, with the AWS facts narrowed to the zones of the subnets its EC2NodeClass's
    ``subnetSelectorTerms`` select (when the facts list the subnets: aws ``pkg/providers/subnet``
    ``DefaultProvider.List``, ``instancetype/types.go`` ``computeRequirements``), and why the class is not Ready
    (None: it is, as far as the facts tell): no subnet or, with terms, no security group selected
    (``pkg/controllers/nodeclass`` ``Subnet.Reconcile``, ``SecurityGroup.Reconcile``); then no zone is left."""
    facts, view = context.facts, class_view(pool, context)
    if facts is None or view is None or str(pool.node_class_ref.get("kind")) != NODE_CLASS_KIND[1]:
        return context, None
    subnets = facts.selected_subnets(view.spec.get("subnetSelectorTerms"))
    group_terms = view.spec.get("securityGroupSelectorTerms")
    problem = None
    if subnets == ():
        problem = note.NodeClassNotReady(view.name, "subnetSelectorTerms", tuple(facts.sources["subnets"]))
    elif group_terms and facts.selected_security_groups(group_terms) == ():
        problem = note.NodeClassNotReady(view.name, "securityGroupSelectorTerms",
                                         tuple(facts.sources["security-groups"]))
    if problem is None and subnets is None:
        return context, None
    return replace(context, facts=facts.for_subnets(() if problem is not None else subnets or ())), problem


def pool_reservations(pool: NodePoolView, context: Context) -> bool | None:
    """Whether the pool's node class selects capacity reservations (None: the node class is not known)."""
    view = class_view(pool, context)
    return None if view is None else bool(view.spec.get("capacityReservationSelectorTerms"))


def node_class(pool: NodePoolView, context: Context, notes: list[Note], memo: dict
               ) -> tuple[KubeletSettings, bool | None, tuple[Reservation, ...] | None]:
    """The pool's kubelet settings, whether its node class has capacityReservationSelectorTerms (None: unknown)
    and, when the AWS facts list the capacity reservations, the ones its terms select (None: not known).
    What a node class gives (and the notes it adds) is worked out once per simulation: ``memo`` keeps it by the
    view, which ``context`` holds."""
    ref = pool.node_class_ref
    name, kind = ref.get("name"), ref.get("kind")
    view = class_view(pool, context)
    if view is None:
        if isinstance(name, str) and not pool.auto_mode:
            notes.append(note.NodeClassMissing(str(kind), name))
        return _controlled(KubeletSettings(), pool, context), None, None
    key = ("class", id(view))  # the view is found by kind and name: one kind per view
    if key not in memo:
        own: list[Note] = []
        memo[key] = (_class_settings(view, str(kind), context, own), tuple(own))
    (kubelet, reservations, selected), noted = memo[key]
    notes.extend(noted)
    return _controlled(kubelet, pool, context), reservations, selected


def _controlled(kubelet: KubeletSettings, pool: NodePoolView, context: Context) -> KubeletSettings:
    """``kubelet`` with the controller's ``vmMemoryOverheadPercent`` and ``reservedENIs`` (aws ``NewInstanceType``
    reads them from the operator options); an EKS Auto Mode pool keeps the defaults: AWS runs that controller."""
    settings = context.settings
    if settings.default_capacity or pool.auto_mode:
        return kubelet
    return replace(kubelet, vm_memory_overhead_percent=settings.vm_memory_overhead_percent,
                   reserved_enis=settings.reserved_enis)


def _class_settings(view: NodeClassView, kind: str, context: Context, notes: list[Note]
                    ) -> tuple[KubeletSettings, bool | None, tuple[Reservation, ...] | None]:
    """:func:`node_class` of a node class among the manifests."""
    terms = view.spec.get("capacityReservationSelectorTerms")
    reservations = bool(terms)
    selected = None
    if reservations and context.facts is not None and context.facts.knows_reservations:
        selected = context.facts.selected_reservations(terms)
        if kind == NODE_CLASS_KIND[1] and not context.settings.has("interruptible-reservations"):  # before v1.10
            selected = tuple(replace(r, interruptible=False) for r in selected)
        notes.append(note.ReservationsSelected(kind, view.name, tuple(context.facts.sources["reservations"]),
                                            tuple(selected)))
    if kind != NODE_CLASS_KIND[1]:
        return KubeletSettings(), reservations, selected
    settings = KubeletSettings.of(view.spec, view.ami_family, f"EC2NodeClass {view.name}")
    if not settings.is_default:
        notes.append(note.KubeletAllocatable(view.name, settings.ami_family, settings.max_pods, settings.pods_per_core,
                                          bool(settings.kube_reserved), bool(settings.system_reserved),
                                          bool(settings.eviction_hard)))
    return settings, reservations, selected


def daemon_overhead(pool: NodePoolView, it: InstanceType, daemons: Sequence[DaemonSetView], per_type: bool = True
                    ) -> tuple[dict[str, Decimal], tuple[str, ...]]:
    """The requests of the daemons that run on ``it`` from ``pool`` and their names; ``per_type`` False: a daemon
    the template admits runs on every type (before v1.14: settings ``has("daemonset-overhead-per-type")``)."""
    total: dict[str, Decimal] = {}
    names = []
    for daemon in daemons:
        if daemon.tolerates(pool.taints) and daemon.runs_on(pool.template_requirements, pool.well_known_labels,
                                                             it.requirements if per_type else None):
            names.append(daemon.name)
            for k, v in daemon.requests.items():
                total[k] = total.get(k, Decimal(0)) + v
    return total, tuple(names)


def class_compatibility(pool: NodePoolView, context: Context) -> NodeClassCompatibility | None:
    """What of the pool's EC2NodeClass decides which types it admits (None: no EC2NodeClass among the manifests)."""
    view = class_view(pool, context)
    if view is None or str(pool.node_class_ref.get("kind")) != NODE_CLASS_KIND[1]:
        return None
    return NodeClassCompatibility.of(view.name, view.spec, view.ami_family)


def _efa_max(it: InstanceType) -> int:
    return int(it.allocatable.get(EFA, Decimal(0)))


def class_refusal(it: InstanceType, compat: NodeClassCompatibility | None) -> str | None:
    """Why the node class refuses ``it`` (``IsCompatibleWithNodeClass``); "unknown" when it cannot be told."""
    return None if compat is None else compat.refusal(it.name, it.labels, _efa_max(it))


def _with_interfaces(it: InstanceType, settings: KubeletSettings, compat: NodeClassCompatibility | None,
                     base: Mapping[str, Decimal], of_facts) -> Mapping[str, Decimal]:
    if compat is None or compat.interfaces is None:
        return base
    out = dict(base)
    out.pop(EFA, None)
    if compat.efa_only:
        out[EFA] = Decimal(compat.efa_only)  # efas: the efa-only interfaces, whatever the type supports
    limits, facts = network_limits(it.name), it.node_facts
    if compat.efa_only_card0 and limits is not None and facts is not None:
        out.update(of_facts(replace(facts, eni_pods=limits.eni_pods(compat.efa_only_card0)), settings))
    return out


def class_allocatable(it: InstanceType, settings: KubeletSettings, compat: NodeClassCompatibility | None
                      ) -> Mapping[str, Decimal]:
    """Allocatable of ``it`` under the node class: kubelet settings, then ``spec.networkInterfaces`` (``efas``: the
    efa-only interfaces; ``ENILimitedPods`` without the efa-only ones on card 0)."""
    base = it.allocatable_for(settings)
    return _with_interfaces(it, settings, compat, base, kubelet_allocatable)


def class_capacity(it: InstanceType, settings: KubeletSettings, compat: NodeClassCompatibility | None
                   ) -> dict[str, Decimal]:
    """Capacity of ``it`` under the node class (what limits count), as :func:`class_allocatable`."""
    return dict(_with_interfaces(it, settings, compat, it.capacity_for(settings), kubelet_capacity))
