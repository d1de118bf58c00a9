"""CI files shipped for platform repositories: the pre-commit hook and the pull-request diff workflow.

The workflow's shell steps run as GitHub runs them (``bash --noprofile --norc -eo pipefail``, the step's ``env``,
``$GITHUB_OUTPUT`` and ``$GITHUB_STEP_SUMMARY`` files), against a temporary git repository; the GitHub API is the
one thing replaced, by a ``gh`` on PATH that keeps the pull request's comments (with their authors) in a JSON
file, and ``pip install`` by a ``python`` that records its arguments. The pre-commit hook runs with the real
``pre-commit`` tool (``packaging``: it installs the hook's package from the index into its own environment).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT

WORKFLOW = ROOT / "docs" / "github-workflow-diff.yml"
PRE_COMMIT = "pre-commit==4.7.0"
MARKER = "<!-- karpenter-gpu diff -->"
BOT = {"login": "github-actions[bot]", "type": "Bot"}

#: GitHub's REST API for issue comments, as much of it as the workflow calls (`gh api ...`), in a JSON file. A
#: comment the workflow posts is written by the workflow's bot, as GitHub does with the job's token.
FAKE_GH = '''#!{python}
import json, os, sys
state_file = os.environ["FAKE_GH_STATE"]
state = json.load(open(state_file)) if os.path.exists(state_file) else {{"comments": [], "calls": []}}
args = sys.argv[1:]
assert args[0] == "api", args
state["calls"].append(args[1:])
method = args[args.index("--method") + 1] if "--method" in args else "GET"
path = next(a for a in args[1:] if a.startswith("repos/"))
body = next((open(a.split("=@", 1)[1]).read() for a in args if a.startswith("body=@")), None)
if method == "GET":
    assert path == "repos/acme/platform/issues/7/comments" and "--slurp" in args, args
    print(json.dumps([state["comments"][:1], state["comments"][1:]]))  # two pages
elif method == "POST":
    assert path == "repos/acme/platform/issues/7/comments", path
    state["comments"].append({{"id": 1000 + len(state["comments"]), "body": body,
                               "user": {{"login": "github-actions[bot]", "type": "Bot"}}}})
elif method == "PATCH":
    comment = next(c for c in state["comments"] if path == "repos/acme/platform/issues/comments/%d" % c["id"])
    comment["body"] = body
json.dump(state, open(state_file, "w"))
'''

#: `python -m pip install ...` as the install step runs it: the arguments recorded, nothing installed.
FAKE_PYTHON = '''#!/bin/sh
printf '%s\\n' "$@" > "$FAKE_PYTHON_ARGS"
'''


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=test", "-c", "user.email=test@example.com",
                           "-c", "commit.gpgsign=false", *args], check=True, capture_output=True, text=True).stdout


def platform_repo(tmp_path: Path, *, source: bool = False) -> Path:
    """A git repository on branch main whose one commit holds this repository's dist/ (and with ``source``, the
    stacks/ it is synthesized from)."""
    repo = tmp_path / "platform"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    shutil.copytree(ROOT / "dist", repo / "dist")
    if source:
        shutil.copytree(ROOT / "stacks", repo / "stacks", ignore=shutil.ignore_patterns("__pycache__"))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    return repo


def steps() -> dict[str, dict]:
    workflow = yaml.safe_load(WORKFLOW.read_text())
    return {step.get("name", step.get("uses")): step for step in workflow["jobs"]["diff"]["steps"]}


def run_step(step: dict, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The step's script as the runner runs it: its ``env`` keys take the values of ``TEST_<key>`` (what the
    expressions would give), ``$GITHUB_OUTPUT`` and ``$GITHUB_STEP_SUMMARY`` are files in ``cwd``'s parent."""
    step_env = {**env, **{k: env.get(f"TEST_{k}", "") for k in step.get("env", {})},
                "GITHUB_OUTPUT": str(cwd.parent / "github_output"),
                "GITHUB_STEP_SUMMARY": str(cwd.parent / "step_summary.md")}
    return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]], cwd=cwd,
                          env=step_env, capture_output=True, text=True, timeout=300)


def outputs(cwd: Path) -> dict[str, str]:
    """What the steps wrote to ``$GITHUB_OUTPUT`` (the last value of each key)."""
    file = cwd.parent / "github_output"
    return dict(line.split("=", 1) for line in file.read_text().splitlines()) if file.exists() else {}


def tools(tmp_path: Path) -> Path:
    """A folder for PATH with the fake ``gh`` and the real ``karpenter-gpu``."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "gh").write_text(FAKE_GH.format(python=sys.executable))
    (bin_dir / "gh").chmod(0o755)
    (bin_dir / "karpenter-gpu").symlink_to(Path(sys.executable).parent / "karpenter-gpu")
    return bin_dir


def pr_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment of a pull request (#7 of acme/platform, from a branch of acme/platform into main)."""
    return {"PATH": f"{tools(tmp_path)}:{os.environ['PATH']}", "HOME": str(tmp_path),
            "FAKE_GH_STATE": str(tmp_path / "gh.json"), "TEST_BASE": "main", "TEST_GH_TOKEN": "token",
            "TEST_REPO": "acme/platform", "TEST_HEAD_REPO": "acme/platform", "TEST_PR": "7", "TEST_DIST": "dist",
            "TEST_APP": "stacks:ENVIRONMENTS", **extra}


def gh_state(tmp_path: Path) -> dict:
    file = tmp_path / "gh.json"
    return json.loads(file.read_text()) if file.exists() else {"comments": [], "calls": []}


def methods(tmp_path: Path) -> list[str]:
    return [call[call.index("--method") + 1] if "--method" in call else "GET" for call in gh_state(tmp_path)["calls"]]


def push(repo: Path, env: dict[str, str]) -> None:
    """One push's diff and comment steps (synth --check passed, no --fail-on hit)."""
    done = run_step(steps()["Diff dist/ against the base branch"], repo, env)
    assert done.returncode == 0, done.stderr
    done = run_step(steps()["Post or update the comment"], repo, {**env, "TEST_STALE": "0", "TEST_FAILED": "0"})
    assert done.returncode == 0, done.stderr


def test_workflow_triggers_pins_and_permissions() -> None:
    text = WORKFLOW.read_text()
    workflow = yaml.safe_load(text)
    assert workflow[True] == {"pull_request": None}  # YAML 1.1 reads `on` as True; no paths filter: source too
    assert workflow["permissions"] == {"contents": "read", "pull-requests": "write"}
    assert workflow["concurrency"] == {"group": "karpenter-gpu-diff-${{ github.event.pull_request.number }}",
                                       "cancel-in-progress": True}
    uses = re.findall(r"^\s*- uses: (\S+)(.*)$", text, re.M)
    assert [u.split("@")[0] for u, _ in uses] == ["actions/checkout", "actions/setup-python"]
    for action, comment in uses:  # pinned by a full commit SHA, the release tag beside it
        assert re.fullmatch(r"[\w-]+/[\w-]+@[0-9a-f]{40}", action), action
        assert re.fullmatch(r"\s+# v\d+\.\d+\.\d+", comment), comment
    checkout = next(step for name, step in steps().items() if name.startswith("actions/checkout@"))
    assert checkout["with"] == {"fetch-depth": 0, "persist-credentials": False}
    comment = steps()["Post or update the comment"]["env"]
    assert comment["PR"] == "${{ github.event.pull_request.number }}"
    assert comment["HEAD_REPO"] == "${{ github.event.pull_request.head.repo.full_name }}"
    assert comment["REPO"] == "${{ github.repository }}"
    assert "GH_TOKEN" not in json.dumps([s.get("env", {}) for n, s in steps().items() if n != "Post or update the comment"])


def test_workflow_posts_one_comment_and_updates_only_its_own(tmp_path: Path) -> None:
    repo = platform_repo(tmp_path)
    git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")  # what actions/checkout fetches
    pool = repo / "dist" / "dev" / "NodePool.gpu-inference.k8s.yaml"
    original = pool.read_text()
    assert "  weight: 60\n" in original
    # Comments anyone can post before the workflow runs, starting with the marker: never edited.
    spoofs = [{"id": 1, "body": f"{MARKER}\nLGTM, no changes", "user": {"login": "mallory", "type": "User"}},
              {"id": 2, "body": f"{MARKER}\nspoof", "user": {"login": "github-actions[bot]", "type": "User"}},
              {"id": 3, "body": "unrelated", "user": BOT}]
    (tmp_path / "gh.json").write_text(json.dumps({"comments": spoofs, "calls": []}))
    env = pr_env(tmp_path)

    for weight in (61, 62):  # two pushes to the pull request
        pool.write_text(original.replace("  weight: 60\n", f"  weight: {weight}\n", 1))
        git(repo, "commit", "-q", "-am", f"weight {weight}")
        push(repo, env)
        comments = gh_state(tmp_path)["comments"]
        assert comments[:3] == spoofs  # untouched
        assert len(comments) == 4 and comments[3]["user"] == BOT, comments
        body = comments[3]["body"]
        assert body.startswith(f"{MARKER}\n**karpenter-gpu diff**: 1 change"), body[:200]
        assert "NodePool gpu\\-inference" in body and f"60 → {weight}" in body, body  # escaped: literal text
        assert (tmp_path / "step_summary.md").read_text().endswith(body)  # the job summary has it too
    assert methods(tmp_path) == ["GET", "POST", "GET", "PATCH"]
    assert gh_state(tmp_path)["calls"][3][:3] == ["--method", "PATCH", "repos/acme/platform/issues/comments/1003"]


def pull_request(repo: Path, file: str, old: str, new: str, message: str) -> None:
    """The base branch at HEAD (what actions/checkout fetches as origin/main), then one commit editing a file of
    dist/dev: the pull request's head."""
    git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
    path = repo / "dist" / "dev" / file
    path.write_text(path.read_text().replace(old, new, 1))
    git(repo, "commit", "-q", "-am", message)


def test_workflow_on_a_fork_writes_the_job_summary_and_calls_no_api(tmp_path: Path) -> None:
    repo = platform_repo(tmp_path)
    pull_request(repo, "NodePool.gpu-inference.k8s.yaml", "  weight: 60\n", "  weight: 61\n", "weight 61")
    env = pr_env(tmp_path, TEST_HEAD_REPO="mallory/platform")
    done = run_step(steps()["Diff dist/ against the base branch"], repo, env)
    assert done.returncode == 0, done.stderr
    done = run_step(steps()["Post or update the comment"], repo, {**env, "TEST_STALE": "0", "TEST_FAILED": "0"})
    assert done.returncode == 0, done.stderr
    assert "::notice::a pull request from a fork (mallory/platform)" in done.stdout
    assert not (tmp_path / "gh.json").exists()  # gh never ran: a fork's token is read-only
    summary = (tmp_path / "step_summary.md").read_text()
    assert summary.startswith(f"{MARKER}\n**karpenter-gpu diff**: 1 change") and "60 → 61" in summary


def test_workflow_posts_nothing_new_when_nothing_changed(tmp_path: Path) -> None:
    repo = platform_repo(tmp_path)
    git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
    (repo / "README.md").write_text("docs only\n")
    git(repo, "add", "README.md")
    git(repo, "commit", "-q", "-m", "docs")
    env = pr_env(tmp_path)
    push(repo, env)
    assert methods(tmp_path) == ["GET"] and gh_state(tmp_path)["comments"] == []
    assert "No changes." in (tmp_path / "step_summary.md").read_text()


@pytest.mark.parametrize("requirement, message", [
    ("", "::error title=KARPENTER_GPU_REQUIREMENT is not set::"),
    ("karpenter-gpu", "::error title=KARPENTER_GPU_REQUIREMENT is not a direct reference::it is 'karpenter-gpu'"),
    ("karpenter-gpu==1.0", "::error title=KARPENTER_GPU_REQUIREMENT is not a direct reference::"),
], ids=["unset", "bare-name", "version"])
def test_install_refuses_a_requirement_that_resolves_on_the_public_index(tmp_path: Path, requirement: str,
                                                                         message: str) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").write_text(FAKE_PYTHON)
    (bin_dir / "python").chmod(0o755)
    work = tmp_path / "work"
    work.mkdir()
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "FAKE_PYTHON_ARGS": str(tmp_path / "args"),
           "TEST_REQUIREMENT": requirement}
    done = run_step(steps()["Install karpenter-gpu"], work, env)
    assert done.returncode == 1 and done.stdout.startswith(message), done.stdout
    assert "not this project's" in done.stdout
    assert not (tmp_path / "args").exists()  # pip never ran


def test_install_passes_a_direct_reference_to_pip_verbatim(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").write_text(FAKE_PYTHON)
    (bin_dir / "python").chmod(0o755)
    work = tmp_path / "work"
    work.mkdir()
    requirement = "karpenter-gpu @ git+https://git.example.com/acme/karpenter-gpu@v1.2.3"
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "FAKE_PYTHON_ARGS": str(tmp_path / "args"),
           "TEST_REQUIREMENT": requirement}
    done = run_step(steps()["Install karpenter-gpu"], work, env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "args").read_text().splitlines() == ["-m", "pip", "install", "--disable-pip-version-check",
                                                            requirement]


def test_a_stale_dist_is_named_in_the_comment_and_fails_the_job_after_it(tmp_path: Path) -> None:
    repo = platform_repo(tmp_path, source=True)
    git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
    env = pr_env(tmp_path)
    check = steps()["Check dist/ against a fresh synth"]
    done = run_step(check, repo, env)
    assert done.returncode == 0 and outputs(repo)["status"] == "0", done.stdout + done.stderr
    # A source change without its dist/: the committed dist/ is what the base synthesized.
    source = repo / "stacks" / "dev.py"
    changed = source.read_text().replace("gpu_limit=", "gpu_limit=1 + ", 1)
    assert changed != source.read_text()
    source.write_text(changed)
    git(repo, "commit", "-q", "-am", "more GPUs, dist/ not synthesized")
    done = run_step(check, repo, env)
    assert done.returncode == 0 and outputs(repo)["status"] == "1", done.stdout + done.stderr
    stale = [line for line in done.stdout.splitlines() if line.startswith(("differs: ", "missing: ", "extra: "))]
    assert stale and all(line.startswith("differs: dist/dev/") for line in stale), done.stdout
    done = run_step(steps()["Diff dist/ against the base branch"], repo, env)
    assert done.returncode == 0 and outputs(repo)["status"] == "0", done.stderr
    done = run_step(steps()["Post or update the comment"], repo, {**env, "TEST_STALE": "1", "TEST_FAILED": "0"})
    assert done.returncode == 0, done.stderr
    body = gh_state(tmp_path)["comments"][0]["body"]
    assert body.startswith(f"{MARKER}\n**Stale `dist/`**: it differs from a fresh `karpenter-gpu synth`"), body
    assert f"\n\n    {stale[0]}\n" in body and "**karpenter-gpu diff**: No changes." in body
    done = run_step(steps()["Fail on a stale dist/ or a --fail-on hit"], repo,
                    {**env, "TEST_STALE": "1", "TEST_FAILED": "0"})
    assert done.returncode == 1 and "::error::the committed dist/ differs from a fresh synth" in done.stdout


def test_synth_check_step_needs_the_app_variable(tmp_path: Path) -> None:
    repo = platform_repo(tmp_path)
    done = run_step(steps()["Check dist/ against a fresh synth"], repo, pr_env(tmp_path, TEST_APP=""))
    assert done.returncode == 1 and done.stdout.startswith("::error title=KARPENTER_GPU_APP is not set::")


def test_fail_on_hit_is_posted_then_fails_the_job(tmp_path: Path) -> None:
    repo = platform_repo(tmp_path)
    pull_request(repo, "EC2NodeClass.gpu-inference.k8s.yaml", "volumeSize: 200Gi", "volumeSize: 300Gi", "bigger disks")
    env = pr_env(tmp_path, TEST_FAIL_ON="drift cost-increase=10")
    done = run_step(steps()["Diff dist/ against the base branch"], repo, env)
    assert done.returncode == 0 and outputs(repo)["status"] == "1", done.stderr  # the job goes on to the comment
    verdict = "karpenter-gpu: fail-on drift: 1 change replaces nodes or drains a pool (dev EC2NodeClass gpu-inference)"
    *notes, last = done.stderr.strip().splitlines()
    assert last == verdict and [n.partition(" answered for Karpenter ")[2].split()[0] for n in notes] == [
        "v1.14.1", "v1.14.1", "v1.9.3", "v1.14.1"], done.stderr  # diff names the release of each environment
    done = run_step(steps()["Post or update the comment"], repo, {**env, "TEST_STALE": "0", "TEST_FAILED": "1"})
    assert done.returncode == 0, done.stderr
    body = gh_state(tmp_path)["comments"][0]["body"]
    assert body.endswith(f"**--fail-on** (the job fails):\n\n    {verdict}\n"), body[-400:]
    done = run_step(steps()["Fail on a stale dist/ or a --fail-on hit"], repo,
                    {**env, "TEST_STALE": "0", "TEST_FAILED": "1"})
    assert done.returncode == 1 and "::error::karpenter-gpu diff --fail-on hit" in done.stdout
    done = run_step(steps()["Fail on a stale dist/ or a --fail-on hit"], repo,
                    {**env, "TEST_STALE": "0", "TEST_FAILED": "0"})
    assert done.returncode == 0, done.stdout


def test_comment_lines_from_the_tools_cannot_become_markdown(tmp_path: Path) -> None:
    repo = platform_repo(tmp_path)
    (repo / "diff.md").write_text("**karpenter-gpu diff**: No changes.\n")
    hostile = ["extra: dist/dev/@octocat [x](javascript:alert(1)) <!-- -->.yaml", "extra: " + "y" * 500]
    (repo / "stale.txt").write_text("\n".join(hostile + [f"extra: dist/{n}.yaml" for n in range(30)]) + "\n")
    env = pr_env(tmp_path, TEST_STALE="1", TEST_FAILED="0")
    done = run_step(steps()["Post or update the comment"], repo, env)
    assert done.returncode == 0, done.stderr
    body = gh_state(tmp_path)["comments"][0]["body"]
    quoted = [line for line in body.splitlines() if line.startswith("    ")]
    assert quoted[0] == "    " + hostile[0]  # inside an indented code block: literal text, no mention or link
    assert quoted[1] == "    extra: " + "y" * 193 + "…"
    assert len(quoted) == 21 and quoted[-1] == "    … and 12 more"


def test_workflow_stops_on_an_input_error_without_posting(tmp_path: Path) -> None:
    repo = platform_repo(tmp_path)  # no origin/main: the base revision cannot be read
    env = {"PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}", "HOME": str(tmp_path), "TEST_BASE": "main"}
    done = run_step(steps()["Diff dist/ against the base branch"], repo, env)
    assert done.returncode == 2 and done.stderr.startswith("karpenter-gpu: error: [KG600]"), done.stderr
    assert outputs(repo) == {"status": "2"}


@pytest.mark.packaging
def test_pre_commit_hook_fails_on_a_defect_and_passes_on_dist(tmp_path: Path) -> None:
    tools = tmp_path / "tools"
    venv.create(tools, with_pip=True)
    subprocess.run([str(tools / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check", PRE_COMMIT],
                   check=True, capture_output=True, text=True, timeout=600)
    # The hook repository: this one as committed, plus the working tree's changes (pre-commit clones it).
    hooks = tmp_path / "hooks"
    shutil.copytree(ROOT, hooks, ignore=shutil.ignore_patterns(".git", ".venv", "node_modules", "build", "*.egg-info",
                                                               "__pycache__", ".*_cache", "tests", "dist"))
    git(hooks, "init", "-q")
    git(hooks, "add", "-A")
    git(hooks, "commit", "-q", "-m", "hooks")
    rev = git(hooks, "rev-parse", "HEAD").strip()

    repo = tmp_path / "platform"
    repo.mkdir()
    git(repo, "init", "-q")
    shutil.copytree(ROOT / "dist", repo / "dist")
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hooks}\n    rev: {rev}\n    hooks:\n      - id: karpenter-gpu-validate\n")
    git(repo, "add", "-A")
    env = {"PATH": f"{tools / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path), "PRE_COMMIT_HOME": str(tmp_path / "cache"),
           "PIP_CONSTRAINT": str(ROOT / "constraints.txt"), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}

    def pre_commit() -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(tools / "bin" / "pre-commit"), "run", "--all-files"], cwd=repo, env=env,
                              capture_output=True, text=True, timeout=900)

    done = pre_commit()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "karpenter-gpu validate" in done.stdout and "Passed" in done.stdout
    shutil.copy(ROOT / "tests" / "fixtures" / "seeds" / "003_s4_3_ec2nodeclass.yaml", repo / "dist" / "dev")
    git(repo, "add", "-A")
    done = pre_commit()
    assert done.returncode == 1, done.stdout + done.stderr
    # the seed's malformed AMI alias is refused (KG302); its namespace the API server only clears (a warning)
    assert "Failed" in done.stdout and "error KG302" in done.stdout and "FAILED: 1 errors, 1 warnings" in done.stdout, \
        done.stdout
