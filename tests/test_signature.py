"""One constructor shape for every construct, keyword props that mirror the props models, real signatures."""

from __future__ import annotations

import importlib.util
import inspect
import pydoc
import types
import typing
from typing import Annotated, Literal, get_args, get_origin

import cdk8s
import pytest
import typing_extensions
from constructs import Construct

import karpenter_gpu
from karpenter_gpu import (AmiAlias, GpuInferencePool, GpuInferencePoolProps, GpuNodeClass, GpuNodeClassProps,
                           GpuPlatform, KarpenterGpuError, RootVolume)
from karpenter_gpu._signature import keyword_props
from stacks import dev

#: Exported bases that are extended, not instantiated: they take the props of their subclasses.
BASES = {"GpuPool", "HelmValues"}


def _has_props(cls: type) -> bool:
    """Anything beyond (scope, id): a construct that takes nothing else has no props to type."""
    code = cls.__init__.__code__
    return code.co_argcount + code.co_kwonlyargcount > 3 or bool(code.co_flags & inspect.CO_VARKEYWORDS)


CONSTRUCTS = sorted(name for name in karpenter_gpu.__all__
                    if isinstance(getattr(karpenter_gpu, name), type)
                    and issubclass(getattr(karpenter_gpu, name), Construct) and name not in BASES
                    and _has_props(getattr(karpenter_gpu, name)))
FACTORIES = [GpuNodeClass.inference, GpuNodeClass.training]


def _callables():
    return [(name, getattr(karpenter_gpu, name).__init__) for name in CONSTRUCTS] + [
        (f.__qualname__, f.__func__) for f in FACTORIES]


def _norm(t: object) -> object:
    """A type, comparable however it was spelled: Annotated metadata dropped, unions unordered,
    ``typing.Mapping`` and ``collections.abc.Mapping`` the same."""
    origin = get_origin(t)
    if origin is Annotated:
        return _norm(get_args(t)[0])
    if origin in (typing.Union, types.UnionType):
        return ("union", frozenset(_norm(a) for a in get_args(t)))
    if origin is Literal:
        return ("literal", frozenset(get_args(t)))
    if origin is not None:
        return (origin, tuple(_norm(a) for a in get_args(t)))
    return t


def _agrees(keyword: object, field: object) -> bool:
    """The keyword prop's type is the field's type; where the field is ``Any`` (a construct reference that
    pydantic cannot type, checked by a validator instead) the keyword prop states the real type."""
    if field is typing.Any:
        return keyword is not typing.Any
    if get_origin(field) is Annotated:
        return _agrees(keyword, get_args(field)[0])
    if get_origin(keyword) is Annotated:
        return _agrees(get_args(keyword)[0], field)
    unions = (typing.Union, types.UnionType)
    if get_origin(field) in unions and get_origin(keyword) in unions:
        k, f = get_args(keyword), get_args(field)
        return all(any(_agrees(a, b) for a in k) for b in f) and all(any(_agrees(a, b) for b in f) for a in k)
    k_args, f_args = get_args(keyword), get_args(field)
    if get_origin(field) is not None and _norm(get_origin(keyword)) == _norm(get_origin(field)) \
            and len(k_args) == len(f_args) and get_origin(field) is not Literal:
        return all(a is b or _agrees(a, b) for a, b in zip(k_args, f_args))
    return _norm(keyword) == _norm(field)


def test_every_construct_is_listed():
    assert {"GpuNodeClass", "GpuInferencePool", "GpuTrainingPool", "ReservedCapacityPool", "StaticCapacityPool",
            "TieredSpotPools", "GpuCapacityOverlay", "NodeOverlayDiscourage", "TimeSlicingOverlay", "GpuMonitoring",
            "GpuWorkload", "GpuOperatorValues", "KarpenterControllerValues", "GpuPlatform"} <= set(CONSTRUCTS)


@pytest.mark.parametrize("name, func", _callables(), ids=[n for n, _ in _callables()])
def test_constructor_shape_is_scope_id_props_and_typed_keywords(name, func):
    # As declared (inspect.signature shows the expanded one): positional, keyword-only, then **kwargs.
    code = func.__code__
    positional = code.co_varnames[:code.co_argcount]
    keyword_only = code.co_varnames[code.co_argcount:code.co_argcount + code.co_kwonlyargcount]
    assert positional[1:3] == ("scope", "id") and keyword_only[-1] == "props"
    assert func.__kwdefaults__["props"] is None
    assert code.co_flags & inspect.CO_VARKEYWORDS and not code.co_flags & inspect.CO_VARARGS
    assert code.co_varnames[len(positional) + len(keyword_only)] == "kwargs"
    model, typed_dict = keyword_props(func)
    assert model is not None and typed_dict is not None, f"{name}: props: XProps | None, **kwargs: Unpack[XKwargs]"
    assert typed_dict.__total__ is False and not typed_dict.__required_keys__


@pytest.mark.parametrize("name, func", _callables(), ids=[n for n, _ in _callables()])
def test_keyword_props_are_exactly_the_props_fields_with_the_same_types(name, func):
    # So Thing(**kwargs) and Thing(props=ThingProps(**kwargs)) accept the same things, statically too.
    model, typed_dict = keyword_props(func)
    assert set(typed_dict.__annotations__) == set(model.model_fields), (
        f"{typed_dict.__name__} must list exactly the fields of {model.__name__}: "
        f"missing {sorted(set(model.model_fields) - set(typed_dict.__annotations__))}, "
        f"extra {sorted(set(typed_dict.__annotations__) - set(model.model_fields))}")
    hints = typing.get_type_hints(typed_dict)
    wrong = {k: (hints[k], f.annotation) for k, f in model.model_fields.items() if not _agrees(hints[k], f.annotation)}
    assert not wrong, f"{typed_dict.__name__}: key type differs from the {model.__name__} field: {wrong}"


def test_budget_factories_take_the_other_budget_fields():
    from karpenter_gpu import Budget
    from karpenter_gpu.pools.disruption_window import BudgetOptions

    hints = typing.get_type_hints(BudgetOptions)
    assert set(hints) == set(Budget.model_fields) - {"nodes"}
    assert all(_agrees(hints[k], Budget.model_fields[k].annotation) for k in hints)
    for factory in (Budget.percent, Budget.count):
        assert typing.get_type_hints(factory, include_extras=True)["kw"] == typing_extensions.Unpack[BudgetOptions]


@pytest.mark.parametrize("name", CONSTRUCTS)
def test_inspect_signature_lists_every_prop_with_its_default(name):
    cls = getattr(karpenter_gpu, name)
    model, _ = keyword_props(cls.__init__)
    params = inspect.signature(cls).parameters
    assert "self" not in params and not any(p.kind is p.VAR_KEYWORD for p in params.values())
    assert set(model.model_fields) <= set(params)
    for key, field in model.model_fields.items():
        expected = inspect.Parameter.empty if field.is_required() else field.get_default(call_default_factory=True)
        assert params[key].kind is inspect.Parameter.KEYWORD_ONLY
        assert params[key].default == expected, key


def test_signature_reads_like_the_call():
    sig = str(inspect.signature(GpuInferencePool))
    assert sig.startswith("(scope: 'Construct', id: 'str', *, node_class: 'GpuNodeClass | AutoModeNodeClass', "
                          "props: 'GpuInferencePoolProps | None' = None, name: 'str', gpu_limit: 'int', ")
    assert "weight: 'int' = 60" in sig and "**" not in sig and "-> " not in sig
    factory = str(inspect.signature(GpuNodeClass.inference))
    assert "ami: 'AmiAlias', name: 'str'" in factory and factory.endswith("-> 'GpuNodeClass'")


def test_help_shows_the_real_parameters():
    text = pydoc.render_doc(GpuInferencePool, renderer=pydoc.plaintext)
    assert "GpuInferencePool(scope: 'Construct', id: 'str', *, node_class: 'GpuNodeClass | AutoModeNodeClass'" in text
    assert "gpu_limit: 'int'" in text and "(*args, **kwargs)" not in text
    assert "ami: 'AmiAlias'" in pydoc.render_doc(GpuNodeClass.inference, renderer=pydoc.plaintext)


def test_a_subclass_with_its_own_init_shows_its_own_signature():
    class Custom(GpuInferencePool):
        def __init__(self, scope: Construct, id: str, *, size: int) -> None:
            raise NotImplementedError

    assert list(inspect.signature(Custom).parameters) == ["scope", "id", "size"]


@pytest.fixture
def node_class(chart):
    return GpuNodeClass(chart, "Class", name="gpu", ami=AmiAlias.al2023("v20251010"), role="r", cluster_name="c")


def test_props_object_builds_the_same_construct_as_keywords(chart, node_class):
    by_props = GpuInferencePool(chart, "Pool", node_class=node_class,
                                props=GpuInferencePoolProps(name="gpu-a", gpu_limit=8, weight=10))
    other = cdk8s.Chart(cdk8s.Testing.app(), "test")
    other_class = GpuNodeClass(other, "Class", props=node_class.props)
    by_keywords = GpuInferencePool(other, "Pool", node_class=other_class, name="gpu-a", gpu_limit=8, weight=10)
    assert by_props.props == by_keywords.props
    assert cdk8s.Testing.synth(chart) == cdk8s.Testing.synth(other)


def test_fails_when_props_and_keywords_are_both_given(chart, node_class):
    props = GpuNodeClassProps(name="gpu", ami=AmiAlias.al2023("v20251010"), role="r", cluster_name="c")
    with pytest.raises(KarpenterGpuError) as exc:
        GpuNodeClass(chart, "Other", props=props, imds_hop_limit=2)
    assert exc.value.code == "KG820" and exc.value.prop == "imds_hop_limit" and exc.value.path == "test/Other"
    with pytest.raises(KarpenterGpuError) as exc:
        GpuPlatform(cdk8s.Testing.app(), props=dev.CONFIG, environment="other")
    assert exc.value.code == "KG820" and exc.value.prop == "environment"
    assert "Other" not in [c.node.id for c in chart.node.children]


def test_factory_presets_apply_to_keywords_and_to_props_without_a_volume(chart):
    def props(name: str, **more: object) -> GpuNodeClassProps:
        return GpuNodeClassProps(name=name, ami=AmiAlias.al2023("v20251010"), role="r", cluster_name="c", **more)

    assert GpuNodeClass.training(chart, "A", props=props("gpu-a")).props.root_volume == RootVolume.training()
    keywords = {k: getattr(props("gpu-b"), k) for k in props("gpu-b").model_fields_set}
    assert GpuNodeClass.training(chart, "B", **keywords).props.root_volume == RootVolume.training()
    mine = RootVolume(size=RootVolume.training().size, iops=4000)
    assert GpuNodeClass.training(chart, "C", props=props("gpu-c", root_volume=mine)).props.root_volume == mine
    with pytest.raises(KarpenterGpuError) as exc:
        GpuNodeClass.inference(chart, "D", props=props("gpu-d"), name="other")
    assert exc.value.code == "KG820"


def test_acknowledge_is_the_function_after_the_platform_is_imported():
    import karpenter_gpu.gpu_platform  # imports karpenter_gpu.check.acknowledge
    from karpenter_gpu import acknowledge

    assert inspect.isfunction(acknowledge)
    # No exported name is also a submodule of the package root, which an import would bind over it.
    assert [n for n in karpenter_gpu.__all__ if importlib.util.find_spec(f"karpenter_gpu.{n}") is not None] == []
