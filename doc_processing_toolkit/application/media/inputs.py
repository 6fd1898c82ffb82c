"""File inputs -> `MediaPart`: what ``run(files=...)`` and MediaTransformer accept.

One input is a path (``str`` or `pathlib.Path`), an http(s) URL, a YouTube URL,
raw ``bytes`` (typed by magic number) or one of the documented dicts::

    {"type": "base64", "media_type": "image/png", "data": "<base64>"}
    {"type": "document", "media_type": "application/pdf", "data": b"..."}

Either dict may carry ``"filename"``. Every bad input raises before any request is sent,
naming the input: a missing path ``FileNotFoundError``, a dict of unknown shape, bytes of
no known type or undecodable base64 ``ValueError``, anything else ``TypeError``.
"""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from doc_processing_toolkit.application.media.detect import (
    OCTET_STREAM,
    YOUTUBE_MIME,
    guess_from_name,
    is_web_url,
    is_youtube_url,
    sniff_media_type,
)
from doc_processing_toolkit.domain.errors import (
    InvalidArgumentTypeError,
    InvalidInputError,
    MissingFileError,
)
from doc_processing_toolkit.domain.messages import MediaPart

__all__ = ["FileInput", "media_part", "media_parts", "read_path"]

FileInput = str | os.PathLike[str] | bytes | dict[str, Any]
"""One element of ``files=``."""

_DICT_TYPES = ("base64", "document")


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def read_path(path: str | os.PathLike[str]) -> tuple[Path, bytes]:
    """The resolved path and its bytes.

    Raises:
        FileNotFoundError: the path does not exist or is not a file (naming it).
    """
    file = Path(path).expanduser()
    if not file.is_file():
        raise MissingFileError(f"file not found: {os.fspath(path)!r}")
    return file, file.read_bytes()


def _from_path(path: str | os.PathLike[str], filename: str | None) -> MediaPart:
    file, data = read_path(path)
    mime = sniff_media_type(data)
    by_name = guess_from_name(file.name)
    # The signature decides; the extension refines plain text (csv, markdown, json).
    if mime is None or (mime == "text/plain" and by_name is not None):
        mime = by_name if by_name is not None else mime
    if mime is None:
        raise InvalidInputError(
            f"cannot tell the media type of {os.fspath(path)!r}: neither its content nor "
            "its extension names one"
        )
    return MediaPart(mime_type=mime, data=data, filename=filename or file.name)


def _from_url(url: str, media_type: str | None, filename: str | None) -> MediaPart:
    if is_youtube_url(url):
        return MediaPart(mime_type=media_type or YOUTUBE_MIME, url=url, filename=filename)
    mime = media_type or guess_from_name(url) or OCTET_STREAM
    return MediaPart(mime_type=mime, url=url, filename=filename)


def _from_bytes(data: bytes, media_type: str | None, filename: str | None) -> MediaPart:
    mime = media_type or sniff_media_type(data)
    if mime is None and filename is not None:
        mime = guess_from_name(filename)
    if mime is None:
        raise InvalidInputError(
            f"bytes of no known media type ({len(data)} bytes starting {data[:8]!r}); "
            "pass a dict with a media_type instead"
        )
    return MediaPart(mime_type=mime, data=data, filename=filename)


def _from_dict(value: dict[str, Any]) -> MediaPart:
    kind, mime, data = value.get("type"), value.get("media_type"), value.get("data")
    filename = value.get("filename")
    if kind not in _DICT_TYPES or not isinstance(mime, str) or not mime:
        raise InvalidInputError(
            f"unknown file dict shape {_describe(value)}: expected "
            '{"type": "base64", "media_type": str, "data": str} or '
            '{"type": "document", "media_type": str, "data": bytes}'
        )
    if filename is not None and not isinstance(filename, str):
        raise InvalidInputError(f"file dict filename must be a string, got {_describe(filename)}")
    raw: bytes
    if isinstance(data, bytes | bytearray):
        raw = bytes(data)
    elif isinstance(data, str):
        try:
            raw = base64.b64decode(data.strip(), validate=True)
        except (binascii.Error, ValueError) as exc:
            raise InvalidInputError(
                f"file dict {_describe(value)}: data is not valid base64 ({exc})"
            ) from exc
    else:
        raise InvalidInputError(f"file dict {_describe(value)}: data must be base64 text or bytes")
    return MediaPart(mime_type=mime, data=raw, filename=filename)


def media_part(
    value: Any, *, media_type: str | None = None, filename: str | None = None
) -> MediaPart:
    """One file input as a MediaPart (see the module docstring for the forms).

    ``media_type`` and ``filename`` apply to raw bytes and URLs (a path keeps its own name
    unless ``filename`` is given).
    """
    if isinstance(value, MediaPart):
        return value
    if isinstance(value, dict):
        return _from_dict(value)
    if isinstance(value, bytes | bytearray):
        return _from_bytes(bytes(value), media_type, filename)
    if isinstance(value, str):
        if is_web_url(value):
            return _from_url(value, media_type, filename)
        return _from_path(value, filename)
    if isinstance(value, os.PathLike):
        return _from_path(value, filename)
    raise InvalidArgumentTypeError(
        "a file must be a path, URL, bytes or a documented dict, got "
        f"{type(value).__name__}: {_describe(value)}"
    )


def media_parts(files: Sequence[Any] | None) -> list[MediaPart]:
    """Every input of ``files=`` as a MediaPart, in order (all checked before any is used).

    Raises:
        TypeError: ``files`` is not a list, or an element of no accepted form.
    """
    if files is None:
        return []
    if isinstance(files, str | bytes | dict) or not isinstance(files, Sequence):
        raise InvalidArgumentTypeError(f"files must be a list, got {type(files).__name__}")
    return [media_part(value) for value in files]
