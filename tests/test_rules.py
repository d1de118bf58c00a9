"""The project's own rules beyond the CRDs (KG4xx): one failing input per rule, a clean set, acknowledgement."""

from __future__ import annotations

import copy
import json
from typing import Any, Callable

import pytest

from karpenter_gpu.errors import CODES
from karpenter_gpu.apiserver.findings import ACKNOWLEDGE_ANNOTATION, Finding, Severity
from karpenter_gpu.check.rules import RULES, check_rules, known_code
from karpenter_gpu.k8s.controller_settings import ControllerSettings
from karpenter_gpu.upstream import FeatureGate

GPU_COUNT = "karpenter.k8s.aws/instance-gpu-count"
GPU_NAME = "karpenter.k8s.aws/instance-gpu-name"
GPU_MEMORY = "karpenter.k8s.aws/instance-gpu-memory"
CAPACITY = "karpenter.sh/capacity-type"
REQS = "spec.template.spec.requirements"
NODE_CLASS_REF = {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"}
GPU_TAINT = {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}


# --------------------------------------------------------------------------- clean objects


def gpu_pool(name: str = "gpu-inference", weight: int | None = 50) -> dict:
    """A dynamic GPU pool no rule complains about."""
    pool = {
        "apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name},
        "spec": {
            "template": {
                "metadata": {"labels": {"workload": "inference"}},
                "spec": {
                    "nodeClassRef": dict(NODE_CLASS_REF),
                    "requirements": [
                        {"key": GPU_COUNT, "operator": "Gt", "values": ["0"]},
                        {"key": GPU_NAME, "operator": "In", "values": ["a10g", "l4"]},
                        {"key": GPU_MEMORY, "operator": "Gte", "values": ["22888"]},
                        {"key": CAPACITY, "operator": "In", "values": ["on-demand"]},
                    ],
                    "taints": [dict(GPU_TAINT)],
                    "expireAfter": "720h",
                },
            },
            "disruption": {
                "consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "10m",
                "budgets": [{"nodes": "1"}, {"nodes": "0", "schedule": "0 0 * * MON-FRI", "duration": "10h"}],
            },
            "limits": {"nvidia.com/gpu": "16"},
        },
    }
    if weight is not None:
        pool["spec"]["weight"] = weight
    return pool


def training_pool() -> dict:
    pool = gpu_pool("gpu-training", weight=90)
    pool["spec"]["template"]["metadata"]["labels"] = {"workload": "training"}
    pool["spec"]["template"]["spec"]["expireAfter"] = "Never"
    pool["spec"]["disruption"] = {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "30m",
                                  "budgets": [{"nodes": "1"}]}
    return pool


def static_pool(replicas: int = 2, nodes: Any = "3") -> dict:
    pool = gpu_pool("gpu-warm", weight=None)
    spec = pool["spec"]
    spec["replicas"] = replicas
    spec["limits"] = {"nodes": nodes} if nodes is not None else {}
    del spec["disruption"]
    return pool


def node_class(alias: str = "al2023@v20251103") -> dict:
    return {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "gpu"},
            "spec": {"amiSelectorTerms": [{"alias": alias}], "role": "KarpenterNodeRole-ml",
                     "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "ml"}}],
                     "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "ml"}}]}}


def overlay(requirements: list[dict] | None = None) -> dict:
    return {"apiVersion": "karpenter.sh/v1alpha1", "kind": "NodeOverlay", "metadata": {"name": "g6f-gpu"},
            "spec": {"requirements": requirements if requirements is not None else
                     [{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g6f"]}],
                     "capacity": {"nvidia.com/gpu": "1"}, "weight": 10}}


#: The feature gates the manifests of these tests rely on (NodeOverlays, static pools), on: the chart's defaults turn
#: nodeOverlay and staticCapacity off (tests/test_controller_settings.py).
ON = ControllerSettings(gates=frozenset(FeatureGate))


def run(*manifests: dict, environment: str | None = None) -> list[Finding]:
    return check_rules([(f"{m['kind']}.{m['metadata']['name']}.yaml", m) for m in manifests],
                       environment=environment, settings=ON)


def only(findings: list[Finding], code: str) -> Finding:
    hits = [f for f in findings if f.code == code]
    assert len(hits) == 1, f"expected one {code}, got {[f.line() for f in findings]}"
    return hits[0]


def tspec(pool: dict) -> dict:
    return pool["spec"]["template"]["spec"]


def with_requirement(index: int, requirement: dict) -> Callable[[dict], None]:
    def mutate(pool: dict) -> None:
        tspec(pool)["requirements"][index] = requirement
    return mutate


# --------------------------------------------------------------------------- the table


#: Codes validate has reported since they were introduced: codes are stable, none may disappear or change family
#: of meaning (a new rule only adds one; it needs no change here).
STABLE_CODES = ([f"KG4{n:02d}" for n in range(1, 22)] + ["KG430"] + [f"KG4{n}" for n in range(40, 52)]
                + ["KG455", "KG456", "KG460"])


def test_rule_codes_are_stable_and_in_the_registry_only():
    assert set(STABLE_CODES) <= set(RULES)
    for code, rule in RULES.items():
        assert code not in CODES  # one table: errors.CODES holds construct and CLI codes only
        assert known_code(code) == rule.title
        assert isinstance(rule.severity, Severity)
    assert known_code("KG100") == CODES["KG100"] and known_code("KG999") is None


def test_severity_by_effect_for_the_rules_whose_grade_changed():
    # errors are what the API server refuses or what certainly breaks provisioning: an uncapped pool and an
    # operator/values mismatch do neither, a dropped overlay need not
    assert {code: RULES[code].severity for code in ("KG401", "KG409", "KG460")} == dict.fromkeys(
        ("KG401", "KG409", "KG460"), Severity.WARNING)
    assert {RULES[code].severity for code in ("KG407", "KG410", "KG417", "KG419", "KG421", "KG445")} == {
        Severity.ERROR}


# --------------------------------------------------------------------------- clean input


def test_clean_environment_has_no_findings():
    assert run(gpu_pool(), training_pool(), static_pool(), node_class(), overlay(), environment="prod") == []


def test_clean_spot_pool_has_only_the_interruption_queue_reminder():
    pool = gpu_pool()
    tspec(pool)["requirements"][3]["values"] = ["spot", "on-demand"]
    assert [(f.code, f.severity) for f in run(pool, node_class())] == [("KG414", Severity.INFO)]


def test_non_gpu_pool_is_not_held_to_gpu_rules():
    pool = gpu_pool("cpu", weight=None)
    tspec(pool)["requirements"] = [{"key": "karpenter.k8s.aws/instance-category", "operator": "In",
                                    "values": ["c", "m", "r"]}, ON_DEMAND]
    del tspec(pool)["taints"]
    del pool["spec"]["limits"]
    del pool["spec"]["disruption"]
    assert run(pool) == []


ON_DEMAND = {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]}


def test_kg414_pool_without_a_capacity_type_requirement_admits_spot():
    # Requirements.Get of an undefined key is Exists; aws instance.go getCapacityType launches spot before on-demand
    pool = gpu_pool()
    tspec(pool)["requirements"] = [r for r in tspec(pool)["requirements"] if r["key"] != "karpenter.sh/capacity-type"]
    finding = only(run(pool), "KG414")
    assert finding.path == "spec.template.spec.requirements" and "launched first" in finding.message


@pytest.mark.parametrize("requirement", [
    {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["p5.48xlarge"]},
    {"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g6e"]},
    {"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": ["p"]},
    {"key": "karpenter.k8s.aws/instance-gpu-manufacturer", "operator": "In", "values": ["nvidia"]},
], ids=["instance-type", "family", "category", "gpu-label"])


def test_gpu_pool_is_recognised_by_any_gpu_selection(requirement):
    pool = gpu_pool()
    tspec(pool)["requirements"] = [requirement]
    del pool["spec"]["limits"]
    assert only(run(pool), "KG401").severity is Severity.WARNING


NEURON_TAINT = {"key": "aws.amazon.com/neuron", "value": "true", "effect": "NoSchedule"}


def neuron_pool(name: str = "neuron-inference") -> dict:
    """A Neuron pool as NeuronInferencePool renders it (on-demand only): no rule complains."""
    pool = gpu_pool(name)
    tspec(pool)["requirements"] = [
        {"key": "karpenter.k8s.aws/instance-accelerator-manufacturer", "operator": "In", "values": ["aws"]},
        {"key": "karpenter.k8s.aws/instance-accelerator-name", "operator": "In", "values": ["inferentia2"]},
        ON_DEMAND]
    tspec(pool)["taints"] = [dict(NEURON_TAINT)]
    pool["spec"]["limits"] = {"aws.amazon.com/neuron": "32"}
    return pool


def test_clean_neuron_pool_has_no_findings():
    assert run(neuron_pool(), node_class()) == []


def test_neuron_pool_is_held_to_the_gpu_rules_in_neuron_terms():
    # The seed's Inferentia pool: instance types listed, limit and taint present.
    pool = neuron_pool()
    tspec(pool)["requirements"] = [{"key": "node.kubernetes.io/instance-type", "operator": "In",
                                    "values": ["inf2.xlarge", "inf2.8xlarge"]}, ON_DEMAND]
    del pool["spec"]["limits"]
    tspec(pool)["taints"] = [{"key": "workload", "value": "inference", "effect": "NoSchedule"}]
    findings = run(pool)
    kg401 = only(findings, "KG401")
    assert "spec.limits['aws.amazon.com/neuron']" in kg401.message and kg401.severity is Severity.WARNING
    assert "Neuron device plugin" in only(findings, "KG402").message
    kg455 = only(findings, "KG455")
    assert kg455.path == f"{REQS}[0]" and "instance-accelerator-name In ['inferentia2']" in kg455.message
    assert only(findings, "KG418").severity is Severity.WARNING  # two types only


def test_kg455_not_raised_when_the_accelerator_name_is_selected():
    pool = neuron_pool()
    tspec(pool)["requirements"].append({"key": "karpenter.k8s.aws/instance-size", "operator": "In",
                                        "values": ["xlarge", "8xlarge", "24xlarge"]})
    assert run(pool) == []


def test_qualcomm_accelerator_is_not_neuron():
    pool = gpu_pool("dl2q", weight=None)
    tspec(pool)["requirements"] = [{"key": "karpenter.k8s.aws/instance-accelerator-name", "operator": "In",
                                    "values": ["qualcomm-ai100"]}, ON_DEMAND]
    del pool["spec"]["limits"]
    assert run(pool) == []


@pytest.mark.parametrize(("resource", "count", "flagged"), [
    ("aws.amazon.com/neuroncore", "3", True), ("aws.amazon.com/neuroncore", "4", False),
    ("aws.amazon.com/neuron", "6", True), ("aws.amazon.com/neuron", "1", False),
])


def test_kg456_neuron_request_power_of_two(resource, count, flagged):
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
           "spec": {"containers": [{"name": "c", "resources": {"limits": {resource: count}}}]}}
    found = [f for f in run(pod) if f.code == "KG456"]
    assert bool(found) is flagged
    if flagged:
        assert found[0].severity is Severity.INFO and "power of two" in found[0].message


def test_kg421_understands_neuron_requests():
    pool = neuron_pool()
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
           "spec": {"nodeSelector": {"karpenter.sh/nodepool": "neuron-inference"},
                    "tolerations": [{"key": "aws.amazon.com/neuron", "operator": "Exists", "effect": "NoSchedule"}],
                    "containers": [{"name": "c", "resources": {"limits": {"aws.amazon.com/neuron": "16"}}}]}}
    finding = only(run(pool, pod), "KG421")
    assert "aws.amazon.com/neuron (at most 12)" in finding.message  # inf2.48xlarge has 12 devices
    pod["spec"]["containers"][0]["resources"]["limits"]["aws.amazon.com/neuron"] = "8"
    assert [f for f in run(pool, pod) if f.code == "KG421"] == []


# --------------------------------------------------------------------------- one failing input per rule


def _drop(*path: str) -> Callable[[dict], None]:
    def mutate(pool: dict) -> None:
        holder = pool
        for key in path[:-1]:
            holder = holder[key]
        del holder[path[-1]]
    return mutate


def _set(value: Any, *path: str) -> Callable[[dict], None]:
    def mutate(pool: dict) -> None:
        holder = pool
        for key in path[:-1]:
            holder = holder[key]
        holder[path[-1]] = value
    return mutate


POOL_CASES = [
    # code, severity, mutation of the clean pool, path, text the message must contain (the fix)
    ("KG401", Severity.WARNING, _set({}, "spec", "limits"), "spec.limits",
     "add spec.limits nvidia.com/gpu"),
    ("KG401", Severity.INFO, _set({"cpu": "100"}, "spec", "limits"), "spec.limits",
     "state it as spec.limits nvidia.com/gpu"),
    ("KG402", Severity.WARNING, _drop("spec", "template", "spec", "taints"), "spec.template.spec.taints",
     "add taint nvidia.com/gpu=true:NoSchedule"),
    ("KG402", Severity.WARNING,
     _set([{"key": "nvidia.com/gpu", "value": "true", "effect": "PreferNoSchedule"}], "spec", "template", "spec", "taints"),
     "spec.template.spec.taints", "add taint nvidia.com/gpu=true:NoSchedule"),
    ("KG402", Severity.WARNING,
     _set([{"key": "workload", "value": "training", "effect": "NoSchedule"}], "spec", "template", "spec", "taints"),
     "spec.template.spec.taints", "device plugin"),
    ("KG403", Severity.WARNING, _drop("spec", "disruption"), "spec.disruption",
     "consolidationPolicy WhenEmpty and consolidateAfter"),
    ("KG405", Severity.WARNING, lambda p: (_drop("spec", "template", "spec", "expireAfter")(p),
                                           _set({"workload": "training"}, "spec", "template", "metadata", "labels")(p)),
     "spec.template.spec.expireAfter", "set spec.template.spec.expireAfter explicitly"),
    ("KG405", Severity.WARNING, lambda p: (_drop("spec", "template", "spec", "expireAfter")(p),
                                           _set("WhenEmpty", "spec", "disruption", "consolidationPolicy")(p)),
     "spec.template.spec.expireAfter", "set spec.template.spec.expireAfter explicitly"),
    ("KG406", Severity.WARNING, with_requirement(2, {"key": GPU_MEMORY, "operator": "Gt", "values": ["16000"]}),
     f"{REQS}[2]", "Gt 16384"),
    ("KG406", Severity.WARNING, with_requirement(2, {"key": GPU_MEMORY, "operator": "Gte", "values": ["24"]}),
     f"{REQS}[2]", "reported MiB per GPU"),
    ("KG407", Severity.ERROR, with_requirement(2, {"key": GPU_MEMORY, "operator": "Gte", "values": ["24576"]}),
     f"{REQS}[2]", "move the threshold so the named GPUs pass"),
    ("KG408", Severity.WARNING, with_requirement(0, {"key": GPU_COUNT, "operator": "Exists"}),
     f"{REQS}[0]", "use operator Gt with values ['0']"),
    ("KG409", Severity.WARNING,
     with_requirement(1, {"key": GPU_NAME, "operator": "Exists", "values": ["a10g", "l4"]}),
     f"{REQS}[1]", "use In (or NotIn)"),
    ("KG409", Severity.WARNING,
     with_requirement(1, {"key": "karpenter.k8s.aws/instance-family", "operator": "NotIn", "values": []}),
     f"{REQS}[1]", "list the values to exclude"),
    ("KG409", Severity.WARNING,
     with_requirement(1, {"key": "karpenter.k8s.aws/instance-family", "operator": "NotIn"}),
     f"{REQS}[1]", "list the values to exclude"),
    ("KG410", Severity.ERROR,
     with_requirement(1, {"key": "karpenter.k8s.aws/instance-pods", "operator": "Lt", "values": ["100"]}),
     f"{REQS}[1]", "spec.kubelet.maxPods"),
    ("KG410", Severity.ERROR, _set({"karpenter.sh/nodepool": "gpu"}, "spec", "template", "metadata", "labels"),
     "spec.template.metadata.labels[karpenter.sh/nodepool]", "karpenter.sh/nodepool"),
    ("KG412", Severity.WARNING, _set([{"nodes": "0"}], "spec", "disruption", "budgets"),
     "spec.disruption.budgets[0]", "consolidateAfter: Never"),
    ("KG413", Severity.INFO,
     _set([{"nodes": "0", "schedule": "0 9 * * MON-FRI", "duration": "10h"}], "spec", "disruption", "budgets"),
     "spec.disruption.budgets[0].schedule", "DisruptionWindow"),
    ("KG414", Severity.INFO, with_requirement(3, {"key": CAPACITY, "operator": "In", "values": ["spot"]}),
     f"{REQS}[3]", "set settings.interruptionQueue"),
    ("KG415", Severity.WARNING, _set({"maxPods": 110}, "spec", "template", "spec", "kubelet"),
     "spec.template.spec.kubelet", "spec.kubelet of the EC2NodeClass"),
]


@pytest.mark.parametrize(("code", "severity", "mutate", "path", "fix"), POOL_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(POOL_CASES)])
def test_each_pool_rule_reports_code_severity_path_and_fix(code, severity, mutate, path, fix):
    pool = gpu_pool()
    mutate(pool)
    finding = only(run(pool), code)
    assert (finding.severity, finding.path, finding.kind, finding.name) == (severity, path, "NodePool", "gpu-inference")
    assert finding.file == "NodePool.gpu-inference.yaml"
    assert "fix:" in finding.message and fix in finding.message


def test_kg404_unweighted_pool_beside_weighted_ones():
    findings = run(gpu_pool("gpu-a", weight=80), gpu_pool("gpu-b", weight=None))
    finding = only(findings, "KG404")
    assert (finding.name, finding.severity, finding.path) == ("gpu-b", Severity.WARNING, "spec.weight")
    assert "gpu-a (80)" in finding.message and "set spec.weight" in finding.message


def test_kg404_not_when_no_pool_has_a_weight_nor_for_static_pools():
    assert run(gpu_pool("gpu-a", weight=None), gpu_pool("gpu-b", weight=None)) == []
    assert run(gpu_pool("gpu-a", weight=80), static_pool()) == []


def test_kg405_only_for_training_looking_pools():
    pool = gpu_pool()
    del tspec(pool)["expireAfter"]
    assert run(pool) == []


def test_kg406_names_what_the_threshold_admits_and_the_a10g_trap():
    pool = gpu_pool()
    tspec(pool)["requirements"][1:3] = [{"key": GPU_MEMORY, "operator": "Gt", "values": ["16000"]}]
    message = only(run(pool), "KG406").message
    assert "t4, t4g, v100 (16384)" in message  # 16000 still admits the 16 GiB GPUs
    assert "22888" in message and "24576" in message


def test_kg406_not_for_reported_mib_values_or_zero():
    for value in ("16384", "22888", "0"):
        pool = gpu_pool()
        tspec(pool)["requirements"][2] = {"key": GPU_MEMORY, "operator": "Gt", "values": [value]}
        assert [f for f in run(pool) if f.code == "KG406"] == []


def test_kg407_not_when_one_named_gpu_still_matches():
    pool = gpu_pool()
    tspec(pool)["requirements"][1]["values"] = ["a10g", "l40s"]
    tspec(pool)["requirements"][2] = {"key": GPU_MEMORY, "operator": "Gte", "values": ["24576"]}
    assert run(pool) == []


def test_kg407_message_names_the_excluded_gpus():
    pool = gpu_pool()
    tspec(pool)["requirements"][2] = {"key": GPU_MEMORY, "operator": "Gte", "values": ["24576"]}
    message = only(run(pool), "KG407").message
    assert "no instance type can match" in message and "a10g, l4 (22888)" in message


def test_kg409_does_not_exist_with_values():
    pool = gpu_pool()
    tspec(pool)["requirements"].append({"key": "karpenter.k8s.aws/instance-family", "operator": "DoesNotExist",
                                        "values": ["g6f"]})
    assert only(run(pool), "KG409").path == f"{REQS}[4]"


def test_kg410_and_kg409_on_node_overlays_use_the_overlay_allow_list():
    bad = overlay([{"key": "karpenter.k8s.aws/capacity-reservation-id", "operator": "In", "values": ["cr-1"]},
                   {"key": "karpenter.k8s.aws/instance-family", "operator": "Exists", "values": ["g6f"]},
                   {"key": "karpenter.sh/nodepool", "operator": "In", "values": ["gpu"]}])
    findings = run(bad)
    assert [(f.code, f.path, f.severity) for f in findings] == [
        ("KG409", "spec.requirements[1]", Severity.WARNING), ("KG410", "spec.requirements[0]", Severity.ERROR)]


def test_kg411_latest_alias_is_a_warning_outside_prod_and_an_error_in_prod():
    warning = only(run(node_class("al2023@latest")), "KG411")
    assert (warning.severity, warning.path, warning.kind) == (Severity.WARNING, "spec.amiSelectorTerms[0].alias",
                                                              "EC2NodeClass")
    assert "fix: pin a version, e.g. al2023@vYYYYMMDD" in warning.message
    assert only(run(node_class("al2023@latest"), environment="staging"), "KG411").severity is Severity.WARNING
    error = only(run(node_class("bottlerocket@latest"), environment="prod"), "KG411")
    assert error.severity is Severity.ERROR and "bottlerocket@v1.x.y" in error.message


def test_kg412_not_when_consolidation_is_off_scheduled_or_drift_only():
    for change in ({"consolidateAfter": "Never"},
                   {"budgets": [{"nodes": "0", "schedule": "0 0 * * *", "duration": "8h"}]},
                   {"budgets": [{"nodes": "0", "reasons": ["Drifted"]}]}):
        pool = gpu_pool()
        pool["spec"]["disruption"] = {**pool["spec"]["disruption"], "budgets": [{"nodes": "0"}], **change}
        assert [f for f in run(pool) if f.code == "KG412"] == []


def test_kg412_with_a_consolidation_reason_and_percent():
    pool = gpu_pool()
    pool["spec"]["disruption"]["budgets"] = [{"nodes": "0%", "reasons": ["Underutilized", "Drifted"]}]
    assert only(run(pool), "KG412").severity is Severity.WARNING


def _kg413(*zones: str) -> str:
    pool = gpu_pool()
    pool["spec"]["disruption"]["budgets"] = [{"nodes": "0", "schedule": "0 9 * * MON-FRI", "duration": "10h"}]
    if zones:
        tspec(pool)["requirements"].append({"key": "topology.kubernetes.io/zone", "operator": "In",
                                            "values": list(zones)})
    return only(run(pool), "KG413").message


def test_kg413_speaks_of_the_pools_own_zone():
    seoul = _kg413("ap-northeast-2a", "ap-northeast-2c")
    assert "18:00 Asia/Seoul (UTC+9" in seoul and "hour 0 UTC" in seoul
    virginia = _kg413("us-east-1a")
    assert "04:00/05:00 America/New_York (UTC-5/-4, with DST" in virginia and "hour 14/13 UTC" in virginia
    assert "KST" not in virginia


def test_kg413_without_zones_assumes_no_zone():
    message = _kg413()
    assert "UTC" in message and "KST" not in message and "Asia/Seoul" not in message
    assert "not local time unless the cluster's zone is UTC" in message


def test_kg413_not_with_the_windows_annotation_or_outside_business_hours():
    pool = gpu_pool()
    pool["spec"]["disruption"]["budgets"] = [{"nodes": "0", "schedule": "0 9 * * MON-FRI", "duration": "10h"}]
    pool["metadata"]["annotations"] = {"karpenter-gpu.io/disruption-windows": "budgets[0]: 18:00 Asia/Seoul"}
    assert run(pool) == []
    for schedule in ("0 0 * * MON-FRI", "0 23 * * *", "@daily"):
        pool = gpu_pool()
        pool["spec"]["disruption"]["budgets"] = [{"nodes": "0", "schedule": schedule, "duration": "1h"}]
        assert run(pool) == []


def test_kg415_kubelet_directly_under_spec():
    pool = gpu_pool()
    pool["spec"]["kubelet"] = {"maxPods": 50}
    assert only(run(pool), "KG415").path == "spec.kubelet"


@pytest.mark.parametrize(("replicas", "nodes", "path", "fix"), [
    (3, None, "spec.limits", "set spec.limits.nodes to at least replicas (3)"),
    (3, "2", "spec.limits.nodes", "raise spec.limits.nodes to at least 3"),
    (3, 2, "spec.limits.nodes", "raise spec.limits.nodes to at least 3"),
])


def test_kg416_static_pool_node_limit(replicas, nodes, path, fix):
    finding = only(run(static_pool(replicas, nodes)), "KG416")
    assert (finding.severity, finding.path) == (Severity.ERROR, path)
    assert fix in finding.message


def test_kg416_not_when_limit_covers_replicas():
    assert [f.code for f in run(static_pool(3, "3"), static_pool(3, 4))] == ["KG430"]  # covers it, no surge


def test_kg430_static_pool_without_surge_never_replaces_drifted_nodes():
    # pkg/controllers/disruption/staticdrift.go StaticDrift.ComputeCommands: ReserveNodeCount(limits.nodes)
    # must find a node of room above the running replicas before a drifted node is replaced.
    finding = only(run(static_pool(3, "3")), "KG430")
    assert finding.severity is Severity.WARNING and finding.path == "spec.limits.nodes"
    assert "never replaced" in finding.message and "'4'" in finding.message
    assert not [f for f in run(static_pool(3, "4")) if f.code == "KG430"]


def test_static_pools_skip_dynamic_only_rules():
    # no disruption block (KG403), no weight beside a weighted pool (KG404), no GPU limit (KG401)
    assert run(static_pool(), gpu_pool("other", weight=10)) == []


# --------------------------------------------------------------------------- acknowledgement


def test_acknowledged_warning_becomes_info():
    pool = gpu_pool()
    del tspec(pool)["taints"]
    pool["metadata"]["annotations"] = {ACKNOWLEDGE_ANNOTATION: "KG402: taint added by the GPU Operator"}
    finding = only(run(pool), "KG402")
    assert finding.severity is Severity.INFO
    assert finding.message.startswith("acknowledged: GPU pool without a NoSchedule/NoExecute taint")


def test_acknowledgement_is_per_object_and_per_code():
    acked, plain = gpu_pool("acked"), gpu_pool("plain")
    for pool in (acked, plain):
        del tspec(pool)["taints"]
        del pool["spec"]["disruption"]
    acked["metadata"]["annotations"] = {ACKNOWLEDGE_ANNOTATION: "KG402"}
    got = {(f.name, f.code): f.severity for f in run(acked, plain)}
    assert got == {("acked", "KG402"): Severity.INFO, ("acked", "KG403"): Severity.WARNING,
                   ("plain", "KG402"): Severity.WARNING, ("plain", "KG403"): Severity.WARNING}


def test_errors_cannot_be_acknowledged():
    pool = static_pool(replicas=3, nodes="2")
    pool["metadata"]["annotations"] = {ACKNOWLEDGE_ANNOTATION: "KG416: we know"}
    finding = only(run(pool), "KG416")
    assert finding.severity is Severity.ERROR and not finding.message.startswith("acknowledged")


def test_prod_escalation_of_kg411_cannot_be_acknowledged():
    nc = node_class("al2023@latest")
    nc["metadata"]["annotations"] = {ACKNOWLEDGE_ANNOTATION: "KG411: dev cluster follows latest"}
    assert only(run(nc, environment="dev"), "KG411").severity is Severity.INFO
    assert only(run(nc, environment="prod"), "KG411").severity is Severity.ERROR


# --------------------------------------------------------------------------- robustness


def test_malformed_manifests_do_not_crash():
    weird_pool = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": None,
                  "spec": {"template": {"spec": {"requirements": ["x", {"key": 1}, {"key": GPU_COUNT,
                                                                                 "operator": "Gt", "values": "0"}],
                                                 "taints": "nope"}},
                           "disruption": {"budgets": [None, {"nodes": 0}, {"schedule": 5}]},
                           "limits": ["nvidia.com/gpu"], "replicas": None, "weight": None}}
    other = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}
    nc = {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "spec": {"amiSelectorTerms": "x"}}
    static = copy.deepcopy(static_pool(2, "lots"))
    findings = check_rules([("a.yaml", weird_pool), ("b.yaml", other), ("c.yaml", nc), ("d.yaml", None),  # type: ignore[list-item]
                            ("e.yaml", "text"), ("f.yaml", static)])  # type: ignore[list-item]
    assert {f.code for f in findings} >= {"KG401", "KG402"}


# --------------------------------------------------------------------------- KG417 (workload placement)

NODEPOOL = "karpenter.sh/nodepool"
POD = "spec.template.spec"


def workload(pool: str = "gpu-inference", tolerations: list[dict] | None = None, kind: str = "Deployment",
             gpu: bool = True, **selector: str) -> dict:
    """A GPU workload pinned to ``pool``, tolerating the GPU taint unless told otherwise. ``gpu`` False: it requests
    no nvidia.com/gpu, so EKS's ExtendedResourceToleration admission adds no toleration for the GPU taint."""
    limits = {"nvidia.com/gpu": "1"} if gpu else {"cpu": "1"}
    pod = {"nodeSelector": {NODEPOOL: pool, **{k.replace("__", "/"): v for k, v in selector.items()}},
           "tolerations": [{"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}]
           if tolerations is None else tolerations,
           "containers": [{"name": "main", "image": "pause", "resources": {"limits": limits}}]}
    api = {"Pod": "v1", "Job": "batch/v1", "CronJob": "batch/v1"}.get(kind, "apps/v1")
    spec: dict = {"template": {"spec": pod}}
    if kind == "Pod":
        spec = pod
    elif kind == "CronJob":
        spec = {"schedule": "0 0 * * *", "jobTemplate": {"spec": {"template": {"spec": pod}}}}
    return {"apiVersion": api, "kind": kind, "metadata": {"name": "smoke"}, "spec": spec}


def kg417(*manifests: dict) -> list[Finding]:
    return [f for f in run(*manifests) if f.code == "KG417"]


def test_kg417_clean_workload_on_its_pool():
    assert run(gpu_pool(), training_pool(), workload(), workload("gpu-training", kind="Job")) == []


def test_kg417_pool_missing_from_the_environment():
    f = only(run(gpu_pool(), workload("gpu-inferense")), "KG417")
    assert (f.kind, f.severity, f.path) == ("Deployment", Severity.ERROR, f"{POD}.nodeSelector[{NODEPOOL}]")
    assert "gpu-inferense" in f.message and "gpu-inference" in f.message and "Pending" in f.message


def test_kg417_untolerated_taint_names_the_toleration_to_add():
    f = only(run(gpu_pool(), workload(tolerations=[], gpu=False)), "KG417")
    assert f.path == f"{POD}.tolerations"
    assert "nvidia.com/gpu=true:NoSchedule" in f.message
    assert "{key: nvidia.com/gpu, operator: Equal, value: 'true', effect: NoSchedule}" in f.message


@pytest.mark.parametrize("toleration", [
    {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "nvidia.com/gpu", "operator": "Exists"},  # empty effect matches every effect
    {"key": "nvidia.com/gpu", "value": "true"},  # operator defaults to Equal
    {"operator": "Exists"},  # empty key with Exists tolerates everything
    {"operator": "Exists", "effect": "NoSchedule"},
])


def test_kg417_kubernetes_toleration_matching_accepts(toleration):
    assert kg417(gpu_pool(), workload(tolerations=[toleration])) == []


@pytest.mark.parametrize("toleration", [
    {"key": "nvidia.com/gpu", "operator": "Equal", "value": "false", "effect": "NoSchedule"},
    {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoExecute"},
    {"key": "nvidia.com/gpu", "operator": "Equal", "effect": "NoSchedule"},  # value "" ≠ "true"
    {"key": "amd.com/gpu", "operator": "Exists"},
    {"operator": "Exists", "effect": "PreferNoSchedule"},
])


def test_kg417_kubernetes_toleration_matching_rejects(toleration):
    assert len(kg417(gpu_pool(), workload(tolerations=[toleration], gpu=False))) == 1


def test_kg417_a_gpu_pod_gets_the_extended_resource_toleration_on_eks():
    """kubernetes plugin/pkg/admission/extendedresourcetoleration: requesting nvidia.com/gpu adds
    {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule} before Karpenter and the scheduler see the pod."""
    assert kg417(gpu_pool(), workload(tolerations=[])) == []
    assert len(kg417(gpu_pool(), workload(tolerations=[], gpu=False))) == 1


def test_kg417_one_finding_per_untolerated_taint_and_prefer_no_schedule_is_not_needed():
    pool = gpu_pool()
    tspec(pool)["taints"] += [{"key": "example.com/team", "effect": "NoExecute"},
                              {"key": "example.com/soft", "value": "x", "effect": "PreferNoSchedule"}]
    findings = kg417(pool, workload(tolerations=[], gpu=False))
    assert len(findings) == 2
    assert "nvidia.com/gpu=true:NoSchedule" in findings[0].message
    assert "example.com/team:NoExecute" in findings[1].message
    gpu_only = workload()
    assert [f.path for f in kg417(pool, gpu_only)] == [f"{POD}.tolerations"]
    team = {"key": "example.com/team", "operator": "Exists", "effect": "NoExecute"}
    both = workload(tolerations=_list_of(gpu_only) + [team])
    assert kg417(pool, both) == []


def across(*pools: str, tolerations: list[dict] | None = None, extra_term: bool = False) -> dict:
    """A workload placed on several pools by a required node affinity (pod_placement(*pools))."""
    work = workload(tolerations=tolerations)
    pod = work["spec"]["template"]["spec"]
    del pod["nodeSelector"]
    terms = [{"matchExpressions": [{"key": NODEPOOL, "operator": "In", "values": list(pools)}]}]
    if extra_term:
        terms.append({"matchExpressions": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}]})
    pod["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}
    return work


def test_kg417_affinity_across_pools_checks_every_named_pool():
    team = {"key": "workload", "operator": "Equal", "value": "training", "effect": "NoSchedule"}
    gpu = {"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}
    training = training_pool()
    tspec(training)["taints"].append({"key": "workload", "value": "training", "effect": "NoSchedule"})
    assert kg417(gpu_pool(), training, across("gpu-inference", "gpu-training", tolerations=[gpu, team])) == []
    missing = kg417(gpu_pool(), training, across("gpu-inference", "gpu-training", tolerations=[gpu]))
    assert len(missing) == 1 and "NodePool gpu-training" in missing[0].message
    assert "node affinity" in missing[0].message
    (unknown,) = kg417(gpu_pool(), across("gpu-inference", "gpu-inferense"))
    assert "gpu-inferense names no NodePool" in unknown.message and "nodeSelectorTerms[0]" in unknown.path


def test_kg417_affinity_with_a_term_not_pinning_pools_is_not_judged():
    # Terms are ORed: the arch term admits every pool, so no pool is the workload's target.
    assert kg417(gpu_pool(), across("gpu-inferense", extra_term=True)) == []


def _list_of(work: dict) -> list[dict]:
    return list(work["spec"]["template"]["spec"]["tolerations"])


def test_kg417_startup_taints_need_no_toleration():
    pool = gpu_pool()
    tspec(pool)["startupTaints"] = [{"key": "example.com/agent-not-ready", "effect": "NoSchedule"}]
    assert kg417(pool, workload()) == []


def test_kg417_node_selector_conflicting_with_a_template_label():
    f = only(run(gpu_pool(), workload(workload="training")), "KG417")
    assert f.path == f"{POD}.nodeSelector[workload]"
    assert "template label workload: inference" in f.message
    assert kg417(gpu_pool(), workload(workload="inference")) == []


@pytest.mark.parametrize("key, value, bad", [
    (CAPACITY, "spot", True),  # pool: capacity-type In [on-demand]
    (CAPACITY, "on-demand", False),
    (GPU_NAME, "t4", True),
    (GPU_MEMORY, "16384", True),  # Gte 22888
    (GPU_MEMORY, "45776", False),
    ("kubernetes.io/arch", "amd64", False),  # unconstrained by the pool: not a conflict
])


def test_kg417_node_selector_against_the_pool_requirements(key, value, bad):
    findings = kg417(gpu_pool(), workload(**{key.replace("/", "__"): value}))
    assert [f.path for f in findings] == ([f"{POD}.nodeSelector[{key}]"] if bad else [])


@pytest.mark.parametrize("kind, path", [("Pod", "spec"), ("Job", POD), ("StatefulSet", POD),
                                         ("CronJob", "spec.jobTemplate.spec.template.spec")])
def test_kg417_reads_every_workload_kind(kind, path):
    f = only(run(gpu_pool(), workload(tolerations=[], kind=kind, gpu=False)), "KG417")
    assert (f.kind, f.path) == (kind, f"{path}.tolerations")


def test_kg417_ignores_workloads_without_a_nodepool_selector():
    work = workload(tolerations=[])
    del work["spec"]["template"]["spec"]["nodeSelector"][NODEPOOL]
    assert run(gpu_pool(), work) == []


def test_kg417_malformed_workloads_do_not_crash():
    broken = [{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "a"}, "spec": {"template": "x"}},
              {"apiVersion": "v1", "kind": "Pod", "spec": {"nodeSelector": {NODEPOOL: 5}, "tolerations": "x"}},
              {"apiVersion": ["v1"], "kind": "Pod"},
              workload(tolerations=[None, {"key": 3, "operator": None}], gpu=False)]  # type: ignore[list-item]
    findings = check_rules([("w.yaml", m) for m in [gpu_pool(), *broken]])
    assert [f.code for f in findings] == ["KG417", "KG417"]


# ------------------------------------------------------------ catalog rules (KG418–KG421)
def _requirements(pool: dict, *reqs: dict) -> dict:
    tspec(pool)["requirements"] = list(reqs)
    return pool


GPU = {"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Gt", "values": ["0"]}


def test_kg418_narrow_pool_lists_its_few_candidates():
    pool = _requirements(gpu_pool(), GPU, {"key": "node.kubernetes.io/instance-type", "operator": "In",
                                           "values": ["g5.xlarge", "g5.2xlarge"]})
    finding = only(run(pool), "KG418")
    assert finding.severity is Severity.WARNING and "g5.xlarge, g5.2xlarge" in finding.message


def test_kg419_pool_that_admits_nothing():
    pool = _requirements(gpu_pool(), GPU, {"key": "karpenter.k8s.aws/instance-gpu-name", "operator": "In",
                                           "values": ["a10g"]},
                         {"key": "karpenter.k8s.aws/instance-size", "operator": "In", "values": ["nano"]})
    finding = only(run(pool), "KG419")
    assert finding.severity is Severity.ERROR and "Pending" in finding.message


def test_kg420_training_pool_on_spot_only():
    pool = _requirements(gpu_pool(name="gpu-training"), GPU,
                         {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]})
    assert only(run(pool), "KG420").severity is Severity.WARNING


def test_kg421_workload_too_big_for_every_instance_of_its_pool():
    pool = _requirements(gpu_pool(), GPU, {"key": "karpenter.k8s.aws/instance-gpu-name", "operator": "In",
                                           "values": ["t4", "a10g", "l4"]})
    big = workload()
    big["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = "16"
    finding = only(run(pool, big), "KG421")
    assert finding.severity is Severity.ERROR and "gpu-inference" in finding.message
    assert [f for f in run(pool, workload()) if f.code == "KG421"] == []  # one GPU fits


# --------------------------------------------------------------------------- hybrid node groups (KG417, KG450)


def hybrid_group(name: str = "dc1-a100", gpus: int = 8, taints: list | None = None) -> dict:
    """The ConfigMap HybridGpuNodeGroup renders, written by hand."""
    labels = {"eks.amazonaws.com/compute-type": "hybrid", "karpenter-gpu.io/hybrid-group": name,
              "karpenter-gpu.io/location": "seoul-dc1", "gpu-operator": "enabled", "kubernetes.io/arch": "amd64"}
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": f"hybrid-gpu-{name}", "namespace": "kube-system",
                         "labels": {"karpenter-gpu.io/hybrid-group": name}},
            "data": {"gpuName": "a100", "gpusPerNode": str(gpus), "nodes": "4", "location": "seoul-dc1",
                     "nodeLabels": json.dumps(labels),
                     "taints": json.dumps(taints if taints is not None else
                                          [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}])}}


def hybrid_pod(selector: dict | None = None, tolerate: bool = True, gpus: int = 1) -> dict:
    tolerations = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}] if tolerate else []
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "onprem"}, "spec": {
        "nodeSelector": selector if selector is not None else {
            "eks.amazonaws.com/compute-type": "hybrid", "karpenter-gpu.io/hybrid-group": "dc1-a100"},
        "tolerations": tolerations,
        "containers": [{"name": "main", "resources": {"limits": {"nvidia.com/gpu": str(gpus)}}}]}}


def test_hybrid_pod_that_fits_its_group_is_clean():
    assert [f.code for f in run(hybrid_group(), hybrid_pod(gpus=8))] == []
    assert [f.code for f in run(hybrid_group(), hybrid_pod({"eks.amazonaws.com/compute-type": "hybrid"}))] == []


def test_kg417_hybrid_pod_without_any_group_described():
    finding = only(run(gpu_pool(), hybrid_pod()), "KG417")
    assert finding.path == "spec.nodeSelector" and "no hybrid node group is described" in finding.message


def test_kg417_hybrid_pod_not_tolerating_the_group_taint():
    finding = only(run(hybrid_group(), hybrid_pod(tolerate=False)), "KG417")
    assert "dc1-a100: taint nvidia.com/gpu=true:NoSchedule is not tolerated" in finding.message


def test_kg417_hybrid_pod_naming_an_unknown_group():
    finding = only(run(hybrid_group(), hybrid_pod({"eks.amazonaws.com/compute-type": "hybrid",
                                                   "karpenter-gpu.io/hybrid-group": "dc9"})), "KG417")
    assert "karpenter-gpu.io/hybrid-group dc9 names no hybrid node group" in finding.message


def test_kg450_hybrid_pod_larger_than_a_node():
    finding = only(run(hybrid_group(gpus=4), hybrid_pod(gpus=8)), "KG450")
    assert finding.severity is Severity.ERROR and "a node has 4" in finding.message


def test_a_nodepool_pod_selecting_hybrid_labels_is_still_checked_against_its_pool():
    pod = hybrid_pod({"karpenter.sh/nodepool": "gpu-inference", "eks.amazonaws.com/compute-type": "hybrid"})
    finding = only(run(gpu_pool(), hybrid_group(), pod), "KG417")
    assert "does not have known values" in finding.message


def test_kg451_unreadable_hybrid_group_description():
    group = hybrid_group()
    group["data"]["taints"] = "nvidia.com/gpu=true:NoSchedule"  # kubectl's spelling, not JSON
    finding = only(run(group), "KG451")
    assert (finding.kind, finding.path) == ("ConfigMap", "data")
    assert "data.taints is not a JSON list" in finding.message
    assert [f.code for f in run(hybrid_group())] == []


# --------------------------------------------------------------------------- EKS Auto Mode (KG440-KG443)

AUTO_REF = {"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "gpu-auto"}


def auto_pool(expire_after: str | None = "336h") -> dict:
    """The clean GPU pool on an Auto Mode NodeClass, in Auto Mode's key spelling."""
    pool = gpu_pool("gpu-auto")
    spec = tspec(pool)
    spec["nodeClassRef"] = dict(AUTO_REF)
    for r in spec["requirements"]:
        r["key"] = r["key"].replace("karpenter.k8s.aws/", "eks.amazonaws.com/")
    if expire_after is None:
        del spec["expireAfter"]
    else:
        spec["expireAfter"] = expire_after
    return pool


def auto_node_class(**spec: Any) -> dict:
    return {"apiVersion": "eks.amazonaws.com/v1", "kind": "NodeClass", "metadata": {"name": "gpu-auto"},
            "spec": {"role": "AmazonEKSAutoNodeRole",
                     "subnetSelectorTerms": [{"tags": {"kubernetes.io/role/internal-elb": "1"}}],
                     "securityGroupSelectorTerms": [{"tags": {"aws:eks:cluster-name": "ml"}}], **spec}}


def test_auto_mode_pool_and_node_class_are_clean():
    findings = run(auto_pool(), auto_node_class(ephemeralStorage={"size": "200Gi", "iops": 6000}))
    assert [f.line() for f in findings if f.severity is not Severity.INFO] == []


def test_auto_mode_pool_is_still_a_gpu_pool_for_the_other_rules():
    pool = auto_pool()
    del pool["spec"]["limits"]
    assert only(run(pool), "KG401").path == "spec.limits"  # is_gpu reads eks.amazonaws.com/instance-gpu-* too
    pool = auto_pool()
    tspec(pool)["requirements"][2] = {"key": "eks.amazonaws.com/instance-gpu-memory", "operator": "Gte",
                                      "values": ["24000"]}
    assert only(run(pool), "KG406")


@pytest.mark.parametrize("expire_after", ["Never", "505h", "720h", "30300m"])
def test_kg440_auto_mode_expiry_beyond_21_days(expire_after):
    finding = only(run(auto_pool(expire_after)), "KG440")
    assert finding.path == "spec.template.spec.expireAfter" and "21 days" in finding.message


def test_kg440_not_raised_within_21_days_or_on_karpenter_pools():
    assert not [f for f in run(auto_pool("504h")) if f.code == "KG440"]
    pool = gpu_pool()
    tspec(pool)["expireAfter"] = "Never"
    assert not [f for f in run(pool) if f.code == "KG440"]


def test_kg405_and_kg414_do_not_apply_on_auto_mode():
    pool = auto_pool(expire_after=None)
    pool["metadata"]["name"] = "gpu-training"
    tspec(pool)["requirements"][3] = {"key": CAPACITY, "operator": "In", "values": ["spot"]}
    codes = {f.code for f in run(pool)}
    assert "KG405" not in codes and "KG414" not in codes
    karpenter = gpu_pool("gpu-training")
    del tspec(karpenter)["expireAfter"]
    tspec(karpenter)["requirements"][3] = {"key": CAPACITY, "operator": "In", "values": ["spot"]}
    assert {"KG405", "KG414"} <= {f.code for f in run(karpenter)}


def test_kg441_karpenter_key_on_auto_mode_pool():
    pool = auto_pool()
    tspec(pool)["requirements"].append({"key": "karpenter.k8s.aws/instance-family", "operator": "In",
                                        "values": ["g6"]})
    finding = only(run(pool), "KG441")
    assert finding.path == f"{REQS}[4]" and "use eks.amazonaws.com/instance-family" in finding.message


def test_kg442_auto_mode_key_on_ec2_node_class_pool():
    pool = gpu_pool()
    tspec(pool)["requirements"][1] = {"key": "eks.amazonaws.com/instance-gpu-name", "operator": "In",
                                      "values": ["l4"]}
    finding = only(run(pool), "KG442")
    assert finding.path == f"{REQS}[1]" and "use karpenter.k8s.aws/instance-gpu-name" in finding.message


@pytest.mark.parametrize("spec,path", [
    ({"amiSelectorTerms": [{"alias": "bottlerocket@latest"}]}, "spec.amiSelectorTerms"),
    ({"userData": "[settings]"}, "spec.userData"),
    ({"ephemeralStorage": {"size": "80Gi", "iops": 20000}}, "spec.ephemeralStorage.iops"),
    ({"ephemeralStorage": {"size": "70Ti"}}, "spec.ephemeralStorage.size"),
    ({"networkPolicy": "Deny"}, "spec.networkPolicy"),
    ({"tags": {"eks.amazonaws.com/nodeclass": "x"}}, "spec.tags[eks.amazonaws.com/nodeclass]"),
    ({"role": ""}, "spec.role"),
])


def test_kg443_auto_mode_node_class_against_the_guide(spec, path):
    finding = only(run(auto_node_class(**spec)), "KG443")
    assert finding.path == path and "no CRD" in finding.message


def test_kg417_auto_mode_pod_selects_compute_type_and_auto_mode_keys():
    """A pod may select eks.amazonaws.com/compute-type: auto and eks.amazonaws.com/ keys on an Auto Mode pool (Auto
    Mode's well-known labels), not on a self-managed pool, and not karpenter.k8s.aws keys on Auto Mode."""
    def pod(pool_name: str, **selector: str) -> dict:
        return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                "spec": {"nodeSelector": {"karpenter.sh/nodepool": pool_name, **selector},
                         "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                         "containers": [{"name": "c", "image": "i"}]}}
    auto = {"eks.amazonaws.com/compute-type": "auto", "eks.amazonaws.com/instance-family": "g6"}
    assert not [f for f in run(auto_pool(), pod("gpu-auto", **auto)) if f.code == "KG417"]
    refused = [f for f in run(gpu_pool(), pod("gpu-inference", **auto)) if f.code == "KG417"]
    assert sorted(f.path for f in refused) == [f"spec.nodeSelector[{k}]" for k in sorted(auto)]
    assert all("does not have known values" in f.message for f in refused)
    finding = only(run(auto_pool(), pod("gpu-auto", **{"karpenter.k8s.aws/instance-family": "g6"})), "KG417")
    assert "karpenter.k8s.aws/instance-family" in finding.message


def test_kg444_node_overlay_naming_an_auto_mode_pool():
    named = overlay([{"key": "karpenter.sh/nodepool", "operator": "In", "values": ["gpu-auto", "gpu-inference"]}])
    finding = only(run(auto_pool(), gpu_pool(), named), "KG444")
    assert finding.path == "spec.requirements[0]" and "gpu-auto" in finding.message
    assert "gpu-inference" not in finding.message.split("pool(s)")[1].split(":")[0]
    assert not [f for f in run(auto_pool(), gpu_pool(), overlay()) if f.code == "KG444"]  # names no pool


# --------------------------------------------------------------------------- MIG (KG445-KG449)


def _mig_env(chart) -> tuple[list[dict], dict]:
    """A MIG pool (all-1g.10gb, mixed) beside a whole-GPU pool, their smoke workloads and the operator values."""
    from karpenter_gpu import (GpuInferencePool, GpuNodeClass, GpuOperatorValues, GpuWorkload,
                               MigPartitionedPool)
    from tests.conftest import manifests

    nc = GpuNodeClass(chart, "Class", name="gpu", ami="al2023@v20251103", role="R", cluster_name="c")
    inference = GpuInferencePool(chart, "Inference", node_class=nc, name="gpu-inference", gpu_limit=8,
                                 capacity_types=("on-demand",))
    mig = MigPartitionedPool(chart, "Mig", node_class=nc, name="gpu-mig", gpu_limit=16, mig_config="all-1g.10gb")
    GpuWorkload(chart, "MigSmoke", pool=mig)
    GpuWorkload(chart, "Smoke", pool=inference)
    values = GpuOperatorValues(chart, "GpuOperator")
    return manifests(chart), {"gpu-operator.values.yaml": values.render_values()}


def _pod(name: str, pool: str, resources: dict) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"nodeSelector": {"karpenter.sh/nodepool": pool},
                     "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                     "containers": [{"name": "main", "image": "x", "resources": {"limits": resources}}]}}


def _mig_codes(findings: list[Finding]) -> list[tuple[str, str, str]]:
    return [(f.code, f.kind, f.name) for f in findings if f.code in ("KG421", "KG445", "KG446", "KG447", "KG448", "KG449")]


def test_mig_environment_is_clean(chart):
    objects, values = _mig_env(chart)
    assert _mig_codes(check_rules([("x", m) for m in objects], values=values, settings=ON)) == []


def test_kg445_mig_resource_no_pool_advertises(chart):
    objects, values = _mig_env(chart)
    pod = _pod("big-slice", "gpu-mig", {"nvidia.com/mig-3g.40gb": "1"})
    found = _mig_codes(check_rules([("x", m) for m in [*objects, pod]], values=values, settings=ON))
    # KG421: not on the pool it targets; KG445: nowhere in this environment
    assert found == [("KG421", "Pod", "big-slice"), ("KG445", "Pod", "big-slice")]


def test_kg446_single_strategy_values_against_mixed_pools_and_pods(chart):
    objects, values = _mig_env(chart)
    values["gpu-operator.values.yaml"]["mig"]["strategy"] = "single"
    found = _mig_codes(check_rules([("x", m) for m in objects], values=values, settings=ON))
    assert ("KG446", "NodePool", "gpu-mig") in found and ("KG446", "Deployment", "gpu-mig-smoke") in found


def test_kg446_mig_manager_off(chart):
    objects, values = _mig_env(chart)
    values["gpu-operator.values.yaml"]["migManager"] = {"enabled": False}
    assert _mig_codes(check_rules([("x", m) for m in objects], values=values, settings=ON)) == [("KG446", "NodePool", "gpu-mig")]


def test_kg447_time_slicing_on_a_mig_pool(chart):
    from karpenter_gpu.addons.gpu_operator_values import time_slicing_config

    objects, values = _mig_env(chart)
    values["gpu-operator.values.yaml"]["devicePlugin"]["config"] = {
        "create": True, "name": "ts", "default": "any", "data": {"any": time_slicing_config(4)}}
    assert _mig_codes(check_rules([("x", m) for m in objects], values=values, settings=ON)) == [("KG447", "NodePool", "gpu-mig")]


def test_kg448_whole_gpus_on_a_mixed_mig_pool_even_without_values(chart):
    objects, _ = _mig_env(chart)
    pod = _pod("whole", "gpu-mig", {"nvidia.com/gpu": "1"})
    assert _mig_codes(check_rules([("x", m) for m in [*objects, pod]], settings=ON)) == [("KG448", "Pod", "whole")]


def test_kg449_instance_type_without_the_config(chart):
    objects, values = _mig_env(chart)
    pool = next(m for m in objects if m["kind"] == "NodePool" and m["metadata"]["name"] == "gpu-mig")
    for req in pool["spec"]["template"]["spec"]["requirements"]:
        if req["key"] == "node.kubernetes.io/instance-type":
            req["values"].append("p5en.48xlarge")  # H200: 1g.18gb, no 1g.10gb
        if req["key"] == "karpenter.k8s.aws/instance-gpu-name":
            req["values"].append("h200")
    found = [f for f in check_rules([("x", m) for m in objects], values=values, settings=ON) if f.code == "KG449"]
    assert [(f.name, f.path) for f in found] == [("gpu-mig", "spec.template.metadata.labels[nvidia.com/mig.config]")]
    assert "p5en.48xlarge" in found[0].message


def test_kg446_mixed_values_against_a_single_strategy_pool(chart):
    from karpenter_gpu import GpuNodeClass, GpuOperatorValues, MigPartitionedPool
    from tests.conftest import manifests

    nc = GpuNodeClass(chart, "Class", name="gpu", ami="al2023@v20251103", role="R", cluster_name="c")
    MigPartitionedPool(chart, "Mig", node_class=nc, name="gpu-mig", gpu_limit=16, mig_config="all-1g.10gb",
                       mig_strategy="single")
    values = GpuOperatorValues(chart, "GpuOperator").render_values()
    objects = [("x", m) for m in manifests(chart)]
    assert values["mig"] == {"strategy": "single"}
    assert _mig_codes(check_rules(objects, values={"gpu-operator.values.yaml": values}, settings=ON)) == []
    values["mig"]["strategy"] = "mixed"
    assert _mig_codes(check_rules(objects, values={"gpu-operator.values.yaml": values}, settings=ON)) == [
        ("KG446", "NodePool", "gpu-mig")]


def test_kg455_names_the_devices_of_the_listed_families():
    pool = neuron_pool("trainium")
    tspec(pool)["requirements"] = [{"key": "karpenter.k8s.aws/instance-family", "operator": "In",
                                    "values": ["trn1", "trn2"]}, ON_DEMAND]
    message = only(run(pool), "KG455").message
    assert "instance-accelerator-name In ['trainium', 'trainium2']" in message
    assert "admits every size of trn1, trn2 but leaves out trn1n.32xlarge, which have the same device" in message


def test_mig_devices_are_looked_up_only_for_a_pod_asking_for_one(monkeypatch):
    """KG445 reads what the pools advertise only when a workload requests a MIG resource."""
    from karpenter_gpu.check.rules import mig

    def refuse(report):
        raise AssertionError("the pools' MIG devices were read")

    monkeypatch.setattr(mig, "_mig_resources", refuse)
    assert not [f for f in check_rules([("p.yaml", gpu_pool())]) if f.code == "KG445"]


def test_a_requirement_key_is_judged_once_for_every_pool(monkeypatch):
    from karpenter_gpu import perf
    from karpenter_gpu.check.rules import requirements

    with perf.caching_set(True):  # the verdicts cached by key (the suite also runs with caching off)
        requirements._key_problem.cache_clear()
        seen: list[str] = []
        real = requirements.check_label_key

        def counted(key, prop="requirements"):
            seen.append(key)
            return real(key, prop)

        monkeypatch.setattr(requirements, "check_label_key", counted)
        pools = [(f"{i}.yaml", gpu_pool(f"gpu-{i}", weight=10 + i)) for i in range(5)]
        check_rules(pools)
        assert seen and len(seen) == len(set(seen))
        requirements._key_problem.cache_clear()


def test_kg445_says_to_turn_on_the_overlay_gate_when_the_overlays_are_ignored(chart):
    """Under the chart's defaults (no values read) the MIG overlays exist but are not applied: the fix is the gate,
    not another MIG pool."""
    objects, values = _mig_env(chart)
    pod = _pod("slice", "gpu-mig", {"nvidia.com/mig-1g.10gb": "1"})
    found = [f for f in check_rules([("x", m) for m in [*objects, pod]], values=values) if f.code == "KG445"]
    assert "slice" in {f.name for f in found}
    assert all("turn on settings.featureGates.nodeOverlay" in f.message for f in found)
    assert not [f for f in check_rules([("x", m) for m in [*objects, pod]], values=values, settings=ON)
                if f.code == "KG445"]


def test_kg445_leaves_the_gate_karpenter_values_turn_off_to_kg642(chart):
    """Karpenter values with nodeOverlay off: the MIG capacity the overlays add is not applied. One cause, one
    finding: KG642 on each overlay, not KG445 on the pod too; a profile no overlay adds is still KG445's."""
    from karpenter_gpu.k8s.controller_settings import read_settings

    objects, values = _mig_env(chart)
    values["karpenter.values.yaml"] = {"settings": {"featureGates": {"nodeOverlay": False}}}
    off = read_settings(values["karpenter.values.yaml"], "helm/karpenter.values.yaml")
    assert not off.node_overlay
    ours = _pod("slice", "gpu-mig", {"nvidia.com/mig-1g.10gb": "1"})
    other = _pod("big-slice", "gpu-mig", {"nvidia.com/mig-3g.40gb": "1"})
    found = check_rules([("x", m) for m in [*objects, ours, other]], values=values, settings=off)
    assert {f.kind for f in found if f.code == "KG642"} == {"NodeOverlay"}
    assert [f.name for f in found if f.code == "KG445"] == ["big-slice"]


def test_kg419_on_a_static_pool_without_the_static_gate_says_to_turn_it_on():
    pool = gpu_pool()
    pool["spec"]["replicas"] = 1
    pool["spec"].pop("weight", None)
    pool["spec"]["limits"] = {"nodes": "2"}
    off = [f for f in check_rules([("p.yaml", pool)]) if f.code == "KG419"]
    assert off and "turn on settings.featureGates.staticCapacity" in off[0].message
    assert not [f for f in run(pool) if f.code == "KG419"]
