"""``karpenter-gpu import``: the generated app synthesizes what was read (``diff --fail-on drift`` exits 0), is valid
Python that ruff passes whatever the input's strings, and bad input is one coded line (exit 2)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from karpenter_gpu.cli.main import main
from karpenter_gpu.importer.literal import literal

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT / "tests" / "fixtures" / "seeds"
PUBLIC = ROOT / "tests" / "data" / "import" / "public"
RUFF = Path(sys.executable).with_name("ruff")
#: The seed files that are whole, valid objects (the others are fragments or refused by the API server).
VALID_SEEDS = ("000_s02_nodepools.yaml", "000_s03_ec2nodeclasses.yaml", "000_s04_spot_nodepool.yaml",
               "000_s06_inferentia_nodepool.yaml", "000_s07_tiered_nodepools.yaml", "000_s08_nodepool.yaml")


def _command(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "karpenter_gpu", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600)


def _round_trip(source: Path, tmp_path: Path, compare: str = "", changes: str = "No changes.") -> str:
    """import → synth → diff --fail-on drift; returns the generated code."""
    app = tmp_path / "imported_app.py"
    assert main(["import", str(source), "--out", str(app)]) == 0
    code = app.read_text(encoding="utf-8")
    ast.parse(code)
    for config in ([], ["--isolated"]):  # the project's rules and ruff's defaults
        lint = subprocess.run([str(RUFF), "check", "--no-cache", *config, str(app)], capture_output=True, text=True)
        assert lint.returncode == 0, lint.stdout
    synth = _command("synth", "--app", "imported_app:apps", "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert synth.returncode == 0, synth.stderr
    diff = _command("diff", str(source), str(tmp_path / "out" / compare), "--fail-on", "drift", cwd=tmp_path)
    assert diff.returncode == 0, diff.stdout + diff.stderr
    assert diff.stdout.startswith(changes), diff.stdout
    return code


def test_the_seed_yaml_round_trips_without_drift(tmp_path):
    source = tmp_path / "seeds"
    for name in VALID_SEEDS:  # one environment per seed file: the same pool names recur across the seeds
        (source / name.removesuffix(".yaml")).mkdir(parents=True)
        shutil.copy(SEEDS / name, source / name.removesuffix(".yaml") / name)
    code = _round_trip(source, tmp_path)
    assert code.count("def environment_") == len(VALID_SEEDS)
    # no seed pool is one a construct writes as it is: each stays as given, its reason naming the field
    assert "GpuInferencePool / GpuTrainingPool would not keep it '\n            'as it is (spec." in code


def test_public_examples_round_trip_with_their_values_files(tmp_path, capsys):
    # the one change: a values file of another chart, left where it is (said on stderr), is not in the output
    code = _round_trip(PUBLIC, tmp_path, changes="1 change: 1 info\n\nprod:\n  helm cert-manager.values.yaml: info")
    assert "'gpu-tier1-g5-spot'" in code and "'rootVolume': True" in code  # names and fields kept as given
    # the overlay is one NodeOverlayDiscourage writes as it is: its call, checked, round-trips too (1 of 5 objects)
    assert ("    NodeOverlayDiscourage(\n        chart, 'NodeOverlay-g5-discourage-12xl',\n        name='g5-discourage-12xl',"
            "\n        weight=10,\n        instance_types=('g5.12xlarge',),\n"
            "        price_adjustment=PriceAdjustment.parse('+30%'),\n    )") in code
    assert code.count("ImportedObject(\n") == 4
    assert "version=KARPENTER_CHART_VERSION" in code and "version=GPU_OPERATOR_VERSION" in code  # no literal
    assert "cert-manager" not in code.split('"""', 2)[2].split("# Not imported")[0]
    err = capsys.readouterr().err
    assert "not imported: prod/helm/cert-manager.values.yaml" in err


def test_a_flat_file_is_one_environment_named_after_it(tmp_path):
    source = tmp_path / "nodepools.yaml"
    shutil.copy(SEEDS / "000_s02_nodepools.yaml", source)
    code = _round_trip(source, tmp_path, compare="nodepools")
    assert "cdk8s.App(outdir='nodepools')" in code


HOSTILE = [
    '"""', "'''", "\\", "\\N{BULLET}", "{x}", "# not a comment", "\nimport os\n", "a\rb\x00c\u2028d", "é漢字🙂",
    'x" + __import__("os").system("id") + "', "${HOME}", "~/ and ~1",
]


def test_generated_code_is_valid_python_whatever_the_strings(tmp_path):
    annotations = {f"example.com/k{i}": text for i, text in enumerate(HOSTILE)}
    import yaml

    doc = {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass",
           "metadata": {"name": "hostile", "annotations": annotations},
           "spec": {"role": "R", "amiSelectorTerms": [{"alias": "al2023@v20251103"}],
                    "subnetSelectorTerms": [{"tags": {"k": "v"}}], "securityGroupSelectorTerms": [{"tags": {"k": "v"}}],
                    "userData": "\n".join(HOSTILE) * 3, "tags": {"a/b~c": "\"'\\"}}}
    source = tmp_path / "in"
    source.mkdir()
    (source / "hostile.yaml").write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    code = _round_trip(source, tmp_path, compare="in")  # the synthesized strings are the ones read: no changes
    tree = ast.parse(code)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    assert {c.func.id for c in calls} <= {"ImportedObject", "environment_in"}  # no input text became a call


@pytest.mark.parametrize("value", [0, -1, 2**70, 1.5, float("inf"), float("-inf"), True, None, "", [], {},
                                   {"a": [1, {"b": None}]}, "x" * 500, "line\n" * 40])
def test_literal_reads_back_as_the_value(value):
    assert eval(literal(value, 1)) == value  # the test of the literal itself


def test_literal_nan():
    text = literal(float("nan"))
    assert text == 'float("nan")'


def test_nothing_to_import_is_kg770(tmp_path, capsys):
    (tmp_path / "values.yaml").write_text("a: 1\n", encoding="utf-8")
    assert main(["import", str(tmp_path), "--out", str(tmp_path / "app.py")]) == 2
    err = capsys.readouterr().err
    assert "[KG770]" in err and err.count("\n") == 1
    assert not (tmp_path / "app.py").exists()


def test_an_existing_output_file_is_never_replaced(tmp_path, capsys):
    out = tmp_path / "app.py"
    out.write_text("mine\n", encoding="utf-8")
    assert main(["import", str(SEEDS / "000_s08_nodepool.yaml"), "--out", str(out)]) == 2
    assert "[KG771]" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == "mine\n"


def test_malformed_input_is_refused_with_the_readers_code(tmp_path, capsys):
    (tmp_path / "bad.yaml").write_text("- a list\n", encoding="utf-8")
    assert main(["import", str(tmp_path), "--out", "-"]) == 2
    assert "[KG310]" in capsys.readouterr().err


def test_imported_object_without_identity_is_kg230(chart):
    from karpenter_gpu import ImportedObject, KarpenterGpuError

    with pytest.raises(KarpenterGpuError) as err:
        ImportedObject(chart, "X", manifest={"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {}})
    assert err.value.code == "KG230" and "metadata.name" in str(err.value)


def test_imported_object_takes_part_in_the_duplicate_check(chart):
    from karpenter_gpu import ImportedObject, KarpenterGpuError

    manifest = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "a"}, "spec": {}}
    ImportedObject(chart, "A", manifest=manifest)
    with pytest.raises(KarpenterGpuError) as err:
        ImportedObject(chart, "B", manifest=manifest)
    assert err.value.code == "KG171"


def test_a_live_object_imports_its_desired_state_only(tmp_path):
    # kubectl get -o yaml: uid, resourceVersion, status and the controller's hash annotations are not desired state
    code = _round_trip(PUBLIC.parent / "live", tmp_path, compare="live",
                       changes="1 change: 1 info\n\nlive:\n  NodePool gpu-live: info\n"
                               "    - metadata.annotations changed: karpenter.sh/nodepool-hash removed")
    assert "not imported: status, metadata.uid, metadata.resourceVersion" in code
    assert "0b0e7f7e" not in code and "'status'" not in code and "'kubectl.kubernetes.io/" not in code


def _without_platform(tmp_path: Path, *environments: str) -> Path:
    """A copy of dist/ whose Karpenter values set a setting no prop writes: no environment is one PlatformConfig
    (test_import_platform), so each comes back as construct calls and HelmValues."""
    import yaml

    source = tmp_path / "input"
    for environment in environments or ("dev", "fleet", "prod", "staging"):
        shutil.copytree(ROOT / "dist" / environment, source / environment)
        values = source / environment / "helm" / "karpenter.values.yaml"
        data = yaml.safe_load(values.read_text(encoding="utf-8"))
        data["settings"]["batchMaxDuration"] = "20s"
        values.write_text(yaml.safe_dump(data), encoding="utf-8")
    return source


def test_the_four_environments_of_dist_round_trip_with_every_values_file(tmp_path):
    # 61 objects of every kind the constructs write (pools, node classes, overlays, monitors, rules, workloads) and
    # the Karpenter, GPU Operator and Neuron values files, as construct calls and HelmValues
    code = _round_trip(_without_platform(tmp_path), tmp_path)
    assert code.count("def environment_") == 4 and "version=NEURON_VERSION" in code
    assert "return PlatformConfig(" not in code and "    PlatformConfig,\n" not in code
    assert code.count("    # not one PlatformConfig (helm/karpenter.values.yaml: settings.batchMaxDuration: the platform "
                      "writes it otherwise): the construct calls\n") == 4


def _dist_objects(environment: str) -> list[dict]:
    import yaml

    return [yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted((ROOT / "dist" / environment).glob("*.yaml"))]


def _adopt(objects: list[dict]):
    from karpenter_gpu.importer.adopt import adopt
    from karpenter_gpu.importer.fit import Checker

    return adopt(objects, [f"Object{i}" for i in range(len(objects))], Checker())


def test_objects_a_construct_writes_as_they_are_become_its_calls(tmp_path):
    # every environment of dist/: 8 of 8 EC2NodeClasses (capacity reservations too), the Auto Mode NodeClass, 16
    # of 16 NodePools (the Auto Mode one with eks.amazonaws.com keys) and 9 of 9 NodeOverlays are written by
    # construct calls (a call may write several: test_import_constructs); the round trip
    # (synth of the calls, diff --fail-on drift) says no change
    counts = {"EC2NodeClass": [0, 0], "NodeClass": [0, 0], "NodePool": [0, 0], "NodeOverlay": [0, 0]}
    for environment in ("dev", "fleet", "prod", "staging"):
        objects = _dist_objects(environment)
        adopted = _adopt(objects)
        for i, o in enumerate(objects):
            if o["kind"] in counts:
                counts[o["kind"]][0] += i in adopted.calls or i in adopted.covered
                counts[o["kind"]][1] += 1
    assert counts == {"EC2NodeClass": [8, 8], "NodeClass": [1, 1], "NodePool": [16, 16], "NodeOverlay": [9, 9]}
    app = tmp_path / "dev_app.py"
    assert main(["import", str(_without_platform(tmp_path / "dev", "dev") / "dev"), "--out", str(app)]) == 0
    code = app.read_text(encoding="utf-8")
    assert "node_class_gpu_inference = GpuNodeClass(" in code
    assert "GpuInferencePool(\n        chart, 'NodePool-gpu-inference', node_class=node_class_gpu_inference," in code
    assert "ImportedObject(\n        chart, 'NodePool-" not in code and "ImportedObject(\n        chart, 'EC2" not in code
    fleet = tmp_path / "fleet_app.py"
    assert main(["import", str(_without_platform(tmp_path / "fleet", "fleet") / "fleet"), "--out", str(fleet)]) == 0
    code = fleet.read_text(encoding="utf-8")
    assert "node_class_gpu_auto = AutoModeNodeClass(" in code and "node_class=node_class_gpu_auto," in code


def test_a_field_the_construct_does_not_write_keeps_the_object_as_given_and_is_named():
    objects = _dist_objects("dev")
    pool = next(i for i, o in enumerate(objects) if o["kind"] == "NodePool")
    node_class = next(i for i, o in enumerate(objects) if o["kind"] == "EC2NodeClass")
    objects[pool]["spec"]["template"]["metadata"]["annotations"] = {"example.com/x": "y"}
    adopted = _adopt(objects)
    assert node_class in adopted.calls and pool not in adopted.calls
    assert adopted.unfit[pool].field == "spec.template.metadata.annotations"
    assert "would not keep it as it is (spec.template.metadata.annotations" in adopted.unfit[pool].reason()
    del objects[node_class]  # a pool whose node class is kept as given says so, and its own field first
    adopted = _adopt(objects)
    unfit = adopted.unfit[pool - (node_class < pool)]
    assert unfit.field == "spec.template.metadata.annotations" and "not a GpuNodeClass construct" in unfit.detail


def test_a_pool_on_a_node_class_kept_as_given_would_fit_once_it_is_one():
    objects = [o for o in _dist_objects("dev") if o["kind"] == "NodePool"]
    unfit = _adopt(objects).unfit[0]
    assert unfit.field == "spec.template.spec.nodeClassRef" and "would be written as it is" in unfit.detail


def test_the_generated_names_are_the_packages_exports():
    import karpenter_gpu
    from karpenter_gpu.importer.fit import CALLABLE

    assert all(getattr(karpenter_gpu, name) is value for name, value in CALLABLE.items())


def test_props_source_rebuilds_the_values():
    from karpenter_gpu import (
        Budget,
        CapacityReservationTerm,
        CapacityType,
        Duration,
        GpuMemory,
        Operator,
        Quantity,
        Requirement,
        Taint,
    )
    from karpenter_gpu.importer.fit import CALLABLE
    from karpenter_gpu.importer.pysource import source

    values = [Duration.parse("1h30m"), Duration.never(), Quantity("200Gi"), GpuMemory.mib(22888), CapacityType.SPOT,
              Requirement("example.com/k", Operator.IN, ["a", "'\""], min_values=1), Requirement.exists("x.io/y"),
              Taint.gpu(), Taint("k", None, "NoExecute"),
              Budget(nodes="10%", reasons=("Drifted",), schedule="0 9 * * *", duration=Duration.hours(8), note="n\n'"),
              (Taint.gpu(),), (), CapacityReservationTerm(tags={"purpose": "ml"}, owner_id="123456789012"),
              CapacityReservationTerm(id="cr-0123456789abcdef0")]
    for value in values:
        names: set[str] = set()
        text = source(value, names)
        assert eval(text, {n: CALLABLE[n] for n in names}) == value, text


def test_opinionated_writes_the_constructs_defaults_and_prints_what_they_change(tmp_path, capsys):
    app, opinions = tmp_path / "as_is.py", tmp_path / "opinions.py"
    assert main(["import", str(PUBLIC), "--out", str(app), "--opinionated", str(opinions)]) == 0
    code = opinions.read_text(encoding="utf-8")
    ast.parse(code)
    lint = subprocess.run([str(RUFF), "check", "--no-cache", str(opinions)], capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout
    # only what no default can know is kept: the pool's name, node class, GPU limit and capacity type
    assert ("GpuInferencePool(\n        chart, 'NodePool-gpu-tier1-g5-spot', node_class=node_class_gpu_al2023,\n"
            "        name='gpu-tier1-g5-spot',\n        gpu_limit=64,\n        capacity_types=(CapacityType.SPOT,),\n"
            "    )") in code
    out = capsys.readouterr().out
    assert out.startswith("8 changes: 4 replaces nodes (drift)"), out
    assert "NodePool gpu-tier1-g5-spot: replaces nodes (drift)" in out
    assert "spec.template.spec.expireAfter changed: Never → 720h" in out  # the cost of one opinion, named
    assert "EC2NodeClass gpu-al2023: replaces nodes (drift)" in out
    assert app.exists() and "ImportedObject(" in app.read_text(encoding="utf-8")  # the as-is app is unchanged


def test_opinionated_needs_a_path_input_and_a_new_file(tmp_path, capsys):
    assert main(["import", "-", "--out", str(tmp_path / "a.py"), "--opinionated", str(tmp_path / "o.py")]) == 2
    err = capsys.readouterr().err
    assert "[KG234]" in err and err.count("\n") == 1
    taken = tmp_path / "o.py"
    taken.write_text("mine\n", encoding="utf-8")
    assert main(["import", str(PUBLIC), "--out", str(tmp_path / "a.py"), "--opinionated", str(taken)]) == 2
    assert "[KG771]" in capsys.readouterr().err
    assert taken.read_text(encoding="utf-8") == "mine\n" and not (tmp_path / "a.py").exists()
    assert main(["import", str(PUBLIC), "--out", str(taken), "--opinionated", str(taken)]) == 2
    assert "[KG234]" in capsys.readouterr().err


def test_an_opinionated_app_that_does_not_synthesize_is_a_note_and_the_files_stay(tmp_path, capsys, monkeypatch):
    from karpenter_gpu import KarpenterGpuError
    from karpenter_gpu.cli import import_cmd

    def refuse(apps, folder):
        raise KarpenterGpuError("KG171", prop="id", value="x", allowed="one object per name", fix="rename one")

    monkeypatch.setattr(import_cmd, "_write_objects", refuse)
    app, opinions = tmp_path / "a.py", tmp_path / "o.py"
    assert main(["import", str(PUBLIC), "--out", str(app), "--opinionated", str(opinions)]) == 0
    captured = capsys.readouterr()
    assert "[KG235]" in captured.err and "[KG171]" in captured.err and captured.out == ""
    assert app.exists() and opinions.exists()


def test_an_overlay_the_discourage_construct_does_not_write_stays_as_given():
    overlay = {"apiVersion": "karpenter.sh/v1alpha1", "kind": "NodeOverlay", "metadata": {"name": "o"},
               "spec": {"weight": 10, "priceAdjustment": "+30%",
                        "requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In",
                                          "values": ["g5.12xlarge"]}]}}
    assert 0 in _adopt([overlay]).calls
    with_capacity = {**overlay, "spec": {**overlay["spec"], "capacity": {"example.com/x": "1"}}}
    assert _adopt([with_capacity]).unfit[0].field == "spec"
    by_family = {**overlay, "spec": {**overlay["spec"], "requirements": [
        {"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g5"]}]}}
    assert _adopt([by_family]).unfit[0].field == "spec.requirements"


def test_node_classes_of_two_kinds_with_one_name_are_told_apart():
    # the EC2NodeClass and the Auto Mode NodeClass both named gpu-inference: the Auto Mode pool is built on the
    # Auto Mode class (a name-keyed lookup would put it on the EC2NodeClass, and the check would refuse it)
    objects = _dist_objects("fleet")
    auto = next(o for o in objects if o["kind"] == "NodeClass")
    auto["metadata"]["name"] = "gpu-inference"
    pool = next(i for i, o in enumerate(objects) if o["metadata"]["name"] == "auto-inference")
    objects[pool]["spec"]["template"]["spec"]["nodeClassRef"]["name"] = "gpu-inference"
    adopted = _adopt(objects)
    calls = {objects[i]["kind"]: c for i, c in adopted.calls.items() if objects[i]["kind"] != "NodePool"}
    assert calls["NodeClass"].variable != calls["EC2NodeClass"].variable
    assert f"node_class={calls['NodeClass'].variable}," in adopted.calls[pool].text


def test_opinionated_auto_mode_pools_show_the_21_day_expiry(tmp_path, capsys):
    opinions = tmp_path / "o.py"
    assert main(["import", str(ROOT / "dist" / "fleet"), "--out", str(tmp_path / "a.py"),
                 "--opinionated", str(opinions)]) == 0
    assert "node_class_gpu_auto = AutoModeNodeClass(" in opinions.read_text(encoding="utf-8")
    out = capsys.readouterr().out
    assert "NodePool auto-inference: replaces nodes (drift)\n    - spec.template.spec.expireAfter changed: 336h → 504h" \
        in out


def _mutated(kind: str, path: tuple, value):
    objects = _dist_objects("prod") if kind == "reserved" else _dist_objects("dev")
    target = next(o for o in objects if o["kind"] == ("EC2NodeClass" if kind == "reserved" else kind)
                  and (kind != "reserved" or "capacityReservationSelectorTerms" in o["spec"]))
    cur = target
    for key in path[:-1]:
        cur = cur[key]
    cur[path[-1]] = value
    return [o for o in objects if o["kind"] in ("NodePool", "EC2NodeClass", "NodeOverlay")], target


@pytest.mark.parametrize(("kind", "path", "value"), [
    ("NodePool", ("spec", "template"), []),
    ("NodePool", ("metadata", "annotations"), 5),
    ("NodePool", ("spec", "disruption"), ["x"]),
    ("NodePool", ("spec", "template", "spec", "taints"), "nvidia.com/gpu"),
    ("NodePool", ("spec", "disruption", "budgets"), [{"nodes": None}]),
    ("EC2NodeClass", ("spec", "blockDeviceMappings"), {"a": 1}),
    ("reserved", ("spec", "capacityReservationSelectorTerms"), ["cr-1"]),
    ("NodeOverlay", ("spec", "requirements"), "g5.12xlarge"),
])
def test_objects_of_other_shapes_stay_as_given_without_a_crash(kind, path, value):
    # shapes the API server would refuse (synth says so later): import keeps them as given, never a traceback
    from karpenter_gpu.importer.fit import Checker
    from karpenter_gpu.importer.opinions import opinions

    objects, target = _mutated(kind, path, value)
    index = next(i for i, o in enumerate(objects) if o is target)
    ids = [f"Object{i}" for i in range(len(objects))]
    assert index in _adopt(objects).unfit
    opinions(objects, ids, Checker())  # the opinions keep only what no default knows: no crash there either
