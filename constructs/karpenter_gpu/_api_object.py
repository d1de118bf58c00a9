"""The thin jsii boundary: one rendered manifest dict becomes one cdk8s ApiObject."""

from __future__ import annotations

from typing import Any, Callable

import cdk8s
from constructs import Construct

from karpenter_gpu import cluster as _cluster
from karpenter_gpu.perf import once


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
