"""Provider-agnostic context compaction for doc-processing-toolkit.

Level 1 (pre-call) compacts a session's history before a turn's first request; Level 2
(intra-run) compacts between complete tool rounds on the input tokens the provider
reported. Both archive the original conversation (when enabled) before compacting.
Thin re-exports: the strategies are pure functions in ``domain/compaction``, the
orchestration is in ``application/compaction``.

See Also:
    docs/guide/compaction.md (the "Context compaction" page of the user guide)
"""

from collections.abc import Callable
from typing import Any

from doc_processing_toolkit.application.compaction import setup as _setup
from doc_processing_toolkit.application.compaction.levels import (
    check_and_perform_compaction,
    check_and_perform_pre_call_compaction,
)
from doc_processing_toolkit.application.compaction.setup import DEFAULT_SUMMARY_PROMPT
from doc_processing_toolkit.application.deps import default_deps
from doc_processing_toolkit.domain.compaction.config import (
    CompactionConfig,
    resolve_compaction_config,
    resolve_threshold,
)
from doc_processing_toolkit.domain.compaction.result import CompactionResult
from doc_processing_toolkit.domain.compaction.structure import (
    COMPACTION_CONTINUATION_TEXT,
    TRUNCATION_NOTICE_TEXT,
)
from doc_processing_toolkit.domain.registry import ModelInfo

__all__ = [
    "COMPACTION_CONTINUATION_TEXT",
    "DEFAULT_SUMMARY_PROMPT",
    "TRUNCATION_NOTICE_TEXT",
    "CompactionConfig",
    "CompactionResult",
    "check_and_perform_compaction",
    "check_and_perform_pre_call_compaction",
    "resolve_compaction_config",
    "resolve_context_window",
    "resolve_threshold",
]


def resolve_context_window(
    model_name: str,
    provider: str,
    logger: Any,
    row_lookup: Callable[[str], ModelInfo | None] | None = None,
) -> int:
    """The model's context window from the registry; 128,000 with a loud WARNING on a miss.

    Args:
        model_name: Registry model name.
        provider: Provider key (names the JSON path to fix).
        logger: Logger of the warning.
        row_lookup: The registry's row lookup (default: the process default registry).
    """
    lookup = row_lookup if row_lookup is not None else default_deps().registry.row
    return _setup.resolve_context_window(model_name, provider, logger, lookup)
