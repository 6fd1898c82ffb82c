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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from doc_processing_toolkit.application.config import environment
from doc_processing_toolkit.application.media.detect import (
    OCTET_STREAM,
    YOUTUBE_MIME,
    guess_from_name,
    is_web_url,
    is_youtube_url,
    sniff_media_type,
)
from doc_processing_toolkit.domain.errors import (
    FileTooLargeError,
    InvalidArgumentTypeError,
    InvalidInputError,
    MissingFileError,
)
from doc_processing_toolkit.domain.messages import MediaPart

__all__ = ["ByteLimit", "FileInput", "check_size", "media_part", "media_parts", "read_path"]


@dataclass(frozen=True, slots=True)
class ByteLimit:
    """The most bytes one input file may have, and whose limit it is (for the message)."""

    max_bytes: int
    what: str
    """E.g. ``"Anthropic's 32,000,000-byte request limit (claude-sonnet-5-5)"``."""


def check_size(name: str, size: int, limit: ByteLimit | None) -> None:
    """Refuse an input of ``size`` bytes over ``limit`` (None: no limit known).

    Raises:
        FileTooLargeError: naming the input, its size and the limit.
    """
    if limit is not None and size > limit.max_bytes:
        raise FileTooLargeError(
            f"file {name!r} is {size:,} bytes, larger than {limit.what} "
            f"({limit.max_bytes:,} bytes); it was not read or sent",
            path=name,
            size=size,
            limit=limit.max_bytes,
        )


FileInput = str | os.PathLike[str] | bytes | dict[str, Any]
"""One element of ``files=``."""

_DICT_TYPES = ("base64", "document")
_HEAD_BYTES = 64 * 1024
"""How much of a streamed file is read to tell its media type."""


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def read_path(path: str | os.PathLike[str], limit: ByteLimit | None = None) -> tuple[Path, bytes]:
    """The resolved path and its bytes; its size (``stat``) is checked against ``limit``
    before a byte is read.

    Raises:
        FileNotFoundError: the path does not exist or is not a file (naming it).
        FileTooLargeError: the file is larger than ``limit`` (naming it, its size and the
            limit).
    """
    file = environment.expand_user(path)
    if not file.is_file():
        raise MissingFileError(f"file not found: {os.fspath(path)!r}")
    check_size(os.fspath(path), file.stat().st_size, limit)
    return file, file.read_bytes()


def _media_type(path: str | os.PathLike[str], name: str, head: bytes, whole: bool) -> str:
    mime = sniff_media_type(head)
    by_name = guess_from_name(name)
    # The signature decides; the extension refines plain text (csv, markdown, json), and a
    # zip container or text read only in part (a streamed file's head).
    if mime is None or (mime == "text/plain" and by_name is not None):
        mime = by_name if by_name is not None else mime
    elif not whole and by_name is not None and mime == "application/zip":
        mime = by_name
    if mime is None:
        raise InvalidInputError(
            f"cannot tell the media type of {os.fspath(path)!r}: neither its content nor "
            "its extension names one"
        )
    return mime


def _from_path(
    path: str | os.PathLike[str],
    filename: str | None,
    limit: ByteLimit | None = None,
    stream_over: int | None = None,
) -> MediaPart:
    file = environment.expand_user(path)
    if stream_over is not None and file.is_file():
        size = file.stat().st_size
        if size > stream_over:  # uploaded from disk: never read whole here
            check_size(os.fspath(path), size, limit)
            with open(file, "rb") as handle:
                head = handle.read(_HEAD_BYTES)
            mime = _media_type(path, file.name, head, whole=False)
            return MediaPart(
                mime_type=mime,
                filename=filename or file.name,
                path=os.fspath(file.resolve()),
                size=size,
            )
    file, data = read_path(path, limit)
    mime = _media_type(path, file.name, data, whole=True)
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
    value: Any,
    *,
    media_type: str | None = None,
    filename: str | None = None,
    limit: ByteLimit | None = None,
    stream_over: int | None = None,
) -> MediaPart:
    """One file input as a MediaPart (see the module docstring for the forms).

    ``media_type`` and ``filename`` apply to raw bytes and URLs (a path keeps its own name
    unless ``filename`` is given). A path larger than ``limit`` is refused from its size
    on disk, before it is read; bytes larger than it are refused too. A path larger than
    ``stream_over`` bytes (it will be uploaded) is not read: the part carries its ``path``
    and ``size``, and the uploader streams it from disk.

    Raises:
        FileTooLargeError: the input is larger than ``limit``.
    """
    if isinstance(value, MediaPart):
        return value
    if isinstance(value, dict):
        part = _from_dict(value)
        if part.data is not None:
            check_size(part.filename or "<file dict>", len(part.data), limit)
        return part
    if isinstance(value, bytes | bytearray):
        check_size(filename or "<bytes>", len(value), limit)
        return _from_bytes(bytes(value), media_type, filename)
    if isinstance(value, str):
        if is_web_url(value):
            return _from_url(value, media_type, filename)
        return _from_path(value, filename, limit, stream_over)
    if isinstance(value, os.PathLike):
        return _from_path(value, filename, limit, stream_over)
    raise InvalidArgumentTypeError(
        "a file must be a path, URL, bytes or a documented dict, got "
        f"{type(value).__name__}: {_describe(value)}"
    )


def media_parts(
    files: Sequence[Any] | None,
    limit: ByteLimit | None = None,
    stream_over: int | None = None,
) -> list[MediaPart]:
    """Every input of ``files=`` as a MediaPart, in order (all checked before any is used;
    each no larger than ``limit``; a path over ``stream_over`` bytes left on disk, see
    `media_part`).

    Raises:
        TypeError: ``files`` is not a list, or an element of no accepted form.
        FileTooLargeError: an input is larger than ``limit``.
    """
    if files is None:
        return []
    if isinstance(files, str | bytes | dict) or not isinstance(files, Sequence):
        raise InvalidArgumentTypeError(f"files must be a list, got {type(files).__name__}")
    return [media_part(value, limit=limit, stream_over=stream_over) for value in files]
