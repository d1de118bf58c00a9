"""Real call signatures for constructs: ``Thing(scope, id, *, props=None, **kwargs: Unpack[ThingKwargs])``.

Type checkers read the ``Unpack[ThingKwargs]`` TypedDict (PEP 692) directly. ``inspect.signature``
and ``help()`` do not expand it, and jsii's metaclass ``__call__(*args, **kwargs)`` hides even the
``__init__`` signature; :class:`ConstructSignature` gives every construct class a ``__signature__``
listing each keyword prop with its annotation and its default, read from the props model (defaults
are declared once, there). A prop that is required when passed as a keyword shows no default.
"""

from __future__ import annotations

import inspect
import types
import typing
from typing import Any, Callable, TypeVar, get_args, get_origin

from pydantic import BaseModel
from typing_extensions import Unpack

_KEYWORD = inspect.Parameter.KEYWORD_ONLY


def _props_model(hint: Any) -> type[BaseModel] | None:
    """The props model in ``props: ThingProps | None``."""
    for arg in get_args(hint) if get_origin(hint) in (typing.Union, types.UnionType) else (hint,):
        if isinstance(arg, type) and issubclass(arg, BaseModel):
            return arg
    return None


def _hint(func: Any, name: str) -> Any:
    # Only the two annotations needed, so a factory can be decorated inside its class body (where a
    # return annotation naming the class does not resolve yet).
    raw = func.__annotations__.get(name)
    return eval(raw, func.__globals__) if isinstance(raw, str) else raw  # our own annotations


def keyword_props(func: Any) -> tuple[type[BaseModel] | None, Any]:
    """(props model, kwargs TypedDict) of ``func(..., props: ThingProps | None, **kwargs: Unpack[ThingKwargs])``;
    either is None when ``func`` has no such parameter."""
    kwargs = _hint(func, "kwargs")
    typed_dict = get_args(kwargs)[0] if get_origin(kwargs) is Unpack else None
    return _props_model(_hint(func, "props")), typed_dict


def _annotation(typed_dict: Any, key: str) -> Any:
    raw = typed_dict.__annotations__[key]
    return getattr(raw, "__forward_arg__", raw)  # the source text, as for the other parameters


def expand(func: Any) -> inspect.Signature:
    """``func``'s signature with ``**kwargs: Unpack[ThingKwargs]`` replaced by one keyword-only parameter
    per prop: its annotation, and its default from the props model (required props first, no default)."""
    sig = inspect.signature(func)
    model, typed_dict = keyword_props(func)
    if typed_dict is None or model is None:
        return sig
    fields = model.model_fields
    keys = [k for k in fields if k in typed_dict.__annotations__]
    ordered = [k for k in keys if fields[k].is_required()] + [k for k in keys if not fields[k].is_required()]
    props = [inspect.Parameter(k, _KEYWORD, annotation=_annotation(typed_dict, k),
                               default=inspect.Parameter.empty if fields[k].is_required()
                               else fields[k].get_default(call_default_factory=True))
             for k in ordered]
    head = [p for p in sig.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    return sig.replace(parameters=head + props)


F = TypeVar("F", bound=Callable[..., Any])


def keyword_signature(func: F) -> F:
    """Decorator for factories such as ``GpuNodeClass.inference``: ``help()`` lists the keyword props."""
    func.__signature__ = expand(func)  # type: ignore[attr-defined]
    return func


class ConstructSignature:
    """Class attribute ``__signature__ = ConstructSignature()``: computed per class, so a subclass with its
    own ``__init__`` shows its own parameters."""

    def __get__(self, instance: object, owner: type) -> inspect.Signature | None:
        if instance is not None:
            return None  # an instance is not called; inspect falls back to its __call__
        sig = expand(owner.__init__)  # type: ignore[misc]
        # Without self, and without __init__'s "-> None": calling the class returns an instance.
        return sig.replace(parameters=list(sig.parameters.values())[1:], return_annotation=inspect.Signature.empty)
