package main

// The batch family: Karpenter v1.14.1's provisioning scheduler places a batch of pending pods at once
// (pkg/controllers/provisioning/scheduling scheduler.go Solve), as the scheduler family runs it for one pod
// (scheduler.go in this folder: the same instance types, node class, NodePools, DaemonSets, settings and launch).
// Existing nodes are launched, registered and initialized NodeClaims carrying their NodePool's taints, with the
// instance type's capacity and allocatable: the batch's pods may land on them.
//
// Go picks among equally good topology domains, and orders equal in-flight NodeClaims, by map iteration and
// sort.Slice, so one case has several answers Karpenter gives. The case carries the core's answer (Expect) and is
// solved up to Runs times (a fresh scheduler each time, the instance types built once per case), stopping at the
// first answer equal to it up to a renaming of identical pods and of zones (batchMatches): most cases take one
// Solve. The comparison is made again on the Python side against every answer returned.

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakecr "sigs.k8s.io/controller-runtime/pkg/client/fake"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	provscheduling "sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"
	"sigs.k8s.io/karpenter/pkg/events"
	nodepoolutils "sigs.k8s.io/karpenter/pkg/utils/nodepool"
)

func init() {
	register("batch", batchCaseAnswer)
}

type batchCase struct {
	schedCase
	Pods []*corev1.Pod `json:"pods"`
	Runs int           `json:"runs"`
	// Classes: each pod's class (namespace/name of the first of the pods identical to it but for the name): the
	// answers are compared and told apart up to a renaming of identical pods, which Karpenter queues in an order
	// sort.Slice leaves open.
	Classes map[string]string `json:"classes"`
	// Expect: the core's answer (batch_family.python_answer, in classes); nil solves Runs times (the vectors).
	Expect *batchExpect `json:"expect"`
	// TimeSolve: instead of an answer, how long Runs solves took (tools/bench_plan.py, Go's side of the figure).
	TimeSolve bool `json:"time_solve"`
}

// batchTiming: seconds spent building the case's instance types once, and in each solve (the pods' copies, the
// cluster state, NewTopology, NewScheduler and Solve; not the launch), with what the last solve gave.
type batchTiming struct {
	PrepareSeconds float64   `json:"prepare_seconds"`
	SolveSeconds   []float64 `json:"solve_seconds"`
	NodeClaims     int       `json:"nodeclaims"`
	Pending        int       `json:"pending"`
}

// batchExpect is the core's plan in the terms of batchAnswer (its NodeClaims sorted as batchSolveOnce sorts).
type batchExpect struct {
	NodeClaims []struct {
		NodePool      string   `json:"nodepool"`
		Pods          []string `json:"pods"`
		InstanceTypes []string `json:"instance_types"`
		InstanceType  *string  `json:"instance_type"`
		CapacityType  *string  `json:"capacity_type"`
		LaunchZones   []string `json:"launch_zones"`
	} `json:"nodeclaims"`
	Existing map[string][]string `json:"existing"`
	Pending  []string            `json:"pending"`
}

// batchAnswers: Karpenter's answer equal to Expect when a solve gave it (one answer, so a rebuild of the vectors
// is byte-identical); else the one answer all Solves solves gave, or Varied when they gave several (none the core's:
// the core's answer is not verified, batch_family counts it apart); none when the case carries no Expect (the core
// abstains: one solve shows Go reads the case).
type batchAnswers struct {
	Answers []*batchCanon `json:"answers"`
	Solves  int           `json:"solves,omitempty"`
	Varied  bool          `json:"varied,omitempty"`
}

// batchCanon: an answer with each pod named by its class; NodeClaims sorted by (pods, nodepool, options, launched
// capacity type), Pending as "class: reason heads joined by '; '" sorted.
type batchCanon struct {
	NodeClaims []batchClaim        `json:"nodeclaims,omitempty"`
	Existing   map[string][]string `json:"existing,omitempty"`
	Pending    []string            `json:"pending,omitempty"`
}

func batchCanonical(a *batchAnswer, classes map[string]string) *batchCanon {
	class := func(pods []string) []string {
		out := lo.Map(pods, func(p string, _ int) string { return lo.ValueOr(classes, p, p) })
		sort.Strings(out)
		return out
	}
	out := &batchCanon{Existing: map[string][]string{}}
	for _, nc := range a.NodeClaims {
		nc.Pods = class(nc.Pods)
		out.NodeClaims = append(out.NodeClaims, nc)
	}
	// NodeClaims alike but for the launched capacity type compare as a set, whichever was made first
	// (batch_family._claim_key); zones compare up to a renaming, so they do not sort.
	sortKey := func(c batchClaim) string {
		capacityType := ""
		if c.Launch != nil {
			capacityType = c.Launch.CapacityType
		}
		return strings.Join(c.Pods, ",") + "\x00" + c.NodePool + "\x00" + strings.Join(c.InstanceTypes, ",") + "\x00" +
			capacityType
	}
	sort.SliceStable(out.NodeClaims, func(i, j int) bool { return sortKey(out.NodeClaims[i]) < sortKey(out.NodeClaims[j]) })
	for node, pods := range a.Existing {
		out.Existing[node] = class(pods)
	}
	for pod, parts := range a.Pending {
		out.Pending = append(out.Pending, lo.ValueOr(classes, pod, pod)+": "+strings.Join(parts, "; "))
	}
	sort.Strings(out.Pending)
	return out
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
	Errors map[string]string `json:"-"`
	// solve: how long the pods' copies, the cluster state, NewTopology, NewScheduler and Solve took.
	solve time.Duration
}

// batchHeads are the heads of the scheduler's error texts a pod's error is made of (one per NodePool template
// tried, one per untolerated taint), in the words the Python core uses; a part that is none of them is the tail of
// a multi-key requirements error (Requirements.Compatible joins one error per key) and is dropped, but for a bare
// "key ..." error not after one: a template refusing the topology's requirements (batchReason).
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
	tail := false // the parts after "incompatible requirements, key ..." are the other keys' errors
	keys := map[string]bool{}
	for _, part := range strings.Split(text, "; ") {
		if i := strings.Index(part, "unsatisfiable topology constraint for "); i >= 0 {
			head := part[i:]
			if j := strings.Index(head, " (counts"); j >= 0 {
				head = head[:j]
			}
			out, tail = append(out, head), false
			continue
		}
		if i := strings.Index(part, "no instance type"); i >= 0 {
			head := part[i:]
			if j := strings.Index(head, ", requirements="); j >= 0 {
				head = head[:j]
			}
			out, tail = append(out, head), false
			continue
		}
		matched := false
		for _, h := range batchHeads {
			if strings.Contains(part, h) {
				out, matched, tail = append(out, h), true, h == "incompatible requirements"
				keys = map[string]bool{batchErrorKey(part): true}
				break
			}
		}
		// A NodePool template's NodeClaim.CanAdd refusing the topology's requirements returns
		// Requirements.Compatible's error as it is ("key K, ... not in ..."; nodeclaim.go), not after another head.
		// One such error names each key once (Requirements.Intersects), so a key named again starts the next
		// template's error (multierr.Combine flattens them into one list).
		if !matched && strings.HasPrefix(part, "key ") {
			if key := batchErrorKey(part); !tail || keys[key] {
				out, tail, keys = append(out, "incompatible topology requirements"), true, map[string]bool{}
			}
			keys[batchErrorKey(part)] = true
		}
	}
	sort.Strings(out)
	return out
}

// batchErrorKey is the key a requirements error part names ("key K, ..." or "..., key K, ..."), else "".
func batchErrorKey(part string) string {
	i := strings.Index(part, "key ")
	if i < 0 {
		return ""
	}
	key, _, _ := strings.Cut(part[i+len("key "):], ",")
	return key
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

// batchClient: the API server the scheduler lists pods, nodes and namespaces from; empty and only read (Solve and
// NewTopology never write), so one serves every case (a fake client's scheme costs more to build than a Solve).
var batchClient = sync.OnceValue(func() client.Client { return fakecr.NewFakeClient() })

// batchPrepared: what one case's solves share (the instance types are only read by Solve; the launch's filters
// narrow offerings in place and batchSolveOnce puts them back).
type batchPrepared struct {
	c             *batchCase
	ctx           context.Context
	byName        map[string]*cloudprovider.InstanceType
	nodePools     []*karpv1.NodePool
	instanceTypes map[string][]*cloudprovider.InstanceType
}

func batchPrepare(c *batchCase) (*batchPrepared, error) {
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
	return &batchPrepared{c: c, ctx: ctx, byName: byName, nodePools: nodePools, instanceTypes: instanceTypes}, nil
}

func batchSolveOnce(p *batchPrepared) (*batchAnswer, error) {
	c, ctx, nodePools, instanceTypes := p.c, p.ctx, p.nodePools, p.instanceTypes
	started := time.Now() // the pods' copies, the cluster state, NewTopology, NewScheduler and Solve
	pods := batchPods(c)
	kube := batchClient()
	clk := clock.RealClock{}
	claims, err := batchExistingClaims(c, p.byName)
	if err != nil {
		return nil, err
	}
	cluster, stateNodes := clusterOf(clk, kube, claims)
	opts := schedOptions(ctx)
	topology, err := provscheduling.NewTopology(ctx, kube, cluster, stateNodes, nodePools, instanceTypes, pods, opts...)
	if err != nil {
		return nil, fmt.Errorf("topology: %w", err)
	}
	s := provscheduling.NewScheduler(ctx, kube, nodePools, cluster, stateNodes, topology, instanceTypes,
		schedDaemonSetPods(c.DaemonSets), events.NewRecorder(&record.FakeRecorder{}), clk, nil, nil, opts...)
	results, err := s.Solve(ctx, pods)
	solved := time.Since(started)
	if err != nil {
		return nil, fmt.Errorf("solve: %w", err)
	}
	results = results.TruncateInstanceTypes(ctx, provscheduling.MaxInstanceTypes)
	ans := &batchAnswer{Existing: map[string][]string{}, Pending: map[string][]string{}, Errors: map[string]string{},
		solve: solved}
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

// batchMatches: whether Karpenter's answer is the core's, both in classes (batch_family.core_differences: the
// NodeClaims' pools and pods, options, launched capacity type, a type at the launch's price, launch zones up to one consistent renaming of
// single zones; the pods of existing nodes; the Pending pods' error heads).
func batchMatches(want *batchExpect, got *batchCanon) bool {
	return batchRenaming(want, got) != nil
}

// batchRenaming: the renaming of Karpenter's single launch zones to the core's under which the answers are equal
// (nil: they differ).
func batchRenaming(want *batchExpect, got *batchCanon) map[string]string {
	if len(want.NodeClaims) != len(got.NodeClaims) || !batchSameMap(want.Existing, got.Existing) ||
		!slices.Equal(want.Pending, got.Pending) {
		return nil
	}
	renaming := map[string]string{}
	taken := map[string]bool{}
	for i, w := range want.NodeClaims {
		g := got.NodeClaims[i]
		if w.NodePool != g.NodePool || !slices.Equal(w.Pods, g.Pods) || !slices.Equal(w.InstanceTypes, g.InstanceTypes) {
			return nil
		}
		capacityType := ""
		if g.Launch != nil {
			capacityType = g.Launch.CapacityType
		}
		if lo.FromPtr(w.CapacityType) != capacityType || (w.CapacityType == nil) != (g.Launch == nil) {
			return nil
		}
		if len(g.LaunchCheapestTypes) == 0 {
			if w.InstanceType != nil {
				return nil
			}
		} else if w.InstanceType == nil || !slices.Contains(g.LaunchCheapestTypes, *w.InstanceType) {
			return nil
		}
		if len(w.LaunchZones) != len(g.LaunchZones) {
			return nil
		}
		if len(w.LaunchZones) > 1 {
			if !slices.Equal(w.LaunchZones, g.LaunchZones) {
				return nil
			}
			continue
		}
		for j, a := range w.LaunchZones {
			b := g.LaunchZones[j]
			if to, ok := renaming[a]; (ok && to != b) || (!ok && taken[b]) {
				return nil
			}
			renaming[a], taken[b] = b, true
		}
	}
	back := map[string]string{}
	for a, b := range renaming {
		back[b] = a
	}
	return back
}

// batchShape: what of an answer the comparison reads, the single launch zones left out (they compare up to a
// renaming): two solves of one shape are one answer, however the equal domains and prices fell.
func batchShape(a *batchCanon) string {
	type claim struct {
		NodePool, CapacityType  string
		Pods, Options, Cheapest []string
		Zones                   []string
	}
	shape := struct {
		Claims   []claim
		Existing map[string][]string
		Pending  []string
	}{Existing: a.Existing, Pending: a.Pending}
	for _, nc := range a.NodeClaims {
		c := claim{NodePool: nc.NodePool, Pods: nc.Pods, Options: nc.InstanceTypes, Cheapest: nc.LaunchCheapestTypes}
		if nc.Launch != nil {
			c.CapacityType = nc.Launch.CapacityType
		}
		if len(nc.LaunchZones) > 1 {
			c.Zones = nc.LaunchZones
		}
		shape.Claims = append(shape.Claims, c)
	}
	text, _ := json.Marshal(shape)
	return string(text)
}

func batchSameMap(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !slices.Equal(v, w) {
			return false
		}
	}
	return true
}

func batchCaseAnswer(raw json.RawMessage) (any, error) {
	var c batchCase
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("reading case: %w", err)
	}
	if len(c.Pods) == 0 || len(c.NodePools) == 0 {
		return nil, fmt.Errorf("a case needs pods and at least one nodepool")
	}
	started := time.Now()
	prepared, err := batchPrepare(&c)
	if err != nil {
		return nil, err
	}
	if c.TimeSolve {
		timing := batchTiming{PrepareSeconds: time.Since(started).Seconds()}
		for range max(c.Runs, 1) {
			got, err := batchSolveOnce(prepared)
			if err != nil {
				return nil, err
			}
			timing.SolveSeconds = append(timing.SolveSeconds, got.solve.Seconds())
			timing.NodeClaims, timing.Pending = len(got.NodeClaims), len(got.Pending)
		}
		return timing, nil
	}
	if c.Expect == nil {
		if _, err := batchSolveOnce(prepared); err != nil {
			return nil, err
		}
		return batchAnswers{Answers: []*batchCanon{}}, nil
	}
	seen := map[string]*batchCanon{}
	for solves := 0; solves < max(c.Runs, 1); solves++ {
		raw, err := batchSolveOnce(prepared)
		if err != nil {
			return nil, err
		}
		got := batchCanonical(raw, c.Classes)
		if back := batchRenaming(c.Expect, got); back != nil {
			// Recorded in the core's zone names, without the zone's price: the same text whichever of the equal
			// domains this solve took, so a rebuild of the vectors is byte-identical.
			for i := range got.NodeClaims {
				nc := &got.NodeClaims[i]
				nc.LaunchTypes = nil          // not compared; which types a zone offers varies with the zone
				if len(nc.LaunchZones) != 1 { // compared as they are
					continue
				}
				nc.LaunchZones = []string{lo.ValueOr(back, nc.LaunchZones[0], nc.LaunchZones[0])}
				if nc.Launch != nil {
					launch := *nc.Launch
					launch.Zone, launch.Price = nc.LaunchZones[0], 0
					nc.Launch = &launch
				}
			}
			return batchAnswers{Answers: []*batchCanon{got}}, nil
		}
		seen[batchShape(got)] = got
	}
	out := batchAnswers{Solves: max(c.Runs, 1)}
	if len(seen) > 1 { // dozens of answers, a different set each time: only the fact, so the vectors stay stable
		out.Varied = true
		return out, nil
	}
	for _, text := range slices.Sorted(maps.Keys(seen)) {
		out.Answers = append(out.Answers, seen[text])
	}
	return out, nil
}
