package main

// The API server's own validation of a custom resource on create, driven through the functions kube-apiserver's
// CRD handler calls (k8s.io/apiextensions-apiserver v0.35, k8s.io/apiserver v0.35):
//
//  1. decoding the request body (customresource_handler.go schemaCoercingDecoder / unstructuredSchemaCoercer.apply):
//     ObjectMeta read strictly (a malformed one refuses the request), unknown fields pruned (their paths are what
//     fieldValidation=Strict refuses and Warn reports), non-nullable nulls pruned, embedded ObjectMeta coerced;
//  2. defaulting (unstructuredDefaulter: structuraldefaulting.Default);
//  3. the store's create (generic registry Store.Create): system fields filled, generateName resolved, then
//     rest.BeforeCreate with the CRD's strategy (customresource.NewStrategy): the namespace of a cluster-scoped object
//     cleared (EnsureObjectNamespaceMatchesRequestNamespace), ObjectMeta validated (names, labels, annotations and
//     their total size), the OpenAPI schema (validation.NewSchemaValidator / ValidateCustomResource), list-type
//     invariants, then the CEL rules with the API server's per-call limit and runtime cost budget, skipped after a
//     blocking error.
//
// The CRDs are the project's packaged ones (constructs/karpenter_gpu/data/crds), read once: $ORACLE_CRDS, else
// found relative to the binary (build/oracle/oracle).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/crdserverscheme"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/apis/v1alpha1"
)

// servedKind is one served version of one CRD, as the handler builds it (crdHandler.getOrCreateServingInfoFor).
type servedKind struct {
	gvk        schema.GroupVersionKind
	namespaced bool
	structural *structuralschema.Structural
	strategy   rest.RESTCreateStrategy
}

var (
	servedOnce sync.Once
	served     map[string]*servedKind // "group/version kind"
	servedErr  error
)

func crdDir() string {
	if dir := os.Getenv("ORACLE_CRDS"); dir != "" {
		return dir
	}
	exe, err := os.Executable()
	if err != nil {
		return "constructs/karpenter_gpu/data/crds"
	}
	return filepath.Join(filepath.Dir(exe), "..", "..", "constructs", "karpenter_gpu", "data", "crds")
}

func loadServed() (map[string]*servedKind, error) {
	files, err := filepath.Glob(filepath.Join(crdDir(), "*.yaml"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no CRD files in %s (set ORACLE_CRDS)", crdDir())
	}
	out := map[string]*servedKind{}
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		decoder := utilyaml.NewYAMLOrJSONDecoder(f, 1<<16)
		for {
			var crd apiextensionsv1.CustomResourceDefinition
			if err := decoder.Decode(&crd); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				f.Close()
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			if crd.Kind != "CustomResourceDefinition" {
				continue
			}
			apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(&crd)
			if err := addServed(out, &crd); err != nil {
				f.Close()
				return nil, fmt.Errorf("%s: %w", file, err)
			}
		}
		f.Close()
	}
	return out, nil
}

func addServed(out map[string]*servedKind, crd *apiextensionsv1.CustomResourceDefinition) error {
	for _, v := range crd.Spec.Versions {
		if !v.Served || v.Schema == nil {
			continue
		}
		internal := &apiextensions.CustomResourceValidation{}
		if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(
			v.Schema, internal, nil); err != nil {
			return err
		}
		s, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
		if err != nil {
			return err
		}
		s = s.DeepCopy()
		if err := structuraldefaulting.PruneDefaults(s); err != nil {
			return err
		}
		validator, _, err := apiservervalidation.NewSchemaValidator(internal.OpenAPIV3Schema)
		if err != nil {
			return err
		}
		var status *apiextensions.CustomResourceSubresourceStatus
		var statusValidator apiservervalidation.SchemaValidator
		if v.Subresources != nil && v.Subresources.Status != nil {
			status = &apiextensions.CustomResourceSubresourceStatus{}
			if props, ok := internal.OpenAPIV3Schema.Properties["status"]; ok {
				if statusValidator, _, err = apiservervalidation.NewSchemaValidator(&props); err != nil {
					return err
				}
			}
		}
		gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
		namespaced := crd.Spec.Scope == apiextensionsv1.NamespaceScoped
		typer := crdserverscheme.NewUnstructuredObjectTyper()
		strategy := customresource.NewStrategy(typer, namespaced, gvk, validator, statusValidator, s, status, nil,
			v.SelectableFields)
		out[gvk.GroupVersion().String()+" "+gvk.Kind] = &servedKind{gvk, namespaced, s, strategy}
	}
	return nil
}

// apiserverCase: one object; fill (optional) adds an annotation of Length times "x", so a case near the annotation
// size limit stays small.
type apiserverCase struct {
	Object json.RawMessage `json:"object"`
	Fill   *struct {
		Annotation string `json:"annotation"`
		Length     int    `json:"length"`
	} `json:"fill"`
}

func (c apiserverCase) expand(obj map[string]any) {
	if c.Fill == nil {
		return
	}
	meta, ok := obj["metadata"].(map[string]any)
	if !ok {
		if obj["metadata"] != nil {
			return
		}
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	annotations, ok := meta["annotations"].(map[string]any)
	if !ok {
		annotations = map[string]any{}
		meta["annotations"] = annotations
	}
	annotations[c.Fill.Annotation] = strings.Repeat("x", c.Fill.Length)
}

type refusal struct {
	Field string `json:"field"`
	Type  string `json:"type"`
}

// decode reads the request body as the CRD handler's decoder does, and returns the unknown fields it prunes.
func decode(kind *servedKind, obj map[string]any) ([]string, error) {
	apiVersion, kindName := obj["apiVersion"], obj["kind"]
	objectMeta, foundMeta, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(obj,
		schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		return nil, err
	}
	unknown = append(unknown, structuralpruning.PruneWithOptions(obj, kind.structural, true,
		structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, kind.structural)
	coerceErr, paths := schemaobjectmeta.CoerceWithOptions(nil, obj, kind.structural, false,
		schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
	if coerceErr != nil { // a *field.Error: kept out of the error interface while nil
		return nil, coerceErr
	}
	unknown = append(unknown, paths...)
	obj["apiVersion"], obj["kind"] = apiVersion, kindName
	if foundMeta {
		if err := schemaobjectmeta.SetObjectMeta(obj, objectMeta); err != nil {
			return nil, err
		}
	}
	structuraldefaulting.Default(obj, kind.structural)
	return unknown, nil
}

// create runs the generic store's create steps up to and including rest.BeforeCreate.
func create(kind *servedKind, u *unstructured.Unstructured) error {
	accessor, err := metaAccessor(u)
	if err != nil {
		return err
	}
	rest.FillObjectMetaSystemFields(accessor)
	if accessor.GetGenerateName() != "" && accessor.GetName() == "" {
		accessor.SetName(kind.strategy.GenerateName(accessor.GetGenerateName()))
	}
	requestNamespace := metav1.NamespaceNone
	if kind.namespaced {
		requestNamespace = accessor.GetNamespace()
		if requestNamespace == "" {
			requestNamespace = metav1.NamespaceDefault
		}
	}
	ctx := genericapirequest.WithNamespace(context.Background(), requestNamespace)
	return rest.BeforeCreate(kind.strategy, ctx, u)
}

func metaAccessor(u *unstructured.Unstructured) (metav1.Object, error) {
	var obj runtime.Object = u
	if accessor, ok := obj.(metav1.Object); ok {
		return accessor, nil
	}
	return nil, fmt.Errorf("not an object")
}

// apiserverFamily: whether the API server accepts the object on create, the fields it refuses (field.Error .Field,
// sorted) with their error types, the unknown fields it prunes, and what it stores for metadata.namespace.
func apiserverFamily(raw json.RawMessage) (any, error) {
	servedOnce.Do(func() { served, servedErr = loadServed() })
	if servedErr != nil {
		return nil, servedErr
	}
	var c apiserverCase
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, err
	}
	var obj map[string]any
	if err := utiljson.Unmarshal(c.Object, &obj); err != nil {
		return nil, err
	}
	c.expand(obj)
	apiVersion, _ := obj["apiVersion"].(string)
	kindName, _ := obj["kind"].(string)
	kind, ok := served[apiVersion+" "+kindName]
	if !ok {
		return map[string]any{"served": false}, nil
	}
	answer := map[string]any{"served": true}
	unknown, err := decode(kind, obj)
	sort.Strings(unknown)
	answer["unknown"] = nonNil(unknown)
	if err != nil { // the request body cannot be decoded: 400 Bad Request, before any field validation
		answer["accepted"], answer["decodeError"] = false, err.Error()
		answer["refused"], answer["types"], answer["celSkipped"] = []string{}, []string{}, false
		return answer, nil
	}
	u := &unstructured.Unstructured{Object: obj}
	err = create(kind, u)
	refused, types, celSkipped := []string{}, []string{}, false
	if err != nil {
		var status *apierrors.StatusError
		if !errors.As(err, &status) || status.ErrStatus.Reason != metav1.StatusReasonInvalid ||
			status.ErrStatus.Details == nil {
			return nil, fmt.Errorf("create: %w", err)
		}
		seen := map[refusal]bool{}
		for _, cause := range status.ErrStatus.Details.Causes {
			if strings.Contains(cause.Message, "some validation rules were not checked") {
				celSkipped = true
				continue
			}
			r := refusal{cause.Field, string(cause.Type)}
			if !seen[r] {
				seen[r] = true
				refused = append(refused, r.Field)
				types = append(types, r.Field+" "+r.Type)
			}
		}
		sort.Strings(refused)
		refused = dedupe(refused)
		sort.Strings(types)
	}
	answer["accepted"] = err == nil
	answer["decodeError"] = ""
	answer["refused"], answer["types"], answer["celSkipped"] = refused, types, celSkipped
	if err == nil {
		answer["namespace"] = u.GetNamespace()
		answer["decodes"] = karpenterDecodes(kindName, u.Object)
	}
	return answer, nil
}

// karpenterDecodes: true when Karpenter reads the stored object, else why not. Its informer decodes the object the
// API server serves into Karpenter's Go types (the client's JSON serializer: k8s.io/apimachinery util/json.Unmarshal,
// case-sensitive; karpv1.NodePool, awsv1.EC2NodeClass, v1alpha1.NodeOverlay: a resource.Quantity through
// ParseQuantity, a metav1.Duration through time.ParseDuration, a metav1.Time through RFC 3339); for an EC2NodeClass
// the provider then parses the kubelet's reserved resources and hard eviction thresholds when it builds instance
// types (karpenter-provider-aws v1.14.1 pkg/providers/instancetype/types.go kubeReservedResources,
// systemReservedResources, evictionThreshold / computeEvictionSignal: resource.MustParse and mustParsePercentage,
// which panic on a value they cannot read).
func karpenterDecodes(kind string, obj map[string]any) any {
	data, err := json.Marshal(obj)
	if err != nil {
		return "marshal: " + err.Error()
	}
	switch kind {
	case "NodePool":
		err = utiljson.Unmarshal(data, &karpv1.NodePool{})
	case "NodeOverlay":
		err = utiljson.Unmarshal(data, &v1alpha1.NodeOverlay{})
	case "EC2NodeClass":
		nodeClass := &awsv1.EC2NodeClass{}
		if err = utiljson.Unmarshal(data, nodeClass); err == nil && nodeClass.Spec.Kubelet != nil {
			err = kubeletQuantities(nodeClass.Spec.Kubelet)
		}
	default:
		return true
	}
	if err != nil {
		return fmt.Sprintf("decode %s: %v", kind, err)
	}
	return true
}

// kubeletQuantities parses what NewInstanceType parses of the kubelet configuration, in a fixed order.
func kubeletQuantities(kubelet *awsv1.KubeletConfiguration) error {
	for _, field := range []struct {
		name   string
		values map[string]string
	}{{"kubeReserved", kubelet.KubeReserved}, {"systemReserved", kubelet.SystemReserved}} {
		keys := make([]string, 0, len(field.values))
		for k := range field.values {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if _, err := resource.ParseQuantity(field.values[k]); err != nil {
				return fmt.Errorf("%s[%s]: %w", field.name, k, err)
			}
		}
	}
	for _, signal := range []string{"memory.available", "nodefs.available"} { // evictionThreshold reads only these
		v, ok := kubelet.EvictionHard[signal]
		if !ok {
			continue
		}
		if strings.HasSuffix(v, "%") {
			if _, err := strconv.ParseFloat(strings.Trim(v, "%"), 64); err != nil {
				return fmt.Errorf("evictionHard[%s]: %w", signal, err)
			}
		} else if _, err := resource.ParseQuantity(v); err != nil {
			return fmt.Errorf("evictionHard[%s]: %w", signal, err)
		}
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func dedupe(sorted []string) []string {
	out := sorted[:0]
	for i, s := range sorted {
		if i == 0 || s != sorted[i-1] {
			out = append(out, s)
		}
	}
	return out
}

func init() { register("apiserver", apiserverFamily) }
