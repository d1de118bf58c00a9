"""One name per concept: no two classes of the package share a name (a reader meeting ``Environment`` must know
which one it is), and a shared constant has one home. The one pair left is named here with its reason."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import karpenter_gpu

PACKAGE = Path(karpenter_gpu.__file__).resolve().parent

#: Class names defined twice on purpose, with why.
TWICE = {
    # The public builder users write into a NodePool (karpenter_gpu.Requirement, k8s/requirements.py) and the
    # scheduling core's value set (k8s/scheduling.py, Karpenter's own requirement.go name); renaming the public one
    # would break every user's code, renaming the core's would lose the upstream name it is checked against.
    "Requirement": {"k8s/requirements.py", "k8s/scheduling.py"},
}


def classes() -> dict[str, set[str]]:
    found: dict[str, set[str]] = defaultdict(set)
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef):
                found[node.name].add(path.relative_to(PACKAGE).as_posix())
    return found


def test_no_two_classes_share_a_name():
    twice = {name: homes for name, homes in classes().items() if len(homes) > 1}
    assert twice == TWICE


def test_the_helm_folder_has_one_home():
    from karpenter_gpu.k8s import input_layout
    from karpenter_gpu.output import layout
    assert input_layout.HELM_DIR is layout.HELM_DIR
    assumed = [p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py")
               if 'HELM_DIR = "' in p.read_text(encoding="utf-8")]
    assert assumed == ["output/layout.py"]


def test_node_means_a_kubernetes_node_the_runtime_is_nodejs():
    """Node.js for jsii lives in _nodejs; nothing else is named after the runtime."""
    assert (PACKAGE / "_nodejs.py").exists() and not (PACKAGE / "_node.py").exists()
