"""The bytes of a media part for the provider adapters: held, or a local file.

A `MediaPart` with a ``path`` (a large file in ``files=`` / ``tool_files=``) is not
in memory: `open_part` opens it for an SDK to stream, `part_sha256` hashes it in
pieces (remembered per path, size and modification time), and `part_bytes` reads it
whole only where a wire format needs the bytes inline. `remember_upload` records the
Files API file a path-backed part became, so the history renders it as that reference
(`uploaded_ref`) instead of reading the file.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import threading
from pathlib import Path
from typing import Any, BinaryIO

from doc_processing_toolkit.domain.errors import MissingFileError
from doc_processing_toolkit.domain.messages import MediaPart

__all__ = [
    "forget_uploads",
    "open_part",
    "part_bytes",
    "part_sha256",
    "part_size",
    "remember_upload",
    "uploaded_ref",
    "with_bytes",
]

_CHUNK = 1024 * 1024
_digest_lock = threading.Lock()
_DIGESTS: dict[tuple[str, int, int], str] = {}
_UPLOADS: dict[tuple[str, str, int, int], dict[str, Any]] = {}


def _unreadable(path: str, exc: OSError) -> MissingFileError:
    return MissingFileError(f"file {path!r} (a media part read from disk) cannot be read: {exc}")


def part_size(part: MediaPart) -> int:
    """How many bytes ``part`` holds (0 for a URL or a file reference)."""
    if part.data is not None:
        return len(part.data)
    if part.path is not None:
        return part.size if part.size is not None else os.stat(part.path).st_size
    return 0


def part_bytes(part: MediaPart) -> bytes | None:
    """The bytes of ``part`` (its file read whole when it is path-backed; None for a URL
    or a file reference).

    Raises:
        MissingFileError: the part's file cannot be read.
    """
    if part.data is not None or part.path is None:
        return part.data
    try:
        return Path(part.path).read_bytes()
    except OSError as exc:
        raise _unreadable(part.path, exc) from exc


def with_bytes(part: MediaPart) -> MediaPart:
    """``part`` holding its bytes: a path-backed part read, for a wire format that sends
    them inline (any other part as it is).

    Raises:
        MissingFileError: the part's file cannot be read.
    """
    if part.data is not None or part.path is None:
        return part
    return dataclasses.replace(part, data=part_bytes(part), path=None, size=None)


def open_part(part: MediaPart) -> BinaryIO:
    """A binary file object over the part's file, for an SDK to stream (the caller closes
    it).

    Raises:
        MissingFileError: the part's file cannot be opened.
    """
    assert part.path is not None
    try:
        return open(part.path, "rb")
    except OSError as exc:
        raise _unreadable(part.path, exc) from exc


def part_sha256(part: MediaPart) -> str:
    """The hex SHA-256 of the part's bytes, a file's read in 1 MiB pieces.

    Raises:
        MissingFileError: the part's file cannot be read.
    """
    if part.data is not None or part.path is None:
        return hashlib.sha256(part.data or b"").hexdigest()
    try:
        stat = os.stat(part.path)
        key = (part.path, stat.st_size, stat.st_mtime_ns)
        with _digest_lock:
            known = _DIGESTS.get(key)
        if known is not None:
            return known
        digest = hashlib.sha256()
        with open(part.path, "rb") as handle:
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
    except OSError as exc:
        raise _unreadable(part.path, exc) from exc
    with _digest_lock:
        _DIGESTS[key] = digest.hexdigest()
    return digest.hexdigest()


def _file_key(provider: str, part: MediaPart) -> tuple[str, str, int, int] | None:
    if part.data is not None or part.path is None:
        return None
    try:
        stat = os.stat(part.path)
    except OSError:
        return None
    return (provider, part.path, stat.st_size, stat.st_mtime_ns)


def remember_upload(provider: str, part: MediaPart, record: dict[str, Any]) -> None:
    """Record that ``provider``'s Files API holds the path-backed ``part`` as ``record``."""
    key = _file_key(provider, part)
    if key is not None:
        with _digest_lock:
            _UPLOADS[key] = dict(record)


def forget_uploads(provider: str) -> None:
    """Forget every upload `remember_upload` recorded for ``provider``."""
    with _digest_lock:
        for key in [k for k in _UPLOADS if k[0] == provider]:
            del _UPLOADS[key]


def uploaded_ref(provider: str, part: MediaPart) -> dict[str, Any] | None:
    """The upload record of the path-backed ``part`` at ``provider`` (None: not uploaded,
    or the file changed since)."""
    key = _file_key(provider, part)
    if key is None:
        return None
    with _digest_lock:
        found = _UPLOADS.get(key)
    return dict(found) if found is not None else None
