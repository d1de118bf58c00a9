"""CI files shipped for platform repositories: the pre-commit hook and the pull-request diff workflow.

The workflow's shell steps run as GitHub would run them (``bash -e``, the step's ``env``), against a
temporary git repository; the GitHub API is the one thing replaced, by a ``gh`` on PATH that keeps the
pull request's comments in a JSON file. The pre-commit hook runs with the real ``pre-commit`` tool
(``packaging``: it installs the hook's package from the index into its own environment).
"""

from __future__ import annotations

import json
import os
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

#: GitHub's REST API for issue comments, as much of it as the workflow calls (`gh api ...`), in a JSON file.
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
    state["comments"].append({{"id": 1000 + len(state["comments"]), "body": body}})
elif method == "PATCH":
    comment = next(c for c in state["comments"] if path == "repos/acme/platform/issues/comments/%d" % c["id"])
    comment["body"] = body
json.dump(state, open(state_file, "w"))
'''


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=test", "-c", "user.email=test@example.com",
                           "-c", "commit.gpgsign=false", *args], check=True, capture_output=True, text=True).stdout


def platform_repo(tmp_path: Path) -> Path:
    """A git repository on branch main whose one commit holds this repository's dist/."""
    repo = tmp_path / "platform"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    shutil.copytree(ROOT / "dist", repo / "dist")
    git(repo, "add", "dist")
    git(repo, "commit", "-q", "-m", "base")
    return repo


def steps() -> dict[str, dict]:
    workflow = yaml.safe_load(WORKFLOW.read_text())
    return {step.get("name", step.get("uses")): step for step in workflow["jobs"]["diff"]["steps"]}


def run_step(step: dict, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    step_env = {**env, **{k: env.get(f"TEST_{k}", "") for k in step.get("env", {})}}
    return subprocess.run(["bash", "-e", "-c", step["run"]], cwd=cwd, env=step_env, capture_output=True, text=True,
                          timeout=300)


def test_workflow_runs_on_pull_requests_and_may_write_comments() -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text())
    assert workflow[True]["pull_request"]["paths"] == ["dist/**"]  # YAML 1.1 reads the key `on` as True
    assert workflow["permissions"] == {"contents": "read", "pull-requests": "write"}
    checkout = steps()["actions/checkout@v4"]
    assert checkout["with"]["fetch-depth"] == 0
    assert steps()["Post or update the comment"]["env"]["PR"] == "${{ github.event.pull_request.number }}"


def test_workflow_posts_one_comment_and_updates_it(tmp_path: Path) -> None:
    repo = platform_repo(tmp_path)
    git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")  # what actions/checkout fetches
    pool = repo / "dist" / "dev" / "NodePool.gpu-inference.k8s.yaml"
    original = pool.read_text()
    assert "  weight: 60\n" in original

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "gh").write_text(FAKE_GH.format(python=sys.executable))
    (bin_dir / "gh").chmod(0o755)
    (bin_dir / "karpenter-gpu").symlink_to(Path(sys.executable).parent / "karpenter-gpu")
    state = tmp_path / "gh.json"
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "HOME": str(tmp_path), "FAKE_GH_STATE": str(state),
           "TEST_BASE": "main", "TEST_GH_TOKEN": "token", "TEST_REPO": "acme/platform", "TEST_PR": "7"}
    diff, comment = steps()["Diff dist/ against the base branch"], steps()["Post or update the comment"]

    for weight in (61, 62):  # two pushes to the pull request
        pool.write_text(original.replace("  weight: 60\n", f"  weight: {weight}\n", 1))
        git(repo, "commit", "-q", "-am", f"weight {weight}")
        done = run_step(diff, repo, env)
        assert done.returncode == 0, done.stderr
        done = run_step(comment, repo, env)
        assert done.returncode == 0, done.stderr
        comments = json.loads(state.read_text())["comments"]
        assert len(comments) == 1, comments
        body = comments[0]["body"]
        assert body.startswith("<!-- karpenter-gpu diff -->\n**karpenter-gpu diff**: 1 change"), body[:200]
        assert "NodePool gpu\\-inference" in body and f"60 → {weight}" in body, body  # escaped: literal text
    methods = [call[call.index("--method") + 1] if "--method" in call else "GET"
               for call in json.loads(state.read_text())["calls"]]
    assert methods == ["GET", "POST", "GET", "PATCH"]


def test_workflow_stops_on_an_input_error_without_posting(tmp_path: Path) -> None:
    repo = platform_repo(tmp_path)  # no origin/main: the base revision cannot be read
    env = {"PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}", "HOME": str(tmp_path), "TEST_BASE": "main"}
    done = run_step(steps()["Diff dist/ against the base branch"], repo, env)
    assert done.returncode == 2 and done.stderr.startswith("karpenter-gpu: error: [KG600]"), done.stderr


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
