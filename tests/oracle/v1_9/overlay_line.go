package main

import (
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/controllers/nodeoverlay"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
)

// lineOverlayController is the NodeOverlay controller of the line: sigs.k8s.io/karpenter v1.9.0
// pkg/controllers/nodeoverlay/controller.go NewController takes no clock.
func lineOverlayController(_ clock.Clock, kube client.Client, provider cloudprovider.CloudProvider,
	store *nodeoverlay.InstanceTypeStore, cluster *state.Cluster) *nodeoverlay.Controller {
	return nodeoverlay.NewController(kube, provider, store, cluster)
}
