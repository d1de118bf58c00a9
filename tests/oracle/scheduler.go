package main

// The scheduler family: Karpenter v1.14.1's provisioning scheduler places one pending pod, as its own scheduling
// benchmark runs it (pkg/controllers/provisioning/scheduling/scheduling_benchmark_test.go: NewTopology, NewScheduler
// with a fake controller-runtime client and a state.Cluster, then Solve), with the options the provisioner passes
// (provisioner.go Schedule: DisableReservedCapacityFallback, MinValuesPolicy, then TruncateInstanceTypes).
//
// Instance types come from the case (the project's catalog) through the AWS provider v1.14.1's own construction:
// instancetype.DefaultResolver.Resolve -> NewInstanceType (requirements, capacity, kube-reserved, system-reserved,
// eviction threshold, ENI-limited max pods from the provider's generated VPC limits table, VM memory overhead from
// the operator options) and offering.DefaultProvider.InjectOfferings (BaseResolver for on-demand and spot,
// ReservedCapacityResolver for the EC2NodeClass's capacity reservations). Built by hand: the EC2 InstanceTypeInfo
// (from the catalog entry and the VPC limits table), the pricing provider (catalog on-demand price; spot = on-demand
// x a per-zone factor of the case), the capacity-reservation provider (available counts of the case) and the
// provider's getCapacityType (unexported, pkg/providers/instance/instance.go), which picks the capacity type the
// launch asks EC2 for after the provider's own launch filters (pkg/providers/instance/filter).

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	awsoptions "github.com/aws/karpenter-provider-aws/pkg/operator/options"
	instancefilter "github.com/aws/karpenter-provider-aws/pkg/providers/instance/filter"
	"github.com/aws/karpenter-provider-aws/pkg/providers/instancetype"
	"github.com/samber/lo"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/record"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/utils/clock"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	fakecr "sigs.k8s.io/controller-runtime/pkg/client/fake"
	crlog "sigs.k8s.io/controller-runtime/pkg/log"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/fake"
	provscheduling "sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/karpenter/pkg/events"
	"sigs.k8s.io/karpenter/pkg/operator/injection"
	"sigs.k8s.io/karpenter/pkg/operator/logging"
	coreoptions "sigs.k8s.io/karpenter/pkg/operator/options"
	"sigs.k8s.io/karpenter/pkg/scheduling"
	"sigs.k8s.io/karpenter/pkg/test"
	"sigs.k8s.io/karpenter/pkg/utils/daemonset"
	nodepoolutils "sigs.k8s.io/karpenter/pkg/utils/nodepool"
)

func init() {
	crlog.SetLogger(logging.NopLogger)
	register("scheduler", scheduleCase)
}

// schedGPU, schedNeuron and schedAccelerator are the catalog's accelerator labels as EC2 reports them.
type schedGPU struct {
	Name         string `json:"name"`
	Manufacturer string `json:"manufacturer"`
	Count        int32  `json:"count"`
	MemoryMiB    int32  `json:"memory_mib"`
}

type schedNeuron struct {
	Name           string `json:"name"`
	Count          int32  `json:"count"`
	CoresPerDevice int32  `json:"cores_per_device"`
}

type schedAccelerator struct {
	Name         string `json:"name"`
	Manufacturer string `json:"manufacturer"`
	Count        int32  `json:"count"`
}

// schedInstanceType is one catalog entry: what DescribeInstanceTypes would say, the price and the offered zones.
type schedInstanceType struct {
	Name            string            `json:"name"`
	VCPU            int32             `json:"vcpu"`
	MemoryMiB       int64             `json:"memory_mib"`
	Arch            string            `json:"arch"`
	CPUManufacturer string            `json:"cpu_manufacturer"`
	Hypervisor      string            `json:"hypervisor"`
	GPU             *schedGPU         `json:"gpu"`
	Neuron          *schedNeuron      `json:"neuron"`
	Accelerator     *schedAccelerator `json:"accelerator"`
	EFA             int32             `json:"efa"`
	NVMeGB          int64             `json:"nvme_gb"`
	EBSMbps         int32             `json:"ebs_mbps"`
	Price           *float64          `json:"price"`
	Zones           []string          `json:"zones"`
}

type schedZone struct {
	Name string `json:"name"`
	ID   string `json:"id"`
}

type schedReservation struct {
	ID           string `json:"id"`
	InstanceType string `json:"instanceType"`
	Zone         string `json:"availabilityZone"`
	Type         string `json:"reservationType"`
	Count        int    `json:"count"`
	// Interruptible: an interruptible ODCR (EC2NodeClass status capacityReservations[].interruptible).
	Interruptible bool `json:"interruptible"`
	// Tags and OwnerID: what capacityReservationSelectorTerms select by (owner: schedOwner when empty).
	Tags    map[string]string `json:"tags"`
	OwnerID string            `json:"owner_id"`
}

type schedExisting struct {
	NodePool     string `json:"nodepool"`
	InstanceType string `json:"instance_type"`
	Zone         string `json:"zone"`
	CapacityType string `json:"capacity_type"`
}

type schedCase struct {
	Region          string                      `json:"region"`
	Zones           []schedZone                 `json:"zones"`
	InstanceTypes   []schedInstanceType         `json:"instance_types"`
	SpotPriceFactor map[string]float64          `json:"spot_price_factor"`
	Kubelet         *awsv1.KubeletConfiguration `json:"kubelet"`
	Reservations    []schedReservation          `json:"capacity_reservations"`
	NodePools       []*karpv1.NodePool          `json:"nodepools"`
	DaemonSets      []*appsv1.DaemonSet         `json:"daemonsets"`
	Existing        []schedExisting             `json:"existing_nodes"`
	Pod             *corev1.Pod                 `json:"pod"`
	// Settings: the controller's settings (settings.go); null: the chart's defaults.
	Settings *schedSettings `json:"settings"`
	// NetworkInterfaces and ConnectionTracking are the EC2NodeClass's (IsCompatibleWithNodeClass, efas, max pods).
	// Decoded by the line's lineNodeClassNetwork (scheduler_line.go): the fields exist from v1.11 and v1.13.
	NetworkInterfaces  json.RawMessage `json:"network_interfaces"`
	ConnectionTracking json.RawMessage `json:"connection_tracking"`
	// BlockDeviceMappings and InstanceStorePolicy are the EC2NodeClass's (ephemeral-storage capacity).
	BlockDeviceMappings []*awsv1.BlockDeviceMapping `json:"block_device_mappings"`
	InstanceStorePolicy *awsv1.InstanceStorePolicy  `json:"instance_store_policy"`
	// NodeClassSpec: further EC2NodeClass spec fields (schema draws of any admitted field the harness does not
	// resolve itself), decoded over the spec built from the fields above.
	NodeClassSpec json.RawMessage `json:"node_class_spec"`
	// Subnets and SecurityGroups: the account's (scheduler_network.go), which the node class's selector terms select.
	Subnets        []schedSubnet        `json:"subnets"`
	SecurityGroups []schedSecurityGroup `json:"security_groups"`
}

type schedOffer struct {
	InstanceType string  `json:"instance_type"`
	Zone         string  `json:"zone"`
	CapacityType string  `json:"capacity_type"`
	Price        float64 `json:"price"`
}

type schedAnswer struct {
	// NodePool is the pool of the new NodeClaim; nil when the pod is unschedulable (Reason, Error say why).
	NodePool *string `json:"nodepool"`
	Reason   string  `json:"reason,omitempty"`
	Error    string  `json:"error,omitempty"`
	// InstanceTypes: the NodeClaim's instance-type options after TruncateInstanceTypes(60), sorted by name.
	InstanceTypes []string `json:"instance_types,omitempty"`
	// Cheapest: the cheapest available offering compatible with the NodeClaim's requirements (OrderByPrice's
	// measure); CheapestTypes: every option at that price (OrderByPrice's order among equal prices is unspecified).
	Cheapest      *schedOffer `json:"cheapest,omitempty"`
	CheapestTypes []string    `json:"cheapest_types,omitempty"`
	// CheapestZones: the zones of every offering at that price (the zone is determined when there is one).
	CheapestZones []string `json:"cheapest_zones,omitempty"`
	// Launch: after the provider's launch filters, the capacity type getCapacityType asks for and the cheapest
	// offering of it (on-demand fleets are lowest-price; for spot, EC2's price-capacity-optimized may pick another).
	Launch *schedOffer `json:"launch,omitempty"`
	// LaunchTypes and LaunchZones: the types (and their zones) whose offerings of that capacity type CreateFleet
	// is given after the launch filters; LaunchCheapestTypes / LaunchCheapestZones: those at the launch's price.
	LaunchTypes         []string `json:"launch_types,omitempty"`
	LaunchZones         []string `json:"launch_zones,omitempty"`
	LaunchCheapestTypes []string `json:"launch_cheapest_types,omitempty"`
	LaunchCheapestZones []string `json:"launch_cheapest_zones,omitempty"`
	// Allocatable of each option (capacity minus the provider's overhead), as Karpenter schedules against it.
	Allocatable map[string]map[string]string `json:"allocatable,omitempty"`
}

var schedBaseCtx = func() context.Context {
	ctx := injection.WithControllerName(context.Background(), "provisioner")
	ctx = coreoptions.ToContext(ctx, test.Options())
	opts := &awsoptions.Options{ClusterName: "oracle", VMMemoryOverheadPercent: 0.075, ReservedENIs: 0}
	return awsoptions.ToContext(ctx, opts)
}()

// schedPricing is the pricing provider: the catalog's on-demand price, spot = on-demand x the zone's factor.
type schedPricing struct {
	onDemand map[string]float64
	factor   map[string]float64
}

func (p *schedPricing) LivenessProbe(*http.Request) error { return nil }
func (p *schedPricing) InstanceTypes() []ec2types.InstanceType {
	return lo.Map(lo.Keys(p.onDemand), func(n string, _ int) ec2types.InstanceType { return ec2types.InstanceType(n) })
}
func (p *schedPricing) OnDemandPrice(it ec2types.InstanceType) (float64, bool) {
	v, ok := p.onDemand[string(it)]
	return v, ok
}
func (p *schedPricing) SpotPrice(it ec2types.InstanceType, zone string) (float64, bool) {
	v, ok := p.onDemand[string(it)]
	f, fok := p.factor[zone]
	if !ok || !fok {
		return 0, false
	}
	return v * f, true
}
func (p *schedPricing) UpdateOnDemandPricing(context.Context) error { return nil }
func (p *schedPricing) UpdateSpotPricing(context.Context) error     { return nil }

// schedReservations is the capacity-reservation provider: the available instance count of each reservation.
type schedReservations map[string]int

func (r schedReservations) List(context.Context, ...awsv1.CapacityReservationSelectorTerm) ([]*ec2types.CapacityReservation, error) {
	return nil, nil
}
func (r schedReservations) GetAvailableInstanceCount(id string) int { return r[id] }
func (r schedReservations) MarkLaunched(string)                     {}
func (r schedReservations) MarkTerminated(string)                   {}
func (r schedReservations) MarkUnavailable(...string)               {}

// schedInfo is the EC2 InstanceTypeInfo of a catalog entry; network limits come from the provider's VPC table.
func schedInfo(it schedInstanceType) (ec2types.InstanceTypeInfo, error) {
	limits, ok := instancetype.Limits[it.Name]
	if !ok {
		return ec2types.InstanceTypeInfo{}, fmt.Errorf("instance type %s is not in the provider's VPC limits table", it.Name)
	}
	arch := map[string]ec2types.ArchitectureType{"amd64": ec2types.ArchitectureTypeX8664, "arm64": ec2types.ArchitectureTypeArm64}[it.Arch]
	if arch == "" {
		return ec2types.InstanceTypeInfo{}, fmt.Errorf("instance type %s: unknown arch %q", it.Name, it.Arch)
	}
	cards := lo.Map(limits.NetworkCards, func(c instancetype.NetworkCard, _ int) ec2types.NetworkCardInfo {
		return ec2types.NetworkCardInfo{NetworkCardIndex: aws.Int32(int32(c.NetworkCardIndex)), MaximumNetworkInterfaces: aws.Int32(int32(c.MaximumNetworkInterfaces))}
	})
	info := ec2types.InstanceTypeInfo{
		InstanceType:          ec2types.InstanceType(it.Name),
		SupportedUsageClasses: []ec2types.UsageClassType{ec2types.UsageClassTypeOnDemand, ec2types.UsageClassTypeSpot},
		VCpuInfo:              &ec2types.VCpuInfo{DefaultVCpus: aws.Int32(it.VCPU)},
		MemoryInfo:            &ec2types.MemoryInfo{SizeInMiB: aws.Int64(it.MemoryMiB)},
		ProcessorInfo: &ec2types.ProcessorInfo{
			SupportedArchitectures: []ec2types.ArchitectureType{arch},
			Manufacturer:           aws.String(it.CPUManufacturer),
		},
		Hypervisor: ec2types.InstanceTypeHypervisor(it.Hypervisor),
		BareMetal:  aws.Bool(it.Hypervisor == ""),
		NetworkInfo: &ec2types.NetworkInfo{
			DefaultNetworkCardIndex:      aws.Int32(int32(limits.DefaultNetworkCardIndex)),
			NetworkCards:                 cards,
			MaximumNetworkInterfaces:     aws.Int32(int32(limits.Interface)),
			Ipv4AddressesPerInterface:    aws.Int32(int32(limits.IPv4PerInterface)),
			EncryptionInTransitSupported: aws.Bool(true),
		},
	}
	if it.EFA > 0 {
		info.NetworkInfo.EfaSupported = aws.Bool(true)
		info.NetworkInfo.EfaInfo = &ec2types.EfaInfo{MaximumEfaInterfaces: aws.Int32(it.EFA)}
	}
	if it.EBSMbps > 0 {
		info.EbsInfo = &ec2types.EbsInfo{
			EbsOptimizedSupport: ec2types.EbsOptimizedSupportDefault,
			EbsOptimizedInfo:    &ec2types.EbsOptimizedInfo{MaximumBandwidthInMbps: aws.Int32(it.EBSMbps)},
		}
	}
	if it.NVMeGB > 0 {
		info.InstanceStorageSupported = aws.Bool(true)
		info.InstanceStorageInfo = &ec2types.InstanceStorageInfo{NvmeSupport: ec2types.EphemeralNvmeSupportRequired, TotalSizeInGB: aws.Int64(it.NVMeGB)}
	}
	if it.GPU != nil {
		info.GpuInfo = &ec2types.GpuInfo{Gpus: []ec2types.GpuDeviceInfo{{
			Name:         aws.String(it.GPU.Name),
			Manufacturer: aws.String(it.GPU.Manufacturer),
			Count:        aws.Int32(it.GPU.Count),
			MemoryInfo:   &ec2types.GpuDeviceMemoryInfo{SizeInMiB: aws.Int32(it.GPU.MemoryMiB)},
		}}}
	}
	if it.Neuron != nil {
		info.NeuronInfo = &ec2types.NeuronInfo{NeuronDevices: []ec2types.NeuronDeviceInfo{{
			Name:     aws.String(it.Neuron.Name),
			Count:    aws.Int32(it.Neuron.Count),
			CoreInfo: &ec2types.NeuronDeviceCoreInfo{Count: aws.Int32(it.Neuron.CoresPerDevice)},
		}}}
	}
	if it.Accelerator != nil {
		info.InferenceAcceleratorInfo = &ec2types.InferenceAcceleratorInfo{Accelerators: []ec2types.InferenceDeviceInfo{{
			Name:         aws.String(it.Accelerator.Name),
			Manufacturer: aws.String(it.Accelerator.Manufacturer),
			Count:        aws.Int32(it.Accelerator.Count),
		}}}
	}
	return info, nil
}

// schedNodeClass is the one EC2NodeClass of a case: AL2023, the case's subnets, kubelet and reservations.
func schedNodeClass(c *schedCase) *awsv1.EC2NodeClass {
	nc := &awsv1.EC2NodeClass{
		ObjectMeta: metav1.ObjectMeta{Name: "default", UID: types.UID("nodeclass-default")},
		Spec: awsv1.EC2NodeClassSpec{
			AMISelectorTerms:    []awsv1.AMISelectorTerm{{Alias: "al2023@latest"}},
			Kubelet:             c.Kubelet,
			BlockDeviceMappings: c.BlockDeviceMappings,
			InstanceStorePolicy: c.InstanceStorePolicy,
		},
	}
	// The selector terms the harness admits the class with (the scheduler family resolves them: scheduler_network.go).
	discovery := map[string]string{"karpenter.sh/discovery": "oracle"}
	nc.Spec.SubnetSelectorTerms = []awsv1.SubnetSelectorTerm{{Tags: discovery}}
	nc.Spec.SecurityGroupSelectorTerms = []awsv1.SecurityGroupSelectorTerm{{Tags: discovery}}
	for _, r := range c.Reservations {
		nc.Spec.CapacityReservationSelectorTerms = append(nc.Spec.CapacityReservationSelectorTerms, awsv1.CapacityReservationSelectorTerm{ID: r.ID})
	}
	for i, z := range c.Zones {
		nc.Status.Subnets = append(nc.Status.Subnets, awsv1.Subnet{ID: fmt.Sprintf("subnet-%d", i), Zone: z.Name, ZoneID: z.ID})
	}
	// With the ReservedCapacity gate off the node class controller skips its CapacityReservation reconciler (aws
	// pkg/controllers/nodeclass/controller.go Reconcile), so the status lists no reservation.
	for _, r := range lo.Ternary(settingsReservedCapacity(c.Settings), c.Reservations, nil) {
		nc.Status.CapacityReservations = append(nc.Status.CapacityReservations, lineReservationStatus(r))
	}
	return nc
}

// schedInstanceTypes builds the provider's instance types with offerings for the case's node class.
func schedInstanceTypes(ctx context.Context, c *schedCase, nodeClass *awsv1.EC2NodeClass) ([]*cloudprovider.InstanceType, error) {
	pricing := &schedPricing{onDemand: map[string]float64{}, factor: c.SpotPriceFactor}
	infos := map[ec2types.InstanceType]ec2types.InstanceTypeInfo{}
	resolver := instancetype.NewDefaultResolver(c.Region)
	var its []*cloudprovider.InstanceType
	for _, spec := range c.InstanceTypes {
		info, err := schedInfo(spec)
		if err != nil {
			return nil, err
		}
		if spec.Price != nil {
			pricing.onDemand[spec.Name] = *spec.Price
		}
		infos[info.InstanceType] = info
		its = append(its, resolver.Resolve(ctx, info, spec.Zones, nodeClass))
	}
	reservations := schedReservations{}
	for _, r := range c.Reservations {
		reservations[r.ID] = r.Count
	}
	allZones := sets.New(lo.Map(c.Zones, func(z schedZone, _ int) string { return z.Name })...)
	return lineInjectOfferings(ctx, pricing, reservations, its, infos, nodeClass, allZones), nil
}

// schedExistingClaims are launched NodeClaims standing for full nodes: they count against their pool's limits and
// carry a taint no case pod tolerates, so the pod never lands on them.
// clusterOf is the cluster state holding the existing NodeClaims, and its nodes in the order of their names.
func clusterOf(clk clock.Clock, kube crclient.Client, claims []*karpv1.NodeClaim) (*state.Cluster, []*state.StateNode) {
	cluster := state.NewCluster(clk, kube, fake.NewCloudProvider())
	for _, nc := range claims {
		cluster.UpdateNodeClaim(nc)
	}
	var stateNodes []*state.StateNode
	for n := range cluster.Nodes() {
		stateNodes = append(stateNodes, n)
	}
	sort.Slice(stateNodes, func(i, j int) bool { return stateNodes[i].NodeClaim.Name < stateNodes[j].NodeClaim.Name })
	return cluster, stateNodes
}

// schedOptions are the scheduler options the provisioner passes (provisioner.go Schedule).
func schedOptions(ctx context.Context) []provscheduling.Options {
	return []provscheduling.Options{
		provscheduling.DisableReservedCapacityFallback,
		provscheduling.NumConcurrentReconciles(int(math.Ceil(float64(coreoptions.FromContext(ctx).CPURequests) / 1000.0))),
		provscheduling.MinValuesPolicy(coreoptions.FromContext(ctx).MinValuesPolicy),
	}
}

func schedExistingClaims(c *schedCase, byName map[string]*cloudprovider.InstanceType) ([]*karpv1.NodeClaim, error) {
	var out []*karpv1.NodeClaim
	for i, e := range c.Existing {
		it, ok := byName[e.InstanceType]
		if !ok {
			return nil, fmt.Errorf("existing node %d: unknown instance type %s", i, e.InstanceType)
		}
		out = append(out, &karpv1.NodeClaim{
			ObjectMeta: metav1.ObjectMeta{
				Name: fmt.Sprintf("existing-%d", i),
				Labels: map[string]string{
					karpv1.NodePoolLabelKey:        e.NodePool,
					corev1.LabelInstanceTypeStable: e.InstanceType,
					corev1.LabelTopologyZone:       e.Zone,
					karpv1.CapacityTypeLabelKey:    e.CapacityType,
					karpv1.NodeRegisteredLabelKey:  "true",
					karpv1.NodeInitializedLabelKey: "true",
					corev1.LabelHostname:           fmt.Sprintf("existing-%d", i),
					corev1.LabelArchStable:         it.Requirements.Get(corev1.LabelArchStable).Any(),
					corev1.LabelOSStable:           string(corev1.Linux),
				},
			},
			Spec: karpv1.NodeClaimSpec{Taints: []corev1.Taint{{Key: "oracle.example.com/full", Value: "true", Effect: corev1.TaintEffectNoSchedule}}},
			Status: karpv1.NodeClaimStatus{
				ProviderID: fmt.Sprintf("aws:///%s/i-existing%d", e.Zone, i),
				// A copy: the cluster state adds nodes=1 to a node's capacity in place (state.Cluster
				// updateNodePoolResources), which must not reach the instance type's own capacity.
				Capacity:    it.Capacity.DeepCopy(),
				Allocatable: it.Allocatable(),
			},
		})
	}
	return out, nil
}

// schedFail is the class of one scheduling error (the scheduler joins one error per NodeClaim template with "; ").
func schedFail(text string) string {
	for _, c := range []struct{ needle, class string }{
		{"did not tolerate", "taint"},
		{"exceed limits", "limits"},
		{"node limits have been exhausted", "limits"},
		{"minValues requirement is not met", "min-values"},
		{"filtered out all available instance types", "no-compatible-types"},
		{"reserved offering", "reserved"},
		{"incompatible requirements", "requirements"},
		{"no instance type met all requirements", "requirements"},
		{"no instance type has enough resources", "resources"},
		{"met the scheduling requirements or had enough resources", "requirements-or-resources"},
		{"had enough resources", "requirements-or-resources"},
	} {
		if strings.Contains(text, c.needle) {
			return c.class
		}
	}
	return "other"
}

func schedCheapest(its []*cloudprovider.InstanceType, reqs scheduling.Requirements) (*schedOffer, []string, []string) {
	var best *schedOffer
	var names, zones []string
	for _, it := range its {
		for _, of := range it.Offerings.Available().Compatible(reqs) {
			o := &schedOffer{it.Name, of.Zone(), of.CapacityType(), of.Price}
			switch {
			case best == nil || o.Price < best.Price:
				best, names, zones = o, []string{it.Name}, []string{o.Zone}
			case o.Price == best.Price:
				if !lo.Contains(names, it.Name) {
					names = append(names, it.Name)
				}
				if !lo.Contains(zones, o.Zone) {
					zones = append(zones, o.Zone)
				}
				// equal prices (spot priced at on-demand): the first by name, zone, capacity type, whatever the order
				if it.Name < best.InstanceType || (it.Name == best.InstanceType && (o.Zone < best.Zone ||
					(o.Zone == best.Zone && o.CapacityType < best.CapacityType))) {
					best = o
				}
			}
		}
	}
	sort.Strings(names)
	sort.Strings(zones)
	return best, names, zones
}

// schedCapacityType is the AWS provider's getCapacityType (pkg/providers/instance/instance.go): reserved when a
// compatible reserved offering is available, else spot when one is, else on-demand.
func schedCapacityType(reqs scheduling.Requirements, its []*cloudprovider.InstanceType) string {
	for _, capacityType := range []string{karpv1.CapacityTypeReserved, karpv1.CapacityTypeSpot} {
		if !reqs.Get(karpv1.CapacityTypeLabelKey).Has(capacityType) {
			continue
		}
		r := scheduling.NewRequirements(reqs.Values()...)
		r[karpv1.CapacityTypeLabelKey] = scheduling.NewRequirement(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, capacityType)
		for _, it := range its {
			if len(it.Offerings.Available().Compatible(r)) != 0 {
				return capacityType
			}
		}
	}
	return karpv1.CapacityTypeOnDemand
}

// schedLaunch is DefaultProvider.Create up to CreateFleet: filterInstanceTypes (the exported filters in its order; a
// filter that leaves nothing ends the launch), getCapacityType, and the remaining types' offerings of that capacity
// type (getOverrides: available and compatible with the NodeClaim); the answer's Launch* fields are filled in.
func schedLaunch(ctx context.Context, nc *provscheduling.NodeClaim, ans *schedAnswer) *schedOffer {
	claim := nc.ToNodeClaim()
	reqs := scheduling.NewNodeSelectorRequirementsWithMinValues(claim.Spec.Requirements...)
	its := []*cloudprovider.InstanceType(nc.InstanceTypeOptions)
	for _, filter := range []instancefilter.Filter{
		instancefilter.CompatibleAvailableFilter(reqs, claim.Spec.Resources.Requests),
		instancefilter.CapacityReservationTypeFilter(reqs),
		instancefilter.CapacityBlockFilter(reqs),
		instancefilter.ReservedOfferingFilter(reqs),
		instancefilter.ExoticInstanceTypeFilter(reqs),
		instancefilter.SpotOfferingFilter(reqs),
	} {
		remaining, _ := filter.FilterReject(its)
		if len(remaining) == 0 {
			return nil
		}
		its = remaining
	}
	capacityType := schedCapacityType(reqs, its)
	r := scheduling.NewRequirements(reqs.Values()...)
	r[karpv1.CapacityTypeLabelKey] = scheduling.NewRequirement(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, capacityType)
	best, names, zones := schedCheapest(its, r)
	ans.LaunchCheapestTypes, ans.LaunchCheapestZones = names, zones
	launchTypes, launchZones := sets.New[string](), sets.New[string]()
	for _, it := range its {
		for _, of := range it.Offerings.Available().Compatible(r) {
			launchTypes.Insert(it.Name)
			launchZones.Insert(of.Zone())
		}
	}
	ans.LaunchTypes, ans.LaunchZones = sets.List(launchTypes), sets.List(launchZones)
	return best
}

// schedDefaultRequests is the API server's defaulting of a pod's requests (kubernetes pkg/apis/core/v1/defaults.go
// SetDefaults_Pod, v1.35): a container's (and an init container's) limit becomes its request when it gives none; with
// pod-level limits (defaultPodRequests, PodLevelResources), a supported resource (cpu, memory, hugepages-*) the pod
// does not request gets the containers' effective request, else the pod-level limit. The scheduler reads the stored,
// defaulted pod; the case's pod is the manifest as written.
func schedDefaultRequests(pod *corev1.Pod) {
	for _, list := range [][]corev1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for i := range list {
			r := &list[i].Resources
			for name, q := range r.Limits {
				if r.Requests == nil {
					r.Requests = corev1.ResourceList{}
				}
				if _, ok := r.Requests[name]; !ok {
					r.Requests[name] = q.DeepCopy()
				}
			}
		}
	}
	level := pod.Spec.Resources
	if level == nil || len(level.Limits) == 0 {
		return
	}
	reqs := lo.Assign(corev1.ResourceList{}, level.Requests)
	aggregate := resourcehelper.AggregateContainerRequests(&corev1.Pod{Spec: pod.Spec}, resourcehelper.PodResourcesOptions{})
	for name, q := range aggregate {
		if _, ok := reqs[name]; !ok && resourcehelper.IsSupportedPodLevelResource(name) {
			reqs[name] = q.DeepCopy()
		}
	}
	for name, q := range level.Limits {
		if _, ok := reqs[name]; !ok && resourcehelper.IsSupportedPodLevelResource(name) {
			reqs[name] = q.DeepCopy()
		}
	}
	if len(reqs) > 0 {
		level.Requests = reqs
	}
}

func scheduleCase(raw json.RawMessage) (any, error) {
	var c schedCase
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("reading case: %w", err)
	}
	if c.Pod == nil || len(c.NodePools) == 0 {
		return nil, fmt.Errorf("a case needs a pod and at least one nodepool")
	}
	ctx := settingsCtx(c.Settings)
	nodeClass := schedNodeClass(&c)
	if err := lineNodeClassNetwork(nodeClass, &c); err != nil {
		return nil, err
	}
	if len(c.NodeClassSpec) > 0 && string(c.NodeClassSpec) != "null" {
		// Selector terms the draw gives replace the harness's (json.Unmarshal would merge into its terms' maps).
		var drawn map[string]json.RawMessage
		if err := json.Unmarshal(c.NodeClassSpec, &drawn); err == nil {
			if _, ok := drawn["subnetSelectorTerms"]; ok {
				nodeClass.Spec.SubnetSelectorTerms = nil
			}
			if _, ok := drawn["securityGroupSelectorTerms"]; ok {
				nodeClass.Spec.SecurityGroupSelectorTerms = nil
			}
			if _, ok := drawn["capacityReservationSelectorTerms"]; ok {
				nodeClass.Spec.CapacityReservationSelectorTerms = nil
			}
		}
		if err := json.Unmarshal(c.NodeClassSpec, &nodeClass.Spec); err != nil {
			return nil, fmt.Errorf("reading node_class_spec: %w", err)
		}
	}
	notReady, err := schedResolveNodeClass(ctx, &c, nodeClass)
	if err != nil {
		return nil, err
	}
	if notReady != "" {
		// Provisioner.NewScheduler ignores a NodePool that is not Ready: the class's pools are all the case has.
		return schedAnswer{Reason: "other", Error: "EC2NodeClass not ready: " + notReady + " (Provisioner.NewScheduler: ErrNodePoolsNotFound)"}, nil
	}
	its, err := schedInstanceTypes(ctx, &c, nodeClass)
	if err != nil {
		return nil, err
	}
	byName := lo.SliceToMap(its, func(it *cloudprovider.InstanceType) (string, *cloudprovider.InstanceType) { return it.Name, it })

	// Provisioner.NewScheduler (pkg/controllers/provisioning/provisioner.go) schedules with the dynamic pools only:
	// a static pool (spec.replicas) is provisioned by its own controller, never for a pending pod.
	nodePools := lo.Filter(c.NodePools, func(np *karpv1.NodePool, _ int) bool { return !nodepoolutils.IsStatic(np) })
	if len(nodePools) == 0 {
		return schedAnswer{Reason: "other", Error: "no dynamic nodepool (Provisioner.NewScheduler: ErrNodePoolsNotFound)"}, nil
	}
	for _, np := range nodePools {
		np.UID = types.UID("nodepool-" + np.Name)
	}
	nodepoolutils.OrderByWeight(nodePools)
	instanceTypes := map[string][]*cloudprovider.InstanceType{}
	for _, np := range nodePools {
		instanceTypes[np.Name] = its
	}

	pod := c.Pod.DeepCopy()
	schedDefaultRequests(pod)
	pod.Namespace = lo.CoalesceOrEmpty(pod.Namespace, "default")
	pod.Name = lo.CoalesceOrEmpty(pod.Name, "pod")
	pod.UID = types.UID("pod-" + pod.Name)
	pod.Status.Phase = corev1.PodPending
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}
	pods := []*corev1.Pod{pod}

	daemonSetPods := schedDaemonSetPods(c.DaemonSets)

	client := fakecr.NewFakeClient()
	clk := clock.RealClock{}
	claims, err := schedExistingClaims(&c, byName)
	if err != nil {
		return nil, err
	}
	cluster, stateNodes := clusterOf(clk, client, claims)
	opts := schedOptions(ctx)
	topology, err := provscheduling.NewTopology(ctx, client, cluster, stateNodes, nodePools, instanceTypes, pods, opts...)
	if err != nil {
		return nil, fmt.Errorf("topology: %w", err)
	}
	s := lineNewScheduler(ctx, client, nodePools, cluster, stateNodes, topology, instanceTypes, daemonSetPods,
		events.NewRecorder(&record.FakeRecorder{}), clk, opts...)
	results, err := s.Solve(ctx, pods)
	if err != nil {
		return nil, fmt.Errorf("solve: %w", err)
	}
	results = results.TruncateInstanceTypes(ctx, provscheduling.MaxInstanceTypes)

	ans := schedAnswer{}
	if perr, ok := results.PodErrors[pod]; ok {
		ans.Reason = schedFail(strings.SplitN(perr.Error(), "; ", 2)[0])
		// The parts of the error come from map iterations (Requirements.Compatible's keys): sorted, so the same
		// case always gives the same text and the committed vectors are reproducible.
		parts := strings.Split(perr.Error(), "; ")
		sort.Strings(parts)
		ans.Error = strings.Join(parts, "; ")
		if len(ans.Error) > 600 {
			ans.Error = ans.Error[:600]
		}
		return ans, nil
	}
	if len(results.NewNodeClaims) != 1 {
		ans.Reason = "other"
		ans.Error = fmt.Sprintf("%d new nodeclaims, %d existing nodes used", len(results.NewNodeClaims), len(results.ExistingNodes))
		return ans, nil
	}
	nc := results.NewNodeClaims[0]
	ans.NodePool = lo.ToPtr(nc.NodePoolName)
	ans.InstanceTypes = lo.Map(nc.InstanceTypeOptions, func(it *cloudprovider.InstanceType, _ int) string { return it.Name })
	sort.Strings(ans.InstanceTypes)
	ans.Cheapest, ans.CheapestTypes, ans.CheapestZones = schedCheapest(nc.InstanceTypeOptions, nc.Requirements)
	ans.Launch = schedLaunch(ctx, nc, &ans)
	ans.Allocatable = map[string]map[string]string{}
	for _, it := range nc.InstanceTypeOptions {
		alloc := it.Allocatable()
		m := map[string]string{}
		for _, k := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods, awsv1.ResourceNVIDIAGPU, awsv1.ResourceAWSNeuron} {
			if q, ok := alloc[k]; ok && !q.IsZero() {
				m[string(k)] = q.String()
			}
		}
		ans.Allocatable[it.Name] = m
	}
	return ans, nil
}

// schedDaemonSetPods are the DaemonSets' pods as the provisioner builds them (daemonset.PodForDaemonSet, with the
// template's required node affinity).
func schedDaemonSetPods(daemonSets []*appsv1.DaemonSet) []*corev1.Pod {
	return lo.Map(daemonSets, func(d *appsv1.DaemonSet, _ int) *corev1.Pod {
		p := daemonset.PodForDaemonSet(d)
		if d.Spec.Template.Spec.Affinity != nil && d.Spec.Template.Spec.Affinity.NodeAffinity != nil && d.Spec.Template.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
			if p.Spec.Affinity == nil {
				p.Spec.Affinity = &corev1.Affinity{}
			}
			if p.Spec.Affinity.NodeAffinity == nil {
				p.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
			}
			p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = d.Spec.Template.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
		}
		return p
	})
}
