"""MIG: MIG-partitioned pools, the MIG devices their NodeOverlays advertise, the workloads asking for them, and
the GPU Operator values (``gpu-operator.values.yaml``) of the environment (KG445-KG449)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Iterable

from karpenter_gpu.analysis.simulator import PoolReport
from karpenter_gpu.apiserver.findings import Severity
from karpenter_gpu.check.rules._model import RuleEnvironment, Pool, as_dict
from karpenter_gpu.check.rules._registry import rule
from karpenter_gpu.k8s.controller_settings import CHART_DEFAULTS, ControllerSettings
from karpenter_gpu.k8s.labels import NVIDIA_GPU, OVERLAY_KIND, kind_of
from karpenter_gpu.k8s.mig import MIG_CONFIG_LABEL, MIG_RESOURCE_PREFIX, mig_partitioned, mig_table

_DEVICE_PLUGIN_CONFIG_LABEL = "nvidia.com/device-plugin.config"


def _mig_resources(report: PoolReport) -> set[str]:
    return {str(r) for c in report.candidates for r, v in c.capacity.items()
            if str(r).startswith(MIG_RESOURCE_PREFIX) and v > 0}


def _strategy(env: RuleEnvironment) -> Any:
    return as_dict(env.values.get("mig")).get("strategy") if env.values else None


def _mig_pools(env: RuleEnvironment) -> Iterable[tuple[Pool, str, str]]:
    """(pool, its MIG config, the field path of the config label) of every MIG-partitioned pool."""
    for pool in env.pools:
        config = mig_partitioned(pool.labels)
        if config is not None:
            yield pool, config, f"{pool.LABELS}[{MIG_CONFIG_LABEL}]"


def _time_sliced(values: dict, pool: Pool) -> bool:
    """Whether the device-plugin config the pool's nodes get (their ``nvidia.com/device-plugin.config`` label,
    else ``devicePlugin.config.default``) shares GPUs by time slicing."""
    config = as_dict(as_dict(values.get("devicePlugin")).get("config"))
    key = pool.labels.get(_DEVICE_PLUGIN_CONFIG_LABEL) or config.get("default")
    text = as_dict(config.get("data")).get(key) if isinstance(key, str) else None
    return isinstance(text, str) and "timeSlicing" in text


def _mig_requests(env: RuleEnvironment) -> Iterable[tuple[Any, dict[str, Decimal], list[str]]]:
    """(workload, its requests, the MIG resources it asks for) of every readable workload."""
    for work in env.workloads:
        totals = work.requests
        if totals is not None:
            yield work, totals, sorted(r for r in totals if r.startswith(MIG_RESOURCE_PREFIX))


def _overlay_resources(env: RuleEnvironment) -> set[str]:
    """The MIG resources the environment's NodeOverlays add to capacity."""
    return {str(r) for m in env.manifests if kind_of(m) == OVERLAY_KIND
            for r in as_dict(as_dict(m.get("spec")).get("capacity")) if str(r).startswith(MIG_RESOURCE_PREFIX)}


@rule("KG445", Severity.ERROR, "workload requesting a MIG resource that no NodePool advertises")
def kg445_unadvertised_mig(env: RuleEnvironment) -> None:
    """What it checks: a workload requesting ``nvidia.com/mig-*`` that no NodePool of the environment advertises
    (no MIG NodeOverlay adds it, as the simulator applies the overlays).

    Why it matters: Karpenter launches nothing for the pod and it stays Pending.

    Fix: add a MigPartitionedPool whose config has that profile, or request one that a pool advertises (with the
    ``nodeOverlay`` gate off and NodeOverlays present: turn the gate on). When the Karpenter values turn that gate
    off, KG642 reports each NodeOverlay they leave ignored and this rule stays silent for the MIG resources those
    overlays add (one finding per cause).

    Upstream: kubernetes-sigs/karpenter v1.14.1 ``pkg/controllers/nodeoverlay`` (capacity overlays) and
    ``pkg/utils/resources`` ``Fits``.
    """
    asking = [(work, wanted) for work, _, wanted in _mig_requests(env) if wanted]
    if not asking or not env.simulated:  # what the pools advertise matters only to a pod asking for MIG
        return
    advertised = {r for pool in env.pools if (report := env.report(pool)) for r in _mig_resources(report)}
    settings = env.settings or ControllerSettings()
    overlays_off = not settings.node_overlay and any(kind_of(m) == OVERLAY_KIND for m in env.manifests)
    # Karpenter values that turn the gate off: KG642 reports each NodeOverlay they leave ignored, so a resource one
    # of them would advertise has that one cause, reported there (one finding per cause)
    gated = _overlay_resources(env) if overlays_off and settings.source != CHART_DEFAULTS else set()
    for work, wanted in asking:
        for resource in wanted:
            if resource not in advertised and resource not in gated:
                fix = ("turn on settings.featureGates.nodeOverlay in the Karpenter values: the environment's "
                       "NodeOverlays (its MIG capacity among them) are ignored without it" if overlays_off else
                       "add a MigPartitionedPool whose config has that profile, or request one that a pool advertises "
                       f"({', '.join(sorted(advertised)) or 'none'})")
                work.add("KG445", f"{work.pod_path}.containers", f"the pod requests {resource}, which no NodePool of "
                         "this environment advertises (no MIG NodeOverlay adds it): Karpenter launches nothing for it "
                         f"and it stays Pending; fix: {fix}")


@rule("KG446", Severity.ERROR,
      "MIG pools, overlays or workloads that disagree with the GPU Operator's mig.strategy or migManager")
def kg446_strategy(env: RuleEnvironment) -> None:
    """What it checks: with the environment's GPU Operator values: MIG pools while ``migManager.enabled`` is
    false; overlays counting MIG devices as ``nvidia.com/gpu`` (single strategy) under ``mig.strategy: mixed``, or
    advertising ``nvidia.com/mig-*`` (mixed) under ``single``; workloads asking for ``nvidia.com/mig-*`` under
    ``single``.

    Why it matters: the device plugin advertises MIG devices under the strategy's names only, so what Karpenter
    simulates and what the nodes offer differ and the pods stay Pending (or the GPUs are never partitioned).

    Fix: one strategy for the values and the pools; enable migManager (GpuOperatorValues derives both from the
    pools).

    Upstream: NVIDIA GPU Operator v26.7.0 values (``mig.strategy``, ``migManager.enabled``) and the k8s-device-plugin
    MIG strategies (``single``, ``mixed``).
    """
    if not env.simulated or not env.values:
        return
    strategy, manager = _strategy(env), as_dict(env.values.get("migManager")).get("enabled")
    for pool, config, where in _mig_pools(env):
        report = env.report(pool)
        if manager is False:
            pool.add("KG446", where, f"the pool asks MIG Manager for {config}, but the GPU Operator values have "
                                     "migManager.enabled: false: the GPUs are never partitioned and the MIG devices "
                                     "never appear; fix: enable migManager (GpuOperatorValues derives it from the "
                                     "pools)")
        if strategy == "mixed" and report is not None and not _mig_resources(report):
            sliced = [c.name for c in report.candidates if c.gpus > c.instance.gpus]
            if sliced:
                pool.add("KG446", where, f"its NodeOverlays count MIG devices as nvidia.com/gpu on {', '.join(sliced)} "
                                         "(the single strategy's way) but the GPU Operator values say mig.strategy: "
                                         "mixed, under which those nodes advertise nvidia.com/mig-* and no "
                                         "nvidia.com/gpu: pods asking for GPUs there stay Pending; fix: one strategy "
                                         "for the values and the pools")
        if strategy == "single" and report is not None and _mig_resources(report):
            pool.add("KG446", where, f"its NodeOverlays advertise {', '.join(sorted(_mig_resources(report)))} (the "
                                     "mixed strategy's names) but the GPU Operator values say mig.strategy: single, "
                                     "under which the device plugin advertises MIG devices as nvidia.com/gpu: pods "
                                     "asking for them stay Pending; fix: one strategy for the values and the pools")
    if strategy == "single":
        for work, _, wanted in _mig_requests(env):
            for resource in wanted:
                work.add("KG446", f"{work.pod_path}.containers", f"the pod requests {resource}, but the GPU Operator "
                         "values say mig.strategy: single, which advertises MIG devices as nvidia.com/gpu only; fix: "
                         "request nvidia.com/gpu, or use the mixed strategy")


@rule("KG447", Severity.ERROR, "time slicing and MIG on the same NodePool")
def kg447_time_sliced_mig(env: RuleEnvironment) -> None:
    """What it checks: a MIG-partitioned NodePool whose nodes also get a time-slicing device-plugin config (their
    ``nvidia.com/device-plugin.config`` label, else the values' default); the same fact the GpuOperatorValues
    construct refuses as KG577.

    Why it matters: what the nodes advertise matches neither the MIG overlays nor the time-slicing overlays, so
    Karpenter's simulation is wrong for them.

    Fix: label the pool ``nvidia.com/device-plugin.config`` with an unshared config, or drop MIG.

    Upstream: NVIDIA k8s-device-plugin sharing (``sharing.timeSlicing``) and GPU Operator MIG Manager
    (``nvidia.com/mig.config``).
    """
    if not env.simulated or not env.values:
        return
    for pool, _, where in _mig_pools(env):
        if _time_sliced(env.values, pool):
            pool.add("KG447", where, "the pool's nodes are MIG-partitioned and also get a time-slicing device-plugin "
                                     "config: what they advertise matches neither the MIG overlays nor the "
                                     "time-slicing overlays, so Karpenter's simulation is wrong for them; fix: label "
                                     f"the pool {_DEVICE_PLUGIN_CONFIG_LABEL} with an unshared config, or drop MIG")


@rule("KG448", Severity.ERROR,
      "whole-GPU workload on a mixed-strategy MIG pool (its nodes advertise no nvidia.com/gpu)")
def kg448_whole_gpu_on_mixed(env: RuleEnvironment) -> None:
    """What it checks: a workload requesting ``nvidia.com/gpu`` whose nodeSelector names a MIG pool under the mixed
    strategy (from the values, or, without values, from overlays advertising ``nvidia.com/mig-*``).

    Why it matters: the pool's nodes advertise MIG devices and no ``nvidia.com/gpu``, so the pod never schedules
    there although Karpenter (which still counts the physical GPUs) launches nodes for it.

    Fix: request a MIG resource the pool advertises, or target a pool of whole GPUs.

    Upstream: NVIDIA k8s-device-plugin MIG strategy ``mixed``; kubernetes-sigs/karpenter v1.14.1
    ``pkg/controllers/provisioning/scheduling/nodeclaim.go``.
    """
    if not env.simulated:
        return
    strategy = _strategy(env)
    mig = {pool.name for pool, _, _ in _mig_pools(env)}
    for work, totals, _ in _mig_requests(env):
        target = work.target
        if target is None or target not in mig or totals.get(NVIDIA_GPU, Decimal(0)) <= 0:
            continue
        report = env.report_named(target)
        if strategy == "mixed" or (strategy is None and report is not None and bool(_mig_resources(report))):
            work.add("KG448", f"{work.pod_path}.containers",
                     f"the pod requests whole GPUs (nvidia.com/gpu) on NodePool {target}, whose GPUs are "
                     "MIG-partitioned under the mixed strategy: its nodes advertise MIG devices (nvidia.com/mig-*) and "
                     "no nvidia.com/gpu, so the pod never schedules there although Karpenter (which still counts the "
                     "physical GPUs) launches nodes for it; fix: request a MIG resource the pool advertises "
                     f"({', '.join(sorted(_mig_resources(report))) if report is not None else 'see its overlays'}), "
                     "or target a pool of whole GPUs")


@rule("KG449", Severity.ERROR, "MIG config that some instance type of the pool does not support")
def kg449_unsupported_config(env: RuleEnvironment) -> None:
    """What it checks: a MIG-partitioned NodePool that can launch instance types whose GPU does not have the pool's
    MIG config (by the packaged MIG tables).

    Why it matters: MIG Manager fails to apply it there (node label ``nvidia.com/mig.config.state=failed``) and
    those nodes advertise no MIG device.

    Fix: restrict the pool to instance types whose GPU has the config (MigPartitionedPool does), or choose
    another config.

    Upstream: NVIDIA mig-parted config files of GPU Operator v26.7.0 (``default-mig-parted-config``).
    """
    table = mig_table()
    for pool, config, where in _mig_pools(env):
        report = env.report(pool)
        if report is None:
            continue
        bad = [c.name for c in report.candidates
               if (gpu := table.gpu_for(c.instance.labels)) is None or not gpu.config(config)]
        if bad:
            pool.add("KG449", where, f"MIG config {config} does not exist for the GPUs of {', '.join(bad)}, which "
                                     "this pool can launch: MIG Manager fails to apply it there (node label "
                                     "nvidia.com/mig.config.state=failed) and those nodes advertise no MIG device; "
                                     "fix: restrict the pool to instance types whose GPU has the config "
                                     "(MigPartitionedPool does), or choose another config")
