"""What validate and the simulator remember across objects and calls, and that remembering changes no answer."""

from __future__ import annotations

import dataclasses
from decimal import Decimal as D
from typing import Iterator

import pytest

from karpenter_gpu.analysis import ceiling
from karpenter_gpu.analysis.catalog import default_catalog
from karpenter_gpu.analysis.simulator import simulate_pools
from karpenter_gpu.apiserver import _defaults, conformance
from karpenter_gpu.apiserver.conformance import validate_manifest
from karpenter_gpu import perf
from karpenter_gpu.k8s import overlay_resolution
from tests.test_simulator import ON, overlay, pool, req


@pytest.fixture
def caching_on() -> Iterator[None]:
    """Caching on for a test that looks into the caches (the suite also runs with ``KARPENTER_GPU_CACHE=off``:
    tests/test_perf.py); back as it was after it."""
    with perf.caching_set(True):
        yield


@pytest.mark.usefixtures("caching_on")
def test_the_remembered_ceiling_is_the_computed_one():
    items = ((f"t{i}", D(3 + i) / 4, (D(i + 1), D(2))) for i in range(4))
    items_t, limits = tuple(items), (D(9), D(7))
    assert ceiling.dearest_fill_cached(items_t, limits) == ceiling.dearest_fill(items_t, limits)
    hits = ceiling._dearest_fill_memo.cache_info().hits
    assert ceiling.dearest_fill_cached(items_t, limits) is ceiling.dearest_fill_cached(items_t, limits)
    assert ceiling._dearest_fill_memo.cache_info().hits >= hits + 2
    other = ceiling.dearest_fill_cached(items_t, (D(4), D(3)))  # another limit: another answer, not the memo's
    assert other == ceiling.dearest_fill(items_t, (D(4), D(3))) and other != ceiling.dearest_fill(items_t, limits)


def test_pools_that_share_their_candidates_get_the_answers_each_gets_alone():
    """Pools with the same admitted types, offerings and node class share one candidate list, and what the simulator
    works out of a list (limit filter, limit unit, ceiling, notes) is worked out once for it. Each pool's report
    is still the one it gets simulated alone: limits that drop candidates (GPUs, cpu, nodes), none, a static pool."""
    gpu = req("instance-gpu-manufacturer", "In", "nvidia")
    node_class = {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "gpu"},
                  "spec": {"amiSelectorTerms": [{"alias": "al2023@latest"}], "kubelet": {"maxPods": 30}}}
    shares = overlay("shares", req("instance-type", "In", "g5.xlarge", "g5.2xlarge"), weight=1,
                     capacity={"nvidia.com/gpu": "4"})
    discount = overlay("discount", req("instance-family", "In", "g6"), weight=2, priceAdjustment="-10%")
    pools = [pool("big", gpu, weight=50, limits={"nvidia.com/gpu": "64"}),
             pool("small", gpu, weight=40, limits={"nvidia.com/gpu": "2"}),
             pool("cpus", gpu, weight=30, limits={"cpu": "16", "memory": "200Gi"}),
             pool("nodes", gpu, weight=20, limits={"nodes": "3"}),
             pool("open", gpu, weight=10),
             pool("static", gpu, weight=5, replicas=2, limits={"nodes": "3"})]
    together = {r.name: r for r in simulate_pools([node_class, shares, discount, *pools], settings=ON)}
    assert len(together["small"].candidates) < len(together["big"].candidates)  # the limit drops some
    for manifest in pools:
        [alone] = simulate_pools([node_class, shares, discount, manifest], settings=ON)
        shared = together[alone.name]
        assert shared.candidate_names == alone.candidate_names
        for field in ("notes", "problems", "excluded", "worst_case_hourly", "worst_case_nodes", "worst_case_exact",
                      "bounded_by", "unbounded", "limit_unit", "launchable"):
            assert getattr(shared, field) == getattr(alone, field), (alone.name, field)


def test_admitted_types_are_remembered_per_catalog():
    manifests = [pool("p", req("family", "In", "g5"), limits={"nvidia.com/gpu": "16"})]
    full = simulate_pools(manifests)
    [g5] = [t for t in default_catalog().types if t.name == "g5.xlarge"]
    narrow = dataclasses.replace(default_catalog(), types=(g5,))  # same requirements, another catalog
    [only] = simulate_pools(manifests, narrow)
    assert [c.instance.name for c in only.candidates] == ["g5.xlarge"]
    assert len(simulate_pools(manifests)[0].candidates) == len(full[0].candidates) > 1  # the default's answer again


@pytest.mark.usefixtures("caching_on")
def test_the_types_an_overlay_may_match_are_remembered_per_requirement_set_and_catalog():
    """Environments repeat overlays: the second resolution over the catalog reuses what the first found for the same
    requirements (offering keys aside, which the match ignores), and other requirements get their own answer."""
    def priced(*reqs: dict) -> list[str]:
        env = [pool("p", req("family", "In", "g5", "g6")),
               overlay("o", *reqs, price="0.01")]
        return sorted(c.instance.name for c in simulate_pools(env, settings=ON)[0].candidates if c.overlays)

    overlay_resolution._SEEN.clear()
    g5 = priced(req("family", "In", "g5"))
    seen = overlay_resolution._SEEN.for_owner(default_catalog().requirements_by_type)
    assert frozenset(r for r in seen if isinstance(r, frozenset) and r) and g5 and all(n.startswith("g5.") for n in g5)
    remembered = len(seen)
    assert priced(req("family", "In", "g5"), req("karpenter.sh/capacity-type", "In", "on-demand")) == g5
    assert len(seen) == remembered  # the offering key aside, the same requirement set: no new entry
    g6 = priced(req("family", "In", "g6"))
    assert g6 and all(n.startswith("g6.") for n in g6) and len(seen) == remembered + 1
    narrow = dataclasses.replace(default_catalog(), types=tuple(t for t in default_catalog().types
                                                                 if t.name == "g5.xlarge"))
    env = [pool("p", req("family", "In", "g5")), overlay("o", req("family", "In", "g5"), price="0.01")]
    [only] = simulate_pools(env, narrow, settings=ON)  # another catalog: its own answer
    assert [c.instance.name for c in only.candidates] == ["g5.xlarge"] and only.candidates[0].overlays


@pytest.mark.usefixtures("caching_on")
def test_a_scalar_clean_under_one_schema_node_is_checked_again_under_another(crds):
    good = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "p"},
            "spec": {"weight": 50, "template": {"spec": {"nodeClassRef": {"group": "karpenter.k8s.aws",
                                                                          "kind": "EC2NodeClass", "name": "gpu"},
                                                         "requirements": []}}}}
    assert not [f for f in validate_manifest(good, crds) if f.code == "KG300"]
    assert any(key[2] == 50 for key in conformance._CLEAN_SCALARS)
    bad = {**good, "spec": {**good["spec"], "weight": 500}}  # above the maximum, at the node that saw 50
    for _ in range(2):  # a finding is never remembered as clean
        assert [f.path for f in validate_manifest(bad, crds) if f.code == "KG300"] == ["spec.weight"]
    # 50 is clean as a weight; under another node (a duration string) it is judged there
    other = {**good, "spec": {**good["spec"], "template": {"spec": {**good["spec"]["template"]["spec"],
                                                                    "terminationGracePeriod": 50}}}}
    assert [f.path for f in validate_manifest(other, crds) if f.code == "KG300"] \
        == ["spec.template.spec.terminationGracePeriod"]


def _pool(name: str, requirements: list, weight: int = 10) -> dict:
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name},
            "spec": {"weight": weight, "template": {"spec": {
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
                "requirements": requirements}}}}


GPU_REQS = [{"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Gt", "values": ["0"]},
            {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot", "on-demand"]}]


def _problems(manifest: dict, crds) -> list:
    return [f for f in validate_manifest(manifest, crds) if f.code != "KG305"]  # KG305: transition rules skipped


def _counting(monkeypatch, module, name: str) -> list[int]:
    calls = [0]
    real = getattr(module, name)

    def counted(*args, **kwargs):
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


@pytest.mark.usefixtures("caching_on")
def test_a_clean_subtree_is_walked_once_per_schema_node(crds, monkeypatch):
    """The second pool with the same template walks none of it again (schema walk, CEL walk, defaults), and
    reports the same (nothing)."""
    from karpenter_gpu.apiserver import _cel

    for memo in (conformance._CLEAN_TREES, _cel._CLEAN_TREES):
        memo.clear()
    _defaults._DEFAULTED.clear()
    nodes = _counting(monkeypatch, conformance, "_validate_node")
    rules = _counting(monkeypatch, _cel, "_validate_here")
    defaults = _counting(monkeypatch, _defaults, "defaulted_tree")
    reqs = [{**r, "values": [*r["values"], "memo-walk"]} if r["operator"] == "In" else r for r in GPU_REQS]
    assert _problems(_pool("first", reqs), crds) == []
    first = (nodes[0], rules[0], defaults[0])
    assert _problems(_pool("second", reqs), crds) == []
    second = (nodes[0] - first[0], rules[0] - first[1], defaults[0] - first[2])
    assert all(s < f / 3 for s, f in zip(second, first)), (first, second)


def test_a_subtree_with_a_finding_is_reported_wherever_it_recurs(crds):
    bad = {"key": "karpenter.sh/capacity-type", "operator": "Within", "values": ["spot"]}  # not in the enum
    for reqs in ([bad, *GPU_REQS], [*GPU_REQS, bad], [bad, *GPU_REQS]):
        found = [(f.code, f.path) for f in validate_manifest(_pool("p", reqs), crds) if f.code in ("KG300", "KG302")]
        at = f"spec.template.spec.requirements[{reqs.index(bad)}]"
        assert found and all(path.startswith(at) for _, path in found), found


def test_transition_rules_below_a_remembered_subtree_are_noted_at_its_path():
    from karpenter_gpu.apiserver import _cel
    from karpenter_gpu.apiserver._problems import _Problems

    items = {"type": "object", "properties": {"a": {"type": "integer"}},
             "x-kubernetes-validations": [{"rule": "self.a == oldSelf.a"}, {"rule": "self.a >= 0"}]}
    schema = {"type": "object", "properties": {"xs": {"type": "array", "items": items}}}
    value = {"xs": [{"a": 1}, {"a": 1}, {"a": 1}]}
    for _ in range(2):  # the second time every item is remembered
        problems, skipped = _Problems(), []
        _cel.validate(value, schema, "spec", problems, skipped)
        assert not problems
        assert skipped == [f"spec.xs[{i}]: transition rule (oldSelf) not evaluated on create "
                           "(rule: self.a == oldSelf.a)" for i in range(3)]


def test_rule_outcomes_are_remembered_by_a_key_that_tells_equal_looking_values_apart():
    """The CEL outcome memo is keyed by the repr of ``self``: ``1`` and ``True`` (equal in Python, an int and a
    bool to CEL) and ``'1'`` each get their own outcome, in either order, at the root and below it."""
    from karpenter_gpu.apiserver import _cel
    from karpenter_gpu.apiserver._problems import _Problems

    node = {"type": "object", "x-kubernetes-preserve-unknown-fields": True,
            "x-kubernetes-validations": [{"rule": "self.a == 1", "message": "a must be the integer 1"}]}
    schema = {"type": "object", "properties": {"n": node}}

    def verdicts(values, path):
        out = []
        for a in values:
            problems = _Problems()
            _cel.validate({"n": {"a": a}} if path else {"a": a}, schema if path else node, path, problems, [])
            out.append(bool(len(problems)))
        return out

    for path in ("", "spec"):
        assert verdicts([1, True, "1", 1], path) == [False, True, True, False]
        assert verdicts([True, 1, "1", True], path) == [True, False, True, True]


def test_a_manifest_changed_after_validation_is_judged_as_it_is_now(crds):
    """The memos keep their own copies: changing a validated manifest changes neither its next verdict nor that
    of another object with the old content."""
    def reqs() -> list[dict]:  # content no other test has, so that this one fills the memos
        return [dict(r, values=[*r["values"], "memo-change"] if r["operator"] == "In" else list(r["values"]))
                for r in GPU_REQS]

    first = _pool("first", reqs())
    assert _problems(first, crds) == []
    first["spec"]["template"]["spec"]["requirements"][1]["values"].clear()  # In without values, in place
    assert [f.code for f in validate_manifest(first, crds) if f.code == "KG302"]
    arch = {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}  # a list not seen before
    assert _problems(_pool("second", [*reqs(), arch]), crds) == []


def test_apply_defaults_returns_a_copy_the_memo_does_not_share(crds):
    manifest = _pool("p", GPU_REQS)
    defaulted = conformance.apply_defaults(manifest, crds)
    defaulted["spec"]["disruption"]["budgets"].append({"nodes": "0"})
    defaulted["spec"]["template"]["spec"]["requirements"].clear()
    again = conformance.apply_defaults(manifest, crds)
    assert again["spec"]["disruption"]["budgets"] == [{"nodes": "10%"}]
    assert again["spec"]["template"]["spec"]["requirements"] == GPU_REQS
    assert "disruption" not in manifest["spec"]  # the input itself is left alone


@pytest.mark.usefixtures("caching_on")  # the subtrees under spec found clean before: their own nodes bind nothing
def test_self_is_converted_once_for_all_rules_of_a_node(crds, monkeypatch):
    from karpenter_gpu.apiserver import _cel

    runtime = _cel.backend()
    binds = _counting(monkeypatch, runtime, "bind")
    node_class = {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "nc"},
                  "spec": {"role": "memo-bind-role", "amiSelectorTerms": [{"alias": "al2023@latest"}],
                           "subnetSelectorTerms": [{"tags": {"k": "memo-bind"}}],
                           "securityGroupSelectorTerms": [{"tags": {"k": "memo-bind"}}]}}
    spec_rules = len(crds[("karpenter.k8s.aws/v1", "EC2NodeClass")]["schema"]["properties"]["spec"]
                     ["x-kubernetes-validations"])
    assert spec_rules > 3
    assert _problems(node_class, crds) == []
    assert 0 < binds[0] < spec_rules  # one conversion per node with rules, not one per rule


@pytest.mark.usefixtures("caching_on")
def test_the_memos_stay_within_their_character_budget():
    memo = perf.BoundedCache(entries=100, chars=1600)
    memo.put("big", 1, 101)  # more than a sixteenth of the budget: never kept
    assert memo.get("big") is None
    for i in range(16):
        memo.put(i, i, 100)
    assert memo.get(0) == 0 and memo.get(15) == 15
    memo.put("next", 16, 100)  # over the budget: emptied first, then kept
    assert memo.get(0) is None and memo.get("next") == 16
    few = perf.BoundedCache(entries=2, chars=1600)
    for i in range(3):
        few.put(i, i, 1)
    assert few.get(0) is None and few.get(2) == 2
