"""``python -m karpenter_gpu``: the ``karpenter-gpu`` command, for environments without its script on PATH."""

from __future__ import annotations

import sys

from karpenter_gpu.cli.main import command

if __name__ == "__main__":
    sys.exit(command())
