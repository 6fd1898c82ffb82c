"""Media policy for persisted sessions: inventory, externalise, strip, re-inline.

A session stores media the way each provider's API took it: base64 inside an Anthropic
``source``, a data URL inside an OpenAI or Fireworks part, ``inline_data`` inside a Gemini
part, and a Files API ``file_data`` URI for what Gemini took by upload. The shapes are
recognised by structure (never by asking which provider saved them), so the session can
inventory them, move their bytes to a :class:`MediaStore` behind ``$media:<ref>`` markers,
strip them to text placeholders and put the bytes back on restore. Nothing here touches a
provider or the network; the store is handed in.
"""

from __future__ import annotations

import base64
import binascii
import copy
import hashlib
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from doc_processing_toolkit.domain.session import MEDIA_POLICIES
from doc_processing_toolkit.ports.media_store import MediaStore

__all__ = [
    "MARKER_PREFIX",
    "MEDIA_POLICIES",
    "MediaSlot",
    "MediaStore",
    "as_media_store",
    "base64_payload_size",
    "classify_part",
    "data_url_payload",
    "externalize_messages",
    "google_files_api_uri",
    "is_marker",
    "iter_slots",
    "marker_ref",
    "media_parts",
    "registry_key_for_part",
    "reinline_messages",
    "replace_slot",
    "resolve_media_policy",
    "rewrite_messages",
    "strip_messages",
    "validate_max_inline_bytes",
]

MARKER_PREFIX = "$media:"
"""A slot holding ``$media:<ref>`` has its bytes in a MediaStore under ``ref``."""

_DATA_URL = re.compile(r"^data:(?P<mime>[^;,]+)?(?:;[^;,]+)*;base64,(?P<data>.*)$", re.DOTALL)
_FILES_API = re.compile(r"^https://generativelanguage\.googleapis\.com/.*files/")
_GOOGLE_CATEGORIES = {"video": "video", "audio": "audio", "application": "document"}


@dataclass
class MediaSlot:
    """One media part found in a stored history, with the way to rewrite it."""

    kind: str
    """``base64`` (bytes in the envelope) or ``google_file_uri`` / ``provider_file`` / ``url``."""
    dialect: str
    """``anthropic``, ``openai``, ``fireworks``, ``google`` or ``openai_generated``."""
    slot: str | None
    """``base64`` (a bare base64 string) or ``data_url``; None for references."""
    mime_type: str | None
    """The declared MIME type, if any."""
    payload: str | None
    """The base64 payload (or a ``$media:`` marker) for ``kind == "base64"``."""
    ref: str | None
    """The reference for a reference kind (URI, file id, URL)."""
    message_index: int
    """Index of the message the part belongs to."""
    role: Any
    """The message's role."""
    part: dict[str, Any]
    """The part dict itself."""

    @property
    def size_bytes(self) -> int:
        """Decoded size of an inline payload (0 for a reference or a marker)."""
        if self.kind != "base64" or self.payload is None or is_marker(self.payload):
            return 0
        return base64_payload_size(self.payload)

    def record(self) -> dict[str, Any]:
        """The inventory record ``persistence_report`` lists."""
        return {
            "message_index": self.message_index,
            "role": self.role,
            "kind": self.kind,
            "mime_type": self.mime_type,
            "size_bytes": self.size_bytes,
            "ref": self.ref if self.kind != "base64" else None,
        }


# ---------------------------------------------------------------------- small helpers
def is_marker(value: Any) -> bool:
    """Whether ``value`` is a ``$media:<ref>`` store reference."""
    return isinstance(value, str) and value.startswith(MARKER_PREFIX) and len(value) > 7


def marker_ref(value: str) -> str:
    """The reference inside a marker string."""
    return value[len(MARKER_PREFIX) :]


def data_url_payload(value: Any) -> tuple[str | None, str] | None:
    """``(mime_type, base64_payload)`` for a ``data:`` URL, else None."""
    if not isinstance(value, str):
        return None
    match = _DATA_URL.match(value)
    if match is None:
        return None
    return match.group("mime"), match.group("data")


def base64_payload_size(data: Any) -> int:
    """Decoded size in bytes of a base64 string (0 for anything else)."""
    if not isinstance(data, str) or is_marker(data):
        return 0
    stripped = data.strip().rstrip("=")
    return (len(stripped) * 3) // 4


def _decode(payload: str) -> bytes:
    padded = payload.strip() + "=" * (-len(payload.strip()) % 4)
    try:
        if "-" in padded or "_" in padded:
            return base64.urlsafe_b64decode(padded)
        return base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return base64.urlsafe_b64decode(padded)


def google_files_api_uri(value: Any) -> bool:
    """Whether ``value`` is a Gemini Files API URI (as opposed to a YouTube URL)."""
    return isinstance(value, str) and bool(_FILES_API.match(value))


def validate_max_inline_bytes(value: Any) -> int | None:
    """Validate ``media_max_inline_bytes``: a non-negative int, or None (no cap).

    Raises:
        ValueError: If value is negative, a bool, or not an int.
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(
            f"media_max_inline_bytes must be a non-negative int or None, got {value!r}"
        )
    return value


def resolve_media_policy(policy: str | None, store: MediaStore | None) -> str:
    """Turn ``auto`` into the concrete policy and validate the name.

    Raises:
        ValueError: If policy is not a known name, or is externalize without a store.
    """
    name = "auto" if policy is None else policy
    if name not in MEDIA_POLICIES:
        raise ValueError(f"media must be one of {', '.join(MEDIA_POLICIES)}, got {policy!r}")
    if name == "auto":
        return "externalize" if store is not None else "inline"
    if name == "externalize" and store is None:
        raise ValueError("media='externalize' needs a media_store (a directory or a MediaStore)")
    return name


def as_media_store(
    value: Any, directory_store: Callable[[str | os.PathLike[str]], MediaStore] | None = None
) -> MediaStore | None:
    """Normalise a ``media_store`` argument: None, a store, or a directory path.

    Raises:
        TypeError: If value is none of those (or a path with no directory store wired).
    """
    if value is None:
        return None
    if callable(getattr(value, "put", None)) and callable(getattr(value, "get", None)):
        return value  # type: ignore[no-any-return]
    if isinstance(value, str | os.PathLike) and directory_store is not None:
        return directory_store(value)
    raise TypeError(
        "media_store must be None, a directory path or an object with put() and get(), "
        f"got {type(value).__name__}"
    )


# ---------------------------------------------------------------------- classification
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
        return _base64_slot(
            "google", "base64", inline.get("mime_type"), inline.get("data"), i, r, part
        )
    if isinstance(file_data, dict):
        uri = file_data.get("file_uri")
        ref_kind = "google_file_uri" if google_files_api_uri(uri) else "url"
        return _ref_slot(ref_kind, "google", file_data.get("mime_type"), uri, i, r, part)
    return None


def _walk(value: Any, index: int, role: Any) -> Iterator[MediaSlot]:
    slot = classify_part(value, index, role)
    if slot is not None:
        yield slot
        return
    if isinstance(value, dict):
        for child in value.values():
            if isinstance(child, dict | list):
                yield from _walk(child, index, role)
    elif isinstance(value, list):
        for child in value:
            yield from _walk(child, index, role)


def iter_slots(messages: list[Any]) -> Iterator[MediaSlot]:
    """Yield a :class:`MediaSlot` for every media part in ``messages``."""
    for index, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        yield from _walk(message, index, role)


def media_parts(messages: list[Any]) -> Iterator[dict[str, Any]]:
    """Inventory every media part a stored history carries, in message order."""
    for slot in iter_slots(messages):
        yield slot.record()


def registry_key_for_part(slot: MediaSlot, provider: str | None) -> str | None:
    """The ``input_types`` key a stored media part corresponds to.

    ``base64-<mime>`` for images and PDFs; for a Files API upload (whose rows list media
    by category) the category names video, audio, document and youtube.
    """
    mime = slot.mime_type
    if slot.kind == "url" and isinstance(slot.ref, str) and "youtube.com" in slot.ref:
        return "youtube"
    if slot.kind == "google_file_uri" and mime:
        return _GOOGLE_CATEGORIES.get(mime.split("/", 1)[0], f"base64-{mime}")
    if not mime or mime.endswith("/*"):
        return None
    return f"base64-{mime}"


# ---------------------------------------------------------------------- rewriting
def _rewrite(value: Any, index: int, role: Any, transform: Callable[[MediaSlot], Any]) -> Any:
    slot = classify_part(value, index, role)
    if slot is not None:
        return transform(slot)
    if isinstance(value, dict):
        return {k: _rewrite(v, index, role, transform) for k, v in value.items()}
    if isinstance(value, list):
        return [_rewrite(v, index, role, transform) for v in value]
    return value


def rewrite_messages(messages: list[Any], transform: Callable[[MediaSlot], Any]) -> list[Any]:
    """A deep copy of ``messages`` with every media part passed through ``transform``."""
    out: list[Any] = []
    for index, message in enumerate(copy.deepcopy(messages)):
        role = message.get("role") if isinstance(message, dict) else None
        out.append(_rewrite(message, index, role, transform))
    return out


def replace_slot(messages: list[Any], target: MediaSlot, replacement: Any) -> None:
    """Replace ``target``'s part in place inside ``messages`` (identity match)."""

    def visit(container: Any) -> bool:
        items = container.items() if isinstance(container, dict) else enumerate(container)
        for key, child in list(items):
            if child is target.part:
                container[key] = replacement
                return True
            if isinstance(child, dict | list) and visit(child):
                return True
        return False

    visit(messages)


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


def externalize_messages(
    messages: list[Any], store: MediaStore, table: dict[str, dict[str, Any]]
) -> list[Any]:
    """Move every inline payload to ``store`` and leave a marker in its slot."""

    def move(slot: MediaSlot) -> Any:
        if slot.kind != "base64" or slot.payload is None or is_marker(slot.payload):
            return slot.part
        data = _decode(slot.payload)
        digest = hashlib.sha256(data).hexdigest()
        ref = store.put(digest, slot.mime_type or "application/octet-stream", data)
        table[ref] = {
            "kind": "external",
            "ref": ref,
            "sha256": digest,
            "mime_type": slot.mime_type,
            "size": len(data),
            "slot": slot.slot,
            "alphabet": "urlsafe" if slot.dialect == "google" else "standard",
        }
        return _with_payload(slot, MARKER_PREFIX + ref)

    return rewrite_messages(messages, move)


def strip_messages(
    messages: list[Any],
    report: list[dict[str, Any]],
    *,
    references: bool = False,
    label: str = "removed on save",
    source: str | None = None,
) -> list[Any]:
    """Replace every inline payload (and, with ``references``, every reference) by text."""

    def strip(slot: MediaSlot) -> Any:
        if slot.kind != "base64" and not references:
            return slot.part
        entry: dict[str, Any] = {
            "reason": "stripped",
            "message_index": slot.message_index,
            "kind": slot.kind,
            "mime_type": slot.mime_type,
            "size": slot.size_bytes,
        }
        if source is not None:
            entry["source"] = source
        report.append(entry)
        return _placeholder(slot, label)

    return rewrite_messages(messages, strip)


def reinline_messages(
    messages: list[Any],
    table: dict[str, dict[str, Any]],
    store: MediaStore | None,
    report: list[dict[str, Any]],
) -> list[Any]:
    """Put the bytes back into every ``$media:<ref>`` slot from ``store``.

    A blob the store cannot return becomes a text placeholder plus a
    ``{"reason": "missing_blob", ...}`` report entry; the restore never fails on media.
    """

    def restore(slot: MediaSlot) -> Any:
        if slot.kind != "base64" or not is_marker(slot.payload):
            return slot.part
        ref = marker_ref(str(slot.payload))
        entry = table.get(ref)
        data: bytes | None = None
        if entry is not None and store is not None:
            try:
                data = store.get(ref)
            except Exception:  # any store failure is a missing blob, never a failed restore
                data = None
        if data is None:
            report.append(
                {
                    "reason": "missing_blob",
                    "ref": ref,
                    "message_index": slot.message_index,
                    "mime_type": (entry or {}).get("mime_type", slot.mime_type),
                }
            )
            return _placeholder(slot, "missing from the media store")
        if (entry or {}).get("alphabet") == "urlsafe":
            payload = base64.urlsafe_b64encode(data).decode("ascii")
        else:
            payload = base64.b64encode(data).decode("ascii")
        filled = MediaSlot(
            slot.kind,
            slot.dialect,
            (entry or {}).get("slot") or slot.slot,
            (entry or {}).get("mime_type") or slot.mime_type,
            payload,
            None,
            slot.message_index,
            slot.role,
            slot.part,
        )
        return _with_payload(filled, payload)

    return rewrite_messages(messages, restore)
