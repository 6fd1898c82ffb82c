"""Gemini media in a stored history: Files API references, and the part helpers.

A Gemini history refers to uploaded media by Files API URI, which no other provider can
fetch. `resolve_file_reference` (what `GoogleProfile.resolve_file_reference`
does when a history leaves Google) turns such a reference into bytes through a lookup (a
session's media table), and a ``file_data`` URI that is an ordinary web URL into a URL.
`google_part_kind` and `iter_google_parts` classify stored Gemini parts for
hosts (the documented helpers of ``agent.history_conversion``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, TypeAlias

from doc_processing_toolkit.adapters.providers.google.salvage import PROVIDER_KEYS
from doc_processing_toolkit.domain.media import MediaLookup, decode_base64
from doc_processing_toolkit.domain.messages import MediaPart

__all__ = [
    "FILES_API_HOST",
    "GoogleMediaLookup",
    "google_part_kind",
    "iter_google_parts",
    "resolve_file_reference",
]

GoogleMediaLookup: TypeAlias = MediaLookup
"""Resolves a Gemini Files API URI to ``(mime_type, base64)``: a callable returning None
when it has no bytes for the URI, or a mapping from URI to that pair."""

FILES_API_HOST = "generativelanguage.googleapis.com"
"""The host of Files API URIs (any other http(s) URI is an ordinary web URL)."""

_WEB_URL = re.compile(r"https?://")


def _lookup(lookup: MediaLookup | None, uri: str) -> tuple[str, str] | None:
    if lookup is None:
        return None
    if isinstance(lookup, Mapping):
        return lookup.get(uri)
    return lookup(uri)


def resolve_file_reference(part: MediaPart, lookup: MediaLookup | None) -> MediaPart:
    """A Gemini file_data part as bytes (Files API, via the lookup) or as a URL (web).

    A part that already has bytes or a URL, or whose URI the lookup cannot resolve, comes
    back as it is (the crossing then drops it as "no bytes available").
    """
    uri = part.file_uri
    if part.data is not None or part.url is not None or uri is None:
        return part
    if FILES_API_HOST not in uri and _WEB_URL.match(uri):
        return MediaPart(mime_type=part.mime_type, url=uri, filename=part.filename)
    found = _lookup(lookup, uri)
    raw = decode_base64(found[1]) if found is not None else None
    if found is None or raw is None:
        return part
    mime = found[0] or part.mime_type
    return MediaPart(mime_type=mime, data=raw, filename=part.filename)


# -- part helpers --------------------------------------------------------------------------

_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def _part_dict(part: Any) -> dict[str, Any]:
    if hasattr(part, "model_dump"):
        part = part.model_dump()
    if not isinstance(part, dict):
        return {}
    return {_CAMEL.sub("_", key).lower(): value for key, value in part.items()}


def google_part_kind(part: Any) -> str:
    """Classify one stored Gemini part (a ``Part.model_dump()`` dict; camelCase works too).

    Returns ``"thought"`` (a thought-summary part), ``"text"``, ``"function_call"``,
    ``"function_response"``, ``"inline_data"``, ``"file_data"``, ``"provider"``
    (executable code and its result) or ``"unknown"``.
    """
    fields = _part_dict(part)
    if fields.get("thought") is True:
        return "thought"
    for key in ("function_call", "function_response", "inline_data", "file_data"):
        if fields.get(key) is not None:
            return key
    if any(fields.get(key) is not None for key in PROVIDER_KEYS):
        return "provider"
    if isinstance(fields.get("text"), str):
        return "text"
    return "unknown"


def iter_google_parts(msg: Any) -> Iterator[tuple[str, Any]]:
    """Yield ``(kind, part)`` for every part of a stored Gemini message (dict or Content)."""
    if hasattr(msg, "model_dump"):
        msg = msg.model_dump()
    parts = msg.get("parts") if isinstance(msg, dict) else None
    for part in parts or []:
        yield google_part_kind(part), part
