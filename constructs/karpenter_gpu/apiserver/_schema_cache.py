"""The served schemas of a folder of CRD files, as one JSON file beside them (``schemas.json``).

Private to :mod:`karpenter_gpu.apiserver.conformance`. Parsing the packaged CRD YAML (220 KB) is most of what loading
them costs a fresh ``validate``; JSON reads in a twentieth of that. The file records the size and CRC-32 of every
YAML file it was made from, and is read only while the folder holds exactly those files with those bytes: anything
else (an edited, added or removed CRD, a broken cache) reads the YAML, which stays the source. ``make imports``
writes it for the packaged copy (``tools/regen_imports.py``); a test checks that the committed one is current.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Any

CACHE_FILE = "schemas.json"
_FORMAT = 1

Crds = dict[tuple[str, str], dict[str, Any]]


def fingerprints(root: Path, names: list[str]) -> dict[str, list[int]]:
    """File name -> [size, CRC-32] of the bytes of every named file in ``root``."""
    out = {}
    for name in names:
        data = (root / name).read_bytes()
        out[name] = [len(data), zlib.crc32(data)]
    return out


def render(crds: Crds, files: dict[str, list[int]]) -> str:
    """The cache's text for ``crds`` parsed from ``files``; refused (ValueError) when JSON would not give back the
    same schemas (a YAML date, a key that is not a string)."""
    entries = [[api_version, kind, crd["scope"], crd["schema"]] for (api_version, kind), crd in crds.items()]
    refused = ValueError("these CRDs hold values JSON cannot carry; they are read from their YAML")
    try:
        text = json.dumps({"format": _FORMAT, "generated": "make imports (tools/regen_imports.py); do not edit",
                           "files": files, "crds": entries}, ensure_ascii=False, separators=(",", ":")) + "\n"
    except TypeError:  # a date, a set, ...
        raise refused from None
    if not _same(_entries(json.loads(text)), crds):
        raise refused
    return text


def read(root: Path, names: list[str]) -> Crds | None:
    """The CRDs recorded in ``root``'s cache, None when there is none or it was not made from these files."""
    try:
        document = json.loads((root / CACHE_FILE).read_text(encoding="utf-8"))
        if document.get("format") != _FORMAT or sorted(document["files"]) != sorted(names):
            return None
        if document["files"] != fingerprints(root, names):
            return None
        return _entries(document)
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _entries(document: dict[str, Any]) -> Crds:
    return {(api_version, kind): {"schema": schema, "scope": scope}
            for api_version, kind, scope, schema in document["crds"]}


def _same(a: Any, b: Any) -> bool:
    """Equal, and of the same types all the way down (JSON has no tuples, dates or non-string keys; 1 == 1.0 ==
    True in Python)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return bool(a == b)
