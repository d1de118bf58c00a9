"""The thin jsii boundary: one rendered manifest dict becomes one cdk8s ApiObject."""

from __future__ import annotations

import functools
from typing import Any

import cdk8s
from constructs import Construct


@functools.cache
def gvk_of(binding: Any) -> tuple[str, str]:
    """(apiVersion, kind) of a generated binding, read from Node.js once per process (a jsii call each)."""
    return binding.GVK.api_version, binding.GVK.kind


def create(scope: Construct, *, binding: Any, name: str, spec: dict, annotations: dict[str, str] | None = None,
           labels: dict[str, str] | None = None, namespace: str | None = None) -> cdk8s.ApiObject:
    """Create child "Resource" of ``scope`` (so ``ApiObject.of(construct.resource)`` patches work).

    ``binding`` is the generated class (``NodePool``): apiVersion/kind come from it and cannot drift from
    the imported CRD; the spec is a plain dict added by JSON patch (``ApiObject(spec=...)`` is a
    TypeError from Python). ``namespace`` is for namespaced kinds (ServiceMonitor, PrometheusRule);
    leave it None for the cluster-scoped Karpenter kinds, where the API server rejects one.
    """
    metadata = cdk8s.ApiObjectMetadata(name=name, namespace=namespace, annotations=annotations or None,
                                       labels=labels or None)
    api_version, kind = gvk_of(binding)
    obj = cdk8s.ApiObject(scope, "Resource", api_version=api_version, kind=kind, metadata=metadata)
    obj.add_json_patch(cdk8s.JsonPatch.add("/spec", spec))
    return obj
