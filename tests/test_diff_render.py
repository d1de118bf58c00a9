"""karpenter_gpu.analysis.diff.render: manifest text stays data in the text, markdown and JSON output of diff."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import cmarkgfm
from cmarkgfm.cmark import Options

from karpenter_gpu.cli.main import main
from karpenter_gpu.render.escape import plain
from tests.test_diff import objects, pool, write

#: Hostile text: HTML, links, mentions, a comment opener, row breaks, a fake verdict, bidi controls, backticks, pipes.
HOSTILE = [
    '<img src="https://evil.example/x.png">',
    "<a href='https://evil.example'>click</a> [link](https://evil.example) https://evil.example",
    "<details><summary>ok</summary>",
    "cc @octocat and @org/team #123",
    "a\r| drains a pool | x |\n<!-- hide the rest",
    "**No changes.**\n\nNo changes.",
    "evil\u202egnp.exe \u2066isolate\u2069 \x1b[31mred",
    "`code` ``x`` | pipe | ~~s~~ _u_",
]
#: The elements diff's own markdown makes; anything else came from input.
TEMPLATE_ELEMENTS = {"p", "strong", "h3", "table", "thead", "tbody", "tr", "th", "td", "br"}


def _html(text: str) -> str:
    return cmarkgfm.github_flavored_markdown_to_html(text, options=Options.CMARK_OPT_UNSAFE)


def _text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]*>", "", fragment)).replace("\u200b", "")


def _hostile_sides(tmp_path: Path) -> tuple[str, str]:
    env = "prod" + HOSTILE[0] + HOSTILE[4].replace("\n", "")  # a folder name: no "/"
    base, head = objects(), objects()
    template_meta = pool(head)["template"]["metadata"]
    template_meta["annotations"] = {f"example.com/a{i}": v for i, v in enumerate(HOSTILE)}
    head["NodePool.gpu-inference.k8s.yaml"]["metadata"]["annotations"] = {"note": " ".join(HOSTILE)}
    head["helm/gpu-operator.values.yaml"]["hostile"] = {v: v for v in HOSTILE}
    for i, value in enumerate(HOSTILE):
        head[f"ConfigMap.{i}.yaml"] = {"apiVersion": "v1", "kind": "ConfigMap",
                                       "metadata": {"name": value, "namespace": "x|y"}, "data": {"v": value}}
    head["helm/" + HOSTILE[3].replace("/", "") + ".values.yaml"] = {"key": HOSTILE[1]}
    return str(write(tmp_path / "base", base, env)), str(write(tmp_path / "head", head, env))


def _run(capsys, *argv: str) -> tuple[int, str]:
    code = main(["diff", *argv])
    out = capsys.readouterr()
    assert "KG919" not in out.err
    return code, out.out


def _change_tables(rendered: str) -> list[str]:
    """The tables after each environment heading (the cost tables come before the first)."""
    return re.findall(r"<h3>.*?</h3>\s*(<table>.*?</table>)", rendered, re.S)


def test_markdown_keeps_hostile_manifest_text_literal(tmp_path, capsys):
    base, head = _hostile_sides(tmp_path)
    _, document = _run(capsys, base, head, "--format", "json")
    changes = json.loads(document)["changes"]
    _, text = _run(capsys, base, head, "--format", "markdown")
    rendered = _html(text)
    assert set(re.findall(r"<([a-z0-9]+)", rendered)) <= TEMPLATE_ELEMENTS, rendered
    assert "<!--" not in rendered and "evil.example\"" not in rendered
    shown = html.unescape(re.sub(r"<[^>]*>", "", rendered))
    assert not re.search(r"[@#][A-Za-z0-9]", shown)  # no mention or reference: a zero-width space follows the sigil
    assert "No changes." not in text and "No changes\\." in text  # the fake verdict stays escaped text
    rows = [row for table in _change_tables(rendered) for row in re.findall(r"<tr>(.*?)</tr>", table, re.S)[1:]]
    assert len(rows) == len(changes)
    cells = [_text(re.findall(r"<td>(.*?)</td>", row, re.S)[0]) for row in rows]
    expected = [(f"helm {plain(c['name'])}" if c["kind"] == "Values" else f"{plain(c['kind'])} {plain(c['name'])}")
                for c in changes]
    assert sorted(cells) == sorted(expected)
    headings = [_text(h) for h in re.findall(r"<h3>(.*?)</h3>", rendered)]
    assert headings == [plain(changes[0]["environment"])]
    for value in HOSTILE:  # every hostile annotation is shown, as its terminal form
        assert plain(value) in _text(rendered)


def test_text_output_is_one_line_per_reason_without_control_characters(tmp_path, capsys):
    base, head = _hostile_sides(tmp_path)
    _, document = _run(capsys, base, head, "--format", "json")
    changes = json.loads(document)["changes"]
    _, text = _run(capsys, base, head)
    lines = text.splitlines()
    assert all(line.isprintable() for line in lines)
    assert not re.search("[\u200b-\u200f\u202a-\u202e\u2066-\u2069]", text)
    reasons = [line for line in lines if line.startswith("    - ")]
    assert len(reasons) == sum(len(c["reasons"]) for c in changes)
    assert lines[0].startswith(f"{len(changes)} changes: ")


def test_json_keeps_the_values_as_read(tmp_path, capsys):
    base, head = _hostile_sides(tmp_path)
    _, document = _run(capsys, base, head, "--format", "json")
    names = {c["name"] for c in json.loads(document)["changes"] if c["kind"] == "ConfigMap"}
    assert names == {f"x|y/{v}" for v in HOSTILE}


def test_a_70000_character_annotation_keeps_the_comment_under_the_limit(tmp_path, capsys):
    base, head = objects(), objects()
    pool(head)["template"]["metadata"]["annotations"] = {"example.com/big": "<" * 70_000}
    head["NodePool.gpu-inference.k8s.yaml"]["metadata"]["annotations"] = {"big": "x" * 70_000}
    _, text = _run(capsys, str(write(tmp_path / "base", base)), str(write(tmp_path / "head", head)),
                   "--format", "markdown")
    assert len(text) < 60_000
    assert "69700 more characters" in text
    assert "see --format json" not in text  # cut per value, not per row: both changes are shown
    assert len(_change_tables(_html(text))) == 1 and _html(text).count("<tr>") >= 2 + 2


def test_many_changes_are_cut_with_a_count(tmp_path, capsys):
    CHANGES = 1200  # twice as many table rows as fit in the 60,000 characters of a comment
    head = objects()
    for i in range(CHANGES):
        head[f"ConfigMap.cm{i}.yaml"] = {"apiVersion": "v1", "kind": "ConfigMap",
                                         "metadata": {"name": f"config-{i:05d}-" + "n" * 40}, "data": {"k": "v"}}
    base_dir, head_dir = str(write(tmp_path / "base", objects())), str(write(tmp_path / "head", head))
    _, text = _run(capsys, base_dir, head_dir, "--format", "markdown")
    assert len(text) <= 60_000
    last = text.rstrip("\n").splitlines()[-1]
    shown = len(re.findall(r"^\| ConfigMap ", text, re.M))
    assert last == f"… {CHANGES - shown} more changes, see --format json"
    assert 0 < shown < CHANGES
    rendered = _html(text)
    assert rendered.rstrip().endswith(f"<p>… {CHANGES - shown} more changes, see --format json</p>")
    _, document = _run(capsys, base_dir, head_dir, "--format", "json")
    assert len(json.loads(document)["changes"]) == CHANGES  # JSON is never cut
