// The oracle of the Karpenter v1.9 line: aws/karpenter-provider-aws v1.9.3 and sigs.k8s.io/karpenter v1.9.0 (v1.9.1,
// which the provider names, is not served by the Go module proxy; go.mod replaces it with the line's release that
// is). The sources are the parent module's (symbolic links, one source) but for the per-line files: hash.go
// (EC2NodeClass.Hash takes no CA bundle before v1.12), scheduler_line.go (the scheduler family's calls whose API
// differs: the offering provider, the node class fields of later releases, the subnet provider, the core's test
// feature gates and NewScheduler) and overlay_line.go (the NodeOverlay controller takes no clock). The families
// whose API exists at v1.9 and whose Go code builds against it: apiserver (CRD admission, the v1.9.3 CRDs from
// ORACLE_CRDS), requirements and tolerations (sigs.k8s.io/karpenter v1.9.0 pkg/scheduling), drift (NodePool.Hash,
// EC2NodeClass.Hash of v1.9, manifests stored through the provider's v1.9.3 CRDs), scheduler (v1.9.0's provisioning
// scheduler over the provider v1.9.3's instance types and offerings), overlay (v1.9.0's NodeOverlay controller and
// instance-type store: the CRD and the nodeOverlay gate exist at v1.9), cron and budgets (v1.9.0's
// GetAllowedDisruptionsByReason).
//
// The provider v1.9.3 asks for Go 1.26.10: build with GOTOOLCHAIN=go1.27.3 (tests/oracle/run.py sets it).
package main
