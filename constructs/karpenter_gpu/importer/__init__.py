"""``karpenter-gpu import``: existing Karpenter YAML as a Python cdk8s app that synthesizes the same objects.

The contract ("keep as is"): synthesizing the generated app gives, per environment, the objects that were read,
so ``karpenter-gpu diff <input> <output> --fail-on drift`` exits 0: original names, labels and fields kept, no
node replaced. An environment that one ``PlatformConfig`` writes exactly (every object and values file, checked in
:mod:`.platform_fit`) becomes that PlatformConfig. Otherwise an EC2NodeClass, Auto Mode NodeClass, NodePool,
NodeOverlay or hybrid group ConfigMap that a construct writes exactly as it was read becomes that construct's call (derived and checked in :mod:`.adopt`: the call's source is synthesized in a scratch chart and compared with
the object as ``diff`` compares them); every other object becomes an
:class:`~karpenter_gpu.addons.imported_object.ImportedObject` holding the object as given, its reason naming the
field that kept the construct out (or, for the kinds no construct is tried for, the construct that would fit);
the Helm values files karpenter-gpu writes (``karpenter.values.yaml``, ``gpu-operator.values.yaml``,
``neuron-device-plugin.values.yaml``) become ``HelmValues`` with the pinned chart and version.
Adopting a construct is offered as a follow-up, reviewed with ``karpenter-gpu diff``, never forced.

Environments: as every command reads input (:mod:`karpenter_gpu.k8s.input_layout`), each top-level sub-folder is
one environment and files directly in the folder (or a single file) are the root one, written under the input
folder's (or file's) name. The generated code is valid Python whatever the input's strings: every string is a
``repr`` (:mod:`.literal`), and no input text lands in a comment or a name unless it is a plain DNS name.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass, field
from pathlib import Path

from karpenter_gpu.importer.adopt import Adopted, adopt
from karpenter_gpu.importer.fit import Call, Checker, Unfit
from karpenter_gpu.importer.literal import literal
from karpenter_gpu.importer.opinions import opinions
from karpenter_gpu.importer.platform_fit import check, platform_config
from karpenter_gpu.k8s.input_layout import ROOT, Environment, Source, metadata
from karpenter_gpu.output.layout import HELM_DIR

#: Values files the constructs write: (module, its constant naming the chart, its constant naming the version, the
#: names the generated code gives them). The generated code imports them: it never spells a version.
KNOWN_VALUES = {
    "karpenter.values.yaml": ("karpenter_gpu.upstream", "KARPENTER_CHART", "KARPENTER_CHART_VERSION", "", ""),
    "gpu-operator.values.yaml": ("karpenter_gpu.upstream", "GPU_OPERATOR_CHART", "GPU_OPERATOR_VERSION", "", ""),
    "neuron-device-plugin.values.yaml": ("karpenter_gpu.addons.neuron_device_plugin_values", "CHART", "VERSION",
                                         "NEURON_CHART", "NEURON_VERSION"),
}

#: Which construct would build an object of a kind, and what it would change: the follow-up each comment offers.
FITS = {
    "NodePool": ("GpuInferencePool / GpuTrainingPool",
                 "their name grammar, labels, taints, limits and disruption defaults change the NodePool's template "
                 "hash (nodes replaced) or its scheduling"),
    "EC2NodeClass": ("GpuNodeClass",
                     "its pinned AMI, root volume and metadata options change the EC2NodeClass's drift hash (every "
                     "node of its pools replaced)"),
    "NodeOverlay": ("GpuCapacityOverlay / NodeOverlayDiscourage / TimeSlicingOverlay",
                    "its requirements and weight are derived from the pools, not copied"),
}

#: What the API server and the controllers set on a live object (``kubectl get -o yaml``): not desired state, so
#: not imported (applying a uid or a resourceVersion back would conflict).
SERVER_METADATA = ("uid", "resourceVersion", "generation", "creationTimestamp", "managedFields", "selfLink",
                   "deletionTimestamp", "deletionGracePeriodSeconds")
SERVER_ANNOTATIONS = ("kubectl.kubernetes.io/last-applied-configuration", "karpenter.sh/nodepool-hash",
                      "karpenter.sh/nodepool-hash-version", "karpenter.k8s.aws/ec2nodeclass-hash",
                      "karpenter.k8s.aws/ec2nodeclass-hash-version")

#: A name that may appear in a comment or an identifier as it is (a DNS name); anything else is left out.
_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}\Z", re.ASCII)
#: An environment folder synth accepts (pipeline's ENVIRONMENT, without the leading-dot names).
_FOLDER = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}\Z", re.ASCII)


@dataclass
class Imported:
    """What one run produced: the Python source and what it counted (for the command's summary)."""

    code: str
    environments: list[str] = field(default_factory=list)
    objects: int = 0
    #: Of ``objects``, those a construct call writes as they were read.
    constructs: int = 0
    values: int = 0
    #: The ``karpenter_gpu`` names the code uses.
    names: set[str] = field(default_factory=set)
    #: The values files written as ``HelmValues`` (their chart and version constants imported).
    helm_values: set[tuple[str, str, str, str, str]] = field(default_factory=set)
    #: The environments that are one ``PlatformConfig``.
    platforms: list[str] = field(default_factory=list)
    #: The Karpenter objects kept as given: (environment, kind, name, the field that kept the construct out, why).
    kept: list[tuple[str, str, str, str, str]] = field(default_factory=list)
    skipped_values: list[str] = field(default_factory=list)


def _plain(text: object) -> str | None:
    return text if isinstance(text, str) and _PLAIN.match(text) else None


def _folder(env: Environment, fallback: str) -> str:
    name = env.name if env.key == ROOT else env.key
    if env.key == ROOT:
        name = name.removesuffix(".yaml").removesuffix(".yml")
    if not _FOLDER.match(name) or name.lower() == HELM_DIR:
        return fallback
    return name


def _function_name(folder: str, index: int, used: set[str]) -> str:
    base = "environment_" + re.sub(r"\W", "_", folder.lower(), flags=re.ASCII)
    name = base if base.isidentifier() and not keyword.iskeyword(base) else f"environment_{index}"
    while name in used:
        name = f"{name}_{index}"
    used.add(name)
    return name


def _construct_id(kind: str, name: object, index: int, used: set[str]) -> str:
    plain = _plain(name)
    cid = f"{kind}-{plain}" if plain and _PLAIN.match(kind) else f"Object{index}"
    while cid in used:
        cid = f"{cid}-{index}"
    used.add(cid)
    return cid


def _reason(kind: str) -> str:
    fit = FITS.get(kind)
    if fit is None:
        return "kept as given: not a kind the constructs build"
    return (f"kept as given (no drift); {fit[0]} would fit, but {fit[1]}: adopt it later as a change "
            "reviewed with karpenter-gpu diff")


def desired(manifest: dict) -> tuple[dict, list[str]]:
    """The object without what the server set (``status``, :data:`SERVER_METADATA`, :data:`SERVER_ANNOTATIONS`),
    and the paths left out."""
    kept = {k: v for k, v in manifest.items() if k != "status"}
    dropped = ["status"] if "status" in manifest else []
    meta = metadata(manifest)
    if meta:
        kept["metadata"] = {k: v for k, v in meta.items() if k not in SERVER_METADATA}
        dropped += [f"metadata.{k}" for k in SERVER_METADATA if k in meta]
        notes = meta.get("annotations")
        if isinstance(notes, dict) and any(k in notes for k in SERVER_ANNOTATIONS):
            rest = {k: v for k, v in notes.items() if k not in SERVER_ANNOTATIONS}
            dropped += [f"metadata.annotations[{k}]" for k in SERVER_ANNOTATIONS if k in notes]
            if rest:
                kept["metadata"]["annotations"] = rest
            else:
                del kept["metadata"]["annotations"]
    return kept, dropped


def _object_lines(kind: str, name: object, dropped: list[str], cid: str, manifest: dict, found: Call | Unfit | None,
                  opinionated: bool = False) -> list[str]:
    shown = _plain(name)
    lines = [f"    # {kind if _PLAIN.match(kind) else 'object'} {shown or '(name in the manifest)'}"]
    if dropped:  # fixed field names only: no input text in a comment
        lines.append(f"    # set by the server or a controller, not imported: {', '.join(dropped)}")
    if isinstance(found, Call):
        said = ("the construct's defaults (what they change: karpenter-gpu diff)" if opinionated
                else "writes the object as it was read (checked at import)")
        lines.append(f"    # {found.construct}: {said}")
        return lines + [f"    {line}" for line in found.lines()]
    reason = found.reason() if found is not None else _reason(kind)
    return lines + ["    ImportedObject(", f"        chart, {cid!r},", f"        reason={literal(reason, 2)},",
                    f"        manifest={literal(manifest, 2)},", "    )"]


def _covered_lines(kind: str, name: object, dropped: list[str], construct: str) -> list[str]:
    """The comment for an object another call writes (a MIG pool's overlays, a static pool's other zones, the other
    overlays of a TimeSlicingOverlay)."""
    lines = [f"    # {kind if _PLAIN.match(kind) else 'object'} {_plain(name) or '(name in the manifest)'}: written "
             f"by the {construct} call of this environment (checked at import)"]
    if dropped:
        lines.append(f"    # set by the server or a controller, not imported: {', '.join(dropped)}")
    return lines


def _platform(env: Environment, folder: str, function: str, out: Imported, checker: Checker,
              read: list[tuple[dict, list[str]]], adopted: Adopted) -> list[str] | Unfit:
    """The environment as one ``PlatformConfig`` when its synth is every object and values file read
    (:mod:`.platform_fit`), else why not."""
    values = {name: v for name, v in env.values.items() if name in KNOWN_VALUES}
    manifests = [m for m, _ in read]
    found = platform_config(folder, manifests, values, adopted)
    found = found if isinstance(found, Unfit) else (check(found, manifests, values, checker) or found)
    if isinstance(found, Unfit):
        return found
    dropped = sorted({d for _, ds in read for d in ds})
    lines = [f"def {function}() -> PlatformConfig:",
             f'    """The environment written to <output>/{folder}/: one PlatformConfig, whose synth is every object',
             '    and values file read (checked at import)."""']
    if dropped:  # fixed field names only
        lines.append(f"    # set by the server or a controller, not imported: {', '.join(dropped)}")
    out.names |= found.names
    out.objects += len(read)
    out.constructs += len(read)
    out.values += len(values)
    out.platforms.append(folder)
    out.skipped_values += [env.value_paths.get(n, n) for n in sorted(env.values) if n not in KNOWN_VALUES]
    return lines + [f"    return {found.text.lstrip()}"]


def _environment(env: Environment, folder: str, function: str, out: Imported, checker: Checker,
                 opinionated: bool) -> list[str]:
    lines = [f"def {function}() -> cdk8s.App:",
             f'    """The environment written to <output>/{folder}/."""',
             f"    app = cdk8s.App(outdir={folder!r})",
             '    chart = cdk8s.Chart(app, "imported")']
    used: set[str] = set()
    read = [desired(m.manifest) for m in env.manifests]
    ids = [_construct_id(str(m.get("kind")), metadata(m).get("name"), index, used)
           for index, (m, _) in enumerate(read, 1)]
    adopted = (opinions if opinionated else adopt)([m for m, _ in read], ids, checker)
    if not opinionated:
        platform = _platform(env, folder, function, out, checker, read, adopted)
        if not isinstance(platform, Unfit):
            return platform
        lines.insert(2, f"    # not one PlatformConfig ({platform.field}: {platform.detail}): the construct calls")
    order = [i for i, m in enumerate(read) if adopted.calls.get(i) in adopted.node_classes]
    order += [i for i in range(len(read)) if i not in order]  # node classes first: the pools refer to them
    for i in order:
        manifest, dropped = read[i]
        if i in adopted.covered:  # written by another object's call
            lines += _covered_lines(str(manifest.get("kind")), metadata(manifest).get("name"), dropped,
                                    adopted.calls[adopted.covered[i]].construct)
            out.objects += 1
            out.constructs += 1
            continue
        found = adopted.calls.get(i) or adopted.unfit.get(i)
        lines += _object_lines(str(manifest.get("kind")), metadata(manifest).get("name"), dropped, ids[i], manifest,
                               found, opinionated)
        out.objects += 1
        if isinstance(found, Call):
            out.constructs += 1
            out.names |= found.names
        else:
            out.names.add("ImportedObject")
            if isinstance(found, Unfit):
                out.kept.append((folder, str(manifest.get("kind")), str(metadata(manifest).get("name")), found.field,
                                 found.detail))
    for file_name, values in sorted(env.values.items()):
        constants = KNOWN_VALUES.get(file_name)
        if constants is None:
            out.skipped_values.append(env.value_paths.get(file_name, file_name))
            continue
        chart_const, version_const = constants[3] or constants[1], constants[4] or constants[2]
        cid = _construct_id("Values", file_name.removesuffix(".values.yaml"), 0, used)
        lines.append(f"    # helm/{file_name}: the values as given; the chart and version pinned by this release.")
        lines += ["    HelmValues(", f"        chart, {cid!r}, chart={chart_const}, version={version_const},",
                  f"        file_name={file_name!r},", f"        values={literal(values, 2)},", "    )"]
        out.values += 1
        out.helm_values.add(constants)
    lines.append("    return app")
    return lines


def import_source(source: Source, *, opinionated: bool = False) -> Imported:
    """The app for everything ``source`` holds (reader problems are the caller's to refuse first); ``opinionated``:
    the constructs' calls with their defaults instead (:mod:`.opinions`), a follow-up to review with diff."""
    out = Imported(code="")
    checker = Checker()
    body: list[str] = []
    functions: list[str] = []
    used_functions: set[str] = set()
    used_folders: set[str] = set()
    for index, env in enumerate(source.environments, 1):
        if not env.manifests and not any(name in KNOWN_VALUES for name in env.values):
            out.skipped_values.extend(env.value_paths.get(n, n) for n in sorted(env.values))
            continue
        folder = _folder(env, "imported")
        while folder in used_folders or folder.lower() == HELM_DIR:
            folder = f"{folder}-{index}"
        used_folders.add(folder)
        function = _function_name(folder, index, used_functions)
        functions.append(function)
        out.environments.append(folder)
        body += ["", "", *_environment(env, folder, function, out, checker, opinionated)]
    head = [*(_OPINIONATED_DOC if opinionated else _AS_IS_DOC),
        "",
        "from __future__ import annotations",
        "",
        *_import_line(sorted(out.names | ({"HelmValues"} if out.helm_values else set())
                             | ({"PlatformConfig"} if out.platforms else set()))),
    ]
    head += _imports(sorted(out.helm_values))
    head += ["", "import cdk8s  # isort: skip (after karpenter_gpu, which points jsii at the packaged Node)"]
    kinds = "cdk8s.App | PlatformConfig" if out.platforms else "cdk8s.App"
    tail = ["", "", f"def apps() -> list[{kinds}]:", '    """Every environment, one App (or PlatformConfig) each."""',
            f"    return [{', '.join(f'{f}()' for f in functions)}]", ""]
    if out.skipped_values:
        tail[-1:] = ["", "# Not imported (values files karpenter-gpu does not write; keep them where they are):",
                     *(f"#   {p}" for p in (_plain_path(v) for v in out.skipped_values)), ""]
    out.code = "\n".join(head + body + tail)
    return out


_AS_IS_DOC = [
    '"""Karpenter objects imported by `karpenter-gpu import`, kept as they are: synthesizing this app writes the',
    "objects that were read, so `karpenter-gpu diff <input> <output>/<environment> --fail-on drift` exits 0.",
    "One PlatformConfig for an environment whose synth is every object and values file read; else construct",
    "calls where a construct writes the object as it was read, ImportedObject where none does (its reason",
    "names the field that kept the construct out). Each checked at import by synthesizing it.",
    "",
    "    karpenter-gpu synth --app <this module>:apps --out <output>",
    "",
    "Follow-up, not forced: replace one ImportedObject at a time and review the change with `karpenter-gpu diff`.",
    '"""',
]
_OPINIONATED_DOC = [
    '"""The constructs\' opinions, a follow-up to review (never forced): each EC2NodeClass and NodePool read by',
    "`karpenter-gpu import --opinionated` as its construct's call with the construct's defaults, keeping only what",
    "no default can know (names, AMI, role, subnets, tags; GPU names, capacity types, zones, GPU limit); the rest",
    "as given. Synthesizing this app changes objects: `karpenter-gpu diff <input> <output>` says what each",
    "opinion costs (which pools' nodes drift or are replaced, and why).",
    "",
    "    karpenter-gpu synth --app <this module>:apps --out <output>",
    '"""',
]


def _import_line(names: list[str]) -> list[str]:
    """``from karpenter_gpu import ...`` as isort lays it out (one line when it fits, else one name a line)."""
    line = "from karpenter_gpu import " + ", ".join(names)
    if len(line) <= 88:
        return [line]
    return ["from karpenter_gpu import (", *(f"    {n}," for n in names), ")"]


def _imports(known: list[tuple[str, str, str, str, str]]) -> list[str]:
    """The import lines for the chart and version constants, as isort lays them out at its default width (a name
    given another name on a line of its own; a trailing comma keeps a long list split)."""
    out: list[str] = []
    for module in sorted({k[0] for k in known}):
        plain = sorted({name for k in known if k[0] == module and not k[3] for name in k[1:3]})
        renamed = sorted({(name, alias) for k in known if k[0] == module and k[3] for name, alias in
                          ((k[1], k[3]), (k[2], k[4]))})
        out += [f"from {module} import {name} as {alias}" for name, alias in renamed]
        line = f"from {module} import {', '.join(plain)}"
        if plain and len(line) <= 88:
            out.append(line)
        elif plain:
            out += [f"from {module} import (", *(f"    {c}," for c in plain), ")"]
    return out


def _plain_path(path: str) -> str:
    parts = [p if _PLAIN.match(p) else "<name not shown>" for p in Path(path).parts]
    return "/".join(parts)
