package main

// The scheduler family's calls whose API differs between the Karpenter lines, v1.14.1's here (one per-line file, as
// hash.go; tests/oracle/v1_9/scheduler_line.go is v1.9's): the offering provider (aws pkg/providers/instancetype/
// offering NewDefaultProvider, InjectOfferings), the node class fields of later releases (spec.networkInterfaces
// v1.11, spec.connectionTracking v1.13, spec.placementGroupSelector v1.11, status.capacityReservations[].interruptible
// v1.10), the subnet provider (pkg/providers/subnet NewDefaultProvider), the feature gates of the core's test options
// (pkg/test/options.go FeatureGates: CapacityBuffer v1.14) and NewScheduler (pkg/controllers/provisioning/scheduling/
// scheduler.go: the DRA allocator and per-pod volume requirement lists of v1.14).

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	awscache "github.com/aws/karpenter-provider-aws/pkg/cache"
	"github.com/aws/karpenter-provider-aws/pkg/providers/arczonalshift"
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
	infos map[ec2types.InstanceType]ec2types.InstanceTypeInfo, nodeClass *awsv1.EC2NodeClass, allZones sets.Set[string]) []*cloudprovider.InstanceType {
	provider := offering.NewDefaultProvider(pricing, reservations, nil, awscache.NewUnavailableOfferings(),
		cache.New(time.Hour, time.Hour), arczonalshift.NewNoopProvider(), nil)
	return provider.InjectOfferings(ctx, its, infos, nodeClass, allZones)
}

// lineNodeClassNetwork puts the case's networkInterfaces and connectionTracking on the node class.
func lineNodeClassNetwork(nc *awsv1.EC2NodeClass, c *schedCase) error {
	if len(c.NetworkInterfaces) > 0 && string(c.NetworkInterfaces) != "null" {
		if err := json.Unmarshal(c.NetworkInterfaces, &nc.Spec.NetworkInterfaces); err != nil {
			return fmt.Errorf("reading network_interfaces: %w", err)
		}
	}
	if len(c.ConnectionTracking) > 0 && string(c.ConnectionTracking) != "null" {
		if err := json.Unmarshal(c.ConnectionTracking, &nc.Spec.ConnectionTracking); err != nil {
			return fmt.Errorf("reading connection_tracking: %w", err)
		}
	}
	return nil
}

// lineReservationStatus is a reservation of the case as the node class status lists it.
func lineReservationStatus(r schedReservation) awsv1.CapacityReservation {
	return awsv1.CapacityReservation{
		AvailabilityZone:      r.Zone,
		ID:                    r.ID,
		InstanceMatchCriteria: "targeted",
		InstanceType:          r.InstanceType,
		OwnerID:               "012345678901",
		ReservationType:       awsv1.CapacityReservationType(lo.CoalesceOrEmpty(r.Type, string(awsv1.CapacityReservationTypeDefault))),
		Interruptible:         r.Interruptible,
		State:                 awsv1.CapacityReservationStateActive,
	}
}

func linePlacementGroup(nc *awsv1.EC2NodeClass) bool { return nc.Spec.PlacementGroupSelector != nil }

func lineSubnetProvider(api *schedEC2) *subnet.DefaultProvider {
	return subnet.NewDefaultProvider(api, cache.New(time.Hour, time.Hour), cache.New(time.Hour, time.Hour))
}

func lineFeatureGates(s *schedSettings) test.FeatureGates {
	return test.FeatureGates{
		ReservedCapacity:        settingsGate(s, "reservedCapacity"),
		NodeOverlay:             settingsGate(s, "nodeOverlay"),
		StaticCapacity:          settingsGate(s, "staticCapacity"),
		SpotToSpotConsolidation: settingsGate(s, "spotToSpotConsolidation"),
		NodeRepair:              settingsGate(s, "nodeRepair"),
		CapacityBuffer:          settingsGate(s, "capacityBuffer"),
	}
}

func lineNewScheduler(ctx context.Context, kube client.Client, nodePools []*karpv1.NodePool, cluster *state.Cluster,
	stateNodes []*state.StateNode, topology *provscheduling.Topology, instanceTypes map[string][]*cloudprovider.InstanceType,
	daemonSetPods []*corev1.Pod, recorder events.Recorder, clk clock.Clock, opts ...provscheduling.Options) *provscheduling.Scheduler {
	return provscheduling.NewScheduler(ctx, kube, nodePools, cluster, stateNodes, topology, instanceTypes, daemonSetPods,
		recorder, clk, nil, nil, opts...)
}
