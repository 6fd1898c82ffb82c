"""BatchClient: the port a provider's batch API implements (fleets in ``mode="batch"``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, runtime_checkable

from doc_processing_toolkit.domain.errors import ProviderError
from doc_processing_toolkit.domain.requests import ModelRequest, ModelResponse

__all__ = ["BatchClient", "BatchOutcome"]

BatchOutcome = ModelResponse | ProviderError
"""What one request of a batch came back as: its response, or the error the provider gave."""


@runtime_checkable
class BatchClient(Protocol):
    """Sends many model requests as one provider batch, at the provider's batch price.

    ``run_batch`` submits every request of ``requests`` (keyed by a caller-chosen custom
    id, unique within the batch) as one batch through the provider's official SDK, polls
    it with backoff until it has ended, and returns each id's outcome. A request the
    provider failed is a `ProviderError` in
    the mapping, not a raised error; ``run_batch`` raises only when the batch as a whole
    could not be created or read. Responses carry ``served_tier="batch"`` so the ledger
    prices them with the row's batch prices. A client never retries a request itself.
    """

    provider: str
    """The provider name this client speaks for."""

    async def run_batch(self, requests: Mapping[str, ModelRequest]) -> Mapping[str, BatchOutcome]:
        """Run ``requests`` as one batch and return every id's outcome."""
        ...

    async def aclose(self) -> None:
        """Release what the client owns."""
        ...
