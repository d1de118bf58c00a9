"""HelmValues: values files beside the manifests, and what a plain App.synth() says about them (KG809)."""

from __future__ import annotations

import cdk8s

import karpenter_gpu
from karpenter_gpu import GpuPlatform
from karpenter_gpu.addons.helm_values import helm_values_in
from stacks import dev


def test_plain_app_synth_says_once_how_to_get_the_helm_values(tmp_path, capsys):
    app = cdk8s.App(outdir=str(tmp_path / "out"))
    GpuPlatform(app, props=dev.CONFIG)
    app.synth()
    err = capsys.readouterr().err
    assert err.count("[KG809]") == 1 and len(err.splitlines()) == 1
    assert "gpu-operator.values.yaml, karpenter.values.yaml" in err and "karpenter_gpu.synth([app]" in err
    assert not (tmp_path / "out" / "helm").exists()  # it says so: the App's own synth writes no values
    app.synth()
    app.synth_yaml()
    assert capsys.readouterr().err == ""  # once per App


def test_synth_yaml_says_it_too(tmp_path, capsys):
    app = cdk8s.App(outdir=str(tmp_path / "out"))
    GpuPlatform(app, props=dev.CONFIG)
    app.synth_yaml()
    assert "[KG809]" in capsys.readouterr().err


def test_chart_synth_in_tests_and_the_pipeline_say_nothing(tmp_path, capsys):
    app = cdk8s.App(outdir=str(tmp_path / "dev"))
    platform = GpuPlatform(app, props=dev.CONFIG)
    cdk8s.Testing.synth(platform)
    platform.to_json()
    karpenter_gpu.synth([app], tmp_path / "out")  # writes the values itself
    assert capsys.readouterr().err == ""
    assert sorted(p.name for p in (tmp_path / "out" / "dev" / "helm").iterdir()) == sorted(
        v.file_name for v in helm_values_in(app))


def test_an_app_without_helm_values_says_nothing(tmp_path, capsys):
    app = cdk8s.App(outdir=str(tmp_path / "out"))
    cdk8s.Chart(app, "empty")
    app.synth()
    assert capsys.readouterr().err == ""
