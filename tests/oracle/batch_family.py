"""The ``batch`` oracle family: where Karpenter's provisioning scheduler puts a batch of pending pods at once.

Go side (``batch.go``): Karpenter v1.14.1's ``NewTopology`` + ``NewScheduler`` + ``Solve`` on all the case's pods,
with the scheduler family's instance types, EC2NodeClass, NodePools, DaemonSets, controller settings and launch
(``scheduler.go``); existing nodes are launched NodeClaims carrying their NodePool's taints and the type's capacity
and allocatable, so pods may land on them. Go picks among equal topology domains, and orders equal in-flight
NodeClaims, by map iteration and ``sort.Slice``: one case has several answers Karpenter gives. So the case carries
the core's answer (``expect``) and Go solves it until one of its answers equals the core's (up to a renaming of
identical pods and of zones) or ``runs`` solves are spent, returning that answer, else the one answer every solve
gave (``{"answers": [...], "solves": n}``, pods named by their class), or ``varied`` when the solves gave several,
none the core's (unverified: counted apart). The core agrees when its answer is one of them. Most cases stop after
one solve, and the cases whose answer varies are checked (they were all left out before). A fresh case whose
``runs`` solves gave one answer, not the core's, is solved up to ``RECHECK_RUNS`` more times before it counts as a
disagreement (``tally`` says how many found the core's answer only then).

Case: the scheduler family's case (see ``scheduler_family``) with ``pods`` (v1 Pods after EKS admission, replica
groups sharing labels) in place of ``pod``, ``runs``, ``classes`` (pod -> class) and ``expect``.

Python side: :func:`karpenter_gpu.analysis.batch.schedule_batch` on the same manifests, catalog, AWS facts, existing
nodes and settings as the scheduler family builds them. Compared: the NodeClaims (pool and pods, as a sorted list of
``pool: pods``), each NodeClaim's options, launched capacity type, launch zones and type (any type at the launch's
price agrees), the pods existing nodes take, and each Pending pod's error heads (sorted). A plan the core does not
model (``not_modelled``) abstains and is counted apart (Go solves it once, to show the case is one it reads).
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
from typing import Any, Iterator

from karpenter_gpu.analysis.batch import schedule_batch
from karpenter_gpu.k8s.aws_facts import aws_facts_from_documents
from karpenter_gpu.k8s.cluster_nodes import cluster_nodes
from tests.oracle import scheduler_family as sched

FAMILY = "batch"
_ZONE, _HOST, _CT = "topology.kubernetes.io/zone", "kubernetes.io/hostname", "karpenter.sh/capacity-type"
_KEYS = (_ZONE, _ZONE, _HOST, _HOST, _CT)
#: Solves at most per fresh case: Go stops at the first answer equal to the core's (most cases take one solve; a
#: case Karpenter answers in many ways, by the order it meets equal pods and domains, may take hundreds).
RUNS = 400
#: Solves at most per vector case (run.py sets it): as fresh ones. A vector records the answer of Karpenter's equal to
#: the core's when one was found (so a rebuild is byte-identical), and carries the core's answer it stopped at.
VECTOR_RUNS = RUNS
#: Solves at most when a fresh case's RUNS solves gave one answer, not the core's (run.py ``check``): Karpenter
#: answers some cases the core's way a few times in a thousand (batch-3333-6977: 0 of 400, then found), so the case
#: counts as a disagreement only when these solves do not find the core's answer either.
RECHECK_RUNS = 4000


def _spread(rng: random.Random, app: str, other: str) -> dict:
    when = rng.choice(("DoNotSchedule", "DoNotSchedule", "ScheduleAnyway"))
    tsc: dict[str, Any] = {"maxSkew": rng.choice((1, 1, 1, 2)), "topologyKey": rng.choice(_KEYS),
                           "whenUnsatisfiable": when,
                           "labelSelector": {"matchLabels": {"app": app if rng.random() < 0.85 else other}}}
    if when == "DoNotSchedule" and rng.random() < 0.2:
        tsc["minDomains"] = rng.choice((1, 2, 3, 5))
    if rng.random() < 0.2:
        tsc["nodeAffinityPolicy"] = rng.choice(("Honor", "Ignore"))
    if rng.random() < 0.2:
        tsc["nodeTaintsPolicy"] = rng.choice(("Honor", "Ignore"))
    if rng.random() < 0.1:
        tsc["matchLabelKeys"] = [rng.choice(("tier", "app", "absent"))]
    return tsc


def _pod_affinity(rng: random.Random, app: str, other: str) -> dict:
    kind = rng.choice(("podAffinity", "podAntiAffinity", "podAntiAffinity"))
    term = {"topologyKey": rng.choice(_KEYS),
            "labelSelector": {"matchLabels": {"app": app if rng.random() < 0.7 else other}}}
    if rng.random() < 0.6:
        return {kind: {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    return {kind: {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": rng.randint(1, 100),
                                                                        "podAffinityTerm": term}]}}


def _node_affinity(rng: random.Random, zones: list[str], types: list[dict]) -> dict:
    def expr() -> dict:
        return rng.choice((
            {"key": _ZONE, "operator": "In", "values": rng.sample(zones, rng.randint(1, len(zones)))},
            {"key": _CT, "operator": "In", "values": [rng.choice(("spot", "on-demand"))]},
            {"key": sched._AWS + "instance-family", "operator": "In",
             "values": [rng.choice(types)["labels"][sched._AWS + "instance-family"]]},
        ))
    out: dict[str, Any] = {}
    if rng.random() < 0.6:
        out["requiredDuringSchedulingIgnoredDuringExecution"] = {
            "nodeSelectorTerms": [{"matchExpressions": [expr()]} for _ in range(rng.choice((1, 1, 2)))]}
    if rng.random() < 0.5:
        weights = rng.sample(range(1, 100), rng.choice((1, 2)))
        out["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": w, "preference": {"matchExpressions": [expr()]}} for w in weights]
    return {"nodeAffinity": out} if out else {}


def _requests(rng: random.Random, entry: dict, gpu: str | None) -> dict[str, str]:
    """Requests of one replica: a share of one type's allocatable (so several pack on a node), or at its edges."""
    if rng.random() < 0.25:
        return sched._resources(rng, entry, gpu)
    out = {"cpu": rng.choice(("250m", "500m", "1", "2", "3", "7")), "memory": rng.choice(("512Mi", "1Gi", "4Gi",
                                                                                            "8Gi", "30Gi"))}
    if gpu is not None:
        out[gpu] = str(rng.choice((1, 1, 1, 2, 4)))
    return out


def _group(rng: random.Random, index: int, groups: int, entries: list[dict], pools: list[dict],
           zones: list[str]) -> list[dict]:
    """One replica group: 1-6 pods sharing labels, requests, tolerations and constraints."""
    app, other = f"g{index}", f"g{rng.randrange(groups)}"
    target = rng.choice(entries)
    alloc = target["allocatable"]
    gpu = sched._GPU if sched._GPU in alloc else sched._NEURON if sched._NEURON in alloc else None
    spec: dict[str, Any] = {"containers": [{"name": "main", "image": "example.com/app:1",
                                            "resources": {"requests": _requests(rng, target, None if gpu is None or
                                                                                rng.random() < 0.15 else gpu)}}]}
    if rng.random() < 0.15:
        spec["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": rng.choice((8080, 9090)),
                                           "protocol": "TCP"}]
    tolerations = []
    for pool in pools:
        for taint in pool["spec"]["template"]["spec"].get("taints", []):
            if taint["key"] not in (sched._GPU, sched._NEURON) and rng.random() < 0.7:
                tol = {"key": taint["key"], "operator": "Exists", "effect": taint["effect"]}
                if tol not in tolerations:
                    tolerations.append(tol)
    for resource in sorted(r for r in sched._requested(spec) if sched._extended(r)):
        tolerations.append({"key": resource, "operator": "Exists", "effect": "NoSchedule"})
    if tolerations:
        spec["tolerations"] = tolerations
    if rng.random() < 0.45:
        spec["topologySpreadConstraints"] = [_spread(rng, app, other) for _ in range(rng.choice((1, 1, 2)))]
    affinity: dict[str, Any] = {}
    if rng.random() < 0.3:
        affinity.update(_pod_affinity(rng, app, other))
    if rng.random() < 0.25:
        affinity.update(_node_affinity(rng, zones, entries))
    if affinity:
        spec["affinity"] = affinity
    if rng.random() < 0.15:
        spec["nodeSelector"] = rng.choice(({_ZONE: rng.choice(zones)}, {_CT: rng.choice(("spot", "on-demand"))},
                                           {"karpenter.sh/nodepool": rng.choice(pools)["metadata"]["name"]}))
    namespace = "default" if rng.random() < 0.8 else "ml"
    labels = {"app": app, **({"tier": "web"} if rng.random() < 0.3 else {})}
    return [{"apiVersion": "v1", "kind": "Pod",
             "metadata": {"name": f"{app}-{i}", "namespace": namespace, "labels": dict(labels)},
             "spec": copy.deepcopy(spec)} for i in range(rng.randint(1, 6))]


def generate_case(rng: random.Random) -> dict:
    """A batch case: the scheduler family's cluster (types, zones, prices, pools with limits, DaemonSets, settings,
    existing nodes, reservations now and then) and 1-4 replica groups."""
    zones = [z for z in sched._ZONES if rng.random() < 0.8] or [sched._ZONES[0]]
    zone_names = [z[0] for z in zones]
    entries = sched._pick_types(rng)
    specs = [sched._instance_spec(e, zone_names if rng.random() < 0.8 else
                                  sorted(rng.sample(zone_names, rng.randint(1, len(zone_names))))) for e in entries]
    factors = dict.fromkeys(zone_names, 1.0) if rng.random() < 0.4 else \
        {z: rng.choice(sched._SPOT_FACTORS) for z in zone_names}
    pools = [sched._nodepool(rng, name, entries, zone_names)
             for name in sorted(rng.sample(sched._NAMES, rng.choice((1, 2, 2, 3))))]
    reservations = []
    if rng.random() < 0.08:
        entry = rng.choice(entries)
        reservations.append({"id": f"cr-{1:017x}", "instanceType": entry["name"],
                             "availabilityZone": rng.choice(zone_names), "reservationType": "default",
                             "count": rng.choice((1, 2)), "interruptible": False})
    existing = [{"nodepool": rng.choice(pools)["metadata"]["name"], "instance_type": rng.choice(entries)["name"],
                 "zone": rng.choice(zone_names), "capacity_type": rng.choice(("on-demand", "spot"))}
                for _ in range(rng.choice((0, 0, 0, 1, 2)))]
    groups = rng.choice((1, 1, 2, 2, 3, 4))
    pods = [p for g in range(groups) for p in _group(rng, g, groups, entries, pools, zone_names)]
    settings = sched.controller_settings(random.Random(rng.random()))
    return {"region": "us-east-1", "zones": [{"name": n, "id": i} for n, i in zones], "instance_types": specs,
            "spot_price_factor": factors, "kubelet": sched._kubelet(rng), "capacity_reservations": reservations,
            "nodepools": pools, "daemonsets": [sched._daemonset(rng, i, pools) for i in range(rng.choice((0, 0, 1)))],
            "existing_nodes": existing, "pods": pods, "settings": settings, "runs": RUNS,
            "block_device_mappings": None, "instance_store_policy": None, "network_interfaces": None,
            "connection_tracking": None}


def oracle_case(rng: random.Random) -> dict:
    """A generated case carrying the core's answer (Go stops solving at it); one solve when the core abstains."""
    return with_expect(generate_case(rng))


def with_expect(case: dict) -> dict:
    """``case`` with its pods' classes and the core's answer in them as ``expect`` (none when the core raises or
    abstains: then Go solves it once)."""
    case = {k: v for k, v in case.items() if k not in ("expect", "classes")}
    names = classes(case)
    try:
        py = python_answer(case)
    except Exception:  # noqa: BLE001 - core_differences reports it
        return {**case, "classes": names, "expect": None, "runs": 1}
    if "not_modelled" in py:
        return {**case, "classes": names, "expect": None, "runs": 1}
    return {**case, "classes": names, "expect": canonical(py, names), "runs": RUNS}


def classes(case: dict) -> dict[str, str]:
    """Each pod's class: the ``namespace/name`` of the first pod identical to it but for the name. Karpenter queues
    identical pods in an order ``sort.Slice`` leaves open, so answers are compared up to a renaming of them."""
    first: dict[str, str] = {}
    out = {}
    for pod in case["pods"]:
        meta = pod.get("metadata") or {}
        key = f"{meta.get('namespace') or 'default'}/{meta.get('name')}"
        shape = json.dumps([meta.get("namespace") or "default", meta.get("labels"), pod.get("spec")], sort_keys=True)
        out[key] = first.setdefault(shape, key)
    return out


def _claim_key(claim: dict, capacity_type: str | None) -> str:
    """Where a NodeClaim sorts in an answer (as batch.go's batchCanonical sorts): by its pods, pool, options and
    launched capacity type, so NodeClaims alike but for the capacity type compare as a set, whichever Karpenter made
    first (zones are compared up to a renaming, so they do not sort)."""
    return "\x00".join((",".join(claim["pods"]), claim["nodepool"], ",".join(claim["instance_types"]),
                         capacity_type or ""))


def canonical(answer: dict, names: dict[str, str]) -> dict:
    """An answer (the core's, in Go's terms) with each pod named by its class, as batch.go's batchCanonical."""
    def named(pods: list[str]) -> list[str]:
        return sorted(names.get(p, p) for p in pods)

    claims = [{**c, "pods": named(c["pods"])} for c in answer["nodeclaims"]]
    claims.sort(key=lambda c: _claim_key(c, c.get("capacity_type")))
    return {"nodeclaims": claims, "existing": {node: named(pods) for node, pods in answer["existing"].items()},
            "pending": sorted(f"{names.get(pod, pod)}: {'; '.join(parts)}" for pod, parts in answer["pending"].items())}


# ---------------------------------------------------------------------------------------------
# The core's answer


def python_answer(case: dict) -> dict:
    """The core's plan of the case, in the Go answer's terms (the same case is answered once per process: a run asks
    for it to send it, to compare and to count it)."""
    text = json.dumps({k: v for k, v in case.items() if k not in ("expect", "runs", "classes")}, sort_keys=True)
    key = hashlib.sha256(text.encode()).hexdigest()
    if key not in _ANSWERS:
        if len(_ANSWERS) >= 200_000:
            _ANSWERS.clear()
        _ANSWERS[key] = _answer_of(json.loads(text))
    return _ANSWERS[key]


#: The core's answers by the digest of the case they answer (a run's cases are answered once each).
_ANSWERS: dict[str, dict] = {}


def _answer_of(case: dict) -> dict:
    plan = schedule_batch(sched.manifests(case), case["pods"], catalog=sched._case_catalog(case),
                          aws=aws_facts_from_documents(sched.aws_documents(case)),
                          nodes=cluster_nodes(sched.node_claims(case)), settings=sched.case_settings(case))
    if plan.not_modelled:
        return {"not_modelled": list(plan.not_modelled)}
    return {
        "nodeclaims": sorted(({"nodepool": c.pool, "pods": sorted(c.pods), "instance_types": list(c.options),
                               "instance_type": c.instance_type, "capacity_type": c.capacity_type,
                               "launch_zones": list(c.zones)} for c in plan.nodeclaims),
                             key=lambda c: ",".join(c["pods"])),
        "existing": {u.node: sorted(u.pods) for u in plan.existing},
        "pending": {p.pod: sorted(p.parts) for p in plan.pending},
    }


def core_differences(case: dict, go: Any) -> list[str]:
    """Where the core's plan differs from every answer Karpenter gave (empty: one of them is the core's, the core
    abstains, or Karpenter answered in several ways none the core's: ``varied``, unverified, counted by ``tally``)."""
    try:
        py = python_answer(case)
    except Exception as exc:  # noqa: BLE001 - any failure of the core on a case is a disagreement
        return [f"core raised {type(exc).__name__}: {exc}"]
    if "not_modelled" in py or (isinstance(go, dict) and go.get("varied")):
        return []
    answers = go.get("answers") if isinstance(go, dict) else None
    if not answers:
        return [f"Karpenter gave no answer: {go!r}"]
    mine = canonical(py, case.get("classes") or classes(case))
    found = [_differences(mine, one) for one in answers]
    if any(not f for f in found):
        return []
    head = f"none of the {len(answers)} answers Karpenter gave in {go.get('solves')} solves is the core's; the first:"
    return [head, *found[0]]


def _differences(py: dict, go: dict) -> list[str]:
    """Where two answers in classes differ."""
    out = []
    go_claims = sorted(go.get("nodeclaims") or [], key=lambda c: _claim_key(c, (c.get("launch") or {}).get(
        "capacity_type")))
    shape = [f"{c['nodepool']}: {' '.join(c['pods'])}" for c in go_claims]
    ours = [f"{c['nodepool']}: {' '.join(c['pods'])}" for c in py["nodeclaims"]]
    if shape != ours:
        out.append(f"nodeclaims: core {ours}, Karpenter {shape}")
    else:
        renaming: dict[str, str] = {}
        for g, p in zip(go_claims, py["nodeclaims"]):
            launch = g.get("launch") or {}
            where = f"nodeclaim {' '.join(g['pods'])}"
            if g["instance_types"] != p["instance_types"]:
                out.append(f"{where} options: core {p['instance_types']}, Karpenter {g['instance_types']}")
            if launch.get("capacity_type") != p["capacity_type"]:
                out.append(f"{where} capacity type: core {p['capacity_type']}, Karpenter {launch.get('capacity_type')}")
            if p["instance_type"] not in (g.get("launch_cheapest_types") or [None]):
                out.append(f"{where} launch: core {p['instance_type']}, Karpenter {g.get('launch_cheapest_types')}")
            if not _renamed(renaming, p["launch_zones"], g.get("launch_zones") or []):
                out.append(f"{where} zones: core {p['launch_zones']}, Karpenter {g.get('launch_zones')}")
    if (go.get("existing") or {}) != py["existing"]:
        out.append(f"existing: core {py['existing']}, Karpenter {go.get('existing')}")
    if (go.get("pending") or []) != py["pending"]:
        out.append(f"pending: core {py['pending']}, Karpenter {go.get('pending')}")
    return out


def _renamed(renaming: dict[str, str], ours: list[str], theirs: list[str]) -> bool:
    """Whether ``ours`` is ``theirs`` under one renaming of zones kept across the NodeClaims of a case: among
    equally good topology domains Karpenter takes the first its map (or set) iteration yields, an order no plan
    can state, so the zones compare up to a consistent one-to-one renaming."""
    if len(ours) != len(theirs):
        return False
    if len(ours) > 1:
        return ours == theirs
    for a, b in zip(ours, theirs):
        if renaming.get(a, b) != b or (a not in renaming and b in renaming.values()):
            return False
        renaming[a] = b
    return True


def tally(requests: list[dict], answers: list[dict]) -> str:
    """How many cases were compared, how many Karpenter answered in several ways none the core's (unverified), how
    many the core does not model (and the paths it named most)."""
    paths: dict[str, int] = {}
    abstained = 0
    varied = sum(1 for a in answers if isinstance(a.get("answer"), dict) and a["answer"].get("varied"))
    rechecked = sum(1 for a in answers if a.get("rechecked") and isinstance(a.get("answer"), dict)
                    and not a["answer"].get("varied") and not core_differences(
                        next(r["case"] for r in requests if r["id"] == a["id"]), a["answer"]))
    for request in requests:
        try:
            py = python_answer(request["case"])
        except Exception:  # noqa: BLE001 - counted as disagreements by core_differences
            continue
        if "not_modelled" in py:
            abstained += 1
            for path in py["not_modelled"]:
                key = path.split(": ", 1)[-1]
                paths[key] = paths.get(key, 0) + 1
    top = ", ".join(f"{p} ({n})" for p, n in sorted(paths.items(), key=lambda kv: -kv[1])[:6])
    return (f"oracle family batch: {len(requests) - abstained - varied} compared, {varied} answered by Karpenter in "
            f"several ways, none the core's, in {RUNS} solves (unverified), {abstained} not modelled by the core"
            + (f": {top}" if top else "")
            + f"; {rechecked} compared found the core's answer only in up to {RECHECK_RUNS} more solves")


def smaller(case: dict) -> Iterator[dict]:
    """Cases one step smaller: a pod, pool, existing node, DaemonSet or reservation dropped, then the scheduler
    family's steps on the rest."""
    for key in ("pods", "nodepools", "existing_nodes", "daemonsets", "capacity_reservations", "instance_types"):
        items = case.get(key) or []
        for i in range(len(items)):
            if key in ("pods", "nodepools", "instance_types") and len(items) == 1:
                continue
            yield with_expect({**case, key: items[:i] + items[i + 1:]})
    probe = {**case, "pod": case["pods"][0]}
    for small in sched.smaller(probe):
        if small.get("pod") is probe["pod"]:
            yield with_expect({k: v for k, v in small.items() if k != "pod"})
