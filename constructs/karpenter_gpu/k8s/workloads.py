"""The pods of workload manifests, as the API server, EKS's admission and the workload controllers create them.

``plan`` and ``diff --workload`` schedule these pods as one batch. Each workload kind makes the pods its
controller makes while it runs (a plan is a scale-up from nothing):

- ``v1`` Pod: itself (a pod already bound, ``spec.nodeName``, is not pending: KG761 note).
- ``apps/v1`` Deployment, ReplicaSet, StatefulSet: ``spec.replicas`` (default 1) pods of ``spec.template``.
  Deployments' pods carry ``pod-template-hash``, StatefulSets' ``controller-revision-hash``,
  ``statefulset.kubernetes.io/pod-name`` and ``apps.kubernetes.io/pod-index`` (kubernetes
  ``pkg/controller/deployment/sync.go`` ``getNewReplicaSet``, ``pkg/controller/statefulset/stateful_set_utils.go``
  ``newVersionedStatefulSetPod``).
- ``batch/v1`` Job: the pods running at once, ``min(parallelism, completions)`` (both default 1; a work queue
  without completions runs ``parallelism``; a suspended Job none), with ``batch.kubernetes.io/job-name`` and
  ``job-name`` (the Job strategy's ``generateSelector``) and, for ``completionMode: Indexed``, the completion index
  label of pods ``0 .. n-1`` (``pkg/controller/job/indexed_job_utils.go`` ``addCompletionIndexLabel``).
- ``leaderworkerset.x-k8s.io/v1`` LeaderWorkerSet: ``replicas`` groups of ``leaderWorkerTemplate.size`` pods, the
  leader ``<name>-<group>`` from ``leaderTemplate`` (else the worker template) and workers ``<name>-<group>-<j>``,
  labelled as the LeaderWorkerSet controller labels them (``leaderworkerset.sigs.k8s.io/name``, ``group-index``,
  ``worker-index``, ``group-key``); the ``leaderworkerset.sigs.k8s.io/exclusive-topology`` annotation becomes the
  pod affinity and anti-affinity its pod webhook injects (``pkg/webhooks/pod_webhook.go`` ``Default``).
- ``apps/v1`` DaemonSet: no pending pod; handed to the scheduler as per-node overhead (k8s/daemonsets.py).
- any other kind with ``spec.template`` holding a pod spec: ``spec.replicas`` (default 1) pods of it, with a
  KG762 note; a kind without one: a KG760 "not read" note.

Hash- and UID-valued labels (``pod-template-hash``, ``controller-revision-hash``, ``controller-uid``,
``group-key``) get a stable stand-in per workload: the real values are hashes and UIDs, and scheduling only
compares them for equality between pods.

Every pod then passes the API server's defaulting and EKS's admission plugins: a container limit stands in for a
request it does not give (``SetDefaults_Container``), ``ExtendedResourceToleration`` (k8s/admission.py) and
``DefaultTolerationSeconds`` (kubernetes ``plugin/pkg/admission/defaulttolerationseconds/admission.go`` ``Admit``:
``not-ready`` and ``unreachable`` NoExecute tolerations of 300 s unless the pod tolerates them already).
"""

from __future__ import annotations

import copy
import hashlib
from pathlib import Path
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Iterable

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.admission import admitted_tolerations, pod_requests, requested_resources
from karpenter_gpu.k8s.input_layout import Manifest, Problem, read_path

__all__ = ["MAX_PODS", "WorkloadPod", "Workloads", "read_workloads", "workloads_of"]

#: The most pods one plan reads (KG755 beyond): 2^31 replicas are a typo, not a plan.
MAX_PODS = 100_000
INT32_MAX = 2**31 - 1
_APPS = {"Deployment", "ReplicaSet", "StatefulSet"}
_LWS = ("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet")
_LWS_PREFIX = "leaderworkerset.sigs.k8s.io/"
_DEFAULT_TOLERATION_SECONDS = 300


@dataclass(frozen=True)
class WorkloadPod:
    """One pod a workload makes: its name and namespace, the workload (``Kind/namespace/name``) and the pod object
    (``v1`` Pod, after defaulting and admission)."""

    name: str
    namespace: str
    workload: str
    pod: dict = field(repr=False, compare=False)


@dataclass(frozen=True)
class Workloads:
    """What the workload input holds: the pods to plan, the DaemonSets (per-node overhead) and notes (coded lines:
    objects not read, settings not modelled)."""

    pods: tuple[WorkloadPod, ...]
    daemonsets: tuple[dict, ...]
    notes: tuple[str, ...]

    @property
    def pod_objects(self) -> list[dict]:
        return [p.pod for p in self.pods]


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _where(item: Manifest) -> str:
    return f"{item.file}{' ' + item.where if item.where else ''}"


def _identity(doc: Mapping[str, Any]) -> tuple[str, str, str]:
    meta = _map(doc.get("metadata"))
    namespace = meta.get("namespace")
    return (str(doc.get("kind") or "?"), namespace if isinstance(namespace, str) and namespace else "default",
            str(meta.get("name") or "?"))


def _count(spec: Mapping[str, Any], key: str, default: int, where: str) -> int:
    """A workload count as the API server admits it: an int32 >= 0 (YAML 3.0 or a string is refused)."""
    if key not in spec or spec[key] is None:
        return default
    value = spec[key]
    if type(value) is not int or not 0 <= value <= INT32_MAX:
        raise KarpenterGpuError("KG751", prop=f"spec.{key}", value=value, allowed="a whole number from 0 to 2147483647",
                                fix="write the count as an integer without quotes", path=where)
    return value


def _stand_in(*parts: str) -> str:
    """A stable value for a hash- or UID-valued label (see the module doc)."""
    return hashlib.sha256("/".join(parts).encode()).hexdigest()[:10]


def _string_map(value: Any, prop: str, where: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise KarpenterGpuError("KG752", prop=prop, value=value, allowed="a map of strings to strings",
                                fix="quote label and annotation values ('true', '1')", path=where)
    return dict(value)


def _template(template: Any, prop: str, where: str) -> dict:
    """A pod template (``metadata`` and a ``spec`` with a list of containers), checked; a deep copy."""
    if not isinstance(template, Mapping) or not isinstance(template.get("spec"), Mapping):
        raise KarpenterGpuError("KG752", prop=prop, value=template, allowed="a pod template with a spec",
                                fix="give the workload's pod template (metadata and spec)", path=where)
    containers = template["spec"].get("containers")
    if not isinstance(containers, list) or not containers or not all(isinstance(c, Mapping) for c in containers):
        raise KarpenterGpuError("KG752", prop=f"{prop}.spec.containers", value=containers,
                                allowed="a non-empty list of containers", fix="list the pod's containers", path=where)
    return copy.deepcopy(dict(template))


def _defaulted_spec(spec: dict, where: str, prop: str) -> dict:
    """The pod spec after the API server's defaulting (limits copied into missing requests) and EKS's admission
    (``ExtendedResourceToleration``, ``DefaultTolerationSeconds``); quantities checked (KG753)."""
    try:
        pod_requests(spec, prop)
    except KarpenterGpuError as err:
        raise KarpenterGpuError("KG753", prop=err.prop, value=err.value, allowed=err.allowed, fix=err.fix,
                                path=where) from None
    for part in ("containers", "initContainers"):
        containers = spec.get(part)
        for container in containers if isinstance(containers, list) else []:
            resources = container.get("resources") if isinstance(container, dict) else None
            if isinstance(resources, dict) and isinstance(resources.get("limits"), Mapping):
                requests = dict(_map(resources.get("requests")))
                for name, value in resources["limits"].items():
                    requests.setdefault(name, value)
                resources["requests"] = requests
    raw = spec.get("tolerations")
    tolerations = list(admitted_tolerations(raw if isinstance(raw, list) else [], requested_resources(spec)))
    for key in ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"):
        if not any(t.get("key") in (key, "", None) and t.get("effect") in ("NoExecute", "", None) for t in tolerations):
            tolerations.append({"key": key, "operator": "Exists", "effect": "NoExecute",
                                "tolerationSeconds": _DEFAULT_TOLERATION_SECONDS})
    spec["tolerations"] = tolerations
    return spec


def _pod(template: dict, name: str, namespace: str, extra_labels: Mapping[str, str], where: str, prop: str,
         workload: str) -> WorkloadPod:
    meta = _map(template.get("metadata"))
    labels = _string_map(meta.get("labels"), f"{prop}.metadata.labels", where)
    labels.update(extra_labels)
    annotations = _string_map(meta.get("annotations"), f"{prop}.metadata.annotations", where)
    metadata: dict[str, Any] = {"name": name, "namespace": namespace, "uid": f"{namespace}/{name}", "labels": labels}
    if annotations:
        metadata["annotations"] = annotations
    spec = _defaulted_spec(copy.deepcopy(dict(template["spec"])), where, f"{prop}.spec")
    return WorkloadPod(name, namespace, workload,
                       {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec})


def _replicated(doc: Mapping[str, Any], kind: str, namespace: str, name: str, where: str, workload: str
                ) -> list[WorkloadPod]:
    spec = _map(doc.get("spec"))
    template = _template(spec.get("template"), "spec.template", where)
    replicas = _count(spec, "replicas", 1, where)
    _check_bound(replicas, where)
    labels: dict[str, str] = {}
    if kind == "Deployment":
        labels["pod-template-hash"] = _stand_in(namespace, name, "template")
    if kind == "StatefulSet":
        labels["controller-revision-hash"] = f"{name}-{_stand_in(namespace, name, 'revision')}"
    out = []
    for i in range(replicas):
        own = dict(labels)
        if kind == "StatefulSet":
            own.update({"statefulset.kubernetes.io/pod-name": f"{name}-{i}", "apps.kubernetes.io/pod-index": str(i)})
        out.append(_pod(template, f"{name}-{i}", namespace, own, where, "spec.template", workload))
    return out


def _job(doc: Mapping[str, Any], namespace: str, name: str, where: str, workload: str,
         notes: list[str]) -> list[WorkloadPod]:
    spec = _map(doc.get("spec"))
    template = _template(spec.get("template"), "spec.template", where)
    parallelism = _count(spec, "parallelism", 1, where)
    completions = _count(spec, "completions", -1, where)
    running = parallelism if completions < 0 else min(parallelism, completions)
    if spec.get("suspend") is True:
        notes.append(f"[KG761] not planned: {where} {workload}: suspended (spec.suspend), it runs no pod")
        return []
    _check_bound(running, where)
    labels = {"batch.kubernetes.io/controller-uid": _stand_in(namespace, name, "uid"),
              "batch.kubernetes.io/job-name": name, "controller-uid": _stand_in(namespace, name, "uid"),
              "job-name": name}
    indexed = spec.get("completionMode") == "Indexed"
    out = []
    for i in range(running):
        own = dict(labels)
        if indexed:
            own["batch.kubernetes.io/job-completion-index"] = str(i)
        out.append(_pod(template, f"{name}-{i}", namespace, own, where, "spec.template", workload))
    return out


def _exclusive(pod: WorkloadPod, topology: str, key: str) -> None:
    """The LeaderWorkerSet pod webhook's exclusive placement: all of a group on one ``topology`` domain, no other
    group's pod there (``SetExclusiveAffinities``)."""
    affinity = pod.pod["spec"].setdefault("affinity", {})
    group = f"{_LWS_PREFIX}group-key"
    affinity.setdefault("podAffinity", {}).setdefault("requiredDuringSchedulingIgnoredDuringExecution", []).append(
        {"labelSelector": {"matchExpressions": [{"key": group, "operator": "In", "values": [key]}]},
         "topologyKey": topology})
    affinity.setdefault("podAntiAffinity", {}).setdefault("requiredDuringSchedulingIgnoredDuringExecution", []).append(
        {"labelSelector": {"matchExpressions": [{"key": group, "operator": "Exists"},
                                                {"key": group, "operator": "NotIn", "values": [key]}]},
         "topologyKey": topology})


def _leader_worker_set(doc: Mapping[str, Any], namespace: str, name: str, where: str, workload: str
                       ) -> list[WorkloadPod]:
    spec = _map(doc.get("spec"))
    group = spec.get("leaderWorkerTemplate")
    if not isinstance(group, Mapping):
        raise KarpenterGpuError("KG752", prop="spec.leaderWorkerTemplate", value=group,
                                allowed="the group's templates (workerTemplate, optional leaderTemplate, size)",
                                fix="give spec.leaderWorkerTemplate.workerTemplate", path=where)
    worker = _template(group.get("workerTemplate"), "spec.leaderWorkerTemplate.workerTemplate", where)
    leader = (_template(group["leaderTemplate"], "spec.leaderWorkerTemplate.leaderTemplate", where)
              if group.get("leaderTemplate") is not None else worker)
    replicas = _count(spec, "replicas", 1, where)
    size = _count(group, "size", 1, where)
    if size < 1:
        raise KarpenterGpuError("KG751", prop="spec.leaderWorkerTemplate.size", value=size,
                                allowed="a whole number >= 1 (the leader counts)", fix="set size to 1 or more",
                                path=where)
    _check_bound(replicas * size, where)
    annotations = _map(_map(doc.get("metadata")).get("annotations"))
    topology = annotations.get(f"{_LWS_PREFIX}exclusive-topology")
    out = []
    for g in range(replicas):
        key = _stand_in(namespace, name, str(g))
        for j in range(size):
            labels = {f"{_LWS_PREFIX}name": name, f"{_LWS_PREFIX}group-index": str(g),
                      f"{_LWS_PREFIX}worker-index": str(j), f"{_LWS_PREFIX}group-key": key}
            pod = _pod(leader if j == 0 else worker, f"{name}-{g}" if j == 0 else f"{name}-{g}-{j}", namespace,
                       labels, where, "spec.leaderWorkerTemplate." + ("leaderTemplate" if j == 0 and leader is not
                                                                      worker else "workerTemplate"), workload)
            if isinstance(topology, str) and topology:
                _exclusive(pod, topology, key)
            out.append(pod)
    return out


def _check_bound(count: int, where: str) -> None:
    if count > MAX_PODS:
        raise KarpenterGpuError("KG755", prop="pods", value=count, allowed=f"at most {MAX_PODS} pods in one plan",
                                fix="plan a smaller replica count", path=where)


def _one(item: Manifest, notes: list[str]) -> tuple[list[WorkloadPod], dict | None]:
    doc = item.manifest
    api, kind = doc.get("apiVersion"), doc.get("kind")
    kind, namespace, name = _identity(doc)
    where, workload = _where(item), f"{kind}/{namespace}/{name}"
    spec = _map(doc.get("spec"))
    if (api, kind) == ("apps/v1", "DaemonSet"):
        _template(spec.get("template"), "spec.template", where)
        return [], doc
    if (api, kind) == ("v1", "Pod"):
        if spec.get("nodeName"):
            notes.append(f"[KG761] not planned: {where} {workload}: bound to node {spec['nodeName']} (spec.nodeName)")
            return [], None
        template = _template({"metadata": doc.get("metadata"), "spec": spec}, "spec", where)
        return [_pod(template, name, namespace, {}, where, "", workload)], None
    if api == "apps/v1" and kind in _APPS:
        return _replicated(doc, kind, namespace, name, where, workload), None
    if (api, kind) == ("batch/v1", "Job"):
        return _job(doc, namespace, name, where, workload, notes), None
    if (api, kind) == ("batch/v1", "CronJob"):
        notes.append(f"[KG761] not planned: {where} {workload}: a CronJob runs pods only when a run is due; "
                     "plan its Job")
        return [], None
    if (api, kind) == _LWS:
        return _leader_worker_set(doc, namespace, name, where, workload), None
    held = spec.get("template")
    if isinstance(held, Mapping) and isinstance(held.get("spec"), Mapping) and "containers" in held["spec"]:
        notes.append(f"[KG762] not modelled: {where} {workload}: {api} {kind} is read as spec.replicas (default 1) "
                     "pods of spec.template; its controller's own rules are not")
        return _replicated(doc, kind, namespace, name, where, workload), None
    notes.append(f"[KG760] not read: {where} {workload}: no pod template (spec.template)")
    return [], None


def workloads_of(items: Iterable[Manifest]) -> Workloads:
    """The pods, DaemonSets and notes of the manifests (see the module doc); bad input raises KG750-KG755."""
    pods: list[WorkloadPod] = []
    daemonsets: list[dict] = []
    notes: list[str] = []
    seen: dict[tuple[str, str, str], str] = {}
    recognised = 0
    for item in items:
        identity = _identity(item.manifest)
        if identity in seen:
            raise KarpenterGpuError("KG754", prop="metadata.name", value="/".join(identity),
                                    allowed="one workload of each kind, namespace and name",
                                    fix=f"it is also in {seen[identity]}: give one --workload each", path=_where(item))
        seen[identity] = _where(item)
        before = len(notes)
        made, daemon = _one(item, notes)
        recognised += not notes[before:] or not notes[-1].startswith("[KG760]")
        pods.extend(made)
        if daemon is not None:
            daemonsets.append(daemon)
        _check_bound(len(pods), _where(item))
    if not recognised:
        raise KarpenterGpuError("KG750", prop="--workload", value=", ".join("/".join(k) for k in seen) or "nothing",
                                allowed="Pods, Deployments, ReplicaSets, StatefulSets, Jobs, LeaderWorkerSets, "
                                        "DaemonSets or objects with a pod template",
                                fix="point --workload at the workload manifests")
    return Workloads(tuple(pods), tuple(daemonsets), tuple(notes))


def read_workloads(specs: Iterable[str]) -> Workloads | list[Problem]:
    """The workloads of each ``--workload`` file or folder (every sub-folder of it, Lists expanded), read bounded
    by the manifest reader (k8s/input_layout.py); the reader's problems instead when it found any."""
    items: list[Manifest] = []
    for spec in specs:
        source = read_path(spec)
        if source.problems:
            return source.problems
        prefix = spec.rstrip("/") + "/" if Path(spec).is_dir() else ""
        items.extend(Manifest(f"{prefix}{m.file}", m.manifest, m.where)
                     for env in source.environments for m in env.manifests)
    return workloads_of(items)
