package main

// The batch family: Karpenter v1.14.1's provisioning scheduler places a batch of pending pods at once
// (pkg/controllers/provisioning/scheduling scheduler.go Solve), as the scheduler family runs it for one pod
// (scheduler.go in this folder: the same instance types, node class, NodePools, DaemonSets, settings and launch).
// Existing nodes are launched, registered and initialized NodeClaims carrying their NodePool's taints, with the
// instance type's capacity and allocatable: the batch's pods may land on them.
//
// Go picks among equally good topology domains, and orders equal in-flight NodeClaims, by map iteration and
// sort.Slice: the case is solved Runs times (fresh scheduler each time) and Unstable is set when the answers differ.

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	fakecr "sigs.k8s.io/controller-runtime/pkg/client/fake"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/fake"
	provscheduling "sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/karpenter/pkg/events"
	coreoptions "sigs.k8s.io/karpenter/pkg/operator/options"
	nodepoolutils "sigs.k8s.io/karpenter/pkg/utils/nodepool"
)

func init() {
	register("batch", batchCaseAnswer)
}

type batchCase struct {
	schedCase
	Pods []*corev1.Pod `json:"pods"`
	Runs int           `json:"runs"`
}

type batchClaim struct {
	NodePool      string      `json:"nodepool"`
	Pods          []string    `json:"pods"`
	InstanceTypes []string    `json:"instance_types"`
	Launch        *schedOffer `json:"launch"`
	LaunchTypes   []string    `json:"launch_types"`
	LaunchZones   []string    `json:"launch_zones"`
	// LaunchCheapestTypes: the types at the launch's price (any of them agrees).
	LaunchCheapestTypes []string `json:"launch_cheapest_types"`
}

type batchAnswer struct {
	NodeClaims []batchClaim        `json:"nodeclaims,omitempty"`
	Existing   map[string][]string `json:"existing,omitempty"`
	Pending    map[string][]string `json:"pending,omitempty"`
	// Errors: the full error texts (they name hostname placeholders, numbered per process): for debugging only.
	Errors   map[string]string `json:"-"`
	Unstable bool              `json:"unstable,omitempty"`
}

// batchHeads are the heads of the scheduler's error texts a pod's error is made of (one per NodePool template
// tried, one per untolerated taint), in the words the Python core uses; a part that is none of them is the tail of
// a multi-key requirements error (Requirements.Compatible joins one error per key) and is dropped.
var batchHeads = []string{
	"did not tolerate taint",
	"node limits have been exhausted for nodepool",
	"all available instance types exceed limits for nodepool",
	"incompatible requirements",
	"minValues requirement is not met",
	"nodepool requirements filtered out all available instance types",
}

func batchReason(text string) []string {
	var out []string
	for _, part := range strings.Split(text, "; ") {
		if i := strings.Index(part, "unsatisfiable topology constraint for "); i >= 0 {
			head := part[i:]
			if j := strings.Index(head, " (counts"); j >= 0 {
				head = head[:j]
			}
			out = append(out, head)
			continue
		}
		if i := strings.Index(part, "no instance type"); i >= 0 {
			head := part[i:]
			if j := strings.Index(head, ", requirements="); j >= 0 {
				head = head[:j]
			}
			out = append(out, head)
			continue
		}
		for _, h := range batchHeads {
			if strings.Contains(part, h) {
				out = append(out, h)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// batchExistingClaims: the case's existing nodes as launched NodeClaims with their pool's taints.
func batchExistingClaims(c *batchCase, byName map[string]*cloudprovider.InstanceType) ([]*karpv1.NodeClaim, error) {
	pools := lo.SliceToMap(c.NodePools, func(np *karpv1.NodePool) (string, *karpv1.NodePool) { return np.Name, np })
	var out []*karpv1.NodeClaim
	for i, e := range c.Existing {
		it, ok := byName[e.InstanceType]
		if !ok {
			return nil, fmt.Errorf("existing node %d: unknown instance type %s", i, e.InstanceType)
		}
		var taints []corev1.Taint
		if np, ok := pools[e.NodePool]; ok {
			taints = np.Spec.Template.Spec.Taints
		}
		name := fmt.Sprintf("existing-%d", i)
		out = append(out, &karpv1.NodeClaim{
			ObjectMeta: metav1.ObjectMeta{
				Name: name,
				Labels: map[string]string{
					karpv1.NodePoolLabelKey:        e.NodePool,
					corev1.LabelInstanceTypeStable: e.InstanceType,
					corev1.LabelTopologyZone:       e.Zone,
					karpv1.CapacityTypeLabelKey:    e.CapacityType,
					karpv1.NodeRegisteredLabelKey:  "true",
					karpv1.NodeInitializedLabelKey: "true",
					corev1.LabelHostname:           name,
					corev1.LabelArchStable:         it.Requirements.Get(corev1.LabelArchStable).Any(),
					corev1.LabelOSStable:           string(corev1.Linux),
				},
			},
			Spec: karpv1.NodeClaimSpec{Taints: taints},
			Status: karpv1.NodeClaimStatus{
				ProviderID:  fmt.Sprintf("aws:///%s/i-existing%d", e.Zone, i),
				Capacity:    it.Capacity,
				Allocatable: it.Allocatable(),
			},
		})
	}
	return out, nil
}

func batchPods(c *batchCase) []*corev1.Pod {
	return lo.Map(c.Pods, func(p *corev1.Pod, _ int) *corev1.Pod {
		pod := p.DeepCopy()
		schedDefaultRequests(pod)
		pod.Namespace = lo.CoalesceOrEmpty(pod.Namespace, "default")
		pod.UID = types.UID(pod.Namespace + "/" + pod.Name)
		pod.Status.Phase = corev1.PodPending
		pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}
		return pod
	})
}

func batchSolve(c *batchCase) (*batchAnswer, error) {
	ctx := settingsCtx(c.Settings)
	nodeClass := schedNodeClass(&c.schedCase)
	if len(c.NodeClassSpec) > 0 && string(c.NodeClassSpec) != "null" {
		if err := json.Unmarshal(c.NodeClassSpec, &nodeClass.Spec); err != nil {
			return nil, fmt.Errorf("reading node_class_spec: %w", err)
		}
	}
	its, err := schedInstanceTypes(ctx, &c.schedCase, nodeClass)
	if err != nil {
		return nil, err
	}
	byName := lo.SliceToMap(its, func(it *cloudprovider.InstanceType) (string, *cloudprovider.InstanceType) { return it.Name, it })
	nodePools := lo.Map(c.NodePools, func(np *karpv1.NodePool, _ int) *karpv1.NodePool {
		out := np.DeepCopy()
		out.UID = types.UID("nodepool-" + np.Name)
		return out
	})
	nodepoolutils.OrderByWeight(nodePools)
	instanceTypes := map[string][]*cloudprovider.InstanceType{}
	for _, np := range nodePools {
		instanceTypes[np.Name] = its
	}
	pods := batchPods(c)
	client := fakecr.NewFakeClient()
	clk := clock.RealClock{}
	cluster := state.NewCluster(clk, client, fake.NewCloudProvider())
	claims, err := batchExistingClaims(c, byName)
	if err != nil {
		return nil, err
	}
	for _, nc := range claims {
		cluster.UpdateNodeClaim(nc)
	}
	var stateNodes []*state.StateNode
	for n := range cluster.Nodes() {
		stateNodes = append(stateNodes, n)
	}
	sort.Slice(stateNodes, func(i, j int) bool { return stateNodes[i].NodeClaim.Name < stateNodes[j].NodeClaim.Name })
	opts := []provscheduling.Options{
		provscheduling.DisableReservedCapacityFallback,
		provscheduling.NumConcurrentReconciles(int(math.Ceil(float64(coreoptions.FromContext(ctx).CPURequests) / 1000.0))),
		provscheduling.MinValuesPolicy(coreoptions.FromContext(ctx).MinValuesPolicy),
	}
	topology, err := provscheduling.NewTopology(ctx, client, cluster, stateNodes, nodePools, instanceTypes, pods, opts...)
	if err != nil {
		return nil, fmt.Errorf("topology: %w", err)
	}
	s := provscheduling.NewScheduler(ctx, client, nodePools, cluster, stateNodes, topology, instanceTypes,
		schedDaemonSetPods(c.DaemonSets), events.NewRecorder(&record.FakeRecorder{}), clk, nil, nil, opts...)
	results, err := s.Solve(ctx, pods)
	if err != nil {
		return nil, fmt.Errorf("solve: %w", err)
	}
	results = results.TruncateInstanceTypes(ctx, provscheduling.MaxInstanceTypes)
	ans := &batchAnswer{Existing: map[string][]string{}, Pending: map[string][]string{}, Errors: map[string]string{}}
	key := func(p *corev1.Pod) string { return p.Namespace + "/" + p.Name }
	for p, perr := range results.PodErrors {
		ans.Pending[key(p)] = batchReason(perr.Error())
		parts := strings.Split(perr.Error(), "; ")
		sort.Strings(parts)
		text := strings.Join(parts, "; ")
		ans.Errors[key(p)] = text[:min(len(text), 400)]
	}
	for _, n := range results.ExistingNodes {
		if len(n.Pods) > 0 {
			names := lo.Map(n.Pods, func(p *corev1.Pod, _ int) string { return key(p) })
			sort.Strings(names)
			ans.Existing[n.Name()] = names
		}
	}
	for _, nc := range results.NewNodeClaims {
		claim := batchClaim{NodePool: nc.NodePoolName}
		claim.Pods = lo.Map(nc.Pods, func(p *corev1.Pod, _ int) string { return key(p) })
		sort.Strings(claim.Pods)
		claim.InstanceTypes = lo.Map(nc.InstanceTypeOptions, func(it *cloudprovider.InstanceType, _ int) string { return it.Name })
		sort.Strings(claim.InstanceTypes)
		var one schedAnswer
		// The provider's launch filters narrow it.Offerings in place (filter.go: safe there, each Create gets its own
		// instance types); here the NodeClaims share them, so each launch gets them back as they were.
		saved := lo.Map(nc.InstanceTypeOptions, func(it *cloudprovider.InstanceType, _ int) cloudprovider.Offerings { return it.Offerings })
		claim.Launch = schedLaunch(ctx, nc, &one)
		for i, it := range nc.InstanceTypeOptions {
			it.Offerings = saved[i]
		}
		claim.LaunchTypes, claim.LaunchZones, claim.LaunchCheapestTypes = one.LaunchTypes, one.LaunchZones, one.LaunchCheapestTypes
		ans.NodeClaims = append(ans.NodeClaims, claim)
	}
	sort.Slice(ans.NodeClaims, func(i, j int) bool {
		return strings.Join(ans.NodeClaims[i].Pods, ",") < strings.Join(ans.NodeClaims[j].Pods, ",")
	})
	return ans, nil
}

func batchCaseAnswer(raw json.RawMessage) (any, error) {
	var c batchCase
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("reading case: %w", err)
	}
	if len(c.Pods) == 0 || len(c.NodePools) == 0 {
		return nil, fmt.Errorf("a case needs pods and at least one nodepool")
	}
	first, err := batchSolve(&c)
	if err != nil {
		return nil, err
	}
	stable := func(a *batchAnswer) string { // the error texts name hostname placeholders: not compared
		out, _ := json.Marshal(batchAnswer{NodeClaims: a.NodeClaims, Existing: a.Existing, Pending: a.Pending})
		return string(out)
	}
	want := stable(first)
	for i := 1; i < max(c.Runs, 1); i++ {
		again, err := batchSolve(&c)
		if err != nil {
			return nil, err
		}
		if stable(again) != want { // only the fact: the answers themselves differ from run to run
			return batchAnswer{Unstable: true}, nil
		}
	}
	return first, nil
}
