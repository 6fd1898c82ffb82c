"""THE tool loop, one for every provider. Adapters never loop.

::

    run_start
    for iteration in 1..max_iterations:
        iteration_start; compaction check (Level 1 first, then Level 2)
        request = ModelRequest(...)             # tools budgeted for strict mode
        response = retry_layer(client.stream)   # deltas -> the event channel
        ledger.record(response)                 # one cost record per API request
        pause_turn -> continue the same turn
        no tool calls -> done
        each call: tool_call_start, before_tool_call (veto), execute, cap, tool_call_result
        append tool results; iteration_complete
    run_end

Provider quirks live in the adapters and in registry flags; nothing here branches on a
provider's name.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

import anyio

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.application.costs.unpriced import UnpricedModelWarning
from doc_processing_toolkit.application.run.loop import binding
from doc_processing_toolkit.application.run.loop.callbacks import (
    RequestAnnouncer,
    RunCompaction,
    TurnHooks,
)
from doc_processing_toolkit.application.run.loop.citations import collect_citations
from doc_processing_toolkit.application.run.loop.deferral import defers, park
from doc_processing_toolkit.application.run.loop.events import EventChannel
from doc_processing_toolkit.application.run.loop.reask import OUTPUT_RETRY_PURPOSE, StructuredAnswer
from doc_processing_toolkit.application.run.loop.responses import (
    is_empty_reply,
    may_retry_empty,
    merge_metadata,
    native_structured,
    with_purpose,
)
from doc_processing_toolkit.application.run.loop.schemas import (
    FINAL_RESULT_TOOL,
    final_result_spec,
    final_result_tool_name,
    output_json_schema,
    read_only_output_schema,
)
from doc_processing_toolkit.application.run.policy.input_estimate import estimate_request_tokens
from doc_processing_toolkit.application.run.policy.retry import RetryPolicy, stream_with_retry
from doc_processing_toolkit.application.run.policy.settings import RunSettings
from doc_processing_toolkit.application.run.policy.tool_surface import frozen_surface
from doc_processing_toolkit.application.run.results.outcome import RunOutcome
from doc_processing_toolkit.application.telemetry.runtime import request_recorded
from doc_processing_toolkit.application.tools.accounting import (
    cap_for_model,
    reported_spend,
    spend_record,
)
from doc_processing_toolkit.application.tools.tool_set import ToolSet
from doc_processing_toolkit.domain.costs.ledger import (
    Ledger,
    RetryAccumulator,
    price_request,
)
from doc_processing_toolkit.domain.errors import StructuredOutputError
from doc_processing_toolkit.domain.messages import Message, ToolCallPart, ToolResultPart, user_text
from doc_processing_toolkit.domain.requests import (
    ModelRequest,
    ModelResponse,
    StreamDelta,
    TextDelta,
    ThinkingDelta,
    Usage,
)
from doc_processing_toolkit.domain.tools.reports import tool_result_data
from doc_processing_toolkit.domain.tools.results import preview
from doc_processing_toolkit.domain.tools.specs import ForcedTool, ToolOutcome, ToolSpec
from doc_processing_toolkit.domain.tools.strict_budget import all_strict, budget_strict_tools
from doc_processing_toolkit.domain.tools.truncated import (
    TRUNCATED_RESULTS_SERVER,
    TruncatedResultStore,
)
from doc_processing_toolkit.ports.model_client import ModelClient

__all__ = [
    "DECLINED_TOOL_TEXT",
    "FINAL_RESULT_TOOL",
    "RunLoop",
    "RunOutcome",
    "RunSettings",
    "StructuredOutputError",
    "final_result_tool_name",
]

log = get_logger(__name__)

DECLINED_TOOL_TEXT = "The tool call was declined by the host application and was not executed."


class RunLoop:
    """Runs one user turn to completion over a ModelClient and a ToolSet."""

    def __init__(
        self,
        client: ModelClient,
        tools: ToolSet,
        settings: RunSettings,
        channel: EventChannel,
        *,
        logger: Any = None,
        truncated_results: TruncatedResultStore | None = None,
        unpriced_warning: UnpricedModelWarning | None = None,
        hooks: TurnHooks | None = None,
        request_start: RequestAnnouncer | None = None,
        compactor: RunCompaction | None = None,
    ) -> None:
        """Args:
        unpriced_warning: The owner's one-shot "no known price" warning (an Agent passes
            its own, so the warning comes once per Agent); None: once per run.
        hooks: The run's HookRunner (injections drained at each turn boundary).
        request_start: Announces every provider send (``emit_request_start=True``).
        compactor: The Level-1 / Level-2 compaction check before each request.
        """
        self._compactor = compactor
        self.hooks = hooks
        self._request_start = request_start
        self._client = client
        self._tools = tools
        self._truncated = truncated_results
        self._settings = settings
        self._retry_policy = settings.retry_policy or RetryPolicy.from_env()
        """Read once per run (the environment's DPT_MAX_RETRIES & co. when not set)."""
        self._channel = channel
        self._log = logger or log
        self._unpriced = unpriced_warning or UnpricedModelWarning(settings.model)
        self.outcome: RunOutcome | None = None
        """The live outcome of the current run (readable while it runs)."""
        self._final_tool: str | None = None
        """The synthetic Path B tool's name on this run (None: no Path B)."""
        self._answer = StructuredAnswer(settings)  # re-asks an invalid structured answer

    # ------------------------------------------------------------------ pricing
    @property
    def _cache_ttl(self) -> str:
        return str((self._settings.prompt_caching or {}).get("ttl", "5m"))

    def _price(self, usage: Usage, served_tier: str | None = None) -> tuple[float, bool]:
        record = price_request(
            usage,
            self._settings.row,
            requested_tier=self._settings.service_tier,
            served_tier=served_tier,
            cache_ttl=self._cache_ttl,
        )
        return record.cost, record.cost_estimated

    # ------------------------------------------------------------------ tools
    async def _request_tools(self) -> tuple[list[ToolSpec], bool]:
        """Specs for the request (strict-budgeted) and whether Path B is in use."""
        s = self._settings
        specs = frozen_surface(await self._tools.specs() if self._tools else [], s)
        structured_tool = s.output_schema is not None and not native_structured(s.row)
        if structured_tool:
            assert s.output_schema is not None
            self._final_tool = final_result_tool_name(spec.name for spec in specs)
            if self.outcome is not None:
                self.outcome.final_result_tool = self._final_tool
            specs.append(final_result_spec(s.output_schema, self._final_tool))
        if not specs:
            return [], structured_tool
        response_schema = (
            read_only_output_schema(s.output_schema)
            if s.output_schema is not None and not structured_tool
            else None
        )
        wants_strict = s.strict_tools and bool(s.row is None or s.row.supports_strict_tools)
        if wants_strict and s.row is not None and not s.row.strict_tool_budget:
            # No per-request strict limits on this model: every tool goes out strict.
            return list(all_strict(specs)), structured_tool
        budget = budget_strict_tools(
            specs,
            response_schema,
            enabled=wants_strict,
            per_tool_only=s.strict_per_tool_only,
        )
        if budget.non_strict:
            self._log.warning(
                "tools sent without strict mode: they do not fit the per-request strict budget",
                tools=sorted(budget.non_strict),
            )
        return list(budget.tools), structured_tool

    # ------------------------------------------------------------------ one request
    async def _send(
        self,
        request: ModelRequest,
        outcome: RunOutcome,
        iteration: int,
    ) -> ModelResponse:
        s = self._settings
        structured = request.output_schema is not None

        async def on_delta(delta: StreamDelta) -> None:
            if isinstance(delta, TextDelta):
                meta = (
                    {"structured_output": True} if structured or delta.structured_output else None
                )
                await self._channel.emit("text_delta", delta.text, meta)
            elif isinstance(delta, ThinkingDelta):
                await self._channel.emit("thinking_delta", delta.text, None)

        async def before_send(attempt: int) -> None:
            outcome.request_count += 1
            outcome.begin_request(request, iteration)
            if self._request_start is not None:
                await self._request_start.emit(
                    iteration=iteration, attempt=attempt, purpose=request.purpose
                )
                return
            if not self._channel.emit_request_start:  # nobody takes it: no metadata built
                return
            await self._channel.emit(
                "request_start",
                None,
                {
                    "request_index": outcome.request_count,
                    "iteration": iteration,
                    "attempt": attempt,
                    "purpose": request.purpose,
                    "model": s.model,
                    "provider": s.provider,
                },
            )

        started = time.monotonic()

        if s.estimate_input_tokens == "lazy":  # local: computed only if the request fails
            outcome.estimate_source = request
        else:
            outcome.estimate_source = None
            outcome.estimated_input_tokens = await estimate_request_tokens(
                s.estimate_input_tokens, self._client, request
            )
        try:
            response = await stream_with_retry(
                self._client,
                binding.prepare_request(request, s, outcome, self._log),
                on_delta=on_delta if self._channel.takes_deltas else None,
                accumulator=outcome.accumulator,
                price=self._price,
                policy=self._retry_policy,
                before_send=before_send,
                rebind=binding.rebinder(s, outcome, self._log),
            )
        except Exception:
            # A failure's partial usage travels on the error (or a retried attempt's cost).
            outcome.in_flight.usage = None
            raise
        outcome.in_flight.usage = None
        record = price_request(
            response.usage,
            binding.serving_row(s, response.model),
            requested_tier=s.service_tier,
            served_tier=response.served_tier,
            cache_ttl=self._cache_ttl,
            served_model=response.model,
            purpose=request.purpose,
            iteration=iteration,
            request_index=len(outcome.ledger.records) + 1,
            extra=(
                {"served_tier_source": response.served_tier_source}
                if response.served_tier_source is not None
                else None
            ),
        )
        record = binding.attribute_fallback(record, response, s, self._cache_ttl)
        if not record.price_known:
            self._unpriced(self._log)
        request_recorded(outcome.ledger.record(record))  # ends the request's telemetry span
        outcome.request_facts.append(
            {
                "retries_before": len(outcome.accumulator.attempts),
                "duration_ms": int((time.monotonic() - started) * 1000),
                "thinking": bool(request.thinking)
                and (request.thinking or {}).get("type") != "disabled",
                "stop_reason": response.stop_reason,
            }
        )
        outcome.last_response = response
        await collect_citations(response, request, outcome, s, self._channel)
        for name in response.built_in_tools_invoked:
            if name not in outcome.built_in_tools_invoked:
                outcome.built_in_tools_invoked.append(name)
        facts = binding.response_facts(response, outcome.request_count)
        merge_metadata(outcome.response_metadata, facts)
        return response

    # ------------------------------------------------------------------ the loop
    async def run(self, messages: Sequence[Message], new_messages_start: int) -> RunOutcome:
        """Run until the model stops calling tools (or max_iterations)."""
        outcome = RunOutcome(
            messages=list(messages),
            new_messages_start=new_messages_start,
            ledger=Ledger(),
            accumulator=RetryAccumulator(),
        )
        self.outcome = outcome
        self._final_tool = None
        try:
            await self._loop(outcome)
        except Exception as exc:  # the Agent decides what a failure means
            outcome.error = exc
        return outcome

    async def _loop(self, outcome: RunOutcome) -> None:
        s = self._settings
        await self._channel.emit("run_start", None, {"model": s.model, "provider": s.provider})
        specs, structured_tool = await self._request_tools()
        tool_choice = s.tool_choice
        if structured_tool and not await self._tools.specs() and tool_choice == "auto":
            tool_choice = ForcedTool(self._final_tool or FINAL_RESULT_TOOL)
        native_schema = (
            output_json_schema(s.output_schema)
            if s.output_schema is not None and not structured_tool
            else None
        )
        events_marker = (0, 0)
        purpose = s.purpose
        iteration = outcome.iterations  # 0, or where a resumed turn stopped
        while iteration < s.max_iterations:
            iteration += 1
            outcome.iterations = iteration
            await self._channel.emit("iteration_start", None, {"iteration": iteration})
            if self._compactor is not None:  # between complete tool rounds
                await self._compactor.before_request(outcome, iteration, s.system)
            if self.hooks is not None:
                # The turn boundary: after the previous round's tool results, before the
                # next request (a message never sits between a call and its result).
                if injected := self.hooks.drain_injections():
                    outcome.messages.extend([user_text(text) for text in injected])
            request = ModelRequest(
                model=s.model,
                messages=tuple(outcome.messages),
                system=s.system,
                tools=tuple(specs),
                tool_choice=tool_choice,
                max_tokens=s.max_tokens,
                temperature=s.temperature,
                thinking=s.thinking,
                output_schema=native_schema,
                service_tier=s.service_tier,
                prompt_caching=s.prompt_caching,
                provider_options=dict(s.provider_options),
                built_in_tools=s.built_in_tools,
                remote_mcp_servers=s.remote_mcp_servers,
                purpose=purpose,
                code_execution_file_ids=s.code_execution_file_ids,
                media_resolutions=s.media_resolutions,
                on_usage=outcome.in_flight,
                cited_documents=s.cited_documents,
                **binding.request_fields(s, outcome),
            )
            response = await self._send(request, outcome, iteration)
            outcome.messages.append(response.message)
            pauses = 0
            while response.stop_reason == "pause_turn" and pauses < s.max_pause_turn_iterations:
                pauses += 1
                outcome.pause_turn_iterations += 1
                request = request.with_messages(tuple(outcome.messages))
                request = with_purpose(request, "pause_turn_continuation")
                response = await self._send(request, outcome, iteration)
                outcome.messages.append(response.message)

            calls = list(response.message.tool_calls)
            if not calls and is_empty_reply(response) and may_retry_empty(s, outcome, self._log):
                # The registry row says this model sometimes ends a turn with nothing in it;
                # the spec allows exactly one re-request per run.
                outcome.messages.pop()
                request = with_purpose(
                    request.with_messages(tuple(outcome.messages)), "empty_turn_retry"
                )
                response = await self._send(request, outcome, iteration)
                outcome.messages.append(response.message)
                calls = list(response.message.tool_calls)
            if response.stop_reason == "max_tokens" and not calls:
                self._log.warning(
                    "the model stopped at max_tokens; the answer may be cut short",
                    model=s.model,
                    max_tokens=s.max_tokens,
                )
            final_call = (
                next((c for c in calls if c.name == self._final_tool), None)
                if structured_tool
                else None
            )
            if final_call is not None or not calls:
                # Path B may answer in text instead of calling final_result: the text must
                # still be the structured result (or re-asked; never unvalidated).
                structured = native_schema is not None or structured_tool
                settled = self._answer.settle(outcome, response, final_call, structured, iteration)
                events_marker = await self._iteration_complete(
                    outcome, iteration, events_marker, [], response
                )
                if settled:
                    return
                purpose = OUTPUT_RETRY_PURPOSE
                continue

            results = await self._run_tools(calls, iteration, outcome)
            outcome.messages.append(Message("tool", tuple(results)))
            events_marker = await self._iteration_complete(
                outcome, iteration, events_marker, [c.name for c in calls], response
            )
            if outcome.pending_approvals:  # a hook deferred a call: the turn waits for a person
                return park(outcome)
            purpose = "tool_followup"
            if isinstance(tool_choice, ForcedTool) or tool_choice == "required":
                # A forcing tool_choice would force a call on every request: the run ends
                # after one tool round (the documented forced-tool_choice exit).
                outcome.output = response.message.text
                return
        self._log.warning(
            "max_iterations reached before the model finished", max_iterations=s.max_iterations
        )
        last = outcome.last_response
        if last is not None and outcome.output is None:
            outcome.output = last.message.text

    async def _iteration_complete(
        self,
        outcome: RunOutcome,
        iteration: int,
        marker: tuple[int, int],
        tools_called: list[str],
        response: ModelResponse,
    ) -> tuple[int, int]:
        """Emit iteration_complete with everything billed since the previous event: the
        requests and the failed-and-retried attempts, so the events sum to the run."""
        retried = outcome.accumulator.attempts[marker[1] :]
        tokens_in = tokens_out = 0
        cost: float = 0  # the records' sum, then the retried attempts' (as two sum() calls)
        for record in outcome.ledger.records[marker[0] :]:
            tokens_in += record.input_tokens
            tokens_out += record.output_tokens
            cost += record.cost
        if retried:
            retried_cost: float = 0
            for attempt in retried:
                tokens_in += attempt.input_tokens
                tokens_out += attempt.output_tokens
                retried_cost += attempt.cost
            cost += retried_cost
        meta = {
            "iteration": iteration,
            "input_tokens": tokens_in,
            "output_tokens": tokens_out,
            "cost": cost,
            "tools_called": tools_called,
            "stop_reason": response.stop_reason,
            "retry_attempts": len(retried),
        }
        outcome.iteration_records.append(dict(meta))
        if self.hooks is not None:
            self.hooks.track_usage(tokens_in, tokens_out, cost)
        next_marker = (len(outcome.ledger.records), len(outcome.accumulator.attempts))
        await self._channel.emit("iteration_complete", None, meta)
        return next_marker

    async def _run_tools(
        self, calls: list[ToolCallPart], iteration: int, outcome: RunOutcome
    ) -> list[ToolResultPart]:
        """Run one round's calls concurrently; results come back in call order, and so do
        the names of the tools that executed (``outcome.tools_used``)."""
        results: list[ToolResultPart | None] = [None] * len(calls)
        executed = [False] * len(calls)

        async def run_one(index: int, call: ToolCallPart) -> None:
            results[index] = await self._run_tool(
                call, iteration, outcome, lambda: executed.__setitem__(index, True)
            )

        try:
            if len(calls) == 1:  # nothing to run beside it: no task group to build
                try:
                    await run_one(0, calls[0])
                except Exception as exc:  # raised as the task group raises it
                    raise BaseExceptionGroup("unhandled errors in a TaskGroup", [exc]) from None
            else:
                async with anyio.create_task_group() as group:
                    for index, call in enumerate(calls):
                        group.start_soon(run_one, index, call)
        finally:
            for call, ran in zip(calls, executed, strict=True):
                if ran:
                    outcome.tools_used.append(call.name)
        return [r for r in results if r is not None]

    async def _run_tool(
        self,
        call: ToolCallPart,
        iteration: int,
        outcome: RunOutcome,
        mark_executed: Callable[[], None],
    ) -> ToolResultPart | None:
        s = self._settings
        base = {"tool_name": call.name, "tool_call_id": call.id, "iteration": iteration}
        await self._channel.emit("tool_call_start", None, {**base, "arguments": call.arguments})
        directive = await self._channel.emit(
            "before_tool_call", None, {**base, "arguments": call.arguments}
        )
        if defers(directive, call, outcome):  # left to a person: no result this round
            return None
        started = time.monotonic()
        if directive is not None and directive.action == "skip_tool":
            tool_outcome = ToolOutcome.error(directive.message or DECLINED_TOOL_TEXT)
        elif call.invalid_arguments is not None:  # not valid JSON: the tool does not run
            tool_outcome = ToolOutcome.invalid_arguments(call.name, call.invalid_arguments)
        elif call.name == self._final_tool:
            tool_outcome = ToolOutcome.error(
                f"{call.name} must be called alone, after the other tools have answered."
            )
        else:
            if self._tools.offers(call.name):
                mark_executed()
            tool_outcome = await self._tools.call(call.name, call.arguments, call_id=call.id)
        duration_ms = int((time.monotonic() - started) * 1000)
        capped = cap_for_model(
            tool_outcome,
            s.tool_result_cap,
            call_id=call.id,
            store=self._truncated,
            read_chars=s.truncated_result_read_chars,
            exempt=self._tools.server_of(call.name) == TRUNCATED_RESULTS_SERVER,
        )
        if capped.truncated:
            self._log.warning(
                "tool result truncated to max_tool_result_chars",
                tool_name=call.name,
                tool_call_id=call.id,
                shown_chars=capped.shown_chars,
                total_chars=capped.total_chars,
            )
        full_text = tool_outcome.text
        shown, truncated = preview(full_text, s.preview_chars)
        meta: dict[str, Any] = {
            **base,
            "result": shown,
            "result_truncated": truncated,
            "success": not tool_outcome.is_error,
            "duration_ms": duration_ms,
        }
        if s.preview_chars == 0:
            meta["result_data"] = tool_result_data(tool_outcome)
        spend = reported_spend(tool_outcome, self._log) if s.tool_reported_cost else None
        if spend is not None:
            outcome.tool_reported_costs.append(
                spend_record(spend, tool_name=call.name, tool_call_id=call.id, iteration=iteration)
            )
            meta["tool_reported_cost"] = spend.usd
            meta["tool_reported_cost_estimated"] = spend.estimated
        await self._channel.emit("tool_call_result", None, meta)
        outcome.tool_call_facts.append(
            {
                **base,
                "success": not tool_outcome.is_error,
                "duration_ms": duration_ms,
                "error": full_text[:500] if tool_outcome.is_error else None,
                "input_size": len(json.dumps(call.arguments, default=str)),
                "output_size": len(full_text),
                "tool_reported_cost": spend.usd if spend is not None else 0.0,
                "tool_reported_cost_estimated": bool(spend.estimated) if spend else False,
            }
        )
        return ToolResultPart(call.id, call.name, tuple(capped.content), tool_outcome.is_error)
