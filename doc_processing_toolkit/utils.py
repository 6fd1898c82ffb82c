"""Documented helpers and constants."""

from doc_processing_toolkit.domain.ledger import attach_retry_summary
from doc_processing_toolkit.domain.tool_results import (
    DEFAULT_TOOL_RESULT_PREVIEW_CHARS,
    TOOL_RESULT_CAP_CHARS_PER_TOKEN,
    TOOL_RESULT_CAP_CONTEXT_FRACTION,
)

__all__ = [
    "DEFAULT_TOOL_RESULT_PREVIEW_CHARS",
    "TOOL_RESULT_CAP_CHARS_PER_TOKEN",
    "TOOL_RESULT_CAP_CONTEXT_FRACTION",
    "attach_retry_summary",
]
