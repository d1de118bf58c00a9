"""What the package targets upstream, in one place: the Karpenter release, its Helm chart, its controller feature
gates and their defaults, and the other charts and CRD sources the output is written for.

Every module that names a version, a chart or a gate reads it from here (tests/test_upstream.py keeps it so), so a
second Karpenter line (v1.9 LTS beside v1.14 LTS) or EKS Auto Mode becomes a change of this module's tables, not a
search through the package. Docstrings may still cite the upstream source of a rule "at v1.14.1": that names where
the rule was read, not a setting.

Pure data: imports nothing of the package, so every layer may use it.
"""

from __future__ import annotations

from dataclasses import dataclass
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

#: The Karpenter controller image repository (``controller.image.repository`` of the chart).
KARPENTER_IMAGE = "public.ecr.aws/karpenter/controller"


@dataclass(frozen=True)
class KarpenterLine:
    """One Karpenter release line the package can target: what the chart, its gates and its CRDs are there.

    The chart inside a release tag (git, or the Go module zip) still carries the *previous* release's
    ``version``, ``controller.image.tag`` and ``digest`` (``charts/karpenter/values.yaml`` at tag v1.14.1 pins
    1.13.0, at v1.9.3 it pins 1.8.1); the generated values therefore pin :attr:`image_tag` (and
    :attr:`image_digest` where the release's own chart records it) themselves.
    """

    #: The line's name as users give it (``PlatformConfig(karpenter_version=...)``, ``--karpenter-version``).
    line: str
    #: The patch release of the line the package is written and checked against.
    version: str
    #: The controller image digest of :attr:`version`, as the release's chart values record it; "" when not known
    #: here (the values then pin the tag alone and clear the in-tag chart's digest of the previous release).
    image_digest: str
    #: The Helm ``settings.featureGates`` keys the line's chart renders, in the chart's order.
    gates: tuple["FeatureGate", ...]
    #: The chart ``settings`` keys of :data:`CHART_SETTINGS` the line's chart has.
    settings: tuple[str, ...]
    #: Sub-folder of ``data/crds/`` holding the line's Karpenter CRDs ("" for the folder itself); the
    #: prometheus-operator CRDs are the folder's for every line.
    crd_subdir: str

    @property
    def tag(self) -> str:
        return f"v{self.version}"

    @property
    def chart_version(self) -> str:
        return self.version

    @property
    def image_tag(self) -> str:
        return self.version


#: The line the package targets unless told otherwise.
DEFAULT_LINE = "1.14"

#: Both LTS lines of aws/karpenter-provider-aws ``SUPPORT.md`` (v1.9 to Feb 2027, v1.14 to Jul 2027). v1.9.3 is the
#: newest v1.9 patch the Go module proxy serves; its CRDs are v1.9.2's (byte-identical). Gates: the chart's
#: ``settings.featureGates`` at each tag (capacityBuffer from v1.14); settings: ``enableZonalShift`` from v1.12.
KARPENTER_LINES: dict[str, KarpenterLine] = {
    "1.9": KarpenterLine(
        line="1.9", version="1.9.3", image_digest="",
        gates=(FeatureGate.RESERVED_CAPACITY, FeatureGate.SPOT_TO_SPOT_CONSOLIDATION, FeatureGate.NODE_OVERLAY,
               FeatureGate.STATIC_CAPACITY, FeatureGate.NODE_REPAIR),
        settings=tuple(k for k in CHART_SETTINGS if k != "enableZonalShift"), crd_subdir="v1.9"),
    "1.14": KarpenterLine(
        line="1.14", version=KARPENTER_VERSION,
        image_digest="sha256:723130949e4cab989461ff07d1be4cd781d63515432494641b33c235f300ae23",
        gates=tuple(FeatureGate), settings=tuple(CHART_SETTINGS), crd_subdir=""),
}

#: Where a schema field, enum value or well-known label first appears between the lines (aws/karpenter-provider-aws
#: ``pkg/apis/crds`` at each tag): a refusal for an older target names the release to upgrade to. Keys are
#: schema paths (``[]`` for list items), ``path=value`` for an enum value, or a label key; what is not listed is
#: named by the first packaged line that has it.
INTRODUCED: dict[str, str] = {
    "spec.disruption.consolidationPolicy=Balanced": "1.14.0",  # kubernetes-sigs/karpenter#2962
    "spec.networkInterfaces": "1.11.0",
    "spec.placementGroupSelector": "1.11.0",
    "karpenter.k8s.aws/placement-group-id": "1.11.0",
    "karpenter.k8s.aws/placement-group-partition": "1.11.0",
    "spec.connectionTracking": "1.13.0",
    "spec.cpuOptions": "1.13.0",
    "karpenter.k8s.aws/capacity-reservation-interruptible": "1.10.0",  # interruptible reservations, aws#9019
    "status.capacityReservations[].interruptible": "1.10.0",
    FeatureGate.CAPACITY_BUFFER.value: "1.14.0",
    "enableZonalShift": "1.12.0",
}


#: What a release changes for objects that stay as written (no schema change), between the packaged lines: what an
#: upgrade verdict lists for the releases it crosses (aws/karpenter-provider-aws and kubernetes-sigs/karpenter release
#: notes; ``drifts`` marks the change that replaces every node once).
BEHAVIOUR_CHANGES: tuple[tuple[str, str, bool], ...] = (
    ("1.10.0", "launches into interruptible capacity reservations (aws/karpenter-provider-aws#9019); the interruption "
               "EventBridge rule needs its new detail-type", False),
    ("1.11.0", "limits.nodes is honoured on dynamic NodePools too (kubernetes-sigs/karpenter#2526); instance types "
               "a node class cannot launch are filtered out (aws/karpenter-provider-aws#9017)", False),
    ("1.12.0", "the node class's CA bundle joins the drift hash: every node drifts once and is replaced "
               "(aws/karpenter-provider-aws#9083, upgrade guide)", True),
    ("1.13.0", "readiness.k8s.io/* taints are ephemeral (kubernetes-sigs/karpenter#3025)", False),
    ("1.14.0", "consolidateAfter also protects the destination nodes of consolidation (kubernetes-sigs/karpenter#3006); "
               "DaemonSet overhead follows the instance type's requirements (kubernetes-sigs/karpenter#2975)", False),
)


#: Behaviours of the scheduler and the AWS provider that change an answer between the packaged lines, by the release
#: that brought each (the core asks ``ControllerSettings.has(name)``: the settings carry the target line; an older
#: line answers as the release before). Each is checked on the v1.9 line by the oracle's scheduler family.
BEHAVIOUR_SINCE: dict[str, str] = {
    # aws/karpenter-provider-aws#9019 (v1.10.0): a reservation's Interruptible flag becomes the offering's
    # karpenter.k8s.aws/capacity-reservation-interruptible requirement and a launch partition of its own
    # (pkg/providers/instancetype/offering, pkg/providers/instance/filter CapacityReservationTypeFilter); v1.9.3's
    # CapacityReservationFromEC2 does not read it, so an interruptible reservation is launched into as any other.
    "interruptible-reservations": "1.10.0",
    # kubernetes-sigs/karpenter#2526 (v1.11.0): Scheduler.addToNewNodeClaim refuses a dynamic pool once nothing is
    # left of limits.nodes; v1.9.0's filterByRemainingResources compares limits with the types' capacity, which has
    # no "nodes": a dynamic pool launches whatever its limits.nodes.
    "dynamic-node-limits": "1.11.0",
    # kubernetes-sigs/karpenter#2975 (v1.14.0): buildDaemonOverheadGroups counts a DaemonSet's pod against an instance
    # type only where its node affinity also Intersects the type's requirements; v1.9.0's getDaemonOverhead counts
    # every DaemonSet the NodeClaim template admits against every type of the template.
    "daemonset-overhead-per-type": "1.14.0",
}


def line_has(line: str, behaviour: str) -> bool:
    """Whether the Karpenter line ``line`` ("1.9", "1.14") behaves as :data:`BEHAVIOUR_SINCE` ``behaviour`` says."""
    def release(text: str) -> tuple[int, ...]:
        return tuple(int(part) for part in text.split("."))
    return release(KARPENTER_LINES[line].version) >= release(BEHAVIOUR_SINCE[behaviour])


def karpenter_line(name: str) -> KarpenterLine:
    """The line ``name`` ("1.9", "1.14", or a release of one such as "1.9.3" / "v1.14.1"); KeyError otherwise."""
    text = name[1:] if name.startswith("v") else name
    if text in KARPENTER_LINES:
        return KARPENTER_LINES[text]
    for line in KARPENTER_LINES.values():
        if text == line.version:
            return line
    raise KeyError(name)


__all__ = ["BEHAVIOUR_CHANGES", "BEHAVIOUR_SINCE", "BINARY_DEFAULTS", "CHART_SETTINGS", "DEFAULT_LINE", "DEFAULT_ON", "GATE_FLAG_NAMES", "GPU_OPERATOR_CHART",
           "GPU_OPERATOR_VERSION", "INTRODUCED", "KARPENTER_CHART", "KARPENTER_CHART_VERSION", "KARPENTER_IMAGE",
           "KARPENTER_LINES", "KARPENTER_TAG", "KARPENTER_VALUES_FILE", "KARPENTER_VERSION", "MIN_VALUES_POLICIES",
           "PREFERENCE_POLICIES", "PROMETHEUS_OPERATOR_TAG", "FeatureGate", "KarpenterLine", "karpenter_line",
           "line_has"]
