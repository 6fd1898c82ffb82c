"""Media policy for persisted sessions: inventory, externalise, strip, re-inline
(documented import path)."""

from typing import Any

from doc_processing_toolkit.adapters.media_stores.directory import DirectoryMediaStore
from doc_processing_toolkit.application.session import media_policy as _policy
from doc_processing_toolkit.application.session.media_policy import (
    MARKER_PREFIX,
    MEDIA_POLICIES,
    MediaSlot,
    MediaStore,
    base64_payload_size,
    classify_part,
    data_url_payload,
    externalize_messages,
    google_files_api_uri,
    is_marker,
    iter_slots,
    marker_ref,
    media_parts,
    registry_key_for_part,
    reinline_messages,
    replace_slot,
    resolve_media_policy,
    rewrite_messages,
    strip_messages,
    validate_max_inline_bytes,
)

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
    path (a :class:`DirectoryMediaStore`).

    Raises:
        TypeError: If value is none of those.
    """
    return _policy.as_media_store(value, DirectoryMediaStore)
