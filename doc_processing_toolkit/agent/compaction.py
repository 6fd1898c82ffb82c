"""Provider-agnostic context compaction for doc-processing-toolkit.

Level 1 (pre-call) compacts a session's history before a turn's first request; Level 2
(intra-run) compacts between complete tool rounds on the input tokens the provider
reported. Both archive the original conversation (when enabled) before compacting.
Thin re-exports: the strategies are pure functions in ``domain/compaction``, the
orchestration is in ``application/compaction``.

See Also:
    docs/guide/compaction.md (the "Context compaction" page of the user guide)
"""

from doc_processing_toolkit.application.compaction.levels import (
    check_and_perform_compaction,
    check_and_perform_pre_call_compaction,
)
from doc_processing_toolkit.application.compaction.setup import (
    DEFAULT_SUMMARY_PROMPT,
    resolve_context_window,
)
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
