"""The input's layout: which files are read, how they form environments, and what objects and findings they hold.

Every command that looks at manifests (``validate``, ``explain``, ``diff``) reads them here, from a folder, a single
file or stdin (a git revision: :mod:`~karpenter_gpu.k8s.git_revision`, which lays its files out the same way), so a
file is either seen by all of them or refused by all of them with a coded reason:

- Files: every ``*.yaml`` / ``*.yml`` under the folder, dot-files included (``kubectl apply -f -R`` reads
  them too). ``values.yaml`` and ``*.values.yaml`` files are Helm values, not manifests.
- Environments: each top-level sub-folder is one environment (the layout of dist/); files directly in
  the folder (or a single file, or stdin) form the root environment, whose key is :data:`ROOT` whatever
  the folder is called, so two flat folders compare as one environment. A top-level ``helm/`` folder
  belongs to the root environment.
- Documents (read by :mod:`~karpenter_gpu.k8s.yaml_loader`): ``kind: ...List`` objects are expanded into their items
  (kubectl decodes any object with ``items`` as a list: apimachinery ``unstructured.UnstructuredJSONScheme.decode``);
  empty documents are skipped; a document that is not a mapping (KG310), an object without apiVersion/kind (KG311), a
  duplicate mapping key (KG312: sigs.k8s.io/yaml decodes strictly and refuses it), the same
  (group, kind, namespace, name) twice in one environment (KG313) and a label or annotation value that is not a
  string (KG314) are :class:`Problem` findings.
- Hostile input is refused before anything walks it (:class:`~karpenter_gpu.errors.KarpenterGpuError`): every file,
  pipe and stdin is read by :func:`karpenter_gpu._fs.read_bounded`, never more than
  :data:`~karpenter_gpu.k8s.yaml_loader.MAX_FILE_BYTES` (KG906); devices, sockets and pipes found in a folder
  (KG920: a committed ``x.yaml`` link to ``/dev/zero`` or a FIFO), unreadable files and folders (KG901) and folders
  nested deeper than :data:`MAX_FOLDER_DEPTH` (KG914) are refused; the loader refuses the rest.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Iterable

from karpenter_gpu.output.layout import HELM_DIR  # the folder of Helm values in an environment, one home
from karpenter_gpu._fs import read_bounded
from karpenter_gpu.errors import KarpenterGpuError, one_line
from karpenter_gpu.k8s.yaml_loader import MAX_FILE_BYTES, decode, load_documents, refuse_file
from karpenter_gpu.render import escape

#: The root environment's key: files directly in the folder, a single file, stdin.
ROOT = "."
SUFFIXES = (".yaml", ".yml")
VALUES_SUFFIX = ".values.yaml"
#: Deepest folder accepted below the input folder (dist/ is two levels deep: environment, helm/).
MAX_FOLDER_DEPTH = 64


@dataclass(frozen=True)
class Problem:
    """A reader finding: the input can be read, but an object in it is malformed or ambiguous."""

    file: str
    kind: str
    name: str
    path: str
    code: str
    message: str

    def line(self) -> str:
        """One line: file, object and path are input text (escaped), the message is kept on one line."""
        where = f"{escape.plain(self.file, None)}: " if self.file else ""
        what = f"{escape.plain(self.kind)}/{escape.plain(self.name)}" if self.kind or self.name else "-"
        return f"{where}{what} {escape.plain(self.path or '-', None)}: error {self.code} {one_line(self.message)}"

    def error_text(self) -> str:
        """The same, as an error line of a command that stops on it: ``[KG311] file: kind/name path: ...``."""
        return f"[{self.code}] " + self.line().replace(f": error {self.code} ", ": ", 1)


@dataclass(frozen=True)
class Manifest:
    """One Kubernetes object and where it came from (``where``: ``items[3]`` inside a List, else "")."""

    file: str
    manifest: dict
    where: str = ""


@dataclass
class Environment:
    key: str  # ROOT, or the top-level sub-folder's name
    name: str  # display name: the folder's own name for ROOT
    manifests: list[Manifest] = field(default_factory=list)
    values: dict[str, dict] = field(default_factory=dict)  # Helm values by file name
    value_paths: dict[str, str] = field(default_factory=dict)  # the file each of them was read from (relative)
    files: int = 0


@dataclass
class Source:
    """What was read: environments in name order, the reader's findings, and how many files."""

    label: str
    environments: list[Environment]
    problems: list[Problem]
    files: int

    def environment(self, key: str) -> Environment | None:
        return next((e for e in self.environments if e.key == key), None)


# ----------------------------------------------------------------------------------------- documents


def _identity(doc: dict) -> tuple[str, str]:
    meta = doc.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    return (doc["kind"] if isinstance(doc.get("kind"), str) else "", name if isinstance(name, str) else "")


def _objects(doc: Any, file: str, where: str, problems: list[Problem], out: list[Manifest], index: int = 0) -> None:
    """Append the object(s) in one document; Lists are expanded, malformed documents become problems."""
    label = where or f"<document {index + 1}>"
    if not isinstance(doc, dict):
        problems.append(Problem(file, "", "", label, "KG310",
                                f"a {_type_name(doc)} where a Kubernetes object (a mapping) was expected"))
        return
    api_version, kind = doc.get("apiVersion"), doc.get("kind")
    missing = [k for k, v in (("apiVersion", api_version), ("kind", kind)) if not isinstance(v, str) or not v]
    if isinstance(doc.get("items"), list) and isinstance(kind, str) and kind.endswith("List"):
        for i, item in enumerate(doc["items"]):
            _objects(item, file, f"{where}items[{i}]" if not where else f"{where}.items[{i}]", problems, out)
        return
    if missing:
        problems.append(Problem(file, *_identity(doc), label, "KG311",
                                f"{' and '.join(missing)} missing or not a non-empty string: not a Kubernetes "
                                "object (the API server refuses it)"))
        return
    out.append(Manifest(file, doc, where))
    _non_string_meta(doc, file, where, problems)


#: Where an object holds string-to-string metadata maps: its own, and a template's (NodePool, pod templates).
_META_PATHS = (("metadata",), ("spec", "template", "metadata"))


def _non_string_meta(doc: dict, file: str, where: str, problems: list[Problem]) -> None:
    """KG314 for a label or annotation value that go-yaml v2 reads as a boolean or a number (:func:`resolve_plain`:
    ``y``, ``on``, ``0o10``, ``1e3``): kubectl and Helm send it as one and the API server refuses the object (a
    label value must be a string). A null value is the empty string's zero value and not reported here."""
    for path in _META_PATHS:
        meta: Any = doc
        for step in path:
            meta = meta.get(step) if isinstance(meta, dict) else None
        if not isinstance(meta, dict):
            continue
        for kind in ("labels", "annotations"):
            values = meta.get(kind)
            if not isinstance(values, dict):
                continue
            for key, value in values.items():
                if isinstance(value, (bool, int, float)):
                    shown = str(value).lower() if isinstance(value, bool) else repr(value)
                    at = ".".join((*path, kind, str(key)))
                    problems.append(Problem(
                        file, *_identity(doc), f"{where}.{at}" if where else at, "KG314",
                        f"the {kind[:-1]} value is read as {_type_name(value)} {shown}: kubectl, Helm and the API "
                        "server read an unquoted y, n, yes, on, off, 0o10, 0x1F, 012 or 1e3 as YAML 1.1 (go-yaml v2) "
                        f"does, and refuse a {kind[:-1]} value that is not a string; write the value in quotes"))


def _type_name(value: Any) -> str:
    return {list: "list", str: "string", int: "number", float: "number", bool: "boolean",
            type(None): "null"}.get(type(value), type(value).__name__)


def _read_file(rel: str, data: bytes, problems: list[Problem]) -> tuple[list[Manifest], dict | None]:
    text = decode(data, rel)
    if is_values_file(rel):
        values: dict = {}
        for _, doc, dups in load_documents(text, rel):
            _duplicates(rel, "", "", dups, problems)
            if isinstance(doc, dict):
                values.update(doc)
            elif doc is not None:
                problems.append(Problem(rel, "", "", "<document>", "KG310",
                                        f"a {_type_name(doc)} where Helm values (a mapping) were expected"))
        return [], values
    manifests: list[Manifest] = []
    for index, doc, dups in load_documents(text, rel):
        if doc is None:  # an empty document (`---` at the end of a file)
            continue
        _objects(doc, rel, "", problems, manifests, index)
        kind, name = _identity(doc) if isinstance(doc, dict) else ("", "")
        _duplicates(rel, kind, name, dups, problems)
    return manifests, None


def is_values_file(rel: str) -> bool:
    """Helm values (``values.yaml``, ``<chart>.values.yaml``), not manifests: no apiVersion/kind expected."""
    name = rel.rpartition("/")[2]  # a relative POSIX path: its last part
    return name == "values.yaml" or name.endswith(VALUES_SUFFIX)


def _duplicates(rel: str, kind: str, name: str, dups: list[tuple[str, int, int]], problems: list[Problem]) -> None:
    for key, line, first in dups:
        problems.append(Problem(rel, kind, name, f"<line {line}>", "KG312",
                                f"duplicate key {key!r} (first at line {first}): kubectl and the API server refuse "
                                "it; PyYAML would silently keep the last one"))


# ----------------------------------------------------------------------------------- environments


def _environment_of(rel: str) -> str:
    top, slash, _ = rel.partition("/")  # a relative POSIX path: its first part
    if not slash or top == HELM_DIR:
        return ROOT
    return top


def build_source(label: str, root_name: str, files: Iterable[tuple[str, bytes]], *, allow_empty: bool = False,
                 each_file: bool = False) -> Source:
    """What ``files`` ((relative POSIX path, content) pairs) read from ``label`` hold, laid out in environments.
    ``each_file``: every file is an environment of its own (a folder of independent examples), named by its
    path, instead of one per top-level sub-folder."""
    envs: dict[str, Environment] = {}
    problems: list[Problem] = []
    count = 0
    for rel, data in files:
        count += 1
        key = rel if each_file else _environment_of(rel)
        env = envs.setdefault(key, Environment(key, root_name if key == ROOT else key))
        env.files += 1
        manifests, values = _read_file(rel, data, problems)
        if values is not None:
            env.values[rel.rpartition("/")[2]] = values
            env.value_paths[rel.rpartition("/")[2]] = rel
        env.manifests.extend(manifests)
    if not allow_empty and not problems and not any(e.manifests or e.values for e in envs.values()):
        raise KarpenterGpuError("KG907", prop="input", value=label,
                                allowed="at least one Kubernetes object in a *.yaml or *.yml file",
                                fix="point at a dist/ folder, a manifest file, or '-' for stdin")
    for env in envs.values():
        problems.extend(_same_object_twice(env))
    ordered = sorted(envs.values(), key=lambda e: (e.key != ROOT, e.key))
    return Source(label, ordered, problems, count)


def metadata(manifest: dict) -> dict:
    """``metadata`` when it is a mapping, else empty (a malformed one is the schema check's to report)."""
    meta = manifest.get("metadata")
    return meta if isinstance(meta, dict) else {}


def object_key(manifest: dict) -> tuple[str, str, str, str]:
    """(API group, kind, namespace, name): what the API server stores one object under."""
    group = str(manifest.get("apiVersion", "")).rpartition("/")[0]
    meta = metadata(manifest)
    name = meta.get("name") if meta.get("name") is not None else meta.get("generateName", "")
    return group, str(manifest.get("kind")), str(meta.get("namespace") or ""), str(name)


def _same_object_twice(env: Environment) -> list[Problem]:
    seen: dict[tuple[str, str, str, str], Manifest] = {}
    out = []
    for m in env.manifests:
        key = object_key(m.manifest)
        meta = m.manifest.get("metadata")
        if isinstance(meta, dict) and meta.get("name") is None and meta.get("generateName"):
            continue  # generateName: the server picks a fresh name for each
        if key in seen:
            first = seen[key]
            where = f"{first.file}{' ' + first.where if first.where else ''}"
            namespaced = f"{key[2]}/{key[3]}" if key[2] else key[3]
            out.append(Problem(m.file, key[1], key[3], m.where or "<root>", "KG313",
                               f"{key[1]} {namespaced} is also defined in {where} (environment {env.name}): the "
                               "second replaces the first when applied; keep one"))
        else:
            seen[key] = m
    return out


# ------------------------------------------------------------------------------------------ sources


def _read_bytes(path: str | Path | BinaryIO, rel: str, *, named: bool = False) -> bytes:
    """At most :data:`MAX_FILE_BYTES` of one file (:func:`~karpenter_gpu._fs.read_bounded`): a regular file, or a
    pipe when ``named`` on the command line; a device, a socket, or a pipe found in a folder is KG920."""
    return read_bounded(path, MAX_FILE_BYTES, named=named,
                        refuse=lambda code, value, allowed, fix: refuse_file(code, rel, value, allowed, fix),
                        unreadable="KG901", too_large="KG906",
                        too_large_fix="split the file; one object is at most 1.5 MiB in etcd")


def _walk(root: Path) -> list[tuple[str, str]]:
    """Every ``*.yaml`` / ``*.yml`` file under ``root`` as (relative POSIX path, path), in path order.

    What ``os.walk`` finds (symlinked folders listed but not entered, a symlinked or dangling file listed), but
    without recursion: Python 3.11's ``os.walk`` recurses once per folder level, so 1,000 nested folders end in a
    RecursionError. A folder deeper than :data:`MAX_FOLDER_DEPTH` levels is refused (KG914) before it is listed.
    """
    found = []
    pending: list[tuple[str, int, str]] = [(str(root), 0, "")]  # folder, depth, its relative path + "/"
    while pending:
        folder, depth, prefix = pending.pop()
        try:
            with os.scandir(folder) as entries:
                listing = list(entries)
        except OSError as ex:
            raise refuse_file("KG901", str(ex.filename or folder), ex.strerror or str(ex), "a readable folder",
                              "check the path and its permissions") from None
        for entry in listing:
            try:
                is_dir = entry.is_dir()
                descend = is_dir and not entry.is_symlink()
            except OSError:  # as os.walk: an entry that cannot be examined is not a folder
                is_dir = descend = False
            if descend:
                if depth + 1 > MAX_FOLDER_DEPTH:
                    raise KarpenterGpuError(
                        "KG914", prop="folder", value=prefix + entry.name,
                        allowed=f"at most {MAX_FOLDER_DEPTH} nested folders below the input folder",
                        fix="point at the dist/ folder itself; manifests are one or two levels deep", path=str(root))
                pending.append((entry.path, depth + 1, f"{prefix}{entry.name}/"))
            elif not is_dir and entry.name.endswith(SUFFIXES):
                found.append((prefix + entry.name, entry.path))
    return sorted(found)


def read_values_file(spec: str | Path) -> dict:
    """One Helm values file named on the command line (``--karpenter-values FILE``): read bounded, every document
    merged (a mapping each); a file that is not one, or holds a duplicate key, is refused (KG310, KG312 as the
    reader reports them in a folder)."""
    path = Path(spec)
    if not path.exists():
        raise KarpenterGpuError("KG900", prop="values file", value=str(spec), allowed="an existing file",
                                fix="check the path")
    problems: list[Problem] = []
    name = path.name if is_values_file(path.name) else f"{path.name}.values.yaml"
    _, values = _read_file(name, _read_bytes(path, str(spec), named=True), problems)
    if problems:
        first = problems[0]
        raise KarpenterGpuError(first.code, prop="values file", value=str(spec), allowed="Helm values (a mapping)",
                                fix=one_line(first.message))
    return values or {}


def read_stdin(label: str = "<stdin>", *, allow_empty: bool = False) -> Source:
    stream = getattr(sys.stdin, "buffer", None)  # None when the process has no standard input at all
    data = _read_bytes(stream, "<stdin>") if stream is not None else b""
    return build_source(label, "stdin", [("<stdin>", data)], allow_empty=allow_empty)


def read_path(spec: str | Path, *, allow_empty: bool = False, each_file: bool = False) -> Source:
    """A folder, a single file (a pipe too: ``<(kubectl get nodes -o yaml)``), or ``-`` for stdin. Input without
    any object or values file is KG907 unless ``allow_empty`` (diff: a side before dist/ existed). ``each_file``: a
    folder's files are independent environments, one per file (see :func:`build_source`). Every file is read by
    :func:`_read_bytes`: in a folder only regular files (a ``*.yaml`` link to a device or FIFO is KG920)."""
    if str(spec) == "-":
        return read_stdin(allow_empty=allow_empty)
    path = Path(spec)
    if path.is_dir():
        return build_source(str(spec), path.resolve().name, ((rel, _read_bytes(p, rel)) for rel, p in _walk(path)),
                            allow_empty=allow_empty, each_file=each_file)
    if path.exists():  # a file, a pipe (a device is refused by the reader)
        return build_source(str(spec), path.name, [(path.name, _read_bytes(path, str(spec), named=True))],
                            allow_empty=allow_empty)
    raise KarpenterGpuError("KG900", prop="input", value=str(spec), allowed="an existing folder, a file, or '-'",
                            fix="check the path")
