"""The cross-object rules stay linear in the size of one environment (issue 33, scope 6).

Not timed: the work is counted. KG463 once asked, for every pool launching reserved capacity and every other pool,
whether that pool launches reserved capacity too by scanning every object of the environment; KG404 and KG463
compared every pool with every other. Each rule now indexes the environment once; these tests count the pair
comparisons (:func:`weights.competes`) and the objects read by kind (:func:`_model.kind_of`) for N and 10N pools, and
check the indexed answers against the pairwise definition.
"""

from __future__ import annotations

from typing import Any, Callable

import pytest

from karpenter_gpu.check.rules import _model, check_rules, weights
from karpenter_gpu.check.rules._model import RuleEnvironment, Pool, as_list
from karpenter_gpu.k8s.labels import AUTO_MODE_NODE_CLASS_KIND, NODE_CLASS_KIND

CAPACITY = "karpenter.sh/capacity-type"
TAINTS = ([{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}],
          [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}, {"key": "team", "value": "ml", "effect": "NoSchedule"}],
          [], [{"key": "batch", "effect": "PreferNoSchedule"}])
GPUS = (["a10g", "l4"], ["t4"], ["h100"])


def node_class(name: str, reserving: bool) -> dict:
    spec: dict[str, Any] = {"amiSelectorTerms": [{"alias": "al2023@v20251103"}], "role": "KarpenterNodeRole-ml",
                            "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "ml"}}],
                            "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "ml"}}]}
    if reserving:
        spec["capacityReservationSelectorTerms"] = [{"tags": {"team": "ml"}}]
    return {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": name}, "spec": spec}


def pool(name: str, node_class: str, weight: Any, capacity: list[str], taints: list[dict], gpus: list[str]) -> dict:
    spec: dict[str, Any] = {
        "template": {"spec": {
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": node_class},
            "requirements": [{"key": "karpenter.k8s.aws/instance-gpu-name", "operator": "In", "values": gpus},
                             {"key": CAPACITY, "operator": "In", "values": capacity}],
            "taints": taints, "expireAfter": "720h"}},
        "limits": {"nvidia.com/gpu": "16"},
    }
    if weight is not None:
        spec["weight"] = weight
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name}, "spec": spec}


def environment(pools: int) -> list[tuple[str, dict]]:
    """``pools`` pools in one environment, one node class per 5 pools (every other one selecting reservations):
    reserved pools ranked at, above and below the others, unweighted pools, weights that are not numbers, several
    taint sets and GPUs, and a static pool now and then."""
    out: list[dict] = []
    for i in range(pools):
        block = i // 5
        if i % 5 == 0:
            out.append(node_class(f"class-{block}", reserving=block % 2 == 0))
        reserved = i % 5 in (0, 1)
        weight: Any = [50, 60, 90, None, 60, "70", 100, 10][i % 8] if not reserved else [60, 100, 90][i % 3]
        m = pool(f"pool-{i:05d}", f"class-{block}", weight, ["reserved", "on-demand"] if reserved else ["spot"],
                 TAINTS[(i // 3) % len(TAINTS)], GPUS[(i // 7) % len(GPUS)])
        if i % 23 == 22:
            m["spec"]["replicas"] = 1
            m["spec"]["limits"] = {"nodes": "2"}
        out.append(m)
    return [(f"{m['kind']}.{m['metadata']['name']}.yaml", m) for m in out]


def _counting(monkeypatch, module: Any, name: str) -> dict[str, int]:
    calls = {"n": 0}
    real: Callable = getattr(module, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def _work(monkeypatch, pools: int) -> tuple[int, int, list]:
    """(pair comparisons, objects read by kind, findings) of every rule on :func:`environment` of ``pools``."""
    with monkeypatch.context() as m:
        competes = _counting(m, weights, "competes")
        kinds = _counting(m, _model, "kind_of")
        findings = check_rules(environment(pools))
    return competes["n"], kinds["n"], findings


def test_rules_read_one_environment_in_linear_work(monkeypatch):
    small_pairs, small_kinds, small = _work(monkeypatch, 40)
    large_pairs, large_kinds, large = _work(monkeypatch, 400)
    # The environment must exercise the two rules that compare pools, at both sizes.
    for findings in (small, large):
        assert {"KG404", "KG463"} <= {f.code for f in findings}
    # Pairwise, these grow 100-fold (KG463's object scan per pair: 1,000-fold); indexed, at most 10-fold plus the
    # constant of the few kinds of pool.
    assert large_kinds <= 11 * small_kinds, (small_kinds, large_kinds)
    assert large_pairs <= 11 * small_pairs + 50, (small_pairs, large_pairs)


def _pairwise_reserving(env: RuleEnvironment, pool: Pool) -> bool:
    """:func:`weights.selects_reservations` by its definition: a scan of the environment's node classes."""
    if "reserved" not in pool.view.capacity_types:
        return False
    ref = pool.view.node_class_ref
    kinds = (AUTO_MODE_NODE_CLASS_KIND,) if pool.view.auto_mode else (NODE_CLASS_KIND,)
    return any(obj.name == ref.get("name") and as_list(obj.spec.get("capacityReservationSelectorTerms"))
               for kind in kinds for obj in env.of_kind(kind))


def _pairwise_rivals(env: RuleEnvironment, pool: Pool, keep: Callable[[Pool], bool]) -> list[Pool]:
    return [p for p in env.pools if p is not pool and not p.static and keep(p) and weights.competes(env, pool, p)]


@pytest.mark.parametrize("pools", [1, 7, 60])
def test_indexed_rivals_are_the_first_pairwise_ones(pools):
    env = RuleEnvironment(environment(pools), None, None)
    for p in env.pools:
        assert weights.selects_reservations(env, p) == _pairwise_reserving(env, p)
        expected = _pairwise_rivals(env, p, lambda o: o.weight is not None)[:4]
        assert weights.weighted_rivals(env, p) == expected
        for at_least in (-1, 0, 10, 60, 61, 90, 100, 101, weights._weight(p)):
            expected = [o for o in _pairwise_rivals(env, p, lambda o: not _pairwise_reserving(env, o))
                        if weights._weight(o) >= at_least][:4]
            assert weights.unreserved_rivals(env, p, at_least) == expected, (p.name, at_least)


def test_a_node_class_reference_that_is_not_a_name_selects_no_reservation():
    manifests = environment(5)
    manifests[1][1]["spec"]["template"]["spec"]["nodeClassRef"]["name"] = ["class-0"]  # hand-written YAML
    env = RuleEnvironment(manifests, None, None)
    assert [weights.selects_reservations(env, p) for p in env.pools] == [False, True, False, False, False]
    check_rules(manifests)  # and no rule trips over it


def test_of_kind_and_pools_named_answer_as_a_scan_would():
    manifests = environment(12) + [("odd.yaml", {"apiVersion": ["karpenter.k8s.aws/v1"], "kind": "EC2NodeClass",
                                                 "metadata": {"name": "odd"}})]
    manifests.append(("again.yaml", manifests[1][1]))  # the same pool twice
    env = RuleEnvironment(manifests, None, None)
    classes = env.of_kind(NODE_CLASS_KIND)
    assert [o.name for o in classes] == ["class-0", "class-1", "class-2"]
    classes.clear()  # a caller's list is its own
    assert len(env.of_kind(NODE_CLASS_KIND)) == 3
    assert env.of_kind(("v1", "ConfigMap")) == []
    assert [p.file for p in env.pools_named("pool-00000")] == ["NodePool.pool-00000.yaml", "again.yaml"]
    assert env.pools_named("nothing") == []
