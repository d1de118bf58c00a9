"""karpenter_gpu.analysis.diff.admission: both sides as the API server stores them (CRD defaults) or refuses them."""

from __future__ import annotations

import shutil
from pathlib import Path

from karpenter_gpu.analysis.diff import classify, load_side
from karpenter_gpu.check.conformance import load_crds
from tests.conftest import find_crds_dir
from tests.test_diff import node_class, objects, pool, template, write

#: The defaults diff relies on, each as (CRD file, the line that sets it in the CRD, that line with another value).
_DEFAULTS = [
    ("karpenter.sh_nodepools.yaml", "default: 720h", "default: 336h"),
    ("karpenter.sh_nodepools.yaml", "- nodes: 10%", "- nodes: 5%"),
    ("karpenter.sh_nodepools.yaml", "default: WhenEmptyOrUnderutilized", "default: WhenEmpty"),
    ("karpenter.k8s.aws_ec2nodeclasses.yaml", "httpTokens: required", "httpTokens: optional"),
]


def _spelled_out_and_omitted(tmp_path: Path) -> tuple[dict, dict]:
    """Base spells out the v1.14.1 defaults, head omits them."""
    spelled = objects()
    pool(spelled)["disruption"] = {"consolidateAfter": "0s", "consolidationPolicy": "WhenEmptyOrUnderutilized",
                                   "budgets": [{"nodes": "10%"}]}
    omitted = objects()
    del pool(omitted)["disruption"]
    del template(omitted)["expireAfter"]
    del node_class(omitted)["metadataOptions"]
    return (load_side(str(write(tmp_path / "base", spelled))), load_side(str(write(tmp_path / "head", omitted))))


def test_spelled_out_crd_defaults_are_no_change(tmp_path):
    base, head = _spelled_out_and_omitted(tmp_path)
    assert classify(base, head) == []


def test_defaults_are_read_from_the_crds_not_typed_again(tmp_path):
    # Each default changed in a copy of the CRDs: the omitted side now defaults to the new value, so a
    # default typed into diff (rather than read from the CRD) would make this find no change.
    base, head = _spelled_out_and_omitted(tmp_path)
    for file_name, line, other in _DEFAULTS:
        crd_dir = tmp_path / f"crds-{other.split()[-1]}"
        shutil.copytree(find_crds_dir(), crd_dir)
        text = (crd_dir / file_name).read_text()
        assert text.count(line) == 1, line
        (crd_dir / file_name).write_text(text.replace(line, other))
        changes = classify(base, head, crds=load_crds(crd_dir))
        value = other.split()[-1]
        assert len(changes) == 1 and any(value in r for r in changes[0].reasons), (line, changes)
