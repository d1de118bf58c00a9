"""Frozen pydantic props and the translation of pydantic errors into coded errors."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from types import UnionType
from typing import Annotated, Any, ClassVar, TypeVar, Union, get_args, get_origin

from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError, model_validator

from karpenter_gpu.errors import KarpenterGpuError, echo
from karpenter_gpu.k8s.names import check_dns1123

P = TypeVar("P", bound=BaseModel)


def _tuple_item(annotation: Any) -> str | None:
    """The item type's name when ``annotation`` is a plain ``tuple[X, ...]`` (or ``tuple[X, ...] | None``)."""
    if get_origin(annotation) in (Union, UnionType):
        found = [_tuple_item(a) for a in get_args(annotation) if a is not type(None)]
        return found[0] if len(found) == 1 else None
    if get_origin(annotation) is tuple:
        args = get_args(annotation)
        item = args[0] if args else Any
        return getattr(item, "__name__", None) or str(item)
    return None


def check_known(model: type[BaseModel], data: dict) -> None:
    """A misspelt keyword is an unknown prop naming the closest one, never "<real prop> is required"."""
    foreign = getattr(model, "refused_props", ())
    unknown = [k for k in data if k not in model.model_fields and k not in foreign]
    if unknown:
        name = str(unknown[0])
        raise KarpenterGpuError("KG100", prop=name, value=data[unknown[0]], allowed=f"unknown prop{_closest(name, model)}",
                                fix=f"remove '{name}' or check its spelling against the construct's props")


class Props(BaseModel):
    """Base of every props model: immutable, unknown fields rejected, validated once."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True,
                              validate_default=True)
    #: Names that are not props of this model but that its own validators refuse with a specific code
    #: (a static pool's ``weight``): not reported as typos.
    refused_props: ClassVar[tuple[str, ...]] = ()

    @model_validator(mode="before")
    @classmethod
    def _containers(cls, data: Any) -> Any:
        # pydantic iterates a model given where a tuple is expected (a model yields (field, value) pairs)
        # and reports a confusing error on its items: say what is expected instead.
        if not isinstance(data, dict):
            return data
        check_known(cls, data)
        own = {f for d in cls.__pydantic_decorators__.field_validators.values()
               if d.info.mode in ("before", "wrap", "plain") for f in d.info.fields}
        for name, value in data.items():
            field = cls.model_fields.get(name)
            if field is None or value is None or isinstance(value, (list, tuple)) or field.metadata or name in own:
                continue  # fields with their own before-validator say what they expect themselves
            item = _tuple_item(field.annotation)
            if item is not None:
                given = type(value).__name__
                raise KarpenterGpuError("KG100", prop=name, value=given,
                                        allowed=f"a tuple of {item}, not a single {given}",
                                        fix=f"wrap it in a tuple: {name}=(<the {given}>,)")
        return data

    def __init__(self, /, **data: Any) -> None:
        # Users build value objects directly (DisruptionWindow(...)): they get the coded error too,
        # not pydantic's ValidationError.
        try:
            check_known(type(self), data)  # first: a subclass's own before-validators run ahead of the base's
            super().__init__(**data)
        except KarpenterGpuError as err:
            located = _named(err, type(self), data)
            located.relative = True
            raise located from None
        except ValidationError as err:
            coded = _named(to_coded(err, model=type(self)), type(self), data)
            coded.relative = True  # its prop is relative to this model; an enclosing model prefixes it
            raise coded from None


def _named(err: KarpenterGpuError, model: type[BaseModel], data: Mapping[str, Any]) -> KarpenterGpuError:
    """``err`` located at the object being built, when nothing more precise is known: a props model of a named
    object (a pool, a ladder, a node group) says which one (``GpuInferencePoolProps 'search-inference'``), since
    an error raised while the user builds it has no construct path yet."""
    name = data.get("name")
    if err.path is not None or "name" not in model.model_fields or not isinstance(name, str) or err.prop == "name":
        return err
    return err.at(path=f"{model.__name__} {echo(name)}")


def _loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


#: pydantic error types of a value that is not the container the field holds, and what to say instead.
_CONTAINERS = {"tuple_type": "a tuple", "list_type": "a list", "set_type": "a set", "frozen_set_type": "a frozenset",
               "dict_type": "a mapping", "mapping_type": "a mapping"}


def _first(errors: Sequence[Any]) -> Any:
    # A misspelt keyword shows up twice: "missing" for the real prop and "extra" for the typo. The typo is
    # the one to report (with the closest valid prop); otherwise the first error.
    return next((e for e in errors if e.get("type") == "extra_forbidden"), errors[0])


def _model_at(model: type[BaseModel] | None, loc: tuple[Any, ...]) -> type[BaseModel] | None:
    """The props model a nested error location points into (``inference.0.gpu_limt`` → GpuInferencePoolProps)."""
    for part in loc:
        if model is None:
            return None
        if isinstance(part, int):
            continue  # an item of a tuple: the item type was taken with the field
        field = model.model_fields.get(str(part))
        if field is None:
            return None
        model = _model_in(field.annotation)
    return model


def _model_in(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


#: Props people reach for that no construct has, and how to say what they mean (for a model with a ``requirements``
#: prop): the closest spelling (``instance_types`` -> ``instance_sizes``) would mean something else.
_MEANT: dict[str, str] = {
    "instance_types": "to pin instance types, add requirements=(Requirement.in_(Label.INSTANCE_TYPE, "
                      "('g5.xlarge', 'g5.2xlarge')),)",
    "instance_families": "to pin instance families, add requirements=(Requirement.in_(Label.INSTANCE_FAMILY, "
                         "('g5', 'g6')),)",
}


def _closest(name: str, model: type[BaseModel] | None) -> str:
    if model is None:
        return ""
    if name in _MEANT and "requirements" in model.model_fields:
        return f"; {_MEANT[name]}"
    match = difflib.get_close_matches(name, list(model.model_fields), n=1, cutoff=0.6)
    return f"; did you mean {match[0]!r}?" if match else ""


def to_coded(err: ValidationError, path: str | None = None, model: type[BaseModel] | None = None) -> KarpenterGpuError:
    """One pydantic error as a KarpenterGpuError (one clear error beats a wall of them)."""
    first = _first(err.errors(include_url=False))
    loc = _loc(first.get("loc", ()))
    inner = (first.get("ctx") or {}).get("error")
    if isinstance(inner, KarpenterGpuError):
        if getattr(inner, "relative", False) and loc:
            prop = f"{loc}.{inner.prop}"  # from a nested props model
        elif loc and not inner.prop.startswith(loc):
            prop = loc  # from a value object, which does not know the field it was given to
        else:
            prop = inner.prop  # from this model's own validator
        return inner.at(path=path, prop=prop)
    kind = first.get("type", "")
    value = first.get("input")
    if kind == "extra_forbidden":
        full = tuple(first.get("loc", ("",)))
        name = str(full[-1])
        owner = _model_at(model, full[:-1])
        allowed = f"unknown prop{_closest(name, owner)}"
        fix = f"remove '{loc}' or check its spelling against the construct's props"
    elif kind == "missing":
        value, allowed, fix = None, "this prop is required", f"pass {loc}=..."
    elif kind in _CONTAINERS:
        what = _CONTAINERS[kind]
        value = type(value).__name__
        allowed = f"{what} of values, not a single {value}"
        fix = (f"wrap it: {loc}=(<the {value}>,)" if what in ("a tuple", "a list")
               else f"pass {what} for {loc}")
    else:
        allowed, fix = first.get("msg", "invalid value"), f"give {loc} a value of the documented type"
    return KarpenterGpuError("KG100", prop=loc or "props", value=value, allowed=allowed, fix=fix, path=path)


def build(model: type[P], path: str | None = None, instance: P | Mapping[str, Any] | None = None, /,
          **values: Any) -> P:
    """Validate props once; raise a coded error located at ``path`` on failure.

    ``instance``, an already-validated ``model`` (or a mapping of its fields), is used as it is
    instead of keyword values.
    """
    if instance is not None:
        if values:
            raise KarpenterGpuError("KG820", prop=", ".join(values), value="given with props=",
                                    allowed="either props=<validated props> or keyword props, not both",
                                    fix=f"pass every prop as a keyword, or every prop in props={model.__name__}(...)",
                                    path=path)
        if isinstance(instance, model):
            return instance
        values = dict(instance)
    try:
        return model(**values)
    except KarpenterGpuError as err:
        raise err.at(path=path) from None


#: A props field holding a Karpenter object name (a DNS-1123 label, :func:`~karpenter_gpu.k8s.names.check_dns1123`).
DnsLabel = Annotated[str, AfterValidator(check_dns1123)]
