"""The ``scheduler`` oracle family: where Karpenter's provisioning scheduler puts one pending pod.

Go side (``scheduler.go``): Karpenter v1.14.1's ``NewTopology`` + ``NewScheduler`` + ``Solve`` with a fake
controller-runtime client and a ``state.Cluster`` (as ``scheduling_benchmark_test.go`` runs them), the
provisioner's options (``DisableReservedCapacityFallback``, ``MinValuesPolicy`` Strict) and
``TruncateInstanceTypes(60)``. Instance types are built from the case's catalog entries by the AWS provider
v1.14.1: ``DefaultResolver.Resolve`` → ``NewInstanceType`` (requirements, capacity, kube-reserved, system-reserved,
eviction threshold, ENI-limited max pods from the provider's generated VPC limits table, VM memory overhead 0.075,
AL2023) and ``offering.DefaultProvider.InjectOfferings`` (on-demand and spot offerings per zone, reserved offerings
for the EC2NodeClass's capacity reservations). Built by hand on the Go side: the EC2 ``InstanceTypeInfo`` (vCPU,
memory, GPU / Neuron / inference-accelerator info, EFA, NVMe, EBS bandwidth from the catalog; ENIs and IPv4 per
ENI from the provider's ``Limits`` table), the pricing provider, the capacity-reservation provider (available
counts) and ``getCapacityType`` (unexported in ``pkg/providers/instance/instance.go``; applied after the
provider's exported launch filters ``pkg/providers/instance/filter``). Existing nodes are launched NodeClaims
registered in the cluster state: they count against their NodePool's limits and carry a taint
``oracle.example.com/full=true:NoSchedule`` that no case pod tolerates (they stand for full nodes).

Case (JSON)::

    region: "us-east-1"
    zones: [{name: "us-east-1a", id: "use1-az1"}, ...]          # the EC2NodeClass's subnets, one per zone
    instance_types: [{name, vcpu, memory_mib, arch, cpu_manufacturer, hypervisor ("" on metal),
                      gpu: {name, manufacturer, count, memory_mib} | null,
                      neuron: {name, count, cores_per_device} | null,
                      accelerator: {name, manufacturer, count} | null,   # non-Neuron inference accelerators
                      efa, nvme_gb, ebs_mbps, price (on-demand USD/h) | null,
                      zones: [zone names the type is offered in]}]
    spot_price_factor: {zone: factor}       # spot price = on-demand price x factor (1.0: spot costs on-demand)
    kubelet: EC2NodeClass spec.kubelet (maxPods, podsPerCore, kubeReserved, systemReserved, evictionHard,
             evictionSoft) | null
    capacity_reservations: [{id, instanceType, availabilityZone, reservationType, interruptible, count (available),
                             tags, owner_id}]
    subnets: [{id, zone, zone_id, tags, available_ips}] | absent     # the account's (describe-subnets)
    security_groups: [{id, name, tags}] | absent                    # the account's (describe-security-groups)
    node_class_spec: further EC2NodeClass spec fields, the selector terms among them (scheduler_schema)
    network_interfaces: EC2NodeClass spec.networkInterfaces [{networkCardIndex, deviceIndex, interfaceType}] | null
    connection_tracking: EC2NodeClass spec.connectionTracking | null
    nodepools: [karpenter.sh/v1 NodePool manifests]             # weights, requirements (minValues), taints, limits
    daemonsets: [apps/v1 DaemonSet manifests]                   # requests, tolerations, nodeSelector
    existing_nodes: [{nodepool, instance_type, zone, capacity_type}]
    pod: v1 Pod manifest after EKS admission (ExtendedResourceToleration: a pod requesting nvidia.com/gpu or
         aws.amazon.com/neuron tolerates {key: <resource>, operator: Exists, effect: NoSchedule})

Go answer: ``nodepool`` (null: unschedulable, with ``reason`` class and ``error`` text), ``instance_types`` (the
new NodeClaim's options, sorted), ``cheapest`` ({instance_type, zone, capacity_type, price}: the cheapest available
offering compatible with the NodeClaim), ``cheapest_types`` (every option at that price), ``cheapest_zones`` (the
zones of every offering at that price), ``launch`` (the capacity
type the provider asks EC2 for and the cheapest offering of it), ``launch_types`` / ``launch_zones`` (the types and
zones of that capacity type's offerings CreateFleet is given after the provider's launch filters),
``launch_cheapest_types`` / ``launch_cheapest_zones`` (those at the launch's price) and ``allocatable`` per option.

Python answer: the core's ``simulate_pools`` + ``fit_reports`` + ``first_choice`` on the case's NodePools, their
EC2NodeClass (:func:`node_class`: AL2023, the case's kubelet settings, capacityReservationSelectorTerms naming the
case's reservations) and DaemonSets, with a catalog of the case's types, the case's account facts as the AWS
CLI prints them (:func:`aws_documents`: ``describe-spot-price-history`` with spot = on-demand x the zone's
factor, ``describe-instance-type-offerings`` with each type's zones, ``describe-capacity-reservations`` with the
reservations and their available counts), read by ``aws_facts_from_documents``, and the existing nodes as the
NodeClaim manifests a user would pass (:func:`node_claims`, read by ``cluster_nodes``; their
``status.capacity`` from the core's own capacity model); the options are the chosen pool's ``Fit.options``.

Every input of a case reaches both sides (``make oracle``'s cases are :func:`generate_case`'s draws as they are).
Spot prices per zone, per-zone availability and capacity reservations live in the AWS account; the core reads them
as AWS facts (``explain --aws``, ``diff --aws``), so the oracle checks the offerings the core builds from them
(``offering.DefaultProvider.InjectOfferings``). Existing nodes are an input of the core too
(``simulate_pools(nodes=...)``, ``explain --nodes``). Unpriced types (p5e.48xlarge, dl2q.24xlarge, trn2.48xlarge:
no on-demand price in the catalog, nor in the provider's static price table,
``pkg/providers/pricing/zz_generated.pricing_aws.go``) have no available on-demand or spot offering, as the provider
builds them (``BaseResolver.ResolveOfferings``: ``Available`` requires ``hasPrice``, else a NodeOverlay's price by
instance type, ``GetOverlayPrice``), but reserved offerings from a selected reservation (priced 0). What the core
cannot know is whether a running provider's Pricing API (``UpdateOnDemandPricing``) lists a price the static table
lacks; it follows the static table and says so.

Compared: the pool, the options, what launches (after the provider's launch filters and ``getCapacityType``: the
capacity type, the type set and zones given to CreateFleet, the cheapest type and price among them, and its zone:
any zone of an offering at that price, ``launch_cheapest_zones``: on-demand costs the same in every zone). Left out of the comparison: the spot launch's choice among spot offerings
(EC2's price-capacity-optimized) and the order among equally priced types (``OrderByPrice`` uses ``sort.Slice``; any
type at the cheapest price agrees).
"""

from __future__ import annotations

import copy
import json
import random
from dataclasses import replace
from decimal import Decimal
from functools import cache
from importlib import resources
from typing import Any, Iterator

import yaml

from karpenter_gpu.analysis.catalog import DEFAULT_CATALOG_RESOURCE, Catalog, catalog_from_document
from karpenter_gpu.analysis.node_classes import class_capacity
from karpenter_gpu.analysis.pod_fit import first_choice, fit_reports, unmodelled
from karpenter_gpu.analysis.pod_shape import PodShape
from karpenter_gpu.analysis.simulator import simulate_pools
from karpenter_gpu.k8s.aws_facts import aws_facts_from_documents
from karpenter_gpu.k8s.cluster_nodes import cluster_nodes
from karpenter_gpu.k8s.compatibility import NodeClassCompatibility
from karpenter_gpu.k8s.kubelet import KubeletSettings
from karpenter_gpu.k8s.controller_settings import ControllerSettings, read_settings
from karpenter_gpu.k8s.yaml_loader import load_documents
from karpenter_gpu.k8s.views import NodeClassView
from karpenter_gpu.k8s.units import Quantity
from tests.oracle import lines, schema_gen
from tests.oracle.scheduler_schema import schema_inputs
from tests.oracle.scheduler_line import for_line

FAMILY = "scheduler"

_AWS = "karpenter.k8s.aws/"
_GPU, _NEURON = "nvidia.com/gpu", "aws.amazon.com/neuron"
_ZONES = [("us-east-1a", "use1-az1"), ("us-east-1b", "use1-az2"), ("us-east-1c", "use1-az4"), ("us-east-1d", "use1-az6")]
#: Not in the AWS provider's generated VPC limits table (v1.14.1): the provider cannot build it.
_NO_VPC_LIMITS = frozenset({"trn2.48xlarge"})
_GPU_MAKERS = {"nvidia": "NVIDIA", "amd": "AMD", "habana": "Habana"}
_SPOT_FACTORS = (0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.9)
_NAMES = ("gpu", "inference", "training", "batch", "spot", "reserved")


@cache
def _catalog_entries() -> dict[str, dict]:
    """The packaged catalog's raw entries by name (the same document ``default_catalog`` reads)."""
    text = resources.files("karpenter_gpu").joinpath(DEFAULT_CATALOG_RESOURCE).read_text(encoding="utf-8")
    return {t["name"]: t for t in json.loads(text)["types"]}


def _instance_spec(entry: dict, zones: list[str]) -> dict:
    """What DescribeInstanceTypes says about a catalog entry (the fields NewInstanceType reads)."""
    labels, alloc = entry["labels"], entry["allocatable"]

    def num(key: str) -> int:
        return int(labels.get(_AWS + key, "0"))

    spec: dict[str, Any] = {
        "name": entry["name"], "vcpu": num("instance-cpu"), "memory_mib": num("instance-memory"),
        "arch": labels["kubernetes.io/arch"], "cpu_manufacturer": labels.get(_AWS + "instance-cpu-manufacturer", ""),
        "hypervisor": labels.get(_AWS + "instance-hypervisor", ""), "gpu": None, "neuron": None, "accelerator": None,
        "efa": int(alloc.get("vpc.amazonaws.com/efa", "0")), "nvme_gb": num("instance-local-nvme"),
        "ebs_mbps": num("instance-ebs-bandwidth"), "price": float(entry["price"]) if entry["price"] else None,
        "zones": zones,
    }
    if _AWS + "instance-gpu-name" in labels:
        maker = labels[_AWS + "instance-gpu-manufacturer"]
        spec["gpu"] = {"name": labels[_AWS + "instance-gpu-name"], "manufacturer": _GPU_MAKERS.get(maker, maker),
                       "count": num("instance-gpu-count"), "memory_mib": num("instance-gpu-memory")}
    if _NEURON in alloc:
        devices = int(alloc[_NEURON])
        spec["neuron"] = {"name": labels[_AWS + "instance-accelerator-name"], "count": devices,
                          "cores_per_device": int(alloc.get("aws.amazon.com/neuroncore", "0")) // max(devices, 1)}
    elif _AWS + "instance-accelerator-name" in labels:
        spec["accelerator"] = {"name": labels[_AWS + "instance-accelerator-name"],
                               "manufacturer": labels[_AWS + "instance-accelerator-manufacturer"],
                               "count": num("instance-accelerator-count")}
    return spec


# ---------------------------------------------------------------------------------------------
# Generation


def _mib(amount: Decimal) -> str:
    return f"{int(amount // 2**20)}Mi"


def _near(rng: random.Random, value: int, spread: int) -> int:
    """A value at, just under or just over ``value`` (edges of instance sizes)."""
    return max(0, value + rng.choice((0, 0, -1, 1, -spread, spread)))


def _pick_types(rng: random.Random) -> list[dict]:
    entries = [e for name, e in sorted(_catalog_entries().items()) if name not in _NO_VPC_LIMITS]
    if rng.random() < 0.6:  # one or two families: sizes next to each other
        families = sorted({e["labels"][_AWS + "instance-family"] for e in entries})
        chosen = set(rng.sample(families, rng.choice((1, 1, 2))))
        picked = [e for e in entries if e["labels"][_AWS + "instance-family"] in chosen]
    else:
        picked = rng.sample(entries, rng.randint(2, 8))
    return picked[:12]


def _requirements(rng: random.Random, types: list[dict], zones: list[str]) -> list[dict]:
    reqs: list[dict] = []
    if rng.random() < 0.85:
        reqs.append({"key": "karpenter.sh/capacity-type", "operator": "In",
                     "values": rng.sample(["on-demand", "spot", "reserved"], rng.randint(1, 3))})
    names = sorted(t["name"] for t in types)
    families = sorted({t["labels"][_AWS + "instance-family"] for t in types})
    roll = rng.random()
    if roll < 0.3:
        reqs.append({"key": _AWS + "instance-family", "operator": "In",
                     "values": rng.sample(families, rng.randint(1, len(families)))})
    elif roll < 0.5:
        reqs.append({"key": "node.kubernetes.io/instance-type", "operator": "In",
                     "values": rng.sample(names, rng.randint(1, len(names)))})
    elif roll < 0.65:
        reqs.append({"key": _AWS + "instance-gpu-count", "operator": "Gt", "values": [str(rng.choice((0, 1, 3)))]})
    elif roll < 0.75:
        reqs.append({"key": _AWS + "instance-cpu", "operator": rng.choice(("Gt", "Lt")),
                     "values": [str(rng.choice((4, 8, 16, 32, 48)))]})
    if rng.random() < 0.25:
        reqs.append({"key": "topology.kubernetes.io/zone", "operator": "In",
                     "values": rng.sample(zones, rng.randint(1, len(zones)))})
    if rng.random() < 0.15:
        reqs.append({"key": "kubernetes.io/arch", "operator": "In", "values": [rng.choice(("amd64", "arm64"))]})
    if rng.random() < 0.2:
        key = rng.choice(("node.kubernetes.io/instance-type", _AWS + "instance-family"))
        present = next((r for r in reqs if r["key"] == key), None)
        if present is None:
            present = {"key": key, "operator": "Exists"}
            reqs.append(present)
        # CRD: with In, minValues is at most the number of values
        present["minValues"] = rng.randint(1, len(present["values"]) if present["operator"] == "In" else 4)
    return reqs


def _limits(rng: random.Random, types: list[dict]) -> dict[str, str]:
    """Limits at and around the capacity of one of the types (or a few of them)."""
    if rng.random() < 0.3:
        return {}
    spec = _instance_spec(rng.choice(types), [])
    n = rng.choice((1, 1, 2, 3))
    out: dict[str, str] = {}
    for resource in rng.sample(["cpu", "memory", _GPU, _NEURON, "pods", "nodes"], rng.randint(1, 2)):
        if resource == "cpu":
            out["cpu"] = str(_near(rng, n * spec["vcpu"], 1))
        elif resource == "memory":
            raw = n * spec["memory_mib"]
            overhead = -(-(raw * 75) // 1000)  # VM overhead 0.075 (upper bound, MiB)
            out["memory"] = f"{rng.choice((raw, raw - overhead, raw - overhead - 1, raw + 1, raw // 2))}Mi"
        elif resource == _GPU:
            out[_GPU] = str(_near(rng, n * (spec["gpu"] or {}).get("count", 1), 1))
        elif resource == _NEURON:
            out[_NEURON] = str(_near(rng, n * (spec["neuron"] or {}).get("count", 1), 1))
        elif resource == "pods":
            out["pods"] = str(rng.choice((10, 58, 110, 234, 737, 1000)))
        else:
            out["nodes"] = str(rng.choice((0, 1, 2, 10)))
    return out


def _taints(rng: random.Random) -> list[dict]:
    taints = []
    if rng.random() < 0.5:
        taints.append({"key": _GPU, "value": "true", "effect": "NoSchedule"})
    if rng.random() < 0.15:
        taints.append({"key": _NEURON, "effect": "NoSchedule"})
    if rng.random() < 0.2:
        taints.append({"key": "dedicated", "value": rng.choice(("training", "inference")), "effect": "NoSchedule"})
    if rng.random() < 0.05:
        taints.append({"key": "example.com/soft", "effect": "PreferNoSchedule"})
    return taints


def _nodepool(rng: random.Random, name: str, types: list[dict], zones: list[str]) -> dict:
    spec: dict[str, Any] = {
        "template": {"spec": {
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
            "requirements": _requirements(rng, types, zones),
        }},
    }
    taints = _taints(rng)
    if taints:
        spec["template"]["spec"]["taints"] = taints
    if rng.random() < 0.6:
        spec["weight"] = rng.choice((1, 10, 10, 50, 100))
    limits = _limits(rng, types)
    if limits:
        spec["limits"] = limits
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name}, "spec": spec}


def _resources(rng: random.Random, entry: dict, gpu_resource: str | None) -> dict[str, str]:
    """Pod requests at and around one type's allocatable (or small)."""
    alloc = entry["allocatable"]
    cpu_m = int(Quantity.parse(alloc["cpu"]).as_decimal() * 1000)
    mem = Quantity.parse(alloc["memory"]).as_decimal()
    out: dict[str, str] = {}
    roll = rng.random()
    if roll < 0.35:
        out["cpu"] = f"{rng.choice((cpu_m, cpu_m - 1, cpu_m + 1, cpu_m - 100, cpu_m - 300))}m"
    elif roll < 0.8:
        out["cpu"] = rng.choice(("500m", "1", "2", "4", "8"))
    roll = rng.random()
    if roll < 0.35:
        out["memory"] = rng.choice((_mib(mem), _mib(mem - 2**20), _mib(mem + 2**20), _mib(mem - 300 * 2**20),
                                    _mib(mem - 1024 * 2**20)))
    elif roll < 0.8:
        out["memory"] = rng.choice(("1Gi", "4Gi", "16Gi", "30Gi"))
    if gpu_resource is not None:
        have = int(alloc.get(gpu_resource, "1"))
        out[gpu_resource] = str(max(1, rng.choice((1, 1, have, have + 1, max(1, have // 2)))))
    return out


#: Other resources a pod may ask for: EFA, ephemeral storage, huge pages, MIG devices, extended resources no type has,
#: other accelerators, with amounts in Kubernetes' units (zero included); pod ENIs (whose capacity the core does not
#: model) now and then.
_STORAGE = ("0", "1Gi", "10Gi", "16Gi", "17Gi", "17409Mi", "18253611008", "18253611009", "18G", "20Gi", "40Gi",
            "45G", "90Gi", "100G", "180Gi", "500Gi", "1Ti", "2T", "10T")
_OTHER = (("vpc.amazonaws.com/efa", ("0", "1", "2", "4", "32", "33")), ("ephemeral-storage", _STORAGE),
          ("hugepages-2Mi", ("0", "2Mi", "1Gi")), ("hugepages-1Gi", ("0", "1Gi")),
          ("nvidia.com/mig-1g.10gb", ("0", "1")), ("example.com/foo", ("0", "1", "3")),
          ("amd.com/gpu", ("0", "1")), ("habana.ai/gaudi", ("0", "1")), ("aws.amazon.com/neuroncore", ("0", "2")))


def _other_resources(rng: random.Random, target: dict) -> dict[str, str]:
    """A few other resources (:data:`_OTHER`), some at and around what ``target`` has (EFA, RAID0 storage)."""
    out: dict[str, str] = {}
    if rng.random() < 0.65:
        return out
    picked = rng.sample(_OTHER, rng.choice((1, 1, 1, 2, 3)))
    if rng.random() < 0.5:  # ephemeral storage alone, most often: every node class and type gives some
        picked = [_OTHER[1]]
    for name, amounts in picked:
        choices = list(amounts)
        if name != "ephemeral-storage" and rng.random() < 0.75:
            choices = ["0"]  # named, nothing asked: fits a type without the resource
        elif name == "ephemeral-storage" and rng.random() < 0.5:
            choices = ["0", "1Gi", "10Gi", "16Gi", "17Gi", "18253611008"]  # within the default root volume
        if name == "vpc.amazonaws.com/efa":
            have = int(target["allocatable"].get(name, "0"))
            choices += [str(have), str(have + 1), str(max(have - 1, 0))]
        elif name == "ephemeral-storage" and target["labels"].get(_AWS + "instance-local-nvme"):
            nvme = int(target["labels"][_AWS + "instance-local-nvme"])
            choices += [f"{nvme * 9 // 10}G", f"{nvme * 9 // 10 - 2}G", f"{nvme}G"]
        out[name] = rng.choice(choices)
    if rng.random() < 0.08:
        out["vpc.amazonaws.com/pod-eni"] = "1"
    return out


def _offshoot(rng: random.Random, salt: int) -> random.Random:
    """A generator seeded from ``rng``'s state without drawing from it: the draws of ``rng`` stay as they were."""
    state = rng.getstate()[1]
    return random.Random(sum(state[:16]) * 1_000_003 + state[-1] * 7 + salt)


def _extended(name: str) -> bool:
    """``IsExtendedResourceName``: what EKS's ExtendedResourceToleration adds a toleration for."""
    return "/" in name and "kubernetes.io/" not in name and not name.startswith("requests.")


def _containers(rng: random.Random, requests: dict[str, str], other: dict[str, str]) -> dict[str, Any]:
    """The pod's containers: ``requests`` in the main container, ``other`` spread over it, a second container, an
    init container or a sidecar, and the pod's overhead, each amount as a request or as a limit alone (the API
    server copies a limit into a missing request; an extended resource's request equals its limit)."""
    main: dict[str, Any] = {"name": "main", "image": "example.com/app:1", "resources": {"requests": dict(requests)}}
    spec: dict[str, Any] = {"containers": [main]}
    for name, amount in other.items():
        where = rng.random()
        part = main
        if 0.5 <= where < 0.65:
            part = {"name": f"helper-{len(spec['containers'])}", "image": "example.com/helper:1", "resources": {}}
            spec["containers"].append(part)
        elif 0.65 <= where < 0.85:
            part = {"name": f"init-{len(spec.get('initContainers', []))}", "image": "example.com/init:1",
                    "resources": {}}
            if rng.random() < 0.4:
                part["restartPolicy"] = "Always"
            spec.setdefault("initContainers", []).append(part)
        elif where >= 0.85 and not _extended(name):
            spec.setdefault("overhead", {})[name] = amount
            continue
        limit_only = rng.random() < 0.3 and not name.startswith("hugepages-")
        part["resources"].setdefault("limits" if limit_only else "requests", {})[name] = amount
    if rng.random() < 0.05:
        spec["resources"] = {"requests": {"cpu": rng.choice(("1", "2", "64")), "memory": rng.choice(("1Gi", "64Gi"))}}
    return spec


def _requested(spec: dict[str, Any]) -> set[str]:
    """The resource names the pod's containers and init containers ask for (a limit included)."""
    return {name for part in ("containers", "initContainers") for c in spec.get(part, [])
            for kind in ("requests", "limits") for name in c.get("resources", {}).get(kind, {})}


def _pod(rng: random.Random, types: list[dict], pools: list[dict], zones: list[str]) -> dict:
    target = rng.choice(types)
    alloc = target["allocatable"]
    gpu_resource = _GPU if _GPU in alloc else _NEURON if _NEURON in alloc else None
    if gpu_resource is not None and rng.random() < 0.1:
        gpu_resource = None
    requests = _resources(rng, target, gpu_resource)
    extra = _offshoot(rng, 1)  # the pod's other resources draw from a generator of their own
    other = {k: v for k, v in _other_resources(extra, target).items() if k not in requests}
    spec: dict[str, Any] = _containers(extra, requests, other)
    tolerations: list[dict] = []
    for pool in pools:
        for taint in pool["spec"]["template"]["spec"].get("taints", []):
            if taint["key"] not in (_GPU, _NEURON) and rng.random() < 0.75:
                tol = {"key": taint["key"], "operator": "Equal" if "value" in taint else "Exists",
                       "effect": taint["effect"]}
                if "value" in taint:
                    tol["value"] = taint["value"]
                if tol not in tolerations:
                    tolerations.append(tol)
    # EKS admission (ExtendedResourceToleration): a pod requesting an extended resource tolerates its taint.
    for resource in sorted(r for r in _requested(spec) if _extended(r)):
        tolerations.append({"key": resource, "operator": "Exists", "effect": "NoSchedule"})
    if tolerations:
        spec["tolerations"] = tolerations
    selector: dict[str, str] = {}
    roll = rng.random()
    if roll < 0.15:
        selector["karpenter.sh/nodepool"] = rng.choice(pools)["metadata"]["name"]
    elif roll < 0.25:
        selector["node.kubernetes.io/instance-type"] = rng.choice(types)["name"]
    elif roll < 0.35:
        selector["karpenter.sh/capacity-type"] = rng.choice(("spot", "on-demand", "reserved"))
    elif roll < 0.4:
        selector["topology.kubernetes.io/zone"] = rng.choice(zones)
    if selector:
        spec["nodeSelector"] = selector
    if rng.random() < 0.2:
        expr = rng.choice((
            {"key": _AWS + "instance-gpu-memory", "operator": "Gt", "values": [str(rng.choice((16000, 24000, 40000)))]},
            {"key": _AWS + "instance-family", "operator": "NotIn",
             "values": [rng.choice(types)["labels"][_AWS + "instance-family"]]},
            {"key": "karpenter.sh/capacity-type", "operator": "NotIn", "values": ["spot"]},
            {"key": "topology.kubernetes.io/zone", "operator": "In", "values": [rng.choice(zones)]},
        ))
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [expr]}]}}}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "pod", "namespace": "default"}, "spec": spec}


#: Node affinity of a DaemonSet on labels an instance type carries (and a NodePool template seldom narrows).
_DAEMON_TYPE_TERMS = (
    {"key": _AWS + "instance-gpu-count", "operator": "Gt", "values": ["1"]},
    {"key": _AWS + "instance-gpu-manufacturer", "operator": "In", "values": ["nvidia"]},
    {"key": _AWS + "instance-family", "operator": "NotIn", "values": ["g5", "g6"]},
    {"key": "kubernetes.io/arch", "operator": "In", "values": ["arm64"]},
    {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g6.xlarge", "g5.2xlarge", "p4d.24xlarge"]},
    {"key": _AWS + "instance-memory", "operator": "Lt", "values": ["65537"]},
)


def _daemonset(rng: random.Random, index: int, pools: list[dict]) -> dict:
    requests = {"cpu": rng.choice(("50m", "100m", "250m", "500m", "1", "2")),
                "memory": rng.choice(("64Mi", "128Mi", "512Mi", "1Gi", "4Gi"))}
    pod: dict[str, Any] = {"containers": [{"name": "agent", "image": "example.com/agent:1",
                                           "resources": {"requests": requests}}]}
    roll = rng.random()
    if roll < 0.4:
        pod["tolerations"] = [{"operator": "Exists"}]
    elif roll < 0.7:
        pod["tolerations"] = [{"key": _GPU, "operator": "Exists", "effect": "NoSchedule"}]
    if rng.random() < 0.2:
        pod["nodeSelector"] = {"karpenter.sh/nodepool": rng.choice(pools)["metadata"]["name"]}
    extra = _offshoot(rng, 10 + index)  # rng's own draws stay as they were
    if extra.random() < 0.3:  # on the instance type's labels: counted per type from v1.14 (kubernetes-sigs/karpenter#2975)
        term = extra.choice(_DAEMON_TYPE_TERMS)
        pod["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [copy.deepcopy(term)]}]}}}
    return {"apiVersion": "apps/v1", "kind": "DaemonSet",
            "metadata": {"name": f"agent-{index}", "namespace": "kube-system"},
            "spec": {"selector": {"matchLabels": {"app": f"agent-{index}"}},
                     "template": {"metadata": {"labels": {"app": f"agent-{index}"}}, "spec": pod}}}


def _kubelet(rng: random.Random) -> dict | None:
    if rng.random() < 0.55:
        return None
    kubelet: dict[str, Any] = {}
    if rng.random() < 0.4:
        kubelet["maxPods"] = rng.choice((8, 20, 58, 110, 234))
    if rng.random() < 0.2:
        kubelet["podsPerCore"] = rng.choice((2, 4, 10))
    if rng.random() < 0.4:
        kubelet["kubeReserved"] = {"cpu": rng.choice(("100m", "500m", "1")), "memory": rng.choice(("512Mi", "2Gi"))}
    if rng.random() < 0.4:
        kubelet["systemReserved"] = {"cpu": rng.choice(("100m", "250m")), "memory": rng.choice(("256Mi", "1Gi"))}
    if rng.random() < 0.4:
        kubelet["evictionHard"] = {"memory.available": rng.choice(("5%", "500Mi", "1Gi"))}
    if rng.random() < 0.15:
        kubelet.setdefault("kubeReserved", {})["ephemeral-storage"] = rng.choice(("500Mi", "1Gi", "5Gi"))
    if rng.random() < 0.15:
        kubelet.setdefault("systemReserved", {})["ephemeral-storage"] = rng.choice(("1Gi", "2G"))
    if rng.random() < 0.15:
        kubelet.setdefault("evictionHard", {})["nodefs.available"] = rng.choice(("5%", "15%", "100%", "2Gi"))
    if rng.random() < 0.2:
        kubelet["evictionSoft"] = {"memory.available": "10%"}
        kubelet["evictionSoftGracePeriod"] = {"memory.available": "1m"}
    return kubelet or None


def _storage_inputs(rng: random.Random) -> dict:
    """The EC2NodeClass's blockDeviceMappings as its schema admits them (one rootVolume at most; an ebs with a
    volumeSize or a snapshotID) and instanceStorePolicy, drawn from a generator of their own."""
    mappings: list[dict] | None = None
    if rng.random() < 0.5:
        sizes = ("1Gi", "4Gi", "8Gi", "20Gi", "20Gi", "21Gi", "50Gi", "100G", "200Gi", "1000G", "2Ti", "3T")
        mappings = []
        for device in rng.sample(["/dev/xvda", "/dev/xvdb", "/dev/sdf"], rng.choice((1, 1, 2))):
            ebs: dict[str, Any] = {"volumeType": "gp3", "encrypted": True}
            if rng.random() < 0.85:
                ebs["volumeSize"] = rng.choice(sizes)
            else:
                ebs["snapshotID"] = "snap-0123456789abcdef0"
            mappings.append({"deviceName": device, "ebs": ebs})
        if rng.random() < 0.5:
            rng.choice(mappings)["rootVolume"] = True
    return {"block_device_mappings": mappings, "instance_store_policy": "RAID0" if rng.random() < 0.25 else None}


def generate_case(rng: random.Random) -> dict:
    zones = [z for z in _ZONES if rng.random() < 0.8] or [_ZONES[0]]
    zone_names = [z[0] for z in zones]
    entries = _pick_types(rng)
    specs = []
    for entry in entries:
        offered = zone_names if rng.random() < 0.8 else \
            sorted(rng.sample(zone_names, rng.randint(1, len(zone_names))))
        specs.append(_instance_spec(entry, offered))
    if rng.random() < 0.35:
        factors = dict.fromkeys(zone_names, 1.0)
    else:
        factors = {z: rng.choice(_SPOT_FACTORS) for z in zone_names}
    pools = [_nodepool(rng, name, entries, zone_names)
             for name in sorted(rng.sample(_NAMES, rng.choice((1, 1, 2, 2, 3))))]
    reservations = []
    if rng.random() < 0.3:
        for i in range(rng.randint(1, 2)):
            entry = rng.choice(entries)
            reservations.append({"id": f"cr-{i:017x}", "instanceType": entry["name"],
                                 "availabilityZone": rng.choice(zone_names),
                                 "reservationType": rng.choice(("default", "default", "capacity-block")),
                                 "count": rng.choice((0, 1, 2))})
    existing = []
    if rng.random() < 0.3:
        for _ in range(rng.randint(1, 2)):
            existing.append({"nodepool": rng.choice(pools)["metadata"]["name"], "instance_type": rng.choice(entries)["name"],
                             "zone": rng.choice(zone_names), "capacity_type": rng.choice(("on-demand", "spot"))})
    daemonsets = [_daemonset(rng, i, pools) for i in range(rng.choice((0, 0, 0, 1, 2)))]
    return {
        "region": "us-east-1",
        "zones": [{"name": n, "id": i} for n, i in zones],
        "instance_types": specs,
        "spot_price_factor": factors,
        "kubelet": _kubelet(rng),
        "capacity_reservations": reservations,
        "nodepools": pools,
        "daemonsets": daemonsets,
        "existing_nodes": existing,
        "pod": _pod(rng, entries, pools, zone_names),
        **_storage_inputs(_offshoot(rng, 2)),
        **_node_class_inputs(random.Random(rng.random()), entries, pools, reservations, zone_names),
        "settings": controller_settings(random.Random(rng.random())),
        **_network_inputs(random.Random(rng.random()), zones, reservations),
    }


#: VM memory overheads drawn: the chart's default, round values, 0 and odd ones.
_VM_OVERHEADS = (0.0, 0.05, 0.075, 0.075, 0.1, 0.2, 0.0123, 0.0751, 0.333, 0.09999)
_GATES = ("reservedCapacity", "nodeOverlay", "staticCapacity", "spotToSpotConsolidation", "nodeRepair",
          "capacityBuffer")


def controller_settings(rng: random.Random) -> dict:
    """The controller's effective settings of a case (``settings.go``'s ``schedSettings``): every feature gate on
    or off, ``minValuesPolicy`` Strict or BestEffort, ``vmMemoryOverheadPercent`` and ``reservedENIs`` 0-3."""
    return {"feature_gates": {g: rng.random() < (0.75 if g == "reservedCapacity" else 0.5) for g in _GATES},
            "min_values_policy": rng.choice(("Strict", "BestEffort")),
            "vm_memory_overhead_percent": rng.choice(_VM_OVERHEADS),
            "reserved_enis": rng.choice((0, 0, 0, 1, 2, 3))}


def values_document(case: dict) -> str:
    """The case's settings as the ``helm/karpenter.values.yaml`` a user writes for them (what the core reads): gates
    as booleans, ``"true"`` or 1/0, the policy and the numbers in one of the spellings the chart renders to the same
    value (a number 0 is not rendered by the chart, so it is written ``"0"``; the default may be left out)."""
    wanted = case.get("settings")
    if wanted is None:
        return ""
    rng = random.Random(json.dumps(wanted, sort_keys=True))
    gates = {g: rng.choice((on, str(on).lower(), int(on))) for g, on in wanted["feature_gates"].items()}
    settings: dict[str, Any] = {"featureGates": gates}
    if wanted["min_values_policy"] != "Strict" or rng.random() < 0.5:
        settings["minValuesPolicy"] = wanted["min_values_policy"]
    vm = wanted["vm_memory_overhead_percent"]
    if vm == 0:
        settings["vmMemoryOverheadPercent"] = "0"
    elif vm != 0.075 or rng.random() < 0.5:
        settings["vmMemoryOverheadPercent"] = rng.choice((vm, repr(vm)))
    enis = wanted["reserved_enis"]
    if enis or rng.random() < 0.5:
        settings["reservedENIs"] = rng.choice((enis, str(enis)))
    return yaml.safe_dump({"settings": {"clusterName": "oracle", **settings}}, sort_keys=False)


def case_settings(case: dict) -> ControllerSettings:
    """The core's reading of :func:`values_document` (the loader and :func:`read_settings`, as for a values file)."""
    text = values_document(case)
    docs = [doc for _, doc, _ in load_documents(text, "karpenter.values.yaml")] if text else []
    return replace(read_settings(docs[0] if docs else None, "karpenter.values.yaml"), line=lines.current().line)


def _network_interfaces(rng: random.Random) -> list[dict]:
    """An admitted spec.networkInterfaces: the primary interface (card 0, device 0), unique (card, device) pairs,
    at most one efa-only interface per card (the CRD's CEL rules); sometimes empty (admitted too)."""
    if rng.random() < 0.1:
        return []
    out = [{"networkCardIndex": 0, "deviceIndex": 0, "interfaceType": "interface"}]
    for _ in range(rng.choice((0, 1, 1, 2, 3))):
        card, device = rng.choice((0, 0, 0, 0, 0, 1, 1, 3, 31, 32)), rng.choice((0, 1, 1, 1, 2, 3, 15))
        kind = rng.choice(("efa-only", "interface", "interface"))
        if any((n["networkCardIndex"], n["deviceIndex"]) == (card, device) for n in out) or (
                kind == "efa-only" and any(n["networkCardIndex"] == card and n["interfaceType"] == "efa-only"
                                           for n in out)):
            continue
        out.append({"networkCardIndex": card, "deviceIndex": device, "interfaceType": kind})
    return out


def _node_class_inputs(rng: random.Random, entries: list[dict], pools: list[dict], reservations: list[dict],
                       zone_names: list[str]) -> dict:
    """What decides which types launch, drawn from a generator of its own (the draws before it stay as they were):
    the EC2NodeClass's networkInterfaces and connectionTracking, interruptible ODCRs (and capacity blocks, never
    interruptible), and NodePool requirements on the capacity-reservation labels."""
    if not reservations and rng.random() < 0.2:
        reservations.append({"id": f"cr-{7:017x}", "instanceType": rng.choice(entries)["name"],
                             "availabilityZone": rng.choice(zone_names),
                             "reservationType": rng.choice(("default", "capacity-block")), "count": rng.choice((1, 2))})
    for r in reservations:
        r["interruptible"] = r["reservationType"] == "default" and rng.random() < 0.3
    for pool in pools:
        if rng.random() < 0.1:
            reqs = pool["spec"]["template"]["spec"]["requirements"]
            if rng.random() < 0.7:
                reqs.append({"key": _AWS + "capacity-reservation-type", "operator": rng.choice(("In", "NotIn")),
                             "values": rng.sample(["default", "capacity-block"], rng.randint(1, 2))})
            else:
                reqs.append({"key": _AWS + "capacity-reservation-interruptible", "operator": "In",
                             "values": [rng.choice(("true", "false"))]})
    return {"network_interfaces": _network_interfaces(rng) if rng.random() < 0.25 else None,
            "connection_tracking": {"tcpEstablishedTimeout": rng.choice((60, 350, 432000))}
            if rng.random() < 0.2 else None}


#: The tag the harness's node class selects its subnets and security groups by; the account of a reservation.
_DISCOVERY = {"karpenter.sh/discovery": "oracle"}
_OWNER = "012345678901"


def _network_inputs(rng: random.Random, zones: list[tuple[str, str]], reservations: list[dict]) -> dict:
    """The account's subnets (one or two per zone, most with the discovery tag), security groups and the
    reservations' tags and owners, with selector terms of the EC2NodeClass drawn against them (``node_class_spec``):
    subnets and security groups by id, name or tags (``*`` included), reservations by id, tags, owner or match
    criteria, and now and then a ``placementGroupSelector``. Terms may select nothing (the class is then not Ready)."""
    subnets = []
    for name, zone_id in zones:
        for _ in range(rng.choice((1, 1, 2))):
            tags = dict(_DISCOVERY) if rng.random() < 0.85 else {}
            if rng.random() < 0.5:
                tags["tier"] = rng.choice(("private", "public"))
            if rng.random() < 0.3:
                tags["Name"] = f"oracle-{name}"
            subnets.append({"id": f"subnet-{len(subnets) + 1:08x}", "zone": name, "zone_id": zone_id, "tags": tags,
                            "available_ips": rng.choice((0, 16, 250, 4000))})
    groups = [{"id": f"sg-{i + 1:08x}", "name": name, "tags": dict(_DISCOVERY) if i == 0 or rng.random() < 0.5 else {}}
              for i, name in enumerate(rng.sample(("oracle-nodes", "oracle-efa", "default"), rng.randint(1, 3)))]
    for r in reservations:
        r["tags"] = {"team": rng.choice(("ml", "web"))} if rng.random() < 0.7 else {}
        r["owner_id"] = _OWNER if rng.random() < 0.8 else "210987654321"
    spec: dict[str, Any] = {}
    if rng.random() < 0.15:
        spec["subnetSelectorTerms"] = rng.choice((
            [{"id": rng.choice(subnets)["id"]}],
            [{"id": s["id"]} for s in rng.sample(subnets, min(2, len(subnets)))],
            [{"tags": {"tier": rng.choice(("private", "public"))}}],
            [{"tags": {"Name": "*"}}], [{"tags": {**_DISCOVERY, "tier": "*"}}], [{"tags": {"tier": "*"}}],
            [{"tags": {"karpenter.sh/discovery": "elsewhere"}}] if rng.random() < 0.3 else [{"tags": {}}],
            [{"tags": {"tier": "public"}}, {"id": rng.choice(subnets)["id"]}]))
    if rng.random() < 0.1:
        spec["securityGroupSelectorTerms"] = rng.choice((
            [{"id": rng.choice(groups)["id"]}], [{"name": rng.choice(groups)["name"]}],
            [{"id": "sg-0badc0de"}, {"name": "default"}], [{"tags": {"karpenter.sh/discovery": "*"}}],
            [{"tags": {"team": "ml"}}] if rng.random() < 0.3 else [{"name": "oracle-nodes"}]))
    if reservations and rng.random() < 0.4:
        spec["capacityReservationSelectorTerms"] = rng.choice((
            [{"tags": {"team": rng.choice(("ml", "web"))}}], [{"tags": {"team": "*"}, "ownerID": _OWNER}],
            [{"tags": {"team": "*"}, "ownerID": "210987654321"}], [{"instanceMatchCriteria": "targeted"}],
            [{"instanceMatchCriteria": "open"}], [{"id": rng.choice(reservations)["id"]}]))
    if rng.random() < 0.01:
        spec["placementGroupSelector"] = rng.choice(({"name": "oracle-pg"}, {"id": "pg-0123456789abcdef0"}))
    if spec and not schema_gen.admitted(node_class({"node_class_spec": spec, "capacity_reservations": reservations})):
        spec = {}  # only what the API server admits
    return {"subnets": subnets, "security_groups": groups, **({"node_class_spec": spec} if spec else {})}


def oracle_case(rng: random.Random) -> dict:
    """A case of the ``scheduler`` family of ``make oracle``: every input both sides read (:func:`generate_case`),
    with schema draws of any admitted NodePool and EC2NodeClass field (:mod:`tests.oracle.scheduler_schema`)."""
    case = generate_case(rng)
    # rng's own draws stay as they were; then what the pass's Karpenter line would not store (scheduler_line)
    return for_line(schema_inputs(random.Random(json.dumps(case, sort_keys=True)), case))


def generate(rng: random.Random, n: int) -> list[dict]:
    """``n`` seeded cases (see the module docstring for their shape)."""
    return [generate_case(rng) for _ in range(n)]


# ---------------------------------------------------------------------------------------------
# The core's answer


def _case_catalog(case: dict) -> Catalog:
    entries = _catalog_entries()
    return catalog_from_document({"source": "oracle case", "region": case.get("region", "us-east-1"),
                                  "types": [entries[t["name"]] for t in case["instance_types"]]})


def pod_shape(pod: dict) -> PodShape:
    """The core's PodShape for a pod manifest: the one pod model validate reads of a workload (``PodShape.of_pod``:
    every resource of every container and init container, the overhead, pod-level requests, limits for missing
    requests)."""
    return PodShape.of_pod(pod.get("spec", {}))


def node_class(case: dict) -> dict:
    """The case's one EC2NodeClass as a manifest (what the Go side builds in ``schedNodeClass``): AL2023, the
    case's kubelet settings, and capacityReservationSelectorTerms naming the case's reservations (none: none)."""
    spec: dict[str, Any] = {"amiSelectorTerms": [{"alias": "al2023@latest"}], "role": "oracle",
                            "subnetSelectorTerms": [{"tags": dict(_DISCOVERY)}],
                            "securityGroupSelectorTerms": [{"tags": dict(_DISCOVERY)}]}
    if case.get("kubelet"):
        spec["kubelet"] = case["kubelet"]
    if case.get("block_device_mappings"):
        spec["blockDeviceMappings"] = case["block_device_mappings"]
    if case.get("instance_store_policy"):
        spec["instanceStorePolicy"] = case["instance_store_policy"]
    if case.get("capacity_reservations"):
        spec["capacityReservationSelectorTerms"] = [{"id": r["id"]} for r in case["capacity_reservations"]]
    if case.get("network_interfaces") is not None:
        spec["networkInterfaces"] = case["network_interfaces"]
    if case.get("connection_tracking") is not None:
        spec["connectionTracking"] = case["connection_tracking"]
    spec.update(case.get("node_class_spec") or {})  # schema draws of further fields (scheduler_schema)
    return {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "default"},
            "spec": spec}


def aws_documents(case: dict) -> list[tuple[str, dict]]:
    """The case's account facts as the AWS CLI prints them (what the Go side's pricing, offering and
    capacity-reservation providers are given): ``describe-spot-price-history`` (spot = on-demand x the zone's
    factor, for every priced type in every zone with a factor), ``describe-instance-type-offerings`` (each type in
    its zones), ``describe-capacity-reservations`` (active, targeted, with their tags and owners),
    ``describe-subnets`` and ``describe-security-groups`` (the account's subnets and security groups, when the case
    has them: :func:`_network_inputs`)."""
    stamp = "2025-11-03T00:00:00+00:00"
    spot = [{"AvailabilityZone": zone, "InstanceType": t["name"], "ProductDescription": "Linux/UNIX",
             "SpotPrice": repr(t["price"] * factor), "Timestamp": stamp}
            for t in case["instance_types"] if t["price"] is not None
            for zone, factor in sorted(case.get("spot_price_factor", {}).items())]
    offerings = [{"InstanceType": t["name"], "LocationType": "availability-zone", "Location": zone}
                 for t in case["instance_types"] for zone in t["zones"]]
    reservations = [{"CapacityReservationId": r["id"], "InstanceType": r["instanceType"],
                     "AvailabilityZone": r["availabilityZone"], "AvailableInstanceCount": r["count"],
                     "State": "active", "ReservationType": r.get("reservationType") or "default",
                     "Tags": _tags(r.get("tags")), "Interruptible": bool(r.get("interruptible")),
                     "OwnerId": r.get("owner_id") or _OWNER, "InstanceMatchCriteria": "targeted"}
                    for r in case.get("capacity_reservations", [])]
    out = [("spot.json", {"SpotPriceHistory": spot}), ("offerings.json", {"InstanceTypeOfferings": offerings}),
           ("reservations.json", {"CapacityReservations": reservations})]
    if case.get("subnets") is not None:
        out.append(("subnets.json", {"Subnets": [
            {"SubnetId": n["id"], "AvailabilityZone": n["zone"], "AvailabilityZoneId": n["zone_id"],
             "AvailableIpAddressCount": n["available_ips"], "State": "available", "Tags": _tags(n["tags"])}
            for n in case["subnets"]]}))
    if case.get("security_groups") is not None:
        out.append(("security-groups.json", {"SecurityGroups": [
            {"GroupId": g["id"], "GroupName": g["name"], "Tags": _tags(g["tags"])} for g in case["security_groups"]]}))
    return out


def _tags(tags: dict[str, str] | None) -> list[dict[str, str]]:
    return [{"Key": k, "Value": v} for k, v in sorted((tags or {}).items())]


def manifests(case: dict) -> list[dict]:
    """What the core reads for a case: the NodePools, their EC2NodeClass and the DaemonSets."""
    return [*case["nodepools"], node_class(case), *case.get("daemonsets", [])]


def node_claims(case: dict) -> list[dict]:
    """The case's existing nodes as a user's ``kubectl get nodeclaims -o yaml`` shows them (what ``scheduler.go``'s
    ``schedExistingClaims`` registers: launched, registered and initialized NodeClaims without a Node, labelled with
    pool, type, zone and capacity type). ``status.capacity`` comes from the core's own model of the type under the
    case's kubelet settings (``InstanceType.capacity_for``: cpu, memory after the VM overhead, pods, extended
    resources), not from the Go side."""
    nc = node_class(case)
    view = NodeClassView.of(nc)
    controller = case_settings(case)
    settings = replace(KubeletSettings.of(view.spec, view.ami_family, "EC2NodeClass default"),
                       vm_memory_overhead_percent=controller.vm_memory_overhead_percent,
                       reserved_enis=controller.reserved_enis)
    compat = NodeClassCompatibility.of(view.name, view.spec, view.ami_family)
    types = _case_catalog(case).by_name
    out = []
    for i, e in enumerate(case.get("existing_nodes") or []):
        capacity = class_capacity(types[e["instance_type"]], settings, compat)
        out.append({
            "apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
            "metadata": {"name": f"existing-{i}", "labels": {
                "karpenter.sh/nodepool": e["nodepool"], "node.kubernetes.io/instance-type": e["instance_type"],
                "topology.kubernetes.io/zone": e["zone"], "karpenter.sh/capacity-type": e["capacity_type"],
                "karpenter.sh/registered": "true", "karpenter.sh/initialized": "true"}},
            "spec": {"taints": [{"key": "oracle.example.com/full", "value": "true", "effect": "NoSchedule"}]},
            "status": {"providerID": f"aws:///{e['zone']}/i-existing{i}",
                       "capacity": {k: f"{v.normalize():f}" for k, v in sorted(capacity.items())}},
        })
    return out


def python_answer(case: dict) -> dict:
    """The core's answer for a case: the pool, the cheapest instance type and offering, the options."""
    shape = pod_shape(case["pod"])
    reports = simulate_pools(manifests(case), _case_catalog(case), nodes=cluster_nodes(node_claims(case)),
                             aws=aws_facts_from_documents(aws_documents(case)), settings=case_settings(case))
    fits = fit_reports(shape, reports)
    choice = first_choice(fits)
    unknown = unmodelled(fits)
    if choice is None and unknown:
        return {"nodepool": None, "not_modelled": list(unknown)}
    if choice is None:
        return {"nodepool": None, "reasons": {f.pool: f.reason for f in fits}}
    if choice.panics is not None:  # the scheduler picks the pool; ToNodeClaim panics (Requirement.Any)
        return {"nodepool": choice.pool, "panics": choice.panics}
    capacity_type, _, where = (choice.offering or "/").partition("/")
    zone = where.split(" (")[0]  # a reserved offering names its reservation: "us-east-1a (cr-...)"
    out = {
        "nodepool": choice.pool,
        "instance_type": choice.instance,
        "price": None if choice.price is None else str(choice.price),
        "capacity_type": capacity_type or None,
        "zone": None if zone in ("", "other zones") else zone,
        "instance_types": list(choice.options),
        "launch_types": None if choice.launch is None else list(choice.launch.types),
        "launch_zones": None if choice.launch is None else [z for z in choice.launch.zones if z is not None],
    }
    if choice.launch_alternatives:  # Karpenter's launch follows a Go map's order here (analysis.launch)
        out["launch_alternatives"] = [{
            "instance_type": other.instance, "price": None if other.price is None else str(other.price),
            "capacity_type": other.capacity_type, "zone": other.offering.offering.zone,
            "launch_types": list(other.types), "launch_zones": [z for z in other.zones if z is not None],
        } for other in choice.launch_alternatives]
    return out


# ---------------------------------------------------------------------------------------------
# Shrinking


def smaller(case: dict) -> Iterator[dict]:
    """Cases one step smaller than ``case`` (an item, requirement, value, limit, taint, toleration or request
    dropped, a type offered everywhere, spot at on-demand), each still a case both sides read."""
    for key in ("network_interfaces", "connection_tracking"):
        if case.get(key) is not None:
            c = copy.deepcopy(case)
            c[key] = None
            yield c
    for i in range(1, len(case.get("network_interfaces") or [])):  # the primary interface stays (CEL)
        c = copy.deepcopy(case)
        del c["network_interfaces"][i]
        yield c
    wanted = case.get("settings")
    if wanted is not None:  # the chart's defaults, then one setting back to its default at a time
        yield {**copy.deepcopy(case), "settings": None}
        defaults = {"min_values_policy": "Strict", "vm_memory_overhead_percent": 0.075, "reserved_enis": 0}
        for key, default in defaults.items():
            if wanted[key] != default:
                yield {**copy.deepcopy(case), "settings": {**copy.deepcopy(wanted), key: default}}
        for gate, on in wanted["feature_gates"].items():
            if on != (gate == "reservedCapacity"):
                c = copy.deepcopy(case)
                c["settings"]["feature_gates"][gate] = gate == "reservedCapacity"
                yield c
    for key in sorted(case.get("node_class_spec") or {}):
        c = copy.deepcopy(case)
        del c["node_class_spec"][key]
        yield c
    for key in ("daemonsets", "existing_nodes", "capacity_reservations", "nodepools", "instance_types", "subnets",
                "security_groups"):
        items = case.get(key) or []
        for i in range(len(items)):
            if key in ("nodepools", "instance_types") and len(items) == 1:
                continue
            c = copy.deepcopy(case)
            del c[key][i]
            yield c
    if case.get("kubelet"):
        for k in list(case["kubelet"]):
            c = copy.deepcopy(case)
            del c["kubelet"][k]
            if not c["kubelet"]:
                c["kubelet"] = None
            yield c
    for i, pool in enumerate(case["nodepools"]):
        spec = pool["spec"]
        tmpl = spec["template"]["spec"]
        for j in range(len(tmpl.get("requirements", []))):
            c = copy.deepcopy(case)
            del c["nodepools"][i]["spec"]["template"]["spec"]["requirements"][j]
            yield c
        for field in ("weight", "limits"):
            if field in spec:
                c = copy.deepcopy(case)
                del c["nodepools"][i]["spec"][field]
                yield c
        for key in spec.get("limits", {}):
            c = copy.deepcopy(case)
            del c["nodepools"][i]["spec"]["limits"][key]
            yield c
        for j, req in enumerate(tmpl.get("requirements", [])):
            for v in req.get("values", []) if len(req.get("values", [])) > 1 else []:
                c = copy.deepcopy(case)
                r = c["nodepools"][i]["spec"]["template"]["spec"]["requirements"][j]
                r["values"].remove(v)
                if r.get("minValues", 0) > len(r["values"]):
                    r["minValues"] = len(r["values"])
                yield c
        if tmpl.get("taints"):
            c = copy.deepcopy(case)
            del c["nodepools"][i]["spec"]["template"]["spec"]["taints"]
            yield c
    pod = case["pod"]["spec"]
    requested = _requested(pod)
    for j, toleration in enumerate(pod.get("tolerations", [])):
        if toleration.get("key") in requested:
            continue  # the pod stays as EKS admission leaves it (ExtendedResourceToleration)
        c = copy.deepcopy(case)
        del c["pod"]["spec"]["tolerations"][j]
        yield c
    for field in ("nodeSelector", "affinity"):
        if field in pod:
            c = copy.deepcopy(case)
            del c["pod"]["spec"][field]
            yield c
    for part in ("containers", "initContainers"):
        for i, container in enumerate(pod.get(part, [])):
            if i or part == "initContainers":
                c = copy.deepcopy(case)
                del c["pod"]["spec"][part][i]
                if not c["pod"]["spec"][part]:
                    del c["pod"]["spec"][part]
                yield c
            for kind, amounts in container["resources"].items():
                for k in list(amounts):
                    c = copy.deepcopy(case)
                    del c["pod"]["spec"][part][i]["resources"][kind][k]
                    yield c
    for field in ("overhead", "resources"):
        if field in pod:
            c = copy.deepcopy(case)
            del c["pod"]["spec"][field]
            yield c
    for key in ("block_device_mappings", "instance_store_policy"):
        if case.get(key):
            c = copy.deepcopy(case)
            c[key] = None
            yield c
    for t in case["instance_types"]:
        if set(t["zones"]) != {z["name"] for z in case["zones"]}:
            c = copy.deepcopy(case)
            for u in c["instance_types"]:
                if u["name"] == t["name"]:
                    u["zones"] = [z["name"] for z in c["zones"]]
            yield c
    if any(f != 1.0 for f in case["spot_price_factor"].values()):
        c = copy.deepcopy(case)
        c["spot_price_factor"] = dict.fromkeys(c["spot_price_factor"], 1.0)
        yield c


# ---------------------------------------------------------------------------------------------
# Comparison


def differences(go: dict, py: dict) -> list[str]:
    """The classes in which the two answers differ (empty: they agree). An answer the core says it cannot give
    (``not_modelled``: a pod ENI request) has no figure to compare (``features`` counts it). Where the core says
    the launch follows the order of a Go map (``launch_alternatives``), Karpenter's launch agrees when it is any
    one of them."""
    classes = _differences(go, py)
    for other in py.get("launch_alternatives") or ():
        if not classes:
            break
        if not _differences(go, {**py, **other}):
            return []
    return classes


def _differences(go: dict, py: dict) -> list[str]:
    if py.get("not_modelled"):
        return []
    if py.get("panics"):  # Karpenter answered, so it did not panic (a panic comes as an error: expected_panic)
        return ["py-panics"]
    if go.get("nodepool") is None or py.get("nodepool") is None:
        if go.get("nodepool") is None and py.get("nodepool") is None:
            return []
        return ["go-unschedulable" if go.get("nodepool") is None else "py-unschedulable"]
    out = []
    if go["nodepool"] != py["nodepool"]:
        return ["nodepool"]
    if set(go.get("instance_types") or []) != set(py.get("instance_types") or []):
        out.append("options")
    launch = go.get("launch") or {}
    if py.get("instance_type") not in (go.get("launch_cheapest_types") or []):
        out.append("launch-type")
    py_price = py.get("price")
    if py_price is None or not launch or abs(float(py_price) - launch["price"]) > 1e-9:
        out.append("price")
    if launch.get("capacity_type") != py.get("capacity_type"):
        out.append("capacity-type")
    if set(go.get("launch_types") or []) != set(py.get("launch_types") or []):
        out.append("launch-types")
    if set(go.get("launch_zones") or []) != set(py.get("launch_zones") or []):
        out.append("launch-zones")
    zones = go.get("launch_cheapest_zones") or []
    if zones and py.get("zone") not in zones:  # any zone of an offering at the launch's price (ties aside)
        out.append("zone")
    return out


def expected_panic(case: dict, error: str) -> bool:
    """Whether Karpenter's error is the panic the core expects: ``NodeClaimTemplate.ToNodeClaim`` calling
    ``Requirement.Any`` on a requirement it cannot pick a value from (the core's ``panics``)."""
    return "invalid argument to Intn" in error and bool(python_answer(case).get("panics"))


def core_differences(case: dict, go: dict) -> list[str]:
    """For ``make oracle``: one line naming the classes in which the core's answer differs and both answers
    (empty: they agree)."""
    py = python_answer(case)
    return [explain(go, py)] if differences(go, py) else []


def agree(go_answer: dict, py_answer: dict) -> bool:
    return not differences(go_answer, py_answer)


def explain(go: dict, py: dict) -> str:
    classes = differences(go, py)
    if not classes:
        return "agree"
    brief_go = {k: go.get(k) for k in ("nodepool", "reason", "launch", "launch_cheapest_types", "launch_types",
                                       "launch_zones", "instance_types")
                if go.get(k) is not None}
    if go.get("error"):
        brief_go["error"] = go["error"][:200]
    return f"{', '.join(classes)}: go={json.dumps(brief_go, sort_keys=True)} py={json.dumps(py, sort_keys=True)}"


def features(case: dict) -> list[str]:
    """The inputs of a case the core knows only from AWS facts (spot prices, zone availability, reservations) or the
    catalog's gaps (unpriced types), to group disagreements."""
    out = []
    if case.get("capacity_reservations"):
        out.append("reservations")
    if case.get("network_interfaces") is not None:
        out.append("network-interfaces")
    if case.get("connection_tracking") is not None:
        out.append("connection-tracking")
    drawn = case.get("node_class_spec") or {}
    for key in ("subnetSelectorTerms", "securityGroupSelectorTerms", "capacityReservationSelectorTerms",
                "placementGroupSelector"):
        if key in drawn:
            out.append(key)
    if any(f != 1.0 for f in case.get("spot_price_factor", {}).values()):
        out.append("spot-prices")
    zones = {z["name"] for z in case.get("zones", [])}
    if any(set(t["zones"]) != zones for t in case.get("instance_types", [])):
        out.append("zone-availability")
    if any(t["price"] is None for t in case.get("instance_types", [])):
        out.append("unpriced-types")
    if case.get("block_device_mappings") or case.get("instance_store_policy"):
        out.append("node-class-storage")
    spec = case.get("pod", {}).get("spec", {})
    if _requested(spec) - {"cpu", "memory", _GPU, _NEURON} or spec.get("overhead") or spec.get("resources"):
        out.append("pod-resources")
    if "vpc.amazonaws.com/pod-eni" in _requested(spec):
        out.append("not-modelled")
    return out
