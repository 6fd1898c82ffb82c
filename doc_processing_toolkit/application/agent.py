"""The Agent facade: constructor, run, run_sync, stream, close.

The constructor validates its arguments into one `AgentSettings` and resolves them
once against the adapters it is handed (`AgentDeps`: registry row, provider, profile,
tools, cap); each run goes to the one `RunLoop` with run settings derived from those
settings, and its outcome becomes an `AgentResult`. ``run()`` raises on failure;
``stream()`` never raises: a failed run yields ``error`` and then ``complete``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import logging
import secrets
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any, Self

from pydantic import BaseModel

from doc_processing_toolkit.application.agent_config import AgentConfigMethods
from doc_processing_toolkit.application.compaction.run_hook import run_compactor
from doc_processing_toolkit.application.config import log_setup, method_docs, reference
from doc_processing_toolkit.application.config.settings import (
    DEFAULT_MEDIA_MAX_INLINE_BYTES,
    DEFAULT_STREAM_IDLE_TIMEOUT,
    AgentSettings,
)
from doc_processing_toolkit.application.config.views import AgentSettingViews
from doc_processing_toolkit.application.construction import (
    resolve_settings,
    settings_from_arguments,
)
from doc_processing_toolkit.application.costs.unpriced import UnpricedModelWarning
from doc_processing_toolkit.application.deps import AgentDeps, no_default_deps, with_user_registry
from doc_processing_toolkit.application.documents.citations import with_documents
from doc_processing_toolkit.application.documents.methods import DocumentMethods
from doc_processing_toolkit.application.documents.planner import DocumentPlanner
from doc_processing_toolkit.application.grounding import ground_run, grounded_settings
from doc_processing_toolkit.application.hooks.control import (
    RunControl,
    RunHandles,
    report_abandoned,
)
from doc_processing_toolkit.application.hooks.handle import RunHandle
from doc_processing_toolkit.application.media.prompt import build_prompt
from doc_processing_toolkit.application.media.run_media import RunMedia
from doc_processing_toolkit.application.resources import (
    AgentResources,
    failed_run_error,
    register_agent_secrets,
    unstarted_run_error,
)
from doc_processing_toolkit.application.result import AgentResult
from doc_processing_toolkit.application.run.loop.events import EventChannel, EventSink
from doc_processing_toolkit.application.run.loop.loop import RunLoop, RunOutcome
from doc_processing_toolkit.application.run.loop.resumed import loop_type, resumed_messages
from doc_processing_toolkit.application.run.policy.settings import AgentRunSettings
from doc_processing_toolkit.application.run.results.cost_report import ReportContext
from doc_processing_toolkit.application.run.results.outcome import new_run_id
from doc_processing_toolkit.application.run.results.result_builder import build_result
from doc_processing_toolkit.application.run.run_input import RunInput, TurnHistory
from doc_processing_toolkit.application.run.stream.offloop import client_for_run
from doc_processing_toolkit.application.run.stream.streaming import (
    STREAM_CANCEL_WAIT_SECONDS,
    check_no_client_session,
    check_run_inputs,
    log_run_end,
    run_blocking,
    stream_run,
)
from doc_processing_toolkit.application.session.resuming import resume_session
from doc_processing_toolkit.application.session.session import AgentSession
from doc_processing_toolkit.application.telemetry.runtime import run_span
from doc_processing_toolkit.application.tools.loader import ToolLoader
from doc_processing_toolkit.application.tools.planning import build_tool_planner
from doc_processing_toolkit.domain.errors import DocProcessingToolkitError
from doc_processing_toolkit.domain.events import AgentStreamEvent
from doc_processing_toolkit.domain.grounding.evidence import DEFAULT_EVIDENCE_THRESHOLD
from doc_processing_toolkit.domain.tools.results import DEFAULT_TOOL_RESULT_PREVIEW_CHARS
from doc_processing_toolkit.ports.model_client import ModelClient
from doc_processing_toolkit.ports.session_store import SessionStore

__all__ = ["STREAM_CANCEL_WAIT_SECONDS", "Agent"]


class Agent(AgentSettingViews, AgentConfigMethods, DocumentMethods):
    """High-level Agent class for AI interactions.

    A wrapper that keeps a conversation (as `AgentSession` does) runs each turn through
    the public seam `run_turn` / `stream_turn`: a `RunInput` (what ``run()`` takes) and a
    `TurnHistory` (the conversation so far), plus `model_client`, `release_loop_resources`
    and `declared_tool_surface`. It needs no private member of the Agent.

    Attributes:
        model: The model name.
        instructions: System prompt/instructions.
    """

    _default_deps = staticmethod(no_default_deps)  # agent.core's Agent: the container's

    def __init__(
        self,
        model: str,
        instructions: str = "",
        *,
        tools: list[Any] | None = None,
        api_key: str | None = None,
        max_iterations: int = 10,
        max_tokens: int | None = None,
        temperature: float | None = None,
        thinking: dict[str, Any] | None = None,
        built_in_tools: dict[str, Any] | None = None,
        strict_tools: bool = True,
        auto_inject_memory_instructions: bool = True,
        auto_inject_skills: bool = True,
        compaction: bool = False,
        compaction_config: dict[str, Any] | None = None,
        session_history_config: dict[str, Any] | None = None,
        logger: logging.Logger | None = None,
        log_level: str = "DEBUG",
        log_file: str | None = None,
        log_to_file: bool = True,
        tool_choice: Any = "auto",
        code_execution_output_dir: str | None = None,
        service_tier: str | None = None,
        hooks: Any | None = None,
        emit_request_start: bool = False,
        max_tool_result_chars: int | None = None,
        tool_result_preview_chars: int = DEFAULT_TOOL_RESULT_PREVIEW_CHARS,
        truncated_result_read_chars: int | None = None,
        prompt_caching: Any | None = None,
        anthropic_block_binding: str | None = None,
        strict_prefix_binding: bool = False,
        prefix_audit: bool = False,
        prefix_strip_fallback: bool = False,
        remove_citations: bool = False,
        output_retries: int = 0,
        evidence_threshold: float = DEFAULT_EVIDENCE_THRESHOLD,
        citations: bool = False,
        on_unsupported_part: str = "drop",
        media_policy: str = "auto",
        media_store: Any = None,
        media_max_inline_bytes: int | None = DEFAULT_MEDIA_MAX_INLINE_BYTES,
        estimate_input_tokens: Any = "lazy",
        defer_tools: Any | None = None,
        detailed_costs: bool = False,
        cost_output_dir: str | None = None,
        client: ModelClient | None = None,
        base_url: str | None = None,
        connect_timeout: float | None = None,
        request_timeout: float | None = None,
        stream_idle_timeout: float | None = DEFAULT_STREAM_IDLE_TIMEOUT,
        tool_timeout: float | None = None,
        telemetry: bool = False,
        deployment: str | None = None,
        deployment_options: dict[str, Any] | None = None,
        registry: Any = None,
        deps: AgentDeps | None = None,
        **provider_kwargs: Any,
    ) -> None:
        """Initialize an Agent (every parameter: ``help(Agent)``, from config/reference.py)."""
        # The parameters are the settings' fields, one to one; validated once, here.
        # fmt: off
        s, compaction_setup = settings_from_arguments(dict(
            model=model, instructions=instructions, tools=tools or (), api_key=api_key,
            max_iterations=max_iterations, max_tokens=max_tokens, temperature=temperature,
            thinking=thinking, built_in_tools=built_in_tools, strict_tools=strict_tools,
            auto_inject_memory_instructions=auto_inject_memory_instructions,
            auto_inject_skills=auto_inject_skills, compaction=compaction,
            compaction_config=compaction_config, session_history_config=session_history_config,
            logger=logger, log_level=log_level, log_file=log_file, log_to_file=log_to_file,
            tool_choice=tool_choice, code_execution_output_dir=code_execution_output_dir,
            service_tier=service_tier, hooks=hooks, emit_request_start=emit_request_start,
            max_tool_result_chars=max_tool_result_chars,
            tool_result_preview_chars=tool_result_preview_chars,
            truncated_result_read_chars=truncated_result_read_chars, prompt_caching=prompt_caching,
            anthropic_block_binding=anthropic_block_binding,
            strict_prefix_binding=strict_prefix_binding, prefix_audit=prefix_audit,
            prefix_strip_fallback=prefix_strip_fallback, remove_citations=remove_citations,
            citations=citations,
            on_unsupported_part=on_unsupported_part, media_policy=media_policy,
            output_retries=output_retries, evidence_threshold=evidence_threshold,
            media_store=media_store, media_max_inline_bytes=media_max_inline_bytes,
            estimate_input_tokens=estimate_input_tokens, defer_tools=defer_tools,
            detailed_costs=detailed_costs, cost_output_dir=cost_output_dir, client=client,
            base_url=base_url, connect_timeout=connect_timeout, request_timeout=request_timeout,
            stream_idle_timeout=stream_idle_timeout, tool_timeout=tool_timeout, registry=registry,
            telemetry=telemetry, provider_kwargs=provider_kwargs,
            deployment=deployment, deployment_options=deployment_options,
        ))
        # fmt: on
        self._settings: AgentSettings = s
        self._deps = deps = with_user_registry(deps or self._default_deps(), s.registry)
        self.last_abandoned_stream: dict[str, Any] | None = None
        self._run_handles = RunHandles()
        self._agent_id = secrets.token_hex(4)  # 8 random hex digits, without a UUID object
        self.logger, self.log_file = log_setup.logger_for_agent(
            s.logging.logger,
            model=s.model,
            agent_id=self._agent_id,
            log_level=s.logging.log_level,
            log_file=s.logging.log_file,
            log_to_file=s.logging.log_to_file,
        )
        self._resolution = resolve_settings(s, deps, self.logger, compaction_setup)
        self._unpriced = UnpricedModelWarning(s.model)
        self._run_settings = AgentRunSettings(s, self._resolution)
        self._documents = DocumentPlanner(
            model=s.model, provider=self.provider, row=self._resolution.row, logger=self.logger,
            pdf_pages=deps.pdf_pages, converter=deps.document_converter, ocr=deps.ocr,
        )  # fmt: skip
        register_agent_secrets(s, self._resolution.profile.api_key_env)
        self._client: ModelClient | None = None
        self._owns_client = False
        self._tool_loader = ToolLoader.from_wiring(deps.tools)
        self._tool_loader.load(list(s.tools.entries))
        self._tool_loader.limit_local_calls(s.timeouts.tool_timeout)
        self._resources = AgentResources.track(self, self._tool_loader.has_connection)
        self._tool_planner = build_tool_planner(
            s,
            tool_result_cap=self._resolution.tool_result_cap,
            native_tool_search=self._resolution.native_tool_search,
            store_session_factory=deps.tools.truncated_session_factory,
            logger=self.logger,
        )
        log_setup.log_agent_created(self.logger, s, self.provider)

    # ------------------------------------------------------------------ resolved facts
    @property
    def settings(self) -> AgentSettings:
        """Every setting of this Agent, validated (the one source the attributes read)."""
        return self._settings

    @property
    def provider(self) -> str:
        """The provider serving the model."""
        return self._resolution.provider

    @property
    def service_tier(self) -> str | None:
        """The service tier requested on the wire (as the provider's profile decided)."""
        return self._resolution.service_tier

    @property
    def tools(self) -> list[Any]:
        """The tools entries as given (a copy)."""
        return list(self.settings.tools.entries)

    @property
    def run_handle(self) -> RunHandle | None:
        """The running run's RunHandle (any thread); None between runs."""
        return self._run_handles.current

    @property
    def deps(self) -> AgentDeps:
        """The adapters this Agent was handed."""
        return self._deps

    @property
    def document_planner(self) -> DocumentPlanner:
        """Reads, cuts and checks this Agent's documents before a run sends them."""
        return self._documents

    def model_client(self) -> ModelClient:
        """The `ModelClient` this Agent sends through (built on first use, then kept)."""
        s = self._settings
        if s.client is not None:
            return s.client
        if self._client is None:
            given = {"api_key": s.api_key, "base_url": s.base_url}
            kwargs: dict[str, Any] = {k: v for k, v in given.items() if v is not None}
            kwargs.update(s.timeouts.client_timeouts, **self._resolution.client_kwargs)
            self._client = self._deps.model_clients(
                self.provider, row_lookup=self._deps.registry.row, **kwargs
            )
            self._owns_client = True
        return self._client

    _get_client = model_client

    # ------------------------------------------------------------------ running
    async def _execute(
        self,
        run_input: RunInput,
        history: TurnHistory | None,
        *,
        sink: EventSink | None,
        on_loop: Callable[[RunLoop], None] | None = None,
    ) -> tuple[AgentResult, BaseException | None]:
        message, output_schema = run_input.message, run_input.output_schema
        check_run_inputs(message, output_schema)
        run_id = new_run_id()
        prior = list(history.messages) if history is not None else []
        compaction = history.compaction if history is not None else None
        s, res = self._settings, self._resolution
        prepared = self._documents.prepare_files(run_input.files)  # Documents cut, PDFs checked
        conversions = self._documents.converter_for_run(s.media.on_unsupported_part, prepared)
        prompt = build_prompt(
            message,
            prepared.files,
            provider=res.provider,
            model=s.model,
            row=res.row,
            profile=res.profile,
            on_unsupported_part=s.media.on_unsupported_part,
            logger=self.logger,
            convert=conversions,
        )
        client = self._get_client()
        media = RunMedia.check(
            client,
            provider=res.provider,
            logger=self.logger,
            tool_files=run_input.tool_files,
            container_id=run_input.anthropic_container_id,
            media_resolutions=run_input.media_resolution_list,
            row=res.row,
        )
        control = RunControl.start(s, provider=res.provider, sink=sink)
        channel = EventChannel(sink, control.runner, emit_request_start=s.hooks.emit_request_start)
        if self._resources.released:  # used again after close(): a fresh logger
            self._resources = AgentResources.reopen(self, self._tool_loader.has_connection)
        with (
            log_setup.active_agent_logger(self.logger),
            self._run_handles.active(control.handle),
            contextlib.closing(control),
            run_span(res.telemetry, s, res.provider) as span,
        ):
            if log_setup.handled(self.logger, logging.INFO):  # no record nobody takes
                self.logger.info("run %s started: model=%s", run_id, s.model)
            store = self._tool_planner.store_for_run(
                history.truncated_results if history is not None else None
            )
            await self._tool_loader.connect_mcp_servers()
            plan = await self._tool_planner.plan(self._tool_loader, s.instructions, store)
            messages = resumed_messages(history) or [*prior, await media.user_turn(prompt.message)]
            run_settings = self._run_settings.for_run(
                system=plan.system, output_schema=output_schema
            )
            run_settings = grounded_settings(run_settings, run_input)  # evidence, re-asks
            run_settings = with_documents(run_settings, prepared, run_input.files, self.logger)
            if run_input.purpose != run_settings.purpose:  # run_document's chunks and reduce
                run_settings = dataclasses.replace(run_settings, purpose=run_input.purpose)
            if overrides := media.overrides(run_settings.built_in_tools):
                run_settings = dataclasses.replace(run_settings, **overrides)
            loop = loop_type(history)(
                await client_for_run(client, plan.tools, streamed=sink is not None),
                plan.tools,
                run_settings,
                channel,
                truncated_results=store if plan.read_back else None,
                unpriced_warning=self._unpriced,
                hooks=control.runner,
                request_start=control.request_start,
                compactor=run_compactor(self, res, client, channel, control, compaction),
            )
            if on_loop is not None:
                on_loop(loop)
            outcome = await loop.run(messages, len(prior))
            outcome.deferred_tools = list(plan.deferred_tools)
            await channel.emit("run_end", None, {"run_id": run_id})
            result = self._result(outcome, run_id)
            threshold = s.structured_output.evidence_threshold
            run = (run_settings, run_input, outcome)
            ground_run(result, run, prepared, self._documents, threshold)
            control.finish(result, outcome.error)
            result.dropped_parts = [*prompt.dropped_parts, *result.dropped_parts]
            result.converted_parts = conversions.records if conversions is not None else []
            await media.finish(result, outcome.response_metadata, s.tools.code_execution_output_dir)
            log_run_end(self.logger, run_id, result, outcome.error, span)
        return result, outcome.error

    def _result(self, outcome: RunOutcome, run_id: str) -> AgentResult:
        s, row = self._settings, self._resolution.row
        context = None
        if s.costs.detailed_costs:
            context = ReportContext.of(s, self.provider, row, self._tool_loader.tools)
        return build_result(
            outcome,
            run_id=run_id,
            codec=self._deps.history_codecs(self._resolution.provider),
            row=row,
            detailed_costs=s.costs.detailed_costs,
            cost_output_dir=s.costs.cost_output_dir,
            built_in_tools_used=list(self._resolution.built_in_tool_names),
            report_context=context,
        )

    async def run(
        self,
        message: str,
        *,
        files: list[Any] | None = None,
        tool_files: list[Any] | None = None,
        output_schema: type[BaseModel] | None = None,
        media_resolution_list: list[str | None] | None = None,
        anthropic_container_id: str | None = None,
        evidence: bool = False,
        output_retries: int | None = None,
    ) -> AgentResult:
        """Run the agent with a message."""  # Args / Returns / Raises: config/reference.py
        args = (files, tool_files, output_schema, media_resolution_list, anthropic_container_id)
        return await self._run(RunInput(message, *args, evidence, output_retries))

    async def _run(self, run_input: RunInput) -> AgentResult:
        try:
            result, error = await self.run_turn(run_input)
        except DocProcessingToolkitError as exc:  # raised before the loop had a result
            unstarted_run_error(exc)
            raise
        if error is not None:
            raise failed_run_error(error, result)
        return result

    async def run_turn(
        self, run_input: RunInput, history: TurnHistory | None = None
    ) -> tuple[AgentResult, BaseException | None]:
        """One run after ``history``: the seam for session-like wrappers.

        `run()` is this with no history, raising the failure; `AgentSession` runs each
        turn through it. A failed run returns its partial result beside the error, so the
        wrapper can bank what the run spent before it decides what to raise.

        Args:
            run_input (RunInput): The message and per-run keywords, as `run()` takes them.
            history (TurnHistory | None): The conversation so far, the wrapper's side of
                compaction and its store of cut tool results; None runs from nothing.
                Default: None.

        Returns:
            tuple[AgentResult, BaseException | None]: The result, and the error when the
                run failed (its result then carries the partial usage).

        Raises:
            TypeError: A per-run keyword is malformed (nothing was sent).
        """
        run_input.check()
        return await self._execute(run_input, history, sink=None)

    def run_sync(
        self,
        message: str,
        *,
        files: list[Any] | None = None,
        tool_files: list[Any] | None = None,
        output_schema: type[BaseModel] | None = None,
        media_resolution_list: list[str | None] | None = None,
        anthropic_container_id: str | None = None,
        evidence: bool = False,
        output_retries: int | None = None,
    ) -> AgentResult:
        """Synchronous wrapper for run(); works inside a running loop (Jupyter) too."""
        args = (files, tool_files, output_schema, media_resolution_list, anthropic_container_id)
        run_input = RunInput(message, *args, evidence, output_retries)
        check_no_client_session(self._tool_loader.server_configs)

        async def run_and_release() -> AgentResult:
            # This loop ends with the call: its MCP sessions and SDK pools go with it.
            try:
                return await self._run(run_input)
            finally:
                await self.release_loop_resources()

        return run_blocking(run_and_release)

    async def release_loop_resources(self) -> None:
        """Release what the running event loop holds for this Agent: its MCP sessions and the
        SDK connection pools bound to the loop (`run_sync` does this before its loop ends, a
        wrapper running its own ``asyncio.run`` loop too). The next run reconnects."""
        await self._tool_loader.disconnect_mcp_servers()
        await self._deps.release_loop_resources()

    async def stream(
        self,
        message: str,
        *,
        files: list[Any] | None = None,
        tool_files: list[Any] | None = None,
        output_schema: type[BaseModel] | None = None,
        media_resolution_list: list[str | None] | None = None,
        anthropic_container_id: str | None = None,
        evidence: bool = False,
        output_retries: int | None = None,
    ) -> AsyncIterator[AgentStreamEvent]:
        """Stream the agent's response as typed events; never raises.

        A failed run yields ``error`` then ``complete`` (exactly once). Closing the
        generator early cancels the run and records its spend on `last_abandoned_stream`.
        """
        args = (files, tool_files, output_schema, media_resolution_list, anthropic_container_id)
        events = self.stream_turn(RunInput(message, *args, evidence, output_retries))
        async with contextlib.aclosing(events):
            async for event in events:
                yield event

    async def stream_turn(
        self,
        run_input: RunInput,
        history: TurnHistory | None = None,
        *,
        on_result: Callable[[AgentResult, BaseException | None], None] | None = None,
    ) -> AsyncGenerator[AgentStreamEvent, None]:
        """`stream()` after ``history``: the streaming seam for session-like wrappers.

        Args:
            run_input (RunInput): The message and per-run keywords, as `stream()` takes them.
            history (TurnHistory | None): As in `run_turn`. Default: None.
            on_result (Callable | None): Receives the run's result and error (None on
                success) before ``complete`` is yielded. Default: None.

        Yields:
            AgentStreamEvent: The events of `stream()`; a failure is an ``error`` event.
        """
        self.last_abandoned_stream = None

        async def abandoned(loop: RunLoop | None) -> None:
            self.last_abandoned_stream = await report_abandoned(loop, self._result)

        async def execute(
            sink: EventSink, on_loop: Callable[[RunLoop], None]
        ) -> tuple[AgentResult, BaseException | None]:
            result, error = await self._execute(run_input, history, sink=sink, on_loop=on_loop)
            if on_result is not None:
                on_result(result, error)
            return result, error

        structured = run_input.output_schema is not None
        events = stream_run(
            execute, structured=structured, on_abandoned=abandoned, check=run_input.check
        )
        # Closing this generator closes the run's at once (it cancels the run).
        async with contextlib.aclosing(events):
            async for event in events:
                yield event

    async def resume(self, session_or_envelope: Any, approvals: Any) -> AgentResult:
        """Continue a turn that ended ``awaiting_approval`` (see `AgentSession.resume`)."""
        return await resume_session(self, session_or_envelope, approvals)

    # ------------------------------------------------------------------ lifecycle
    async def close(self) -> None:
        """Release what this Agent owns: its MCP sessions (their tools go; the configs stay,
        so the next run reconnects) and a client built for an explicit api_key."""
        await self._tool_loader.disconnect_mcp_servers()
        client, self._client = self._client, None
        if client is not None and self._owns_client:
            await client.aclose()
        self._owns_client = False
        self._resources.release()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> None:
        await self.close()

    def session(
        self,
        session_id: str | None = None,
        session_history_config: dict[str, Any] | None = None,
        reuse_anthropic_container: bool = False,
        late_injection_policy: str = "surface",
        max_follow_up_turns: int = 1,
        *,
        store: SessionStore | None = None,
    ) -> AgentSession:
        """Create a session for multi-turn conversations (see AgentSession).

        With ``store`` every completed turn is appended to it; a ``session_id`` the store
        already holds resumes that session.
        """
        return AgentSession(
            self,
            session_id=session_id,
            session_history_config=session_history_config,
            reuse_anthropic_container=reuse_anthropic_container,
            late_injection_policy=late_injection_policy,
            max_follow_up_turns=max_follow_up_turns,
            store=store,
        )

    def declared_tool_surface(self) -> list[dict[str, Any]]:
        """The tool surface as declared, nothing connected (a session's prefix fingerprint)."""
        return self._tool_loader.declared_surface(self.settings.tools.built_in_tools)

    def __repr__(self) -> str:
        return (
            f"Agent(model={self.model!r}, provider={self.provider!r}, tools="
            f"{len(self.settings.tools.entries)}, "
            f"api_key={'set' if self.settings.api_key else 'env'})"
        )


Agent.__init__.__doc__ = reference.with_setting_entries(
    reference.AGENT_INIT_DOC, list(inspect.signature(Agent.__init__).parameters)[1:-2]
)
method_docs.document_methods(Agent, method_docs.AGENT_METHOD_SECTIONS)
