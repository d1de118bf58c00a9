"""Generate the packaged network limits of the catalog's instance types from the AWS provider's VPC limits table.

Reads ``pkg/providers/instancetype/zz_generated.vpclimits.go`` of aws/karpenter-provider-aws v1.14.1 (the table
``instancetype.Limits`` that ``NewInstanceType`` and the node-class compatibility check read) and writes
``constructs/karpenter_gpu/data/network-limits.json``: per instance type of the packaged catalog, its network cards
(index, maximum network interfaces), the default network card, the interfaces and IPv4 addresses per interface.
Deterministic (types sorted, keys sorted, indent 1), so a regeneration from the same file is byte-identical.

Usage: python tools/build_network_limits.py VPCLIMITS_GO [--output JSON] [--check]
(VPCLIMITS_GO: e.g. $(go env GOMODCACHE)/github.com/aws/karpenter-provider-aws@v1.14.1/pkg/providers/instancetype/
zz_generated.vpclimits.go; --check exits 1 when the committed JSON differs). Standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUTPUT = ROOT / "constructs" / "karpenter_gpu" / "data" / "network-limits.json"
CATALOG = ROOT / "constructs" / "karpenter_gpu" / "data" / "gpu-instance-types.json"
SOURCE = "aws/karpenter-provider-aws v1.14.1: pkg/providers/instancetype/zz_generated.vpclimits.go"
#: sha256 of the Go file the committed table was generated from.
SOURCE_SHA256 = "5c710d15855ca842064161609b8825519c97ad4f8f044658eb657d49ad84ff83"

_ENTRY = re.compile(r'^\t"([a-z0-9.\-]+)": \{\n(.*?)^\t\},', re.M | re.S)
_FIELD = re.compile(r"^\t\t(Interface|IPv4PerInterface|DefaultNetworkCardIndex):\s+(\d+),", re.M)
_CARD = re.compile(r"MaximumNetworkInterfaces:\s+(\d+),\s+NetworkCardIndex:\s+(\d+),")


def build(text: str, names: list[str]) -> dict:
    table = {}
    for name, body in _ENTRY.findall(text):
        fields = {k: int(v) for k, v in _FIELD.findall(body)}
        table[name] = {"interfaces": fields["Interface"], "ipv4_per_interface": fields["IPv4PerInterface"],
                       "default_card": fields["DefaultNetworkCardIndex"],
                       "cards": [[int(i), int(m)] for m, i in _CARD.findall(body)]}
    return {"source": SOURCE, "sha256": SOURCE_SHA256,
            "types": {n: table[n] for n in sorted(names) if n in table}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source")
    parser.add_argument("--output", default=str(DEFAULT_OUTPUT))
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    raw = Path(args.source).read_bytes()
    if hashlib.sha256(raw).hexdigest() != SOURCE_SHA256:
        print(f"{args.source}: not the pinned v1.14.1 file (sha256 {SOURCE_SHA256})", file=sys.stderr)
        return 2
    names = [t["name"] for t in json.loads(CATALOG.read_text(encoding="utf-8"))["types"]]
    text = json.dumps(build(raw.decode("utf-8"), names), indent=1, sort_keys=True) + "\n"
    if args.check:
        same = Path(args.output).read_text(encoding="utf-8") == text
        print("network limits up to date" if same else f"{args.output} differs from a regeneration", file=sys.stderr)
        return 0 if same else 1
    Path(args.output).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
