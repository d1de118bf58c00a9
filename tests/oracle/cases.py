"""Seeded case generators for the oracle, one per family, aimed at the edges of each rule.

Every generator is a pure function of its ``random.Random``: the same seed gives the same cases, so the
committed vectors (tests/oracle/vectors/) can be rebuilt byte for byte.
"""

from __future__ import annotations

import copy
import random
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Callable, Iterator

import yaml

from tests.oracle import schema_gen
from tests.oracle.apiserver_family import apiserver_case
from tests.oracle.batch_family import oracle_case as batch_case
from tests.oracle.budgets_family import oracle_case as budgets_case
from tests.oracle.overlay_family import oracle_case as overlay_case
from tests.oracle.scheduler_family import oracle_case as scheduler_case

ROOT = Path(__file__).resolve().parents[2]
INT64_MAX, INT64_MIN = 2**63 - 1, -(2**63)

# ----------------------------------------------------------------------------------------------- requirements

KEYS = [
    "node.kubernetes.io/instance-type", "topology.kubernetes.io/zone", "karpenter.sh/capacity-type",
    "kubernetes.io/arch", "karpenter.k8s.aws/instance-gpu-count", "karpenter.k8s.aws/instance-family",
    "karpenter.sh/nodepool", "kubernetes.io/os",
    # normalized to the keys above by NewRequirement
    "failure-domain.beta.kubernetes.io/zone", "beta.kubernetes.io/arch", "node.kubernetes.io/instance-type",
    # custom, undefined unless a case defines them
    "team", "example.com/tier", "gpu", "karpenter.k8s.aws/instance-gpu-name",
]
VALUES = ["a", "b", "c", "x1", "", "0", "1", "2", "3", "5", "10", "-1", "+3", "007", str(INT64_MAX),
          str(INT64_MIN), str(INT64_MAX - 1), "9223372036854775808", " 1", "1.5"]
# Gt/Lt/Gte/Lte take one value strconv.Atoi reads (the API server refuses others).
NUMBERS = ["0", "1", "2", "3", "5", "10", "-1", "-5", "+3", "007", "-0", str(INT64_MAX), str(INT64_MIN),
           str(INT64_MAX - 1), str(INT64_MIN + 1)]
OPERATORS = ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"]


def _requirement(rng: random.Random, keys: list[str]) -> dict:
    op = rng.choice(OPERATORS)
    req: dict[str, Any] = {"key": rng.choice(keys), "operator": op}
    if op in ("Gt", "Lt", "Gte", "Lte"):
        req["values"] = [rng.choice(NUMBERS)]
    elif op in ("In", "NotIn"):
        req["values"] = rng.sample(VALUES, rng.choice([0, 1, 1, 2, 3, 5]))
    elif rng.random() < 0.2:
        req["values"] = rng.sample(VALUES, 1)  # ignored by Exists / DoesNotExist
    if rng.random() < 0.25:
        req["minValues"] = rng.randint(1, 4)
    return req


def requirements_case(rng: random.Random) -> dict:
    keys = rng.sample(KEYS, rng.randint(1, 5))
    a = [_requirement(rng, keys) for _ in range(rng.randint(0, 5))]
    b = [_requirement(rng, keys + rng.sample(KEYS, 1)) for _ in range(rng.randint(0, 5))]
    min_keys = sorted({r["key"] for r in a + b if "minValues" in r}) or keys[:1]
    types = [{k: rng.choice(VALUES) for k in min_keys if rng.random() < 0.85} for _ in range(rng.randint(0, 6))]
    return {"a": a, "b": b, "probe": rng.sample(VALUES, 6), "instanceTypes": types}


# ----------------------------------------------------------------------------------------------- tolerations

TAINT_KEYS = ["a", "b", "nvidia.com/gpu", "example.com/n", ""]
TAINT_VALUES = ["", "true", "5", "05", "0", "-3", "-0", "+2", "x", "9223372036854775807", "9223372036854775808", "10"]
EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute", ""]
TOLERATION_OPERATORS = ["Exists", "Equal", "", "Gt", "Lt", "exists", "In"]


def _maybe(rng: random.Random, out: dict, field: str, choices: list, p: float = 0.8) -> None:
    if rng.random() < p:
        out[field] = rng.choice(choices)


def tolerations_case(rng: random.Random) -> dict:
    taints = []
    for _ in range(rng.randint(0, 4)):
        taint: dict[str, Any] = {"key": rng.choice(TAINT_KEYS[:-1]), "effect": rng.choice(EFFECTS[:-1])}
        _maybe(rng, taint, "value", TAINT_VALUES, 0.6)
        if rng.random() < 0.05:
            taint["effect"] = ""
        taints.append(taint)
    tolerations = []
    for _ in range(rng.randint(0, 4)):
        tol: dict[str, Any] = {}
        _maybe(rng, tol, "key", TAINT_KEYS)
        _maybe(rng, tol, "operator", TOLERATION_OPERATORS)
        _maybe(rng, tol, "value", TAINT_VALUES, 0.6)
        _maybe(rng, tol, "effect", EFFECTS, 0.7)
        if rng.random() < 0.1:
            tol["tolerationSeconds"] = rng.choice([0, 30, 300])
        if taints and rng.random() < 0.3:  # aimed at one taint
            t = rng.choice(taints)
            tol.update({"key": t["key"], "effect": t["effect"]})
            if "value" in t:
                tol["value"] = t["value"]
        tolerations.append(tol)
    return {"taints": taints, "tolerations": tolerations}


# ----------------------------------------------------------------------------------------------- drift

def _manifests(kind: str) -> list[dict]:
    found = []
    for path in sorted((ROOT / "dist").glob(f"*/{kind}.*.yaml")):
        doc = yaml.safe_load(path.read_text())
        if isinstance(doc, dict) and doc.get("kind") == kind:
            found.append(doc)
    return found


_BASES: dict[str, list[dict]] = {}


def _bases(kind: str, dist: bool = True) -> list[dict]:
    """A minimal manifest of ``kind``, and with ``dist`` the ones dist/ holds (the vectors leave those out, so a
    change to dist/ does not make them stale)."""
    if kind not in _BASES:
        minimal = {
            "NodePool": {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "p"},
                         "spec": {"template": {"spec": {"nodeClassRef": {"group": "karpenter.k8s.aws",
                                                                         "kind": "EC2NodeClass", "name": "c"},
                                                        "requirements": []}}}},
            "EC2NodeClass": {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "c"},
                             "spec": {"role": "r", "amiSelectorTerms": [{"alias": "al2023@latest"}],
                                      "subnetSelectorTerms": [{"tags": {"k": "v"}}],
                                      "securityGroupSelectorTerms": [{"tags": {"k": "v"}}]}},
        }[kind]
        _BASES[kind] = [minimal, *_manifests(kind)]
    return _BASES[kind] if dist else _BASES[kind][:1]


# Lengths in seconds and the CRD-valid ways to write each (^([0-9]+(s|m|h))+$).
def _spell_duration(rng: random.Random, seconds: int) -> str:
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    forms = [f"{seconds}s", f"{seconds // 60}m{seconds % 60}s" if seconds % 60 else f"{seconds // 60}m",
             "".join(f"{v}{u}" for v, u in ((h, "h"), (m, "m"), (s, "s")) if v) or "0s",
             f"{h}h{m}m{s}s", f"{s}s{m}m{h}h", f"0{h}h{m}m{s}s"]
    if h >= 2:
        forms.append(f"{h - 1}h60m{m}m{s}s")
    return rng.choice(forms)


DURATIONS = [0, 30, 60, 90, 1800, 3600, 5400, 86400, 7 * 86400, 30 * 86400, 720 * 3600 + 1]
# Same sizes written as the CRD pattern allows (NGi | NG | NTi | NT), and others.
VOLUME_SIZES = ["1024Gi", "1Ti", "2048Gi", "2Ti", "1000G", "1T", "1024G", "500Gi", "512Gi", "100Gi", "100G", "64T",
                "58Ti", "59000Gi", "1Gi", "1G"]
MAP_KEYS = ["team", "env", "example.com/x", "a"]
MAP_VALUES = ["", "ml", "prod", "1"]


def _edit_map(rng: random.Random, parent: dict, field: str) -> None:
    current = parent.get(field)
    choice = rng.random()
    if choice < 0.15:
        parent.pop(field, None)
    elif choice < 0.25:
        parent[field] = {}
    elif isinstance(current, dict) and current and choice < 0.5:
        items = list(current.items())
        rng.shuffle(items)  # order only
        parent[field] = dict(items)
    else:
        new = dict(current) if isinstance(current, dict) else {}
        new[rng.choice(MAP_KEYS)] = rng.choice(MAP_VALUES)
        parent[field] = new


def _edit_list(rng: random.Random, parent: dict, field: str, make: Callable[[], Any]) -> None:
    current = list(parent.get(field) or [])
    choice = rng.random()
    if choice < 0.15:
        parent.pop(field, None)
    elif choice < 0.25:
        parent[field] = []
    elif current and choice < 0.45:
        rng.shuffle(current)
        parent[field] = current
    elif current and choice < 0.6:
        parent[field] = current + [copy.deepcopy(rng.choice(current))]  # a duplicate
    elif current and choice < 0.7:
        current.pop(rng.randrange(len(current)))
        parent[field] = current
    else:
        parent[field] = current + [make()]


def _taint(rng: random.Random) -> dict:
    t = {"key": rng.choice(["nvidia.com/gpu", "a", "b"]), "effect": rng.choice(EFFECTS[:-1])}
    if rng.random() < 0.6:
        t["value"] = rng.choice(["", "true", "1"])
    return t


def _edit_node_pool(rng: random.Random, m: dict) -> None:
    spec = m.setdefault("spec", {})
    template = spec.setdefault("template", {})
    tspec = template.setdefault("spec", {})
    meta = template.setdefault("metadata", {}) if rng.random() < 0.7 else template.get("metadata") or {}
    what = rng.choice(["expireAfter", "expireAfter", "terminationGracePeriod", "labels", "annotations", "taints",
                       "startupTaints", "nodeClassRef", "requirements", "unknown", "behaviour", "metadata"])
    if what == "expireAfter":
        r = rng.random()
        if r < 0.15:
            tspec.pop("expireAfter", None)
        elif r < 0.3:
            tspec["expireAfter"] = "Never"
        else:
            tspec["expireAfter"] = _spell_duration(rng, rng.choice(DURATIONS + [720 * 3600] * 4))
    elif what == "terminationGracePeriod":
        if rng.random() < 0.2:
            tspec.pop("terminationGracePeriod", None)
        else:
            tspec["terminationGracePeriod"] = _spell_duration(rng, rng.choice(DURATIONS))
    elif what in ("labels", "annotations"):
        _edit_map(rng, meta, what)
        template["metadata"] = meta
    elif what in ("taints", "startupTaints"):
        _edit_list(rng, tspec, what, lambda: _taint(rng))
    elif what == "nodeClassRef":
        ref = dict(tspec.get("nodeClassRef") or {})
        ref["name"] = rng.choice(["c", "gpu-inference", "other"])
        tspec["nodeClassRef"] = ref
    elif what == "requirements":  # not hashed
        tspec["requirements"] = list(reversed(tspec.get("requirements") or [])) + (
            [{"key": "team", "operator": "In", "values": ["ml"]}] if rng.random() < 0.5 else [])
    elif what == "unknown":  # pruned by the API server
        tspec[rng.choice(["kubelet", "unknownField"])] = {"maxPods": 110}
    elif what == "metadata":
        template.pop("metadata", None)
    else:  # not hashed
        spec["weight"] = rng.randint(0, 100)
        spec["limits"] = {"nvidia.com/gpu": str(rng.randint(1, 64))}


def _device(rng: random.Random) -> dict:
    ebs: dict[str, Any] = {"volumeSize": rng.choice(VOLUME_SIZES)}
    if rng.random() < 0.6:
        ebs["volumeType"] = rng.choice(["gp3", "io2"])
    if rng.random() < 0.3:
        ebs["encrypted"] = rng.choice([True, False])
    return {"deviceName": rng.choice(["/dev/xvda", "/dev/xvdb"]), "ebs": ebs,
            **({"rootVolume": rng.choice([True, False])} if rng.random() < 0.5 else {})}


def _edit_node_class(rng: random.Random, m: dict) -> None:
    spec = m.setdefault("spec", {})
    what = rng.choice(["volumeSize", "volumeSize", "blockDeviceMappings", "tags", "metadataOptions",
                       "metadataOptions", "amiFamily", "alias", "ignored", "kubelet", "pointers", "unknown", "role"])
    if what == "volumeSize":
        devices = list(spec.get("blockDeviceMappings") or [_device(rng)])
        i = rng.randrange(len(devices))
        devices[i] = copy.deepcopy(devices[i])
        devices[i].setdefault("ebs", {})["volumeSize"] = rng.choice(VOLUME_SIZES)
        spec["blockDeviceMappings"] = devices
    elif what == "blockDeviceMappings":
        _edit_list(rng, spec, what, lambda: _device(rng))
    elif what == "tags":
        _edit_map(rng, spec, "tags")
    elif what == "metadataOptions":
        defaults = {"httpEndpoint": "enabled", "httpProtocolIPv6": "disabled", "httpPutResponseHopLimit": 1,
                    "httpTokens": "required"}
        r = rng.random()
        if r < 0.25:
            spec.pop("metadataOptions", None)
        elif r < 0.4:
            spec["metadataOptions"] = {}
        else:
            keep = {k: v for k, v in defaults.items() if rng.random() < 0.5}
            if rng.random() < 0.3:
                keep[rng.choice(list(defaults))] = rng.choice(["disabled", "optional", 2])
                if isinstance(keep.get("httpPutResponseHopLimit"), str):
                    keep["httpPutResponseHopLimit"] = 2
                for k in ("httpEndpoint", "httpProtocolIPv6", "httpTokens"):
                    if keep.get(k) == 2:
                        keep[k] = "disabled" if k != "httpTokens" else "optional"
            spec["metadataOptions"] = keep
    elif what == "amiFamily":
        r = rng.random()
        if r < 0.3:
            spec.pop("amiFamily", None)
        else:
            spec["amiFamily"] = rng.choice(["AL2023", "Bottlerocket", "Custom"])
    elif what == "alias":
        spec["amiSelectorTerms"] = [{"alias": rng.choice(["al2023@latest", "al2023@v20251103", "bottlerocket@latest"])}]
    elif what == "ignored":
        spec["subnetSelectorTerms"] = [{"tags": {"k": rng.choice(["v", "w"])}}]
        if rng.random() < 0.5:
            spec["ipPrefixCount"] = rng.randint(0, 3)
    elif what == "kubelet":
        kubelet = dict(spec.get("kubelet") or {})
        field = rng.choice(["maxPods", "evictionSoftGracePeriod", "systemReserved", "clusterDNS", "cpuCFSQuota"])
        if field == "maxPods":
            kubelet["maxPods"] = rng.choice([0, 110, 234])
        elif field == "evictionSoftGracePeriod":
            kubelet["evictionSoftGracePeriod"] = {"memory.available": _spell_duration(rng, rng.choice([0, 90, 60]))}
            kubelet["evictionSoft"] = {"memory.available": "500Mi"}
        elif field == "systemReserved":
            kubelet["systemReserved"] = {"memory": rng.choice(["1Gi", "1024Mi", "1G"])}
        elif field == "clusterDNS":
            kubelet["clusterDNS"] = rng.sample(["10.0.0.10", "10.0.0.11", "10.0.0.10"], rng.randint(0, 3))
        else:
            kubelet["cpuCFSQuota"] = rng.choice([True, False])
        spec["kubelet"] = kubelet
    elif what == "pointers":
        field = rng.choice(["detailedMonitoring", "associatePublicIPAddress", "userData", "context"])
        if rng.random() < 0.3:
            spec.pop(field, None)
        elif field in ("detailedMonitoring", "associatePublicIPAddress"):
            spec[field] = rng.choice([True, False])
        else:
            spec[field] = rng.choice(["", "x"])
    elif what == "unknown":
        spec["unknownField"] = {"a": 1}
    else:
        spec["role"] = rng.choice(["r", "KarpenterNodeRole-ml-prod", "other"])


def drift_case(rng: random.Random, dist: bool = True) -> dict:
    """Two manifests of one kind: hand-written edits aimed at the drift hash, or (half the time) an admitted schema
    draw and an admitted schema edit of it (:func:`tests.oracle.schema_gen.draw`: any leaf of the CRD)."""
    kind = rng.choice(["NodePool", "EC2NodeClass"])
    base = copy.deepcopy(rng.choice(_bases(kind, dist)))
    if rng.random() < 0.5:
        if rng.random() < 0.7:
            base = schema_gen.draw(rng, kind, base, edits=3)
        return {"kind": kind, "old": base, "new": schema_gen.draw(rng, kind, base, edits=3)}
    edit = _edit_node_pool if kind == "NodePool" else _edit_node_class
    for _ in range(rng.randint(0, 2)):
        edit(rng, base)
    new = copy.deepcopy(base)
    for _ in range(rng.randint(1, 3)):
        edit(rng, new)
    return {"kind": kind, "old": base, "new": new}


# ----------------------------------------------------------------------------------------------- cron

#: The NodePool CRD's pattern for ``budgets[].schedule`` (FACTS: the v1.14.1 CRD), as the API server's RE2 reads it:
#: searched, ``\s`` ASCII white space without ``\v``, ``$`` the end of the text.
SCHEDULE_PATTERN = re.compile(r"^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|"
                              r"((.+)[\t\n\f\r ](.+)[\t\n\f\r ](.+)[\t\n\f\r ](.+)[\t\n\f\r ](.+))\Z")
_CRON_BOUNDS = ((0, 59), (0, 23), (1, 31), (1, 12), (0, 6))
_CRON_NAMES = ([], [], [], ["jan", "Feb", "MAR", "dec", "sep"], ["sun", "Mon", "FRI", "sat", "tUe"])
_CRON_SPACE = [" "] * 12 + ["  ", "\t", "\u00a0", "\x1c", "\u3000", "\n"]
_DESCRIPTOR_NAMES = ["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"]


def _cron_value(rng: random.Random, index: int) -> str:
    low, high = _CRON_BOUNDS[index]
    roll = rng.random()
    if roll < 0.06 and _CRON_NAMES[index]:
        return rng.choice(_CRON_NAMES[index])
    if roll < 0.1:
        return rng.choice(["+1", "05", "-1", "", "x", str(INT64_MAX), "9223372036854775808", "1.5", "٣"])
    if roll < 0.16:
        return str(rng.choice([low - 1, high + 1, high + 2])) if low else str(high + 1)
    return str(rng.randint(low, high))


def _cron_range(rng: random.Random, index: int) -> str:
    low, high = _CRON_BOUNDS[index]
    if rng.random() < 0.85:
        a, b = sorted((rng.randint(low, high), rng.randint(low, high)))
        return f"{a}-{b}"
    return f"{_cron_value(rng, index)}-{_cron_value(rng, index)}"


def _cron_part(rng: random.Random, index: int) -> str:
    roll = rng.random()
    if roll < 0.25:
        body = rng.choice(["*", "*", "?"]) + (rng.choice(["-5", "-x", ""]) if rng.random() < 0.05 else "")
    elif roll < 0.55:
        body = _cron_value(rng, index)
    else:
        body = _cron_range(rng, index) + (f"-{_cron_value(rng, index)}" if rng.random() < 0.03 else "")
    if rng.random() < 0.3:
        body += "/" + rng.choice(["1", "2", "3", "5", "7", "15", "2", "3", "0", "+2", "-2", "", "100",
                                  str(INT64_MAX)])
        if rng.random() < 0.03:
            body += "/2"
    return body


def _cron_field(rng: random.Random, index: int) -> str:
    if rng.random() < 0.75:
        return _cron_part(rng, index) if rng.random() < 0.6 else rng.choice(["*", "*", "?"])
    parts = [_cron_part(rng, index) for _ in range(rng.randint(2, 3))]
    if rng.random() < 0.1:
        parts.insert(rng.randint(0, len(parts)), "")  # an empty list item
    return ",".join(parts)


def _schedule(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.12:
        text = rng.choice(_DESCRIPTOR_NAMES + ["@DAILY", "@Weekly", "@every 1h", "@reboot"])
        if rng.random() < 0.3:
            text += rng.choice([" ", "\t", "x", " 1 2 3 4", "\n"])
        return text
    count = rng.choices([5, 4, 6], weights=[90, 5, 5])[0]
    fields = [_cron_field(rng, i % 5) for i in range(count)]
    if rng.random() < 0.03:
        fields.insert(0, rng.choice(["TZ=UTC", "CRON_TZ=Asia/Seoul", "TZ=Nowhere/Zone"]))
    text = fields[0]
    for field in fields[1:]:
        text += rng.choice(_CRON_SPACE) + field
    if rng.random() < 0.05:
        text = rng.choice([" ", "\t", "\u00a0"]) + text
    if rng.random() < 0.05:
        text += rng.choice([" ", "\t", "\x1f", "\n"])
    return text


def cron_case(rng: random.Random) -> dict:
    """A budget schedule the NodePool CRD admits, and a window to list its next starts in (up to six)."""
    schedule = _schedule(rng)
    while not SCHEDULE_PATTERN.search(schedule):
        schedule = _schedule(rng)
    begin = datetime(2027, 1, 1, tzinfo=UTC) + timedelta(seconds=rng.randrange(2 * 365 * 86400))
    days = rng.choice([1, 2, 7, 31, 62, 400])
    return {"schedule": schedule, "from": begin.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "until": (begin + timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ"), "count": rng.randint(1, 6)}


# ----------------------------------------------------------------------------------------------- registry

GENERATORS: dict[str, Callable[..., dict]] = {
    "requirements": requirements_case,
    "tolerations": tolerations_case,
    "drift": drift_case,
    "apiserver": apiserver_case,
    "scheduler": scheduler_case,
    "overlay": overlay_case,
    "cron": cron_case,
    "budgets": budgets_case,
    "batch": batch_case,
}
#: Generators that may start from dist/ (``dist=False`` for the vectors, so a change to dist/ leaves them valid).
_FROM_DIST = (drift_case, apiserver_case)


def generate(family: str, seed: int, count: int, dist: bool = True) -> Iterator[dict]:
    """``count`` cases of ``family`` from ``seed``: ``{"id", "family", "case"}`` (``dist``: drift cases may start
    from the manifests in dist/)."""
    rng = random.Random(f"{family}:{seed}")
    make = GENERATORS[family]
    for i in range(count):
        case = make(rng, dist) if make in _FROM_DIST else make(rng)
        yield {"id": f"{family}-{seed}-{i}", "family": family, "case": case}
