"""Where a media part's bytes come from: held in memory, or a local file read on demand.

A path in ``files=`` or ``tool_files=`` that will go to a provider's Files API is not read
when the run starts: its `MediaPart` carries the ``path`` (and its ``size``), the
uploader streams it from disk, and only a send inline (or a save that keeps the bytes)
reads it whole. `part_size` and `file_sha256` never hold the file in memory.
`KeptMedia` gives a restored session the bytes of such an upload from its file, on demand.
"""

from __future__ import annotations

import base64
import hashlib
import os
from pathlib import Path
from typing import Any

from doc_processing_toolkit.domain.errors import MissingFileError
from doc_processing_toolkit.domain.messages import MediaPart

__all__ = ["CHUNK_BYTES", "KeptMedia", "file_sha256", "part_bytes", "part_size"]

CHUNK_BYTES = 1024 * 1024
"""How much of a file one read takes while hashing."""


def file_sha256(path: str | Path) -> str:
    """The hex SHA-256 of the file at ``path``, read in `CHUNK_BYTES` pieces."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK_BYTES):
            digest.update(chunk)
    return digest.hexdigest()


def part_size(part: MediaPart) -> int | None:
    """How many bytes ``part`` holds (None for a URL or a provider file reference)."""
    if part.data is not None:
        return len(part.data)
    if part.path is not None:
        return part.size if part.size is not None else Path(part.path).stat().st_size
    return None


def part_bytes(part: MediaPart) -> bytes | None:
    """The bytes of ``part``, reading its file when it is path-backed (None when it has
    neither).

    Raises:
        MissingFileError: the part's file is gone.
    """
    if part.data is not None or part.path is None:
        return part.data
    try:
        return Path(part.path).read_bytes()
    except OSError as exc:
        raise MissingFileError(
            f"file {part.path!r} (a media part read from disk) cannot be read: {exc}"
        ) from exc


class KeptMedia(dict[str, tuple[str, str]]):
    """URI -> ``(mime_type, base64)`` of a session's Files API uploads: the bytes the
    envelope kept, and for an upload streamed from a local file (its record names the
    ``path``) the file read on demand, only while it still has the recorded size and
    SHA-256 (a changed or missing file has no bytes).
    """

    def __init__(self, kept: dict[str, tuple[str, str]], files: dict[str, dict[str, Any]]):
        super().__init__(kept)
        self._files = files

    def _from_file(self, uri: str) -> tuple[str, str] | None:
        record = self._files.get(uri)
        if record is None:
            return None
        path, size, digest = record.get("path"), record.get("size"), record.get("sha256")
        try:
            if not isinstance(path, str) or os.stat(path).st_size != size:
                return None
            if not isinstance(digest, str) or file_sha256(path) != digest:
                return None
            data = Path(path).read_bytes()
        except OSError:
            return None
        mime = str(record.get("mime_type") or "application/octet-stream")
        return mime, base64.b64encode(data).decode("ascii")

    def __missing__(self, uri: str) -> tuple[str, str]:
        found = self._from_file(uri)
        if found is None:
            raise KeyError(uri)
        return found

    def get(self, uri: str, default: Any = None) -> Any:
        """The kept pair of ``uri`` (a streamed upload's file read now), else ``default``."""
        try:
            return self[uri]
        except KeyError:
            return default
