"""``karpenter-gpu diff BASE HEAD``: review a manifest change by what Karpenter will do to running GPU nodes.

Each side is a dist/ folder, a file, stdin or a git revision whose committed dist/ is read without a
checkout, all through :mod:`karpenter_gpu.k8s.input_layout` and :mod:`karpenter_gpu.k8s.git_revision`. One module per
concern:

- :mod:`.read`: the sides (:func:`side_of`, :func:`load_side`, :class:`InputProblems`).
- :mod:`.admission`: what the API server makes of each side (the CRD defaults, read from the CRDs).
- :mod:`.classify`: every difference sorted into a :class:`Category` per object (:func:`classify`).
- :mod:`.cost`: capacity and worst-case spend before and after (:func:`cost_changes`).
- :mod:`.render`: text, markdown and JSON output; the only place output is formatted.
- :mod:`.verdict`: the ``--fail-on`` verdict (:func:`failed`, :func:`hits`: which conditions hit).
"""

from karpenter_gpu.analysis.diff.classify import FAIL_ON, Category, Change, classify
from karpenter_gpu.analysis.diff.cost import (
    EVENTUALLY_CONSISTENT, Choice, CostReport, EnvironmentCost, PoolCost, cost_changes, cost_exceeded, cost_json,
)
from karpenter_gpu.analysis.diff.read import InputProblems, Key, Side, load_side, side_of
from karpenter_gpu.analysis.diff.render import (
    cost_markdown, cost_text, render_json, render_markdown, render_text, summary,
)
from karpenter_gpu.analysis.diff.verdict import Hit, failed, hits

__all__ = [
    "EVENTUALLY_CONSISTENT", "FAIL_ON", "Category", "Change", "Choice", "CostReport", "EnvironmentCost",
    "Hit", "InputProblems", "Key", "PoolCost", "Side", "classify", "cost_changes", "cost_exceeded", "cost_json",
    "cost_markdown", "cost_text", "failed", "hits", "load_side", "render_json", "render_markdown", "render_text", "side_of",
    "summary",
]
