"""Capacity reservations (ODCRs and Capacity Blocks) as node-class selector terms.

Karpenter matches **no** open ODCR implicitly: every reservation must be selected by an
EC2NodeClass ``capacityReservationSelectorTerms`` term, and a NodePool must offer ``reserved``.

Capacity Block timeline: EC2 starts terminating instances 30 minutes before the block ends
(60 minutes for UltraServers); Karpenter marks the reservation ``expiring`` and starts draining
10 minutes before that, i.e. 40 (70) minutes before the end. Plan checkpoints accordingly.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any, Mapping

from pydantic import model_validator

from karpenter_gpu._props import Props
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.requirements import Label


class InstanceMatchCriteria(StrEnum):
    OPEN = "open"
    TARGETED = "targeted"


class ReservationType(StrEnum):
    """``karpenter.k8s.aws/capacity-reservation-type`` (set only on reserved nodes)."""

    ODCR = "default"
    CAPACITY_BLOCK = "capacity-block"


_ID = re.compile(r"^cr-[0-9a-z]+\Z")
_OWNER = re.compile(r"^[0-9]{12}\Z")


class CapacityReservationTerm(Props):
    """One selector term. Build with :meth:`by_id`, :meth:`by_tags` or :meth:`by_instance_match`.

    Each term is checked on its own: the upstream CEL only rejects an ``id`` mixed with other
    fields when *every* term mixes them, so a single bad term among good ones would pass the API
    server and select nothing.
    """

    id: str | None = None
    tags: Mapping[str, str] | None = None
    #: The reservation owner's account id (shared reservations). Not with ``id``.
    owner_id: str | None = None
    instance_match_criteria: InstanceMatchCriteria | None = None

    @model_validator(mode="after")
    def _check(self) -> "CapacityReservationTerm":
        shown = self.render()
        if self.id is not None:
            if not _ID.match(self.id):
                raise KarpenterGpuError("KG190", prop="id", value=self.id, allowed="an id matching ^cr-[0-9a-z]+$",
                                        fix="copy the reservation id, e.g. 'cr-0123456789abcdef0'")
            if len(shown) > 1:
                raise KarpenterGpuError("KG190", prop="id", value=shown,
                                        allowed="an id alone (it already names one reservation)",
                                        fix="use CapacityReservationTerm.by_id(...) without tags/owner/match criteria")
        elif self.tags is None and self.instance_match_criteria is None:
            raise KarpenterGpuError("KG190", prop="term", value=shown,
                                    allowed="an id, tags, or instance match criteria (an owner alone selects nothing)",
                                    fix="use by_id, by_tags or by_instance_match")
        if self.owner_id is not None and not _OWNER.match(self.owner_id):
            raise KarpenterGpuError("KG190", prop="owner_id", value=self.owner_id, allowed="a 12-digit account id",
                                    fix="e.g. '123456789012'")
        if self.tags is not None and (not self.tags or len(self.tags) > 20
                                      or any(not k or not v for k, v in self.tags.items())):
            raise KarpenterGpuError("KG190", prop="tags", value=dict(self.tags),
                                    allowed="1..20 tags with non-empty keys and values",
                                    fix="select with fewer tags, none of them empty")
        return self

    @classmethod
    def by_id(cls, reservation_id: str) -> "CapacityReservationTerm":
        return cls(id=reservation_id)

    @classmethod
    def by_tags(cls, tags: Mapping[str, str], owner_id: str | None = None,
                instance_match_criteria: InstanceMatchCriteria | None = None) -> "CapacityReservationTerm":
        return cls(tags=tags, owner_id=owner_id, instance_match_criteria=instance_match_criteria)

    @classmethod
    def by_instance_match(cls, criteria: InstanceMatchCriteria, owner_id: str | None = None) -> "CapacityReservationTerm":
        return cls(instance_match_criteria=criteria, owner_id=owner_id)

    def render(self) -> dict[str, Any]:
        out: dict = {}
        if self.id is not None:
            out["id"] = self.id
        if self.tags is not None:
            out["tags"] = dict(sorted(self.tags.items()))
        if self.owner_id is not None:
            out["ownerID"] = self.owner_id
        if self.instance_match_criteria is not None:
            out["instanceMatchCriteria"] = str(self.instance_match_criteria)
        return out


def prefer_reserved_capacity(weight: int = 100) -> dict[str, Any]:
    """Pod ``affinity`` preferring reserved nodes, for the workload side (seed 002).

    Preferred, not required: when the reservation expires (or a Capacity Block ends), pods can
    still schedule on the pool's fallback capacity instead of staying Pending. Use as
    ``spec.affinity`` of a pod template (merge with your own affinity if you have one).
    """
    if not 1 <= weight <= 100:
        raise KarpenterGpuError("KG100", prop="weight", value=weight, allowed="1..100 (preferred term weight)",
                                fix="use 100")
    return {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{
        "weight": weight,
        "preference": {"matchExpressions": [{"key": Label.CAPACITY_TYPE, "operator": "In", "values": ["reserved"]}]},
    }]}}
