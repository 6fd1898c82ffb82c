"""What a chat-completions message or reasoning contributes when a history leaves an
OpenAI-compatible vendor (Fireworks, ...).

The codec keeps every message it cannot map exactly as a ``ProviderPart``; here such a
message is read leniently (its text, image URLs, tool calls and tool results) and
everything else is named as a dropped artefact. ``reasoning_content`` never crosses.
"""

from __future__ import annotations

from typing import Any

from doc_processing_toolkit.adapters.providers._lenient import call_of, url_media
from doc_processing_toolkit.domain.history.report import Salvage
from doc_processing_toolkit.domain.messages import (
    MediaPart,
    Part,
    ProviderPart,
    ReasoningPart,
    TextPart,
    ToolResultPart,
)

__all__ = ["reasoning_drop", "salvage", "salvage_message"]

_KEYS = frozenset({"role", "content", "reasoning_content", "tool_calls", "tool_call_id"})


def salvage(part: ProviderPart | ReasoningPart) -> Salvage | None:
    """A message's neutral content and drops; reasoning_content, named."""
    if isinstance(part, ReasoningPart):
        return Salvage(drops=(reasoning_drop(part),))
    return salvage_message(part.payload)


def reasoning_drop(part: ReasoningPart) -> tuple[str, str]:
    """``(artefact, detail)`` of a message's reasoning_content."""
    return "reasoning_content", f"reasoning_content ({len(part.text)} chars)"


def salvage_message(payload: dict[str, Any]) -> Salvage | None:
    """The neutral content of one message (or one content item of it)."""
    if "role" not in payload:
        return _content(payload)
    role = payload.get("role")
    if role not in ("assistant", "tool", "user"):
        return Salvage(drops=(("provider_part", f"a {role} message"),))
    extra = sorted(set(payload) - _KEYS)
    drops = (("provider_part", f"{', '.join(extra)} on a {role} message"),) if extra else ()
    if role == "assistant":
        found = _assistant(payload)
    elif role == "tool":
        items = _items(payload.get("content"))
        call_id = payload.get("tool_call_id")
        result = ToolResultPart(
            call_id=call_id if isinstance(call_id, str) else "",
            name="",
            content=tuple(p for p in items.parts if isinstance(p, TextPart | MediaPart)),
        )
        found = Salvage((result,), items.drops)
    else:
        found = _items(payload.get("content"))
    return Salvage(found.parts, drops + found.drops)


def _items(content: Any) -> Salvage:
    if isinstance(content, str):
        return Salvage((TextPart(content),))
    parts: list[Part] = []
    drops: list[tuple[str, str]] = []
    for item in content if isinstance(content, list) else []:
        found = _content(item) if isinstance(item, dict) else None
        if found is None:
            drops.append(("unknown_part", "a content item the conversion cannot read"))
            continue
        parts.extend(found.parts)
        drops.extend(found.drops)
    return Salvage(tuple(parts), tuple(drops))


def _content(item: dict[str, Any]) -> Salvage | None:
    kind = item.get("type")
    if kind == "text" and isinstance(item.get("text"), str):
        return Salvage((TextPart(item["text"]),))
    if kind == "image_url":
        image = item.get("image_url")
        url = image.get("url") if isinstance(image, dict) else image
        media = url_media(url, "image/*")
        if media is not None:
            return Salvage((media,))
        return Salvage(drops=(("media", "an image_url part the conversion cannot read"),))
    return Salvage(drops=(("unknown_part", f"a {kind} content part"),))


def _assistant(message: dict[str, Any]) -> Salvage:
    parts: list[Part] = []
    drops: list[tuple[str, str]] = []
    reasoning = message.get("reasoning_content")
    if isinstance(reasoning, str) and reasoning:
        drops.append(("reasoning_content", f"reasoning_content ({len(reasoning)} chars)"))
    content = message.get("content")
    if content is not None:
        found = _items(content)
        parts.extend(found.parts)
        drops.extend(found.drops)
    for call in message.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, dict) else None
        function = function if isinstance(function, dict) else {}
        found = call_of(
            call.get("id") if isinstance(call, dict) else None,
            function.get("name"),
            function.get("arguments"),
        )
        parts.extend(found.parts)
        drops.extend(found.drops)
    return Salvage(tuple(parts), tuple(drops))
