"""The documented entry points: the Level-2 and Level-1 checks on a message list.

The run loop uses `RunCompactor`, which shares the engine; these two
functions serve a host that keeps its own message list. ``messages`` may be
provider-native dicts (parsed and rendered with the provider's HistoryCodec, and changed
in place) or neutral IR messages. The summarisation request goes through ``client``
(default: ``deps``' client for the summary model's provider) and the one retry layer; its
cost is on the returned CompactionResult. ``deps`` comes from the caller: the documented
functions (``agent.compaction``) pass the composition root's when none is given.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from doc_processing_toolkit.application.compaction.archive import (
    archive_payload,
    choose_sink,
    send_to_archive,
)
from doc_processing_toolkit.application.compaction.engine import CompactionContext, compact
from doc_processing_toolkit.application.compaction.setup import (
    protect_current_turn,
    summary_prompt_text,
)
from doc_processing_toolkit.application.compaction.summary import (
    SUMMARY_PURPOSE,
    SummaryCall,
    SummaryOutcome,
    request_summary,
)
from doc_processing_toolkit.application.deps import AgentDeps, no_default_deps
from doc_processing_toolkit.domain.compaction.config import CompactionConfig, resolve_threshold
from doc_processing_toolkit.domain.compaction.result import CompactionResult
from doc_processing_toolkit.domain.costs.ledger import RetryAccumulator
from doc_processing_toolkit.domain.messages import Message
from doc_processing_toolkit.ports.model_client import ModelClient

if TYPE_CHECKING:
    from doc_processing_toolkit.application.hooks.request_start import RequestStartEmitter

__all__ = ["check_and_perform_compaction", "check_and_perform_pre_call_compaction"]


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
        deps: The adapters (default: the composition root's, passed in by the documented
            function in ``agent.compaction``).

    Returns:
        A CompactionResult describing what happened.
    """
    return await _check(
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
        deps=deps,
        protect=protect_current_turn(),
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
    return await _check(
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
        deps=deps,
        protect=True,
    )


async def _check(
    messages: list[Any],
    tokens: int,
    config: CompactionConfig,
    model_name: str,
    provider: str,
    context_window_tokens: int,
    compaction_count: int,
    session_id: str,
    logger: logging.Logger,
    emitter: RequestStartEmitter | None,
    *,
    client: ModelClient | None,
    deps: AgentDeps | None,
    protect: bool,
) -> CompactionResult:
    threshold = resolve_threshold(config.trigger_threshold, context_window_tokens)
    idle = CompactionResult(tokens_before=tokens, tokens_after=tokens)
    limit = config.max_compactions_per_session
    if (
        tokens < threshold
        or len(messages) < config.min_messages_before_compaction
        or (limit is not None and compaction_count >= limit)
    ):
        return idle
    deps = deps or no_default_deps()
    native = bool(messages) and not isinstance(messages[0], Message)
    codec = deps.history_codecs(provider) if native else None
    ir: list[Message] = codec.parse(list(messages)) if codec is not None else list(messages)
    summary_model = config.summary_model or model_name
    prompt = summary_prompt_text(config)
    accumulator = RetryAccumulator()

    async def summarize(head: Sequence[Message]) -> SummaryOutcome:
        used = client or deps.model_clients(
            deps.registry.detect_provider(summary_model), row_lookup=deps.registry.row
        )

        async def before_send(attempt: int) -> None:
            if emitter is not None:
                await emitter.for_purpose(SUMMARY_PURPOSE).emit(attempt=attempt)

        call = SummaryCall(
            client=used,
            model=summary_model,
            row=deps.registry.row(summary_model),
            prompt=prompt,
            max_tokens=config.summary_max_tokens,
            accumulator=accumulator,
            before_send=before_send,
        )
        return await request_summary(call, head)

    sink = choose_sink(
        config,
        default_sink=deps.archive_sink,
        directory_sink=deps.directory_archive_sink,
        session_id=session_id,
    )

    def archive(original: list[Message]) -> str | None:
        assert sink is not None
        return send_to_archive(sink, archive_payload(original, codec), logger)

    ctx = CompactionContext(
        config=config,
        threshold=threshold,
        summarize=summarize,
        archive=archive if sink is not None else None,
        logger=logger,
    )
    compacted = await compact(
        ir,
        ctx,
        tokens_before=tokens,
        compaction_number=compaction_count + 1,
        protect_current_turn=protect,
    )
    compacted.result.summary_cost += float(accumulator.total_cost)
    if compacted.messages is None:
        compacted.result.tokens_after = tokens
        return compacted.result
    messages[:] = codec.render(compacted.messages) if codec is not None else compacted.messages
    return compacted.result
