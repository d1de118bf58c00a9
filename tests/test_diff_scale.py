"""diff stays linear in the size of one environment (issue 33, scope 6).

Not timed: the work is counted. Each changed EC2NodeClass once read every NodePool of its side to name the pools
using it, each changed NodeOverlay re-read every offering of every pool on both sides, and each removed NodePool
compared its spec with every added one. The classifier now indexes each side once; these tests count those reads
for N and 10N pools, and check the answers the indexes give.
"""

from __future__ import annotations

import copy
import importlib
from typing import Any

import pytest

from karpenter_gpu.analysis.diff import Category, classify
from karpenter_gpu.analysis.diff.read import Side
from karpenter_gpu.k8s.views import NodePoolView
from tests.conftest import find_crds_dir

ENV = "env"
#: The module (the package's ``classify`` is the function of the same name).
classify_module = importlib.import_module("karpenter_gpu.analysis.diff.classify")
POOL_API, CLASS_API, OVERLAY_API = "karpenter.sh/v1", "karpenter.k8s.aws/v1", "karpenter.sh/v1alpha1"


@pytest.fixture(autouse=True)
def _crds(monkeypatch):
    monkeypatch.setenv("KARPENTER_GPU_CRDS", str(find_crds_dir()))


def node_class(name: str) -> dict:
    return {"apiVersion": CLASS_API, "kind": "EC2NodeClass", "metadata": {"name": name},
            "spec": {"amiSelectorTerms": [{"alias": "al2023@v20251103"}], "role": "KarpenterNodeRole-ml",
                     "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "ml"}}],
                     "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "ml"}}],
                     "tags": {"team": "ml"}}}


def pool(name: str, node_class: str, weight: int) -> dict:
    return {"apiVersion": POOL_API, "kind": "NodePool", "metadata": {"name": name},
            "spec": {"weight": weight, "limits": {"nvidia.com/gpu": "16"},
                     "template": {"spec": {
                         "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": node_class},
                         "requirements": [{"key": "karpenter.k8s.aws/instance-gpu-name", "operator": "In",
                                           "values": ["a10g", "l4"]},
                                          {"key": "karpenter.sh/capacity-type", "operator": "In",
                                           "values": ["on-demand"]}],
                         "expireAfter": "720h"}}}}


def overlay(name: str, weight: int, percent: int) -> dict:
    return {"apiVersion": OVERLAY_API, "kind": "NodeOverlay", "metadata": {"name": name},
            "spec": {"weight": weight, "priceAdjustment": f"+{percent}%",
                     "requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In",
                                       "values": ["g5.12xlarge", "g6e.12xlarge"]}]}}


def _side(objects: list[dict]) -> Side:
    return {ENV: {(m["apiVersion"], m["kind"], m["metadata"]["name"]): m for m in objects}}


def sides(pools: int) -> tuple[Side, Side]:
    """One environment of ``pools`` NodePools (5 per EC2NodeClass, an overlay per 10) and a head changed all over:
    every class's tags (each names its pools), every overlay's price, every third pool's weight, and per 10 pools
    one removed, one renamed (the same spec) and one added."""
    base: list[dict] = []
    for i in range(pools):
        if i % 5 == 0:
            base.append(node_class(f"class-{i // 5}"))
        if i % 10 == 0:
            base.append(overlay(f"overlay-{i // 10}", i // 10 + 1, 20))
        base.append(pool(f"pool-{i:05d}", f"class-{i // 5}", 10 + i % 7))
    head = []
    for m in copy.deepcopy(base):
        kind, name = m["kind"], m["metadata"]["name"]
        if kind == "EC2NodeClass":
            m["spec"]["tags"]["cost-center"] = name
        elif kind == "NodeOverlay":
            m["spec"]["priceAdjustment"] = "+40%"
        else:
            i = int(name.rsplit("-", 1)[1])
            if i % 10 == 1:
                continue
            if i % 10 == 2:
                m["metadata"]["name"] += "-renamed"
            if i % 10 == 3:
                extra = copy.deepcopy(m)
                extra["metadata"]["name"] += "-added"
                extra["spec"]["weight"] = 99
                head.append(extra)
            if i % 3 == 0:
                m["spec"]["weight"] += 1
        head.append(m)
    return _side(base), _side(head)


class _Counter:
    def __init__(self) -> None:
        self.n = 0


def _work(monkeypatch, pools: int) -> tuple[int, list]:
    """(NodePool reads, specs compared, pool reports read for offering prices) of classify, and its changes."""
    counts = {"views": _Counter(), "specs": _Counter(), "prices": _Counter()}
    with monkeypatch.context() as m:
        class CountedView:
            @staticmethod
            def of(manifest: Any) -> NodePoolView:
                counts["views"].n += 1
                return NodePoolView.of(manifest)

        m.setattr(classify_module, "NodePoolView", CountedView)
        for name, key in (("_spec_key", "specs"), ("_offering_prices", "prices")):
            real = getattr(classify_module, name)

            def counted(*args: Any, _real: Any = real, _key: str = key) -> Any:
                counts[_key].n += len(args[0]) if _key == "prices" else 1  # the pool reports read
                return _real(*args)

            m.setattr(classify_module, name, counted)
        changes = classify(*sides(pools))
    return tuple(c.n for c in counts.values()), changes


def test_classify_reads_each_side_in_linear_work(monkeypatch):
    small_work, small = _work(monkeypatch, 20)
    large_work, large = _work(monkeypatch, 200)
    for changes in (small, large):  # the head changes what the three indexes answer for
        assert {Category.REPLACES_NODES, Category.DRAINS_POOL, Category.NEW, Category.BEHAVIOURAL} <= {
            c.category for c in changes}
    # Per object and pair, these grew 100-fold; indexed, at most 10-fold (plus the sides' constant).
    for what, a, b in zip(("NodePool reads", "specs compared", "pool reports priced"), small_work, large_work):
        assert b <= 11 * a, (what, small_work, large_work)


def test_the_indexes_answer_as_the_scans_did(monkeypatch):
    base, head = sides(20)
    changes = classify(base, head)
    by = {(c.kind, c.name, c.category): c.reasons for c in changes}
    # A changed class names exactly its pools, sorted; a removed one is not among them on the base side either.
    [reason] = by[("EC2NodeClass", "class-0", Category.REPLACES_NODES)]
    assert reason.endswith("every node of NodePools using EC2NodeClass class-0: pool-00000, pool-00001, pool-00002, "
                           "pool-00003, pool-00004 is replaced")
    # Renames pair each removed pool with the added pool of the same spec; pool-00001 is removed, and pool-00012's
    # new name comes with a new weight: a removal and an addition, not a rename.
    renames = sorted(c.name for c in changes if c.category is Category.DRAINS_POOL and "→" in c.name)
    assert renames == ["pool-00002 → pool-00002-renamed"]
    assert ("NodePool", "pool-00001", Category.DRAINS_POOL) in by
    assert ("NodePool", "pool-00012", Category.DRAINS_POOL) in by
    assert ("NodePool", "pool-00012-renamed", Category.NEW) in by
    assert ("NodePool", "pool-00003-added", Category.NEW) in by
    # Every overlay's re-pricing is its own: the same text a fresh simulation of each side gives.
    overlays = [c for c in changes if c.kind == "NodeOverlay"]
    assert len(overlays) == 2 and all("re-prices" in c.reasons[0] or "no simulated price changes" in c.reasons[0]
                                      for c in overlays)


def test_two_removed_pools_of_one_spec_take_the_added_ones_in_name_order():
    base = _side([node_class("c"), pool("a", "c", 5), pool("b", "c", 5), pool("z", "c", 6)])
    head = _side([node_class("c"), pool("y", "c", 5), pool("x", "c", 5), pool("w", "c", 7)])
    names = sorted(c.name for c in classify(base, head) if c.category is Category.DRAINS_POOL)
    assert names == ["a → x", "b → y", "z"]


def test_a_removed_class_names_the_head_pools_still_using_it():
    base = _side([node_class("c"), node_class("d"), pool("p", "d", 5)])
    head = _side([node_class("d"), pool("p", "c", 5), pool("q", "c", 5)])
    [removed] = [c for c in classify(base, head) if c.kind == "EC2NodeClass"]
    assert removed.reasons[0].endswith("; NodePools p, q still reference it and cannot launch nodes")
