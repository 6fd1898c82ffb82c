"""What a Gemini part or thought contributes when a history leaves Google.

The codec keeps every part it cannot map exactly as a ``ProviderPart``; here such a part
is read leniently (an id-less or non-standard ``function_response``, a ``function_call``
with a signature, inline or file media) and everything else is named as a dropped
artefact. Thought summaries and thought signatures never cross (``thought``,
``thought_signature``); provider-run code execution is ``provider_part``.
"""

from __future__ import annotations

from typing import Any

from doc_processing_toolkit.adapters.providers._lenient import call_of, text_of
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

__all__ = ["PROVIDER_KEYS", "reasoning_drop", "salvage", "salvage_part"]

PROVIDER_KEYS = ("executable_code", "code_execution_result")
"""Gemini part keys of provider-run code execution."""


def salvage(part: ProviderPart | ReasoningPart) -> Salvage | None:
    """A part's neutral content and drops; a thought or signature, named."""
    if isinstance(part, ReasoningPart):
        return Salvage(drops=(reasoning_drop(part),))
    return salvage_part(part.payload)


def reasoning_drop(part: ReasoningPart) -> tuple[str, str]:
    """``(artefact, detail)`` of a thought summary or a thought signature."""
    details = part.provider_details or {}
    signed = isinstance(details.get("thought_signature"), str)
    if details.get("thought") is True or (part.text and not signed):
        size = f"{len(part.text)} chars"
        return "thought", f"a thought summary ({size}{', signed' if signed else ''})"
    if details.get("signs") == "previous":
        return "thought_signature", "the thought signature on the part before it"
    return "thought_signature", "a thought signature"


def salvage_part(part: dict[str, Any]) -> Salvage | None:
    """The neutral content of one Gemini part (an unknown part is named as dropped)."""
    keys = set(part) - {"thought_signature"}
    signed: tuple[tuple[str, str], ...] = ()
    if isinstance(part.get("thought_signature"), str):
        signed = (("thought_signature", "a thought signature"),)
    if not keys:
        return Salvage(drops=signed)
    if part.get("thought") is True:
        return Salvage(drops=(("thought", "a thought summary"),))
    if keys & set(PROVIDER_KEYS):
        return Salvage(drops=(("provider_part", ", ".join(sorted(keys))),))
    if isinstance(part.get("function_call"), dict):
        call = part["function_call"]
        found = call_of(call.get("id"), call.get("name"), call.get("args"))
        return Salvage(found.parts, found.drops + signed)
    if isinstance(part.get("function_response"), dict):
        return _result(part["function_response"])
    if isinstance(part.get("text"), str):
        return Salvage((TextPart(part["text"]),), signed)
    media = _media(part)
    if media is not None:
        return Salvage((media,), signed)
    return Salvage(drops=(("unknown_part", ", ".join(sorted(keys))),))


def _media(part: dict[str, Any]) -> MediaPart | None:
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


def _result(response: dict[str, Any]) -> Salvage:
    body = response.get("response")
    is_error = isinstance(body, dict) and set(body) == {"error"}
    if isinstance(body, dict) and len(body) == 1 and isinstance(next(iter(body.values())), str):
        text = next(iter(body.values()))
    else:
        text = text_of(body)
    items: list[ContentPart] = [TextPart(text)] if text else []
    drops: list[tuple[str, str]] = []
    for media in response.get("parts") or []:
        found = _media(media) if isinstance(media, dict) else None
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
