"""What the API server stores and Karpenter cannot read (k8s/go_decode.py, check/rules/decoding.py: KG470-KG474),
and the apiserver oracle family's ``decodes`` answer."""

from __future__ import annotations

import copy

import pytest

from karpenter_gpu.check.rules import check_rules
from karpenter_gpu.k8s.go_decode import (
    FORMAT_WRONG, NUMERIC_WRONG, SUFFIX_WRONG, decode_problems, go_parse_quantity_error, unlaunchable_mappings,
    zero_volume_sizes,
)
from tests.oracle import apiserver_family, compare

# resource.ParseQuantity's answers (k8s.io/apimachinery v0.35.3, run through Go): None parses.
GO_PARSE_QUANTITY = {
    "100Gi": None, "1.5": None, "1e3": None, "0": None, "-1": None, "+1": None, "1.": None, ".5": None,
    "1e+5": None, "1e-5": None, "1.G": None, "007": None, "1e99999999999": None,  # the exponent wraps to int32
    "T": None, "Ti": None, "+": None, "-": None, ".": None, "+.": None,  # no digits: zero
    "9" * 30: None, "1." + "9" * 30 + "n": None,
    "": FORMAT_WRONG, "1e3.5": FORMAT_WRONG, ".3E+0.": FORMAT_WRONG, "1.e-1.": FORMAT_WRONG, "1 Gi": FORMAT_WRONG,
    "1ki": SUFFIX_WRONG, "1K": SUFFIX_WRONG, "1e": SUFFIX_WRONG, "1e99999999999999999999": SUFFIX_WRONG,
    ".e-10": NUMERIC_WRONG,  # the inf.Dec path reads no digit
}


@pytest.mark.parametrize("text", sorted(GO_PARSE_QUANTITY))
def test_go_parse_quantity_error_follows_parse_quantity(text):
    assert go_parse_quantity_error(text) == GO_PARSE_QUANTITY[text]


def _pool(limits: dict) -> dict:
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "p"},
            "spec": {"limits": limits, "template": {"spec": {
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "c"},
                "requirements": []}}}}


def _node_class(**spec) -> dict:
    return {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "c"},
            "spec": {"role": "r", "amiSelectorTerms": [{"alias": "al2023@latest"}],
                     "subnetSelectorTerms": [{"tags": {"k": "v"}}],
                     "securityGroupSelectorTerms": [{"tags": {"k": "v"}}], **spec}}


def test_a_limit_parse_quantity_refuses_is_a_decode_problem_and_a_number_is_not():
    problems = decode_problems(_pool({"memory": ".3E+0.", "cpu": 8, "nvidia.com/gpu": "16"}))
    assert [(p.path, p.value, p.reader) for p in problems] == [("spec.limits['memory']", ".3E+0.", "karpenter")]


def test_kubelet_values_are_read_by_whom_reads_them():
    kubelet = {"kubeReserved": {"memory": "2e2.5"}, "systemReserved": {"cpu": "1"},
               "evictionHard": {"memory.available": "", "nodefs.available": "10%", "imagefs.available": "1e1.5"},
               "evictionSoft": {"memory.available": "1e1.5"}, "evictionSoftGracePeriod": {"memory.available": "rk",
                                                                                          "nodefs.available": "0"}}
    found = {(p.path, p.reader) for p in decode_problems(_node_class(kubelet=kubelet))}
    assert found == {
        ("spec.kubelet.evictionSoftGracePeriod['memory.available']", "karpenter"),
        ("spec.kubelet.kubeReserved['memory']", "karpenter"),
        ("spec.kubelet.evictionHard['memory.available']", "karpenter"),  # evictionThreshold parses it
        ("spec.kubelet.evictionHard['imagefs.available']", "kubelet"),  # Karpenter passes it on unread
        ("spec.kubelet.evictionSoft['memory.available']", "kubelet"),
    }


def test_mappings_without_a_device_name_or_ebs_launch_nothing_and_t_is_zero():
    obj = _node_class(blockDeviceMappings=[{"deviceName": "/dev/xvda", "ebs": {"volumeSize": "T"}},
                                           {"deviceName": "/dev/xvdb"}, {"ebs": {"volumeSize": "20Gi"}}])
    assert unlaunchable_mappings(obj) == [(1, "ebs"), (2, "deviceName")]
    assert zero_volume_sizes(obj) == [(0, "T")]
    assert decode_problems(obj) == []  # "T" decodes (as 0 bytes)


def test_validate_reports_each_with_its_code():
    objs = [_pool({"memory": "1e3.5"}),
            _node_class(kubelet={"kubeReserved": {"memory": "2e2.5"}, "evictionSoft": {"memory.available": ""}},
                        blockDeviceMappings=[{"deviceName": "/dev/xvdb"}, {"deviceName": "/dev/xvda",
                                                                             "ebs": {"volumeSize": "Ti"}}])]
    found = {(f.kind, f.path, f.code, f.severity.value) for f in check_rules([("m.yaml", o) for o in objs])
             if f.code.startswith("KG47")}
    assert found == {
        ("NodePool", "spec.limits['memory']", "KG470", "error"),
        ("EC2NodeClass", "spec.kubelet.kubeReserved['memory']", "KG471", "error"),
        ("EC2NodeClass", "spec.kubelet.evictionSoft['memory.available']", "KG472", "error"),
        ("EC2NodeClass", "spec.blockDeviceMappings[0]", "KG473", "warning"),
        ("EC2NodeClass", "spec.blockDeviceMappings[1].ebs.volumeSize", "KG474", "warning"),
    }


def test_the_apiserver_family_answers_decodes_from_the_same_code():
    stored = {"object": _pool({"memory": "1e3.5"})}
    ours = apiserver_family.core_answer(stored)
    assert ours["accepted"] and ours["decodes"] is False
    fine = copy.deepcopy(stored)
    fine["object"]["spec"]["limits"]["memory"] = "1e3"
    assert apiserver_family.core_answer(fine)["decodes"] is True
    karpenter = {"served": True, "accepted": True, "refused": [], "types": [], "unknown": [], "celSkipped": False,
                 "decodeError": "", "namespace": "",
                 "decodes": "decode NodePool: quantities must match the regular expression"}
    assert compare.differences("apiserver", stored, karpenter) == []
    assert compare.differences("apiserver", fine, karpenter)  # Karpenter refuses what the core says it reads


def test_explain_says_a_class_with_an_incomplete_mapping_launches_nothing():
    from karpenter_gpu.analysis.catalog import default_catalog
    from karpenter_gpu.analysis.explain import explain_environment
    from karpenter_gpu.analysis.simulator import simulate_pools

    requirements = [{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g6"]},
                    {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]}]
    pool = _pool({"nvidia.com/gpu": "8"})
    pool["spec"]["template"]["spec"]["requirements"] = requirements
    whole = [{"deviceName": "/dev/xvda", "ebs": {"volumeSize": "200Gi"}}]
    assert simulate_pools([_node_class(blockDeviceMappings=whole), pool])[0].candidate_names
    broken = _node_class(blockDeviceMappings=[*whole, {"deviceName": "/dev/xvdb"}])
    report = simulate_pools([broken, pool])[0]
    assert report.candidate_names == () and report.worst_case_hourly in (None, 0)
    notes = explain_environment("dev", [broken, pool], default_catalog())["pools"][0]["notes"]
    assert any("spec.blockDeviceMappings[1] has no ebs" in n and "launches nothing" in n for n in notes), notes


def test_kg419_names_the_incomplete_mapping_as_the_fix_not_the_requirements():
    requirements = [{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g6"]},
                    {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]}]
    pool = _pool({"nvidia.com/gpu": "8"})
    pool["spec"]["template"]["spec"]["requirements"] = requirements
    whole = [{"deviceName": "/dev/xvda", "ebs": {"volumeSize": "200Gi"}}]
    broken = _node_class(blockDeviceMappings=[*whole, {"ebs": {"volumeSize": "20Gi"}}])
    kg419 = [f for f in check_rules([("m.yaml", broken), ("m.yaml", pool)]) if f.code == "KG419"]
    assert len(kg419) == 1
    fix = kg419[0].message.split("; fix: ", 1)[1]
    assert "spec.blockDeviceMappings" in fix and "EC2NodeClass c" in fix and "deviceName" in fix
    assert "describe instances by properties" not in fix
    # a pool whose own requirements exclude every type keeps the requirements hint
    narrow = copy.deepcopy(pool)
    narrow["spec"]["template"]["spec"]["requirements"].append(
        {"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Gt", "values": ["64"]})
    kg419 = [f for f in check_rules([("m.yaml", _node_class(blockDeviceMappings=whole)), ("m.yaml", narrow)])
             if f.code == "KG419"]
    assert len(kg419) == 1 and "describe instances by properties" in kg419[0].message


def test_an_accepted_answer_without_decodes_is_a_disagreement_and_every_regression_carries_it():
    """No apiserver answer skips ``decodes``: one recorded without it disagrees (the core always answers it)."""
    import json
    from pathlib import Path

    fine = {"object": _pool({"memory": "1e3"})}
    karpenter = {"served": True, "accepted": True, "refused": [], "types": [], "unknown": [], "celSkipped": False,
                 "decodeError": "", "namespace": ""}
    assert compare.differences("apiserver", fine, {**karpenter, "decodes": True}) == []
    assert compare.differences("apiserver", fine, karpenter)
    path = Path(__file__).parent / "oracle" / "vectors" / "regressions.jsonl"
    accepted = [v for v in map(json.loads, path.read_text().splitlines())
                if v["family"] == "apiserver" and v["answer"].get("accepted")]
    assert accepted and all("decodes" in v["answer"] for v in accepted)


def test_an_int32_field_beyond_int32_is_stored_and_not_decoded():
    """apiserver family, seed 11 case 3618: ``networkInterfaces[].deviceIndex: 2147483648`` passes the CRD (no
    maximum) and Karpenter's informer refuses it (an int32 in its Go type); the edges of int32 decode."""
    node_class = _node_class(networkInterfaces=[{"networkCardIndex": 0, "deviceIndex": 0, "interfaceType": "interface"},
                                                {"networkCardIndex": 0, "deviceIndex": 2147483648,
                                                 "interfaceType": "interface"},
                                                {"networkCardIndex": 1, "deviceIndex": 2147483647,
                                                 "interfaceType": "efa-only"}],
                             kubelet={"evictionMaxPodGracePeriod": -2147483649, "podsPerCore": 2147483647})
    problems = decode_problems(node_class)
    assert [(p.path, p.value, p.reader) for p in problems] == [
        ("spec.kubelet.evictionMaxPodGracePeriod", -2147483649, "karpenter"),
        ("spec.networkInterfaces[1].deviceIndex", 2147483648, "karpenter")]
    assert apiserver_family.core_answer({"object": node_class})["decodes"] is False
    found = {(f.path, f.code) for f in check_rules([("m.yaml", node_class)]) if f.code == "KG470"}
    assert found == {("spec.kubelet.evictionMaxPodGracePeriod", "KG470"),
                     ("spec.networkInterfaces[1].deviceIndex", "KG470")}


def _spec_fields(wanted) -> dict[str, tuple[str, ...]]:
    """Per kind (NodePool, NodeOverlay, EC2NodeClass, of every packaged line), the spec paths whose schema
    ``wanted`` admits; kinds without one left out."""
    import yaml
    from importlib import resources

    def walk(schema: dict, path: str) -> list[str]:
        out = [path] if wanted(schema) else []
        for key, child in (schema.get("properties") or {}).items():
            out += walk(child, f"{path}.{key}" if path else key)
        if "items" in schema:
            out += walk(schema["items"], path + "[]")
        return out

    crds = resources.files("karpenter_gpu").joinpath("data/crds")
    found: dict[str, set[str]] = {}
    for line in ("", "v1.9/"):
        for name in ("karpenter.sh_nodepools.yaml", "karpenter.sh_nodeoverlays.yaml",
                     "karpenter.k8s.aws_ec2nodeclasses.yaml"):
            crd = yaml.safe_load(crds.joinpath(line + name).read_text())
            storage = next(v for v in crd["spec"]["versions"] if v.get("storage"))
            paths = [p for p in walk(storage["schema"]["openAPIV3Schema"], "") if p.startswith("spec.")]
            found.setdefault(crd["spec"]["names"]["kind"], set()).update(paths)
    return {kind: tuple(sorted(paths)) for kind, paths in found.items() if paths}


def test_the_int32_fields_are_those_the_crds_mark_int32():
    from karpenter_gpu.k8s.go_decode import INT32_FIELDS

    found = _spec_fields(lambda s: s.get("type") == "integer" and s.get("format") == "int32")
    assert found == {kind: tuple(sorted(paths)) for kind, paths in INT32_FIELDS.items()}


def test_the_formatted_string_fields_are_those_the_crds_give_a_format():
    from karpenter_gpu.k8s.go_decode import FORMATTED_STRING_FIELDS

    found = _spec_fields(lambda s: s.get("format") is not None and s.get("type") not in ("integer", "number"))
    assert found == {kind: tuple(sorted(paths)) for kind, paths in FORMATTED_STRING_FIELDS.items()}


def test_a_list_for_a_taint_time_is_stored_and_not_decoded():
    """apiserver family, seed 793477656 case 15264: ``taints: [{..., timeAdded: []}]`` is stored (kube-openapi's
    type check passes a slice for a string with a format) and Karpenter's informer cannot unmarshal an array into
    the taint's metav1.Time; a time or no value decodes."""
    pool = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "gpu"}, "spec": {"template": {
        "spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
                 "requirements": [],
                 "taints": [{"key": "a", "effect": "NoSchedule", "timeAdded": []},
                            {"key": "b", "effect": "NoSchedule", "timeAdded": "2026-01-01T00:00:00Z"}],
                 "startupTaints": [{"key": "c", "effect": "NoSchedule", "timeAdded": [1]}]}}}}
    assert [(p.path, p.reader) for p in decode_problems(pool)] == [
        ("spec.template.spec.startupTaints[0].timeAdded", "karpenter"),
        ("spec.template.spec.taints[0].timeAdded", "karpenter")]
    answer = apiserver_family.core_answer({"object": pool})
    assert answer["accepted"] is True and answer["decodes"] is False
    found = {(f.path, f.code) for f in check_rules([("m.yaml", pool)]) if f.code == "KG470"}
    assert found == {("spec.template.spec.taints[0].timeAdded", "KG470"),
                     ("spec.template.spec.startupTaints[0].timeAdded", "KG470")}
    for taint in pool["spec"]["template"]["spec"]["taints"] + pool["spec"]["template"]["spec"]["startupTaints"]:
        taint.pop("timeAdded")
    assert decode_problems(pool) == [] and apiserver_family.core_answer({"object": pool})["decodes"] is True


def test_an_exponent_of_thousands_of_digits_is_read_as_strconv_reads_it():
    """CI soak (test_cli.py::test_odd_numbers_never_reach_an_internal_error): ``1e`` and 5,000 nines made Python's
    ``int()`` refuse the string (KG919). ``strconv.ParseInt(…, 10, 64)`` refuses more than 19 significant digits
    (out of range: the suffix is wrong) and reads leading zeros."""
    assert go_parse_quantity_error("1e" + "9" * 5000) == SUFFIX_WRONG
    assert go_parse_quantity_error("1e-" + "0" * 5000 + "5") is None
    assert go_parse_quantity_error("1e-9223372036854775808") is None
    assert go_parse_quantity_error("1e9223372036854775808") == SUFFIX_WRONG
    found = check_rules([("m.yaml", _pool({"nvidia.com/gpu": "1e" + "9" * 5000}))])
    assert {f.code for f in found} >= {"KG470"} and "KG919" not in {f.code for f in found}
