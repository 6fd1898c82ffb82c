"""The Agent facade: constructor, run, run_sync, stream, close.

The Agent resolves its configuration once (registry row, provider, client, tools, cap),
then hands each run to the one :class:`~doc_processing_toolkit.application.run.loop.RunLoop`
and turns its outcome into an :class:`AgentResult`. ``run()`` raises on failure;
``stream()`` never raises: a failed run yields ``error`` and then ``complete``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import logging
import os
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

from pydantic import BaseModel

from doc_processing_toolkit.application.config import log_setup
from doc_processing_toolkit.application.config.validation import (
    DEFAULT_MEDIA_MAX_INLINE_BYTES,
    check_not_implemented,
    validate_non_negative_int,
    validate_positive_int,
    validate_temperature,
)
from doc_processing_toolkit.application.result import AgentResult
from doc_processing_toolkit.application.run.events import EventChannel, EventSink
from doc_processing_toolkit.application.run.loop import RunLoop, RunOutcome, RunSettings
from doc_processing_toolkit.application.run.result_builder import build_result, failure_metadata
from doc_processing_toolkit.application.tools.accounting import tool_reported_cost_enabled
from doc_processing_toolkit.application.tools.loader import ToolLoader
from doc_processing_toolkit.application.tools.planning import RunToolPlanner
from doc_processing_toolkit.domain.events import AgentStreamEvent
from doc_processing_toolkit.domain.messages import Message, user_text
from doc_processing_toolkit.domain.tools.results import (
    DEFAULT_TOOL_RESULT_PREVIEW_CHARS,
    resolve_cap,
)
from doc_processing_toolkit.domain.tools.specs import ForcedTool, normalize_tool_choice
from doc_processing_toolkit.domain.tools.truncated import TruncatedResultStore
from doc_processing_toolkit.ports.model_client import ModelClient
from doc_processing_toolkit.ports.provider_profile import ProviderOptions

__all__ = ["STREAM_CANCEL_WAIT_SECONDS", "Agent"]

STREAM_CANCEL_WAIT_SECONDS = 5.0
"""How long closing a stream() generator waits for the cancelled run to unwind."""


class Agent:
    """High-level Agent class for AI interactions.

    Attributes:
        model: The model name.
        instructions: System prompt/instructions.
    """

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
        on_unsupported_part: str = "drop",
        media_policy: str = "auto",
        media_store: Any = None,
        media_max_inline_bytes: int | None = DEFAULT_MEDIA_MAX_INLINE_BYTES,
        estimate_input_tokens: Any = "lazy",
        defer_tools: Any | None = None,
        detailed_costs: bool = False,
        cost_output_dir: str | None = None,
        **provider_kwargs: Any,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"model must be a non-empty model name, got {model!r}")
        if not isinstance(instructions, str):
            raise ValueError(f"instructions must be a string, got {type(instructions).__name__}")
        check_not_implemented(
            {
                "compaction": compaction,
                "compaction_config": compaction_config,
                "session_history_config": session_history_config,
                "code_execution_output_dir": code_execution_output_dir,
                "hooks": hooks,
                "anthropic_block_binding": anthropic_block_binding,
                "strict_prefix_binding": strict_prefix_binding,
                "prefix_audit": prefix_audit,
                "prefix_strip_fallback": prefix_strip_fallback,
                "remove_citations": remove_citations,
                "on_unsupported_part": on_unsupported_part,
                "media_policy": media_policy,
                "media_store": media_store,
                "media_max_inline_bytes": media_max_inline_bytes,
                "estimate_input_tokens": estimate_input_tokens,
            }
        )
        self.model = model.strip()
        self.instructions = instructions
        self._recipe: dict[str, Any] = {
            "settings": {
                "tool_choice": tool_choice,
                "thinking": thinking,
                "built_in_tools": built_in_tools,
                "strict_tools": strict_tools,
                "max_tool_result_chars": max_tool_result_chars,
                "tool_result_preview_chars": tool_result_preview_chars,
                "truncated_result_read_chars": truncated_result_read_chars,
                "code_execution_output_dir": code_execution_output_dir,
                "service_tier": service_tier,
                "prompt_caching": prompt_caching,
                "auto_inject_skills": auto_inject_skills,
                "auto_inject_memory_instructions": auto_inject_memory_instructions,
                "compaction": compaction or None,
                "compaction_config": compaction_config,
                "session_history_config": session_history_config,
                "anthropic_block_binding": anthropic_block_binding,
                "strict_prefix_binding": strict_prefix_binding or None,
                "prefix_audit": prefix_audit or None,
                "prefix_strip_fallback": prefix_strip_fallback or None,
                "remove_citations": remove_citations or None,
                "on_unsupported_part": on_unsupported_part,
                "media_policy": media_policy,
                "emit_request_start": emit_request_start or None,
                "detailed_costs": detailed_costs or None,
                "cost_output_dir": cost_output_dir,
            },
            "logging": {"level": log_level, "file": log_file, "to_file": log_to_file},
            "logger_supplied": logger is not None,
            "hooks_supplied": hooks is not None,
        }
        self.max_iterations = validate_positive_int("max_iterations", max_iterations) or 10
        self.max_tokens = validate_positive_int("max_tokens", max_tokens, optional=True)
        self.temperature = validate_temperature(temperature)
        if thinking is not None and not isinstance(thinking, dict):
            raise ValueError(f"thinking must be a dict or None, got {type(thinking).__name__}")
        self.thinking = dict(thinking) if thinking is not None else None
        self.strict_tools = bool(strict_tools)
        self.auto_inject_memory_instructions = auto_inject_memory_instructions
        self.auto_inject_skills = auto_inject_skills
        self.tool_choice = normalize_tool_choice(tool_choice)
        self.emit_request_start = bool(emit_request_start)
        self.max_tool_result_chars = validate_non_negative_int(
            "max_tool_result_chars", max_tool_result_chars, optional=True
        )
        self.tool_result_preview_chars: int = (
            validate_non_negative_int("tool_result_preview_chars", tool_result_preview_chars) or 0
        )
        self.detailed_costs = bool(detailed_costs)
        self.cost_output_dir = cost_output_dir
        self.last_abandoned_stream: dict[str, Any] | None = None
        self._agent_id = uuid.uuid4().hex[:8]

        if logger is not None:
            log_setup.install_forwarding()
            self.logger = logger
            self.log_file: str | None = None
        else:
            self.logger, self.log_file = log_setup.build_agent_logger(
                model=self.model,
                agent_id=self._agent_id,
                log_level=log_level,
                log_file=log_file,
                log_to_file=log_to_file,
            )

        from doc_processing_toolkit.application import container as composition

        self._composition = composition
        self._container = composition.default_container()
        self._registry = composition.registry(self._container)
        self.provider = self._registry.detect_provider(self.model)
        self._row = self._registry.row(self.model)
        if self._row is None:
            self.logger.warning(
                "model %s has no registry row: prices unknown (cost 0.0, estimated), "
                "default limits apply",
                self.model,
            )

        self._client_override: ModelClient | None = provider_kwargs.pop("client", None)
        self._base_url: str | None = provider_kwargs.pop("base_url", None)
        pauses = provider_kwargs.pop("max_pause_turn_iterations", 10)
        self._max_pause_turn_iterations: int = (
            validate_positive_int("max_pause_turn_iterations", pauses) or 10
        )
        extra_remote = list(provider_kwargs.pop("mcp_remote_servers", None) or [])
        self.provider_kwargs: dict[str, Any] = dict(provider_kwargs)
        # Providers that cache automatically ignore it; their adapters say so in the log.
        self.prompt_caching = _normalize_prompt_caching(prompt_caching)
        self.built_in_tools = dict(built_in_tools) if built_in_tools else None
        self._remote_mcp_servers: list[dict[str, Any]] = [
            dict(server)
            for server in [
                *(t for t in (tools or []) if isinstance(t, dict) and t.get("type") == "mcp"),
                *extra_remote,
            ]
        ]
        self._profile = composition.build_provider_profile(self._container, self.provider)
        report = self._profile.check_options(
            ProviderOptions(
                thinking=self.thinking,
                built_in_tools=self.built_in_tools,
                remote_mcp_servers=tuple(self._remote_mcp_servers),
                provider_kwargs=self.provider_kwargs,
                service_tier=service_tier,
                has_custom_tools=any(
                    not (isinstance(t, dict) and t.get("type") == "mcp") for t in (tools or [])
                ),
            ),
            self._row,
        )
        for warning in report.warnings:
            self.logger.warning(warning)
        self.service_tier = report.service_tier
        self._built_in_tool_names = list(report.built_in_tool_names)
        self._native_tool_search = report.native_tool_search

        self._api_key = api_key
        log_setup.register_secret(api_key)
        for env_name in self._profile.api_key_env:
            log_setup.register_secret(os.environ.get(env_name))
        self._client: ModelClient | None = None
        self._owns_client = False

        self.tools = list(tools or [])
        self._tool_loader = self._build_tool_loader(self.tools)
        window = self._row.context_window_tokens if self._row is not None else None
        self._tool_result_cap = resolve_cap(self.max_tool_result_chars, window)
        self.truncated_result_read_chars: int = (
            validate_non_negative_int(
                "truncated_result_read_chars", truncated_result_read_chars, optional=True
            )
            or 0
        )
        self.defer_tools = defer_tools
        self._tool_planner = self._build_tool_planner(defer_tools)
        self.logger.debug(
            "Agent created: model=%s provider=%s tools=%d api_key=%s",
            self.model,
            self.provider,
            len(self.tools),
            "set" if api_key else "from environment",
        )

    # ------------------------------------------------------------------ wiring
    def _build_tool_loader(self, tools: list[Any]) -> ToolLoader:
        wiring = self._composition.tool_loader_wiring(self._container)
        loader = ToolLoader(
            wiring["session_factories"],
            local_session_factory=wiring["local_session_factory"],
            config_validators=wiring["config_validators"],
        )
        loader.load(tools)
        self._truncated_session_factory = wiring["truncated_session_factory"]
        return loader

    def _build_tool_planner(self, defer_tools: Any) -> RunToolPlanner:
        read_back = self.truncated_result_read_chars > 0
        if read_back and self._tool_result_cap == 0:
            self.logger.warning(
                "truncated_result_read_chars has no effect with max_tool_result_chars=0: "
                "nothing is cut"
            )
            read_back = False
        if read_back and (
            isinstance(self.tool_choice, ForcedTool) or self.tool_choice == "required"
        ):
            self.logger.warning(
                "truncated_result_read_chars has no effect with a tool_choice that forces a "
                "call: the run ends after one tool round, so the model could not read on"
            )
            read_back = False
        defer = _defer_predicate(defer_tools)
        if defer is not None:
            if not self._native_tool_search:
                self.logger.warning(
                    "defer_tools has no effect: it needs the provider's native tool search "
                    "(built_in_tools={'tool_search': BuiltInToolConfig(enabled=True)} on an "
                    "Anthropic or OpenAI model whose registry row lists tool_search); every "
                    "tool loads eagerly"
                )
                defer = None
        return RunToolPlanner(
            auto_inject_skills=bool(self.auto_inject_skills),
            auto_inject_memory_instructions=bool(self.auto_inject_memory_instructions),
            read_back=read_back,
            store_session_factory=self._truncated_session_factory,
            defer=defer,
        )

    def _get_client(self) -> ModelClient:
        if self._client_override is not None:
            return self._client_override
        if self._client is None:
            kwargs: dict[str, Any] = {}
            if self._api_key is not None:
                kwargs["api_key"] = self._api_key
            if self._base_url is not None:
                kwargs["base_url"] = self._base_url
            self._client = self._composition.build_model_client(
                self._container, self.provider, row_lookup=self._registry.row, **kwargs
            )
            self._owns_client = True
        return self._client

    def _settings(self, output_schema: type[BaseModel] | None) -> RunSettings:
        return RunSettings(
            model=self.model,
            provider=self.provider,
            row=self._row,
            system=self.instructions,
            max_iterations=self.max_iterations,
            max_tokens=self.max_tokens,
            temperature=self.temperature,
            thinking=self.thinking,
            tool_choice=self.tool_choice,
            output_schema=output_schema,
            strict_tools=self.strict_tools,
            strict_per_tool_only=os.environ.get("DPT_ANTHROPIC_STRICT_BUDGET", "").lower() == "off",
            tool_result_cap=self._tool_result_cap,
            service_tier=self.service_tier,
            prompt_caching=self.prompt_caching,
            built_in_tools=self.built_in_tools,
            remote_mcp_servers=tuple(self._remote_mcp_servers),
            provider_options=dict(self.provider_kwargs),
            preview_chars=self.tool_result_preview_chars,
            max_pause_turn_iterations=self._max_pause_turn_iterations,
            truncated_result_read_chars=self.truncated_result_read_chars,
            tool_reported_cost=tool_reported_cost_enabled(),
        )

    # ------------------------------------------------------------------ running
    async def _execute(
        self,
        message: str,
        *,
        sink: EventSink | None,
        output_schema: type[BaseModel] | None,
        history: list[Message] | None = None,
        on_loop: Callable[[RunLoop], None] | None = None,
    ) -> tuple[AgentResult, BaseException | None]:
        if not isinstance(message, str):
            raise TypeError(f"message must be a string, got {type(message).__name__}")
        if output_schema is not None and not (
            isinstance(output_schema, type) and issubclass(output_schema, BaseModel)
        ):
            raise TypeError("output_schema must be a pydantic BaseModel subclass")
        run_id = uuid.uuid4().hex
        prior = list(history or [])
        messages = [*prior, user_text(message)]
        channel = EventChannel(sink, None, emit_request_start=self.emit_request_start)
        with log_setup.active_agent_logger(self.logger):
            self.logger.info("run %s started: model=%s", run_id, self.model)
            store = TruncatedResultStore() if self._tool_planner.read_back else None
            await self._tool_loader.connect_mcp_servers()
            plan = await self._tool_planner.plan(self._tool_loader, self.instructions, store)
            loop = RunLoop(
                self._get_client(),
                plan.tools,
                dataclasses.replace(self._settings(output_schema), system=plan.system),
                channel,
                truncated_results=store if plan.read_back else None,
            )
            if on_loop is not None:
                on_loop(loop)
            outcome = await loop.run(messages, len(prior))
            outcome.deferred_tools = list(plan.deferred_tools)
            await channel.emit("run_end", None, {"run_id": run_id})
            result = self._result(outcome, run_id)
            if outcome.error is not None:
                self.logger.error(
                    "run %s failed: %s: %s", run_id, type(outcome.error).__name__, result.error
                )
            else:
                self.logger.info(
                    "run %s finished: iterations=%d tokens=%d cost=%.6f",
                    run_id,
                    result.iterations,
                    result.total_tokens,
                    result.cost,
                )
        return result, outcome.error

    def _result(self, outcome: RunOutcome, run_id: str) -> AgentResult:
        codec = self._composition.build_history_codec(self._container, self.provider)
        return build_result(
            outcome,
            run_id=run_id,
            codec=codec,
            row=self._row,
            detailed_costs=self.detailed_costs,
            cost_output_dir=self.cost_output_dir,
            built_in_tools_used=self._built_in_tool_names,
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
    ) -> AgentResult:
        """Run the agent with a message.

        Raises:
            ProviderError: when the provider failed after retries.
            StructuredOutputError: when output_schema did not validate.
        """
        _check_run_args(files, tool_files, media_resolution_list, anthropic_container_id)
        result, error = await self._execute(message, sink=None, output_schema=output_schema)
        if error is not None:
            raise error
        return result

    def run_sync(
        self,
        message: str,
        *,
        files: list[Any] | None = None,
        tool_files: list[Any] | None = None,
        output_schema: type[BaseModel] | None = None,
        media_resolution_list: list[str | None] | None = None,
        anthropic_container_id: str | None = None,
    ) -> AgentResult:
        """Synchronous wrapper for run(); works inside a running loop (Jupyter) too."""
        coro_kwargs: dict[str, Any] = {
            "files": files,
            "tool_files": tool_files,
            "output_schema": output_schema,
            "media_resolution_list": media_resolution_list,
            "anthropic_container_id": anthropic_container_id,
        }
        if any(c.format == "client_session" for c in self._tool_loader.server_configs):
            raise RuntimeError(
                "run_sync() cannot use a pre-built session ({'session': ...}): it belongs to "
                "the loop it was opened on. Use await agent.run(...), or let the toolkit own "
                "the connection with {'type': 'mcp_remote_client', ...}"
            )

        async def run_and_release() -> AgentResult:
            # run_sync's loop ends with this call: its MCP sessions are released with it.
            try:
                return await self.run(message, **coro_kwargs)
            finally:
                await self._tool_loader.disconnect_mcp_servers()
                # SDK connection pools are bound to this loop, which ends now.
                await self._composition.release_loop_resources()

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(run_and_release())
        # A loop is already running in this thread: run on a private loop in a worker.
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(asyncio.run, run_and_release()).result()

    async def stream(
        self,
        message: str,
        *,
        files: list[Any] | None = None,
        tool_files: list[Any] | None = None,
        output_schema: type[BaseModel] | None = None,
        media_resolution_list: list[str | None] | None = None,
        anthropic_container_id: str | None = None,
    ) -> AsyncIterator[AgentStreamEvent]:
        """Stream the agent's response as typed events; never raises.

        A failed run yields ``error`` then ``complete``; ``complete`` comes exactly once.
        Closing the generator early cancels the run and records what it had spent on
        :attr:`last_abandoned_stream`.
        """
        queue: asyncio.Queue[AgentStreamEvent | None] = asyncio.Queue()
        holder: dict[str, RunLoop] = {}
        self.last_abandoned_stream = None

        async def sink(event: AgentStreamEvent) -> None:
            await queue.put(event)

        async def produce() -> None:
            try:
                _check_run_args(files, tool_files, media_resolution_list, anthropic_container_id)
                result, error = await self._execute(
                    message,
                    sink=sink,
                    output_schema=output_schema,
                    on_loop=lambda loop: holder.__setitem__("loop", loop),
                )
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # bad arguments: still error + complete
                result, error = AgentResult(error=log_setup.redact(str(exc))), exc
            if error is not None:
                meta = failure_metadata(result, error)
                await queue.put(AgentStreamEvent("error", result.error, meta))
            complete = result.to_dict()
            if result.output is not None and output_schema is not None:
                complete["output"] = result.output
            await queue.put(AgentStreamEvent("complete", None, complete))
            await queue.put(None)

        task = asyncio.create_task(produce())
        finished = False
        try:
            while True:
                event = await queue.get()
                if event is None:
                    finished = True
                    break
                yield event
        finally:
            if not finished and not task.done():
                task.cancel()
                try:
                    await asyncio.wait_for(
                        asyncio.shield(asyncio.gather(task, return_exceptions=True)),
                        STREAM_CANCEL_WAIT_SECONDS,
                    )
                except (TimeoutError, asyncio.CancelledError):
                    pass
                loop = holder.get("loop")
                if loop is not None and loop.outcome is not None:
                    spent = self._result(loop.outcome, "abandoned").to_dict()
                    spent["abandoned"] = True
                    self.last_abandoned_stream = spent

    # ------------------------------------------------------------------ lifecycle
    async def close(self) -> None:
        """Release the resources this Agent owns: its MCP sessions (and the tools they
        registered; the configs stay, so the next run reconnects) and a client built for
        an explicit api_key."""
        await self._tool_loader.disconnect_mcp_servers()
        client, self._client = self._client, None
        if client is not None and self._owns_client:
            await client.aclose()
        self._owns_client = False

    async def __aenter__(self) -> Agent:
        return self

    async def __aexit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> None:
        await self.close()

    @classmethod
    def builder(cls) -> Any:
        """Create an AgentBuilder for fluent configuration."""
        from doc_processing_toolkit.application.builder import AgentBuilder

        return AgentBuilder()

    def session(self, *args: Any, **kwargs: Any) -> Any:
        """Multi-turn sessions are not built in this release."""
        raise NotImplementedError("Agent.session() (AgentSession) is not implemented yet")

    @classmethod
    def from_config(cls, config_path: str, **overrides: Any) -> Agent:
        """YAML configuration is not built in this release."""
        raise NotImplementedError("Agent.from_config() is not implemented yet")

    @classmethod
    def from_config_string(cls, yaml_content: str, **overrides: Any) -> Agent:
        """YAML configuration is not built in this release."""
        raise NotImplementedError("Agent.from_config_string() is not implemented yet")

    def to_config(self) -> dict[str, Any]:
        """The data half of this agent's constructor, in the YAML shape from_config reads.

        Live objects (callables, sessions, a logger, hooks) and values that may hold
        secrets (an api_key, mcp_command / mcp_script env values, remote MCP credentials)
        are never emitted: they are listed under ``unserialisable``.
        """
        from doc_processing_toolkit.application.config.export import export_config

        recipe = self._recipe
        return export_config(
            model=self.model,
            instructions=self.instructions,
            tools=self.tools,
            api_key_set=self._api_key is not None,
            constraints={
                "max_iterations": self.max_iterations,
                "max_tokens": self.max_tokens,
                "temperature": self.temperature,
            },
            settings=recipe["settings"],
            logging=recipe["logging"],
            logger_supplied=recipe["logger_supplied"],
            hooks_supplied=recipe["hooks_supplied"],
            provider_overrides=dict(self.provider_kwargs),
        )

    def __repr__(self) -> str:
        return (
            f"Agent(model={self.model!r}, provider={self.provider!r}, "
            f"tools={len(self.tools)}, api_key={'set' if self._api_key else 'env'})"
        )


def _normalize_prompt_caching(value: Any) -> dict[str, Any] | None:
    """True -> {"ttl": "5m"}; a dict with ttl "5m" or "1h"; None/False -> None."""
    if value is None or value is False:
        return None
    if value is True:
        return {"ttl": "5m"}
    if isinstance(value, dict):
        ttl = value.get("ttl", "5m")
        extra = sorted(set(value) - {"ttl"})
        if ttl not in ("5m", "1h") or extra:
            raise ValueError(
                f'prompt_caching must be True or {{"ttl": "5m" | "1h"}}, got {value!r}'
            )
        return {"ttl": ttl}
    raise ValueError(f'prompt_caching must be True or {{"ttl": "5m" | "1h"}}, got {value!r}')


def _defer_predicate(defer_tools: Any) -> Callable[[str, str | None], bool] | None:
    """defer_tools as a predicate(name, server), or None when unset.

    Raises:
        TypeError: neither a collection of tool names nor a callable.
    """
    if defer_tools is None:
        return None
    if callable(defer_tools):
        return lambda name, server: bool(defer_tools(name, server))
    if isinstance(defer_tools, str) or not isinstance(defer_tools, set | frozenset | list | tuple):
        raise TypeError(
            "defer_tools must be a set of tool names or a predicate(tool_name, server_name), "
            f"got {defer_tools!r}"
        )
    names = frozenset(defer_tools)
    if not all(isinstance(n, str) for n in names):
        raise TypeError(f"defer_tools names must be strings, got {sorted(map(repr, names))}")
    return lambda name, server: name in names


def _check_run_args(
    files: Any, tool_files: Any, media_resolution_list: Any, anthropic_container_id: Any
) -> None:
    for name, value in (
        ("files", files),
        ("tool_files", tool_files),
        ("media_resolution_list", media_resolution_list),
        ("anthropic_container_id", anthropic_container_id),
    ):
        if value is not None:
            raise NotImplementedError(f"run({name}=...) is not implemented yet in this release")
