package main

// The overlay family: Karpenter v1.14.1's NodeOverlay controller and instance-type store, driven without an API
// server. pkg/controllers/nodeoverlay controller.go Controller.Reconcile runs against a fake controller-runtime client
// holding the case's NodePools and NodeOverlays (NodeOverlay status as a subresource, as the CRD declares it), a fake
// cloud provider returning the case's instance types and a state.Cluster; it orders the overlays (OrderByWeight),
// runtime-validates them, checks each against the ones already stored for conflicts
// (validateAndUpdateInstanceTypeOverrides) and writes their ValidationSucceeded conditions through the status client.
// The answer is read back: each overlay's conditions from the client, and each NodePool's instance types after
// InstanceTypeStore.ApplyAll (what the overlay cloud-provider decorator, pkg/cloudprovider/overlay, returns with the
// NodeOverlay feature gate on): every offering's price and whether an overlay set it, and the capacity.
//
// Instance types are the case's catalog entries built by the AWS provider v1.14.1 exactly as the scheduler family
// builds them (schedInstanceTypes: DefaultResolver.Resolve and offering.DefaultProvider.InjectOfferings), so the
// prices are the catalog's on-demand list prices, spot at the on-demand price (factor 1.0), and reserved offerings
// exist only for the case's capacity reservations.

import (
	"encoding/json"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakecr "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/apis/v1alpha1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/fake"
	"sigs.k8s.io/karpenter/pkg/controllers/nodeoverlay"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	coreoptions "sigs.k8s.io/karpenter/pkg/operator/options"
)

func init() {
	register("overlay", overlayCase)
}

type overlayInput struct {
	Region        string                  `json:"region"`
	Zones         []schedZone             `json:"zones"`
	InstanceTypes []schedInstanceType     `json:"instance_types"`
	Reservations  []schedReservation      `json:"capacity_reservations"`
	NodePools     []*karpv1.NodePool      `json:"nodepools"`
	Overlays      []*v1alpha1.NodeOverlay `json:"overlays"`
	// Settings: the controller's settings (settings.go); null: the chart's defaults with the nodeOverlay gate on.
	Settings *schedSettings `json:"settings"`
}

type overlayOffer struct {
	CapacityType string  `json:"capacity_type"`
	Zone         string  `json:"zone"`
	Price        float64 `json:"price"`
	Overlaid     bool    `json:"overlaid"`
}

type overlayType struct {
	Offerings []overlayOffer `json:"offerings"`
	// Capacity: the instance type's non-zero resources after overlays (Quantity.String()), without the four an
	// overlay cannot set.
	Capacity        map[string]string `json:"capacity"`
	CapacityOverlay bool              `json:"capacity_overlaid"`
}

type overlayStatus struct {
	// Ready: ValidationSucceeded True. Reason: "Conflict" or "RuntimeValidation" when it is False.
	Ready  bool   `json:"ready"`
	Reason string `json:"reason,omitempty"`
}

type overlayAnswer struct {
	Overlays  map[string]overlayStatus          `json:"overlays"`
	NodePools map[string]map[string]overlayType `json:"nodepools"`
	Errors    map[string]string                 `json:"errors,omitempty"`
}

var overlayFixedResources = sets.New(corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage,
	corev1.ResourcePods)

func overlayCase(raw json.RawMessage) (any, error) {
	var c overlayInput
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("reading case: %w", err)
	}
	if len(c.InstanceTypes) == 0 {
		return nil, fmt.Errorf("a case needs at least one instance type")
	}
	if c.Settings == nil {
		c.Settings = &schedSettings{FeatureGates: map[string]bool{"nodeOverlay": true}}
	}
	ctx := settingsCtx(c.Settings)
	// With the NodeOverlay gate off the NodeOverlay controller is not registered (sigs.k8s.io/karpenter
	// pkg/controllers/controllers.go NewControllers) and the overlay cloud provider returns the types unchanged
	// (pkg/cloudprovider/overlay/cloudprovider.go GetInstanceTypes): no overlay gets a condition, none applies.
	gateOn := coreoptions.FromContext(ctx).FeatureGates.NodeOverlay
	sc := &schedCase{Region: c.Region, Zones: c.Zones, InstanceTypes: c.InstanceTypes, Reservations: c.Reservations,
		SpotPriceFactor: map[string]float64{}}
	for _, z := range c.Zones {
		sc.SpotPriceFactor[z.Name] = 1.0
	}
	nodeClass := schedNodeClass(sc)
	its, err := schedInstanceTypes(ctx, sc, nodeClass)
	if err != nil {
		return nil, err
	}

	var objects []client.Object
	for _, np := range c.NodePools {
		np.UID = types.UID("nodepool-" + np.Name)
		objects = append(objects, np)
	}
	for _, o := range c.Overlays {
		o.UID = types.UID("overlay-" + o.Name)
		objects = append(objects, o)
	}
	// A plain object tracker: the default field-managed one builds a REST mapper of the whole scheme on every
	// patch (managed fields play no part in the controller).
	kube := fakecr.NewClientBuilder().
		WithObjectTracker(clienttesting.NewObjectTracker(scheme.Scheme, scheme.Codecs.UniversalDecoder())).
		WithStatusSubresource(&v1alpha1.NodeOverlay{}, &karpv1.NodePool{}).
		WithObjects(objects...).
		Build()
	provider := fake.NewCloudProvider()
	provider.InstanceTypes = its
	clk := clock.RealClock{}
	store := nodeoverlay.NewInstanceTypeStore()
	controller := lineOverlayController(clk, kube, provider, store, state.NewCluster(clk, kube, provider))
	if gateOn {
		if _, err := controller.Reconcile(ctx, reconcile.Request{}); err != nil {
			return nil, fmt.Errorf("reconcile: %w", err)
		}
	}

	ans := overlayAnswer{Overlays: map[string]overlayStatus{}, NodePools: map[string]map[string]overlayType{}}
	stored := &v1alpha1.NodeOverlayList{}
	if err := kube.List(ctx, stored); err != nil {
		return nil, fmt.Errorf("listing nodeoverlays: %w", err)
	}
	for i := range stored.Items {
		cond := stored.Items[i].StatusConditions().Get(v1alpha1.ConditionTypeValidationSucceeded)
		st := overlayStatus{}
		if cond != nil && cond.IsTrue() {
			st.Ready = true
		} else if cond != nil {
			st.Reason = cond.Reason
		} else {
			st.Reason = "no condition"
		}
		ans.Overlays[stored.Items[i].Name] = st
	}
	for _, np := range c.NodePools {
		applied, err := its, error(nil)
		if gateOn {
			applied, err = store.ApplyAll(np.Name, its)
		}
		if err != nil {
			if ans.Errors == nil {
				ans.Errors = map[string]string{}
			}
			ans.Errors[np.Name] = err.Error()
			continue
		}
		perType := map[string]overlayType{}
		for _, it := range applied {
			t := overlayType{Capacity: map[string]string{}, CapacityOverlay: it.IsCapacityOverlayApplied()}
			for name, q := range it.Capacity {
				// cpu, memory, ephemeral-storage and pods: the CRD refuses them in an overlay's capacity
				if !q.IsZero() && !overlayFixedResources.Has(name) {
					t.Capacity[string(name)] = q.String()
				}
			}
			for _, of := range it.Offerings {
				t.Offerings = append(t.Offerings, overlayOffer{of.CapacityType(), of.Zone(), of.Price, of.IsPriceOverlaid()})
			}
			sort.Slice(t.Offerings, func(a, b int) bool {
				x, y := t.Offerings[a], t.Offerings[b]
				return x.CapacityType < y.CapacityType || (x.CapacityType == y.CapacityType && x.Zone < y.Zone)
			})
			perType[it.Name] = t
		}
		ans.NodePools[np.Name] = perType
	}
	return ans, nil
}
