// The oracle of the Karpenter v1.9 line: aws/karpenter-provider-aws v1.9.3 and sigs.k8s.io/karpenter v1.9.0 (v1.9.1,
// which the provider names, is not served by the Go module proxy; go.mod replaces it with the line's release that
// is). The sources are the parent module's (symbolic links, one source) but for hash.go (EC2NodeClass.Hash takes no
// CA bundle before v1.12): the families whose API exists at v1.9 and whose Go code builds against it, apiserver (CRD
// admission, the v1.9.3 CRDs from ORACLE_CRDS), requirements (sigs.k8s.io/karpenter v1.9.0 pkg/scheduling) and drift
// (NodePool.Hash, EC2NodeClass.Hash of v1.9, manifests stored through the provider's v1.9.3 CRDs).
//
// The provider v1.9.3 asks for Go 1.26.10: build with GOTOOLCHAIN=go1.27.3 (tests/oracle/run.py sets it).
package main
