"""Media policy for persisted sessions: inventory, externalise, strip, re-inline
(documented import path).

Binds `doc_processing_toolkit.application.session.media_policy` to the built-in
providers' native media shapes (``adapters/providers/native_media.py``).
"""

from collections.abc import Callable, Iterator
from typing import Any

from doc_processing_toolkit.adapters.media_stores.directory import DirectoryMediaStore
from doc_processing_toolkit.adapters.providers.native_media import (
    ProviderMediaShapes,
    google_files_api_uri,
)
from doc_processing_toolkit.application.session import media_policy as _policy
from doc_processing_toolkit.application.session.media_policy import (
    MARKER_PREFIX,
    MEDIA_POLICIES,
    MediaSlot,
    MediaStore,
    base64_payload_size,
    data_url_payload,
    is_marker,
    marker_ref,
    registry_key_for_part,
    replace_slot,
    resolve_media_policy,
    validate_max_inline_bytes,
)

_SHAPES = ProviderMediaShapes()

__all__ = [
    "MARKER_PREFIX",
    "MEDIA_POLICIES",
    "DirectoryMediaStore",
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


def as_media_store(value: Any) -> MediaStore | None:
    """Normalise a media_store argument: None, an object with put/get, or a directory
    path (a `DirectoryMediaStore`).

    Raises:
        TypeError: If value is none of those.
    """
    return _policy.as_media_store(value, DirectoryMediaStore)


def classify_part(part: Any, message_index: int = 0, role: Any = None) -> MediaSlot | None:
    """Recognise ``part`` as a media part of any dialect (None when it carries no media)."""
    return _SHAPES.classify(part, message_index, role)


def iter_slots(messages: list[Any]) -> Iterator[MediaSlot]:
    """Yield a `MediaSlot` for every media part in ``messages``."""
    return _policy.iter_slots(messages, _SHAPES)


def media_parts(messages: list[Any]) -> Iterator[dict[str, Any]]:
    """Inventory every media part a stored history carries, in message order."""
    return _policy.media_parts(messages, _SHAPES)


def rewrite_messages(messages: list[Any], transform: Callable[[MediaSlot], Any]) -> list[Any]:
    """A deep copy of ``messages`` with every media part passed through ``transform``."""
    return _policy.rewrite_messages(messages, transform, _SHAPES)


def externalize_messages(
    messages: list[Any], store: MediaStore, table: dict[str, dict[str, Any]]
) -> list[Any]:
    """Move every inline payload to ``store`` and leave a ``$media:<ref>`` marker."""
    return _policy.externalize_messages(messages, store, table, _SHAPES)


def strip_messages(
    messages: list[Any],
    report: list[dict[str, Any]],
    *,
    references: bool = False,
    label: str = "removed on save",
    source: str | None = None,
) -> list[Any]:
    """Replace every inline payload (and, with ``references``, every reference) by text."""
    return _policy.strip_messages(
        messages, report, _SHAPES, references=references, label=label, source=source
    )


def reinline_messages(
    messages: list[Any],
    table: dict[str, dict[str, Any]],
    store: MediaStore | None,
    report: list[dict[str, Any]],
) -> list[Any]:
    """Put the bytes back into every ``$media:<ref>`` slot from ``store`` (a blob it cannot
    return becomes a placeholder and a ``missing_blob`` report entry)."""
    return _policy.reinline_messages(messages, table, store, report, _SHAPES)
