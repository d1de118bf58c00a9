"""An EKS Auto Mode-only platform: PlatformConfig without ``node_class=`` / ``karpenter=`` (EKS runs Karpenter) emits
no Karpenter values, no Karpenter ServiceMonitor and no alerts on Karpenter's metrics; a platform with a pool on an
EC2NodeClass still needs both (KG231, KG232)."""

from __future__ import annotations

import pytest
import yaml

from karpenter_gpu import (AmiAlias, AutoModeNodeClassProps, Duration, GpuInferencePoolProps, GpuMonitoringProps,
                           GpuTrainingPoolProps, KarpenterControllerValuesProps, KarpenterGpuError, NodeClassConfig,
                           PlatformConfig, synth)

AUTO = AutoModeNodeClassProps(name="gpu-auto", role="AmazonEKSAutoNodeRole",
                              subnet_tags={"kubernetes.io/role/internal-elb": "1"},
                              security_group_tags={"aws:eks:cluster-name": "ml"})
NODE_CLASS = NodeClassConfig(ami=AmiAlias.al2023("v20251103"), role="KarpenterNodeRole-ml", cluster_name="ml")


def _auto_only(**extra) -> PlatformConfig:
    return PlatformConfig(environment="auto", auto_mode_node_class=AUTO,
                          inference=(GpuInferencePoolProps(name="serve", gpu_limit=8),),
                          training=(GpuTrainingPoolProps(name="train", gpu_limit=16, expire_after=Duration.days(14)),),
                          pool_node_classes={"serve": "gpu-auto", "train": "gpu-auto"}, **extra)


def _synth(tmp_path, config: PlatformConfig) -> dict[str, str]:
    synth([config], tmp_path / "out")
    env = tmp_path / "out" / config.environment
    return {p.relative_to(env).as_posix(): p.read_text(encoding="utf-8") for p in env.rglob("*") if p.is_file()}


def _alerts(files: dict[str, str]) -> list[str]:
    rule = yaml.safe_load(files["PrometheusRule.karpenter-gpu-alerts.k8s.yaml"])
    return [r["alert"] for g in rule["spec"]["groups"] for r in g["rules"]]


def test_an_auto_mode_only_platform_emits_nothing_for_a_self_managed_karpenter(tmp_path):
    files = _synth(tmp_path, _auto_only())
    assert not any(name.startswith("helm/") for name in files)  # no karpenter.values.yaml (nor GPU Operator)
    assert not any(name.startswith("ServiceMonitor.") for name in files)
    assert _alerts(files) == ["LowGPUUtilization"]
    assert not any(name.startswith("EC2NodeClass.") for name in files)


def test_settings_given_explicitly_are_kept(tmp_path):
    files = _synth(tmp_path, _auto_only(karpenter=KarpenterControllerValuesProps(cluster_name="ml"),
                                        monitoring=GpuMonitoringProps(karpenter_service_monitor=True)))
    assert "helm/karpenter.values.yaml" in files
    assert "ServiceMonitor.karpenter.k8s.yaml" in files
    assert "KarpenterProvisioningFailed" in _alerts(files)


def test_a_pool_on_an_ec2_node_class_needs_node_class_kg231():
    with pytest.raises(KarpenterGpuError) as err:
        PlatformConfig(environment="mixed", auto_mode_node_class=AUTO,
                       inference=(GpuInferencePoolProps(name="serve", gpu_limit=8),),
                       training=(GpuTrainingPoolProps(name="train", gpu_limit=16, expire_after=Duration.days(14)),),
                       pool_node_classes={"serve": "gpu-auto"},
                       karpenter=KarpenterControllerValuesProps(cluster_name="ml"))
    assert err.value.code == "KG231" and "['train']" in str(err.value) and "node_class=" in err.value.fix


def test_a_pool_on_an_ec2_node_class_needs_karpenter_kg232():
    with pytest.raises(KarpenterGpuError) as err:
        PlatformConfig(environment="ec2", node_class=NODE_CLASS,
                       inference=(GpuInferencePoolProps(name="serve", gpu_limit=8),))
    assert err.value.code == "KG232" and "karpenter=" in err.value.fix


def test_monitoring_without_karpenter_alerts_keeps_the_others(tmp_path):
    config = PlatformConfig(environment="ec2", node_class=NODE_CLASS,
                            inference=(GpuInferencePoolProps(name="serve", gpu_limit=8),),
                            karpenter=KarpenterControllerValuesProps(cluster_name="ml", interruption_queue="ml"),
                            monitoring=GpuMonitoringProps(karpenter_alerts=False))
    files = _synth(tmp_path, config)
    assert _alerts(files) == ["LowGPUUtilization"]
    assert "ServiceMonitor.karpenter.k8s.yaml" in files  # only the alerts were turned off
