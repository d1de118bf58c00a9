"""FluxHelmReleases → a Flux ``HelmRepository`` (source.toolkit.fluxcd.io/v1) per chart repository and a
``HelmRelease`` (helm.toolkit.fluxcd.io/v2) per Helm chart the cluster renders values for: the chart at the version
its values construct pins, the values inline, rendered at synth from the final tree."""

from __future__ import annotations

from typing import Any

from constructs import Construct
from typing_extensions import TypedDict, Unpack

from karpenter_gpu._construct_tree import path_of
from karpenter_gpu._props import DnsLabel, Props, build
from karpenter_gpu._signature import ConstructSignature
from karpenter_gpu.addons.chart_delivery import NAMESPACES, ChartDelivery, chart_source, release_name
from karpenter_gpu.addons.helm_values import HelmValues

SOURCE_API = "source.toolkit.fluxcd.io/v1"
HELM_API = "helm.toolkit.fluxcd.io/v2"


class FluxHelmReleasesProps(Props):
    """Props of :class:`FluxHelmReleases`."""

    #: Namespace of the HelmRepository and HelmRelease objects (Flux's). Default: "flux-system".
    namespace: DnsLabel = "flux-system"
    #: How often Flux reconciles the releases and checks the repositories. Default: "10m".
    interval: str = "10m"


class FluxHelmReleasesKwargs(TypedDict, total=False):
    """The keyword props of :class:`FluxHelmReleases`: the fields of :class:`FluxHelmReleasesProps`."""

    namespace: str
    interval: str


class FluxHelmReleases(ChartDelivery):
    """Flux HelmRepositories and HelmReleases that install the cluster's charts at their pinned versions, values
    inline.

    Opt-in: ``PlatformConfig(gitops=FluxHelmReleasesProps())``, or in your own chart::

        FluxHelmReleases(chart, "GitOps", namespace="flux-system")

    Each ``HelmRelease`` is named after its chart (``karpenter``, ``gpu-operator``), installs it into the chart's
    namespace (created on install; CRDs created and replaced on upgrade), at the chart version its values
    construct pins, with the values inline; each ``HelmRepository`` is named after its repository (``karpenter``,
    an OCI registry; ``nvidia``).
    """

    __signature__ = ConstructSignature()

    def __init__(self, scope: Construct, id: str, *, props: FluxHelmReleasesProps | None = None,
                 **kwargs: Unpack[FluxHelmReleasesKwargs]) -> None:
        self.props = build(FluxHelmReleasesProps, path_of(scope, id), props, **kwargs)
        self._repositories: set[str] = set()
        super().__init__(scope, id)

    def release(self, helm: HelmValues) -> None:
        source, name, ns = chart_source(helm.chart), release_name(helm), self.props.namespace
        if source.repository_name not in self._repositories:
            self._repositories.add(source.repository_name)
            repository = {"interval": self.props.interval, "url": source.repository}
            if source.oci:
                repository["type"] = "oci"
            self.emit(f"HelmRepository-{source.repository_name}", SOURCE_API, "HelmRepository",
                      source.repository_name, ns, lambda: dict(repository))
        self.emit(f"HelmRelease-{name}", HELM_API, "HelmRelease", name, ns, lambda: self.spec(helm))

    def spec(self, helm: HelmValues) -> dict[str, Any]:
        """The HelmRelease's spec for ``helm``'s chart, values as they are rendered now."""
        source, name = chart_source(helm.chart), release_name(helm)
        return {
            "interval": self.props.interval,
            "releaseName": name,
            "targetNamespace": NAMESPACES.get(name, name),
            "install": {"createNamespace": True, "crds": "CreateReplace"},
            "upgrade": {"crds": "CreateReplace"},
            "chart": {"spec": {"chart": source.chart, "version": helm.version,
                               "sourceRef": {"kind": "HelmRepository", "name": source.repository_name,
                                             "namespace": self.props.namespace}}},
            "values": helm.values,
        }
