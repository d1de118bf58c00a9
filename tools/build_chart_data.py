"""Generate ``constructs/karpenter_gpu/data/charts.json``: what validate needs of the pinned Helm charts.

The product never renders a chart (no Helm, no network at run time); it needs, per chart, the values key tree (a key
Helm silently ignores is reported with a did-you-mean) and the placement defaults the values override:

- ``karpenter``: ``charts/karpenter`` of the ``github.com/aws/karpenter-provider-aws`` module at
  :data:`~karpenter_gpu.upstream.KARPENTER_CHART_VERSION` (the Go module cache: ``go mod download`` in tests/oracle);
  the controller Deployment's default ``nodeSelector``, ``affinity`` and ``tolerations``.
- ``gpu-operator``: ``deployments/gpu-operator`` and ``assets/`` of NVIDIA/gpu-operator at the commit of the v26.7.0
  tag (``--gpu-operator DIR``: a checkout of that commit); the default ``daemonsets.tolerations``, the NFD worker's
  default tolerations, and per operand its values key, the ``nvidia.com/gpu.deploy.<operand>`` label its asset
  DaemonSet selects and whether the chart enables it.

The key tree is ``values.yaml`` united with every ``.Values.<path>`` the chart's templates read (keys a template
reads but ``values.yaml`` leaves out, such as ``operator.version``, are real keys). A node is a map of known
children, or null where any key below is the user's (an empty map or a list by default, or a scalar).

    python tools/build_chart_data.py [--gpu-operator DIR] [--karpenter-chart DIR] [--check]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "constructs"))

from karpenter_gpu.upstream import GPU_OPERATOR_VERSION, KARPENTER_CHART_VERSION  # noqa: E402

OUT = ROOT / "constructs" / "karpenter_gpu" / "data" / "charts.json"
#: The commit of NVIDIA/gpu-operator's v26.7.0 tag (the tag is not a Go module version: the module path has no
#: /v26 suffix).
GPU_OPERATOR_COMMIT = "10ee5b3638b89e11e949412aafa5ba99279c3721"
_VALUES_REF = re.compile(r"\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)")
_PATH = r"\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)"
_TO_YAML = re.compile(r"toYaml\s+\(?\s*" + _PATH)
_PIPED = re.compile(_PATH + r"\s*\|\s*toYaml")
_RANGE = re.compile(r"range\s+(?:\$\w+\s*,\s*)?(?:\$\w+\s*:=\s*)?" + _PATH)
_WITH = re.compile(r"with\s+" + _PATH)
#: Operand values key → its asset DaemonSet (the ClusterPolicy state that renders it).
_ASSETS = {
    "driver": "assets/state-driver/0500_daemonset.yaml",
    "toolkit": "assets/state-container-toolkit/0500_daemonset.yaml",
    "devicePlugin": "assets/state-device-plugin/0500_daemonset.yaml",
    "dcgm": "assets/state-dcgm/0400_dcgm.yml",
    "dcgmExporter": "assets/state-dcgm-exporter/0800_daemonset.yaml",
    "gfd": "assets/gpu-feature-discovery/0500_daemonset.yaml",
    "migManager": "assets/state-mig-manager/0600_daemonset.yaml",
    "nodeStatusExporter": "assets/state-node-status-exporter/0700_daemonset.yaml",
    "validator": "assets/state-operator-validation/0500_daemonset.yaml",
}


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _tree(value: Any) -> Any:
    """The key tree of a default value: known children for a non-empty map, None (open) otherwise."""
    if isinstance(value, dict) and value:
        return {str(k): _tree(v) for k, v in value.items()}
    return None


def _add_path(tree: dict, parts: list[str]) -> None:
    node = tree
    for i, part in enumerate(parts):
        if node.get(part, {}) is None:
            return  # an open node: everything below is the user's anyway
        if i == len(parts) - 1:
            node.setdefault(part, None)
            return
        node = node.setdefault(part, {})


def _open_paths(text: str) -> set[str]:
    """The ``.Values`` paths a template passes through whole (``toYaml``, ``range``): any key below is the user's,
    as Kubernetes reads it (affinity, tolerations, resources, config data)."""
    out = set(_TO_YAML.findall(text)) | set(_PIPED.findall(text)) | set(_RANGE.findall(text))
    lines = text.splitlines()
    for i, line in enumerate(lines):
        for ref in _WITH.findall(line):
            if any("toYaml ." in after or "toYaml $" in after for after in lines[i + 1:i + 5]):
                out.add(ref)
    return out


def _open(tree: dict, parts: list[str]) -> None:
    node = tree
    for part in parts[:-1]:
        child = node.get(part)
        if child is None and part in node:
            return
        node = node.setdefault(part, {})
    node[parts[-1]] = None


def _key_tree(chart: Path) -> dict:
    values = yaml.safe_load((chart / "values.yaml").read_text()) or {}
    tree = _tree(values) or {}
    opened: set[str] = set()
    for template in sorted((chart / "templates").rglob("*")):
        if template.is_file():
            text = template.read_text(errors="replace")
            for ref in _VALUES_REF.findall(text):
                _add_path(tree, ref.lstrip(".").split("."))
            opened |= _open_paths(text)
    for ref in sorted(opened):
        _open(tree, ref.lstrip(".").split("."))
    tree.setdefault("global", None)
    return tree


def _daemonset_pod(path: Path) -> dict:
    for doc in yaml.safe_load_all(path.read_text()):
        if isinstance(doc, dict) and doc.get("kind") == "DaemonSet":
            return doc["spec"]["template"]["spec"]
    raise SystemExit(f"{path}: no DaemonSet")


def karpenter(chart: Path) -> dict:
    values = yaml.safe_load((chart / "values.yaml").read_text())
    return {"source": f"github.com/aws/karpenter-provider-aws@v{KARPENTER_CHART_VERSION} charts/karpenter",
            "values_sha256": _sha(chart / "values.yaml"), "keys": _key_tree(chart),
            "controller": {"nodeSelector": values.get("nodeSelector") or {},
                           "affinity": values.get("affinity") or {},
                           "tolerations": values.get("tolerations") or []}}


def gpu_operator(repo: Path) -> dict:
    chart = repo / "deployments" / "gpu-operator"
    values = yaml.safe_load((chart / "values.yaml").read_text())
    nfd = chart / "charts" / "node-feature-discovery"
    keys = _key_tree(chart)
    keys["node-feature-discovery"] = _key_tree(nfd)
    nfd_values = yaml.safe_load((nfd / "values.yaml").read_text())
    merged_worker = {**(nfd_values.get("worker") or {}),
                     **((values.get("node-feature-discovery") or {}).get("worker") or {})}
    operands = {}
    for key, asset in _ASSETS.items():
        pod = _daemonset_pod(repo / asset)
        selector = {k: str(v) for k, v in (pod.get("nodeSelector") or {}).items()}
        enabled = (values.get(key) or {}).get("enabled", True) if key != "validator" else True
        operands[key] = {"asset": asset, "nodeSelector": selector, "enabled": bool(enabled)}
    return {"source": f"github.com/NVIDIA/gpu-operator {GPU_OPERATOR_VERSION} ({GPU_OPERATOR_COMMIT}) "
                      "deployments/gpu-operator",
            "values_sha256": _sha(chart / "values.yaml"), "keys": keys,
            "daemonsets_tolerations": (values.get("daemonsets") or {}).get("tolerations") or [],
            "nfd_worker": {"nodeSelector": merged_worker.get("nodeSelector") or {},
                           "affinity": merged_worker.get("affinity") or {},
                           "tolerations": merged_worker.get("tolerations") or []},
            "nfd_worker_enable": bool(merged_worker.get("enable", True)),
            "nfd_master_enable": bool(_merged((values.get("node-feature-discovery") or {}).get("master"),
                                              nfd_values.get("master")).get("enable", True)),
            "nfd_worker_config": _merged(merged_worker.get("config"),
                                         (nfd_values.get("worker") or {}).get("config")),
            "validated": _pick(values, _VALIDATED),
            "operands": operands}


#: The values paths the chart's templates/validations.yaml and the operand switches read (their defaults are
#: kept so the placement model can tell which the values change).
_VALIDATED = ("cdi.enabled", "cdi.nriPluginEnabled", "toolkit.enabled", "devicePlugin.config.create",
              "devicePlugin.config.name", "devicePlugin.config.data", "clusterPolicy.deployCR", "gpuCluster.deployCR",
              "driver.enabled", "driver.nvidiaDriverCRD.enabled")


def _pick(values: dict, paths: tuple[str, ...]) -> dict:
    out: dict = {}
    for path in paths:
        parts, here = path.split("."), values
        for part in parts:
            here = here.get(part) if isinstance(here, dict) else None
        if here is None:
            continue
        node = out
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = here
    return out


def _merged(parent: Any, sub: Any) -> Any:
    """A parent chart's value over its subchart's (maps key by key)."""
    if isinstance(parent, dict) and isinstance(sub, dict):
        return {**sub, **{k: _merged(v, sub.get(k)) for k, v in parent.items()}}
    return sub if parent is None else parent


def _module_chart() -> Path:
    cache = subprocess.run(["go", "env", "GOMODCACHE"], capture_output=True, text=True, check=True).stdout.strip()
    return Path(cache) / "github.com" / "aws" / f"karpenter-provider-aws@v{KARPENTER_CHART_VERSION}" / "charts" / "karpenter"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpu-operator", type=Path, default=ROOT / "tests" / "oracle" / "charts" / "gpu-operator",
                        help=f"a checkout of NVIDIA/gpu-operator at {GPU_OPERATOR_COMMIT} (default: the copy "
                             "vendored for the placement oracle)")
    parser.add_argument("--karpenter-chart", type=Path, help="charts/karpenter (default: the Go module cache)")
    parser.add_argument("--check", action="store_true", help="fail when the committed file differs")
    args = parser.parse_args()
    data = {"karpenter": karpenter(args.karpenter_chart or _module_chart()),
            "gpu-operator": gpu_operator(args.gpu_operator)}
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    if args.check:
        if OUT.read_text() != text:
            print(f"{OUT.relative_to(ROOT)} is stale: run tools/build_chart_data.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
