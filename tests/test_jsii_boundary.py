"""The jsii boundary stays thin (karpenter_gpu._props.path_of, the overlay registry in
karpenter_gpu.overlays._node_overlay, feature-gate needs kept in Python in karpenter_gpu.addons.feature_gates,
cached parents in karpenter_gpu.cluster): building pools and overlays costs no jsii reads beyond what creating
the objects needs -- no construct path or root read at all, no findAll or addMetadata per overlay."""

from __future__ import annotations

import collections
from collections.abc import Iterator

import cdk8s
import pytest
from jsii._kernel.providers import process

from karpenter_gpu import (AmiAlias, GpuInferencePool, GpuNodeClass, KarpenterGpuError, NodeOverlayDiscourage,
                           PriceAdjustment, RootVolume)
from karpenter_gpu._construct_tree import path_of
from karpenter_gpu.cluster import Cluster


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


def _charts(app: cdk8s.App) -> list[cdk8s.Chart]:
    # One cluster per environment: the same object names in each (karpenter_gpu.cluster).
    return [cdk8s.Chart(Cluster(app, f"cluster-{i}"), f"env-{i}") for i in range(3)]


#: jsii requests for the three environments below (24 objects: 3 x (a node class, 6 pools, an overlay)):
#: per object a Construct, an ApiObject, its JSON patch and the patch's creation (96); the parent of each
#: plain cdk8s Chart and of the App, read once (node + scope: 8), since the library's own constructs
#: remember the scope they were given (cluster.remember_parent); one validation per cluster and for the
#: App (Object + addValidation, and the node where it was not read already: 11; each construct's Node is read
#: once, _props.node_of). A rise is a regression.
REQUESTS = 115


def test_building_reads_no_paths_roots_or_metadata(requests: collections.Counter) -> None:
    _environment(cdk8s.Chart(cdk8s.App(), "warm"), pools=1, weight=1)  # first use of each binding: its GVK
    app = cdk8s.App()
    charts = _charts(app)
    requests.clear()
    for i, chart in enumerate(charts):
        _environment(chart, pools=6, weight=i + 1)
    assert requests[("GetRequest", "path")] == 0  # paths only for error messages
    assert requests[("GetRequest", "root")] == 0  # from the cached parents
    assert requests[("InvokeRequest", "addMetadata")] == 0  # gate needs are kept in Python
    assert requests[("InvokeRequest", "findAll")] == 0  # the overlay weight check reads the registry
    assert sum(requests.values()) == REQUESTS, sorted(requests.items())


def test_an_error_still_names_the_construct_path() -> None:
    chart = _charts(cdk8s.App())[0]
    _environment(chart, pools=1, weight=1)
    with pytest.raises(KarpenterGpuError) as err:
        NodeOverlayDiscourage(chart, "Again", name="again", weight=1, instance_types=("g5.12xlarge",),
                              price_adjustment=PriceAdjustment.percent(30))
    assert err.value.code == "KG183" and err.value.path == "cluster-0/env-0/Again"
    assert isinstance(err.value.path, str) and "cluster-0/env-0/Discourage" in str(err.value)


def test_path_of_reads_the_scope_path_only_when_formatted(requests: collections.Counter) -> None:
    chart = cdk8s.Chart(cdk8s.App(), "lazy")
    requests.clear()
    path = path_of(chart, "Pool")
    assert sum(requests.values()) == 0
    assert f"{path}" == "lazy/Pool" and requests[("GetRequest", "path")] == 1


def test_path_of_names_the_child() -> None:
    app = cdk8s.App()
    chart = cdk8s.Chart(app, "env")
    assert path_of(chart, "Pool") == "env/Pool" and path_of(app, "env") == "env"


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


def test_every_public_construct_remembers_its_parent() -> None:
    """A construct that does not would cost two jsii reads the first time its cluster is looked up."""
    import karpenter_gpu
    from constructs import Construct

    from karpenter_gpu.cluster import ScopedConstruct

    public = [getattr(karpenter_gpu, name) for name in karpenter_gpu.__all__]
    classes = [c for c in public if isinstance(c, type) and issubclass(c, Construct)]
    assert len(classes) >= 12
    app = cdk8s.App()
    platform_scope = Cluster(app, "c")
    # GpuPlatform is a cdk8s Chart: it records its scope itself.
    forgetful = [c.__name__ for c in classes if not issubclass(c, ScopedConstruct) and c is not karpenter_gpu.GpuPlatform]
    assert forgetful == []
    assert platform_scope._kg_parent is app  # type: ignore[attr-defined]
    from stacks import dev

    assert karpenter_gpu.GpuPlatform(platform_scope, props=dev.CONFIG)._kg_parent is platform_scope  # type: ignore[attr-defined]


def test_a_synth_reads_each_clusters_tree_once_per_change_not_once_per_question(requests: collections.Counter,
                                                                                  tmp_path) -> None:
    """Derived values ask for a cluster's pools dozens of times per synth (GPU Operator tolerations, monitoring,
    Karpenter values), and each answer was a findAll handing back every construct of the tree: 93 for the prod
    platform, 2,912 requests for the four environments. Now a cluster's members are read once per change of its
    tree and per synth-time pass (karpenter_gpu.cluster.members)."""
    import stacks
    from karpenter_gpu import synth

    requests.clear()
    synth([stacks.prod.CONFIG], tmp_path / "dist")
    assert requests[("InvokeRequest", "findAll")] <= 20, requests[("InvokeRequest", "findAll")]
    assert requests[("GetRequest", "path")] <= 30, requests[("GetRequest", "path")]
