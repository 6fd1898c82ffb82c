"""The emulator's Files API store: what was uploaded, and the states a poll will see.

Shared by the Files API routes of every dialect: Gemini's resumable uploads, the
Anthropic / OpenAI multipart uploads (`FileStore.add`), and the files a scripted
code execution writes (``origin="generated"``). A test scripts the states the next
upload goes through (`FileStore.script_states`, e.g. ``PROCESSING`` then
``ACTIVE``); each state check returns the next one and the last repeats. Uploaded files
outlive `ProviderEmulator.reset` (a real provider keeps them too); `clear`
forgets them.

A resumable upload is counted and hashed as its chunks arrive; its bytes are kept only
up to `KEEP_BYTES` (a larger upload keeps its ``size`` and ``sha256`` and an empty
``data``, ``truncated`` set), so a test can stream hundreds of megabytes through it.
"""

from __future__ import annotations

import hashlib
import secrets
import string
import threading
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

__all__ = ["FILE_LIFETIME", "KEEP_BYTES", "FileStore", "StoredFile"]

FILE_LIFETIME = timedelta(hours=48)
"""How long an uploaded file lives (Gemini's Files API keeps files for 48 hours)."""

KEEP_BYTES = 64 * 1024 * 1024
"""The most bytes of one resumable upload the store keeps (beyond: size and hash only)."""


@dataclass(slots=True)
class StoredFile:
    """One uploaded file."""

    name: str
    """The provider's name for it (``files/abc123``)."""
    mime_type: str
    data: bytes
    display_name: str | None = None
    states: deque[str] = field(default_factory=lambda: deque(["ACTIVE"]))
    """The states the next checks return (the last repeats)."""
    polls: int = 0
    """How many times its state was checked."""
    deleted: bool = False
    origin: str = "uploaded"
    """``uploaded`` (sent by a client) or ``generated`` (written by code execution)."""
    container_id: str | None = None
    """The code-execution container a generated file lives in."""
    purpose: str | None = None
    """The upload's ``purpose`` (OpenAI)."""
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    """When it was stored (the real clock, so expiry checks hold on any date)."""
    lifetime: timedelta = FILE_LIFETIME
    """How long it lives after ``created_at``."""
    truncated: bool = False
    """True when the upload was larger than `KEEP_BYTES`: ``data`` is empty, ``size`` and
    ``sha256`` are those of the bytes received."""
    streamed_size: int | None = None
    streamed_sha256: str | None = None

    @property
    def expires_at(self) -> datetime:
        """When the Files API forgets it (48 hours after the upload by default)."""
        return self.created_at + self.lifetime

    @property
    def sha256(self) -> str:
        """The hex SHA-256 of the bytes."""
        if self.streamed_sha256 is not None:
            return self.streamed_sha256
        return hashlib.sha256(self.data).hexdigest()

    @property
    def size(self) -> int:
        """How many bytes were uploaded."""
        return self.streamed_size if self.streamed_size is not None else len(self.data)

    def next_state(self) -> str:
        """The state this check sees."""
        self.polls += 1
        if len(self.states) > 1:
            return self.states.popleft()
        return self.states[0]

    @property
    def state(self) -> str:
        """The current state, without counting a check."""
        return self.states[0]


class FileStore:
    """Uploaded files and the scripted states of the next uploads (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._files: dict[str, StoredFile] = {}
        self._pending: dict[str, StoredFile] = {}
        self._hashes: dict[str, tuple[Any, list[int]]] = {}
        self._scripts: deque[tuple[str, ...]] = deque()
        self._counter = 0
        self.lifetime = FILE_LIFETIME
        """How long the next uploads live (``timedelta(0)``: expired at once)."""

    def script_states(self, *states: str) -> None:
        """The states the next upload goes through (default: ``ACTIVE`` at once)."""
        with self._lock:
            self._scripts.append(tuple(states) or ("ACTIVE",))

    def begin(self, mime_type: str, display_name: str | None) -> str:
        """Start an upload; returns its upload id."""
        with self._lock:
            self._counter += 1
            upload_id = f"upload{self._counter}"
            name = f"files/emu{self._counter:06d}"
            states = self._scripts.popleft() if self._scripts else ("ACTIVE",)
            self._pending[upload_id] = StoredFile(
                name, mime_type, b"", display_name, deque(states), lifetime=self.lifetime
            )
            self._hashes[upload_id] = (hashlib.sha256(), [0])
            return upload_id

    def append(self, upload_id: str, chunk: bytes, *, final: bool) -> StoredFile | None:
        """Add a chunk; the finished file when ``final`` (None for an unknown upload)."""
        with self._lock:
            stored = self._pending.get(upload_id)
            if stored is None:
                return None
            digest, total = self._hashes[upload_id]
            digest.update(chunk)
            total[0] += len(chunk)
            if total[0] > KEEP_BYTES:
                stored.data, stored.truncated = b"", True
            else:
                stored.data += chunk
            if final:
                del self._pending[upload_id], self._hashes[upload_id]
                stored.streamed_size, stored.streamed_sha256 = total[0], digest.hexdigest()
                self._files[stored.name] = stored
            return stored

    def add(
        self,
        prefix: str,
        mime_type: str,
        data: bytes,
        display_name: str | None,
        *,
        origin: str = "uploaded",
        container_id: str | None = None,
        purpose: str | None = None,
    ) -> StoredFile:
        """Store a whole file at once under a fresh ``<prefix><random>`` id."""
        alphabet = string.ascii_letters + string.digits
        name = prefix + "".join(secrets.choice(alphabet) for _ in range(24))
        stored = StoredFile(
            name,
            mime_type,
            data,
            display_name,
            origin=origin,
            container_id=container_id,
            purpose=purpose,
            lifetime=self.lifetime,
        )
        with self._lock:
            self._files[name] = stored
        return stored

    def get(self, name: str) -> StoredFile | None:
        """The file called ``name`` (deleted files included)."""
        with self._lock:
            return self._files.get(name)

    def delete(self, name: str) -> bool:
        """Mark ``name`` deleted; False when there is no such live file."""
        with self._lock:
            stored = self._files.get(name)
            if stored is None or stored.deleted:
                return False
            stored.deleted = True
            return True

    @property
    def uploaded(self) -> list[StoredFile]:
        """Every completed upload, in order (not the files code execution wrote)."""
        with self._lock:
            return [f for f in self._files.values() if f.origin == "uploaded"]

    @property
    def generated(self) -> list[StoredFile]:
        """Every file a scripted code execution wrote, in order."""
        with self._lock:
            return [f for f in self._files.values() if f.origin == "generated"]

    def clear(self) -> None:
        """Forget every file and scripted state (and set the lifetime back to 48 hours)."""
        with self._lock:
            self.lifetime = FILE_LIFETIME
            self._files.clear()
            self._pending.clear()
            self._hashes.clear()
            self._scripts.clear()
