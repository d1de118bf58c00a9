"""The two layout traps, the generated bindings, and the pinned import list."""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml

from tests.conftest import ROOT


def test_constructs_folder_is_not_a_package():
    # A constructs/__init__.py would shadow the CDK `constructs` library whenever the root is on sys.path.
    assert not (ROOT / "constructs" / "__init__.py").exists()


def test_import_constructs_from_repository_root_is_the_library():
    out = subprocess.run([sys.executable, "-c", "import constructs, cdk8s; print(constructs.__file__); "
                          "print(constructs.Construct.__module__)"],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    assert "site-packages" in out[0] and not out[0].startswith(str(ROOT / "constructs"))
    assert out[1] == "constructs"


def test_nothing_under_constructs_is_named_like_the_library():
    # jsii's extend_path merges constructs/ into the library's path: a `_jsii` here would clash.
    assert not list((ROOT / "constructs").rglob("_jsii*"))


@pytest.mark.parametrize("module, cls, api_version, kind", [
    ("karpenter_gpu.crds.nodepool.sh.karpenter", "NodePool", "karpenter.sh/v1", "NodePool"),
    ("karpenter_gpu.crds.nodeoverlay.sh.karpenter", "NodeOverlay", "karpenter.sh/v1alpha1", "NodeOverlay"),
    ("karpenter_gpu.crds.ec2nodeclass.aws.k8s.karpenter", "Ec2NodeClass", "karpenter.k8s.aws/v1", "EC2NodeClass"),
    ("karpenter_gpu.crds.servicemonitor.com.coreos.monitoring", "ServiceMonitor", "monitoring.coreos.com/v1",
     "ServiceMonitor"),
    ("karpenter_gpu.crds.prometheusrule.com.coreos.monitoring", "PrometheusRule", "monitoring.coreos.com/v1",
     "PrometheusRule"),
])
def test_every_generated_binding_imports(module, cls, api_version, kind):
    # NodePool/NodeOverlay and ServiceMonitor/PrometheusRule share an API group: all must survive the import.
    binding = getattr(__import__(module, fromlist=[cls]), cls)
    assert (binding.GVK.api_version, binding.GVK.kind) == (api_version, kind)


def test_assemblies_are_committed_not_ignored():
    tgz = sorted(p.relative_to(ROOT) for p in (ROOT / "imports").rglob("*.jsii.tgz"))
    assert len(tgz) == 5
    ignored = subprocess.run(["git", "check-ignore", *map(str, tgz)], cwd=ROOT, capture_output=True, text=True)
    assert ignored.stdout == ""


def test_cdk8s_yaml_pins_v1_14_1_crds_with_distinct_module_names():
    """cdk8s.yaml imports the packaged CRDs, whose pinned upstream URLs are in SOURCES.json."""
    from karpenter_gpu.apiserver.crd_source import pinned_sources

    config = yaml.safe_load((ROOT / "cdk8s.yaml").read_text())
    specs = dict(s.split(":=", 1) for s in config["imports"])
    packaged = "constructs/karpenter_gpu/data/crds/"
    assert specs == {"nodepool": packaged + "karpenter.sh_nodepools.yaml",
                     "nodeoverlay": packaged + "karpenter.sh_nodeoverlays.yaml",
                     "ec2nodeclass": packaged + "karpenter.k8s.aws_ec2nodeclasses.yaml",
                     "servicemonitor": packaged + "monitoring.coreos.com_servicemonitors.yaml",
                     "prometheusrule": packaged + "monitoring.coreos.com_prometheusrules.yaml"}
    urls = {entry["file"]: entry["url"] for entry in pinned_sources()}
    base = "https://raw.githubusercontent.com/aws/karpenter-provider-aws/v1.14.1/pkg/apis/crds/"
    prom = ("https://raw.githubusercontent.com/prometheus-operator/prometheus-operator/v0.93.0/"
            "example/prometheus-operator-crd/")
    assert urls["karpenter.sh_nodepools.yaml"] == base + "karpenter.sh_nodepools.yaml"
    assert urls["monitoring.coreos.com_prometheusrules.yaml"] == prom + "monitoring.coreos.com_prometheusrules.yaml"
    assert config["language"] == "python"
