"""``karpenter-gpu import``: an environment whose construct calls and values files one ``PlatformConfig`` writes
exactly (checked by synthesizing it) comes back as that PlatformConfig; any other stays construct calls, the
comment naming the first object or values file that differs."""

from __future__ import annotations

import copy
import filecmp
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _read(environment: str) -> tuple[list[dict], dict]:
    import yaml

    folder = ROOT / "dist" / environment
    objects = [yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.yaml"))]
    values = {p.name: yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted((folder / "helm").glob("*.yaml"))}
    return objects, values


def _platform(environment: str, objects: list[dict], values: dict):
    from karpenter_gpu.importer.adopt import adopt
    from karpenter_gpu.importer.fit import Checker
    from karpenter_gpu.importer.platform_fit import Platform, check, platform_config

    checker = Checker()
    adopted = adopt(objects, [f"Object{i}" for i in range(len(objects))], checker)
    found = platform_config(environment, objects, values, adopted)
    return found if not isinstance(found, Platform) else (check(found, objects, values, checker) or found)


def _different(left: filecmp.dircmp) -> list[str]:
    out = left.left_only + left.right_only + left.diff_files + left.funny_files
    return out + [f for sub in left.subdirs.values() for f in _different(sub)]


def test_every_environment_of_dist_comes_back_as_one_platform_config_that_synthesizes_dist_byte_for_byte(
        tmp_path, capsys):
    from karpenter_gpu.cli.main import main

    app = tmp_path / "imported_app.py"
    assert main(["import", str(ROOT / "dist"), "--out", str(app)]) == 0
    assert ("61 object(s) (61 written by constructs, the rest as given), 9 values file(s) in 4 environment(s) (dev, "
            "fleet, prod, staging); 4 of them one PlatformConfig each (dev, fleet, prod, staging);") \
        in capsys.readouterr().err
    code = app.read_text(encoding="utf-8")
    assert code.count("    return PlatformConfig(\n") == 4 and "ImportedObject(" not in code and "HelmValues(" not in code
    assert "def apps() -> list[cdk8s.App | PlatformConfig]:" in code
    # what the stacks say and nothing the platform derives: the MIG pool's deploy labels are the GPU Operator's
    assert "            MigPartitionedPoolProps(\n                name='gpu-mig',\n                mig_config='all-1g.10gb'," \
        in code and "nvidia.com/gpu.deploy" not in code
    assert "gpu_operator=GpuOperatorValuesProps(time_slicing_replicas=4)," in code
    assert "pool_node_classes={'research-training': 'gpu-research'}," in code
    for config in ([], ["--isolated"]):
        lint = subprocess.run([str(Path(sys.executable).with_name("ruff")), "check", "--no-cache", *config, str(app)],
                              capture_output=True, text=True)
        assert lint.returncode == 0, lint.stdout
    synth = subprocess.run([sys.executable, "-m", "karpenter_gpu", "synth", "--app", "imported_app:apps", "--out",
                            str(tmp_path / "out")], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert synth.returncode == 0, synth.stderr
    assert _different(filecmp.dircmp(ROOT / "dist", tmp_path / "out", ignore=[])) == []  # every file, byte for byte


@pytest.mark.parametrize("environment", ["dev", "fleet", "prod", "staging"])
def test_each_environment_is_one_platform_config(environment):
    from karpenter_gpu.importer.platform_fit import Platform

    objects, values = _read(environment)
    found = _platform(environment, objects, values)
    assert isinstance(found, Platform), found.reason()
    assert f"environment={environment!r}," in found.text


def test_the_reversed_values_follow_the_files():
    from karpenter_gpu.importer.platform_fit import Platform

    objects, values = _read("dev")
    values["karpenter.values.yaml"]["settings"]["interruptionQueue"] = "another-queue"
    found = _platform("dev", objects, values)
    assert isinstance(found, Platform) and "interruption_queue='another-queue'" in found.text
    values["karpenter.values.yaml"]["controller"]["image"]["tag"] = "1.14.0"  # not what this release pins
    unfit = _platform("dev", objects, values)
    assert unfit.field == "helm/karpenter.values.yaml: controller.image.tag"


def test_node_classes_that_differ_beyond_their_volume_are_no_platform_config():
    objects, values = _read("prod")
    training = next(o for o in objects if o["kind"] == "EC2NodeClass" and o["metadata"]["name"] == "gpu-training")
    training["spec"]["role"] = "another-role"
    unfit = _platform("prod", objects, values)
    assert unfit.field == "EC2NodeClass gpu-training" and "differ from the other node classes'" in unfit.detail


def test_an_object_kept_as_given_or_one_the_platform_does_not_write_is_named():
    objects, values = _read("staging")
    pool = next(o for o in objects if o["kind"] == "NodePool")
    pool["spec"]["template"]["metadata"]["annotations"] = {"example.com/x": "y"}  # no construct writes it
    unfit = _platform("staging", objects, values)
    assert unfit.field == f"NodePool {pool['metadata']['name']}" and unfit.detail == "kept as given (no construct call)"
    objects, values = _read("staging")
    extra = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "not plain\n# x", "namespace": "default"}}
    unfit = _platform("staging", [*objects, copy.deepcopy(extra)], values)
    assert unfit.field == "ConfigMap (name in the manifest)" and unfit.detail == "read but not written"


def test_the_generated_comment_says_why_an_environment_is_no_platform_config(tmp_path):
    import shutil

    from karpenter_gpu.cli.main import main

    source = tmp_path / "dev"
    shutil.copytree(ROOT / "dist" / "dev", source)
    (source / "helm" / "gpu-operator.values.yaml").unlink()
    app = tmp_path / "app.py"
    assert main(["import", str(source), "--out", str(app)]) == 0
    code = app.read_text(encoding="utf-8")
    assert ("    # not one PlatformConfig (helm/gpu-operator.values.yaml: <root>: the platform writes it otherwise): the "
            "construct calls\n") in code
    assert "return PlatformConfig(" not in code


def test_the_names_a_platform_config_uses_are_the_packages_exports():
    import karpenter_gpu
    from karpenter_gpu.importer.platform_fit import NAMES

    assert all(getattr(karpenter_gpu, name) is value for name, value in NAMES.items())


def test_a_platform_with_gpu_capacity_overlays_comes_back_with_them():
    # a config the stacks do not have: dev plus a GPU capacity overlay, synthesized, then imported
    from karpenter_gpu import GpuCapacityOverlayProps, PlatformConfig
    from karpenter_gpu.importer.platform_fit import Platform

    sys.path.insert(0, str(ROOT))
    try:
        import stacks
    finally:
        sys.path.remove(str(ROOT))
    config = PlatformConfig(**{**dict(stacks.dev.CONFIG), "gpu_capacity_overlays": (
        GpuCapacityOverlayProps(name="g6f-gpu-capacity", weight=20),)})
    objects, values = _synthesized(config)
    found = _platform("dev", objects, values)
    assert isinstance(found, Platform), found.reason()
    assert ("gpu_capacity_overlays=(\n            GpuCapacityOverlayProps(\n                name='g6f-gpu-capacity',\n"
            "                weight=20,\n") in found.text


def _synthesized(config) -> tuple[list[dict], dict]:
    import cdk8s
    import yaml

    from karpenter_gpu import GpuPlatform

    platform = GpuPlatform(cdk8s.Testing.app(), props=config)
    objects = list(cdk8s.Testing.synth(platform))
    return objects, {h.file_name: yaml.safe_load(h.to_yaml()) for h in platform.helm_values}


def test_an_environment_on_the_v1_9_line_comes_back_on_it():
    from karpenter_gpu import PlatformConfig
    from karpenter_gpu.importer.platform_fit import Platform

    sys.path.insert(0, str(ROOT))
    try:
        import stacks
    finally:
        sys.path.remove(str(ROOT))
    objects, values = _synthesized(PlatformConfig(**{**dict(stacks.prod.CONFIG), "karpenter_version": "1.9"}))
    assert values["karpenter.values.yaml"]["controller"]["image"]["tag"].startswith("1.9.")
    found = _platform("prod", objects, values)
    assert isinstance(found, Platform), found.reason()
    assert "        karpenter_version='1.9',\n" in found.text
