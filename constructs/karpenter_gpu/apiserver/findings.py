"""What `karpenter-gpu validate` reports: one finding per problem, with a stable code and a severity."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from karpenter_gpu.errors import one_line
from karpenter_gpu.render import escape

#: Object annotation listing acknowledged warning codes with their reasons
#: (``"KG404: the floor is meant to be last; KG412: ..."``); see :func:`karpenter_gpu.check.acknowledge`.
ACKNOWLEDGE_ANNOTATION = "karpenter-gpu.io/acknowledge"
_CODE = re.compile(r"\bKG[0-9]{3}\b")


class Severity(StrEnum):
    ERROR = "error"  # the API server rejects it, or it breaks GPU nodes in production
    WARNING = "warning"  # accepted, but costs money or kills jobs; can be acknowledged per object
    INFO = "info"  # e.g. a transition rule that cannot be checked on create


@dataclass(frozen=True, order=True)
class Finding:
    """One problem with one object. ``path`` is a field path such as ``spec.template.spec.taints``."""

    file: str  # relative path of the manifest file ("" when checking in memory)
    kind: str
    name: str
    path: str
    code: str
    severity: Severity
    message: str

    def line(self) -> str:
        """One line of text: the file, object and field path (input text) escaped, the message kept on one line,
        so a newline, carriage return, ANSI escape or bidi control in any of them cannot forge or hide a line."""
        where = f"{escape.plain(self.file, None)}: " if self.file else ""
        return (f"{where}{escape.plain(self.kind)}/{escape.plain(self.name)} {escape.plain(self.path or '-', None)}: "
                f"{self.severity} {self.code} {one_line(self.message)}")


def acknowledged_codes(manifest: dict) -> frozenset[str]:
    """Codes acknowledged on the object through :data:`ACKNOWLEDGE_ANNOTATION`."""
    text = ((manifest.get("metadata") or {}).get("annotations") or {}).get(ACKNOWLEDGE_ANNOTATION, "")
    return frozenset(_CODE.findall(str(text)))
