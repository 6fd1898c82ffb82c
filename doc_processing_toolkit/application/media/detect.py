"""Media type detection for attachments: the pure rules live in
`doc_processing_toolkit.domain.media_types` (one copy, shared with document detection);
this module keeps their application import path."""

from doc_processing_toolkit.domain.media_types import (
    OCTET_STREAM,
    YOUTUBE_MIME,
    guess_from_name,
    is_web_url,
    is_youtube_url,
    sniff_media_type,
    text_head,
)

__all__ = [
    "OCTET_STREAM",
    "YOUTUBE_MIME",
    "guess_from_name",
    "is_web_url",
    "is_youtube_url",
    "sniff_media_type",
    "text_head",
]
