"""Provider-agnostic context compaction for doc-processing-toolkit.

Level 1 (pre-call) compacts a session's history before a turn's first request; Level 2
(intra-run) compacts between complete tool rounds on the input tokens the provider
reported. Both archive the original conversation (when enabled) before compacting.
Thin re-exports: the strategies are pure functions in ``domain/compaction``, the
orchestration is in ``application/compaction``; the two entry points below hand it the
composition root's adapters when the caller passes no ``deps``.

See Also:
    docs/guide/compaction.md (the "Context compaction" page of the user guide)
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from doc_processing_toolkit.agent.core import container_deps
from doc_processing_toolkit.application.compaction import levels as _levels
from doc_processing_toolkit.application.compaction import setup as _setup
from doc_processing_toolkit.application.compaction.setup import DEFAULT_SUMMARY_PROMPT
from doc_processing_toolkit.application.deps import AgentDeps
from doc_processing_toolkit.application.hooks.request_start import RequestStartEmitter
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
from doc_processing_toolkit.ports.model_client import ModelClient

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


async def check_and_perform_compaction(
    messages: list[Any],
    input_tokens: int,
    config: CompactionConfig,
    model_name: str,
    provider: str,
    context_window_tokens: int,
    compaction_count: int,
    session_id: str,
    logger: logging.Logger,
    request_start_emitter: RequestStartEmitter | None = None,
    *,
    client: ModelClient | None = None,
    deps: AgentDeps | None = None,
) -> CompactionResult:
    """Level 2 (intra-run) compaction check and execution, between complete tool rounds.

    Args:
        messages: Provider-native message list (or IR messages), modified in place.
        input_tokens: Token count reported by the latest API response.
        config: Resolved compaction configuration.
        model_name: Model name (the summary model when ``config.summary_model`` is None).
        provider: Provider name (its codec reads and writes ``messages``).
        context_window_tokens: Context-window limit for the model.
        compaction_count: How many compaction events have already occurred.
        session_id: Session identifier for archiving.
        logger: Logger instance.
        request_start_emitter: Announces the summarisation request (purpose
            ``compaction_summary``).
        client: The ModelClient of the summarisation request (default: built by ``deps``).
        deps: The adapters (default: the composition root's).

    Returns:
        A CompactionResult describing what happened.
    """
    return await _levels.check_and_perform_compaction(
        messages,
        input_tokens,
        config,
        model_name,
        provider,
        context_window_tokens,
        compaction_count,
        session_id,
        logger,
        request_start_emitter,
        client=client,
        deps=deps or container_deps(),
    )


async def check_and_perform_pre_call_compaction(
    history: list[Any],
    estimated_tokens: int,
    config: CompactionConfig,
    model_name: str,
    provider: str,
    context_window_tokens: int,
    compaction_count: int,
    session_id: str,
    logger: logging.Logger,
    request_start_emitter: RequestStartEmitter | None = None,
    *,
    client: ModelClient | None = None,
    deps: AgentDeps | None = None,
) -> CompactionResult:
    """Level 1 (pre-call) compaction check and execution, on a session's history.

    ``history`` ends on the pending user turn, which is kept verbatim after the recap.
    Arguments as `check_and_perform_compaction` (``estimated_tokens``: the estimate
    of the whole context: system prompt, history and prompt).
    """
    return await _levels.check_and_perform_pre_call_compaction(
        history,
        estimated_tokens,
        config,
        model_name,
        provider,
        context_window_tokens,
        compaction_count,
        session_id,
        logger,
        request_start_emitter,
        client=client,
        deps=deps or container_deps(),
    )


def resolve_context_window(
    model_name: str,
    provider: str,
    logger: logging.Logger | Any,
    row_lookup: Callable[[str], ModelInfo | None] | None = None,
) -> int:
    """The model's context window from the registry; 128,000 with a loud WARNING on a miss.

    Args:
        model_name: Registry model name.
        provider: Provider key (names the JSON path to fix).
        logger: Logger of the warning.
        row_lookup: The registry's row lookup (default: the composition root's registry).
    """
    lookup = row_lookup or container_deps().registry.row
    return _setup.resolve_context_window(model_name, provider, logger, lookup)
