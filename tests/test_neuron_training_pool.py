"""NeuronTrainingPool → a Trainium NodePool with the training pool's expiry and disruption rules."""

from __future__ import annotations

from decimal import Decimal

import pytest

from karpenter_gpu import Duration, GpuNodeClass, KarpenterGpuError, NeuronTrainingPool
from karpenter_gpu.analysis.pod_fit import first_choice, pod_fit
from karpenter_gpu.analysis.pod_shape import PodShape
from karpenter_gpu.analysis.simulator import simulate_pools
from karpenter_gpu.apiserver.conformance import check
from karpenter_gpu.check.rules import check_rules
from tests.conftest import manifests, only


@pytest.fixture
def node_class(chart):
    return GpuNodeClass.training(chart, "Class", name="trainium", ami="al2023@v20251103", role="R", cluster_name="c")


def test_renders_trainium_training_pool(chart, node_class, crds):
    NeuronTrainingPool(chart, "Trn", node_class=node_class, name="neuron-training", neuron_limit=64,
                       expire_after=Duration.never(), termination_grace_period=Duration.hours(2))
    spec = only(chart, "NodePool")["spec"]
    reqs = {r["key"]: (r["operator"], r["values"]) for r in spec["template"]["spec"]["requirements"]}
    assert reqs["karpenter.k8s.aws/instance-accelerator-name"] == ("In", ["trainium", "trainium2"])
    assert reqs["karpenter.sh/capacity-type"] == ("In", ["on-demand"])
    assert spec["limits"] == {"aws.amazon.com/neuron": "64"}
    assert spec["template"]["spec"]["expireAfter"] == "Never"
    assert spec["disruption"]["consolidationPolicy"] == "WhenEmpty"
    assert [b.get("reasons") for b in spec["disruption"]["budgets"]] == [["Empty", "Underutilized"], ["Drifted"]]
    assert all(check(m, crds) == [] for m in manifests(chart))
    assert check_rules([("x", m) for m in manifests(chart)]) == []


def test_candidates_and_worst_case(chart, node_class):
    NeuronTrainingPool(chart, "Trn", node_class=node_class, name="neuron-training", neuron_limit=64,
                       expire_after=Duration.never())
    docs = manifests(chart)
    [report] = simulate_pools(docs)
    # trn2.48xlarge is admitted but has no on-demand price in the catalog (nor in Karpenter's static table): no
    # on-demand offering (BaseResolver.ResolveOfferings), so no candidate.
    assert set(report.candidate_names) == {"trn1.2xlarge", "trn1.32xlarge", "trn1n.32xlarge"}
    # 64 devices: 4 x trn1n.32xlarge (16 each, 24.78/h) = 99.12/h beats 64 x trn1.2xlarge = 86.00/h.
    assert (report.worst_case_instance, report.worst_case_hourly) == ("trn1n.32xlarge", Decimal("99.120000"))
    assert report.worst_case_exact
    assert any(n.text.startswith("trn2.48xlarge: no on-demand price in the catalog") for n in report.notes)
    fit = first_choice(pod_fit(PodShape.parse("neuron=16,cpu=100,tolerate=aws.amazon.com/neuron"), docs))
    assert fit is not None and fit.instance == "trn1.32xlarge"


def test_fails_without_explicit_expiry(chart, node_class):
    with pytest.raises(KarpenterGpuError) as err:
        NeuronTrainingPool(chart, "Trn", node_class=node_class, name="t", neuron_limit=16)
    assert err.value.code == "KG160"


def test_fails_with_a_gpu_limit(chart, node_class):
    with pytest.raises(KarpenterGpuError) as err:
        NeuronTrainingPool(chart, "Trn", node_class=node_class, name="t", neuron_limit=16, gpu_limit=8,
                           expire_after=Duration.never())
    assert err.value.code == "KG262" and err.value.prop == "gpu_limit"
