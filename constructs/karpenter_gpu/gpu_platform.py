"""GpuPlatform: one environment's GPU capacity as a cdk8s Chart, built from a frozen config.

A platform repo instantiates it with its own :class:`PlatformConfig`; this repository's
dev/staging/prod stacks are three such configs.
"""

from __future__ import annotations

from typing import Any, Mapping

import cdk8s
from constructs import Construct

from ._props import DnsLabel, Props, build
from .errors import KarpenterGpuError
from .gpu_inference_pool import GpuInferencePool, GpuInferencePoolProps
from .gpu_node_class import GpuNodeClass, NodeClassConfig, RootVolume
from .gpu_training_pool import GpuTrainingPool, GpuTrainingPoolProps


class PlatformConfig(Props):
    """One environment. ``training`` may be omitted (no training pool in that environment)."""

    #: Environment name: the chart id and the dist/ folder (DNS-1123).
    environment: DnsLabel
    node_class: NodeClassConfig
    inference: GpuInferencePoolProps
    #: Default: - no training pool.
    training: GpuTrainingPoolProps | None = None
    #: Override the inference / training root volumes. Default: the presets.
    inference_volume: RootVolume = RootVolume.inference()
    training_volume: RootVolume = RootVolume.training()


def _fields(model: Props) -> dict[str, Any]:
    # Shallow: keeps value objects (AmiAlias, Taint …) as they are.
    return {name: getattr(model, name) for name in type(model).model_fields}


class GpuPlatform(cdk8s.Chart):
    """Node classes and GPU pools of one environment.

    Example::

        app = cdk8s.App()
        GpuPlatform(app, config=PlatformConfig(environment="dev", node_class=..., inference=...))
    """

    def __init__(self, scope: Construct, id: str | None = None, *, config: PlatformConfig | Mapping[str, Any]) -> None:
        cfg = build(PlatformConfig, id or "GpuPlatform", config)
        super().__init__(scope, id or cfg.environment)
        self.config = cfg
        base = _fields(cfg.node_class)
        self.inference_class = GpuNodeClass(self, "InferenceClass", name="gpu-inference",
                                            root_volume=cfg.inference_volume, **base)
        self.inference = GpuInferencePool(self, "Inference", node_class=self.inference_class,
                                          props=cfg.inference)
        self.training_class: GpuNodeClass | None = None
        self.training: GpuTrainingPool | None = None
        if cfg.training is not None:
            self.training_class = GpuNodeClass(self, "TrainingClass", name="gpu-training",
                                               root_volume=cfg.training_volume, **base)
            self.training = GpuTrainingPool(self, "Training", node_class=self.training_class,
                                            props=cfg.training)
        names = [p.name for p in self.pools]
        if len(set(names)) != len(names):
            raise KarpenterGpuError("KG171", prop="name", value=names, allowed="distinct NodePool names",
                                    fix="give the inference and training pools different names", path=self.node.path)

    @property
    def pools(self) -> list[GpuInferencePool | GpuTrainingPool]:
        return [p for p in (self.inference, self.training) if p is not None]
