"""The scheduling core (karpenter_gpu.k8s.scheduling) against kubernetes-sigs/karpenter v1.14.1.

Each test names the upstream function whose behaviour it pins.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from karpenter_gpu.analysis.pod_fit import pod_fit
from karpenter_gpu.analysis.pod_shape import PodShape
from karpenter_gpu.analysis.simulator import simulate_pools
from karpenter_gpu.check.rules import check_rules
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.labels import WELL_KNOWN_LABELS
from karpenter_gpu.k8s.requirements import Operator, Requirement as Typed
from karpenter_gpu.k8s.scheduling import (
    Requirement, Requirements, atoi, order_by_weight, pod_requirements, satisfies_min_values, tolerates,
    tolerations_for, untolerated,
)
from tests import soak

AWS = "karpenter.k8s.aws/instance-"
EXAMPLES = int(os.environ.get("KARPENTER_GPU_PBT_EXAMPLES", str(soak.size(600, 5000))))


def r(key: str, op: str, *values: str, min_values: int | None = None) -> Requirement:
    raw: dict = {"key": key, "operator": op, "values": list(values)}
    if min_values is not None:
        raw["minValues"] = min_values
    return Requirement.from_dict(raw)


# --- requirement.go -------------------------------------------------------------------------------


def test_gt_and_lt_are_canonical_bounds():
    # NewRequirementWithFlexibility: Gt N -> Gte N+1, Lt N -> Lte N-1
    assert r("k", "Gt", "4") == r("k", "Gte", "5")
    assert r("k", "Lt", "4") == r("k", "Lte", "3")
    assert r("k", "Gt", "4").to_dicts() == [{"key": "k", "operator": "Gte", "values": ["5"]}]
    assert r("k", "Gt", str(2**63 - 1)).operator == "DoesNotExist"  # Gt MaxInt matches nothing


def test_has_within_bounds_needs_an_integer():
    # Requirement.Has / withinBounds: with a bound set a non-integer label never matches (strconv.Atoi)
    gt = r("k", "Gt", "4")
    assert gt.has("5") and not gt.has("4") and not gt.has("abc") and not gt.has(" 5") and not gt.has("5.0")
    assert atoi("+5") == 5 and atoi("-3") == -3 and atoi("5 ") is None and atoi("²") is None


def test_malformed_comparison_is_refused_everywhere():
    # The CRD's CEL int(values[0]) >= 0: Gt ['abc'] is refused by the API server. The core raises KG620, and the
    # simulator (KG711) and the rules (KG417 for a workload selecting that pool) agree: nothing lands there.
    with pytest.raises(KarpenterGpuError) as info:
        r("k", "Gt", "abc")
    assert info.value.code == "KG620"
    pool = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "p"},
            "spec": {"template": {"spec": {"requirements": [
                {"key": AWS + "gpu-count", "operator": "Gt", "values": ["abc"]}]}}}}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "w"},
           "spec": {"nodeSelector": {"karpenter.sh/nodepool": "p", AWS + "gpu-count": "5"}, "containers": []}}
    with pytest.raises(KarpenterGpuError) as sim:
        simulate_pools([pool])
    assert sim.value.code == "KG711"
    findings = check_rules([("p.yaml", pool), ("w.yaml", pod)])
    assert [f.code for f in findings if f.code == "KG417"] == ["KG417"]
    assert "cannot be read" in next(f.message for f in findings if f.code == "KG417")


@pytest.mark.parametrize("raw", [
    {"key": "k", "operator": "In"},                               # In needs values
    {"key": "k", "operator": "in", "values": ["a"]},              # operators are case-sensitive
    {"key": "k", "operator": "Gt", "values": ["1", "2"]},
    {"key": "k", "operator": "Gte", "values": ["-1"]},
    {"key": "k", "operator": "In", "values": [1]},
    {"key": "k", "operator": "In", "values": ["a"], "minValues": 2},
    {"operator": "Exists"},
])
def test_from_dict_refuses_what_the_crd_refuses(raw):
    with pytest.raises(KarpenterGpuError) as info:
        Requirement.from_dict(raw)
    assert info.value.code == "KG620"


@pytest.mark.parametrize("accepted, refused", [
    ({"minValues": 1}, {"minValues": True}),      # True == 1 and hashes alike: the memo tells them apart
    ({"minValues": 1}, {"minValues": 1.0}),
    ({"values": ["1"]}, {"values": [1]}),
    ({"values": ["1"]}, {"values": [True]}),
])
def test_from_dict_remembers_only_what_it_accepted(accepted, refused):
    """Requirement.from_dict remembers each dict it read (pools repeat their requirements): an equal-looking dict
    it refuses is still refused after the accepted one, and the accepted one is read to the same requirement."""
    base = {"key": "k", "operator": "In", "values": ["1"]}
    first = Requirement.from_dict({**base, **accepted})
    assert Requirement.from_dict({**base, **accepted}) is first
    with pytest.raises(KarpenterGpuError) as info:
        Requirement.from_dict({**base, **refused})
    assert info.value.code == "KG620"


def test_not_in_without_values_is_exists_and_exists_ignores_values():
    assert r("k", "NotIn").operator == "Exists"
    assert r("k", "Exists", "x").operator == "Exists" and r("k", "Exists", "x").has("x")


def test_intersection_of_disjoint_sets_is_does_not_exist():
    # Requirements.Add intersects; an empty In set is DoesNotExist, which admits nodes without the label
    reqs = Requirements([r(AWS + "gpu-name", "In", "a10g"), r(AWS + "gpu-name", "In", "t4")])
    assert reqs[AWS + "gpu-name"].operator == "DoesNotExist"
    assert reqs.admits_labels({}) is None
    assert reqs.admits_labels({AWS + "gpu-name": "a10g"}) is not None


def test_intersection_of_bounds():
    both = r("k", "Gt", "2").intersection(r("k", "Lt", "9"))
    assert (both.gte, both.lte) == (3, 8) and both.operator == "Exists"
    assert [d["operator"] for d in both.to_dicts()] == ["Gte", "Lte"]  # BoundedNodeSelectorRequirements
    assert r("k", "Gt", "5").intersection(r("k", "Lt", "5")).operator == "DoesNotExist"
    mixed = r("k", "In", "1", "5", "x").intersection(r("k", "Gte", "3"))
    assert mixed.values == frozenset({"5"}) and mixed.gte is None  # concrete sets drop their bounds


def test_min_values_intersect_to_the_larger():
    assert r("k", "In", "a", "b", "c", min_values=2).intersection(r("k", "Exists", min_values=3)).min_values == 3


def test_has_intersection_matches_intersection():
    # HasIntersection is "a more efficient Intersection": both agree
    pairs = [(r("k", "In", "a"), r("k", "NotIn", "a")), (r("k", "NotIn", "a"), r("k", "Exists")),
             (r("k", "Gt", "3"), r("k", "In", "4")), (r("k", "Gt", "3"), r("k", "In", "x"))]
    for a, b in pairs:
        inter = a.intersection(b)
        assert a.has_intersection(b) == (inter.complement or bool(inter.values))


# --- requirements.go: Compatible and Intersects -----------------------------------------------------


def test_compatible_refuses_undefined_custom_labels_but_not_well_known_ones():
    pool = Requirements([r(AWS + "family", "In", "g5")])
    assert pool.compatible(Requirements([r("team", "In", "ml")]), WELL_KNOWN_LABELS) is not None
    assert "does not have known values" in pool.compatible(Requirements([r("team", "In", "ml")]), WELL_KNOWN_LABELS)
    assert pool.compatible(Requirements([r("team", "NotIn", "ml")]), WELL_KNOWN_LABELS) is None
    # AllowUndefinedWellKnownLabels: a zone the pool does not declare is fine
    assert pool.compatible(Requirements([r("topology.kubernetes.io/zone", "In", "a")]), WELL_KNOWN_LABELS) is None
    assert pool.compatible(Requirements([r("topology.kubernetes.io/zone", "In", "a")])) is not None


def test_intersects_lets_two_exclusions_pass():
    assert Requirements([r("k", "DoesNotExist")]).intersects(Requirements([r("k", "NotIn", "a")])) is None
    assert Requirements([r("k", "DoesNotExist")]).intersects(Requirements([r("k", "In", "a")])) is not None


def test_pod_selector_on_undeclared_well_known_label_fits():
    # Compatible(AllowUndefinedWellKnownLabels) from the scheduler: instance-gpu-name is well known (aws labels.go)
    pool = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "p"},
            "spec": {"template": {"spec": {"requirements": [{"key": AWS + "family", "operator": "In",
                                                                "values": ["g5", "g6"]}]}}}}
    fit = pod_fit(PodShape.parse(f"select={AWS}gpu-name=l4"), [pool])[0]
    assert fit.instance == "g6.xlarge"
    refused = pod_fit(PodShape.parse("select=example.com/team=ml"), [pool])[0]
    assert refused.instance is None and "does not have known values" in refused.reason


def test_pod_requirements_take_the_selector_and_the_first_term():
    pod = {"nodeSelector": {"a": "1"}, "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "In", "values": ["1", "2"]},
                                                     {"key": "b", "operator": "Exists"}]},
                              {"matchExpressions": [{"key": "c", "operator": "Exists"}]}]}}}}
    reqs = pod_requirements(pod)
    assert set(reqs) == {"a", "b"} and reqs["a"].values == frozenset({"1"})


# --- tolerations ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("toleration", "tolerated"), [
    ({"key": "nvidia.com/gpu", "operator": "Exists"}, True),
    ({"key": "nvidia.com/gpu", "value": "true"}, True),                         # operator "" means Equal
    ({"key": "nvidia.com/gpu", "operator": "Equal", "value": "false"}, False),
    ({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoExecute"}, False),
    ({"operator": "Exists"}, True),                                              # empty key: every taint
    ({"key": "other", "operator": "Exists"}, False),
    ({"key": "nvidia.com/gpu", "operator": "Sorta"}, False),
])
def test_tolerates_taint(toleration, tolerated):
    # k8s.io/api core/v1 toleration.go ToleratesTaint
    assert tolerates(toleration, {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}) is tolerated


def test_numeric_toleration_operators():
    taint = {"key": "tier", "value": "5", "effect": "NoSchedule"}
    assert tolerates({"key": "tier", "operator": "Gt", "value": "4"}, taint)     # taint value > toleration value
    assert not tolerates({"key": "tier", "operator": "Gt", "value": "5"}, taint)
    assert tolerates({"key": "tier", "operator": "Lt", "value": "6"}, taint)
    assert not tolerates({"key": "tier", "operator": "Lt", "value": "x"}, taint)


def test_prefer_no_schedule_is_relaxed():
    # Taints.Tolerates needs every taint tolerated; preferences.go toleratePreferNoScheduleTaints relaxes PNS
    taints = [{"key": "a", "effect": "PreferNoSchedule"}, {"key": "b", "effect": "NoSchedule"}]
    assert untolerated(taints, []) == [taints[1]]
    assert untolerated(taints, [], relax_preferences=False) == taints


# --- ordering ---------------------------------------------------------------------------------------


def test_equal_weights_order_by_name_descending():
    # pkg/utils/nodepool OrderByWeight and v1alpha1 NodeOverlayList.OrderByWeight
    items = [("a", 10), ("c", None), ("b", 10), ("d", 0)]
    assert [n for n, _ in order_by_weight(items, lambda x: x[1], lambda x: x[0])] == ["b", "a", "d", "c"]


def test_simulator_orders_equal_weight_pools_by_name_descending():
    def pool(name):
        return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name},
                "spec": {"weight": 5, "template": {"spec": {"requirements": [
                    {"key": AWS + "family", "operator": "In", "values": ["g5"]}]}}}}
    assert [p.name for p in simulate_pools([pool("alpha"), pool("beta")])] == ["beta", "alpha"]


# --- typed builder and dict view agree (property) ---------------------------------------------------

_VALUES = st.sampled_from(["0", "1", "5", "16384", "22888", "a10g", "t4", "", "x", "-1", "+3", "07"])
_KEYS = st.sampled_from([AWS + "gpu-count", AWS + "gpu-name", "example.com/team"])


@st.composite
def _typed(draw):
    key = draw(_KEYS)
    op = draw(st.sampled_from(list(Operator)))
    if op in (Operator.GT, Operator.LT, Operator.GTE, Operator.LTE):
        return Typed._compare(key, op, draw(st.integers(0, 30000))) if key != AWS + "gpu-memory" else None
    if op in (Operator.EXISTS, Operator.DOES_NOT_EXIST):
        return Typed(key, op, (), draw(st.none() | st.integers(1, 3)) if op == Operator.EXISTS else None)
    values = draw(st.lists(st.sampled_from(["a10g", "t4", "l4", "1", "4", "8"]), min_size=1, max_size=4, unique=True))
    mv = draw(st.none() | st.integers(1, len(values))) if op == Operator.IN else None
    return Typed(key, op, values, mv)


def _oracle(rendered: dict, value: str | None) -> bool:
    """NodeSelectorRequirement semantics written out independently of the core."""
    op, values = rendered["operator"], rendered.get("values", [])
    if value is None:
        return op in ("NotIn", "DoesNotExist")
    if op == "In":
        return value in values
    if op == "NotIn":
        return value not in values
    if op == "Exists":
        return True
    if op == "DoesNotExist":
        return False
    if not value.lstrip("+-").isascii() or not value.lstrip("+-").isdigit() or value[:1] == "" or \
            value.count("+") + value.count("-") > (1 if value[:1] in "+-" else 0):
        return False
    n, bound = int(value), int(values[0])
    return {"Gt": n > bound, "Lt": n < bound, "Gte": n >= bound, "Lte": n <= bound}[op]


@pytest.mark.soak
@settings(max_examples=max(1, EXAMPLES // 4), deadline=None)
@given(_typed(), st.lists(_VALUES | st.none(), min_size=1, max_size=6))
def test_typed_requirement_and_dict_view_agree(typed, labels):
    if typed is None:
        return
    rendered = typed.render()
    core, view = typed.to_core(), Requirement.from_dict(rendered)
    assert core == view                               # same value set, complement, bounds and minValues
    back = [Requirement.new(d["key"], d["operator"], d.get("values", ()), d.get("minValues")) for d in view.to_dicts()]
    assert Requirements(back)[view.key] == view        # NodeSelectorRequirements() round-trips (Lt 0 is Lte -1)
    for value in labels:
        assert view.admits(value) == core.admits(value) == _oracle(rendered, value)


def test_tolerations_for_drops_what_an_exists_already_covers():
    taints = [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}, {"key": "nvidia.com/gpu", "value": "true",
                                                                  "effect": "NoSchedule"},
              {"key": "team", "value": "ml", "effect": "NoExecute"}, {"key": "team", "value": "ml", "effect": "NoExecute"}]
    tols = tolerations_for(taints)
    assert tols == [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
                    {"key": "team", "operator": "Equal", "value": "ml", "effect": "NoExecute"}]
    assert untolerated(taints, tols) == []  # every taint stays tolerated (Taints.Tolerates)


# --- the rules and the simulator agree on where a pod can land (property) ----------------------------

_POOL_REQS = st.lists(st.sampled_from([
    {"key": AWS + "family", "operator": "In", "values": ["g5", "g6"]},
    {"key": AWS + "family", "operator": "In", "values": ["g6"]},
    {"key": AWS + "gpu-count", "operator": "Gt", "values": ["0"]},
    {"key": AWS + "gpu-count", "operator": "Lt", "values": ["4"]},
    {"key": AWS + "gpu-name", "operator": "NotIn", "values": ["t4"]},
    {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]},
    {"key": "example.com/team", "operator": "In", "values": ["ml"]},
    {"key": AWS + "gpu-count", "operator": "Gt", "values": ["abc"]},
]), max_size=4)
_SELECTORS = st.dictionaries(st.sampled_from([AWS + "family", AWS + "gpu-count", "example.com/team",
                                              "karpenter.sh/capacity-type", "example.com/other"]),
                             st.sampled_from(["g5", "g6", "1", "4", "5", "abc", "ml", "spot", "on-demand"]), max_size=2)
_TOLERATIONS = st.lists(st.sampled_from([{"key": "nvidia.com/gpu", "operator": "Exists"},
                                         {"key": "nvidia.com/gpu", "value": "false"}, {"operator": "Exists"}]),
                        max_size=1)


@pytest.mark.soak
@settings(max_examples=max(1, EXAMPLES // 10), deadline=None)
@given(_POOL_REQS, _SELECTORS, _TOLERATIONS, st.booleans())
def test_rules_and_simulator_agree_on_landing(reqs, selector, tolerations, tainted):
    pool = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "p"},
            "spec": {"template": {"spec": {"requirements": reqs, **(
                {"taints": [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]} if tainted else {})}}}}
    selector = {**selector, "karpenter.sh/nodepool": "p"}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "w"},
           "spec": {"nodeSelector": selector, "tolerations": tolerations, "containers": []}}
    # KG417: the pool's taints and requirements; KG421: the simulator's answer for the same pod (no requests here)
    refused = any(f.code in ("KG417", "KG421") for f in check_rules([("p.yaml", pool), ("w.yaml", pod)]))
    try:
        reports = simulate_pools([pool])
    except KarpenterGpuError:
        assert refused  # a pool Karpenter cannot read: neither lets the pod land
        return
    if not reports[0].launchable:
        return  # the simulator answers "cannot launch" before the placement question
    shape = PodShape(gpus=0, cpu=0, memory=0, tolerations=tuple(tolerations), node_selector=selector)
    fit = pod_fit(shape, [pool])[0]
    assert refused == (fit.instance is None), (fit.reason, reqs, selector)


def test_the_core_and_the_analyzers_never_start_jsii():
    import subprocess
    import sys
    code = ("import sys, karpenter_gpu.k8s.scheduling, karpenter_gpu.k8s.views, karpenter_gpu.k8s.offerings, "
            "karpenter_gpu.k8s.drift, karpenter_gpu.k8s.labels, karpenter_gpu.analysis.simulator, "
            "karpenter_gpu.analysis.diff, karpenter_gpu.check.rules, karpenter_gpu.analysis.explain; "
            "print(sorted(m for m in ('jsii', 'cdk8s', 'constructs') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


_RAW = st.one_of(
    st.builds(lambda vs: {"key": "k", "operator": "In", "values": vs},
              st.lists(st.sampled_from(["1", "3", "5", "x", ""]), min_size=1, max_size=3, unique=True)),
    st.builds(lambda vs: {"key": "k", "operator": "NotIn", "values": vs},
              st.lists(st.sampled_from(["1", "3", "5", "x"]), max_size=3, unique=True)),
    st.sampled_from([{"key": "k", "operator": "Exists"}, {"key": "k", "operator": "DoesNotExist"}]),
    st.builds(lambda op, n: {"key": "k", "operator": op, "values": [str(n)]},
              st.sampled_from(["Gt", "Lt", "Gte", "Lte"]), st.integers(0, 6)),
)


@pytest.mark.soak
@settings(max_examples=max(1, EXAMPLES // 4), deadline=None)
@given(st.lists(_RAW, min_size=1, max_size=4), st.sampled_from(["0", "1", "2", "3", "4", "5", "6", "x", "", None]))
def test_add_intersects(raws, value):
    # requirements.go Add: a node *with* the label satisfies the intersection exactly when it satisfies every
    # requirement. Without the label it is not a conjunction: In [1] + DoesNotExist is DoesNotExist, which a
    # node without the label satisfies although In [1] alone would not (the empty intersection is not "nothing").
    reqs = Requirements.from_dicts(raws)
    single = [Requirement.from_dict(r) for r in raws]
    if value is not None:
        assert reqs["k"].has(value) == reqs["k"].admits(value) == all(r.has(value) for r in single)
    elif all(r.admits(None) for r in single):
        assert reqs["k"].admits(None)


# ----------------------------------------------------------------------------- found by tests/oracle

def test_comparisons_at_the_int64_edges_do_what_go_does():
    """``NewRequirementWithFlexibility``: ``Gt MaxInt`` is ``NewRequirement(key, DoesNotExist)`` (minValues
    dropped); ``Lt MinInt``'s ``value--`` wraps to MaxInt, so every integer is below it."""
    gt = Requirement.new("k", "Gt", ["9223372036854775807"], min_values=3)
    assert (gt.operator, gt.min_values) == ("DoesNotExist", None)
    lt = Requirement.new("k", "Lt", ["-9223372036854775808"])
    assert lt.lte == 2**63 - 1 and lt.has("5") and lt.has("-9223372036854775808")


@pytest.mark.parametrize("value", ["+2", "05", "-0", "", " 1", "9223372036854775808"])
def test_toleration_comparisons_read_strict_decimal_integers(value):
    """``compareNumericValues`` (k8s.io/api core/v1 toleration.go): ``IsDecimalInteger`` then ``ParseInt``."""
    assert not tolerates({"key": "a", "operator": "Gt", "value": "-1"}, {"key": "a", "value": value})
    assert not tolerates({"key": "a", "operator": "Lt", "value": value}, {"key": "a", "value": "0"})
    assert tolerates({"key": "a", "operator": "Gt", "value": "-1"}, {"key": "a", "value": "0"})
    assert tolerates({"key": "a", "operator": "Lt", "value": "-5"}, {"key": "a", "value": "-9223372036854775808"})


def test_satisfies_min_values_counts_types_in_order():
    """``InstanceTypes.SatisfiesMinValues``: the types needed in order, else the keys still short."""
    reqs = Requirements.from_dicts([{"key": "karpenter.k8s.aws/instance-family", "operator": "In",
                                     "values": ["g5", "g6", "p4d"], "minValues": 2}])
    types = [Requirements.from_labels({"karpenter.k8s.aws/instance-family": f}) for f in ("g5", "g5", "g6")]
    assert satisfies_min_values(types, reqs) == (3, {})
    assert satisfies_min_values(types[:2], reqs) == (2, {"karpenter.k8s.aws/instance-family": 1})
    assert satisfies_min_values([Requirements()], reqs) == (1, {"karpenter.k8s.aws/instance-family": 0})
    assert satisfies_min_values(types, Requirements()) == (0, {})
