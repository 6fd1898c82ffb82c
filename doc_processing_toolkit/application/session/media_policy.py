"""Media policy for persisted sessions: inventory, externalise, strip, re-inline.

A session stores media the way each provider's API took it: base64 inside an Anthropic
``source``, a data URL inside an OpenAI or Fireworks part, ``inline_data`` inside a Gemini
part, and a Files API ``file_data`` URI for what Gemini took by upload. The shapes are
recognised by structure (never by asking which provider saved them), so the session can
inventory them, move their bytes to a `MediaStore` behind ``$media:<ref>`` markers,
strip them to text placeholders and put the bytes back on restore. Nothing here touches a
provider or the network; the store is handed in.
"""

from __future__ import annotations

import base64
import binascii
import copy
import hashlib
import os
from collections.abc import Callable, Iterator
from typing import Any

from doc_processing_toolkit.domain.errors import ConfigurationError, InvalidArgumentTypeError
from doc_processing_toolkit.domain.media import (
    MARKER_PREFIX,
    MediaSlot,
    base64_payload_size,
    data_url_payload,
    is_marker,
    marker_ref,
)
from doc_processing_toolkit.domain.session import MEDIA_POLICIES
from doc_processing_toolkit.ports.media_store import MediaStore
from doc_processing_toolkit.ports.native_media import NativeMediaShapes

__all__ = [
    "MARKER_PREFIX",
    "MEDIA_POLICIES",
    "MediaSlot",
    "MediaStore",
    "NativeMediaShapes",
    "as_media_store",
    "base64_payload_size",
    "data_url_payload",
    "externalize_messages",
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

_GOOGLE_CATEGORIES = {"video": "video", "audio": "audio", "application": "document"}


# ---------------------------------------------------------------------- small helpers
def _decode(payload: str) -> bytes:
    padded = payload.strip() + "=" * (-len(payload.strip()) % 4)
    try:
        if "-" in padded or "_" in padded:
            return base64.urlsafe_b64decode(padded)
        return base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return base64.urlsafe_b64decode(padded)


def validate_max_inline_bytes(value: Any) -> int | None:
    """Validate ``media_max_inline_bytes``: a non-negative int, or None (no cap).

    Raises:
        ValueError: If value is negative, a bool, or not an int.
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigurationError(
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
        raise ConfigurationError(
            f"media must be one of {', '.join(MEDIA_POLICIES)}, got {policy!r}"
        )
    if name == "auto":
        return "externalize" if store is not None else "inline"
    if name == "externalize" and store is None:
        raise ConfigurationError(
            "media='externalize' needs a media_store (a directory or a MediaStore)"
        )
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
    raise InvalidArgumentTypeError(
        "media_store must be None, a directory path or an object with put() and get(), "
        f"got {type(value).__name__}"
    )


def _walk(value: Any, index: int, role: Any, shapes: NativeMediaShapes) -> Iterator[MediaSlot]:
    slot = shapes.classify(value, index, role)
    if slot is not None:
        yield slot
        return
    if isinstance(value, dict):
        for child in value.values():
            if isinstance(child, dict | list):
                yield from _walk(child, index, role, shapes)
    elif isinstance(value, list):
        for child in value:
            yield from _walk(child, index, role, shapes)


def iter_slots(messages: list[Any], shapes: NativeMediaShapes) -> Iterator[MediaSlot]:
    """Yield a `MediaSlot` for every media part in ``messages``."""
    for index, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        yield from _walk(message, index, role, shapes)


def media_parts(messages: list[Any], shapes: NativeMediaShapes) -> Iterator[dict[str, Any]]:
    """Inventory every media part a stored history carries, in message order."""
    for slot in iter_slots(messages, shapes):
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
def _rewrite(
    value: Any,
    index: int,
    role: Any,
    transform: Callable[[MediaSlot], Any],
    shapes: NativeMediaShapes,
) -> Any:
    slot = shapes.classify(value, index, role)
    if slot is not None:
        return transform(slot)
    if isinstance(value, dict):
        return {k: _rewrite(v, index, role, transform, shapes) for k, v in value.items()}
    if isinstance(value, list):
        return [_rewrite(v, index, role, transform, shapes) for v in value]
    return value


def rewrite_messages(
    messages: list[Any], transform: Callable[[MediaSlot], Any], shapes: NativeMediaShapes
) -> list[Any]:
    """A deep copy of ``messages`` with every media part passed through ``transform``."""
    out: list[Any] = []
    for index, message in enumerate(copy.deepcopy(messages)):
        role = message.get("role") if isinstance(message, dict) else None
        out.append(_rewrite(message, index, role, transform, shapes))
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


def externalize_messages(
    messages: list[Any],
    store: MediaStore,
    table: dict[str, dict[str, Any]],
    shapes: NativeMediaShapes,
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
            "alphabet": slot.alphabet,
        }
        return shapes.with_payload(slot, MARKER_PREFIX + ref)

    return rewrite_messages(messages, move, shapes)


def strip_messages(
    messages: list[Any],
    report: list[dict[str, Any]],
    shapes: NativeMediaShapes,
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
        return shapes.placeholder(slot, label)

    return rewrite_messages(messages, strip, shapes)


def reinline_messages(
    messages: list[Any],
    table: dict[str, dict[str, Any]],
    store: MediaStore | None,
    report: list[dict[str, Any]],
    shapes: NativeMediaShapes,
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
            return shapes.placeholder(slot, "missing from the media store")
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
            slot.alphabet,
        )
        return shapes.with_payload(filled, payload)

    return rewrite_messages(messages, restore, shapes)
