"""The one escaping layer: text from a manifest is data, never markup, wherever a renderer puts it.

Every human-facing renderer (terminal text and tables, GitHub-flavoured markdown for pull-request comments,
SVG) passes each piece of text that came from input (names, labels, annotations, Helm values, file and folder
names, and the reasons built from them) through the function for the place it lands:

- :func:`plain`: one line of terminal text. Control characters (C0, DEL, C1: carriage return, line feed, the
  ANSI escape that recolours or rewrites a terminal), Unicode line and paragraph separators and the invisible
  format characters (bidi overrides and isolates, which reorder what a reviewer sees, zero-width characters)
  are shown as ``\\xNN`` / ``\\uNNNN`` escapes, and a backslash as ``\\\\``, so the escape is unambiguous.
- :func:`markdown`: :func:`plain`, then every ASCII punctuation character backslash-escaped (CommonMark
  allows it for all of them): no emphasis, code, link, image, HTML tag or comment, entity, table pipe or
  GFM autolink (``www.``, ``https://``) can start; ``@name`` mentions and ``#123`` references get a
  zero-width space (``&#8203;``) after their sigil, so GitHub neither notifies nor links; spaces at either
  end become ``&#32;`` (no indented code block, no hard line break).
- :func:`svg`: :func:`plain`, then XML-escaped for element text and attribute values.

Long values are cut short with a count (:func:`clip`) before they are escaped, so an escape is never cut in
two; :func:`fit_lines` keeps a whole document under the size its reader accepts (GitHub refuses a comment
over 65,536 characters), stating what it left out.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["MAX_VALUE", "clip", "fit_lines", "markdown", "plain", "svg"]

#: Longest piece of input text shown in full; longer text is cut with a count of what was left out.
MAX_VALUE = 300

_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})
_PUNCTUATION = re.compile(r"([!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])")
_SIGIL = re.compile(r"\\([@#])")
_ZERO_WIDTH_SPACE = "&#8203;"
_SPACE = "&#32;"
_EDGE_SPACES = re.compile(r"^ +| +$")


def _escape_char(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _visible(char: str) -> str:
    if char == "\\":
        return "\\\\"
    if char == " " or (char.isprintable() and unicodedata.category(char) not in _ESCAPED_CATEGORIES):
        return char
    return _escape_char(char)


def clip(text: str, limit: int | None = MAX_VALUE) -> str:
    """``text`` cut to ``limit`` characters, with ``… (N more characters)`` when anything was cut."""
    if limit is None or len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit} more characters)"


def plain(value: Any, limit: int | None = MAX_VALUE) -> str:
    """``value`` as one line of terminal text: invisible and control characters shown as escapes."""
    text = clip(str(value), limit)
    if text.isascii() and text.isprintable() and "\\" not in text:
        return text  # the common case, without a pass per character
    return "".join(_visible(char) for char in text)


def markdown(value: Any, limit: int | None = MAX_VALUE) -> str:
    """``value`` as literal text in GitHub-flavoured markdown, a table cell included."""
    escaped = _PUNCTUATION.sub(r"\\\1", plain(value, limit))
    escaped = _SIGIL.sub(lambda m: f"\\{m.group(1)}{_ZERO_WIDTH_SPACE}", escaped)
    # Leading spaces would make an indented code block, trailing ones a hard line break.
    return _EDGE_SPACES.sub(lambda m: _SPACE * len(m.group(0)), escaped)


def svg(value: Any, limit: int | None = MAX_VALUE) -> str:
    """``value`` as XML text or attribute value inside an SVG document."""
    return (plain(value, limit).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&#39;"))


def fit_lines(lines: Sequence[str], limit: int, tail: Callable[[int], str]) -> list[str]:
    """The first ``lines`` that fit in ``limit`` characters (joined by newlines) with ``tail(n_left_out)`` after.

    All of ``lines`` when they fit. Otherwise as many as fit together with the tail line, which says how
    many were left out (``tail`` gets that count).
    """
    total = sum(len(line) + 1 for line in lines)
    if total <= limit:
        return list(lines)
    kept: list[str] = []
    used = 0
    for index, line in enumerate(lines):
        closing = tail(len(lines) - index)
        if used + len(line) + 1 + len(closing) + 1 > limit:
            return [*kept, closing]
        kept.append(line)
        used += len(line) + 1
    return kept  # pragma: no cover - the total did not fit, so some line did not
