"""Which media a target dialect (and model row) can take when a history crosses providers.

Pure tables and predicates used by
`doc_processing_toolkit.domain.history.filtering.cross_provider`:
a media part either crosses as it is, or is replaced by a text placeholder and reported.
What one dialect's wire format carries is not decided here: it comes in as an
`AcceptsMedia` (a provider profile's ``accepts_media``). Also the lenient decoders
(base64 in any spelling, ``data:`` URLs) that reading stored media needs, and the
`MediaSlot` a saved session's media policy rewrites (with its ``$media:`` markers).
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeAlias

from doc_processing_toolkit.domain.documents.kinds import office_key
from doc_processing_toolkit.domain.messages import (
    MediaPart,
    Message,
    Part,
    TextPart,
    ToolResultPart,
)

__all__ = [
    "MARKER_PREFIX",
    "NEUTRAL",
    "AcceptsMedia",
    "MediaLookup",
    "MediaSlot",
    "Position",
    "accepts_input_type",
    "base64_payload_size",
    "data_url_payload",
    "decode_base64",
    "decode_data_url",
    "is_marker",
    "map_media",
    "marker_ref",
    "media_drop_reason",
    "media_key",
    "no_media_in_model_turns",
    "placeholder",
    "sniff_image_type",
    "with_sniffed_type",
]

NEUTRAL = "neutral"
"""The pseudo-dialect of neutral turns (`read_history` / `write_history`)."""

Position: TypeAlias = Literal["user", "assistant", "tool_result"]
"""Where a media part sits: a user turn, a model turn, or inside a tool result."""

MediaLookup: TypeAlias = Callable[[str], "tuple[str, str] | None"] | Mapping[str, "tuple[str, str]"]
"""Resolves a provider file reference (a URI) to ``(mime_type, base64)``: a callable
returning None when it has no bytes for the reference, or a mapping from reference to that
pair (a session's media table)."""


class AcceptsMedia(Protocol):
    """Whether a dialect's wire format can carry a media type at a position at all."""

    def __call__(self, mime_type: str, position: Position, *, has_bytes: bool) -> bool: ...


def no_media_in_model_turns(mime_type: str, position: Position, *, has_bytes: bool) -> bool:
    """Any media in a user turn or a tool result, none in a model turn.

    What the neutral form takes, and what is assumed of a dialect nothing is known about.
    """
    return position != "assistant"


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

    The category (`media_key`), the exact type, the ``base64-<mime>`` key, for
    PDFs and other documents ``document``, and for an Office type its short key
    (``docx``, ``pptx``, ``xlsx``) all count.
    """
    key = media_key(mime_type)
    keys = {key, mime_type, f"base64-{mime_type}"}
    if key in ("pdf", "document"):
        keys.add("document")
    if (office := office_key(mime_type)) is not None:
        keys.add(office)
    return not keys.isdisjoint(input_types)


def media_drop_reason(
    part: MediaPart,
    *,
    source: str,
    target: str,
    position: Position,
    input_types: Sequence[str] | None,
    model: str | None,
    accepts: AcceptsMedia = no_media_in_model_turns,
) -> str | None:
    """Why ``part`` cannot cross from ``source`` to ``target`` (None when it can).

    ``accepts`` is what the target's wire format carries (its profile's ``accepts_media``).
    """
    mime = part.mime_type
    has_bytes = part.data is not None or part.path is not None
    if not has_bytes and part.url is None:
        if part.file_uri is not None and source != target:
            return f"no bytes available: a {source} file reference cannot be sent to {target}"
        if part.file_uri is None:
            return "no bytes, URL or file reference"
    if input_types is not None and not accepts_input_type(input_types, mime):
        return f"{model or target} does not take {media_key(mime)} input"
    if not accepts(mime, position, has_bytes=has_bytes):
        where = {"user": "a user turn", "assistant": "a model turn", "tool_result": "a tool result"}
        name = "the neutral form" if target == NEUTRAL else target
        return f"{name} cannot carry {mime} in {where[position]}"
    return None


def placeholder(part: MediaPart, reason: str) -> TextPart:
    """The text that stands where a dropped media part was."""
    name = f" {part.filename}" if part.filename else ""
    return TextPart(f"[{part.mime_type}{name} omitted: {reason}]")


def map_media(messages: list[Message], resolve: Callable[[MediaPart], MediaPart]) -> list[Message]:
    """``messages`` with every media part (in a turn or inside a tool result) passed through
    ``resolve``; messages and parts it leaves alone are kept as they are."""

    def part_of(part: Part) -> Part:
        if isinstance(part, MediaPart):
            return resolve(part)
        if isinstance(part, ToolResultPart):
            content = tuple(resolve(c) if isinstance(c, MediaPart) else c for c in part.content)
            return part if content == part.content else dataclasses.replace(part, content=content)
        return part

    out: list[Message] = []
    for message in messages:
        parts = tuple(part_of(p) for p in message.parts)
        out.append(message if parts == message.parts else dataclasses.replace(message, parts=parts))
    return out


# -- lenient decoding ------------------------------------------------------------------


def decode_base64(data: Any) -> bytes | None:
    """Standard or URL-safe base64, padded or not; None when it is not base64."""
    if not isinstance(data, str):
        return None
    text = data.strip().replace("-", "+").replace("_", "/")
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None


def decode_data_url(url: Any) -> tuple[str, bytes] | None:
    """``(mime_type, bytes)`` of a ``data:<mime>;base64,<payload>`` URL, else None."""
    if not isinstance(url, str) or not url.startswith("data:"):
        return None
    head, sep, payload = url[5:].partition(",")
    mime, _, encoding = head.partition(";")
    raw = decode_base64(payload) if sep and encoding == "base64" else None
    return (mime or "application/octet-stream", raw) if raw is not None else None


# -- media in stored (provider-native) histories: slots and store markers ----------------

MARKER_PREFIX = "$media:"
"""A slot holding ``$media:<ref>`` has its bytes in a MediaStore under ``ref``."""

_DATA_URL = re.compile(r"^data:(?P<mime>[^;,]+)?(?:;[^;,]+)*;base64,(?P<data>.*)$", re.DOTALL)


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
    alphabet: str = "standard"
    """The base64 alphabet of the payload slot (``standard`` or ``urlsafe``)."""

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
