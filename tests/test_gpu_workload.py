"""GpuWorkload → Deployment (+ PDB) pinned to one GPU NodePool; pod_placement; KG417 on the output."""

from __future__ import annotations

import copy

import cdk8s
import pytest

from karpenter_gpu import (Duration, GpuInferencePool, GpuNodeClass, GpuTrainingPool, HybridGpuNodeGroup,
                           KarpenterControllerValues, KarpenterGpuError, StaticCapacityPool, Taint, TaintEffect)
from karpenter_gpu.k8s.scheduling import Requirements, pod_requirements, untolerated
from karpenter_gpu.apiserver.findings import Severity
from karpenter_gpu.addons.gpu_workload import PAUSE_IMAGE, GpuWorkload, pod_placement, toleration
from karpenter_gpu.check.rules import check_rules
from tests.conftest import helm_values, karpenter_settings, manifests

TEAM = Taint("example.com/team", "ml", TaintEffect.NO_EXECUTE)
DEDICATED = Taint("example.com/dedicated", None, TaintEffect.NO_SCHEDULE)
WORKLOAD_KINDS = ("Deployment", "PodDisruptionBudget")


@pytest.fixture
def node_class(chart):
    return GpuNodeClass.training(chart, "Class", name="gpu", ami="al2023@v20251103", role="R", cluster_name="c")


@pytest.fixture
def inference(chart, node_class):
    return GpuInferencePool(chart, "Inference", node_class=node_class, name="gpu-inference", gpu_limit=16,
                            taints=(Taint.gpu(), TEAM, DEDICATED))


@pytest.fixture
def training(chart, node_class):
    return GpuTrainingPool(chart, "Training", node_class=node_class, name="gpu-training", gpu_limit=32,
                           expire_after=Duration.never())


def workloads(chart) -> list[dict]:
    return [m for m in manifests(chart) if m["kind"] in WORKLOAD_KINDS]


def deployment(chart) -> dict:
    found = [m for m in manifests(chart) if m["kind"] == "Deployment"]
    assert len(found) == 1
    return found[0]


def pod(chart) -> dict:
    return deployment(chart)["spec"]["template"]


def code(exc: pytest.ExceptionInfo) -> str:
    return exc.value.code


# --------------------------------------------------------------------------- snapshots


def test_inference_workload_with_pdb_snapshot(chart, inference, snapshot):
    GpuWorkload(chart, "Smoke", pool=inference, namespace="ml-serving", pdb_min_available=1)
    assert workloads(chart) == snapshot


def test_training_workload_snapshot(chart, training, snapshot):
    GpuWorkload(chart, "Smoke", pool=training, gpus=8, cpu="8", memory="64Gi")
    assert workloads(chart) == snapshot


# --------------------------------------------------------------------------- placement


def test_tolerations_are_exactly_the_pool_taints(chart, inference):
    GpuWorkload(chart, "Smoke", pool=inference)
    assert pod(chart)["spec"]["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"},
        {"key": "example.com/team", "operator": "Equal", "value": "ml", "effect": "NoExecute"},
        {"key": "example.com/dedicated", "operator": "Exists", "effect": "NoSchedule"},
    ]
    assert pod(chart)["spec"]["tolerations"] == [toleration(t) for t in inference.taints]


def test_default_pool_taint_only(chart, training):
    GpuWorkload(chart, "Smoke", pool=training)
    assert pod(chart)["spec"]["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}]


def test_node_selector_is_the_nodepool_label(chart, inference):
    GpuWorkload(chart, "Smoke", pool=inference)
    assert pod(chart)["spec"]["nodeSelector"] == {"karpenter.sh/nodepool": "gpu-inference"}


def test_pod_placement_is_plain_dicts(inference):
    placement = pod_placement(inference)
    assert placement == {"nodeSelector": {"karpenter.sh/nodepool": "gpu-inference"},
                         "tolerations": [toleration(t) for t in inference.taints]}
    assert type(placement["tolerations"][0]) is dict
    placement["tolerations"].clear()  # a fresh copy each call
    assert len(pod_placement(inference)["tolerations"]) == 3


def test_startup_taints_are_not_tolerated(chart, node_class):
    pool = GpuInferencePool(chart, "P", node_class=node_class, name="gpu-x", gpu_limit=4,
                            startup_taints=(Taint("example.com/agent-not-ready", None),))
    assert pod_placement(pool)["tolerations"] == [toleration(Taint.gpu())]


def test_static_pool(chart, node_class):
    static = StaticCapacityPool(chart, "Static", node_class=node_class, name="gpu-warm", replicas=2)
    GpuWorkload(chart, "Smoke", pool=static.pools[0], gpus=8)  # no GPU limit on a static pool
    assert pod(chart)["spec"]["nodeSelector"] == {"karpenter.sh/nodepool": static.pools[0].name}


def test_pod_placement_rejects_a_non_pool():
    with pytest.raises(KarpenterGpuError) as exc:
        pod_placement("gpu-inference")  # type: ignore[arg-type]
    assert code(exc) == "KG100"


# --------------------------------------------------------------------------- the pod


def test_gpu_requests_and_limits(chart, inference):
    GpuWorkload(chart, "Smoke", pool=inference, gpus=4, cpu="500m", memory="256M")
    resources = pod(chart)["spec"]["containers"][0]["resources"]
    expected = {"cpu": "500m", "memory": "256M", "nvidia.com/gpu": "4"}
    assert resources == {"limits": expected, "requests": expected}


def test_defaults_follow_upstream_gpu_example(chart, inference):
    GpuWorkload(chart, "Smoke", pool=inference)
    d = deployment(chart)
    assert d["metadata"]["name"] == "gpu-inference-smoke"
    assert d["spec"]["replicas"] == 0
    spec = d["spec"]["template"]["spec"]
    container = spec["containers"][0]
    assert container["image"] == PAUSE_IMAGE
    assert container["resources"]["limits"] == {"cpu": "1", "memory": "256Mi", "nvidia.com/gpu": "1"}
    assert container["securityContext"]["runAsNonRoot"] is True
    assert container["securityContext"]["runAsUser"] == 65535
    assert container["securityContext"]["allowPrivilegeEscalation"] is False
    assert spec["securityContext"]["runAsNonRoot"] is True
    assert spec["automountServiceAccountToken"] is False


def test_replicas_can_be_set(chart, inference):
    GpuWorkload(chart, "Smoke", pool=inference, replicas=3)
    assert deployment(chart)["spec"]["replicas"] == 3


def test_labels_and_selector_are_explicit_and_path_independent():
    d = None
    for construct_id in ("Smoke", "Elsewhere"):
        chart = cdk8s.Chart(cdk8s.Testing.app(), f"chart-{construct_id.lower()}")
        node_class = GpuNodeClass.training(chart, "Class", name="gpu", ami="al2023@v20251103", role="R",
                                           cluster_name="c")
        pool = GpuInferencePool(chart, "Inference", node_class=node_class, name="gpu-inference", gpu_limit=16)
        GpuWorkload(chart, construct_id, pool=pool)
        rendered = deployment(chart)
        assert d is None or rendered == d
        d = rendered
    assert d["spec"]["selector"] == {"matchLabels": {"app.kubernetes.io/name": "gpu-inference-smoke"}}
    assert d["spec"]["template"]["metadata"]["labels"] == {"app.kubernetes.io/name": "gpu-inference-smoke"}
    assert "cdk8s.io" not in str(d)


def test_do_not_disrupt_on_training_only(chart, inference, training):
    GpuWorkload(chart, "Train", pool=training)
    GpuWorkload(chart, "Serve", pool=inference)
    GpuWorkload(chart, "ServeOnTraining", pool=training, training=False, name="serve-on-training")
    GpuWorkload(chart, "TrainOnInference", pool=inference, training=True, name="train-on-inference")
    by_name = {m["metadata"]["name"]: m for m in manifests(chart) if m["kind"] == "Deployment"}
    annotations = {n: m["spec"]["template"]["metadata"].get("annotations") for n, m in by_name.items()}
    assert annotations == {
        "gpu-training-smoke": {"karpenter.sh/do-not-disrupt": "true"},
        "gpu-inference-smoke": None,
        "serve-on-training": None,
        "train-on-inference": {"karpenter.sh/do-not-disrupt": "true"},
    }
    assert by_name["gpu-training-smoke"]["spec"]["strategy"] == {"type": "Recreate"}
    assert by_name["gpu-inference-smoke"]["spec"]["strategy"]["type"] == "RollingUpdate"


def test_do_not_disrupt_docstring_warns_about_expiry():
    doc = GpuWorkload.__doc__ or ""
    assert "does **not** stop expiry" in doc and "interruption" in doc


def test_pdb_selects_the_pods(chart, inference):
    GpuWorkload(chart, "Smoke", pool=inference, replicas=3, pdb_min_available=2, name="serve")
    pdb = next(m for m in manifests(chart) if m["kind"] == "PodDisruptionBudget")
    assert pdb["apiVersion"] == "policy/v1"
    assert pdb["metadata"]["name"] == "serve"
    assert pdb["spec"]["minAvailable"] == 2
    assert pdb["spec"]["selector"] == deployment(chart)["spec"]["selector"]
    assert pdb["spec"]["unhealthyPodEvictionPolicy"] == "AlwaysAllow"


def test_no_pdb_unless_asked(chart, inference):
    GpuWorkload(chart, "Smoke", pool=inference)
    assert [m["kind"] for m in workloads(chart)] == ["Deployment"]


# --------------------------------------------------------------------------- KG417 on the output


def test_rendered_workloads_pass_kg417(chart, inference, training):
    GpuWorkload(chart, "Serve", pool=inference, pdb_min_available=1)
    GpuWorkload(chart, "Train", pool=training, gpus=8)
    findings = check_rules([("dist/dev/app.k8s.yaml", m) for m in manifests(chart)])
    assert [f for f in findings if f.code == "KG417"] == []
    assert [f for f in findings if f.severity is Severity.ERROR] == []


def test_hand_broken_workload_fails_kg417(chart, inference):
    GpuWorkload(chart, "Serve", pool=inference)
    synth = manifests(chart)
    broken = copy.deepcopy(synth)
    d = next(m for m in broken if m["kind"] == "Deployment")
    d["spec"]["template"]["spec"]["tolerations"] = [
        t for t in d["spec"]["template"]["spec"]["tolerations"] if t["key"] != "example.com/team"]
    findings = [f for f in check_rules([("app.yaml", m) for m in broken]) if f.code == "KG417"]
    assert len(findings) == 1
    assert (findings[0].kind, findings[0].severity, findings[0].path) == (
        "Deployment", Severity.ERROR, "spec.template.spec.tolerations")
    assert "example.com/team=ml:NoExecute" in findings[0].message
    alone = [m for m in synth if m["kind"] != "NodePool" or m["metadata"]["name"] != "gpu-inference"]
    assert [f.path for f in check_rules([("app.yaml", m) for m in alone]) if f.code == "KG417"] == [
        "spec.template.spec.nodeSelector[karpenter.sh/nodepool]"]


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize("gpus", [0, -1, True, 1.5, "1"])
def test_kg560_gpus_below_one_or_not_an_int(chart, inference, gpus):
    with pytest.raises(KarpenterGpuError) as exc:
        GpuWorkload(chart, "Smoke", pool=inference, gpus=gpus)
    assert code(exc) == "KG560" and exc.value.path == "test/Smoke"


def test_kg560_gpus_above_the_pool_limit(chart, inference):
    GpuWorkload(chart, "Max", pool=inference, gpus=16)
    with pytest.raises(KarpenterGpuError) as exc:
        GpuWorkload(chart, "Smoke", pool=inference, gpus=17)
    assert code(exc) == "KG560"
    assert "16" in str(exc.value) and "gpu_limit" in str(exc.value)


def test_kg561_pdb_on_training(chart, training, inference):
    with pytest.raises(KarpenterGpuError) as exc:
        GpuWorkload(chart, "Smoke", pool=training, pdb_min_available=1)
    assert code(exc) == "KG561" and "do-not-disrupt" in str(exc.value)
    with pytest.raises(KarpenterGpuError) as exc:
        GpuWorkload(chart, "Smoke2", pool=inference, training=True, pdb_min_available=1)
    assert code(exc) == "KG561"
    GpuWorkload(chart, "Serve", pool=training, training=False, pdb_min_available=1)  # a serving workload is fine


@pytest.mark.parametrize("replicas, pdb", [(0, 0), (2, 2), (2, 3), (1, 1)])
def test_kg562_pdb_that_blocks_every_eviction(chart, inference, replicas, pdb):
    with pytest.raises(KarpenterGpuError) as exc:
        GpuWorkload(chart, "Smoke", pool=inference, replicas=replicas, pdb_min_available=pdb)
    assert code(exc) == "KG562"


def test_names(chart, node_class, inference):
    GpuWorkload(chart, "A", pool=inference, name="llm-smoke")
    with pytest.raises(KarpenterGpuError) as exc:
        GpuWorkload(chart, "B", pool=inference, name="LLM_smoke")
    assert code(exc) == "KG120"
    long_pool = GpuInferencePool(chart, "Long", node_class=node_class, name="g" * 60, gpu_limit=4)
    with pytest.raises(KarpenterGpuError) as exc:
        GpuWorkload(chart, "C", pool=long_pool)
    assert code(exc) == "KG120" and "name=" in str(exc.value)
    GpuWorkload(chart, "D", pool=long_pool, name="long-smoke")


@pytest.mark.parametrize("props, expected", [
    ({"pool": "gpu-inference"}, "KG100"),
    ({"cpu": "lots"}, "KG102"),
    ({"memory": "0"}, "KG102"),
    ({"replicas": -1}, "KG100"),
    ({"user": 0}, "KG100"),
    ({"image": ""}, "KG100"),
    ({"training": "yes"}, "KG100"),
    ({"gpu": 1}, "KG100"),
])


def test_other_invalid_props(chart, inference, props, expected):
    with pytest.raises(KarpenterGpuError) as exc:
        GpuWorkload(chart, "Smoke", **{"pool": inference, **props})
    assert code(exc) == expected


# -- issue 12: several pools, int32 counts ---------------------------------------------------------

def test_replicas_beyond_int32_refused(chart, inference):
    with pytest.raises(KarpenterGpuError) as exc:
        GpuWorkload(chart, "Smoke", pool=inference, replicas=10**12)
    assert exc.value.code == "KG100" and exc.value.prop == "replicas" and "int32" in exc.value.allowed
    GpuWorkload(chart, "Ok", pool=inference, replicas=2**31 - 1)


def test_pools_span_static_and_dynamic_capacity_and_pass_kg417(chart, node_class, inference):
    warm = StaticCapacityPool(chart, "Warm", node_class=node_class, name="gpu-warm", replicas=1,
                              taints=(Taint.gpu(), TEAM))
    GpuWorkload(chart, "Serve", pools=(warm, inference), name="serve", prefer_reserved=True)
    spec = deployment(chart)["spec"]["template"]["spec"]
    assert "nodeSelector" not in spec
    term = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0]
    assert term["matchExpressions"][0]["values"] == ["gpu-warm-static", "gpu-inference"]
    assert spec["tolerations"] == [toleration(t) for t in (Taint.gpu(), TEAM, DEDICATED)]
    findings = check_rules([(f"{m['kind']}.yaml", m) for m in manifests(chart)])
    assert [f for f in findings if f.code == "KG417"] == []


def test_pool_and_pools_together_refused(chart, inference, training):
    with pytest.raises(KarpenterGpuError) as exc:
        GpuWorkload(chart, "Smoke", pool=inference, pools=(training,))
    assert exc.value.code == "KG100" and exc.value.prop == "pool/pools"


def test_gpus_checked_against_the_largest_pool_limit(chart, inference, training):
    GpuWorkload(chart, "Big", pools=(inference, training), gpus=32, name="big", training=True)
    with pytest.raises(KarpenterGpuError) as exc:
        GpuWorkload(chart, "Huge", pools=(inference, training), gpus=33, name="huge", training=True)
    assert exc.value.code == "KG560" and "gpu-training" in exc.value.allowed


def test_placement_of_one_pool_keeps_the_node_selector(inference):
    assert set(pod_placement(inference)) == {"nodeSelector", "tolerations"}
    with pytest.raises(KarpenterGpuError) as exc:
        pod_placement()
    assert exc.value.code == "KG100"


# --------------------------------------------------------------------------- hybrid node groups

ON_PREM = Taint("on-premises")


def hybrid(chart, id="Dc1", name="dc1-a100", **props):
    return HybridGpuNodeGroup(chart, id, **{"name": name, "gpu_name": "a100", "gpus_per_node": 8, "nodes": 4,
                                            "location": "seoul-dc1", "taints": (Taint.gpu(), ON_PREM), **props})


def lands_on(placement: dict, labels: dict, taints: list) -> bool:
    """The kube-scheduler's node filter for the placement: selectors/affinity against labels, taints tolerated."""
    return (pod_requirements(placement).admits_labels(labels) is None
            and not untolerated(taints, placement["tolerations"]))


def test_one_hybrid_group_is_a_node_selector_and_its_tolerations(chart):
    dc1 = hybrid(chart)
    placement = pod_placement(dc1)
    assert placement == {
        "nodeSelector": {"eks.amazonaws.com/compute-type": "hybrid", "karpenter-gpu.io/hybrid-group": "dc1-a100"},
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"},
                        {"key": "on-premises", "operator": "Exists", "effect": "NoSchedule"}]}
    taints = [t.render() for t in dc1.taints]
    assert lands_on(placement, dc1.node_labels, taints)
    other = hybrid(chart, "Dc2", name="dc2-a100")
    assert not lands_on(placement, other.node_labels, taints)
    assert not lands_on(placement, {"karpenter.sh/nodepool": "gpu-inference", "gpu-operator": "enabled"}, [])


def test_several_hybrid_groups_are_a_required_affinity(chart):
    dc1, dc2 = hybrid(chart), hybrid(chart, "Dc2", name="dc2-l40s", taints=(ON_PREM,))
    placement = pod_placement(dc1, dc2)
    assert "nodeSelector" not in placement
    reqs = pod_requirements(placement)
    assert reqs == Requirements.from_dicts([
        {"key": "eks.amazonaws.com/compute-type", "operator": "In", "values": ["hybrid"]},
        {"key": "karpenter-gpu.io/hybrid-group", "operator": "In", "values": ["dc1-a100", "dc2-l40s"]}])
    for group in (dc1, dc2):
        assert lands_on(placement, group.node_labels, [t.render() for t in group.taints])


@pytest.mark.parametrize("prefer_reserved", [False, True])
def test_fails_when_hybrid_groups_are_mixed_with_node_pools_or_reserved(chart, inference, prefer_reserved):
    dc1 = hybrid(chart)
    with pytest.raises(KarpenterGpuError) as err:
        pod_placement(dc1, inference) if not prefer_reserved else pod_placement(dc1, prefer_reserved=True)
    assert err.value.code == "KG245"
    with pytest.raises(KarpenterGpuError) as err:
        GpuWorkload(chart, "Mixed", pools=(dc1, inference))
    assert err.value.code == "KG245"


def test_hybrid_workload_passes_kg417_and_lands_on_its_group(chart):
    dc1 = hybrid(chart)
    workload = GpuWorkload(chart, "OnPrem", pool=dc1, gpus=8)
    assert workload.name == "dc1-a100-smoke" and not workload.props.is_training
    findings = check_rules([("app.yaml", m) for m in manifests(chart)])
    assert [f for f in findings if f.code in ("KG417", "KG450")] == []
    (deployment,) = workloads(chart)
    pod = deployment["spec"]["template"]["spec"]
    assert lands_on(pod, dc1.node_labels, [t.render() for t in dc1.taints])


def test_fails_when_a_hybrid_pod_asks_more_gpus_than_a_node_has(chart):
    with pytest.raises(KarpenterGpuError) as err:
        GpuWorkload(chart, "TooBig", pool=hybrid(chart), gpus=9)
    assert err.value.code == "KG560"


# --- EKS Auto Mode pools -----------------------------------------------------------------------


@pytest.fixture
def auto_pool(chart):
    from karpenter_gpu import AutoModeNodeClass

    auto = AutoModeNodeClass(chart, "Auto", name="gpu-auto", role="AmazonEKSAutoNodeRole",
                             subnet_ids=("subnet-0a",), security_group_ids=("sg-0a",))
    return GpuInferencePool(chart, "AutoPool", node_class=auto, name="gpu-auto", gpu_limit=8, gpu_names=("l4",),
                            taints=(Taint.gpu(), DEDICATED))


def test_placement_on_auto_mode_requires_compute_type_auto(auto_pool):
    assert pod_placement(auto_pool) == {
        "nodeSelector": {"karpenter.sh/nodepool": "gpu-auto", "eks.amazonaws.com/compute-type": "auto"},
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"},
                        {"key": "example.com/dedicated", "operator": "Exists", "effect": "NoSchedule"}]}


def test_placement_on_auto_mode_and_karpenter_pools_drops_compute_type(auto_pool, inference):
    placement = pod_placement(auto_pool, inference)
    [term] = placement["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"]
    assert term == {"matchExpressions": [{"key": "karpenter.sh/nodepool", "operator": "In",
                                          "values": ["gpu-auto", "gpu-inference"]}]}


def test_auto_mode_workload_passes_kg417_and_a_karpenter_pool_would_not(chart, auto_pool):
    GpuWorkload(chart, "Serve", pool=auto_pool)
    synth = manifests(chart)
    assert [f.line() for f in check_rules([("app.yaml", m) for m in synth]) if f.severity is Severity.ERROR] == []
    # The same Deployment pointed at a self-managed pool: compute-type auto is not a label Karpenter knows there.
    moved = copy.deepcopy(synth)
    pool = next(m for m in moved if m["kind"] == "NodePool")
    pool["spec"]["template"]["spec"]["nodeClassRef"] = {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass",
                                                        "name": "gpu"}
    found = [f for f in check_rules([("app.yaml", m) for m in moved]) if f.code == "KG417"]
    assert [f.path for f in found] == ["spec.template.spec.nodeSelector[eks.amazonaws.com/compute-type]"]


# -- MIG devices -------------------------------------------------------------------------------------

def _mig(chart, node_class, id="Mig", name="gpu-mig", **props):
    from karpenter_gpu import MigPartitionedPool

    return MigPartitionedPool(chart, id, node_class=node_class, **{"name": name, "gpu_limit": 16,
                                                                   "mig_config": "all-balanced", **props})


def _limits(chart, name):
    [d] = [m for m in workloads(chart) if m["metadata"]["name"] == name]
    return d["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]


def test_mig_profile_requests_the_mig_resource(chart, node_class):
    pool = _mig(chart, node_class)
    GpuWorkload(chart, "Serve", pool=pool, name="serve", mig_profile="2g.20gb", gpus=2)
    assert _limits(chart, "serve") == {"cpu": "1", "memory": "256Mi", "nvidia.com/mig-2g.20gb": "2"}
    # KG417/KG421 find nothing wrong with it, under the controller values the chart synthesizes (nodeOverlay on: the
    # pool's overlays are what give its types the MIG resource; the chart's defaults would leave them unapplied)
    KarpenterControllerValues(chart, "Karpenter", cluster_name="c")
    settings = karpenter_settings(chart)
    assert settings.node_overlay
    findings = check_rules([("x", m) for m in manifests(chart)], values=helm_values(chart), settings=settings)
    assert [f for f in findings if f.severity is Severity.ERROR] == []


def test_mixed_mig_pool_defaults_to_its_most_common_device(chart, node_class):
    pool = _mig(chart, node_class)
    GpuWorkload(chart, "Smoke", pool=pool)
    assert _limits(chart, "gpu-mig-smoke")["nvidia.com/mig-1g.10gb"] == "1"


def test_single_strategy_mig_devices_are_gpus(chart, node_class):
    pool = _mig(chart, node_class, mig_config="all-1g.10gb", mig_strategy="single")
    GpuWorkload(chart, "Serve", pool=pool, name="serve", mig_profile="1g.10gb", gpus=8)
    assert _limits(chart, "serve")["nvidia.com/gpu"] == "8"
    # under single the pool's GPU limit counts MIG devices, so the KG560 bound applies to them
    with pytest.raises(KarpenterGpuError) as err:
        GpuWorkload(chart, "Big", pool=pool, name="big", mig_profile="1g.10gb", gpus=17)
    assert err.value.code == "KG560"


def test_mixed_strategy_mig_devices_are_not_bounded_by_the_physical_gpu_limit(chart, node_class):
    pool = _mig(chart, node_class, mig_config="all-1g.10gb", gpu_limit=8)  # 8 GPUs = 56 devices on a p5
    GpuWorkload(chart, "Serve", pool=pool, name="serve", mig_profile="1g.10gb", gpus=20)
    assert _limits(chart, "serve")["nvidia.com/mig-1g.10gb"] == "20"


@pytest.mark.parametrize(("props", "prop"), [({"mig_profile": "7g.80gb"}, "mig_profile"),
                                             ({"mig_profile": ""}, "mig_profile")])
def test_fails_on_a_profile_the_pool_does_not_advertise(chart, node_class, props, prop):
    pool = _mig(chart, node_class)
    with pytest.raises(KarpenterGpuError) as err:
        GpuWorkload(chart, "Serve", pool=pool, **props)
    assert err.value.code == "KG578" and err.value.prop == prop


def test_fails_on_mig_and_whole_gpu_pools_together(chart, node_class, inference):
    pool = _mig(chart, node_class)
    whole = inference
    with pytest.raises(KarpenterGpuError) as err:
        GpuWorkload(chart, "Serve", pools=(pool, whole))
    assert err.value.code == "KG578"
    with pytest.raises(KarpenterGpuError) as err:
        GpuWorkload(chart, "Whole", pool=whole, mig_profile="1g.10gb")
    assert err.value.code == "KG578"


# --- EKS Auto Mode pools -----------------------------------------------------------------------


# --------------------------------------------------------------------------- Neuron pools


@pytest.fixture
def inferentia(chart, node_class):
    from karpenter_gpu import NeuronInferencePool

    return NeuronInferencePool(chart, "Inferentia", node_class=node_class, name="neuron-inference", neuron_limit=8)


def test_neuron_workload_requests_the_neuron_device_and_tolerates_its_taint(chart, inferentia):
    GpuWorkload(chart, "Smoke", pool=inferentia)
    spec = pod(chart)["spec"]
    resources = spec["containers"][0]["resources"]
    assert resources["limits"]["aws.amazon.com/neuron"] == "1" and "nvidia.com/gpu" not in resources["limits"]
    assert spec["tolerations"] == [{"key": "aws.amazon.com/neuron", "operator": "Equal", "value": "true",
                                    "effect": "NoSchedule"}]
    assert spec["nodeSelector"] == {"karpenter.sh/nodepool": "neuron-inference"}
    assert [f for f in check_rules([("x", m) for m in manifests(chart)]) if f.code in ("KG417", "KG421")] == []


def test_neuron_workload_may_request_cores(chart, inferentia):
    GpuWorkload(chart, "Cores", pool=inferentia, resource="aws.amazon.com/neuroncore", gpus=16)  # above 8 devices: cores
    limits = pod(chart)["spec"]["containers"][0]["resources"]["limits"]
    assert limits["aws.amazon.com/neuroncore"] == "16"


def test_neuron_workload_is_bounded_by_the_neuron_limit(chart, inferentia):
    with pytest.raises(KarpenterGpuError) as exc:
        GpuWorkload(chart, "Big", pool=inferentia, gpus=9)
    assert code(exc) == "KG560"


def test_fails_when_pools_mix_accelerators_or_the_resource_is_not_theirs(chart, inferentia, training):
    with pytest.raises(KarpenterGpuError) as exc:
        GpuWorkload(chart, "Mixed", pools=(inferentia, training))
    assert code(exc) == "KG585"
    with pytest.raises(KarpenterGpuError) as exc:
        GpuWorkload(chart, "Wrong", pool=inferentia, resource="nvidia.com/gpu")
    assert code(exc) == "KG585"
