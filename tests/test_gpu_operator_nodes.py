"""Which GPU Operator operands run on a node (NVIDIA/gpu-operator v26.7.0 node labelling + DaemonSet selectors)."""

from __future__ import annotations

import yaml

from karpenter_gpu.addons.gpu_operator_nodes import OPERANDS, nfd_worker_runs, operand_runs, operator_labels
from karpenter_gpu.k8s.input_layout import read_path
from karpenter_gpu.k8s.views import hybrid_groups, node_pools
from tests.conftest import ROOT

GPU_TAINT = {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}
TOLERATE_GPU = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
NOT_AUTO = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
    {"matchExpressions": [{"key": "eks.amazonaws.com/compute-type", "operator": "NotIn", "values": ["auto"]}]}]}}}
VALUES = {
    "daemonsets": {"tolerations": TOLERATE_GPU},
    "driver": {"enabled": True}, "toolkit": {"enabled": True}, "devicePlugin": {"enabled": True},
    "node-feature-discovery": {"worker": {"nodeSelector": {"gpu-operator": "enabled"}, "affinity": NOT_AUTO,
                                          "tolerations": TOLERATE_GPU}},
}
NODE = {"gpu-operator": "enabled"}


def test_operator_labels_every_operand_true_on_a_gpu_node_it_discovers():
    labels = operator_labels(VALUES, NODE, [GPU_TAINT])
    assert labels["nvidia.com/gpu.present"] == "true"
    assert all(labels[label] == "true" for label in OPERANDS.values())


def test_a_preset_false_deploy_label_is_honoured():
    node = {**NODE, "nvidia.com/gpu.deploy.driver": "false"}
    assert operator_labels(VALUES, node)["nvidia.com/gpu.deploy.driver"] == "false"
    assert not operand_runs(VALUES, "driver", node, [GPU_TAINT])
    assert operand_runs(VALUES, "toolkit", node, [GPU_TAINT])


def test_an_empty_preset_is_treated_as_absent():
    node = {**NODE, "nvidia.com/gpu.deploy.driver": ""}
    assert operand_runs(VALUES, "driver", node, [GPU_TAINT])


def test_operands_false_removes_every_operand():
    node = {**NODE, "nvidia.com/gpu.deploy.operands": "false"}
    assert not any(operand_runs(VALUES, operand, node, [GPU_TAINT]) for operand in ("driver", "devicePlugin"))


def test_no_nfd_worker_no_operands():
    for node, taints in (({}, []),                                                      # no gpu-operator label
                         ({**NODE, "eks.amazonaws.com/compute-type": "auto"}, []),      # Auto Mode
                         (NODE, [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}])):  # untolerated taint
        assert not nfd_worker_runs(VALUES, node, taints)
        assert not operand_runs(VALUES, "devicePlugin", node, taints)


def test_a_node_without_an_nvidia_gpu_gets_nothing():
    assert operator_labels(VALUES, NODE, nvidia_gpu=False) == NODE
    assert not operand_runs(VALUES, "driver", NODE, nvidia_gpu=False)


def test_a_disabled_operand_runs_nowhere_and_chart_defaults_apply():
    values = {**VALUES, "driver": {"enabled": False}}
    assert not operand_runs(values, "driver", NODE)
    assert operand_runs({k: v for k, v in VALUES.items() if k != "driver"}, "driver", NODE)  # chart default: on
    assert not operand_runs(VALUES, "dcgm", NODE)                                            # chart default: off


def test_the_operand_must_tolerate_the_node_taints():
    taint = {"key": "on-premises", "effect": "NoSchedule"}
    values = {**VALUES, "node-feature-discovery": {"worker": {**VALUES["node-feature-discovery"]["worker"],
                                                              "tolerations": [{"operator": "Exists"}]}}}
    assert nfd_worker_runs(values, NODE, [taint])
    assert not operand_runs(values, "driver", NODE, [taint])  # daemonsets.tolerations lack it


def test_the_bundled_fleet_gets_the_driver_only_on_its_hybrid_nodes():
    """dist/fleet as written (the values file, the NodePools, the hybrid group's ConfigMap): every node kind."""
    fleet = read_path(ROOT / "dist").environment("fleet")
    values = yaml.safe_load((ROOT / "dist" / "fleet" / "helm" / "gpu-operator.values.yaml").read_text())
    docs = [m.manifest for m in fleet.manifests]
    nodes = {}
    for pool in node_pools(docs):
        labels = {**pool.labels, "karpenter.sh/nodepool": pool.name}
        if pool.template_spec["nodeClassRef"]["group"] == "eks.amazonaws.com":
            labels["eks.amazonaws.com/compute-type"] = "auto"
        nodes[pool.name] = (labels, pool.taints)
    for group in hybrid_groups(docs):
        nodes[group.name] = (dict(group.node_labels), list(group.taints))
    assert set(nodes) == {"auto-inference", "gpu-mig", "seoul-dc1-a100"}
    for operand in ("driver", "toolkit"):
        assert [n for n, (labels, taints) in nodes.items() if operand_runs(values, operand, labels, taints)] == \
            ["seoul-dc1-a100"]
    assert not nfd_worker_runs(values, *nodes["auto-inference"])
