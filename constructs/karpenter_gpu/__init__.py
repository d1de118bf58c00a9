"""karpenter-gpu: typed cdk8s constructs for GPU capacity on EKS with Karpenter v1.14.1.

Every construct validates its props once, at construction, and raises
:class:`KarpenterGpuError` (with a stable ``code``) for input it will not render.

Names are imported on first use (PEP 562), so ``karpenter-gpu validate`` and other pure-Python
parts never start the jsii (Node.js) runtime that the constructs need. Type checkers read the
``TYPE_CHECKING`` block below, so every exported name has its real type statically.

Layout, by concern:
``k8s/`` pure-Python Kubernetes and Karpenter semantics (units, requirements, taints);
``pools/`` node classes and NodePool constructs; ``overlays/`` NodeOverlay constructs;
``addons/`` Helm values, monitoring, workloads, feature gates; ``gpu_platform`` one environment;
``check/`` CRD schema + CEL conformance and the pitfall rules; ``analysis/`` catalog, simulator,
explain, diff; ``cli/`` the command line.
"""

from __future__ import annotations

from karpenter_gpu import _startup
from karpenter_gpu._version import __version__ as __version__  # its one source: pyproject.toml reads it

_startup.configure()  # JSII_NODE -> the packaged Node LTS when unset; sets an env var only, starts nothing

# Not ``typing.TYPE_CHECKING``: ``typing`` alone would double what importing this module costs (every command
# line start-up pays it). Type checkers treat any ``TYPE_CHECKING`` name as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from karpenter_gpu.feature_gates import FeatureGate as FeatureGate, feature_gate_summary as feature_gate_summary, required_feature_gates as required_feature_gates
    from karpenter_gpu.addons.gpu_monitoring import GpuMonitoring as GpuMonitoring, GpuMonitoringKwargs as GpuMonitoringKwargs, GpuMonitoringProps as GpuMonitoringProps
    from karpenter_gpu.addons.gpu_operator_values import GpuOperatorValues as GpuOperatorValues, GpuOperatorValuesKwargs as GpuOperatorValuesKwargs, GpuOperatorValuesProps as GpuOperatorValuesProps
    from karpenter_gpu.addons.gpu_workload import GpuWorkload as GpuWorkload, GpuWorkloadKwargs as GpuWorkloadKwargs, GpuWorkloadProps as GpuWorkloadProps, pod_placement as pod_placement
    from karpenter_gpu.addons.neuron_device_plugin_values import NeuronDevicePluginValues as NeuronDevicePluginValues, NeuronDevicePluginValuesKwargs as NeuronDevicePluginValuesKwargs, NeuronDevicePluginValuesProps as NeuronDevicePluginValuesProps
    from karpenter_gpu.addons.helm_values import HelmValues as HelmValues, helm_values_in as helm_values_in
    from karpenter_gpu.addons.gitops_argocd import ArgoCdApplications as ArgoCdApplications, ArgoCdApplicationsKwargs as ArgoCdApplicationsKwargs, ArgoCdApplicationsProps as ArgoCdApplicationsProps
    from karpenter_gpu.addons.gitops_flux import FluxHelmReleases as FluxHelmReleases, FluxHelmReleasesKwargs as FluxHelmReleasesKwargs, FluxHelmReleasesProps as FluxHelmReleasesProps
    from karpenter_gpu.addons.imported_object import ImportedObject as ImportedObject, ImportedObjectKwargs as ImportedObjectKwargs, ImportedObjectProps as ImportedObjectProps
    from karpenter_gpu.addons.karpenter_values import KarpenterControllerValues as KarpenterControllerValues, KarpenterControllerValuesKwargs as KarpenterControllerValuesKwargs, KarpenterControllerValuesProps as KarpenterControllerValuesProps
    from karpenter_gpu.check.acknowledge import acknowledge as acknowledge
    from karpenter_gpu.apiserver.findings import Finding as Finding, Severity as Severity
    from karpenter_gpu.check.validate import Report as Report, validate_dir as validate_dir
    from karpenter_gpu.errors import CODES as CODES, KarpenterGpuError as KarpenterGpuError
    from karpenter_gpu.cluster import Cluster as Cluster, finalize as finalize
    from karpenter_gpu.gpu_platform import GpuPlatform as GpuPlatform, GpuPlatformKwargs as GpuPlatformKwargs, PlatformConfig as PlatformConfig, PlatformNodeClass as PlatformNodeClass
    from karpenter_gpu.k8s.requirements import CapacityType as CapacityType, Label as Label, Operator as Operator, Requirement as Requirement
    from karpenter_gpu.k8s.taint import Taint as Taint, TaintEffect as TaintEffect
    from karpenter_gpu.k8s.units import Duration as Duration, GpuMemory as GpuMemory, Quantity as Quantity
    from karpenter_gpu.overlays.gpu_capacity_overlay import GpuCapacityOverlay as GpuCapacityOverlay, GpuCapacityOverlayKwargs as GpuCapacityOverlayKwargs, GpuCapacityOverlayProps as GpuCapacityOverlayProps
    from karpenter_gpu.overlays.mig_capacity_overlay import MigCapacityOverlay as MigCapacityOverlay, MigCapacityOverlayKwargs as MigCapacityOverlayKwargs, MigCapacityOverlayProps as MigCapacityOverlayProps
    from karpenter_gpu.overlays.node_overlay_discourage import NodeOverlayDiscourage as NodeOverlayDiscourage, NodeOverlayDiscourageKwargs as NodeOverlayDiscourageKwargs, NodeOverlayDiscourageProps as NodeOverlayDiscourageProps
    from karpenter_gpu.overlays.overlay_price import Price as Price, PriceAdjustment as PriceAdjustment
    from karpenter_gpu.overlays.time_slicing_overlay import TimeSlicingOverlay as TimeSlicingOverlay, TimeSlicingOverlayKwargs as TimeSlicingOverlayKwargs, TimeSlicingOverlayProps as TimeSlicingOverlayProps
    from karpenter_gpu.pools._gpu_pool import ConsolidationPolicy as ConsolidationPolicy, GpuPool as GpuPool, GpuPoolKwargs as GpuPoolKwargs, GpuPoolProps as GpuPoolProps
    from karpenter_gpu.pools.capacity_reservation import CapacityReservationTerm as CapacityReservationTerm, InstanceMatchCriteria as InstanceMatchCriteria, ReservationType as ReservationType, prefer_reserved_capacity as prefer_reserved_capacity
    from karpenter_gpu.pools.disruption_window import Budget as Budget, DisruptionReason as DisruptionReason, DisruptionWindow as DisruptionWindow, compile_budgets as compile_budgets
    from karpenter_gpu.pools.gpu_inference_pool import GpuInferencePool as GpuInferencePool, GpuInferencePoolKwargs as GpuInferencePoolKwargs, GpuInferencePoolProps as GpuInferencePoolProps
    from karpenter_gpu.pools.auto_mode_node_class import AutoModeEphemeralStorage as AutoModeEphemeralStorage, AutoModeNodeClass as AutoModeNodeClass, AutoModeNodeClassKwargs as AutoModeNodeClassKwargs, AutoModeNodeClassProps as AutoModeNodeClassProps
    from karpenter_gpu.pools.gpu_node_class import AmiAlias as AmiAlias, GpuNodeClass as GpuNodeClass, GpuNodeClassKwargs as GpuNodeClassKwargs, GpuNodeClassProps as GpuNodeClassProps, NodeClassConfig as NodeClassConfig, NodeClassConfigKwargs as NodeClassConfigKwargs, RootVolume as RootVolume
    from karpenter_gpu.pools.gpu_training_pool import GpuTrainingPool as GpuTrainingPool, GpuTrainingPoolKwargs as GpuTrainingPoolKwargs, GpuTrainingPoolProps as GpuTrainingPoolProps
    from karpenter_gpu.pools.hybrid_gpu_nodes import HybridGpuNodeGroup as HybridGpuNodeGroup, HybridGpuNodeGroupKwargs as HybridGpuNodeGroupKwargs, HybridGpuNodeGroupProps as HybridGpuNodeGroupProps
    from karpenter_gpu.pools.mig_partitioned_pool import MigPartitionedPool as MigPartitionedPool, MigPartitionedPoolKwargs as MigPartitionedPoolKwargs, MigPartitionedPoolProps as MigPartitionedPoolProps
    from karpenter_gpu.pools.neuron_inference_pool import NeuronInferencePool as NeuronInferencePool, NeuronInferencePoolKwargs as NeuronInferencePoolKwargs, NeuronInferencePoolProps as NeuronInferencePoolProps
    from karpenter_gpu.pools.neuron_reserved_capacity_pool import NeuronReservedCapacityPool as NeuronReservedCapacityPool, NeuronReservedCapacityPoolKwargs as NeuronReservedCapacityPoolKwargs, NeuronReservedCapacityPoolProps as NeuronReservedCapacityPoolProps
    from karpenter_gpu.pools.neuron_training_pool import NeuronTrainingPool as NeuronTrainingPool, NeuronTrainingPoolKwargs as NeuronTrainingPoolKwargs, NeuronTrainingPoolProps as NeuronTrainingPoolProps
    from karpenter_gpu.pools.reserved_capacity_pool import Fallback as Fallback, ReservedCapacityPool as ReservedCapacityPool, ReservedCapacityPoolKwargs as ReservedCapacityPoolKwargs, ReservedCapacityPoolProps as ReservedCapacityPoolProps
    from karpenter_gpu.pools.static_capacity_pool import StaticCapacityPool as StaticCapacityPool, StaticCapacityPoolKwargs as StaticCapacityPoolKwargs, StaticCapacityPoolProps as StaticCapacityPoolProps
    from karpenter_gpu.pools.tiered_spot_pools import SpotTier as SpotTier, TieredSpotPools as TieredSpotPools, TieredSpotPoolsKwargs as TieredSpotPoolsKwargs, TieredSpotPoolsProps as TieredSpotPoolsProps
    from karpenter_gpu.pipeline import SynthFailed as SynthFailed, synth as synth

# module (relative to this package) -> the public names it defines
_MODULES: dict[str, str] = {
    "feature_gates": "FeatureGate feature_gate_summary required_feature_gates",
    "addons.gpu_monitoring": "GpuMonitoring GpuMonitoringKwargs GpuMonitoringProps",
    "addons.gpu_operator_values": "GpuOperatorValues GpuOperatorValuesKwargs GpuOperatorValuesProps",
    "addons.gpu_workload": "GpuWorkload GpuWorkloadKwargs GpuWorkloadProps pod_placement",
    "addons.neuron_device_plugin_values": "NeuronDevicePluginValues NeuronDevicePluginValuesKwargs NeuronDevicePluginValuesProps",
    "addons.helm_values": "HelmValues helm_values_in",
    "addons.gitops_argocd": "ArgoCdApplications ArgoCdApplicationsKwargs ArgoCdApplicationsProps",
    "addons.gitops_flux": "FluxHelmReleases FluxHelmReleasesKwargs FluxHelmReleasesProps",
    "addons.imported_object": "ImportedObject ImportedObjectKwargs ImportedObjectProps",
    "addons.karpenter_values": "KarpenterControllerValues KarpenterControllerValuesKwargs KarpenterControllerValuesProps",
    "check.acknowledge": "acknowledge",
    "apiserver.findings": "Finding Severity",
    "check.validate": "Report validate_dir",
    "errors": "CODES KarpenterGpuError",
    "cluster": "Cluster finalize",
    "gpu_platform": "GpuPlatform GpuPlatformKwargs PlatformConfig PlatformNodeClass",
    "k8s.requirements": "CapacityType Label Operator Requirement",
    "k8s.taint": "Taint TaintEffect",
    "k8s.units": "Duration GpuMemory Quantity",
    "overlays.gpu_capacity_overlay": "GpuCapacityOverlay GpuCapacityOverlayKwargs GpuCapacityOverlayProps",
    "overlays.mig_capacity_overlay": "MigCapacityOverlay MigCapacityOverlayKwargs MigCapacityOverlayProps",
    "overlays.node_overlay_discourage": "NodeOverlayDiscourage NodeOverlayDiscourageKwargs NodeOverlayDiscourageProps",
    "overlays.overlay_price": "Price PriceAdjustment",
    "overlays.time_slicing_overlay": "TimeSlicingOverlay TimeSlicingOverlayKwargs TimeSlicingOverlayProps",
    "pools._gpu_pool": "ConsolidationPolicy GpuPool GpuPoolKwargs GpuPoolProps",
    "pools.capacity_reservation": "CapacityReservationTerm InstanceMatchCriteria ReservationType prefer_reserved_capacity",
    "pools.disruption_window": "Budget DisruptionReason DisruptionWindow compile_budgets",
    "pools.gpu_inference_pool": "GpuInferencePool GpuInferencePoolKwargs GpuInferencePoolProps",
    "pools.auto_mode_node_class": "AutoModeEphemeralStorage AutoModeNodeClass AutoModeNodeClassKwargs AutoModeNodeClassProps",
    "pools.gpu_node_class": "AmiAlias GpuNodeClass GpuNodeClassKwargs GpuNodeClassProps NodeClassConfig NodeClassConfigKwargs RootVolume",
    "pools.gpu_training_pool": "GpuTrainingPool GpuTrainingPoolKwargs GpuTrainingPoolProps",
    "pools.hybrid_gpu_nodes": "HybridGpuNodeGroup HybridGpuNodeGroupKwargs HybridGpuNodeGroupProps",
    "pools.mig_partitioned_pool": "MigPartitionedPool MigPartitionedPoolKwargs MigPartitionedPoolProps",
    "pools.neuron_inference_pool": "NeuronInferencePool NeuronInferencePoolKwargs NeuronInferencePoolProps",
    "pools.neuron_reserved_capacity_pool": "NeuronReservedCapacityPool NeuronReservedCapacityPoolKwargs NeuronReservedCapacityPoolProps",
    "pools.neuron_training_pool": "NeuronTrainingPool NeuronTrainingPoolKwargs NeuronTrainingPoolProps",
    "pools.reserved_capacity_pool": "Fallback ReservedCapacityPool ReservedCapacityPoolKwargs ReservedCapacityPoolProps",
    "pools.static_capacity_pool": "StaticCapacityPool StaticCapacityPoolKwargs StaticCapacityPoolProps",
    "pools.tiered_spot_pools": "SpotTier TieredSpotPools TieredSpotPoolsKwargs TieredSpotPoolsProps",
    "pipeline": "SynthFailed synth",
}
_EXPORTS: dict[str, str] = {name: module for module, names in _MODULES.items() for name in names.split()}

__all__ = sorted(_EXPORTS)


if not TYPE_CHECKING:  # a module __getattr__ would make every unknown name (a typo) an Any for type checkers
    def __getattr__(name: str) -> Any:
        module = _EXPORTS.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        import importlib  # here, not at the top: `import karpenter_gpu` itself stays cheap

        value = getattr(importlib.import_module(f".{module}", __name__), name)
        globals()[name] = value  # later lookups skip this function
        return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
