"""The package's layers: every import goes down (or stays in its layer), and no modules import each other in a
circle. Computed from the source (every ``import``, also inside functions and ``TYPE_CHECKING`` blocks).

The order, lowest first, follows DESIGN.md ("lower layers never import higher ones") and what the code needs:
the errors, the generated CRD bindings, the escaping of text and the safe output folder (``output/``: it knows
nothing of what synth writes into it); ``k8s/`` (pure Kubernetes and Karpenter
semantics); ``check/``'s CRD schema and CEL conformance; ``analysis/`` (catalog, simulator, explain, diff: pure,
no jsii, so it imports no construct); ``check/rules/`` and ``check/validate`` (the rules consult the simulator);
the construct base (props, the jsii boundary, the cluster, feature gates, acknowledgements, which look rule codes
up); the overlays, the pools (a MIG pool creates its overlays), the add-ons (they read the pools); the platform
and the synth pipeline (it validates what it writes); the CLI; the package's own ``__init__``.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1] / "constructs"
P = "karpenter_gpu"

#: Layers, lowest first: module prefixes (the longest matching prefix decides).
LAYERS: list[tuple[str, ...]] = [
    (f"{P}.errors", f"{P}.crds", f"{P}.render", f"{P}._fs", f"{P}.output", f"{P}._startup", f"{P}._version", f"{P}.upstream",
     f"{P}.perf"),
    (f"{P}.k8s",),
    (f"{P}.apiserver",),
    (f"{P}.analysis",),
    (f"{P}.check",),
    (f"{P}._props", f"{P}._construct_tree", f"{P}._signature", f"{P}._nodejs", f"{P}._api_object", f"{P}.cluster", f"{P}.feature_gates",
     f"{P}.check.acknowledge"),
    (f"{P}.overlays",),
    (f"{P}.pools",),
    (f"{P}.addons",),
    (f"{P}.gpu_platform", f"{P}.pipeline", f"{P}.synth_check", f"{P}.importer"),
    (f"{P}.cli",),
    (P,),
]


def modules() -> dict[str, Path]:
    out = {}
    for path in sorted((SOURCE / P).rglob("*.py")):
        parts = path.relative_to(SOURCE).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def layer_of(module: str) -> int:
    best, found = -1, None
    for i, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, found = len(prefix), i
    assert found is not None, f"{module} is in no layer: add it to LAYERS"
    return found


def imports(known: dict[str, Path]) -> dict[str, set[str]]:
    """module -> the package modules it imports (``from a import b`` counts as ``a.b`` when that is a module)."""
    def resolve(name: str) -> str | None:
        if name.startswith(f"{P}.crds"):
            return f"{P}.crds"
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name or None

    out: dict[str, set[str]] = {}
    for module, path in known.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
                    for _ in range(node.level - 1):
                        package = package.rpartition(".")[0]
                    base = f"{package}.{base}" if base else package
                names = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
            for name in names:
                if name == P or name.startswith(P + "."):
                    target = resolve(name)
                    if target is not None and target != module:
                        found.add(target)
        out[module] = found
    return out


@functools.cache
def package_graph() -> dict[str, set[str]]:
    """The package's import graph, parsed once per test process (the three tests below read it)."""
    return imports(modules())


def upward(graph: dict[str, set[str]]) -> list[str]:
    return sorted(f"{m} (layer {layer_of(m)}) imports {t} (layer {layer_of(t)})"
                  for m, targets in graph.items() for t in targets if layer_of(t) > layer_of(m))


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles: strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_goes_up_a_layer():
    assert upward(package_graph()) == []


def test_no_import_circle():
    assert circles(package_graph()) == []


def test_the_checks_see_an_upward_import_and_a_circle():
    k8s, check, pools = f"{P}.k8s.windows", f"{P}.apiserver.findings", f"{P}.pools._node_pool"
    assert upward({k8s: {pools}, pools: {k8s}}) == [f"{k8s} (layer 1) imports {pools} (layer 7)"]
    assert circles({check: {f"{P}.apiserver._cel"}, f"{P}.apiserver._cel": {check}, k8s: set()}) == [
        [f"{P}.apiserver._cel", check]]


def test_the_layers_are_in_the_documented_order():
    assert layer_of(f"{P}.k8s.scheduling") < layer_of(f"{P}.apiserver.conformance") < layer_of(f"{P}.analysis.simulator")
    assert layer_of(f"{P}.analysis.simulator") < layer_of(f"{P}.check.rules.limits") < layer_of(f"{P}.pools._node_pool")
    graph = package_graph()
    assert f"{P}.k8s.windows" in graph[f"{P}.pools._node_pool"]  # windows moved down, written by pools
    assert f"{P}.apiserver._problems" in graph[f"{P}.apiserver._cel"]


def folder_of(module: str) -> str:
    """The folder a module lives in, one level below the package (``karpenter_gpu.check`` for
    ``karpenter_gpu.check.rules.limits``); a module of the package's own folder stands for itself."""
    parts = module.split(".")
    return ".".join(parts[:2])


def folder_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for module, targets in graph.items():
        out.setdefault(folder_of(module), set()).update(
            folder_of(t) for t in targets if folder_of(t) != folder_of(module))
    return out


def test_no_folder_circle():
    """Folders import one way too: the rules (check/) consult the analyzers, which consult the API server's model
    (apiserver/); before, check/ held both ends and analysis/diff imported it back."""
    assert circles(folder_graph(package_graph())) == []


def test_the_folder_check_sees_a_circle():
    graph = {f"{P}.check.rules.limits": {f"{P}.analysis.simulator"}, f"{P}.analysis.diff.cost": {f"{P}.check.crds"}}
    assert circles(folder_graph(graph)) != []


def test_no_module_over_600_lines_and_no_function_over_100():
    """One job per module: every module of the package keeps to 600 lines and every function to 100."""
    long: dict[str, int] = {}
    for path in sorted((SOURCE / P).rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        name = str(path.relative_to(SOURCE))
        if (n := len(text.splitlines())) > 600:
            long[name] = n
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno is not None:
                if (n := node.end_lineno - node.lineno + 1) > 100:
                    long[f"{name}:{node.name}"] = n
    assert long == {}


def test_the_output_folder_library_imports_nothing_of_the_synth_side():
    """One direction: the pipeline uses the output folder, never the other way round."""
    graph = package_graph()
    library = {m: t for m, t in graph.items() if m == f"{P}.output" or m.startswith(f"{P}.output.")}
    assert library and {t for targets in library.values() for t in targets
                        if t != f"{P}.output" and not t.startswith(f"{P}.output.")} <= {f"{P}.errors", f"{P}._fs"}
    assert f"{P}.output" in graph[f"{P}.pipeline"]
