"""Synthesize every environment in stacks/ into dist/<environment>/ (one file per resource).

Run by `make synth`, by `cdk8s synth` (which sets CDK8S_OUTDIR) or directly. The work is the
library's: :func:`karpenter_gpu.synth` (also `karpenter-gpu synth --app stacks:ENVIRONMENTS`) builds
and validates everything before writing, and replaces dist/ atomically only when the new output is
complete, so a bad prop leaves dist/ untouched.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent


def main() -> int:
    from karpenter_gpu.cli.main import main as cli

    sys.path.insert(0, str(ROOT))  # stacks/ is this repository's, not the library's
    return cli(["synth", "--app", "stacks:ENVIRONMENTS", "--out", os.environ.get("CDK8S_OUTDIR", str(ROOT / "dist"))])


if __name__ == "__main__":
    sys.exit(main())
