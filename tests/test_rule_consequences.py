"""Every consequence a rule states is computed: small manifests written for each finding that used to be false."""

from __future__ import annotations

from karpenter_gpu.analysis.simulator import simulate_pools
from karpenter_gpu.apiserver.findings import Severity
from karpenter_gpu.check.rules import check_rules
from tests.test_rules import GPU, ON, ON_DEMAND, _requirements, gpu_pool, neuron_pool, only, run, tspec

FAMILY = "karpenter.k8s.aws/instance-family"
INSTANCE_TYPE = "node.kubernetes.io/instance-type"


def codes(findings, code):
    return [f for f in findings if f.code == code]


# ------------------------------------------------------------------ KG401: what caps a pool comes from its limits


def test_kg401_pool_capped_by_cpu_says_the_cap_and_its_figure():
    pool = gpu_pool()
    pool["spec"]["limits"] = {"cpu": "1024"}
    finding = only(run(pool), "KG401")
    worst = simulate_pools([pool])[0].worst_case_hourly
    assert finding.severity is Severity.INFO
    assert f"capped by limits.cpu 1024: at most about ${worst:.0f}/h" in finding.message
    assert "nothing caps" not in finding.message


def test_kg401_pool_capped_by_memory_or_neuroncore_is_not_unbounded():
    pool = gpu_pool()
    pool["spec"]["limits"] = {"memory": "2Ti"}
    assert "capped by limits.memory 2Ti" in only(run(pool), "KG401").message
    neuron = neuron_pool()
    neuron["spec"]["limits"] = {"aws.amazon.com/neuroncore": "64"}
    finding = only(run(neuron), "KG401")
    assert finding.severity is Severity.INFO and "capped by limits.aws.amazon.com/neuroncore 64" in finding.message


def test_kg401_limit_that_does_not_bite_is_still_unbounded():
    pool = gpu_pool()
    pool["spec"]["limits"] = {"ephemeral-storage": "10Ti"}  # no instance type's size in the catalog
    finding = only(run(pool), "KG401")
    assert finding.severity is Severity.WARNING
    assert "its limits do not stop Karpenter launching" in finding.message and "no limit stops" in finding.message


def test_kg401_pool_without_limits_is_unbounded():
    pool = gpu_pool()
    del pool["spec"]["limits"]
    finding = only(run(pool), "KG401")
    assert finding.severity is Severity.WARNING and "nothing caps how many GPU nodes" in finding.message


# ------------------------------------------------------------------ KG412: what a budget blocks comes from the budgets


def test_kg412_budget_blocking_underutilized_only_says_empty_still_runs():
    pool = gpu_pool()
    pool["spec"]["disruption"]["budgets"] = [{"nodes": "1"}, {"nodes": "0", "reasons": ["Underutilized"]}]
    finding = only(run(pool), "KG412")
    assert finding.path == "spec.disruption.budgets[1]"
    assert "blocks Underutilized disruption at all times" in finding.message
    assert "Empty consolidation still runs" in finding.message
    assert "empty nodes" not in finding.message and "drifted" not in finding.message


def test_kg412_budget_zero_for_all_reasons_names_every_consequence():
    pool = gpu_pool()
    pool["spec"]["disruption"]["budgets"] = [{"nodes": "0%"}]
    message = only(run(pool), "KG412").message
    assert "blocks Empty and Underutilized disruption" in message
    assert "empty nodes are never removed and keep billing" in message and "drifted nodes" in message


def test_kg412_not_when_the_budget_blocks_nothing_the_policy_runs():
    pool = gpu_pool()
    pool["spec"]["disruption"] = {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "5m",
                                  "budgets": [{"nodes": "0", "reasons": ["Underutilized"]}]}
    assert codes(run(pool), "KG412") == []
    pool["spec"]["disruption"]["budgets"] = [{"nodes": "0", "reasons": ["Drifted"]}, {"nodes": "10%"}]
    assert codes(run(pool), "KG412") == []


# ------------------------------------------------------------------ KG455: which sizes a selection admits


def test_kg455_family_that_covers_its_device_admits_every_size_and_is_quiet():
    pool = neuron_pool()
    tspec(pool)["requirements"] = [{"key": FAMILY, "operator": "In", "values": ["inf2"]}, ON_DEMAND]
    assert codes(run(pool), "KG455") == []


def test_kg455_family_leaving_out_a_family_of_the_same_device_names_it():
    pool = neuron_pool("neuron-training")
    tspec(pool)["requirements"] = [{"key": FAMILY, "operator": "In", "values": ["trn1"]}, ON_DEMAND]
    message = only(run(pool), "KG455").message
    assert "admits every size of trn1 but leaves out trn1n.32xlarge" in message
    assert "size added later" not in message


def test_kg455_instance_type_list_admits_only_the_listed_sizes():
    pool = neuron_pool()
    tspec(pool)["requirements"] = [{"key": INSTANCE_TYPE, "operator": "In",
                                    "values": ["inf2.xlarge", "inf2.8xlarge"]}, ON_DEMAND]
    message = only(run(pool), "KG455").message
    assert "admits only the 2 listed type(s) (inf2.8xlarge, inf2.xlarge)" in message
    assert "leaves out inf2.24xlarge, inf2.48xlarge" in message


# ------------------------------------------------------------------ KG404: whether two pools compete


def cpu_pool(weight: int | None) -> dict:
    pool = gpu_pool("cpu", weight=weight)
    tspec(pool)["requirements"] = [{"key": "karpenter.k8s.aws/instance-category", "operator": "In",
                                    "values": ["c", "m", "r"]}, ON_DEMAND]
    del tspec(pool)["taints"]
    del pool["spec"]["limits"]
    return pool


def test_kg404_not_for_pools_that_can_never_serve_the_same_pod():
    unweighted_neuron = neuron_pool()
    del unweighted_neuron["spec"]["weight"]
    # a Neuron pod does not tolerate the GPU pool's taint; a CPU pod tolerates no taint; a GPU pod finds no GPU
    # among the CPU pool's instance types
    assert codes(run(gpu_pool("gpu-a", 80), unweighted_neuron), "KG404") == []
    assert codes(run(gpu_pool("gpu-a", 80), cpu_pool(None)), "KG404") == []
    assert codes(run(cpu_pool(80), gpu_pool("gpu-b", None)), "KG404") == []


def test_kg404_names_only_the_pools_that_compete():
    finding = only(run(gpu_pool("gpu-a", 80), neuron_pool("neuron-x"), gpu_pool("gpu-b", None)), "KG404")
    assert finding.name == "gpu-b" and "gpu-a (80)" in finding.message and "neuron-x" not in finding.message


# ------------------------------------------------------------------ KG419: each pool its own report


def test_kg419_same_named_pools_in_one_folder_keep_their_own_reports():
    good = gpu_pool("gpu")
    bad = _requirements(gpu_pool("gpu"), GPU, {"key": "karpenter.k8s.aws/instance-size", "operator": "In",
                                               "values": ["nano"]}, ON_DEMAND)
    findings = check_rules([("a/pool.yaml", good), ("b/pool.yaml", bad)])
    assert [(f.file, f.code) for f in findings if f.code == "KG419"] == [("b/pool.yaml", "KG419")]
    findings = check_rules([("b/pool.yaml", bad), ("a/pool.yaml", good)])
    assert [(f.file, f.code) for f in findings if f.code == "KG419"] == [("b/pool.yaml", "KG419")]


# ------------------------------------------------------------------ KG460: overlay conflicts, as explain sees them


def test_kg460_conflicting_overlays_are_reported_as_explain_drops_them():
    from karpenter_gpu.analysis.catalog import default_catalog
    from karpenter_gpu.analysis.explain import explain_environment

    def overlay(name: str, weight: int, gpus: str) -> dict:
        return {"apiVersion": "karpenter.sh/v1alpha1", "kind": "NodeOverlay", "metadata": {"name": name},
                "spec": {"requirements": [{"key": FAMILY, "operator": "In", "values": ["g6"]}],
                         "capacity": {"nvidia.com/gpu": gpus}, "weight": weight}}

    objects = [gpu_pool(), overlay("shared-a", 10, "4"), overlay("shared-b", 10, "8")]
    finding = only(run(*objects), "KG460")
    assert finding.kind == "NodeOverlay" and "conflicts with an overlay of the same weight 10" in finding.message
    explained = str(explain_environment("e", objects, default_catalog(), settings=ON))  # the rules' settings
    assert finding.name in explained and "conflicts with an overlay of the same weight" in explained
    assert codes(run(gpu_pool(), overlay("shared-a", 10, "4"), overlay("shared-b", 20, "8")), "KG460") == []
