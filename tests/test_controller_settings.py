"""The Karpenter controller's settings (karpenter_gpu.k8s.controller_settings): read from the chart values as the
chart renders them and the binary parses them, and each one changing the simulation as Karpenter's code does."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

from karpenter_gpu.analysis.catalog import default_catalog
from karpenter_gpu.analysis.notes import NoteKind
from karpenter_gpu.analysis.pod_fit import first_choice, pod_fit
from karpenter_gpu.analysis.pod_shape import PodShape
from karpenter_gpu.analysis.simulator import simulate_pools
from karpenter_gpu.cli.main import main
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.controller_settings import (
    CHART_DEFAULTS, ControllerSettings, environment_settings, go_value_text, read_settings, values_text,
)
from karpenter_gpu.upstream import DEFAULT_ON, FeatureGate

ROOT = Path(__file__).resolve().parents[1]
AWS = "karpenter.k8s.aws/"


def settings(**values: object) -> ControllerSettings:
    return read_settings({"settings": values}, "test.values.yaml")


# ------------------------------------------------------------------------------------------ the reader


def test_no_values_are_the_chart_defaults():
    for got in (read_settings(None), read_settings({}), settings(), environment_settings({}, "x")):
        assert got.gates == DEFAULT_ON == frozenset({FeatureGate.RESERVED_CAPACITY})
        assert (got.min_values_policy, got.preference_policy, got.vm_memory_overhead_percent, got.reserved_enis,
                got.batch_max_duration, got.batch_idle_duration, got.isolated_vpc, got.enable_zonal_shift,
                got.ignore_dra_requests) == ("Strict", "Respect", 0.075, 0, "10s", "1s", False, False, True)
    assert read_settings(None).source == CHART_DEFAULTS
    assert "chart defaults" in ControllerSettings().describe()


def test_every_field_is_read():
    got = settings(featureGates={"nodeOverlay": True, "reservedCapacity": "false", "staticCapacity": 1,
                                 "spotToSpotConsolidation": "T", "nodeRepair": False, "capacityBuffer": "0"},
                   minValuesPolicy="BestEffort", preferencePolicy="Ignore", vmMemoryOverheadPercent=0.1,
                   reservedENIs="2", batchMaxDuration="1m30s", batchIdleDuration="500ms", isolatedVPC=True,
                   enableZonalShift="true", ignoreDRARequests=False, clusterName="c", interruptionQueue="q")
    assert got.gates == {FeatureGate.NODE_OVERLAY, FeatureGate.STATIC_CAPACITY, FeatureGate.SPOT_TO_SPOT_CONSOLIDATION}
    assert (got.min_values_policy, got.preference_policy, got.vm_memory_overhead_percent, got.reserved_enis,
            got.batch_max_duration, got.batch_idle_duration, got.isolated_vpc, got.enable_zonal_shift) == (
        "BestEffort", "Ignore", 0.1, 2, "1m30s", "500ms", True, True)
    # ignoreDRARequests false renders nothing ({{- with }}): the binary's default, true, stays
    assert got.ignore_dra_requests is True
    assert got.best_effort and got.node_overlay and not got.reserved_capacity and got.static_capacity
    assert [line.split(":")[1].strip().split(" ")[0] for line in got.unmodelled()] == [
        "settings.preferencePolicy", "settings.enableZonalShift", "settings.featureGates.spotToSpotConsolidation",
        "settings.batchMaxDuration", "settings.batchIdleDuration", "settings.isolatedVPC"]
    assert "test.values.yaml" in got.describe() and "vmMemoryOverheadPercent 0.1" in got.describe()


def test_the_settings_line_names_each_setting_read_but_not_modelled():
    got = settings(featureGates={"spotToSpotConsolidation": True, "nodeRepair": True}, batchMaxDuration="20s",
                   batchIdleDuration="1000ms", isolatedVPC=True)
    assert got.describe().endswith(
        "; not modelled: settings.featureGates.spotToSpotConsolidation true, settings.featureGates.nodeRepair true, "
        "settings.batchMaxDuration 20s, settings.isolatedVPC true")  # 1000ms is the default 1s
    assert [line.split(" (")[0] for line in got.unmodelled()] == [
        "not modelled: settings.featureGates.spotToSpotConsolidation true",
        "not modelled: settings.featureGates.nodeRepair true", "not modelled: settings.batchMaxDuration 20s",
        "not modelled: settings.isolatedVPC true"]
    defaults = settings(featureGates={"spotToSpotConsolidation": False, "nodeRepair": False},
                        batchMaxDuration="10s", batchIdleDuration="1s", isolatedVPC=False)
    assert "not modelled" not in defaults.describe() and defaults.unmodelled() == ()


def test_a_number_zero_is_not_rendered_by_the_chart():
    zero = settings(vmMemoryOverheadPercent=0)
    assert zero.vm_memory_overhead_percent == 0.075 and "write \"0\"" in zero.notes[0]
    assert settings(vmMemoryOverheadPercent="0").vm_memory_overhead_percent == 0.0
    assert settings(reservedENIs=0).reserved_enis == 0 and settings(reservedENIs=3).reserved_enis == 3
    assert settings(minValuesPolicy="").min_values_policy == "Strict"  # empty: not rendered, the default
    assert settings(minValuesPolicy=None).min_values_policy == "Strict"  # null removes the key


@pytest.mark.parametrize("value, text", [(0, "0"), (3, "3"), (100000, "100000"), (10**6, "1e+06"), (0.1, "0.1"),
                                         (1e-5, "1e-05"), (0.0001, "0.0001"), (123456789, "1.23456789e+08"),
                                         (True, "true"), ("x", "x")])
def test_values_print_as_go_prints_helm_values(value, text):
    assert go_value_text(value) == text


@pytest.mark.parametrize("values, code", [
    ({"settings": "x"}, "KG740"),
    ([], "KG740"),
    ({"settings": {"minValuePolicy": "Strict"}}, "KG740"),  # a typo: the chart ignores it
    ({"settings": {"batchMaxDuration": "10"}}, "KG740"),  # time.ParseDuration refuses it: silently 10s
    ({"settings": {"isolatedVPC": "yes"}}, "KG740"),
    ({"settings": {"featureGates": {"nodeOverlay": "yes"}}}, "KG741"),
    ({"settings": {"featureGates": {"nodeOverlay": None}}}, "KG741"),  # renders <no value>: the binary stops
    ({"settings": {"featureGates": {"nodeOverlay": "false,NodeOverlay=true"}}}, "KG741"),
    ({"settings": {"featureGates": {"NodeOverlay": True}}}, "KG741"),  # the binary's name, not the chart's key
    ({"settings": {"featureGates": []}}, "KG741"),
    ({"settings": {"minValuesPolicy": "strict"}}, "KG742"),
    ({"settings": {"preferencePolicy": "Prefer"}}, "KG742"),
    ({"settings": {"vmMemoryOverheadPercent": -0.1}}, "KG743"),
    ({"settings": {"vmMemoryOverheadPercent": "abc"}}, "KG743"),
    ({"settings": {"vmMemoryOverheadPercent": "NaN"}}, "KG743"),
    ({"settings": {"vmMemoryOverheadPercent": 1.5}}, "KG743"),
    ({"settings": {"reservedENIs": -1}}, "KG744"),
    ({"settings": {"reservedENIs": 1.5}}, "KG744"),
    ({"settings": {"reservedENIs": 10**6}}, "KG744"),  # Helm prints 1e+06: strconv.Atoi fails, silently 0
    ({"settings": {"reservedENIs": " 2"}}, "KG744"),
])
def test_bad_values_are_one_coded_error(values, code):
    with pytest.raises(KarpenterGpuError) as raised:
        read_settings(values, "bad.values.yaml")
    assert raised.value.code == code and "bad.values.yaml" in str(raised.value) and "\n" not in str(raised.value)


def test_values_text_reads_back():
    for s in (ControllerSettings(), ControllerSettings(gates=frozenset(FeatureGate), min_values_policy="BestEffort",
                                                      vm_memory_overhead_percent=0.0, reserved_enis=3)):
        back = read_settings(yaml.safe_load(yaml.safe_dump(values_text(s))), CHART_DEFAULTS)
        assert back == s


# ------------------------------------------------------------------------------------ effects on the core


def pool(name: str, *reqs: dict, replicas: int | None = None, limits: dict | None = None,
         weight: int | None = None) -> dict:
    spec: dict = {"template": {"spec": {
        "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
        "requirements": list(reqs)}}}
    if replicas is not None:
        spec["replicas"] = replicas
        spec["limits"] = {"nodes": replicas}
    if limits:
        spec["limits"] = limits
    if weight is not None:
        spec["weight"] = weight
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name}, "spec": spec}


def req(key: str, op: str, *values: str, min_values: int | None = None) -> dict:
    out: dict = {"key": key, "operator": op}
    if values:
        out["values"] = list(values)
    if min_values is not None:
        out["minValues"] = min_values
    return out


NODE_CLASS = {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "default"},
              "spec": {"amiSelectorTerms": [{"alias": "al2023@latest"}], "role": "r",
                       "subnetSelectorTerms": [{"tags": {"k": "v"}}],
                       "securityGroupSelectorTerms": [{"tags": {"k": "v"}}]}}
G5 = req(AWS + "instance-family", "In", "g5")
OVERLAY = {"apiVersion": "karpenter.sh/v1alpha1", "kind": "NodeOverlay", "metadata": {"name": "cheap-g5-xl"},
           "spec": {"requirements": [req("node.kubernetes.io/instance-type", "In", "g5.xlarge")], "price": "0.01",
                    "weight": 10}}
ON = ControllerSettings(gates=frozenset(FeatureGate))


def one(*manifests: dict, settings: ControllerSettings | None = None):
    [report] = simulate_pools([NODE_CLASS, *manifests], settings=settings)
    return report


def test_node_overlay_off_ignores_overlays_and_says_which():
    on = one(pool("p", G5), OVERLAY, settings=ON)
    assert on.candidates[0].instance.name == "g5.xlarge" and on.candidates[0].price == Decimal("0.01")
    off = one(pool("p", G5), OVERLAY)
    assert off.candidates[0].price != Decimal("0.01") and not any(c.overlays for c in off.candidates)
    [ignored] = [n for n in off.notes if n.kind is NoteKind.OVERLAYS_IGNORED]
    assert "cheap-g5-xl" in ignored.text and "nodeOverlay is off (chart defaults)" in ignored.text
    assert not [n for n in on.notes if n.kind is NoteKind.OVERLAYS_IGNORED]


def test_reserved_capacity_off_builds_no_reserved_offering():
    reserved = pool("p", G5, req("karpenter.sh/capacity-type", "In", "reserved", "on-demand"))
    terms = {**NODE_CLASS, "spec": {**NODE_CLASS["spec"], "capacityReservationSelectorTerms": [{"id": "cr-1"}]}}
    on = simulate_pools([terms, reserved])[0]
    assert any(o.offering.capacity_type == "reserved" for c in on.candidates for o in c.offerings) or \
        "reserved" in {o.capacity_type for o in ()} or on.capacity_types == ("reserved", "on-demand")
    off_settings = ControllerSettings(gates=frozenset())
    off = simulate_pools([terms, reserved], settings=off_settings)[0]
    assert not any(o.offering.capacity_type == "reserved" for c in off.candidates for o in c.offerings)
    assert any(n.kind is NoteKind.RESERVED_CAPACITY_OFF for n in off.notes)
    only_reserved = pool("r", G5, req("karpenter.sh/capacity-type", "In", "reserved"))
    assert not simulate_pools([terms, only_reserved], settings=off_settings)[0].launchable
    assert simulate_pools([terms, only_reserved])[0].launchable


def test_static_capacity_off_launches_nothing_and_costs_nothing():
    static = pool("s", G5, req("node.kubernetes.io/instance-type", "In", "g5.xlarge"), replicas=2)
    on = one(static, settings=ON)
    assert on.launchable and on.worst_case_hourly and on.worst_case_hourly > 0
    off = one(static)
    assert not off.launchable and off.worst_case_hourly == 0
    assert off.problems[0].kind is NoteKind.STATIC_CAPACITY_OFF and "staticCapacity off" in off.problems[0].text


def test_best_effort_relaxes_min_values():
    wants = pool("p", req(AWS + "instance-family", "In", "g5", min_values=1),
                 req("node.kubernetes.io/instance-type", "In", "g5.xlarge", "g5.2xlarge", min_values=2),
                 req(AWS + "instance-cpu", "Lt", "5"))  # g5.xlarge only: one type where two are asked
    strict = one(wants)
    assert not strict.launchable and strict.problems[0].kind is NoteKind.MIN_VALUES_UNMET
    relaxed = one(wants, settings=ControllerSettings(min_values_policy="BestEffort"))
    assert relaxed.launchable and any(n.kind is NoteKind.MIN_VALUES_RELAXED for n in relaxed.notes)
    shape = PodShape.parse("gpus=1,tolerate=nvidia.com/gpu")
    assert first_choice(pod_fit(shape, [NODE_CLASS, wants])) is None
    choice = first_choice(pod_fit(shape, [NODE_CLASS, wants], settings=ControllerSettings(
        min_values_policy="BestEffort")))
    assert choice is not None and choice.instance == "g5.xlarge"


def test_vm_memory_overhead_and_reserved_enis_change_capacity_and_pods():
    g5 = pool("p", req("node.kubernetes.io/instance-type", "In", "g5.xlarge"))
    base = one(g5).candidates[0]
    more = one(g5, settings=ControllerSettings(vm_memory_overhead_percent=0.1)).candidates[0]
    none = one(g5, settings=ControllerSettings(vm_memory_overhead_percent=0.0)).candidates[0]
    # g5.xlarge: 16384 MiB; ceil(16384 * 0.1) = 1639 MiB of VM overhead instead of 1229
    assert base.free("memory") - more.free("memory") == (1639 - 1229) * 2**20
    assert none.free("memory") - base.free("memory") == 1229 * 2**20
    catalog = default_catalog().by_name["g5.xlarge"]
    assert base.free("pods") == catalog.allocatable["pods"] == 58  # 4 ENIs x (15 - 1) + 2
    two = one(g5, settings=ControllerSettings(reserved_enis=2)).candidates[0]
    assert two.free("pods") == 2 * 14 + 2
    assert one(g5, settings=ControllerSettings(reserved_enis=4)).candidates[0].free("pods") == 0


# ---------------------------------------------------------------------------------- explain, diff, validate


def _env(tmp_path: Path, values: dict | None, *manifests: dict) -> Path:
    root = tmp_path / "env"
    (root / "helm").mkdir(parents=True)
    (root / "manifests.yaml").write_text(yaml.safe_dump_all([NODE_CLASS, *manifests]))
    if values is not None:
        (root / "helm" / "karpenter.values.yaml").write_text(yaml.safe_dump(values))
    return root


def test_explain_names_the_settings_and_reads_the_environment_file(tmp_path, capsys):
    root = _env(tmp_path, {"settings": {"featureGates": {"nodeOverlay": True}}}, pool("p", G5), OVERLAY)
    assert main(["explain", str(root), "--format", "json"]) == 0
    env = json.loads(capsys.readouterr().out)["environments"][0]
    assert env["settings"].startswith("Karpenter settings: helm/karpenter.values.yaml (featureGates nodeOverlay on")
    assert env["notes"][0] == env["settings"]
    assert env["pools"][0]["overlaid_offerings"]
    assert main(["explain", str(root)]) == 0
    assert "note: Karpenter settings: helm/karpenter.values.yaml" in capsys.readouterr().out


def test_explain_without_a_file_uses_chart_defaults_or_karpenter_values(tmp_path, capsys):
    root = _env(tmp_path, None, pool("p", G5), OVERLAY)
    assert main(["explain", str(root), "--format", "json"]) == 0
    env = json.loads(capsys.readouterr().out)["environments"][0]
    assert "Karpenter settings: chart defaults" in env["settings"] and not env["pools"][0]["overlaid_offerings"]
    given = tmp_path / "mine.yaml"
    given.write_text("settings:\n  featureGates:\n    nodeOverlay: true\n")
    assert main(["explain", str(root), "--format", "json", "--karpenter-values", str(given)]) == 0
    env = json.loads(capsys.readouterr().out)["environments"][0]
    assert f"Karpenter settings: {given}" in env["settings"] and env["pools"][0]["overlaid_offerings"]


def test_explain_without_a_file_says_what_the_chart_defaults_leave_out_and_how_to_give_the_values(tmp_path, capsys):
    static = pool("warm", req("node.kubernetes.io/instance-type", "In", "g5.xlarge"), replicas=1)
    root = _env(tmp_path, None, pool("p", G5), static, OVERLAY)
    assert main(["explain", str(root), "--format", "json"]) == 0
    env = json.loads(capsys.readouterr().out)["environments"][0]
    assert env["notes"][0] == env["settings"] and "chart defaults" in env["settings"]
    assert env["notes"][1] == (
        "no Karpenter values were read, so the chart's defaults apply: featureGates.nodeOverlay off, so NodeOverlay "
        "cheap-g5-xl is not applied; featureGates.staticCapacity off, so static pool warm launches nothing; if the "
        "controller runs with these gates on, put its values in helm/karpenter.values.yaml beside the manifests or "
        "pass --karpenter-values FILE")
    assert main(["explain", str(root)]) == 0
    assert "note: no Karpenter values were read, so the chart's defaults apply: featureGates.nodeOverlay off, so " \
           "NodeOverlay cheap-g5-xl is not applied" in capsys.readouterr().out
    only_overlay = _env(tmp_path / "o", None, pool("p", G5), OVERLAY)
    assert main(["explain", str(only_overlay), "--format", "json"]) == 0
    env = json.loads(capsys.readouterr().out)["environments"][0]
    assert env["notes"][1].endswith("NodeOverlay cheap-g5-xl is not applied; if the controller runs with the gate on, "
                                    "put its values in helm/karpenter.values.yaml beside the manifests or pass "
                                    "--karpenter-values FILE")
    # the values given (here, or beside the manifests with the gates off on purpose): no such note
    given = tmp_path / "mine.yaml"
    given.write_text("settings:\n  featureGates:\n    nodeOverlay: true\n    staticCapacity: true\n")
    chosen = _env(tmp_path / "c", {"settings": {"featureGates": {"nodeOverlay": False}}}, pool("p", G5), OVERLAY)
    for args in ([str(root), "--karpenter-values", str(given)], [str(chosen)]):
        assert main(["explain", *args, "--format", "json"]) == 0
        notes = json.loads(capsys.readouterr().out)["environments"][0]["notes"]
        assert not [n for n in notes if "no Karpenter values were read" in n]
    assert main(["explain", str(_env(tmp_path / "n", None, pool("p", G5))), "--format", "json"]) == 0
    notes = json.loads(capsys.readouterr().out)["environments"][0]["notes"]  # nothing the defaults leave out
    assert not [n for n in notes if "no Karpenter values were read" in n]


@pytest.mark.parametrize("command", ["explain", "validate", "diff"])
@pytest.mark.parametrize("content, code", [("settings:\n  minValuesPolicy: strict\n", "KG742"),
                                           ("- a list\n", "KG310"), ("a: [\n", "KG903")])
def test_a_bad_karpenter_values_file_is_one_coded_line(tmp_path, capsys, command, content, code):
    root = _env(tmp_path, None, pool("p", G5))
    bad = tmp_path / "bad.yaml"
    bad.write_text(content)
    args = [command, str(root)] + ([str(root)] if command == "diff" else []) + ["--karpenter-values", str(bad)]
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"[{code}]" in err[0]


def test_validate_names_the_settings_and_reports_a_bad_environment_file(tmp_path, capsys):
    root = _env(tmp_path, {"settings": {"vmMemoryOverheadPercent": 0.1}}, pool("p", G5))
    main(["validate", str(root)])
    out = capsys.readouterr().out
    assert "settings: env: Karpenter settings: helm/karpenter.values.yaml (" in out
    assert "vmMemoryOverheadPercent 0.1" in out
    bad = _env(tmp_path / "b", {"settings": {"reservedENIs": -1}}, pool("p", G5))
    assert main(["validate", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "KG744" in out and "chart defaults (helm/karpenter.values.yaml not read)" in out


def test_diff_names_each_sides_settings_and_prices_under_them(tmp_path, capsys):
    base = _env(tmp_path / "a", {"settings": {"featureGates": {"nodeOverlay": False}}}, pool("p", G5), OVERLAY)
    head = _env(tmp_path / "b", {"settings": {"featureGates": {"nodeOverlay": True}}}, pool("p", G5), OVERLAY)
    main(["diff", str(base), str(head)])
    out = capsys.readouterr().out
    assert "settings: env: before Karpenter settings: env/helm/karpenter.values.yaml (featureGates nodeOverlay off" in out
    assert "after Karpenter settings: env/helm/karpenter.values.yaml (featureGates nodeOverlay on" in out
    # the overlay applies only after; before, spot stands in at the list price, after, the overlay priced it
    assert "$1.01/h (on-demand list price) → g5.xlarge spot/other zones $0.01/h\n" in out
