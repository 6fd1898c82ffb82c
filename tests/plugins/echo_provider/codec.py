"""EchoHistoryCodec: echo-native history <-> the toolkit's message IR, lossless.

Native message: ``{"role": "user" | "assistant" | "tool", "items": [item, ...]}`` with
items ``{"text": str}``, ``{"thought": str, "seal": str}``,
``{"call": {"id", "name", "args"}}``, ``{"result": {"call_id", "name", "output": [...],
"error": true}}`` (``error`` only when true; ``output`` holds text items) and
``{"media": {"mime", "url"}}``. Anything else is kept verbatim as a ``ProviderPart``.
"""

from __future__ import annotations

from typing import Any

from doc_processing_toolkit.domain.messages import (
    MediaPart,
    Message,
    Part,
    ProviderPart,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)

__all__ = ["PROVIDER", "EchoHistoryCodec", "item_to_part", "part_to_item"]

PROVIDER = "echo"


class EchoHistoryCodec:
    """Renders IR messages as echo-native dicts and parses them back."""

    provider = PROVIDER

    def render(self, messages: list[Message]) -> list[dict[str, Any]]:
        """IR -> echo-native messages."""
        return [
            {"role": m.role, "items": [item for p in m.parts if (item := part_to_item(p))]}
            for m in messages
        ]

    def parse(self, native: list[dict[str, Any]]) -> list[Message]:
        """Echo-native messages -> IR."""
        out: list[Message] = []
        for message in native:
            role = message["role"]
            parts = tuple(item_to_part(item) for item in message["items"])
            out.append(Message(role, parts, provider=PROVIDER if role == "assistant" else None))
        return out


def part_to_item(part: Part) -> dict[str, Any] | None:
    """One IR part as an echo item (None: reasoning of another provider, dropped)."""
    match part:
        case TextPart(text=text):
            return {"text": text}
        case ReasoningPart(text=text, provider=provider, provider_details=details):
            if provider != PROVIDER or not details or "seal" not in details:
                return None
            return {"thought": text, "seal": details["seal"]}
        case ToolCallPart(id=call_id, name=name, arguments=arguments):
            return {"call": {"id": call_id, "name": name, "args": arguments}}
        case ToolResultPart(call_id=call_id, name=name, content=content, is_error=is_error):
            result: dict[str, Any] = {
                "call_id": call_id,
                "name": name,
                "output": [{"text": c.text} for c in content if isinstance(c, TextPart)],
            }
            if is_error:
                result["error"] = True
            return {"result": result}
        case MediaPart(mime_type=mime, url=url) if url is not None:
            return {"media": {"mime": mime, "url": url}}
        case ProviderPart(provider=provider, payload=payload) if provider == PROVIDER:
            return payload
        case _:
            return None


def item_to_part(item: dict[str, Any]) -> Part:
    """One echo item as an IR part; unknown shapes become a ProviderPart."""
    try:
        part = _known_part(item)
    except (KeyError, TypeError, AttributeError):
        part = None
    # Only map what renders back to the same item; keep anything else verbatim.
    if part is None or part_to_item(part) != item:
        return ProviderPart(PROVIDER, item)
    return part


def _known_part(item: dict[str, Any]) -> Part | None:
    part: Part
    if set(item) == {"text"}:
        part = TextPart(item["text"])
    elif set(item) == {"thought", "seal"}:
        part = ReasoningPart(item["thought"], PROVIDER, {"seal": item["seal"]})
    elif set(item) == {"call"}:
        call = item["call"]
        part = ToolCallPart(call["id"], call["name"], call["args"])
    elif set(item) == {"result"}:
        result = item["result"]
        part = ToolResultPart(
            result["call_id"],
            result["name"],
            tuple(TextPart(o["text"]) for o in result["output"]),
            is_error=result.get("error", False),
        )
    elif set(item) == {"media"}:
        part = MediaPart(item["media"]["mime"], url=item["media"]["url"])
    else:
        return None
    return part
