"""The YAML writer: what every file the package writes is dumped with, quoted so go-yaml v2 reads the same strings.

:func:`dump` writes with the C LibYAML dumper when PyYAML has it, and quotes every string kubectl and Helm (go-yaml v2:
:func:`~karpenter_gpu.k8s.plain_scalars.resolve_plain`) would read back as another type; :func:`go_safe_text` checks
YAML another writer made (cdk8s's Node.js YAML library) and writes it again when go-yaml v2 would misread it.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.nodes import ScalarNode

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.plain_scalars import GO_TAGS, STR_TAG, go_reads_as_string, resolve_plain
from karpenter_gpu.k8s.yaml_loader import Loader as _Loader, load_documents

Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class GoQuoting:
    """A PyYAML dumper's resolver (mixed in before the dumper) that quotes every string go-yaml v2 would read as another type (:func:`resolve_plain`: ``y``,
    ``n``, ``0o10``, ``0X1F``, ``1e3``, ``08``), besides those PyYAML's own YAML 1.1 resolver quotes (``yes``,
    ``1:20``, ``2024-01-02``): what it writes, kubectl and Helm read back as the same strings. The serializer writes
    a string plain only when the resolver gives a plain text of it the string tag."""

    def resolve(self, kind: type, value: str, implicit: tuple[bool, bool]) -> str:
        tag: str = super().resolve(kind, value, implicit)  # type: ignore[misc]
        if kind is ScalarNode and implicit[0] and tag == STR_TAG and not go_reads_as_string(value):
            return GO_TAGS[type(resolve_plain(value))]
        return tag


class GoSafeDumper(GoQuoting, Dumper):  # type: ignore[misc, valid-type]
    """:data:`Dumper` quoting as :class:`GoQuoting` does."""


class BlockDumper(GoSafeDumper):
    """:class:`GoSafeDumper` writing every multi-line string as a literal block scalar (``|``), as a person would
    write an embedded file (the device plugin's time-slicing config); the emitter falls back to a quoted scalar when
    a block cannot hold the text exactly (trailing spaces, control characters)."""


def _block_text(dumper: Any, text: str) -> Any:
    if "\n" in text:
        return dumper.represent_scalar("tag:yaml.org,2002:str", text, style="|")
    return dumper.represent_str(text)


BlockDumper.add_representer(str, _block_text)


def dump(data: Any, stream: Any = None, *, block_text: bool = False, **options: Any) -> Any:
    """``yaml.dump`` with the C LibYAML dumper when PyYAML has it (the output of ``yaml.safe_dump``, but for the
    strings go-yaml v2 reads as another type, which are quoted: :class:`GoSafeDumper`). ``block_text``: multi-line
    strings as literal block scalars (:class:`BlockDumper`)."""
    return yaml.dump(data, stream, Dumper=BlockDumper if block_text else GoSafeDumper, **options)


def go_safe_text(text: str, data: Any, file: str) -> str:
    """``text``, the YAML another writer made of the one document ``data`` (cdk8s's Node.js YAML library, whose
    YAML 1.1 writes ``0o10``, ``0X1F`` and ``0B11`` unquoted), when go-yaml v2 reads every string of ``data``
    back from it as that string (:func:`load_documents`); else ``data`` written by :func:`dump`, which quotes them."""
    try:
        read = [doc for _, doc, _ in load_documents(text, file)]
    except KarpenterGpuError:  # e.g. a key "<<" written plain: a merge of a scalar, which go-yaml refuses too
        read = []
    if len(read) == 1 and _same_strings(read[0], data):
        return text
    return dump(data, sort_keys=False, default_flow_style=False, allow_unicode=True, width=1 << 30)


def written_as_meant(text: str, file: str) -> bool:
    """Whether every string a YAML 1.1 writer (cdk8s's Node.js library) meant in ``text`` -- PyYAML's YAML 1.1
    reading of it stands for what the writer meant -- reads back as that string under go-yaml v2
    (:func:`load_documents`). True for almost every file: only then is the data behind ``text`` worth fetching
    to re-quote it (:func:`go_safe_text`)."""
    try:
        meant = [doc for doc in yaml.load_all(text, Loader=_Loader) if doc is not None]
        read = [doc for _, doc, _ in load_documents(text, file)]
    except (yaml.YAMLError, KarpenterGpuError):
        return False
    return len(meant) == len(read) and all(map(_same_strings, read, meant))


def _same_strings(read: Any, data: Any) -> bool:
    """Whether ``read`` is ``data`` with every string (key or value) still a string, and every other value not one."""
    if isinstance(data, dict):
        return isinstance(read, dict) and len(read) == len(data) and all(
            type(key) is str and key in data and _same_strings(value, data[key]) for key, value in read.items())
    if isinstance(data, list):
        return isinstance(read, list) and len(read) == len(data) and all(map(_same_strings, read, data))
    if isinstance(data, str) or isinstance(read, str):
        return read == data and type(read) is type(data)
    return True  # numbers, booleans, null: written and read by one writer's rules (1.0 may read back as 1)
