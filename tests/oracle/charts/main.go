// Command charts is the chart-rendering oracle of the `placement` family: it renders the Karpenter chart and the
// NVIDIA GPU Operator chart with helm v4 (client-only install, API versions given, offline), applies the operator's
// run-time operand transform, and places each node agent on synthetic nodes with Kubernetes' own predicates.
//
//	charts -karpenter-chart DIR -gpu-operator DIR < cases.jsonl > answers.jsonl
//
// -karpenter-chart: charts/karpenter of github.com/aws/karpenter-provider-aws v1.14.1 (the Go module cache).
// -gpu-operator: a checkout of NVIDIA/gpu-operator at the v26.7.0 tag (10ee5b3638b89e11e949412aafa5ba99279c3721):
// deployments/gpu-operator is rendered, assets/ holds the operand DaemonSets.
//
// One JSON request a line ({"id", "case": {"gpu_operator_values", "karpenter_values", "nodes"}}), one answer a
// line ({"id", "answer": {"<node>": {"<agent>": true|false}, ...}, "feature_gates": "...", "controller_image": "..."}
// or {"id", "error"}).
//
// The operator's run-time behaviour, read from NVIDIA/gpu-operator v26.7.0 (its module is not served by the module
// proxy at that commit, so it is cited, not imported):
//   - controllers/state_manager.go gpuNodeLabels / hasGPULabels: a node is a GPU node when NFD labelled
//     feature.node.kubernetes.io/pci-10de.present=true (NFD does where its worker runs, on an NVIDIA node, and only
//     with an nfd-master: in NFD v0.19 the worker publishes a NodeFeature object and the master sets the labels);
//   - controllers/state_manager.go updateGPUStateLabels / addGPUStateLabels / hasMIGCapableGPU: the
//     nvidia.com/gpu.deploy.* labels of gpuStateLabels[container] are set to "true" unless non-empty, mig-manager
//     on a MIG-capable GPU, all removed with nvidia.com/gpu.deploy.operands=false;
//   - controllers/object_controls.go applyCommonDaemonsetConfig: each operand DaemonSet's tolerations are replaced
//     by ClusterPolicy spec.daemonsets.tolerations; controllers/state_manager.go isStateEnabled: the state is
//     deployed when spec.<operand> IsEnabled (api/nvidia/v1/clusterpolicy_types.go: an unset enabled is on for all
//     but the node status exporter; the validator always), and no state without a ClusterPolicy
//     (clusterPolicy.deployCR false).
//
// A chart that refuses the values (a template's fail or required: the GPU Operator chart's
// templates/validations.yaml, the Karpenter chart's settings.clusterName) is answered as
// "gpu-operator refused" / "karpenter refused" with the message, not as an error.
//
// Predicates: k8s.io/component-helpers scheduling/corev1 FindMatchingUntoleratedTaint (NoSchedule, NoExecute) and
// nodeaffinity GetRequiredNodeAffinity (nodeSelector and required node affinity), as the scheduler's
// TaintToleration and NodeAffinity filters call them; DaemonSet pods get the tolerations of kubernetes
// pkg/controller/daemon/util AddOrUpdateDaemonPodTolerations.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/common"
	chartloader "helm.sh/helm/v4/pkg/chart/loader"
	release "helm.sh/helm/v4/pkg/release/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/yaml"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
	sigsyaml "sigs.k8s.io/yaml"
)

type node struct {
	Name        string            `json:"name"`
	Kind        string            `json:"kind"`
	Labels      map[string]string `json:"labels"`
	Taints      []corev1.Taint    `json:"taints"`
	Accelerator string            `json:"accelerator"`
	MigCapable  bool              `json:"mig_capable"`
}

type request struct {
	ID   string `json:"id"`
	Case struct {
		GPUOperatorValues map[string]any `json:"gpu_operator_values"`
		KarpenterValues   map[string]any `json:"karpenter_values"`
		NeuronValues      map[string]any `json:"neuron_values"`
		Nodes             []node         `json:"nodes"`
		// KarpenterChart: charts/karpenter of the Karpenter line the case's values install, when it is not the
		// one given by -karpenter-chart (a dist/ environment on the v1.9 line).
		KarpenterChart string `json:"karpenter_chart,omitempty"`
	} `json:"case"`
}

type answer struct {
	ID     string         `json:"id"`
	Answer map[string]any `json:"answer,omitempty"`
	Error  string         `json:"error,omitempty"`
}

// Operand values keys and their asset DaemonSets (the ClusterPolicy states).
var assets = map[string]string{
	"driver":             "assets/state-driver/0500_daemonset.yaml",
	"toolkit":            "assets/state-container-toolkit/0500_daemonset.yaml",
	"devicePlugin":       "assets/state-device-plugin/0500_daemonset.yaml",
	"dcgm":               "assets/state-dcgm/0400_dcgm.yml",
	"dcgmExporter":       "assets/state-dcgm-exporter/0800_daemonset.yaml",
	"gfd":                "assets/gpu-feature-discovery/0500_daemonset.yaml",
	"migManager":         "assets/state-mig-manager/0600_daemonset.yaml",
	"nodeStatusExporter": "assets/state-node-status-exporter/0700_daemonset.yaml",
	"validator":          "assets/state-operator-validation/0500_daemonset.yaml",
}

// gpuStateLabels[gpuWorkloadConfigContainer] (controllers/state_manager.go).
var containerStateLabels = []string{
	"nvidia.com/gpu.deploy.driver", "nvidia.com/gpu.deploy.gpu-feature-discovery",
	"nvidia.com/gpu.deploy.container-toolkit", "nvidia.com/gpu.deploy.device-plugin", "nvidia.com/gpu.deploy.dcgm",
	"nvidia.com/gpu.deploy.dcgm-exporter", "nvidia.com/gpu.deploy.node-status-exporter",
	"nvidia.com/gpu.deploy.operator-validator", "nvidia.com/gpu.deploy.client",
}

const migManagerLabel = "nvidia.com/gpu.deploy.mig-manager"

// IsEnabled of each spec when enabled is unset (api/nvidia/v1/clusterpolicy_types.go).
var enabledByDefault = map[string]bool{"driver": true, "toolkit": true, "devicePlugin": true, "dcgm": true,
	"dcgmExporter": true, "gfd": true, "migManager": true, "nodeStatusExporter": false, "validator": true}

// refusal: the message of a template's fail or required, "" for any other error.
func refusal(err error) string {
	text := err.Error()
	at := strings.Index(text, "execution error at (")
	if at < 0 {
		return ""
	}
	rest := text[at:]
	if i := strings.Index(rest, "): "); i >= 0 {
		return strings.TrimSpace(rest[i+3:])
	}
	return ""
}

// AddOrUpdateDaemonPodTolerations (kubernetes pkg/controller/daemon/util/daemonset_util.go); a hostNetwork pod also
// tolerates network-unavailable (hostNetworkTolerations).
var hostNetworkToleration = corev1.Toleration{Key: "node.kubernetes.io/network-unavailable",
	Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}

// withDaemonTolerations: a DaemonSet pod's tolerations as the DaemonSet controller completes them.
func withDaemonTolerations(tolerations []corev1.Toleration, hostNetwork bool) []corev1.Toleration {
	out := append(append([]corev1.Toleration{}, tolerations...), daemonTolerations...)
	if hostNetwork {
		out = append(out, hostNetworkToleration)
	}
	return out
}

var daemonTolerations = []corev1.Toleration{
	{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
	{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
	{Key: "node.kubernetes.io/disk-pressure", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	{Key: "node.kubernetes.io/memory-pressure", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	{Key: "node.kubernetes.io/pid-pressure", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	{Key: "node.kubernetes.io/unschedulable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
}

type renderer struct {
	karpenterDir   string
	gpuOperatorDir string
	operands       map[string]corev1.PodSpec
}

// render loads the chart afresh for every case: an install processes its dependencies in the loaded chart
// (a subchart whose condition is false, such as node-feature-discovery with nfd.enabled false, is removed from it).
func render(dir string, values map[string]any, namespace string) ([]map[string]any, error) {
	ch, err := chartloader.Load(dir)
	if err != nil {
		return nil, err
	}
	install := action.NewInstall(action.NewConfiguration())
	install.DryRunStrategy = action.DryRunClient
	install.Replace = true
	install.ReleaseName = "oracle"
	install.Namespace = namespace
	kube, err := common.ParseKubeVersion("v1.34.0")
	if err != nil {
		return nil, err
	}
	install.KubeVersion = kube
	install.APIVersions = common.VersionSet{"policy/v1", "monitoring.coreos.com/v1", "monitoring.coreos.com/v1/ServiceMonitor",
		"nfd.k8s-sigs.io/v1alpha1", "apiextensions.k8s.io/v1", "resource.k8s.io/v1", "resource.k8s.io/v1/DeviceClass"}
	if values == nil {
		values = map[string]any{}
	}
	out, err := install.Run(ch, values)
	if err != nil {
		return nil, err
	}
	rel, ok := out.(*release.Release)
	if !ok {
		return nil, fmt.Errorf("unexpected release type %T", out)
	}
	var docs []map[string]any
	decoder := yaml.NewYAMLOrJSONDecoder(strings.NewReader(rel.Manifest), 4096)
	for {
		var doc map[string]any
		if err := decoder.Decode(&doc); err != nil {
			break
		}
		if doc != nil {
			docs = append(docs, doc)
		}
	}
	return docs, nil
}

func podSpecOf(doc map[string]any) (corev1.PodSpec, error) {
	var spec corev1.PodSpec
	tmpl, _ := doc["spec"].(map[string]any)["template"].(map[string]any)
	raw, err := json.Marshal(tmpl["spec"])
	if err != nil {
		return spec, err
	}
	err = json.Unmarshal(raw, &spec)
	return spec, err
}

// findWorker: the NFD worker DaemonSet (the subchart's worker.yaml labels it role: worker, whatever the names).
func findWorker(docs []map[string]any) map[string]any {
	for _, doc := range docs {
		meta, _ := doc["metadata"].(map[string]any)
		labels, _ := meta["labels"].(map[string]any)
		if doc["kind"] == "DaemonSet" && labels["role"] == "worker" {
			return doc
		}
	}
	return nil
}

// findRole: the NFD object of that role (the subchart labels each role: worker, master, gc, topology-updater).
func findRole(docs []map[string]any, kind, role string) map[string]any {
	for _, doc := range docs {
		meta, _ := doc["metadata"].(map[string]any)
		labels, _ := meta["labels"].(map[string]any)
		if doc["kind"] == kind && labels["role"] == role {
			return doc
		}
	}
	return nil
}

func find(docs []map[string]any, kind, nameSuffix string) map[string]any {
	for _, doc := range docs {
		meta, _ := doc["metadata"].(map[string]any)
		name, _ := meta["name"].(string)
		if doc["kind"] == kind && strings.HasSuffix(name, nameSuffix) {
			return doc
		}
	}
	return nil
}

func fits(spec corev1.PodSpec, tolerations []corev1.Toleration, n node, labels map[string]string) bool {
	pod := &corev1.Pod{Spec: spec}
	pod.Spec.Tolerations = tolerations
	k8sNode := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: labels},
		Spec: corev1.NodeSpec{Taints: n.Taints}}
	// The scheduler's TaintToleration filter: NoSchedule and NoExecute taints; comparison operators (Gt, Lt) are
	// behind the TaintTolerationComparisonOperators gate, off by default, so the cases never use them.
	_, untolerated := corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), k8sNode.Spec.Taints, tolerations,
		func(t *corev1.Taint) bool {
			return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
		}, false)
	if untolerated {
		return false
	}
	matches, err := nodeaffinity.GetRequiredNodeAffinity(pod).Match(k8sNode)
	return err == nil && matches
}

// operatorLabels: the node's labels once NFD ran there and the operator labelled it (addGPUStateLabels).
func operatorLabels(n node) map[string]string {
	labels := map[string]string{}
	for k, v := range n.Labels {
		labels[k] = v
	}
	if n.Accelerator != "nvidia" {
		return labels
	}
	labels["feature.node.kubernetes.io/pci-10de.present"] = "true"
	labels["nvidia.com/gpu.present"] = "true"
	if labels["nvidia.com/gpu.deploy.operands"] == "false" {
		for _, key := range containerStateLabels {
			delete(labels, key)
		}
		delete(labels, migManagerLabel)
		return labels
	}
	for _, key := range containerStateLabels {
		if v, ok := labels[key]; !ok || v == "" {
			labels[key] = "true"
		}
	}
	if _, ok := labels[migManagerLabel]; n.MigCapable && !ok {
		labels[migManagerLabel] = "true"
	}
	return labels
}

func (r *renderer) gpuOperatorAnswer(values map[string]any, nodes []node, out map[string]any) error {
	docs, err := render(r.gpuOperatorDir, values, "gpu-operator")
	if err != nil {
		if message := refusal(err); message != "" {
			out["gpu-operator refused"] = message
			return nil
		}
		return err
	}
	policy := find(docs, "ClusterPolicy", "")
	var spec map[string]any
	if policy != nil {
		spec, _ = policy["spec"].(map[string]any)
	}
	var cpTolerations []corev1.Toleration
	daemonsets, _ := spec["daemonsets"].(map[string]any)
	raw, _ := json.Marshal(daemonsets["tolerations"])
	if err := json.Unmarshal(raw, &cpTolerations); err != nil {
		return fmt.Errorf("daemonsets.tolerations: %w", err)
	}
	worker := findWorker(docs)
	master := findRole(docs, "Deployment", "master")
	var workerSpec corev1.PodSpec
	if worker != nil {
		if workerSpec, err = podSpecOf(worker); err != nil {
			return err
		}
	}
	for _, n := range nodes {
		placed := map[string]bool{}
		nfd := worker != nil && fits(workerSpec, withDaemonTolerations(workerSpec.Tolerations, workerSpec.HostNetwork),
			n, n.Labels)
		placed["nfd-worker"] = nfd
		labels := n.Labels
		if nfd && master != nil {
			labels = operatorLabels(n)
		}
		for operand, pod := range r.operands {
			if policy == nil {
				break
			}
			section, _ := spec[operand].(map[string]any)
			enabled, set := section["enabled"].(bool)
			if !set {
				enabled = enabledByDefault[operand]
			}
			if operand != "validator" && !enabled {
				continue
			}
			// applyHostNetworkConfig (controllers/object_controls.go): spec.<operand>.hostNetwork true sets it
			hostNetwork, _ := section["hostNetwork"].(bool)
			placed[operand] = fits(pod, withDaemonTolerations(cpTolerations, hostNetwork || pod.HostNetwork), n, labels)
		}
		entry, _ := out[n.Name].(map[string]any)
		if entry == nil {
			entry = map[string]any{}
			out[n.Name] = entry
		}
		for k, v := range placed {
			entry[k] = v
		}
	}
	return nil
}

func (r *renderer) karpenterAnswer(values map[string]any, chart string, nodes []node, out map[string]any) error {
	if chart == "" {
		chart = r.karpenterDir
	}
	docs, err := render(chart, values, "kube-system")
	if err != nil {
		if message := refusal(err); message != "" {
			out["karpenter refused"] = message
			return nil
		}
		return err
	}
	deployment := find(docs, "Deployment", "")
	if deployment == nil {
		return fmt.Errorf("no Deployment rendered")
	}
	spec, err := podSpecOf(deployment)
	if err != nil {
		return err
	}
	for _, c := range spec.Containers {
		out["controller_image"] = c.Image
		for _, env := range c.Env {
			if env.Name == "FEATURE_GATES" {
				out["feature_gates"] = env.Value
			}
		}
	}
	for _, n := range nodes {
		if n.Kind == "hybrid" {
			continue
		}
		entry, _ := out[n.Name].(map[string]any)
		if entry == nil {
			entry = map[string]any{}
			out[n.Name] = entry
		}
		entry["karpenter"] = fits(spec, spec.Tolerations, n, n.Labels)
	}
	return nil
}

// neuronAnswer: the Neuron device plugin's pod as the values give it (devicePlugin.nodeSelector, affinity and
// tolerations). Its chart (oci://public.ecr.aws/neuron/neuron-helm-chart 1.1.2) is not reachable offline, so it is
// not rendered: this checks the predicates on the values, not the chart's reading of them.
func neuronAnswer(values map[string]any, nodes []node, out map[string]any) error {
	plugin, _ := values["devicePlugin"].(map[string]any)
	raw, err := json.Marshal(map[string]any{"nodeSelector": plugin["nodeSelector"], "affinity": plugin["affinity"],
		"tolerations": plugin["tolerations"], "containers": []any{}})
	if err != nil {
		return err
	}
	var spec corev1.PodSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return err
	}
	for _, n := range nodes {
		entry, _ := out[n.Name].(map[string]any)
		if entry == nil {
			entry = map[string]any{}
			out[n.Name] = entry
		}
		entry["neuron-device-plugin"] = fits(spec, withDaemonTolerations(spec.Tolerations, false), n, n.Labels)
	}
	return nil
}

func (r *renderer) answer(req request) answer {
	out := map[string]any{}
	if req.Case.NeuronValues != nil {
		if err := neuronAnswer(req.Case.NeuronValues, req.Case.Nodes, out); err != nil {
			return answer{ID: req.ID, Error: "neuron: " + err.Error()}
		}
	}
	if req.Case.GPUOperatorValues != nil {
		if err := r.gpuOperatorAnswer(req.Case.GPUOperatorValues, req.Case.Nodes, out); err != nil {
			return answer{ID: req.ID, Error: "gpu-operator: " + err.Error()}
		}
	}
	if req.Case.KarpenterValues != nil {
		if err := r.karpenterAnswer(req.Case.KarpenterValues, req.Case.KarpenterChart, req.Case.Nodes, out); err != nil {
			return answer{ID: req.ID, Error: "karpenter: " + err.Error()}
		}
	}
	return answer{ID: req.ID, Answer: out}
}

func loadOperands(repo string) (map[string]corev1.PodSpec, error) {
	out := map[string]corev1.PodSpec{}
	keys := make([]string, 0, len(assets))
	for k := range assets {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		text, err := os.ReadFile(filepath.Join(repo, assets[key]))
		if err != nil {
			return nil, err
		}
		for _, part := range strings.Split(string(text), "\n---") {
			var doc map[string]any
			if err := sigsyaml.Unmarshal([]byte(part), &doc); err != nil || doc["kind"] != "DaemonSet" {
				continue
			}
			spec, err := podSpecOf(doc)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", assets[key], err)
			}
			out[key] = spec
		}
		if _, ok := out[key]; !ok {
			return nil, fmt.Errorf("%s: no DaemonSet", assets[key])
		}
	}
	return out, nil
}

func main() {
	karpenterChart := flag.String("karpenter-chart", "", "charts/karpenter of aws/karpenter-provider-aws v1.14.1")
	gpuOperator := flag.String("gpu-operator", "", "a checkout of NVIDIA/gpu-operator v26.7.0")
	flag.Parse()
	r := &renderer{karpenterDir: *karpenterChart, gpuOperatorDir: filepath.Join(*gpuOperator, "deployments", "gpu-operator")}
	var err error
	for _, dir := range []string{r.karpenterDir, r.gpuOperatorDir} {
		if _, err = chartloader.Load(dir); err != nil {
			fmt.Fprintln(os.Stderr, "charts:", dir, err)
			os.Exit(2)
		}
	}
	if r.operands, err = loadOperands(*gpuOperator); err != nil {
		fmt.Fprintln(os.Stderr, "charts: gpu-operator assets:", err)
		os.Exit(2)
	}
	// The cases are answered by one worker per CPU (each render loads its chart afresh and shares nothing but the
	// operand assets, read only); the answers are written in the order of the requests.
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	enc := json.NewEncoder(os.Stdout)
	type job struct {
		line []byte
		done chan answer
	}
	jobs := make(chan job, 64)
	order := make(chan chan answer, 64)
	var workers sync.WaitGroup
	for i := 0; i < runtime.NumCPU(); i++ {
		workers.Add(1)
		go func() {
			defer workers.Done()
			for j := range jobs {
				var req request
				if err := json.Unmarshal(j.line, &req); err != nil {
					j.done <- answer{ID: "?", Error: err.Error()}
					continue
				}
				j.done <- r.answer(req)
			}
		}()
	}
	written := make(chan struct{})
	go func() {
		for done := range order {
			_ = enc.Encode(<-done)
		}
		close(written)
	}()
	for in.Scan() {
		j := job{line: append([]byte(nil), in.Bytes()...), done: make(chan answer, 1)}
		order <- j.done
		jobs <- j
	}
	close(jobs)
	close(order)
	workers.Wait()
	<-written
}
