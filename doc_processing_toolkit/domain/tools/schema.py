"""``@tool``: a typed Python function as a tool the model can call.

The decorator reads the signature, the type hints and a Google-style (or Sphinx
``:param:``) docstring, and attaches ``_tool_metadata`` — ``name``, ``description``
(the docstring's first paragraph), ``parameters`` (a JSON schema of the arguments) and
``function`` (the function itself, which is returned unchanged and stays callable, sync
or async). Simple types map by hand (``int`` -> ``integer``, ``Literal``/``Enum`` ->
``enum``, ``X | None`` -> a ``[X, "null"]`` type list); anything richer (pydantic
models, dataclasses, dates, ``Annotated`` constraints) goes through pydantic, whose
``$defs`` are hoisted to the root. A parameter is required unless it has a default or
admits ``None``.
"""

from __future__ import annotations

import functools
import inspect
import re
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar, Union, get_args, get_origin, overload

from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from doc_processing_toolkit.domain.errors import InvalidArgumentTypeError, ToolDefinitionError
from doc_processing_toolkit.domain.tools.specs import ToolSpec
from doc_processing_toolkit.domain.tools.type_schema import (
    MISSING,
    json_default,
    normalize_schema,
    schema_for_type,
)

__all__ = [
    "ToolParameter",
    "build_tool_metadata",
    "get_tool_metadata",
    "is_tool",
    "normalize_schema",
    "parse_docstring",
    "tool",
    "tool_parameters",
    "tool_spec_from_function",
]

F = TypeVar("F", bound=Callable[..., Any])

_NONE_TYPE = type(None)
_ARG_SECTIONS = {"args", "arguments", "parameters", "params", "keyword args", "keyword arguments"}
_SECTIONS = _ARG_SECTIONS | {
    "other parameters", "returns", "return", "yields", "yield", "raises", "raise", "example",
    "examples", "note", "notes", "attributes", "see also", "warning", "warnings", "todo",
    "references",
}  # fmt: skip
_ENTRY_RE = re.compile(r"^\*{0,2}(?P<name>\w+)\s*(?:\([^)]*\))?\s*:(?:\s+(?P<desc>.*))?$")
_SPHINX_RE = re.compile(r"^:param\s+(?:[^:]*\s)?(?P<name>\w+)\s*:\s*(?P<desc>.*)$")


@dataclass(frozen=True, slots=True)
class ToolParameter:
    """One parameter of a tool function, as the schema and the argument binder see it."""

    name: str
    """The parameter's name (the JSON property name)."""
    annotation: Any
    """The resolved type hint (wrapped in ``Annotated`` with its ``Field`` when it had one)."""
    required: bool
    """True when the model must pass it (no default and ``None`` not allowed)."""
    has_default: bool = False
    """True when the signature gives a default."""
    default: Any = None
    """The default (``None`` for an optional parameter without one)."""
    positional_only: bool = False
    """True for a ``/``-positional parameter (passed positionally)."""
    field: FieldInfo | None = None
    """The pydantic ``Field(...)`` given as the default, if any."""

    def value_when_omitted(self) -> Any:
        """What the function receives when the model leaves the parameter out."""
        if self.field is not None and self.field.default_factory is not None:
            return self.field.get_default(call_default_factory=True, validated_data={})
        return self.default


def _function_name(func: Callable[..., Any]) -> str:
    inner = _unwrap_partial(func)
    return str(getattr(inner, "__name__", None) or type(inner).__name__)


def _unwrap_partial(func: Any) -> Any:
    while isinstance(func, functools.partial):
        func = func.func
    return func


def _admits_none(annotation: Any) -> bool:
    if annotation is None or annotation is _NONE_TYPE:
        return True
    origin = get_origin(annotation)
    if origin is Annotated:
        return _admits_none(get_args(annotation)[0])
    if origin is Union or origin is types.UnionType:
        return any(_admits_none(a) for a in get_args(annotation))
    return False


def tool_parameters(func: Callable[..., Any]) -> tuple[ToolParameter, ...]:
    """The parameters of ``func`` with their resolved types, defaults and required flags.

    Raises:
        TypeError: a parameter has no type hint, is ``*args``/``**kwargs``, or a hint
            cannot be resolved; the message names the parameter and the function.
    """
    fname = _function_name(func)
    try:
        signature = inspect.signature(func, eval_str=True)
    except (NameError, SyntaxError, AttributeError) as exc:
        raise InvalidArgumentTypeError(
            f"cannot resolve the type hints of tool function {fname!r}: {exc}"
        ) from exc
    result: list[ToolParameter] = []
    for index, param in enumerate(signature.parameters.values()):
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise InvalidArgumentTypeError(
                f"parameter {param.name!r} of tool function {fname!r} is *args/**kwargs; "
                "a tool takes named, typed parameters only"
            )
        if param.annotation is param.empty:
            if index == 0 and param.name in ("self", "cls"):
                continue
            raise InvalidArgumentTypeError(
                f"parameter {param.name!r} of tool function {fname!r} has no type hint; "
                "every tool parameter needs one"
            )
        annotation: Any = param.annotation
        default: Any = param.default
        field = default if isinstance(default, FieldInfo) else None
        if field is not None:
            annotation = Annotated[annotation, field]
            default = field.get_default(call_default_factory=True, validated_data={})
            if default is PydanticUndefined:
                default = param.empty
        has_default = default is not param.empty
        result.append(
            ToolParameter(
                name=param.name,
                annotation=annotation,
                required=not has_default and not _admits_none(annotation),
                has_default=has_default,
                default=default if has_default else None,
                positional_only=param.kind is param.POSITIONAL_ONLY,
                field=field,
            )
        )
    return tuple(result)


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a docstring into its first paragraph and its per-argument descriptions.

    Reads Google-style ``Args:`` sections (``name: text`` or ``name (type): text``, with
    indented continuation lines) and Sphinx ``:param name: text`` lines.
    """
    lines = inspect.cleandoc(doc).splitlines() if doc else []
    summary: list[str] = []
    for line in lines:
        stripped = line.strip()
        if not stripped or stripped.startswith(":param") or _section(stripped) in _SECTIONS:
            break
        summary.append(stripped)
    params: dict[str, str] = {}
    in_args, header_indent, entry_indent, current = False, 0, -1, ""
    for number, line in enumerate(lines):
        stripped = line.strip()
        # cleandoc leaves the first line's own indent out of the margin it removes
        indent = len(line) - len(line.lstrip()) if number else -1
        if not stripped:
            continue
        sphinx = _SPHINX_RE.match(stripped)
        if sphinx:
            params[sphinx["name"]] = sphinx["desc"].strip()
            in_args, current = False, ""
            continue
        section = _section(stripped)
        if section in _SECTIONS:
            in_args, header_indent, entry_indent, current = section in _ARG_SECTIONS, indent, -1, ""
            continue
        if not in_args:
            continue
        if indent <= header_indent:
            in_args = False
            continue
        entry = _ENTRY_RE.match(stripped) if entry_indent < 0 or indent <= entry_indent else None
        if entry:
            entry_indent, current = indent, entry["name"]
            params[current] = (entry["desc"] or "").strip()
        elif current and indent > entry_indent:
            params[current] = f"{params[current]} {stripped}".strip()
    return " ".join(summary), params


def _section(stripped: str) -> str:
    return stripped[:-1].strip().lower() if stripped.endswith(":") else ""


def build_tool_metadata(
    func: Callable[..., Any], *, name: str | None = None, description: str | None = None
) -> dict[str, Any]:
    """The ``_tool_metadata`` dict for ``func`` (without attaching it).

    Raises:
        TypeError: a parameter is untyped or its type cannot be described.
    """
    fname = name or _function_name(func)
    summary, docs = parse_docstring(getattr(_unwrap_partial(func), "__doc__", None))
    properties: dict[str, Any] = {}
    required: list[str] = []
    defs: dict[str, Any] = {}
    for param in tool_parameters(func):
        where = f"parameter {param.name!r} of tool function {fname!r}"
        prop = dict(schema_for_type(param.annotation, defs, where))
        text = docs.get(param.name) or (param.field.description if param.field else None)
        if text:
            prop["description"] = text
        if param.has_default:
            default = json_default(param.default)
            if default is not MISSING:
                prop["default"] = default
        properties[param.name] = prop
        if param.required:
            required.append(param.name)
    parameters: dict[str, Any] = {"type": "object", "properties": properties, "required": required}
    if defs:
        parameters["$defs"] = defs
    return {
        "name": fname,
        "description": summary if description is None else description,
        "parameters": parameters,
        "function": func,
    }


@overload
def tool(func: F) -> F: ...


@overload
def tool(
    func: None = None, *, name: str | None = None, description: str | None = None
) -> Callable[[F], F]: ...


def tool(
    func: F | None = None, *, name: str | None = None, description: str | None = None
) -> F | Callable[[F], F]:
    """Mark a function as a tool; usable as ``@tool`` or ``@tool(name=..., description=...)``.

    Attaches ``_tool_metadata`` and returns the function itself, unchanged.

    Raises:
        TypeError: a parameter has no type hint (the message names it and the function).
        ValueError: the function is already decorated with ``@tool``.
    """

    def decorate(target: F) -> F:
        if get_tool_metadata(target) is not None:
            raise ToolDefinitionError(f"{_function_name(target)!r} is already decorated with @tool")
        metadata = build_tool_metadata(target, name=name, description=description)
        target._tool_metadata = metadata  # type: ignore[attr-defined]
        return target

    return decorate if func is None else decorate(func)


def get_tool_metadata(func: Callable[..., Any]) -> dict[str, Any] | None:
    """The metadata of a ``@tool`` function, or None when ``func`` is not one."""
    metadata = getattr(func, "_tool_metadata", None)
    return metadata if isinstance(metadata, dict) and "name" in metadata else None


def is_tool(obj: Any) -> bool:
    """True when ``obj`` has been decorated with ``@tool``."""
    return get_tool_metadata(obj) is not None


def tool_spec_from_function(func: Callable[..., Any]) -> ToolSpec:
    """The `ToolSpec` of a function (its ``@tool`` metadata, or one built now)."""
    metadata = get_tool_metadata(func) or build_tool_metadata(func)
    return ToolSpec(
        name=metadata["name"],
        description=metadata["description"],
        parameters=normalize_schema(metadata["parameters"]),
    )
