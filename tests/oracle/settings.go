package main

// The controller settings of a case: the options Karpenter's controller reads from the environment variables the
// chart renders out of helm/karpenter.values.yaml (sigs.k8s.io/karpenter pkg/operator/options Options: FeatureGates,
// MinValuesPolicy; aws pkg/operator/options Options: VMMemoryOverheadPercent, ReservedENIs), built per case with
// the core's test helper (pkg/test/options.go test.Options with test.OptionsFields) and put in the context every
// provider and scheduler call reads them from (options.FromContext).
//
// Where the gates act, at v1.14.1: ReservedCapacity in offering/reserved_capacity_resolver.go ResolveOfferings (no
// reserved offering when off) and scheduling/nodeclaim.go offeringsToReserve; NodeOverlay in
// pkg/controllers/controllers.go NewControllers (the NodeOverlay controller is registered only when on) and
// pkg/cloudprovider/overlay/cloudprovider.go GetInstanceTypes; StaticCapacity in controllers.go NewControllers (the
// static provisioning and deprovisioning controllers); MinValuesPolicy in scheduling/scheduler.go NewScheduler and
// NodeClaim.CanAdd (relaxMinValues); VMMemoryOverheadPercent in instancetype/types.go memory(); ReservedENIs in
// instancetype/types.go pods() -> ENILimitedPods.

import (
	"context"

	awsoptions "github.com/aws/karpenter-provider-aws/pkg/operator/options"
	"github.com/samber/lo"
	"sigs.k8s.io/karpenter/pkg/operator/injection"
	coreoptions "sigs.k8s.io/karpenter/pkg/operator/options"
	"sigs.k8s.io/karpenter/pkg/test"
)

// schedSettings: the effective settings (what the binary holds after the chart rendered the values); nil fields
// keep the defaults. FeatureGates are keyed by the chart's settings.featureGates names.
type schedSettings struct {
	FeatureGates            map[string]bool `json:"feature_gates"`
	MinValuesPolicy         string          `json:"min_values_policy"`
	VMMemoryOverheadPercent *float64        `json:"vm_memory_overhead_percent"`
	ReservedENIs            int             `json:"reserved_enis"`
}

func settingsGate(s *schedSettings, name string) *bool {
	if s == nil {
		return nil
	}
	if v, ok := s.FeatureGates[name]; ok {
		return lo.ToPtr(v)
	}
	return nil
}

// settingsReservedCapacity: the ReservedCapacity gate of the settings (on by default).
func settingsReservedCapacity(s *schedSettings) bool {
	return lo.FromPtrOr(settingsGate(s, "reservedCapacity"), true)
}

// settingsCtx is the context of one case: the provisioner's controller name, the core options and the AWS options.
func settingsCtx(s *schedSettings) context.Context {
	ctx := injection.WithControllerName(context.Background(), "provisioner")
	fields := test.OptionsFields{FeatureGates: lineFeatureGates(s)}
	aws := &awsoptions.Options{ClusterName: "oracle", VMMemoryOverheadPercent: 0.075, ReservedENIs: 0}
	if s != nil {
		if s.MinValuesPolicy != "" {
			fields.MinValuesPolicy = lo.ToPtr(coreoptions.MinValuesPolicy(s.MinValuesPolicy))
		}
		if s.VMMemoryOverheadPercent != nil {
			aws.VMMemoryOverheadPercent = *s.VMMemoryOverheadPercent
		}
		aws.ReservedENIs = s.ReservedENIs
	}
	ctx = coreoptions.ToContext(ctx, test.Options(fields))
	return awsoptions.ToContext(ctx, aws)
}
