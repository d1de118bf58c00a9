"""Manifests of a git revision, read without a checkout, laid out as a folder of the same files would be.

A revision's files are listed with ``git ls-tree -z`` (no quoting of non-ASCII names) and read with one
``git cat-file --batch``, without a checkout: symbolic links followed inside the revision, submodules read at their
recorded commit, a missing object refused (:func:`read_git`). The files then form environments, objects and findings
exactly as a folder's do (:func:`karpenter_gpu.k8s.input_layout.build_source`), and ``diff`` reads either kind of side
through :func:`read`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.input_layout import SUFFIXES, Source, build_source, read_path
from karpenter_gpu.k8s.yaml_loader import MAX_FILE_BYTES, file_too_big

if TYPE_CHECKING:
    import subprocess

#: Symbolic links one path may pass through inside a revision before it is called a loop (Linux ``MAXSYMLINKS``).
MAX_LINKS = 40
#: The folder a git side is read from when none is given: the nearest ``dist`` at or above the current folder.
DIST = "dist"
_LINK, _GITLINK = "120000", "160000"


def _git(top: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    import subprocess  # late: only git sides need it, and it is a tenth of validate's imports

    return subprocess.run(["git", "-C", str(top), *args], input=stdin, capture_output=True, check=False)


def _git_text(top: Path, *args: str) -> str | None:
    """The output of a git command that must succeed, stripped; None when it fails or git is missing."""
    try:
        done = _git(top, *args)
    except OSError:  # no git installed
        return None
    return done.stdout.decode(errors="surrogateescape").strip() if done.returncode == 0 else None


def is_git_revision(rev: str, repo: Path | None = None) -> Path | None:
    """The top folder of ``repo``'s git repository when ``rev`` names a commit there, else None."""
    start = Path(repo) if repo is not None else Path.cwd()
    top = _git_text(start, "rev-parse", "--show-toplevel")
    if top is None or rev.startswith("-"):
        return None
    root = Path(top)
    if _git_text(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}") is None:
        return None
    return root


def dist_candidates(start: Path, root: Path, dist: str | None = None) -> list[str]:
    """The repository paths a git side's folder is looked for at, nearest first.

    ``dist`` given: that path, relative to ``start`` (the current folder, or ``--repo DIR``) as any path
    argument is, or absolute. Not given: a folder named ``dist`` in ``start`` and in each folder above it up to
    the repository's top (``git rev-parse --show-prefix``), so ``diff`` run from ``repo/platform/gpu`` or from
    ``repo/platform/gpu/dist/prod`` reads ``platform/gpu/dist``. A path outside the repository is KG610.
    """
    prefix = _git_text(start, "rev-parse", "--show-prefix") or ""
    here = PurePosixPath(prefix.strip("/")) if prefix.strip("/") else PurePosixPath()
    if dist is not None:
        given = Path(dist)
        if given.is_absolute():
            try:
                rel = given.resolve().relative_to(root.resolve()).as_posix()
            except ValueError:
                rel = None
        else:
            rel = _inside(str(here / dist)) if str(here) != "." else _inside(dist)
        if rel is None:
            raise KarpenterGpuError("KG610", prop="--dist", value=dist, allowed=f"a folder inside the repository {root}",
                                    fix="name the dist folder relative to the current folder, inside the repository")
        return [rel]
    parts = here.parts
    return [PurePosixPath(*parts[:n], DIST).as_posix() for n in range(len(parts), -1, -1)]


def _inside(path: str) -> str | None:
    """``path`` normalised (``a/./b/../c`` → ``a/c``), or None when it climbs above the repository's top."""
    out: list[str] = []
    for part in PurePosixPath(path).parts:
        if part in ("", "."):
            continue
        if part == "..":
            if not out:
                return None
            out.pop()
        else:
            out.append(part)
    return "/".join(out)


@dataclass(frozen=True)
class _Repo:
    """A repository whose objects are read: the outermost one, or a submodule's folder (``where``: its path)."""

    top: Path
    tree: str  # the root tree of the revision (or of the submodule's recorded commit)
    where: str = ""


@dataclass(frozen=True)
class _Entry:
    repo: _Repo
    mode: str
    oid: str
    path: str  # inside ``repo``

    @property
    def is_tree(self) -> bool:
        return self.mode == "040000"


class _Revision:
    """One revision of a repository and of the submodules it records, read without a checkout.

    Symbolic links are followed inside the revision, as a checkout would resolve them (relative to the link's
    folder; a link that leaves its repository, is absolute, dangles or loops is refused); a submodule is read
    at its recorded commit from the submodule's folder when its objects are there. A missing object is KG604.
    """

    def __init__(self, rev: str, root: Path) -> None:
        self.rev = rev
        tree = _git_text(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{tree}}")
        if tree is None:
            raise self._missing(f"{rev}^{{tree}}", "the commit's tree")
        self.root = _Repo(root, tree)
        self._trees: dict[tuple[Path, str], dict[str, tuple[str, str]]] = {}

    def _label(self, repo: _Repo, path: str) -> str:
        return f"{self.rev}:{repo.where + '/' if repo.where else ''}{path}"

    def _missing(self, what: str, detail: str) -> KarpenterGpuError:
        return KarpenterGpuError(
            "KG604", prop="diff side", value=what, allowed=f"a revision whose objects are all in the repository ({detail})",
            fix="fetch the missing objects (git fetch, or git fetch --unshallow for a shallow clone) or repair the "
                "repository (git fsck)")

    def _listing(self, repo: _Repo, tree: str, path: str) -> dict[str, tuple[str, str]]:
        """name → (mode, oid) of one tree."""
        key = (repo.top, tree)
        if key not in self._trees:
            done = _git(repo.top, "ls-tree", "-z", tree)
            if done.returncode != 0:
                raise self._missing(self._label(repo, path or "."), done.stderr.decode(errors="replace").strip())
            entries: dict[str, tuple[str, str]] = {}
            for item in done.stdout.split(b"\0"):
                if item:
                    meta, _, name = item.partition(b"\t")
                    mode, _, oid = meta.decode().split()
                    entries[os.fsdecode(name)] = (mode, oid)
            self._trees[key] = entries
        return self._trees[key]

    def blobs(self, repo: _Repo, wanted: list[tuple[str, str]]) -> list[bytes]:
        """The contents of ``wanted`` ((path, oid) in ``repo``), in order, with one ``git cat-file --batch``."""
        if not wanted:
            return []
        request = b"".join(f"{oid}\n".encode() for _, oid in wanted)
        check = _git(repo.top, "cat-file", "--batch-check", stdin=request)  # sizes first: nothing huge is read
        if check.returncode != 0:
            raise self._missing(self._label(repo, wanted[0][0]), check.stderr.decode(errors="replace").strip())
        for (path, _), line in zip(wanted, check.stdout.decode(errors="replace").splitlines()):
            header = line.split()
            if len(header) != 3 or header[1] != "blob":  # "<oid> missing"
                raise self._missing(self._label(repo, path), "a file's blob is missing from the object store")
            if int(header[2]) > MAX_FILE_BYTES:
                raise file_too_big(self._label(repo, path), int(header[2]))
        done = _git(repo.top, "cat-file", "--batch", stdin=request)
        if done.returncode != 0:
            raise self._missing(self._label(repo, wanted[0][0]), done.stderr.decode(errors="replace").strip())
        out, offset, contents = done.stdout, 0, []
        for _ in wanted:  # cat-file answers in request order: "<oid> blob <size>\n<content>\n"
            end = out.index(b"\n", offset)
            size = int(out[offset:end].split()[2])
            contents.append(out[end + 1:end + 1 + size])
            offset = end + 1 + size + 1
        return contents

    def _submodule(self, repo: _Repo, path: str, commit: str) -> _Repo:
        """The submodule recorded at ``path`` of ``repo``, read from its folder; KG608 when its objects are not there."""
        folder = repo.top / path
        where = f"{repo.where}/{path}" if repo.where else path
        own = _git_text(folder, "rev-parse", "--show-toplevel") if folder.is_dir() else None
        tree = _git_text(folder, "rev-parse", "--verify", "--quiet", f"{commit}^{{tree}}") if own else None
        if own is None or Path(own).resolve() != folder.resolve() or tree is None:
            raise KarpenterGpuError(
                "KG608", prop="diff side", value=f"{self.rev}:{where} (submodule at commit {commit[:12]})",
                allowed="a submodule whose objects are in its folder (git submodule update --init)",
                fix=f"run `git submodule update --init {where}` (and fetch the recorded commit), or pass the "
                    "checked-out folder instead of a revision")
        return _Repo(folder, tree, where)

    def find(self, path: str) -> _Entry | None:
        """The entry at ``path`` (a repository path), through links and submodules; None when nothing is there."""
        return self._find(self.root, path, 0)

    def _find(self, repo: _Repo, path: str, hops: int) -> _Entry | None:
        parts = [p for p in PurePosixPath(path).parts if p not in ("", ".")]
        entry = _Entry(repo, "040000", repo.tree, "")
        done: list[str] = []
        while parts:
            name = parts.pop(0)
            if not entry.is_tree:
                return None
            listing = self._listing(entry.repo, entry.oid, "/".join(done))
            if name not in listing:  # paths come normalised (_inside): no ".." here
                return None
            mode, oid = listing[name]
            here = "/".join([*done, name])
            if mode == _LINK:
                target = self._link_target(entry.repo, here, oid, hops)
                return self._find(entry.repo, "/".join([target, *parts]), hops + 1)
            if mode == _GITLINK:
                sub = self._submodule(entry.repo, here, oid)
                entry, done = _Entry(sub, "040000", sub.tree, ""), []
                continue
            entry = _Entry(entry.repo, mode, oid, here)
            done.append(name)
        return entry

    def _link_target(self, repo: _Repo, link: str, oid: str, hops: int) -> str:
        """Where the symbolic link at ``link`` points, as a path inside ``repo``; KG605 when it leaves it or loops."""
        label = self._label(repo, link)
        [raw] = self.blobs(repo, [(link, oid)])
        target = os.fsdecode(raw)
        resolved = None if target.startswith("/") else _inside(str(PurePosixPath(link).parent / target))
        if hops >= MAX_LINKS or resolved is None:
            why = (f"passes through more than {MAX_LINKS} links (a loop)" if hops >= MAX_LINKS else
                   "points outside the repository" if not target.startswith("/") else "is an absolute path")
            raise KarpenterGpuError(
                "KG605", prop="diff side", value=f"{label} -> {target}",
                allowed="symbolic links to files inside the same repository (a checkout reads them there)",
                fix=f"the link {why}: commit the file itself, or a link relative to a file in the repository")
        return resolved

    def files(self, entry: _Entry, rel: str = "") -> list[tuple[str, bytes]]:
        """(path relative to ``entry``, content) of every ``*.yaml`` / ``*.yml`` file under the tree ``entry``."""
        if not entry.is_tree:  # the path names one file
            return list(zip([PurePosixPath(entry.path).name], self.blobs(entry.repo, [(entry.path, entry.oid)])))
        done = _git(entry.repo.top, "ls-tree", "-r", "-z", entry.oid)
        if done.returncode != 0:
            raise self._missing(self._label(entry.repo, entry.path or "."),
                                done.stderr.decode(errors="replace").strip())
        blobs: list[tuple[str, str, str]] = []  # (rel, path in repo, oid)
        found: list[tuple[str, bytes]] = []
        for item in done.stdout.split(b"\0"):
            if not item:
                continue
            meta, _, raw = item.partition(b"\t")
            mode, _, oid = meta.decode().split()
            sub = os.fsdecode(raw)
            path = f"{entry.path}/{sub}" if entry.path else sub
            here = f"{rel}{sub}"
            if mode == _GITLINK:
                repo = self._submodule(entry.repo, path, oid)
                found.extend(self.files(_Entry(repo, "040000", repo.tree, ""), f"{here}/"))
            elif not sub.endswith(SUFFIXES):
                continue  # what the folder reader skips too
            elif mode == _LINK:
                target = self._find(entry.repo, self._link_target(entry.repo, path, oid, 0), 1)
                if target is None or target.is_tree:
                    raise KarpenterGpuError(
                        "KG607", prop="diff side", value=self._label(entry.repo, path),
                        allowed="a symbolic link to a file of the same revision",
                        fix="the link dangles or points to a folder in that revision: fix the link or commit the file")
                found.extend(zip([here], self.blobs(target.repo, [(target.path, target.oid)])))
            else:
                blobs.append((here, path, oid))
        found.extend(zip([r for r, _, _ in blobs], self.blobs(entry.repo, [(p, o) for _, p, o in blobs])))
        return sorted(found)


def git_has(rev: str, root: Path, path: str) -> bool:
    """Whether commit ``rev`` of the repository at ``root`` has anything at ``path`` (through links and submodules)."""
    return _Revision(rev, root).find(path) is not None


def read_git(rev: str, root: Path, dist: str = DIST, *, allow_empty: bool = False) -> Source:
    """The folder (or file) at repository path ``dist`` of commit ``rev`` of the repository at ``root``, read
    without a checkout.

    Nothing at ``dist`` in that revision is KG602, unless ``allow_empty`` (diff: the revision before the folder
    existed), which gives a side without environments; a folder without any object is KG907.
    """
    return _read_revision(_Revision(rev, root), [dist], allow_empty=allow_empty)


def _read_revision(revision: _Revision, candidates: list[str], *, allow_empty: bool) -> Source:
    """The first of ``candidates`` that ``revision`` has; none of them: KG602, or an empty side if ``allow_empty``."""
    for path in candidates:
        entry = revision.find(path)
        if entry is not None:
            return build_source(f"{revision.rev}:{path}", PurePosixPath(path).name, revision.files(entry))
    if allow_empty:
        return Source(f"{revision.rev}:{candidates[0]}", [], [], 0)
    raise KarpenterGpuError("KG602", prop="diff side", value=revision.rev,
                            allowed=f"a revision with a folder at {' or '.join(candidates)}",
                            fix="run diff from the folder that holds dist/, or pass --dist PATH")


def read(spec: str, repo: Path | None = None, *, dist: str | None = None, allow_empty: bool = False) -> Source:
    """A folder, a file, ``-`` (stdin), or else a git revision of ``repo`` whose dist folder is read
    (:func:`dist_candidates`: ``dist`` relative to the current folder, or the nearest ``dist`` at or above it)."""
    if spec == "-" or Path(spec).exists():
        return read_path(spec, allow_empty=allow_empty)
    root = git_root(spec, repo)
    candidates = dist_candidates(Path(repo) if repo is not None else Path.cwd(), root, dist)
    return _read_revision(_Revision(spec, root), candidates, allow_empty=allow_empty)


def git_root(spec: str, repo: Path | None = None) -> Path:
    """The top of the repository in which ``spec`` names a commit; KG600 when it names none."""
    root = is_git_revision(spec, repo)
    if root is None:
        where = Path(repo) if repo is not None else Path.cwd()
        raise KarpenterGpuError(
            "KG600", prop="diff side", value=spec,
            allowed=f"an existing folder or file, '-', or a commit of the git repository at {where}",
            fix="pass a dist/ folder, or a commit, branch or tag of the repository (--repo DIR picks the repository)")
    return root
