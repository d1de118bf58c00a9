"""Synthesize every environment in stacks/ into dist/<environment>/ (one file per resource).

Run by `cdk8s synth` (which sets CDK8S_OUTDIR) or directly. All constructs are built and validated
before anything is written; the new output replaces the old only when complete, so a bad prop
leaves dist/ untouched.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
_NODE = ROOT / "node_modules" / ".bin" / "node"
if _NODE.exists():  # jsii runs on the project's Node 22 LTS, not the machine's end-of-life Node 20
    os.environ.setdefault("JSII_NODE", str(_NODE))
_SHARED_CRDS = ROOT.parent / "shared" / "upstream" / "crds"
if _SHARED_CRDS.is_dir():  # this repository validates against the CRDs beside it, never downloads
    os.environ.setdefault("KARPENTER_GPU_CRDS", str(_SHARED_CRDS))

import cdk8s  # noqa: E402

from karpenter_gpu import GpuPlatform, KarpenterGpuError, PlatformConfig  # noqa: E402
from karpenter_gpu.check.crd_source import resolve_crd_dir  # noqa: E402
from karpenter_gpu.check.findings import Severity  # noqa: E402
from karpenter_gpu.check.validate import validate_dir  # noqa: E402


class SynthFailed(Exception):
    """The synthesized manifests have validation errors; dist/ was left as it was."""


#: Helm values files go one level down, so `kubectl apply -f dist/<env>` (not recursive) skips them.
HELM_DIR = "helm"


def build(configs, outdir: Path) -> list[tuple[cdk8s.App, GpuPlatform]]:
    built = []
    for config in configs:
        if not isinstance(config, PlatformConfig):
            config = PlatformConfig(**config)
        app = cdk8s.App(outdir=str(outdir / config.environment),
                        yaml_output_type=cdk8s.YamlOutputType.FILE_PER_RESOURCE)
        built.append((app, GpuPlatform(app, props=config)))
    return built


def synth(configs, outdir: Path) -> None:
    outdir = outdir.resolve()
    outdir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{outdir.name}.", dir=outdir.parent))
    try:
        for app, platform in build(configs, staging):
            app.synth()
            helm = Path(app.outdir) / HELM_DIR
            for values in platform.helm_values:
                helm.mkdir(exist_ok=True)
                (helm / values.file_name).write_text(values.to_yaml())
        report = validate_dir(staging, resolve_crd_dir())
        problems = [f for f in report.findings if f.severity != Severity.INFO]
        for finding in problems:
            print(finding.line(), file=sys.stderr)
        if report.failed():
            raise SynthFailed(f"validation failed: {report.summary()}; dist/ left unchanged")
        if outdir.exists():
            old = outdir.with_name(f".{outdir.name}.old")
            shutil.rmtree(old, ignore_errors=True)
            outdir.rename(old)
            staging.rename(outdir)
            shutil.rmtree(old)
        else:
            staging.rename(outdir)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def main() -> int:
    try:
        from stacks import ENVIRONMENTS
        synth(ENVIRONMENTS, Path(os.environ.get("CDK8S_OUTDIR", ROOT / "dist")))
    except (KarpenterGpuError, SynthFailed) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
