"""The cluster boundary: which constructs end up in one Kubernetes cluster, and the synth-time pass over it.

A cdk8s App may describe several clusters (prod and staging side by side), and one cluster may be
spread over several charts (one chart per team). Everything that is unique in a cluster (every
emitted ``(apiVersion, kind, namespace, name)``, NodeOverlay weights, Helm values files) and
everything derived from "all pools" (controller feature gates, GPU Operator tolerations, alerts,
smoke workloads) is scoped to the **cluster** of a construct:

- the outermost :class:`Cluster` (or :class:`~karpenter_gpu.gpu_platform.GpuPlatform`, a chart that
  is one) among its ancestors, or
- the App itself when there is none: an App without boundaries is one cluster.

Derived values are computed from the *final* tree: each derived construct registers itself with its
cluster, and :func:`finalize` (run by cdk8s as a validation right before synthesis, and callable
directly) materializes what depends on the final set of pools and checks the whole cluster. Call
``finalize(app)`` before ``app.synth()`` to get a :class:`~karpenter_gpu.errors.KarpenterGpuError`;
from inside ``app.synth()`` the same coded line arrives wrapped in jsii's ``RuntimeError``.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Protocol

import cdk8s
import jsii
from constructs import Construct, IValidation

from pydantic import field_validator
from typing_extensions import TypedDict, Unpack

from karpenter_gpu._construct_tree import node_of, path_of, read_once
from karpenter_gpu._props import Props, build
from karpenter_gpu._signature import ConstructSignature
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.upstream import DEFAULT_LINE, KARPENTER_LINES, KarpenterLine, karpenter_line

#: A construct as jsii hands it out (a Construct, or an IConstruct proxy of a JS-created one).
Node = Any

#: Attribute marking a construct class as a cluster boundary.
BOUNDARY_ATTR = "_kg_cluster_boundary"


def remember_parent(construct: Node, scope: Node) -> None:
    """Record ``scope`` as ``construct.node.scope``: the constructor was handed it, so :func:`cluster_of`
    and :func:`in_chart` need no jsii read (two round trips per construct) to walk up from here. The tree
    has changed: :func:`members` reads it again."""
    construct._kg_parent = scope
    tree_changed()


#: Each cluster's :func:`members`, keyed by the cluster's jsii reference, while the tree is unchanged. A
#: ``find_all`` is a jsii round trip that hands back every construct of the tree (a proxy each), and the
#: derived values ask for a cluster's pools dozens of times per synth.
_MEMBERS: dict[str, list[Any]] = {}


def tree_changed() -> None:
    """Forget every cluster's :func:`members`. Called when one of this package's constructs or objects joins a
    tree, and at the start of each synth-time pass (:func:`finalize`, and the validation cdk8s runs), so the
    pass sees what a user added with plain cdk8s too."""
    _MEMBERS.clear()


class ScopedConstruct(Construct):
    """A Construct that knows its parent on the Python side (see :func:`remember_parent`)."""

    def __init__(self, scope: Construct, id: str) -> None:
        super().__init__(scope, id)
        remember_parent(self, scope)


#: The Karpenter line each cluster targets, by the cluster's jsii reference (absent: :data:`DEFAULT_LINE`).
_LINES: dict[str, KarpenterLine] = {}


def parse_karpenter_version(version: Any, path: str) -> KarpenterLine:
    """The packaged line ``version`` names ("1.9", "1.14", or a release of one); KG660 otherwise."""
    try:
        line = karpenter_line(version) if isinstance(version, str) else None
    except KeyError:
        line = None
    if line is None:
        raise KarpenterGpuError("KG660", prop="karpenter_version", value=version,
                                allowed=f"a packaged Karpenter line: {sorted(KARPENTER_LINES, key=_line_key)} "
                                        f"(releases {', '.join(v.version for v in KARPENTER_LINES.values())})",
                                fix=f"pass karpenter_version={DEFAULT_LINE!r} (the default) or another line listed",
                                path=path)
    return line


def set_karpenter_version(cluster: Node, version: str, path: str) -> KarpenterLine:
    """Make ``cluster`` target the Karpenter line ``version`` ("1.9", "1.14"); KG660 for another, KG663 when the
    cluster already targets a different one (a GpuPlatform inside a Cluster that says otherwise)."""
    line = parse_karpenter_version(version, path)
    before = _LINES.get(ref_of(cluster))
    if before is not None and before != line:
        raise KarpenterGpuError("KG663", prop="karpenter_version", value=version,
                                allowed=f"the version its cluster {node_of(cluster).path or '<app>'} targets "
                                        f"({before.line}): one Karpenter controller serves a cluster",
                                fix=f"pass karpenter_version={before.line!r}, or give it on one of them only",
                                path=path)
    _LINES[ref_of(cluster)] = line
    return line


def karpenter_line_of(construct: Node) -> KarpenterLine:
    """The Karpenter line the cluster of ``construct`` targets (:data:`DEFAULT_LINE` unless told)."""
    return _LINES.get(ref_of(cluster_of(construct))) or KARPENTER_LINES[DEFAULT_LINE]


def _line_key(name: str) -> tuple[int, ...]:
    return tuple(int(part) for part in name.split("."))


class ClusterProps(Props):
    """Props of :class:`Cluster`."""

    #: The Karpenter line the cluster runs, "1.9" or "1.14". Default: - "1.14", unless a GpuPlatform inside
    #: says otherwise.
    karpenter_version: str | None = None

    @field_validator("karpenter_version", mode="before")
    @classmethod
    def _version(cls, v: Any) -> str | None:
        return None if v is None else parse_karpenter_version(v, "Cluster").line


class ClusterKwargs(TypedDict, total=False):
    """The keyword props of :class:`Cluster`: the fields of :class:`ClusterProps`, same types."""

    karpenter_version: str | None


class Cluster(ScopedConstruct):
    """Marks one Kubernetes cluster: everything under it (charts, pools, addons) is one cluster.

    ``karpenter_version`` ("1.9" or "1.14", default "1.14") is the Karpenter line the cluster runs: objects
    its CRDs lack are refused at construction (KG661) and the controller values follow it.

    Example (one chart per team, two clusters in one App)::

        app = cdk8s.App()
        prod = Cluster(app, "prod")
        platform = cdk8s.Chart(prod, "platform")      # node classes, GpuOperatorValues, GpuMonitoring …
        team_a = cdk8s.Chart(prod, "team-a")          # team A's pools
        staging = Cluster(app, "staging")             # may reuse every name and weight prod uses

    Nested boundaries join the outermost one (a GpuPlatform inside a Cluster is part of it).
    """

    _kg_cluster_boundary = True
    __signature__ = ConstructSignature()

    def __init__(self, scope: Construct, id: str, *, props: ClusterProps | None = None,
                 **kwargs: Unpack[ClusterKwargs]) -> None:
        """Keyword props (see :class:`ClusterProps`) or ``props=``, not both (KG820)."""
        self.props = build(ClusterProps, path_of(scope, id), props, **kwargs)
        super().__init__(scope, id)
        if self.props.karpenter_version is not None:
            set_karpenter_version(self, self.props.karpenter_version, path_of(scope, id))


class Derived(Protocol):
    """A construct whose output depends on the final tree of its cluster."""

    def materialize(self) -> None:
        """Create what the final tree needs (idempotent). Runs before :meth:`check_final`."""

    def check_final(self) -> None:
        """Raise a KarpenterGpuError when the final tree makes the output invalid."""


def ref_of(construct: Any) -> str:
    """A stable key for a construct: jsii hands out a new Python proxy for a JS-created object (the App of
    ``cdk8s.Testing.app()``) on every read, so identity and attributes of proxies cannot be relied on."""
    return construct.__jsii_ref__.ref


#: Per-cluster state, keyed by the cluster's jsii reference.
_STATES: dict[str, dict] = {}


def is_boundary(construct: Any) -> bool:
    return bool(getattr(type(construct), BOUNDARY_ATTR, False))


def parent_of(construct: Node) -> Node | None:
    """``construct.node.scope``, read through jsii once per construct (:func:`remember_parent` may have set it)."""
    return read_once(construct, "_kg_parent", lambda: node_of(construct).scope)


def root_of(construct: Node) -> Node:
    """``construct.node.root`` from the cached parents (cluster_of has read them): no jsii read."""
    parent = parent_of(construct)
    while parent is not None:
        construct, parent = parent, parent_of(parent)
    return construct


def in_chart(construct: Node) -> bool:
    """Whether ``construct`` is a cdk8s Chart or inside one (cached per construct)."""
    def read() -> bool:
        parent = parent_of(construct)
        return isinstance(construct, cdk8s.Chart) or (parent is not None and in_chart(parent))

    return bool(read_once(construct, "_kg_in_chart", read))


def cluster_of(construct: Node) -> Node:
    """The cluster ``construct`` belongs to: its outermost boundary ancestor, else the App (root).

    Cached on each construct (its scope chain never changes), so a new construct costs one jsii
    read of its parent.
    """
    def read() -> Node:
        parent = parent_of(construct)
        if parent is None:
            return construct
        above = cluster_of(parent)
        return above if is_boundary(above) or not is_boundary(construct) else construct

    return read_once(construct, "_kg_cluster", read)


def _state(cluster: Node) -> dict:
    key = ref_of(cluster)
    state = _STATES.get(key)
    if state is None:
        state = _STATES[key] = {"objects": {}, "derived": [], "files": {}}
        node_of(cluster).add_validation(_ClusterValidation(cluster))
        if parent_of(cluster) is not None:
            _state(root_of(cluster))  # the App's pass also checks what the clusters write side by side
    return state


def members(cluster: Node) -> list[Node]:
    """Every construct of ``cluster`` (at or below it, and for the App: not under a boundary), in tree order.

    Read from the tree once until it changes (:func:`tree_changed`).
    """
    return list(_read_until_tree_changes(ref_of(cluster), lambda: _read_members(cluster)))


def _read_until_tree_changes(key: str, read: Callable[[], list[Node]]) -> list[Node]:
    """``read()``, read once and held under ``key`` until the tree changes (:func:`tree_changed`)."""
    known = _MEMBERS.get(key)
    if known is None:
        known = _MEMBERS[key] = read()
    return known


def _read_members(cluster: Node) -> list[Node]:
    everything = node_of(cluster).find_all()
    if is_boundary(cluster):
        return everything
    inner = [c for c in everything if is_boundary(c)]
    if not inner:
        return everything
    excluded: set[str] = set()
    for boundary in inner:
        excluded.update(ref_of(c) for c in members(boundary))
    return [c for c in everything if ref_of(c) not in excluded]


def members_of(construct: Node, kind: type | tuple[type, ...]) -> list[Any]:
    """The constructs of type ``kind`` in the cluster of ``construct``, in tree order."""
    return [c for c in members(cluster_of(construct)) if isinstance(c, kind)]


def register_object(scope: Node, identity: tuple[str, str, str, str], path: str | Callable[[], str]) -> None:
    """Record an emitted object; a second one with the same identity in the cluster is KG171 (at once).

    ``path`` may be a function: construct paths are jsii round trips, needed only for the error.
    """
    objects = _state(cluster_of(scope))["objects"]
    other = objects.get(identity)
    if other is not None:
        first, second = (p() if callable(p) else p for p in (other, path))
        if first != second:
            raise duplicate_error(identity, first, second)
    objects[identity] = path


def register_file(scope: Node, file_name: str, path: str) -> None:
    """Record a Helm values file written next to the manifests; two of one name in a cluster is KG171."""
    files = _state(cluster_of(scope))["files"]
    other = files.get(file_name)
    if other is not None and other != path:
        raise KarpenterGpuError(
            "KG171", prop="file_name", value=file_name,
            allowed=f"one Helm values file of this name per cluster ({other} and {path} both write it; the "
                    "second would overwrite the first)",
            fix="keep one of them per cluster, or put them in different clusters (Cluster / GpuPlatform)",
            path=path)
    files[file_name] = path


def register_derived(construct: Node) -> None:
    """Have :func:`finalize` call ``construct.materialize()`` and ``construct.check_final()``."""
    _state(cluster_of(construct))["derived"].append(construct)


def duplicate_error(identity: tuple[str, str, str, str], first: str, second: str) -> KarpenterGpuError:
    api_version, kind, namespace, name = identity
    where = f" in namespace {namespace}" if namespace else ""
    return KarpenterGpuError(
        "KG171", prop="name", value=name,
        allowed=f"one {kind} ({api_version}) named {name!r}{where} per cluster: {first} and {second} both render "
                "it, and the second would silently replace the first on synth and apply",
        fix="rename one of them, or put them in different clusters (Cluster / GpuPlatform boundaries)",
        path=second)


def require_chart(scope: Node, path: str | Callable[[], str], what: str) -> None:
    """cdk8s objects need a chart above them; say so with a code instead of jsii's 'cannot find a parent chart'."""
    if in_chart(scope):
        return
    path = path() if callable(path) else path
    raise KarpenterGpuError(
        "KG197", prop="scope", value=scope.node.path or "<app>",
        allowed=f"a scope inside a cdk8s Chart: {what} renders Kubernetes objects, and cdk8s writes only objects "
                "that belong to a chart",
        fix="create it in a chart of the cluster, e.g. cdk8s.Chart(app, 'platform') or a GpuPlatform",
        path=path)


#: Identities of ApiObjects by jsii reference (a proxy of a JS-created object is new on every read): recorded when
#: this package creates the object (directly, or through cdk8s-plus), else when the synth-time pass first reads
#: one back (five round trips).
_IDENTITIES: dict[str, tuple[str, str, str, str]] = {}
_IDENTITIES_KEPT = 100_000


def remember_identity(obj: cdk8s.ApiObject, identity: tuple[str, str, str, str]) -> None:
    """Record the identity of ``obj`` (fixed at its construction), so the synth-time pass need not read it back."""
    if len(_IDENTITIES) >= _IDENTITIES_KEPT:  # a long-lived process building app after app: read them back
        _IDENTITIES.clear()
    _IDENTITIES[ref_of(obj)] = identity


def _identity(obj: cdk8s.ApiObject) -> tuple[str, str, str, str]:
    known = _IDENTITIES.get(ref_of(obj))
    if known is None:  # fixed at construction in cdk8s
        meta = obj.metadata
        known = obj.api_version, obj.kind, meta.namespace or "", meta.name or ""
        remember_identity(obj, known)
    return known


def clusters(scope: Node) -> list[Node]:
    """Every cluster of the App ``scope`` belongs to: the App itself first, then each outermost boundary."""
    root = root_of(scope)
    out = [root]
    for c in _whole_tree(root):
        if is_boundary(c) and ref_of(cluster_of(c)) == ref_of(c):
            out.append(c)
    return out


def _whole_tree(root: Node) -> list[Node]:
    """Every construct of the App ``root``, boundaries included, in tree order (cached as :func:`members` is)."""
    return _read_until_tree_changes("tree:" + ref_of(root), node_of(root).find_all)


def finalize_cluster(cluster: Node) -> None:
    """Materialize derived constructs, then check the whole cluster (KG171 duplicates, derived checks)."""
    tree_changed()  # the pass reads the tree as it is now, objects added with plain cdk8s included
    state = _state(cluster)
    for derived in list(state["derived"]):
        derived.materialize()
    seen: dict[tuple[str, str, str, str], cdk8s.ApiObject] = {}
    for obj in members(cluster):
        if not isinstance(obj, cdk8s.ApiObject):
            continue
        identity = _identity(obj)
        other = seen.setdefault(identity, obj)
        if other is not obj:  # paths only on a clash: each is a jsii round trip
            raise duplicate_error(identity, other.node.path, obj.node.path)
    for derived in list(state["derived"]):
        derived.check_final()


def _output_type(root: Node) -> Any:
    """The App's ``yaml_output_type`` (None for a root that is no App), read over jsii once per App object."""
    return read_once(root, "_kg_output_type", lambda: getattr(root, "yaml_output_type", None))


def _check_files_across_clusters(root: Node, found: list[Node]) -> None:
    """With one file per resource (``Kind.name.k8s.yaml`` in one folder), two clusters of one App that share
    an object name would overwrite each other's file: cdk8s writes both to the same path."""
    if len(found) < 2 or _output_type(root) != cdk8s.YamlOutputType.FILE_PER_RESOURCE:
        return
    written: dict[str, Node] = {}
    for cluster in found:
        for obj in members(cluster):
            if not isinstance(obj, cdk8s.ApiObject):
                continue
            _, kind, _, name = _identity(obj)
            file = f"{kind}.{name}.k8s.yaml"
            other = written.setdefault(file, obj)
            if ref_of(other) != ref_of(obj):  # paths only on a clash: each is a jsii round trip
                raise KarpenterGpuError(
                    "KG171", prop="yaml_output_type", value="FILE_PER_RESOURCE",
                    allowed=f"one file per object name in the App's output folder: {other.node.path} and "
                            f"{obj.node.path} (different clusters) would both be written to {file}",
                    fix="use yaml_output_type=cdk8s.YamlOutputType.FOLDER_PER_CHART_FILE_PER_RESOURCE, or one App "
                        "(outdir) per cluster", path=obj.node.path)


def finalize(scope: Node, *, one_folder: bool = True) -> None:
    """Run the synth-time pass on every cluster of the App of ``scope``; raise the first coded error.

    cdk8s runs it too (as a validation of each cluster) on every ``app.synth()`` / ``Testing.synth``.
    ``one_folder=False``: the clusters are written to folders of their own (``karpenter_gpu.synth`` of an App with
    several), so their file names need not differ.
    """
    tree_changed()
    found = clusters(scope)
    for cluster in found:
        finalize_cluster(cluster)
    if one_folder:
        _check_files_across_clusters(root_of(scope), found)


@jsii.implements(IValidation)
class _ClusterValidation:
    def __init__(self, cluster: Node) -> None:
        self._cluster = cluster

    def validate(self) -> list[str]:
        try:
            finalize_cluster(self._cluster)
            if parent_of(self._cluster) is None:  # the App: what its clusters write side by side
                _check_files_across_clusters(self._cluster, clusters(self._cluster))
        except KarpenterGpuError as err:
            return [str(err)]
        return []


def sorted_by_name(pools: Iterable[Any]) -> list[Any]:
    """Pools in name order: derived output must not depend on construction order."""
    return sorted(pools, key=lambda p: p.name)
