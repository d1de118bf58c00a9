"""GitOps delivery (opt-in): Argo CD Applications, Flux HelmRepositories and HelmReleases for the charts an
environment renders values for, at the versions its values constructs pin, with the values inline; the GPU Operator
header's relabel step becomes a documented one-off."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from karpenter_gpu import ArgoCdApplicationsProps, FluxHelmReleasesProps, KarpenterGpuError, synth
from karpenter_gpu.addons.chart_delivery import chart_source
from karpenter_gpu.upstream import GPU_OPERATOR_VERSION, KARPENTER_LINES
from stacks import fleet, prod

#: The Karpenter chart prod installs: its line's (prod targets the v1.9 LTS line).
PROD_CHART = KARPENTER_LINES[prod.CONFIG.karpenter_version].chart_version


def _synth(tmp_path: Path, config) -> Path:
    synth([config], tmp_path / "out")
    return tmp_path / "out" / config.environment


def _load(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def test_argo_cd_applications_pin_the_charts_and_carry_the_values(tmp_path):
    env = _synth(tmp_path, prod.CONFIG.model_copy(update={"gitops": ArgoCdApplicationsProps()}))
    karpenter, operator = _load(env / "Application.karpenter.k8s.yaml"), _load(env / "Application.gpu-operator.k8s.yaml")
    assert karpenter["apiVersion"] == "argoproj.io/v1alpha1" and karpenter["metadata"]["namespace"] == "argocd"
    assert karpenter["spec"]["source"] | {"helm": None} == {
        "repoURL": "public.ecr.aws/karpenter", "chart": "karpenter", "targetRevision": PROD_CHART,
        "helm": None}
    assert karpenter["spec"]["source"]["helm"]["valuesObject"] == _load(env / "helm" / "karpenter.values.yaml")
    assert operator["spec"]["source"]["repoURL"] == "https://helm.ngc.nvidia.com/nvidia"
    assert operator["spec"]["source"]["targetRevision"] == GPU_OPERATOR_VERSION
    assert operator["spec"]["source"]["helm"]["valuesObject"] == _load(env / "helm" / "gpu-operator.values.yaml")
    assert operator["spec"]["destination"]["namespace"] == "gpu-operator"
    assert operator["spec"]["syncPolicy"]["automated"] == {"prune": False, "selfHeal": True}


def test_flux_helm_releases_and_repositories(tmp_path):
    env = _synth(tmp_path, prod.CONFIG.model_copy(update={"gitops": FluxHelmReleasesProps(interval="5m")}))
    oci = _load(env / "HelmRepository.karpenter.k8s.yaml")
    assert oci["spec"] == {"interval": "5m", "url": "oci://public.ecr.aws/karpenter", "type": "oci"}
    assert _load(env / "HelmRepository.nvidia.k8s.yaml")["spec"]["url"] == "https://helm.ngc.nvidia.com/nvidia"
    release = _load(env / "HelmRelease.karpenter.k8s.yaml")
    assert release["apiVersion"] == "helm.toolkit.fluxcd.io/v2"
    assert release["spec"]["chart"]["spec"] == {
        "chart": "karpenter", "version": PROD_CHART,
        "sourceRef": {"kind": "HelmRepository", "name": "karpenter", "namespace": "flux-system"}}
    assert release["spec"]["values"] == _load(env / "helm" / "karpenter.values.yaml")
    assert _load(env / "HelmRelease.gpu-operator.k8s.yaml")["spec"]["chart"]["spec"]["version"] == GPU_OPERATOR_VERSION


def test_off_by_default(tmp_path):
    env = _synth(tmp_path, prod.CONFIG)
    assert not [p for p in env.iterdir() if p.name.startswith(("Application.", "HelmRe"))]


def test_the_relabel_step_is_a_documented_one_off_under_gitops(tmp_path):
    plain = (_synth(tmp_path / "a", fleet.CONFIG) / "helm" / "gpu-operator.values.yaml").read_text(encoding="utf-8")
    assert "before upgrading this release run:" in plain
    gitops = fleet.CONFIG.model_copy(update={"gitops": FluxHelmReleasesProps()})
    text = (_synth(tmp_path / "b", gitops) / "helm" / "gpu-operator.values.yaml").read_text(encoding="utf-8")
    assert "before upgrading this release run:" not in text
    assert "one-off (no GitOps sync runs it" in text and "kubectl label nodes" in text


def test_a_chart_without_a_known_repository_is_kg233():
    assert chart_source("oci://public.ecr.aws/neuron/neuron-helm-chart").repository == "oci://public.ecr.aws/neuron"
    with pytest.raises(KarpenterGpuError) as err:
        chart_source("somewhere/chart")
    assert err.value.code == "KG233"


@pytest.mark.parametrize("gitops", [ArgoCdApplicationsProps(), FluxHelmReleasesProps()], ids=["argo-cd", "flux"])
def test_the_gitops_objects_are_schema_checked_against_their_packaged_crds(tmp_path, gitops):
    from karpenter_gpu import validate_dir
    from karpenter_gpu.apiserver.conformance import SCHEMA_VIOLATION, UNKNOWN_KIND, assess
    from karpenter_gpu.apiserver.crd_source import PACKAGED_DIR
    from karpenter_gpu.apiserver.crds import crds_from

    env = _synth(tmp_path, prod.CONFIG.model_copy(update={"gitops": gitops}))
    files = sorted(p for p in env.iterdir() if p.name.startswith(("Application.", "HelmRe")))
    assert len(files) == (2 if isinstance(gitops, ArgoCdApplicationsProps) else 4)
    gitops_kinds = {"Application", "HelmRepository", "HelmRelease"}
    report = validate_dir(env, PACKAGED_DIR)
    assert not [f for f in report.findings if f.kind in gitops_kinds and f.code == UNKNOWN_KIND]
    crds = crds_from(PACKAGED_DIR)
    for path in files:  # a field of the wrong type is refused: the schema is the upstream CRD's, not a guess
        manifest = _load(path)
        manifest["spec"]["interval" if manifest["kind"] != "Application" else "project"] = 5
        found, blocking = assess(manifest, crds, path.name)
        assert blocking and any(f.code == SCHEMA_VIOLATION for f in found), (path.name, found)
