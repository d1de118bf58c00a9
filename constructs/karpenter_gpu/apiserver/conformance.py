"""CRD conformance of a manifest: what kube-apiserver would reject, or silently change, on create.

Mimics what kube-apiserver does to a custom resource on create -- ObjectMeta decoding and validation
(a namespace on a cluster-scoped kind is a warning: the API server clears it), pruning of unknown
fields and of non-nullable nulls, structural defaulting, OpenAPI v3 value validation against the
CRD's openAPIV3Schema, then the
CEL rules (x-kubernetes-validations), evaluated by the private ``_cel`` module (the compiled
cel-expr-python runtime where installed, else cel-python; same verdicts).

:func:`validate_manifest` reports :class:`~karpenter_gpu.apiserver.findings.Finding` objects with stable
codes (KG300-KG305); :func:`check` reports the same problems as "path: message" strings.

CEL, as on the server: rules run on the defaulted, pruned object, each with `self` bound to the
value at its schema node and only where that value is present; they are not run at all when the
structural step found a "blocking" error (wrong type, enum, required, maxLength/maxItems/
maxProperties; a missing name, annotations over 256 KiB), which the server reports as "some
validation rules were not checked" -- here the
manifest already has problems, and the skip is noted in `skipped`. A CEL failure is reported as
"path: <message> (rule: <rule>)"; a rule that does not compile or errors is a problem too.
Transition rules (those using `oldSelf`) are not evaluated on create; pass `skipped=[]` to
`check` to collect them. Pass `cel=False` for the structural checks alone.

Not covered: allOf/oneOf/not, x-kubernetes-embedded-resource, int32/int64 `format` ranges
(the server does not enforce them either), formats other than date-time, ownerReferences and
managedFields beyond their JSON types;
for CEL: transition rules (oldSelf, incl. optionalOldSelf, which is reported as a problem), the
CEL cost budget and cost limits, compile-time type checking, and date-time/duration strings as
CEL timestamps/durations. messageExpression is evaluated (falling back to `message`).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from typing import Any

import yaml

from karpenter_gpu.k8s.labels import AUTO_MODE_NODE_CLASS_KIND
from karpenter_gpu.apiserver.findings import Finding, Severity
from karpenter_gpu.apiserver import _schema_cache
from karpenter_gpu.apiserver._defaults import deep_copy, defaulted_tree
from karpenter_gpu.apiserver._schema_walk import CONTAINERS, descends
from karpenter_gpu.apiserver._problems import _Problems, _join
from karpenter_gpu.k8s.int64 import MAX as INT64_MAX
from karpenter_gpu.k8s.int64 import MIN as INT64_MIN
from karpenter_gpu.k8s.yaml_loader import Loader
from karpenter_gpu.k8s.names import is_dns1123_label, is_dns1123_subdomain, is_label_value, is_qualified_name
from karpenter_gpu.perf import OwnerCache, Store, SubtreeCache, cached
from karpenter_gpu.upstream import KARPENTER_TAG

Schema = dict[str, Any]
Crds = dict[tuple[str, str], dict[str, Any]]

#: Finding codes (see :data:`karpenter_gpu.errors.CODES`).
SCHEMA_VIOLATION = "KG300"
UNKNOWN_FIELD = "KG301"
CEL_VIOLATION = "KG302"
METADATA_PROBLEM = "KG303"
UNKNOWN_KIND = "KG304"
CEL_SKIPPED = "KG305"

SEVERITIES: dict[str, Severity] = {
    SCHEMA_VIOLATION: Severity.ERROR,
    UNKNOWN_FIELD: Severity.ERROR,
    CEL_VIOLATION: Severity.ERROR,
    METADATA_PROBLEM: Severity.ERROR,
    UNKNOWN_KIND: Severity.INFO,  # not a kind the loaded CRDs define, e.g. a ConfigMap
    CEL_SKIPPED: Severity.INFO,
}

# Lenient RFC 3339, like go-openapi's strfmt (which also accepts a missing zone).
_DATE_TIME = re.compile(r"[0-9]{4}-[0-9][0-9]-[0-9][0-9][Tt ][0-9][0-9]:[0-9][0-9]:[0-9][0-9](\.[0-9]+)?([Zz]|[+-][0-9][0-9]:?[0-9][0-9])?")
# ObjectMeta fields; the server drops anything else under metadata.
_META_FIELDS = frozenset(
    "name generateName namespace labels annotations finalizers ownerReferences uid resourceVersion"
    " generation creationTimestamp deletionTimestamp deletionGracePeriodSeconds managedFields"
    " selfLink".split()
)
_PYTHON_TYPES: dict[str, type] = {"string": str, "boolean": bool, "array": list, "object": dict}
_JSON_TYPE_NAMES: tuple[tuple[type, str], ...] = (  # bool before int: bool subclasses int
    (type(None), "null"), (bool, "boolean"), (int, "integer"), (float, "number"),
    (str, "string"), (list, "array"), (dict, "object"),
)
_BLOCKED = ("<root>: no CEL rule evaluated: the object has blocking schema errors "
            "(the API server skips CEL then too)")


def load_crds(directory: str | Path) -> Crds:
    """Map (apiVersion, kind) -> {"schema", "scope"} for every served version of every CRD file.

    Parsed once per process per directory (again only if its files change); the mapping is shared
    between callers, so treat it as read-only.
    """
    root = Path(directory).resolve()
    files = sorted(root.glob("*.y*ml"))
    stamp = tuple((p.name, st.st_mtime_ns, st.st_size) for p in files for st in (p.stat(),))
    return _load_crds(root, stamp)


@cached(maxsize=8)
def _load_crds(root: Path, stamp: tuple[tuple[str, int, int], ...]) -> Crds:
    names = [name for name, _, _ in stamp]
    cached = _schema_cache.read(root, names)  # the JSON beside them, while it was made from these very files
    return cached if cached is not None else _parse_crds(root, names)


def schema_cache_text(directory: str | Path) -> str:
    """What ``make imports`` writes as the cache of ``directory``'s CRDs (:mod:`~karpenter_gpu.apiserver._schema_cache`),
    parsed from their YAML."""
    root = Path(directory).resolve()
    names = sorted(p.name for p in root.glob("*.y*ml"))
    return _schema_cache.render(_parse_crds(root, names), _schema_cache.fingerprints(root, names))


def _parse_crds(root: Path, names: list[str]) -> Crds:
    crds: Crds = {}
    for name in names:
        try:
            for doc in yaml.load_all((root / name).read_text(encoding="utf-8"), Loader=Loader):
                if not isinstance(doc, dict) or doc.get("kind") != "CustomResourceDefinition":
                    continue
                spec = doc["spec"]
                for version in spec["versions"]:
                    if version.get("served"):
                        key = (f"{spec['group']}/{version['name']}", spec["names"]["kind"])
                        schema = version["schema"]["openAPIV3Schema"]
                        if not isinstance(schema, dict):
                            raise TypeError("openAPIV3Schema is not a mapping")
                        crds[key] = {"schema": schema, "scope": spec["scope"]}
        except (OSError, UnicodeDecodeError, yaml.YAMLError, KeyError, TypeError, AttributeError) as ex:
            from karpenter_gpu.apiserver.crd_source import CrdSourceError  # late: crd_source is optional here
            what = f"missing field {ex}" if isinstance(ex, KeyError) else str(ex).splitlines()[0]
            raise CrdSourceError(f"{root / name} is not a readable CustomResourceDefinition file ({what}); pass "
                                 f"--crds DIR with the Karpenter {KARPENTER_TAG} CRD YAML files") from None
    return crds


def apply_defaults(manifest: dict[str, Any], crds: Crds) -> dict[str, Any]:
    """Return a deep copy of `manifest` with the CRD's structural defaults filled in."""
    crd = _lookup(manifest, crds)
    if crd is None:
        raise KeyError(f"no served CRD for {manifest.get('apiVersion')!r}/{manifest.get('kind')!r}")
    return deep_copy(defaulted_tree(manifest, crd["schema"]))


def check(
    manifest: dict[str, Any], crds: Crds, *, cel: bool = True, skipped: list[str] | None = None
) -> list[str]:
    """Return human-readable problems ("path: message"); an empty list means valid (warnings, such as a
    namespace the API server clears, are not problems).

    With `cel` (the default) the CRD's x-kubernetes-validations rules are evaluated as well. Rules
    that were not evaluated (transition rules, or all of them after a blocking schema error) are
    appended to `skipped`, if given, as "path: why (rule: ...)".
    """
    problems, transitions = _run(manifest, crds, cel=cel)
    if skipped is not None:
        skipped.extend([_BLOCKED] if problems.cel_blocked else transitions)
    return [str(issue) for issue in problems if issue.severity is None]  # warnings: accepted as they are


def validate_manifest(manifest: dict[str, Any], crds: Crds, file: str = "") -> list[Finding]:
    """The problems :func:`check` reports, as findings with codes KG300-KG304, in the order found.

    At most one KG305 (info) finding is added per manifest, summarising the CEL rules not evaluated.
    """
    return assess(manifest, crds, file)[0]


def assess(manifest: Any, crds: Crds, file: str = "", *, cel: bool = True) -> tuple[list[Finding], bool]:
    """:func:`validate_manifest`'s findings, and whether the object has blocking schema errors (a wrong type,
    a missing required field, a value outside an enum: the API server refuses it before any CEL rule,
    apiextensions-apiserver ``hasBlockingErr``). Analyzers only interpret objects without them."""
    problems, transitions = _run(manifest, crds, cel=cel)
    kind, name = _identity(manifest)
    findings = [
        Finding(file, kind, name, issue.path, issue.code, issue.severity or SEVERITIES[issue.code],
                issue.finding_message())
        for issue in problems
    ]
    if problems.cel_blocked:
        findings.append(Finding(file, kind, name, "<root>", CEL_SKIPPED, Severity.INFO,
                                "no CEL rule evaluated: the object has blocking schema errors "
                                "(the API server skips CEL then too); fix them and validate again"))
    elif transitions:
        count = len(transitions)
        findings.append(Finding(file, kind, name, "<root>", CEL_SKIPPED, Severity.INFO,
                                f"{count} transition rule{'s' * (count != 1)} (oldSelf) not evaluated: "
                                "they only apply on update"))
    return findings, problems.blocking


def _run(manifest: Any, crds: Crds, *, cel: bool) -> tuple[_Problems, list[str]]:
    """Every problem, plus the transition rules skipped on create."""
    problems = _Problems()
    transitions: list[str] = []
    if not isinstance(manifest, dict):
        problems.add(SCHEMA_VIOLATION, "<root>", f"expected object, got {_type_name(manifest)}")
        return problems, transitions
    crd = _lookup(manifest, crds)
    if crd is None:
        api_version, kind = manifest.get("apiVersion"), manifest.get("kind")
        group = str(api_version).rsplit("/", 1)[0]
        served = sorted(f"{v}/{k}" for v, k in crds if v.rsplit("/", 1)[0] == group)
        if served:  # a group these CRDs own, at a version/kind they do not serve (e.g. v1beta1): rejected
            problems.add(SCHEMA_VIOLATION, "<root>",
                         f"{api_version}/{kind} is not served by the loaded CRDs (they serve {', '.join(served)}); "
                         "v1beta1 objects must be migrated to v1")
        elif (api_version, kind) == AUTO_MODE_NODE_CLASS_KIND:
            problems.add(UNKNOWN_KIND, "<root>",
                         f"{api_version}/{kind} (EKS Auto Mode) has no public CRD: not schema-checked here; its fields "
                         "are checked against the EKS user guide instead (KG443)")
        else:
            problems.add(UNKNOWN_KIND, "<root>", f"unknown apiVersion/kind {api_version!r}/{kind!r}")
        return problems, transitions
    _check_metadata(manifest.get("metadata"), crd["scope"], problems)
    schema = _root_schema(crd)
    defaulted = defaulted_tree(manifest, crd["schema"])
    _validate(defaulted, schema, "", problems)
    if cel:
        if problems.blocking:
            problems.cel_blocked = True
        else:
            from . import _cel  # late: the CEL runtime loads only when a rule runs

            _cel.validate(defaulted, schema, "", problems, transitions)
    return problems, transitions


#: The root schema each CRD's objects are checked against, by CRD entry (held, so that its id is not reused).
_ROOTS = OwnerCache(owners=256)


def _root_schema(crd: dict[str, Any]) -> Schema:
    """The CRD's schema with root ``metadata`` as the server validates it: as ObjectMeta (``_check_metadata``),
    its CRD schema being only ``type: object``. One per CRD, so that memo entries under it recur."""
    schema: Schema | None = _ROOTS.get(crd)
    if schema is None:
        schema = dict(crd["schema"])
        schema["properties"] = {
            **schema.get("properties", {}),
            "metadata": {"x-kubernetes-preserve-unknown-fields": True},
        }
        _ROOTS.put(crd, schema)
    return schema


def _identity(manifest: Any) -> tuple[str, str]:
    if not isinstance(manifest, dict):
        return "", ""
    kind, meta = manifest.get("kind"), manifest.get("metadata")
    name = None
    if isinstance(meta, dict):
        name = meta.get("name") if meta.get("name") is not None else meta.get("generateName")
    return (kind if isinstance(kind, str) else "", name if isinstance(name, str) else "")


def _lookup(manifest: dict[str, Any], crds: Crds) -> dict[str, Any] | None:
    api_version, kind = manifest.get("apiVersion"), manifest.get("kind")
    if not (isinstance(api_version, str) and isinstance(kind, str)):
        return None
    return crds.get((api_version, kind))


# ObjectMeta's fields by JSON type (k8s.io/apimachinery metav1.ObjectMeta): a value of another type fails decoding.
_META_STRINGS = ("name", "generateName", "namespace", "selfLink", "uid", "resourceVersion")
_META_INTEGERS = ("generation", "deletionGracePeriodSeconds")
_META_TIMES = ("creationTimestamp", "deletionTimestamp")
_META_MAPS = ("labels", "annotations")
_META_LISTS = {"finalizers": str, "ownerReferences": dict, "managedFields": dict}
#: apimachinery's TotalAnnotationSizeLimitB: keys and values of all annotations together, in bytes.
ANNOTATIONS_SIZE_LIMIT = 256 * 1024
_GENERATED_SUFFIX = "bbbbb"  # names.SimpleNameGenerator appends 5 such characters to generateName[:58]


def _meta_type_errors(meta: dict[str, Any]) -> list[tuple[str, str]]:
    """Where ``json.Unmarshal`` into ``metav1.ObjectMeta`` fails (null is every field's zero value)."""
    out = []
    for key in _META_STRINGS:
        if meta.get(key) is not None and not isinstance(meta[key], str):
            out.append((f"metadata.{key}", f"expected string, got {_type_name(meta[key])}"))
    for key in _META_INTEGERS:
        value = meta.get(key)
        if value is not None and not (_is_type(value, "integer") and INT64_MIN <= value <= INT64_MAX):
            out.append((f"metadata.{key}", f"expected a 64-bit integer, got {_type_name(value)}"))
    for key in _META_TIMES:
        value = meta.get(key)
        if value is not None and not (isinstance(value, str) and _is_date_time(value) and value[19:]):
            out.append((f"metadata.{key}", "expected an RFC 3339 time"))
    for key in _META_MAPS:
        mapping = meta.get(key)
        if mapping is not None and not isinstance(mapping, dict):
            out.append((f"metadata.{key}", f"expected object, got {_type_name(mapping)}"))
        elif mapping:
            out.extend((_join(f"metadata.{key}", k), f"expected string, got {_type_name(v)}")
                       for k, v in mapping.items() if v is not None and not isinstance(v, str))
    for key, item_type in _META_LISTS.items():
        items = meta.get(key)
        if items is not None and not isinstance(items, list):
            out.append((f"metadata.{key}", f"expected array, got {_type_name(items)}"))
        elif items:
            out.extend((f"metadata.{key}[{i}]", f"expected {'string' if item_type is str else 'object'}, got "
                        f"{_type_name(v)}") for i, v in enumerate(items) if v is not None and not isinstance(v, item_type))
    return out


def _check_metadata(meta: Any, scope: str, problems: _Problems) -> None:
    """ObjectMeta as the API server decodes and validates it on create.

    Decoding (apiextensions-apiserver ``GetObjectMetaWithOptions``): a field of the wrong type refuses the request;
    fields ObjectMeta does not have are dropped (KG301). Then ``rest.BeforeCreate``: a namespace on a cluster-scoped
    object is cleared (``EnsureObjectNamespaceMatchesRequestNamespace``: a warning, not a refusal), a missing name is
    generated from generateName (``names.SimpleNameGenerator``), and apimachinery ``ValidateObjectMetaAccessor``
    checks the name (DNS-1123 subdomain: 253 characters), generateName, labels, annotations (keys, and 256 KiB in
    total: ``ValidateAnnotationsSize``, a blocking TooLong) and finalizers (qualified names).
    """
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        problems.add(METADATA_PROBLEM, "metadata", f"expected object, got {_type_name(meta)}", block=True)
        return
    for key in meta:
        if key not in _META_FIELDS:
            problems.add(UNKNOWN_FIELD, _join("metadata", key), "unknown field (the API server would drop it)")
    decoding = _meta_type_errors(meta)
    for path, message in decoding:
        problems.add(METADATA_PROBLEM, path, f"{message}: the API server cannot decode the metadata", block=True)
    if decoding:
        return
    name, generate = meta.get("name") or "", meta.get("generateName") or ""
    if generate and not is_dns1123_subdomain(generate[:-1] if generate.endswith("-") else generate):
        problems.add(METADATA_PROBLEM, "metadata.generateName",
                     f"{generate!r} is not a DNS-1123 subdomain prefix (a-z, 0-9, '-', '.')")
    generated = not name and bool(generate)
    name = name or (generate[:58] + _GENERATED_SUFFIX if generate else "")
    if not name:
        problems.add(METADATA_PROBLEM, "metadata.name", "required field missing (name or generateName)", block=True)
    elif not is_dns1123_subdomain(name):
        what = f"the name generated from generateName, {name!r}," if generated else repr(name)
        problems.add(METADATA_PROBLEM, "metadata.name", f"{what} is not a DNS-1123 subdomain (a-z, 0-9, '-', '.'; "
                                                        "<= 253)")
    namespace = meta.get("namespace") or ""
    if namespace and scope == "Cluster":
        problems.add(METADATA_PROBLEM, "metadata.namespace", f"{namespace!r} on a cluster-scoped kind is ignored: the "
                     "API server clears it", severity=Severity.WARNING)
    elif namespace and not is_dns1123_label(namespace):
        problems.add(METADATA_PROBLEM, "metadata.namespace", f"{namespace!r} is not a DNS-1123 label")
    for field in ("labels", "annotations"):
        mapping = meta.get(field) or {}
        for key, val in mapping.items():
            path = _join(f"metadata.{field}", key)
            if not is_qualified_name(key.lower() if field == "annotations" else key):
                problems.add(METADATA_PROBLEM, path, "key is not a qualified name ([prefix/]name, name <= 63 chars)")
            if field == "labels" and val and not is_label_value(val):
                problems.add(METADATA_PROBLEM, path, f"{val!r} is not a valid label value")
    size = sum(len(k.encode()) + len((v or "").encode()) for k, v in (meta.get("annotations") or {}).items())
    if size > ANNOTATIONS_SIZE_LIMIT:
        problems.add(METADATA_PROBLEM, "metadata.annotations",
                     f"annotations take {size} bytes, above the API server's limit of {ANNOTATIONS_SIZE_LIMIT} "
                     "(256 KiB, keys and values together)", block=True)
    finalizers = [f or "" for f in meta.get("finalizers") or []]
    for index, finalizer in enumerate(finalizers):
        if not is_qualified_name(finalizer):
            problems.add(METADATA_PROBLEM, f"metadata.finalizers[{index}]", f"{finalizer!r} is not a qualified name")
    if {"orphan", "foregroundDeletion"} <= set(finalizers):
        problems.add(METADATA_PROBLEM, "metadata.finalizers", "finalizers orphan and foregroundDeletion cannot both "
                     "be set")


#: Scalars found clean under a schema node: (id(node), type, value) -> the node (held, so that its id is not
#: reused). A scalar's verdict depends on the node and the value only; most recur across objects.
_CLEAN_SCALARS = Store(entries=1 << 16)
_SCALARS = frozenset({str, int, float, bool})


#: Non-empty objects and arrays found clean under a schema node (below the root, which never recurs).
_CLEAN_TREES = SubtreeCache()


def _validate(value: Any, schema: Schema, path: str, problems: _Problems) -> None:
    kind = type(value)
    if kind not in _SCALARS:
        if kind not in CONTAINERS or not (path and value and descends(schema)):
            _validate_node(value, schema, path, problems)
            return
        tree = _CLEAN_TREES.key(schema, value)
        if _CLEAN_TREES.notes(tree) is not None:
            return
        before = len(problems)
        _validate_node(value, schema, path, problems)
        if len(problems) == before:
            _CLEAN_TREES.put_clean(tree, schema)
        return
    key = (id(schema), kind, value)
    if key in _CLEAN_SCALARS:
        return
    before = len(problems)
    _validate_node(value, schema, path, problems)
    if len(problems) == before:
        _CLEAN_SCALARS.put(key, schema)


def _validate_node(value: Any, schema: Schema, path: str, problems: _Problems) -> None:
    here = path or "<root>"
    if value is None:
        # Non-nullable nulls are pruned (object fields) or rejected (list items): flag both.
        if not schema.get("nullable") and (schema.get("type") or schema.get("x-kubernetes-int-or-string")):
            problems.add(SCHEMA_VIOLATION, here, "null is not allowed (field is not nullable)", block=True)
        return
    if schema.get("x-kubernetes-int-or-string"):
        if not (isinstance(value, str) or _is_type(value, "integer")):
            _pruned(value, schema, path, problems)
            problems.add(SCHEMA_VIOLATION, here, f"expected integer or string, got {_type_name(value)}", block=True)
            if "anyOf" in schema:  # every alternative is an integer or a string type: kube-openapi says so too
                problems.add(SCHEMA_VIOLATION, here, f"{value!r} matches none of the anyOf alternatives")
            return
    elif "type" in schema and not _is_type(value, schema["type"]) and isinstance(value, list) and \
            schema.get("format") and schema["type"] not in ("number", "integer"):
        # kube-openapi (pkg/validation/validate/type.go typeValidator.Validate) passes a string or a slice for any
        # schema with a format that is not numeric, and its format and string validators apply to strings only
        # (formatValidator.Applies, stringValidator.Applies): the server reports no error for a list given to a
        # `format: date-time` string (a taint's `timeAdded: []`); pruning still walks it.
        _pruned(value, schema, path, problems)
    elif "type" in schema and not _is_type(value, schema["type"]):
        _pruned(value, schema, path, problems)
        problems.add(SCHEMA_VIOLATION, here, f"expected {schema['type']}, got {_type_name(value)}", block=True)
        return  # nothing below is meaningful for the wrong type

    if "enum" in schema and not any(_same(value, option) for option in schema["enum"]):
        problems.add(SCHEMA_VIOLATION, here, f"{value!r} not in enum {schema['enum']}", block=True)
    # As in kube-openapi, string/number/array/object keywords only apply to values of that kind
    # (e.g. the int branch of an int-or-string quantity skips `pattern`).
    if isinstance(value, str):
        if "pattern" in schema and not _regex(schema["pattern"]).search(value):
            problems.add(SCHEMA_VIOLATION, here, f"{value!r} does not match pattern {schema['pattern']!r}")
        _bounds(len(value), schema, ("minLength", "maxLength"), here, "length", problems)
        if schema.get("format") == "date-time" and not _is_date_time(value):
            # kube-openapi's FormatOf reports a format mismatch as InvalidType, which apiextensions reads as
            # TypeInvalid: blocking (hasBlockingErr, pkg/registry/customresource/strategy.go), so no CEL rule runs
            problems.add(SCHEMA_VIOLATION, here, f"{value!r} is not an RFC 3339 date-time", block=True)
    elif _is_type(value, "number"):
        low, high = schema.get("minimum"), schema.get("maximum")
        ex_low, ex_high = bool(schema.get("exclusiveMinimum")), bool(schema.get("exclusiveMaximum"))
        if low is not None and (value < low or (ex_low and value == low)):
            problems.add(SCHEMA_VIOLATION, here, f"{value!r} is below the {'exclusive ' * ex_low}minimum {low}")
        if high is not None and (value > high or (ex_high and value == high)):
            problems.add(SCHEMA_VIOLATION, here, f"{value!r} is above the {'exclusive ' * ex_high}maximum {high}")
    elif isinstance(value, list):
        _bounds(len(value), schema, ("minItems", "maxItems"), here, "item count", problems)
        _check_list_type(value, schema, here, problems)
        if isinstance(schema.get("items"), dict):
            for index, item in enumerate(value):
                _validate(item, schema["items"], f"{path}[{index}]", problems)
    elif isinstance(value, dict):
        _bounds(len(value), schema, ("minProperties", "maxProperties"), here, "property count", problems)
        for key in schema.get("required", []):
            if key not in value:
                problems.add(SCHEMA_VIOLATION, _join(path, key), "required field missing", block=True)
        props, extra = schema.get("properties", {}), schema.get("additionalProperties")
        for key, child in value.items():
            if key in props:
                _validate(child, props[key], _join(path, key), problems)
            elif isinstance(extra, dict):
                _validate(child, extra, _join(path, key), problems)
            elif not (schema.get("x-kubernetes-preserve-unknown-fields") or extra is True):
                # Structural pruning drops it on the server, so the manifest would not mean what it says.
                problems.add(UNKNOWN_FIELD, _join(path, key), "unknown field (the API server would silently prune it)")

    # Only anyOf occurs in these CRDs (the int-or-string quantity idiom); allOf/oneOf/not are unused.
    if "anyOf" in schema and all(_errors(value, sub, path) for sub in schema["anyOf"]):
        problems.add(SCHEMA_VIOLATION, here, f"{value!r} matches none of the anyOf alternatives")


def _pruned(value: Any, schema: Schema | None, path: str, problems: _Problems) -> None:
    """The fields pruning drops from a value of the wrong type (apiextensions-apiserver ``pruning.prune`` walks it
    by the schema regardless: an object where none is declared loses every field, and so do objects in a list
    where no items are declared)."""
    if schema is not None and schema.get("x-kubernetes-preserve-unknown-fields"):
        return
    props = (schema or {}).get("properties", {})
    extra = (schema or {}).get("additionalProperties")
    if isinstance(value, dict):
        for key, child in value.items():
            sub = props.get(key, extra if isinstance(extra, dict) else None)
            if sub is None:
                problems.add(UNKNOWN_FIELD, _join(path, key), "unknown field (the API server would silently prune it)")
            else:
                _pruned(child, sub, _join(path, key), problems)
    elif isinstance(value, list):
        items = (schema or {}).get("items")
        for index, item in enumerate(value):
            _pruned(item, items if isinstance(items, dict) else None, f"{path}[{index}]", problems)


def _errors(value: Any, schema: Schema, path: str) -> _Problems:
    problems = _Problems()  # its own blocking flag: a failed anyOf branch blocks nothing
    _validate(value, schema, path, problems)
    return problems


def _bounds(size: int, schema: Schema, keys: tuple[str, str], here: str, what: str, problems: _Problems) -> None:
    low_key, high_key = keys
    if low_key in schema and size < schema[low_key]:
        problems.add(SCHEMA_VIOLATION, here, f"{what} {size} is below {low_key} {schema[low_key]}")
    if high_key in schema and size > schema[high_key]:
        # maxLength/maxItems/maxProperties are TooLong/TooMany: blocking
        problems.add(SCHEMA_VIOLATION, here, f"{what} {size} is above {high_key} {schema[high_key]}", block=True)


def _check_list_type(value: list[Any], schema: Schema, here: str, problems: _Problems) -> None:
    list_type = schema.get("x-kubernetes-list-type")
    if list_type == "set":  # whole items must be unique
        keys = [json.dumps(item, sort_keys=True, default=str) for item in value]
    elif list_type == "map":  # the x-kubernetes-list-map-keys tuple must be unique
        map_keys = schema.get("x-kubernetes-list-map-keys", [])
        tuples = [[item.get(k) for k in map_keys] if isinstance(item, dict) else item for item in value]
        keys = [json.dumps(key, sort_keys=True, default=str) for key in tuples]
    else:
        return
    seen: set[str] = set()
    for index, key in enumerate(keys):
        if key in seen:
            problems.add(SCHEMA_VIOLATION, f"{here}[{index}]",
                         f"duplicate entry in x-kubernetes-list-type={list_type} list")
        seen.add(key)


@cached()
def _regex(pattern: str) -> re.Pattern[str]:
    # Kubernetes uses Go RE2. Python differs in two ways that matter here: `$` also matches before
    # a trailing "\n" (so rewrite unescaped `$` outside classes to `\Z`; RE2's `\z` likewise), and
    # \d/\s/\w are Unicode-aware (re.ASCII restores RE2's ASCII classes). Python also insists on
    # global flags coming first, so hoist the `^(?i)` idiom (used by prometheus-operator's CRDs).
    pattern = re.sub(r"^\^\(\?([ims]+)\)", r"(?\1)^", pattern)
    out, escaped, in_class = [], False, False
    for ch in pattern:
        if escaped:
            escaped, ch = False, ("Z" if ch == "z" else ch)
        elif ch == "\\":
            escaped = True
        elif ch == "[":
            in_class = True
        elif ch == "]":
            in_class = False
        elif ch == "$" and not in_class:
            ch = r"\Z"
        out.append(ch)
    return re.compile("".join(out), re.ASCII)


def _is_type(value: Any, type_name: str) -> bool:
    if type_name == "integer":  # bool is an int in Python but not in JSON; 2.0 counts, as in Go
        if isinstance(value, float):
            return value.is_integer()
        return isinstance(value, int) and not isinstance(value, bool)
    if type_name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, _PYTHON_TYPES.get(type_name, object))


def _type_name(value: Any) -> str:
    return next((name for kind, name in _JSON_TYPE_NAMES if isinstance(value, kind)), type(value).__name__)


def _same(a: Any, b: Any) -> bool:
    return a == b and isinstance(a, bool) == isinstance(b, bool)  # True == 1 in Python


def _is_date_time(value: str) -> bool:
    if not _DATE_TIME.fullmatch(value):
        return False
    try:  # the regex checks shape; strptime checks ranges (month 13, hour 25, ...)
        dt.datetime.strptime(value[:10] + "T" + value[11:19], "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        return False
    return True
