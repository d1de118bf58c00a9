"""Operands: what the Helm values beside the manifests place on the GPU nodes (KG640-KG646).

The GPU Operator chart renders one node agent, the NFD worker; the operand DaemonSets are created at run time and
select nodes by labels the operator sets only where NFD ran. The Karpenter chart turns ``settings.featureGates`` into
the controller's ``FEATURE_GATES``. Helm ignores a values key the chart does not read. These rules read
``helm/gpu-operator.values.yaml`` and ``helm/karpenter.values.yaml`` with the placement model
(:mod:`karpenter_gpu.analysis.operand_placement`, checked against the rendered charts by the ``placement`` oracle).
"""

from __future__ import annotations

from typing import Iterator

from karpenter_gpu.analysis.operand_placement import (
    DEVICE_PLUGIN, NEURON_DEVICE_PLUGIN, NEURON_VALUES, NFD_WORKER, PlacementNode, Verdict, chart_data,
    chart_refusals, controller_placement, device_plugins, gpu_operator_placement, karpenter_refusals,
    neuron_device_plugins, neuron_not_modelled, neuron_plugin_placement, not_modelled, unknown_keys,
)
from karpenter_gpu.analysis.placement_nodes import hybrid_node, node_classes, pool_node
from karpenter_gpu.apiserver.findings import Severity
from karpenter_gpu.check.rules._model import GPU_OPERATOR_VALUES, RuleEnvironment, RuleObject, as_dict
from karpenter_gpu.check.rules._registry import rule
from karpenter_gpu.k8s.controller_settings import CHART_DEFAULTS
from karpenter_gpu.k8s.labels import AMD_GPU, OVERLAY_KIND, Label
from karpenter_gpu.upstream import KARPENTER_VALUES_FILE

_VALUES_KIND = "HelmValues"
_CHART_OF = {GPU_OPERATOR_VALUES: "gpu-operator", KARPENTER_VALUES_FILE: "karpenter",
             NEURON_VALUES: "neuron-helm-chart"}
#: Values keys another check reads more precisely: the controller's settings (KG740-KG744).
_OWNED_ELSEWHERE = {KARPENTER_VALUES_FILE: ("settings",)}


def _nodes(env: RuleEnvironment) -> list[tuple[RuleObject, PlacementNode]]:
    """(object to report on, synthetic node) for every GPU or Neuron pool and every hybrid group, built once."""
    if "operand_nodes" in env.memo:
        return list(env.memo["operand_nodes"])
    classes = node_classes(env.manifests)
    out: list[tuple[RuleObject, PlacementNode]] = []
    for pool in env.pools:
        if not pool.is_gpu:
            continue
        report = env.report(pool)
        instance = report.candidates[0].instance if report is not None and report.candidates else None
        accelerator = "neuron" if pool.is_neuron else ("amd" if pool.gpu_resource() == AMD_GPU else "nvidia")
        node_class = classes.get(str(pool.view.node_class_ref.get("name")))
        out.append((pool, pool_node(pool.view, node_class, instance, accelerator)))
    maps = {id(o.manifest): o for o in env.of_kind(("v1", "ConfigMap"))}
    for group in env.groups:
        obj = maps.get(id(group.manifest))
        if obj is not None and group.problem is None:
            out.append((obj, hybrid_node(group)))
    env.memo["operand_nodes"] = out
    return list(out)


def _operator_values(env: RuleEnvironment) -> dict | None:
    """The GPU Operator values when the model follows them, else None."""
    values = env.values
    if not values or not_modelled(values):
        return None
    return values


def _nvidia_placements(env: RuleEnvironment) -> Iterator[tuple[RuleObject, PlacementNode, dict[str, Verdict]]]:
    """Each NVIDIA node the operator manages (not Auto Mode's), with where the node agents land on it."""
    for obj, node in _nodes(env):
        if node.accelerator == "nvidia" and node.kind != "auto":
            yield obj, node, _placement(env, node)


def _placement(env: RuleEnvironment, node: PlacementNode) -> dict[str, Verdict]:
    key = f"operand_placement:{node.kind}:{node.name}:{id(node)}"
    if key not in env.memo:
        env.memo[key] = gpu_operator_placement(env.values, node)
    return dict(env.memo[key])


def _where(node: PlacementNode) -> str:
    return {"pool": "NodePool", "auto": "EKS Auto Mode NodePool", "hybrid": "hybrid node group"}[node.kind] + \
        f" {node.name}"


def _fix(operand: str, why: str) -> str:
    field = "node-feature-discovery.worker" if operand == NFD_WORKER else "daemonsets"
    if "toleration" in why:
        return f"add that toleration to {field}.tolerations in the GPU Operator values"
    if "runs no NFD worker" in why:
        return ("turn the NFD worker back on (nfd.enabled, node-feature-discovery.worker.enable), or run NFD of your "
                "own that labels the GPU nodes")
    if "master.enable is false" in why:
        return "turn node-feature-discovery.master.enable back on (the nfd-master sets the labels the worker finds)"
    if operand == NFD_WORKER:
        return ("give the pool's template the label the NFD worker's nodeSelector names, or widen "
                "node-feature-discovery.worker.nodeSelector / affinity")
    return "let the NFD worker run there (its tolerations and selector) and keep the node's deploy labels unset"


def _expected(node: PlacementNode, placement: dict[str, Verdict]) -> list[str]:
    """The operands that must run on ``node``: every enabled one the node does not provide itself, MIG Manager only
    on a MIG-capable GPU, none where ``nvidia.com/gpu.deploy.operands=false``."""
    if node.labels.get("nvidia.com/gpu.deploy.operands") == "false":
        return [NFD_WORKER]
    out = [NFD_WORKER]
    for operand in placement:
        if operand == NFD_WORKER or operand in node.ships or (operand == "migManager" and not node.mig_capable):
            continue
        selector = chart_data()["gpu-operator"]["operands"][operand]["nodeSelector"]
        if any(node.labels.get(k) not in (None, "", v) for k, v in selector.items()):
            continue  # the pool's own label keeps it off, on purpose
        out.append(operand)
    return out


@rule("KG640", Severity.ERROR, "GPU Operator operand (or its NFD worker) that cannot land on a GPU pool")
def kg640_operand_cannot_land(env: RuleEnvironment) -> None:
    """What it checks: for each NVIDIA GPU NodePool and hybrid node group, a synthetic node (template labels, taints
    and startup taints, one admitted instance type's labels) on which the NFD worker and every enabled GPU Operator
    operand must fit, by the scheduler's taint and node-affinity predicates, after the operator's node labelling.
    The operands the node provides itself (an EKS-optimized AMI's driver and toolkit, Bottlerocket's device plugin)
    and those a template label sets to "false" are not expected.

    Why it matters: the operator replaces each operand's tolerations with ``daemonsets.tolerations`` and selects
    nodes by ``nvidia.com/gpu.deploy.<operand>`` labels it sets only where NFD labelled the GPU. A pool taint the
    NFD worker does not tolerate means no operand ever runs there: no device plugin, no nvidia.com/gpu, pods
    Pending on nodes Karpenter keeps launching — silently.

    Fix: tolerate every GPU pool taint in both ``node-feature-discovery.worker.tolerations`` and
    ``daemonsets.tolerations`` (GpuOperatorValues renders both from the pools), and give the pools the label the
    NFD worker selects.

    Upstream: NVIDIA/gpu-operator v26.7.0 ``controllers/state_manager.go`` ``addGPUStateLabels``,
    ``controllers/object_controls.go`` ``applyCommonDaemonsetConfig``, ``assets/state-*/…daemonset.yaml``;
    k8s.io/component-helpers ``scheduling/corev1`` (taints, required node affinity).
    """
    values = _operator_values(env)
    if values is None:
        for path in not_modelled(env.values) if env.values else []:
            _values_object(env, GPU_OPERATOR_VALUES).add(
                "KG640", path, f"not modelled: {path}: where the operands land is not checked for these values "
                "(the placement model follows the container workload stack only); fix: none needed if intended",
                Severity.INFO)
        return
    for obj, node, placement in _nvidia_placements(env):
        expected = _expected(node, placement)
        nfd = placement[NFD_WORKER]
        if not nfd.lands:
            others = [o for o in expected if o != NFD_WORKER]
            obj.add("KG640", _path(node), f"the GPU Operator's NFD worker cannot land on {_where(node)}: {nfd.why}; "
                    "NFD never labels the GPU there, so the operator never sets the nvidia.com/gpu.deploy labels and "
                    f"none of {', '.join(others) or 'its operands'} runs (no device plugin: the GPUs never appear); "
                    f"fix: {_fix(NFD_WORKER, nfd.why or '')}")
            continue
        for operand in expected[1:]:
            verdict = placement[operand]
            if not verdict.lands:
                obj.add("KG640", _path(node), f"the GPU Operator operand {operand} cannot land on {_where(node)}: "
                        f"{verdict.why}; fix: {_fix(operand, verdict.why or '')}")


def _path(node: PlacementNode) -> str:
    return "data.nodeLabels" if node.kind == "hybrid" else "spec.template.spec"


def _values_object(env: RuleEnvironment, name: str) -> RuleObject:
    key = f"values_object:{name}"
    if key not in env.memo:
        obj = RuleObject(f"helm/{name}", {"kind": _VALUES_KIND, "metadata": {"name": _CHART_OF[name]}})
        env.objects.append(obj)
        env.memo[key] = obj
    obj = env.memo[key]
    assert isinstance(obj, RuleObject)
    return obj


@rule("KG641", Severity.WARNING, "Helm values key the pinned chart does not have")
def kg641_unknown_values_key(env: RuleEnvironment) -> None:
    """What it checks: every key of ``helm/gpu-operator.values.yaml`` and ``helm/karpenter.values.yaml`` against the
    key tree of the pinned chart (its ``values.yaml`` and every ``.Values`` path its templates read, generated into
    ``data/charts.json``); below a map the chart leaves open (labels, resources, config data) any key is the user's.
    The Karpenter ``settings`` map is checked by the controller-settings reader (KG740).

    Why it matters: Helm ignores a key no template reads without a word: a typo (``devicePluginn``) or a key of
    another chart version leaves the default in force while the values file says otherwise.

    Fix: spell the key as the chart does (the message names the nearest key), or drop it.

    Upstream: NVIDIA/gpu-operator v26.7.0 ``deployments/gpu-operator/values.yaml`` (the chart has no
    values.schema.json); aws/karpenter-provider-aws v1.14.1 ``charts/karpenter/values.yaml``.
    """
    charts = chart_data()
    for name, chart in _CHART_OF.items():
        values = env.helm_values.get(name)
        if not isinstance(values, dict) or chart not in charts:  # the Neuron chart's key tree is not known offline
            continue
        skipped = _OWNED_ELSEWHERE.get(name, ())
        for path, close in unknown_keys(values, charts[chart]["keys"]):
            if path.split(".", 1)[0] in skipped:
                continue
            hint = f"did you mean {path.rpartition('.')[0] + '.' if '.' in path else ''}{close}? " if close else ""
            _values_object(env, name).add(
                "KG641", path, f"{path} is not a key of the {chart} chart (pinned version): Helm ignores it without a "
                f"word and the chart's default stays in force; fix: {hint}spell it as the chart does or drop it")


@rule("KG642", Severity.ERROR, "object that needs a Karpenter feature gate the values turn off")
def kg642_gate_off(env: RuleEnvironment) -> None:
    """What it checks: with a Karpenter values file read, a NodeOverlay while ``settings.featureGates.nodeOverlay``
    is off, and a NodePool that requires ``karpenter.sh/capacity-type`` reserved while ``reservedCapacity`` is off. A
    static pool with ``staticCapacity`` off is KG419 (it launches nothing).

    Why it matters: the chart turns the gates into one ``FEATURE_GATES`` variable; without the gate the API server
    still accepts the object and the controller ignores it (no overlay applied, no reservation launched).

    Fix: turn the gate on in the Karpenter values (KarpenterControllerValues does it for the constructs that
    record the need), or drop the object.

    Upstream: aws/karpenter-provider-aws v1.14.1 ``charts/karpenter/templates/deployment.yaml`` (FEATURE_GATES);
    sigs.k8s.io/karpenter v1.14.1 ``pkg/operator/options/options.go`` (feature gates).
    """
    settings = env.settings
    if settings is None or settings.source == CHART_DEFAULTS:
        return
    if not settings.node_overlay:
        for overlay in env.of_kind(OVERLAY_KIND):
            overlay.add("KG642", "spec", "this NodeOverlay needs settings.featureGates.nodeOverlay, which the "
                        f"Karpenter values ({settings.source}) turn off: the controller ignores it; fix: turn "
                        "featureGates.nodeOverlay on or drop the overlay")
    if not settings.reserved_capacity:
        for pool in env.pools:
            if any(r.key == Label.CAPACITY_TYPE and r.op == "In" and "reserved" in (r.values or [])
                   for r in pool.reqs):
                pool.add("KG642", pool.REQS, "this pool offers reserved capacity, which needs "
                         f"settings.featureGates.reservedCapacity, off in the Karpenter values ({settings.source}): "
                         "no reservation is launched; fix: turn featureGates.reservedCapacity on")


@rule("KG643", Severity.ERROR, "GPU Operator node agent that lands where the platform provides it")
def kg643_lands_where_provided(env: RuleEnvironment) -> None:
    """What it checks: the NFD worker or a GPU Operator operand that fits an EKS Auto Mode pool's node, and the
    operator's driver or container toolkit that fits a node whose AMI or host already has one (EKS-optimized
    AL2023 and Bottlerocket NVIDIA AMIs, hybrid groups with the driver preinstalled).

    Why it matters: Auto Mode nodes have a read-only root and AWS's own driver and device plugin; a second driver
    fails to load and a second toolkit rewrites the AMI's containerd configuration.

    Fix: keep the NFD worker off Auto Mode (``eks.amazonaws.com/compute-type NotIn [auto]`` in its affinity), and
    set ``driver.enabled`` / ``toolkit.enabled`` false or label such pools ``nvidia.com/gpu.deploy.driver: "false"``.

    Upstream: NVIDIA/gpu-operator v26.7.0 ``controllers/state_manager.go`` ``addGPUStateLabels`` (a preset label
    is honoured); EKS Auto Mode and EKS-optimized accelerated AMI documentation.
    """
    values = _operator_values(env)
    if values is None:
        return
    for obj, node in _nodes(env):
        placement = _placement(env, node)
        if node.kind == "auto":
            landed = [o for o, v in placement.items() if v.lands]
            if landed:
                obj.add("KG643", _path(node), f"{', '.join(landed)} of the GPU Operator land on {_where(node)}, whose "
                        "nodes AWS manages (driver, device plugin, read-only root); fix: keep the NFD worker off "
                        "them with eks.amazonaws.com/compute-type NotIn [auto] in its affinity")
            continue
        for operand in ("driver", "toolkit"):
            if operand in node.ships and placement.get(operand, Verdict(False)).lands:
                obj.add("KG643", _path(node), f"the GPU Operator's {operand} lands on {_where(node)}, whose nodes "
                        f"already have one; fix: set {operand}.enabled false, or label the pool's template "
                        f"nvidia.com/gpu.deploy.{'driver' if operand == 'driver' else 'container-toolkit'}: \"false\"")


@rule("KG644", Severity.ERROR, "accelerator node served by no device plugin, or by two")
def kg644_device_plugins(env: RuleEnvironment) -> None:
    """What it checks: on each NVIDIA GPU pool's and hybrid group's node, the device plugins that serve it: the
    platform's (Bottlerocket's) and the GPU Operator's when its DaemonSet lands; exactly one must. With the Neuron
    chart's values (``helm/neuron-device-plugin.values.yaml``), the same on each Neuron pool's node (EKS Auto Mode's
    own and the chart's DaemonSet), and the chart's DaemonSet on no other node (NVIDIA-only, Auto Mode, hybrid).

    Why it matters: without one the node's GPUs (or Neuron devices) never appear in allocatable and Karpenter never
    marks the node initialized; with two both register the resource with the kubelet and the last one wins at
    random after restarts; a Neuron device plugin on a node without Neuron devices only takes room.

    Fix: ``devicePlugin.enabled`` true when the pools' AMIs do not ship one; on Bottlerocket pools label the
    template ``nvidia.com/gpu.deploy.device-plugin: "false"`` or turn the operator's device plugin off. For Neuron:
    keep the Neuron pools (and only those, off Auto Mode) in ``devicePlugin.affinity`` and tolerate their taints
    (NeuronDevicePluginValues derives both from the pools).

    Upstream: kubelet device manager (one registration per resource name); NVIDIA/gpu-operator v26.7.0
    ``assets/state-device-plugin/0500_daemonset.yaml``; the Neuron chart (oci://public.ecr.aws/neuron/
    neuron-helm-chart 1.1.2, read from its values: the chart is not reachable offline).
    """
    _neuron_device_plugins(env)
    values = _operator_values(env)
    if values is None:
        return
    for obj, node, placement in _nvidia_placements(env):
        plugins = device_plugins(placement, node)
        enabled = DEVICE_PLUGIN in placement
        if len(plugins) > 1 or (not plugins and not enabled):
            off = ("clusterPolicy.deployCR is false: no ClusterPolicy, so the operator deploys no operand"
                   if as_dict(values.get("clusterPolicy")).get("deployCR", True) in (False, None, "", 0) else
                   "devicePlugin.enabled is false")
            what = " and ".join(plugins) if plugins else f"none ({off}, and the AMI ships none)"
            obj.add("KG644", _path(node), f"NVIDIA device plugins on {_where(node)}: {what}; exactly one must serve "
                    "the node; fix: run the GPU Operator's device plugin only where the AMI ships none")


def _neuron_device_plugins(env: RuleEnvironment) -> None:
    """KG644 on the Neuron chart's values: one device plugin per Neuron node, none elsewhere."""
    values = env.helm_values.get(NEURON_VALUES)
    if not isinstance(values, dict):
        return
    missing = neuron_not_modelled(values)
    for path in missing:
        _values_object(env, NEURON_VALUES).add(
            "KG644", path, f"not modelled: {path}: where the Neuron device plugin lands is not checked for these "
            "values (the chart's own defaults and switches at its pinned version are not known offline); fix: none "
            "needed if intended, or set devicePlugin.affinity and tolerations as NeuronDevicePluginValues does",
            Severity.INFO)
    if missing:
        return
    for obj, node in _nodes(env):
        verdict = neuron_plugin_placement(values, node)
        if node.accelerator == "neuron":
            plugins = neuron_device_plugins(verdict, node)
            if len(plugins) != 1:
                what = " and ".join(plugins) if plugins else f"none ({verdict.why})"
                obj.add("KG644", _path(node), f"Neuron device plugins on {_where(node)}: {what}; exactly one must "
                        "serve the node; fix: " + ("keep the Neuron chart's DaemonSet off Auto Mode "
                                                   "(eks.amazonaws.com/compute-type NotIn [auto])" if plugins else
                                                   "put the pool in devicePlugin.affinity and tolerate its taints"))
        elif verdict.lands:
            obj.add("KG644", _path(node), f"the Neuron device plugin ({NEURON_DEVICE_PLUGIN}) lands on {_where(node)}, "
                    "which has no Neuron device; fix: keep devicePlugin.affinity to the Neuron pools (karpenter.sh/"
                    "nodepool In [...]) and tolerate only their taints")


@rule("KG645", Severity.ERROR, "Karpenter controller that may run on a generated GPU pool")
def kg645_controller_on_gpu_pool(env: RuleEnvironment) -> None:
    """What it checks: with a Karpenter values file, whether the controller's pod (the chart's nodeSelector,
    affinity and tolerations merged with the values) fits a GPU NodePool's node.

    Why it matters: a controller on a node it manages can consolidate its own node away, and keeps a GPU node
    running for ever; the chart keeps it off with ``karpenter.sh/nodepool DoesNotExist``, which a values
    ``affinity`` replaces.

    Fix: keep ``karpenter.sh/nodepool DoesNotExist`` in the values' ``affinity`` (or leave ``affinity`` to the
    chart).

    Upstream: aws/karpenter-provider-aws v1.14.1 ``charts/karpenter/values.yaml`` (affinity) and
    ``templates/deployment.yaml``.
    """
    values = as_dict(env.helm_values.get(KARPENTER_VALUES_FILE))
    if KARPENTER_VALUES_FILE not in env.helm_values:
        return
    for obj, node in _nodes(env):
        if node.kind == "hybrid":
            continue
        verdict = controller_placement(values, node)
        if verdict.lands:
            obj.add("KG645", "spec.template.spec", f"the Karpenter controller can land on {_where(node)}: nothing in "
                    "its nodeSelector, affinity or tolerations keeps it off; fix: keep karpenter.sh/nodepool "
                    "DoesNotExist in the values' affinity")



@rule("KG646", Severity.ERROR, "Helm values the pinned chart refuses to install")
def kg646_chart_refuses(env: RuleEnvironment) -> None:
    """What it checks: ``helm/gpu-operator.values.yaml`` against the pinned GPU Operator chart's own checks (the NRI
    plugin without CDI or without the container toolkit, ``devicePlugin.config.create`` without a ``name`` or
    ``data``, a GPUCluster CR beside the ClusterPolicy or without the NVIDIADriver CRD), and
    ``helm/karpenter.values.yaml`` without a ``settings.clusterName`` (the Karpenter chart's ``required``).

    Why it matters: ``helm install`` / ``upgrade`` stops with the chart's message and applies nothing: the release
    stays as it was (or absent), whatever the rest of the values say.

    Fix: what the chart's message asks (the path named is the value to change).

    Upstream: NVIDIA/gpu-operator v26.7.0 ``deployments/gpu-operator/templates/validations.yaml``;
    aws/karpenter-provider-aws v1.14.1 ``charts/karpenter/templates/deployment.yaml``.
    """
    for name, refusals in ((GPU_OPERATOR_VALUES, chart_refusals), (KARPENTER_VALUES_FILE, karpenter_refusals)):
        values = env.helm_values.get(name)
        if not isinstance(values, dict):
            continue
        for path, message in refusals(values)[:1]:  # Helm stops at the first
            _values_object(env, name).add(
                "KG646", path, f"the {_CHART_OF[name]} chart refuses these values: \"{message}\" (helm install fails "
                "and applies nothing); fix: change the value named")


def _cell(verdict: Verdict | None, notes: list[str], where: str, agent: str) -> str:
    if verdict is None:
        return "off"
    if verdict.lands:
        return "runs"
    notes.append(f"{where}, {agent}: {verdict.why}")
    return f"no ({len(notes)})"


def placement_table(env: RuleEnvironment) -> str:
    """The environment's placement as a Markdown table: a row per GPU pool and hybrid group, a column per node agent
    (the NFD worker, each GPU Operator operand, the Neuron device plugin, the Karpenter controller), "runs", "off"
    (disabled in the values) or "no (n)" with note n saying why ("not modelled" where the model does not follow the
    Neuron values). Text from the manifests is escaped for a table cell."""
    operands = [NFD_WORKER, *chart_data()["gpu-operator"]["operands"]]
    header = ["node", *operands, NEURON_DEVICE_PLUGIN, "karpenter"]
    rows: list[list[str]] = []
    notes: list[str] = []
    values = _operator_values(env)
    karpenter = env.helm_values.get(KARPENTER_VALUES_FILE)
    neuron = env.helm_values.get(NEURON_VALUES)
    neuron_modelled = isinstance(neuron, dict) and not neuron_not_modelled(neuron)
    for _, node in sorted(_nodes(env), key=lambda pair: (pair[1].kind, pair[1].name)):
        where = _where(node)
        placement = _placement(env, node) if values is not None else {}
        cells = [_cell(placement.get(o), notes, where, o) if values is not None else "-" for o in operands]
        if not isinstance(neuron, dict):
            cells.append("-")
        else:
            cells.append(_cell(neuron_plugin_placement(neuron, node), notes, where, NEURON_DEVICE_PLUGIN)
                         if neuron_modelled else "not modelled")
        controller = controller_placement(as_dict(karpenter), node) if isinstance(karpenter, dict) and \
            node.kind != "hybrid" else None
        cells.append(_cell(controller, notes, where, "karpenter") if controller is not None else "-")
        rows.append([where, *cells])
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(_escape(c) for c in row) + " |" for row in rows]
    if notes:
        out += ["", *[f"{i}. {_escape(n)}" for i, n in enumerate(notes, 1)]]
    return "\n".join(out) + "\n"


def _escape(text: str) -> str:
    """A Markdown table cell or list item: no pipe, backslash, control character or HTML."""
    cleaned = "".join(c if c.isprintable() else " " for c in str(text))
    for char, escaped in (("\\", "\\\\"), ("|", "\\|"), ("<", "&lt;"), (">", "&gt;"), ("`", "\\`")):
        cleaned = cleaned.replace(char, escaped)
    return cleaned
