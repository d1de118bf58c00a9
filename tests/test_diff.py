"""`karpenter-gpu diff`: every change sorted by what Karpenter does to running GPU nodes.

Each case writes a small base and head dist/ tree (objects modelled on dist/prod) to tmp_path and
changes one thing in head.
"""

from __future__ import annotations

import argparse
import copy
import json
import shutil
import subprocess
from decimal import Decimal
from importlib import resources
from pathlib import Path

import pytest

from karpenter_gpu.analysis.catalog import DEFAULT_CATALOG_RESOURCE, default_catalog, load_catalog
from karpenter_gpu.analysis.diff import (
    Category,
    Change,
    CostReport,
    InputProblems,
    PoolCost,
    classify,
    cost_changes,
    cost_markdown,
    cost_text,
    load_side,
    render_markdown,
    render_text,
)
from karpenter_gpu.cli.diff import parse_fail_on, register, run
from karpenter_gpu.cli.main import main
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.yaml_writer import dump
from tests.conftest import find_crds_dir, load, ROOT


@pytest.fixture(autouse=True)
def _crds(monkeypatch):
    """explain and diff check Karpenter objects against the CRDs: the ones beside the checkout, never a download."""
    monkeypatch.setenv("KARPENTER_GPU_CRDS", str(find_crds_dir()))

INFERENCE = {
    "apiVersion": "karpenter.sh/v1",
    "kind": "NodePool",
    "metadata": {"name": "gpu-inference"},
    "spec": {
        "template": {
            "metadata": {"labels": {"node-type": "gpu-inference", "workload": "inference", "gpu-operator": "enabled"}},
            "spec": {
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu-inference"},
                "requirements": [
                    {"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Gt", "values": ["0"]},
                    {"key": "karpenter.k8s.aws/instance-gpu-name", "operator": "In", "values": ["t4", "a10g", "l4"]},
                    {"key": "topology.kubernetes.io/zone", "operator": "In",
                     "values": ["ap-northeast-2a", "ap-northeast-2c"]},
                    {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot", "on-demand"]},
                ],
                "taints": [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}],
                "expireAfter": "720h",
            },
        },
        "disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "10m",
                       "budgets": [{"nodes": "1"}]},
        "limits": {"nvidia.com/gpu": "64"},
        "weight": 60,
    },
}
STATIC = {
    "apiVersion": "karpenter.sh/v1",
    "kind": "NodePool",
    "metadata": {"name": "gpu-warm-static"},
    "spec": {
        "template": {
            "metadata": {"labels": {"node-type": "gpu-static", "gpu-operator": "enabled"}},
            "spec": {
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu-inference"},
                "requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In",
                                  "values": ["g5.xlarge"]}],
                "taints": [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}],
                "expireAfter": "720h",
            },
        },
        "disruption": {"consolidateAfter": "Never", "budgets": [{"nodes": "1"}]},
        "limits": {"nodes": "2"},
        "replicas": 1,
    },
}
NODE_CLASS = {
    "apiVersion": "karpenter.k8s.aws/v1",
    "kind": "EC2NodeClass",
    "metadata": {"name": "gpu-inference"},
    "spec": {
        "amiSelectorTerms": [{"alias": "al2023@v20251103"}],
        "role": "KarpenterNodeRole-ml-prod",
        "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "ml-prod"}}],
        "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "ml-prod"}}],
        "blockDeviceMappings": [{"deviceName": "/dev/xvda", "rootVolume": True,
                                 "ebs": {"volumeSize": "200Gi", "volumeType": "gp3", "encrypted": True}}],
        "metadataOptions": {"httpEndpoint": "enabled", "httpProtocolIPv6": "disabled",
                            "httpPutResponseHopLimit": 1, "httpTokens": "required"},
        "tags": {"environment": "prod", "team": "ml-platform"},
    },
}
OVERLAY = {
    "apiVersion": "karpenter.sh/v1alpha1",
    "kind": "NodeOverlay",
    "metadata": {"name": "discourage-multi-gpu"},
    "spec": {"requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In",
                               "values": ["g5.12xlarge", "g5.24xlarge"]}],
             "priceAdjustment": "+30%", "weight": 10},
}
RULE = {
    "apiVersion": "monitoring.coreos.com/v1",
    "kind": "PrometheusRule",
    "metadata": {"name": "karpenter-gpu-alerts", "namespace": "karpenter"},
    "spec": {"groups": [{"name": "karpenter-gpu", "rules": [{"alert": "GpuPoolNearLimit", "expr": "vector(1)", "for": "15m"}]}]},
}
GPU_OPERATOR = {"devicePlugin": {"enabled": True}, "dcgmExporter": {"enabled": True},
                "node-feature-discovery": {"worker": {"nodeSelector": {"gpu-operator": "enabled"}}}}
KARPENTER = {"settings": {"clusterName": "ml-prod", "interruptionQueue": "ml-prod",
                          "featureGates": {"staticCapacity": True, "nodeOverlay": True,
                                           "spotToSpotConsolidation": False}}}


def objects() -> dict[str, dict]:
    """File name → manifest (or Helm values) of one environment; deep copies, free to mutate."""
    return copy.deepcopy({
        "NodePool.gpu-inference.k8s.yaml": INFERENCE,
        "NodePool.gpu-warm-static.k8s.yaml": STATIC,
        "EC2NodeClass.gpu-inference.k8s.yaml": NODE_CLASS,
        "NodeOverlay.discourage-multi-gpu.k8s.yaml": OVERLAY,
        "PrometheusRule.karpenter-gpu-alerts.k8s.yaml": RULE,
        "helm/gpu-operator.values.yaml": GPU_OPERATOR,
        "helm/karpenter.values.yaml": KARPENTER,
    })


def write(root: Path, files: dict[str, dict], environment: str = "prod") -> Path:
    for name, body in files.items():
        path = root / environment / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dump(body, sort_keys=False))
    return root


def diff(tmp_path: Path, change) -> list[Change]:
    """Classify base (the objects above) against head (the same, after ``change(files)``)."""
    head = objects()
    change(head)
    return classify(load_side(str(write(tmp_path / "base", objects()))),
                    load_side(str(write(tmp_path / "head", head))))


def one(changes: list[Change]) -> Change:
    assert len(changes) == 1, changes
    return changes[0]


def pool(files: dict, name: str = "gpu-inference") -> dict:
    return files[f"NodePool.{name}.k8s.yaml"]["spec"]


def template(files: dict, name: str = "gpu-inference") -> dict:
    return pool(files, name)["template"]["spec"]


# --------------------------------------------------------------------------------------------- loading


def test_load_side_reads_environments_objects_and_helm_values(tmp_path):
    side = load_side(str(write(tmp_path, objects())))
    assert list(side) == ["prod"]
    keys = set(side["prod"])
    assert ("karpenter.sh/v1", "NodePool", "gpu-inference") in keys
    assert ("monitoring.coreos.com/v1", "PrometheusRule", "karpenter/karpenter-gpu-alerts") in keys
    assert side["prod"][("helm", "Values", "karpenter.values.yaml")] == KARPENTER
    assert len(keys) == 7


def test_load_side_of_the_bundled_dist():
    side = load_side(str(ROOT / "dist"))
    assert set(side) == {"dev", "fleet", "prod", "staging"}
    for objects_ in side.values():
        assert ("helm", "Values", "gpu-operator.values.yaml") in objects_
        assert any(kind == "NodePool" for _, kind, _ in objects_)
    assert classify(side, side) == []


def test_duplicate_object_is_refused(tmp_path):
    write(tmp_path, {"a.yaml": INFERENCE, "b.yaml": INFERENCE})
    with pytest.raises(InputProblems) as err:
        load_side(str(tmp_path))
    assert [p.code for p in err.value.problems] == ["KG313"]


# ------------------------------------------------------------------------------------ NodePool template


def test_no_op_is_no_changes(tmp_path):
    changes = diff(tmp_path, lambda files: None)
    assert changes == []
    assert render_text(changes) == "No changes.\n"
    assert "No changes." in render_markdown(changes)


def test_spelled_out_defaults_and_reordering_are_no_changes(tmp_path):
    def change(files):
        template(files)["requirements"].reverse()
        del template(files, "gpu-warm-static")["expireAfter"]  # the CRD default is 720h
        pool(files)["disruption"]["budgets"] = [{"nodes": "1"}]
        del files["EC2NodeClass.gpu-inference.k8s.yaml"]["spec"]["metadataOptions"]  # CRD defaults

    assert diff(tmp_path, change) == []


def test_taint_added_replaces_every_node(tmp_path):
    def change(files):
        template(files)["taints"].append({"key": "workload", "value": "inference", "effect": "NoExecute"})

    c = one(diff(tmp_path, change))
    assert (c.environment, c.kind, c.name, c.category) == ("prod", "NodePool", "gpu-inference",
                                                           Category.REPLACES_NODES)
    assert c.reasons == ("spec.template.spec.taints changed: workload=inference:NoExecute added — every node of "
                         "NodePool gpu-inference is replaced",)


def test_label_changed_replaces_every_node(tmp_path):
    def change(files):
        pool(files)["template"]["metadata"]["labels"]["workload"] = "batch"

    c = one(diff(tmp_path, change))
    assert c.category is Category.REPLACES_NODES
    assert "spec.template.metadata.labels changed: workload: inference → batch" in c.reasons[0]


def test_expire_after_and_termination_grace_period_replace_nodes(tmp_path):
    def change(files):
        template(files)["expireAfter"] = "336h"
        template(files)["terminationGracePeriod"] = "24h"

    c = one(diff(tmp_path, change))
    assert c.category is Category.REPLACES_NODES
    assert any("expireAfter changed: 720h → 336h" in r for r in c.reasons)
    assert any("terminationGracePeriod changed: unset → 24h" in r for r in c.reasons)


def test_node_class_ref_name_replaces_nodes(tmp_path):
    def change(files):
        template(files)["nodeClassRef"]["name"] = "gpu-inference-v2"

    c = one(diff(tmp_path, change))
    assert c.category is Category.REPLACES_NODES
    assert "nodeClassRef.name changed: gpu-inference → gpu-inference-v2" in c.reasons[0]


def test_node_class_ref_kind_is_refused(tmp_path):
    def change(files):
        template(files)["nodeClassRef"]["kind"] = "MyNodeClass"

    c = one(diff(tmp_path, change))
    assert c.category is Category.REFUSED
    assert "nodeClassRef.kind is immutable" in c.reasons[0]


# ---------------------------------------------------------------------------------------- requirements


def narrow(files):
    template(files)["requirements"][1]["values"] = ["a10g", "l4"]


def test_requirements_narrowed_drift_exactly_the_nodes_that_no_longer_match(tmp_path):
    # pkg/controllers/nodeclaim/disruption/drift.go areRequirementsDrifted, per NodeClaim: only the t4 types drift.
    c = one(diff(tmp_path, narrow))
    assert c.category is Category.REPLACES_NODES
    assert "karpenter.k8s.aws/instance-gpu-name In [t4, a10g, l4] → In [a10g, l4]" in c.reasons[0]
    t4 = ", ".join(sorted(f"g4dn.{s}" for s in ("xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge",
                                                  "metal")))
    assert f"nodes drift (areRequirementsDrifted) on {t4} (every offering)" in c.reasons[0]
    assert "18 other instance type(s)" in c.reasons[0]


def test_requirements_widened_is_behavioural(tmp_path):
    def change(files):
        template(files)["requirements"][1]["values"].append("l40s")
        template(files)["requirements"][0] = {"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Exists"}

    c = one(diff(tmp_path, change))
    assert c.category is Category.BEHAVIOURAL
    assert "still satisfies the new requirements" in c.reasons[0] and "no drift" in c.reasons[0]


@pytest.mark.parametrize(("arch", "category", "said"), [
    # A new key is not a narrowing by itself: every candidate of the pool is amd64 already.
    ("amd64", Category.BEHAVIOURAL, "no drift"),
    ("arm64", Category.REPLACES_NODES, "kubernetes.io/arch='amd64' does not satisfy"),
])
def test_requirement_on_a_new_key_drifts_only_nodes_that_miss_it(tmp_path, arch, category, said):
    def change(files):
        template(files)["requirements"].append({"key": "kubernetes.io/arch", "operator": "In", "values": [arch]})

    c = one(diff(tmp_path, change))
    assert c.category is category
    assert f"kubernetes.io/arch (none) → In [{arch}]" in c.reasons[0] and said in c.reasons[0]


def test_requirement_on_a_zone_drifts_the_nodes_of_the_other_zones_only(tmp_path):
    def change(files):
        zone = next(r for r in template(files)["requirements"] if r["key"] == "topology.kubernetes.io/zone")
        zone["values"] = ["ap-northeast-2a"]

    c = one(diff(tmp_path, change))
    assert c.category is Category.REPLACES_NODES
    assert "g6.xlarge, gr6.4xlarge, gr6.8xlarge (spot/ap-northeast-2c, on-demand/ap-northeast-2c)" in c.reasons[0]
    assert "zone='ap-northeast-2c' does not satisfy" in c.reasons[0]


def test_requirements_that_intersect_to_nothing_drift_every_node(tmp_path):
    # scheduling/requirements.go Add: In [2a, 2c] + In [us-east-1a] is DoesNotExist, and every node has a zone.
    def change(files):
        template(files)["requirements"].append(
            {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["us-east-1a"]})

    c = one(diff(tmp_path, change))
    assert c.category is Category.REPLACES_NODES and "zone DoesNotExist" in c.reasons[0]


# ------------------------------------------------------------------------------- behavioural, replicas


def test_weight_limits_and_budgets_are_behavioural(tmp_path):
    def change(files):
        pool(files)["weight"] = 80
        pool(files)["limits"]["nvidia.com/gpu"] = "32"
        pool(files)["disruption"]["budgets"].append({"nodes": "0", "schedule": "0 0 * * *", "duration": "8h"})

    c = one(diff(tmp_path, change))
    assert c.category is Category.BEHAVIOURAL
    assert c.reasons == (
        "spec.weight 60 → 80: changes which pool new nodes come from first; running nodes untouched",
        "spec.limits changed: nvidia.com/gpu: 64 → 32 — caps new launches only; running nodes are not removed",
        "spec.disruption.budgets changed: nodes 0 at '0 0 * * *' for 8h added — paces voluntary disruption only; "
        "no drift",
    )


def test_replicas_scaled_on_a_static_pool_is_behavioural(tmp_path):
    def change(files):
        pool(files, "gpu-warm-static")["replicas"] = 2

    c = one(diff(tmp_path, change))
    assert (c.name, c.category) == ("gpu-warm-static", Category.BEHAVIOURAL)
    assert c.reasons[0].startswith("spec.replicas 1 → 2: scale; the static pool launches 1 node(s)")


def test_static_to_dynamic_is_refused(tmp_path):
    def change(files):
        del pool(files, "gpu-warm-static")["replicas"]

    c = one(diff(tmp_path, change))
    assert c.category is Category.REFUSED
    assert "static → dynamic is refused" in c.reasons[0]


def test_dynamic_to_static_is_refused(tmp_path):
    def change(files):  # a valid static pool on its own (no weight, only limits.nodes): the transition is refused
        pool(files)["replicas"] = 2
        del pool(files)["weight"]
        pool(files)["limits"] = {"nodes": "2"}

    c = one(diff(tmp_path, change))  # refused, and nothing else: the stored pool is unchanged (no limits, no weight)
    assert c.category is Category.REFUSED
    assert c.reasons[0].startswith("spec.replicas added (2): dynamic → static is refused")


def test_a_refused_update_is_only_refused_never_drift(tmp_path):
    """The API server refuses the whole update, so the stored NodePool keeps its template: the taint and weight
    changes riding along replace no node and change no behaviour (one classification, REFUSED)."""
    def change(files):
        template(files)["nodeClassRef"]["group"] = "example.com"
        template(files)["taints"] = []
        pool(files)["weight"] = 70

    c = one(diff(tmp_path, change))
    assert c.category is Category.REFUSED
    assert [r for r in c.reasons if "immutable" not in r] == []


def test_one_object_gets_one_change_per_category(tmp_path):
    def change(files):
        pool(files)["weight"] = 70
        template(files)["taints"] = []

    changes = diff(tmp_path, change)
    assert [(c.name, c.category) for c in changes] == [("gpu-inference", Category.REPLACES_NODES),
                                                       ("gpu-inference", Category.BEHAVIOURAL)]
    assert "nvidia.com/gpu=true:NoSchedule removed" in changes[0].reasons[0]


# ----------------------------------------------------------------------------------- removed, renamed


def test_pool_removed_drains_it(tmp_path):
    def change(files):
        del files["NodePool.gpu-inference.k8s.yaml"]

    c = one(diff(tmp_path, change))
    assert (c.category, c.reasons) == (Category.DRAINS_POOL,
                                       ("NodePool gpu-inference removed: every node of pool gpu-inference is drained",))


def test_pool_renamed_is_one_drain(tmp_path):
    def change(files):
        renamed = files.pop("NodePool.gpu-inference.k8s.yaml")
        renamed["metadata"]["name"] = "gpu-serving"
        files["NodePool.gpu-serving.k8s.yaml"] = renamed

    c = one(diff(tmp_path, change))
    assert (c.kind, c.name, c.category) == ("NodePool", "gpu-inference → gpu-serving", Category.DRAINS_POOL)
    assert c.reasons == ("renamed gpu-inference → gpu-serving: every node of gpu-inference is drained and replaced "
                         "by gpu-serving",)


def test_added_objects_are_new(tmp_path):
    def change(files):
        extra = copy.deepcopy(STATIC)
        extra["metadata"]["name"] = "gpu-warm-static-2c"
        extra["spec"]["replicas"] = 3
        files["NodePool.gpu-warm-static-2c.k8s.yaml"] = extra

    c = one(diff(tmp_path, change))
    assert (c.category, c.reasons) == (Category.NEW, ("static NodePool added: launches 3 node(s)",))


# -------------------------------------------------------------------------------------- EC2NodeClass


def node_class(files: dict) -> dict:
    return files["EC2NodeClass.gpu-inference.k8s.yaml"]["spec"]


def test_block_device_mappings_replace_every_node_of_the_pools_using_the_class(tmp_path):
    def change(files):
        node_class(files)["blockDeviceMappings"][0]["ebs"]["volumeSize"] = "300Gi"

    c = one(diff(tmp_path, change))
    assert (c.kind, c.category) == ("EC2NodeClass", Category.REPLACES_NODES)
    assert "/dev/xvda 300Gi gp3 {encrypted: true} added; /dev/xvda 200Gi gp3 {encrypted: true} removed" in c.reasons[0]
    assert c.reasons[0].endswith("every node of NodePools using EC2NodeClass gpu-inference: gpu-inference, "
                                 "gpu-warm-static is replaced")


def test_alias_version_bump_resolves_to_new_amis(tmp_path):
    def change(files):
        node_class(files)["amiSelectorTerms"] = [{"alias": "al2023@v20251201"}]

    c = one(diff(tmp_path, change))
    assert c.category is Category.REPLACES_NODES
    assert c.reasons[0].startswith("spec.amiSelectorTerms alias al2023@v20251103 → al2023@v20251201: resolves to "
                                   "new AMIs")


def test_subnet_selector_change_may_replace_nodes(tmp_path):
    def change(files):
        node_class(files)["subnetSelectorTerms"] = [{"id": "subnet-0abc"}, {"id": "subnet-0def"}]

    c = one(diff(tmp_path, change))
    assert c.category is Category.MAY_REPLACE_NODES
    assert c.reasons[0].startswith("spec.subnetSelectorTerms changed: {id: subnet-0abc} added; {id: subnet-0def} "
                                   "added; {tags: {karpenter.sh/discovery: ml-prod}} removed")


def test_ami_selector_without_alias_may_replace_nodes(tmp_path):
    def change(files):
        node_class(files)["amiSelectorTerms"] = [{"id": "ami-0123456789abcdef0"}]
        node_class(files)["amiFamily"] = "AL2023"

    changes = diff(tmp_path, change)
    info = one([c for c in changes if c.category is Category.INFO])
    assert "resolved AMI family stays AL2023" in info.reasons[0]  # EC2NodeClass.Hash hashes AMIFamily()
    c = one([c for c in changes if c.category is not Category.INFO])
    assert c.category is Category.MAY_REPLACE_NODES
    assert len(c.reasons) == 1


def test_node_class_change_without_pools_is_info(tmp_path):
    def change(files):
        node_class(files)["tags"]["team"] = "research"

    head = objects()
    change(head)
    base = {k: v for k, v in objects().items() if not k.startswith("NodePool.")}
    head = {k: v for k, v in head.items() if not k.startswith("NodePool.")}
    c = one(classify(load_side(str(write(tmp_path / "b", base))), load_side(str(write(tmp_path / "h", head)))))
    assert c.category is Category.INFO
    assert "no NodePool uses EC2NodeClass gpu-inference" in c.reasons[0]


# ----------------------------------------------------------------------------- overlays, helm, others


def test_overlay_change_is_behavioural(tmp_path):
    def change(files):
        files["NodeOverlay.discourage-multi-gpu.k8s.yaml"]["spec"]["priceAdjustment"] = "+50%"

    c = one(diff(tmp_path, change))
    assert (c.kind, c.category) == ("NodeOverlay", Category.BEHAVIOURAL)
    assert c.reasons[0].startswith("spec.priceAdjustment: +30% → +50%")
    # explain and diff name the exact offerings: g5.12xlarge/24xlarge x spot/on-demand x the pool's 2 zones
    assert "re-prices 8 offering(s)" in c.reasons[0]
    assert "g5.12xlarge on-demand/ap-northeast-2a in gpu-inference: 7.373600 → 8.508000" in c.reasons[0]


def test_overlay_removed_names_the_offerings_it_priced(tmp_path):
    def change(files):
        del files["NodeOverlay.discourage-multi-gpu.k8s.yaml"]

    c = one(diff(tmp_path, change))
    assert c.category is Category.BEHAVIOURAL and "g5.24xlarge" in c.reasons[0] and "re-prices" in c.reasons[0]


def test_overlay_added_names_the_offerings_it_prices(tmp_path):
    # getOverlaidOfferings: a capacity-type requirement re-prices only the spot offerings
    def change(files):
        files["NodeOverlay.cheap-spot.k8s.yaml"] = {
            "apiVersion": "karpenter.sh/v1alpha1", "kind": "NodeOverlay", "metadata": {"name": "cheap-spot"},
            "spec": {"requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In",
                                       "values": ["g5.xlarge"]},
                                      {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]}],
                     "price": "0.5", "weight": 30}}

    c = one(diff(tmp_path, change))
    assert c.category is Category.NEW
    # gpu-inference: spot in its 2 zones; gpu-warm-static declares no capacity type or zone: spot in 2a, 2c, others
    assert "re-prices 5 offering(s)" in c.reasons[0] and "g5.xlarge spot/ap-northeast-2a in gpu-inference" in c.reasons[0]
    assert "on-demand" not in c.reasons[0]


def test_gpu_operator_values_restart_daemonsets(tmp_path):
    def change(files):
        files["helm/gpu-operator.values.yaml"]["devicePlugin"]["config"] = {"name": "time-slicing-config"}

    c = one(diff(tmp_path, change))
    assert (c.kind, c.name, c.category) == ("Values", "gpu-operator.values.yaml", Category.RESTARTS)
    assert c.reasons == ("devicePlugin.config added: {name: time-slicing-config} — GPU Operator DaemonSets roll: "
                         "device plugin restarts on every GPU node",)


def test_karpenter_values_restart_the_controller_and_list_feature_gates(tmp_path):
    def change(files):
        files["helm/karpenter.values.yaml"]["settings"]["featureGates"]["spotToSpotConsolidation"] = True

    c = one(diff(tmp_path, change))
    assert c.category is Category.RESTARTS
    assert c.reasons == ("Karpenter controller restarts; feature gates: spotToSpotConsolidation: false → true",)


def test_other_objects_are_info(tmp_path):
    def change(files):
        files["PrometheusRule.karpenter-gpu-alerts.k8s.yaml"]["spec"]["groups"][0]["rules"][0]["for"] = "30m"

    c = one(diff(tmp_path, change))
    assert (c.kind, c.name, c.category) == ("PrometheusRule", "karpenter/karpenter-gpu-alerts", Category.INFO)


# ----------------------------------------------------------------------------------- render and CLI


def everything(files):
    template(files)["taints"].append({"key": "workload", "value": "inference", "effect": "NoExecute"})
    pool(files)["weight"] = 80
    del pool(files, "gpu-warm-static")["replicas"]
    node_class(files)["amiSelectorTerms"] = [{"alias": "al2023@v20251201"}]
    node_class(files)["securityGroupSelectorTerms"].append({"id": "sg-0abc"})
    files["NodeOverlay.discourage-multi-gpu.k8s.yaml"]["spec"]["weight"] = 20
    files["helm/karpenter.values.yaml"]["settings"]["featureGates"]["nodeOverlay"] = False


def test_markdown_pr_comment(tmp_path, snapshot):
    changes = diff(tmp_path, everything)
    text = render_markdown(changes)
    assert text.startswith("**karpenter-gpu diff**: 7 changes: 1 refused by the API server, 2 replaces nodes (drift)")
    assert "| Object | Category | Reasons |" in text
    assert text == snapshot


def test_text_is_deterministic_and_ordered_by_severity(tmp_path):
    changes = diff(tmp_path, everything)
    assert [c.category for c in changes] == sorted((c.category for c in changes), key=lambda c: c.rank)
    text = render_text(changes)
    assert text == render_text(list(reversed(changes)))
    assert text.splitlines()[2] == "prod:"


def cli(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="karpenter-gpu")
    register(parser.add_subparsers(dest="command", required=True))
    return parser.parse_args(argv)


def test_fail_on_exit_codes(tmp_path, capsys):
    base = str(write(tmp_path / "base", objects()))
    scaled = objects()
    pool(scaled)["weight"] = 80
    behavioural = str(write(tmp_path / "behavioural", scaled))
    refused = objects()
    pool(refused)["replicas"] = 1
    refused_dir = str(write(tmp_path / "refused", refused))
    drained = objects()
    del drained["NodePool.gpu-inference.k8s.yaml"]
    drained_dir = str(write(tmp_path / "drained", drained))

    assert run(cli(["diff", base, behavioural, "--fail-on", "drift", "refused"])) == 0
    assert run(cli(["diff", base, refused_dir, "--fail-on", "drift"])) == 0
    assert run(cli(["diff", base, refused_dir, "--fail-on", "refused"])) == 1
    assert run(cli(["diff", base, drained_dir, "--fail-on", "refused", "--fail-on", "drift"])) == 1
    assert run(cli(["diff", base, drained_dir])) == 0
    capsys.readouterr()
    assert run(cli(["diff", base, base, "--format", "markdown", "--fail-on", "drift"])) == 0
    out = capsys.readouterr().out
    assert out.startswith("**karpenter-gpu diff**: No changes.\n")
    assert "| (none) | — | — | no cost change |" in out


# -------------------------------------------------------------------------------------- git revisions


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=test", "-c", "user.email=test@example.com",
                           "-c", "commit.gpgsign=false", *args], check=True, capture_output=True, text=True).stdout


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_git_revisions_are_read_without_checkout(tmp_path, monkeypatch, capsys):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    write(repo / "dist", objects())
    git(repo, "add", "dist")
    git(repo, "commit", "-q", "-m", "v1")
    v2 = objects()
    template(v2)["taints"].append({"key": "workload", "value": "inference", "effect": "NoExecute"})
    write(repo / "dist", v2)
    git(repo, "commit", "-q", "-am", "v2")
    (repo / "dist" / "prod" / "NodePool.gpu-inference.k8s.yaml").unlink()  # uncommitted: not seen by revisions

    base, head = load_side("HEAD~1", repo=repo), load_side("HEAD", repo=repo)
    assert set(base["prod"]) == set(load_side(str(write(tmp_path / "plain", objects())))["prod"])
    c = one(classify(base, head))
    assert (c.name, c.category) == ("gpu-inference", Category.REPLACES_NODES)
    assert git(repo, "status", "--porcelain").strip() == "D dist/prod/NodePool.gpu-inference.k8s.yaml"

    # Default repository: the one around the current folder; --repo on the command line.
    monkeypatch.chdir(repo / "dist" / "prod")
    assert classify(load_side("HEAD~1"), load_side("HEAD")) == [c]
    monkeypatch.chdir(tmp_path)
    assert run(cli(["diff", "HEAD~1", "HEAD", "--repo", str(repo), "--fail-on", "drift"])) == 1
    assert "workload=inference:NoExecute added" in capsys.readouterr().out

    with pytest.raises(KarpenterGpuError) as err:
        load_side("no-such-revision", repo=repo)
    assert err.value.code == "KG600"
    assert main(["diff", "no-such-revision", "HEAD", "--repo", str(repo)]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("karpenter-gpu: error: [KG600] ")


def test_dot_files_are_compared_like_validate_reads_them(tmp_path):
    def hidden(files):
        files[".NodePool.gpu-inference.k8s.yaml"] = files.pop("NodePool.gpu-inference.k8s.yaml")
        return files

    head = hidden(objects())
    head[".NodePool.gpu-inference.k8s.yaml"]["spec"]["template"]["spec"]["taints"] = []
    c = one(classify(load_side(str(write(tmp_path / "base", hidden(objects())))),
                     load_side(str(write(tmp_path / "head", head)))))
    assert (c.name, c.category) == ("gpu-inference", Category.REPLACES_NODES)


def test_a_kind_list_is_expanded(tmp_path):
    files = objects()
    pool_ = files.pop("NodePool.gpu-inference.k8s.yaml")
    files["list.yaml"] = {"apiVersion": "v1", "kind": "List", "items": [pool_]}
    side = load_side(str(write(tmp_path, files)))
    assert ("karpenter.sh/v1", "NodePool", "gpu-inference") in side["prod"]


# ------------------------------------------------------------------------ hash details (core: k8s/drift.py)


def test_template_label_with_an_empty_value_is_hashed(tmp_path):
    # NodePool.Hash (hashstructure v2) hashes every map entry, "" values included
    def change(files):
        pool(files)["template"].setdefault("metadata", {}).setdefault("labels", {})["example.com/flag"] = ""

    c = one(diff(tmp_path, change))
    assert c.category is Category.REPLACES_NODES and "example.com/flag" in c.reasons[0]


def test_resolved_ami_family_change_drifts(tmp_path):
    # EC2NodeClass.Hash hashes AMIFamily(): amiFamily Custom beside an al2023 alias resolves to Custom
    def change(files):
        node_class(files)["amiFamily"] = "Custom"

    c = one(diff(tmp_path, change))
    assert c.category is Category.REPLACES_NODES and "resolved AMI family AL2023 → Custom" in c.reasons[0]


def test_static_pool_without_surge_is_told_its_drifted_nodes_stay(tmp_path):
    # staticdrift.go StaticDrift.ComputeCommands: limits.nodes must leave room for the replacement
    def change(files):
        pool(files, "gpu-warm-static")["limits"]["nodes"] = "1"
        pool(files, "gpu-warm-static")["template"]["spec"]["expireAfter"] = "360h"

    changes = diff(tmp_path, change)
    assert {c.category for c in changes} >= {Category.REPLACES_NODES, Category.INFO}
    info = next(c for c in changes if c.category is Category.INFO)
    assert "never replaced" in info.reasons[0]


# ------------------------------------------------------------------------------------------------- cost


def cost(tmp_path: Path, change, catalog=None) -> CostReport:
    """The cost report of base (the objects above) against head (the same, after ``change(files)``)."""
    head = objects()
    change(head)
    return cost_changes(load_side(str(write(tmp_path / "base", objects()))),
                        load_side(str(write(tmp_path / "head", head))), catalog)


def pool_cost(report: CostReport, name: str = "gpu-inference") -> PoolCost:
    [env] = report.environments
    return next(p for p in env.pools if p.pool == name)


def test_cost_no_change_is_empty(tmp_path):
    report = cost(tmp_path, lambda files: None)
    assert report.environments == ()
    assert report.embedded
    assert "no change to any pool" in cost_text(report)


def test_cost_limit_raised_doubles_the_ceiling(tmp_path):
    report = cost(tmp_path, lambda files: pool(files)["limits"].update({"nvidia.com/gpu": "128"}))
    p = pool_cost(report)
    # every candidate's GPU count (1, 4, 8) divides 64, so ceil(128 / n) * price is exactly twice ceil(64 / n) * price
    assert p.ceiling_before is not None and p.ceiling_after == 2 * p.ceiling_before
    assert not p.added and not p.removed and p.first_before == p.first_after
    assert "first choice g4dn.xlarge spot/ap-northeast-2a $0.53/h (on-demand list price) (unchanged)" in cost_text(report)
    [env] = report.environments
    assert env.after - env.before == p.ceiling_before  # the static pool's ceiling is unchanged
    assert env.exceeds(Decimal(10)) and not env.exceeds(Decimal(1000))


def test_cost_gpu_type_added(tmp_path):
    def add_a100(files):
        next(r for r in template(files)["requirements"] if r["key"].endswith("gpu-name"))["values"].append("a100")
    p = pool_cost(cost(tmp_path, add_a100))
    assert p.added == {"on-demand": ("p4d.24xlarge", "p4de.24xlarge"), "spot": ("p4d.24xlarge", "p4de.24xlarge")}
    assert not p.removed
    # 8 x p4de.24xlarge (8 GPUs each, 219.58/h) stays below 64 x g4dn.16xlarge (278.53/h): the ceiling holds
    assert p.ceiling_after == p.ceiling_before == Decimal(64) * Decimal("4.352")
    assert p.first_before == p.first_after


def test_cost_family_removed(tmp_path):
    def drop_t4(files):
        next(r for r in template(files)["requirements"] if r["key"].endswith("gpu-name"))["values"].remove("t4")
    p = pool_cost(cost(tmp_path, drop_t4))
    assert not p.added
    assert set(p.removed) == {"spot", "on-demand"}
    assert all(name.startswith("g4dn.") for names in p.removed.values() for name in names)
    assert "g4dn.xlarge" in p.removed["spot"] and "g4dn.metal" in p.removed["on-demand"]
    assert p.first_before.instance == "g4dn.xlarge" and p.first_after.instance == "g6.xlarge"


def test_cost_overlay_added_changes_price_order_and_ceiling(tmp_path):
    def overlay(files):
        files["NodeOverlay.pricey-t4.k8s.yaml"] = {
            "apiVersion": "karpenter.sh/v1alpha1", "kind": "NodeOverlay", "metadata": {"name": "pricey-t4"},
            "spec": {"requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In",
                                       "values": ["g4dn.xlarge"]}], "priceAdjustment": "+1000%", "weight": 20}}
    p = pool_cost(cost(tmp_path, overlay))
    assert not p.added and not p.removed  # an overlay re-prices, it does not change which types are admitted
    assert p.first_before.instance == "g4dn.xlarge" and p.first_after.instance == "g4dn.2xlarge"
    # 64 x g4dn.xlarge at 11 x 0.526 = 370.30/h is now the dearest way to reach the limit
    assert p.ceiling_after == Decimal(64) * Decimal("0.526") * 11


def test_cost_capacity_type_changed(tmp_path):
    def on_demand_only(files):
        next(r for r in template(files)["requirements"] if r["key"] == "karpenter.sh/capacity-type")["values"] = \
            ["on-demand"]
    p = pool_cost(cost(tmp_path, on_demand_only))
    assert not p.added and set(p.removed) == {"spot"}
    assert "g5.48xlarge" in p.removed["spot"]
    assert p.first_before.offering.startswith("spot/") and p.first_after.offering.startswith("on-demand/")
    assert p.first_before.price == p.first_after.price  # the catalog has on-demand prices only: same number


def test_cost_pool_without_limit_is_unbounded_and_always_fails_cost_increase(tmp_path):
    report = cost(tmp_path, lambda files: pool(files).pop("limits"))
    [env] = report.environments
    assert env.unbounded_after == ("gpu-inference",) and env.unbounded_before == ()
    assert env.exceeds(Decimal(10 ** 6))
    assert "unbounded" in cost_markdown(report)


def test_cost_uses_the_given_catalog_and_says_so(tmp_path):
    embedded = default_catalog()  # a catalog file: the embedded one with every price doubled
    document = json.loads(resources.files("karpenter_gpu").joinpath(DEFAULT_CATALOG_RESOURCE).read_text())
    document["source"] = "doubled test prices"
    for entry in document["types"]:
        if entry.get("price") is not None:
            entry["price"] = str(Decimal(str(entry["price"])) * 2)
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(document))
    raise_limit = lambda files: pool(files)["limits"].update({"nvidia.com/gpu": "128"})  # noqa: E731
    default = pool_cost(cost(tmp_path / "a", raise_limit))
    report = cost(tmp_path / "b", raise_limit, load_catalog(path))
    doubled = pool_cost(report)
    assert doubled.ceiling_after == 2 * default.ceiling_after
    assert not report.embedded and "catalog file doubled test prices" in report.price_list()
    assert "embedded catalog" in cost(tmp_path / "c", raise_limit).price_list()
    assert len(embedded) > 0


def test_cost_markdown_snapshot(tmp_path, snapshot):
    head = objects()
    pool(head)["limits"]["nvidia.com/gpu"] = "128"
    next(r for r in template(head)["requirements"] if r["key"].endswith("gpu-name"))["values"].remove("t4")
    base_side, head_side = load_side(str(write(tmp_path / "base", objects()))), load_side(str(write(tmp_path / "h", head)))
    text = render_markdown(classify(base_side, head_side), cost_changes(base_side, head_side))
    assert text.index("| Environment | Worst-case before |") < text.index("### prod")  # summary table on top
    assert "eventually consistent" in text and "Prices: embedded catalog" in text
    assert text == snapshot


def test_cost_json_is_stable(tmp_path, capsys):
    base = objects()
    head = objects()
    pool(head)["limits"]["nvidia.com/gpu"] = "128"
    b, h = str(write(tmp_path / "base", base)), str(write(tmp_path / "head", head))
    assert main(["diff", b, h, "--format", "json"]) == 0
    first = capsys.readouterr().out
    assert main(["diff", b, h, "--format", "json"]) == 0
    assert capsys.readouterr().out == first
    document = json.loads(first)
    assert list(document) == ["summary", "changes", "cost"]
    assert document["changes"][0]["category"] == "BEHAVIOURAL"
    [env] = document["cost"]["environments"]
    [p] = env["pools"]
    assert p["nodePool"] == "gpu-inference" and p["ceilingAfter"] == f"{2 * Decimal(p['ceilingBefore']):.2f}"
    assert document["cost"]["priceList"]["embedded"] is True
    assert "eventually consistent" in document["cost"]["note"]


def test_fail_on_cost_increase(tmp_path, capsys):
    head = objects()
    pool(head)["limits"]["nvidia.com/gpu"] = "128"
    b, h = str(write(tmp_path / "base", objects())), str(write(tmp_path / "head", head))
    assert main(["diff", b, h, "--fail-on", "cost-increase=10"]) == 1
    assert main(["diff", b, h, "--fail-on", "cost-increase=1000%"]) == 0
    assert main(["diff", h, b, "--fail-on", "cost-increase=0"]) == 0  # a decrease never fails
    assert main(["diff", b, h, "--fail-on", "refused", "cost-increase=10"]) == 1
    capsys.readouterr()
    for bad in ("cost-increase=abc", "cost-increase=-5", "cost-increase=", "cost-increase=nan", "costs"):
        assert main(["diff", b, h, "--fail-on", bad]) == 2
        err = capsys.readouterr().err
        assert err.startswith("karpenter-gpu: error: [KG630]") and err.count("\n") == 1, err


def test_parse_fail_on():
    assert parse_fail_on(["drift", "cost-increase=5", "cost-increase=2.5"]) == (["drift"], Decimal("2.5"))
    with pytest.raises(KarpenterGpuError) as err:
        parse_fail_on(["cost-increase=inf"])
    assert err.value.code == "KG630"


def test_changed_list_values_are_shown_in_full_as_items_added_and_removed(tmp_path):
    def add_rule(files):
        files["PrometheusRule.karpenter-gpu-alerts.k8s.yaml"]["spec"]["groups"][0]["rules"].append(
            {"alert": "GpuPoolAtLimitForLong", "expr": "vector(1)", "for": "1h",
             "labels": {"severity": "warning", "team": "ml-platform"}})
    [change] = diff(tmp_path, add_rule)
    [reason] = change.reasons
    assert "…" not in reason
    assert reason == ("changed: spec.groups[0].rules: {alert: GpuPoolAtLimitForLong, expr: vector(1), for: 1h, labels: "
                      "{severity: warning, team: ml-platform}} added")


def test_overlay_requirement_change_names_the_values(tmp_path):
    def widen(files):
        files["NodeOverlay.discourage-multi-gpu.k8s.yaml"]["spec"]["requirements"][0]["values"].append("g5.48xlarge")
    [change] = [c for c in diff(tmp_path, widen) if c.kind == "NodeOverlay"]
    text = change.reasons[0]
    assert "…" not in text
    assert text.startswith("spec.requirements[0].values: g5.48xlarge added — ")


def test_readme_cost_table_is_what_diff_prints_for_dist_prod(tmp_path):
    """The pull-request example of the diff page: dist/prod with the inference pool's GPU limit doubled."""
    base, head = tmp_path / "base", tmp_path / "head"
    shutil.copytree(ROOT / "dist" / "prod", base / "prod")
    shutil.copytree(ROOT / "dist" / "prod", head / "prod")
    path = head / "prod" / "NodePool.gpu-inference.k8s.yaml"
    manifest = load(path.read_text())
    assert manifest["spec"]["limits"]["nvidia.com/gpu"] == "64"
    manifest["spec"]["limits"]["nvidia.com/gpu"] = "128"
    path.write_text(dump(manifest))
    b, h = load_side(str(base)), load_side(str(head))
    text = render_markdown(classify(b, h), cost_changes(b, h))
    readme = (ROOT / "docs" / "commands" / "diff.md").read_text()
    rows = [line for line in text.splitlines() if line.startswith("| prod")]
    assert len(rows) == 2
    for line in rows:
        assert line in readme, line


def test_cost_new_pool_is_a_rise_from_absent(tmp_path):
    def add_pool(files):
        extra = copy.deepcopy(INFERENCE)
        extra["metadata"]["name"] = "gpu-extra"
        extra["spec"]["weight"] = 5
        files["NodePool.gpu-extra.k8s.yaml"] = extra
    report = cost(tmp_path, add_pool)
    p = pool_cost(report, "gpu-extra")
    assert (p.present_before, p.present_after) == (False, True) and p.ceiling_before is None
    assert p.ceiling_after == Decimal(64) * Decimal("4.352")
    assert "absent → $278.53/h" in cost_text(report)
    assert "first choice none → g4dn.xlarge spot/ap-northeast-2a $0.53/h" in cost_text(report)
    assert set(p.added) == {"spot", "on-demand"} and not p.removed


def test_cost_rise_from_nothing_exceeds_any_percent(tmp_path):
    base = load_side(str(write(tmp_path / "base", {"NodeClass.yaml": NODE_CLASS})))
    head = load_side(str(write(tmp_path / "head", {"NodeClass.yaml": NODE_CLASS,
                                                    "NodePool.yaml": INFERENCE})))
    [env] = cost_changes(base, head).environments
    assert env.before == 0 and env.increase_percent is None and env.exceeds(Decimal(10 ** 9))


def test_overlay_repricing_note_uses_the_given_catalog(tmp_path):
    document = json.loads(resources.files("karpenter_gpu").joinpath(DEFAULT_CATALOG_RESOURCE).read_text())
    for entry in document["types"]:
        if entry["name"] == "g5.12xlarge":
            entry["price"] = "10"
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(document))
    head = objects()
    head["NodeOverlay.discourage-multi-gpu.k8s.yaml"]["spec"]["priceAdjustment"] = "+50%"
    b, h = load_side(str(write(tmp_path / "base", objects()))), load_side(str(write(tmp_path / "head", head)))
    [change] = [c for c in classify(b, h, load_catalog(path)) if c.kind == "NodeOverlay"]
    assert "g5.12xlarge spot/ap-northeast-2a in gpu-inference: 13.0 → 15.0" in change.reasons[0], change.reasons[0]


def _on_auto_mode(files: dict) -> None:
    """The inference pool moved to an EKS Auto Mode NodeClass, its instance keys in Auto Mode's spelling."""
    spec = template(files)
    spec["nodeClassRef"] = {"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "gpu-auto"}
    for r in spec["requirements"]:
        r["key"] = r["key"].replace("karpenter.k8s.aws/", "eks.amazonaws.com/")


def test_auto_mode_requirement_narrowed_drifts_the_same_nodes(tmp_path):
    """eks.amazonaws.com/instance-gpu-name narrowed on an Auto Mode pool: the same t4 types drift as with the
    karpenter.k8s.aws key (the catalog carries both spellings)."""
    base, head = objects(), objects()
    _on_auto_mode(base)
    _on_auto_mode(head)
    narrow(head)
    c = one(classify(load_side(str(write(tmp_path / "base", base))), load_side(str(write(tmp_path / "head", head)))))
    assert c.category is Category.REPLACES_NODES
    assert "eks.amazonaws.com/instance-gpu-name In [t4, a10g, l4] → In [a10g, l4]" in c.reasons[0]
    assert "g4dn.xlarge" in c.reasons[0] and "18 other instance type(s)" in c.reasons[0]


def test_auto_mode_node_class_change_may_replace_the_nodes_of_its_pools(tmp_path):
    auto_class = {"apiVersion": "eks.amazonaws.com/v1", "kind": "NodeClass", "metadata": {"name": "gpu-auto"},
                  "spec": {"role": "R", "subnetSelectorTerms": [{"id": "subnet-0a"}],
                           "securityGroupSelectorTerms": [{"id": "sg-0a"}], "ephemeralStorage": {"size": "80Gi"}}}
    base, head = objects(), objects()
    for files in (base, head):
        _on_auto_mode(files)
        files["NodeClass.gpu-auto.k8s.yaml"] = copy.deepcopy(auto_class)
    head["NodeClass.gpu-auto.k8s.yaml"]["spec"]["ephemeralStorage"]["size"] = "200Gi"
    changes = [c for c in classify(load_side(str(write(tmp_path / "base", base))),
                                   load_side(str(write(tmp_path / "head", head)))) if c.kind == "NodeClass"]
    c = one(changes)
    assert c.category is Category.MAY_REPLACE_NODES
    assert "spec.ephemeralStorage.size" in c.reasons[0] and "gpu-inference" in c.reasons[0]


def test_respelled_durations_and_volume_sizes_are_no_changes(tmp_path):
    """NodePool.Hash / EC2NodeClass.Hash see parsed values (k8s.drift.hashed): 720h is 43200m, 1000G is 1T."""
    def change(files):
        template(files)["expireAfter"] = "43200m"
        template(files)["terminationGracePeriod"] = "90m"
        template(files, "gpu-warm-static")["expireAfter"] = "719h60m"
        node_class(files)["blockDeviceMappings"][0]["ebs"]["volumeSize"] = "1T"  # the CRD pattern admits G and T

    base = objects()
    template(base)["terminationGracePeriod"] = "1h30m"
    node_class(base)["blockDeviceMappings"][0]["ebs"]["volumeSize"] = "1000G"
    head = copy.deepcopy(base)
    change(head)
    assert classify(load_side(str(write(tmp_path / "base", base))), load_side(str(write(tmp_path / "head", head)))) == []


def test_empty_taint_list_is_a_template_change(tmp_path):
    """hashstructure with IgnoreZeroValue skips a nil slice, not an empty one: ``taints: []`` drifts."""
    def change(files):
        template(files, "gpu-warm-static").pop("taints")
        pool(files, "gpu-warm-static")["template"]["spec"]["startupTaints"] = []

    c = one(diff(tmp_path, change))
    assert c.category == Category.REPLACES_NODES
    assert [r.split(" changed")[0] for r in c.reasons] == ["spec.template.spec.taints", "spec.template.spec.startupTaints"]
