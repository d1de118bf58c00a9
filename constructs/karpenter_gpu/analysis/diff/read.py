"""The two sides of a review: each read by :mod:`karpenter_gpu.k8s.input_layout` (folders, files, stdin) or
:mod:`karpenter_gpu.k8s.git_revision` (git revisions), as ``validate`` and ``explain`` read input, and turned into
environment → objects.

A side is never empty because it could not be read: a folder, file or stdin without any object is KG907, and
git revisions are read at one dist path for both (:func:`read_sides`). That path is ``--dist PATH``
(relative to the current folder), else the nearest folder named ``dist`` at or above the current folder
that either revision has (:func:`~karpenter_gpu.k8s.git_revision.dist_candidates`). Only a revision that has
nothing at that path while the other side has it reads as a side without objects: the change that first
adds dist/ (everything new) or removes it (everything removed); stderr says so. Neither revision having
anything at any looked-for path is KG602 (the path is wrong), and a folder there without any object is KG907.
"""

from __future__ import annotations

from pathlib import Path

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.git_revision import dist_candidates, git_has, git_root, read, read_git
from karpenter_gpu.k8s.input_layout import Problem, Source, metadata, read_path

Key = tuple[str, str, str]  # (apiVersion, kind, name)
Side = dict[str, dict[Key, dict]]


class InputProblems(Exception):
    """The reader found malformed or ambiguous objects on a side: diff refuses to guess (exit 2)."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(p.line() for p in problems))


def side_of(source: Source) -> Side:
    """Environment key → {(apiVersion, kind, name): manifest}; Helm values become ``("helm", "Values", file)``.

    Namespaced objects are named ``"<namespace>/<name>"``. The root environment (files directly in the
    folder) is keyed :data:`~karpenter_gpu.k8s.input_layout.ROOT` whatever the folder is called, so two flat
    folders compare as one environment.
    """
    if source.problems:
        raise InputProblems(source.problems)
    side: Side = {}
    for env in source.environments:
        objects: dict[Key, dict] = {}
        for file_name, values in sorted(env.values.items()):
            objects[("helm", "Values", file_name)] = values
        for m in env.manifests:
            meta = metadata(m.manifest)
            name = str(meta.get("name", ""))
            if meta.get("namespace"):
                name = f"{meta['namespace']}/{name}"
            objects[(str(m.manifest["apiVersion"]), str(m.manifest["kind"]), name)] = m.manifest
        if objects:
            side[env.key] = objects
    return dict(sorted(side.items()))


def load_side(spec: str, repo: Path | None = None, *, dist: str | None = None) -> Side:
    """A folder, a file, ``-`` (stdin) or a git revision of ``repo`` whose ``dist`` folder is read (no checkout).

    Read by :func:`karpenter_gpu.k8s.git_revision.read`, exactly as ``validate`` and ``explain`` read input; a side
    without any object is an error (KG907, or KG602 for a revision without the folder).
    """
    return side_of(read(spec, repo, dist=dist))



def _is_path(spec: str) -> bool:
    return spec == "-" or Path(spec).exists()


def read_sides(base: str, head: str, repo: Path | None = None, *,
               dist: str | None = None) -> tuple[Source, Source, list[str]]:
    """Both sides, and a note for each revision read as a side without objects (see the module docstring)."""
    specs = {"base": base, "head": head}
    sources = {name: read_path(spec) for name, spec in specs.items() if _is_path(spec)}
    revisions = {name: spec for name, spec in specs.items() if not _is_path(spec)}
    notes: list[str] = []
    if revisions:
        roots = {name: git_root(spec, repo) for name, spec in revisions.items()}
        root = next(iter(roots.values()))
        candidates = dist_candidates(Path(repo) if repo is not None else Path.cwd(), root, dist)
        found = next((c for c in candidates if any(git_has(spec, root, c) for spec in revisions.values())), None)
        if found is None:
            raise KarpenterGpuError(
                "KG602", prop="diff side", value=" and ".join(f"{n} {s}" for n, s in revisions.items()),
                allowed=f"a revision with a folder at {' or '.join(candidates)} (in the repository {root})",
                fix="run diff from the folder that holds dist/, or pass --dist PATH (relative to the current folder)")
        for name, spec in revisions.items():
            source = read_git(spec, root, found, allow_empty=True)
            if not source.environments:
                notes.append(f"{name} {spec} has nothing at {found}: compared as a side without objects "
                             "(everything on the other side is new or removed)")
            sources[name] = source
    return sources["base"], sources["head"], notes
