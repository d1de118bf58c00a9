"""Check the packaged MIG profile tables against the GPU Operator's own MIG config.

``constructs/karpenter_gpu/data/mig-profiles.json`` holds, per GPU model, the MIG profiles and their
instance counts from the NVIDIA MIG user guide ("Supported MIG Profiles"). MIG Manager derives its
configs from those profiles (``karpenter_gpu.k8s.mig.MigGpu.config`` follows NVIDIA/mig-parted
``pkg/mig/builder``), and falls back to the ConfigMap ``default-mig-parted-config`` that the GPU
Operator ships (``assets/state-mig-manager/0400_configmap.yaml``). This tool reads that ConfigMap (the
pinned one: its sha256 is recorded in the JSON) and checks that, for every GPU of the table, every
config the library derives equals the ConfigMap's entry for that GPU (the entry whose
``device-filter`` names the GPU's PCI id, else the unfiltered one), and that every ``all-*`` config the
ConfigMap applies to the GPU is one the library knows.

Usage: python tools/check_mig_profiles.py CONFIGMAP_YAML
(an offline copy of ``https://raw.githubusercontent.com/NVIDIA/gpu-operator/v26.7.0/assets/state-mig-manager/
0400_configmap.yaml``). Exit 0 when they agree, 1 with one line per difference, 2 on a wrong file.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "constructs"))

from karpenter_gpu.k8s.mig import DISABLED, ENABLED_EMPTY, MigGpu, MigTable  # noqa: E402

TABLE = ROOT / "constructs" / "karpenter_gpu" / "data" / "mig-profiles.json"


def _filters(entry: dict) -> list[str] | None:
    raw = entry.get("device-filter")
    if raw is None:
        return None
    return [str(f).upper() for f in (raw if isinstance(raw, list) else [raw])]


def entry_for(entries: list[dict], gpu: MigGpu) -> dict | None:
    """The ConfigMap entry mig-parted applies to ``gpu``: a device-filter naming it wins over an unfiltered one."""
    pci = gpu.pci_device_id.upper()
    named = [e for e in entries if (f := _filters(e)) is not None and pci in f]
    if named:
        return named[0]
    plain = [e for e in entries if _filters(e) is None]
    # an entry filtered to other GPUs only does not apply to this one
    return plain[0] if plain else None


def differences(table: MigTable, configs: dict[str, list[dict]]) -> list[str]:
    out: list[str] = []
    for gpu in table.gpus:
        for name in gpu.config_names():
            entry = entry_for(configs.get(name, []), gpu)
            ours = gpu.config(name)
            theirs = {str(k): int(v) for k, v in (entry or {}).get("mig-devices", {}).items()} if entry else None
            if ours != theirs:
                out.append(f"{gpu.model}: {name}: derived {ours}, ConfigMap {theirs}")
        for name, entries in sorted(configs.items()):
            if name in (DISABLED, ENABLED_EMPTY) or name in gpu.config_names():
                continue
            entry = entry_for(entries, gpu)
            if entry is not None and _filters(entry) is not None:
                out.append(f"{gpu.model}: {name}: the ConfigMap has an entry for this GPU that the table does not derive")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("configmap", type=Path)
    args = parser.parse_args(argv)
    document = json.loads(TABLE.read_text(encoding="utf-8"))
    pinned = document["sources"]["fallback_config"]["sha256"]
    data = args.configmap.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != pinned:
        print(f"{args.configmap}: sha256 {digest} is not the pinned {pinned} "
              f"({document['sources']['fallback_config']['url']})", file=sys.stderr)
        return 2
    configmap = yaml.safe_load(data)
    configs = yaml.safe_load(configmap["data"]["config.yaml"])["mig-configs"]
    found = differences(MigTable(document), configs)
    for line in found:
        print(line)
    checked = sum(len(g.config_names()) for g in MigTable(document).gpus)
    print(f"{checked} configs of {len(document['gpus'])} GPU models checked: "
          f"{'OK' if not found else f'{len(found)} differences'}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
