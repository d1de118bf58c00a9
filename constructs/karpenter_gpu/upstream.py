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

#: The environment's Karpenter chart values file (``helm/<this>`` beside the manifests), which the analyzers read.
KARPENTER_VALUES_FILE = "karpenter.values.yaml"

#: The Karpenter chart's ``settings`` that reach the scheduler or the provider, with the chart's defaults
#: (``charts/karpenter/values.yaml``) and the environment variable ``templates/deployment.yaml`` renders each into
#: (read by sigs.k8s.io/karpenter ``pkg/operator/options`` and aws ``pkg/operator/options`` ``AddFlags``), at
#: :data:`KARPENTER_VERSION`. ``featureGates`` is :class:`FeatureGate` and :data:`DEFAULT_ON` (``FEATURE_GATES``).
CHART_SETTINGS: dict[str, tuple[object, str]] = {
    "batchMaxDuration": ("10s", "BATCH_MAX_DURATION"),
    "batchIdleDuration": ("1s", "BATCH_IDLE_DURATION"),
    "preferencePolicy": ("Respect", "PREFERENCE_POLICY"),
    "minValuesPolicy": ("Strict", "MIN_VALUES_POLICY"),
    "isolatedVPC": (False, "ISOLATED_VPC"),
    "vmMemoryOverheadPercent": (0.075, "VM_MEMORY_OVERHEAD_PERCENT"),
    "enableZonalShift": (False, "ENABLE_ZONAL_SHIFT"),
    "reservedENIs": ("0", "RESERVED_ENIS"),
    "ignoreDRARequests": (True, "IGNORE_DRA_REQUESTS"),
}
#: What the binary uses when the chart renders no variable for a setting (its ``AddFlags`` defaults).
BINARY_DEFAULTS: dict[str, object] = {
    "batchMaxDuration": "10s", "batchIdleDuration": "1s", "preferencePolicy": "Respect", "minValuesPolicy": "Strict",
    "isolatedVPC": False, "vmMemoryOverheadPercent": 0.075, "enableZonalShift": False, "reservedENIs": 0,
    "ignoreDRARequests": True,
}
#: ``minValuesPolicy`` and ``preferencePolicy`` values the binary accepts (``Options.Parse``).
MIN_VALUES_POLICIES = ("Strict", "BestEffort")
PREFERENCE_POLICIES = ("Respect", "Ignore")
#: The binary's ``FEATURE_GATES`` name of each Helm gate (the chart renders ``ReservedCapacity=<value>,...``).
GATE_FLAG_NAMES: dict[FeatureGate, str] = {
    FeatureGate.RESERVED_CAPACITY: "ReservedCapacity", FeatureGate.SPOT_TO_SPOT_CONSOLIDATION: "SpotToSpotConsolidation",
    FeatureGate.NODE_REPAIR: "NodeRepair", FeatureGate.NODE_OVERLAY: "NodeOverlay",
    FeatureGate.STATIC_CAPACITY: "StaticCapacity", FeatureGate.CAPACITY_BUFFER: "CapacityBuffer",
}

__all__ = ["BINARY_DEFAULTS", "CHART_SETTINGS", "DEFAULT_ON", "GATE_FLAG_NAMES", "GPU_OPERATOR_CHART",
           "GPU_OPERATOR_VERSION", "KARPENTER_CHART", "KARPENTER_CHART_VERSION", "KARPENTER_TAG",
           "KARPENTER_VALUES_FILE", "KARPENTER_VERSION", "MIN_VALUES_POLICIES", "PREFERENCE_POLICIES",
           "PROMETHEUS_OPERATOR_TAG", "FeatureGate"]
