"""The placement family's values, drawn from the charts' whole key trees (tests/oracle/placement_values.py), and
the placement model's answers for the switches and refusals those draws reach; without Go or the charts (the
committed vectors hold the charts' answers)."""

from __future__ import annotations

import json

import pytest

from karpenter_gpu.analysis.operand_placement import (NFD_WORKER, PlacementNode, chart_refusals,
                                                      gpu_operator_placement, karpenter_refusals, not_modelled)
from tests.oracle.placement_family import VECTORS, core_answer, differences
from tests.oracle.placement_values import CASE_KEY, CHARTS, key_paths, paths_set, without

CASES = [json.loads(line) for line in VECTORS.read_text().splitlines()]
NODE = PlacementNode("n", "pool", {"kubernetes.io/os": "linux", "karpenter.sh/nodepool": "n"},
                     ({"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"},), "nvidia")


def _leaf_values(value, out):
    if isinstance(value, dict):
        for child in value.values():
            _leaf_values(child, out)
    else:
        out.append(value)
    return out


@pytest.mark.parametrize("chart", CHARTS)
def test_the_vectors_set_key_paths_from_the_whole_tree(chart):
    """Not a fixed list: most of the chart's key paths are set somewhere, unknown keys and nulls too."""
    seen = set().union(*(paths_set(chart, c["case"][CASE_KEY[chart]]) for c in CASES))
    assert "<unknown>" in seen
    assert len(seen - {"<unknown>"}) >= len(key_paths(chart)) // 2
    assert any(None in _leaf_values(c["case"][CASE_KEY[chart]], []) for c in CASES)


def test_without_takes_one_path_or_every_unknown_key_out():
    case = {"gpu_operator_values": {"driver": {"enabled": False, "x": 1}, "devicePluginn": {}},
            "karpenter_values": None, "nodes": []}
    assert without(case, "gpu-operator", "driver.enabled")["gpu_operator_values"] == {"driver": {"x": 1},
                                                                                     "devicePluginn": {}}
    assert without(case, "gpu-operator", "<unknown>")["gpu_operator_values"] == {"driver": {"enabled": False}}
    assert paths_set("gpu-operator", case["gpu_operator_values"]) == {"driver.enabled", "<unknown>"}


def test_no_cluster_policy_runs_no_operand():
    placed = gpu_operator_placement({"clusterPolicy": {"deployCR": False}}, NODE)
    assert list(placed) == [NFD_WORKER] and placed[NFD_WORKER].lands


def test_the_nfd_worker_switched_off_in_the_subchart():
    placed = gpu_operator_placement({"node-feature-discovery": {"worker": {"enable": False}}}, NODE)
    assert not placed[NFD_WORKER].lands and "worker.enable" in (placed[NFD_WORKER].why or "")
    assert not placed["devicePlugin"].lands


def test_a_deleted_switch_is_the_operators_default():
    """``enabled: null`` renders no value; the operator's IsEnabled takes an unset switch as on (off for the node
    status exporter)."""
    placed = gpu_operator_placement({"driver": {"enabled": None}, "dcgm": {"enabled": None},
                                     "nodeStatusExporter": {"enabled": None}}, NODE)
    assert placed["driver"].lands and placed["dcgm"].lands and "nodeStatusExporter" not in placed
    assert "dcgm" not in gpu_operator_placement({}, NODE)  # the chart's own default: off


def test_the_charts_refusals():
    assert chart_refusals({"cdi": {"enabled": False, "nriPluginEnabled": True}}) == [
        ("cdi.nriPluginEnabled", "the NRI Plugin cannot be enabled when CDI is disabled")]
    assert chart_refusals({"cdi": {"nriPluginEnabled": True}, "toolkit": {"enabled": False}}) == [
        ("cdi.nriPluginEnabled", "the NRI Plugin cannot be enabled when the Container Toolkit is disabled")]
    assert chart_refusals({"devicePlugin": {"config": {"create": True, "name": "c"}}}) == [
        ("devicePlugin.config.data", "devicePlugin.config.data cannot be empty when devicePlugin.config.create is set "
                                     "to true")]
    assert chart_refusals({}) == [] and chart_refusals({"cdi": {"enabled": False}}) == []
    assert karpenter_refusals({"settings": {"clusterName": ""}}) and not karpenter_refusals(
        {"settings": {"clusterName": "c"}})


def test_an_nfd_worker_config_of_its_own_is_not_modelled():
    """It decides which PCI labels NFD sets, which the operator reads to find GPUs."""
    config = {"sources": {"pci": {"deviceLabelFields": ["class", "vendor"]}}}
    assert not_modelled({"node-feature-discovery": {"worker": {"config": config}}}) == [
        "node-feature-discovery.worker.config"]
    same = {"sources": {"pci": {"deviceLabelFields": ["vendor"]}}}
    assert not_modelled({"node-feature-discovery": {"worker": {"config": same}}}) == []


@pytest.mark.parametrize("what", ["gpu-operator refused", "karpenter refused", "no ClusterPolicy",
                                  "a deleted switch", "worker.enable", "no nfd-master"])
def test_the_vectors_hold_the_charts_answer_for(what):
    """The rendered charts answered each of these at least once in the committed vectors, and the core agrees."""
    def hit(case: dict, answer: dict) -> bool:
        values = case["gpu_operator_values"] or {}
        if what in ("gpu-operator refused", "karpenter refused"):
            return what in answer
        if what == "no ClusterPolicy":
            return (values.get("clusterPolicy") or {}).get("deployCR") is False and "gpu-operator refused" not in answer
        if what == "a deleted switch":
            return any(isinstance(v, dict) and "enabled" in v and v["enabled"] is None for v in values.values())
        nfd = values.get("node-feature-discovery") or {}
        if what == "no nfd-master":  # the worker ran on an NVIDIA node, yet no operand follows: nothing labelled it
            return ((nfd.get("master") or {}).get("enable") is False and
                    any(n["accelerator"] == "nvidia" and answer.get(n["name"], {}).get(NFD_WORKER)
                        for n in case["nodes"]))
        return (nfd.get("worker") or {}).get("enable") is False

    found = [c for c in CASES if hit(c["case"], c["answer"]) and "not modelled" not in core_answer(c["case"])]
    assert found, what
    assert all(differences(c["case"], c["answer"]) == [] for c in found)


def test_the_vectors_place_the_neuron_device_plugin_on_neuron_nodes_and_off_others():
    """The Neuron pod the values describe, placed by component-helpers' predicates (its chart is not rendered)."""
    answers = [(n["accelerator"], c["answer"][n["name"]]["neuron-device-plugin"]) for c in CASES
               if c["case"].get("neuron_values") for n in c["case"]["nodes"]
               if "neuron-device-plugin" in c["answer"].get(n["name"], {})]
    assert {("neuron", True), ("neuron", False), ("nvidia", True), ("nvidia", False)} <= set(answers)


def test_a_host_network_pod_tolerates_network_unavailable():
    """The DaemonSet controller adds that toleration to a hostNetwork pod: the NFD worker's worker.hostNetwork, an
    operand's <operand>.hostNetwork (the operator's applyHostNetworkConfig)."""
    node = PlacementNode("n", "pool", {"kubernetes.io/os": "linux"},
                         ({"key": "node.kubernetes.io/network-unavailable", "effect": "NoSchedule"},), "nvidia")
    assert not gpu_operator_placement({}, node)[NFD_WORKER].lands
    placed = gpu_operator_placement({"node-feature-discovery": {"worker": {"hostNetwork": True}},
                                     "gfd": {"hostNetwork": True}}, node)
    assert placed[NFD_WORKER].lands and placed["gfd"].lands and not placed["devicePlugin"].lands


def test_without_an_nfd_master_no_gpu_is_labelled():
    """NFD v0.19: the worker publishes a NodeFeature object, the master sets the node's labels from it."""
    node = PlacementNode("n", "pool", {"kubernetes.io/os": "linux"},
                         ({"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"},), "nvidia")
    placed = gpu_operator_placement({"node-feature-discovery": {"master": {"enable": False}}}, node)
    assert placed[NFD_WORKER].lands and not placed["devicePlugin"].lands
    assert "master.enable is false" in (placed["devicePlugin"].why or "")
