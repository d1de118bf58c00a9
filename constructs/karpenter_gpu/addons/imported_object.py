"""ImportedObject → one Kubernetes object exactly as given: the escape hatch ``karpenter-gpu import`` writes.

An object kept as it was read (a NodePool, an EC2NodeClass, a NodeOverlay, anything else) renders byte for byte
the same fields, so ``karpenter-gpu diff`` against the file it came from shows nothing: no construct opinion (a
name grammar, a label, a root volume) replaces a running node. It takes part in the cluster's duplicate check
(KG171) like every other object.
"""

from __future__ import annotations

from typing import Any

import cdk8s
from constructs import Construct
from pydantic import field_validator
from typing_extensions import TypedDict, Unpack

from karpenter_gpu import cluster as _cluster
from karpenter_gpu._construct_tree import path_of
from karpenter_gpu._props import Props, build
from karpenter_gpu._signature import ConstructSignature
from karpenter_gpu.cluster import ScopedConstruct
from karpenter_gpu.errors import KarpenterGpuError

#: The top-level fields cdk8s sets itself; everything else of the manifest is added as given.
_OWN = ("apiVersion", "kind", "metadata")


class ImportedObjectProps(Props):
    """Props of :class:`ImportedObject`."""

    #: The whole object as read: ``apiVersion``, ``kind``, ``metadata`` (with a ``name``) and the rest, unchanged.
    manifest: dict[str, Any]
    #: Why it is kept as given instead of built by a construct (shown in the generated code; not rendered).
    reason: str = ""

    @field_validator("manifest", mode="before")
    @classmethod
    def _manifest(cls, v: Any) -> dict[str, Any]:
        if not isinstance(v, dict):
            raise KarpenterGpuError("KG230", prop="manifest", value=type(v).__name__,
                                    allowed="a Kubernetes object as a mapping",
                                    fix="pass the object's mapping, e.g. yaml.safe_load(text)")
        meta = v.get("metadata")
        missing = [k for k in ("apiVersion", "kind") if not isinstance(v.get(k), str) or not v.get(k)]
        if not isinstance(meta, dict) or not isinstance(meta.get("name"), str) or not meta.get("name"):
            missing.append("metadata.name")
        if missing:
            raise KarpenterGpuError("KG230", prop="manifest", value=", ".join(missing) + " missing",
                                    allowed="an object with apiVersion, kind and metadata.name (non-empty strings)",
                                    fix="add the missing fields to the object")
        return v


class ImportedObjectKwargs(TypedDict, total=False):
    """The keyword props of :class:`ImportedObject`: the fields of :class:`ImportedObjectProps`."""

    manifest: dict[str, Any]
    reason: str


class ImportedObject(ScopedConstruct):
    """One Kubernetes object rendered exactly as given: ``karpenter-gpu import``'s "keep as is".

    Example::

        ImportedObject(chart, "NodePool-gpu-a", manifest={"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
                                                         "metadata": {"name": "gpu-a"}, "spec": {...}},
                       reason="kept as given: ...")

    Nothing is checked beyond the object's identity (``apiVersion``, ``kind``, ``metadata.name``: KG230);
    synth validates it as it validates everything it writes. Adopting a construct later is a change that
    ``karpenter-gpu diff`` reviews.
    """

    __signature__ = ConstructSignature()

    def __init__(self, scope: Construct, id: str, *, props: ImportedObjectProps | None = None,
                 **kwargs: Unpack[ImportedObjectKwargs]) -> None:
        path = path_of(scope, id)
        props = build(ImportedObjectProps, path, props, **kwargs)
        manifest = props.manifest
        meta = dict(manifest["metadata"])
        _cluster.require_chart(scope, path, type(self).__name__)
        super().__init__(scope, id)
        self.props = props
        namespace = meta.get("namespace") if isinstance(meta.get("namespace"), str) else None
        identity = (manifest["apiVersion"], manifest["kind"], namespace or "", meta["name"])
        _cluster.register_object(self, identity, lambda: f"{path}/Resource")
        obj = cdk8s.ApiObject(self, "Resource", api_version=manifest["apiVersion"], kind=manifest["kind"],
                              metadata=cdk8s.ApiObjectMetadata(name=meta["name"], namespace=namespace))
        # Patches are applied after cdk8s's own clean-up: empty maps, nulls and the key order stay as given.
        obj.add_json_patch(cdk8s.JsonPatch.replace("/metadata", meta))
        for key, value in manifest.items():
            if key not in _OWN:
                obj.add_json_patch(cdk8s.JsonPatch.add("/" + key.replace("~", "~0").replace("/", "~1"), value))
        _cluster.remember_identity(obj, identity)
        _cluster.tree_changed()
        self.resource = obj
