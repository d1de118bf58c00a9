"""Values for the ``placement`` family drawn from the charts' full key trees, and its coverage line.

Each case's GPU Operator and Karpenter values set keys drawn from every key path the pinned charts read (the key
trees of ``data/charts.json``: ``values.yaml`` united with every ``.Values`` path of the templates, the NFD subchart
under ``node-feature-discovery``), each to a random value of the type its default has in the charts' own
``values.yaml`` (read here, from the vendored GPU Operator chart and the Karpenter chart of the Go module cache):
booleans flipped, numbers and strings redrawn, lists emptied or grown, ``tolerations`` / ``nodeSelector`` /
``affinity`` drawn at random (Exists and Equal, every effect), ``null`` (Helm deletes the key), plus unknown keys
near real ones (a misspelling at a real key's place). The core must answer what the rendered charts do, or say
"not modelled: <path>".

:class:`Coverage` counts, per chart, the key paths the cases set and, on a bounded sample re-rendered without the
path, how many change the charts' answer (in the style of tests/oracle/coverage.py).
"""

from __future__ import annotations

import copy
import json
import random
import re
import string
import subprocess
from functools import lru_cache, cache
from pathlib import Path
from typing import Any, Callable, Iterator

import yaml

from karpenter_gpu.analysis.operand_placement import chart_data, coalesce
from karpenter_gpu.upstream import KARPENTER_VERSION

HERE = Path(__file__).resolve().parent
GPU_OPERATOR_CHART = HERE / "charts" / "gpu-operator" / "deployments" / "gpu-operator"
CHARTS = ("gpu-operator", "karpenter")
#: Where a case keeps each chart's values.
CASE_KEY = {"gpu-operator": "gpu_operator_values", "karpenter": "karpenter_values"}
#: Keys a template passes to a function that takes only a string (the Karpenter chart's ``tpl`` of the cluster name
#: fails on a deleted key with a Go template error, not the chart's ``required`` message).
_NEVER_NULL = {"settings.clusterName"}
_DURATION = re.compile(r"^\d+(ms|s|m|h)$")
_STRING_MAP = re.compile(r"(?i)(labels|annotations|selector)$")
_STRING = re.compile(r"(?i)(override|name|version|repository|image|tag|digest|class|policy|mode|path|dir)$")
_NUMBER = re.compile(r"(?i)(seconds|replicas|port|threshold|limit|count)$")
#: Strings some keys take from a closed set (a random word would only exercise the reader's refusal).
_CHOICES = {"settings.minValuesPolicy": ["Strict", "BestEffort"], "settings.preferencePolicy": ["Respect", "Ignore"],
            "mig.strategy": ["single", "mixed", "none"], "logLevel": ["debug", "info", "error"],
            "settings.reservedENIs": ["0", "1", "2"]}


@lru_cache(maxsize=1)
def defaults() -> dict[str, Any]:
    """The charts' default values: the GPU Operator's (the NFD subchart's below the parent's
    ``node-feature-discovery``) and the Karpenter chart's."""
    operator = yaml.safe_load((GPU_OPERATOR_CHART / "values.yaml").read_text()) or {}
    nfd = yaml.safe_load((GPU_OPERATOR_CHART / "charts" / "node-feature-discovery" / "values.yaml").read_text()) or {}
    operator["node-feature-discovery"] = coalesce(operator.get("node-feature-discovery") or {}, nfd)
    cache = subprocess.run(["go", "env", "GOMODCACHE"], capture_output=True, text=True, check=True).stdout.strip()
    chart = Path(cache) / "github.com" / "aws" / f"karpenter-provider-aws@v{KARPENTER_VERSION}" / "charts" / "karpenter"
    karpenter = yaml.safe_load((chart / "values.yaml").read_text()) or {}
    return {"gpu-operator": operator, "karpenter": karpenter}


def _leaves(tree: Any, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    if not isinstance(tree, dict):
        yield prefix
        return
    for key in sorted(tree):
        yield from _leaves(tree[key], (*prefix, key))


@lru_cache(maxsize=2)
def key_paths(chart: str) -> tuple[tuple[str, ...], ...]:
    """Every leaf of the chart's key tree (an open node counts as one)."""
    return tuple(p for p in _leaves(chart_data()[chart]["keys"]) if p and p[0] != "global")


def default_at(chart: str, path: tuple[str, ...]) -> Any:
    here: Any = defaults()[chart]
    for part in path:
        if not isinstance(here, dict):
            return None
        here = here.get(part)
    return here


def _word(rng: random.Random) -> str:
    return "x" + "".join(rng.choice(string.ascii_lowercase + string.digits) for _ in range(rng.randint(1, 6)))


def typed(rng: random.Random, chart: str, path: tuple[str, ...], placement: dict[str, Callable[[], Any]]) -> Any:
    """A random value for ``path`` of the type its default has (``placement``: the draws of the placement keys,
    by key name)."""
    name = path[-1]
    default = default_at(chart, path)
    if rng.random() < 0.08 and ".".join(path) not in _NEVER_NULL and not (isinstance(default, (dict, str)) and default):
        return None  # Helm deletes the key: the template sees it unset (not a map or a string the chart sets: the
        # templates read below the one and print the other into the manifest, and crash or write broken YAML)
    if name in placement and not isinstance(default, (bool, str, int, float)):
        return placement[name]()
    dotted = ".".join(path)
    if dotted in _CHOICES:
        return rng.choice(_CHOICES[dotted])
    if isinstance(default, bool):
        return not default
    if isinstance(default, int):
        return rng.choice([0, 1, 2, 3, 5, 10, default + 1])
    if isinstance(default, float):
        return round(rng.uniform(0, 1), 3)
    if isinstance(default, str):
        if _DURATION.match(default):
            return rng.choice(["1s", "30s", "2m", "1h"])
        return rng.choice(["", _word(rng), default + _word(rng)] if default else [_word(rng), ""])
    if isinstance(default, list):
        if not default or rng.random() < 0.4:
            return []
        return copy.deepcopy(default) + [copy.deepcopy(rng.choice(default))]
    if isinstance(default, dict):
        if not default or rng.random() < 0.5:
            return {_word(rng): _word(rng)} if _STRING_MAP.search(name) and rng.random() < 0.5 else {}
        return copy.deepcopy(default)
    # unset by default: the name says what the templates take
    if _STRING.search(name):
        return _word(rng)
    if _NUMBER.search(name):
        return rng.choice([1, 2, 30])
    return {}


def set_path(values: dict, path: tuple[str, ...], value: Any) -> bool:
    """Set ``path`` in ``values`` (maps created on the way); False where a value already set is in the way."""
    here = values
    for part in path[:-1]:
        child = here.setdefault(part, {})
        if not isinstance(child, dict):
            return False
        here = child
    here[path[-1]] = value
    return True


def _misspelt(rng: random.Random, key: str) -> str:
    i = rng.randrange(len(key) + 1)
    kind = rng.choice(["double", "drop", "case", "plural"])
    if kind == "double" and key:
        j = min(i, len(key) - 1)
        return key[:j + 1] + key[j:]
    if kind == "drop" and len(key) > 2:
        j = min(i, len(key) - 1)
        return key[:j] + key[j + 1:]
    if kind == "case" and key:
        return key[0].swapcase() + key[1:]
    return key + "s"


def draw(rng: random.Random, chart: str, values: dict, placement: dict[str, Callable[[], Any]]) -> None:
    """Set some key paths of the chart's whole tree, at random, and now and then an unknown key near a real one."""
    paths = key_paths(chart)
    for _ in range(rng.choice([0, 1, 2, 3, 4, 6, 8])):
        path = rng.choice(paths)
        value = typed(rng, chart, path, placement)
        if _schema_valid(chart, path, value):  # else a value the subchart's values.schema.json refuses: not drawn
            set_path(values, path, value)
    if rng.random() < 0.15:
        path = rng.choice(paths)
        cut = rng.randint(1, len(path))
        near = (*path[:cut - 1], _misspelt(rng, path[cut - 1]))
        if default_at(chart, near) is None and near[-1] not in _known_children(chart, near[:-1]):
            set_path(values, near, typed(rng, chart, path[:cut], placement) if cut == len(path) else {})


@lru_cache(maxsize=1)
def _nfd_schema() -> dict:
    return json.loads((GPU_OPERATOR_CHART / "charts" / "node-feature-discovery" / "values.schema.json").read_text())


@cache
def _validator(path: tuple[str, ...]) -> Any:
    """The NFD subchart's values.schema.json at ``path`` (below node-feature-discovery), None where it says nothing."""
    import jsonschema
    root = _nfd_schema()
    here: Any = root
    for part in path:
        here = (here.get("properties") or {}).get(part) if isinstance(here, dict) else None
        if here is None:
            return None
    return jsonschema.Draft202012Validator({**here, "$defs": root.get("$defs", {})})


def _schema_valid(chart: str, path: tuple[str, ...], value: Any) -> bool:
    """Whether the NFD subchart's values.schema.json accepts ``value`` at ``path`` (Helm validates the subchart's
    values against it and refuses the install otherwise: the generator keeps to values Helm accepts, the schema's
    refusals being Helm's and not the placement's). A null deletes the key: the default stays."""
    if chart != "gpu-operator" or path[0] != "node-feature-discovery" or value is None:
        return True
    validator = _validator(path[1:])
    return validator is None or validator.is_valid(value)


def _known_children(chart: str, parent: tuple[str, ...]) -> set[str]:
    here: Any = chart_data()[chart]["keys"]
    for part in parent:
        here = here.get(part) if isinstance(here, dict) else None
    return set(here) if isinstance(here, dict) else set()


# ----------------------------------------------------------------------------------------------- coverage

def paths_set(chart: str, values: Any) -> set[str]:
    """The key paths ``values`` sets: the chart's leaves (an open node whole) and ``<unknown>`` for any key the
    chart does not have."""
    out: set[str] = set()

    def walk(value: Any, tree: Any, prefix: tuple[str, ...]) -> None:
        if not isinstance(value, dict) or not isinstance(tree, dict):
            out.add(".".join(prefix))
            return
        for key, child in value.items():
            if key not in tree:
                out.add("<unknown>")
            elif prefix == () and key == "settings" and chart == "karpenter" and not isinstance(child, dict):
                out.add("settings")
            else:
                walk(child, tree[key], (*prefix, key))

    if isinstance(values, dict):
        walk(values, chart_data()[chart]["keys"], ())
    return out - {""}


def without(case: dict, chart: str, path: str) -> dict:
    """The case with ``path`` (or every unknown key, for ``<unknown>``) taken out of the chart's values."""
    out = copy.deepcopy(case)
    values = out[CASE_KEY[chart]]
    if path == "<unknown>":
        def prune(value: Any, tree: Any) -> None:
            if isinstance(value, dict) and isinstance(tree, dict):
                for key in list(value):
                    if key not in tree:
                        del value[key]
                    else:
                        prune(value[key], tree[key])
        prune(values, chart_data()[chart]["keys"])
        return out
    parts = path.split(".")
    here = values
    for part in parts[:-1]:
        here = here[part]
    here.pop(parts[-1], None)
    return out


class Coverage:
    """Per chart: the key paths the cases set, and (re-rendered without the path, at most :data:`SAMPLE` cases per
    path and :data:`BUDGET` renders in all) how many change the charts' answer."""

    SAMPLE = 1
    BUDGET = 120

    def __init__(self) -> None:
        self.set: dict[str, dict[str, int]] = {c: {} for c in CHARTS}
        self.sampled: dict[str, dict[str, int]] = {c: {} for c in CHARTS}
        self.changed: dict[str, set[str]] = {c: set() for c in CHARTS}

    def add(self, requests: list[dict], answers: list[dict], run: Callable[[list[dict]], list[dict]]) -> None:
        variants: list[dict] = []
        keys: list[tuple[str, str, dict]] = []
        for request, got in zip(requests, answers, strict=True):
            for chart in CHARTS:
                for path in sorted(paths_set(chart, request["case"][CASE_KEY[chart]])):
                    self.set[chart][path] = self.set[chart].get(path, 0) + 1
                    if self.sampled[chart].get(path, 0) < self.SAMPLE and len(variants) < self.BUDGET:
                        self.sampled[chart][path] = self.sampled[chart].get(path, 0) + 1
                        variants.append({"id": f"{request['id']}-without-{path}",
                                         "case": without(request["case"], chart, path)})
                        keys.append((chart, path, got))
        for (chart, path, got), again in zip(keys, run(variants) if variants else [], strict=True):
            if json.dumps([got.get("answer"), got.get("error")], sort_keys=True) != \
                    json.dumps([again.get("answer"), again.get("error")], sort_keys=True):
                self.changed[chart].add(path)

    def lines(self) -> list[str]:
        out = []
        for chart in CHARTS:
            total = len(key_paths(chart))
            known = [p for p in self.set[chart] if p != "<unknown>"]
            sampled = len(self.sampled[chart])
            changed = sorted(self.changed[chart])
            out.append(f"oracle coverage placement {chart} values: {len(known)} of {total} key paths set "
                       f"({self.set[chart].get('<unknown>', 0)} cases with unknown keys); re-rendered without the path, "
                       f"{len(changed)} of {sampled} sampled changed the charts' answer: {', '.join(changed) or '-'}")
        return out
