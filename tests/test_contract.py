"""The exit-code contract of every command: 0 clean, 1 findings or a --fail-on hit, 2 usage or input error, and
every error one coded line on stderr, never a traceback.

The fuzz test changes the type of random fields of dist/prod's objects (a seeded generator, so a failure is
replayed by its case number) and runs validate, explain and diff on the result.
"""

from __future__ import annotations

import contextlib
import subprocess
import copy
import io
import os
import random
import re
import sys
import time

import pytest
import yaml

from karpenter_gpu.cli.main import main
from karpenter_gpu.k8s import yaml_writer
from tests import soak
from tests.conftest import ROOT, find_crds_dir


@pytest.fixture(autouse=True)
def _crds(monkeypatch):
    """explain and diff check Karpenter objects against the CRDs: the ones beside the checkout, never a download."""
    monkeypatch.setenv("KARPENTER_GPU_CRDS", str(find_crds_dir()))

PROD = ROOT / "dist" / "prod"
CODED = re.compile(r"^karpenter-gpu: error: \[KG\d{3}\] ")
#: Values of every JSON/YAML type, including the awkward ones (int64 overflow, floats, empty containers).
VALUES = [None, 0, -1, 7, 2**63, -(2**70), 1.5, float("inf"), True, False, "", "x", "Gt", "10%", "1e309",
          "NoSchedule", [], [1], ["a", "b"], [{"key": "k"}], {}, {"a": 1}, {"key": [1]}]


def objects() -> list[dict]:
    return [d for p in sorted(PROD.glob("*.yaml")) for d in yaml.safe_load_all(p.read_text())]


ORIGINAL = objects()


def paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, sub in value.items():
            yield from paths(sub, (*prefix, key))
    elif isinstance(value, list):
        for i, sub in enumerate(value):
            yield from paths(sub, (*prefix, i))


def mutate(rng: random.Random, doc: dict) -> dict:
    doc = copy.deepcopy(doc)
    for _ in range(rng.randint(1, 3)):
        where = [p for p in paths(doc) if p]
        path = rng.choice(where)
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        if rng.random() < 0.1 and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = copy.deepcopy(rng.choice(VALUES))
    return doc


def run(argv: list[str], stdin: str | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdin
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode()))
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    finally:
        sys.stdin = old
    return code, out.getvalue(), err.getvalue()


def assert_contract(code: int, out: str, err: str, case: str) -> None:
    assert code in (0, 1, 2), case
    assert "Traceback" not in out + err, case
    assert "[KG919]" not in err, f"{case}: {err}"  # the safety net must never be what answers
    if code == 2:
        lines = err.splitlines()
        assert lines and all(CODED.match(line) for line in lines), f"{case}: {err}"


def dump(docs: list[dict]) -> str:
    return yaml.dump_all(docs, Dumper=yaml_writer.Dumper, sort_keys=False)


CASES = soak.size(150, 2000)


@pytest.mark.soak
def test_fuzz_type_changes_hold_the_contract(tmp_path):
    crds = str(find_crds_dir())
    pool = next(d for d in ORIGINAL if d["kind"] == "NodePool")
    node_class = next(d for d in ORIGINAL if d["kind"] == "EC2NodeClass")
    # Each case: one object of dist/prod with 1-3 random type changes, beside an unchanged NodePool and
    # EC2NodeClass (so cross-object rules run), read from stdin; diff compares it with the unchanged set.
    companions = [[d for d in (pool, node_class) if d is not target] for target in ORIGINAL]
    tails = [dump(c) for c in companions]
    bases = []
    for index, target in enumerate(ORIGINAL):
        bases.append(tmp_path / f"base-{index}.yaml")
        bases[-1].write_text(dump([target, *companions[index]]))
    rng = random.Random(int(os.environ.get("FUZZ_SEED", "20261201")))
    codes = {0: 0, 1: 0, 2: 0}
    start = time.perf_counter()
    for case in range(CASES):
        index = rng.randrange(len(ORIGINAL))
        target = ORIGINAL[index]
        head = dump([mutate(rng, target)]) + "---\n" + tails[index]
        label = f"case {case}: {target['kind']}/{target['metadata']['name']}"
        for argv in (["validate", "-", "--crds", crds], ["explain", "-", "--crds", crds],
                     ["diff", str(bases[index]), "-", "--fail-on", "drift", "--crds", crds]):
            code, out, err = run(argv, head)
            assert_contract(code, out, err, f"{label} {argv[0]}\n{head}")
            codes[code] += 1
    elapsed = time.perf_counter() - start
    print(f"{CASES} cases, {3 * CASES} runs in {elapsed:.1f}s, exit codes {codes}")
    assert codes[0] and codes[1] and codes[2]  # the generator reaches every outcome


TEXT_CASES = soak.size(80, 1000)
#: Line edits that reach the reader's own checks: anchors and aliases, Lists, duplicate keys, bad bytes.
SNIPPETS = ["&a x", "*a", "*b", "kind: List", "items: [1, {a: b}]", "- item", "  - nested", "---", "...", "? key",
            "!!binary AAAA", "!custom x", "{", "]", "\"unclosed", "key: &loop [*loop]", "apiVersion: v1",
            "<<: *a", "\t tab", "\u00e9t\u00e9: caf\u00e9"]


def edit(rng: random.Random, text: str) -> bytes:
    lines = text.splitlines()
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(lines))
        action = rng.randrange(4)
        if action == 0:
            lines.insert(i, lines[i])  # the same key twice, or a list item repeated
        elif action == 1:
            del lines[i]
        elif action == 2:
            lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)] + rng.choice(SNIPPETS)
        else:
            lines.insert(i, " " * rng.randrange(6) + rng.choice(SNIPPETS))
    data = "\n".join(lines).encode()
    return data + b"\xff\n" if rng.random() < 0.03 else data  # now and then a byte that is not UTF-8


@pytest.mark.soak
def test_fuzz_text_edits_hold_the_contract(tmp_path):
    crds = str(find_crds_dir())
    texts = [p.read_text() for p in sorted(PROD.glob("*.yaml"))]
    rng = random.Random(int(os.environ.get("FUZZ_SEED", "20261201")))
    codes = {0: 0, 1: 0, 2: 0}
    for case in range(TEXT_CASES):
        head = edit(rng, rng.choice(texts))
        (tmp_path / "head.yaml").write_bytes(head)
        for argv in (["validate", str(tmp_path / "head.yaml"), "--crds", crds],
                     ["explain", str(tmp_path / "head.yaml"), "--crds", crds],
                     ["diff", str(PROD), str(tmp_path / "head.yaml"), "--crds", crds]):
            code, out, err = run(argv)
            assert_contract(code, out, err, f"case {case} {argv[0]}\n{head!r}")
            codes[code] += 1
    print(f"{TEXT_CASES} text cases, exit codes {codes}")
    assert codes[1] and codes[2]


# ------------------------------------------------------------------------------- named error cases


def one_error(capsys, argv: list[str], code: str, exit_code: int = 2) -> str:
    assert main(argv) == exit_code
    captured = capsys.readouterr()
    [line] = captured.err.splitlines()
    assert line.startswith(f"karpenter-gpu: error: [{code}] "), line
    return line


def test_clean_input_exits_0_everywhere(capsys):
    crds = str(find_crds_dir())
    assert main(["validate", str(PROD), "--crds", crds]) == 0
    assert main(["explain", str(PROD), "--crds", crds]) == 0
    assert main(["diff", str(PROD), str(PROD), "--fail-on", "drift", "--crds", crds]) == 0
    assert main(["--help"]) == 0
    # nothing but diff's note of the release it answered for (every answer names it)
    assert capsys.readouterr().err == ("karpenter-gpu: note: prod: answered for Karpenter v1.9.3 (base prod/helm/"
                                       "karpenter.values.yaml controller.image.tag 1.9.3) -> Karpenter v1.9.3 "
                                       "(head prod/helm/karpenter.values.yaml controller.image.tag 1.9.3)\n")


@pytest.mark.parametrize("argv", [[], ["validate", "--strict=yes"], ["explain", "--format", "pdf"], ["diff", "a"],
                                  ["frobnicate"]])
def test_usage_errors_are_one_coded_line(capsys, argv):
    one_error(capsys, argv, "KG911")


def test_input_errors_in_every_command(capsys, tmp_path):
    crds = str(find_crds_dir())
    (tmp_path / "empty").mkdir()
    (tmp_path / "latin1.yaml").write_bytes(b"kind: caf\xe9\n")
    (tmp_path / "deep.yaml").write_text("a: " + "[" * 200 + "]" * 200 + "\n")
    for command in (["validate"], ["explain"]):
        one_error(capsys, [*command, str(tmp_path / "empty"), "--crds", crds], "KG907")
        one_error(capsys, [*command, str(tmp_path / "latin1.yaml"), "--crds", crds], "KG902")
        one_error(capsys, [*command, str(tmp_path / "deep.yaml"), "--crds", crds], "KG905")
        one_error(capsys, [*command, str(tmp_path / "missing"), "--crds", crds], "KG900")
    one_error(capsys, ["diff", str(tmp_path / "deep.yaml"), str(PROD), "--crds", crds], "KG905")
    one_error(capsys, ["diff", "no-such-rev", str(PROD), "--repo", str(tmp_path)], "KG600")


def test_unknown_env_and_unreadable_file(capsys, tmp_path):
    one_error(capsys, ["explain", str(ROOT / "dist"), "--env", "qa", "--crds", str(find_crds_dir())], "KG908")
    (tmp_path / "gone.yaml").symlink_to(tmp_path / "nowhere.yaml")  # listed, but cannot be read (even by root)
    one_error(capsys, ["validate", str(tmp_path), "--crds", str(find_crds_dir())], "KG901")


@pytest.mark.parametrize("content", ["spec: [unclosed\n", "- not a crd\n",
                                     "kind: CustomResourceDefinition\nspec: {group: x}\n"])
def test_malformed_crd_folder_is_kg912(capsys, tmp_path, content):
    (tmp_path / "crd.yaml").write_text(content)
    line = one_error(capsys, ["validate", str(PROD), "--crds", str(tmp_path)], "KG912")
    if "CustomResourceDefinition" in content or "unclosed" in content:
        assert "crd.yaml" in line


def test_integer_outside_int64_is_a_cel_finding_not_a_crash(capsys, tmp_path):
    pool = yaml.safe_load((PROD / "NodePool.gpu-inference.k8s.yaml").read_text())
    pool["spec"]["template"]["spec"]["requirements"][0]["minValues"] = 2**70
    (tmp_path / "pool.yaml").write_text(yaml.safe_dump(pool))
    assert main(["validate", str(tmp_path), "--crds", str(find_crds_dir())]) == 1
    out = capsys.readouterr().out
    # Either CEL backend: celpy has no value for it (int64), cel-cpp says the integer is out of range.
    assert "KG302" in out and ("int64" in out or "out of range" in out)


def test_broken_pipe_is_one_coded_line(tmp_path):
    # `karpenter-gpu explain | true`: the reader goes away; no traceback, no "Exception ignored".
    script = ("import sys; from karpenter_gpu.cli.main import main; sys.exit(main(sys.argv[1:]))")
    producer = subprocess.Popen([sys.executable, "-c", script, "explain", str(ROOT / "dist"), "--format", "json",
                                 "--crds", str(find_crds_dir())], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    producer.stdout.close()  # before the output is written (the import alone takes longer than this)
    err = producer.stderr.read().decode()
    assert producer.wait(timeout=60) == 2
    assert err.splitlines() == [err.splitlines()[0]] and "[KG909]" in err, err


def test_no_standard_input_is_an_empty_input(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", None)
    one_error(capsys, ["validate", "-", "--crds", str(find_crds_dir())], "KG907")


def test_interrupt_is_one_coded_line(capsys, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr("karpenter_gpu.cli.validate.validate_dir", interrupted)
    one_error(capsys, ["validate", str(PROD), "--crds", str(find_crds_dir())], "KG918")
