"""AWS account facts the AWS provider (karpenter-provider-aws v1.14.1) discovers at run time, read from the JSON
the AWS CLI prints (``--output json``), as one value object, :class:`AwsFacts`.

Three documents, recognised by their top-level key, any number of files of each:

- ``aws ec2 describe-spot-price-history`` (``SpotPriceHistory``): the spot price of each instance type per zone.
  The provider asks for ``Linux/UNIX`` and ``Linux/UNIX (Amazon VPC)`` and keeps the latest record per type and zone
  (``pkg/providers/pricing/pricing.go`` ``UpdateSpotPricing``, ``spotPage``); once spot prices are known, a zone
  without a record has no spot price (``DefaultProvider.SpotPrice`` returns false), so no spot offering there.
- ``aws ec2 describe-instance-type-offerings --location-type availability-zone`` (``InstanceTypeOfferings``): the
  zones each type is offered in; an offering is available only in those (``offering/base_resolver.go``
  ``BaseResolver.ResolveOfferings``: ``itZones.Has(zone)``).
- ``aws ec2 describe-capacity-reservations`` (``CapacityReservations``): what an EC2NodeClass's
  ``capacityReservationSelectorTerms`` can select (:meth:`AwsFacts.selected_reservations`, as
  ``pkg/providers/capacityreservation/types.go`` ``QueriesFromSelectorTerms`` and
  ``Query.DescribeCapacityReservationsInput``, ``provider.go`` ``filterReservations`` and
  ``apis/v1/ec2nodeclass_status.go`` ``CapacityReservationFromEC2`` select them).
- ``aws ec2 describe-subnets`` (``Subnets``) and ``aws ec2 describe-security-groups`` (``SecurityGroups``): what an
  EC2NodeClass's ``subnetSelectorTerms`` and ``securityGroupSelectorTerms`` can select
  (:meth:`AwsFacts.selected_subnets`, :meth:`AwsFacts.selected_security_groups`, as ``pkg/providers/subnet`` and
  ``pkg/providers/securitygroup`` ``getFilterSets`` and ``DefaultProvider.List`` select them). The zones of the
  selected subnets are the only zones the class launches in (``instancetype/types.go`` ``computeRequirements``:
  offering zones intersected with the subnets' zones); a class whose terms select no subnet, or no security group, is
  not Ready (``pkg/controllers/nodeclass`` ``Subnet.Reconcile``, ``SecurityGroup.Reconcile``) and its pools launch
  nothing.

A type a file does not mention is not known to it: without a spot record for a type at all its spot offerings keep
the catalog's on-demand price as a stand-in, and without an offerings record it is assumed offered in every zone.
Values from the files are data: they reach errors through :func:`~karpenter_gpu.errors.echo` and renderers through
the escaping of :mod:`karpenter_gpu.render.escape`, never as markup.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, UTC
from decimal import Decimal
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from karpenter_gpu._fs import DuplicateKey, loads_json, read_input
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s import go_float

__all__ = ["AwsFacts", "Reservation", "SecurityGroup", "Subnet", "aws_facts_from_documents", "load_aws_facts"]

#: Larger files are refused (KG730): a region's full spot price history is a few MB.
MAX_FACTS_BYTES = 64 * 1024 * 1024
#: The product descriptions ``UpdateSpotPricing`` asks for.
LINUX = ("Linux/UNIX", "Linux/UNIX (Amazon VPC)")
#: ``CapacityReservationFromEC2``: a capacity block is "expiring" from 40 minutes before its end.
_EXPIRATION = timedelta(minutes=40)
_KINDS = ("SpotPriceHistory", "InstanceTypeOfferings", "CapacityReservations", "Subnets", "SecurityGroups")
_FIX = "pass the JSON the AWS CLI prints with --output json, unchanged"


@dataclass(frozen=True)
class Reservation:
    """One EC2 capacity reservation (``ec2types.CapacityReservation``, the fields the provider reads)."""

    id: str
    instance_type: str
    zone: str
    available: int
    state: str = "active"
    reservation_type: str = "default"
    owner_id: str = ""
    match_criteria: str = "open"
    tags: Mapping[str, str] = field(default_factory=dict, hash=False)
    end: datetime | None = None
    interruptible: bool = False

    def expiring(self, now: datetime) -> bool:
        """``CapacityReservationFromEC2``: a capacity block within 40 minutes of its end is ``expiring``, and the
        reserved offering of an expiring reservation is unavailable (``ReservedCapacityResolver.ResolveOfferings``)."""
        return self.reservation_type == "capacity-block" and self.end is not None and now >= self.end - _EXPIRATION


@dataclass(frozen=True)
class Subnet:
    """One subnet (``ec2types.Subnet``, the fields the subnet provider and ``Subnet.Reconcile`` read)."""

    id: str
    zone: str
    zone_id: str = ""
    tags: Mapping[str, str] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class SecurityGroup:
    """One security group (``ec2types.SecurityGroup``: id, name, tags)."""

    id: str
    name: str = ""
    tags: Mapping[str, str] = field(default_factory=dict, hash=False)


def _tags_match(wanted: Mapping[str, Any], tags: Mapping[str, str]) -> bool:
    """``getFilterSets``' filters of one term: ``tag:<key>`` = value, or ``tag-key`` for a ``*`` value (every one)."""
    return all(k in tags if v == "*" else tags.get(k) == v for k, v in wanted.items())


@dataclass(frozen=True)
class AwsFacts:
    """What the account says: spot prices per (type, zone), zones per type, capacity reservations, and the files.

    ``sources`` maps each kind (``spot``, ``offerings``, ``reservations``) to the files it came from; a kind
    without a file is unknown (the core keeps its stand-in for it)."""

    spot: Mapping[tuple[str, str], Decimal] = field(default_factory=dict, hash=False)
    offered: Mapping[str, frozenset[str]] = field(default_factory=dict, hash=False)
    reservations: tuple[Reservation, ...] = ()
    sources: Mapping[str, tuple[str, ...]] = field(default_factory=dict, hash=False)
    subnets: tuple[Subnet, ...] = ()
    security_groups: tuple[SecurityGroup, ...] = ()
    #: The zones of one node class's selected subnets (:meth:`for_subnets`); None: not known (every zone).
    subnet_zones: frozenset[str] | None = None

    @property
    def spot_types(self) -> frozenset[str]:
        return frozenset(t for t, _ in self.spot)

    @property
    def zones(self) -> tuple[str, ...]:
        """Every zone the facts name (offerings, spot prices, reservations)."""
        out = {z for zones in self.offered.values() for z in zones} | {z for _, z in self.spot}
        out |= {r.zone for r in self.reservations} | {s.zone for s in self.subnets}
        return tuple(sorted(out))

    @property
    def knows_zones(self) -> bool:
        """A spot price history or offerings file names the region's zones (a reservations file names only its
        reservations' zones)."""
        return bool(self.sources.get("spot") or self.sources.get("offerings"))

    @property
    def knows_reservations(self) -> bool:
        return bool(self.sources.get("reservations"))

    def selected_subnets(self, terms: Any) -> tuple[Subnet, ...] | None:
        """The subnets ``subnetSelectorTerms`` select, sorted by id (None: no subnets file). Per term
        (``pkg/providers/subnet`` ``getFilterSets``): an ``id`` selects that subnet, else every subnet with all of
        the term's ``tags`` (a ``*`` value: the key exists; no tags: every subnet); no term selects none."""
        if not self.sources.get("subnets"):
            return None
        terms = [t for t in terms if isinstance(t, Mapping)] if isinstance(terms, list) else []
        ids = {t["id"] for t in terms if t.get("id")}
        tagged = [t.get("tags") or {} for t in terms if not t.get("id")]
        return tuple(s for s in self.subnets if s.id in ids or any(
            isinstance(tags, Mapping) and _tags_match(tags, s.tags) for tags in tagged))

    def selected_security_groups(self, terms: Any) -> tuple[SecurityGroup, ...] | None:
        """The security groups ``securityGroupSelectorTerms`` select, sorted by id (None: no security groups file).
        Per term (``pkg/providers/securitygroup`` ``getFilterSets``): an ``id`` selects that group, else a ``name``
        the group of that name, else every group with all of the term's ``tags``."""
        if not self.sources.get("security-groups"):
            return None
        terms = [t for t in terms if isinstance(t, Mapping)] if isinstance(terms, list) else []
        ids = {t["id"] for t in terms if t.get("id")}
        names = {t["name"] for t in terms if not t.get("id") and t.get("name")}
        tagged = [t.get("tags") or {} for t in terms if not t.get("id") and not t.get("name")]
        return tuple(g for g in self.security_groups if g.id in ids or g.name in names or any(
            isinstance(tags, Mapping) and _tags_match(tags, g.tags) for tags in tagged))

    def offered_in(self, instance_type: str, zone: str | None) -> bool:
        """``itZones.Has(zone)``: the type's offering zones (a type the offerings files do not mention is assumed
        offered everywhere) within the node class's subnet zones when they are known (zone None: any other zone,
        none when they are)."""
        if self.subnet_zones is not None and zone not in self.subnet_zones:
            return False
        zones = self.offered.get(instance_type)
        return zone is None or zones is None or zone in zones

    def for_subnets(self, subnets: Sequence[Subnet]) -> "AwsFacts":
        """These facts for a node class whose selected subnets are ``subnets`` (``computeRequirements``: a type is
        offered only in its offering zones that have a subnet; none selected: in no zone)."""
        return replace(self, subnet_zones=frozenset(s.zone for s in subnets))

    def spot_price(self, instance_type: str, zone: str) -> tuple[bool, Decimal | None]:
        """(known, price): known False when no spot file mentions the type (the caller keeps its stand-in);
        price None when the type is known but has no record in ``zone`` (``SpotPrice`` returns false)."""
        if instance_type not in self.spot_types:
            return False, None
        return True, self.spot.get((instance_type, zone))

    def selected_reservations(self, terms: Any, now: datetime | None = None) -> tuple[Reservation, ...]:
        """The reservations ``capacityReservationSelectorTerms`` select, sorted by id (the nodeclass controller's
        ``CapacityReservation.Reconcile``). Per term (``QueriesFromSelectorTerms``): an ``id`` selects that
        reservation; ``tags`` (a ``*`` value: the key exists) with ``ownerID`` and ``instanceMatchCriteria``
        select those matching all of them (``DescribeCapacityReservationsInput``); only ``active`` reservations
        (the ``state`` filter), not ended (``filterReservations``), with an instance match criteria of ``open`` or
        ``targeted`` and a known reservation type (``CapacityReservationFromEC2``)."""
        now = now if now is not None else datetime.now(UTC)
        picked: dict[str, Reservation] = {}
        for term in terms if isinstance(terms, list) else []:
            if not isinstance(term, Mapping):
                continue
            for r in self.reservations:
                if r.state == "active" and (r.end is None or r.end > now) and _matches(term, r):
                    picked.setdefault(r.id, r)
        return tuple(picked[k] for k in sorted(picked)
                     if picked[k].match_criteria in ("open", "targeted")
                     and picked[k].reservation_type in ("default", "capacity-block"))

    def describe(self) -> str:
        """The files behind each kind, for price bases and notes (file names are data: escaped where rendered)."""
        parts = [f"{kind} from {', '.join(files)}" for kind, files in sorted(self.sources.items()) if files]
        return "; ".join(parts) or "none"


def _matches(term: Mapping[str, Any], r: Reservation) -> bool:
    if term.get("id") and term["id"] == r.id:
        return True
    tags, criteria = term.get("tags") or {}, term.get("instanceMatchCriteria") or ""
    if not (tags or criteria) or not isinstance(tags, Mapping):
        return False
    if term.get("ownerID") and term["ownerID"] != r.owner_id:
        return False
    if criteria and criteria != r.match_criteria:
        return False
    return all(k in r.tags if v == "*" else r.tags.get(k) == v for k, v in tags.items())


# ---------------------------------------------------------------------------------------------
# Reading


def _bad(code: str, file: str, where: str, value: Any, allowed: str) -> KarpenterGpuError:
    return KarpenterGpuError(code, prop=f"{file}: {where}", value=value, allowed=allowed, fix=_FIX, path=None)


def _string(record: Mapping[str, Any], key: str, code: str, file: str, where: str) -> str:
    value = record.get(key)
    if not isinstance(value, str) or not value:
        raise _bad(code, file, f"{where}.{key}", value, "a non-empty string")
    return value


def _time(value: Any, code: str, file: str, where: str) -> datetime:
    if not isinstance(value, str):
        raise _bad(code, file, where, value, "an ISO 8601 time such as 2025-11-03T12:00:00+00:00")
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise _bad(code, file, where, value, "an ISO 8601 time such as 2025-11-03T12:00:00+00:00") from None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def _records(document: Mapping[str, Any], key: str, file: str, code: str) -> list[Mapping[str, Any]]:
    items = document[key]
    if not isinstance(items, list):
        raise _bad(code, file, key, items, "a list of records")
    for i, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise _bad(code, file, f"{key}[{i}]", item, "a JSON object")
    return items


def _spot(document: Mapping[str, Any], file: str, latest: dict[tuple[str, str], tuple[datetime, Decimal]]) -> None:
    """``spotPage`` over the records: the latest Linux/UNIX price per (type, zone)."""
    for i, record in enumerate(_records(document, "SpotPriceHistory", file, "KG733")):
        where = f"SpotPriceHistory[{i}]"
        itype = _string(record, "InstanceType", "KG733", file, where)
        zone = _string(record, "AvailabilityZone", "KG733", file, where)
        product = _string(record, "ProductDescription", "KG733", file, where)
        price = _price(record.get("SpotPrice"), file, f"{where}.SpotPrice")
        when = _time(record.get("Timestamp"), "KG733", file, f"{where}.Timestamp")
        if product not in LINUX:
            continue
        held = latest.get((itype, zone))
        if held is None or when >= held[0]:
            latest[(itype, zone)] = (when, price)


def _price(raw: Any, file: str, where: str) -> Decimal:
    """A spot price as ``spotPage`` reads it, ``strconv.ParseFloat(SpotPrice, 64)`` (:mod:`go_float`): a string Go
    cannot read is KG733 (the provider would skip the record silently), a non-finite one or one beyond float64's
    range KG736 (decided from the exponent before any arithmetic), a negative one KG733."""
    allowed = "a price in USD per hour as a string, such as '0.4012' (as Go's strconv.ParseFloat reads it)"
    if not isinstance(raw, str):
        raise _bad("KG733", file, where, raw, allowed)
    try:
        price = go_float.parse(raw)
    except go_float.GoFloatError as ex:
        if ex.reason == "syntax":
            raise _bad("KG733", file, where, raw, f"{allowed}: {ex} (no spaces, no non-ASCII digits)") from None
        raise _bad("KG736", file, where, raw, f"a finite price float64 holds ({ex})") from None
    if price < 0:
        raise _bad("KG733", file, where, raw, "a price >= 0 in USD per hour")
    return price


def _offerings(document: Mapping[str, Any], file: str, offered: dict[str, set[str]]) -> None:
    for i, record in enumerate(_records(document, "InstanceTypeOfferings", file, "KG734")):
        where = f"InstanceTypeOfferings[{i}]"
        itype = _string(record, "InstanceType", "KG734", file, where)
        location_type = record.get("LocationType")
        if location_type != "availability-zone":
            raise _bad("KG734", file, f"{where}.LocationType", location_type,
                       "availability-zone (run describe-instance-type-offerings --location-type availability-zone)")
        offered.setdefault(itype, set()).add(_string(record, "Location", "KG734", file, where))


def _reservation(record: Mapping[str, Any], file: str, where: str) -> Reservation:
    count = record.get("AvailableInstanceCount")
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        raise _bad("KG735", file, f"{where}.AvailableInstanceCount", count, "a whole number >= 0")
    tags: dict[str, str] = {}
    raw_tags = record.get("Tags", [])
    if not isinstance(raw_tags, list):
        raise _bad("KG735", file, f"{where}.Tags", raw_tags, "a list of {Key, Value} objects")
    for j, tag in enumerate(raw_tags):
        if not isinstance(tag, Mapping) or not isinstance(tag.get("Key"), str) or \
                not isinstance(tag.get("Value", ""), str):
            raise _bad("KG735", file, f"{where}.Tags[{j}]", tag, "a {Key, Value} object of strings")
        tags[tag["Key"]] = tag.get("Value", "")
    end = record.get("EndDate")
    interruptible = record.get("Interruptible", False)
    if not isinstance(interruptible, bool):
        raise _bad("KG735", file, f"{where}.Interruptible", interruptible, "true or false")
    optional = {}
    for key, attr in (("State", "state"), ("ReservationType", "reservation_type"), ("OwnerId", "owner_id"),
                      ("InstanceMatchCriteria", "match_criteria")):
        if key in record:
            value = record[key]
            if not isinstance(value, str):
                raise _bad("KG735", file, f"{where}.{key}", value, "a string")
            optional[attr] = value
    if optional.get("reservation_type") == "":
        optional["reservation_type"] = "default"  # CapacityReservationTypeFromEC2
    return Reservation(
        id=_string(record, "CapacityReservationId", "KG735", file, where),
        instance_type=_string(record, "InstanceType", "KG735", file, where),
        zone=_string(record, "AvailabilityZone", "KG735", file, where), available=count, tags=tags,
        end=None if end is None else _time(end, "KG735", file, f"{where}.EndDate"), interruptible=interruptible,
        **optional)


def _tag_map(record: Mapping[str, Any], file: str, where: str) -> dict[str, str]:
    raw = record.get("Tags", [])
    if not isinstance(raw, list):
        raise _bad("KG738", file, f"{where}.Tags", raw, "a list of {Key, Value} objects")
    tags: dict[str, str] = {}
    for j, tag in enumerate(raw):
        if not isinstance(tag, Mapping) or not isinstance(tag.get("Key"), str) or \
                not isinstance(tag.get("Value", ""), str):
            raise _bad("KG738", file, f"{where}.Tags[{j}]", tag, "a {Key, Value} object of strings")
        tags[tag["Key"]] = tag.get("Value", "")
    return tags


def _network(document: Mapping[str, Any], kind: str, file: str, subnets: dict[str, Subnet],
             groups: dict[str, SecurityGroup]) -> None:
    """``describe-subnets`` (SubnetId, AvailabilityZone, AvailabilityZoneId, Tags) or ``describe-security-groups``
    (GroupId, GroupName, Tags) records."""
    for i, record in enumerate(_records(document, kind, file, "KG738")):
        where = f"{kind}[{i}]"
        tags = _tag_map(record, file, where)
        if kind == "Subnets":
            zone_id = record.get("AvailabilityZoneId", "")
            if not isinstance(zone_id, str):
                raise _bad("KG738", file, f"{where}.AvailabilityZoneId", zone_id, "a string")
            subnet = Subnet(_string(record, "SubnetId", "KG738", file, where),
                            _string(record, "AvailabilityZone", "KG738", file, where), zone_id, tags)
            subnets[subnet.id] = subnet
        else:
            name = record.get("GroupName", "")
            if not isinstance(name, str):
                raise _bad("KG738", file, f"{where}.GroupName", name, "a string")
            group = SecurityGroup(_string(record, "GroupId", "KG738", file, where), name, tags)
            groups[group.id] = group


def aws_facts_from_documents(documents: Iterable[tuple[str, Any]]) -> AwsFacts:
    """The facts of parsed documents, each ``(file name, JSON value)``; raises KG732-KG735 and KG738 on bad
    content."""
    latest: dict[tuple[str, str], tuple[datetime, Decimal]] = {}
    offered: dict[str, set[str]] = {}
    reservations: dict[str, Reservation] = {}
    subnets: dict[str, Subnet] = {}
    groups: dict[str, SecurityGroup] = {}
    sources: dict[str, list[str]] = {}
    for file, document in documents:
        kinds = [k for k in _KINDS if isinstance(document, Mapping) and k in document]
        if len(kinds) != 1:
            shown = sorted(document)[:5] if isinstance(document, Mapping) else type(document).__name__
            raise _bad("KG732", file, "top level", shown,
                       "one object with SpotPriceHistory (describe-spot-price-history), InstanceTypeOfferings "
                       "(describe-instance-type-offerings), CapacityReservations (describe-capacity-reservations), "
                       "Subnets (describe-subnets) or SecurityGroups (describe-security-groups)")
        kind = kinds[0]
        if kind == "SpotPriceHistory":
            _spot(document, file, latest)
            sources.setdefault("spot", []).append(file)
        elif kind == "InstanceTypeOfferings":
            _offerings(document, file, offered)
            sources.setdefault("offerings", []).append(file)
        elif kind in ("Subnets", "SecurityGroups"):
            _network(document, kind, file, subnets, groups)
            sources.setdefault("subnets" if kind == "Subnets" else "security-groups", []).append(file)
        else:
            for i, record in enumerate(_records(document, kind, file, "KG735")):
                r = _reservation(record, file, f"CapacityReservations[{i}]")
                reservations[r.id] = r
            sources.setdefault("reservations", []).append(file)
    return AwsFacts(spot={k: v for k, (_, v) in sorted(latest.items())},
                    offered={k: frozenset(v) for k, v in sorted(offered.items())},
                    reservations=tuple(reservations[k] for k in sorted(reservations)),
                    sources={k: tuple(v) for k, v in sources.items()},
                    subnets=tuple(subnets[k] for k in sorted(subnets)),
                    security_groups=tuple(groups[k] for k in sorted(groups)))


def load_aws_facts(paths: Sequence[str | Path]) -> AwsFacts:
    """Read AWS CLI JSON files (see the module docstring). Raises KG730 when a file cannot be read (missing,
    permissions, not UTF-8, larger than :data:`MAX_FACTS_BYTES`: a pipe such as ``<(aws ec2 ...)`` is read, up to
    that bound), KG920 when it is a device or socket, KG731 when it is not JSON, KG737 when an object holds a key
    twice, KG732-KG736 when its content is not what the AWS CLI prints."""
    documents = []
    for path in paths:
        file = Path(path)
        text = read_input(file, "KG730", "--aws", max_bytes=MAX_FACTS_BYTES,
                          too_large="filter the AWS CLI query (--instance-types, --filters)")
        try:
            document = loads_json(text)
        except DuplicateKey as exc:
            raise KarpenterGpuError("KG737", prop="--aws", value=f"{file}: {exc.key!r}",
                                    allowed="JSON objects with each key once (Python's json, like Go's "
                                            "encoding/json, would keep the last one silently)",
                                    fix="remove the duplicate key; the AWS CLI never prints one") from None
        except (ValueError, RecursionError) as exc:
            raise KarpenterGpuError("KG731", prop="--aws", value=str(file), allowed="a JSON document",
                                    fix=f"run the AWS CLI with --output json ({str(exc).splitlines()[0][:200]})"
                                    ) from None
        documents.append((str(file), document))
    return aws_facts_from_documents(documents)
