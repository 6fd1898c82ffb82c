"""What a verbatim provider payload contributes when a history crosses providers.

A HistoryCodec keeps every native block, item or part it cannot map exactly as a
:class:`ProviderPart`, so that the same provider gets it back byte for byte. When the
history moves to another provider, :func:`salvage` reads such a payload leniently: the
neutral content in it (the text of a cited block, a tool call or result the IR could not
hold exactly, media in a non-canonical spelling) crosses, and everything else is named
as a dropped artefact. A payload this module does not know is dropped whole by the caller
(:func:`doc_processing_toolkit.domain.history.filtering.cross_provider`) as a provider artefact.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from doc_processing_toolkit.domain.history.filtering import Salvage
from doc_processing_toolkit.domain.messages import (
    ContentPart,
    MediaPart,
    Part,
    ProviderPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)

__all__ = [
    "GOOGLE_PROVIDER_KEYS",
    "OPENAI_ENVELOPE_TYPE",
    "decode_base64",
    "decode_data_url",
    "salvage",
]

OPENAI_ENVELOPE_TYPE = "openai.message_envelope"
"""The OpenAI codec's envelope payload: a message item with its texts blanked out."""

GOOGLE_PROVIDER_KEYS = ("executable_code", "code_execution_result")
"""Gemini part keys of provider-run code execution."""

_ANTHROPIC_SERVER_SUFFIXES = ("_tool_result", "server_tool_use", "mcp_tool_use")


def salvage(part: ProviderPart) -> Salvage | None:
    """The neutral content of a payload of ``part.provider`` (None: drop it whole)."""
    payload = part.payload
    match part.provider:
        case "anthropic":
            return _anthropic(payload)
        case "openai":
            return _openai(payload)
        case "google":
            return _google(payload)
        case "fireworks":
            return _fireworks(payload)
        case _:
            return None


# -- lenient decoding ------------------------------------------------------------------


def decode_base64(data: Any) -> bytes | None:
    """Standard or URL-safe base64, padded or not; None when it is not base64."""
    if not isinstance(data, str):
        return None
    text = data.strip().replace("-", "+").replace("_", "/")
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None


def decode_data_url(url: Any) -> tuple[str, bytes] | None:
    """``(mime_type, bytes)`` of a ``data:<mime>;base64,<payload>`` URL, else None."""
    if not isinstance(url, str) or not url.startswith("data:"):
        return None
    head, sep, payload = url[5:].partition(",")
    mime, _, encoding = head.partition(";")
    raw = decode_base64(payload) if sep and encoding == "base64" else None
    return (mime or "application/octet-stream", raw) if raw is not None else None


def _url_media(url: Any, mime: str, filename: Any = None) -> MediaPart | None:
    name = filename if isinstance(filename, str) else None
    decoded = decode_data_url(url)
    if decoded is not None:
        return MediaPart(mime_type=decoded[0], data=decoded[1], filename=name)
    if isinstance(url, str) and url:
        return MediaPart(mime_type=mime, url=url, filename=name)
    return None


def _arguments(raw: Any) -> tuple[dict[str, Any], tuple[tuple[str, str], ...]]:
    """Call arguments from a dict or a JSON string; unreadable arguments are reported."""
    if isinstance(raw, dict):
        return raw, ()
    if raw is None or raw == "":
        return {}, ()
    try:
        value = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        value = None
    if isinstance(value, dict):
        return value, ()
    return {}, (("unknown_part", f"tool-call arguments that are not a JSON object: {raw!r:.60}"),)


def _call(call_id: Any, name: Any, raw_arguments: Any) -> Salvage:
    arguments, drops = _arguments(raw_arguments)
    part = ToolCallPart(
        id=call_id if isinstance(call_id, str) else "",
        name=name if isinstance(name, str) else "",
        arguments=arguments,
    )
    return Salvage((part,), drops)


def _text_of(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


# -- Anthropic content blocks ----------------------------------------------------------


def _anthropic(block: dict[str, Any]) -> Salvage | None:
    kind = block.get("type")
    if kind == "container_upload":
        return Salvage(drops=(("container", "a file uploaded to the code-execution container"),))
    if kind == "text" and isinstance(block.get("text"), str):
        extra = sorted(set(block) - {"type", "text"})
        drops = (("provider_block", f"{', '.join(extra)} on a text block"),) if extra else ()
        return Salvage((TextPart(block["text"]),), drops)
    if kind in ("thinking", "redacted_thinking"):
        return Salvage(drops=(("thinking", f"a {kind} block"),))
    if kind == "tool_use":
        return _call(block.get("id"), block.get("name"), block.get("input"))
    if kind == "tool_result":
        return _anthropic_result(block)
    if kind in ("image", "document"):
        media = _anthropic_media(block)
        if media is None:
            return Salvage(drops=(("media", f"an {kind} block the conversion cannot read"),))
        return Salvage((media,))
    if isinstance(kind, str) and kind.endswith(_ANTHROPIC_SERVER_SUFFIXES):
        return Salvage(drops=(("provider_block", kind),))
    return None


def _anthropic_media(block: dict[str, Any]) -> MediaPart | None:
    source = block.get("source")
    if not isinstance(source, dict):
        return None
    default = "image/*" if block.get("type") == "image" else "application/pdf"
    title = block.get("title")
    media_type = source.get("media_type")
    mime = media_type if isinstance(media_type, str) else default
    match source.get("type"):
        case "base64":
            raw = decode_base64(source.get("data"))
            if raw is None:
                return None
            name = title if isinstance(title, str) else None
            return MediaPart(mime_type=mime, data=raw, filename=name)
        case "text" if isinstance(source.get("data"), str):
            return MediaPart(mime_type="text/plain", data=source["data"].encode("utf-8"))
        case "url":
            return _url_media(source.get("url"), mime, title)
        case "file" if isinstance(source.get("file_id"), str):
            return MediaPart(mime_type=mime, file_uri=source["file_id"])
        case _:
            return None


def _anthropic_result(block: dict[str, Any]) -> Salvage:
    raw = block.get("content", [])
    items: list[ContentPart] = []
    drops: list[tuple[str, str]] = []
    for item in [{"type": "text", "text": raw}] if isinstance(raw, str) else raw or []:
        found = _anthropic(item) if isinstance(item, dict) else None
        parts = found.parts if found is not None else ()
        if found is not None:
            drops.extend(found.drops)
        content = [p for p in parts if isinstance(p, TextPart | MediaPart)]
        if not content:
            kind = item.get("type") if isinstance(item, dict) else type(item).__name__
            drops.append(("unknown_part", f"a {kind} item in a tool result"))
        items.extend(content)
    call_id = block.get("tool_use_id")
    result = ToolResultPart(
        call_id=call_id if isinstance(call_id, str) else "",
        name="",
        content=tuple(items),
        is_error=bool(block.get("is_error")),
    )
    return Salvage((result,), tuple(drops))


# -- OpenAI Responses items --------------------------------------------------------------


def _openai(item: dict[str, Any]) -> Salvage | None:
    kind = item.get("type")
    if kind == OPENAI_ENVELOPE_TYPE:
        inner = item.get("item")
        return _openai_envelope(inner if isinstance(inner, dict) else {})
    if "role" in item and kind in (None, "message"):
        role = item.get("role")
        return Salvage(drops=(("provider_item", f"a {role} message"),))
    if kind == "function_call":
        return _call(item.get("call_id"), item.get("name"), item.get("arguments"))
    if kind == "function_call_output":
        content, drops = _openai_content(item.get("output"))
        call_id = item.get("call_id")
        cid = call_id if isinstance(call_id, str) else ""
        return Salvage((ToolResultPart(call_id=cid, name="", content=tuple(content)),), drops)
    if kind == "reasoning":
        return Salvage(drops=(("reasoning", "a reasoning item"),))
    return Salvage(drops=(("provider_item", str(kind or "an item with no type")),))


def _openai_envelope(item: dict[str, Any]) -> Salvage:
    """The envelope's texts follow it as TextParts; what it adds is media and refusals."""
    parts: list[Part] = []
    drops: list[tuple[str, str]] = []
    content = item.get("content")
    for entry in content if isinstance(content, list) else []:
        if not isinstance(entry, dict):
            continue
        kind = entry.get("type")
        if kind in ("input_text", "output_text"):
            if entry.get("annotations"):
                drops.append(("provider_item", "annotations (citations) on an output_text"))
        elif kind == "refusal" and isinstance(entry.get("refusal"), str):
            parts.append(TextPart(entry["refusal"]))
        else:
            media, more = _openai_content([entry])
            parts.extend(media)
            drops.extend(more)
    return Salvage(tuple(parts), tuple(drops))


def _openai_content(output: Any) -> tuple[list[ContentPart], tuple[tuple[str, str], ...]]:
    if isinstance(output, str):
        return [TextPart(output)], ()
    items: list[ContentPart] = []
    drops: list[tuple[str, str]] = []
    for entry in output if isinstance(output, list) else [output]:
        part = _openai_entry(entry) if isinstance(entry, dict) else None
        if part is None:
            kind = entry.get("type") if isinstance(entry, dict) else type(entry).__name__
            drops.append(("unknown_part", f"an {kind} entry"))
        else:
            items.append(part)
    return items, tuple(drops)


def _openai_entry(entry: dict[str, Any]) -> ContentPart | None:
    kind = entry.get("type")
    if kind in ("input_text", "output_text") and isinstance(entry.get("text"), str):
        return TextPart(entry["text"])
    if kind == "input_image":
        if isinstance(entry.get("file_id"), str):
            return MediaPart(mime_type="image/*", file_uri=entry["file_id"])
        return _url_media(entry.get("image_url"), "image/*")
    if kind == "input_file":
        if isinstance(entry.get("file_id"), str):
            return MediaPart(mime_type="application/pdf", file_uri=entry["file_id"])
        url = entry.get("file_data") or entry.get("file_url")
        return _url_media(url, "application/pdf", entry.get("filename"))
    return None


# -- Gemini parts --------------------------------------------------------------------------


def _google(part: dict[str, Any]) -> Salvage | None:
    keys = set(part) - {"thought_signature"}
    signed: tuple[tuple[str, str], ...] = ()
    if isinstance(part.get("thought_signature"), str):
        signed = (("thought_signature", "a thought signature"),)
    if not keys:
        return Salvage(drops=signed)
    if part.get("thought") is True:
        return Salvage(drops=(("thought", "a thought summary"),))
    if keys & set(GOOGLE_PROVIDER_KEYS):
        return Salvage(drops=(("provider_part", ", ".join(sorted(keys))),))
    if isinstance(part.get("function_call"), dict):
        call = part["function_call"]
        found = _call(call.get("id"), call.get("name"), call.get("args"))
        return Salvage(found.parts, found.drops + signed)
    if isinstance(part.get("function_response"), dict):
        return _google_result(part["function_response"])
    if isinstance(part.get("text"), str):
        return Salvage((TextPart(part["text"]),), signed)
    media = _google_media(part)
    if media is not None:
        return Salvage((media,), signed)
    return Salvage(drops=(("unknown_part", ", ".join(sorted(keys))),))


def _google_media(part: dict[str, Any]) -> MediaPart | None:
    inline, file_data = part.get("inline_data"), part.get("file_data")
    if isinstance(inline, dict):
        raw = decode_base64(inline.get("data"))
        mime = inline.get("mime_type")
        if raw is not None:
            return MediaPart(mime_type=mime if isinstance(mime, str) else "image/*", data=raw)
    if isinstance(file_data, dict) and isinstance(file_data.get("file_uri"), str):
        mime = file_data.get("mime_type")
        mime = mime if isinstance(mime, str) else "application/octet-stream"
        return MediaPart(mime_type=mime, file_uri=file_data["file_uri"])
    return None


def _google_result(response: dict[str, Any]) -> Salvage:
    body = response.get("response")
    is_error = isinstance(body, dict) and set(body) == {"error"}
    if isinstance(body, dict) and len(body) == 1 and isinstance(next(iter(body.values())), str):
        text = next(iter(body.values()))
    else:
        text = _text_of(body)
    items: list[ContentPart] = [TextPart(text)] if text else []
    drops: list[tuple[str, str]] = []
    for media in response.get("parts") or []:
        found = _google_media(media) if isinstance(media, dict) else None
        if found is None:
            drops.append(("unknown_part", "an unreadable part of a function response"))
        else:
            items.append(found)
    call_id, name = response.get("id"), response.get("name")
    result = ToolResultPart(
        call_id=call_id if isinstance(call_id, str) else "",
        name=name if isinstance(name, str) else "",
        content=tuple(items),
        is_error=is_error,
    )
    return Salvage((result,), tuple(drops))


# -- Fireworks (chat completions) messages -------------------------------------------------


_FIREWORKS_KEYS = frozenset({"role", "content", "reasoning_content", "tool_calls", "tool_call_id"})


def _fireworks(payload: dict[str, Any]) -> Salvage | None:
    if "role" not in payload:
        return _fireworks_content(payload)
    role = payload.get("role")
    if role not in ("assistant", "tool", "user"):
        return Salvage(drops=(("provider_part", f"a {role} message"),))
    extra = sorted(set(payload) - _FIREWORKS_KEYS)
    drops = (("provider_part", f"{', '.join(extra)} on a {role} message"),) if extra else ()
    if role == "assistant":
        found = _fireworks_assistant(payload)
    elif role == "tool":
        items = _fireworks_items(payload.get("content"))
        call_id = payload.get("tool_call_id")
        result = ToolResultPart(
            call_id=call_id if isinstance(call_id, str) else "",
            name="",
            content=tuple(p for p in items.parts if isinstance(p, TextPart | MediaPart)),
        )
        found = Salvage((result,), items.drops)
    else:
        found = _fireworks_items(payload.get("content"))
    return Salvage(found.parts, drops + found.drops)


def _fireworks_items(content: Any) -> Salvage:
    if isinstance(content, str):
        return Salvage((TextPart(content),))
    parts: list[Part] = []
    drops: list[tuple[str, str]] = []
    for item in content if isinstance(content, list) else []:
        found = _fireworks_content(item) if isinstance(item, dict) else None
        if found is None:
            drops.append(("unknown_part", "a content item the conversion cannot read"))
            continue
        parts.extend(found.parts)
        drops.extend(found.drops)
    return Salvage(tuple(parts), tuple(drops))


def _fireworks_content(item: dict[str, Any]) -> Salvage | None:
    kind = item.get("type")
    if kind == "text" and isinstance(item.get("text"), str):
        return Salvage((TextPart(item["text"]),))
    if kind == "image_url":
        image = item.get("image_url")
        url = image.get("url") if isinstance(image, dict) else image
        media = _url_media(url, "image/*")
        if media is not None:
            return Salvage((media,))
        return Salvage(drops=(("media", "an image_url part the conversion cannot read"),))
    return Salvage(drops=(("unknown_part", f"a {kind} content part"),))


def _fireworks_assistant(message: dict[str, Any]) -> Salvage:
    parts: list[Part] = []
    drops: list[tuple[str, str]] = []
    reasoning = message.get("reasoning_content")
    if isinstance(reasoning, str) and reasoning:
        drops.append(("reasoning_content", f"reasoning_content ({len(reasoning)} chars)"))
    content = message.get("content")
    if content is not None:
        found = _fireworks_items(content)
        parts.extend(found.parts)
        drops.extend(found.drops)
    for call in message.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, dict) else None
        function = function if isinstance(function, dict) else {}
        found = _call(
            call.get("id") if isinstance(call, dict) else None,
            function.get("name"),
            function.get("arguments"),
        )
        parts.extend(found.parts)
        drops.extend(found.drops)
    return Salvage(tuple(parts), tuple(drops))
