"""ModelClient: the port every provider adapter implements."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol, runtime_checkable

from doc_processing_toolkit.domain.requests import ModelRequest, StreamItem

__all__ = ["ModelClient"]


@runtime_checkable
class ModelClient(Protocol):
    """Streams one model request.

    ``stream`` yields `StreamDelta` values
    as they arrive and ends with exactly one
    `ModelResponse`. Failures raise a
    `ProviderError`. A client never retries
    (the application's retry layer is the only one) and never loops over tool calls.
    """

    provider: str
    """The provider name this client speaks for."""

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        """Send ``request`` and stream the response."""
        ...

    async def aclose(self) -> None:
        """Release what the client owns (a client from a shared cache may do nothing)."""
        ...
