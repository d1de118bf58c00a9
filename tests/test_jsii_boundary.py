"""The jsii boundary stays thin (karpenter_gpu._props.path_of / root_of, the overlay registry in
karpenter_gpu.overlays._node_overlay): building pools and overlays costs no per-object jsii reads
beyond what creating the objects needs -- no construct path read per object, no findAll per overlay."""

from __future__ import annotations

import collections
from collections.abc import Iterator

import cdk8s
import pytest
from jsii._kernel.providers import process

from karpenter_gpu import (AmiAlias, GpuInferencePool, GpuNodeClass, KarpenterGpuError, NodeOverlayDiscourage,
                           PriceAdjustment, RootVolume)
from karpenter_gpu._props import path_of, root_of


@pytest.fixture
def requests(monkeypatch: pytest.MonkeyPatch) -> Iterator[collections.Counter]:
    """Counts the jsii kernel requests by kind and name, e.g. ('GetRequest', 'path')."""
    seen: collections.Counter = collections.Counter()
    send = process._NodeProcess.send

    def counting(self, request, response_type):  # type: ignore[no-untyped-def]
        name = getattr(request, "property", None) or getattr(request, "method", None) or getattr(request, "fqn", "")
        seen[(type(request).__name__, name)] += 1
        return send(self, request, response_type)

    monkeypatch.setattr(process._NodeProcess, "send", counting)
    yield seen


def _environment(chart: cdk8s.Chart, pools: int, weight: int) -> None:
    node_class = GpuNodeClass(chart, "Class", name="gpu", ami=AmiAlias.al2023("v20251103"), role="KarpenterNodeRole-x",
                              cluster_name="x", root_volume=RootVolume.inference())
    for j in range(pools):
        GpuInferencePool(chart, f"Pool{j}", node_class=node_class, name=f"gpu-{j}", gpu_limit=8)
    NodeOverlayDiscourage(chart, "Discourage", name=f"discourage-{weight}", weight=weight,
                          instance_types=("g5.12xlarge",), price_adjustment=PriceAdjustment.percent(30))


def test_paths_and_roots_are_read_once_per_scope_not_per_object(requests: collections.Counter) -> None:
    app = cdk8s.App()
    charts = [cdk8s.Chart(app, f"env-{i}") for i in range(3)]
    requests.clear()
    for i, chart in enumerate(charts):
        _environment(chart, pools=6, weight=i + 1)
    assert requests[("GetRequest", "path")] <= len(charts)
    assert requests[("GetRequest", "root")] <= len(charts)
    assert requests[("InvokeRequest", "findAll")] == 0  # the overlay weight check reads the registry


def test_path_of_names_the_child_and_root_of_the_app() -> None:
    app = cdk8s.App()
    chart = cdk8s.Chart(app, "env")
    assert path_of(chart, "Pool") == "env/Pool" and path_of(app, "env") == "env"
    assert root_of(chart) is app


def test_overlay_registry_sees_overlays_of_other_charts_and_js_created_apps() -> None:
    app = cdk8s.Testing.app()  # its Python proxy is not the object chart.node.root returns
    NodeOverlayDiscourage(cdk8s.Chart(app, "one"), "Overlay", name="a", weight=5, instance_types=("g5.12xlarge",),
                          price_adjustment=PriceAdjustment.percent(30))
    with pytest.raises(KarpenterGpuError) as err:
        NodeOverlayDiscourage(cdk8s.Chart(app, "two"), "Overlay", name="b", weight=5,
                              instance_types=("g5.12xlarge",), price_adjustment=PriceAdjustment.percent(30))
    assert err.value.code == "KG183" and "one/Overlay" in str(err.value)
    # Another app is another registry: the same weight is fine there.
    NodeOverlayDiscourage(cdk8s.Chart(cdk8s.Testing.app(), "three"), "Overlay", name="a", weight=5,
                          instance_types=("g5.12xlarge",), price_adjustment=PriceAdjustment.percent(30))
