"""The thin jsii boundary: one rendered manifest dict becomes one cdk8s ApiObject."""

from __future__ import annotations

from typing import Any, Callable

import cdk8s
from constructs import Construct

from karpenter_gpu import cluster as _cluster
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.perf import once
from karpenter_gpu.upstream import DEFAULT_LINE, KARPENTER_LINES, KarpenterLine

#: The API group of EKS Auto Mode's NodeClass: AWS runs Auto Mode's Karpenter, not the targeted line.
_AUTO_MODE_GROUP = "eks.amazonaws.com"


@once
def gvk_of(binding: Any) -> tuple[str, str]:
    """(apiVersion, kind) of a generated binding, read from Node.js once per process (a jsii call each)."""
    return binding.GVK.api_version, binding.GVK.kind


class _Derived(cdk8s.ApiObject):
    """An ApiObject whose ``spec`` is rendered at synth, from the final tree (see :mod:`karpenter_gpu.cluster`).

    cdk8s calls ``toJson`` on every object it writes; this override (a jsii callback into Python)
    replaces the spec with ``render()``, so constructs created later are seen whatever the order.
    """

    def __init__(self, scope: Construct, id: str, *, render: Callable[[], dict], **kwargs: Any) -> None:
        super().__init__(scope, id, **kwargs)
        self._kg_render = render

    def to_json(self) -> Any:
        out = super().to_json()
        out["spec"] = self._kg_render()
        return out


def create(scope: Construct, *, binding: Any, name: str, spec: dict, annotations: dict[str, str] | None = None,
           labels: dict[str, str] | None = None, namespace: str | None = None,
           render: Callable[[], dict] | None = None) -> cdk8s.ApiObject:
    """Create child "Resource" of ``scope`` (so ``ApiObject.of(construct.resource)`` patches work).

    ``binding`` is the generated class (``NodePool``): apiVersion/kind come from it and cannot drift from
    the imported CRD; the spec is a plain dict added by JSON patch (``ApiObject(spec=...)`` is a
    TypeError from Python). ``namespace`` is for namespaced kinds (ServiceMonitor, PrometheusRule);
    leave it None for the cluster-scoped Karpenter kinds, where the API server rejects one.
    ``render``, when given, recomputes the spec at synth from the final tree (``spec`` is then what
    the tree gave at construction). The object's identity is registered with its cluster: a second
    object of the same apiVersion, kind, namespace and name there is KG171.
    """
    api_version, kind = gvk_of(binding)
    _cluster.require_chart(scope, lambda: f"{scope.node.path}/Resource", type(scope).__name__)
    identity = (api_version, kind, namespace or "", name)
    _cluster.register_object(scope, identity, lambda: f"{scope.node.path}/Resource")
    line = _cluster.karpenter_line_of(scope)
    if line.line != DEFAULT_LINE:
        _check_target(scope, line, {"apiVersion": api_version, "kind": kind, "spec": spec, "metadata": {
            "name": name, **({"namespace": namespace} if namespace else {}), **({"labels": labels} if labels else {}),
            **({"annotations": annotations} if annotations else {})}})
    metadata = cdk8s.ApiObjectMetadata(name=name, namespace=namespace, annotations=annotations or None,
                                       labels=labels or None)
    if render is None:
        obj = cdk8s.ApiObject(scope, "Resource", api_version=api_version, kind=kind, metadata=metadata)
        obj.add_json_patch(cdk8s.JsonPatch.add("/spec", spec))
    else:
        obj = _Derived(scope, "Resource", render=render, api_version=api_version, kind=kind, metadata=metadata)
    _cluster.remember_identity(obj, identity)  # read back by the cluster's duplicate check
    _cluster.tree_changed()
    return obj


def _check_target(scope: Construct, line: KarpenterLine, manifest: dict) -> None:
    """KG661 for the first thing ``manifest`` holds that the target line's CRDs refuse or prune while the default
    line's admit (derived from both lines' packaged CRDs: :func:`karpenter_gpu.apiserver.lines.line_refusals`).
    A NodePool of EKS Auto Mode is AWS's Karpenter's, not the target's: not checked."""
    from karpenter_gpu.apiserver.lines import first_release, line_refusals, value_at  # late: only older targets

    ref = ((manifest["spec"].get("template") or {}).get("spec") or {}).get("nodeClassRef") or {}
    if isinstance(ref, dict) and ref.get("group") == _AUTO_MODE_GROUP:
        return
    refused = line_refusals(manifest, line, KARPENTER_LINES[DEFAULT_LINE])
    if not refused:
        return
    first = refused[0]
    value = value_at(manifest, first.path)
    release, what = first_release(first.path, value, line)
    raise KarpenterGpuError(
        "KG661", prop=first.path, value=value,
        allowed=f"what Karpenter v{line.version}'s {manifest['kind']} CRD accepts ({first.message}): {what} first "
                f"appears in Karpenter v{release}",
        fix=f"target a line that has it (karpenter_version={_line_having(release)!r}), or leave it out",
        path=f"{scope.node.path}/Resource")


def _line_having(release: str) -> str:
    """The first packaged line at or after ``release``."""
    want = tuple(int(p) for p in release.split("."))
    for name, line in sorted(KARPENTER_LINES.items(), key=lambda item: tuple(int(p) for p in item[1].version.split("."))):
        if tuple(int(p) for p in line.version.split(".")) >= want:
            return name
    return DEFAULT_LINE
