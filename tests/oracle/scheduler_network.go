package main

// The scheduler family's node class status, resolved as the AWS provider v1.14.1's node class controller resolves it
// (pkg/controllers/nodeclass: subnet.go Subnet.Reconcile, securitygroup.go SecurityGroup.Reconcile,
// capacityreservation.go CapacityReservation.Reconcile, placementgroup.go PlacementGroupReconciler.Reconcile): the
// selector terms of the EC2NodeClass go through the provider's own providers (pkg/providers/subnet,
// securitygroup, capacityreservation: DefaultProvider.List) over the provider's fake EC2 API
// (pkg/fake EC2API) holding the case's account: its subnets (zone, zone ID, tags, free addresses), security
// groups (name, tags) and capacity reservations (tags, owner). A node class whose subnets or security groups
// resolve to none, or whose placement group is not found, is not Ready; Provisioner.NewScheduler
// (sigs.k8s.io/karpenter pkg/controllers/provisioning/provisioner.go) ignores a NodePool that is not Ready (the
// NodePool readiness controller copies the node class's readiness), so no pool of the class takes the pod.

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	awsfake "github.com/aws/karpenter-provider-aws/pkg/fake"
	"github.com/aws/karpenter-provider-aws/pkg/providers/capacityreservation"
	"github.com/aws/karpenter-provider-aws/pkg/providers/securitygroup"
	"github.com/patrickmn/go-cache"
	"github.com/samber/lo"
	"k8s.io/utils/clock"
)

// schedSubnet is one subnet of the case's account (DescribeSubnets).
type schedSubnet struct {
	ID           string            `json:"id"`
	Zone         string            `json:"zone"`
	ZoneID       string            `json:"zone_id"`
	Tags         map[string]string `json:"tags"`
	AvailableIPs int32             `json:"available_ips"`
}

// schedSecurityGroup is one security group of the case's account (DescribeSecurityGroups).
type schedSecurityGroup struct {
	ID   string            `json:"id"`
	Name string            `json:"name"`
	Tags map[string]string `json:"tags"`
}

// schedOwner is the account that owns a reservation without an owner of its own.
const schedOwner = "012345678901"

func schedTags(tags map[string]string) []ec2types.Tag {
	keys := lo.Keys(tags)
	sort.Strings(keys)
	return lo.Map(keys, func(k string, _ int) ec2types.Tag {
		return ec2types.Tag{Key: aws.String(k), Value: aws.String(tags[k])}
	})
}

// schedEC2 is the provider's fake EC2 API with the case's subnets and security groups. DescribeSubnets and
// DescribeSecurityGroups filter them with the fake's own filters (FilterDescribeSubnets,
// FilterDescribeSecurtyGroups) and answer nothing when nothing matches, as EC2 does (the fake alone falls back to
// test subnets and groups of its own).
type schedEC2 struct {
	*awsfake.EC2API
	subnets []ec2types.Subnet
	groups  []ec2types.SecurityGroup
}

func (e *schedEC2) DescribeSubnets(_ context.Context, in *ec2.DescribeSubnetsInput, _ ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error) {
	return &ec2.DescribeSubnetsOutput{Subnets: awsfake.FilterDescribeSubnets(e.subnets, in.Filters)}, nil
}

func (e *schedEC2) DescribeSecurityGroups(_ context.Context, in *ec2.DescribeSecurityGroupsInput, _ ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupsOutput, error) {
	return &ec2.DescribeSecurityGroupsOutput{SecurityGroups: awsfake.FilterDescribeSecurtyGroups(e.groups, in.Filters)}, nil
}

func schedAccount(c *schedCase) *schedEC2 {
	api := &schedEC2{EC2API: awsfake.NewEC2API()}
	for _, s := range c.Subnets {
		api.subnets = append(api.subnets, ec2types.Subnet{
			SubnetId: aws.String(s.ID), AvailabilityZone: aws.String(s.Zone), AvailabilityZoneId: aws.String(s.ZoneID),
			AvailableIpAddressCount: aws.Int32(s.AvailableIPs), Tags: schedTags(s.Tags), State: ec2types.SubnetStateAvailable,
		})
	}
	for _, g := range c.SecurityGroups {
		api.groups = append(api.groups, ec2types.SecurityGroup{GroupId: aws.String(g.ID), GroupName: aws.String(g.Name), Tags: schedTags(g.Tags)})
	}
	api.DescribeCapacityReservationsOutput.Set(&ec2.DescribeCapacityReservationsOutput{CapacityReservations: lo.Map(c.Reservations, func(r schedReservation, _ int) ec2types.CapacityReservation {
		return ec2types.CapacityReservation{
			CapacityReservationId:  aws.String(r.ID),
			AvailabilityZone:       aws.String(r.Zone),
			InstanceType:           aws.String(r.InstanceType),
			AvailableInstanceCount: aws.Int32(int32(r.Count)),
			InstanceMatchCriteria:  ec2types.InstanceMatchCriteriaTargeted,
			OwnerId:                aws.String(lo.CoalesceOrEmpty(r.OwnerID, schedOwner)),
			ReservationType:        ec2types.CapacityReservationType(lo.CoalesceOrEmpty(r.Type, string(awsv1.CapacityReservationTypeDefault))),
			State:                  ec2types.CapacityReservationStateActive,
			Interruptible:          aws.Bool(r.Interruptible),
			Tags:                   schedTags(r.Tags),
		}
	})})
	return api
}

// schedResolveNodeClass writes the node class's status from its selector terms and the case's account; the answer
// is why the node class is not Ready ("": Ready). A case without subnets and security groups (recorded before they
// were drawn) keeps the status schedNodeClass writes (one subnet per zone); its reservations are resolved all the same.
func schedResolveNodeClass(ctx context.Context, c *schedCase, nc *awsv1.EC2NodeClass) (string, error) {
	api := schedAccount(c)
	clk := clock.RealClock{}
	if linePlacementGroup(nc) {
		// PlacementGroupReconciler: the case's account has no placement group, so none is found.
		return "placement group not found (PlacementGroupReady false)", nil
	}
	if c.Subnets != nil {
		subnets, err := lineSubnetProvider(api).List(ctx, nc)
		if err != nil {
			return "", fmt.Errorf("subnets: %w", err)
		}
		if len(subnets) == 0 {
			return "SubnetSelector did not match any Subnets (SubnetsReady false)", nil
		}
		sort.Slice(subnets, func(i, j int) bool {
			if *subnets[i].AvailableIpAddressCount != *subnets[j].AvailableIpAddressCount {
				return *subnets[i].AvailableIpAddressCount > *subnets[j].AvailableIpAddressCount
			}
			return *subnets[i].SubnetId < *subnets[j].SubnetId
		})
		nc.Status.Subnets = lo.Map(subnets, func(s ec2types.Subnet, _ int) awsv1.Subnet {
			return awsv1.Subnet{ID: *s.SubnetId, Zone: *s.AvailabilityZone, ZoneID: *s.AvailabilityZoneId}
		})
	}
	if c.SecurityGroups != nil {
		groups, err := securitygroup.NewDefaultProvider(api, cache.New(time.Hour, time.Hour)).List(ctx, nc)
		if err != nil {
			return "", fmt.Errorf("security groups: %w", err)
		}
		if len(groups) == 0 && len(nc.Spec.SecurityGroupSelectorTerms) > 0 {
			return "SecurityGroupSelector did not match any SecurityGroups (SecurityGroupsReady false)", nil
		}
		sort.Slice(groups, func(i, j int) bool { return *groups[i].GroupId < *groups[j].GroupId })
		nc.Status.SecurityGroups = lo.Map(groups, func(g ec2types.SecurityGroup, _ int) awsv1.SecurityGroup {
			return awsv1.SecurityGroup{ID: *g.GroupId, Name: *g.GroupName}
		})
	}
	nc.Status.CapacityReservations = nil
	// With the ReservedCapacity gate off the node class controller skips its CapacityReservation reconciler (aws
	// pkg/controllers/nodeclass/controller.go Reconcile), so the status lists no reservation.
	if !settingsReservedCapacity(c.Settings) {
		return "", nil
	}
	provider := capacityreservation.NewProvider(api, clk, cache.New(time.Hour, time.Hour), cache.New(time.Hour, time.Hour))
	reservations, err := provider.List(ctx, nc.Spec.CapacityReservationSelectorTerms...)
	if err != nil {
		return "", fmt.Errorf("capacity reservations: %w", err)
	}
	sort.Slice(reservations, func(i, j int) bool {
		return *reservations[i].CapacityReservationId < *reservations[j].CapacityReservationId
	})
	for _, r := range reservations {
		if res, err := awsv1.CapacityReservationFromEC2(clk, r); err == nil {
			nc.Status.CapacityReservations = append(nc.Status.CapacityReservations, res)
		}
	}
	return "", nil
}
