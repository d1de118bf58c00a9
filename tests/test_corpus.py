"""The KG4xx rules on the seeds' own YAML (tests/fixtures/seeds/, indentation restored by hand).

Each seed is one environment (one folder): its objects are checked together, so cross-object rules
(weights) see the whole article. Every defect the rules should find is listed below with the reason;
the test asserts the findings are exactly these. Defects the rules do not report (the CRD schema
checker does, or nothing can see them) are listed separately, with who catches them.

Fragments (a bare `requirements:` or `disruption:` block the article offers for GPU pools) are placed
into a clean host NodePool defined here; the host alone has no findings.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from karpenter_gpu.apiserver.findings import Severity
from karpenter_gpu.check.rules import check_rules
from karpenter_gpu.k8s.yaml_loader import Loader

SEEDS = Path(__file__).resolve().parent / "fixtures" / "seeds"
REQS = "spec.template.spec.requirements"
E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO
NP, NC = "NodePool", "EC2NodeClass"

S02, S03, S04 = "000_s02_nodepools.yaml", "000_s03_ec2nodeclasses.yaml", "000_s04_spot_nodepool.yaml"
S07, S08 = "000_s07_tiered_nodepools.yaml", "000_s08_nodepool.yaml"
S06 = "000_s06_inferentia_nodepool.yaml"
P42, P43 = "003_s4_2_nodepools.yaml", "003_s4_3_ec2nodeclass.yaml"

# (file, kind, name, path, code, severity): why it is a defect
EXPECTED: dict[str, dict[tuple, str]] = {
    "000": {
        (S02, NP, "gpu-general", f"{REQS}[2]", "KG414", I): "spot allowed; reclaim notices need settings.interruptionQueue",
        (S02, NP, "gpu-inference", f"{REQS}[1]", "KG414", I): "spot allowed (comment 'Spot 인스턴스 우선')",
        (S02, NP, "gpu-inference", "spec.limits", "KG401", W):
            "instance-gpu-name l4 admits g6f/gr6f (fractional L4, 0 GPUs): the nvidia.com/gpu limit never counts them",
        (S02, NP, "gpu-training", "spec.disruption.budgets[0]", "KG412", W):
            "budgets nodes '0' without schedule + WhenEmpty/30m: consolidation (and drift) never runs",
        (S03, NC, "gpu-optimized", "spec.amiSelectorTerms[0].alias", "KG411", W): "alias al2023@latest",
        (S03, NC, "gpu-training", "spec.amiSelectorTerms[0].alias", "KG411", W): "alias al2023@latest",
        (S04, NP, "gpu-spot-inference", f"{REQS}[0]", "KG414", I): "spot-only pool",
        (S04, NP, "gpu-spot-inference", "spec.limits", "KG401", W):
            "instance-gpu-name l4 admits g6f/gr6f (fractional L4, 0 GPUs): the nvidia.com/gpu limit never counts them",
        (S06, NP, "inferentia", f"{REQS}[0]", "KG455", W):
            "inf2 sizes listed by name: NeuronInferencePool selects instance-accelerator-name In [inferentia2]",
        (S06, NP, "inferentia", "spec.template.spec.expireAfter", "KG405", W):
            "WhenEmpty on on-demand reads as long-running; the construct renders expireAfter explicitly",
        (S07, NP, "gpu-tier1-g5-spot", "spec.disruption", "KG403", W):
            "no disruption block: WhenEmptyOrUnderutilized after 0s on GPU nodes",
        (S07, NP, "gpu-tier1-g5-spot", f"{REQS}[0]", "KG414", I): "spot-only pool",
        (S07, NP, "gpu-tier2-g4dn-spot", "spec.disruption", "KG403", W): "no disruption block",
        (S07, NP, "gpu-tier2-g4dn-spot", f"{REQS}[0]", "KG414", I): "spot-only pool",
        (S07, NP, "gpu-tier3-g5-ondemand", "spec.disruption", "KG403", W): "no disruption block",
        (S08, NP, "gpu-training-protected", "spec.limits", "KG401", W): "no limits at all: unbounded GPU spend",
        (S08, NP, "gpu-training-protected", "spec.weight", "KG404", W):
            "the only unweighted pool beside weights 10..100: weight 0, tried last",
        (S08, NP, "gpu-training-protected", "spec.template.spec.expireAfter", "KG405", W):
            "training pool on the default 720h expiry, which do-not-disrupt does not stop",
    },
    "003": {
        (P42, NP, "gpu-inference", "spec.template.spec.kubelet", "KG415", W):
            "kubelet (maxPods, evictionHard, imageGC) in a v1 NodePool: pruned silently",
        (P42, NP, "gpu-inference", "spec.template.spec.expireAfter", "KG405", W):
            "WhenEmpty on on-demand only reads as a long-running pool; default 720h expiry applies "
            "(heuristic: the pool is named inference)",
        (P42, NP, "gpu-training", "spec.template.spec.kubelet", "KG415", W): "kubelet (maxPods, evictionHard) pruned",
        (P42, NP, "gpu-training", "spec.template.spec.taints", "KG402", W):
            "tainted workload=training only: GPU DaemonSets tolerate nvidia.com/gpu, not this",
        (P42, NP, "gpu-training", "spec.template.spec.expireAfter", "KG405", W): "training pool on the default expiry",
        (P42, NP, "gpu-training", f"{REQS}[1]", "KG414", I): "spot allowed (comment 'Spot Instance 허용')",
        (P42, NP, "gpu-training", REQS, "KG418", W):
            "a100/h100 only: two instance types in the catalog (p4d.24xlarge, p5.48xlarge)",
    },
}

# Defects in the seeds that these rules do not report, and who does: (file, name, code the rules do
# NOT raise there, where it is caught).
NOT_REPORTED = [
    (S02, "gpu-training", "KG405",
     "expireAfter: 720h commented '학습용 노드는 만료 없음' (no expiry): it is 30 days; the value is explicit "
     "and a rule cannot read comments"),
    (S08, "gpu-training-protected", "KG413",
     "'0 23 * * *' maintenance window is 08:00-09:00 KST; 23:00 does not look like a business-hours start"),
    (P42, "gpu-inference", "KG412",
     "budget nodes '100%' with duration but no schedule: CRD CEL ('schedule' must be set with 'duration'), "
     "schema checker KG302 once the blocking schema errors below are fixed (CEL is skipped until then)"),
    (P42, "gpu-training", "KG403",
     "consolidationPolicy WhenUnderutilized (v1beta1 value): CRD enum, schema checker KG300"),
    (P42, "gpu-inference", "KG410", "metadata.namespace on a cluster-scoped NodePool: schema checker KG303"),
    (P42, "gpu-training", "KG410",
     "no nodeClassRef in either 4.2 NodePool (required): schema checker KG300; kubelet is also KG301 there"),
    (P43, "gpu-inference", "KG411",
     "alias 'al2023' has no version: CRD CEL alias format, schema checker KG302 (not an @latest alias)"),
]


def _documents(name: str) -> list:
    return [d for d in yaml.load_all((SEEDS / name).read_text(), Loader=Loader) if d is not None]


def environment(seed: str) -> list[tuple[str, dict]]:
    """Every whole object of one seed, as (file, manifest)."""
    return [(p.name, doc) for p in sorted(SEEDS.glob(f"{seed}_*.yaml")) if "fragment" not in p.name
            for doc in _documents(p.name)]


def _key(f) -> tuple:
    return (f.file, f.kind, f.name, f.path, f.code, f.severity)


def test_fixtures_hold_the_seed_objects():
    names = {seed: sorted((d["kind"], d["metadata"]["name"]) for _, d in environment(seed)) for seed in EXPECTED}
    assert names["000"] == sorted(
        [(NP, n) for n in ("gpu-general", "gpu-inference", "gpu-training", "gpu-spot-inference", "gpu-tier1-g5-spot",
                           "gpu-tier2-g4dn-spot", "gpu-tier3-g5-ondemand", "gpu-training-protected", "inferentia")]
        + [(NC, "gpu-optimized"), (NC, "gpu-training")])
    assert names["003"] == sorted([(NP, "gpu-inference"), (NP, "gpu-training"), (NC, "gpu-inference")])


@pytest.mark.parametrize("seed", sorted(EXPECTED))
def test_seed_defects_are_reported_exactly(seed):
    found = [_key(f) for f in check_rules(environment(seed))]
    assert len(found) == len(set(found))
    missing = set(EXPECTED[seed]) - set(found)
    unexpected = set(found) - set(EXPECTED[seed])
    assert not missing and not unexpected, f"missing {sorted(missing)}\nunexpected {sorted(unexpected)}"


@pytest.mark.parametrize("seed", sorted(EXPECTED))
def test_every_seed_finding_says_how_to_fix_it(seed):
    for finding in check_rules(environment(seed)):
        assert "fix:" in finding.message, finding.line()


def test_seed_000_latest_aliases_are_errors_in_prod():
    findings = check_rules(environment("000"), environment="prod")
    assert {(f.name, f.severity) for f in findings if f.code == "KG411"} == {("gpu-optimized", E), ("gpu-training", E)}


@pytest.mark.parametrize(("file", "name", "code", "why"), NOT_REPORTED, ids=[f"{r[1]}-{r[2]}" for r in NOT_REPORTED])
def test_defects_outside_these_rules_are_not_reported_by_them(file, name, code, why):
    assert [f for f in check_rules(environment(file[:3])) if (f.file, f.name, f.code) == (file, name, code)] == []


# --------------------------------------------------------------------------- fragments

HOST = {
    "apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "host"},
    "spec": {
        "template": {"spec": {
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
            # on-demand: a pool without a capacity-type requirement admits spot (KG414)
            # nvidia only: AMD GPUs (g4ad) are not counted by the nvidia.com/gpu limit (KG401)
            "requirements": [{"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Gt", "values": ["0"]},
                             {"key": "karpenter.k8s.aws/instance-gpu-manufacturer", "operator": "In",
                              "values": ["nvidia"]},
                             {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]}],
            "taints": [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}],
            "expireAfter": "720h",
        }},
        "disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "10m"},
        "limits": {"nvidia.com/gpu": "16"},
    },
}


def _hosted(fragment: dict) -> dict:
    host = copy.deepcopy(HOST)
    if "requirements" in fragment:
        host["spec"]["template"]["spec"]["requirements"] = fragment["requirements"]
    if "disruption" in fragment:  # a budgets-only fragment keeps the host's policy (consolidateAfter is required)
        host["spec"]["disruption"] = {**host["spec"]["disruption"], **fragment["disruption"]}
    return host


def test_host_alone_is_clean():
    assert check_rules([("host.yaml", HOST)]) == []


# (file, document index, {(path, code, severity)}): why
FRAGMENTS = [
    ("000_s07_fragment_disruption.yaml", 0, {("spec.disruption.budgets[1].schedule", "KG413", I)},
     "'0 9 * * MON-FRI' + 10h commented 업무 시간 (business hours) is 18:00-04:00 KST"),
    ("000_s14_fragment_requirements.yaml", 0, {(f"{REQS}[2]", "KG414", I), (REQS, "KG418", W)},
     "the 'too narrow' example: a10g + xlarge admits exactly one instance type (g5.xlarge), spot only"),
    ("000_s14_fragment_requirements.yaml", 1, {(f"{REQS}[1]", "KG406", W), (f"{REQS}[2]", "KG414", I)},
     "instance-gpu-memory Gt 16000: decimal, still admits 16 GiB T4/V100 (16384 MiB)"),
    ("000_s15_fragment_budgets.yaml", 0, set(),
     "the article's fix: KST business hours written as '0 0 * * MON-FRI' UTC"),
]


@pytest.mark.parametrize(("file", "index", "expected", "why"), FRAGMENTS,
                         ids=[f"{f[0][:7]}-{f[1]}" for f in FRAGMENTS])
def test_seed_fragments_in_a_host_pool(file, index, expected, why):
    fragment = _documents(file)[index]
    found = {(f.path, f.code, f.severity) for f in check_rules([(file, _hosted(fragment))])}
    assert found == expected, why


def test_s14_memory_message_names_the_mib_fix():
    fragment = _documents("000_s14_fragment_requirements.yaml")[1]
    (finding,) = [f for f in check_rules([("f.yaml", _hosted(fragment))]) if f.code == "KG406"]
    assert "t4, t4g, v100 (16384)" in finding.message and "Gt 16384" in finding.message
