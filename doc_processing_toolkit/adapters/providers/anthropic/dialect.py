"""Anthropic Messages history <-> the neutral IR (`AnthropicHistoryCodec`).

The native shape is ``{"role": "user" | "assistant", "content": str | [block, ...]}``.

Canonical rendering (what the adapter produces, so ``render(parse(x)) == x`` for it):

* a user message holding exactly one `TextPart` renders as a string ``content``;
  every other message renders a list of blocks (assistant messages always do);
* an IR ``tool`` message renders as a ``user`` message; a native user message whose
  content is only ``tool_result`` blocks parses back as role ``tool``;
* ``tool_result`` content is always a list of blocks; ``is_error`` appears only when true
  (string content, absent content and ``"is_error": false`` parse to the same part and
  render in this canonical form); the tool's name is not on the wire and is recovered
  from the matching ``tool_use``;
* signed thinking is ``ReasoningPart(text, "anthropic", {"signature": ...})`` and redacted
  thinking ``ReasoningPart("", "anthropic", {"redacted_data": ...})``; both replay
  byte-identical;
* extra ``tool_use`` keys (``caller``, ``toolset_name``) ride in
  ``ToolCallPart.provider_details["anthropic"]``; extra ``text`` keys (``citations``) ride
  in ``TextPart.provider_details["anthropic"]``, so cited text is text (another provider
  gets the text, Anthropic gets the block back byte for byte);
* any block the IR cannot hold exactly (unknown types, server-tool blocks, non-canonical
  base64, extra keys) is kept verbatim as a
  `ProviderPart`: a block is only mapped to an IR part when rendering that part
  gives the block back.
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
from typing import Any, assert_never
from urllib.parse import urlsplit

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.adapters.providers._codec import own_payload
from doc_processing_toolkit.adapters.providers._source import with_bytes
from doc_processing_toolkit.domain.errors import CompatibilityError, InvalidInputError
from doc_processing_toolkit.domain.messages import (
    ContentPart,
    MediaPart,
    Message,
    Part,
    ProviderPart,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)

__all__ = ["PROVIDER", "AnthropicHistoryCodec", "block_to_part", "part_to_block"]

PROVIDER = "anthropic"
_DETAILS_KEY = "anthropic"
_IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")

log = get_logger(__name__)


class AnthropicHistoryCodec:
    """Renders IR messages as Anthropic Messages dicts and parses them back (lossless)."""

    native_roles: tuple[str, ...] = ("user", "assistant")
    """The roles a stored Anthropic history holds (a saved session is checked against them)."""

    provider: str = PROVIDER

    def render(self, messages: list[Message]) -> list[dict[str, Any]]:
        """IR -> Anthropic-native ``{"role", "content"}`` dicts."""
        return [render_message(message) for message in messages]

    def parse(self, native: list[dict[str, Any]]) -> list[Message]:
        """Anthropic-native message dicts -> IR messages."""
        names: dict[str, str] = {}
        out: list[Message] = []
        for item in native:
            message = parse_message(item, names)
            for call in message.tool_calls:
                names[call.id] = call.name
            out.append(message)
        return out


def render_message(message: Message) -> dict[str, Any]:
    """One IR message as an Anthropic message dict."""
    role = "assistant" if message.role == "assistant" else "user"
    parts = message.parts
    if (
        role == "user"
        and len(parts) == 1
        and isinstance(parts[0], TextPart)
        and not parts[0].provider_details
    ):
        return {"role": role, "content": parts[0].text}
    blocks = []
    for part in parts:
        block = part_to_block(part)
        if block is not None:
            blocks.append(block)
    return {"role": role, "content": blocks}


def parse_message(native: dict[str, Any], names: dict[str, str] | None = None) -> Message:
    """One Anthropic message dict as an IR message.

    ``names`` maps earlier ``tool_use`` ids to tool names (the wire's tool_result has none).
    """
    names = names or {}
    role = native.get("role")
    content = native.get("content", [])
    if role not in ("user", "assistant"):
        raise InvalidInputError(f"not an Anthropic message role: {role!r}")
    provider = PROVIDER if role == "assistant" else None
    if isinstance(content, str):
        return Message(role=role, parts=(TextPart(content),), provider=provider)
    if not isinstance(content, list):
        raise InvalidInputError(
            f"Anthropic message content must be a string or a list, got {content!r}"
        )
    parts = tuple(block_to_part(block, names) for block in content)
    if (
        role == "user"
        and content
        and all(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
    ):
        return Message(role="tool", parts=parts)
    return Message(role=role, parts=parts, provider=provider)


# -- IR part -> native block -------------------------------------------------------------


def part_to_block(part: Part) -> dict[str, Any] | None:
    """One IR part as an Anthropic content block; None (with a WARNING) when it cannot cross."""
    match part:
        case TextPart(text=text):
            text_block: dict[str, Any] = {"type": "text", "text": text}
            text_extra = (part.provider_details or {}).get(_DETAILS_KEY)
            if isinstance(text_extra, dict):
                text_block.update(text_extra)
            return text_block
        case MediaPart():
            return _media_block(part)
        case ToolCallPart(id=call_id, name=name, arguments=arguments):
            block: dict[str, Any] = {
                "type": "tool_use",
                "id": call_id,
                "name": name,
                "input": arguments,
            }
            extra = (part.provider_details or {}).get(_DETAILS_KEY)
            if isinstance(extra, dict):
                block.update(extra)
            return block
        case ToolResultPart():
            result: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": part.call_id,
                "content": [_content_block(item) for item in part.content],
            }
            if part.is_error:
                result["is_error"] = True
            return result
        case ReasoningPart():
            return _reasoning_block(part)
        case ProviderPart():
            return own_payload(part, PROVIDER, log)
        case _:
            assert_never(part)


def _content_block(item: ContentPart) -> dict[str, Any]:
    if isinstance(item, TextPart):
        return {"type": "text", "text": item.text}
    block = _media_block(item)
    if block is None:
        raise CompatibilityError(
            f"media of type {item.mime_type!r} cannot go into an Anthropic message"
        )
    return block


def _reasoning_block(part: ReasoningPart) -> dict[str, Any] | None:
    details = part.provider_details or {}
    if part.provider == PROVIDER and "redacted_data" in details:
        return {"type": "redacted_thinking", "data": details["redacted_data"]}
    if part.provider == PROVIDER and "signature" in details:
        return {"type": "thinking", "thinking": part.text, "signature": details["signature"]}
    log.warning(
        "anthropic: dropping reasoning that Anthropic cannot replay",
        reasoning_provider=part.provider,
    )
    return None


def _media_block(part: MediaPart) -> dict[str, Any] | None:
    part = with_bytes(part)
    mime = part.mime_type
    if mime.startswith("image/"):
        kind = "image"
    elif mime in ("application/pdf", "text/plain"):
        kind = "document"
    else:
        log.warning("anthropic: dropping media Anthropic does not take", mime_type=mime)
        return None
    source: dict[str, Any]
    if part.data is not None:
        if mime == "text/plain":
            source = {"type": "text", "media_type": mime, "data": part.data.decode("utf-8")}
        else:
            data = base64.b64encode(part.data).decode("ascii")
            source = {"type": "base64", "media_type": mime, "data": data}
    elif part.url is not None:
        source = {"type": "url", "url": part.url}
    elif part.file_uri is not None:
        source = {"type": "file", "file_id": part.file_uri}
    else:
        log.warning("anthropic: dropping media with no bytes, url or file id", mime_type=mime)
        return None
    block: dict[str, Any] = {"type": kind, "source": source}
    if kind == "document" and part.filename is not None:
        block["title"] = part.filename
    return block


# -- native block -> IR part -------------------------------------------------------------


def block_to_part(block: Any, names: dict[str, str] | None = None) -> Part:
    """One Anthropic content block as an IR part (a verbatim ProviderPart when not exact)."""
    if not isinstance(block, dict):
        raise InvalidInputError(f"an Anthropic content block must be an object, got {block!r}")
    part = _candidate_part(block, names or {})
    if part is not None and part_to_block(part) == _canonical(block):
        return part
    return ProviderPart(provider=PROVIDER, payload=block)


def _canonical(block: dict[str, Any]) -> dict[str, Any]:
    """``block`` in the form this codec renders, for spellings that mean the same thing.

    A ``tool_result`` whose content is a string, or absent, or that says
    ``"is_error": false`` is the canonical list-content block (and renders as one).
    """
    if block.get("type") != "tool_result":
        return block
    canonical = dict(block)
    content = canonical.get("content", [])
    canonical["content"] = (
        [{"type": "text", "text": content}] if isinstance(content, str) else content
    )
    if canonical.get("is_error") is False:
        del canonical["is_error"]
    return canonical


def _candidate_part(block: dict[str, Any], names: dict[str, str]) -> Part | None:
    match block.get("type"):
        case "text":
            text = block.get("text")
            if not isinstance(text, str):
                return None
            extra = {k: v for k, v in block.items() if k not in ("type", "text")}
            return TextPart(text, provider_details={_DETAILS_KEY: extra} if extra else None)
        case "image" | "document":
            return _media_part(block)
        case "tool_use":
            return _tool_call_part(block)
        case "tool_result":
            return _tool_result_part(block, names)
        case "thinking":
            text, signature = block.get("thinking"), block.get("signature")
            if isinstance(text, str) and isinstance(signature, str):
                return ReasoningPart(text, PROVIDER, {"signature": signature})
            return None
        case "redacted_thinking":
            data = block.get("data")
            if isinstance(data, str):
                return ReasoningPart("", PROVIDER, {"redacted_data": data})
            return None
        case _:
            return None


def _tool_call_part(block: dict[str, Any]) -> ToolCallPart | None:
    call_id, name, arguments = block.get("id"), block.get("name"), block.get("input")
    if not (isinstance(call_id, str) and isinstance(name, str) and isinstance(arguments, dict)):
        return None
    extra = {k: v for k, v in block.items() if k not in ("type", "id", "name", "input")}
    details = {_DETAILS_KEY: extra} if extra else None
    return ToolCallPart(id=call_id, name=name, arguments=arguments, provider_details=details)


def _tool_result_part(block: dict[str, Any], names: dict[str, str]) -> ToolResultPart | None:
    call_id = block.get("tool_use_id")
    raw = block.get("content", [])
    if not isinstance(call_id, str):
        return None
    items: list[ContentPart] = []
    if isinstance(raw, str):
        items.append(TextPart(raw))
    elif isinstance(raw, list):
        for item in raw:
            part = _candidate_part(item, names) if isinstance(item, dict) else None
            if not isinstance(part, TextPart | MediaPart):
                return None
            items.append(part)
    else:
        return None
    return ToolResultPart(
        call_id=call_id,
        name=names.get(call_id, ""),
        content=tuple(items),
        is_error=block.get("is_error") is True,
    )


def _media_part(block: dict[str, Any]) -> MediaPart | None:
    source = block.get("source")
    if not isinstance(source, dict):
        return None
    kind = block.get("type")
    title = block.get("title")
    filename = title if kind == "document" and isinstance(title, str) else None
    match source.get("type"):
        case "base64":
            mime, data = source.get("media_type"), source.get("data")
            if not (isinstance(mime, str) and isinstance(data, str)):
                return None
            try:
                raw = base64.b64decode(data, validate=True)
            except (binascii.Error, ValueError):
                return None
            return MediaPart(mime_type=mime, data=raw, filename=filename)
        case "text":
            data = source.get("data")
            if not isinstance(data, str):
                return None
            return MediaPart(mime_type="text/plain", data=data.encode("utf-8"), filename=filename)
        case "url":
            url = source.get("url")
            if not isinstance(url, str):
                return None
            return MediaPart(mime_type=_guess_mime(kind, url), url=url, filename=filename)
        case "file":
            file_id = source.get("file_id")
            if not isinstance(file_id, str):
                return None
            mime = "image/*" if kind == "image" else "application/pdf"
            return MediaPart(mime_type=mime, file_uri=file_id, filename=filename)
        case _:
            return None


def _guess_mime(kind: Any, url: str) -> str:
    """The media type of a URL source: documents by URL are PDFs; images by extension."""
    if kind != "image":
        return "application/pdf"
    guessed, _ = mimetypes.guess_type(urlsplit(url).path)
    return guessed if guessed in _IMAGE_TYPES else "image/*"
