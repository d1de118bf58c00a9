"""The ``apiserver`` family: kube-apiserver's own validation of a custom resource on create against validate's.

A case is one object, edited from a base manifest (type changes, value edits, bounds, removed and unknown fields,
metadata edits), ``{"object": {...}}``, optionally with ``"fill": {"annotation": key, "length": n}`` -- an
annotation of ``n`` times ``"x"`` added before validation (by both sides), so a case near the 256 KiB annotation
limit stays a few bytes in the vectors.

The Go side (apiserver.go) answers what the API server does: accepted or not, the field paths it refuses
(``field.Error.Field``), the unknown fields it prunes, whether it skipped the CEL rules after a blocking error, and
the namespace it stores. The core's answer is ``karpenter-gpu validate``'s findings for that one object from
:func:`karpenter_gpu.apiserver.conformance.assess` (the step of ``validate_source`` that reports the API server's
refusals; the pitfall rules report no refusal codes):

- refused: the error findings KG300 (schema), KG302 (CEL) and KG303 (metadata);
- pruned: the KG301 findings (unknown fields: pruned under the API server's default field validation, refused
  under kubectl's strict one);
- CEL skipped: the KG305 finding "no CEL rule evaluated";
- a namespace on a cluster-scoped object: the KG303 warning, and the API server stores no namespace;
- decodes (a stored object only): whether Karpenter reads what the API server stores -- its informer decodes it
  into Karpenter's Go types, and the provider parses an EC2NodeClass's kubelet quantities when it builds instance
  types (apiserver.go ``karpenterDecodes``); the core: no problem of Karpenter's own in
  :func:`karpenter_gpu.k8s.go_decode.decode_problems`, what validate's KG470 and KG471 report.

Paths (:func:`api_server_path`, the one mapping between the two syntaxes): validate writes ``a.b['k/x'][0]``, the
API server ``a.b.k/x[0]`` -- segments joined by dots, indexes in brackets. Two places differ by more:
``ValidateObjectMeta`` reports every label, annotation and finalizer problem at ``metadata.labels`` /
``metadata.annotations`` / ``metadata.finalizers`` (not at the key or item), and kube-openapi's anyOf error carries
no path (``<nil>``). When the API server cannot decode the metadata (a field of the wrong type: 400, no field paths),
the core must refuse the object at a metadata path.
"""

from __future__ import annotations

import copy
import random
import re
from pathlib import Path
from typing import Any, Iterator

import yaml

from karpenter_gpu.apiserver.conformance import assess
from karpenter_gpu.apiserver.findings import Severity
from karpenter_gpu.k8s.go_decode import decode_problems
from tests.oracle import lines, schema_gen

ROOT = Path(__file__).resolve().parents[2]
KINDS = ("NodePool", "EC2NodeClass", "NodeOverlay")
REFUSAL_CODES = frozenset({"KG300", "KG302", "KG303"})
PRUNED_CODE = "KG301"
ANNOTATION_LIMIT = 256 * 1024  # apimachinery TotalAnnotationSizeLimitB


# ----------------------------------------------------------------------------------------------- bases

def _documents(path: Path) -> Iterator[dict]:
    try:
        docs = list(yaml.safe_load_all(path.read_text()))
    except yaml.YAMLError:
        return
    for doc in docs:
        if isinstance(doc, dict) and doc.get("kind") in KINDS and isinstance(doc.get("apiVersion"), str):
            yield doc


MINIMAL = [
    {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "p"},
     "spec": {"template": {"spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass",
                                                     "name": "c"}, "requirements": []}}}},
    {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "c"},
     "spec": {"role": "r", "amiSelectorTerms": [{"alias": "al2023@latest"}],
              "subnetSelectorTerms": [{"tags": {"k": "v"}}], "securityGroupSelectorTerms": [{"tags": {"k": "v"}}]}},
    {"apiVersion": "karpenter.sh/v1alpha1", "kind": "NodeOverlay", "metadata": {"name": "o"},
     "spec": {"requirements": [{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g6"]}],
              "priceAdjustment": "-10%"}},
]
_BASES: dict[bool, list[dict]] = {}


def bases(dist: bool = True) -> list[dict]:
    """Minimal objects and the project's fixtures (tests/fixtures, stable: the vectors use these), and with
    ``dist`` (fresh runs) also the rule fixtures (tests/fixtures/rules: a new rule adds some, which must not make
    the committed vectors stale) and the objects the built-in stacks render into dist/."""
    if dist not in _BASES:
        found = list(MINIMAL)
        rules = ROOT / "tests" / "fixtures" / "rules"
        for path in sorted((ROOT / "tests" / "fixtures").rglob("*.yaml")):
            if dist or not path.is_relative_to(rules):
                found.extend(_documents(path))
        if dist:
            for path in sorted((ROOT / "dist").glob("*/*.yaml")):
                found.extend(_documents(path))
        _BASES[dist] = found
    return _BASES[dist]


# ----------------------------------------------------------------------------------------------- edits

INT32_MAX = 2**31 - 1
OTHER_TYPES: list[Any] = ["x", "1", "", 1, 0, -1, 1.5, INT32_MAX + 1, True, False, [], ["a"], [1], {}, {"a": "b"},
                          None]
DURATIONS = ["30s", "30m", "1h30m", "720h", "Never", "never", "1d", "30", "-1s", "1.5h", "0s", "", "1h0m0s", "5m0s",
             "999999h", "10m30s"]
QUANTITIES = ["100Gi", "1.5", "1e3", "-1", "abc", "1Ki", "0.5", "1024", "100G", "1Ti", "1 Gi", "+1", "0"]
NODES = ["1 node", "101%", "100%", "10%", "0", "0%", "5", str(INT32_MAX), str(INT32_MAX + 1), "99999999999",
         "-1", "1.5", "", "50 %", "007"]
SCHEDULES = ["@daily", "0 9 * * 1-5", "* * * *", "@every 5m", "bad", "0 0 * * *", "@hourly", "*/5 * * * * *"]
LABEL_KEYS = ["team", "example.com/team", "a/b/c", "-bad", "kubernetes.io/x", "karpenter.sh/nodepool",
              "node.kubernetes.io/instance-type", "karpenter.k8s.aws/instance-gpu-count", "x" * 63, "x" * 64,
              "Example.com/x", "e.com/" + "y" * 63, "", "k8s.io/x", "node-restriction.kubernetes.io/x",
              "karpenter.sh/capacity-type", "topology.kubernetes.io/zone"]
LABEL_VALUES = ["", "ml", "a b", "x" * 63, "x" * 64, "-x", "x.y_z", "true", "1"]
WEIGHTS = [0, 1, 50, 100, 101, -1, INT32_MAX, INT32_MAX + 1]
NAMES = ["p", "gpu-pool", "a" * 63, "a" * 64, "a" * 253, "a" * 254, "GPU_pool", "-x", "x.y", "x..y", "", "a.b-c"]


def _paths(value: Any, prefix: tuple = ()) -> Iterator[tuple]:
    """Every path into ``value`` (dict keys, list indexes), apiVersion and kind excepted."""
    if isinstance(value, dict):
        for key, child in value.items():
            if not prefix and key in ("apiVersion", "kind"):
                continue
            yield prefix + (key,)
            yield from _paths(child, prefix + (key,))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield prefix + (i,)
            yield from _paths(child, prefix + (i,))


def _get(obj: Any, path: tuple) -> Any:
    for part in path:
        obj = obj[part]
    return obj


def _set(obj: Any, path: tuple, value: Any) -> None:
    _get(obj, path[:-1])[path[-1]] = value


def _delete(obj: Any, path: tuple) -> None:
    parent = _get(obj, path[:-1])
    if isinstance(parent, dict):
        parent.pop(path[-1], None)
    else:
        parent.pop(path[-1])


def _type_change(rng: random.Random, obj: dict) -> None:
    paths = list(_paths(obj))
    if paths:
        path = rng.choice(paths)
        current = _get(obj, path)
        _set(obj, path, copy.deepcopy(rng.choice([v for v in OTHER_TYPES
                                                  if type(v) is not type(current) or v != current])))


# Field names whose strings get edits of their own.
_STRING_EDITS = {"consolidateAfter": DURATIONS, "expireAfter": DURATIONS, "terminationGracePeriod": DURATIONS,
                 "duration": DURATIONS, "nodes": NODES, "schedule": SCHEDULES, "key": LABEL_KEYS,
                 "volumeSize": QUANTITIES, "priceAdjustment": ["-10%", "+5%", "1.5", "-101%", "abc", "+0.5"],
                 "price": ["1.5", "-1", "abc", "0", "1e3"], "operator": ["In", "NotIn", "Gt", "Lt", "Gte",
                                                                          "Exists", "in", ""]}


def _string_edit(rng: random.Random, obj: dict) -> None:
    strings = [p for p in _paths(obj) if isinstance(_get(obj, p), str)]
    if not strings:
        return
    path = rng.choice(strings)
    named = next((part for part in reversed(path) if isinstance(part, str)), "")
    choices = _STRING_EDITS.get(named) or rng.choice([DURATIONS, QUANTITIES, LABEL_VALUES, NAMES, NODES])
    _set(obj, path, rng.choice(choices))


def _number_edit(rng: random.Random, obj: dict) -> None:
    spec = obj.setdefault("spec", {}) if isinstance(obj.get("spec"), dict) else None
    numbers = [p for p in _paths(obj) if type(_get(obj, p)) is int]
    if spec is not None and obj["kind"] in ("NodePool", "NodeOverlay") and rng.random() < 0.5:
        spec["weight"] = rng.choice(WEIGHTS)
    elif spec is not None and obj["kind"] == "NodePool" and rng.random() < 0.3:  # a static pool
        spec["replicas"] = rng.choice([0, 1, 3, -1, INT32_MAX, INT32_MAX + 1, 2**63 - 1])
        if rng.random() < 0.5:
            spec["limits"] = {"nodes": rng.choice(["0", "2", "5", 2, "x"])}
    elif numbers:
        path = rng.choice(numbers)
        _set(obj, path, rng.choice(WEIGHTS + [2, 64, 65, 110, INT32_MAX, -INT32_MAX - 2, 2**63 - 1]))


def _budget_edit(rng: random.Random, obj: dict) -> None:
    spec = obj.get("spec")
    if obj["kind"] != "NodePool" or not isinstance(spec, dict):
        return _string_edit(rng, obj)
    disruption = spec.setdefault("disruption", {}) if isinstance(spec.get("disruption"), (dict, type(None))) else {}
    if not isinstance(disruption, dict):
        return None
    spec["disruption"] = disruption
    if rng.random() < 0.7:
        disruption.setdefault("consolidateAfter", rng.choice(["0s", "5m", "Never"]))
    budget: dict[str, Any] = {"nodes": rng.choice(NODES)}
    if rng.random() < 0.4:
        budget["schedule"] = rng.choice(SCHEDULES)
    if rng.random() < 0.4:
        budget["duration"] = rng.choice(DURATIONS)
    if rng.random() < 0.3:
        budget["reasons"] = rng.sample(["Empty", "Drifted", "Underutilized", "Bogus"], rng.randint(0, 2))
    budgets = disruption.get("budgets") if isinstance(disruption.get("budgets"), list) else []
    disruption["budgets"] = [*budgets, budget][-3:]
    return None


def _remove(rng: random.Random, obj: dict) -> None:
    paths = [p for p in _paths(obj) if p != ("metadata",)]
    if paths:
        _delete(obj, rng.choice(paths))


def _unknown(rng: random.Random, obj: dict) -> None:
    maps = [p for p in _paths(obj) if isinstance(_get(obj, p), dict)]
    path = rng.choice(maps) if maps else ()
    _get(obj, path)[rng.choice(["unknownField", "kubelet", "extra", "uid", "Weight"])] = copy.deepcopy(rng.choice(
        ["x", 1, {"a": 1}, [1]]))


def _metadata(rng: random.Random, obj: dict) -> None:
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        obj["metadata"] = meta = {"name": "p"}
    what = rng.choice(["namespace", "namespace", "name", "name", "generateName", "labels", "annotations",
                       "finalizers"])
    if what == "namespace":
        meta["namespace"] = rng.choice(["karpenter", "kube-system", "default", "Bad_NS", "", "a" * 64])
    elif what == "name":
        meta["name"] = rng.choice(NAMES)
    elif what == "generateName":
        meta.pop("name", None) if rng.random() < 0.5 else None
        meta["generateName"] = rng.choice(["gpu-", "GPU-", "a" * 250, ""])
    elif what == "finalizers":
        meta["finalizers"] = list(rng.choice([["karpenter.sh/termination"], ["bad finalizer"], ["x"], []]))
    else:
        mapping = meta.get(what) if isinstance(meta.get(what), dict) else {}
        mapping[rng.choice(LABEL_KEYS)] = rng.choice(LABEL_VALUES)
        meta[what] = mapping


def _template_labels(rng: random.Random, obj: dict) -> None:
    spec = obj.get("spec")
    if obj["kind"] != "NodePool" or not isinstance(spec, dict) or not isinstance(spec.get("template"), dict):
        return _metadata(rng, obj)
    template = spec["template"]
    meta = template.get("metadata") if isinstance(template.get("metadata"), dict) else {}
    field = rng.choice(["labels", "annotations"])
    mapping = meta.get(field) if isinstance(meta.get(field), dict) else {}
    mapping[rng.choice(LABEL_KEYS)] = rng.choice(LABEL_VALUES)
    meta[field] = mapping
    template["metadata"] = meta
    return None


def _requirement(rng: random.Random, obj: dict) -> None:
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    holder = spec
    if obj["kind"] == "NodePool":
        template = spec.get("template")
        holder = template.get("spec") if isinstance(template, dict) else None
    elif obj["kind"] == "EC2NodeClass":
        return _string_edit(rng, obj)
    if not isinstance(holder, dict):
        return None
    op = rng.choice(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte", "in"])
    req: dict[str, Any] = {"key": rng.choice(LABEL_KEYS), "operator": op}
    if rng.random() < 0.85:
        req["values"] = list(rng.choice([[], ["a"], ["1"], ["x", "y"], ["-1"], ["1.5"], [str(2**63)]]))
    if rng.random() < 0.2:
        req["minValues"] = rng.choice([0, 1, 2, 50, 51])
    reqs = holder.get("requirements") if isinstance(holder.get("requirements"), list) else []
    holder["requirements"] = [*reqs, req][-4:]
    return None


EDITS = [_type_change, _type_change, _string_edit, _string_edit, _number_edit, _budget_edit, _remove, _unknown,
         _metadata, _metadata, _template_labels, _requirement]


def apiserver_case(rng: random.Random, dist: bool = True) -> dict:
    """A base object with hand-written edits (type changes, bounds, unknown fields, metadata), or, half the time,
    with schema edits (:func:`tests.oracle.schema_gen.mutate`: any leaf of the kind's CRD) and sometimes a
    hand-written edit on top."""
    obj = copy.deepcopy(rng.choice(bases(dist)))
    if rng.random() < 0.5 and obj.get("kind") in schema_gen.CRD_FILES:
        obj = schema_gen.mutate(rng, obj["kind"], obj, rng.choice([1, 1, 2, 3, 4]))
        if rng.random() < 0.25:
            rng.choice(EDITS)(rng, obj)
    else:
        for _ in range(rng.choice([0, 1, 1, 1, 2, 2, 3])):
            rng.choice(EDITS)(rng, obj)
    case: dict[str, Any] = {"object": obj}
    if rng.random() < 0.02:  # annotations near the total size limit (keys count too)
        key = "example.com/big"
        case["fill"] = {"annotation": key, "length": ANNOTATION_LIMIT - len(key) + rng.choice([-1, 0, 1, 100])}
    return case


# ----------------------------------------------------------------------------------------------- the core's answer

def expand(case: dict) -> dict:
    """The object a case stands for (``fill`` added as an annotation)."""
    obj = copy.deepcopy(case["object"])
    fill = case.get("fill")
    if fill:
        meta = obj.get("metadata")
        if meta is None:
            meta = obj["metadata"] = {}
        if isinstance(meta, dict):
            annotations = meta.get("annotations")
            if not isinstance(annotations, dict):
                annotations = meta["annotations"] = {}
            annotations[fill["annotation"]] = "x" * fill["length"]
    return obj


_SEGMENT = re.compile(r"\.?([A-Za-z_][A-Za-z0-9_-]*)|\[(\d+)\]|\[('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")\]")


def api_server_path(path: str, message: str = "") -> str:
    """validate's path of a finding in the API server's syntax (see the module docstring)."""
    if "matches none of the anyOf alternatives" in message:
        return "<nil>"
    if path == "<root>":
        return ""
    out, pos = "", 0
    while pos < len(path):
        m = _SEGMENT.match(path, pos)
        if m is None:
            raise ValueError(f"unparsable finding path {path!r}")
        name, index, quoted = m.groups()
        if index is not None:
            out += f"[{index}]"
        else:
            key = name if name is not None else __import__("ast").literal_eval(quoted)
            out += f".{key}" if out else str(key)
        pos = m.end()
    for field in ("metadata.labels", "metadata.annotations", "metadata.finalizers"):
        if out.startswith((field + ".", field + "[")):
            return field
    return out


def core_answer(case: dict) -> dict:
    crds = lines.crds()  # the oracle pass's Karpenter line's packaged CRDs
    obj = expand(case)
    findings, _ = assess(obj, crds, "")
    if any(f.code == "KG304" and f.path == "<root>" for f in findings):
        return {"served": False}
    refused = sorted({api_server_path(f.path, f.message) for f in findings
                      if f.code in REFUSAL_CODES and f.severity == Severity.ERROR})
    unknown = sorted({api_server_path(f.path) for f in findings if f.code == PRUNED_CODE})
    out: dict[str, Any] = {
        "served": True, "accepted": not refused, "refused": refused, "unknown": unknown,
        "celSkipped": any(f.code == "KG305" and "no CEL rule evaluated" in f.message for f in findings),
    }
    cleared = any(f.code == "KG303" and f.path == "metadata.namespace" and f.severity == Severity.WARNING
                  for f in findings)
    if not refused:
        out["namespaceCleared"] = cleared
        out["decodes"] = not any(p.reader == "karpenter" for p in decode_problems(obj))
    return out


def comparable(karpenter: Any, case: dict) -> Any:
    """The part of the API server's answer the core answers too (its error types and messages are its own)."""
    if not isinstance(karpenter, dict) or not karpenter.get("served"):
        return karpenter
    if karpenter.get("decodeError"):
        # A malformed ObjectMeta fails decoding (400, no field paths): the core must refuse it at metadata.
        return {"served": True, "accepted": False, "refused": "<decode error>"}
    out = {k: karpenter[k] for k in ("served", "accepted", "refused", "unknown", "celSkipped")}
    if karpenter.get("accepted"):
        obj = expand(case)
        meta = obj.get("metadata") if isinstance(obj, dict) else None
        had = isinstance(meta, dict) and bool(meta.get("namespace"))
        out["namespaceCleared"] = had and not karpenter.get("namespace")
        out["decodes"] = karpenter.get("decodes") is True
    return out


def core_comparable(ours: dict, karpenter: Any) -> dict:
    """The core's answer, with its refusals read as a decode error when the API server could not decode."""
    if isinstance(karpenter, dict) and karpenter.get("decodeError") and ours.get("served"):
        metadata = [p for p in ours["refused"] if p == "metadata" or p.startswith("metadata.")]
        return {"served": True, "accepted": ours["accepted"],
                "refused": "<decode error>" if metadata else ours["refused"]}
    return ours
