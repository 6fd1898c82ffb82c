"""Documented helpers and constants."""

from doc_processing_toolkit.domain.costs.ledger import attach_retry_summary
from doc_processing_toolkit.domain.tools.reports import (
    SPEND_MARKER_KEY,
    tool_result_data,
    tool_spend_marker,
)
from doc_processing_toolkit.domain.tools.results import (
    DEFAULT_TOOL_RESULT_PREVIEW_CHARS,
    TOOL_RESULT_CAP_CHARS_PER_TOKEN,
    TOOL_RESULT_CAP_CONTEXT_FRACTION,
)
from doc_processing_toolkit.domain.tools.truncated import TruncatedResultStore

__all__ = [
    "DEFAULT_TOOL_RESULT_PREVIEW_CHARS",
    "SPEND_MARKER_KEY",
    "TOOL_RESULT_CAP_CHARS_PER_TOKEN",
    "TOOL_RESULT_CAP_CONTEXT_FRACTION",
    "TruncatedResultStore",
    "attach_retry_summary",
    "tool_result_data",
    "tool_spend_marker",
]
