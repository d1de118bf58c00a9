"""validate's placement rules (KG640-KG646) on the committed environments and on values files broken on purpose,
and the placement model's pieces (Helm's merge, the key tree, the operator's labelling)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from karpenter_gpu.analysis.operand_placement import (
    NFD_WORKER, PlacementNode, coalesce, controller_placement, gpu_operator_placement, unknown_keys,
)
from karpenter_gpu.check.validate import validate_dir

ROOT = Path(__file__).resolve().parents[1]
DIST = ROOT / "dist"
CRDS = ROOT / "constructs" / "karpenter_gpu" / "data" / "crds"
ENVIRONMENTS = sorted(p.name for p in DIST.iterdir() if p.is_dir())
CODES = {f"KG64{i}" for i in range(7)}


def _copy(tmp_path: Path, env: str) -> Path:
    out = tmp_path / env
    shutil.copytree(DIST / env, out)
    return out


def _edit(folder: Path, name: str, change) -> None:
    path = folder / "helm" / name
    values = yaml.safe_load(path.read_text())
    change(values)
    path.write_text(yaml.safe_dump(values, sort_keys=False))


def _findings(folder: Path, code: str) -> list:
    return [f for f in validate_dir(folder, CRDS).findings if f.code == code]


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_dist_places_every_operand(env):
    assert [f.line() for f in validate_dir(DIST / env, CRDS).findings if f.code in CODES] == []


def test_nfd_worker_without_one_pools_taint_is_reported_naming_the_pool(tmp_path):
    folder = _copy(tmp_path, "prod")

    def drop_search(values):
        worker = values["node-feature-discovery"]["worker"]
        worker["tolerations"] = [t for t in worker["tolerations"] if t.get("value") != "search"]

    _edit(folder, "gpu-operator.values.yaml", drop_search)
    found = _findings(folder, "KG640")
    assert [f.name for f in found] == ["search-inference"]
    assert "NFD worker cannot land on NodePool search-inference" in found[0].message
    assert "no toleration of the taint team=search:NoSchedule" in found[0].message
    assert "devicePlugin" in found[0].message and "node-feature-discovery.worker.tolerations" in found[0].message


def test_operand_without_a_pools_taint_is_reported_naming_the_operand(tmp_path):
    folder = _copy(tmp_path, "prod")

    def drop_team(values):
        values["daemonsets"]["tolerations"] = [t for t in values["daemonsets"]["tolerations"]
                                               if t.get("value") != "research"]

    _edit(folder, "gpu-operator.values.yaml", drop_team)
    found = [f for f in _findings(folder, "KG640") if f.name == "research-training"]
    assert {f.message.split(" cannot land")[0] for f in found} >= {"the GPU Operator operand devicePlugin"}
    assert all("team=research:NoSchedule" in f.message and "daemonsets.tolerations" in f.message for f in found)


def test_unknown_values_key_is_reported_with_a_did_you_mean(tmp_path):
    folder = _copy(tmp_path, "dev")
    _edit(folder, "gpu-operator.values.yaml", lambda v: v.update(devicePluginn={"enabled": True}))
    _edit(folder, "karpenter.values.yaml", lambda v: v.update(controler={"resources": {}}))
    found = {f.path: f for f in _findings(folder, "KG641")}
    assert set(found) == {"devicePluginn", "controler"}
    assert "did you mean devicePlugin?" in found["devicePluginn"].message
    assert found["devicePluginn"].file == "helm/gpu-operator.values.yaml"
    assert "did you mean controller?" in found["controler"].message


def test_gate_the_overlays_need_but_the_values_turn_off(tmp_path):
    folder = _copy(tmp_path, "dev")
    _edit(folder, "karpenter.values.yaml", lambda v: v["settings"]["featureGates"].update(nodeOverlay=False))
    found = _findings(folder, "KG642")
    assert {f.kind for f in found} == {"NodeOverlay"} and len(found) == 4
    assert all("featureGates.nodeOverlay" in f.message for f in found)


def test_reserved_pool_with_the_gate_off(tmp_path):
    folder = _copy(tmp_path, "prod")
    _edit(folder, "karpenter.values.yaml", lambda v: v["settings"]["featureGates"].update(reservedCapacity=False))
    assert [f.name for f in _findings(folder, "KG642")] == ["gpu-training-reserved"]


def test_nfd_worker_on_auto_mode_nodes(tmp_path):
    folder = _copy(tmp_path, "fleet")

    def open_worker(values):
        worker = values["node-feature-discovery"]["worker"]
        worker.pop("affinity")
        worker.pop("nodeSelector")

    _edit(folder, "gpu-operator.values.yaml", open_worker)
    found = _findings(folder, "KG643")
    assert [f.name for f in found] == ["auto-inference"]
    assert found[0].message.startswith("nfd-worker, ")


def test_no_device_plugin_on_al2023_nodes(tmp_path):
    folder = _copy(tmp_path, "dev")
    _edit(folder, "gpu-operator.values.yaml", lambda v: v["devicePlugin"].update(enabled=False))
    assert [f.name for f in _findings(folder, "KG644")] == ["gpu-inference"]


def test_controller_affinity_replaced_lands_on_gpu_pools(tmp_path):
    folder = _copy(tmp_path, "staging")
    _edit(folder, "karpenter.values.yaml", lambda v: v.update(affinity={"nodeAffinity": None},
                                                               tolerations=[{"operator": "Exists"}]))
    found = _findings(folder, "KG645")
    assert found and all(f.kind == "NodePool" for f in found)


def test_coalesce_merges_maps_replaces_lists_and_null_deletes():
    default = {"a": {"b": 1, "c": [1]}, "d": {"e": 1}}
    assert coalesce({"a": {"c": [2]}, "d": None}, default) == {"a": {"b": 1, "c": [2]}}
    assert coalesce(None, default) == default


def test_unknown_keys_respects_open_nodes():
    tree = {"devicePlugin": {"enabled": None, "config": {"data": None}}, "labels": None}
    values = {"devicePlugin": {"enabld": True, "config": {"data": {"anything": 1}}}, "labels": {"x": 1}}
    assert unknown_keys(values, tree) == [("devicePlugin.enabld", "enabled")]


def test_operator_honours_a_preset_deploy_label_and_replaces_tolerations():
    node = PlacementNode("p", "pool", {"gpu-operator": "enabled", "nvidia.com/gpu.deploy.driver": "false"},
                         ({"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"},
                          {"key": "x", "effect": "NoSchedule"}))
    tol = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
           {"key": "x", "operator": "Exists", "effect": "NoSchedule"}]
    values = {"node-feature-discovery": {"worker": {"tolerations": tol}}, "daemonsets": {"tolerations": tol[:1]}}
    placement = gpu_operator_placement(values, node)
    assert placement[NFD_WORKER].lands
    assert not placement["devicePlugin"].lands and "x:NoSchedule" in str(placement["devicePlugin"].why)
    placement = gpu_operator_placement({**values, "daemonsets": {"tolerations": tol}}, node)
    assert placement["devicePlugin"].lands and placement["gfd"].lands
    assert not placement["driver"].lands and "nvidia.com/gpu.deploy.driver=true" in str(placement["driver"].why)
    assert not controller_placement({}, node).lands


def test_values_the_model_does_not_follow_are_said_to_be_not_modelled(tmp_path):
    folder = _copy(tmp_path, "prod")
    _edit(folder, "gpu-operator.values.yaml", lambda v: v.update(sandboxWorkloads={"enabled": True}))
    found = _findings(folder, "KG640")
    assert [(f.path, str(f.severity)) for f in found] == [("sandboxWorkloads.enabled", "info")]
    assert found[0].message.startswith("not modelled: sandboxWorkloads.enabled")


# --------------------------------------------------------------------------- the Neuron device plugin (KG644)

def _neuron(folder: Path, change) -> None:
    _edit(folder, "neuron-device-plugin.values.yaml", lambda v: change(v["devicePlugin"]))


def test_neuron_pool_the_neuron_device_plugin_cannot_reach(tmp_path):
    folder = _copy(tmp_path, "staging")
    _neuron(folder, lambda plugin: plugin.update(tolerations=[{"key": "CriticalAddonsOnly", "operator": "Exists"}]))
    found = _findings(folder, "KG644")
    assert [f.name for f in found] == ["neuron-inference"]
    assert "Neuron device plugins on NodePool neuron-inference: none" in found[0].message
    assert "aws.amazon.com/neuron=true:NoSchedule" in found[0].message


def test_neuron_device_plugin_on_nvidia_pools(tmp_path):
    """An affinity that names no pool puts the Neuron DaemonSet on every node whose taints it tolerates."""
    folder = _copy(tmp_path, "staging")

    def everywhere(plugin):
        plugin["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0][
            "matchExpressions"].pop(0)
        plugin["tolerations"].append({"operator": "Exists"})

    _neuron(folder, everywhere)
    found = {f.name: f for f in _findings(folder, "KG644")}
    assert "neuron-inference" not in found and "gpu-inference" in found
    assert "lands on NodePool gpu-inference, which has no Neuron device" in found["gpu-inference"].message


def test_neuron_device_plugin_on_auto_mode_nodes(tmp_path):
    """Auto Mode runs AWS's device plugins: the chart's DaemonSet must stay off its nodes."""
    folder = _copy(tmp_path, "fleet")
    values = {"devicePlugin": {"enabled": True, "affinity": {}, "tolerations": [{"operator": "Exists"}]}}
    (folder / "helm" / "neuron-device-plugin.values.yaml").write_text(yaml.safe_dump(values))
    found = [f for f in _findings(folder, "KG644") if "Auto Mode" in f.message]
    assert found and all("which has no Neuron device" in f.message for f in found)
    two = PlacementNode("inf", "auto", {"eks.amazonaws.com/compute-type": "auto"}, (), "neuron")
    from karpenter_gpu.analysis.operand_placement import neuron_device_plugins, neuron_plugin_placement
    assert neuron_device_plugins(neuron_plugin_placement(values, two), two) == ["the EKS Auto Mode's",
                                                                                "the Neuron chart's"]


def test_neuron_values_leaving_placement_to_the_chart_are_not_modelled(tmp_path):
    folder = _copy(tmp_path, "staging")
    _neuron(folder, lambda plugin: plugin.pop("affinity"))
    found = _findings(folder, "KG644")
    assert [(f.path, f.severity.value) for f in found] == [("devicePlugin.affinity", "info")]
    assert found[0].message.startswith("not modelled: devicePlugin.affinity")


def test_no_cluster_policy_leaves_the_gpu_nodes_without_a_device_plugin(tmp_path):
    """clusterPolicy.deployCR false: the chart renders no ClusterPolicy and the operator deploys no operand."""
    folder = _copy(tmp_path, "dev")
    _edit(folder, "gpu-operator.values.yaml", lambda v: v.update(clusterPolicy={"deployCR": False}))
    found = _findings(folder, "KG644")
    assert found and all("none (clusterPolicy.deployCR is false" in f.message for f in found)


def test_values_the_charts_refuse_to_install(tmp_path):
    """The GPU Operator chart's validations.yaml and the Karpenter chart's required settings.clusterName."""
    folder = _copy(tmp_path, "dev")
    _edit(folder, "gpu-operator.values.yaml", lambda v: v["devicePlugin"]["config"].update(data={}))
    _edit(folder, "karpenter.values.yaml", lambda v: v["settings"].pop("clusterName"))
    found = {(f.file, f.path): f.message for f in _findings(folder, "KG646")}
    assert set(found) == {("helm/gpu-operator.values.yaml", "devicePlugin.config.data"),
                          ("helm/karpenter.values.yaml", "settings.clusterName")}
    assert "devicePlugin.config.data cannot be empty" in found[("helm/gpu-operator.values.yaml",
                                                               "devicePlugin.config.data")]


def test_the_nfd_worker_switched_off_is_named_as_the_cause(tmp_path):
    folder = _copy(tmp_path, "prod")
    _edit(folder, "gpu-operator.values.yaml", lambda v: v["node-feature-discovery"]["worker"].update(enable=False))
    found = _findings(folder, "KG640")
    assert found and all("node-feature-discovery.worker.enable is false" in f.message for f in found)
    assert all("turn the NFD worker back on" in f.message for f in found)


def test_no_nfd_master_leaves_every_operand_off_the_gpu_pools(tmp_path):
    folder = _copy(tmp_path, "prod")
    _edit(folder, "gpu-operator.values.yaml", lambda v: v["node-feature-discovery"].update(master={"enable": False}))
    found = _findings(folder, "KG640")
    assert found and all("node-feature-discovery.master.enable is false" in f.message for f in found)
    assert all("turn node-feature-discovery.master.enable back on" in f.message for f in found)
