"""Karpenter v1.9 and v1.14 (both LTS) as targets: the per-line facts, the refusals derived from each line's packaged
CRDs at construction, and the controller values that follow the line."""

from __future__ import annotations

import cdk8s
import pytest
import yaml

from karpenter_gpu import GpuPlatform, PlatformConfig
from karpenter_gpu.addons.karpenter_values import KarpenterControllerValues
from karpenter_gpu.apiserver.crds import line_crds
from karpenter_gpu.apiserver.lines import first_release, line_refusals, value_at
from karpenter_gpu.cluster import Cluster, karpenter_line_of
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s.requirements import Requirement
from karpenter_gpu.pools._gpu_pool import ConsolidationPolicy
from karpenter_gpu.pools.gpu_inference_pool import GpuInferencePool
from karpenter_gpu.pools.gpu_node_class import GpuNodeClass
from karpenter_gpu.upstream import KARPENTER_LINES, FeatureGate, karpenter_line
from stacks import dev

V19, V114 = KARPENTER_LINES["1.9"], KARPENTER_LINES["1.14"]


def _platform(version: str | None, **pool_changes) -> GpuPlatform:
    fields = {k: getattr(dev.CONFIG, k) for k in type(dev.CONFIG).model_fields if k != "karpenter_version"}
    if pool_changes:
        fields["inference"] = (dev.CONFIG.inference[0].model_copy(update=pool_changes),)
    if version is not None:
        fields["karpenter_version"] = version
    return GpuPlatform(cdk8s.App(), props=PlatformConfig(**fields))


def _cluster_chart(version: str | None) -> tuple[cdk8s.Chart, GpuNodeClass]:
    cluster = Cluster(cdk8s.App(), "prod", **({} if version is None else {"karpenter_version": version}))
    chart = cdk8s.Chart(cluster, "platform")
    return chart, GpuNodeClass(chart, "Class", name="gpu", ami="al2023@v20251103", role="R", cluster_name="c")


# --- the per-line facts -------------------------------------------------------------------------------


def test_the_lines_are_the_two_lts_releases():
    assert (V19.version, V19.chart_version, V19.image_tag, V19.image_digest) == ("1.9.3", "1.9.3", "1.9.3", "")
    assert (V114.version, V114.tag, V114.image_digest[:15]) == ("1.14.1", "v1.14.1", "sha256:72313094")
    assert FeatureGate.CAPACITY_BUFFER not in V19.gates and V114.gates == tuple(FeatureGate)
    assert "enableZonalShift" not in V19.settings and "enableZonalShift" in V114.settings
    assert karpenter_line("v1.9.3") is V19 and karpenter_line("1.14.1") is V114
    with pytest.raises(KeyError):
        karpenter_line("1.10")


def test_each_line_has_its_own_packaged_crds():
    def policies(line):
        schema = line_crds(line)[("karpenter.sh/v1", "NodePool")]["schema"]
        return schema["properties"]["spec"]["properties"]["disruption"]["properties"]["consolidationPolicy"]["enum"]

    assert policies(V19) == ["WhenEmpty", "WhenEmptyOrUnderutilized"]
    assert policies(V114) == ["WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"]
    # The prometheus-operator CRDs are the same for both lines.
    assert line_crds(V19)[("monitoring.coreos.com/v1", "ServiceMonitor")] is \
        line_crds(V114)[("monitoring.coreos.com/v1", "ServiceMonitor")]


# --- refusals derived from the CRDs ---------------------------------------------------------------------

NODE_CLASS = {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "gpu"},
              "spec": {"role": "R", "amiSelectorTerms": [{"alias": "al2023@v20251103"}],
                       "subnetSelectorTerms": [{"tags": {"k": "v"}}],
                       "securityGroupSelectorTerms": [{"tags": {"k": "v"}}]}}


@pytest.mark.parametrize("field, value, release", [
    ("cpuOptions", {"nestedVirtualization": "enabled"}, "1.13.0"),
    ("connectionTracking", {"udpTimeout": 30}, "1.13.0"),
    ("placementGroupSelector", {"name": "pg"}, "1.11.0"),
    ("networkInterfaces", [{"networkCardIndex": 0, "deviceIndex": 0, "interfaceType": "interface"}], "1.11.0"),
])
def test_a_node_class_field_v1_9_lacks_is_refused_with_its_first_release(field, value, release):
    manifest = {**NODE_CLASS, "spec": {**NODE_CLASS["spec"], field: value}}
    refused = line_refusals(manifest, V19, V114)
    assert [(f.code, f.path) for f in refused] == [("KG301", f"spec.{field}")]
    assert first_release(refused[0].path, value_at(manifest, refused[0].path), V19) == (release, f"spec.{field}")
    assert line_refusals(manifest, V114, V114) == [] and line_refusals(manifest, V114, V19) == []


def test_a_label_v1_9_lacks_is_refused_by_its_cel_allow_list():
    chart, node_class = _cluster_chart("1.9")
    key = "karpenter.k8s.aws/capacity-reservation-interruptible"
    with pytest.raises(KarpenterGpuError, match=r"^\[KG661\].*first appears in Karpenter v1\.10\.0") as err:
        GpuInferencePool(chart, "Serve", node_class=node_class, name="serve", gpu_limit=8,
                         requirements=(Requirement.in_(key, ["false"]),))
    assert "karpenter_version='1.14'" in str(err.value)
    chart, node_class = _cluster_chart(None)
    GpuInferencePool(chart, "Serve", node_class=node_class, name="serve", gpu_limit=8,
                     requirements=(Requirement.in_(key, ["false"]),))


def test_balanced_is_refused_for_1_9_at_construction_and_accepted_for_1_14():
    with pytest.raises(KarpenterGpuError, match=r"^\[KG661\] environment 'dev', GpuInferencePool 'gpu-inference' "
                                                r"\(dev/Inference/Resource\): spec\.disruption\.consolidationPolicy="
                                                r"'Balanced'.*Karpenter v1\.9\.3's NodePool CRD.*first appears in "
                                                r"Karpenter v1\.14\.0"):
        _platform("1.9", consolidation_policy=ConsolidationPolicy.BALANCED)
    for version in ("1.14", None):
        platform = _platform(version, consolidation_policy=ConsolidationPolicy.BALANCED)
        assert karpenter_line_of(platform) is V114


def test_balanced_is_refused_under_a_cluster_targeting_1_9():
    chart, node_class = _cluster_chart("1.9")
    with pytest.raises(KarpenterGpuError, match=r"^\[KG661\] prod/platform/Serve/Resource"):
        GpuInferencePool(chart, "Serve", node_class=node_class, name="serve", gpu_limit=8,
                         consolidation_policy=ConsolidationPolicy.BALANCED)
    chart, node_class = _cluster_chart("1.14")
    GpuInferencePool(chart, "Serve", node_class=node_class, name="serve", gpu_limit=8,
                     consolidation_policy=ConsolidationPolicy.BALANCED)


def test_what_both_lines_admit_synthesizes_for_1_9():
    assert karpenter_line_of(_platform("1.9")) is V19  # dev's pools, node class, overlays, monitoring


@pytest.mark.parametrize("version", ["1.10", "2", "", 1.9])
def test_a_version_that_is_no_packaged_line_is_refused(version):
    with pytest.raises(KarpenterGpuError, match=r"^\[KG660\].*karpenter_version"):
        _platform(version)
    with pytest.raises(KarpenterGpuError, match=r"^\[KG660\]"):
        Cluster(cdk8s.App(), "c", karpenter_version=version)


def test_a_platform_may_not_contradict_its_cluster():
    cluster = Cluster(cdk8s.App(), "prod", karpenter_version="1.9")
    fields = {k: getattr(dev.CONFIG, k) for k in type(dev.CONFIG).model_fields}
    with pytest.raises(KarpenterGpuError, match=r"^\[KG663\].*\(1\.9\)"):
        GpuPlatform(cluster, props=PlatformConfig(**{**fields, "karpenter_version": "1.14"}))
    inside = GpuPlatform(Cluster(cdk8s.App(), "prod", karpenter_version="1.9"), props=dev.CONFIG)
    assert karpenter_line_of(inside) is V19  # the platform does not say: the cluster's line


# --- the controller values follow the line --------------------------------------------------------------


def test_values_for_1_9_install_chart_1_9_and_its_controller_image():
    platform = _platform("1.9")
    text = platform.karpenter.to_yaml()
    assert "helm upgrade --install <release> oci://public.ecr.aws/karpenter/karpenter --version 1.9.3 -f" in text
    values = yaml.safe_load(text)
    assert list(values["settings"]["featureGates"]) == ["reservedCapacity", "spotToSpotConsolidation", "nodeOverlay",
                                                        "staticCapacity", "nodeRepair"]
    # The in-tag chart pins the previous image (1.8.1) by digest: the tag is pinned and the digest cleared.
    assert values["controller"] == {"image": {"repository": "public.ecr.aws/karpenter/controller", "tag": "1.9.3",
                                              "digest": ""}}


def test_values_for_1_14_pin_the_release_image():
    values = yaml.safe_load(_platform(None).karpenter.to_yaml())
    assert values["controller"]["image"]["tag"] == "1.14.1"
    assert values["controller"]["image"]["digest"].startswith("sha256:723130949e4c")
    assert "capacityBuffer" in values["settings"]["featureGates"]


def test_a_gate_the_1_9_chart_lacks_is_refused():
    chart, _ = _cluster_chart("1.9")
    with pytest.raises(KarpenterGpuError, match=r"^\[KG662\].*capacityBuffer first appears in Karpenter v1\.14\.0"):
        KarpenterControllerValues(chart, "Karpenter", cluster_name="prod", feature_gates={"capacityBuffer": True})
    chart, _ = _cluster_chart("1.9")
    quiet = KarpenterControllerValues(chart, "Karpenter", cluster_name="prod", feature_gates={"capacityBuffer": False})
    assert "capacityBuffer" not in quiet.feature_gates


# --- validate / explain --karpenter-version ----------------------------------------------------------------


@pytest.fixture
def balanced_dev(tmp_path):
    """dist/dev with its inference pool's consolidationPolicy set to Balanced."""
    import shutil

    from tests.conftest import ROOT
    folder = shutil.copytree(ROOT / "dist" / "dev", tmp_path / "dist" / "dev")
    pool = folder / "NodePool.gpu-inference.k8s.yaml"
    text = pool.read_text()
    assert "consolidationPolicy: WhenEmptyOrUnderutilized" in text
    pool.write_text(text.replace("consolidationPolicy: WhenEmptyOrUnderutilized", "consolidationPolicy: Balanced"))
    return tmp_path / "dist"


def _validate(capsys, *args):
    from karpenter_gpu.cli.main import main
    code = main(["validate", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_validate_refuses_balanced_for_1_9_and_accepts_it_for_1_14(capsys, balanced_dev):
    code, out = _validate(capsys, balanced_dev, "--karpenter-version", "1.9")
    assert code == 1
    assert ("dev/NodePool.gpu-inference.k8s.yaml: NodePool/gpu-inference spec.disruption.consolidationPolicy: error "
            "KG300 'Balanced' not in enum ['WhenEmpty', 'WhenEmptyOrUnderutilized']") in out
    assert "karpenter: dev: Karpenter v1.9.3 (--karpenter-version 1.9)" in out.splitlines()
    code, out = _validate(capsys, balanced_dev, "--karpenter-version", "1.14")
    assert code == 0 and "karpenter: dev: Karpenter v1.14.1 (--karpenter-version 1.14)" in out.splitlines()


def test_validate_follows_the_controller_tag_of_the_values(capsys, balanced_dev):
    values = balanced_dev / "dev" / "helm" / "karpenter.values.yaml"
    code, out = _validate(capsys, balanced_dev)
    assert code == 0
    assert "karpenter: dev: Karpenter v1.14.1 (dev/helm/karpenter.values.yaml controller.image.tag 1.14.1)" in out
    values.write_text(values.read_text().replace("tag: 1.14.1", "tag: 1.9.3"))
    code, out = _validate(capsys, balanced_dev)
    assert code == 1 and "'Balanced' not in enum" in out
    assert "karpenter: dev: Karpenter v1.9.3 (dev/helm/karpenter.values.yaml controller.image.tag 1.9.3)" in out
    values.write_text(values.read_text().replace("tag: 1.9.3", "tag: 1.12.0"))
    code, out = _validate(capsys, balanced_dev)
    assert code == 1 and "error KG660 controller.image.tag='1.12.0' is not allowed" in out
    values.unlink()
    code, out = _validate(capsys, balanced_dev)
    assert code == 0 and "karpenter: dev: Karpenter v1.14.1 (the default: no --karpenter-version" in out


def test_a_version_no_line_has_is_a_usage_error(capsys, balanced_dev):
    code, printed = _validate(capsys, balanced_dev, "--karpenter-version", "1.10")
    assert code == 2 and "karpenter-gpu: error: [KG660] --karpenter-version='1.10'" in printed


def test_explain_says_its_version_and_stops_on_what_the_line_refuses(capsys, balanced_dev):
    import json

    from karpenter_gpu.cli.main import main
    assert main(["explain", str(balanced_dev), "--karpenter-version", "1.9"]) == 2
    err = capsys.readouterr().err
    assert "[KG300]" in err and "'Balanced' not in enum" in err
    assert main(["explain", str(balanced_dev), "--format", "json"]) == 0
    [env] = json.loads(capsys.readouterr().out)["environments"]
    assert env["karpenter"] == {"line": "1.14", "version": "1.14.1",
                                "why": "dev/helm/karpenter.values.yaml controller.image.tag 1.14.1"}
    assert main(["explain", str(balanced_dev), "--karpenter-version", "1.14"]) == 0
    assert "note: answered for Karpenter v1.14.1 (--karpenter-version 1.14)" in capsys.readouterr().out


# --- diff: the release each side installs, and upgrade verdicts ---------------------------------------------


@pytest.fixture
def sides(tmp_path):
    """dist/dev as it is (head, v1.14.1) and as a v1.9 cluster's values would install it (base)."""
    import shutil

    from tests.conftest import ROOT
    head = shutil.copytree(ROOT / "dist" / "dev", tmp_path / "head" / "dev")
    base = shutil.copytree(ROOT / "dist" / "dev", tmp_path / "base" / "dev")
    values = base / "helm" / "karpenter.values.yaml"
    text = values.read_text()
    assert "tag: 1.14.1" in text and "capacityBuffer: false" in text
    values.write_text(text.replace("tag: 1.14.1", "tag: 1.9.3").replace("    capacityBuffer: false\n", ""))
    return base.parent, head.parent


def _diff(capsys, *args):
    from karpenter_gpu.cli.main import main
    code = main(["diff", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_diff_of_an_upgrade_lists_gates_behaviour_and_the_nodes_that_drift(capsys, sides):
    base, head = sides
    code, out, err = _diff(capsys, base, head)
    assert code == 0
    assert ("upgrade: dev: Karpenter v1.9.3 -> v1.14.1 (base: base dev/helm/karpenter.values.yaml controller.image.tag "
            "1.9.3; head: head dev/helm/karpenter.values.yaml controller.image.tag 1.14.1)") in out
    assert "  gate: featureGates.capacityBuffer is new in v1.14.1's chart: rendered off unless the values set it" in out
    assert "  drift: v1.12.0: the node class's CA bundle joins the drift hash" in out
    assert "the nodes of NodePools gpu-inference\n" in out
    assert "note: dev: answered for Karpenter v1.9.3 (base" in err and "-> Karpenter v1.14.1 (head" in err
    code, _, err = _diff(capsys, base, head, "--fail-on", "upgrade")
    assert code == 1 and "fail-on upgrade: the Karpenter release changes (dev v1.9.3 -> v1.14.1)" in err
    code, out, _ = _diff(capsys, head, head, "--fail-on", "upgrade")  # the same release: no verdict
    assert code == 0 and "upgrade:" not in out


def test_a_downgrade_refuses_what_the_older_line_lacks(capsys, sides):
    import json

    base, head = sides
    pool = head / "dev" / "NodePool.gpu-inference.k8s.yaml"
    pool.write_text(pool.read_text().replace("consolidationPolicy: WhenEmptyOrUnderutilized",
                                             "consolidationPolicy: Balanced"))
    code, out, _ = _diff(capsys, head, base, "--format", "json")  # v1.14.1 -> v1.9.3
    assert code == 0
    document = json.loads(out)
    [upgrade] = document["upgrades"]
    assert (upgrade["base"], upgrade["head"]) == ("1.14.1", "1.9.3")
    assert {"kind": "gate", "text": "featureGates.capacityBuffer does not exist in v1.9.3's chart: a value for it is "
                                    "ignored"} in upgrade["items"]
    # The values move to v1.9 while the pool stays Balanced: the head object is refused, and the verdict says why.
    older = base / "dev" / "NodePool.gpu-inference.k8s.yaml"
    older.write_text(pool.read_text())
    code, out, _ = _diff(capsys, head, base, "--format", "json", "--fail-on", "refused")
    assert code == 1
    [upgrade] = json.loads(out)["upgrades"]
    assert {"kind": "refused", "text": "NodePool/gpu-inference spec.disruption.consolidationPolicy: 'Balanced' not in "
                                       "enum ['WhenEmpty', 'WhenEmptyOrUnderutilized'] (KG300)"} in upgrade["items"]
    older.write_text(older.read_text().replace("consolidationPolicy: Balanced",
                                               "consolidationPolicy: WhenEmptyOrUnderutilized"))
    # --karpenter-version answers both sides for one line: v1.9 refuses the Balanced head pool, v1.14 accepts it
    code, out, _ = _diff(capsys, base, head, "--karpenter-version", "1.9", "--format", "json")
    refused = [c for c in json.loads(out)["changes"] if c["category"] == "REFUSED"]
    assert [c["name"] for c in refused] == ["gpu-inference"] and "Balanced" in " ".join(refused[0]["reasons"])
    code, out, _ = _diff(capsys, base, head, "--karpenter-version", "1.14", "--format", "json")
    assert not [c for c in json.loads(out)["changes"] if c["category"] == "REFUSED"]
    assert "upgrades" not in json.loads(out)  # one line for both sides: no release change


# --- an environment targeting 1.9, synthesized --------------------------------------------------------------


def test_an_environment_targeting_1_9_synthesizes_validates_against_v1_9_and_installs_chart_1_9(tmp_path, capsys):
    from karpenter_gpu.pipeline import synth
    from stacks import prod

    fields = {k: getattr(prod.CONFIG, k) for k in type(prod.CONFIG).model_fields}
    synth([PlatformConfig(**{**fields, "karpenter_version": "1.9"})], tmp_path / "dist")
    values_text = (tmp_path / "dist" / "prod" / "helm" / "karpenter.values.yaml").read_text()
    assert "helm upgrade --install <release> oci://public.ecr.aws/karpenter/karpenter --version 1.9.3 -f" in values_text
    values = yaml.safe_load(values_text)
    assert values["controller"]["image"]["tag"] == "1.9.3" and "capacityBuffer" not in values["settings"]["featureGates"]
    code, out = _validate(capsys, tmp_path / "dist")
    assert code == 0, out
    assert "karpenter: prod: Karpenter v1.9.3 (prod/helm/karpenter.values.yaml controller.image.tag 1.9.3)" in out
    assert line_crds(V19) is not line_crds(V114)


def test_validate_warns_of_values_the_line_s_chart_ignores(capsys, balanced_dev):
    values = balanced_dev / "dev" / "helm" / "karpenter.values.yaml"
    values.write_text(values.read_text().replace("settings:\n", "settings:\n  enableZonalShift: true\n", 1))
    code, out = _validate(capsys, balanced_dev, "--karpenter-version", "1.9")
    assert ("dev/helm/karpenter.values.yaml: / settings.featureGates.capacityBuffer: warning KG662 Karpenter v1.9.3's "
            "chart has no capacityBuffer gate: the value is ignored (first in v1.14.0)") in out
    assert "settings.enableZonalShift: warning KG662 Karpenter v1.9.3's chart has no settings.enableZonalShift" in out
    code, out = _validate(capsys, balanced_dev, "--karpenter-version", "1.14")
    assert code == 0 and "KG662" not in out
