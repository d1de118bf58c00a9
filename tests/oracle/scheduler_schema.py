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

Left to the harness (the scheduler family resolves them itself, so a draw there would not reach Karpenter): the
NodePools' ``nodeClassRef`` (the one node class; another group, kind or name makes ``ListManaged`` or the NodePool's
readiness drop the pool, which the apiserver and drift families cover), the node class's subnets, security groups
and capacity reservations (the Go side writes the case's zones and reservations into the status the selector terms
would resolve to; no EC2 behind them) and ``placementGroupSelector`` (the harness has no placement-group provider:
``InjectOfferings`` would look one up in EC2; the core names it not modelled). The apiserver and drift families draw
those.

A block device mapping without ``deviceName`` or without ``ebs`` is admitted, but the AWS provider v1.14.1
dereferences both when it builds instance types (``pkg/providers/instancetype/types.go`` ``ephemeralStorage``):
Karpenter panics and has no answer (tests/oracle/FINDINGS.md), so the draws keep both on every mapping.
"""

from __future__ import annotations

import copy
import random
from typing import Any

from tests.oracle import schema_gen

#: The NodePool and EC2NodeClass leaves the harness decides (see the module docstring).
_POOL_HARNESS = ("spec.template.spec.nodeClassRef.",)
_CLASS_HARNESS = ("spec.subnetSelectorTerms", "spec.securityGroupSelectorTerms", "spec.capacityReservationSelectorTerms",
                  "spec.placementGroupSelector")
#: Node class spec fields the case holds in fields of its own.
_CASE_FIELDS = {"kubelet": "kubelet", "blockDeviceMappings": "block_device_mappings",
                "instanceStorePolicy": "instance_store_policy", "networkInterfaces": "network_interfaces",
                "connectionTracking": "connection_tracking"}
_HARNESS_SPEC = {"subnetSelectorTerms", "securityGroupSelectorTerms", "capacityReservationSelectorTerms",
                 "placementGroupSelector"}
#: What the harness's node class is admitted with (selector terms the Go side resolves into its status).
_SELECTORS = {"subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "oracle"}}],
              "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "oracle"}}]}


def pool_paths() -> list[str]:
    return [p for p in schema_gen.settable("NodePool") if not p.startswith(_POOL_HARNESS)]


def class_paths() -> list[str]:
    return [p for p in schema_gen.settable("EC2NodeClass") if not p.startswith(_CLASS_HARNESS)]


def _full_class(case: dict) -> dict:
    from tests.oracle.scheduler_family import node_class

    nc = copy.deepcopy(node_class(case))
    nc["spec"].update(copy.deepcopy(_SELECTORS))
    return nc


def _split_class(case: dict, nc: dict) -> dict:
    """``case`` with its node class fields taken from ``nc`` (the inverse of :func:`_full_class`)."""
    out = dict(case)
    spec = nc.get("spec") or {}
    for field, key in _CASE_FIELDS.items():
        out[key] = copy.deepcopy(spec[field]) if field in spec else None
    rest = {k: copy.deepcopy(v) for k, v in spec.items() if k not in _CASE_FIELDS and k not in _HARNESS_SPEC}
    out["node_class_spec"] = rest or None
    return out


def _named_devices(nc: dict) -> bool:
    return all(isinstance(m, dict) and m.get("deviceName") and isinstance(m.get("ebs"), dict)
               for m in nc["spec"].get("blockDeviceMappings") or [])


def schema_inputs(rng: random.Random, case: dict) -> dict:
    """``case`` with schema draws in some of its NodePools and sometimes in its EC2NodeClass."""
    out = dict(case)
    pools = []
    for pool in case["nodepools"]:
        if rng.random() < 0.3:
            pool = schema_gen.draw(rng, "NodePool", pool, edits=2, paths=pool_paths())
        pools.append(pool)
    out["nodepools"] = pools
    if rng.random() < 0.35:
        full = _full_class(case)
        drawn = schema_gen.draw(rng, "EC2NodeClass", full, edits=2, paths=class_paths(), keep=_named_devices)
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
