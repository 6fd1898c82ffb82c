"""Which media a target dialect (and model row) can take when a history crosses providers.

Pure tables and predicates used by
:func:`doc_processing_toolkit.domain.history.filtering.cross_provider`:
a media part either crosses as it is, or is replaced by a text placeholder and reported.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Literal, TypeAlias

from doc_processing_toolkit.domain.messages import MediaPart, TextPart

__all__ = [
    "ANTHROPIC_IMAGE_TYPES",
    "NEUTRAL",
    "Position",
    "accepts_input_type",
    "dialect_takes",
    "media_drop_reason",
    "media_key",
    "placeholder",
    "sniff_image_type",
    "with_sniffed_type",
]

NEUTRAL = "neutral"
"""The pseudo-dialect of neutral turns (:func:`read_history` / :func:`write_history`)."""

ANTHROPIC_IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
"""The image types the Anthropic Messages API takes."""

Position: TypeAlias = Literal["user", "assistant", "tool_result"]
"""Where a media part sits: a user turn, a model turn, or inside a tool result."""

_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def sniff_image_type(data: bytes) -> str | None:
    """The image type the bytes' magic number names (png, jpeg, gif, webp), else None."""
    for magic, mime in _SIGNATURES:
        if data.startswith(magic):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def with_sniffed_type(part: MediaPart) -> MediaPart:
    """``part`` with a generic ``image/*`` type made exact from its bytes, when they tell."""
    if part.mime_type == "image/*" and part.data is not None:
        sniffed = sniff_image_type(part.data)
        if sniffed is not None:
            return dataclasses.replace(part, mime_type=sniffed)
    return part


def media_key(mime_type: str) -> str:
    """The registry ``input_types`` category of a media type.

    ``image``, ``pdf``, ``audio``, ``video``, ``text`` (``text/*`` documents), else
    ``document``.
    """
    if mime_type.startswith("image/"):
        return "image"
    if mime_type == "application/pdf":
        return "pdf"
    for prefix in ("audio", "video", "text"):
        if mime_type.startswith(prefix + "/"):
            return prefix
    return "document"


def accepts_input_type(input_types: Sequence[str], mime_type: str) -> bool:
    """Whether a row's ``input_types`` list this media type.

    The category (:func:`media_key`), the exact type, the ``base64-<mime>`` key and, for
    PDFs and other documents, ``document`` all count.
    """
    key = media_key(mime_type)
    keys = {key, mime_type, f"base64-{mime_type}"}
    if key in ("pdf", "document"):
        keys.add("document")
    return not keys.isdisjoint(input_types)


def dialect_takes(target: str, mime_type: str, position: Position, *, has_bytes: bool) -> bool:
    """Whether ``target``'s wire format can carry this media at ``position`` at all.

    Google takes any media anywhere; the others (and neutral turns) take none in a model
    turn. Anthropic
    takes its four image types, PDFs and (as bytes) plain text; OpenAI images and files
    but no audio or video; Fireworks images in a user turn only. Unknown (plug-in) dialects
    are not second-guessed.
    """
    if target == "google":
        return True
    if position == "assistant":
        return False
    if target == "anthropic":
        if mime_type in ANTHROPIC_IMAGE_TYPES or mime_type == "application/pdf":
            return True
        if mime_type == "image/*":
            return not has_bytes
        return mime_type == "text/plain" and has_bytes
    if target == "openai":
        return not mime_type.startswith(("audio/", "video/"))
    if target == "fireworks":
        return position == "user" and mime_type.startswith("image/")
    return True


def media_drop_reason(
    part: MediaPart,
    *,
    source: str,
    target: str,
    position: Position,
    input_types: Sequence[str] | None,
    model: str | None,
) -> str | None:
    """Why ``part`` cannot cross from ``source`` to ``target`` (None when it can)."""
    mime = part.mime_type
    if part.data is None and part.url is None:
        if part.file_uri is not None and source != target:
            return f"no bytes available: a {source} file reference cannot be sent to {target}"
        if part.file_uri is None:
            return "no bytes, URL or file reference"
    if input_types is not None and not accepts_input_type(input_types, mime):
        return f"{model or target} does not take {media_key(mime)} input"
    if not dialect_takes(target, mime, position, has_bytes=part.data is not None):
        where = {"user": "a user turn", "assistant": "a model turn", "tool_result": "a tool result"}
        name = "the neutral form" if target == NEUTRAL else target
        return f"{name} cannot carry {mime} in {where[position]}"
    return None


def placeholder(part: MediaPart, reason: str) -> TextPart:
    """The text that stands where a dropped media part was."""
    name = f" {part.filename}" if part.filename else ""
    return TextPart(f"[{part.mime_type}{name} omitted: {reason}]")
