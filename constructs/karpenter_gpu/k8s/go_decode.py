"""What the API server stores and Karpenter's Go code still cannot read.

The CRD patterns are looser than Go's parsers: the quantity pattern admits an exponent with a fraction
(``.3E+0.``, ``1e3.5``), the eviction patterns an empty alternative, and ``evictionSoftGracePeriod`` has no pattern at all (a ``metav1.Duration``). The API
server stores such an object; Karpenter's informer then fails to decode it (kubernetes-sigs/karpenter v1.14.1 and
karpenter-provider-aws v1.14.1 types: ``resource.Quantity.UnmarshalJSON`` calls ``ParseQuantity``,
``metav1.Duration.UnmarshalJSON`` calls ``time.ParseDuration``), or the provider panics when it builds instance types
(pkg/providers/instancetype/types.go ``kubeReservedResources``, ``systemReservedResources``, ``evictionThreshold``:
``resource.MustParse``), or, for what only the kubelet reads (``evictionSoft``, the hard thresholds Karpenter does
not compute with), the node's kubelet refuses its configuration.

:func:`go_parse_quantity_error` is k8s.io/apimachinery v0.35 ``pkg/api/resource/quantity.go`` ``ParseQuantity``'s
grammar (``parseQuantityString`` and ``suffixHandler.interpret``), without its range: Go caps or keeps any magnitude,
where :class:`~karpenter_gpu.k8s.units.Quantity` refuses what int64 cannot hold. :func:`decode_problems` lists each
value of a stored object that Karpenter (or the kubelet) cannot read; :func:`unlaunchable_mappings` the block device
mappings Karpenter cannot launch from; :func:`zero_volume_sizes` the sizes it reads as zero (the ``volumeSize``
pattern's empty alternative before ``T``/``Ti``: ``ParseQuantity`` reads no digits as 0, it decodes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.units import go_parse_duration

__all__ = ["FORMATTED_STRING_FIELDS", "INT32_FIELDS", "DecodeProblem", "decode_problems", "formatted_lists",
           "go_parse_quantity_error", "int32_overflows", "unlaunchable_mappings", "zero_volume_sizes"]

#: ``resource.ErrFormatWrong``, ``ErrSuffix`` and ``ErrNumeric``'s messages.
FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
SUFFIX_WRONG = "unable to parse quantity's suffix"
NUMERIC_WRONG = "unable to parse numeric part of quantity"
_SUFFIX_CHARS = frozenset("eEinumkKMGTP")
_KNOWN_SUFFIXES = frozenset(["", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"])
_BINARY = frozenset(["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"])
_GO_PARSE_INT = re.compile(r"[+-]?[0-9]+\Z")
_INT64 = 2**63
_DIGITS = frozenset("0123456789")


def _split(text: str) -> tuple[str, str, str, str] | str:
    """``parseQuantityString``: (value, num, denom, suffix), or the error."""
    pos, end = 0, len(text)
    if text[0] in "+-":
        pos = 1
    while True:  # strip leading zeros
        if pos >= end:
            return "0", "0", "", ""
        if text[pos] != "0":
            break
        pos += 1
    i = pos
    while i < end and text[i] in _DIGITS:
        i += 1
    if i >= end:
        return text, text[pos:end], "", ""
    num, pos = text[pos:i] or "0", i
    denom = ""
    if text[pos] == ".":
        pos += 1
        i = pos
        while i < end and text[i] in _DIGITS:
            i += 1
        if i >= end:
            return text, num, text[pos:end], ""
        denom, pos = text[pos:i], i
    value, start = text[:pos], pos
    i = pos
    while i < end and text[i] in _SUFFIX_CHARS:
        i += 1
    if i >= end:
        return value, num, denom, text[start:end]
    pos = i + 1 if text[i] in "+-" else i
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos >= end:
        return value, num, denom, text[start:end]
    return FORMAT_WRONG


def _go_int64(text: str) -> int | None:
    """``strconv.ParseInt(text, 10, 64)``, None on an error: more than 19 significant digits is out of range before
    any conversion (Python bounds the length of the strings ``int()`` reads)."""
    if not _GO_PARSE_INT.match(text):
        return None
    digits = text.lstrip("+-").lstrip("0") or "0"
    if len(digits) > 19:
        return None
    value = -int(digits) if text.startswith("-") else int(digits)
    return value if -_INT64 <= value < _INT64 else None


def go_parse_quantity_error(text: str) -> str | None:
    """The error k8s.io/apimachinery's ``resource.ParseQuantity`` returns for ``text``, None when it parses."""
    if text == "":
        return FORMAT_WRONG
    if text == "0":
        return None
    split = _split(text)
    if isinstance(split, str):
        return split
    value, num, denom, suffix = split
    if suffix not in _KNOWN_SUFFIXES:
        parsed = _go_int64(suffix[1:]) if len(suffix) > 1 and suffix[0] in "eE" else None
        if parsed is not None:
            exponent = parsed
            exponent = (exponent + 2**31) % 2**32 - 2**31  # int32(parsed)
        else:
            return SUFFIX_WRONG
    elif suffix in _BINARY:
        exponent = None
    else:
        exponent = {"": 0, "n": -9, "u": -6, "m": -3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}[suffix]
    if exponent is None:  # BinarySI: the fast path needs no fraction and few digits; else the inf.Dec path
        fast = not denom and 15 - len(num) - int(_binary_exponent(suffix) * 3 / 10) - 1 >= 0
    else:  # DecimalSI / DecimalExponent: fast when the digits fit and the scale is at least nano
        fast = 18 - (len(num) + len(denom)) >= 0 and exponent - len(denom) >= -9
    if not fast and not any(c in _DIGITS for c in value):  # inf.Dec.SetString: "no digits read"
        return NUMERIC_WRONG
    return None


def _binary_exponent(suffix: str) -> int:
    return {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}[suffix]


@dataclass(frozen=True)
class DecodeProblem:
    """One value Karpenter (``reader`` "karpenter") or the node's kubelet (``reader`` "kubelet") cannot read."""

    path: str
    value: Any
    reader: str
    why: str
    allowed: str


def _key_path(base: str, key: Any) -> str:
    return f"{base}[{key!r}]"


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _quantity_map(values: Any, base: str, reader: str, how: str, *, percent: bool = False) -> list[DecodeProblem]:
    out = []
    for key, text in _dict(values).items():
        if not isinstance(text, str):
            continue  # a number is a JSON number: Quantity.UnmarshalJSON reads it; a wrong type is KG300's
        if percent and text.endswith("%"):
            continue  # the pattern admits only 0-100 with two decimals, which strconv.ParseFloat reads
        error = go_parse_quantity_error(text)
        if error is not None:
            allowed = "a Kubernetes quantity ParseQuantity reads, e.g. '100Mi', '1.5', '1e3'"
            if percent:
                allowed += ", or a percentage such as '5%'"
            out.append(DecodeProblem(_key_path(base, key), text, reader, f"{how} ({error})", allowed))
    return out


#: The ``int32`` fields of Karpenter's Go types (kubernetes-sigs/karpenter v1.14.1 ``pkg/apis/v1/nodepool.go``,
#: ``pkg/apis/v1alpha1/nodeoverlay.go``; aws/karpenter-provider-aws v1.14.1 ``pkg/apis/v1/ec2nodeclass.go``), by
#: kind, as paths with ``[]`` for list items (the CRDs mark the same fields ``format: int32``; a test keeps the two
#: equal). The API server checks only ``type: integer`` and the bounds a field declares, so a value outside int32 on a
#: field without them is stored, and ``encoding/json`` refuses it when the informer decodes the object ("cannot
#: unmarshal number ... of type int32").
INT32_FIELDS: dict[str, tuple[str, ...]] = {
    "NodePool": ("spec.weight",),
    "NodeOverlay": ("spec.weight",),
    "EC2NodeClass": (
        "spec.blockDeviceMappings[].ebs.volumeInitializationRate", "spec.connectionTracking.tcpEstablishedTimeout",
        "spec.connectionTracking.udpStreamTimeout", "spec.connectionTracking.udpTimeout", "spec.ipPrefixCount",
        "spec.kubelet.evictionMaxPodGracePeriod", "spec.kubelet.imageGCHighThresholdPercent",
        "spec.kubelet.imageGCLowThresholdPercent", "spec.kubelet.maxPods", "spec.kubelet.podsPerCore",
        "spec.networkInterfaces[].deviceIndex", "spec.networkInterfaces[].networkCardIndex"),
}
_INT32 = 2**31
#: The spec's string fields with a (non-numeric) ``format`` (a test keeps this equal to the CRDs): ``metav1.Time``.
FORMATTED_STRING_FIELDS: dict[str, tuple[str, ...]] = {
    "NodePool": ("spec.template.spec.startupTaints[].timeAdded", "spec.template.spec.taints[].timeAdded"),
}


def _at(value: Any, parts: list[str], path: str) -> list[tuple[str, Any]]:
    """(path, value) of every value at the ``[]``-path ``parts`` below ``value``."""
    if not parts:
        return [(path, value)]
    head, rest = parts[0], parts[1:]
    items = head.endswith("[]")
    key = head[:-2] if items else head
    if not isinstance(value, dict) or key not in value:
        return []
    child = value[key]
    here = f"{path}.{key}" if path else key
    if not items:
        return _at(child, rest, here)
    if not isinstance(child, list):
        return []
    return [found for i, item in enumerate(child) for found in _at(item, rest, f"{here}[{i}]")]


def int32_overflows(manifest: Mapping[str, Any]) -> list[DecodeProblem]:
    """Each integer on an ``int32`` field (:data:`INT32_FIELDS`) outside int32's range: the informer's
    ``json.Unmarshal`` refuses it (Go's ``encoding/json`` ``decodeState.literalStore``: ``reflect.Value.OverflowInt``
    → ``UnmarshalTypeError``)."""
    out = []
    for field in INT32_FIELDS.get(str(manifest.get("kind")), ()):
        for path, value in _at(manifest, field.split("."), ""):
            if isinstance(value, int) and not isinstance(value, bool) and not -_INT32 <= value < _INT32:
                out.append(DecodeProblem(path, value, "karpenter",
                                         "Karpenter's informer cannot decode it: the field is an int32 in Karpenter's "
                                         "Go types and encoding/json refuses a number outside int32",
                                         f"an integer from {-_INT32} to {_INT32 - 1}"))
    return out


def formatted_lists(manifest: Mapping[str, Any]) -> list[DecodeProblem]:
    """Each list on a formatted string field (:data:`FORMATTED_STRING_FIELDS`, a taint's ``timeAdded``): the API
    server stores it (kube-openapi ``typeValidator.Validate`` passes a slice for a schema with a non-numeric format,
    and the format validator applies to strings only; ``apiserver.conformance`` follows it), and the informer's
    ``json.Unmarshal`` into ``metav1.Time`` refuses it (``cannot unmarshal array into Go struct field
    Taint...timeAdded``; apiserver family, seed 793477656 case 15264)."""
    out = []
    for field in FORMATTED_STRING_FIELDS.get(str(manifest.get("kind")), ()):
        for path, value in _at(manifest, field.split("."), ""):
            if isinstance(value, list):
                out.append(DecodeProblem(path, value, "karpenter",
                                         "Karpenter's informer cannot decode it: the field is a metav1.Time in "
                                         "Karpenter's Go types and encoding/json refuses an array for it",
                                         "an RFC 3339 date-time string such as '2026-01-01T00:00:00Z', or no value"))
    return out


def decode_problems(manifest: Mapping[str, Any]) -> list[DecodeProblem]:
    """Each value of a NodePool, NodeOverlay or EC2NodeClass the CRD admits and Go's parsers refuse, in field order.
    Values of the wrong JSON type are left to the schema check (KG300)."""
    kind = manifest.get("kind")
    spec = _dict(manifest.get("spec"))
    informer = "Karpenter's informer cannot decode it: resource.Quantity's UnmarshalJSON (ParseQuantity) refuses it"
    typed = int32_overflows(manifest) + formatted_lists(manifest)  # a JSON value the Go type refuses
    if kind == "NodePool":
        return _quantity_map(spec.get("limits"), "spec.limits", "karpenter", informer) + typed
    if kind == "NodeOverlay":
        return _quantity_map(spec.get("capacity"), "spec.capacity", "karpenter", informer) + typed
    if kind != "EC2NodeClass":
        return []
    out: list[DecodeProblem] = list(typed)
    kubelet = _dict(spec.get("kubelet"))
    base = "spec.kubelet"
    grace = kubelet.get("evictionSoftGracePeriod")
    for key, text in _dict(grace).items():
        if not isinstance(text, str):
            continue
        try:
            go_parse_duration(text)
        except KarpenterGpuError:
            out.append(DecodeProblem(_key_path(f"{base}.evictionSoftGracePeriod", key), text, "karpenter",
                                     "Karpenter's informer cannot decode it: metav1.Duration's UnmarshalJSON "
                                     "(time.ParseDuration) refuses it",
                                     "a Go duration such as '30s', '1m30s', '1.5h'"))
    builds = "the provider's resource.MustParse panics on it when it builds instance types"
    for field in ("kubeReserved", "systemReserved"):
        out += _quantity_map(kubelet.get(field), f"{base}.{field}", "karpenter", builds)
    hard = _dict(kubelet.get("evictionHard"))
    computed = {k: v for k, v in hard.items() if k in ("memory.available", "nodefs.available")}
    out += _quantity_map(computed, f"{base}.evictionHard", "karpenter", builds, percent=True)
    kubelet_only = "the kubelet refuses its configuration (ParseQuantity), so nodes of this class never register"
    out += _quantity_map({k: v for k, v in hard.items() if k not in computed}, f"{base}.evictionHard", "kubelet",
                         kubelet_only, percent=True)
    out += _quantity_map(kubelet.get("evictionSoft"), f"{base}.evictionSoft", "kubelet", kubelet_only, percent=True)
    return out


def unlaunchable_mappings(manifest: Mapping[str, Any]) -> list[tuple[int, str]]:
    """The block device mappings of an EC2NodeClass without ``deviceName`` or ``ebs`` (index, what is missing): both
    are optional in the CRD, but Karpenter v1.14.1 dereferences them -- ``ebs`` for every mapping when it writes the
    launch template (karpenter-provider-aws pkg/providers/launchtemplate/launchtemplate.go ``blockDeviceMappings``), and
    ``deviceName`` and ``ebs`` when it sizes ephemeral storage (pkg/providers/instancetype/types.go
    ``ephemeralStorage``): a panic, or a launch template EC2 refuses without a device name. Nothing launches from
    such a class."""
    if manifest.get("kind") != "EC2NodeClass":
        return []
    devices = _dict(manifest.get("spec")).get("blockDeviceMappings")
    out = []
    for i, device in enumerate(devices if isinstance(devices, list) else []):
        if not isinstance(device, dict):
            continue
        missing = [name for name in ("deviceName", "ebs") if device.get(name) is None]
        if missing:
            out.append((i, " and ".join(missing)))
    return out


def zero_volume_sizes(manifest: Mapping[str, Any]) -> list[tuple[int, str]]:
    """The EBS volume sizes of an EC2NodeClass the pattern admits without a number (``T``, ``Ti``), by mapping index:
    ``ParseQuantity`` reads them as 0 bytes (they decode)."""
    if manifest.get("kind") != "EC2NodeClass":
        return []
    devices = _dict(manifest.get("spec")).get("blockDeviceMappings")
    out = []
    for i, device in enumerate(devices if isinstance(devices, list) else []):
        size = _dict(_dict(device).get("ebs")).get("volumeSize")
        if isinstance(size, str) and size in ("T", "Ti"):
            out.append((i, size))
    return out
