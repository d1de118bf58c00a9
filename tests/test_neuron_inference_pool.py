"""NeuronInferencePool → an Inferentia NodePool selected by accelerator labels, bounded by aws.amazon.com/neuron."""

from __future__ import annotations

import pytest

from karpenter_gpu import GpuInferencePool, GpuNodeClass, KarpenterGpuError, NeuronInferencePool
from karpenter_gpu.analysis.pod_fit import first_choice, pod_fit
from karpenter_gpu.analysis.pod_shape import PodShape
from karpenter_gpu.analysis.simulator import simulate_pools
from karpenter_gpu.apiserver.conformance import check
from karpenter_gpu.check.rules import check_rules
from tests.conftest import manifests, only


@pytest.fixture
def node_class(chart):
    return GpuNodeClass.inference(chart, "Class", name="neuron", ami="al2023@v20251103", role="R", cluster_name="c")


def test_renders_accelerator_selection_limit_and_taint(chart, node_class, crds):
    NeuronInferencePool(chart, "Inf", node_class=node_class, name="neuron-inference", neuron_limit=32)
    pool = only(chart, "NodePool")
    spec = pool["spec"]
    reqs = {r["key"]: (r["operator"], r["values"]) for r in spec["template"]["spec"]["requirements"]}
    assert reqs["karpenter.k8s.aws/instance-accelerator-name"] == ("In", ["inferentia2"])
    assert reqs["karpenter.k8s.aws/instance-accelerator-manufacturer"] == ("In", ["aws"])
    assert "node.kubernetes.io/instance-type" not in reqs and "karpenter.k8s.aws/instance-gpu-count" not in reqs
    assert spec["limits"] == {"aws.amazon.com/neuron": "32"}
    assert spec["template"]["spec"]["taints"] == [{"key": "aws.amazon.com/neuron", "value": "true",
                                                   "effect": "NoSchedule"}]
    assert "gpu-operator" not in spec["template"]["metadata"]["labels"]  # the GPU Operator stays off
    assert spec["template"]["spec"]["expireAfter"] == "720h"
    assert all(check(m, crds) == [] for m in manifests(chart))


def test_candidates_worst_case_and_pod_fit(chart, node_class):
    NeuronInferencePool(chart, "Inf", node_class=node_class, name="neuron-inference", neuron_limit=32)
    docs = manifests(chart)
    [report] = simulate_pools(docs)
    assert report.candidate_names == ("inf2.xlarge", "inf2.8xlarge", "inf2.24xlarge", "inf2.48xlarge")
    assert report.gpu_limit == 32 and report.gpu_names == ("inferentia2",)
    assert report.worst_case_hourly is not None and report.worst_case_instance == "inf2.8xlarge"  # 32 x 1.96786
    fit = first_choice(pod_fit(PodShape.parse("neuron=1,tolerate=aws.amazon.com/neuron"), docs))
    assert fit is not None and (fit.pool, fit.instance) == ("neuron-inference", "inf2.xlarge")
    cores = first_choice(pod_fit(PodShape.parse("neuroncore=4,cpu=4,tolerate=aws.amazon.com/neuron"), docs))
    assert cores is not None and cores.instance == "inf2.24xlarge"  # 2 cores per inferentia2 device


def test_passes_the_rules(chart, node_class):
    NeuronInferencePool(chart, "Inf", node_class=node_class, name="neuron-inference", neuron_limit=32)
    codes = {f.code for f in check_rules([("x", m) for m in manifests(chart)])}
    assert codes <= {"KG414"}  # spot needs the interruption queue: nothing else


@pytest.mark.parametrize(("props", "code"), [
    ({"gpu_limit": 8}, "KG262"), ({"gpu_names": ("t4",)}, "KG262"), ({"gpu_operator": True}, "KG262"),
    ({"neuron_limit": 0}, "KG261"), ({"neuron_limit": True}, "KG261"), ({"accelerator_names": ()}, "KG260"),
    ({"accelerator_names": ("Inferentia2",)}, "KG260"), ({"architectures": ("amd64", "arm64")}, "KG263"),
])
def test_fails_on_gpu_props_and_bad_neuron_props(chart, node_class, props, code):
    with pytest.raises(KarpenterGpuError) as err:
        NeuronInferencePool(chart, "Inf", node_class=node_class, name="n", **{"neuron_limit": 4, **props})
    assert err.value.code == code


def test_fails_without_neuron_limit(chart, node_class):
    with pytest.raises(KarpenterGpuError) as err:
        NeuronInferencePool(chart, "Inf", node_class=node_class, name="n")  # type: ignore[call-arg]
    assert err.value.code == "KG100" and err.value.prop == "neuron_limit"


def test_gpu_pool_accepts_arm64_and_refuses_unknown_arch(chart, node_class):
    GpuInferencePool(chart, "G", node_class=node_class, name="g", gpu_limit=4, gpu_names=("t4g",),
                     architectures=("amd64", "arm64"))
    [report] = simulate_pools(manifests(chart))
    assert set(report.candidate_names) == {"g5g.xlarge", "g5g.2xlarge", "g5g.4xlarge", "g5g.8xlarge", "g5g.16xlarge", "g5g.metal"}
    assert report.arm64_gpu_types and any("arm64 GPU type" in n.text for n in report.notes)
    with pytest.raises(KarpenterGpuError) as err:
        GpuInferencePool(chart, "H", node_class=node_class, name="h", gpu_limit=4, architectures=("x86_64",))
    assert err.value.code == "KG264"




def test_fails_on_an_auto_mode_node_class(chart):
    from karpenter_gpu import AutoModeNodeClass

    auto = AutoModeNodeClass(chart, "Auto", name="gpu-auto", role="R", subnet_ids=("subnet-0a",),
                             security_group_ids=("sg-0a",))
    with pytest.raises(KarpenterGpuError) as err:
        NeuronInferencePool(chart, "N", node_class=auto, name="n", neuron_limit=4)  # type: ignore[arg-type]
    assert err.value.code == "KG265" and err.value.prop == "node_class"


def test_fails_on_an_accelerator_name_the_catalog_does_not_know(chart, node_class):
    with pytest.raises(KarpenterGpuError) as err:
        NeuronInferencePool(chart, "Inf", node_class=node_class, name="n", neuron_limit=4,
                            accelerator_names=("inferentia2", "tranium2"))
    assert err.value.code == "KG112" and "accelerator_names='tranium2'" in str(err.value)
    assert "did you mean 'trainium2'?" in err.value.fix
