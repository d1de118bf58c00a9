"""``--fail-on``: whether a change set fails the review."""

from __future__ import annotations

from typing import Iterable

from karpenter_gpu.analysis.diff.classify import FAIL_ON, Change


def failed(changes: list[Change], fail_on: Iterable[str]) -> bool:
    watched = frozenset().union(*(FAIL_ON[f] for f in fail_on))
    return any(c.category in watched for c in changes)
