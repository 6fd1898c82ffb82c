"""Neutral turns: the plain-dict form of a history that belongs to no provider.

The shapes (what `read_history` returns and `write_history` takes)::

    {"role": "user", "index": 0, "parts": [
        {"type": "text", "text": "..."},
        {"type": "media", "mime_type": "image/png", "data": "<base64>"},   # bytes, or
        {"type": "media", "mime_type": "image/png", "url": "https://..."},  # a URL
    ]}
    {"role": "assistant", "index": 1, "text": "...",
     "tool_calls": [{"id": "...", "name": "...", "arguments": {...}}]}
    {"role": "tool", "index": 2, "results": [
        {"id": "...", "name": "...", "output": "...", "is_error": False, "media": [...]}]}

``index`` is the stored message the turn came from; a media dict may also carry
``filename``. A stored user message that holds tool results and text (Anthropic) reads as
a ``tool`` turn followed by a ``user`` turn with the same index.
"""

from __future__ import annotations

import base64
from typing import Any

from doc_processing_toolkit.application.media.source import part_bytes
from doc_processing_toolkit.domain.errors import InvalidInputError
from doc_processing_toolkit.domain.media import decode_base64, decode_data_url
from doc_processing_toolkit.domain.messages import (
    ContentPart,
    MediaPart,
    Message,
    Part,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)

__all__ = [
    "decode_media_bytes",
    "media_from_dict",
    "media_to_dict",
    "messages_to_turns",
    "turns_to_messages",
]


def media_to_dict(part: MediaPart) -> dict[str, Any]:
    """A media part as a neutral media dict (bytes as base64, else the URL)."""
    out: dict[str, Any] = {"type": "media", "mime_type": part.mime_type}
    data = part_bytes(part)  # a file left on disk is read here
    if data is not None:
        out["data"] = base64.b64encode(data).decode("ascii")
    elif part.url is not None:
        out["url"] = part.url
    if part.filename is not None:
        out["filename"] = part.filename
    return out


def media_from_dict(item: dict[str, Any]) -> MediaPart:
    """A neutral media dict as a media part.

    Raises:
        ValueError: when it has neither readable base64 ``data`` nor a ``url``.
    """
    mime = item.get("mime_type")
    if not isinstance(mime, str) or not mime:
        raise InvalidInputError(f"a neutral media part needs a mime_type: {_short(item)}")
    filename = item.get("filename") if isinstance(item.get("filename"), str) else None
    if item.get("data") is not None:
        return MediaPart(mime_type=mime, data=decode_media_bytes(item), filename=filename)
    url = item.get("url")
    if isinstance(url, str) and url:
        decoded = decode_data_url(url)
        if decoded is not None:
            return MediaPart(mime_type=mime, data=decoded[1], filename=filename)
        return MediaPart(mime_type=mime, url=url, filename=filename)
    raise InvalidInputError(f"a neutral media part needs data or a url: {_short(item)}")


def decode_media_bytes(part: dict[str, Any]) -> bytes:
    """The raw bytes of a neutral media part (its base64 ``data`` or a ``data:`` URL).

    Raises:
        ValueError: when the part carries no bytes (a plain URL) or they are not base64.
    """
    if part.get("data") is not None:
        raw = decode_base64(part["data"])
        if raw is None:
            raise InvalidInputError("the media part's data is not base64")
        return raw
    decoded = decode_data_url(part.get("url"))
    if decoded is None:
        raise InvalidInputError("the media part carries no bytes (only a URL, or nothing)")
    return decoded[1]


def _short(item: Any) -> str:
    text = repr(item)
    return text if len(text) <= 80 else text[:77] + "..."


def messages_to_turns(messages: list[tuple[int, Message]]) -> list[dict[str, Any]]:
    """Filtered IR messages (each with its stored index) as neutral turns."""
    turns: list[dict[str, Any]] = []
    for index, message in messages:
        if message.role == "assistant":
            calls = [
                {"id": call.id, "name": call.name, "arguments": call.arguments}
                for call in message.tool_calls
            ]
            turns.append(
                {"role": "assistant", "index": index, "text": message.text, "tool_calls": calls}
            )
            continue
        results = [p for p in message.parts if isinstance(p, ToolResultPart)]
        if results:
            turns.append({"role": "tool", "index": index, "results": [_result(r) for r in results]})
        rest = [_content(p) for p in message.parts if isinstance(p, TextPart | MediaPart)]
        if rest or not results:
            turns.append({"role": "user", "index": index, "parts": rest})
    return turns


def _content(part: TextPart | MediaPart) -> dict[str, Any]:
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    return media_to_dict(part)


def _result(part: ToolResultPart) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": part.call_id,
        "name": part.name,
        "output": part.text,
        "is_error": part.is_error,
    }
    media = [media_to_dict(p) for p in part.content if isinstance(p, MediaPart)]
    if media:
        out["media"] = media
    return out


def turns_to_messages(turns: list[dict[str, Any]]) -> tuple[list[Message], list[int]]:
    """Neutral turns as IR messages, and the stored index of each.

    Raises:
        ValueError: for a turn that is not one of the three shapes.
    """
    messages: list[Message] = []
    indices: list[int] = []
    for position, turn in enumerate(turns):
        if not isinstance(turn, dict):
            raise InvalidInputError(f"turn {position} is not a dict: {_short(turn)}")
        index = turn.get("index")
        indices.append(index if isinstance(index, int) else position)
        messages.append(_turn_message(position, turn))
    return messages, indices


def _turn_message(position: int, turn: dict[str, Any]) -> Message:
    match turn.get("role"):
        case "user":
            parts: list[Part] = []
            for item in turn.get("parts") or []:
                if isinstance(item, dict) and item.get("type") == "text":
                    parts.append(TextPart(str(item.get("text", ""))))
                elif isinstance(item, dict) and item.get("type") == "media":
                    parts.append(media_from_dict(item))
                else:
                    raise InvalidInputError(
                        f"turn {position}: not a text or media part: {_short(item)}"
                    )
            return Message("user", tuple(parts))
        case "assistant":
            text = turn.get("text") or ""
            out: list[Part] = [TextPart(str(text))] if text else []
            for call in turn.get("tool_calls") or []:
                if not isinstance(call, dict):
                    raise InvalidInputError(f"turn {position}: not a tool call: {_short(call)}")
                arguments = call.get("arguments") or {}
                if not isinstance(arguments, dict):
                    raise InvalidInputError(f"turn {position}: tool-call arguments must be a dict")
                name, call_id = call.get("name"), call.get("id")
                out.append(
                    ToolCallPart(id=str(call_id or ""), name=str(name or ""), arguments=arguments)
                )
            return Message("assistant", tuple(out))
        case "tool":
            results: list[Part] = []
            for result in turn.get("results") or []:
                if not isinstance(result, dict):
                    raise InvalidInputError(f"turn {position}: not a tool result: {_short(result)}")
                content: list[ContentPart] = []
                output = result.get("output")
                if output:
                    content.append(TextPart(str(output)))
                content.extend(media_from_dict(m) for m in result.get("media") or [])
                results.append(
                    ToolResultPart(
                        call_id=str(result.get("id") or ""),
                        name=str(result.get("name") or ""),
                        content=tuple(content),
                        is_error=bool(result.get("is_error")),
                    )
                )
            return Message("tool", tuple(results))
        case role:
            raise InvalidInputError(f"turn {position}: unknown role {role!r}")
