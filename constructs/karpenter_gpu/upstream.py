"""What the package targets upstream, in one place: the Karpenter release, its Helm chart, its controller feature
gates and their defaults, and the other charts and CRD sources the output is written for.

Every module that names a version, a chart or a gate reads it from here (tests/test_upstream.py keeps it so), so a
second Karpenter line (v1.9 LTS beside v1.14 LTS) or EKS Auto Mode becomes a change of this module's tables, not a
search through the package. Docstrings may still cite the upstream source of a rule "at v1.14.1": that names where
the rule was read, not a setting.

Pure data: imports nothing of the package, so every layer may use it.
"""

from __future__ import annotations

from enum import StrEnum

#: kubernetes-sigs/karpenter and aws/karpenter-provider-aws release the package is written and checked against.
KARPENTER_VERSION = "1.14.1"
#: The same release as a git tag (CRD sources, citations).
KARPENTER_TAG = f"v{KARPENTER_VERSION}"
#: The Karpenter controller chart; its chart version equals the release.
KARPENTER_CHART = "oci://public.ecr.aws/karpenter/karpenter"
KARPENTER_CHART_VERSION = KARPENTER_VERSION

#: NVIDIA GPU Operator chart (helm repo nvidia, https://helm.ngc.nvidia.com/nvidia).
GPU_OPERATOR_CHART = "nvidia/gpu-operator"
GPU_OPERATOR_VERSION = "v26.7.0"

#: prometheus-operator release whose ServiceMonitor and PrometheusRule CRDs are packaged.
PROMETHEUS_OPERATOR_TAG = "v0.93.0"


class FeatureGate(StrEnum):
    """Helm ``settings.featureGates.<name>`` of the Karpenter chart (FACTS §7), at :data:`KARPENTER_VERSION`."""

    RESERVED_CAPACITY = "reservedCapacity"  # Beta, on by default since v1.6
    SPOT_TO_SPOT_CONSOLIDATION = "spotToSpotConsolidation"
    NODE_OVERLAY = "nodeOverlay"  # Alpha, off by default
    STATIC_CAPACITY = "staticCapacity"  # Alpha, off by default
    NODE_REPAIR = "nodeRepair"
    CAPACITY_BUFFER = "capacityBuffer"


#: The chart's defaults (FACTS §7): only reservedCapacity is on.
DEFAULT_ON = frozenset({FeatureGate.RESERVED_CAPACITY})

__all__ = ["DEFAULT_ON", "GPU_OPERATOR_CHART", "GPU_OPERATOR_VERSION", "KARPENTER_CHART", "KARPENTER_CHART_VERSION",
           "KARPENTER_TAG", "KARPENTER_VERSION", "PROMETHEUS_OPERATOR_TAG", "FeatureGate"]
