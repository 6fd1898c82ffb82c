"""DirectoryMediaStore: each blob as ``<sha256>.<ext>`` in one directory."""

from __future__ import annotations

import contextlib
import mimetypes
import os
import re
import tempfile
from pathlib import Path

from doc_processing_toolkit.domain.errors import InvalidInputError, MissingFileError

__all__ = ["DirectoryMediaStore"]

_DIGEST = re.compile(r"[0-9a-f]{64}")
_REF = re.compile(r"[0-9a-f]{64}\.[A-Za-z0-9]{1,16}")


class DirectoryMediaStore:
    """A MediaStore that keeps each blob as ``<sha256>.<ext>`` in one directory.

    References are file names, not paths, so an envelope and its directory move together.
    A blob already present is not rewritten (``put`` is idempotent by digest); a blob is
    written through a temporary file and a rename, so a reader never sees half of one.
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        """The directory (created on the first put)."""

    def __repr__(self) -> str:
        return f"DirectoryMediaStore({str(self.directory)!r})"

    def put(self, sha256: str, mime_type: str | None, data: bytes) -> str:
        """Write ``data`` as ``<sha256>.<ext>`` and return that file name.

        Raises:
            ValueError: If sha256 is not a hex digest.
        """
        digest = sha256.lower() if isinstance(sha256, str) else ""
        if not _DIGEST.fullmatch(digest):
            raise InvalidInputError(f"sha256 must be 64 hex digits, got {sha256!r}")
        extension = (mimetypes.guess_extension(mime_type or "") or ".bin").lstrip(".")
        if not re.fullmatch(r"[A-Za-z0-9]{1,16}", extension):
            extension = "bin"
        name = f"{digest}.{extension}"
        self.directory.mkdir(parents=True, exist_ok=True)
        existing = next(iter(sorted(self.directory.glob(f"{digest}.*"))), None)
        if existing is not None and _REF.fullmatch(existing.name):
            return existing.name
        fd, tmp = tempfile.mkstemp(prefix=f".{digest}.", suffix=".tmp", dir=self.directory)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.directory / name)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        return name

    def get(self, ref: str) -> bytes:
        """Read the blob stored under ``ref``.

        Raises:
            ValueError: If ref is not a plain ``<sha256>.<ext>`` name inside the directory.
            FileNotFoundError: If no such blob exists.
        """
        if not isinstance(ref, str) or not _REF.fullmatch(ref):
            raise InvalidInputError(f"not a media store reference: {ref!r}")
        path = self.directory / ref
        if path.resolve().parent != self.directory.resolve():
            raise InvalidInputError(f"reference {ref!r} is outside the store's directory")
        try:
            return path.read_bytes()
        except FileNotFoundError:
            raise MissingFileError(f"no blob {ref!r} in the media store") from None
