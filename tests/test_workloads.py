"""k8s/workloads.py: the pods of workload manifests, after defaulting and EKS admission."""

from __future__ import annotations

import pytest
import yaml

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.input_layout import Manifest
from karpenter_gpu.k8s.workloads import read_workloads, workloads_of

GPU_CONTAINER = {"name": "c", "image": "x", "resources": {"limits": {"nvidia.com/gpu": 1}, "requests": {"cpu": "2"}}}


def _template(labels=None, **spec):
    return {"metadata": {"labels": labels or {"app": "a"}}, "spec": {"containers": [GPU_CONTAINER], **spec}}


def _of(*docs):
    return workloads_of([Manifest("w.yaml", d) for d in docs])


def test_deployment_replicas_names_namespace_and_admission():
    got = _of({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "vllm", "namespace": "ml"},
               "spec": {"replicas": 3, "template": _template({"app": "vllm"})}})
    assert [p.name for p in got.pods] == ["vllm-0", "vllm-1", "vllm-2"]
    pod = got.pods[0].pod
    assert pod["metadata"]["namespace"] == "ml" and pod["metadata"]["labels"]["app"] == "vllm"
    assert got.pods[0].workload == "Deployment/ml/vllm"
    # one hash per Deployment: every replica carries the same
    assert len({p.pod["metadata"]["labels"]["pod-template-hash"] for p in got.pods}) == 1
    tolerations = pod["spec"]["tolerations"]
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in tolerations  # ExtendedResourceToleration
    assert {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
            "tolerationSeconds": 300} in tolerations  # DefaultTolerationSeconds
    # the limit defaults the missing request
    assert pod["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "2", "nvidia.com/gpu": 1}


def test_default_namespace_and_replicas():
    got = _of({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "r"},
               "spec": {"template": _template()}})
    assert [(p.name, p.namespace) for p in got.pods] == [("r-0", "default")]


def test_default_toleration_seconds_kept_when_pod_tolerates_everything():
    got = _of({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
               "spec": {"containers": [{"name": "c"}], "tolerations": [{"operator": "Exists"}]}})
    assert got.pods[0].pod["spec"]["tolerations"] == [{"operator": "Exists"}]
    assert got.pods[0].name == "p"


def test_statefulset_labels():
    got = _of({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"},
               "spec": {"replicas": 2, "template": _template()}})
    labels = got.pods[1].pod["metadata"]["labels"]
    assert labels["statefulset.kubernetes.io/pod-name"] == "db-1" and labels["apps.kubernetes.io/pod-index"] == "1"


@pytest.mark.parametrize(("spec", "count"), [
    ({}, 1), ({"parallelism": 4}, 4), ({"parallelism": 4, "completions": 2}, 2), ({"parallelism": 0}, 0),
    ({"parallelism": 3, "suspend": True}, 0),
])
def test_job_runs_min_of_parallelism_and_completions(spec, count):
    got = _of({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "train"},
               "spec": {**spec, "template": _template(restartPolicy="Never")}})
    assert len(got.pods) == count
    if count:
        assert got.pods[0].pod["metadata"]["labels"]["batch.kubernetes.io/job-name"] == "train"


def test_indexed_job_labels_the_completion_index():
    got = _of({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "t"},
               "spec": {"parallelism": 2, "completions": 8, "completionMode": "Indexed", "template": _template()}})
    assert [p.pod["metadata"]["labels"]["batch.kubernetes.io/job-completion-index"] for p in got.pods] == ["0", "1"]


def test_leader_worker_set_groups_and_exclusive_topology():
    got = _of({"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
               "metadata": {"name": "llm", "annotations": {
                   "leaderworkerset.sigs.k8s.io/exclusive-topology": "topology.kubernetes.io/zone"}},
               "spec": {"replicas": 2, "leaderWorkerTemplate": {
                   "size": 3, "leaderTemplate": _template({"role": "leader"}),
                   "workerTemplate": _template({"role": "worker"})}}})
    assert [p.name for p in got.pods] == ["llm-0", "llm-0-1", "llm-0-2", "llm-1", "llm-1-1", "llm-1-2"]
    roles = [p.pod["metadata"]["labels"]["role"] for p in got.pods]
    assert roles == ["leader", "worker", "worker"] * 2
    keys = [p.pod["metadata"]["labels"]["leaderworkerset.sigs.k8s.io/group-key"] for p in got.pods]
    assert keys[0] == keys[2] != keys[3]
    affinity = got.pods[4].pod["spec"]["affinity"]
    term = affinity["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
    assert term["topologyKey"] == "topology.kubernetes.io/zone"
    assert term["labelSelector"]["matchExpressions"][0]["values"] == [keys[3]]
    assert affinity["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]["topologyKey"] == \
        "topology.kubernetes.io/zone"


def test_daemonset_is_overhead_not_a_pending_pod():
    got = _of({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "d"},
               "spec": {"template": _template()}})
    assert got.pods == () and len(got.daemonsets) == 1


def test_other_kinds_notes():
    got = _of({"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout", "metadata": {"name": "r"},
               "spec": {"replicas": 2, "template": _template()}},
              {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {}},
              {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "c"}, "spec": {}},
              {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bound"},
               "spec": {"nodeName": "n1", "containers": [{"name": "c"}]}})
    assert len(got.pods) == 2
    codes = [n.split("]")[0] + "]" for n in got.notes]
    assert codes == ["[KG762]", "[KG760]", "[KG761]", "[KG761]"]
    assert "Service/default/s" in got.notes[1]


@pytest.mark.parametrize(("doc", "code"), [
    ({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
      "spec": {"replicas": "3", "template": _template()}}, "KG751"),
    ({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
      "spec": {"replicas": -1, "template": _template()}}, "KG751"),
    ({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {}}, "KG752"),
    ({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
      "spec": {"template": {"spec": {"containers": []}}}}, "KG752"),
    ({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
      "spec": {"template": {"metadata": {"labels": {"a": 1}}, "spec": {"containers": [{"name": "c"}]}}}}, "KG752"),
    ({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
      "spec": {"template": {"spec": {"containers": [{"resources": {"requests": {"cpu": "lots"}}}]}}}}, "KG753"),
    ({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
      "spec": {"replicas": 2**31 - 1, "template": _template()}}, "KG755"),
    ({"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet", "metadata": {"name": "l"},
      "spec": {"leaderWorkerTemplate": {"size": 0, "workerTemplate": _template()}}}, "KG751"),
    ({"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet", "metadata": {"name": "l"},
      "spec": {}}, "KG752"),
    ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}, "KG750"),
])
def test_fails_on_bad_workloads(doc, code):
    with pytest.raises(KarpenterGpuError) as err:
        _of(doc)
    assert err.value.code == code
    assert "w.yaml" in str(err.value) or code == "KG750"


def test_fails_when_one_workload_is_given_twice():
    doc = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]}}
    with pytest.raises(KarpenterGpuError) as err:
        _of(doc, doc)
    assert err.value.code == "KG754"


def test_reads_files_and_folders(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "d.yaml").write_text(yaml.safe_dump_all([
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
         "spec": {"replicas": 2, "template": _template()}},
        {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}}]))
    job = tmp_path / "job.yaml"
    job.write_text(yaml.safe_dump({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
                                   "spec": {"template": _template()}}))
    got = read_workloads([str(tmp_path / "a"), str(job)])
    assert not isinstance(got, list)
    assert [p.name for p in got.pods] == ["d-0", "d-1", "j-0"]
    assert got.notes and str(tmp_path / "a") in got.notes[0]


def test_reader_problems_are_returned(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nmetadata: {name: q}\n")
    got = read_workloads([str(bad)])
    assert isinstance(got, list) and got[0].code == "KG312"
    bad.write_text("a: [")
    with pytest.raises(KarpenterGpuError) as err:
        read_workloads([str(bad)])
    assert err.value.code == "KG903"
