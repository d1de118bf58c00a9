package main

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"

	"sigs.k8s.io/karpenter/pkg/scheduling"
)

type tolerationsCase struct {
	Taints      []corev1.Taint      `json:"taints"`
	Tolerations []corev1.Toleration `json:"tolerations"`
}

// tolerationsFamily: Taints.ToleratesPod for the whole set, and Taints.Tolerates per taint.
func tolerationsFamily(raw json.RawMessage) (any, error) {
	var c tolerationsCase
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, err
	}
	pod := &corev1.Pod{Spec: corev1.PodSpec{Tolerations: c.Tolerations}}
	per := make([]bool, len(c.Taints))
	for i := range c.Taints {
		per[i] = scheduling.Taints(c.Taints[i:i+1]).Tolerates(c.Tolerations) == nil
	}
	return map[string]any{
		"tolerated": scheduling.Taints(c.Taints).ToleratesPod(pod) == nil,
		"perTaint":  per,
	}, nil
}

func init() { register("tolerations", tolerationsFamily) }
