"""The ``overlay`` oracle family: which NodeOverlays Karpenter applies, and what they do to prices and capacity.

Go side (``overlay.go``): Karpenter v1.14.1's NodeOverlay controller, driven without an API server.
``pkg/controllers/nodeoverlay/controller.go`` ``Controller.Reconcile`` runs against a fake controller-runtime client
(``fake.NewClientBuilder().WithStatusSubresource(NodeOverlay, NodePool)``) holding the case's NodePools and
NodeOverlays, a fake cloud provider returning the case's instance types, a ``state.Cluster`` and an
``InstanceTypeStore``. Reconcile orders the overlays (``NodeOverlayList.OrderByWeight``), runtime-validates them
(``RuntimeValidate``), checks each against the ones already stored (``validateAndUpdateInstanceTypeOverrides``:
``getOverlaidOfferings``, ``isOfferingUpdateConflicting``, ``isCapacityUpdateConflicting``) and patches each
overlay's ``ValidationSucceeded`` condition through the status client; the answer reads the conditions back from
the client and each NodePool's instance types from ``InstanceTypeStore.ApplyAll`` (what the overlay cloud-provider
decorator ``pkg/cloudprovider/overlay`` returns with the NodeOverlay feature gate on: ``applyPriceOverlays``,
``ApplyCapacityOverlay``). Instance types are the case's catalog entries built by the AWS provider v1.14.1 as the
scheduler family builds them (``schedInstanceTypes``: ``DefaultResolver.Resolve`` and
``offering.DefaultProvider.InjectOfferings``), so every price is the catalog's on-demand list price (spot at the
on-demand price) before overlays. Nothing of the overlay behaviour needs an API server: the controller only lists
NodePools and NodeOverlays and patches status, which the fake client serves.

Case (JSON)::

    region, zones: [{name, id}]            # the EC2NodeClass's subnets; every type is offered in every zone
    instance_types: [...]                   # the scheduler family's catalog entries (its _instance_spec)
    capacity_reservations: []               # none (see below)
    nodepools: [karpenter.sh/v1 NodePool manifests]      # names, template labels, requirements
    overlays: [karpenter.sh/v1alpha1 NodeOverlay manifests, CRD-valid]

Go answer: ``overlays`` {name: {ready, reason ("Conflict" | "RuntimeValidation")}} and ``nodepools`` {pool: {type:
{offerings: [{capacity_type, zone, price, overlaid}], capacity: {resource: quantity}}}}.

Core answer: :class:`~karpenter_gpu.k8s.overlay_resolution.OverlayResolution`, the one the simulator (explain, diff) and the
rule KG460 use, on the case's NodePools and NodeOverlays with a catalog of the case's types: ``dropped`` and
``invalid`` for the statuses; for every pool and type, ``apply`` on the pool's offering universe
(:meth:`~karpenter_gpu.k8s.overlay_resolution.OverlayResolution.universe`) with the catalog price and allocatable. The
core is told the case's zones (the subnets' zones, as AWS facts name them: ``closed``), so a zone a manifest names
outside them has no offering, as in Karpenter.

Modelled: weights (equal, different, unset), the name order among equal weights, requirements on instance type,
family, category, size, generation, GPU name / manufacturer / count / memory, CPU, arch, os, capacity type, zone
(In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte), ``karpenter.sh/nodepool`` and the pools' template labels;
absolute ``price`` and ``priceAdjustment`` (±amount, ±percent, results clamped at 0); capacity (``nvidia.com/gpu``
shares, ``amd.com/gpu``, custom extended resources), conflicts of prices and of capacity at equal weight,
several NodePools, and runtime validation (``capacity-type In`` with no known value; capacity naming a resource the
AWS provider reports itself: Neuron, EFA). Compared capacity: the
resources the case's overlays name plus the GPU and Neuron resources (cpu, memory, pods, ephemeral-storage cannot
be changed by an overlay; the CRD refuses them).

Left out: capacity reservations (which exist, for which type and zone, is discovered from EC2; the EC2NodeClass
selects none, so neither side has reserved offerings, and the core is told so), per-zone availability (every type
in every zone of the case) and spot prices (the catalog has none; spot is priced at on-demand on both sides). The
preview-pricing shortcut of the AWS provider (an overlay with only an instance-type requirement and a price,
applied by the provider's pricing provider) is not part of the core controller and is not driven here.
"""

from __future__ import annotations

import copy
import math
import random
from functools import cache
from decimal import Decimal
from typing import Any, Iterator

from karpenter_gpu.k8s.kubelet import KubeletSettings
from karpenter_gpu.k8s.overlay_resolution import OverlayResolution
from karpenter_gpu.k8s.units import Quantity
from karpenter_gpu.k8s.views import node_pools, overlays as overlay_views
from tests.oracle import schema_gen
from karpenter_gpu.analysis.simulator import _context as simulator_context
from tests.oracle.scheduler_family import case_settings, controller_settings
from tests.oracle.scheduler_line import for_line
from tests.oracle.scheduler_family import _NO_VPC_LIMITS, _ZONES, _case_catalog, _catalog_entries, _instance_spec

FAMILY = "overlay"

_AWS = "karpenter.k8s.aws/"
_GPU_RESOURCES = ("nvidia.com/gpu", "amd.com/gpu", "aws.amazon.com/neuron")
_POOL_NAMES = ("gpu", "inference", "training", "batch")
_OVERLAY_NAMES = ("a-price", "b-gpu", "c-shares", "d-spot", "e-zone", "f-team", "g-family")
_LABEL_KEY = "team"
_LABEL_VALUES = ("ml", "research")
#: Absolute prices and adjustments as the CRD pattern admits them.
_PRICES = ("0", "0.5", "1", "2.25", "10", "0.001")
_ADJUSTMENTS = ("+10%", "-15%", "-100%", "+0.5", "-0.2", "-50", "-99.5%", "+0%", "-0", "+.5", "-33.3%", "+250%")
_CAPACITIES = ({"nvidia.com/gpu": "1"}, {"nvidia.com/gpu": "4"}, {"nvidia.com/gpu": "8"}, {"amd.com/gpu": "1"},
               {"example.com/shares": "10"}, {"nvidia.com/gpu": "2", "example.com/shares": "3"},
               {"example.com/fpga": "500m"}, {"nvidia.com/gpu": "0"})
#: Resources the provider reports itself: RuntimeValidate refuses an overlay that sets one (rarely drawn).
_REFUSED_CAPACITIES = ({"aws.amazon.com/neuron": "1"}, {"vpc.amazonaws.com/efa": "2", "nvidia.com/gpu": "1"})


# ---------------------------------------------------------------------------------------------
# Generation


def _types(rng: random.Random) -> list[dict]:
    entries = [e for name, e in sorted(_catalog_entries().items())
               if name not in _NO_VPC_LIMITS and e["price"] is not None]
    if rng.random() < 0.6:  # one or two families: sizes next to each other
        families = sorted({e["labels"][_AWS + "instance-family"] for e in entries})
        chosen = set(rng.sample(families, rng.choice((1, 2))))
        picked = [e for e in entries if e["labels"][_AWS + "instance-family"] in chosen]
        return picked[:6]
    return rng.sample(entries, rng.randint(1, 5))


def _values(rng: random.Random, pool: list[str], most: int = 3) -> list[str]:
    return sorted(rng.sample(pool, rng.randint(1, min(most, len(pool)))))


def _requirement(rng: random.Random, types: list[dict], zones: list[str], pools: list[str]) -> dict:
    labels = [t["labels"] for t in types]
    roll = rng.random()
    op = rng.choice(("In", "In", "In", "NotIn"))
    if roll < 0.15:
        return {"key": "node.kubernetes.io/instance-type", "operator": op,
                "values": _values(rng, [t["name"] for t in types] + ["m5.large"])}
    if roll < 0.27:
        return {"key": _AWS + "instance-family", "operator": op,
                "values": _values(rng, sorted({lb[_AWS + "instance-family"] for lb in labels}) + ["c7i"])}
    if roll < 0.42:
        values = _values(rng, ["on-demand", "spot", "reserved"], 2)
        if rng.random() < 0.05:
            values = ["dedicated"]  # no known value: RuntimeValidate refuses the overlay
        return {"key": "karpenter.sh/capacity-type", "operator": op, "values": values}
    if roll < 0.55:
        return {"key": "topology.kubernetes.io/zone", "operator": op, "values": _values(rng, zones, 2)}
    if roll < 0.65:
        return {"key": "karpenter.sh/nodepool", "operator": op, "values": _values(rng, pools + ["other"], 2)}
    if roll < 0.72:
        if rng.random() < 0.3:
            return {"key": _LABEL_KEY, "operator": rng.choice(("Exists", "DoesNotExist"))}
        return {"key": _LABEL_KEY, "operator": op, "values": _values(rng, list(_LABEL_VALUES), 1)}
    if roll < 0.82:
        key = rng.choice(("instance-gpu-count", "instance-cpu", "instance-gpu-memory", "instance-generation"))
        number = {"instance-gpu-count": (0, 1, 2, 4, 8), "instance-cpu": (4, 8, 16, 48, 96),
                  "instance-gpu-memory": (16000, 22888, 24000, 80000), "instance-generation": (4, 5, 6)}[key]
        return {"key": _AWS + key, "operator": rng.choice(("Gt", "Lt", "Gte", "Lte")),
                "values": [str(rng.choice(number))]}
    if roll < 0.9:
        key = rng.choice(("instance-gpu-name", "instance-gpu-manufacturer", "instance-size", "instance-category"))
        present = sorted({lb[_AWS + key] for lb in labels if _AWS + key in lb})
        if not present or rng.random() < 0.25:
            return {"key": _AWS + key, "operator": rng.choice(("Exists", "DoesNotExist"))}
        return {"key": _AWS + key, "operator": op, "values": _values(rng, present, 2)}
    key = rng.choice(("kubernetes.io/arch", "kubernetes.io/os"))
    return {"key": key, "operator": op,
            "values": [rng.choice(("amd64", "arm64") if key.endswith("arch") else ("linux", "windows"))]}


def _overlay(rng: random.Random, name: str, types: list[dict], zones: list[str], pools: list[str],
             weights: tuple[int, ...]) -> dict:
    spec: dict[str, Any] = {"requirements": [_requirement(rng, types, zones, pools)
                                             for _ in range(rng.choice((0, 1, 1, 2, 2, 3)))]}
    if rng.random() < 0.75:
        spec["weight"] = rng.choice(weights)
    roll = rng.random()
    if roll < 0.35:
        spec["priceAdjustment"] = rng.choice(_ADJUSTMENTS)
    elif roll < 0.6:
        spec["price"] = rng.choice(_PRICES)
    if rng.random() < (0.4 if "price" in spec or "priceAdjustment" in spec else 0.9):
        spec["capacity"] = dict(rng.choice(_REFUSED_CAPACITIES if rng.random() < 0.03 else _CAPACITIES))
    return {"apiVersion": "karpenter.sh/v1alpha1", "kind": "NodeOverlay", "metadata": {"name": name}, "spec": spec}


def _nodepool(rng: random.Random, name: str, zones: list[str]) -> dict:
    reqs: list[dict] = []
    if rng.random() < 0.7:
        reqs.append({"key": "karpenter.sh/capacity-type", "operator": "In",
                     "values": _values(rng, ["on-demand", "spot", "reserved"], 3)})
    if rng.random() < 0.3:
        reqs.append({"key": "topology.kubernetes.io/zone", "operator": "In", "values": _values(rng, zones, 2)})
    template: dict[str, Any] = {"spec": {
        "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
        "requirements": reqs}}
    if rng.random() < 0.4:
        template["metadata"] = {"labels": {_LABEL_KEY: rng.choice(_LABEL_VALUES)}}
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name},
            "spec": {"template": template}}


def oracle_case(rng: random.Random) -> dict:
    """A case of ``make oracle``: 2-4 zones of which the last is never named (a zone of the node class's subnets no
    manifest names; the core is told the case's zones), 1-6 catalog types, 1-3 pools, 1-5 overlays."""
    zones = [_ZONES[0], *(z for z in _ZONES[1:] if rng.random() < 0.6)]
    if len(zones) == 1:
        zones.append(rng.choice(_ZONES[1:]))
    names = [z[0] for z in zones]
    named = names[:-1]
    types = _types(rng)
    pools = sorted(rng.sample(_POOL_NAMES, rng.choice((1, 1, 2, 3))))
    # few distinct weights, so equal weights (and their conflicts) are common
    weights = tuple(rng.sample((1, 5, 10, 100, 10000), rng.choice((1, 2, 3))))
    overlays = [_overlay(rng, name, types, named, pools, weights)
                for name in sorted(rng.sample(_OVERLAY_NAMES, rng.randint(1, 5)))]
    schema_rng = random.Random(rng.random())  # the draws above stay as they were
    overlays = [schema_gen.draw(schema_rng, "NodeOverlay", o, edits=2) if schema_rng.random() < 0.3 else o
                for o in overlays]
    case = {
        "region": "us-east-1",
        "zones": [{"name": n, "id": i} for n, i in zones],
        "instance_types": [_instance_spec(t, names) for t in types],
        "capacity_reservations": [],
        "nodepools": [_nodepool(rng, p, named) for p in pools],
        "overlays": overlays,
        "settings": _settings(random.Random(rng.random())),
    }
    return for_line(case)  # what the pass's Karpenter line would not hold left out (scheduler_line)


#: A case without settings (the regressions recorded before them): the chart's defaults with the nodeOverlay gate on.
_GATE_ON = {"feature_gates": {"nodeOverlay": True}, "min_values_policy": "Strict", "vm_memory_overhead_percent": 0.075,
            "reserved_enis": 0}


def _settings(rng: random.Random) -> dict:
    """The controller's settings (the scheduler family's draw), the nodeOverlay gate on in four cases of five: off,
    Karpenter runs no NodeOverlay controller and applies none (``settings.go``)."""
    drawn = controller_settings(rng)
    drawn["feature_gates"]["nodeOverlay"] = rng.random() < 0.8
    return drawn


def _named_zones(case: dict) -> set[str]:
    reqs = [r for o in case["overlays"] for r in o["spec"].get("requirements", [])] + \
        [r for p in case["nodepools"] for r in p["spec"]["template"]["spec"].get("requirements", [])]
    return {v for r in reqs if r["key"] == "topology.kubernetes.io/zone" for v in r.get("values", [])}


# ---------------------------------------------------------------------------------------------
# The core's answer


def _compared_resources(case: dict) -> list[str]:
    named = {str(k) for o in case["overlays"] for k in (o.get("spec", {}).get("capacity") or {})}
    return sorted(named | set(_GPU_RESOURCES))


def core_answer(case: dict) -> dict:
    """The core's answer in Go's shape: statuses from ``OverlayResolution.dropped`` / ``invalid``, and for every
    pool and type each offering's price after ``OverlayResolution.apply`` (``overlaid``: an overlay set it)."""
    catalog = _case_catalog(case)
    pools = node_pools(case["nodepools"])
    # the controller settings as the core reads them from the values file, and which overlays it then ignores
    settings = case_settings({**case, "settings": case.get("settings") or _GATE_ON})  # as overlay.go: none, gate on
    ignored = set(simulator_context(case["overlays"], catalog, None, settings).ignored_overlays)
    every = overlay_views(case["overlays"])
    views = [v for v in every if v.name not in ignored]
    # The case's EC2NodeClass selects no capacity reservation: no pool has reserved offerings.
    # The case's zones are the node class's subnets' zones (every type offered in each): the core is told them.
    resolution = OverlayResolution(views, pools, {it.name: it.requirements for it in catalog.types},
                                   [z["name"] for z in case["zones"]], closed=True, reservations=dict.fromkeys((p.name for p in pools), False))
    # no controller reconciles them: ValidationSucceeded stays Unknown, as the object's conditions start
    statuses: dict[str, dict] = {v.name: {"ready": False, "reason": "AwaitingReconciliation"} for v in every
                                 if v.name in ignored}
    for view in views:
        if view.name in resolution.refused:
            statuses[view.name] = {"ready": False, "reason": "RuntimeValidation"}
        elif view.name in resolution.dropped:
            statuses[view.name] = {"ready": False, "reason": "Conflict"}
        else:
            statuses[view.name] = {"ready": True}
    resources = _compared_resources(case)
    per_pool: dict[str, dict] = {}
    allocatable = {it.name: it.allocatable_for(KubeletSettings()) for it in catalog.types}
    for pool in pools:
        offerings = resolution.universe(pool)
        types: dict[str, dict] = {}
        for it in catalog.types:
            own = allocatable[it.name]
            overlaid = resolution.apply(pool, it.name, offerings, it.price, own)
            types[it.name] = {
                "offerings": {(p.offering.capacity_type, p.offering.zone): (p.price, p.overlay is not None)
                              for p in overlaid.prices},
                "capacity": {r: _number(overlaid.capacity.get(r, 0)) for r in resources},
            }
        per_pool[pool.name] = types
    return {"overlays": statuses, "nodepools": per_pool, "named_zones": resolution.named_zones}


def _number(value: Any) -> Decimal:
    return value if isinstance(value, Decimal) else _parsed(str(value))


@cache
def _parsed(text: str) -> Decimal:
    return Quantity.parse(text).as_decimal()


# ---------------------------------------------------------------------------------------------
# Comparison


def core_differences(case: dict, go: dict) -> list[str]:
    """Where the core's answer differs from Karpenter's, one line each (empty: they agree)."""
    ours = core_answer(case)
    out = [f"overlay {name}: core {ours['overlays'].get(name)}, Karpenter {go['overlays'].get(name)}"
           for name in sorted(set(ours["overlays"]) | set(go["overlays"]))
           if ours["overlays"].get(name) != go["overlays"].get(name)]
    for pool, error in sorted((go.get("errors") or {}).items()):
        out.append(f"pool {pool}: Karpenter could not apply overlays: {error}")
    named = set(ours["named_zones"])
    resources = _compared_resources(case)
    for pool, types in sorted(go["nodepools"].items()):
        mine = ours["nodepools"].get(pool, {})
        for it, theirs in sorted(types.items()):
            core = mine.get(it)
            if core is None:
                out.append(f"{pool}/{it}: the core has no such type")
                continue
            for offer in theirs["offerings"]:
                key = (offer["capacity_type"], offer["zone"] if offer["zone"] in named else None)
                where = f"{pool}/{it} {offer['capacity_type']}/{offer['zone']}"
                if key not in core["offerings"]:
                    out.append(f"{where}: the core has no such offering")
                    continue
                price, overlaid = core["offerings"][key]
                if overlaid != offer["overlaid"]:
                    out.append(f"{where}: overlaid core {overlaid}, Karpenter {offer['overlaid']}")
                if price is None or not math.isclose(float(price), offer["price"], rel_tol=1e-9, abs_tol=1e-9):
                    out.append(f"{where}: price core {price}, Karpenter {offer['price']}")
            for resource in resources:
                go_value = _number(theirs["capacity"].get(resource, "0"))
                if core["capacity"][resource] != go_value:
                    out.append(f"{pool}/{it} capacity {resource}: core {core['capacity'][resource]}, "
                               f"Karpenter {go_value}")
    return out


# ---------------------------------------------------------------------------------------------
# Shrinking


def smaller(case: dict) -> Iterator[dict]:
    """Cases one step smaller than ``case`` (an overlay, pool, type, zone, requirement, value or field dropped),
    each still one both sides read (at least one pool and type, a zone no requirement names; In/NotIn keep a
    value)."""
    for c in _smaller(case):
        if {z["name"] for z in c["zones"]} - _named_zones(c):
            yield c


def _smaller(case: dict) -> Iterator[dict]:
    for key in ("overlays", "nodepools", "instance_types", "zones"):
        items = case[key]
        for i in range(len(items)):
            if key != "overlays" and len(items) == 1:
                continue
            c = copy.deepcopy(case)
            del c[key][i]
            if key == "zones":
                gone = case["zones"][i]["name"]
                for t in c["instance_types"]:
                    t["zones"] = [z for z in t["zones"] if z != gone]
            yield c
    for i, overlay in enumerate(case["overlays"]):
        spec = overlay["spec"]
        for field in ("weight", "price", "priceAdjustment", "capacity"):
            if field in spec:
                c = copy.deepcopy(case)
                del c["overlays"][i]["spec"][field]
                yield c
        for resource in list(spec.get("capacity") or {}):
            if len(spec["capacity"]) > 1:
                c = copy.deepcopy(case)
                del c["overlays"][i]["spec"]["capacity"][resource]
                yield c
        yield from _smaller_requirements(case, ("overlays", i, "spec"))
    for i, pool in enumerate(case["nodepools"]):
        template = pool["spec"]["template"]
        if "metadata" in template:
            c = copy.deepcopy(case)
            del c["nodepools"][i]["spec"]["template"]["metadata"]
            yield c
        yield from _smaller_requirements(case, ("nodepools", i, "spec", "template", "spec"))


def _smaller_requirements(case: dict, path: tuple) -> Iterator[dict]:
    def at(c: dict) -> list:
        node: Any = c
        for step in path:
            node = node[step]
        return node["requirements"]

    for j, req in enumerate(at(case)):
        c = copy.deepcopy(case)
        del at(c)[j]
        yield c
        for v in req.get("values", []) if len(req.get("values", [])) > 1 else []:
            c = copy.deepcopy(case)
            at(c)[j]["values"].remove(v)
            yield c
