package main

import (
	"encoding/json"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// budgetsCase: a NodePool's disruption budgets (as the API server stores them), the pool's node count and a time.
type budgetsCase struct {
	Budgets []karpv1.Budget `json:"budgets"`
	Nodes   int             `json:"nodes"`
	Now     time.Time       `json:"now"`
}

// budgetsFamily: NodePool.GetAllowedDisruptionsByReason (pkg/apis/v1/nodepool.go) for every DisruptionReason, at
// Now on a fake clock; the error is not compared (a budget that errs counts as 0 for its reasons either way).
func budgetsFamily(raw json.RawMessage) (any, error) {
	var c budgetsCase
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, err
	}
	pool := &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "pool"}}
	pool.Spec.Disruption.Budgets = c.Budgets
	clk := clocktesting.NewFakeClock(c.Now)
	out := map[string]int{}
	for _, reason := range []karpv1.DisruptionReason{karpv1.DisruptionReasonEmpty, karpv1.DisruptionReasonDrifted,
		karpv1.DisruptionReasonUnderutilized} {
		allowed, _ := pool.GetAllowedDisruptionsByReason(clk, c.Nodes, reason)
		out[string(reason)] = allowed
	}
	return out, nil
}

func init() { register("budgets", budgetsFamily) }
