"""What an Anthropic content block or thinking contributes when a history leaves Anthropic.

The codec keeps every block it cannot map exactly as a ``ProviderPart``; here such a block
is read leniently (the text of a cited block, a ``tool_use`` or ``tool_result`` the IR
could not hold exactly, media in a non-canonical spelling) and everything else is named as
a dropped artefact. Signed and redacted thinking never crosses (``thinking``).
"""

from __future__ import annotations

from typing import Any

from doc_processing_toolkit.adapters.providers._lenient import call_of, url_media
from doc_processing_toolkit.domain.history.report import Salvage
from doc_processing_toolkit.domain.media import decode_base64
from doc_processing_toolkit.domain.messages import (
    ContentPart,
    MediaPart,
    ProviderPart,
    ReasoningPart,
    TextPart,
    ToolResultPart,
)

__all__ = ["reasoning_drop", "salvage", "salvage_block"]

_SERVER_SUFFIXES = ("_tool_result", "server_tool_use", "mcp_tool_use")


def salvage(part: ProviderPart | ReasoningPart) -> Salvage | None:
    """A block's neutral content and drops (None: drop it whole); thinking, named."""
    if isinstance(part, ReasoningPart):
        return Salvage(drops=(reasoning_drop(part),))
    return salvage_block(part.payload)


def reasoning_drop(part: ReasoningPart) -> tuple[str, str]:
    """``(artefact, detail)`` of signed or redacted thinking."""
    if "redacted_data" in (part.provider_details or {}):
        return "thinking", "redacted thinking"
    return "thinking", f"signed thinking ({len(part.text)} chars)"


def salvage_block(block: dict[str, Any]) -> Salvage | None:
    """The neutral content of one content block (None: not a block this reads)."""
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
        return call_of(block.get("id"), block.get("name"), block.get("input"))
    if kind == "tool_result":
        return _result(block)
    if kind in ("image", "document"):
        media = _media(block)
        if media is None:
            return Salvage(drops=(("media", f"an {kind} block the conversion cannot read"),))
        return Salvage((media,))
    if isinstance(kind, str) and kind.endswith(_SERVER_SUFFIXES):
        return Salvage(drops=(("provider_block", kind),))
    return None


def _media(block: dict[str, Any]) -> MediaPart | None:
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
            return url_media(source.get("url"), mime, title)
        case "file" if isinstance(source.get("file_id"), str):
            return MediaPart(mime_type=mime, file_uri=source["file_id"])
        case _:
            return None


def _result(block: dict[str, Any]) -> Salvage:
    raw = block.get("content", [])
    items: list[ContentPart] = []
    drops: list[tuple[str, str]] = []
    for item in [{"type": "text", "text": raw}] if isinstance(raw, str) else raw or []:
        found = salvage_block(item) if isinstance(item, dict) else None
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
