"""How deep the randomized and crash tests go.

``make test`` runs each of them at a size that still finds regressions within the suite's time budget;
``make soak`` sets ``KARPENTER_GPU_SOAK=1`` and runs the tests marked ``soak`` at their deep size (more
hypothesis examples and fuzz cases, more kill -9 and concurrency rounds). A test with a deep size carries
the ``soak`` marker; it runs in both steps.
"""

from __future__ import annotations

import os

ENV = "KARPENTER_GPU_SOAK"


def deep() -> bool:
    """Whether this run is the soak step."""
    return os.environ.get(ENV, "") == "1"


def size(quick: int, soak: int) -> int:
    """``soak`` in the soak step, else ``quick``."""
    assert 0 < quick < soak, (quick, soak)
    return soak if deep() else quick
