package main

import (
	"encoding/json"
	"fmt"

	awsapis "github.com/aws/karpenter-provider-aws/pkg/apis"
	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// driftCase: two manifests of one kind, old and new, as a user writes them.
type driftCase struct {
	Kind string          `json:"kind"`
	Old  json.RawMessage `json:"old"`
	New  json.RawMessage `json:"new"`
}

var schemas = map[string]*structuralschema.Structural{}

// The CRDs the AWS provider's chart installs (v1 versions), as structural schemas.
func init() {
	for _, crd := range awsapis.CRDs {
		for _, version := range crd.Spec.Versions {
			if version.Name != "v1" || version.Schema == nil {
				continue
			}
			internal := &apiextensions.JSONSchemaProps{}
			if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(
				version.Schema.OpenAPIV3Schema, internal, nil); err != nil {
				panic(err)
			}
			s, err := structuralschema.NewStructural(internal)
			if err != nil {
				panic(err)
			}
			schemas[crd.Spec.Names.Kind] = s
		}
	}
}

// admit stores a manifest as the API server does (prune unknown fields, apply the CRD defaults), and
// returns the JSON a controller reads back.
func admit(kind string, raw json.RawMessage) ([]byte, error) {
	s, ok := schemas[kind]
	if !ok {
		return nil, fmt.Errorf("no v1 schema for kind %q", kind)
	}
	var obj map[string]any
	if err := utiljson.Unmarshal(raw, &obj); err != nil {
		return nil, err
	}
	pruning.Prune(obj, s, true)
	defaulting.Default(obj, s)
	pruning.Prune(obj, s, true)
	return json.Marshal(obj)
}

func hashOf(kind string, raw json.RawMessage) (string, error) {
	stored, err := admit(kind, raw)
	if err != nil {
		return "", err
	}
	switch kind {
	case "NodePool":
		var np karpv1.NodePool
		if err := json.Unmarshal(stored, &np); err != nil {
			return "", fmt.Errorf("decode NodePool: %w", err)
		}
		return np.Hash(), nil
	case "EC2NodeClass":
		var nc awsv1.EC2NodeClass
		if err := json.Unmarshal(stored, &nc); err != nil {
			return "", fmt.Errorf("decode EC2NodeClass: %w", err)
		}
		return nodeClassHash(&nc), nil
	}
	return "", fmt.Errorf("unknown kind %q", kind)
}

// driftFamily: NodePool.Hash / EC2NodeClass.Hash of both manifests and whether they are equal.
func driftFamily(raw json.RawMessage) (any, error) {
	var c driftCase
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, err
	}
	old, err := hashOf(c.Kind, c.Old)
	if err != nil {
		return nil, fmt.Errorf("old: %w", err)
	}
	updated, err := hashOf(c.Kind, c.New)
	if err != nil {
		return nil, fmt.Errorf("new: %w", err)
	}
	return map[string]any{"old": old, "new": updated, "equal": old == updated}, nil
}

func init() { register("drift", driftFamily) }
