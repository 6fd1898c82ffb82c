"""The native media shapes of the four providers' stored histories (NativeMediaShapes).

A stored session keeps media the way each provider's API took it: base64 inside an
Anthropic ``source``, a data URL inside an OpenAI or Fireworks part, ``inline_data`` inside
a Gemini part, a Files API ``file_data`` URI for what Gemini took by upload, and the base64
result of an OpenAI image generation call. `ProviderMediaShapes` recognises them by
structure (never by asking which provider saved them) and rewrites a slot's payload or
replaces the part by a text placeholder in the same dialect.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from doc_processing_toolkit.domain.media import MediaSlot, data_url_payload, is_marker

__all__ = ["ProviderMediaShapes", "google_files_api_uri"]

_FILES_API = re.compile(r"^https://generativelanguage\.googleapis\.com/.*files/")


def google_files_api_uri(value: Any) -> bool:
    """Whether ``value`` is a Gemini Files API URI (as opposed to a YouTube URL)."""
    return isinstance(value, str) and bool(_FILES_API.match(value))


def _base64_slot(
    dialect: str, slot: str, mime: str | None, payload: Any, index: int, role: Any, part: Any
) -> MediaSlot | None:
    if not isinstance(payload, str):
        return None
    return MediaSlot("base64", dialect, slot, mime, payload, None, index, role, part)


def _ref_slot(
    kind: str, dialect: str, mime: str | None, ref: Any, index: int, role: Any, part: Any
) -> MediaSlot | None:
    if not isinstance(ref, str):
        return None
    return MediaSlot(kind, dialect, None, mime, None, ref, index, role, part)


def _url_or_data(
    dialect: str, value: Any, mime: str | None, index: int, role: Any, part: Any
) -> MediaSlot | None:
    if is_marker(value):
        return MediaSlot("base64", dialect, "data_url", mime, value, None, index, role, part)
    decoded = data_url_payload(value)
    if decoded is not None:
        return _base64_slot(dialect, "data_url", decoded[0] or mime, decoded[1], index, role, part)
    return _ref_slot("url", dialect, mime, value, index, role, part)


def classify_part(part: Any, message_index: int = 0, role: Any = None) -> MediaSlot | None:
    """Recognise ``part`` as a media part of any dialect (None when it carries no media)."""
    if not isinstance(part, dict):
        return None
    i, r = message_index, role
    kind = part.get("type")
    source = part.get("source")
    if kind in ("image", "document") and isinstance(source, dict):
        mime = source.get("media_type")
        match source.get("type"):
            case "base64":
                return _base64_slot("anthropic", "base64", mime, source.get("data"), i, r, part)
            case "url":
                return _ref_slot("url", "anthropic", mime, source.get("url"), i, r, part)
            case "file":
                return _ref_slot(
                    "provider_file", "anthropic", mime, source.get("file_id"), i, r, part
                )
        return None
    if kind == "input_image":
        if "file_id" in part:
            return _ref_slot("provider_file", "openai", None, part["file_id"], i, r, part)
        return _url_or_data("openai", part.get("image_url"), None, i, r, part)
    if kind == "input_file":
        if "file_data" in part:
            return _url_or_data("openai", part["file_data"], None, i, r, part)
        if "file_id" in part:
            return _ref_slot("provider_file", "openai", None, part["file_id"], i, r, part)
        return _ref_slot("url", "openai", None, part.get("file_url"), i, r, part)
    if kind == "image_url" and isinstance(part.get("image_url"), dict):
        return _url_or_data("fireworks", part["image_url"].get("url"), None, i, r, part)
    if kind == "image_generation_call" and isinstance(part.get("result"), str):
        return _base64_slot("openai_generated", "base64", "image/png", part["result"], i, r, part)
    inline, file_data = part.get("inline_data"), part.get("file_data")
    if isinstance(inline, dict):
        slot = _base64_slot(
            "google", "base64", inline.get("mime_type"), inline.get("data"), i, r, part
        )
        if slot is not None:
            slot.alphabet = "urlsafe"  # the genai SDK writes URL-safe base64
        return slot
    if isinstance(file_data, dict):
        uri = file_data.get("file_uri")
        ref_kind = "google_file_uri" if google_files_api_uri(uri) else "url"
        return _ref_slot(ref_kind, "google", file_data.get("mime_type"), uri, i, r, part)
    return None


def _with_payload(slot: MediaSlot, payload: str) -> dict[str, Any]:
    """``slot``'s part with its inline payload slot set to ``payload`` (a copy)."""
    part = copy.deepcopy(slot.part)
    value = payload
    if slot.slot == "data_url" and not is_marker(payload):
        value = f"data:{slot.mime_type or 'application/octet-stream'};base64,{payload}"
    match slot.dialect:
        case "anthropic":
            part["source"]["data"] = value
        case "google":
            part["inline_data"]["data"] = value
        case "openai_generated":
            part["result"] = value
        case "fireworks":
            part["image_url"]["url"] = value
        case _:
            field = "file_data" if "file_data" in part else "image_url"
            part[field] = value
    return part


def _placeholder(slot: MediaSlot, label: str) -> dict[str, Any]:
    text = f"[{slot.mime_type or 'media'} {label}]"
    match slot.dialect:
        case "google":
            return {"text": text}
        case "openai":
            return {"type": "input_text", "text": text}
        case "openai_generated":
            content = [{"type": "output_text", "text": text, "annotations": []}]
            return {"type": "message", "role": "assistant", "content": content}
        case _:
            return {"type": "text", "text": text}


class ProviderMediaShapes:
    """The `NativeMediaShapes` of the four
    built-in providers' wire formats."""

    def classify(self, part: Any, message_index: int = 0, role: Any = None) -> MediaSlot | None:
        """Recognise ``part`` as a media part of any dialect (None: no media)."""
        return classify_part(part, message_index, role)

    def with_payload(self, slot: MediaSlot, payload: str) -> dict[str, Any]:
        """``slot``'s part with its inline payload set to ``payload`` (a copy)."""
        return _with_payload(slot, payload)

    def placeholder(self, slot: MediaSlot, label: str) -> dict[str, Any]:
        """A text part, in ``slot``'s dialect, standing where the media was."""
        return _placeholder(slot, label)
