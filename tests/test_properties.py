"""Property-based robustness: random props either raise a coded error or synthesize conformant manifests.

``make test`` runs 250 examples, ``make soak`` 5,000 (tests/soak.py); KARPENTER_GPU_PBT_EXAMPLES sets another
count (e.g. 10000).
"""

from __future__ import annotations

import os

import cdk8s
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from karpenter_gpu import (CapacityReservationTerm, CapacityType, Duration, Fallback,
                           GpuCapacityOverlay, GpuInferencePool, GpuMemory, GpuNodeClass, GpuTrainingPool,
                           KarpenterGpuError, NodeOverlayDiscourage, PriceAdjustment, ReservationType,
                           ReservedCapacityPool, SpotTier, StaticCapacityPool, Taint, TieredSpotPools)
import karpenter_gpu.apiserver._cel_celpy  # noqa: F401  (cel-python raises the recursion limit on import; do it before hypothesis runs)
from karpenter_gpu.apiserver.conformance import validate_manifest
from karpenter_gpu.apiserver.findings import Severity
from karpenter_gpu.k8s.units import REPORTED_GPU_MEMORY_MIB
from tests import soak

EXAMPLES = int(os.environ.get("KARPENTER_GPU_PBT_EXAMPLES", str(soak.size(250, 5000))))


def mostly(valid, invalid):
    """(valid, invalid) strategies for one prop; see :func:`Picker`."""
    return (valid, invalid)


class Picker:
    """Half the examples draw only valid values (and should render); the others mix in invalid ones.

    Per-prop odds would not do: hypothesis favours some branches, and with a dozen props almost
    every example would then hold one invalid value and never reach the rendering path.
    """

    def __init__(self, draw):
        self.draw, self.valid_only = draw, draw(st.booleans())

    def __call__(self, pair):
        valid, invalid = pair if isinstance(pair, tuple) else (pair, pair)
        return self.draw(valid if self.valid_only else st.one_of(valid, invalid))


# An explicit alphabet: without one, hypothesis first maps the whole UTF-8 codec (~1 s in every run).
names = mostly(st.from_regex(r"[a-z][a-z0-9-]{0,30}[a-z0-9]", fullmatch=True,
                             alphabet=st.characters(codec="ascii")),
               st.sampled_from(["", "GPU", "-x", "a" * 64, "gpu_pool"]))
limits = mostly(st.integers(1, 500), st.sampled_from([0, -1, True, "8"]))
weights = mostly(st.integers(1, 100), st.sampled_from([0, 101, -5, None]))
gpu_names = mostly(st.lists(st.sampled_from(sorted(REPORTED_GPU_MEMORY_MIB)), min_size=1, max_size=4,
                            unique=True).map(tuple),
                   st.sampled_from([(), ("A10G",), ("",), ("gpu x",), "a10g"]))
durations = mostly(st.one_of(st.builds(Duration.minutes, st.integers(0, 60 * 24 * 60)), st.just(Duration.never()),
                             st.sampled_from(["30m", "720h", "1h30m", "Never"])),
                   st.sampled_from(["PT30M", "14d", "", "-5m"]))
capacity = mostly(st.lists(st.sampled_from(list(CapacityType)), min_size=1, max_size=3, unique=True).map(tuple),
                  st.sampled_from([(), ("preemptible",), ("spot", "spot")]))
zones = mostly(st.lists(st.sampled_from(["us-east-1a", "us-east-1b", "us-east-1c"]), max_size=3,
                        unique=True).map(tuple),
               st.just(("Bad Zone",)))
window_fields = dict(
    days=mostly(st.sampled_from(["MON-FRI", "DAILY", "SAT,SUN", ("MON", "WED")]), st.just("FRI-MON")),
    start=st.sampled_from(["00:00", "09:00", "22:30", "05:45"]), end=st.sampled_from(["06:00", "19:00", "23:15"]),
    time_zone=mostly(st.sampled_from(["UTC", "Asia/Seoul", "America/New_York", "Australia/Lord_Howe",
                                      "Asia/Kathmandu", "Europe/Berlin"]), st.sampled_from(["Mars/Base", None])),
    nodes=mostly(st.sampled_from([0, 1, 5, "10%", "100%"]), st.sampled_from(["150%", -1])),
    reasons=st.sampled_from([(), ("Drifted",), ("Empty", "Underutilized")]))
memory = mostly(st.one_of(st.none(), st.sampled_from([GpuMemory.of_gpu("t4"), GpuMemory.gib(16)])),
                st.builds(GpuMemory.mib, st.integers(0, 300000)))
taints = mostly(st.lists(st.sampled_from([Taint.gpu(), Taint("example.com/team", "ml"), Taint("example.com/x")]),
                         max_size=2, unique=True).map(tuple),
                st.just(("nvidia.com/gpu",)))
labels = mostly(st.dictionaries(st.sampled_from(["team", "example.com/tier", "workload"]),
                                st.sampled_from(["ml", "gpu-1", "a.b_c"]), max_size=3),
                st.sampled_from([{"karpenter.sh/nodepool": "x"}, {"team": "bad value"},
                                 {"karpenter.k8s.aws/instance-pods": "8"}]))
amis = mostly(st.sampled_from(["al2023@v20251103", "bottlerocket@v1.50.0", "bottlerocket@1.2.3"]),
              st.sampled_from(["al2023@latest", "al2@v1", "al2023@2025"]))


def windows(draw, pick) -> tuple[dict, ...]:
    return tuple({k: pick(v) for k, v in window_fields.items()} for _ in range(draw(st.integers(0, 3))))


def pool_props(draw, pick, *, training: bool) -> dict:
    props = dict(name=pick(names), gpu_limit=pick(limits), weight=pick(weights), zones=pick(zones),
                 taints=pick(taints), disruption_windows=windows(draw, pick), consolidate_after=pick(durations),
                 min_gpu_memory=pick(memory))
    for key, pair in (("gpu_names", gpu_names), ("capacity_types", capacity), ("labels", labels)):
        if draw(st.booleans()):
            props[key] = pick(pair)
    if training or draw(st.booleans()):
        props["expire_after"] = pick(durations)
    return props


@st.composite
def scenarios(draw):
    pick = Picker(draw)
    kind = draw(st.sampled_from(["inference", "training", "reserved", "tiers", "static", "discourage", "capacity"]))
    node_class = dict(name=pick(names), ami=pick(amis), role="R", cluster_name="c")
    if kind == "reserved" and pick(mostly(st.just(True), st.just(False))):
        node_class["capacity_reservations"] = (CapacityReservationTerm.by_id("cr-0abc"),)
    if kind in ("inference", "training"):
        return kind, node_class, pool_props(draw, pick, training=kind == "training")
    if kind == "reserved":
        props = pool_props(draw, pick, training=True)
        props.pop("capacity_types", None)
        props["fallback"] = draw(st.sampled_from(list(Fallback)))
        props["reservation_type"] = draw(st.sampled_from([None, *ReservationType]))
        return kind, node_class, props
    if kind == "tiers":
        count = draw(st.integers(1, 4))
        given = pick(mostly(st.one_of(st.just([None] * count),
                                      st.lists(st.integers(1, 100), min_size=count, max_size=count, unique=True)
                                      .map(lambda ws: sorted(ws, reverse=True))),
                            st.lists(st.one_of(st.none(), st.integers(-1, 101)), min_size=count, max_size=count)))
        tiers = tuple(SpotTier(suffix=f"t{i}", gpu_names=draw(gpu_names[0]), gpu_limit=draw(st.integers(1, 50)),
                               weight=w) for i, w in enumerate(given))
        return kind, node_class, dict(name=pick(names), tiers=tiers, disruption_windows=windows(draw, pick))
    if kind == "static":
        return kind, node_class, dict(name=pick(names), replicas=pick(mostly(st.integers(0, 10), st.just(-1))),
                                      zones=pick(zones),
                                      node_limit=pick(mostly(st.one_of(st.none(), st.integers(11, 12)),
                                                             st.integers(-1, 10))),
                                      instance_types=draw(st.sampled_from([(), ("g5.xlarge",)])))
    price = pick(mostly(st.sampled_from([{"price_adjustment": PriceAdjustment.percent(30)}, {"price": "1.5"}]),
                        st.sampled_from([{"price_adjustment": "+10%", "price": "2"}, {"price_adjustment": "30%"}])))
    if kind == "discourage":
        return kind, None, dict(name=pick(names), weight=pick(mostly(st.integers(1, 10000), st.just(0))),
                                instance_types=pick(mostly(st.just(("g5.12xlarge",)), st.sampled_from([("G5",), ()]))),
                                **price)
    return kind, None, dict(name=pick(names), weight=pick(mostly(st.integers(1, 10000), st.just(10001))),
                            capacity=pick(mostly(st.sampled_from([{"nvidia.com/gpu": 1}, {"amd.com/gpu": 2}]),
                                                 st.sampled_from([{"cpu": 1}, {"aws.amazon.com/neuron": 1}]))))


CONSTRUCTS = {"inference": GpuInferencePool, "training": GpuTrainingPool, "reserved": ReservedCapacityPool,
              "tiers": TieredSpotPools, "static": StaticCapacityPool, "discourage": NodeOverlayDiscourage,
              "capacity": GpuCapacityOverlay}


@pytest.mark.soak
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenarios())
def test_props_raise_coded_errors_or_render_conformant_manifests(crds, scenario):
    kind, node_class_props, props = scenario
    chart = cdk8s.Chart(cdk8s.Testing.app(), "pbt")
    try:
        extra = {"node_class": GpuNodeClass(chart, "Class", **node_class_props)} if node_class_props else {}
        CONSTRUCTS[kind](chart, "Subject", **extra, **props)
    except KarpenterGpuError as err:
        assert err.code.startswith("KG") and err.prop, err
        event(f"{kind}: refused {err.code}")
        return
    event(f"{kind}: rendered")
    for manifest in cdk8s.Testing.synth(chart):
        errors = [f for f in validate_manifest(manifest, crds) if f.severity == Severity.ERROR]
        assert not errors, (kind, props, [f.line() for f in errors])
