"""The thin jsii boundary: one rendered manifest dict becomes one cdk8s ApiObject."""

from __future__ import annotations

from typing import Any

import cdk8s
from constructs import Construct


def create(scope: Construct, *, gvk: Any, name: str, spec: dict, annotations: dict[str, str] | None = None,
           labels: dict[str, str] | None = None, namespace: str | None = None) -> cdk8s.ApiObject:
    """Create child "Resource" of ``scope`` (so ``ApiObject.of(construct.resource)`` patches work).

    ``gvk`` comes from the generated binding (``NodePool.GVK``) so apiVersion/kind cannot drift from
    the imported CRD; the spec is a plain dict added by JSON patch (``ApiObject(spec=...)`` is a
    TypeError from Python). ``namespace`` is for namespaced kinds (ServiceMonitor, PrometheusRule);
    leave it None for the cluster-scoped Karpenter kinds, where the API server rejects one.
    """
    metadata = cdk8s.ApiObjectMetadata(name=name, namespace=namespace, annotations=annotations or None,
                                       labels=labels or None)
    obj = cdk8s.ApiObject(scope, "Resource", api_version=gvk.api_version, kind=gvk.kind, metadata=metadata)
    obj.add_json_patch(cdk8s.JsonPatch.add("/spec", spec))
    return obj
