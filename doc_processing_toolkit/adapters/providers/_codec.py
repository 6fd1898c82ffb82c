"""What the providers' history codecs share (``<vendor>/dialect.py``)."""

from __future__ import annotations

from typing import Any

from doc_processing_toolkit.domain.messages import ProviderPart

__all__ = ["own_payload"]


def own_payload(part: ProviderPart, provider: str, log: Any) -> dict[str, Any] | None:
    """The verbatim payload of ``part`` when ``provider`` wrote it; a block of another
    provider cannot be replayed: None, with a warning on the codec's logger ``log``."""
    if part.provider == provider:
        return part.payload
    log.warning(
        f"{provider}: dropping a provider block of another provider",
        block_provider=part.provider,
        block_type=part.payload.get("type"),
    )
    return None
