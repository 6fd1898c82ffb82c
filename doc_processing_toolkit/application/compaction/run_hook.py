"""The run loop's compaction seam: one check before every request of a run.

* Level 1 — before a session turn's first request, when the run carries history: on the
  estimated size of the whole context.
* Level 2 — before every later request, between complete tool rounds: on the input
  tokens the provider reported for the previous request plus an estimate of what was
  appended since (its answer and the tool results).

Summaries are requests of the run: announced by request_start, retried by the one retry
layer, costed on the run's ledger with purpose ``compaction_summary``. The session learns
the compacted history through its `CompactionScope`.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from doc_processing_toolkit.application.compaction.archive import (
    archive_payload,
    choose_sink,
    send_to_archive,
)
from doc_processing_toolkit.application.compaction.engine import CompactionContext, compact
from doc_processing_toolkit.application.compaction.setup import (
    CompactionSetup,
    protect_current_turn,
    resolve_context_window,
)
from doc_processing_toolkit.application.compaction.summary import (
    SUMMARY_PURPOSE,
    SummaryCall,
    SummaryOutcome,
    request_summary,
)
from doc_processing_toolkit.application.config.resolution import AgentResolution
from doc_processing_toolkit.application.deps import AgentDeps
from doc_processing_toolkit.application.run.loop.events import EventChannel
from doc_processing_toolkit.application.run.policy.retry import RetryPolicy
from doc_processing_toolkit.application.run.results.outcome import RunOutcome
from doc_processing_toolkit.application.run.run_input import CompactionScope
from doc_processing_toolkit.application.telemetry.runtime import request_recorded
from doc_processing_toolkit.domain.compaction.config import resolve_threshold
from doc_processing_toolkit.domain.compaction.structure import estimate_tokens
from doc_processing_toolkit.domain.messages import Message
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.ports.model_client import ModelClient

if TYPE_CHECKING:
    from doc_processing_toolkit.application.hooks.request_start import RequestStartEmitter

__all__ = ["CompactionScope", "RunCompactor", "build_compactor", "run_compactor"]

ESTIMATE_MARGIN = 1.2
"""Local estimates (~4 chars/token of the neutral messages) are scaled up by this much:
the wire form adds ids, roles and JSON, and the tool definitions are not counted, so the
estimate errs toward compacting early, never toward overflowing."""


@dataclass
class _Facts:
    model: str
    provider: str
    row: ModelInfo | None
    summary_model: str
    summary_row: ModelInfo | None
    threshold: int
    system: str = ""


class RunCompactor:
    """Checks (and performs) compaction before each request of one run."""

    def __init__(
        self,
        setup: CompactionSetup,
        facts: _Facts,
        *,
        summary_client: Callable[[], ModelClient],
        sink: Callable[[list[Any]], str | None] | None,
        render: Callable[[list[Message]], list[Any]],
        channel: EventChannel,
        request_start: RequestStartEmitter | None,
        scope: CompactionScope,
        logger: logging.Logger | Any,
        policy: RetryPolicy | None = None,
    ) -> None:
        self._setup = setup
        self._facts = facts
        self._summary_client = summary_client
        self._sink = sink
        self._render = render
        self._channel = channel
        self._request_start = request_start
        self.scope = scope
        self._log = logger
        self._policy = policy
        self._sent = 0
        self._turn: Message | None = None

    @property
    def threshold(self) -> int:
        """The absolute token threshold."""
        return self._facts.threshold

    def _tokens(self, outcome: RunOutcome, iteration: int) -> int:
        messages, last = outcome.messages, outcome.last_response
        if iteration == 1 or last is None:
            return round(estimate_tokens(messages, self._facts.system) * ESTIMATE_MARGIN)
        usage = last.usage
        additive = self._facts.row is None or self._facts.row.cache_write_billing == "additive"
        reported = usage.input_tokens + (usage.cache_write_tokens if additive else 0)
        return reported + round(estimate_tokens(messages[self._sent :]) * ESTIMATE_MARGIN)

    async def before_request(self, outcome: RunOutcome, iteration: int, system: str = "") -> None:
        """The Level-1 (first request, history present) or Level-2 check."""
        self._facts.system = system
        if self._turn is None and outcome.new_messages_start < len(outcome.messages):
            self._turn = outcome.messages[outcome.new_messages_start]
        try:
            if iteration > 1 or outcome.new_messages_start > 0:
                await self._check(outcome, iteration)
        finally:
            self._sent = len(outcome.messages)

    async def _check(self, outcome: RunOutcome, iteration: int) -> None:
        config = self._setup.config
        done = self.scope.prior_count + len(outcome.compactions)
        if len(outcome.messages) < config.min_messages_before_compaction:
            return
        if (
            config.max_compactions_per_session is not None
            and done >= config.max_compactions_per_session
        ):
            return
        tokens = self._tokens(outcome, iteration)
        if tokens < self._facts.threshold:
            return
        level = 1 if iteration == 1 else 2
        ctx = CompactionContext(
            config=config,
            threshold=self._facts.threshold,
            summarize=lambda head: self._summarize(outcome, iteration, head),
            archive=self._archive if self._sink is not None else None,
            logger=self._log,
            system=self._facts.system,
        )
        compacted = await compact(
            list(outcome.messages),
            ctx,
            tokens_before=tokens,
            compaction_number=done + 1,
            protect_current_turn=True if level == 1 else protect_current_turn(),
        )
        if compacted.messages is None:
            return
        outcome.messages[:] = compacted.messages
        start = next((i for i, m in enumerate(outcome.messages) if m is self._turn), 0)
        outcome.new_messages_start = start
        outcome.compactions.append(compacted.result)
        outcome.compaction_iterations.append(iteration)
        self.scope.history = list(outcome.messages[:start])
        result = compacted.result
        self._log.info(
            "compaction %d (level %d, %s): ~%d -> ~%d tokens (threshold %d)%s",
            result.compaction_number,
            level,
            result.strategy,
            result.tokens_before,
            result.tokens_after,
            self._facts.threshold,
            f", archived at {result.archive_path}" if result.archive_path else "",
        )

    def _archive(self, messages: list[Message]) -> str | None:
        assert self._sink is not None
        return send_to_archive(self._sink, self._render(messages), self._log)

    async def _summarize(
        self, outcome: RunOutcome, iteration: int, head: Sequence[Message]
    ) -> SummaryOutcome:
        f = self._facts

        async def before_send(attempt: int) -> None:
            outcome.request_count += 1
            if self._request_start is not None:
                await self._request_start.emit(
                    iteration=iteration, attempt=attempt, purpose=SUMMARY_PURPOSE
                )
                return
            await self._channel.emit(
                "request_start",
                None,
                {
                    "request_index": outcome.request_count,
                    "iteration": iteration,
                    "attempt": attempt,
                    "purpose": SUMMARY_PURPOSE,
                    "model": f.summary_model,
                    "provider": f.provider,
                },
            )

        call = SummaryCall(
            client=self._summary_client(),
            model=f.summary_model,
            row=f.summary_row,
            prompt=self._setup.prompt,
            max_tokens=self._setup.config.summary_max_tokens,
            accumulator=outcome.accumulator,
            before_send=before_send,
            policy=self._policy,
            iteration=iteration,
            request_index=len(outcome.ledger.records) + 1,
        )
        started = time.monotonic()
        summary = await request_summary(call, head)
        request_recorded(outcome.ledger.record(summary.record))  # ends its telemetry span
        outcome.request_facts.append(
            {
                "retries_before": summary.retries_before,
                "duration_ms": int((time.monotonic() - started) * 1000),
                "thinking": False,
                "stop_reason": summary.stop_reason,
            }
        )
        return summary


def run_compactor(
    agent: Any,
    resolution: AgentResolution,
    client: ModelClient,
    channel: EventChannel,
    control: Any,
    scope: CompactionScope | None = None,
) -> RunCompactor | None:
    """The compactor of one run of ``agent`` (None when compaction is off).

    Args:
        agent: The Agent (its ``settings``, ``deps`` and ``logger`` are read).
        resolution: The Agent's construction-time facts (``resolution.compaction``).
        client: The run's ModelClient (summaries of a same-provider model use it).
        channel: The run's event channel (request_start without an emitter).
        control: The run's RunControl (its ``request_start`` emitter).
        scope: The session's side (None: a plain Agent run).
    """
    setup = resolution.compaction
    if setup is None:
        return None
    return build_compactor(
        setup,
        model=agent.settings.model,
        provider=resolution.provider,
        row=resolution.row,
        deps=agent.deps,
        client=client,
        channel=channel,
        request_start=control.request_start,
        logger=agent.logger,
        scope=scope,
    )


def build_compactor(
    setup: CompactionSetup,
    *,
    model: str,
    provider: str,
    row: ModelInfo | None,
    deps: AgentDeps,
    client: ModelClient,
    channel: EventChannel,
    request_start: RequestStartEmitter | None,
    logger: logging.Logger | Any,
    scope: CompactionScope | None = None,
    policy: RetryPolicy | None = None,
) -> RunCompactor:
    """A RunCompactor from explicit parts (the system prompt comes with each check)."""
    config = setup.config
    scope = scope or CompactionScope(session_id=f"run_{uuid.uuid4().hex[:12]}")
    window = resolve_context_window(model, provider, logger, deps.registry.row)
    summary_model = config.summary_model or model
    summary_provider = deps.registry.detect_provider(summary_model)
    cache: dict[str, ModelClient] = {}

    def summary_client() -> ModelClient:
        if summary_provider == provider:
            return client
        if "client" not in cache:
            cache["client"] = deps.model_clients(summary_provider, row_lookup=deps.registry.row)
        return cache["client"]

    codec = deps.history_codecs(provider)
    sink = choose_sink(
        config,
        default_sink=deps.archive_sink,
        directory_sink=deps.directory_archive_sink,
        session_id=scope.session_id,
    )
    facts = _Facts(
        model=model,
        provider=provider,
        row=row,
        summary_model=summary_model,
        summary_row=deps.registry.row(summary_model),
        threshold=resolve_threshold(config.trigger_threshold, window),
    )
    return RunCompactor(
        setup,
        facts,
        summary_client=summary_client,
        sink=sink,
        render=lambda messages: archive_payload(messages, codec),
        channel=channel,
        request_start=request_start,
        scope=scope,
        logger=logger,
        policy=policy,
    )
