"""`karpenter-gpu plan`: workloads scheduled as one batch (the real command, on manifests written here)."""

from __future__ import annotations

import json

import pytest
import yaml

from karpenter_gpu.cli.main import main
from tests.conftest import find_crds_dir

NODE_CLASS = {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "gpu"},
              "spec": {"amiSelectorTerms": [{"alias": "al2023@v20251103"}], "role": "KarpenterNodeRole",
                       "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "c"}}],
                       "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "c"}}]}}
ZONES = ["us-east-1a", "us-east-1b", "us-east-1c"]


def pool(name: str = "gpu", gpus: int = 4, zones: list[str] | None = None, capacity: str = "on-demand") -> dict:
    reqs = [{"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Gt", "values": ["0"]},
            {"key": "karpenter.sh/capacity-type", "operator": "In", "values": [capacity]}]
    if zones:
        reqs.append({"key": "topology.kubernetes.io/zone", "operator": "In", "values": zones})
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name},
            "spec": {"limits": {"nvidia.com/gpu": gpus}, "template": {"spec": {
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
                "requirements": reqs, "taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]}}}}


def deployment(name: str, replicas: int, namespace: str = "ml", **spec) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": namespace},
            "spec": {"replicas": replicas, "template": {"metadata": {"labels": {"app": name}}, "spec": {
                "containers": [{"name": "c", "image": "x", "resources": {"limits": {"nvidia.com/gpu": 1}}}],
                **spec}}}}


@pytest.fixture(autouse=True)
def _crds(monkeypatch):
    monkeypatch.setenv("KARPENTER_GPU_CRDS", str(find_crds_dir()))


@pytest.fixture
def files(tmp_path):
    def write(name: str, *docs: dict) -> str:
        path = tmp_path / name
        path.write_text(yaml.safe_dump_all(docs))
        return str(path)
    return write


@pytest.fixture
def offerings(tmp_path):
    """describe-instance-type-offerings output: every catalog type in the three zones."""
    from karpenter_gpu.analysis.catalog import default_catalog

    types = sorted({t.name for t in default_catalog().types})
    path = tmp_path / "offerings.json"
    path.write_text(json.dumps({"InstanceTypeOfferings": [
        {"InstanceType": t, "LocationType": "availability-zone", "Location": z} for t in types for z in ZONES]}))
    return str(path)


def plan(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["plan", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def plan_json(capsys, *args: str) -> dict:
    code, out, err = plan(capsys, *args, "--format", "json")
    assert code == 0, err
    [env] = json.loads(out)["environments"]
    return env


def test_five_one_gpu_pods_under_a_four_gpu_limit_get_one_four_gpu_node_and_one_pending(capsys, files):
    env = plan_json(capsys, files("pools.yaml", pool(gpus=4), NODE_CLASS),
                    "--workload", files("vllm.yaml", deployment("vllm", 5)))
    [claim] = env["nodeclaims"]
    assert len(claim["pods"]) == 4 and claim["pool"] == "gpu"
    assert claim["instance_type"] == "g4dn.12xlarge" and claim["capacity_type"] == "on-demand"
    assert [p["pod"] for p in env["pending"]] == ["ml/vllm-4"]
    assert env["remaining"] == {"gpu": {"nvidia.com/gpu": "0"}}
    assert env["hourly"]["total"] == claim["hourly"] and env["hourly"]["per_pool"] == {"gpu": claim["hourly"]}
    assert env["hourly"]["per_namespace"] == {"ml": claim["hourly"]}


def test_a_three_replica_zone_spread_gets_three_nodeclaims_in_three_zones(capsys, files, offerings):
    spread = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
               "labelSelector": {"matchLabels": {"app": "web"}}}]
    env = plan_json(capsys, files("pools.yaml", pool(gpus=40, zones=ZONES), NODE_CLASS),
                    "--workload", files("web.yaml", deployment("web", 3, topologySpreadConstraints=spread)),
                    "--aws", offerings)
    assert len(env["nodeclaims"]) == 3 and not env["pending"]
    assert sorted(c["zone"] for c in env["nodeclaims"]) == ZONES
    assert all(len(c["pods"]) == 1 for c in env["nodeclaims"])


def test_without_zone_facts_a_zone_spread_is_not_modelled_and_has_no_figure(capsys, files):
    spread = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
               "labelSelector": {"matchLabels": {"app": "web"}}}]
    args = (files("pools.yaml", pool(gpus=40, zones=ZONES), NODE_CLASS),
            "--workload", files("web.yaml", deployment("web", 3, topologySpreadConstraints=spread)))
    env = plan_json(capsys, *args)
    assert env["not_modelled"] and env["hourly"] is None and not env["nodeclaims"]
    code, out, _ = plan(capsys, *args)
    assert code == 0 and "$/h: not known" in out and "not modelled: pod ml/web-0" in out


def test_table_spot_at_list_price_namespaces_and_notes(capsys, files):
    pools = files("pools.yaml", pool(gpus=8, capacity="spot"), NODE_CLASS)
    work = files("w.yaml", deployment("a", 1, namespace="team-a"), deployment("b", 1, namespace="team-b"),
                 {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc"}, "spec": {}})
    code, out, _ = plan(capsys, pools, "--workload", work)
    assert code == 0
    assert "spot (at on-demand list price)" in out and "(spot NodeClaims at the on-demand list price)" in out
    assert "$/h per namespace: team-a $" in out and "team-b $" in out
    assert "note: [KG760] not read:" in out and "Service/default/svc" in out
    assert "note: Karpenter settings: chart defaults" in out


def test_markdown_escapes_manifest_text_in_table_cells(capsys, files):
    evil = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a|b", "namespace": "x"},
            "spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": 1}}}]}}
    code, out, _ = plan(capsys, files("pools.yaml", pool(gpus=4), NODE_CLASS), "--workload", files("p.yaml", evil),
                        "--format", "markdown")
    assert code == 0
    rows = [line for line in out.splitlines() if line.startswith("| ") and "a" in line and "b" in line]
    assert rows and all("a|b" not in row and "a\\|b" in row for row in rows)


def test_bad_workload_is_one_coded_line_and_exit_2(capsys, files):
    bad = deployment("d", 1)
    bad["spec"]["replicas"] = "3"
    code, out, err = plan(capsys, files("pools.yaml", pool(), NODE_CLASS), "--workload", files("d.yaml", bad))
    assert code == 2 and not out and err.count("\n") == 1 and "[KG751]" in err and "d.yaml" in err


def test_workload_reader_problems_and_a_missing_workload_option_exit_2(capsys, files, tmp_path):
    dup = tmp_path / "dup.yaml"
    dup.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nmetadata: {name: q}\n")
    code, _, err = plan(capsys, files("pools.yaml", pool(), NODE_CLASS), "--workload", str(dup))
    assert code == 2 and "[KG312]" in err
    code, _, err = plan(capsys, files("pools.yaml", pool(), NODE_CLASS))
    assert code == 2 and "[KG911]" in err and "--workload" in err


def test_an_existing_node_takes_pods_first_and_counts_against_the_limit(capsys, files):
    from tests.test_cluster_nodes import READY, claim

    node = claim("n1", pool_name="gpu", itype="g4dn.12xlarge",
                 capacity={"cpu": "48", "memory": "180Gi", "nvidia.com/gpu": "4", "pods": "58"})
    node["metadata"]["labels"].update(READY)
    env = plan_json(capsys, files("pools.yaml", pool(gpus=4), NODE_CLASS),
                    "--workload", files("vllm.yaml", deployment("vllm", 5)), "--nodes", files("claims.yaml", node))
    assert env["nodeclaims"] == [] and [len(e["pods"]) for e in env["existing"]] == [4]
    assert [p["pod"] for p in env["pending"]] == ["ml/vllm-4"] and env["hourly"]["total"] == "0"
    code, out, _ = plan(capsys, files("pools.yaml", pool(gpus=4), NODE_CLASS),
                        "--workload", files("vllm.yaml", deployment("vllm", 5)), "--nodes", files("claims.yaml", node))
    assert code == 0 and "existing node n1 (gpu) takes ml/vllm-0, ml/vllm-1, ml/vllm-2, ml/vllm-3" in out


def test_the_pools_are_simulated_once_for_the_plan_and_its_notes(capsys, files, monkeypatch):
    """plan reads the pools' notes from the batch's own simulation (BatchPlan.pools), not from a second one."""
    from karpenter_gpu.analysis.batch import scheduler

    calls = []

    def counted(*args, **kwargs):
        calls.append(args)
        return simulate(*args, **kwargs)

    simulate = scheduler.simulate_pools
    monkeypatch.setattr(scheduler, "simulate_pools", counted)
    monkeypatch.setattr("karpenter_gpu.analysis.workload_plan.simulate_pools", counted, raising=False)
    env = plan_json(capsys, files("pools.yaml", pool(gpus=4), NODE_CLASS),
                    "--workload", files("vllm.yaml", deployment("vllm", 2)))
    assert len(env["nodeclaims"]) == 1 and env["notes"]
    assert len(calls) == 1


def test_a_zone_exclusive_leader_worker_set_leaves_its_second_group_pending_as_karpenter_may(capsys, files,
                                                                                            offerings):
    """The LeaderWorkerSet webhook's exclusive affinities in one batch: the first group's NodeClaim may still land in
    any zone, so the second group's anti-affinity refuses them all: one answer of Karpenter's Solve (the batch oracle's
    regression vector batch-lws-exclusive-zone; in other queue orders Karpenter places both groups)."""
    lws = {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
           "metadata": {"name": "llm", "namespace": "ml", "annotations": {
               "leaderworkerset.sigs.k8s.io/exclusive-topology": "topology.kubernetes.io/zone"}},
           "spec": {"replicas": 2, "leaderWorkerTemplate": {"size": 2, "workerTemplate": {"spec": {"containers": [
               {"name": "c", "image": "x", "resources": {"limits": {"nvidia.com/gpu": 1}}}]}}}}}
    env = plan_json(capsys, files("pools.yaml", pool(gpus=16), NODE_CLASS), "--workload", files("lws.yaml", lws),
                    "--aws", offerings)
    [claim] = env["nodeclaims"]
    assert sorted(claim["pods"]) == ["ml/llm-0", "ml/llm-0-1"]
    assert [p["pod"] for p in env["pending"]] == ["ml/llm-1", "ml/llm-1-1"] and all(p["reason"] for p in env["pending"])
