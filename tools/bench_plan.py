"""Benchmark of the batch scheduler (``karpenter-gpu plan``): the core against Karpenter's own Solve, side by side.

One case per size: P GPU NodePools (one NVIDIA instance family each, the GPU taint, a GPU limit) and N pods in
replica groups of 20 (1 or 2 GPUs each, every third group spread over zones, each group pinned to one pool by
``karpenter.sh/nodepool``, so every pod meets every pool's template: the work grows with pods x pools), three zones,
no reservations. Sizes: 1,000 pods / 50 pools, 2,000 / 100 and 4,000 / 200.

- python  :func:`karpenter_gpu.analysis.batch.schedule_batch` on the case, in a fresh process each round (imports
          untimed; the call itself, caches cold): the pools' simulation, the queue and Solve, the launches;
- process the same fresh process from start to exit (interpreter, imports, reading the case, the call);
- go      the batch oracle (tests/oracle/batch.go) on the same case: the pods' copies, the cluster state,
          NewTopology, NewScheduler and Solve (Karpenter v1.14.1), the instance types built once before (untimed,
          reported apart as go-its); the median of the rounds' solves.

Rounds interleave the two sides, so both see the same load on a shared machine; a ratio is the median of the
rounds' ratios. Targets: python <= 2 s at 2,000 pods / 100 pools and <= 3x Go there; time(2,000/100) /
time(1,000/50) and time(4,000/200) / time(2,000/100) <= 4 (pods x pools grows 4x per step: at most linear).
Needs Go (the oracle is built as ``python -m tests.oracle.run`` builds it); a script, not a test: exit 0.

Usage: python tools/bench_plan.py [--rounds 5] [--sizes 1000x50,2000x100,4000x200] [--json FILE]
"""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.oracle import scheduler_family as sched  # noqa: E402

FAMILIES = ("g4dn", "g5", "g6", "g6e", "g7", "g7e", "p3", "p4d", "p5")
ZONES = sched._ZONES[:3]
GROUP = 20
SIZES = ((1000, 50), (2000, 100), (4000, 200))


def bench_case(pods: int, pools: int) -> dict:
    """The benchmark's case in the batch oracle's format (tests/oracle/batch_family.py)."""
    entries = [e for e in sched._catalog_entries().values()
               if e["labels"].get(sched._AWS + "instance-family") in FAMILIES]
    zone_names = [z for z, _ in ZONES]
    nodepools = []
    for i in range(pools):
        family = FAMILIES[i % len(FAMILIES)]
        nodepools.append({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": f"team-{i:03d}"},
                          "spec": {"limits": {"nvidia.com/gpu": "64"}, "template": {"spec": {
                              "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass",
                                               "name": "default"},
                              "requirements": [{"key": sched._AWS + "instance-family", "operator": "In",
                                                "values": [family]}],
                              "taints": [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]}}}})
    out = []
    for g in range(-(-pods // GROUP)):
        spec: dict[str, Any] = {
            "containers": [{"name": "main", "image": "example.com/app:1", "resources": {"requests": {
                "cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "2" if g % 4 == 3 else "1"}}}],
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
            "nodeSelector": {"karpenter.sh/nodepool": nodepools[g % pools]["metadata"]["name"]}}
        if g % 3 == 0:
            spec["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                                  "whenUnsatisfiable": "DoNotSchedule",
                                                  "labelSelector": {"matchLabels": {"app": f"g{g}"}}}]
        out += [{"apiVersion": "v1", "kind": "Pod",
                 "metadata": {"name": f"g{g}-{i}", "namespace": "default", "labels": {"app": f"g{g}"}},
                 "spec": spec} for i in range(min(GROUP, pods - g * GROUP))]
    return {"region": "us-east-1", "zones": [{"name": n, "id": i} for n, i in ZONES],
            "instance_types": [sched._instance_spec(e, zone_names) for e in entries],
            "spot_price_factor": dict.fromkeys(zone_names, 0.4), "kubelet": None, "capacity_reservations": [],
            "nodepools": nodepools, "daemonsets": [], "existing_nodes": [], "pods": out,
            "settings": {"feature_gates": {g: g == "reservedCapacity" for g in sched._GATES},
                         "min_values_policy": "Strict", "vm_memory_overhead_percent": 0.075, "reserved_enis": 0},
            "runs": 1, "block_device_mappings": None, "instance_store_policy": None, "network_interfaces": None,
            "connection_tracking": None}


def child(path: str) -> None:
    """One fresh process's figure: the imports untimed, then schedule_batch on the case (printed as JSON)."""
    from karpenter_gpu.analysis.batch import schedule_batch
    from karpenter_gpu.k8s.aws_facts import aws_facts_from_documents
    from karpenter_gpu.k8s.cluster_nodes import cluster_nodes

    case = json.loads(Path(path).read_text())
    inputs = (sched.manifests(case), case["pods"])
    kwargs = {"catalog": sched._case_catalog(case), "aws": aws_facts_from_documents(sched.aws_documents(case)),
              "nodes": cluster_nodes(sched.node_claims(case)), "settings": sched.case_settings(case)}
    started = time.perf_counter()
    plan = schedule_batch(*inputs, **kwargs)
    seconds = time.perf_counter() - started
    print(json.dumps({"seconds": seconds, "nodeclaims": len(plan.nodeclaims), "pending": len(plan.pending),
                      "not_modelled": list(plan.not_modelled)}))


def python_round(path: Path) -> tuple[float, float, dict]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, __file__, "--child", str(path)], capture_output=True, text=True,
                          check=True, cwd=ROOT)
    wall = time.perf_counter() - started
    got = json.loads(done.stdout)
    return got["seconds"], wall, got


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5, help="rounds per size (default 5)")
    ap.add_argument("--sizes", default=",".join(f"{p}x{n}" for p, n in SIZES),
                    help="PODSxPOOLS, comma-separated (default 1000x50,2000x100,4000x200)")
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args.child)
        return 0
    if shutil.which("go") is None:
        print("bench_plan: Go is not on PATH; the plan benchmark needs it for Karpenter's side (skipped)")
        return 0
    from tests.oracle.run import Oracle, build

    oracle = Oracle(build())
    rows = []
    try:
        for size in args.sizes.split(","):
            pods, pools = (int(x) for x in size.split("x"))
            case = bench_case(pods, pools)
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "case.json"
                path.write_text(json.dumps(case))
                py, wall, go, its, ratios = [], [], [], [], []
                for _ in range(args.rounds):
                    seconds, whole, got = python_round(path)
                    answer = oracle.one("batch", {**case, "time_solve": True})
                    if answer.get("error"):
                        raise SystemExit(f"bench_plan: Go could not solve the case: {answer['error']}")
                    timing = answer["answer"]
                    py.append(seconds)
                    wall.append(whole)
                    go.append(statistics.median(timing["solve_seconds"]))
                    its.append(timing["prepare_seconds"])
                    ratios.append(seconds / go[-1])
            row = {"pods": pods, "pools": pools, "python": statistics.median(py), "process": statistics.median(wall),
                   "go": statistics.median(go), "go_its": statistics.median(its),
                   "ratio": statistics.median(ratios), "nodeclaims": (got["nodeclaims"], timing["nodeclaims"]),
                   "pending": (got["pending"], timing["pending"]), "not_modelled": got["not_modelled"]}
            rows.append(row)
            print(f"plan {pods:>5} pods / {pools:>3} pools: python {row['python']:.3f} s (fresh process "
                  f"{row['process']:.2f} s), go {row['go']:.3f} s (+ instance types {row['go_its']:.3f} s), "
                  f"python/go {row['ratio']:.2f}x; nodeclaims {row['nodeclaims'][0]} / {row['nodeclaims'][1]}, "
                  f"pending {row['pending'][0]} / {row['pending'][1]}"
                  + (f"; NOT MODELLED: {row['not_modelled']}" if row["not_modelled"] else ""), flush=True)
    finally:
        oracle.close()
    by = {(r["pods"], r["pools"]): r for r in rows}
    for a, b in itertools.pairwise(SIZES):
        if a in by and b in by:
            print(f"scaling {b[0]}/{b[1]} vs {a[0]}/{a[1]} (pods x pools x4): python "
                  f"{by[b]['python'] / by[a]['python']:.2f}x, go {by[b]['go'] / by[a]['go']:.2f}x (target <= 4)")
    if (2000, 100) in by:
        r = by[(2000, 100)]
        print(f"target: python <= 2 s at 2,000 pods / 100 pools: {r['python']:.2f} s "
              f"({'met' if r['python'] <= 2 else 'MISSED'}); within 3x of Go: {r['ratio']:.2f}x "
              f"({'met' if r['ratio'] <= 3 else 'MISSED'})")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
