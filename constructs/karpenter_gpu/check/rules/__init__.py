"""The project's own rules beyond the CRDs (``karpenter-gpu validate``, scope 2), as a registry.

The CRD schema says what the API server accepts; these rules say what costs money or kills jobs once it is
accepted. They run on plain manifest dicts, so they check any ``dist/`` folder or hand-written YAML, not only this
library's output. One call sees one environment (one folder): cross-object rules (pool weights) compare the
objects of that set.

Each rule lives in the module of its family (``limits``, ``disruption``, ``weights`` …), declared once with
:func:`~karpenter_gpu.check.rules._registry.rule`: code, severity, title and a docstring in sections, from which
``docs/rules.md`` is generated (``make rules-doc``). Adding a rule touches its family module and its fixtures
(``tests/fixtures/rules/<CODE>/``) only: the families are found here by listing the package.

Each finding has a stable code, a severity, a field path such as ``spec.template.spec.requirements[2]`` and a
message saying what happens in production and how to fix it. A WARNING whose code is acknowledged on the object
(annotation ``karpenter-gpu.io/acknowledge``) is reported as INFO, prefixed ``acknowledged: ``. Errors cannot be
acknowledged.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import MappingProxyType
from typing import Any, Mapping, Sequence

from karpenter_gpu.apiserver.findings import Finding
from karpenter_gpu.check.rules._model import GPU_OPERATOR_VALUES, RuleEnvironment
from karpenter_gpu.check.rules._registry import REGISTRY, SECTIONS, Rule, RuleDeclarationError, rule
from karpenter_gpu.errors import CODES
from karpenter_gpu.k8s.controller_settings import ControllerSettings

__all__ = ["FAMILIES", "GPU_OPERATOR_VALUES", "REGISTRY", "RULES", "SECTIONS", "Rule", "RuleDeclarationError",
           "check_rules", "known_code", "rule"]

#: The family modules, in name order (every public module of this package).
FAMILIES: tuple[str, ...] = tuple(sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_")))
for _family in FAMILIES:
    importlib.import_module(f"{__name__}.{_family}")

#: Every rule by code, in code order (a read-only view of the registry).
RULES: Mapping[str, Rule] = MappingProxyType(dict(sorted(REGISTRY.items())))


def known_code(code: str) -> str | None:
    """The title of any karpenter-gpu code: a rule's (the registry) or a construct/CLI code's (errors.CODES)."""
    found = RULES.get(code)
    return found.title if found is not None else CODES.get(code)


def check_rules(manifests: Sequence[tuple[str, dict]], *, environment: str | None = None,
                values: Mapping[str, Any] | None = None,
                settings: ControllerSettings | None = None) -> list[Finding]:
    """Run every rule on one environment's manifests, given as ``(file, manifest)`` pairs.

    Only NodePools (karpenter.sh/v1), EC2NodeClasses (karpenter.k8s.aws/v1), NodeOverlays (karpenter.sh/v1alpha1),
    Auto Mode NodeClasses, hybrid node group ConfigMaps and workloads (Pod, Deployment, StatefulSet, ReplicaSet,
    DaemonSet, Job, CronJob) are looked at; anything else is ignored. ``environment`` "prod" makes KG411 an error.
    ``values`` are the environment's Helm values by file name (``gpu-operator.values.yaml`` is read by the MIG
    rules). ``settings``: the Karpenter controller's (:mod:`~karpenter_gpu.k8s.controller_settings`; None: the
    chart's defaults), which the simulation the rules consult runs under. The rules run in code order; findings
    come back in manifest order.
    """
    env = RuleEnvironment(manifests, environment, values, settings)
    for declared in RULES.values():
        declared.check(env)
    return [finding for obj in env.objects for finding in obj.reported()]
