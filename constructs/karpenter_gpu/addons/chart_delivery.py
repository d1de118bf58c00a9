"""What GitOps delivery of a cluster's Helm charts shares: where each chart comes from, and the base both
delivery constructs extend (:class:`~karpenter_gpu.addons.gitops_argocd.ArgoCdApplications`,
:class:`~karpenter_gpu.addons.gitops_flux.FluxHelmReleases`).

A delivery construct makes one release per :class:`~karpenter_gpu.addons.helm_values.HelmValues` of its cluster,
at the chart and version that values construct pins (so no version is written twice) with its values inline,
rendered at synth from the final tree like the values files themselves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import cdk8s
from constructs import Construct

from karpenter_gpu import cluster as _cluster
from karpenter_gpu._api_object import _Derived
from karpenter_gpu.addons.helm_values import HelmValues
from karpenter_gpu.cluster import ScopedConstruct, members_of, register_derived
from karpenter_gpu.errors import KarpenterGpuError

#: Helm repository aliases of the charts the constructs name as ``<alias>/<chart>``, and their URLs.
REPOSITORIES = {"nvidia": "https://helm.ngc.nvidia.com/nvidia"}

#: The namespace each chart is installed in by default (the release name otherwise).
NAMESPACES = {"karpenter": "karpenter", "gpu-operator": "gpu-operator", "neuron-helm-chart": "kube-system"}


@dataclass(frozen=True)
class ChartSource:
    """A chart as a GitOps tool fetches it: the repository URL, whether it is an OCI registry, the chart name."""

    repository: str
    oci: bool
    chart: str
    #: A short name for the repository (an object name): the OCI path's last part, or the Helm alias.
    repository_name: str


def chart_source(chart: str) -> ChartSource:
    """``oci://host/path/name`` or ``<alias>/<name>`` (an alias of :data:`REPOSITORIES`) as a fetchable source."""
    if chart.startswith("oci://"):
        repository, _, name = chart.rpartition("/")
        return ChartSource(repository, True, name, repository.rpartition("/")[2])
    alias, _, name = chart.partition("/")
    if alias not in REPOSITORIES or not name:
        raise KarpenterGpuError("KG233", prop="chart", value=chart,
                                allowed=f"oci://<registry>/<path>/<chart> or <alias>/<chart> with an alias of "
                                        f"{sorted(REPOSITORIES)}",
                                fix="name the chart by an OCI reference, or deliver this release yourself")
    return ChartSource(REPOSITORIES[alias], False, name, alias)


class ChartDelivery(ScopedConstruct):
    """Base of the GitOps delivery constructs: one release per HelmValues of the cluster, made at synth
    (:meth:`materialize`) so values constructs created later are delivered too."""

    def __init__(self, scope: Construct, id: str) -> None:
        _cluster.require_chart(scope, f"{scope.node.path}/{id}", type(self).__name__)
        super().__init__(scope, id)
        self._made: set[str] = set()
        register_derived(self)

    def releases(self) -> list[HelmValues]:
        """The values constructs of the cluster, by file name (one release each)."""
        return sorted(members_of(self, HelmValues), key=lambda v: v.file_name)

    def release(self, helm: HelmValues) -> None:
        """Create the objects that deliver ``helm``'s chart (a subclass)."""
        raise NotImplementedError

    def materialize(self) -> None:
        for helm in self.releases():
            if helm.file_name not in self._made:
                self._made.add(helm.file_name)
                self.release(helm)

    def check_final(self) -> None:
        for helm in self.releases():
            chart_source(helm.chart)

    def emit(self, id: str, api_version: str, kind: str, name: str, namespace: str,
             render: Callable[[], dict[str, Any]]) -> cdk8s.ApiObject:
        """One object whose spec is rendered at synth; part of the cluster's duplicate check (KG171)."""
        scope = Construct(self, id)
        identity = (api_version, kind, namespace, name)
        _cluster.register_object(scope, identity, lambda: f"{scope.node.path}/Resource")
        obj = _Derived(scope, "Resource", render=render, api_version=api_version, kind=kind,
                       metadata=cdk8s.ApiObjectMetadata(name=name, namespace=namespace))
        _cluster.remember_identity(obj, identity)
        _cluster.tree_changed()
        return obj


def release_name(helm: HelmValues) -> str:
    """The release (and object) name of a values construct's chart: the chart's own name."""
    return chart_source(helm.chart).chart


def delivered(construct: Construct) -> bool:
    """Whether the cluster of ``construct`` delivers its charts through GitOps (a :class:`ChartDelivery`)."""
    return bool(members_of(construct, ChartDelivery))
