package main

import (
	"encoding/json"
	"fmt"
	"sort"

	"sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/scheduling"
)

// requirementsCase: two requirement lists a and b (NodeSelectorRequirementWithMinValues, any operator),
// values to probe with Has on every key, and instance types (label maps) for SatisfiesMinValues.
type requirementsCase struct {
	A             []v1.NodeSelectorRequirementWithMinValues `json:"a"`
	B             []v1.NodeSelectorRequirementWithMinValues `json:"b"`
	Probe         []string                                  `json:"probe"`
	InstanceTypes []map[string]string                       `json:"instanceTypes"`
}

type requirementAnswer struct {
	Operator string                                    `json:"operator"`
	Values   []string                                  `json:"values"`
	Min      *int                                      `json:"minValues"`
	Rendered []v1.NodeSelectorRequirementWithMinValues `json:"rendered"`
	Has      []bool                                    `json:"has"`
}

type verdict struct {
	OK      bool     `json:"ok"`
	BadKeys []string `json:"badKeys"`
}

type minValuesAnswer struct {
	Has    bool           `json:"hasMinValues"`
	Needed int            `json:"needed"`
	Unmet  map[string]int `json:"unmet"`
	OK     bool           `json:"ok"`
}

func build(reqs []v1.NodeSelectorRequirementWithMinValues) scheduling.Requirements {
	// NewRequirementWithFlexibility rewrites values in place (NormalizedLabelValues): copy them first.
	copied := make([]v1.NodeSelectorRequirementWithMinValues, len(reqs))
	for i, r := range reqs {
		copied[i] = r
		copied[i].Values = append([]string(nil), r.Values...)
	}
	return scheduling.NewNodeSelectorRequirementsWithMinValues(copied...)
}

func describe(r scheduling.Requirements, probe []string) map[string]requirementAnswer {
	out := map[string]requirementAnswer{}
	for key, req := range r {
		values := append([]string{}, req.Values()...)
		sort.Strings(values)
		rendered := scheduling.NewRequirements(req).NodeSelectorRequirements()
		sort.Slice(rendered, func(i, j int) bool { return rendered[i].Operator < rendered[j].Operator })
		has := make([]bool, len(probe))
		for i, v := range probe {
			has[i] = req.Has(v)
		}
		out[key] = requirementAnswer{string(req.Operator()), values, req.MinValues, rendered, has}
	}
	return out
}

func keysOf(r scheduling.Requirements) []string {
	keys := make([]string, 0, len(r))
	for k := range r {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// perKey runs check on the whole incoming set, then on each of its keys alone, so that which keys fail
// is deterministic (upstream stops at, or joins, keys in map order).
func perKey(incoming scheduling.Requirements, check func(scheduling.Requirements) error) verdict {
	v := verdict{OK: check(incoming) == nil, BadKeys: []string{}}
	for _, key := range keysOf(incoming) {
		if check(scheduling.NewRequirements(incoming.Get(key))) != nil {
			v.BadKeys = append(v.BadKeys, key)
		}
	}
	return v
}

func requirementsFamily(raw json.RawMessage) (any, error) {
	var c requirementsCase
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, err
	}
	for _, list := range [][]v1.NodeSelectorRequirementWithMinValues{c.A, c.B} {
		for _, r := range list {
			switch r.Operator {
			case "Gt", "Lt", "Gte", "Lte":
				if len(r.Values) != 1 {
					return nil, fmt.Errorf("%s %s needs exactly one value (the API server refuses others)", r.Key, r.Operator)
				}
			}
		}
	}
	a, b := build(c.A), build(c.B)
	ab := build(c.A)
	ab.Add(b.Values()...)
	its := make(cloudprovider.InstanceTypes, len(c.InstanceTypes))
	for i, labels := range c.InstanceTypes {
		its[i] = &cloudprovider.InstanceType{Name: fmt.Sprint(i), Requirements: scheduling.NewLabelRequirements(labels)}
	}
	needed, unmet, err := its.SatisfiesMinValues(ab)
	if unmet == nil {
		unmet = map[string]int{}
	}
	return map[string]any{
		"a":          describe(a, c.Probe),
		"b":          describe(b, c.Probe),
		"ab":         describe(ab, c.Probe),
		"compatible": perKey(b, func(in scheduling.Requirements) error { return a.Compatible(in) }),
		"compatibleWellKnown": perKey(b, func(in scheduling.Requirements) error {
			return a.Compatible(in, scheduling.AllowUndefinedWellKnownLabels)
		}),
		"intersects": perKey(b, func(in scheduling.Requirements) error { return a.Intersects(in) }),
		"minValues":  minValuesAnswer{ab.HasMinValues(), needed, unmet, err == nil},
	}, nil
}

func init() { register("requirements", requirementsFamily) }
