"""The issues one conformance check collects, shared by the schema walk (``conformance``) and the CEL runtime
(``_cel``), so that neither imports the other for them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


@dataclass(frozen=True)
class _Issue:
    code: str
    path: str
    message: str
    rule: str | None = None  # the CEL rule, cited after the message
    violated: bool = False  # the rule evaluated to false, so `message` is the rule's own
    severity: Any = None  # a Severity other than the code's own (a harmless KG303), else None

    def __str__(self) -> str:
        cite = f" (rule: {self.rule})" if self.rule is not None else ""
        return f"{self.path}: {self.message}{cite}"

    def finding_message(self) -> str:
        if self.rule is None or self.violated:
            return self.message
        return f"{self.message} (rule: {self.rule})"  # a broken rule: its text is the only clue


class _Problems(list):
    """The issues of one check, remembering whether any would block CEL on the server."""

    blocking = False
    cel_blocked = False  # CEL was requested but skipped because of `blocking`

    def add(self, code: str, path: str, message: str, *, rule: str | None = None, violated: bool = False,
            block: bool = False, severity: Any = None) -> None:
        self.append(_Issue(code, path, message, rule, violated, severity))
        if block:  # apiextensions' hasBlockingErr: NotSupported (enum), Required, TooLong, TooMany, TypeInvalid
            self.blocking = True


def _join(path: str, key: Any) -> str:
    if isinstance(key, str) and _IDENT.fullmatch(key):
        return f"{path}.{key}" if path else key
    return f"{path}[{key!r}]"
