"""DirectoryArchiveSink: each archived conversation as one JSON file in a directory."""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import re
import tempfile
import uuid
from pathlib import Path
from typing import Any

__all__ = ["DirectoryArchiveSink"]

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


class DirectoryArchiveSink:
    """An ArchiveSink writing ``<prefix>_<UTC time>_<random>.json`` files.

    The file is written through a temporary file and a rename, so a reader never sees
    half of one; the returned locator is the file's path.
    """

    def __init__(self, directory: str | os.PathLike[str], prefix: str = "compaction") -> None:
        self.directory = Path(directory)
        """The directory (created on the first archive)."""
        self.prefix = _UNSAFE.sub("_", prefix)[:64] or "compaction"
        """The file-name prefix (a session id, made file-name safe)."""

    def __repr__(self) -> str:
        return f"DirectoryArchiveSink({str(self.directory)!r})"

    def __call__(self, payload: list[Any]) -> str:
        """Write ``payload`` as JSON and return the file's path.

        Raises:
            OSError: the directory cannot be created or written.
        """
        stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%S%fZ")
        path = self.directory / f"{self.prefix}_{stamp}_{uuid.uuid4().hex[:8]}.json"
        self.directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".archive.", suffix=".tmp", dir=self.directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(payload, handle, ensure_ascii=False, default=str)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        return str(path)
