"""The ``scheduler`` and ``overlay`` families' cases for the Karpenter line of the pass (tests/oracle/lines.py).

A case is drawn as for v1.14 (:func:`tests.oracle.scheduler_family.generate_case` and the schema draws), then what
the line's API server would not store as written is taken out, judged by the line's packaged CRDs (the apiserver
family's core answer, :func:`tests.oracle.schema_gen.admitted`), never by what the core knows: the EC2NodeClass's
``networkInterfaces`` and ``connectionTracking`` where the line's CRD lacks them, NodePool requirements its CRD
refuses (a ``karpenter.k8s.aws`` label the line does not know), and feature gates its chart does not render
(:attr:`karpenter_gpu.upstream.KarpenterLine.gates`). What EC2 reports stays as drawn (an interruptible reservation
exists whatever the line: v1.9 reads it as any other).
"""

from __future__ import annotations

import copy

from tests.oracle import lines, schema_gen


#: Catalog types the line's AWS provider has no VPC limits for (aws/karpenter-provider-aws v1.9.3
#: pkg/providers/instancetype/zz_generated.vpclimits.go predates the G7 and G7e families): the harness reads a
#: type's network cards and addresses from that table, so the line's cases leave them out.
_NO_VPC_LIMITS: dict[str, frozenset[str]] = {
    "1.9": frozenset(f"{family}.{size}" for family in ("g7", "g7e")
                     for size in ("2xlarge", "4xlarge", "8xlarge", "12xlarge", "24xlarge", "48xlarge")),
}


def for_line(case: dict) -> dict:
    """``case`` as the current line's API server and chart would hold it (the case itself for the v1.14 line)."""
    line = lines.current()
    if line.line == "1.14":
        return case
    out = copy.deepcopy(case)
    paths = schema_gen.leaf_paths("EC2NodeClass")
    for field, path in (("network_interfaces", "spec.networkInterfaces"), ("connection_tracking", "spec.connectionTracking")):
        if out.get(field) is not None and not any(p == path or p.startswith((path + ".", path + "[")) for p in paths):
            out[field] = None  # the line's API server prunes it
    pools = []
    for pool in out["nodepools"]:
        if not schema_gen.admitted(pool):
            spec = pool["spec"]["template"]["spec"]
            spec["requirements"] = [r for r in spec.get("requirements", [])
                                    if schema_gen.admitted(_with_requirements(pool, [r]))]
        pools.append(pool)
    out["nodepools"] = pools
    unknown = _NO_VPC_LIMITS.get(line.line, frozenset())
    if unknown:  # the harness builds a type's EC2 network facts from the line's provider table (schedInfo)
        out["instance_types"] = [t for t in out["instance_types"] if t["name"] not in unknown]
        if not out["instance_types"]:  # a case needs a type: one the line knows, in every zone
            from tests.oracle.scheduler_family import _catalog_entries, _instance_spec
            out["instance_types"] = [_instance_spec(_catalog_entries()["g6.xlarge"], [z["name"] for z in out["zones"]])]
        if "capacity_reservations" in out:
            out["capacity_reservations"] = [r for r in out["capacity_reservations"] if r["instanceType"] not in unknown]
        if "existing_nodes" in out:
            out["existing_nodes"] = [e for e in out["existing_nodes"] if e["instance_type"] not in unknown]
    settings = out.get("settings")
    if settings:
        known = {gate.value for gate in line.gates}
        settings["feature_gates"] = {g: on for g, on in settings["feature_gates"].items() if g in known}
    return out


def _with_requirements(pool: dict, requirements: list[dict]) -> dict:
    trial = copy.deepcopy(pool)
    trial["spec"]["template"]["spec"]["requirements"] = requirements
    return trial


__all__ = ["for_line"]
