"""Generate the packaged instance-type catalog from the upstream TSV.

Reads ``gpu-instance-types.tsv`` (columns described in the upstream FACTS.md §9) and writes
``constructs/karpenter_gpu/data/gpu-instance-types.json``: the project's own catalog format, the
one ``karpenter_gpu.analysis.catalog.load_catalog`` reads (see its docstring). The output is
deterministic (types sorted by name, keys sorted, indent 1), so a regeneration from the same TSV
is byte-identical and a test can compare the committed file with a fresh build.

Usage: python tools/build_catalog.py TSV [--output JSON] [--check]
(TSV: an offline copy of the upstream table, named explicitly: the repository refers to no folder
outside it; --check exits 1 when the committed JSON differs from a regeneration instead of writing
it). Standard library only.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUTPUT = ROOT / "constructs" / "karpenter_gpu" / "data" / "gpu-instance-types.json"

SOURCE = (
    "aws/karpenter-provider-aws: website/content/en/docs/reference/instance-types.md @ 692ccdd0 "
    "(p3 from website/content/en/v1.12/reference/instance-types.md @ 9e1d72fd); prices from "
    "pkg/providers/pricing/zz_generated.pricing_aws.go @ 6fc13b52"
)
DATE = "2026-07-20"
#: sha256 of the TSV the committed catalog was generated from; another TSV needs --repin (and review).
SOURCE_SHA256 = "cabefa7733e63eb723ab2c3614cc347aaeb59a0dff5c41b755623af64b9143ad"
REGION = "us-east-1"
NOTES = [
    "Labels are the ones Karpenter v1.14.1 sets on the instance type (docs generator: al2023@latest, "
    "union of us-east-1, us-east-2 and us-west-2). Memory labels are MiB; instance-gpu-memory is MiB per GPU.",
    "allocatable is what Karpenter schedules against: capacity minus kube-reserved, system-reserved and "
    "the eviction threshold (AL2023, vmMemoryOverheadPercent 0.075, ENI-limited max pods). DaemonSet "
    "requests are not subtracted.",
    "Extended resources are the ones Karpenter models; vpc.amazonaws.com/efa assumes no networkInterfaces.",
    "g6f and gr6f report instance-gpu-count 0 and no nvidia.com/gpu: a NodeOverlay must add the capacity.",
    "price is the on-demand USD/hour in us-east-1 from Karpenter's static fallback table (generated "
    "2026-07-20); null where the table has none (p5e.48xlarge, trn2.48xlarge, dl2q.24xlarge). Spot "
    "prices vary and are not included.",
    "Zone availability is not included: a type may not be offered in every zone of the region.",
]

# TSV column -> karpenter.k8s.aws/ label (omitted when the cell is blank)
_AWS_LABELS = {
    "family": "instance-family",
    "generation": "instance-generation",
    "size": "instance-size",
    "vcpu": "instance-cpu",
    "memory_mib": "instance-memory",
    "cpu_manufacturer": "instance-cpu-manufacturer",
    "gpu_name": "instance-gpu-name",
    "gpu_manufacturer": "instance-gpu-manufacturer",
    "gpu_count": "instance-gpu-count",
    "gpu_memory_mib": "instance-gpu-memory",
    "accelerator_name": "instance-accelerator-name",
    "accelerator_manufacturer": "instance-accelerator-manufacturer",
    "accelerator_count": "instance-accelerator-count",
    "local_nvme_gb": "instance-local-nvme",
    "network_bandwidth_mbps": "instance-network-bandwidth",
    "ebs_bandwidth_mbps": "instance-ebs-bandwidth",
    "hypervisor": "instance-hypervisor",
}
# TSV column -> extended resource (kept only when positive)
_RESOURCES = {
    "res_nvidia_com_gpu": "nvidia.com/gpu",
    "res_amd_com_gpu": "amd.com/gpu",
    "res_aws_amazon_com_neuron": "aws.amazon.com/neuron",
    "res_aws_amazon_com_neuroncore": "aws.amazon.com/neuroncore",
    "res_habana_ai_gaudi": "habana.ai/gaudi",
    "res_vpc_amazonaws_com_efa": "vpc.amazonaws.com/efa",
}
_REQUIRED = ("instance_type", "family", "arch", "vcpu", "memory_mib", "generation", "size",
             "alloc_cpu", "alloc_memory", "alloc_pods", "od_price_usd_hr_us_east_1")


def category(family: str) -> str:
    """``instance-category``: the letters before the first digit (g4dn -> g, p6-b200 -> p, dl2q -> dl)."""
    m = re.match(r"[a-z]+", family)
    if not m:
        raise ValueError(f"instance family {family!r} does not start with letters")
    return m.group(0)


def entry(row: dict[str, str]) -> dict:
    name = row["instance_type"].strip()
    cell = {k: (v or "").strip() for k, v in row.items()}
    labels = {
        "node.kubernetes.io/instance-type": name,
        "kubernetes.io/arch": cell["arch"],
        "kubernetes.io/os": "linux",
        "karpenter.k8s.aws/instance-category": category(cell["family"]),
    }
    for column, label in _AWS_LABELS.items():
        if cell.get(column):
            labels["karpenter.k8s.aws/" + label] = cell[column]
    allocatable = {"cpu": cell["alloc_cpu"], "memory": cell["alloc_memory"], "pods": cell["alloc_pods"]}
    for column, resource in _RESOURCES.items():
        value = cell.get(column, "")
        if value and int(value) > 0:
            allocatable[resource] = value
    return {"name": name, "labels": labels, "allocatable": allocatable,
            "price": cell["od_price_usd_hr_us_east_1"] or None}


def build(tsv_text: str) -> dict:
    reader = csv.DictReader(io.StringIO(tsv_text), delimiter="\t")
    missing = [c for c in _REQUIRED if c not in (reader.fieldnames or [])]
    if missing:
        raise ValueError(f"TSV lacks columns {missing}")
    types = sorted((entry(row) for row in reader), key=lambda e: e["name"])
    names = [t["name"] for t in types]
    if len(set(names)) != len(names):
        raise ValueError("TSV has duplicate instance types")
    return {"source": SOURCE, "date": DATE, "region": REGION, "notes": NOTES, "types": types}


def render(document: dict) -> str:
    return json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tsv", type=Path, help="the upstream gpu-instance-types.tsv")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    parser.add_argument("--check", action="store_true", help="compare instead of writing; exit 1 if stale")
    parser.add_argument("--repin", action="store_true",
                        help="accept a TSV whose sha256 differs from SOURCE_SHA256 (then update SOURCE_SHA256)")
    args = parser.parse_args(argv)
    data = args.tsv.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != SOURCE_SHA256 and not args.repin:
        print(f"{args.tsv} has sha256 {digest}, pinned {SOURCE_SHA256}: pass --repin for a new source "
              "(and update SOURCE_SHA256)", file=sys.stderr)
        return 1
    text = render(build(data.decode("utf-8")))
    if args.check:
        current = args.output.read_text(encoding="utf-8") if args.output.exists() else ""
        if current != text:
            print(f"{args.output} is stale: run python tools/build_catalog.py", file=sys.stderr)
            return 1
        return 0
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {args.output} ({text.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
