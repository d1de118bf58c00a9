"""Oracle inputs drawn from the packaged CRDs' openAPIV3Schema, not from what the core models.

The generators of the families were written beside the core, so they produced what the core reads. This module
knows only the schemas (``constructs/karpenter_gpu/data/crds/*.yaml``: the NodePool, EC2NodeClass and NodeOverlay
CRDs of Karpenter v1.14.1): it sets any leaf of a real object (the project's fixtures and dist/) to a value the
schema describes -- an enum member, a string matching the field's ``pattern`` (a known-good example of the field,
or a string drawn from the pattern itself), an integer at or inside ``minimum``/``maximum``, a list within
``maxItems`` (no duplicates under ``x-kubernetes-list-type: set``), a map whose keys a CEL rule's "valid keys are
[...]" lists, a new list item with its ``required`` fields -- so most cases stay realistic and every field is
reached.

A *leaf path* is a field of the schema without ``properties`` of its own, written with ``[]`` for the items of a
list of objects: ``spec.template.spec.requirements[].minValues``, ``spec.kubelet.kubeReserved`` (a map is one
leaf), ``spec.limits``. :func:`leaf_paths` lists them, :func:`leaves_set` names those an object sets and
:func:`without` removes one (the coverage table of ``python -m tests.oracle.run`` counts them and asks Karpenter
whether removing one changes its answer).

:func:`draw` returns an object the API server admits (the apiserver family's core answer: no refusal, no pruned
field; that family compares exactly this answer with kube-apiserver's own validation on every run), so the families
downstream of admission (drift, scheduler, overlay) only see objects a cluster would store. The apiserver family
itself uses :func:`mutate` without the filter.
"""

from __future__ import annotations

import copy
import random
import re
import string
from functools import cache
from importlib import import_module
from pathlib import Path
from typing import Any, Callable, Iterable

import yaml

from tests.oracle import lines

Schema = dict[str, Any]
#: The CRD file of each kind the generators draw.
CRD_FILES = {"NodePool": "karpenter.sh_nodepools.yaml", "EC2NodeClass": "karpenter.k8s.aws_ec2nodeclasses.yaml",
             "NodeOverlay": "karpenter.sh_nodeoverlays.yaml"}
#: Leaf paths the generators never set on purpose, with the reason (the coverage check accepts only these).
ALLOWED_UNSET = {
    "apiVersion": "the group/version the object is served under, not a field (the apiserver family's type edits "
                  "change it)",
    "kind": "the kind the object is, not a field",
    "metadata": "ObjectMeta, validated by apimachinery, not by the CRD schema (the apiserver family's metadata "
                "edits cover it)",
    "status": "written by the controllers through the status subresource; the API server drops it on create "
              "and on spec updates",
}

_sre: Any = import_module("re._parser")
_C: Any = import_module("re._constants")


# ----------------------------------------------------------------------------------------------- schemas

def root_schema(kind: str) -> Schema:
    """The served version's openAPIV3Schema of ``kind``, in the CRDs of the oracle pass's Karpenter line."""
    return _root_schema(kind, lines.crd_file(CRD_FILES[kind]))


@cache
def _root_schema(kind: str, path: Path) -> Schema:
    doc = yaml.safe_load(path.read_text())
    version = next(v for v in doc["spec"]["versions"] if v.get("served") and v.get("storage", True))
    return version["schema"]["openAPIV3Schema"]


def _is_leaf(schema: Schema) -> bool:
    if isinstance(schema.get("properties"), dict):
        return False
    items = schema.get("items")
    return not (schema.get("type") == "array" and isinstance(items, dict) and isinstance(items.get("properties"),
                                                                                            dict))


def _children(schema: Schema) -> Iterable[tuple[str, Schema]]:
    """The named children of a non-leaf node (``[]`` for the items of a list of objects)."""
    if isinstance(schema.get("properties"), dict):
        yield from schema["properties"].items()
    else:
        yield "[]", schema["items"]


def _join(prefix: str, name: str) -> str:
    if name == "[]":
        return prefix + "[]"
    return f"{prefix}.{name}" if prefix else name


def _leaves(kind: str) -> tuple[tuple[str, ...], dict[str, Schema]]:
    return _leaves_in(kind, lines.crd_file(CRD_FILES[kind]))  # the oracle pass's Karpenter line's


@cache
def _leaves_in(kind: str, path: Path) -> tuple[tuple[str, ...], dict[str, Schema]]:
    found: dict[str, Schema] = {}

    def walk(schema: Schema, path: str) -> None:
        if path and _is_leaf(schema):
            found[path] = schema
            return
        for name, child in _children(schema):
            walk(child, _join(path, name))

    walk(_root_schema(kind, path), "")
    return tuple(found), found


def leaf_paths(kind: str) -> tuple[str, ...]:
    """Every leaf path of ``kind``'s schema, status and metadata included."""
    return _leaves(kind)[0]


def allowed_unset(path: str) -> str | None:
    """Why a leaf path may stay unset (None: it must be set by some case)."""
    head = path.split(".")[0].removesuffix("[]")
    return ALLOWED_UNSET.get(head)


def settable(kind: str) -> tuple[str, ...]:
    """The leaf paths the generators set (every leaf but the allow-listed ones)."""
    return tuple(p for p in leaf_paths(kind) if allowed_unset(p) is None)


def _split(path: str) -> list[str]:
    """``a.b[].c`` -> ``["a", "b", "[]", "c"]``."""
    out: list[str] = []
    for part in path.split("."):
        while part.endswith("[]"):
            part = part[:-2]
            out.extend([part, "[]"]) if part else out.append("[]")
            part = ""
        if part:
            out.append(part)
    return out


def _node(kind: str, parts: list[str]) -> Schema:
    schema = root_schema(kind)
    for part in parts:
        schema = schema["items"] if part == "[]" else schema["properties"][part]
    return schema


# ----------------------------------------------------------------------------------------------- what is set

def leaves_set(kind: str, obj: Any) -> set[str]:
    """The leaf paths ``obj`` sets (a key present, whatever its value; a list item sets the paths inside it)."""
    out: set[str] = set()

    def walk(value: Any, schema: Schema, path: str) -> None:
        if path and _is_leaf(schema):
            out.add(path)
            return
        if isinstance(schema.get("properties"), dict):
            if isinstance(value, dict):
                for key, child in value.items():
                    sub = schema["properties"].get(key)
                    if isinstance(sub, dict):
                        walk(child, sub, _join(path, key))
        elif isinstance(value, list):
            for item in value:
                walk(item, schema["items"], path + "[]")

    walk(obj, root_schema(kind), "")
    return {p for p in out if allowed_unset(p) is None}


def without(obj: Any, path: str) -> Any:
    """A copy of ``obj`` with the leaf ``path`` removed everywhere it occurs (in every list item)."""
    out = copy.deepcopy(obj)
    parts = _split(path)

    def drop(value: Any, rest: list[str]) -> None:
        if not rest:
            return
        head, tail = rest[0], rest[1:]
        if head == "[]":
            for item in value if isinstance(value, list) else []:
                drop(item, tail)
        elif isinstance(value, dict) and head in value:
            if tail:
                drop(value[head], tail)
            else:
                del value[head]

    drop(out, parts)
    return out


# ----------------------------------------------------------------------------------------------- values

#: Known-good examples of fields whose schema says too little to draw a realistic value (or whose CEL rules or
#: Karpenter's own parsing want more than the pattern): by the field's last name.
EXAMPLES: dict[str, list[Any]] = {
    "duration": ["1h", "30m", "8h", "1h30m", "10h0s", "24h", "0h"],
    "nodes": ["10%", "0", "1", "5", "100%", "0%", "50%", "3"],
    "schedule": ["@daily", "0 9 * * 1-5", "@weekly", "0 0 * * *", "@hourly", "30 2 * * 6", "@midnight"],
    "consolidateAfter": ["0s", "30s", "5m", "Never", "1h", "10m30s"],
    "expireAfter": ["720h", "Never", "24h", "1h30m", "336h", "2160h"],
    "terminationGracePeriod": ["1h", "30m", "48h", "5m", "24h"],
    "key": ["node.kubernetes.io/instance-type", "karpenter.k8s.aws/instance-family", "karpenter.sh/capacity-type",
            "topology.kubernetes.io/zone", "kubernetes.io/arch", "karpenter.k8s.aws/instance-gpu-count",
            "karpenter.k8s.aws/instance-cpu", "nvidia.com/gpu", "team", "example.com/tier", "dedicated",
            "karpenter.k8s.aws/instance-gpu-name", "karpenter.k8s.aws/instance-size", "kubernetes.io/os",
            "karpenter.k8s.aws/instance-generation", "karpenter.k8s.aws/instance-gpu-memory"],
    "value": ["true", "gpu", "training", "inference", "1"],
    "values": [["on-demand"], ["spot", "on-demand"], ["reserved"], ["g6", "g6e"], ["amd64"], ["arm64"], ["1"],
               ["0"], ["4"], ["us-east-1a", "us-east-1b"], ["ml"], ["nvidia"], ["l4", "a10g"], ["8"], ["g6.xlarge"]],
    "volumeSize": ["20Gi", "100Gi", "1Ti", "500G", "200Gi", "2T", "80Gi"],
    "deviceName": ["/dev/xvda", "/dev/xvdb", "/dev/sda1"],
    "kmsKeyID": ["arn:aws:kms:us-east-1:012345678901:key/1234abcd-12ab-34cd-56ef-1234567890ab"],
    "snapshotID": ["snap-0123456789abcdef0"],
    "role": ["KarpenterNodeRole-ml", "r", "oracle"],
    "instanceProfile": ["KarpenterNodeInstanceProfile-ml"],
    "userData": ["#!/bin/bash\necho hello\n", "[settings.kubernetes]\nmax-pods = 110\n", ""],
    "context": ["ctx", "arn:aws:ec2:us-east-1:012345678901:launch-template/lt-0123"],
    "name": ["my-ami-*", "gpu", "eks-node-*"],
    "owner": ["amazon", "self", "012345678901"],
    "ssmParameter": ["/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/recommended/image_id"],
    "alias": ["al2023@latest", "al2023@v20251103", "bottlerocket@latest", "al2@latest", "bottlerocket@v1.40.0"],
    "id": [],  # drawn from the pattern (ami-, subnet-, sg-, cr-, pg- ids)
    "price": ["0", "0.5", "1", "2.25", "10", "0.001", "3.06"],
    "priceAdjustment": ["+10%", "-15%", "-100%", "+0.5", "-0.2", "-50", "-99.5%", "+0%"],
    "clusterDNS": [["10.100.0.10"], ["172.20.0.10", "169.254.20.10"], []],
    "timeAdded": ["2025-11-03T00:00:00Z"],
    "deviceIndex": [0, 1, 2],
    "networkCardIndex": [0, 0, 1, 2, 3],
    "minValues": [1, 2, 3],
    "weight": [1, 10, 50, 100],
}
#: Examples of the values of maps (the keys, when no CEL rule lists them, from :data:`MAP_KEYS`).
MAP_VALUES: dict[str, list[Any]] = {
    "limits": ["100", "1000Gi", "8", 16, "4", "0", "64Gi", "2"],
    "capacity": ["1", "4", "8", "10", "1Gi", 2],
    "kubeReserved": ["100m", "1Gi", "500Mi", "200m", "10Gi", "1000"],
    "systemReserved": ["100m", "1Gi", "500Mi", "200m", "10Gi", "1000"],
    "evictionHard": ["100Mi", "10%", "5%", "500Mi", "1Gi"],
    "evictionSoft": ["200Mi", "15%", "1Gi", "10%"],
    "evictionSoftGracePeriod": ["1m", "30s", "1m30s", "2m"],
    "labels": ["ml", "true", "a", "training"],
    "annotations": ["x", "", "example"],
    "tags": ["ml", "prod", "owned", "1"],
}
MAP_KEYS: dict[str, list[str]] = {
    "limits": ["cpu", "memory", "nvidia.com/gpu", "aws.amazon.com/neuron", "pods", "nodes", "example.com/x"],
    "capacity": ["nvidia.com/gpu", "amd.com/gpu", "example.com/shares", "vpc.amazonaws.com/efa", "hugepages-2Mi"],
    "labels": ["team", "example.com/tier", "app", "node.example.com/role"],
    "annotations": ["example.com/note", "team", "a"],
    "tags": ["team", "Name", "env", "example.com/x", "karpenter.sh/discovery"],
}
_LETTERS = string.ascii_lowercase + string.digits
_INT32 = 2**31 - 1


def _name(path: str) -> str:
    return next(p for p in reversed(_split(path)) if p != "[]")


def _cel_keys(schema: Schema) -> list[str]:
    """The keys a map's CEL rule names ("valid keys for X are ['a','b']")."""
    for rule in schema.get("x-kubernetes-validations") or []:
        m = re.search(r"valid keys for \w+ are \[([^\]]*)\]", rule.get("message", ""))
        if m:
            return re.findall(r"'([^']*)'", m.group(1))
    return []


def from_pattern(rng: random.Random, pattern: str) -> str:
    """A string the regular expression ``pattern`` matches (repeats kept short; anchors ignored)."""
    return _emit(rng, _sre.parse(pattern))


def _emit(rng: random.Random, parsed: Any) -> str:
    out = []
    for op, av in parsed:
        out.append(_emit_one(rng, op, av))
    return "".join(out)


def _category(rng: random.Random, cat: Any) -> str:
    if cat == _C.CATEGORY_DIGIT:
        return rng.choice(string.digits)
    if cat == _C.CATEGORY_SPACE:
        return " "
    if cat == _C.CATEGORY_WORD:
        return rng.choice(_LETTERS)
    return "x"


def _emit_one(rng: random.Random, op: Any, av: Any) -> str:
    if op == _C.LITERAL:
        return chr(av)
    if op == _C.NOT_LITERAL:
        return "x" if chr(av) != "x" else "y"
    if op == _C.ANY:
        return rng.choice(_LETTERS)
    if op == _C.IN:
        choices: list[str] = []
        for kind, value in av:
            if kind == _C.LITERAL:
                choices.append(chr(value))
            elif kind == _C.RANGE:
                lo, hi = value
                choices.append(chr(rng.randint(lo, min(hi, lo + 60))))
            elif kind == _C.CATEGORY:
                choices.append(_category(rng, value))
            elif kind == _C.NEGATE:
                return "x"
        return rng.choice(choices) if choices else "x"
    if op == _C.BRANCH:
        return _emit(rng, rng.choice(av[1]))
    if op == _C.SUBPATTERN:
        return _emit(rng, av[-1])
    if op in (_C.MAX_REPEAT, _C.MIN_REPEAT):
        low, high, body = av
        high = low + 3 if high == _C.MAXREPEAT else min(high, low + 3)
        return "".join(_emit(rng, body) for _ in range(rng.randint(low, high)))
    if op == _C.CATEGORY:
        return _category(rng, av)
    return ""  # AT (anchors), assertions


def _string(rng: random.Random, schema: Schema, path: str) -> str:
    name = _name(path)
    if "enum" in schema:
        return str(rng.choice(schema["enum"]))
    if schema.get("format") == "date-time":
        return rng.choice(EXAMPLES["timeAdded"])
    examples = [e for e in EXAMPLES.get(name, []) if isinstance(e, str)]
    pattern = schema.get("pattern")
    if examples and (rng.random() < 0.8 or not pattern):
        return rng.choice(examples)
    if pattern:
        for _ in range(5):
            text = from_pattern(rng, pattern)
            if re.search(pattern, text) and len(text) <= schema.get("maxLength", 63):
                return text
        return rng.choice(examples) if examples else ""
    return "".join(rng.choice(_LETTERS) for _ in range(rng.randint(1, 12)))


def _integer(rng: random.Random, schema: Schema, path: str) -> int:
    examples = [e for e in EXAMPLES.get(_name(path), []) if type(e) is int]
    if examples and rng.random() < 0.7:
        return rng.choice(examples)
    low = schema.get("minimum", 0 if rng.random() < 0.8 else -5)
    high = schema.get("maximum", _INT32 if schema.get("format") != "int64" else 2**40)
    small = [v for v in (1, 2, 3, 8, 10, 64, 110, 250, 3000) if low <= v <= high]
    return rng.choice([low, high, low + 1 if low < high else low, rng.randint(low, min(high, low + 1000)),
                       *small[:4]])


def _map(rng: random.Random, schema: Schema, path: str) -> dict:
    name = _name(path)
    keys = _cel_keys(schema) or MAP_KEYS.get(name) or ["a", "example.com/b", "team"]
    item = schema.get("additionalProperties") if isinstance(schema.get("additionalProperties"), dict) else {}
    most = min(schema.get("maxProperties", 4), 4, len(keys))
    out: dict = {}
    for key in rng.sample(keys, rng.randint(0 if rng.random() < 0.1 else 1, most)):
        examples = MAP_VALUES.get(name)
        if examples and rng.random() < 0.8:
            value = rng.choice(examples)
        elif item.get("x-kubernetes-int-or-string") and rng.random() < 0.3:
            value = rng.randint(0, 64)
        else:
            value = _string(rng, {k: v for k, v in item.items() if k != "anyOf"}, path + "." + key)
        if value == "" and "tags" in name:
            value = "x"
        out[key] = value
    return out


def value(rng: random.Random, schema: Schema, path: str) -> Any:
    """A value of the leaf ``schema`` at ``path``."""
    kind = schema.get("type")
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "integer":
        return _integer(rng, schema, path)
    if kind == "object":
        return _map(rng, schema, path)
    if kind == "array":
        examples = [e for e in EXAMPLES.get(_name(path), []) if isinstance(e, list)]
        if examples and rng.random() < 0.8:
            return list(rng.choice(examples))
        item = schema.get("items") or {}
        most = min(schema.get("maxItems", 4), 4)
        items = [value(rng, item, path) for _ in range(rng.randint(0, most))]
        if schema.get("x-kubernetes-list-type") == "set":
            items = list(dict.fromkeys(items))
        return items
    if schema.get("x-kubernetes-int-or-string"):
        return rng.choice([rng.randint(0, 64), _string(rng, schema, path)])
    return _string(rng, schema, path)


def minimal(rng: random.Random, schema: Schema, path: str) -> Any:
    """An item of ``schema`` with its required fields (a new list item)."""
    if _is_leaf(schema):
        return value(rng, schema, path)
    if isinstance(schema.get("properties"), dict):
        return {name: minimal(rng, schema["properties"][name], _join(path, name))
                for name in schema.get("required", []) if name in schema["properties"]}
    return [minimal(rng, schema["items"], path + "[]")]


# ----------------------------------------------------------------------------------------------- mutation

def set_leaf(rng: random.Random, kind: str, obj: dict, path: str) -> None:
    """Set the leaf ``path`` of ``obj`` to a value of its schema: in an existing list item, or in a new one."""
    parts = _split(path)
    here: Any = obj
    schema = root_schema(kind)
    walked = ""
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part == "[]":
            items = schema["items"]
            walked += "[]"
            if last:
                return
            if not isinstance(here, list):
                return
            if here and rng.random() < 0.7:
                here = rng.choice(here)
            else:
                if len(here) >= schema.get("maxItems", 8):
                    here = rng.choice(here)
                else:
                    here.append(minimal(rng, items, walked))
                    here = here[-1]
            schema = items
            continue
        child = schema["properties"][part]
        walked = _join(walked, part)
        if not isinstance(here, dict):
            return
        if last:
            here[part] = value(rng, child, walked)
            return
        nxt = here.get(part)
        wants_list = not isinstance(child.get("properties"), dict)
        if wants_list and not isinstance(nxt, list):
            here[part] = nxt = []
        elif not wants_list and not isinstance(nxt, dict):
            here[part] = nxt = {}
        here, schema = nxt, child


_PRIMARY_INTERFACE = {"networkCardIndex": 0, "deviceIndex": 0, "interfaceType": "interface"}


def _node_class_fixups(rng: random.Random, spec: dict) -> None:
    """What the EC2NodeClass's CEL rules tie together, made to hold (a field set alone is mostly refused)."""
    terms = spec.get("amiSelectorTerms")
    if isinstance(terms, list) and any(isinstance(t, dict) and set(t) - {"alias"} for t in terms):
        alias = rng.random() < 0.3
        for term in terms:
            if isinstance(term, dict):
                for field in ([f for f in term if f != "alias"] if alias else ["alias"]):
                    term.pop(field, None)
                if "id" in term and len(term) > 1:
                    term.pop("id") if rng.random() < 0.5 else [term.pop(f) for f in list(term) if f != "id"]
        for term in terms:  # an owner narrows a name or tags: alone it selects nothing
            if isinstance(term, dict) and set(term) == {"owner"}:
                term["name"] = rng.choice(EXAMPLES["name"])
        spec["amiSelectorTerms"] = [t for t in terms if t] or [{"alias": "al2023@latest"}]
        if not alias and "amiFamily" not in spec:
            spec["amiFamily"] = rng.choice(["AL2023", "Bottlerocket", "Custom"])
    if "role" in spec and "instanceProfile" in spec:
        spec.pop(rng.choice(["role", "instanceProfile"]))
    kubelet = spec.get("kubelet")
    if isinstance(kubelet, dict) and (kubelet.get("evictionSoft") or kubelet.get("evictionSoftGracePeriod")):
        keys = kubelet.get("evictionSoft") or kubelet.get("evictionSoftGracePeriod")
        kubelet["evictionSoft"] = {k: kubelet.get("evictionSoft", {}).get(k) or rng.choice(MAP_VALUES["evictionSoft"])
                                   for k in keys}
        kubelet["evictionSoftGracePeriod"] = {
            k: kubelet.get("evictionSoftGracePeriod", {}).get(k) or rng.choice(MAP_VALUES["evictionSoftGracePeriod"])
            for k in keys}
    for device in spec.get("blockDeviceMappings") or []:
        ebs = device.get("ebs") if isinstance(device, dict) else None
        if isinstance(ebs, dict) and "volumeInitializationRate" in ebs:
            ebs.setdefault("snapshotID", EXAMPLES["snapshotID"][0])
    for term in spec.get("capacityReservationSelectorTerms") or []:
        if isinstance(term, dict) and not {"id", "tags", "instanceMatchCriteria"} & set(term):
            term["tags"] = {"team": "ml"}
    interfaces = spec.get("networkInterfaces")
    if isinstance(interfaces, list) and interfaces and _PRIMARY_INTERFACE not in interfaces:
        interfaces.insert(0, dict(_PRIMARY_INTERFACE))


def mutate(rng: random.Random, kind: str, obj: dict, edits: int = 1,
           paths: Iterable[str] | None = None) -> dict:
    """A copy of ``obj`` with ``edits`` leaves (of ``paths``, default every settable one) set or removed."""
    out = copy.deepcopy(obj)
    choices = list(paths) if paths is not None else list(settable(kind))
    for _ in range(edits):
        path = rng.choice(choices)
        if rng.random() < 0.12 and path in leaves_set(kind, out):
            out = without(out, path)
        else:
            set_leaf(rng, kind, out, path)
    spec = out.get("spec")
    if kind == "EC2NodeClass" and isinstance(spec, dict) and rng.random() < 0.9:
        _node_class_fixups(rng, spec)
    disruption = spec.get("disruption") if kind == "NodePool" and isinstance(spec, dict) else None
    for budget in (disruption.get("budgets") or []) if isinstance(disruption, dict) else []:
        if isinstance(budget, dict) and ("schedule" in budget) != ("duration" in budget) and rng.random() < 0.9:
            field = "duration" if "schedule" in budget else "schedule"  # the CRD takes both or neither
            budget[field] = rng.choice(EXAMPLES[field])
    if kind == "NodeOverlay" and isinstance(spec, dict) and "price" in spec and "priceAdjustment" in spec \
            and rng.random() < 0.9:  # the CRD takes one of the two
        spec.pop(rng.choice(["price", "priceAdjustment"]))
    return out


def admitted(obj: dict) -> bool:
    """Whether the API server stores ``obj`` as it is (no refusal, no pruned field): the apiserver family's core
    answer, which that family compares with kube-apiserver's own on every run."""
    from tests.oracle.apiserver_family import core_answer  # the apiserver family imports this module

    answer = core_answer({"object": obj})
    return bool(answer.get("served") and answer.get("accepted") and not answer.get("unknown"))


#: Go's ``time.ParseDuration`` grammar (a sign, then decimal numbers each with a unit; "0" alone).
_GO_PARSE_DURATION = re.compile(r"[-+]?(?:0|(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:ns|us|\u00b5s|\u03bcs|ms|s|m|h))+)\Z")
#: The maps whose values Karpenter reads as quantities (``resource.Quantity`` when it decodes the object:
#: NodePool ``limits``, NodeOverlay ``capacity``; ``resource.MustParse`` when it builds instance types: the
#: kubelet's reserved resources and eviction thresholds, percentages aside).
_QUANTITY_MAPS = {"NodePool": (("spec", "limits"),), "NodeOverlay": (("spec", "capacity"),),
                  "EC2NodeClass": tuple(("spec", "kubelet", m) for m in ("kubeReserved", "systemReserved",
                                                                         "evictionHard", "evictionSoft"))}


def karpenter_reads(kind: str, obj: dict) -> bool:
    """Whether Karpenter's Go types read ``obj``: the CRD patterns admit quantities Go's ``ParseQuantity`` refuses
    (``.3E+0.`` in limits, capacity and the kubelet's maps; ``T`` as a ``volumeSize``) and any string as an ``evictionSoftGracePeriod`` (a ``metav1.Duration``), so the API server
    stores objects Karpenter's informer cannot decode (tests/oracle/FINDINGS.md). The families downstream of
    admission need an answer from Karpenter, so they draw only objects it reads."""
    from karpenter_gpu.errors import KarpenterGpuError
    from karpenter_gpu.k8s.units import Quantity

    for path in _QUANTITY_MAPS.get(kind, ()):
        here: Any = obj
        for part in path:
            here = here.get(part) if isinstance(here, dict) else None
        for text in (here or {}).values() if isinstance(here, dict) else ():
            if isinstance(text, str) and not text.endswith("%"):
                try:
                    Quantity.parse(text)
                except KarpenterGpuError:
                    return False
    devices = (obj.get("spec") or {}).get("blockDeviceMappings") if kind == "EC2NodeClass" else None
    for device in devices if isinstance(devices, list) else ():
        size = (device.get("ebs") or {}).get("volumeSize") if isinstance(device, dict) else None
        if isinstance(size, str):  # a resource.Quantity: the pattern admits "T" and "Ti"
            try:
                Quantity.parse(size)
            except KarpenterGpuError:
                return False
    kubelet = (obj.get("spec") or {}).get("kubelet") if kind == "EC2NodeClass" else None
    grace = kubelet.get("evictionSoftGracePeriod") if isinstance(kubelet, dict) else None
    return not isinstance(grace, dict) or all(isinstance(v, str) and _GO_PARSE_DURATION.match(v)
                                              for v in grace.values())


def draw(rng: random.Random, kind: str, base: dict, edits: int = 2, paths: Iterable[str] | None = None,
         tries: int = 8, keep: Callable[[dict], bool] | None = None) -> dict:
    """``base`` with up to ``edits`` schema edits the API server admits and Karpenter reads (``keep``: a further
    condition); ``base``
    itself when no draw within ``tries`` is admitted."""
    choices = list(paths) if paths is not None else None
    for _ in range(tries):
        candidate = mutate(rng, kind, base, rng.randint(1, edits), choices)
        if admitted(candidate) and karpenter_reads(kind, candidate) and (keep is None or keep(candidate)):
            return candidate
    return copy.deepcopy(base)
