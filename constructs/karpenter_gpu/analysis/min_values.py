"""A NodePool template's ``minValues`` against its candidates, counted as Karpenter counts them
(``InstanceTypes.SatisfiesMinValues``, ``pkg/cloudprovider/types.go``: the values of each type's own requirements)."""

from __future__ import annotations

from typing import Any, Sequence

from karpenter_gpu.analysis import notes as note
from karpenter_gpu.analysis.candidates import Candidate
from karpenter_gpu.analysis.notes import Note
from karpenter_gpu.k8s.labels import Label
from karpenter_gpu.k8s.offerings import RESERVATION_ID, RESERVATION_LABELS
from karpenter_gpu.k8s.views import NodePoolView

__all__ = ["distinct_values", "min_values"]


def min_values(pool: NodePoolView, zones: tuple[str, ...], candidates: Sequence[Candidate], notes: list[Note],
                problems: list[Note], best_effort: bool = False) -> None:
    """The template's minValues against the candidates (``Add`` keeps the largest of duplicate keys). Unmet, the
    pool launches nothing under ``minValuesPolicy: Strict``; under ``BestEffort`` the scheduler keeps the types and
    lowers the minValues to what they meet (``scheduler.go`` ``NewScheduler`` and ``nodeclaim.go``
    ``filterInstanceTypesByRequirements`` with ``relaxMinValues``), a note."""
    for key, req in pool.template_requirements.items():
        wanted = req.min_values
        if not wanted:
            continue
        distinct = distinct_values(key, candidates, zones)
        if distinct is None:
            notes.append(note.MinValuesUnchecked(wanted, key))
            continue
        if len(distinct) < wanted and best_effort:
            notes.append(note.MinValuesRelaxed(wanted, key, tuple(sorted(distinct))))
        elif len(distinct) < wanted:
            problems.append(note.MinValuesUnmet(wanted, key, tuple(sorted(distinct))))


def distinct_values(key: str, candidates: Sequence[Candidate], zones: tuple[str, ...] = ()) -> set[str] | None:
    """The values of ``key`` the candidates' own requirements carry, as ``SatisfiesMinValues`` collects them (None:
    not known -- zones without AWS facts naming them). capacity-type: on-demand and spot, reserved for a type with a
    reservation (computeRequirements), whatever the pool asks for; zone: the types' own zones (the zones each is
    offered in that have a subnet of the node class, :attr:`Candidate.type_zones`), whatever the pool asks for;
    when those are not known, the zones of the offerings the pool admits within its declared zones, else the
    declared zones; any other key: the types' labels (a key no type carries: none)."""
    if key == Label.CAPACITY_TYPE:
        return {"on-demand", "spot"} | {"reserved" for c in candidates if _reserved(c)}
    if key == Label.ZONE:
        own = [c.type_zones for c in candidates]
        if candidates and all(z is not None for z in own):
            return {z for zones in own if zones is not None for z in zones}
        offered = {o.offering.zone for c in candidates for o in c.offerings}
        if candidates and None not in offered:  # the types' zones are known (AWS facts): offerings ∩ subnets
            known = {z for z in offered if z is not None}
            return known & set(zones) if zones else known
        return set(zones) if zones else None
    if key in RESERVATION_LABELS:  # computeRequirements: In the type's reservations' ids, types, interruptible flags
        return {v for c in candidates if key in c.reservation_requirements
                for v in _in_values(c.reservation_requirements.get(key))}
    return {c.instance.node_labels[key] for c in candidates if key in c.instance.node_labels}


def _in_values(req: Any) -> frozenset[str]:
    return frozenset() if req is None or req.complement else frozenset(req.values)


def _reserved(candidate: Candidate) -> bool:
    """Whether the type has a capacity reservation of the node class (computeRequirements adds ``reserved`` then):
    its reservation requirements name ids (:func:`~karpenter_gpu.k8s.offerings.reservation_requirements`), or it
    has a reserved offering."""
    ids = candidate.reservation_requirements.get(RESERVATION_ID) if RESERVATION_ID in candidate.reservation_requirements \
        else None
    return bool(_in_values(ids)) or any(
        o.offering.capacity_type == "reserved" for o in candidate.offerings)
