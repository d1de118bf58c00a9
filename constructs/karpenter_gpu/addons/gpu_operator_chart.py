"""What the NVIDIA GPU Operator chart (v26.7.0) checks of its own values: the ``fail`` rules of its
``templates/validations.yaml``, raised at construction (KG503) instead of at ``helm install``."""

from __future__ import annotations

from typing import Any

from karpenter_gpu.errors import KarpenterGpuError


def check_chart_validations(values: dict, path: str | None = None) -> None:
    """The chart's ``templates/validations.yaml`` rules these values can trip, as KG503 at construction.

    ``helm install`` would ``fail`` on them; a ``default`` that is not a key of ``data`` passes Helm and
    then fails in the device plugin's config manager.
    """
    def fail(prop: str, value: Any, allowed: str, fix: str) -> None:
        raise KarpenterGpuError("KG503", prop=prop, value=value, allowed=allowed, fix=fix, path=path)

    config = values.get("devicePlugin", {}).get("config", {})
    if config.get("create"):
        if not config.get("data"):
            fail("devicePlugin.config.data", config.get("data"), "non-empty when config.create is true "
                 "(chart validation)", "give the ConfigMap data, or set create: false")
        if not config.get("name"):
            fail("devicePlugin.config.name", config.get("name"), "non-empty when config.create is true "
                 "(chart validation)", "name the ConfigMap")
    if config.get("default") and config.get("data") and config["default"] not in config["data"]:
        fail("devicePlugin.config.default", config["default"], f"a key of config.data ({sorted(config['data'])})",
             "name one of the data keys")
    cdi = values.get("cdi", {})
    toolkit = values.get("toolkit", {}).get("enabled", True)
    if cdi.get("nriPluginEnabled") and (not cdi.get("enabled", True) or not toolkit):
        fail("cdi.nriPluginEnabled", True, "only with cdi.enabled and toolkit.enabled (chart validation)",
             "drop cdi.nriPluginEnabled")
    if values.get("clusterPolicy", {}).get("deployCR", True) and values.get("gpuCluster", {}).get("deployCR", False):
        fail("gpuCluster.deployCR", True, "not together with clusterPolicy.deployCR (chart validation)",
             "deploy one of them")
