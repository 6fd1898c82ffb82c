"""Plain helpers for the provider adapter tests (the fixtures are in ``conftest.py``)."""

from __future__ import annotations

from doc_processing_toolkit.domain.requests import ModelRequest, ModelResponse, StreamItem
from doc_processing_toolkit.ports.model_client import ModelClient

__all__ = ["collect"]


async def collect(
    client: ModelClient, request: ModelRequest
) -> tuple[list[StreamItem], ModelResponse]:
    """Drain ``client.stream(request)``: (the deltas, the one ModelResponse, which came last)."""
    items = [item async for item in client.stream(request)]
    last = items[-1]
    assert isinstance(last, ModelResponse)
    assert not any(isinstance(i, ModelResponse) for i in items[:-1])
    return items[:-1], last
