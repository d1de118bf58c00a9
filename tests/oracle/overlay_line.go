package main

import (
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/controllers/nodeoverlay"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
)

// lineOverlayController is the NodeOverlay controller of the line: sigs.k8s.io/karpenter v1.14.1
// pkg/controllers/nodeoverlay/controller.go NewController takes a clock (tests/oracle/v1_9/overlay_line.go: v1.9.0's
// takes none).
func lineOverlayController(clk clock.Clock, kube client.Client, provider cloudprovider.CloudProvider,
	store *nodeoverlay.InstanceTypeStore, cluster *state.Cluster) *nodeoverlay.Controller {
	return nodeoverlay.NewController(clk, kube, provider, store, cluster)
}
