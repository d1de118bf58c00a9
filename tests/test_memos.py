"""What validate and the simulator remember across objects and calls, and that remembering changes no answer."""

from __future__ import annotations

import dataclasses
from decimal import Decimal as D

from karpenter_gpu.analysis import ceiling
from karpenter_gpu.analysis.catalog import default_catalog
from karpenter_gpu.analysis.simulator import simulate_pools
from karpenter_gpu.check import conformance
from karpenter_gpu.check.conformance import validate_manifest
from tests.test_simulator import req, pool


def test_the_remembered_ceiling_is_the_computed_one():
    items = ((f"t{i}", D(3 + i) / 4, (D(i + 1), D(2))) for i in range(4))
    items_t, limits = tuple(items), (D(9), D(7))
    assert ceiling.dearest_fill_cached(items_t, limits) == ceiling.dearest_fill(items_t, limits)
    hits = ceiling._dearest_fill_memo.cache_info().hits
    assert ceiling.dearest_fill_cached(items_t, limits) is ceiling.dearest_fill_cached(items_t, limits)
    assert ceiling._dearest_fill_memo.cache_info().hits >= hits + 2
    other = ceiling.dearest_fill_cached(items_t, (D(4), D(3)))  # another limit: another answer, not the memo's
    assert other == ceiling.dearest_fill(items_t, (D(4), D(3))) and other != ceiling.dearest_fill(items_t, limits)


def test_admitted_types_are_remembered_per_catalog():
    manifests = [pool("p", req("family", "In", "g5"), limits={"nvidia.com/gpu": "16"})]
    full = simulate_pools(manifests)
    [g5] = [t for t in default_catalog().types if t.name == "g5.xlarge"]
    narrow = dataclasses.replace(default_catalog(), types=(g5,))  # same requirements, another catalog
    [only] = simulate_pools(manifests, narrow)
    assert [c.instance.name for c in only.candidates] == ["g5.xlarge"]
    assert len(simulate_pools(manifests)[0].candidates) == len(full[0].candidates) > 1  # the default's answer again


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
