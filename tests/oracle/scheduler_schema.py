"""Schema draws for the ``scheduler`` family: its NodePools and its EC2NodeClass get any admitted field.

:func:`schema_inputs` edits a case of :func:`tests.oracle.scheduler_family.generate_case` with
:func:`tests.oracle.schema_gen.draw` (objects the API server admits and Karpenter reads): some NodePools get one or
two leaves of the NodePool CRD, and the case's EC2NodeClass (:func:`tests.oracle.scheduler_family.node_class`)
one or two leaves of the EC2NodeClass CRD. The node class is split back into the case's fields: ``kubelet``,
``block_device_mappings``, ``instance_store_policy``, ``network_interfaces``, ``connection_tracking``, and
``node_class_spec`` for every other field (both sides apply it over the node class they build).

Drawn as well: the node class's AMI selection (``amiSelectorTerms``, ``amiFamily``: Karpenter's ``AMIFamily()``
reads the alias or ``amiFamily``, and the instance types' overhead, pod density and ephemeral storage follow it; both
sides apply the draw over the harness's AL2023 alias), ``role`` / ``instanceProfile`` (read at launch only: no
scheduling answer depends on them, which the coverage table shows), and the NodePools' ``replicas`` (the Go side
drops static pools before ``NewScheduler`` as ``Provisioner.NewScheduler`` does; the core's static pools take no
pending pod).

The node class's ``subnetSelectorTerms``, ``securityGroupSelectorTerms`` and ``capacityReservationSelectorTerms`` are
drawn too (here from the schema, in :func:`tests.oracle.scheduler_family._network_inputs` against the case's
account): the Go side resolves them with the AWS provider's own providers over its fake EC2 API holding the case's
subnets, security groups and reservations (``scheduler_network.go``), the core from the same facts as AWS CLI
documents. ``placementGroupSelector`` is drawn and the core answers "not modelled" (the case's account has no
placement group: Karpenter finds none and the class is not Ready). The NodePools' ``nodeClassRef`` is drawn where the
draw still names the one node class (``group`` karpenter.k8s.aws, ``kind`` EC2NodeClass, ``name`` default): another
makes ``ListManaged`` or the NodePool's readiness drop the pool, which the apiserver and drift families cover.

A block device mapping without ``deviceName`` or without ``ebs`` is admitted, but the AWS provider v1.14.1
dereferences both when it builds instance types (``pkg/providers/instancetype/types.go`` ``ephemeralStorage``):
Karpenter panics and has no answer (tests/oracle/FINDINGS.md), so the draws keep both on every mapping.
"""

from __future__ import annotations

import copy
import random
from typing import Any

from tests.oracle import schema_gen

#: The nodeClassRef every pool keeps (a draw elsewhere drops the pool before scheduling: see the module docstring).
_REF = {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}
#: Node class spec fields the case holds in fields of its own.
_CASE_FIELDS = {"kubelet": "kubelet", "blockDeviceMappings": "block_device_mappings",
                "instanceStorePolicy": "instance_store_policy", "networkInterfaces": "network_interfaces",
                "connectionTracking": "connection_tracking"}


def pool_paths() -> list[str]:
    return list(schema_gen.settable("NodePool"))


def class_paths() -> list[str]:
    return list(schema_gen.settable("EC2NodeClass"))


def _resolves(pool: dict) -> bool:
    """The pool's nodeClassRef still names the case's one node class."""
    ref = pool.get("spec", {}).get("template", {}).get("spec", {}).get("nodeClassRef")
    return isinstance(ref, dict) and all(ref.get(k) == v for k, v in _REF.items())


def _full_class(case: dict) -> dict:
    from tests.oracle.scheduler_family import node_class

    return copy.deepcopy(node_class(case))


def _split_class(case: dict, nc: dict) -> dict:
    """``case`` with its node class fields taken from ``nc`` (the inverse of :func:`_full_class`)."""
    out = dict(case)
    spec = nc.get("spec") or {}
    for field, key in _CASE_FIELDS.items():
        out[key] = copy.deepcopy(spec[field]) if field in spec else None
    rest = {k: copy.deepcopy(v) for k, v in spec.items() if k not in _CASE_FIELDS}
    out["node_class_spec"] = rest or None
    return out


#: Node class fields whose draws decide whether the class is Ready (selection of subnets, groups, placement group).
_SELECTION = ("subnetSelectorTerms", "securityGroupSelectorTerms", "placementGroupSelector")


def _named_devices(nc: dict) -> bool:
    return all(isinstance(m, dict) and m.get("deviceName") and isinstance(m.get("ebs"), dict)
               for m in nc["spec"].get("blockDeviceMappings") or [])


def schema_inputs(rng: random.Random, case: dict) -> dict:
    """``case`` with schema draws in some of its NodePools and sometimes in its EC2NodeClass."""
    out = dict(case)
    pools = []
    for pool in case["nodepools"]:
        if rng.random() < 0.3:
            pool = schema_gen.draw(rng, "NodePool", pool, edits=2, paths=pool_paths(), keep=_resolves)
        pools.append(pool)
    out["nodepools"] = pools
    if rng.random() < 0.35:
        full = _full_class(case)

        def keep(nc: dict) -> bool:
            # a drawn selector term (or placement group) mostly selects nothing, leaving the class not Ready and
            # the case without a placement: keep a quarter of those, so most cases still place or refuse a pod
            touched = any(nc["spec"].get(k) != full["spec"].get(k) for k in _SELECTION)
            return _named_devices(nc) and (not touched or rng.random() < 0.25)

        drawn = schema_gen.draw(rng, "EC2NodeClass", full, edits=2, paths=class_paths(), keep=keep)
        if drawn != full:
            out = _split_class(out, drawn)
    return out


# ----------------------------------------------------------------------------------------------- coverage

def objects(case: dict) -> list[tuple[str, Any]]:
    """The CRD objects of a case: its NodePools and its EC2NodeClass."""
    from tests.oracle.scheduler_family import node_class

    return [("NodePool", p) for p in case["nodepools"]] + [("EC2NodeClass", node_class(case))]


def without(case: dict, kind: str, path: str) -> dict:
    """``case`` without the leaf ``path`` in every object of ``kind``."""
    if kind == "NodePool":
        return {**case, "nodepools": [schema_gen.without(p, path) for p in case["nodepools"]]}
    return _split_class(case, schema_gen.without(_full_class(case), path))


def default_settings() -> dict:
    """The chart's defaults in the shape of a case's ``settings`` (a setting equal to them is not "set")."""
    from karpenter_gpu.k8s.controller_settings import ControllerSettings

    defaults = ControllerSettings()
    from tests.oracle.scheduler_family import _GATES

    return {"feature_gates": {g: any(getattr(gate, "value", str(gate)) == g for gate in defaults.gates)
                              for g in _GATES},
            "min_values_policy": defaults.min_values_policy,
            "vm_memory_overhead_percent": defaults.vm_memory_overhead_percent,
            "reserved_enis": defaults.reserved_enis}
