"""In-memory fakes of ports: a MediaStore, an ArchiveSink and a BatchClient.

Real adapters, not mocks: they keep what they are given in memory and answer the port
contracts (references are data; a miss raises), so a test asserts on what was stored.
"""

from __future__ import annotations

import copy
import dataclasses
import mimetypes
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from doc_processing_toolkit.domain.errors import InvalidInputError, ProviderError
from doc_processing_toolkit.domain.requests import ModelRequest, ModelResponse
from doc_processing_toolkit.ports.model_client import ModelClient

__all__ = ["InMemoryArchiveSink", "InMemoryBatchClient", "InMemoryMediaStore"]

_REF = re.compile(r"^[0-9a-f]{64}(\.[A-Za-z0-9]{1,16})?$")


@dataclass
class InMemoryMediaStore:
    """A `MediaStore` in a dict.

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
    """An `ArchiveSink` in a list.

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


class InMemoryBatchClient:
    """A `BatchClient` that answers each request
    of a batch through ``inner`` (a FakeModel, or an adapter against the emulator).

    Every response comes back with ``served_tier="batch"`` (so the ledger prices it at the
    row's batch price); a request ``inner`` fails is that id's ProviderError in the
    outcome, as a provider's batch reports it. `batches` keeps every submission.
    """

    def __init__(self, inner: ModelClient) -> None:
        self._inner = inner
        self.provider = inner.provider
        self.batches: list[dict[str, ModelRequest]] = []
        """Each ``run_batch`` call's requests by custom id, in call order."""
        self.closed = False

    async def run_batch(
        self, requests: Mapping[str, ModelRequest]
    ) -> Mapping[str, ModelResponse | ProviderError]:
        """Answer every request (one after another) and return the outcomes by id."""
        self.batches.append(dict(requests))
        outcomes: dict[str, ModelResponse | ProviderError] = {}
        for custom_id, request in requests.items():
            try:
                response: ModelResponse | None = None
                async for item in self._inner.stream(request):
                    if isinstance(item, ModelResponse):
                        response = item
                if response is None:
                    raise ProviderError("no response", provider=self.provider)
                outcomes[custom_id] = dataclasses.replace(response, served_tier="batch")
            except ProviderError as exc:
                outcomes[custom_id] = exc
        return outcomes

    async def aclose(self) -> None:
        """Mark the client closed."""
        self.closed = True
