"""Kubernetes name grammars, in one place: DNS-1123 labels and subdomains, qualified names (label and annotation
keys, extended resource names) and label values.

Upstream: k8s.io/apimachinery ``pkg/util/validation/validation.go`` (``IsDNS1123Label``, ``IsDNS1123Subdomain``,
``IsQualifiedName``, ``IsValidLabelValue``). Go's ``regexp`` anchors ``$`` at the end of the text only; Python's ``$``
also matches before a final newline, so every check here is a ``fullmatch`` over ASCII (``"gpu\\n"`` is not a name).
"""

from __future__ import annotations

import re

from karpenter_gpu.errors import KarpenterGpuError

#: A DNS-1123 label: lowercase alphanumerics and '-', starting and ending alphanumeric (at most 63 characters).
DNS1123_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_LABEL_MAX = 63
#: A DNS-1123 subdomain: labels joined by '.' (at most 253 characters).
DNS1123_SUBDOMAIN = rf"{DNS1123_LABEL}(\.{DNS1123_LABEL})*"
DNS1123_SUBDOMAIN_MAX = 253
#: The name part of a qualified name, and a label value: alphanumerics, '-', '_', '.', alphanumeric at both ends.
QUALIFIED_NAME_PART = r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
QUALIFIED_NAME_MAX = 63
#: A qualified name: an optional DNS-1123 subdomain prefix and '/', then the name part.
QUALIFIED_NAME = rf"({DNS1123_SUBDOMAIN}/)?{QUALIFIED_NAME_PART}"
LABEL_VALUE_MAX = 63

_LABEL = re.compile(DNS1123_LABEL, re.ASCII)
_SUBDOMAIN = re.compile(DNS1123_SUBDOMAIN, re.ASCII)
_QUALIFIED = re.compile(QUALIFIED_NAME, re.ASCII)
_VALUE = re.compile(rf"({QUALIFIED_NAME_PART})?", re.ASCII)


def is_dns1123_label(name: object) -> bool:
    """``IsDNS1123Label``: a string of at most 63 characters in the label grammar."""
    return isinstance(name, str) and len(name) <= DNS1123_LABEL_MAX and _LABEL.fullmatch(name) is not None


def is_dns1123_subdomain(name: object) -> bool:
    """``IsDNS1123Subdomain``: a string of at most 253 characters of dot-joined labels."""
    return isinstance(name, str) and len(name) <= DNS1123_SUBDOMAIN_MAX and _SUBDOMAIN.fullmatch(name) is not None


def is_qualified_name(name: object) -> bool:
    """``IsQualifiedName``: ``[prefix/]name``, the prefix a DNS-1123 subdomain, the name at most 63 characters."""
    if not isinstance(name, str) or _QUALIFIED.fullmatch(name) is None:
        return False
    prefix, _, part = name.rpartition("/")
    return len(part) <= QUALIFIED_NAME_MAX and len(prefix) <= DNS1123_SUBDOMAIN_MAX


def is_label_value(value: object) -> bool:
    """``IsValidLabelValue``: empty, or at most 63 characters of the name-part grammar."""
    return isinstance(value, str) and len(value) <= LABEL_VALUE_MAX and _VALUE.fullmatch(value) is not None


#: An AWS availability zone name (``topology.kubernetes.io/zone``): the region (``us-east-1``), for a Local Zone its
#: group (``-lax-1``), then the zone's letter (``us-east-1a``, ``us-west-2-lax-1a``). Group 1 is the region.
AWS_ZONE = re.compile(r"([a-z]{2}(?:-[a-z]+)+-[0-9]+)(?:-[a-z]+-[0-9]+)?[a-z]\Z", re.ASCII)
#: An AWS region name (``us-east-1``): what a zone name is not.
AWS_REGION = re.compile(r"[a-z]{2}(?:-[a-z]+)+-[0-9]+\Z", re.ASCII)


def check_zones(zones: tuple[str, ...], prop: str = "zones") -> tuple[str, ...]:
    """Distinct AWS availability zone names (:data:`AWS_ZONE`), else KG110 -- a region (``us-east-1``) given for
    a zone is named as such: the ``topology.kubernetes.io/zone In`` requirement would match no node."""
    for zone in zones:
        if not isinstance(zone, str) or not AWS_ZONE.match(zone):
            region = isinstance(zone, str) and AWS_REGION.match(zone)
            raise KarpenterGpuError(
                "KG110", prop=prop, value=zone,
                allowed=(f"availability zone names: {zone!r} is a region, its zones are {zone}a, {zone}b, ..."
                         if region else "availability zone names such as 'us-east-1a' (topology.kubernetes.io/zone)"),
                fix=f"e.g. {prop}=('{zone}a', '{zone}b')" if region else f"e.g. {prop}=('us-east-1a', 'us-east-1b')")
    if len(set(zones)) != len(zones):
        raise KarpenterGpuError("KG110", prop=prop, value=list(zones), allowed="distinct zone names",
                                fix="list each zone once")
    return zones


def check_dns1123(name: str, prop: str = "name") -> str:
    """Karpenter object names must be DNS-1123 labels (pods select them by karpenter.sh/nodepool)."""
    if not is_dns1123_label(name):
        raise KarpenterGpuError("KG120", prop=prop, value=name,
                                allowed="a DNS-1123 label: ≤63 lowercase alphanumerics or '-', "
                                        "starting and ending alphanumeric",
                                fix="e.g. 'gpu-inference'")
    return name


__all__ = [
    "DNS1123_LABEL",
    "DNS1123_SUBDOMAIN",
    "QUALIFIED_NAME",
    "QUALIFIED_NAME_PART",
    "check_dns1123",
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "is_label_value",
    "is_qualified_name",
]
