"""LocalFunctionSession: ``@tool`` functions served as a `ToolSession`.

Arguments are validated and coerced against the signature (one pydantic
``TypeAdapter`` per parameter, lax mode, as ``validate_call`` does), so ``"5"`` reaches
an ``int`` parameter as ``5`` and a dict reaches a model parameter as the model. A
synchronous function runs on a worker thread, so a slow tool never blocks the event
loop; an ``async`` one is awaited. Whatever the function raises becomes an error result
the model can read, and the run goes on.
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_core import to_jsonable_python

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.adapters.tool_sessions.worker_thread import run_in_worker_thread
from doc_processing_toolkit.domain.errors import ToolDefinitionError
from doc_processing_toolkit.domain.messages import ContentPart, MediaPart, TextPart
from doc_processing_toolkit.domain.tools.schema import (
    ToolParameter,
    get_tool_metadata,
    tool_parameters,
)
from doc_processing_toolkit.domain.tools.specs import ToolOutcome, ToolSpec
from doc_processing_toolkit.domain.tools.type_schema import normalize_schema

__all__ = ["LocalFunctionSession", "outcome_from_return", "sniff_media_type"]

log = get_logger(__name__)

_INPUT_REPR_CHARS = 80
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"%PDF-", "application/pdf"),
)


@dataclass(frozen=True, slots=True)
class _LocalTool:
    """One registered function with everything a call needs, built once."""

    spec: ToolSpec
    function: Callable[..., Any]
    parameters: tuple[ToolParameter, ...]
    adapters: Mapping[str, TypeAdapter[Any]]
    is_async: bool


class LocalFunctionSession:
    """A `ToolSession` of ``@tool`` functions."""

    def __init__(self, functions: Sequence[Callable[..., Any]], name: str = "local-functions"):
        """Register ``functions``.

        Raises:
            ToolDefinitionError: a function is not decorated with ``@tool``, two share a
                tool name, or a parameter type cannot be validated.
        """
        self.name = name
        self._tools: dict[str, _LocalTool] = {}
        for function in functions:
            local = _register(function)
            if local.spec.name in self._tools:
                raise ToolDefinitionError(
                    f"two tools are named {local.spec.name!r}; tool names must be unique "
                    "(rename one with @tool(name=...))"
                )
            self._tools[local.spec.name] = local

    def __repr__(self) -> str:
        return f"LocalFunctionSession(name={self.name!r}, tools={sorted(self._tools)!r})"

    async def list_tools(self) -> list[ToolSpec]:
        """Every registered tool, in registration order."""
        return [local.spec for local in self._tools.values()]

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        """Validate the arguments, run the function, and convert what it returned."""
        local = self._tools.get(name)
        if local is None:
            available = ", ".join(sorted(self._tools)) or "none"
            return ToolOutcome.error(f"Unknown tool {name!r}. Available tools: {available}.")
        bound = _bind(local, arguments)
        if isinstance(bound, str):
            return ToolOutcome.error(bound)
        args, kwargs = bound
        try:
            if local.is_async:
                result = await local.function(*args, **kwargs)
            else:
                call = functools.partial(local.function, *args, **kwargs)
                # A tool_timeout (or a cancelled run) does not wait for a hung sync
                # function; its thread finishes on its own.
                result = await run_in_worker_thread(call)
                if inspect.isawaitable(result):
                    result = await result
        except Exception as exc:  # a tool failure is a result the model reads, not a crash
            log.warning("tool raised an exception", tool_name=name, error_type=type(exc).__name__)
            return ToolOutcome.error(
                f"Error executing tool {name}: {str(exc) or type(exc).__name__}"
            )
        return outcome_from_return(result)


def _register(function: Callable[..., Any]) -> _LocalTool:
    metadata = get_tool_metadata(function)
    label = getattr(function, "__name__", None) or repr(function)
    if metadata is None:
        raise ToolDefinitionError(
            f"function {label!r} is not decorated with @tool: decorate it so its schema "
            "can be built"
        )
    try:
        parameters = tool_parameters(function)
        adapters = {p.name: TypeAdapter(p.annotation) for p in parameters}
    except Exception as exc:  # TypeError from the signature, pydantic's schema errors
        raise ToolDefinitionError(f"tool {metadata['name']!r} cannot be offered: {exc}") from exc
    spec = ToolSpec(
        name=metadata["name"],
        description=metadata["description"],
        parameters=normalize_schema(metadata["parameters"]),
    )
    return _LocalTool(spec, function, parameters, adapters, _is_async(function))


def _is_async(function: Callable[..., Any]) -> bool:
    if inspect.iscoroutinefunction(function):
        return True
    call = getattr(function, "__call__", None)  # noqa: B004 - an async __call__ counts
    return call is not None and inspect.iscoroutinefunction(call)


def _bind(local: _LocalTool, arguments: Any) -> tuple[list[Any], dict[str, Any]] | str:
    """Positional and keyword arguments for the call, or the error text for the model."""
    name = local.spec.name
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, Mapping):
        return f"Invalid arguments for tool {name!r}: expected a JSON object, got {arguments!r}"
    known = local.adapters  # keyed by the parameter names
    problems: list[str] = []
    for key in arguments:
        if key not in known:
            problems.append(f"unexpected argument {key!r}")
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for param in local.parameters:
        if param.name in arguments:
            try:
                value = local.adapters[param.name].validate_python(arguments[param.name])
            except ValidationError as exc:
                problems.extend(_describe(param.name, exc))
                continue
        elif param.required:
            problems.append(f"missing required argument {param.name!r}")
            continue
        else:
            value = param.value_when_omitted()
        if param.positional_only:
            args.append(value)
        else:
            kwargs[param.name] = value
    if problems:
        return f"Invalid arguments for tool {name!r}: " + "; ".join(problems)
    return args, kwargs


def _describe(param: str, exc: ValidationError) -> list[str]:
    lines = []
    for error in exc.errors(include_url=False):
        path = ".".join([param, *(str(part) for part in error["loc"])])
        shown = repr(error.get("input"))
        if len(shown) > _INPUT_REPR_CHARS:
            shown = shown[: _INPUT_REPR_CHARS - 1] + "…"
        lines.append(f"{path}: {error['msg']} (got {shown})")
    return lines


def sniff_media_type(data: bytes) -> str | None:
    """The MIME type of image (or PDF) bytes from their magic number, or None."""
    for magic, mime in _MAGIC:
        if data.startswith(magic):
            return mime
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def _item_parts(item: Any) -> tuple[ContentPart, ...] | str:
    """One returned item as content parts, or an error text."""
    if isinstance(item, TextPart | MediaPart):
        return (item,)
    if isinstance(item, str):
        return (TextPart(item),)
    if isinstance(item, bytes | bytearray | memoryview):
        data = bytes(item)
        mime = sniff_media_type(data)
        if mime is not None:
            return (MediaPart(mime_type=mime, data=data),)
        try:
            return (TextPart(data.decode("utf-8")),)
        except UnicodeDecodeError:
            return (
                f"the tool returned {len(data)} bytes that are neither a recognised image nor "
                "UTF-8 text; return a MediaPart with its mime_type instead"
            )
    return (TextPart(_json_outcome(item).text),)


def _json_outcome(value: Any) -> ToolOutcome:
    try:
        data = (
            value.model_dump(mode="json")
            if isinstance(value, BaseModel)
            else to_jsonable_python(value)
        )
        text = json.dumps(data, ensure_ascii=False)
    except (TypeError, ValueError):  # not JSON-able: its str() is the best the model can get
        return ToolOutcome(content=(TextPart(str(value)),))
    return ToolOutcome(content=(TextPart(text),), data=data)


def outcome_from_return(value: Any) -> ToolOutcome:
    """Convert what a tool function returned into a `ToolOutcome`.

    ``str`` -> a text item; a ``TextPart`` / ``MediaPart`` (or a list/tuple holding any)
    passes through, other items converted one by one; image bytes -> a ``MediaPart``;
    a pydantic model, dict, list, number, bool or None -> JSON text with ``data`` set to
    the JSON value; a ``ToolOutcome`` is returned as is.
    """
    if isinstance(value, ToolOutcome):
        return value
    if isinstance(value, str):
        return ToolOutcome(content=(TextPart(value),))
    if isinstance(value, list | tuple) and any(isinstance(v, TextPart | MediaPart) for v in value):
        parts: list[ContentPart] = []
        for item in value:
            converted = _item_parts(item)
            if isinstance(converted, str):
                return ToolOutcome.error(converted)
            parts.extend(converted)
        return ToolOutcome(content=tuple(parts))
    if isinstance(value, TextPart | MediaPart | bytes | bytearray | memoryview):
        single = _item_parts(value)
        return ToolOutcome.error(single) if isinstance(single, str) else ToolOutcome(content=single)
    return _json_outcome(value)
