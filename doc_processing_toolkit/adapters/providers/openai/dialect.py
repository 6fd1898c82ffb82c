"""OpenAI Responses input items <-> the neutral IR (`OpenAIHistoryCodec`).

A Responses conversation is a flat list of items. IR messages map to items like this:

* a user message -> one message item ``{"role": "user", "content": str | [entry, ...]}``
  (a single text part renders as a string; entries are ``input_text``, ``input_image``
  with ``"detail": "auto"`` and ``input_file``);
* assistant text -> ``{"type": "message", "role": "assistant", "content":
  [{"type": "output_text", "text": ..., "annotations": []}]}``;
* a tool call -> ``{"type": "function_call", "call_id", "name", "arguments"}`` (the
  arguments as compact JSON); a tool result -> ``{"type": "function_call_output",
  "call_id", "output"}`` (a string for one text item, else a list of input entries; the
  tool's name is not on the wire and is recovered from the matching call);
* OpenAI reasoning -> the reasoning item kept whole in
  ``ReasoningPart.provider_details["item"]`` (summary text as ``ReasoningPart.text``), so
  its ``encrypted_content`` replays byte-identical;
* every other item (``web_search_call``, ``mcp_call``, ``code_interpreter_call``,
  developer/system messages, unknown types) -> a verbatim `ProviderPart`.

Parsing groups consecutive items: each user-side message item is one IR user message,
consecutive ``function_call_output`` items one ``tool`` message, and the assistant-side
items between them one assistant message (a new one starts where an assistant message
item directly follows another, so rendering does not merge them).

Lossless: an item is mapped to plain IR parts only when rendering them gives the item
back. A message item carrying more than its text (ids, ``status``, ``phase``,
annotations, an image ``detail``) becomes an *envelope*: a ProviderPart
``{"type": "openai.message_envelope", "item": <the item with its texts blanked>,
"slots": [...]}`` followed by one `TextPart` per text, so the text stays visible
to the IR (and crosses to other providers) while the item renders back byte-identical.
A tool call that is not plain keeps its whole item in
``ToolCallPart.provider_details["openai"]["item"]``.
"""

from __future__ import annotations

import base64
import binascii
import copy
import json
import mimetypes
from typing import Any, assert_never
from urllib.parse import urlsplit

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.adapters.providers._codec import own_payload
from doc_processing_toolkit.adapters.providers._source import with_bytes
from doc_processing_toolkit.domain.errors import InvalidInputError
from doc_processing_toolkit.domain.messages import (
    ContentPart,
    MediaPart,
    Message,
    Part,
    ProviderPart,
    ReasoningPart,
    Role,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)

__all__ = [
    "ENVELOPE_TYPE",
    "PROVIDER",
    "OpenAIHistoryCodec",
    "dump_arguments",
    "item_to_parts",
    "render_message",
]

PROVIDER = "openai"
ENVELOPE_TYPE = "openai.message_envelope"
"""The ProviderPart payload type of a message item's envelope (never sent as such)."""

_DETAILS_KEY = "openai"
_STRING_SLOT = -1
_TEXT_ENTRIES = ("input_text", "output_text")

log = get_logger(__name__)


class OpenAIHistoryCodec:
    """Renders IR messages as Responses input items and parses them back (lossless)."""

    native_roles: tuple[str, ...] = ("user", "assistant", "system", "developer")
    """The roles a stored Responses history holds; items without a role are typed items
    (function calls, their outputs, reasoning)."""

    provider: str = PROVIDER

    def render(self, messages: list[Message]) -> list[dict[str, Any]]:
        """IR -> a flat list of Responses input items."""
        items: list[dict[str, Any]] = []
        for message in messages:
            items.extend(render_message(message))
        return items

    def parse(self, native: list[dict[str, Any]]) -> list[Message]:
        """Responses input items -> IR messages."""
        names: dict[str, str] = {}
        out: list[Message] = []
        role: Role | None = None
        parts: list[Part] = []
        last_was_message = False

        def close() -> None:
            nonlocal role, parts
            if role is not None:
                provider = PROVIDER if role == "assistant" else None
                out.append(Message(role=role, parts=tuple(parts), provider=provider))
            role, parts = None, []

        for item in native:
            if not isinstance(item, dict):
                raise InvalidInputError(f"a Responses input item must be an object, got {item!r}")
            side = _side(item)
            is_message = _is_message(item)
            follows_message = side == "assistant" and is_message and last_was_message
            if side == "user" or side != role or follows_message:
                close()
                role = side
            new_parts = item_to_parts(item, names)
            for part in new_parts:
                if isinstance(part, ToolCallPart):
                    names[part.id] = part.name
            parts.extend(new_parts)
            last_was_message = is_message
        close()
        return out


def _is_message(item: dict[str, Any]) -> bool:
    return "role" in item and item.get("type", "message") == "message"


def _side(item: dict[str, Any]) -> Role:
    if _is_message(item):
        return "assistant" if item.get("role") == "assistant" else "user"
    if item.get("type") == "function_call_output":
        return "tool"
    return "assistant"


# -- IR -> items ---------------------------------------------------------------------------


def dump_arguments(arguments: dict[str, Any]) -> str:
    """Tool-call arguments as the compact JSON string the codec renders."""
    return json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))


def render_message(message: Message) -> list[dict[str, Any]]:
    """One IR message as Responses input items."""
    role = "assistant" if message.role == "assistant" else "user"
    items: list[dict[str, Any]] = []
    pending: list[dict[str, Any]] = []
    parts = message.parts
    index = 0

    def flush() -> None:
        if pending:
            items.append(_message_item(role, list(pending)))
            pending.clear()

    while index < len(parts):
        part = parts[index]
        index += 1
        if isinstance(part, TextPart):
            pending.append(_text_entry(role, part.text))
        elif isinstance(part, MediaPart):
            entry = _media_entry(part) if role == "user" else None
            if entry is not None:
                pending.append(entry)
            elif role == "assistant":
                log.warning("openai: dropping media in an assistant message", mime=part.mime_type)
        elif isinstance(part, ProviderPart) and _is_envelope(part):
            flush()
            item, used = _fill_envelope(part.payload, parts[index:])
            items.append(item)
            index += used
        else:
            flush()
            rendered = part_to_item(part)
            if rendered is not None:
                items.append(rendered)
    flush()
    return items


def _text_entry(role: str, text: str) -> dict[str, Any]:
    if role == "assistant":
        return {"type": "output_text", "text": text, "annotations": []}
    return {"type": "input_text", "text": text}


def _message_item(role: str, entries: list[dict[str, Any]]) -> dict[str, Any]:
    if role == "assistant":
        return {"type": "message", "role": "assistant", "content": entries}
    if len(entries) == 1 and set(entries[0]) == {"type", "text"}:
        if entries[0]["type"] == "input_text":
            return {"role": "user", "content": entries[0]["text"]}
    return {"role": "user", "content": entries}


def _is_envelope(part: ProviderPart) -> bool:
    return part.provider == PROVIDER and part.payload.get("type") == ENVELOPE_TYPE


def _fill_envelope(
    payload: dict[str, Any], following: tuple[Part, ...]
) -> tuple[dict[str, Any], int]:
    """The envelope's item with its text slots filled from the TextParts that follow."""
    item = copy.deepcopy(payload.get("item") or {})
    slots = payload.get("slots") or []
    used = 0
    for slot in slots:
        part = following[used] if used < len(following) else None
        if not isinstance(part, TextPart):
            break
        text = part.text
        used += 1
        if slot == _STRING_SLOT:
            item["content"] = text
        else:
            item["content"][slot]["text"] = text
    return item, used


def part_to_item(part: Part) -> dict[str, Any] | None:
    """A non-text IR part as one Responses item; None (with a WARNING) when it cannot cross."""
    match part:
        case TextPart() | MediaPart():
            entry = (
                _text_entry("user", part.text) if isinstance(part, TextPart) else _media_entry(part)
            )
            return _message_item("user", [entry]) if entry is not None else None
        case ToolCallPart():
            return _function_call(part)
        case ToolResultPart():
            return {
                "type": "function_call_output",
                "call_id": part.call_id,
                "output": _output(part.content),
            }
        case ReasoningPart():
            item = (part.provider_details or {}).get("item")
            if part.provider == PROVIDER and isinstance(item, dict):
                return item
            log.warning(
                "openai: dropping reasoning that OpenAI cannot replay",
                reasoning_provider=part.provider,
            )
            return None
        case ProviderPart():
            return own_payload(part, PROVIDER, log)
        case _:
            assert_never(part)


def _function_call(part: ToolCallPart) -> dict[str, Any]:
    details = (part.provider_details or {}).get(_DETAILS_KEY)
    item = details.get("item") if isinstance(details, dict) else None
    if (
        isinstance(item, dict)
        and item.get("call_id") == part.id
        and item.get("name") == part.name
        and _decode_object(item.get("arguments")) == part.arguments
    ):
        return item
    return {
        "type": "function_call",
        "call_id": part.id,
        "name": part.name,
        "arguments": dump_arguments(part.arguments),
    }


def _output(content: tuple[ContentPart, ...]) -> str | list[dict[str, Any]]:
    if len(content) == 1 and isinstance(content[0], TextPart):
        return content[0].text
    entries: list[dict[str, Any]] = []
    for item in content:
        entry = _text_entry("user", item.text) if isinstance(item, TextPart) else _media_entry(item)
        if entry is not None:
            entries.append(entry)
    return entries


def _data_url(mime: str, data: bytes) -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def _default_filename(mime: str) -> str:
    if mime == "application/pdf":
        return "document.pdf"
    return "file" + (mimetypes.guess_extension(mime) or "")


def _media_entry(part: MediaPart) -> dict[str, Any] | None:
    part = with_bytes(part)
    mime = part.mime_type
    if mime.startswith("image/"):
        if part.data is not None:
            return {
                "type": "input_image",
                "image_url": _data_url(mime, part.data),
                "detail": "auto",
            }
        if part.url is not None:
            return {"type": "input_image", "image_url": part.url, "detail": "auto"}
        if part.file_uri is not None:
            return {"type": "input_image", "file_id": part.file_uri, "detail": "auto"}
    else:
        if part.data is not None:
            return {
                "type": "input_file",
                "filename": part.filename or _default_filename(mime),
                "file_data": _data_url(mime, part.data),
            }
        if part.url is not None:
            return {"type": "input_file", "file_url": part.url}
        if part.file_uri is not None:
            return {"type": "input_file", "file_id": part.file_uri}
    log.warning("openai: dropping media with no bytes, url or file id", mime_type=mime)
    return None


# -- items -> IR ---------------------------------------------------------------------------


def item_to_parts(item: dict[str, Any], names: dict[str, str] | None = None) -> list[Part]:
    """One Responses item as IR parts (several for a message item; verbatim when not exact)."""
    names = names or {}
    if _is_message(item):
        return _message_parts(item)
    match item.get("type"):
        case "function_call":
            call = _tool_call_part(item)
            return [call] if call is not None else [ProviderPart(PROVIDER, item)]
        case "function_call_output":
            result = _tool_result_part(item, names)
            return [result] if result is not None else [ProviderPart(PROVIDER, item)]
        case "reasoning":
            return [ReasoningPart(_summary_text(item), PROVIDER, {"item": item})]
        case _:
            return [ProviderPart(PROVIDER, item)]


def _summary_text(item: dict[str, Any]) -> str:
    summary = item.get("summary")
    if not isinstance(summary, list):
        return ""
    texts = [s.get("text") for s in summary if isinstance(s, dict)]
    return "\n\n".join(t for t in texts if isinstance(t, str))


def _message_parts(item: dict[str, Any]) -> list[Part]:
    if item.get("role") not in ("user", "assistant"):
        return [ProviderPart(PROVIDER, item)]  # developer / system instructions stay verbatim
    role: Role = "assistant" if item.get("role") == "assistant" else "user"
    plain = _plain_parts(item, role)
    if plain is not None and render_message(Message(role, tuple(plain))) == [item]:
        return plain
    return _envelope(item)


def _plain_parts(item: dict[str, Any], role: Role) -> list[Part] | None:
    content = item.get("content")
    if isinstance(content, str):
        return [TextPart(content)]
    if not isinstance(content, list) or not content:
        return None
    parts: list[Part] = []
    for entry in content:
        part = _content_part(entry) if isinstance(entry, dict) else None
        if part is None or (role == "assistant" and isinstance(part, MediaPart)):
            return None
        parts.append(part)
    return parts


def _envelope(item: dict[str, Any]) -> list[Part]:
    skeleton = copy.deepcopy(item)
    texts: list[Part] = []
    slots: list[int] = []
    content = skeleton.get("content")
    if isinstance(content, str):
        skeleton["content"] = ""
        slots.append(_STRING_SLOT)
        texts.append(TextPart(content))
    elif isinstance(content, list):
        for index, entry in enumerate(content):
            if (
                isinstance(entry, dict)
                and entry.get("type") in _TEXT_ENTRIES
                and isinstance(entry.get("text"), str)
            ):
                texts.append(TextPart(entry["text"]))
                entry["text"] = ""
                slots.append(index)
    payload = {"type": ENVELOPE_TYPE, "item": skeleton, "slots": slots}
    return [ProviderPart(PROVIDER, payload), *texts]


def _content_part(entry: dict[str, Any]) -> ContentPart | None:
    kind = entry.get("type")
    if kind in _TEXT_ENTRIES:
        text = entry.get("text")
        return TextPart(text) if isinstance(text, str) else None
    if kind == "input_image":
        url, file_id = entry.get("image_url"), entry.get("file_id")
        if isinstance(url, str):
            decoded = _parse_data_url(url)
            if decoded is not None:
                return MediaPart(mime_type=decoded[0], data=decoded[1])
            return MediaPart(mime_type=_guess_image_mime(url), url=url)
        if isinstance(file_id, str):
            return MediaPart(mime_type="image/*", file_uri=file_id)
        return None
    if kind == "input_file":
        data, url, file_id = entry.get("file_data"), entry.get("file_url"), entry.get("file_id")
        filename = entry.get("filename")
        if isinstance(data, str) and isinstance(filename, str):
            decoded = _parse_data_url(data)
            if decoded is None or decoded[0].startswith("image/"):
                return None
            return MediaPart(mime_type=decoded[0], data=decoded[1], filename=filename)
        if isinstance(url, str):
            guessed, _ = mimetypes.guess_type(urlsplit(url).path)
            mime = guessed if guessed and not guessed.startswith("image/") else "application/pdf"
            return MediaPart(mime_type=mime, url=url)
        if isinstance(file_id, str):
            return MediaPart(mime_type="application/pdf", file_uri=file_id)
    return None


def _parse_data_url(url: str) -> tuple[str, bytes] | None:
    """(mime, bytes) of a canonical ``data:<mime>;base64,<data>`` URL, else None."""
    if not url.startswith("data:"):
        return None
    head, sep, data = url[5:].partition(",")
    mime, _, encoding = head.partition(";")
    if not sep or encoding != "base64" or not mime:
        return None
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None
    return mime, raw


def _guess_image_mime(url: str) -> str:
    guessed, _ = mimetypes.guess_type(urlsplit(url).path)
    return guessed if guessed and guessed.startswith("image/") else "image/*"


def _decode_object(raw: Any) -> dict[str, Any] | None:
    if not isinstance(raw, str):
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _tool_call_part(item: dict[str, Any]) -> ToolCallPart | None:
    call_id, name = item.get("call_id"), item.get("name")
    arguments = _decode_object(item.get("arguments"))
    if not (isinstance(call_id, str) and isinstance(name, str) and arguments is not None):
        return None
    part = ToolCallPart(id=call_id, name=name, arguments=arguments)
    if _function_call(part) == item:
        return part
    return ToolCallPart(
        id=call_id, name=name, arguments=arguments, provider_details={_DETAILS_KEY: {"item": item}}
    )


def _tool_result_part(item: dict[str, Any], names: dict[str, str]) -> ToolResultPart | None:
    call_id, output = item.get("call_id"), item.get("output")
    if not isinstance(call_id, str):
        return None
    content: list[ContentPart] = []
    if isinstance(output, str):
        content.append(TextPart(output))
    elif isinstance(output, list):
        for entry in output:
            part = _content_part(entry) if isinstance(entry, dict) else None
            if part is None:
                return None
            content.append(part)
    else:
        return None
    result = ToolResultPart(call_id=call_id, name=names.get(call_id, ""), content=tuple(content))
    return result if part_to_item(result) == item else None
