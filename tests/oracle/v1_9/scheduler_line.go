package main

// The scheduler family's calls whose API differs between the Karpenter lines, v1.9's here (the parent's
// scheduler_line.go is v1.14.1's): aws/karpenter-provider-aws v1.9.3 pkg/providers/instancetype/offering
// NewDefaultProvider takes no zonal-shift provider and InjectOfferings no instance type infos; its EC2NodeClass has
// no spec.networkInterfaces (v1.11), spec.connectionTracking (v1.13) or spec.placementGroupSelector (v1.11), and its
// status no capacityReservations[].interruptible (v1.10: an interruptible reservation is read as any other);
// pkg/providers/subnet NewDefaultProvider takes a third cache; sigs.k8s.io/karpenter v1.9.0 pkg/test/options.go
// FeatureGates has no CapacityBuffer (v1.14) and pkg/controllers/provisioning/scheduling/scheduler.go NewScheduler
// takes one volume requirement per pod and no DRA allocator.

import (
	"context"
	"fmt"
	"time"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	awscache "github.com/aws/karpenter-provider-aws/pkg/cache"
	"github.com/aws/karpenter-provider-aws/pkg/providers/instancetype/offering"
	"github.com/aws/karpenter-provider-aws/pkg/providers/subnet"
	"github.com/patrickmn/go-cache"
	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	provscheduling "sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/karpenter/pkg/events"
	"sigs.k8s.io/karpenter/pkg/test"
)

func lineInjectOfferings(ctx context.Context, pricing *schedPricing, reservations schedReservations, its []*cloudprovider.InstanceType,
	_ map[ec2types.InstanceType]ec2types.InstanceTypeInfo, nodeClass *awsv1.EC2NodeClass, allZones sets.Set[string]) []*cloudprovider.InstanceType {
	provider := offering.NewDefaultProvider(pricing, reservations, awscache.NewUnavailableOfferings(), cache.New(time.Hour, time.Hour))
	return provider.InjectOfferings(ctx, its, nodeClass, allZones)
}

// lineNodeClassNetwork refuses a case with fields v1.9's EC2NodeClass lacks (its API server prunes them: the
// generator leaves them out for this line).
func lineNodeClassNetwork(_ *awsv1.EC2NodeClass, c *schedCase) error {
	for name, raw := range map[string][]byte{"network_interfaces": c.NetworkInterfaces, "connection_tracking": c.ConnectionTracking} {
		if len(raw) > 0 && string(raw) != "null" {
			return fmt.Errorf("%s: not in the v1.9 EC2NodeClass", name)
		}
	}
	return nil
}

// lineReservationStatus is a reservation of the case as the node class status lists it (no interruptible field).
func lineReservationStatus(r schedReservation) awsv1.CapacityReservation {
	return awsv1.CapacityReservation{
		AvailabilityZone:      r.Zone,
		ID:                    r.ID,
		InstanceMatchCriteria: "targeted",
		InstanceType:          r.InstanceType,
		OwnerID:               "012345678901",
		ReservationType:       awsv1.CapacityReservationType(lo.CoalesceOrEmpty(r.Type, string(awsv1.CapacityReservationTypeDefault))),
		State:                 awsv1.CapacityReservationStateActive,
	}
}

func linePlacementGroup(*awsv1.EC2NodeClass) bool { return false }

func lineSubnetProvider(api *schedEC2) *subnet.DefaultProvider {
	return subnet.NewDefaultProvider(api, cache.New(time.Hour, time.Hour), cache.New(time.Hour, time.Hour), cache.New(time.Hour, time.Hour))
}

func lineFeatureGates(s *schedSettings) test.FeatureGates {
	return test.FeatureGates{
		ReservedCapacity:        settingsGate(s, "reservedCapacity"),
		NodeOverlay:             settingsGate(s, "nodeOverlay"),
		StaticCapacity:          settingsGate(s, "staticCapacity"),
		SpotToSpotConsolidation: settingsGate(s, "spotToSpotConsolidation"),
		NodeRepair:              settingsGate(s, "nodeRepair"),
	}
}

func lineNewScheduler(ctx context.Context, kube client.Client, nodePools []*karpv1.NodePool, cluster *state.Cluster,
	stateNodes []*state.StateNode, topology *provscheduling.Topology, instanceTypes map[string][]*cloudprovider.InstanceType,
	daemonSetPods []*corev1.Pod, recorder events.Recorder, clk clock.Clock, opts ...provscheduling.Options) *provscheduling.Scheduler {
	return provscheduling.NewScheduler(ctx, kube, nodePools, cluster, stateNodes, topology, instanceTypes, daemonSetPods,
		recorder, clk, nil, opts...)
}
