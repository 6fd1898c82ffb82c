"""CompactionResult: what one compaction check did."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CompactionResult"]


@dataclass
class CompactionResult:
    """Metadata returned from a compaction operation."""

    triggered: bool = False
    """True if compaction was actually performed."""
    strategy: str | None = None
    """The strategy that was applied (None if not triggered)."""
    tokens_before: int = 0
    """Approximate token count before compaction."""
    tokens_after: int = 0
    """Approximate token count after compaction (tokens_before scaled by the local
    pre/post size ratio, ~4 chars/token)."""
    tokens_cleared: int = 0
    """Approximate tokens removed (tokens_before - tokens_after)."""
    archive_path: str | None = None
    """Path to the archive file, or the sink's locator (None if not archived)."""
    compaction_number: int = 0
    """Sequence number of this compaction event."""
    summary_input_tokens: int = 0
    """Input tokens consumed by the summarization call."""
    summary_output_tokens: int = 0
    """Output tokens produced by the summarization call."""
    summary_cost: float = 0.0
    """USD cost of the summarization call."""
