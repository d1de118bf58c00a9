"""The cluster's nodes (k8s/cluster_nodes.py) and what they leave of NodePool limits (Karpenter v1.14.1).

Figures from the catalog rows: g5.xlarge 4 vCPU, 16384 MiB (15155 MiB after the VM overhead), 1 GPU, 58 pods,
1.006/h; g5.2xlarge 8 vCPU, 1 GPU, 1.212/h.
"""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
import yaml

from karpenter_gpu.analysis.pod_fit import first_choice, pod_fit
from karpenter_gpu.analysis.pod_shape import PodShape
from karpenter_gpu.analysis.simulator import simulate_pools
from karpenter_gpu.cli.main import main
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.cluster_nodes import cluster_nodes, pool_usage
from karpenter_gpu.render import escape
from tests.conftest import find_crds_dir
from tests.test_simulator import pool, req

XL = req("node.kubernetes.io/instance-type", "In", "g5.xlarge")
XL_2XL = req("node.kubernetes.io/instance-type", "In", "g5.xlarge", "g5.2xlarge")
ON_DEMAND = req("karpenter.sh/capacity-type", "In", "on-demand")
GPU_POD = PodShape.parse("gpus=1,tolerate=nvidia.com/gpu")
G5_XL = {"cpu": "4", "memory": "15155Mi", "nvidia.com/gpu": "1", "pods": "58"}


def claim(name: str, pool_name: str = "gpu", itype: str = "g5.xlarge", provider: str | None = None,
          capacity: dict | None = None, **meta) -> dict:
    status: dict = {"capacity": dict(G5_XL if capacity is None else capacity)}
    if provider != "":
        status["providerID"] = provider or f"aws:///us-east-1a/i-{name}"
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
            "metadata": {"name": name, "labels": {"karpenter.sh/nodepool": pool_name,
                                                  "node.kubernetes.io/instance-type": itype}, **meta},
            "spec": {}, "status": status}


def node(name: str, pool_name: str | None = "gpu", provider: str | None = None, capacity: dict | None = None,
         labels: dict | None = None, **meta) -> dict:
    lab = {"node.kubernetes.io/instance-type": "g5.xlarge", **(labels or {})}
    if pool_name:
        lab["karpenter.sh/nodepool"] = pool_name
    spec = {} if provider == "" else {"providerID": provider or f"aws:///us-east-1a/i-{name}"}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": lab, **meta},
            "spec": spec, "status": {"capacity": dict(G5_XL if capacity is None else capacity)}}


READY = {"karpenter.sh/registered": "true", "karpenter.sh/initialized": "true"}


# --- state.Cluster: one state node per provider ID ---------------------------------------------

def test_a_node_and_its_node_claim_are_one_state_node():
    """Cluster.UpdateNode / UpdateNodeClaim key both by provider ID: counted once."""
    nodes = cluster_nodes([claim("a"), node("ip-1", provider="aws:///us-east-1a/i-a", labels=READY)])
    assert len(nodes) == 1
    assert (nodes[0].node, nodes[0].nodeclaim) == ("ip-1", "a")
    assert pool_usage(nodes)["gpu"]["nvidia.com/gpu"] == 1 and pool_usage(nodes)["gpu"]["nodes"] == 1


def test_an_initialized_node_counts_its_own_capacity_else_the_node_claims():
    """StateNode.Capacity: the Node's status.capacity once initialized; before, the Node's zero or missing
    quantities come from the NodeClaim."""
    real = {"cpu": "4", "memory": "15896Mi", "nvidia.com/gpu": "1", "pods": "58"}
    ready = cluster_nodes([claim("a"), node("n", provider="aws:///us-east-1a/i-a", capacity=real, labels=READY)])
    assert ready[0].capacity["memory"] == 15896 * 2**20
    early = cluster_nodes([claim("a"), node("n", provider="aws:///us-east-1a/i-a",
                                            capacity={"cpu": "4", "memory": "15896Mi", "nvidia.com/gpu": "0"})])
    assert early[0].capacity["nvidia.com/gpu"] == 1 and early[0].capacity["memory"] == 15896 * 2**20
    assert early[0].capacity["pods"] == 58  # missing on the Node: the NodeClaim's


def test_a_node_claim_without_provider_id_has_not_launched_and_counts_nothing():
    """Cluster.UpdateNodeClaim makes a state node only once status.providerID is set."""
    assert cluster_nodes([claim("pending", provider="")]) == []


def test_managed_nodes_without_provider_id_or_instance_type_are_not_yet_in_the_state():
    """Cluster.UpdateNode: a managed Node without providerID is skipped; one without the instance-type label that
    is not initialized waits for it. An unmanaged Node is keyed by its name."""
    assert cluster_nodes([node("n", provider="")]) == []
    bare = node("m")
    del bare["metadata"]["labels"]["node.kubernetes.io/instance-type"]
    assert cluster_nodes([bare]) == []
    [other] = cluster_nodes([node("system", pool_name=None, provider="")])
    assert other.provider_id == "system" and other.nodepool is None
    assert pool_usage([other]) == {}


def test_nodes_being_deleted_do_not_count():
    """StateNode.MarkedForDeletion / Deleted: a NodeClaim with a deletionTimestamp or InstanceTerminating True, a
    Node without NodeClaim with a deletionTimestamp; updateNodePoolResources counts them as nothing."""
    gone = claim("a", deletionTimestamp="2026-01-01T00:00:00Z")
    ending = claim("b")
    ending["status"]["conditions"] = [{"type": "InstanceTerminating", "status": "True"}]
    lone = node("c", deletionTimestamp="2026-01-01T00:00:00Z")
    nodes = cluster_nodes([gone, ending, lone, claim("d")])
    assert [n.marked_for_deletion for n in nodes] == [True, True, True, False]
    assert pool_usage(nodes)["gpu"]["nodes"] == 1


def test_a_deleting_node_with_a_live_node_claim_still_counts():
    """Deleted: a Node's deletionTimestamp marks it only when it has no NodeClaim."""
    nodes = cluster_nodes([claim("a"), node("n", provider="aws:///us-east-1a/i-a", labels=READY,
                                            deletionTimestamp="2026-01-01T00:00:00Z")])
    assert not nodes[0].marked_for_deletion


def test_the_same_object_twice_counts_once():
    assert len(cluster_nodes([claim("a"), claim("a")])) == 1


@pytest.mark.parametrize("objects, code", [
    ([{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}], "KG720"),
    ([claim("a", capacity={"cpu": "four"})], "KG721"),
    ([claim("a", capacity={"cpu": "1e99999"})], "KG721"),
    ([{**claim("a"), "status": "up"}], "KG721"),
    ([claim("a", provider="aws:///x"), claim("b", provider="aws:///x")], "KG722"),
])
def test_objects_that_are_not_readable_nodes_are_coded(objects, code):
    with pytest.raises(KarpenterGpuError) as info:
        cluster_nodes(objects)
    assert info.value.code == code


# --- the scheduler's remaining resources ---------------------------------------------------------

def _report(*nodes: dict, limits: dict, reqs: tuple = (XL, ON_DEMAND)):
    [report] = simulate_pools([pool("gpu", *reqs, limits=limits)], nodes=cluster_nodes(list(nodes)))
    return report


def test_a_gpu_limit_used_by_an_existing_node_excludes_every_type():
    """updateRemainingResources + filterByRemainingResources: 1 GPU left of 1 minus the existing g5.xlarge's."""
    report = _report(claim("a"), limits={"nvidia.com/gpu": "1"})
    assert not report.launchable
    assert "'all available instance types exceed limits for nodepool'" in report.problems[0].text
    assert report.remaining == {"nvidia.com/gpu": Decimal(0)}
    assert _report(limits={"nvidia.com/gpu": "1"}).launchable  # without the node it launches


def test_a_nodes_limit_reached_by_existing_nodes_is_exhausted():
    """Scheduler.addToNewNodeClaim: 'node limits have been exhausted for nodepool' when nothing is left."""
    report = _report(claim("a"), limits={"nodes": "1"})
    assert "'node limits have been exhausted for nodepool'" in report.problems[0].text
    assert report.worst_case_hourly == 0
    [fit] = pod_fit(GPU_POD, [pool("gpu", XL, ON_DEMAND, limits={"nodes": "1"})], nodes=cluster_nodes([claim("a")]))
    assert fit.instance is None and "exhausted" in (fit.reason or "")


def test_a_nodes_limit_below_what_exists_excludes_every_type():
    """filterByRemainingResources: a type's capacity has no nodes (0), which exceeds a negative remainder."""
    report = _report(claim("a"), claim("b"), limits={"nodes": "1"})
    assert "'all available instance types exceed limits for nodepool'" in report.problems[0].text


def test_a_nodes_remainder_below_one_still_launches_one_node():
    """filterByRemainingResources compares the type's capacity (no nodes: 0) with what is left, so half a node
    left is not exhausted: one more node launches, then nothing is left."""
    report = _report(claim("a"), limits={"nodes": "1500m"})
    assert report.launchable and report.worst_case_nodes == (("g5.xlarge", 1),)


def test_the_ceiling_is_what_can_still_launch():
    """dearest_fill on the remaining limits: 4 GPUs, 2 used by existing g5.xlarge nodes, leave 2 x g5.2xlarge."""
    reqs = (XL_2XL, ON_DEMAND)
    assert _report(limits={"nvidia.com/gpu": "4"}, reqs=reqs).worst_case_hourly == Decimal("4.848")
    report = _report(claim("a"), claim("b"), limits={"nvidia.com/gpu": "4"}, reqs=reqs)
    assert report.worst_case_hourly == Decimal("2.424") and report.worst_case_nodes == (("g5.2xlarge", 2),)
    assert report.existing_nodes == ("a", "b")
    assert any("2 existing node(s) count against the limits (2 x g5.xlarge)" in n.text for n in report.notes)


def test_a_resource_missing_from_the_capacity_counts_nothing():
    """resources.Subtract keeps only the limited resources; a capacity without one subtracts 0 from it."""
    report = _report(claim("a", capacity={"cpu": "4"}), limits={"nvidia.com/gpu": "1", "cpu": "8"})
    assert report.launchable and report.remaining == {"nvidia.com/gpu": Decimal(1), "cpu": Decimal(4)}


def test_nodes_of_other_pools_and_deleted_nodes_leave_the_limits_alone():
    report = _report(claim("a", pool_name="other"), claim("b", deletionTimestamp="2026-01-01T00:00:00Z"),
                     limits={"nvidia.com/gpu": "1"})
    assert report.launchable and report.used == {}


def test_the_pod_goes_to_the_next_pool_when_the_first_has_no_room_left():
    manifests = [pool("gpu", XL, ON_DEMAND, weight=10, limits={"nvidia.com/gpu": "1"}),
                 pool("spill", XL, ON_DEMAND)]
    assert first_choice(pod_fit(GPU_POD, manifests)).pool == "gpu"
    assert first_choice(pod_fit(GPU_POD, manifests, nodes=cluster_nodes([claim("a")]))).pool == "spill"


# --- explain --nodes -------------------------------------------------------------------------------

@pytest.fixture
def cluster(tmp_path, monkeypatch):
    monkeypatch.setenv("KARPENTER_GPU_CRDS", str(find_crds_dir()))
    (tmp_path / "pool.yaml").write_text(yaml.safe_dump(pool("gpu", XL_2XL, ON_DEMAND,
                                                            limits={"nvidia.com/gpu": "4", "nodes": "3"})))
    (tmp_path / "nodeclaims.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List",
                                                              "items": [claim("a"), claim("b")]}))
    return tmp_path


def test_explain_nodes_json_says_what_is_used_and_left(cluster, capsys):
    assert main(["explain", str(cluster / "pool.yaml"), "--nodes", str(cluster / "nodeclaims.yaml"),
                 "--format", "json"]) == 0
    [env] = json.loads(capsys.readouterr().out)["environments"]
    [p] = env["pools"]
    assert p["existing_nodes"] == ["a", "b"] and p["used"]["nvidia.com/gpu"] == "2"
    assert p["remaining"] == {"nodes": "1", "nvidia.com/gpu": "2"}
    assert Decimal(p["worst_case_hourly"]) == Decimal("1.212")  # one more node: 1 x g5.2xlarge
    assert env["nodes"] == {"read": 2, "counted": 2, "marked_for_deletion": 0, "without_nodepool": 0,
                            "other_nodepools": []}


def test_explain_nodes_table_has_the_nodes_and_what_is_left(cluster, capsys):
    assert main(["explain", str(cluster / "pool.yaml"), "--nodes", str(cluster / "nodeclaims.yaml")]) == 0
    out = capsys.readouterr().out
    header, row = out.splitlines()[1:3]
    assert "nodes" in header and "left of limits" in header
    assert row.split()[8:11] == ["2", "nodes", "1,"] and "nvidia.com/gpu 2" in row
    assert main(["explain", str(cluster / "pool.yaml")]) == 0
    assert "left of limits" not in capsys.readouterr().out  # without --nodes, the table is as before


def test_explain_nodes_text_is_escaped(cluster, capsys):
    hostile = "x\x1b[31m<b>@octocat</b>\u202e"
    (cluster / "nodeclaims.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List",
                                                              "items": [claim("a", pool_name=hostile)]}))
    assert main(["explain", str(cluster / "pool.yaml"), "--nodes", str(cluster / "nodeclaims.yaml"),
                 "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\u202e" not in out and "<b>" not in out
    assert escape.markdown(hostile) in out


@pytest.mark.parametrize("content, code", [
    ({"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}]},
     "KG720"),
    (claim("a", capacity={"nvidia.com/gpu": "lots"}), "KG721"),
    ({"apiVersion": "v1", "kind": "List", "items": [claim("a", provider="aws:///x"), claim("b", provider="aws:///x")]},
     "KG722"),
    ("kind: [", "KG903"),
])
def test_explain_bad_nodes_file_is_one_coded_line(cluster, capsys, content, code):
    bad = cluster / "bad.yaml"
    bad.write_text(content if isinstance(content, str) else yaml.safe_dump(content))
    assert main(["explain", str(cluster / "pool.yaml"), "--nodes", str(bad)]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert f"[{code}]" in line


def test_explain_nodes_with_several_environments_is_kg723(cluster, capsys):
    for env in ("a", "b"):
        (cluster / "dist" / env).mkdir(parents=True)
        (cluster / "dist" / env / "pool.yaml").write_text((cluster / "pool.yaml").read_text())
    assert main(["explain", str(cluster / "dist"), "--nodes", str(cluster / "nodeclaims.yaml")]) == 2
    assert "[KG723]" in capsys.readouterr().err
    assert main(["explain", str(cluster / "dist"), "--env", "a", "--nodes", str(cluster / "nodeclaims.yaml")]) == 0


def test_explain_nodes_empty_list_is_no_nodes(cluster, capsys):
    (cluster / "none.yaml").write_text("apiVersion: v1\nkind: List\nitems: []\n")
    assert main(["explain", str(cluster / "pool.yaml"), "--nodes", str(cluster / "none.yaml"), "--format", "json"]) == 0
    [env] = json.loads(capsys.readouterr().out)["environments"]
    assert env["nodes"]["read"] == 0 and env["pools"][0]["remaining"] == {"nodes": "3", "nvidia.com/gpu": "4"}
