"""Frozen pydantic props and the translation of pydantic errors into coded errors."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any, TypeVar
from weakref import WeakKeyDictionary

from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError

from karpenter_gpu.errors import KarpenterGpuError

P = TypeVar("P", bound=BaseModel)


class Props(BaseModel):
    """Base of every props model: immutable, unknown fields rejected, validated once."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True,
                              validate_default=True)

    def __init__(self, /, **data: Any) -> None:
        # Users build value objects directly (DisruptionWindow(...)): they get the coded error too,
        # not pydantic's ValidationError.
        try:
            super().__init__(**data)
        except ValidationError as err:
            coded = to_coded(err)
            coded.relative = True  # its prop is relative to this model; an enclosing model prefixes it
            raise coded from None


def _loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def to_coded(err: ValidationError, path: str | None = None) -> KarpenterGpuError:
    """The first pydantic error as a KarpenterGpuError (one clear error beats a wall of them)."""
    first = err.errors(include_url=False)[0]
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
        allowed, fix = "unknown prop", f"remove '{loc}' or check its spelling against the construct's props"
    elif kind == "missing":
        value, allowed, fix = None, "this prop is required", f"pass {loc}=..."
    else:
        allowed, fix = first.get("msg", "invalid value"), f"give {loc} a value of the documented type"
    return KarpenterGpuError("KG100", prop=loc or "props", value=value, allowed=allowed, fix=fix, path=path)


# A construct's path and root never change once it exists, so each scope's are read over jsii once
# (two pipe round trips each) and kept on the Python side; weak keys, so a dropped app frees them.
_PATHS: WeakKeyDictionary[Any, str] = WeakKeyDictionary()
_ROOTS: WeakKeyDictionary[Any, Any] = WeakKeyDictionary()


def path_of(scope: Any, id: str) -> str:
    """The construct path a child ``id`` of ``scope`` will have: errors name it before the child exists."""
    base = _PATHS.get(scope)
    if base is None:
        base = _PATHS[scope] = scope.node.path
    return f"{base}/{id}".lstrip("/")


def root_of(scope: Any) -> Any:
    """The root (the App) of ``scope``'s construct tree, read over jsii once per scope."""
    root = _ROOTS.get(scope)
    if root is None:
        root = _ROOTS[scope] = scope.node.root
    return root


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


_DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


def check_dns1123(name: str, prop: str = "name") -> str:
    """Karpenter object names must be DNS-1123 labels (pods select them by karpenter.sh/nodepool)."""
    if not isinstance(name, str) or len(name) > 63 or not _DNS1123_LABEL.match(name):
        raise KarpenterGpuError("KG120", prop=prop, value=name,
                                allowed="a DNS-1123 label: ≤63 lowercase alphanumerics or '-', "
                                        "starting and ending alphanumeric",
                                fix="e.g. 'gpu-inference'")
    return name


#: A props field holding a Karpenter object name.
DnsLabel = Annotated[str, AfterValidator(check_dns1123)]
