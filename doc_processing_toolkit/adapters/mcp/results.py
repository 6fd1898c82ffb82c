"""MCP results and tool listings as toolkit values.

`outcome_from_call_result` turns an MCP ``CallToolResult`` (or fastmcp's
``ToolResult``, or the plain dict form of either) into a `ToolOutcome`:

* text -> `TextPart`; image and audio -> `MediaPart` with the decoded bytes;
  an embedded resource -> its text, or its blob as a ``MediaPart``; a resource link -> a
  text line naming it;
* ``data`` follows ``utils.tool_result_data``: a dict result gives the dict (the
  ``structured_content``, or a single text item holding a JSON object); any other
  result gives its content items, JSON text decoded;
* a ``_dpt_spend`` marker (in the structured content, a JSON text item or the result's
  ``_meta``) is copied, raw, to ``meta["dpt_spend"]`` for the ToolLoader's accounting.

Content blocks are read by their ``type`` field, so the module needs no SDK import and
works on the ``mcp`` and ``fastmcp`` objects alike.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable, Mapping
from typing import Any

from doc_processing_toolkit.domain.messages import ContentPart, MediaPart, TextPart
from doc_processing_toolkit.domain.tools.specs import ToolOutcome, ToolSpec
from doc_processing_toolkit.domain.tools.type_schema import normalize_schema

__all__ = [
    "SPEND_MARKER",
    "content_parts",
    "outcome_from_call_result",
    "spec_from_mcp_tool",
]

SPEND_MARKER = "_dpt_spend"
"""The key under which a tool reports what it spent."""
_NOT_WRAPPED = object()


def _get(obj: Any, *names: str) -> Any:
    """The first present key of ``names`` in a mapping; on an object, the first attribute
    that is set.

    camelCase spellings are listed for the dict (wire) form; on SDK objects they are
    never reached while the snake_case attribute exists, so fastmcp's deprecated
    camelCase shims are not read.
    """
    for name in names:
        if isinstance(obj, Mapping):
            if name in obj:
                return obj[name]
        elif hasattr(type(obj), "model_fields") and name not in type(obj).model_fields:
            continue
        else:
            value = getattr(obj, name, None)
            if value is not None:
                return value
    return None


def _decode_json(text: str) -> Any:
    stripped = text.strip()
    if not stripped or stripped[0] not in '{["0123456789-tfn':
        return text
    try:
        return json.loads(stripped)
    except ValueError:
        return text


def _b64(data: Any) -> bytes | None:
    if isinstance(data, bytes | bytearray):
        return bytes(data)
    if not isinstance(data, str):
        return None
    try:
        return base64.b64decode(data, validate=False)
    except (binascii.Error, ValueError):
        return None


def _block(block: Any) -> tuple[list[ContentPart], Any]:
    """One content block as parts, plus its item for ``data``."""
    kind = _get(block, "type")
    if kind == "text":
        text = str(_get(block, "text") or "")
        return [TextPart(text)], _decode_json(text)
    if kind in ("image", "audio"):
        mime = str(_get(block, "mime_type", "mimeType") or f"{kind}/octet-stream")
        raw = _get(block, "data")
        data = _b64(raw)
        if data is None:
            return [TextPart(f"[{kind} content that could not be decoded]")], None
        return [MediaPart(mime_type=mime, data=data)], {"type": kind, "mime_type": mime}
    if kind == "resource":
        resource = _get(block, "resource")
        uri = str(_get(resource, "uri") or "")
        mime = _get(resource, "mime_type", "mimeType")
        text = _get(resource, "text")
        if text is not None:
            return [TextPart(str(text))], _decode_json(str(text))
        blob = _b64(_get(resource, "blob"))
        if blob is None:
            return [TextPart(f"[resource {uri} without content]")], None
        media = MediaPart(
            mime_type=str(mime or "application/octet-stream"), data=blob, filename=uri or None
        )
        return [media], {"type": "resource", "uri": uri, "mime_type": media.mime_type}
    if kind == "resource_link":
        uri = str(_get(block, "uri") or "")
        name = _get(block, "name")
        description = _get(block, "description")
        line = f"Resource link: {uri}" + (f" ({name})" if name else "")
        if description:
            line += f" - {description}"
        return [TextPart(line)], {"type": "resource_link", "uri": uri, "name": name}
    dumped = _dump(block)
    return [TextPart(json.dumps(dumped, ensure_ascii=False, default=str))], dumped


def _dump(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        try:
            return dump(mode="json", by_alias=True, exclude_none=True)
        except Exception:  # a model that cannot dump itself: its str is the best we have
            return str(value)
    return value


def content_parts(blocks: Iterable[Any]) -> tuple[tuple[ContentPart, ...], list[Any]]:
    """The parts of a list of MCP content blocks, and their ``data`` items."""
    parts: list[ContentPart] = []
    items: list[Any] = []
    for block in blocks:
        converted, item = _block(block)
        parts.extend(converted)
        items.append(item)
    return tuple(parts), items


def _spend_marker(*candidates: Any) -> Any:
    for candidate in candidates:
        if isinstance(candidate, Mapping) and SPEND_MARKER in candidate:
            return candidate[SPEND_MARKER]
    return None


def _wrapped_value(structured: Mapping[str, Any], blocks: list[Any], items: list[Any]) -> Any:
    """The data of a server's ``{"result": value}`` wrapper of a non-dict return, or
    ``_NOT_WRAPPED``.

    MCPServer and fastmcp wrap a non-object return value so the structured content is an
    object, while the content items hold the value itself; the data is then the items,
    typed as the structured value has them (a ``str`` tool returning ``"true"`` stays a
    string).
    """
    if set(structured) != {"result"} or not items:
        return _NOT_WRAPPED
    value = structured["result"]
    values = value if isinstance(value, list) else [value]
    texts = [_get(b, "text") if _get(b, "type") == "text" else None for b in blocks]
    if items == values or texts == values or texts == [json.dumps(v) for v in values]:
        return values
    return _NOT_WRAPPED


def outcome_from_call_result(result: Any) -> ToolOutcome:
    """Convert an MCP call result into a `ToolOutcome` (see the module docstring)."""
    blocks = list(_get(result, "content") or [])
    structured = _get(result, "structured_content", "structuredContent")
    is_error = bool(_get(result, "is_error", "isError"))
    result_meta = _get(result, "meta", "_meta")
    parts, items = content_parts(blocks)
    if not parts and isinstance(structured, Mapping):
        parts = (TextPart(json.dumps(structured, ensure_ascii=False, default=str)),)
    wrapped = (
        _wrapped_value(structured, blocks, items)
        if isinstance(structured, Mapping)
        else _NOT_WRAPPED
    )
    data: Any
    if wrapped is not _NOT_WRAPPED:
        data = wrapped
    elif isinstance(structured, Mapping):
        data = dict(structured)
    elif len(items) == 1 and isinstance(items[0], dict) and _get(blocks[0], "type") == "text":
        data = items[0]
    elif items:
        data = items
    else:
        data = None
    meta: dict[str, Any] = {}
    marker = _spend_marker(structured, data, result_meta)
    if marker is not None:
        meta["dpt_spend"] = marker
    if is_error and not parts:
        parts = (TextPart("The tool reported an error without a message."),)
    return ToolOutcome(content=parts, is_error=is_error, data=data, meta=meta)


def spec_from_mcp_tool(tool: Any, server_name: str) -> ToolSpec:
    """A `ToolSpec` for an MCP ``Tool`` (mcp types, fastmcp tools, or dicts)."""
    schema = _get(tool, "input_schema", "inputSchema", "parameters")
    if not isinstance(schema, Mapping):
        schema = _dump(schema) if schema is not None else {}
    return ToolSpec(
        name=str(_get(tool, "name")),
        description=str(_get(tool, "description") or ""),
        parameters=normalize_schema(schema if isinstance(schema, Mapping) else {}),
        server_name=server_name,
    )
