"""The GPU Operator's MIG values, derived from the cluster's MIG pools: which pools MIG Manager partitions, the one
``mig.strategy`` of the cluster, and ``migManager`` (its default layout and the pinned ConfigMap of layouts)."""

from __future__ import annotations

from typing import Any, Protocol

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.mig import DISABLED as MIG_DISABLED, MIG_CONFIG_LABEL, mig_parted_config, mig_partitioned, mig_table
from karpenter_gpu.k8s.yaml_writer import dump
from karpenter_gpu.pools._node_pool import NodePoolConstruct
from karpenter_gpu.pools.mig_partitioned_pool import MigPartitionedPool


class MigProps(Protocol):
    """The props of :class:`~karpenter_gpu.addons.gpu_operator_values.GpuOperatorValuesProps` the MIG values read."""

    @property
    def mig_strategy(self) -> str | None: ...

    @property
    def mig_manager(self) -> bool | None: ...

    @property
    def mig_config_map(self) -> str | None: ...


def mig_pools(pools: list[NodePoolConstruct]) -> list[NodePoolConstruct]:
    """Pools whose nodes MIG Manager partitions: a ``nvidia.com/mig.config`` template label other than all-disabled."""
    return [pool for pool in pools if mig_partitioned(pool.props.node_labels) is not None]


def mig_settings(pools: list[NodePoolConstruct], p: MigProps, path: str) -> tuple[str, bool]:
    """``mig.strategy`` and ``migManager.enabled`` from the cluster's MIG pools (one strategy per cluster: the
    device plugin reads one ``MIG_STRATEGY``), checked against the props."""
    partitioned = mig_pools(pools)
    by_strategy: dict[str, list[str]] = {}
    for pool in partitioned:
        if isinstance(pool, MigPartitionedPool):
            by_strategy.setdefault(pool.mig_strategy, []).append(pool.props.name)
    if len(by_strategy) > 1:
        raise KarpenterGpuError(
            "KG575", prop="mig_strategy", value={k: sorted(v) for k, v in sorted(by_strategy.items())},
            allowed="one MIG strategy for every MIG pool of the cluster: the GPU Operator sets one mig.strategy for "
                    "every device plugin",
            fix="give every MigPartitionedPool of this cluster the same mig_strategy", path=path)
    derived = next(iter(by_strategy), None)
    if p.mig_strategy is not None and derived is not None and p.mig_strategy != derived:
        raise KarpenterGpuError(
            "KG576", prop="mig_strategy", value=p.mig_strategy,
            allowed=f"{derived!r}, the strategy of the cluster's MIG pools {sorted(by_strategy[derived])}: their "
                    "NodeOverlays tell Karpenter the resources that strategy advertises",
            fix=f"drop mig_strategy (it is derived), or set mig_strategy={p.mig_strategy!r} on the pools", path=path)
    if p.mig_manager is False and partitioned:
        raise KarpenterGpuError(
            "KG576", prop="mig_manager", value=False,
            allowed=f"True (or unset) while pools carry {MIG_CONFIG_LABEL} "
                    f"({sorted(pool.props.name for pool in partitioned)}): without MIG Manager their GPUs are never "
                    "partitioned and the MIG resources Karpenter was told about never appear",
            fix="drop mig_manager=False", path=path)
    strategy = p.mig_strategy or derived or "single"
    return strategy, p.mig_manager if p.mig_manager is not None else bool(partitioned)


def mig_manager_values(pools: list[NodePoolConstruct], p: MigProps, enabled: bool, path: str) -> dict:
    """``migManager``: on with ``config.default: all-disabled`` beside MIG pools (nodes without the label keep whole
    GPUs), plus the pinned layouts in ``mig_config_map`` when asked for (a custom ConfigMap replaces MIG Manager's
    generated configs: gpu-operator v26.7.0 ``controllers/object_controls.go`` sets ``CONFIG_FILE`` to it)."""
    partitioned = mig_pools(pools)
    if not enabled or not (partitioned or p.mig_config_map):
        return {"enabled": enabled}
    config: dict[str, Any] = {"default": MIG_DISABLED}
    if p.mig_config_map:
        names = sorted({pool.props.node_labels[MIG_CONFIG_LABEL] for pool in partitioned})
        unknown = [n for n in names if n not in mig_table().config_names()]
        if unknown:
            raise KarpenterGpuError(
                "KG576", prop="mig_config_map", value=p.mig_config_map,
                allowed=f"MIG pools whose {MIG_CONFIG_LABEL} the MIG tables know (not {unknown}): the ConfigMap "
                        "replaces MIG Manager's generated configs, so a layout it lacks fails on the node",
                fix="drop mig_config_map, or use a MigPartitionedPool config name", path=path)
        document = mig_parted_config(names)
        config.update(create=True, name=p.mig_config_map,
                      data={"config.yaml": dump(document, sort_keys=False, default_flow_style=False)})
    return {"enabled": True, "config": config}
