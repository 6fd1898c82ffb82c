"""Lenient readers every vendor's salvage rules share (``<vendor>/salvage.py``).

A verbatim payload is read leniently before anything is dropped: arguments as a dict or a
JSON string, media as a ``data:`` URL or a plain URL, any value as text. Pure and neutral;
the base64 decoders themselves are in `doc_processing_toolkit.domain.media`.
"""

from __future__ import annotations

import json
from typing import Any

from doc_processing_toolkit.domain.history.report import Salvage
from doc_processing_toolkit.domain.media import decode_data_url
from doc_processing_toolkit.domain.messages import MediaPart, ToolCallPart

__all__ = ["arguments_of", "call_of", "text_of", "url_media"]


def url_media(url: Any, mime: str, filename: Any = None) -> MediaPart | None:
    """A ``data:`` URL as bytes, any other non-empty URL as a URL; else None."""
    name = filename if isinstance(filename, str) else None
    decoded = decode_data_url(url)
    if decoded is not None:
        return MediaPart(mime_type=decoded[0], data=decoded[1], filename=name)
    if isinstance(url, str) and url:
        return MediaPart(mime_type=mime, url=url, filename=name)
    return None


def arguments_of(raw: Any) -> tuple[dict[str, Any], tuple[tuple[str, str], ...]]:
    """Call arguments from a dict or a JSON string; unreadable arguments are reported."""
    if isinstance(raw, dict):
        return raw, ()
    if raw is None or raw == "":
        return {}, ()
    try:
        value = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        value = None
    if isinstance(value, dict):
        return value, ()
    return {}, (("unknown_part", f"tool-call arguments that are not a JSON object: {raw!r:.60}"),)


def call_of(call_id: Any, name: Any, raw_arguments: Any) -> Salvage:
    """A tool call read leniently (a missing id or name is left empty for the crossing)."""
    arguments, drops = arguments_of(raw_arguments)
    part = ToolCallPart(
        id=call_id if isinstance(call_id, str) else "",
        name=name if isinstance(name, str) else "",
        arguments=arguments,
    )
    return Salvage((part,), drops)


def text_of(value: Any) -> str:
    """A string as it is, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
