"""A quicker ``__init__`` for the frozen, slotted dataclasses built on every request.

A frozen dataclass sets each field with ``object.__setattr__(self, name, value)``: a
generic attribute lookup per field, about twice what setting the slot through its own
member descriptor costs. `quick_init` gives such a class an ``__init__`` that does
the latter, with the very signature, defaults, default factories, ``init=False`` fields
and ``__post_init__`` the dataclass generated. That is checked when the class is
decorated: a class it cannot reproduce exactly raises ``InvalidArgumentTypeError`` (a
``TypeError``) at import. The instance is the same: still frozen (assignment raises
``FrozenInstanceError``), hashed, compared and copied (``dataclasses.replace``) as before.
"""

from __future__ import annotations

import dataclasses
import inspect
import types
from typing import Any, TypeVar

from doc_processing_toolkit.domain.errors import InvalidArgumentTypeError

__all__ = ["quick_init"]

T = TypeVar("T")


def _slot(cls: type, name: str) -> Any:
    """The member descriptor of the slot ``name`` (the class's or a base's)."""
    for klass in cls.__mro__:
        descriptor = klass.__dict__.get(name)
        if descriptor is not None:
            if isinstance(descriptor, types.MemberDescriptorType):
                return descriptor
            break
    raise InvalidArgumentTypeError(f"quick_init: {cls.__qualname__}.{name} is not a slot")


def quick_init(cls: type[T]) -> type[T]:
    """``cls`` (a frozen, slotted dataclass) with its ``__init__`` setting the slots
    through their descriptors; see the module docstring."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in cls.__dict__:
        raise InvalidArgumentTypeError(
            f"quick_init: {cls.__qualname__} is not a frozen, slotted dataclass"
        )
    original = cls.__init__
    signature = inspect.signature(original)
    namespace: dict[str, Any] = {}
    body: list[str] = []
    for index, field in enumerate(dataclasses.fields(cls)):  # type: ignore[arg-type]
        setter = f"_set{index}"
        namespace[setter] = _slot(cls, field.name).__set__
        has_factory = field.default_factory is not dataclasses.MISSING
        if has_factory:
            namespace[f"_factory{index}"] = field.default_factory
        if field.init:
            value = field.name
            if has_factory:
                sentinel = signature.parameters[field.name].default
                namespace[f"_unset{index}"] = sentinel
                value = f"_factory{index}() if {value} is _unset{index} else {value}"
        elif has_factory:
            value = f"_factory{index}()"
        elif field.default is not dataclasses.MISSING:
            namespace[f"_default{index}"] = field.default
            value = f"_default{index}"
        else:
            continue  # init=False without a default: left unset, as the dataclass leaves it
        body.append(f"    {setter}(self, {value})")
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    parameters = list(signature.parameters.values())
    names = [p.name for p in parameters[1:]]
    source = _source(parameters, body or ["    pass"])
    defaults = {p.name: p.default for p in parameters if p.default is not inspect.Parameter.empty}
    namespace.update({f"_arg_{name}": value for name, value in defaults.items()})
    exec(source, namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__doc__ = original.__doc__
    init.__annotations__ = dict(original.__annotations__)
    if inspect.signature(init) != signature or len(names) != len(set(names)):
        raise InvalidArgumentTypeError(
            f"quick_init: {cls.__qualname__}'s __init__ could not be reproduced"
        )
    cls.__init__ = init  # type: ignore[method-assign]
    return cls


def _source(parameters: list[inspect.Parameter], body: list[str]) -> str:
    """The ``def __init__`` line for ``parameters`` (``self`` first), then ``body``."""
    rendered: list[str] = [parameters[0].name]
    star = False
    for parameter in parameters[1:]:
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY and not star:
            rendered.append("*")
            star = True
        elif parameter.kind not in (
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            inspect.Parameter.KEYWORD_ONLY,
        ):
            raise InvalidArgumentTypeError(f"quick_init: unsupported parameter {parameter}")
        has_default = parameter.default is not inspect.Parameter.empty
        rendered.append(
            f"{parameter.name}=_arg_{parameter.name}" if has_default else parameter.name
        )
    return f"def __init__({', '.join(rendered)}):\n" + "\n".join(body) + "\n"
