"""The two sides of a review: each read by :mod:`karpenter_gpu.k8s.reader`, as ``validate`` and ``explain`` read
input, and turned into environment → objects."""

from __future__ import annotations

from pathlib import Path

from karpenter_gpu.k8s.reader import Problem, Source, metadata, read

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
    folder) is keyed :data:`~karpenter_gpu.k8s.reader.ROOT` whatever the folder is called, so two flat
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


def load_side(spec: str, repo: Path | None = None, *, dist: str = "dist") -> Side:
    """A folder, a file, ``-`` (stdin) or a git revision of ``repo`` whose ``dist`` folder is read (no checkout).

    Read by :func:`karpenter_gpu.k8s.reader.read`, exactly as ``validate`` and ``explain`` read input.
    """
    return side_of(read(spec, repo, dist=dist, allow_empty=True))

