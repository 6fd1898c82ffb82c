"""What an OpenAI Responses item or reasoning contributes when a history leaves OpenAI.

The codec keeps every item it cannot map exactly as a ``ProviderPart`` (and a message
item with ids or annotations as an envelope); here such an item is read leniently (a
``function_call`` or ``function_call_output`` the IR could not hold exactly, an input
image or file, a refusal) and everything else is named as a dropped artefact. Reasoning
items never cross (``reasoning``).
"""

from __future__ import annotations

from typing import Any

from doc_processing_toolkit.adapters.providers._lenient import call_of, url_media
from doc_processing_toolkit.adapters.providers.openai.citations import map_annotations
from doc_processing_toolkit.adapters.providers.openai.dialect import ENVELOPE_TYPE
from doc_processing_toolkit.domain.history.report import Salvage
from doc_processing_toolkit.domain.messages import (
    ContentPart,
    MediaPart,
    Part,
    ProviderPart,
    ReasoningPart,
    TextPart,
    ToolResultPart,
)

__all__ = ["reasoning_drop", "salvage", "salvage_item"]


def salvage(part: ProviderPart | ReasoningPart) -> Salvage | None:
    """An item's neutral content and drops; a reasoning item, named."""
    if isinstance(part, ReasoningPart):
        return Salvage(drops=(reasoning_drop(part),))
    return salvage_item(part.payload)


def reasoning_drop(part: ReasoningPart) -> tuple[str, str]:
    """``(artefact, detail)`` of a reasoning item (encrypted or not)."""
    item = (part.provider_details or {}).get("item")
    encrypted = isinstance(item, dict) and item.get("encrypted_content")
    size = f"{len(part.text)} chars"
    return "reasoning", f"{'an encrypted' if encrypted else 'a'} reasoning item ({size})"


def salvage_item(item: dict[str, Any]) -> Salvage | None:
    """The neutral content of one Responses item (an unknown item is named as dropped)."""
    kind = item.get("type")
    if kind == ENVELOPE_TYPE:
        inner = item.get("item")
        return _envelope(inner if isinstance(inner, dict) else {})
    if "role" in item and kind in (None, "message"):
        role = item.get("role")
        return Salvage(drops=(("provider_item", f"a {role} message"),))
    if kind == "function_call":
        return call_of(item.get("call_id"), item.get("name"), item.get("arguments"))
    if kind == "function_call_output":
        content, drops = _content(item.get("output"))
        call_id = item.get("call_id")
        cid = call_id if isinstance(call_id, str) else ""
        return Salvage((ToolResultPart(call_id=cid, name="", content=tuple(content)),), drops)
    if kind == "reasoning":
        return Salvage(drops=(("reasoning", "a reasoning item"),))
    return Salvage(drops=(("provider_item", str(kind or "an item with no type")),))


def _envelope(item: dict[str, Any]) -> Salvage:
    """The envelope's texts follow it as TextParts; what it adds is media and refusals."""
    parts: list[Part] = []
    drops: list[tuple[str, str]] = []
    content = item.get("content")
    for entry in content if isinstance(content, list) else []:
        if not isinstance(entry, dict):
            continue
        kind = entry.get("type")
        if kind in ("input_text", "output_text"):
            continue  # the texts follow the envelope; their annotations cross as text
        elif kind == "refusal" and isinstance(entry.get("refusal"), str):
            parts.append(TextPart(entry["refusal"]))
        else:
            media, more = _content([entry])
            parts.extend(media)
            drops.extend(more)
    return Salvage(tuple(parts), tuple(drops), citations=map_annotations([item]))


def _content(output: Any) -> tuple[list[ContentPart], tuple[tuple[str, str], ...]]:
    if isinstance(output, str):
        return [TextPart(output)], ()
    items: list[ContentPart] = []
    drops: list[tuple[str, str]] = []
    for entry in output if isinstance(output, list) else [output]:
        part = _entry(entry) if isinstance(entry, dict) else None
        if part is None:
            kind = entry.get("type") if isinstance(entry, dict) else type(entry).__name__
            drops.append(("unknown_part", f"an {kind} entry"))
        else:
            items.append(part)
    return items, tuple(drops)


def _entry(entry: dict[str, Any]) -> ContentPart | None:
    kind = entry.get("type")
    if kind in ("input_text", "output_text") and isinstance(entry.get("text"), str):
        return TextPart(entry["text"])
    if kind == "input_image":
        if isinstance(entry.get("file_id"), str):
            return MediaPart(mime_type="image/*", file_uri=entry["file_id"])
        return url_media(entry.get("image_url"), "image/*")
    if kind == "input_file":
        if isinstance(entry.get("file_id"), str):
            return MediaPart(mime_type="application/pdf", file_uri=entry["file_id"])
        url = entry.get("file_data") or entry.get("file_url")
        return url_media(url, "application/pdf", entry.get("filename"))
    return None
