"""karpenter_gpu.render.escape: manifest text stays literal text in terminals, GitHub markdown and SVG."""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options
from hypothesis import given, settings
from hypothesis import strategies as st

from karpenter_gpu.render import escape

#: Hostile values seen in manifests: HTML, links, mentions, comment openers, row breaks, bidi overrides.
HOSTILE = [
    '<img src="https://evil.example/x.png">',
    "<a href='https://evil.example'>click</a>",
    "<details><summary>ok</summary>",
    "[click](https://evil.example) ![x](https://evil.example/p.png)",
    "cc @octocat and @org/team, see #123",
    "a\r| drains a pool | x |\n<!-- hide the rest",
    "**No changes.**\n\nNo changes.",
    "www.evil.example http://evil.example/path",
    "`code` ``double`` \\`",
    "_under_ *star* ~~strike~~ | pipe | &amp; &#64; &lt;",
    "evil\u202egnp.exe \u2066isolate\u2069 zero\u200bwidth \u2028line\u2029para \x85nel",
    "\x1b[31mred\x1b[0m bell\x07 nul\x00 del\x7f",
    "# heading\n- item\n> quote\n1. list\n---",
    "    indented code  ",
]

_RENDER = Options.CMARK_OPT_UNSAFE  # the raw HTML a hostile value would need, if it got through


def _html(text: str) -> str:
    return cmarkgfm.github_flavored_markdown_to_html(text, options=_RENDER)


def _text_of(rendered: str) -> str:
    return html.unescape(re.sub(r"<[^>]*>", "", rendered)).removesuffix("\n")


@pytest.mark.parametrize("value", HOSTILE)
def test_markdown_renders_as_one_paragraph_of_literal_text(value):
    rendered = _html(escape.markdown(value))
    assert re.fullmatch(r"<p>[^<>]*</p>\n", rendered), rendered  # no element but the paragraph
    text = _text_of(rendered)
    assert "\n" not in text and "\r" not in text
    assert not re.search(r"[@#][A-Za-z0-9]", text)  # mentions and references neutralised
    assert text.replace("\u200b", "") == escape.plain(value)  # exactly the terminal form, nothing lost


@pytest.mark.parametrize("value", HOSTILE)
def test_markdown_table_cell_stays_one_cell(value):
    table = f"| a | b |\n|---|---|\n| {escape.markdown(value)} | end |\n"
    rendered = _html(table)
    assert rendered.count("<tr>") == 2 and rendered.count("<td>") == 2, rendered
    assert "end</td>" in rendered
    assert not re.search(r"<(?!/?(table|thead|tbody|tr|th|td)\b)", rendered), rendered


@pytest.mark.parametrize("value", HOSTILE)
def test_plain_is_one_line_without_control_or_bidi_characters(value):
    text = escape.plain(value)
    assert text.isprintable() and "\n" not in text
    assert not re.search("[\u200b-\u200f\u202a-\u202e\u2066-\u2069]", text)


def test_plain_escapes_are_unambiguous():
    assert escape.plain("a\rb") == "a\\x0db"
    assert escape.plain("a\\x0db") == "a\\\\x0db"  # a literal backslash cannot pose as an escape
    assert escape.plain("\u202e") == "\\u202e"
    assert escape.plain("GPU nodes: 8 → 16, café") == "GPU nodes: 8 → 16, café"  # printable text untouched


def test_long_values_are_cut_with_a_count():
    value = "x" * 70_000
    assert escape.plain(value) == "x" * escape.MAX_VALUE + f"… ({70_000 - escape.MAX_VALUE} more characters)"
    assert escape.plain(value, limit=None) == value
    # the cut happens before escaping, so no escape is cut in two
    assert escape.markdown("<" * 1000, limit=10) == "\\<" * 10 + "… \\(990 more characters\\)"


@pytest.mark.parametrize("value", HOSTILE)
def test_svg_text_is_well_formed_and_literal(value):
    document = f'<svg xmlns="http://www.w3.org/2000/svg"><text title="{escape.svg(value)}">{escape.svg(value)}</text></svg>'
    element = ET.fromstring(document)[0]
    assert list(element) == []  # no injected element
    assert element.text == escape.plain(value) and element.get("title") == escape.plain(value)


def test_fit_lines_states_what_it_cut():
    lines = [f"row {i}" for i in range(100)]
    assert escape.fit_lines(lines, 10_000, lambda n: f"… {n} more") == lines
    fitted = escape.fit_lines(lines, 60, lambda n: f"… {n} more")
    assert len("\n".join(fitted)) <= 60
    assert fitted[-1] == f"… {100 - len(fitted) + 1} more" and fitted[:-1] == lines[:len(fitted) - 1]


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from(" \t\r\n<>&|`*_[]()!@#\\~-=+.:/;'\"ax1\u202e\u00a0") | st.characters(), max_size=40))
def test_any_text_renders_literally(value):
    rendered = _html(escape.markdown(value))
    assert rendered == "" or re.fullmatch(r"<p>[^<>]*</p>\n", rendered), rendered
    if rendered:
        assert _text_of(rendered).replace("\u200b", "") == escape.plain(value)
