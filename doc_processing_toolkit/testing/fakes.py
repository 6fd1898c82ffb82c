"""In-memory fakes of the storage ports: a MediaStore and an ArchiveSink.

Real adapters, not mocks: they keep what they are given in memory and answer the port
contracts (references are data; a miss raises), so a test asserts on what was stored.
"""

from __future__ import annotations

import copy
import mimetypes
import re
from dataclasses import dataclass, field
from typing import Any

from doc_processing_toolkit.domain.errors import InvalidInputError

__all__ = ["InMemoryArchiveSink", "InMemoryMediaStore"]

_REF = re.compile(r"^[0-9a-f]{64}(\.[A-Za-z0-9]{1,16})?$")


@dataclass
class InMemoryMediaStore:
    """A :class:`~doc_processing_toolkit.ports.media_store.MediaStore` in a dict.

    References are ``<sha256>.<ext>`` as the directory store names its files; ``put``
    de-duplicates by digest and ``get`` accepts only references of that shape.
    """

    blobs: dict[str, bytes] = field(default_factory=dict)
    """The stored bytes by reference."""
    puts: list[str] = field(default_factory=list)
    """Every reference ``put`` returned, in call order (repeats included)."""

    def put(self, sha256: str, mime_type: str, data: bytes) -> str:
        """Store ``data`` under ``<sha256>.<ext>`` (the first blob for a digest wins)."""
        digest = sha256.lower()
        if not re.fullmatch(r"[0-9a-f]{64}", digest):
            raise InvalidInputError(f"sha256 must be 64 hex digits, got {sha256!r}")
        existing = next((ref for ref in self.blobs if ref.split(".", 1)[0] == digest), None)
        if existing is None:
            extension = (mimetypes.guess_extension(mime_type) or ".bin").lstrip(".")
            existing = f"{digest}.{extension}"
            self.blobs[existing] = bytes(data)
        self.puts.append(existing)
        return existing

    def get(self, ref: str) -> bytes:
        """The bytes behind ``ref``.

        Raises:
            ValueError: ``ref`` is not a reference this store hands out.
            KeyError: nothing is stored under ``ref``.
        """
        if not isinstance(ref, str) or not _REF.fullmatch(ref):
            raise InvalidInputError(f"not a media reference of this store: {ref!r}")
        return self.blobs[ref]


@dataclass
class InMemoryArchiveSink:
    """An :class:`~doc_processing_toolkit.ports.archive_sink.ArchiveSink` in a list.

    Each call keeps a deep copy of the payload and returns the locator
    ``<prefix><n>`` (1-based), or raises ``fail_with`` when it is set.
    """

    prefix: str = "memory://archive/"
    """Locators are this prefix plus the archive's 1-based number."""
    archives: list[list[Any]] = field(default_factory=list)
    """The payloads received, in call order."""
    fail_with: BaseException | None = None
    """Raised by every call when set (to test that a failing sink is contained)."""

    def __call__(self, payload: list[Any]) -> str | None:
        """Keep ``payload`` and return its locator."""
        if self.fail_with is not None:
            raise self.fail_with
        self.archives.append(copy.deepcopy(payload))
        return f"{self.prefix}{len(self.archives)}"
