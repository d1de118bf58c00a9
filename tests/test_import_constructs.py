"""``karpenter-gpu import`` fits every construct: each object of dist/ comes back as the call of the construct that
wrote it (a MIG pool with its overlays, a static pool with its zones, a spot ladder, a time-slicing overlay per GPU
count as one call), checked by synthesizing the call; what a construct cannot write stays as given, named."""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
KARPENTER_KINDS = ("EC2NodeClass", "NodeClass", "NodePool", "NodeOverlay")


def _dist_objects(environment: str) -> list[dict]:
    import yaml

    return [yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted((ROOT / "dist" / environment).glob("*.yaml"))]


def _adopt(objects: list[dict]):
    from karpenter_gpu.importer.adopt import adopt
    from karpenter_gpu.importer.fit import Checker

    return adopt(objects, [f"Object{i}" for i in range(len(objects))], Checker())


def _construct_of(adopted, index: int) -> str | None:
    """The construct whose call writes object ``index`` (its own call, or the call that covers it)."""
    call = adopted.calls.get(index) or adopted.calls.get(adopted.covered.get(index, -1))
    return call.construct if call is not None else None


def _writers(environment: str) -> dict[tuple[str, str], str]:
    """(kind, name) → the outermost construct of the import's vocabulary above each object the environment's
    PlatformConfig synthesizes: the construct that wrote it."""
    import cdk8s
    from constructs import Construct

    from karpenter_gpu import GpuPlatform
    from karpenter_gpu.importer.fit import CALLABLE

    sys.path.insert(0, str(ROOT))
    try:
        import stacks
    finally:
        sys.path.remove(str(ROOT))
    platform = GpuPlatform(cdk8s.Testing.app(), props=getattr(stacks, environment).CONFIG)
    constructs = tuple(c for c in CALLABLE.values() if isinstance(c, type) and issubclass(c, Construct))
    out = {}
    for found in platform.node.find_all():
        if isinstance(found, cdk8s.ApiObject) and found.kind in KARPENTER_KINDS:
            above = [s for s in found.node.scopes if isinstance(s, constructs)]
            out[(found.kind, found.name)] = type(above[0]).__name__
    return out


def test_every_karpenter_object_of_dist_comes_back_as_the_construct_that_wrote_it():
    # 34 of 34 (was 21): the Neuron, reserved, static and MIG pools, the spot ladder, the MIG and time-slicing
    # overlays too; the construct named is the one the environment's PlatformConfig used
    total = 0
    for environment in ("dev", "fleet", "prod", "staging"):
        objects = _dist_objects(environment)
        adopted = _adopt(objects)
        writers = _writers(environment)
        got = {(o["kind"], o["metadata"]["name"]): _construct_of(adopted, i) for i, o in enumerate(objects)
               if o["kind"] in KARPENTER_KINDS}
        assert got == writers, environment
        total += len(got)
    assert total == 34


def test_the_new_fits_read_as_the_stacks_wrote_them(tmp_path):
    import shutil

    from karpenter_gpu.cli.main import main

    source = tmp_path / "dist"
    shutil.copytree(ROOT / "dist", source)
    for values in source.glob("*/helm/karpenter.values.yaml"):  # a setting no prop writes: no PlatformConfig
        values.write_text(values.read_text(encoding="utf-8") + "logLevel: debug\n", encoding="utf-8")
    app = tmp_path / "app.py"
    assert main(["import", str(source), "--out", str(app)]) == 0
    code = app.read_text(encoding="utf-8")
    assert ("    StaticCapacityPool(\n        chart, 'NodePool-gpu-warm-static-ap-northeast-2a', "
            "node_class=node_class_gpu_inference,\n        name='gpu-warm',\n"
            "        zones=('ap-northeast-2a', 'ap-northeast-2c'),\n") in code
    assert ("    # NodePool gpu-warm-static-ap-northeast-2c: written by the StaticCapacityPool call of this environment "
            "(checked at import)\n") in code
    assert ("    acknowledge(pool_gpu_training_reserved, 'KG418', 'the ODCRs are H100 (p5) only, with on-demand H100 "
            "as the fallback')\n") in code
    assert "        fallback=Fallback.ON_DEMAND,\n        reservation_type=ReservationType.ODCR,\n" in code
    assert "        mig_config='all-1g.10gb',\n" in code and "overlay_weight" not in code
    assert ("        name='gpu-time-slicing',\n        replicas=4,\n        node_pools=('gpu-inference',),\n"
            "        weight=100,\n    )\n") in code
    assert "        name='gpu-batch',\n        tiers=(\n            SpotTier(suffix='a10g-spot'" in code
    assert "    NeuronInferencePool(\n" in code and "neuron_limit=16," in code


def _objects(environment: str, *names: str) -> list[dict]:
    return [o for o in _dist_objects(environment)
            if o["kind"] in ("EC2NodeClass", "NodeClass")
            or (o["kind"] in ("NodePool", "NodeOverlay") and o["metadata"]["name"].startswith(names))]


def test_a_mig_pool_missing_an_overlay_stays_as_given_and_its_overlays_are_their_own_calls():
    objects = [o for o in _objects("fleet", "gpu-mig") if o["metadata"]["name"] != "gpu-mig-p5-4xlarge"]
    adopted = _adopt(objects)
    pool = next(i for i, o in enumerate(objects) if o["metadata"]["name"] == "gpu-mig")
    assert pool not in adopted.calls and "NodeOverlay that is not in the input" in adopted.unfit[pool].reason()
    overlays = [i for i, o in enumerate(objects) if o["kind"] == "NodeOverlay"]
    assert len(overlays) == 3 and {adopted.calls[i].construct for i in overlays} == {"MigCapacityOverlay"}


def test_static_pools_that_differ_beyond_their_zone_are_one_call_each():
    objects = _objects("prod", "gpu-warm")
    second = next(o for o in objects if o["metadata"]["name"] == "gpu-warm-static-ap-northeast-2c")
    second["spec"]["replicas"] = 2
    second["spec"]["limits"]["nodes"] = "3"
    adopted = _adopt(objects)
    pools = [i for i, o in enumerate(objects) if o["kind"] == "NodePool"]
    assert [adopted.calls[i].construct for i in pools] == ["StaticCapacityPool"] * 2 and not adopted.covered
    assert "replicas=2" in adopted.calls[pools[1]].text
    second["spec"]["replicas"] = 1
    second["spec"]["limits"]["nodes"] = "2"
    second["spec"]["disruption"]["consolidationPolicy"] = "WhenEmpty"  # read by no prop: one call for both fails
    adopted = _adopt(objects)
    assert adopted.calls[pools[0]].construct == "StaticCapacityPool" and "zones=('ap-northeast-2a',)" in \
        adopted.calls[pools[0]].text and pools[0] not in adopted.unfit
    assert adopted.unfit[pools[1]].field == "spec.disruption.consolidationPolicy" and not adopted.covered
    second["metadata"]["name"] = "gpu-warm-2c"  # not a name the construct writes: said so
    unfit = _adopt(objects).unfit[pools[1]]
    assert unfit.field == "metadata.name" and "<name>-static" in unfit.detail


def test_time_slicing_overlays_with_a_gap_in_their_weights_are_two_calls():
    objects = _objects("dev", "gpu-time-slicing", "gpu-inference")
    eight = next(o for o in objects if o["metadata"]["name"] == "gpu-time-slicing-8gpu")
    eight["spec"]["weight"] = 150
    adopted = _adopt(objects)
    overlays = [i for i, o in enumerate(objects) if o["kind"] == "NodeOverlay"]
    assert all(_construct_of(adopted, i) == "TimeSlicingOverlay" for i in overlays)
    calls = [adopted.calls[i] for i in overlays if i in adopted.calls]
    assert len(calls) == 2 and "gpu_counts=(8,)" in calls[1].text and "weight=150" in calls[1].text
    eight["spec"]["capacity"]["nvidia.com/gpu"] = "33"  # not 8 x replicas: no construct writes it
    adopted = _adopt(objects)
    assert _construct_of(adopted, overlays[-1]) is None and overlays[-1] in adopted.unfit


def test_a_ladder_with_equal_weights_stays_one_inference_pool_call_each():
    objects = _objects("staging", "gpu-batch")
    for o in objects:
        if o["kind"] == "NodePool":
            o["spec"]["weight"] = 50
    adopted = _adopt(objects)
    pools = [i for i, o in enumerate(objects) if o["kind"] == "NodePool"]
    assert [adopted.calls[i].construct for i in pools] == ["GpuInferencePool"] * 3 and not adopted.covered


@pytest.mark.parametrize(("annotation", "fits"), [
    ("KG418: one reason", True),
    ("KG418: one; KG404: two", False),  # not sorted as acknowledge writes them
    ("KG404: two; KG418: one", True),
    ("free text", False),
])
def test_a_pools_acknowledgements_become_acknowledge_calls_when_acknowledge_writes_them(annotation, fits):
    objects = _objects("prod", "gpu-training-reserved")
    pool = next(i for i, o in enumerate(objects) if o["kind"] == "NodePool")
    objects[pool]["metadata"]["annotations"]["karpenter-gpu.io/acknowledge"] = annotation
    adopted = _adopt(objects)
    assert (pool in adopted.calls) == fits
    if fits:
        assert adopted.calls[pool].construct == "ReservedCapacityPool"
        assert adopted.calls[pool].after[0].startswith("acknowledge(pool_gpu_training_reserved, 'KG")
    else:
        assert adopted.unfit[pool].field == "metadata.annotations"


def test_a_neuron_training_pool_and_a_reserved_pool_without_fallback_fit_their_constructs():
    objects = _objects("staging", "neuron-inference")
    pool = next(o for o in objects if o["kind"] == "NodePool")
    training = copy.deepcopy(pool)
    training["metadata"] = {"name": "neuron-training"}
    training["spec"]["template"]["metadata"]["labels"] = {"node-type": "neuron-training", "workload": "training"}
    adopted = _adopt([*objects, training])
    assert adopted.calls[len(objects)].construct == "NeuronTrainingPool"
    reserved = _objects("prod", "gpu-training-reserved")
    pool = next(o for o in reserved if o["kind"] == "NodePool")
    pool["spec"]["template"]["spec"]["requirements"][4]["values"] = ["reserved"]
    adopted = _adopt(reserved)
    call = adopted.calls[reserved.index(pool)]
    assert call.construct == "ReservedCapacityPool" and "fallback=Fallback.NONE" in call.text


#: Per seed object (the seed documents' whole, valid objects): the field that keeps it out of the constructs, as
#: import reports it and docs/commands/import.md tabulates it.
SEED_FIELDS = {
    ("000_s02_nodepools", "NodePool gpu-general"): "spec.template.spec.requirements[1]",
    ("000_s02_nodepools", "NodePool gpu-inference"): "spec.template.spec.requirements[0]",
    ("000_s02_nodepools", "NodePool gpu-training"): "spec.template.spec.requirements[0]",
    ("000_s03_ec2nodeclasses", "EC2NodeClass gpu-optimized"): "spec.subnetSelectorTerms",
    ("000_s03_ec2nodeclasses", "EC2NodeClass gpu-training"): "spec.blockDeviceMappings",
    ("000_s04_spot_nodepool", "NodePool gpu-spot-inference"): "spec.template.spec.requirements[0]",
    ("000_s06_inferentia_nodepool", "NodePool inferentia"): "spec.template.spec.requirements[0]",
    ("000_s07_tiered_nodepools", "NodePool gpu-tier1-g5-spot"): "spec.template.spec.requirements[0]",
    ("000_s07_tiered_nodepools", "NodePool gpu-tier2-g4dn-spot"): "spec.template.spec.requirements[0]",
    ("000_s07_tiered_nodepools", "NodePool gpu-tier3-g5-ondemand"): "spec.template.spec.requirements[0]",
    ("000_s08_nodepool", "NodePool gpu-training-protected"): "spec.template.spec.requirements[1]",
}


def test_import_says_per_seed_object_the_field_that_keeps_it_out_as_the_docs_table_does(tmp_path, capsys):
    import re
    import shutil

    from karpenter_gpu.cli.main import main

    source = tmp_path / "seeds"
    for environment in sorted({e for e, _ in SEED_FIELDS}):
        (source / environment).mkdir(parents=True)
        shutil.copy(ROOT / "tests" / "fixtures" / "seeds" / f"{environment}.yaml", source / environment)
    assert main(["import", str(source), "--out", str(tmp_path / "app.py")]) == 0
    notes = re.findall(r"note: (\S+): (\S+ \S+) kept as given: (\S+) \(", capsys.readouterr().err)
    assert {(e, o): f for e, o, f in notes} == SEED_FIELDS and len(notes) == len(SEED_FIELDS)
    table = (ROOT / "docs" / "commands" / "import.md").read_text(encoding="utf-8")
    for (environment, found), field in SEED_FIELDS.items():
        kind, name = found.split()
        assert f"| {environment} | {kind} `{name}` | `{field}` |" in table


def test_a_hybrid_groups_configmap_is_its_hybrid_gpu_node_group_call():
    objects = [o for o in _dist_objects("fleet") if o["kind"] == "ConfigMap"]
    adopted = _adopt(objects)
    call = adopted.calls[0]
    assert call.construct == "HybridGpuNodeGroup"
    assert "taints=(Taint.gpu(), Taint('on-premises', None, TaintEffect.NO_SCHEDULE))" in call.text
    assert "memory=Quantity('1000Gi')" in call.text
    objects[0]["data"]["kubeletFlags"] += " --max-pods=20"  # not what the construct derives from the labels: named
    unfit = _adopt(objects).unfit[0]
    assert unfit.construct == "HybridGpuNodeGroup" and unfit.field == "data.kubeletFlags"
    del objects[0]["data"]["gpuName"]
    assert _adopt(objects).unfit[0].field == "data"


def test_an_overlay_of_instance_families_with_a_capacity_is_its_gpu_capacity_overlay_call():
    overlay = {"apiVersion": "karpenter.sh/v1alpha1", "kind": "NodeOverlay", "metadata": {"name": "g6f-gpu"},
               "spec": {"requirements": [{"key": "karpenter.k8s.aws/instance-family", "operator": "In",
                                          "values": ["g6f", "gr6f"]}],
                        "capacity": {"nvidia.com/gpu": "1"}, "weight": 20}}
    adopted = _adopt([overlay])
    assert adopted.calls[0].construct == "GpuCapacityOverlay"
    assert "families=('g6f', 'gr6f')" in adopted.calls[0].text
    refused = copy.deepcopy(overlay)
    refused["spec"]["capacity"] = {"aws.amazon.com/neuron": "1"}  # Karpenter refuses it at runtime: so does the construct
    unfit = _adopt([refused]).unfit[0]
    assert unfit.construct == "GpuCapacityOverlay" and "KG181" in unfit.field
