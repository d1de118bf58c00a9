"""Acknowledge a validation warning on a construct, with the reason, in the objects it renders.

Like aws-cdk's ``Annotations.acknowledgeWarning``, but the acknowledgement travels with the
manifest (annotation ``karpenter-gpu.io/acknowledge``), so ``karpenter-gpu validate dist/`` honours
it and reviewers see the reason in the diff. Object metadata annotations never drift nodes.
Errors cannot be acknowledged.
"""

from __future__ import annotations

import re

import cdk8s
from constructs import Construct

from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.apiserver.findings import ACKNOWLEDGE_ANNOTATION
from karpenter_gpu.check.rules import known_code

_CODE = re.compile(r"^KG[0-9]{3}\Z")


def acknowledge(scope: Construct, code: str, reason: str) -> None:
    """Acknowledge warning ``code`` for every Kubernetes object at or below ``scope``."""
    if not _CODE.match(code) or known_code(code) is None:
        raise KarpenterGpuError("KG100", prop="code", value=code, allowed="a karpenter-gpu finding code such as 'KG404'",
                                fix="copy the code from the validate output", path=scope.node.path)
    if not reason.strip() or ";" in reason:
        raise KarpenterGpuError("KG100", prop="reason", value=reason,
                                allowed="a non-empty reason without ';' (it separates acknowledgements)",
                                fix="say why the warning does not apply here", path=scope.node.path)
    objects = [c for c in scope.node.find_all() if isinstance(c, cdk8s.ApiObject)]
    if not objects:
        raise KarpenterGpuError("KG100", prop="scope", value=scope.node.path,
                                allowed="a construct that renders at least one Kubernetes object",
                                fix="acknowledge on the pool, node class or overlay construct", path=scope.node.path)
    for obj in objects:
        current = (obj.metadata.to_json().get("annotations") or {}).get(ACKNOWLEDGE_ANNOTATION)
        entries = [e for e in (current or "").split("; ") if e and not e.startswith(f"{code}:")]
        entries.append(f"{code}: {reason.strip()}")
        obj.metadata.add_annotation(ACKNOWLEDGE_ANNOTATION, "; ".join(sorted(entries)))
