"""ArgoCdApplications → one Argo CD ``Application`` (argoproj.io/v1alpha1) per Helm chart the cluster renders values
for (Karpenter, the GPU Operator, the Neuron device plugin): the chart at the version its values construct pins,
the values inline (``spec.source.helm.valuesObject``), rendered at synth from the final tree."""

from __future__ import annotations

from typing import Any

from constructs import Construct
from pydantic import StrictBool
from typing_extensions import TypedDict, Unpack

from karpenter_gpu._construct_tree import path_of
from karpenter_gpu._props import DnsLabel, Props, build
from karpenter_gpu._signature import ConstructSignature
from karpenter_gpu.addons.chart_delivery import NAMESPACES, ChartDelivery, chart_source, release_name
from karpenter_gpu.addons.helm_values import HelmValues

API_VERSION = "argoproj.io/v1alpha1"


class ArgoCdApplicationsProps(Props):
    """Props of :class:`ArgoCdApplications`."""

    #: Namespace Argo CD runs in and reads Applications from. Default: "argocd".
    namespace: DnsLabel = "argocd"
    #: The Argo CD project of the Applications. Default: "default".
    project: DnsLabel = "default"
    #: The cluster the charts are installed into. Default: "https://kubernetes.default.svc" (Argo CD's own).
    destination_server: str = "https://kubernetes.default.svc"
    #: Sync on every change (``syncPolicy.automated`` with self-heal; never prune). Default: True.
    automated: StrictBool = True


class ArgoCdApplicationsKwargs(TypedDict, total=False):
    """The keyword props of :class:`ArgoCdApplications`: the fields of :class:`ArgoCdApplicationsProps`."""

    namespace: str
    project: str
    destination_server: str
    automated: bool


class ArgoCdApplications(ChartDelivery):
    """Argo CD Applications that install the cluster's charts at their pinned versions, values inline.

    Opt-in: ``PlatformConfig(gitops=ArgoCdApplicationsProps())``, or in your own chart::

        ArgoCdApplications(chart, "GitOps", namespace="argocd")

    Each ``Application`` is named after its chart (``karpenter``, ``gpu-operator``), installs it into the
    chart's namespace (``CreateNamespace=true``, server-side apply for the large CRDs), at the chart version its
    values construct pins, with the values inline. An OCI chart (Karpenter's) needs an Argo CD repository of
    type helm with ``enableOCI: true`` for its registry (``public.ecr.aws``).
    """

    __signature__ = ConstructSignature()

    def __init__(self, scope: Construct, id: str, *, props: ArgoCdApplicationsProps | None = None,
                 **kwargs: Unpack[ArgoCdApplicationsKwargs]) -> None:
        self.props = build(ArgoCdApplicationsProps, path_of(scope, id), props, **kwargs)
        super().__init__(scope, id)

    def release(self, helm: HelmValues) -> None:
        name = release_name(helm)
        self.emit(f"Application-{name}", API_VERSION, "Application", name, self.props.namespace,
                  lambda: self.spec(helm))

    def spec(self, helm: HelmValues) -> dict[str, Any]:
        """The Application's spec for ``helm``'s chart, values as they are rendered now."""
        p, source, name = self.props, chart_source(helm.chart), release_name(helm)
        spec: dict[str, Any] = {
            "project": p.project,
            "source": {"repoURL": source.repository.removeprefix("oci://"), "chart": source.chart,
                       "targetRevision": helm.version,
                       "helm": {"releaseName": name, "valuesObject": helm.values}},
            "destination": {"server": p.destination_server, "namespace": NAMESPACES.get(name, name)},
            "syncPolicy": {"syncOptions": ["CreateNamespace=true", "ServerSideApply=true"]},
        }
        if p.automated:
            spec["syncPolicy"]["automated"] = {"prune": False, "selfHeal": True}
        return spec
