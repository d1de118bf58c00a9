from __future__ import annotations

from pkgutil import extend_path
__path__ = extend_path(__path__, __name__)

import abc
import builtins
import datetime
import enum
import typing

import jsii
import publication
import typing_extensions

from jsii._type_checking import cached_type_hints, check_type


from ._jsii import *

class _LazyImport:
    def __init__(self, module_name: str) -> None:
        self._module_name = module_name
        self._module: typing.Any = None
    def __getattr__(self, name: str) -> typing.Any:
        if self._module is None:
            import importlib
            self._module = importlib.import_module(self._module_name)
        return getattr(self._module, name)

if typing.TYPE_CHECKING:

    import cdk8s as _cdk8s_d3d9af27
    import constructs as _constructs_77d1e7e8
else:

    _cdk8s_d3d9af27 = _LazyImport("cdk8s")
    _constructs_77d1e7e8 = _LazyImport("constructs")


class ServiceMonitor(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitor",
):
    '''The ``ServiceMonitor`` custom resource definition (CRD) defines how ``Prometheus`` and ``PrometheusAgent`` can scrape metrics from a group of services.

    Among other things, it allows to specify:
    The services to scrape via label selectors.
    The container ports to scrape.
    Authentication credentials to use.
    Target and metric relabeling.

    ``Prometheus`` and ``PrometheusAgent`` objects select ``ServiceMonitor`` objects using label and namespace selectors.

    :schema: ServiceMonitor
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        spec: typing.Union["ServiceMonitorSpec", typing.Dict[builtins.str, typing.Any]],
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "ServiceMonitor" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param spec: spec defines the specification of desired Service selection for target discovery by Prometheus.
        :param metadata: 
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__e20c5dea9daa8211b8cc8e02071fbbbe0563f6450ec2a66e99a463c4dee2749a)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = ServiceMonitorProps(spec=spec, metadata=metadata)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        spec: typing.Union["ServiceMonitorSpec", typing.Dict[builtins.str, typing.Any]],
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "ServiceMonitor".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param spec: spec defines the specification of desired Service selection for target discovery by Prometheus.
        :param metadata: 
        '''
        props = ServiceMonitorProps(spec=spec, metadata=metadata)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "ServiceMonitor".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorProps",
    jsii_struct_bases=[],
    name_mapping={"spec": "spec", "metadata": "metadata"},
)
class ServiceMonitorProps:
    def __init__(
        self,
        *,
        spec: typing.Union["ServiceMonitorSpec", typing.Dict[builtins.str, typing.Any]],
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''The ``ServiceMonitor`` custom resource definition (CRD) defines how ``Prometheus`` and ``PrometheusAgent`` can scrape metrics from a group of services.

        Among other things, it allows to specify:

        - The services to scrape via label selectors.
        - The container ports to scrape.
        - Authentication credentials to use.
        - Target and metric relabeling.

        ``Prometheus`` and ``PrometheusAgent`` objects select ``ServiceMonitor`` objects using label and namespace selectors.

        :param spec: spec defines the specification of desired Service selection for target discovery by Prometheus.
        :param metadata: 

        :schema: ServiceMonitor
        '''
        if isinstance(spec, dict):
            spec = ServiceMonitorSpec(**spec)
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__045c248ffb9300a64c0856a02d6dfe9dac56d934dc6ca2ccfd9a414fa22aba40)
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "spec": spec,
        }
        if metadata is not None:
            self._values["metadata"] = metadata

    @builtins.property
    def spec(self) -> "ServiceMonitorSpec":
        '''spec defines the specification of desired Service selection for target discovery by Prometheus.

        :schema: ServiceMonitor#spec
        '''
        result = self._values.get("spec")
        assert result is not None, "Required property 'spec' is missing"
        return typing.cast("ServiceMonitorSpec", result)

    @builtins.property
    def metadata(self) -> typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"]:
        '''
        :schema: ServiceMonitor#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorProps(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpec",
    jsii_struct_bases=[],
    name_mapping={
        "endpoints": "endpoints",
        "selector": "selector",
        "attach_metadata": "attachMetadata",
        "body_size_limit": "bodySizeLimit",
        "convert_classic_histograms_to_nhcb": "convertClassicHistogramsToNhcb",
        "fallback_scrape_protocol": "fallbackScrapeProtocol",
        "job_label": "jobLabel",
        "keep_dropped_targets": "keepDroppedTargets",
        "label_limit": "labelLimit",
        "label_name_length_limit": "labelNameLengthLimit",
        "label_value_length_limit": "labelValueLengthLimit",
        "namespace_selector": "namespaceSelector",
        "native_histogram_bucket_limit": "nativeHistogramBucketLimit",
        "native_histogram_min_bucket_factor": "nativeHistogramMinBucketFactor",
        "pod_target_labels": "podTargetLabels",
        "sample_limit": "sampleLimit",
        "scrape_class": "scrapeClass",
        "scrape_classic_histograms": "scrapeClassicHistograms",
        "scrape_native_histograms": "scrapeNativeHistograms",
        "scrape_protocols": "scrapeProtocols",
        "selector_mechanism": "selectorMechanism",
        "service_discovery_role": "serviceDiscoveryRole",
        "target_labels": "targetLabels",
        "target_limit": "targetLimit",
    },
)
class ServiceMonitorSpec:
    def __init__(
        self,
        *,
        endpoints: typing.Sequence[typing.Union["ServiceMonitorSpecEndpoints", typing.Dict[builtins.str, typing.Any]]],
        selector: typing.Union["ServiceMonitorSpecSelector", typing.Dict[builtins.str, typing.Any]],
        attach_metadata: typing.Optional[typing.Union["ServiceMonitorSpecAttachMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        body_size_limit: typing.Optional[builtins.str] = None,
        convert_classic_histograms_to_nhcb: typing.Optional[builtins.bool] = None,
        fallback_scrape_protocol: typing.Optional["ServiceMonitorSpecFallbackScrapeProtocol"] = None,
        job_label: typing.Optional[builtins.str] = None,
        keep_dropped_targets: typing.Optional[jsii.Number] = None,
        label_limit: typing.Optional[jsii.Number] = None,
        label_name_length_limit: typing.Optional[jsii.Number] = None,
        label_value_length_limit: typing.Optional[jsii.Number] = None,
        namespace_selector: typing.Optional[typing.Union["ServiceMonitorSpecNamespaceSelector", typing.Dict[builtins.str, typing.Any]]] = None,
        native_histogram_bucket_limit: typing.Optional[jsii.Number] = None,
        native_histogram_min_bucket_factor: typing.Optional["ServiceMonitorSpecNativeHistogramMinBucketFactor"] = None,
        pod_target_labels: typing.Optional[typing.Sequence[builtins.str]] = None,
        sample_limit: typing.Optional[jsii.Number] = None,
        scrape_class: typing.Optional[builtins.str] = None,
        scrape_classic_histograms: typing.Optional[builtins.bool] = None,
        scrape_native_histograms: typing.Optional[builtins.bool] = None,
        scrape_protocols: typing.Optional[typing.Sequence["ServiceMonitorSpecScrapeProtocols"]] = None,
        selector_mechanism: typing.Optional["ServiceMonitorSpecSelectorMechanism"] = None,
        service_discovery_role: typing.Optional["ServiceMonitorSpecServiceDiscoveryRole"] = None,
        target_labels: typing.Optional[typing.Sequence[builtins.str]] = None,
        target_limit: typing.Optional[jsii.Number] = None,
    ) -> None:
        '''spec defines the specification of desired Service selection for target discovery by Prometheus.

        :param endpoints: endpoints defines the list of endpoints part of this ServiceMonitor. Defines how to scrape metrics from Kubernetes `Endpoints <https://kubernetes.io/docs/concepts/services-networking/service/#endpoints>`_ objects. In most cases, an Endpoints object is backed by a Kubernetes `Service <https://kubernetes.io/docs/concepts/services-networking/service/>`_ object with the same name and labels.
        :param selector: selector defines the label selector to select the Kubernetes ``Endpoints`` objects to scrape metrics from.
        :param attach_metadata: attachMetadata defines additional metadata which is added to the discovered targets. It requires Prometheus >= v2.37.0.
        :param body_size_limit: bodySizeLimit when defined, bodySizeLimit specifies a job level limit on the size of uncompressed response body that will be accepted by Prometheus. It requires Prometheus >= v2.28.0.
        :param convert_classic_histograms_to_nhcb: convertClassicHistogramsToNHCB defines whether to convert all scraped classic histograms into a native histogram with custom buckets. It requires Prometheus >= v3.0.0.
        :param fallback_scrape_protocol: fallbackScrapeProtocol defines the protocol to use if a scrape returns blank, unparseable, or otherwise invalid Content-Type. It requires Prometheus >= v3.0.0.
        :param job_label: jobLabel selects the label from the associated Kubernetes ``Service`` object which will be used as the ``job`` label for all metrics. For example if ``jobLabel`` is set to ``foo`` and the Kubernetes ``Service`` object is labeled with ``foo: bar``, then Prometheus adds the ``job="bar"`` label to all ingested metrics. If the value of this field is empty or if the label doesn't exist for the given Service, the ``job`` label of the metrics defaults to the name of the associated Kubernetes ``Service``.
        :param keep_dropped_targets: keepDroppedTargets defines the per-scrape limit on the number of targets dropped by relabeling that will be kept in memory. 0 means no limit. It requires Prometheus >= v2.47.0.
        :param label_limit: labelLimit defines the per-scrape limit on number of labels that will be accepted for a sample. It requires Prometheus >= v2.27.0.
        :param label_name_length_limit: labelNameLengthLimit defines the per-scrape limit on length of labels name that will be accepted for a sample. It requires Prometheus >= v2.27.0.
        :param label_value_length_limit: labelValueLengthLimit defines the per-scrape limit on length of labels value that will be accepted for a sample. It requires Prometheus >= v2.27.0.
        :param namespace_selector: namespaceSelector defines in which namespace(s) Prometheus should discover the services. By default, the services are discovered in the same namespace as the ``ServiceMonitor`` object but it is possible to select pods across different/all namespaces.
        :param native_histogram_bucket_limit: nativeHistogramBucketLimit defines ff there are more than this many buckets in a native histogram, buckets will be merged to stay within the limit. It requires Prometheus >= v2.45.0.
        :param native_histogram_min_bucket_factor: nativeHistogramMinBucketFactor defines if the growth factor of one bucket to the next is smaller than this, buckets will be merged to increase the factor sufficiently. It requires Prometheus >= v2.50.0.
        :param pod_target_labels: podTargetLabels defines the labels which are transferred from the associated Kubernetes ``Pod`` object onto the ingested metrics.
        :param sample_limit: sampleLimit defines a per-scrape limit on the number of scraped samples that will be accepted.
        :param scrape_class: scrapeClass defines the scrape class to apply.
        :param scrape_classic_histograms: scrapeClassicHistograms defines whether to scrape a classic histogram that is also exposed as a native histogram. It requires Prometheus >= v2.45.0. Notice: ``scrapeClassicHistograms`` corresponds to the ``always_scrape_classic_histograms`` field in the Prometheus configuration.
        :param scrape_native_histograms: scrapeNativeHistograms defines whether to enable scraping of native histograms. It requires Prometheus >= v3.8.0.
        :param scrape_protocols: scrapeProtocols defines the protocols to negotiate during a scrape. It tells clients the protocols supported by Prometheus in order of preference (from most to least preferred). If unset, Prometheus uses its default value. It requires Prometheus >= v2.49.0.
        :param selector_mechanism: selectorMechanism defines the mechanism used to select the endpoints to scrape. By default, the selection process relies on relabel configurations to filter the discovered targets. Alternatively, you can opt in for role selectors, which may offer better efficiency in large clusters. Which strategy is best for your use case needs to be carefully evaluated. It requires Prometheus >= v2.17.0.
        :param service_discovery_role: serviceDiscoveryRole defines the service discovery role used to discover targets. If set, the value should be either "Endpoints" or "EndpointSlice". Otherwise it defaults to the value defined in the Prometheus/PrometheusAgent resource.
        :param target_labels: targetLabels defines the labels which are transferred from the associated Kubernetes ``Service`` object onto the ingested metrics.
        :param target_limit: targetLimit defines a limit on the number of scraped targets that will be accepted.

        :schema: ServiceMonitorSpec
        '''
        if isinstance(selector, dict):
            selector = ServiceMonitorSpecSelector(**selector)
        if isinstance(attach_metadata, dict):
            attach_metadata = ServiceMonitorSpecAttachMetadata(**attach_metadata)
        if isinstance(namespace_selector, dict):
            namespace_selector = ServiceMonitorSpecNamespaceSelector(**namespace_selector)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__f1fe070c1892370c9eaed357925ab9af7bf3028a17e751031cfe587a18ea597a)
            check_type(argname="argument endpoints", value=endpoints, expected_type=type_hints["endpoints"])
            check_type(argname="argument selector", value=selector, expected_type=type_hints["selector"])
            check_type(argname="argument attach_metadata", value=attach_metadata, expected_type=type_hints["attach_metadata"])
            check_type(argname="argument body_size_limit", value=body_size_limit, expected_type=type_hints["body_size_limit"])
            check_type(argname="argument convert_classic_histograms_to_nhcb", value=convert_classic_histograms_to_nhcb, expected_type=type_hints["convert_classic_histograms_to_nhcb"])
            check_type(argname="argument fallback_scrape_protocol", value=fallback_scrape_protocol, expected_type=type_hints["fallback_scrape_protocol"])
            check_type(argname="argument job_label", value=job_label, expected_type=type_hints["job_label"])
            check_type(argname="argument keep_dropped_targets", value=keep_dropped_targets, expected_type=type_hints["keep_dropped_targets"])
            check_type(argname="argument label_limit", value=label_limit, expected_type=type_hints["label_limit"])
            check_type(argname="argument label_name_length_limit", value=label_name_length_limit, expected_type=type_hints["label_name_length_limit"])
            check_type(argname="argument label_value_length_limit", value=label_value_length_limit, expected_type=type_hints["label_value_length_limit"])
            check_type(argname="argument namespace_selector", value=namespace_selector, expected_type=type_hints["namespace_selector"])
            check_type(argname="argument native_histogram_bucket_limit", value=native_histogram_bucket_limit, expected_type=type_hints["native_histogram_bucket_limit"])
            check_type(argname="argument native_histogram_min_bucket_factor", value=native_histogram_min_bucket_factor, expected_type=type_hints["native_histogram_min_bucket_factor"])
            check_type(argname="argument pod_target_labels", value=pod_target_labels, expected_type=type_hints["pod_target_labels"])
            check_type(argname="argument sample_limit", value=sample_limit, expected_type=type_hints["sample_limit"])
            check_type(argname="argument scrape_class", value=scrape_class, expected_type=type_hints["scrape_class"])
            check_type(argname="argument scrape_classic_histograms", value=scrape_classic_histograms, expected_type=type_hints["scrape_classic_histograms"])
            check_type(argname="argument scrape_native_histograms", value=scrape_native_histograms, expected_type=type_hints["scrape_native_histograms"])
            check_type(argname="argument scrape_protocols", value=scrape_protocols, expected_type=type_hints["scrape_protocols"])
            check_type(argname="argument selector_mechanism", value=selector_mechanism, expected_type=type_hints["selector_mechanism"])
            check_type(argname="argument service_discovery_role", value=service_discovery_role, expected_type=type_hints["service_discovery_role"])
            check_type(argname="argument target_labels", value=target_labels, expected_type=type_hints["target_labels"])
            check_type(argname="argument target_limit", value=target_limit, expected_type=type_hints["target_limit"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "endpoints": endpoints,
            "selector": selector,
        }
        if attach_metadata is not None:
            self._values["attach_metadata"] = attach_metadata
        if body_size_limit is not None:
            self._values["body_size_limit"] = body_size_limit
        if convert_classic_histograms_to_nhcb is not None:
            self._values["convert_classic_histograms_to_nhcb"] = convert_classic_histograms_to_nhcb
        if fallback_scrape_protocol is not None:
            self._values["fallback_scrape_protocol"] = fallback_scrape_protocol
        if job_label is not None:
            self._values["job_label"] = job_label
        if keep_dropped_targets is not None:
            self._values["keep_dropped_targets"] = keep_dropped_targets
        if label_limit is not None:
            self._values["label_limit"] = label_limit
        if label_name_length_limit is not None:
            self._values["label_name_length_limit"] = label_name_length_limit
        if label_value_length_limit is not None:
            self._values["label_value_length_limit"] = label_value_length_limit
        if namespace_selector is not None:
            self._values["namespace_selector"] = namespace_selector
        if native_histogram_bucket_limit is not None:
            self._values["native_histogram_bucket_limit"] = native_histogram_bucket_limit
        if native_histogram_min_bucket_factor is not None:
            self._values["native_histogram_min_bucket_factor"] = native_histogram_min_bucket_factor
        if pod_target_labels is not None:
            self._values["pod_target_labels"] = pod_target_labels
        if sample_limit is not None:
            self._values["sample_limit"] = sample_limit
        if scrape_class is not None:
            self._values["scrape_class"] = scrape_class
        if scrape_classic_histograms is not None:
            self._values["scrape_classic_histograms"] = scrape_classic_histograms
        if scrape_native_histograms is not None:
            self._values["scrape_native_histograms"] = scrape_native_histograms
        if scrape_protocols is not None:
            self._values["scrape_protocols"] = scrape_protocols
        if selector_mechanism is not None:
            self._values["selector_mechanism"] = selector_mechanism
        if service_discovery_role is not None:
            self._values["service_discovery_role"] = service_discovery_role
        if target_labels is not None:
            self._values["target_labels"] = target_labels
        if target_limit is not None:
            self._values["target_limit"] = target_limit

    @builtins.property
    def endpoints(self) -> typing.List["ServiceMonitorSpecEndpoints"]:
        '''endpoints defines the list of endpoints part of this ServiceMonitor.

        Defines how to scrape metrics from Kubernetes `Endpoints <https://kubernetes.io/docs/concepts/services-networking/service/#endpoints>`_ objects.
        In most cases, an Endpoints object is backed by a Kubernetes `Service <https://kubernetes.io/docs/concepts/services-networking/service/>`_ object with the same name and labels.

        :schema: ServiceMonitorSpec#endpoints
        '''
        result = self._values.get("endpoints")
        assert result is not None, "Required property 'endpoints' is missing"
        return typing.cast(typing.List["ServiceMonitorSpecEndpoints"], result)

    @builtins.property
    def selector(self) -> "ServiceMonitorSpecSelector":
        '''selector defines the label selector to select the Kubernetes ``Endpoints`` objects to scrape metrics from.

        :schema: ServiceMonitorSpec#selector
        '''
        result = self._values.get("selector")
        assert result is not None, "Required property 'selector' is missing"
        return typing.cast("ServiceMonitorSpecSelector", result)

    @builtins.property
    def attach_metadata(self) -> typing.Optional["ServiceMonitorSpecAttachMetadata"]:
        '''attachMetadata defines additional metadata which is added to the discovered targets.

        It requires Prometheus >= v2.37.0.

        :schema: ServiceMonitorSpec#attachMetadata
        '''
        result = self._values.get("attach_metadata")
        return typing.cast(typing.Optional["ServiceMonitorSpecAttachMetadata"], result)

    @builtins.property
    def body_size_limit(self) -> typing.Optional[builtins.str]:
        '''bodySizeLimit when defined, bodySizeLimit specifies a job level limit on the size of uncompressed response body that will be accepted by Prometheus.

        It requires Prometheus >= v2.28.0.

        :schema: ServiceMonitorSpec#bodySizeLimit
        '''
        result = self._values.get("body_size_limit")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def convert_classic_histograms_to_nhcb(self) -> typing.Optional[builtins.bool]:
        '''convertClassicHistogramsToNHCB defines whether to convert all scraped classic histograms into a native histogram with custom buckets.

        It requires Prometheus >= v3.0.0.

        :schema: ServiceMonitorSpec#convertClassicHistogramsToNHCB
        '''
        result = self._values.get("convert_classic_histograms_to_nhcb")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def fallback_scrape_protocol(
        self,
    ) -> typing.Optional["ServiceMonitorSpecFallbackScrapeProtocol"]:
        '''fallbackScrapeProtocol defines the protocol to use if a scrape returns blank, unparseable, or otherwise invalid Content-Type.

        It requires Prometheus >= v3.0.0.

        :schema: ServiceMonitorSpec#fallbackScrapeProtocol
        '''
        result = self._values.get("fallback_scrape_protocol")
        return typing.cast(typing.Optional["ServiceMonitorSpecFallbackScrapeProtocol"], result)

    @builtins.property
    def job_label(self) -> typing.Optional[builtins.str]:
        '''jobLabel selects the label from the associated Kubernetes ``Service`` object which will be used as the ``job`` label for all metrics.

        For example if ``jobLabel`` is set to ``foo`` and the Kubernetes ``Service``
        object is labeled with ``foo: bar``, then Prometheus adds the ``job="bar"``
        label to all ingested metrics.

        If the value of this field is empty or if the label doesn't exist for
        the given Service, the ``job`` label of the metrics defaults to the name
        of the associated Kubernetes ``Service``.

        :schema: ServiceMonitorSpec#jobLabel
        '''
        result = self._values.get("job_label")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def keep_dropped_targets(self) -> typing.Optional[jsii.Number]:
        '''keepDroppedTargets defines the per-scrape limit on the number of targets dropped by relabeling that will be kept in memory.

        0 means no limit.

        It requires Prometheus >= v2.47.0.

        :schema: ServiceMonitorSpec#keepDroppedTargets
        '''
        result = self._values.get("keep_dropped_targets")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def label_limit(self) -> typing.Optional[jsii.Number]:
        '''labelLimit defines the per-scrape limit on number of labels that will be accepted for a sample.

        It requires Prometheus >= v2.27.0.

        :schema: ServiceMonitorSpec#labelLimit
        '''
        result = self._values.get("label_limit")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def label_name_length_limit(self) -> typing.Optional[jsii.Number]:
        '''labelNameLengthLimit defines the per-scrape limit on length of labels name that will be accepted for a sample.

        It requires Prometheus >= v2.27.0.

        :schema: ServiceMonitorSpec#labelNameLengthLimit
        '''
        result = self._values.get("label_name_length_limit")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def label_value_length_limit(self) -> typing.Optional[jsii.Number]:
        '''labelValueLengthLimit defines the per-scrape limit on length of labels value that will be accepted for a sample.

        It requires Prometheus >= v2.27.0.

        :schema: ServiceMonitorSpec#labelValueLengthLimit
        '''
        result = self._values.get("label_value_length_limit")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def namespace_selector(
        self,
    ) -> typing.Optional["ServiceMonitorSpecNamespaceSelector"]:
        '''namespaceSelector defines in which namespace(s) Prometheus should discover the services.

        By default, the services are discovered in the same namespace as the ``ServiceMonitor`` object but it is possible to select pods across different/all namespaces.

        :schema: ServiceMonitorSpec#namespaceSelector
        '''
        result = self._values.get("namespace_selector")
        return typing.cast(typing.Optional["ServiceMonitorSpecNamespaceSelector"], result)

    @builtins.property
    def native_histogram_bucket_limit(self) -> typing.Optional[jsii.Number]:
        '''nativeHistogramBucketLimit defines ff there are more than this many buckets in a native histogram, buckets will be merged to stay within the limit.

        It requires Prometheus >= v2.45.0.

        :schema: ServiceMonitorSpec#nativeHistogramBucketLimit
        '''
        result = self._values.get("native_histogram_bucket_limit")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def native_histogram_min_bucket_factor(
        self,
    ) -> typing.Optional["ServiceMonitorSpecNativeHistogramMinBucketFactor"]:
        '''nativeHistogramMinBucketFactor defines if the growth factor of one bucket to the next is smaller than this, buckets will be merged to increase the factor sufficiently.

        It requires Prometheus >= v2.50.0.

        :schema: ServiceMonitorSpec#nativeHistogramMinBucketFactor
        '''
        result = self._values.get("native_histogram_min_bucket_factor")
        return typing.cast(typing.Optional["ServiceMonitorSpecNativeHistogramMinBucketFactor"], result)

    @builtins.property
    def pod_target_labels(self) -> typing.Optional[typing.List[builtins.str]]:
        '''podTargetLabels defines the labels which are transferred from the associated Kubernetes ``Pod`` object onto the ingested metrics.

        :schema: ServiceMonitorSpec#podTargetLabels
        '''
        result = self._values.get("pod_target_labels")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    @builtins.property
    def sample_limit(self) -> typing.Optional[jsii.Number]:
        '''sampleLimit defines a per-scrape limit on the number of scraped samples that will be accepted.

        :schema: ServiceMonitorSpec#sampleLimit
        '''
        result = self._values.get("sample_limit")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def scrape_class(self) -> typing.Optional[builtins.str]:
        '''scrapeClass defines the scrape class to apply.

        :schema: ServiceMonitorSpec#scrapeClass
        '''
        result = self._values.get("scrape_class")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def scrape_classic_histograms(self) -> typing.Optional[builtins.bool]:
        '''scrapeClassicHistograms defines whether to scrape a classic histogram that is also exposed as a native histogram.

        It requires Prometheus >= v2.45.0.

        Notice: ``scrapeClassicHistograms`` corresponds to the ``always_scrape_classic_histograms`` field in the Prometheus configuration.

        :schema: ServiceMonitorSpec#scrapeClassicHistograms
        '''
        result = self._values.get("scrape_classic_histograms")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def scrape_native_histograms(self) -> typing.Optional[builtins.bool]:
        '''scrapeNativeHistograms defines whether to enable scraping of native histograms.

        It requires Prometheus >= v3.8.0.

        :schema: ServiceMonitorSpec#scrapeNativeHistograms
        '''
        result = self._values.get("scrape_native_histograms")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def scrape_protocols(
        self,
    ) -> typing.Optional[typing.List["ServiceMonitorSpecScrapeProtocols"]]:
        '''scrapeProtocols defines the protocols to negotiate during a scrape.

        It tells clients the
        protocols supported by Prometheus in order of preference (from most to least preferred).

        If unset, Prometheus uses its default value.

        It requires Prometheus >= v2.49.0.

        :schema: ServiceMonitorSpec#scrapeProtocols
        '''
        result = self._values.get("scrape_protocols")
        return typing.cast(typing.Optional[typing.List["ServiceMonitorSpecScrapeProtocols"]], result)

    @builtins.property
    def selector_mechanism(
        self,
    ) -> typing.Optional["ServiceMonitorSpecSelectorMechanism"]:
        '''selectorMechanism defines the mechanism used to select the endpoints to scrape.

        By default, the selection process relies on relabel configurations to filter the discovered targets.
        Alternatively, you can opt in for role selectors, which may offer better efficiency in large clusters.
        Which strategy is best for your use case needs to be carefully evaluated.

        It requires Prometheus >= v2.17.0.

        :schema: ServiceMonitorSpec#selectorMechanism
        '''
        result = self._values.get("selector_mechanism")
        return typing.cast(typing.Optional["ServiceMonitorSpecSelectorMechanism"], result)

    @builtins.property
    def service_discovery_role(
        self,
    ) -> typing.Optional["ServiceMonitorSpecServiceDiscoveryRole"]:
        '''serviceDiscoveryRole defines the service discovery role used to discover targets.

        If set, the value should be either "Endpoints" or "EndpointSlice".
        Otherwise it defaults to the value defined in the
        Prometheus/PrometheusAgent resource.

        :schema: ServiceMonitorSpec#serviceDiscoveryRole
        '''
        result = self._values.get("service_discovery_role")
        return typing.cast(typing.Optional["ServiceMonitorSpecServiceDiscoveryRole"], result)

    @builtins.property
    def target_labels(self) -> typing.Optional[typing.List[builtins.str]]:
        '''targetLabels defines the labels which are transferred from the associated Kubernetes ``Service`` object onto the ingested metrics.

        :schema: ServiceMonitorSpec#targetLabels
        '''
        result = self._values.get("target_labels")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    @builtins.property
    def target_limit(self) -> typing.Optional[jsii.Number]:
        '''targetLimit defines a limit on the number of scraped targets that will be accepted.

        :schema: ServiceMonitorSpec#targetLimit
        '''
        result = self._values.get("target_limit")
        return typing.cast(typing.Optional[jsii.Number], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecAttachMetadata",
    jsii_struct_bases=[],
    name_mapping={"node": "node"},
)
class ServiceMonitorSpecAttachMetadata:
    def __init__(self, *, node: typing.Optional[builtins.bool] = None) -> None:
        '''attachMetadata defines additional metadata which is added to the discovered targets.

        It requires Prometheus >= v2.37.0.

        :param node: node when set to true, Prometheus attaches node metadata to the discovered targets. The Prometheus service account must have the ``list`` and ``watch`` permissions on the ``Nodes`` objects. Node metadata labels are not automatically added to scraped metrics. They are exposed as ``__meta_kubernetes_node_*`` labels and can be copied to timeseries with relabeling configuration.

        :schema: ServiceMonitorSpecAttachMetadata
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__3f2e5f78700f3313c021fc47b34f0652309680c0fad710c6d30a345691f49373)
            check_type(argname="argument node", value=node, expected_type=type_hints["node"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if node is not None:
            self._values["node"] = node

    @builtins.property
    def node(self) -> typing.Optional[builtins.bool]:
        '''node when set to true, Prometheus attaches node metadata to the discovered targets.

        The Prometheus service account must have the ``list`` and ``watch``
        permissions on the ``Nodes`` objects.

        Node metadata labels are not automatically added to scraped metrics. They are
        exposed as ``__meta_kubernetes_node_*`` labels and can be copied to timeseries
        with relabeling configuration.

        :schema: ServiceMonitorSpecAttachMetadata#node
        '''
        result = self._values.get("node")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecAttachMetadata(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpoints",
    jsii_struct_bases=[],
    name_mapping={
        "authorization": "authorization",
        "basic_auth": "basicAuth",
        "bearer_token_file": "bearerTokenFile",
        "bearer_token_secret": "bearerTokenSecret",
        "enable_http2": "enableHttp2",
        "filter_running": "filterRunning",
        "follow_redirects": "followRedirects",
        "honor_labels": "honorLabels",
        "honor_timestamps": "honorTimestamps",
        "interval": "interval",
        "metric_relabelings": "metricRelabelings",
        "no_proxy": "noProxy",
        "oauth2": "oauth2",
        "params": "params",
        "path": "path",
        "port": "port",
        "proxy_connect_header": "proxyConnectHeader",
        "proxy_from_environment": "proxyFromEnvironment",
        "proxy_url": "proxyUrl",
        "relabelings": "relabelings",
        "scheme": "scheme",
        "scrape_timeout": "scrapeTimeout",
        "target_port": "targetPort",
        "tls_config": "tlsConfig",
        "track_timestamps_staleness": "trackTimestampsStaleness",
    },
)
class ServiceMonitorSpecEndpoints:
    def __init__(
        self,
        *,
        authorization: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsAuthorization", typing.Dict[builtins.str, typing.Any]]] = None,
        basic_auth: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsBasicAuth", typing.Dict[builtins.str, typing.Any]]] = None,
        bearer_token_file: typing.Optional[builtins.str] = None,
        bearer_token_secret: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsBearerTokenSecret", typing.Dict[builtins.str, typing.Any]]] = None,
        enable_http2: typing.Optional[builtins.bool] = None,
        filter_running: typing.Optional[builtins.bool] = None,
        follow_redirects: typing.Optional[builtins.bool] = None,
        honor_labels: typing.Optional[builtins.bool] = None,
        honor_timestamps: typing.Optional[builtins.bool] = None,
        interval: typing.Optional[builtins.str] = None,
        metric_relabelings: typing.Optional[typing.Sequence[typing.Union["ServiceMonitorSpecEndpointsMetricRelabelings", typing.Dict[builtins.str, typing.Any]]]] = None,
        no_proxy: typing.Optional[builtins.str] = None,
        oauth2: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsOauth2", typing.Dict[builtins.str, typing.Any]]] = None,
        params: typing.Optional[typing.Mapping[builtins.str, typing.Sequence[builtins.str]]] = None,
        path: typing.Optional[builtins.str] = None,
        port: typing.Optional[builtins.str] = None,
        proxy_connect_header: typing.Optional[typing.Mapping[builtins.str, typing.Sequence[typing.Union["ServiceMonitorSpecEndpointsProxyConnectHeader", typing.Dict[builtins.str, typing.Any]]]]] = None,
        proxy_from_environment: typing.Optional[builtins.bool] = None,
        proxy_url: typing.Optional[builtins.str] = None,
        relabelings: typing.Optional[typing.Sequence[typing.Union["ServiceMonitorSpecEndpointsRelabelings", typing.Dict[builtins.str, typing.Any]]]] = None,
        scheme: typing.Optional["ServiceMonitorSpecEndpointsScheme"] = None,
        scrape_timeout: typing.Optional[builtins.str] = None,
        target_port: typing.Optional["ServiceMonitorSpecEndpointsTargetPort"] = None,
        tls_config: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsTlsConfig", typing.Dict[builtins.str, typing.Any]]] = None,
        track_timestamps_staleness: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''Endpoint defines an endpoint serving Prometheus metrics to be scraped by Prometheus.

        :param authorization: authorization configures the Authorization header credentials used by the client. Cannot be set at the same time as ``basicAuth``, ``bearerTokenSecret`` or ``oauth2``.
        :param basic_auth: basicAuth defines the Basic Authentication credentials used by the client. Cannot be set at the same time as ``authorization``, ``bearerTokenSecret`` or ``oauth2``.
        :param bearer_token_file: bearerTokenFile defines the file to read bearer token for scraping the target. Deprecated: use ``authorization`` instead.
        :param bearer_token_secret: bearerTokenSecret defines a key of a Secret containing the bearer token used by the client for authentication. The secret needs to be in the same namespace as the custom resource and readable by the Prometheus Operator. Cannot be set at the same time as ``authorization``, ``basicAuth`` or ``oauth2``. Deprecated: use ``authorization`` instead.
        :param enable_http2: enableHttp2 can be used to disable HTTP2.
        :param filter_running: filterRunning when true, the pods which are not running (e.g. either in Failed or Succeeded state) are dropped during the target discovery. If unset, the filtering is enabled. More info: https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#pod-phase
        :param follow_redirects: followRedirects defines whether the client should follow HTTP 3xx redirects.
        :param honor_labels: honorLabels defines when true the metric's labels when they collide with the target's labels.
        :param honor_timestamps: honorTimestamps defines whether Prometheus preserves the timestamps when exposed by the target.
        :param interval: interval at which Prometheus scrapes the metrics from the target. If empty, Prometheus uses the global scrape interval.
        :param metric_relabelings: metricRelabelings defines the relabeling rules to apply to the samples before ingestion.
        :param no_proxy: noProxy defines a comma-separated string that can contain IPs, CIDR notation, domain names that should be excluded from proxying. IP and domain names can contain port numbers. It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.
        :param oauth2: oauth2 defines the OAuth2 settings used by the client. It requires Prometheus >= 2.27.0. Cannot be set at the same time as ``authorization``, ``basicAuth`` or ``bearerTokenSecret``.
        :param params: params define optional HTTP URL parameters.
        :param path: path defines the HTTP path from which to scrape for metrics. If empty, Prometheus uses the default value (e.g. ``/metrics``).
        :param port: port defines the name of the Service port which this endpoint refers to (e.g. ``.spec.ports[].name``). It takes precedence over ``targetPort``.
        :param proxy_connect_header: proxyConnectHeader optionally specifies headers to send to proxies during CONNECT requests. It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.
        :param proxy_from_environment: proxyFromEnvironment defines whether to use the proxy configuration defined by environment variables (HTTP_PROXY, HTTPS_PROXY, and NO_PROXY). It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.
        :param proxy_url: proxyUrl defines the HTTP proxy server to use.
        :param relabelings: relabelings defines the relabeling rules to apply the target's metadata labels. The Operator automatically adds relabelings for a few standard Kubernetes fields. The original scrape job's name is available via the ``__tmp_prometheus_job_name`` label. More info: https://prometheus.io/docs/prometheus/latest/configuration/configuration/#relabel_config
        :param scheme: scheme defines the HTTP scheme to use when scraping the metrics.
        :param scrape_timeout: scrapeTimeout defines the timeout after which Prometheus considers the scrape to be failed. If empty, Prometheus uses the global scrape timeout unless it is less than the target's scrape interval value in which the latter is used. The value cannot be greater than the scrape interval otherwise the operator will reject the resource.
        :param target_port: targetPort defines the name or number of a container port on Pods selected by the Service. If a name, it matches against ``.spec.containers[].ports[].name`` of the Pods. If a number, it matches against ``.spec.containers[].ports[].containerPort`` of the Pods.
        :param tls_config: tlsConfig defines TLS configuration used by the client.
        :param track_timestamps_staleness: trackTimestampsStaleness defines whether Prometheus tracks staleness of the metrics that have an explicit timestamp present in scraped data. Has no effect if ``honorTimestamps`` is false. It requires Prometheus >= v2.48.0.

        :schema: ServiceMonitorSpecEndpoints
        '''
        if isinstance(authorization, dict):
            authorization = ServiceMonitorSpecEndpointsAuthorization(**authorization)
        if isinstance(basic_auth, dict):
            basic_auth = ServiceMonitorSpecEndpointsBasicAuth(**basic_auth)
        if isinstance(bearer_token_secret, dict):
            bearer_token_secret = ServiceMonitorSpecEndpointsBearerTokenSecret(**bearer_token_secret)
        if isinstance(oauth2, dict):
            oauth2 = ServiceMonitorSpecEndpointsOauth2(**oauth2)
        if isinstance(tls_config, dict):
            tls_config = ServiceMonitorSpecEndpointsTlsConfig(**tls_config)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__93ad142757872e48ae844fafd6e75a8de838679971c72e443cd3fccd230fdf3f)
            check_type(argname="argument authorization", value=authorization, expected_type=type_hints["authorization"])
            check_type(argname="argument basic_auth", value=basic_auth, expected_type=type_hints["basic_auth"])
            check_type(argname="argument bearer_token_file", value=bearer_token_file, expected_type=type_hints["bearer_token_file"])
            check_type(argname="argument bearer_token_secret", value=bearer_token_secret, expected_type=type_hints["bearer_token_secret"])
            check_type(argname="argument enable_http2", value=enable_http2, expected_type=type_hints["enable_http2"])
            check_type(argname="argument filter_running", value=filter_running, expected_type=type_hints["filter_running"])
            check_type(argname="argument follow_redirects", value=follow_redirects, expected_type=type_hints["follow_redirects"])
            check_type(argname="argument honor_labels", value=honor_labels, expected_type=type_hints["honor_labels"])
            check_type(argname="argument honor_timestamps", value=honor_timestamps, expected_type=type_hints["honor_timestamps"])
            check_type(argname="argument interval", value=interval, expected_type=type_hints["interval"])
            check_type(argname="argument metric_relabelings", value=metric_relabelings, expected_type=type_hints["metric_relabelings"])
            check_type(argname="argument no_proxy", value=no_proxy, expected_type=type_hints["no_proxy"])
            check_type(argname="argument oauth2", value=oauth2, expected_type=type_hints["oauth2"])
            check_type(argname="argument params", value=params, expected_type=type_hints["params"])
            check_type(argname="argument path", value=path, expected_type=type_hints["path"])
            check_type(argname="argument port", value=port, expected_type=type_hints["port"])
            check_type(argname="argument proxy_connect_header", value=proxy_connect_header, expected_type=type_hints["proxy_connect_header"])
            check_type(argname="argument proxy_from_environment", value=proxy_from_environment, expected_type=type_hints["proxy_from_environment"])
            check_type(argname="argument proxy_url", value=proxy_url, expected_type=type_hints["proxy_url"])
            check_type(argname="argument relabelings", value=relabelings, expected_type=type_hints["relabelings"])
            check_type(argname="argument scheme", value=scheme, expected_type=type_hints["scheme"])
            check_type(argname="argument scrape_timeout", value=scrape_timeout, expected_type=type_hints["scrape_timeout"])
            check_type(argname="argument target_port", value=target_port, expected_type=type_hints["target_port"])
            check_type(argname="argument tls_config", value=tls_config, expected_type=type_hints["tls_config"])
            check_type(argname="argument track_timestamps_staleness", value=track_timestamps_staleness, expected_type=type_hints["track_timestamps_staleness"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if authorization is not None:
            self._values["authorization"] = authorization
        if basic_auth is not None:
            self._values["basic_auth"] = basic_auth
        if bearer_token_file is not None:
            self._values["bearer_token_file"] = bearer_token_file
        if bearer_token_secret is not None:
            self._values["bearer_token_secret"] = bearer_token_secret
        if enable_http2 is not None:
            self._values["enable_http2"] = enable_http2
        if filter_running is not None:
            self._values["filter_running"] = filter_running
        if follow_redirects is not None:
            self._values["follow_redirects"] = follow_redirects
        if honor_labels is not None:
            self._values["honor_labels"] = honor_labels
        if honor_timestamps is not None:
            self._values["honor_timestamps"] = honor_timestamps
        if interval is not None:
            self._values["interval"] = interval
        if metric_relabelings is not None:
            self._values["metric_relabelings"] = metric_relabelings
        if no_proxy is not None:
            self._values["no_proxy"] = no_proxy
        if oauth2 is not None:
            self._values["oauth2"] = oauth2
        if params is not None:
            self._values["params"] = params
        if path is not None:
            self._values["path"] = path
        if port is not None:
            self._values["port"] = port
        if proxy_connect_header is not None:
            self._values["proxy_connect_header"] = proxy_connect_header
        if proxy_from_environment is not None:
            self._values["proxy_from_environment"] = proxy_from_environment
        if proxy_url is not None:
            self._values["proxy_url"] = proxy_url
        if relabelings is not None:
            self._values["relabelings"] = relabelings
        if scheme is not None:
            self._values["scheme"] = scheme
        if scrape_timeout is not None:
            self._values["scrape_timeout"] = scrape_timeout
        if target_port is not None:
            self._values["target_port"] = target_port
        if tls_config is not None:
            self._values["tls_config"] = tls_config
        if track_timestamps_staleness is not None:
            self._values["track_timestamps_staleness"] = track_timestamps_staleness

    @builtins.property
    def authorization(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsAuthorization"]:
        '''authorization configures the Authorization header credentials used by the client.

        Cannot be set at the same time as ``basicAuth``, ``bearerTokenSecret`` or ``oauth2``.

        :schema: ServiceMonitorSpecEndpoints#authorization
        '''
        result = self._values.get("authorization")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsAuthorization"], result)

    @builtins.property
    def basic_auth(self) -> typing.Optional["ServiceMonitorSpecEndpointsBasicAuth"]:
        '''basicAuth defines the Basic Authentication credentials used by the client.

        Cannot be set at the same time as ``authorization``, ``bearerTokenSecret`` or ``oauth2``.

        :schema: ServiceMonitorSpecEndpoints#basicAuth
        '''
        result = self._values.get("basic_auth")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsBasicAuth"], result)

    @builtins.property
    def bearer_token_file(self) -> typing.Optional[builtins.str]:
        '''bearerTokenFile defines the file to read bearer token for scraping the target.

        Deprecated: use ``authorization`` instead.

        :schema: ServiceMonitorSpecEndpoints#bearerTokenFile
        '''
        result = self._values.get("bearer_token_file")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def bearer_token_secret(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsBearerTokenSecret"]:
        '''bearerTokenSecret defines a key of a Secret containing the bearer token used by the client for authentication.

        The secret needs to be in the
        same namespace as the custom resource and readable by the Prometheus
        Operator.

        Cannot be set at the same time as ``authorization``, ``basicAuth`` or ``oauth2``.

        Deprecated: use ``authorization`` instead.

        :schema: ServiceMonitorSpecEndpoints#bearerTokenSecret
        '''
        result = self._values.get("bearer_token_secret")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsBearerTokenSecret"], result)

    @builtins.property
    def enable_http2(self) -> typing.Optional[builtins.bool]:
        '''enableHttp2 can be used to disable HTTP2.

        :schema: ServiceMonitorSpecEndpoints#enableHttp2
        '''
        result = self._values.get("enable_http2")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def filter_running(self) -> typing.Optional[builtins.bool]:
        '''filterRunning when true, the pods which are not running (e.g. either in Failed or Succeeded state) are dropped during the target discovery.

        If unset, the filtering is enabled.

        More info: https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#pod-phase

        :schema: ServiceMonitorSpecEndpoints#filterRunning
        '''
        result = self._values.get("filter_running")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def follow_redirects(self) -> typing.Optional[builtins.bool]:
        '''followRedirects defines whether the client should follow HTTP 3xx redirects.

        :schema: ServiceMonitorSpecEndpoints#followRedirects
        '''
        result = self._values.get("follow_redirects")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def honor_labels(self) -> typing.Optional[builtins.bool]:
        '''honorLabels defines when true the metric's labels when they collide with the target's labels.

        :schema: ServiceMonitorSpecEndpoints#honorLabels
        '''
        result = self._values.get("honor_labels")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def honor_timestamps(self) -> typing.Optional[builtins.bool]:
        '''honorTimestamps defines whether Prometheus preserves the timestamps when exposed by the target.

        :schema: ServiceMonitorSpecEndpoints#honorTimestamps
        '''
        result = self._values.get("honor_timestamps")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def interval(self) -> typing.Optional[builtins.str]:
        '''interval at which Prometheus scrapes the metrics from the target.

        If empty, Prometheus uses the global scrape interval.

        :schema: ServiceMonitorSpecEndpoints#interval
        '''
        result = self._values.get("interval")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def metric_relabelings(
        self,
    ) -> typing.Optional[typing.List["ServiceMonitorSpecEndpointsMetricRelabelings"]]:
        '''metricRelabelings defines the relabeling rules to apply to the samples before ingestion.

        :schema: ServiceMonitorSpecEndpoints#metricRelabelings
        '''
        result = self._values.get("metric_relabelings")
        return typing.cast(typing.Optional[typing.List["ServiceMonitorSpecEndpointsMetricRelabelings"]], result)

    @builtins.property
    def no_proxy(self) -> typing.Optional[builtins.str]:
        '''noProxy defines a comma-separated string that can contain IPs, CIDR notation, domain names that should be excluded from proxying.

        IP and domain names can
        contain port numbers.

        It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.

        :schema: ServiceMonitorSpecEndpoints#noProxy
        '''
        result = self._values.get("no_proxy")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def oauth2(self) -> typing.Optional["ServiceMonitorSpecEndpointsOauth2"]:
        '''oauth2 defines the OAuth2 settings used by the client.

        It requires Prometheus >= 2.27.0.

        Cannot be set at the same time as ``authorization``, ``basicAuth`` or ``bearerTokenSecret``.

        :schema: ServiceMonitorSpecEndpoints#oauth2
        '''
        result = self._values.get("oauth2")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsOauth2"], result)

    @builtins.property
    def params(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, typing.List[builtins.str]]]:
        '''params define optional HTTP URL parameters.

        :schema: ServiceMonitorSpecEndpoints#params
        '''
        result = self._values.get("params")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, typing.List[builtins.str]]], result)

    @builtins.property
    def path(self) -> typing.Optional[builtins.str]:
        '''path defines the HTTP path from which to scrape for metrics.

        If empty, Prometheus uses the default value (e.g. ``/metrics``).

        :schema: ServiceMonitorSpecEndpoints#path
        '''
        result = self._values.get("path")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def port(self) -> typing.Optional[builtins.str]:
        '''port defines the name of the Service port which this endpoint refers to (e.g. ``.spec.ports[].name``).

        It takes precedence over ``targetPort``.

        :schema: ServiceMonitorSpecEndpoints#port
        '''
        result = self._values.get("port")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def proxy_connect_header(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, typing.List["ServiceMonitorSpecEndpointsProxyConnectHeader"]]]:
        '''proxyConnectHeader optionally specifies headers to send to proxies during CONNECT requests.

        It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.

        :schema: ServiceMonitorSpecEndpoints#proxyConnectHeader
        '''
        result = self._values.get("proxy_connect_header")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, typing.List["ServiceMonitorSpecEndpointsProxyConnectHeader"]]], result)

    @builtins.property
    def proxy_from_environment(self) -> typing.Optional[builtins.bool]:
        '''proxyFromEnvironment defines whether to use the proxy configuration defined by environment variables (HTTP_PROXY, HTTPS_PROXY, and NO_PROXY).

        It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.

        :schema: ServiceMonitorSpecEndpoints#proxyFromEnvironment
        '''
        result = self._values.get("proxy_from_environment")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def proxy_url(self) -> typing.Optional[builtins.str]:
        '''proxyUrl defines the HTTP proxy server to use.

        :schema: ServiceMonitorSpecEndpoints#proxyUrl
        '''
        result = self._values.get("proxy_url")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def relabelings(
        self,
    ) -> typing.Optional[typing.List["ServiceMonitorSpecEndpointsRelabelings"]]:
        '''relabelings defines the relabeling rules to apply the target's metadata labels.

        The Operator automatically adds relabelings for a few standard Kubernetes fields.

        The original scrape job's name is available via the ``__tmp_prometheus_job_name`` label.

        More info: https://prometheus.io/docs/prometheus/latest/configuration/configuration/#relabel_config

        :schema: ServiceMonitorSpecEndpoints#relabelings
        '''
        result = self._values.get("relabelings")
        return typing.cast(typing.Optional[typing.List["ServiceMonitorSpecEndpointsRelabelings"]], result)

    @builtins.property
    def scheme(self) -> typing.Optional["ServiceMonitorSpecEndpointsScheme"]:
        '''scheme defines the HTTP scheme to use when scraping the metrics.

        :schema: ServiceMonitorSpecEndpoints#scheme
        '''
        result = self._values.get("scheme")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsScheme"], result)

    @builtins.property
    def scrape_timeout(self) -> typing.Optional[builtins.str]:
        '''scrapeTimeout defines the timeout after which Prometheus considers the scrape to be failed.

        If empty, Prometheus uses the global scrape timeout unless it is less
        than the target's scrape interval value in which the latter is used.
        The value cannot be greater than the scrape interval otherwise the operator will reject the resource.

        :schema: ServiceMonitorSpecEndpoints#scrapeTimeout
        '''
        result = self._values.get("scrape_timeout")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def target_port(self) -> typing.Optional["ServiceMonitorSpecEndpointsTargetPort"]:
        '''targetPort defines the name or number of a container port on Pods selected by the Service.

        If a name, it matches against ``.spec.containers[].ports[].name`` of the Pods.
        If a number, it matches against ``.spec.containers[].ports[].containerPort`` of the Pods.

        :schema: ServiceMonitorSpecEndpoints#targetPort
        '''
        result = self._values.get("target_port")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsTargetPort"], result)

    @builtins.property
    def tls_config(self) -> typing.Optional["ServiceMonitorSpecEndpointsTlsConfig"]:
        '''tlsConfig defines TLS configuration used by the client.

        :schema: ServiceMonitorSpecEndpoints#tlsConfig
        '''
        result = self._values.get("tls_config")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsTlsConfig"], result)

    @builtins.property
    def track_timestamps_staleness(self) -> typing.Optional[builtins.bool]:
        '''trackTimestampsStaleness defines whether Prometheus tracks staleness of the metrics that have an explicit timestamp present in scraped data.

        Has no effect if ``honorTimestamps`` is false.

        It requires Prometheus >= v2.48.0.

        :schema: ServiceMonitorSpecEndpoints#trackTimestampsStaleness
        '''
        result = self._values.get("track_timestamps_staleness")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpoints(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsAuthorization",
    jsii_struct_bases=[],
    name_mapping={"credentials": "credentials", "type": "type"},
)
class ServiceMonitorSpecEndpointsAuthorization:
    def __init__(
        self,
        *,
        credentials: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsAuthorizationCredentials", typing.Dict[builtins.str, typing.Any]]] = None,
        type: typing.Optional[builtins.str] = None,
    ) -> None:
        '''authorization configures the Authorization header credentials used by the client.

        Cannot be set at the same time as ``basicAuth``, ``bearerTokenSecret`` or ``oauth2``.

        :param credentials: credentials defines a key of a Secret in the namespace that contains the credentials for authentication.
        :param type: type defines the authentication type. The value is case-insensitive. "Basic" is not a supported value. Default: "Bearer"

        :schema: ServiceMonitorSpecEndpointsAuthorization
        '''
        if isinstance(credentials, dict):
            credentials = ServiceMonitorSpecEndpointsAuthorizationCredentials(**credentials)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__b2771a566b93208d5e2beaaba0ebff2b2885d77a30182f0531b35f4cb13a468d)
            check_type(argname="argument credentials", value=credentials, expected_type=type_hints["credentials"])
            check_type(argname="argument type", value=type, expected_type=type_hints["type"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if credentials is not None:
            self._values["credentials"] = credentials
        if type is not None:
            self._values["type"] = type

    @builtins.property
    def credentials(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsAuthorizationCredentials"]:
        '''credentials defines a key of a Secret in the namespace that contains the credentials for authentication.

        :schema: ServiceMonitorSpecEndpointsAuthorization#credentials
        '''
        result = self._values.get("credentials")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsAuthorizationCredentials"], result)

    @builtins.property
    def type(self) -> typing.Optional[builtins.str]:
        '''type defines the authentication type. The value is case-insensitive.

        "Basic" is not a supported value.

        Default: "Bearer"

        :schema: ServiceMonitorSpecEndpointsAuthorization#type
        '''
        result = self._values.get("type")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsAuthorization(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsAuthorizationCredentials",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsAuthorizationCredentials:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''credentials defines a key of a Secret in the namespace that contains the credentials for authentication.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsAuthorizationCredentials
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__bacff50ed8a2f913dd9edf65e7285e02b88c0884ec47b222ebbc66cc67a604cd)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: ServiceMonitorSpecEndpointsAuthorizationCredentials#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsAuthorizationCredentials#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsAuthorizationCredentials#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsAuthorizationCredentials(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsBasicAuth",
    jsii_struct_bases=[],
    name_mapping={"password": "password", "username": "username"},
)
class ServiceMonitorSpecEndpointsBasicAuth:
    def __init__(
        self,
        *,
        password: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsBasicAuthPassword", typing.Dict[builtins.str, typing.Any]]] = None,
        username: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsBasicAuthUsername", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''basicAuth defines the Basic Authentication credentials used by the client.

        Cannot be set at the same time as ``authorization``, ``bearerTokenSecret`` or ``oauth2``.

        :param password: password defines a key of a Secret containing the password for authentication.
        :param username: username defines a key of a Secret containing the username for authentication.

        :schema: ServiceMonitorSpecEndpointsBasicAuth
        '''
        if isinstance(password, dict):
            password = ServiceMonitorSpecEndpointsBasicAuthPassword(**password)
        if isinstance(username, dict):
            username = ServiceMonitorSpecEndpointsBasicAuthUsername(**username)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__f56fa116514f62355cf0793366eb56a64146d2c6fa2c07850baca2a7813dac7f)
            check_type(argname="argument password", value=password, expected_type=type_hints["password"])
            check_type(argname="argument username", value=username, expected_type=type_hints["username"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if password is not None:
            self._values["password"] = password
        if username is not None:
            self._values["username"] = username

    @builtins.property
    def password(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsBasicAuthPassword"]:
        '''password defines a key of a Secret containing the password for authentication.

        :schema: ServiceMonitorSpecEndpointsBasicAuth#password
        '''
        result = self._values.get("password")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsBasicAuthPassword"], result)

    @builtins.property
    def username(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsBasicAuthUsername"]:
        '''username defines a key of a Secret containing the username for authentication.

        :schema: ServiceMonitorSpecEndpointsBasicAuth#username
        '''
        result = self._values.get("username")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsBasicAuthUsername"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsBasicAuth(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsBasicAuthPassword",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsBasicAuthPassword:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''password defines a key of a Secret containing the password for authentication.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsBasicAuthPassword
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__896ab337e15ee1cd499275813d8bcedae85b140820f7dc8d846537fa40f15d63)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: ServiceMonitorSpecEndpointsBasicAuthPassword#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsBasicAuthPassword#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsBasicAuthPassword#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsBasicAuthPassword(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsBasicAuthUsername",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsBasicAuthUsername:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''username defines a key of a Secret containing the username for authentication.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsBasicAuthUsername
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__c7b908ee4d5e2b36f663955d2ece37affb602292cba323ce00da88571abf9cd6)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: ServiceMonitorSpecEndpointsBasicAuthUsername#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsBasicAuthUsername#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsBasicAuthUsername#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsBasicAuthUsername(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsBearerTokenSecret",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsBearerTokenSecret:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''bearerTokenSecret defines a key of a Secret containing the bearer token used by the client for authentication.

        The secret needs to be in the
        same namespace as the custom resource and readable by the Prometheus
        Operator.

        Cannot be set at the same time as ``authorization``, ``basicAuth`` or ``oauth2``.

        Deprecated: use ``authorization`` instead.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsBearerTokenSecret
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__64b004ad941bf3c8d955d5aa52aa078e462e3691fb5cec05d423d1c8fef779b5)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: ServiceMonitorSpecEndpointsBearerTokenSecret#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsBearerTokenSecret#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsBearerTokenSecret#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsBearerTokenSecret(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsMetricRelabelings",
    jsii_struct_bases=[],
    name_mapping={
        "action": "action",
        "modulus": "modulus",
        "regex": "regex",
        "replacement": "replacement",
        "separator": "separator",
        "source_labels": "sourceLabels",
        "target_label": "targetLabel",
    },
)
class ServiceMonitorSpecEndpointsMetricRelabelings:
    def __init__(
        self,
        *,
        action: typing.Optional["ServiceMonitorSpecEndpointsMetricRelabelingsAction"] = None,
        modulus: typing.Optional[jsii.Number] = None,
        regex: typing.Optional[builtins.str] = None,
        replacement: typing.Optional[builtins.str] = None,
        separator: typing.Optional[builtins.str] = None,
        source_labels: typing.Optional[typing.Sequence[builtins.str]] = None,
        target_label: typing.Optional[builtins.str] = None,
    ) -> None:
        '''RelabelConfig allows dynamic rewriting of the label set for targets, alerts, scraped samples and remote write samples.

        More info: https://prometheus.io/docs/prometheus/latest/configuration/configuration/#relabel_config

        :param action: action to perform based on the regex matching. ``Uppercase`` and ``Lowercase`` actions require Prometheus >= v2.36.0. ``DropEqual`` and ``KeepEqual`` actions require Prometheus >= v2.41.0. Default: "Replace"
        :param modulus: modulus to take of the hash of the source label values. Only applicable when the action is ``HashMod``.
        :param regex: regex defines the regular expression against which the extracted value is matched.
        :param replacement: replacement value against which a Replace action is performed if the regular expression matches. Regex capture groups are available.
        :param separator: separator defines the string between concatenated SourceLabels.
        :param source_labels: sourceLabels defines the source labels select values from existing labels. Their content is concatenated using the configured Separator and matched against the configured regular expression.
        :param target_label: targetLabel defines the label to which the resulting string is written in a replacement. It is mandatory for ``Replace``, ``HashMod``, ``Lowercase``, ``Uppercase``, ``KeepEqual`` and ``DropEqual`` actions. Regex capture groups are available.

        :schema: ServiceMonitorSpecEndpointsMetricRelabelings
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__2cbea7f9464eb7b074c053cc992c211028e99d748b3b3a8734bbec3189738835)
            check_type(argname="argument action", value=action, expected_type=type_hints["action"])
            check_type(argname="argument modulus", value=modulus, expected_type=type_hints["modulus"])
            check_type(argname="argument regex", value=regex, expected_type=type_hints["regex"])
            check_type(argname="argument replacement", value=replacement, expected_type=type_hints["replacement"])
            check_type(argname="argument separator", value=separator, expected_type=type_hints["separator"])
            check_type(argname="argument source_labels", value=source_labels, expected_type=type_hints["source_labels"])
            check_type(argname="argument target_label", value=target_label, expected_type=type_hints["target_label"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if action is not None:
            self._values["action"] = action
        if modulus is not None:
            self._values["modulus"] = modulus
        if regex is not None:
            self._values["regex"] = regex
        if replacement is not None:
            self._values["replacement"] = replacement
        if separator is not None:
            self._values["separator"] = separator
        if source_labels is not None:
            self._values["source_labels"] = source_labels
        if target_label is not None:
            self._values["target_label"] = target_label

    @builtins.property
    def action(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsMetricRelabelingsAction"]:
        '''action to perform based on the regex matching.

        ``Uppercase`` and ``Lowercase`` actions require Prometheus >= v2.36.0.
        ``DropEqual`` and ``KeepEqual`` actions require Prometheus >= v2.41.0.

        Default: "Replace"

        :schema: ServiceMonitorSpecEndpointsMetricRelabelings#action
        '''
        result = self._values.get("action")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsMetricRelabelingsAction"], result)

    @builtins.property
    def modulus(self) -> typing.Optional[jsii.Number]:
        '''modulus to take of the hash of the source label values.

        Only applicable when the action is ``HashMod``.

        :schema: ServiceMonitorSpecEndpointsMetricRelabelings#modulus
        '''
        result = self._values.get("modulus")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def regex(self) -> typing.Optional[builtins.str]:
        '''regex defines the regular expression against which the extracted value is matched.

        :schema: ServiceMonitorSpecEndpointsMetricRelabelings#regex
        '''
        result = self._values.get("regex")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def replacement(self) -> typing.Optional[builtins.str]:
        '''replacement value against which a Replace action is performed if the regular expression matches.

        Regex capture groups are available.

        :schema: ServiceMonitorSpecEndpointsMetricRelabelings#replacement
        '''
        result = self._values.get("replacement")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def separator(self) -> typing.Optional[builtins.str]:
        '''separator defines the string between concatenated SourceLabels.

        :schema: ServiceMonitorSpecEndpointsMetricRelabelings#separator
        '''
        result = self._values.get("separator")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def source_labels(self) -> typing.Optional[typing.List[builtins.str]]:
        '''sourceLabels defines the source labels select values from existing labels.

        Their content is
        concatenated using the configured Separator and matched against the
        configured regular expression.

        :schema: ServiceMonitorSpecEndpointsMetricRelabelings#sourceLabels
        '''
        result = self._values.get("source_labels")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    @builtins.property
    def target_label(self) -> typing.Optional[builtins.str]:
        '''targetLabel defines the label to which the resulting string is written in a replacement.

        It is mandatory for ``Replace``, ``HashMod``, ``Lowercase``, ``Uppercase``,
        ``KeepEqual`` and ``DropEqual`` actions.

        Regex capture groups are available.

        :schema: ServiceMonitorSpecEndpointsMetricRelabelings#targetLabel
        '''
        result = self._values.get("target_label")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsMetricRelabelings(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsMetricRelabelingsAction"
)
class ServiceMonitorSpecEndpointsMetricRelabelingsAction(enum.Enum):
    '''action to perform based on the regex matching.

    ``Uppercase`` and ``Lowercase`` actions require Prometheus >= v2.36.0.
    ``DropEqual`` and ``KeepEqual`` actions require Prometheus >= v2.41.0.

    Default: "Replace"

    :schema: ServiceMonitorSpecEndpointsMetricRelabelingsAction
    '''

    REPLACE = "REPLACE"
    '''replace.'''
    KEEP = "KEEP"
    '''keep.'''
    DROP = "DROP"
    '''drop.'''
    HASHMOD = "HASHMOD"
    '''hashmod.'''
    LABELMAP = "LABELMAP"
    '''labelmap.'''
    LABELDROP = "LABELDROP"
    '''labeldrop.'''
    LABELKEEP = "LABELKEEP"
    '''labelkeep.'''
    LOWERCASE = "LOWERCASE"
    '''lowercase.'''
    UPPERCASE = "UPPERCASE"
    '''uppercase.'''
    KEEPEQUAL = "KEEPEQUAL"
    '''keepequal.'''
    DROPEQUAL = "DROPEQUAL"
    '''dropequal.'''


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsOauth2",
    jsii_struct_bases=[],
    name_mapping={
        "client_id": "clientId",
        "client_secret": "clientSecret",
        "token_url": "tokenUrl",
        "endpoint_params": "endpointParams",
        "no_proxy": "noProxy",
        "proxy_connect_header": "proxyConnectHeader",
        "proxy_from_environment": "proxyFromEnvironment",
        "proxy_url": "proxyUrl",
        "scopes": "scopes",
        "tls_config": "tlsConfig",
    },
)
class ServiceMonitorSpecEndpointsOauth2:
    def __init__(
        self,
        *,
        client_id: typing.Union["ServiceMonitorSpecEndpointsOauth2ClientId", typing.Dict[builtins.str, typing.Any]],
        client_secret: typing.Union["ServiceMonitorSpecEndpointsOauth2ClientSecret", typing.Dict[builtins.str, typing.Any]],
        token_url: builtins.str,
        endpoint_params: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
        no_proxy: typing.Optional[builtins.str] = None,
        proxy_connect_header: typing.Optional[typing.Mapping[builtins.str, typing.Sequence[typing.Union["ServiceMonitorSpecEndpointsOauth2ProxyConnectHeader", typing.Dict[builtins.str, typing.Any]]]]] = None,
        proxy_from_environment: typing.Optional[builtins.bool] = None,
        proxy_url: typing.Optional[builtins.str] = None,
        scopes: typing.Optional[typing.Sequence[builtins.str]] = None,
        tls_config: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsOauth2TlsConfig", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''oauth2 defines the OAuth2 settings used by the client.

        It requires Prometheus >= 2.27.0.

        Cannot be set at the same time as ``authorization``, ``basicAuth`` or ``bearerTokenSecret``.

        :param client_id: clientId defines a key of a Secret or ConfigMap containing the OAuth2 client's ID.
        :param client_secret: clientSecret defines a key of a Secret containing the OAuth2 client's secret.
        :param token_url: tokenUrl defines the URL to fetch the token from.
        :param endpoint_params: endpointParams configures the HTTP parameters to append to the token URL.
        :param no_proxy: noProxy defines a comma-separated string that can contain IPs, CIDR notation, domain names that should be excluded from proxying. IP and domain names can contain port numbers. It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.
        :param proxy_connect_header: proxyConnectHeader optionally specifies headers to send to proxies during CONNECT requests. It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.
        :param proxy_from_environment: proxyFromEnvironment defines whether to use the proxy configuration defined by environment variables (HTTP_PROXY, HTTPS_PROXY, and NO_PROXY). It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.
        :param proxy_url: proxyUrl defines the HTTP proxy server to use.
        :param scopes: scopes defines the OAuth2 scopes used for the token request.
        :param tls_config: tlsConfig defines the TLS configuration to use when connecting to the OAuth2 server. It requires Prometheus >= v2.43.0.

        :schema: ServiceMonitorSpecEndpointsOauth2
        '''
        if isinstance(client_id, dict):
            client_id = ServiceMonitorSpecEndpointsOauth2ClientId(**client_id)
        if isinstance(client_secret, dict):
            client_secret = ServiceMonitorSpecEndpointsOauth2ClientSecret(**client_secret)
        if isinstance(tls_config, dict):
            tls_config = ServiceMonitorSpecEndpointsOauth2TlsConfig(**tls_config)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__7d1784136f6f931a1472a8b4ce785d5840e0239b965a38c00339e052e351c7a0)
            check_type(argname="argument client_id", value=client_id, expected_type=type_hints["client_id"])
            check_type(argname="argument client_secret", value=client_secret, expected_type=type_hints["client_secret"])
            check_type(argname="argument token_url", value=token_url, expected_type=type_hints["token_url"])
            check_type(argname="argument endpoint_params", value=endpoint_params, expected_type=type_hints["endpoint_params"])
            check_type(argname="argument no_proxy", value=no_proxy, expected_type=type_hints["no_proxy"])
            check_type(argname="argument proxy_connect_header", value=proxy_connect_header, expected_type=type_hints["proxy_connect_header"])
            check_type(argname="argument proxy_from_environment", value=proxy_from_environment, expected_type=type_hints["proxy_from_environment"])
            check_type(argname="argument proxy_url", value=proxy_url, expected_type=type_hints["proxy_url"])
            check_type(argname="argument scopes", value=scopes, expected_type=type_hints["scopes"])
            check_type(argname="argument tls_config", value=tls_config, expected_type=type_hints["tls_config"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "client_id": client_id,
            "client_secret": client_secret,
            "token_url": token_url,
        }
        if endpoint_params is not None:
            self._values["endpoint_params"] = endpoint_params
        if no_proxy is not None:
            self._values["no_proxy"] = no_proxy
        if proxy_connect_header is not None:
            self._values["proxy_connect_header"] = proxy_connect_header
        if proxy_from_environment is not None:
            self._values["proxy_from_environment"] = proxy_from_environment
        if proxy_url is not None:
            self._values["proxy_url"] = proxy_url
        if scopes is not None:
            self._values["scopes"] = scopes
        if tls_config is not None:
            self._values["tls_config"] = tls_config

    @builtins.property
    def client_id(self) -> "ServiceMonitorSpecEndpointsOauth2ClientId":
        '''clientId defines a key of a Secret or ConfigMap containing the OAuth2 client's ID.

        :schema: ServiceMonitorSpecEndpointsOauth2#clientId
        '''
        result = self._values.get("client_id")
        assert result is not None, "Required property 'client_id' is missing"
        return typing.cast("ServiceMonitorSpecEndpointsOauth2ClientId", result)

    @builtins.property
    def client_secret(self) -> "ServiceMonitorSpecEndpointsOauth2ClientSecret":
        '''clientSecret defines a key of a Secret containing the OAuth2 client's secret.

        :schema: ServiceMonitorSpecEndpointsOauth2#clientSecret
        '''
        result = self._values.get("client_secret")
        assert result is not None, "Required property 'client_secret' is missing"
        return typing.cast("ServiceMonitorSpecEndpointsOauth2ClientSecret", result)

    @builtins.property
    def token_url(self) -> builtins.str:
        '''tokenUrl defines the URL to fetch the token from.

        :schema: ServiceMonitorSpecEndpointsOauth2#tokenUrl
        '''
        result = self._values.get("token_url")
        assert result is not None, "Required property 'token_url' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def endpoint_params(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''endpointParams configures the HTTP parameters to append to the token URL.

        :schema: ServiceMonitorSpecEndpointsOauth2#endpointParams
        '''
        result = self._values.get("endpoint_params")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    @builtins.property
    def no_proxy(self) -> typing.Optional[builtins.str]:
        '''noProxy defines a comma-separated string that can contain IPs, CIDR notation, domain names that should be excluded from proxying.

        IP and domain names can
        contain port numbers.

        It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.

        :schema: ServiceMonitorSpecEndpointsOauth2#noProxy
        '''
        result = self._values.get("no_proxy")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def proxy_connect_header(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, typing.List["ServiceMonitorSpecEndpointsOauth2ProxyConnectHeader"]]]:
        '''proxyConnectHeader optionally specifies headers to send to proxies during CONNECT requests.

        It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.

        :schema: ServiceMonitorSpecEndpointsOauth2#proxyConnectHeader
        '''
        result = self._values.get("proxy_connect_header")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, typing.List["ServiceMonitorSpecEndpointsOauth2ProxyConnectHeader"]]], result)

    @builtins.property
    def proxy_from_environment(self) -> typing.Optional[builtins.bool]:
        '''proxyFromEnvironment defines whether to use the proxy configuration defined by environment variables (HTTP_PROXY, HTTPS_PROXY, and NO_PROXY).

        It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.

        :schema: ServiceMonitorSpecEndpointsOauth2#proxyFromEnvironment
        '''
        result = self._values.get("proxy_from_environment")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def proxy_url(self) -> typing.Optional[builtins.str]:
        '''proxyUrl defines the HTTP proxy server to use.

        :schema: ServiceMonitorSpecEndpointsOauth2#proxyUrl
        '''
        result = self._values.get("proxy_url")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def scopes(self) -> typing.Optional[typing.List[builtins.str]]:
        '''scopes defines the OAuth2 scopes used for the token request.

        :schema: ServiceMonitorSpecEndpointsOauth2#scopes
        '''
        result = self._values.get("scopes")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    @builtins.property
    def tls_config(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfig"]:
        '''tlsConfig defines the TLS configuration to use when connecting to the OAuth2 server.

        It requires Prometheus >= v2.43.0.

        :schema: ServiceMonitorSpecEndpointsOauth2#tlsConfig
        '''
        result = self._values.get("tls_config")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfig"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsOauth2(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsOauth2ClientId",
    jsii_struct_bases=[],
    name_mapping={"config_map": "configMap", "secret": "secret"},
)
class ServiceMonitorSpecEndpointsOauth2ClientId:
    def __init__(
        self,
        *,
        config_map: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsOauth2ClientIdConfigMap", typing.Dict[builtins.str, typing.Any]]] = None,
        secret: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsOauth2ClientIdSecret", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''clientId defines a key of a Secret or ConfigMap containing the OAuth2 client's ID.

        :param config_map: configMap defines the ConfigMap containing data to use for the targets.
        :param secret: secret defines the Secret containing data to use for the targets.

        :schema: ServiceMonitorSpecEndpointsOauth2ClientId
        '''
        if isinstance(config_map, dict):
            config_map = ServiceMonitorSpecEndpointsOauth2ClientIdConfigMap(**config_map)
        if isinstance(secret, dict):
            secret = ServiceMonitorSpecEndpointsOauth2ClientIdSecret(**secret)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__f6dcec6ac9c23a8d50cb4287cd1e9b6b60985f9378a8d1f8c794c0418a634635)
            check_type(argname="argument config_map", value=config_map, expected_type=type_hints["config_map"])
            check_type(argname="argument secret", value=secret, expected_type=type_hints["secret"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if config_map is not None:
            self._values["config_map"] = config_map
        if secret is not None:
            self._values["secret"] = secret

    @builtins.property
    def config_map(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsOauth2ClientIdConfigMap"]:
        '''configMap defines the ConfigMap containing data to use for the targets.

        :schema: ServiceMonitorSpecEndpointsOauth2ClientId#configMap
        '''
        result = self._values.get("config_map")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsOauth2ClientIdConfigMap"], result)

    @builtins.property
    def secret(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsOauth2ClientIdSecret"]:
        '''secret defines the Secret containing data to use for the targets.

        :schema: ServiceMonitorSpecEndpointsOauth2ClientId#secret
        '''
        result = self._values.get("secret")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsOauth2ClientIdSecret"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsOauth2ClientId(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsOauth2ClientIdConfigMap",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsOauth2ClientIdConfigMap:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''configMap defines the ConfigMap containing data to use for the targets.

        :param key: The key to select.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the ConfigMap or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2ClientIdConfigMap
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__3f150e8efdb7d26dc4483289080249380fa4379249c62d333ca831a94f98d2b5)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key to select.

        :schema: ServiceMonitorSpecEndpointsOauth2ClientIdConfigMap#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsOauth2ClientIdConfigMap#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the ConfigMap or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2ClientIdConfigMap#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsOauth2ClientIdConfigMap(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsOauth2ClientIdSecret",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsOauth2ClientIdSecret:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''secret defines the Secret containing data to use for the targets.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2ClientIdSecret
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__9aad7627cdd91cdc28e9730ca92bf8749551ca7ca5ef70558944d5917def6115)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: ServiceMonitorSpecEndpointsOauth2ClientIdSecret#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsOauth2ClientIdSecret#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2ClientIdSecret#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsOauth2ClientIdSecret(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsOauth2ClientSecret",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsOauth2ClientSecret:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''clientSecret defines a key of a Secret containing the OAuth2 client's secret.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2ClientSecret
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__1d944f322c32d090ac3f2ea66c0bdc1a9a17956b0a8073369edd58309d3a7953)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: ServiceMonitorSpecEndpointsOauth2ClientSecret#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsOauth2ClientSecret#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2ClientSecret#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsOauth2ClientSecret(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsOauth2ProxyConnectHeader",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsOauth2ProxyConnectHeader:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''SecretKeySelector selects a key of a Secret.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2ProxyConnectHeader
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__3af150b3fd22d73bae116b5b05e5e69fe51e28416a55f625e3b90ece5040cc42)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: ServiceMonitorSpecEndpointsOauth2ProxyConnectHeader#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsOauth2ProxyConnectHeader#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2ProxyConnectHeader#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsOauth2ProxyConnectHeader(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsOauth2TlsConfig",
    jsii_struct_bases=[],
    name_mapping={
        "ca": "ca",
        "cert": "cert",
        "insecure_skip_verify": "insecureSkipVerify",
        "key_secret": "keySecret",
        "max_version": "maxVersion",
        "min_version": "minVersion",
        "server_name": "serverName",
    },
)
class ServiceMonitorSpecEndpointsOauth2TlsConfig:
    def __init__(
        self,
        *,
        ca: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsOauth2TlsConfigCa", typing.Dict[builtins.str, typing.Any]]] = None,
        cert: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsOauth2TlsConfigCert", typing.Dict[builtins.str, typing.Any]]] = None,
        insecure_skip_verify: typing.Optional[builtins.bool] = None,
        key_secret: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsOauth2TlsConfigKeySecret", typing.Dict[builtins.str, typing.Any]]] = None,
        max_version: typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigMaxVersion"] = None,
        min_version: typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigMinVersion"] = None,
        server_name: typing.Optional[builtins.str] = None,
    ) -> None:
        '''tlsConfig defines the TLS configuration to use when connecting to the OAuth2 server.

        It requires Prometheus >= v2.43.0.

        :param ca: ca defines the Certificate authority used when verifying server certificates.
        :param cert: cert defines the Client certificate to present when doing client-authentication.
        :param insecure_skip_verify: insecureSkipVerify defines how to disable target certificate validation.
        :param key_secret: keySecret defines the Secret containing the client key file for the targets.
        :param max_version: maxVersion defines the maximum acceptable TLS version. It requires Prometheus >= v2.41.0 or Thanos >= v0.31.0.
        :param min_version: minVersion defines the minimum acceptable TLS version. It requires Prometheus >= v2.35.0 or Thanos >= v0.28.0.
        :param server_name: serverName is used to verify the hostname for the targets.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfig
        '''
        if isinstance(ca, dict):
            ca = ServiceMonitorSpecEndpointsOauth2TlsConfigCa(**ca)
        if isinstance(cert, dict):
            cert = ServiceMonitorSpecEndpointsOauth2TlsConfigCert(**cert)
        if isinstance(key_secret, dict):
            key_secret = ServiceMonitorSpecEndpointsOauth2TlsConfigKeySecret(**key_secret)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__7f0374c9cbcedf508c2c6547709b4649dedea1193fa741d05f6406165d74373b)
            check_type(argname="argument ca", value=ca, expected_type=type_hints["ca"])
            check_type(argname="argument cert", value=cert, expected_type=type_hints["cert"])
            check_type(argname="argument insecure_skip_verify", value=insecure_skip_verify, expected_type=type_hints["insecure_skip_verify"])
            check_type(argname="argument key_secret", value=key_secret, expected_type=type_hints["key_secret"])
            check_type(argname="argument max_version", value=max_version, expected_type=type_hints["max_version"])
            check_type(argname="argument min_version", value=min_version, expected_type=type_hints["min_version"])
            check_type(argname="argument server_name", value=server_name, expected_type=type_hints["server_name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if ca is not None:
            self._values["ca"] = ca
        if cert is not None:
            self._values["cert"] = cert
        if insecure_skip_verify is not None:
            self._values["insecure_skip_verify"] = insecure_skip_verify
        if key_secret is not None:
            self._values["key_secret"] = key_secret
        if max_version is not None:
            self._values["max_version"] = max_version
        if min_version is not None:
            self._values["min_version"] = min_version
        if server_name is not None:
            self._values["server_name"] = server_name

    @builtins.property
    def ca(self) -> typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigCa"]:
        '''ca defines the Certificate authority used when verifying server certificates.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfig#ca
        '''
        result = self._values.get("ca")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigCa"], result)

    @builtins.property
    def cert(self) -> typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigCert"]:
        '''cert defines the Client certificate to present when doing client-authentication.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfig#cert
        '''
        result = self._values.get("cert")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigCert"], result)

    @builtins.property
    def insecure_skip_verify(self) -> typing.Optional[builtins.bool]:
        '''insecureSkipVerify defines how to disable target certificate validation.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfig#insecureSkipVerify
        '''
        result = self._values.get("insecure_skip_verify")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def key_secret(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigKeySecret"]:
        '''keySecret defines the Secret containing the client key file for the targets.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfig#keySecret
        '''
        result = self._values.get("key_secret")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigKeySecret"], result)

    @builtins.property
    def max_version(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigMaxVersion"]:
        '''maxVersion defines the maximum acceptable TLS version.

        It requires Prometheus >= v2.41.0 or Thanos >= v0.31.0.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfig#maxVersion
        '''
        result = self._values.get("max_version")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigMaxVersion"], result)

    @builtins.property
    def min_version(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigMinVersion"]:
        '''minVersion defines the minimum acceptable TLS version.

        It requires Prometheus >= v2.35.0 or Thanos >= v0.28.0.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfig#minVersion
        '''
        result = self._values.get("min_version")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigMinVersion"], result)

    @builtins.property
    def server_name(self) -> typing.Optional[builtins.str]:
        '''serverName is used to verify the hostname for the targets.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfig#serverName
        '''
        result = self._values.get("server_name")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsOauth2TlsConfig(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsOauth2TlsConfigCa",
    jsii_struct_bases=[],
    name_mapping={"config_map": "configMap", "secret": "secret"},
)
class ServiceMonitorSpecEndpointsOauth2TlsConfigCa:
    def __init__(
        self,
        *,
        config_map: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsOauth2TlsConfigCaConfigMap", typing.Dict[builtins.str, typing.Any]]] = None,
        secret: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsOauth2TlsConfigCaSecret", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''ca defines the Certificate authority used when verifying server certificates.

        :param config_map: configMap defines the ConfigMap containing data to use for the targets.
        :param secret: secret defines the Secret containing data to use for the targets.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCa
        '''
        if isinstance(config_map, dict):
            config_map = ServiceMonitorSpecEndpointsOauth2TlsConfigCaConfigMap(**config_map)
        if isinstance(secret, dict):
            secret = ServiceMonitorSpecEndpointsOauth2TlsConfigCaSecret(**secret)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__1b908c3b16dff8d9a0d49d09734c7d0976557b0fe3de4bd8f7469c765d6b8bd4)
            check_type(argname="argument config_map", value=config_map, expected_type=type_hints["config_map"])
            check_type(argname="argument secret", value=secret, expected_type=type_hints["secret"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if config_map is not None:
            self._values["config_map"] = config_map
        if secret is not None:
            self._values["secret"] = secret

    @builtins.property
    def config_map(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigCaConfigMap"]:
        '''configMap defines the ConfigMap containing data to use for the targets.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCa#configMap
        '''
        result = self._values.get("config_map")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigCaConfigMap"], result)

    @builtins.property
    def secret(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigCaSecret"]:
        '''secret defines the Secret containing data to use for the targets.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCa#secret
        '''
        result = self._values.get("secret")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigCaSecret"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsOauth2TlsConfigCa(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsOauth2TlsConfigCaConfigMap",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsOauth2TlsConfigCaConfigMap:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''configMap defines the ConfigMap containing data to use for the targets.

        :param key: The key to select.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the ConfigMap or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCaConfigMap
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__a1154bc658d3e2edd8c62e42a54d499e5e168fa16eddc2a5e15f733fa2e1900f)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key to select.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCaConfigMap#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCaConfigMap#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the ConfigMap or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCaConfigMap#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsOauth2TlsConfigCaConfigMap(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsOauth2TlsConfigCaSecret",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsOauth2TlsConfigCaSecret:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''secret defines the Secret containing data to use for the targets.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCaSecret
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__d2611329ba99f48e33a7758dc7596c267cab9e2b7c935b41b8c9add1eca0ae30)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCaSecret#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCaSecret#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCaSecret#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsOauth2TlsConfigCaSecret(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsOauth2TlsConfigCert",
    jsii_struct_bases=[],
    name_mapping={"config_map": "configMap", "secret": "secret"},
)
class ServiceMonitorSpecEndpointsOauth2TlsConfigCert:
    def __init__(
        self,
        *,
        config_map: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsOauth2TlsConfigCertConfigMap", typing.Dict[builtins.str, typing.Any]]] = None,
        secret: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsOauth2TlsConfigCertSecret", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''cert defines the Client certificate to present when doing client-authentication.

        :param config_map: configMap defines the ConfigMap containing data to use for the targets.
        :param secret: secret defines the Secret containing data to use for the targets.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCert
        '''
        if isinstance(config_map, dict):
            config_map = ServiceMonitorSpecEndpointsOauth2TlsConfigCertConfigMap(**config_map)
        if isinstance(secret, dict):
            secret = ServiceMonitorSpecEndpointsOauth2TlsConfigCertSecret(**secret)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__b05c616e9b94b5c4d9e932cd15ea648054bb04e44ff275c2233ddd3a9576078c)
            check_type(argname="argument config_map", value=config_map, expected_type=type_hints["config_map"])
            check_type(argname="argument secret", value=secret, expected_type=type_hints["secret"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if config_map is not None:
            self._values["config_map"] = config_map
        if secret is not None:
            self._values["secret"] = secret

    @builtins.property
    def config_map(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigCertConfigMap"]:
        '''configMap defines the ConfigMap containing data to use for the targets.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCert#configMap
        '''
        result = self._values.get("config_map")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigCertConfigMap"], result)

    @builtins.property
    def secret(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigCertSecret"]:
        '''secret defines the Secret containing data to use for the targets.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCert#secret
        '''
        result = self._values.get("secret")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigCertSecret"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsOauth2TlsConfigCert(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsOauth2TlsConfigCertConfigMap",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsOauth2TlsConfigCertConfigMap:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''configMap defines the ConfigMap containing data to use for the targets.

        :param key: The key to select.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the ConfigMap or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCertConfigMap
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__9e21cae8a7eebfd2b151fcfbc11956884b60de69bcf2838b8e6290982ec16747)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key to select.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCertConfigMap#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCertConfigMap#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the ConfigMap or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCertConfigMap#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsOauth2TlsConfigCertConfigMap(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsOauth2TlsConfigCertSecret",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsOauth2TlsConfigCertSecret:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''secret defines the Secret containing data to use for the targets.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCertSecret
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__61b1f82f3ccd790a1eaa13fb87cbabdc478291215c6eb5c85ccbbd556a081493)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCertSecret#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCertSecret#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCertSecret#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsOauth2TlsConfigCertSecret(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsOauth2TlsConfigKeySecret",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsOauth2TlsConfigKeySecret:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''keySecret defines the Secret containing the client key file for the targets.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigKeySecret
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__8d85d215130b98aa8642a17b5769d5efb787f32e61a3dbdaba5934eb5ab25ed1)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigKeySecret#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigKeySecret#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigKeySecret#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsOauth2TlsConfigKeySecret(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsOauth2TlsConfigMaxVersion"
)
class ServiceMonitorSpecEndpointsOauth2TlsConfigMaxVersion(enum.Enum):
    '''maxVersion defines the maximum acceptable TLS version.

    It requires Prometheus >= v2.41.0 or Thanos >= v0.31.0.

    :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigMaxVersion
    '''

    TLS10 = "TLS10"
    '''TLS10.'''
    TLS11 = "TLS11"
    '''TLS11.'''
    TLS12 = "TLS12"
    '''TLS12.'''
    TLS13 = "TLS13"
    '''TLS13.'''


@jsii.enum(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsOauth2TlsConfigMinVersion"
)
class ServiceMonitorSpecEndpointsOauth2TlsConfigMinVersion(enum.Enum):
    '''minVersion defines the minimum acceptable TLS version.

    It requires Prometheus >= v2.35.0 or Thanos >= v0.28.0.

    :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigMinVersion
    '''

    TLS10 = "TLS10"
    '''TLS10.'''
    TLS11 = "TLS11"
    '''TLS11.'''
    TLS12 = "TLS12"
    '''TLS12.'''
    TLS13 = "TLS13"
    '''TLS13.'''


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsProxyConnectHeader",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsProxyConnectHeader:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''SecretKeySelector selects a key of a Secret.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsProxyConnectHeader
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__d6df8b805e4ff57bbf774a6510a63c66f99547431a44f4056933219837a263f6)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: ServiceMonitorSpecEndpointsProxyConnectHeader#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsProxyConnectHeader#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsProxyConnectHeader#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsProxyConnectHeader(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsRelabelings",
    jsii_struct_bases=[],
    name_mapping={
        "action": "action",
        "modulus": "modulus",
        "regex": "regex",
        "replacement": "replacement",
        "separator": "separator",
        "source_labels": "sourceLabels",
        "target_label": "targetLabel",
    },
)
class ServiceMonitorSpecEndpointsRelabelings:
    def __init__(
        self,
        *,
        action: typing.Optional["ServiceMonitorSpecEndpointsRelabelingsAction"] = None,
        modulus: typing.Optional[jsii.Number] = None,
        regex: typing.Optional[builtins.str] = None,
        replacement: typing.Optional[builtins.str] = None,
        separator: typing.Optional[builtins.str] = None,
        source_labels: typing.Optional[typing.Sequence[builtins.str]] = None,
        target_label: typing.Optional[builtins.str] = None,
    ) -> None:
        '''RelabelConfig allows dynamic rewriting of the label set for targets, alerts, scraped samples and remote write samples.

        More info: https://prometheus.io/docs/prometheus/latest/configuration/configuration/#relabel_config

        :param action: action to perform based on the regex matching. ``Uppercase`` and ``Lowercase`` actions require Prometheus >= v2.36.0. ``DropEqual`` and ``KeepEqual`` actions require Prometheus >= v2.41.0. Default: "Replace"
        :param modulus: modulus to take of the hash of the source label values. Only applicable when the action is ``HashMod``.
        :param regex: regex defines the regular expression against which the extracted value is matched.
        :param replacement: replacement value against which a Replace action is performed if the regular expression matches. Regex capture groups are available.
        :param separator: separator defines the string between concatenated SourceLabels.
        :param source_labels: sourceLabels defines the source labels select values from existing labels. Their content is concatenated using the configured Separator and matched against the configured regular expression.
        :param target_label: targetLabel defines the label to which the resulting string is written in a replacement. It is mandatory for ``Replace``, ``HashMod``, ``Lowercase``, ``Uppercase``, ``KeepEqual`` and ``DropEqual`` actions. Regex capture groups are available.

        :schema: ServiceMonitorSpecEndpointsRelabelings
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__e5cf73e595607ff00969be1e9e1eccb65dc9cafef60d990d26be9198ebf32f1a)
            check_type(argname="argument action", value=action, expected_type=type_hints["action"])
            check_type(argname="argument modulus", value=modulus, expected_type=type_hints["modulus"])
            check_type(argname="argument regex", value=regex, expected_type=type_hints["regex"])
            check_type(argname="argument replacement", value=replacement, expected_type=type_hints["replacement"])
            check_type(argname="argument separator", value=separator, expected_type=type_hints["separator"])
            check_type(argname="argument source_labels", value=source_labels, expected_type=type_hints["source_labels"])
            check_type(argname="argument target_label", value=target_label, expected_type=type_hints["target_label"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if action is not None:
            self._values["action"] = action
        if modulus is not None:
            self._values["modulus"] = modulus
        if regex is not None:
            self._values["regex"] = regex
        if replacement is not None:
            self._values["replacement"] = replacement
        if separator is not None:
            self._values["separator"] = separator
        if source_labels is not None:
            self._values["source_labels"] = source_labels
        if target_label is not None:
            self._values["target_label"] = target_label

    @builtins.property
    def action(self) -> typing.Optional["ServiceMonitorSpecEndpointsRelabelingsAction"]:
        '''action to perform based on the regex matching.

        ``Uppercase`` and ``Lowercase`` actions require Prometheus >= v2.36.0.
        ``DropEqual`` and ``KeepEqual`` actions require Prometheus >= v2.41.0.

        Default: "Replace"

        :schema: ServiceMonitorSpecEndpointsRelabelings#action
        '''
        result = self._values.get("action")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsRelabelingsAction"], result)

    @builtins.property
    def modulus(self) -> typing.Optional[jsii.Number]:
        '''modulus to take of the hash of the source label values.

        Only applicable when the action is ``HashMod``.

        :schema: ServiceMonitorSpecEndpointsRelabelings#modulus
        '''
        result = self._values.get("modulus")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def regex(self) -> typing.Optional[builtins.str]:
        '''regex defines the regular expression against which the extracted value is matched.

        :schema: ServiceMonitorSpecEndpointsRelabelings#regex
        '''
        result = self._values.get("regex")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def replacement(self) -> typing.Optional[builtins.str]:
        '''replacement value against which a Replace action is performed if the regular expression matches.

        Regex capture groups are available.

        :schema: ServiceMonitorSpecEndpointsRelabelings#replacement
        '''
        result = self._values.get("replacement")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def separator(self) -> typing.Optional[builtins.str]:
        '''separator defines the string between concatenated SourceLabels.

        :schema: ServiceMonitorSpecEndpointsRelabelings#separator
        '''
        result = self._values.get("separator")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def source_labels(self) -> typing.Optional[typing.List[builtins.str]]:
        '''sourceLabels defines the source labels select values from existing labels.

        Their content is
        concatenated using the configured Separator and matched against the
        configured regular expression.

        :schema: ServiceMonitorSpecEndpointsRelabelings#sourceLabels
        '''
        result = self._values.get("source_labels")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    @builtins.property
    def target_label(self) -> typing.Optional[builtins.str]:
        '''targetLabel defines the label to which the resulting string is written in a replacement.

        It is mandatory for ``Replace``, ``HashMod``, ``Lowercase``, ``Uppercase``,
        ``KeepEqual`` and ``DropEqual`` actions.

        Regex capture groups are available.

        :schema: ServiceMonitorSpecEndpointsRelabelings#targetLabel
        '''
        result = self._values.get("target_label")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsRelabelings(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsRelabelingsAction"
)
class ServiceMonitorSpecEndpointsRelabelingsAction(enum.Enum):
    '''action to perform based on the regex matching.

    ``Uppercase`` and ``Lowercase`` actions require Prometheus >= v2.36.0.
    ``DropEqual`` and ``KeepEqual`` actions require Prometheus >= v2.41.0.

    Default: "Replace"

    :schema: ServiceMonitorSpecEndpointsRelabelingsAction
    '''

    REPLACE = "REPLACE"
    '''replace.'''
    KEEP = "KEEP"
    '''keep.'''
    DROP = "DROP"
    '''drop.'''
    HASHMOD = "HASHMOD"
    '''hashmod.'''
    LABELMAP = "LABELMAP"
    '''labelmap.'''
    LABELDROP = "LABELDROP"
    '''labeldrop.'''
    LABELKEEP = "LABELKEEP"
    '''labelkeep.'''
    LOWERCASE = "LOWERCASE"
    '''lowercase.'''
    UPPERCASE = "UPPERCASE"
    '''uppercase.'''
    KEEPEQUAL = "KEEPEQUAL"
    '''keepequal.'''
    DROPEQUAL = "DROPEQUAL"
    '''dropequal.'''


@jsii.enum(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsScheme"
)
class ServiceMonitorSpecEndpointsScheme(enum.Enum):
    '''scheme defines the HTTP scheme to use when scraping the metrics.

    :schema: ServiceMonitorSpecEndpointsScheme
    '''

    HTTP = "HTTP"
    '''http.'''
    HTTPS = "HTTPS"
    '''https.'''


class ServiceMonitorSpecEndpointsTargetPort(
    metaclass=jsii.JSIIMeta,
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsTargetPort",
):
    '''targetPort defines the name or number of a container port on Pods selected by the Service.

    If a name, it matches against ``.spec.containers[].ports[].name`` of the Pods.
    If a number, it matches against ``.spec.containers[].ports[].containerPort`` of the Pods.

    :schema: ServiceMonitorSpecEndpointsTargetPort
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(cls, value: jsii.Number) -> "ServiceMonitorSpecEndpointsTargetPort":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__3713c2cba7665b8be9461f9138467f62d7202c816d657cdac75b5c2927e5e798)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ServiceMonitorSpecEndpointsTargetPort", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "ServiceMonitorSpecEndpointsTargetPort":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__a75bd4bb9833341614eae1982cd28d127e3730a5ddd1c79927be987b253d1234)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ServiceMonitorSpecEndpointsTargetPort", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsTlsConfig",
    jsii_struct_bases=[],
    name_mapping={
        "ca": "ca",
        "ca_file": "caFile",
        "cert": "cert",
        "cert_file": "certFile",
        "insecure_skip_verify": "insecureSkipVerify",
        "key_file": "keyFile",
        "key_secret": "keySecret",
        "max_version": "maxVersion",
        "min_version": "minVersion",
        "server_name": "serverName",
    },
)
class ServiceMonitorSpecEndpointsTlsConfig:
    def __init__(
        self,
        *,
        ca: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsTlsConfigCa", typing.Dict[builtins.str, typing.Any]]] = None,
        ca_file: typing.Optional[builtins.str] = None,
        cert: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsTlsConfigCert", typing.Dict[builtins.str, typing.Any]]] = None,
        cert_file: typing.Optional[builtins.str] = None,
        insecure_skip_verify: typing.Optional[builtins.bool] = None,
        key_file: typing.Optional[builtins.str] = None,
        key_secret: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsTlsConfigKeySecret", typing.Dict[builtins.str, typing.Any]]] = None,
        max_version: typing.Optional["ServiceMonitorSpecEndpointsTlsConfigMaxVersion"] = None,
        min_version: typing.Optional["ServiceMonitorSpecEndpointsTlsConfigMinVersion"] = None,
        server_name: typing.Optional[builtins.str] = None,
    ) -> None:
        '''tlsConfig defines TLS configuration used by the client.

        :param ca: ca defines the Certificate authority used when verifying server certificates.
        :param ca_file: caFile defines the path to the CA cert in the Prometheus container to use for the targets.
        :param cert: cert defines the Client certificate to present when doing client-authentication.
        :param cert_file: certFile defines the path to the client cert file in the Prometheus container for the targets.
        :param insecure_skip_verify: insecureSkipVerify defines how to disable target certificate validation.
        :param key_file: keyFile defines the path to the client key file in the Prometheus container for the targets.
        :param key_secret: keySecret defines the Secret containing the client key file for the targets.
        :param max_version: maxVersion defines the maximum acceptable TLS version. It requires Prometheus >= v2.41.0 or Thanos >= v0.31.0.
        :param min_version: minVersion defines the minimum acceptable TLS version. It requires Prometheus >= v2.35.0 or Thanos >= v0.28.0.
        :param server_name: serverName is used to verify the hostname for the targets.

        :schema: ServiceMonitorSpecEndpointsTlsConfig
        '''
        if isinstance(ca, dict):
            ca = ServiceMonitorSpecEndpointsTlsConfigCa(**ca)
        if isinstance(cert, dict):
            cert = ServiceMonitorSpecEndpointsTlsConfigCert(**cert)
        if isinstance(key_secret, dict):
            key_secret = ServiceMonitorSpecEndpointsTlsConfigKeySecret(**key_secret)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__8abbf13520af2a4165203d31180d486a35e111303b06e1a2b71374df43e9aeed)
            check_type(argname="argument ca", value=ca, expected_type=type_hints["ca"])
            check_type(argname="argument ca_file", value=ca_file, expected_type=type_hints["ca_file"])
            check_type(argname="argument cert", value=cert, expected_type=type_hints["cert"])
            check_type(argname="argument cert_file", value=cert_file, expected_type=type_hints["cert_file"])
            check_type(argname="argument insecure_skip_verify", value=insecure_skip_verify, expected_type=type_hints["insecure_skip_verify"])
            check_type(argname="argument key_file", value=key_file, expected_type=type_hints["key_file"])
            check_type(argname="argument key_secret", value=key_secret, expected_type=type_hints["key_secret"])
            check_type(argname="argument max_version", value=max_version, expected_type=type_hints["max_version"])
            check_type(argname="argument min_version", value=min_version, expected_type=type_hints["min_version"])
            check_type(argname="argument server_name", value=server_name, expected_type=type_hints["server_name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if ca is not None:
            self._values["ca"] = ca
        if ca_file is not None:
            self._values["ca_file"] = ca_file
        if cert is not None:
            self._values["cert"] = cert
        if cert_file is not None:
            self._values["cert_file"] = cert_file
        if insecure_skip_verify is not None:
            self._values["insecure_skip_verify"] = insecure_skip_verify
        if key_file is not None:
            self._values["key_file"] = key_file
        if key_secret is not None:
            self._values["key_secret"] = key_secret
        if max_version is not None:
            self._values["max_version"] = max_version
        if min_version is not None:
            self._values["min_version"] = min_version
        if server_name is not None:
            self._values["server_name"] = server_name

    @builtins.property
    def ca(self) -> typing.Optional["ServiceMonitorSpecEndpointsTlsConfigCa"]:
        '''ca defines the Certificate authority used when verifying server certificates.

        :schema: ServiceMonitorSpecEndpointsTlsConfig#ca
        '''
        result = self._values.get("ca")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsTlsConfigCa"], result)

    @builtins.property
    def ca_file(self) -> typing.Optional[builtins.str]:
        '''caFile defines the path to the CA cert in the Prometheus container to use for the targets.

        :schema: ServiceMonitorSpecEndpointsTlsConfig#caFile
        '''
        result = self._values.get("ca_file")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def cert(self) -> typing.Optional["ServiceMonitorSpecEndpointsTlsConfigCert"]:
        '''cert defines the Client certificate to present when doing client-authentication.

        :schema: ServiceMonitorSpecEndpointsTlsConfig#cert
        '''
        result = self._values.get("cert")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsTlsConfigCert"], result)

    @builtins.property
    def cert_file(self) -> typing.Optional[builtins.str]:
        '''certFile defines the path to the client cert file in the Prometheus container for the targets.

        :schema: ServiceMonitorSpecEndpointsTlsConfig#certFile
        '''
        result = self._values.get("cert_file")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def insecure_skip_verify(self) -> typing.Optional[builtins.bool]:
        '''insecureSkipVerify defines how to disable target certificate validation.

        :schema: ServiceMonitorSpecEndpointsTlsConfig#insecureSkipVerify
        '''
        result = self._values.get("insecure_skip_verify")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def key_file(self) -> typing.Optional[builtins.str]:
        '''keyFile defines the path to the client key file in the Prometheus container for the targets.

        :schema: ServiceMonitorSpecEndpointsTlsConfig#keyFile
        '''
        result = self._values.get("key_file")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def key_secret(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsTlsConfigKeySecret"]:
        '''keySecret defines the Secret containing the client key file for the targets.

        :schema: ServiceMonitorSpecEndpointsTlsConfig#keySecret
        '''
        result = self._values.get("key_secret")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsTlsConfigKeySecret"], result)

    @builtins.property
    def max_version(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsTlsConfigMaxVersion"]:
        '''maxVersion defines the maximum acceptable TLS version.

        It requires Prometheus >= v2.41.0 or Thanos >= v0.31.0.

        :schema: ServiceMonitorSpecEndpointsTlsConfig#maxVersion
        '''
        result = self._values.get("max_version")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsTlsConfigMaxVersion"], result)

    @builtins.property
    def min_version(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsTlsConfigMinVersion"]:
        '''minVersion defines the minimum acceptable TLS version.

        It requires Prometheus >= v2.35.0 or Thanos >= v0.28.0.

        :schema: ServiceMonitorSpecEndpointsTlsConfig#minVersion
        '''
        result = self._values.get("min_version")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsTlsConfigMinVersion"], result)

    @builtins.property
    def server_name(self) -> typing.Optional[builtins.str]:
        '''serverName is used to verify the hostname for the targets.

        :schema: ServiceMonitorSpecEndpointsTlsConfig#serverName
        '''
        result = self._values.get("server_name")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsTlsConfig(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsTlsConfigCa",
    jsii_struct_bases=[],
    name_mapping={"config_map": "configMap", "secret": "secret"},
)
class ServiceMonitorSpecEndpointsTlsConfigCa:
    def __init__(
        self,
        *,
        config_map: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsTlsConfigCaConfigMap", typing.Dict[builtins.str, typing.Any]]] = None,
        secret: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsTlsConfigCaSecret", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''ca defines the Certificate authority used when verifying server certificates.

        :param config_map: configMap defines the ConfigMap containing data to use for the targets.
        :param secret: secret defines the Secret containing data to use for the targets.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCa
        '''
        if isinstance(config_map, dict):
            config_map = ServiceMonitorSpecEndpointsTlsConfigCaConfigMap(**config_map)
        if isinstance(secret, dict):
            secret = ServiceMonitorSpecEndpointsTlsConfigCaSecret(**secret)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__8d9474f3bcd5b9e08e10ccab0b2a4640f54199fa813cce07bcaea5545f98a5d5)
            check_type(argname="argument config_map", value=config_map, expected_type=type_hints["config_map"])
            check_type(argname="argument secret", value=secret, expected_type=type_hints["secret"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if config_map is not None:
            self._values["config_map"] = config_map
        if secret is not None:
            self._values["secret"] = secret

    @builtins.property
    def config_map(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsTlsConfigCaConfigMap"]:
        '''configMap defines the ConfigMap containing data to use for the targets.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCa#configMap
        '''
        result = self._values.get("config_map")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsTlsConfigCaConfigMap"], result)

    @builtins.property
    def secret(self) -> typing.Optional["ServiceMonitorSpecEndpointsTlsConfigCaSecret"]:
        '''secret defines the Secret containing data to use for the targets.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCa#secret
        '''
        result = self._values.get("secret")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsTlsConfigCaSecret"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsTlsConfigCa(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsTlsConfigCaConfigMap",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsTlsConfigCaConfigMap:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''configMap defines the ConfigMap containing data to use for the targets.

        :param key: The key to select.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the ConfigMap or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCaConfigMap
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__9986b0aa4e3b0cfe21f0883ee132951575ce966ac67898dd1ad08fc921dee499)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key to select.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCaConfigMap#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsTlsConfigCaConfigMap#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the ConfigMap or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCaConfigMap#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsTlsConfigCaConfigMap(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsTlsConfigCaSecret",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsTlsConfigCaSecret:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''secret defines the Secret containing data to use for the targets.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCaSecret
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__6454cd66c27101be25024f576d0151e5e73369a997db676b03696ab590486d06)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCaSecret#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsTlsConfigCaSecret#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCaSecret#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsTlsConfigCaSecret(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsTlsConfigCert",
    jsii_struct_bases=[],
    name_mapping={"config_map": "configMap", "secret": "secret"},
)
class ServiceMonitorSpecEndpointsTlsConfigCert:
    def __init__(
        self,
        *,
        config_map: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsTlsConfigCertConfigMap", typing.Dict[builtins.str, typing.Any]]] = None,
        secret: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsTlsConfigCertSecret", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''cert defines the Client certificate to present when doing client-authentication.

        :param config_map: configMap defines the ConfigMap containing data to use for the targets.
        :param secret: secret defines the Secret containing data to use for the targets.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCert
        '''
        if isinstance(config_map, dict):
            config_map = ServiceMonitorSpecEndpointsTlsConfigCertConfigMap(**config_map)
        if isinstance(secret, dict):
            secret = ServiceMonitorSpecEndpointsTlsConfigCertSecret(**secret)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__5ab340ee0d81bfaf8dd392821922b5910ba9a698d9fb8f1a692951f417ebc2c8)
            check_type(argname="argument config_map", value=config_map, expected_type=type_hints["config_map"])
            check_type(argname="argument secret", value=secret, expected_type=type_hints["secret"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if config_map is not None:
            self._values["config_map"] = config_map
        if secret is not None:
            self._values["secret"] = secret

    @builtins.property
    def config_map(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsTlsConfigCertConfigMap"]:
        '''configMap defines the ConfigMap containing data to use for the targets.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCert#configMap
        '''
        result = self._values.get("config_map")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsTlsConfigCertConfigMap"], result)

    @builtins.property
    def secret(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsTlsConfigCertSecret"]:
        '''secret defines the Secret containing data to use for the targets.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCert#secret
        '''
        result = self._values.get("secret")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsTlsConfigCertSecret"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsTlsConfigCert(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsTlsConfigCertConfigMap",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsTlsConfigCertConfigMap:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''configMap defines the ConfigMap containing data to use for the targets.

        :param key: The key to select.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the ConfigMap or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCertConfigMap
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__9e8282a1c1751dd7fa2cfed96a55649d27648683c8fce348fae0b3c848ec448d)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key to select.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCertConfigMap#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsTlsConfigCertConfigMap#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the ConfigMap or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCertConfigMap#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsTlsConfigCertConfigMap(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsTlsConfigCertSecret",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsTlsConfigCertSecret:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''secret defines the Secret containing data to use for the targets.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCertSecret
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__1947ca7fe2518b03bbd7f16806194ed978d3ef01768b7b65986eab3e2cf63a36)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCertSecret#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsTlsConfigCertSecret#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCertSecret#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsTlsConfigCertSecret(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsTlsConfigKeySecret",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsTlsConfigKeySecret:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''keySecret defines the Secret containing the client key file for the targets.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsTlsConfigKeySecret
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__d1c77ee88a61feb0eea4369a3bdb7a1423c333d2a404a5dbbd4305367a5ebe1d)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: ServiceMonitorSpecEndpointsTlsConfigKeySecret#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsTlsConfigKeySecret#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsTlsConfigKeySecret#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsTlsConfigKeySecret(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsTlsConfigMaxVersion"
)
class ServiceMonitorSpecEndpointsTlsConfigMaxVersion(enum.Enum):
    '''maxVersion defines the maximum acceptable TLS version.

    It requires Prometheus >= v2.41.0 or Thanos >= v0.31.0.

    :schema: ServiceMonitorSpecEndpointsTlsConfigMaxVersion
    '''

    TLS10 = "TLS10"
    '''TLS10.'''
    TLS11 = "TLS11"
    '''TLS11.'''
    TLS12 = "TLS12"
    '''TLS12.'''
    TLS13 = "TLS13"
    '''TLS13.'''


@jsii.enum(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecEndpointsTlsConfigMinVersion"
)
class ServiceMonitorSpecEndpointsTlsConfigMinVersion(enum.Enum):
    '''minVersion defines the minimum acceptable TLS version.

    It requires Prometheus >= v2.35.0 or Thanos >= v0.28.0.

    :schema: ServiceMonitorSpecEndpointsTlsConfigMinVersion
    '''

    TLS10 = "TLS10"
    '''TLS10.'''
    TLS11 = "TLS11"
    '''TLS11.'''
    TLS12 = "TLS12"
    '''TLS12.'''
    TLS13 = "TLS13"
    '''TLS13.'''


@jsii.enum(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecFallbackScrapeProtocol"
)
class ServiceMonitorSpecFallbackScrapeProtocol(enum.Enum):
    '''fallbackScrapeProtocol defines the protocol to use if a scrape returns blank, unparseable, or otherwise invalid Content-Type.

    It requires Prometheus >= v3.0.0.

    :schema: ServiceMonitorSpecFallbackScrapeProtocol
    '''

    PROMETHEUS_PROTO = "PROMETHEUS_PROTO"
    '''PrometheusProto.'''
    OPEN_METRICS_TEXT0_0_1 = "OPEN_METRICS_TEXT0_0_1"
    '''OpenMetricsText0.0.1.'''
    OPEN_METRICS_TEXT1_0_0 = "OPEN_METRICS_TEXT1_0_0"
    '''OpenMetricsText1.0.0.'''
    PROMETHEUS_TEXT0_0_4 = "PROMETHEUS_TEXT0_0_4"
    '''PrometheusText0.0.4.'''
    PROMETHEUS_TEXT1_0_0 = "PROMETHEUS_TEXT1_0_0"
    '''PrometheusText1.0.0.'''


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecNamespaceSelector",
    jsii_struct_bases=[],
    name_mapping={"any": "any", "match_names": "matchNames"},
)
class ServiceMonitorSpecNamespaceSelector:
    def __init__(
        self,
        *,
        any: typing.Optional[builtins.bool] = None,
        match_names: typing.Optional[typing.Sequence[builtins.str]] = None,
    ) -> None:
        '''namespaceSelector defines in which namespace(s) Prometheus should discover the services.

        By default, the services are discovered in the same namespace as the ``ServiceMonitor`` object but it is possible to select pods across different/all namespaces.

        :param any: any defines the boolean describing whether all namespaces are selected in contrast to a list restricting them.
        :param match_names: matchNames defines the list of namespace names to select from.

        :schema: ServiceMonitorSpecNamespaceSelector
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__df76220fd10e4dd3dc3127e127a8a7fccc712f7683c2c8ea87d084abbcb20d69)
            check_type(argname="argument any", value=any, expected_type=type_hints["any"])
            check_type(argname="argument match_names", value=match_names, expected_type=type_hints["match_names"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if any is not None:
            self._values["any"] = any
        if match_names is not None:
            self._values["match_names"] = match_names

    @builtins.property
    def any(self) -> typing.Optional[builtins.bool]:
        '''any defines the boolean describing whether all namespaces are selected in contrast to a list restricting them.

        :schema: ServiceMonitorSpecNamespaceSelector#any
        '''
        result = self._values.get("any")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def match_names(self) -> typing.Optional[typing.List[builtins.str]]:
        '''matchNames defines the list of namespace names to select from.

        :schema: ServiceMonitorSpecNamespaceSelector#matchNames
        '''
        result = self._values.get("match_names")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecNamespaceSelector(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class ServiceMonitorSpecNativeHistogramMinBucketFactor(
    metaclass=jsii.JSIIMeta,
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecNativeHistogramMinBucketFactor",
):
    '''nativeHistogramMinBucketFactor defines if the growth factor of one bucket to the next is smaller than this, buckets will be merged to increase the factor sufficiently.

    It requires Prometheus >= v2.50.0.

    :schema: ServiceMonitorSpecNativeHistogramMinBucketFactor
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "ServiceMonitorSpecNativeHistogramMinBucketFactor":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__9b6bfeb48a7b3117b60cb0258a0403ab205bc88a6500e1e133507a2bbbaa48b0)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ServiceMonitorSpecNativeHistogramMinBucketFactor", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "ServiceMonitorSpecNativeHistogramMinBucketFactor":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__e2c08416be3aaf3ddd2309fb1fe78862e4f8bd2c5e10094869fe1e075867a955)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ServiceMonitorSpecNativeHistogramMinBucketFactor", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.enum(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecScrapeProtocols"
)
class ServiceMonitorSpecScrapeProtocols(enum.Enum):
    '''ScrapeProtocol represents a protocol used by Prometheus for scraping metrics.

    Supported values are:

    - ``OpenMetricsText0.0.1``
    - ``OpenMetricsText1.0.0``
    - ``PrometheusProto``
    - ``PrometheusText0.0.4``
    - ``PrometheusText1.0.0``

    :schema: ServiceMonitorSpecScrapeProtocols
    '''

    PROMETHEUS_PROTO = "PROMETHEUS_PROTO"
    '''PrometheusProto.'''
    OPEN_METRICS_TEXT0_0_1 = "OPEN_METRICS_TEXT0_0_1"
    '''OpenMetricsText0.0.1.'''
    OPEN_METRICS_TEXT1_0_0 = "OPEN_METRICS_TEXT1_0_0"
    '''OpenMetricsText1.0.0.'''
    PROMETHEUS_TEXT0_0_4 = "PROMETHEUS_TEXT0_0_4"
    '''PrometheusText0.0.4.'''
    PROMETHEUS_TEXT1_0_0 = "PROMETHEUS_TEXT1_0_0"
    '''PrometheusText1.0.0.'''


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecSelector",
    jsii_struct_bases=[],
    name_mapping={
        "match_expressions": "matchExpressions",
        "match_labels": "matchLabels",
    },
)
class ServiceMonitorSpecSelector:
    def __init__(
        self,
        *,
        match_expressions: typing.Optional[typing.Sequence[typing.Union["ServiceMonitorSpecSelectorMatchExpressions", typing.Dict[builtins.str, typing.Any]]]] = None,
        match_labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    ) -> None:
        '''selector defines the label selector to select the Kubernetes ``Endpoints`` objects to scrape metrics from.

        :param match_expressions: matchExpressions is a list of label selector requirements. The requirements are ANDed.
        :param match_labels: matchLabels is a map of {key,value} pairs. A single {key,value} in the matchLabels map is equivalent to an element of matchExpressions, whose key field is "key", the operator is "In", and the values array contains only "value". The requirements are ANDed.

        :schema: ServiceMonitorSpecSelector
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__993fd94139f73ec36b52cb404e08238515c58375ba5e1c62c525ed79be16ee53)
            check_type(argname="argument match_expressions", value=match_expressions, expected_type=type_hints["match_expressions"])
            check_type(argname="argument match_labels", value=match_labels, expected_type=type_hints["match_labels"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if match_expressions is not None:
            self._values["match_expressions"] = match_expressions
        if match_labels is not None:
            self._values["match_labels"] = match_labels

    @builtins.property
    def match_expressions(
        self,
    ) -> typing.Optional[typing.List["ServiceMonitorSpecSelectorMatchExpressions"]]:
        '''matchExpressions is a list of label selector requirements.

        The requirements are ANDed.

        :schema: ServiceMonitorSpecSelector#matchExpressions
        '''
        result = self._values.get("match_expressions")
        return typing.cast(typing.Optional[typing.List["ServiceMonitorSpecSelectorMatchExpressions"]], result)

    @builtins.property
    def match_labels(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''matchLabels is a map of {key,value} pairs.

        A single {key,value} in the matchLabels
        map is equivalent to an element of matchExpressions, whose key field is "key", the
        operator is "In", and the values array contains only "value". The requirements are ANDed.

        :schema: ServiceMonitorSpecSelector#matchLabels
        '''
        result = self._values.get("match_labels")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecSelector(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecSelectorMatchExpressions",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "operator": "operator", "values": "values"},
)
class ServiceMonitorSpecSelectorMatchExpressions:
    def __init__(
        self,
        *,
        key: builtins.str,
        operator: builtins.str,
        values: typing.Optional[typing.Sequence[builtins.str]] = None,
    ) -> None:
        '''A label selector requirement is a selector that contains values, a key, and an operator that relates the key and values.

        :param key: key is the label key that the selector applies to.
        :param operator: operator represents a key's relationship to a set of values. Valid operators are In, NotIn, Exists and DoesNotExist.
        :param values: values is an array of string values. If the operator is In or NotIn, the values array must be non-empty. If the operator is Exists or DoesNotExist, the values array must be empty. This array is replaced during a strategic merge patch.

        :schema: ServiceMonitorSpecSelectorMatchExpressions
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__8c3d4e4548b7ec6b728a59d5e37906537a8e9764cfecf978bacfb8c5aafe857f)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument operator", value=operator, expected_type=type_hints["operator"])
            check_type(argname="argument values", value=values, expected_type=type_hints["values"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
            "operator": operator,
        }
        if values is not None:
            self._values["values"] = values

    @builtins.property
    def key(self) -> builtins.str:
        '''key is the label key that the selector applies to.

        :schema: ServiceMonitorSpecSelectorMatchExpressions#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def operator(self) -> builtins.str:
        '''operator represents a key's relationship to a set of values.

        Valid operators are In, NotIn, Exists and DoesNotExist.

        :schema: ServiceMonitorSpecSelectorMatchExpressions#operator
        '''
        result = self._values.get("operator")
        assert result is not None, "Required property 'operator' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def values(self) -> typing.Optional[typing.List[builtins.str]]:
        '''values is an array of string values.

        If the operator is In or NotIn,
        the values array must be non-empty. If the operator is Exists or DoesNotExist,
        the values array must be empty. This array is replaced during a strategic
        merge patch.

        :schema: ServiceMonitorSpecSelectorMatchExpressions#values
        '''
        result = self._values.get("values")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecSelectorMatchExpressions(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecSelectorMechanism"
)
class ServiceMonitorSpecSelectorMechanism(enum.Enum):
    '''selectorMechanism defines the mechanism used to select the endpoints to scrape.

    By default, the selection process relies on relabel configurations to filter the discovered targets.
    Alternatively, you can opt in for role selectors, which may offer better efficiency in large clusters.
    Which strategy is best for your use case needs to be carefully evaluated.

    It requires Prometheus >= v2.17.0.

    :schema: ServiceMonitorSpecSelectorMechanism
    '''

    RELABEL_CONFIG = "RELABEL_CONFIG"
    '''RelabelConfig.'''
    ROLE_SELECTOR = "ROLE_SELECTOR"
    '''RoleSelector.'''


@jsii.enum(
    jsii_type="servicemonitor_comcoreosmonitoring.ServiceMonitorSpecServiceDiscoveryRole"
)
class ServiceMonitorSpecServiceDiscoveryRole(enum.Enum):
    '''serviceDiscoveryRole defines the service discovery role used to discover targets.

    If set, the value should be either "Endpoints" or "EndpointSlice".
    Otherwise it defaults to the value defined in the
    Prometheus/PrometheusAgent resource.

    :schema: ServiceMonitorSpecServiceDiscoveryRole
    '''

    ENDPOINTS = "ENDPOINTS"
    '''Endpoints.'''
    ENDPOINT_SLICE = "ENDPOINT_SLICE"
    '''EndpointSlice.'''


__all__ = [
    "ServiceMonitor",
    "ServiceMonitorProps",
    "ServiceMonitorSpec",
    "ServiceMonitorSpecAttachMetadata",
    "ServiceMonitorSpecEndpoints",
    "ServiceMonitorSpecEndpointsAuthorization",
    "ServiceMonitorSpecEndpointsAuthorizationCredentials",
    "ServiceMonitorSpecEndpointsBasicAuth",
    "ServiceMonitorSpecEndpointsBasicAuthPassword",
    "ServiceMonitorSpecEndpointsBasicAuthUsername",
    "ServiceMonitorSpecEndpointsBearerTokenSecret",
    "ServiceMonitorSpecEndpointsMetricRelabelings",
    "ServiceMonitorSpecEndpointsMetricRelabelingsAction",
    "ServiceMonitorSpecEndpointsOauth2",
    "ServiceMonitorSpecEndpointsOauth2ClientId",
    "ServiceMonitorSpecEndpointsOauth2ClientIdConfigMap",
    "ServiceMonitorSpecEndpointsOauth2ClientIdSecret",
    "ServiceMonitorSpecEndpointsOauth2ClientSecret",
    "ServiceMonitorSpecEndpointsOauth2ProxyConnectHeader",
    "ServiceMonitorSpecEndpointsOauth2TlsConfig",
    "ServiceMonitorSpecEndpointsOauth2TlsConfigCa",
    "ServiceMonitorSpecEndpointsOauth2TlsConfigCaConfigMap",
    "ServiceMonitorSpecEndpointsOauth2TlsConfigCaSecret",
    "ServiceMonitorSpecEndpointsOauth2TlsConfigCert",
    "ServiceMonitorSpecEndpointsOauth2TlsConfigCertConfigMap",
    "ServiceMonitorSpecEndpointsOauth2TlsConfigCertSecret",
    "ServiceMonitorSpecEndpointsOauth2TlsConfigKeySecret",
    "ServiceMonitorSpecEndpointsOauth2TlsConfigMaxVersion",
    "ServiceMonitorSpecEndpointsOauth2TlsConfigMinVersion",
    "ServiceMonitorSpecEndpointsProxyConnectHeader",
    "ServiceMonitorSpecEndpointsRelabelings",
    "ServiceMonitorSpecEndpointsRelabelingsAction",
    "ServiceMonitorSpecEndpointsScheme",
    "ServiceMonitorSpecEndpointsTargetPort",
    "ServiceMonitorSpecEndpointsTlsConfig",
    "ServiceMonitorSpecEndpointsTlsConfigCa",
    "ServiceMonitorSpecEndpointsTlsConfigCaConfigMap",
    "ServiceMonitorSpecEndpointsTlsConfigCaSecret",
    "ServiceMonitorSpecEndpointsTlsConfigCert",
    "ServiceMonitorSpecEndpointsTlsConfigCertConfigMap",
    "ServiceMonitorSpecEndpointsTlsConfigCertSecret",
    "ServiceMonitorSpecEndpointsTlsConfigKeySecret",
    "ServiceMonitorSpecEndpointsTlsConfigMaxVersion",
    "ServiceMonitorSpecEndpointsTlsConfigMinVersion",
    "ServiceMonitorSpecFallbackScrapeProtocol",
    "ServiceMonitorSpecNamespaceSelector",
    "ServiceMonitorSpecNativeHistogramMinBucketFactor",
    "ServiceMonitorSpecScrapeProtocols",
    "ServiceMonitorSpecSelector",
    "ServiceMonitorSpecSelectorMatchExpressions",
    "ServiceMonitorSpecSelectorMechanism",
    "ServiceMonitorSpecServiceDiscoveryRole",
]

publication.publish()

def _typecheckingstub__e20c5dea9daa8211b8cc8e02071fbbbe0563f6450ec2a66e99a463c4dee2749a(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    spec: typing.Union[ServiceMonitorSpec, typing.Dict[builtins.str, typing.Any]],
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__045c248ffb9300a64c0856a02d6dfe9dac56d934dc6ca2ccfd9a414fa22aba40(
    *,
    spec: typing.Union[ServiceMonitorSpec, typing.Dict[builtins.str, typing.Any]],
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__f1fe070c1892370c9eaed357925ab9af7bf3028a17e751031cfe587a18ea597a(
    *,
    endpoints: typing.Sequence[typing.Union[ServiceMonitorSpecEndpoints, typing.Dict[builtins.str, typing.Any]]],
    selector: typing.Union[ServiceMonitorSpecSelector, typing.Dict[builtins.str, typing.Any]],
    attach_metadata: typing.Optional[typing.Union[ServiceMonitorSpecAttachMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    body_size_limit: typing.Optional[builtins.str] = None,
    convert_classic_histograms_to_nhcb: typing.Optional[builtins.bool] = None,
    fallback_scrape_protocol: typing.Optional[ServiceMonitorSpecFallbackScrapeProtocol] = None,
    job_label: typing.Optional[builtins.str] = None,
    keep_dropped_targets: typing.Optional[jsii.Number] = None,
    label_limit: typing.Optional[jsii.Number] = None,
    label_name_length_limit: typing.Optional[jsii.Number] = None,
    label_value_length_limit: typing.Optional[jsii.Number] = None,
    namespace_selector: typing.Optional[typing.Union[ServiceMonitorSpecNamespaceSelector, typing.Dict[builtins.str, typing.Any]]] = None,
    native_histogram_bucket_limit: typing.Optional[jsii.Number] = None,
    native_histogram_min_bucket_factor: typing.Optional[ServiceMonitorSpecNativeHistogramMinBucketFactor] = None,
    pod_target_labels: typing.Optional[typing.Sequence[builtins.str]] = None,
    sample_limit: typing.Optional[jsii.Number] = None,
    scrape_class: typing.Optional[builtins.str] = None,
    scrape_classic_histograms: typing.Optional[builtins.bool] = None,
    scrape_native_histograms: typing.Optional[builtins.bool] = None,
    scrape_protocols: typing.Optional[typing.Sequence[ServiceMonitorSpecScrapeProtocols]] = None,
    selector_mechanism: typing.Optional[ServiceMonitorSpecSelectorMechanism] = None,
    service_discovery_role: typing.Optional[ServiceMonitorSpecServiceDiscoveryRole] = None,
    target_labels: typing.Optional[typing.Sequence[builtins.str]] = None,
    target_limit: typing.Optional[jsii.Number] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__3f2e5f78700f3313c021fc47b34f0652309680c0fad710c6d30a345691f49373(
    *,
    node: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__93ad142757872e48ae844fafd6e75a8de838679971c72e443cd3fccd230fdf3f(
    *,
    authorization: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsAuthorization, typing.Dict[builtins.str, typing.Any]]] = None,
    basic_auth: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsBasicAuth, typing.Dict[builtins.str, typing.Any]]] = None,
    bearer_token_file: typing.Optional[builtins.str] = None,
    bearer_token_secret: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsBearerTokenSecret, typing.Dict[builtins.str, typing.Any]]] = None,
    enable_http2: typing.Optional[builtins.bool] = None,
    filter_running: typing.Optional[builtins.bool] = None,
    follow_redirects: typing.Optional[builtins.bool] = None,
    honor_labels: typing.Optional[builtins.bool] = None,
    honor_timestamps: typing.Optional[builtins.bool] = None,
    interval: typing.Optional[builtins.str] = None,
    metric_relabelings: typing.Optional[typing.Sequence[typing.Union[ServiceMonitorSpecEndpointsMetricRelabelings, typing.Dict[builtins.str, typing.Any]]]] = None,
    no_proxy: typing.Optional[builtins.str] = None,
    oauth2: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsOauth2, typing.Dict[builtins.str, typing.Any]]] = None,
    params: typing.Optional[typing.Mapping[builtins.str, typing.Sequence[builtins.str]]] = None,
    path: typing.Optional[builtins.str] = None,
    port: typing.Optional[builtins.str] = None,
    proxy_connect_header: typing.Optional[typing.Mapping[builtins.str, typing.Sequence[typing.Union[ServiceMonitorSpecEndpointsProxyConnectHeader, typing.Dict[builtins.str, typing.Any]]]]] = None,
    proxy_from_environment: typing.Optional[builtins.bool] = None,
    proxy_url: typing.Optional[builtins.str] = None,
    relabelings: typing.Optional[typing.Sequence[typing.Union[ServiceMonitorSpecEndpointsRelabelings, typing.Dict[builtins.str, typing.Any]]]] = None,
    scheme: typing.Optional[ServiceMonitorSpecEndpointsScheme] = None,
    scrape_timeout: typing.Optional[builtins.str] = None,
    target_port: typing.Optional[ServiceMonitorSpecEndpointsTargetPort] = None,
    tls_config: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsTlsConfig, typing.Dict[builtins.str, typing.Any]]] = None,
    track_timestamps_staleness: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__b2771a566b93208d5e2beaaba0ebff2b2885d77a30182f0531b35f4cb13a468d(
    *,
    credentials: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsAuthorizationCredentials, typing.Dict[builtins.str, typing.Any]]] = None,
    type: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__bacff50ed8a2f913dd9edf65e7285e02b88c0884ec47b222ebbc66cc67a604cd(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__f56fa116514f62355cf0793366eb56a64146d2c6fa2c07850baca2a7813dac7f(
    *,
    password: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsBasicAuthPassword, typing.Dict[builtins.str, typing.Any]]] = None,
    username: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsBasicAuthUsername, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__896ab337e15ee1cd499275813d8bcedae85b140820f7dc8d846537fa40f15d63(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__c7b908ee4d5e2b36f663955d2ece37affb602292cba323ce00da88571abf9cd6(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__64b004ad941bf3c8d955d5aa52aa078e462e3691fb5cec05d423d1c8fef779b5(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__2cbea7f9464eb7b074c053cc992c211028e99d748b3b3a8734bbec3189738835(
    *,
    action: typing.Optional[ServiceMonitorSpecEndpointsMetricRelabelingsAction] = None,
    modulus: typing.Optional[jsii.Number] = None,
    regex: typing.Optional[builtins.str] = None,
    replacement: typing.Optional[builtins.str] = None,
    separator: typing.Optional[builtins.str] = None,
    source_labels: typing.Optional[typing.Sequence[builtins.str]] = None,
    target_label: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__7d1784136f6f931a1472a8b4ce785d5840e0239b965a38c00339e052e351c7a0(
    *,
    client_id: typing.Union[ServiceMonitorSpecEndpointsOauth2ClientId, typing.Dict[builtins.str, typing.Any]],
    client_secret: typing.Union[ServiceMonitorSpecEndpointsOauth2ClientSecret, typing.Dict[builtins.str, typing.Any]],
    token_url: builtins.str,
    endpoint_params: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    no_proxy: typing.Optional[builtins.str] = None,
    proxy_connect_header: typing.Optional[typing.Mapping[builtins.str, typing.Sequence[typing.Union[ServiceMonitorSpecEndpointsOauth2ProxyConnectHeader, typing.Dict[builtins.str, typing.Any]]]]] = None,
    proxy_from_environment: typing.Optional[builtins.bool] = None,
    proxy_url: typing.Optional[builtins.str] = None,
    scopes: typing.Optional[typing.Sequence[builtins.str]] = None,
    tls_config: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsOauth2TlsConfig, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__f6dcec6ac9c23a8d50cb4287cd1e9b6b60985f9378a8d1f8c794c0418a634635(
    *,
    config_map: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsOauth2ClientIdConfigMap, typing.Dict[builtins.str, typing.Any]]] = None,
    secret: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsOauth2ClientIdSecret, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__3f150e8efdb7d26dc4483289080249380fa4379249c62d333ca831a94f98d2b5(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__9aad7627cdd91cdc28e9730ca92bf8749551ca7ca5ef70558944d5917def6115(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__1d944f322c32d090ac3f2ea66c0bdc1a9a17956b0a8073369edd58309d3a7953(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__3af150b3fd22d73bae116b5b05e5e69fe51e28416a55f625e3b90ece5040cc42(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__7f0374c9cbcedf508c2c6547709b4649dedea1193fa741d05f6406165d74373b(
    *,
    ca: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsOauth2TlsConfigCa, typing.Dict[builtins.str, typing.Any]]] = None,
    cert: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsOauth2TlsConfigCert, typing.Dict[builtins.str, typing.Any]]] = None,
    insecure_skip_verify: typing.Optional[builtins.bool] = None,
    key_secret: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsOauth2TlsConfigKeySecret, typing.Dict[builtins.str, typing.Any]]] = None,
    max_version: typing.Optional[ServiceMonitorSpecEndpointsOauth2TlsConfigMaxVersion] = None,
    min_version: typing.Optional[ServiceMonitorSpecEndpointsOauth2TlsConfigMinVersion] = None,
    server_name: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__1b908c3b16dff8d9a0d49d09734c7d0976557b0fe3de4bd8f7469c765d6b8bd4(
    *,
    config_map: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsOauth2TlsConfigCaConfigMap, typing.Dict[builtins.str, typing.Any]]] = None,
    secret: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsOauth2TlsConfigCaSecret, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__a1154bc658d3e2edd8c62e42a54d499e5e168fa16eddc2a5e15f733fa2e1900f(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__d2611329ba99f48e33a7758dc7596c267cab9e2b7c935b41b8c9add1eca0ae30(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__b05c616e9b94b5c4d9e932cd15ea648054bb04e44ff275c2233ddd3a9576078c(
    *,
    config_map: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsOauth2TlsConfigCertConfigMap, typing.Dict[builtins.str, typing.Any]]] = None,
    secret: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsOauth2TlsConfigCertSecret, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__9e21cae8a7eebfd2b151fcfbc11956884b60de69bcf2838b8e6290982ec16747(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__61b1f82f3ccd790a1eaa13fb87cbabdc478291215c6eb5c85ccbbd556a081493(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__8d85d215130b98aa8642a17b5769d5efb787f32e61a3dbdaba5934eb5ab25ed1(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__d6df8b805e4ff57bbf774a6510a63c66f99547431a44f4056933219837a263f6(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__e5cf73e595607ff00969be1e9e1eccb65dc9cafef60d990d26be9198ebf32f1a(
    *,
    action: typing.Optional[ServiceMonitorSpecEndpointsRelabelingsAction] = None,
    modulus: typing.Optional[jsii.Number] = None,
    regex: typing.Optional[builtins.str] = None,
    replacement: typing.Optional[builtins.str] = None,
    separator: typing.Optional[builtins.str] = None,
    source_labels: typing.Optional[typing.Sequence[builtins.str]] = None,
    target_label: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__3713c2cba7665b8be9461f9138467f62d7202c816d657cdac75b5c2927e5e798(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__a75bd4bb9833341614eae1982cd28d127e3730a5ddd1c79927be987b253d1234(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__8abbf13520af2a4165203d31180d486a35e111303b06e1a2b71374df43e9aeed(
    *,
    ca: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsTlsConfigCa, typing.Dict[builtins.str, typing.Any]]] = None,
    ca_file: typing.Optional[builtins.str] = None,
    cert: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsTlsConfigCert, typing.Dict[builtins.str, typing.Any]]] = None,
    cert_file: typing.Optional[builtins.str] = None,
    insecure_skip_verify: typing.Optional[builtins.bool] = None,
    key_file: typing.Optional[builtins.str] = None,
    key_secret: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsTlsConfigKeySecret, typing.Dict[builtins.str, typing.Any]]] = None,
    max_version: typing.Optional[ServiceMonitorSpecEndpointsTlsConfigMaxVersion] = None,
    min_version: typing.Optional[ServiceMonitorSpecEndpointsTlsConfigMinVersion] = None,
    server_name: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__8d9474f3bcd5b9e08e10ccab0b2a4640f54199fa813cce07bcaea5545f98a5d5(
    *,
    config_map: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsTlsConfigCaConfigMap, typing.Dict[builtins.str, typing.Any]]] = None,
    secret: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsTlsConfigCaSecret, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__9986b0aa4e3b0cfe21f0883ee132951575ce966ac67898dd1ad08fc921dee499(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__6454cd66c27101be25024f576d0151e5e73369a997db676b03696ab590486d06(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__5ab340ee0d81bfaf8dd392821922b5910ba9a698d9fb8f1a692951f417ebc2c8(
    *,
    config_map: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsTlsConfigCertConfigMap, typing.Dict[builtins.str, typing.Any]]] = None,
    secret: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsTlsConfigCertSecret, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__9e8282a1c1751dd7fa2cfed96a55649d27648683c8fce348fae0b3c848ec448d(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__1947ca7fe2518b03bbd7f16806194ed978d3ef01768b7b65986eab3e2cf63a36(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__d1c77ee88a61feb0eea4369a3bdb7a1423c333d2a404a5dbbd4305367a5ebe1d(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__df76220fd10e4dd3dc3127e127a8a7fccc712f7683c2c8ea87d084abbcb20d69(
    *,
    any: typing.Optional[builtins.bool] = None,
    match_names: typing.Optional[typing.Sequence[builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__9b6bfeb48a7b3117b60cb0258a0403ab205bc88a6500e1e133507a2bbbaa48b0(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__e2c08416be3aaf3ddd2309fb1fe78862e4f8bd2c5e10094869fe1e075867a955(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__993fd94139f73ec36b52cb404e08238515c58375ba5e1c62c525ed79be16ee53(
    *,
    match_expressions: typing.Optional[typing.Sequence[typing.Union[ServiceMonitorSpecSelectorMatchExpressions, typing.Dict[builtins.str, typing.Any]]]] = None,
    match_labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__8c3d4e4548b7ec6b728a59d5e37906537a8e9764cfecf978bacfb8c5aafe857f(
    *,
    key: builtins.str,
    operator: builtins.str,
    values: typing.Optional[typing.Sequence[builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass
