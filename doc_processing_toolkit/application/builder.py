"""AgentBuilder: a fluent way to collect Agent keyword arguments.

Each method validates its keyword as the constructor does (the same checks, the same
messages, the NotImplementedError for features not built yet), records it and returns the
builder; `AgentBuilder.build` calls the agent class it was made for
(``Agent.builder()`` passes ``Agent``) with them, so the result is the Agent the direct
constructor call builds. The builder knows the Agent only as that callable, so ``agent.py``
imports this module and never the other way round.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from doc_processing_toolkit.application.construction import check_arguments
from doc_processing_toolkit.application.tools.formats import detect_format
from doc_processing_toolkit.domain.errors import ConfigurationError
from doc_processing_toolkit.ports.model_client import ModelClient

__all__ = ["AgentBuilder"]

AgentT = TypeVar("AgentT")


class AgentBuilder(Generic[AgentT]):
    """Builder pattern for Agent construction.

    Example::

        agent = (
            Agent.builder()
            .model("claude-sonnet-5-5")
            .instructions("You are helpful.")
            .add_tool(my_tool)
            .with_thinking(budget_tokens=10000)
            .build()
        )
    """

    def __init__(self, agent_class: Callable[..., AgentT]) -> None:
        """Args:
        agent_class: What `build` calls (``Agent``, or a subclass of it).
        """
        self._agent_class = agent_class
        self._model: str | None = None
        self._kwargs: dict[str, Any] = {}
        self._tools: list[Any] = []

    def _set(self, key: str, value: Any) -> AgentBuilder[AgentT]:
        check_arguments({key: value})
        self._kwargs[key] = value
        return self

    def model(self, model_name: str) -> AgentBuilder[AgentT]:
        """Set the model name.

        Raises:
            ValueError: an empty or non-string name.
        """
        check_arguments({"model": model_name})
        self._model = model_name
        return self

    def instructions(self, instructions: str) -> AgentBuilder[AgentT]:
        """Set the system instructions."""
        return self._set("instructions", instructions)

    def add_tool(self, tool: Any) -> AgentBuilder[AgentT]:
        """Add a tool (any of the nine formats).

        Raises:
            TypeError, FileNotFoundError, ToolDefinitionError: as the constructor would.
        """
        detect_format(tool)
        self._tools.append(tool)
        return self

    def max_iterations(self, n: int) -> AgentBuilder[AgentT]:
        """Set max iterations."""
        return self._set("max_iterations", n)

    def max_tokens(self, n: int) -> AgentBuilder[AgentT]:
        """Set max tokens."""
        return self._set("max_tokens", n)

    def temperature(self, t: float) -> AgentBuilder[AgentT]:
        """Set temperature."""
        return self._set("temperature", t)

    def with_thinking(self, **kwargs: Any) -> AgentBuilder[AgentT]:
        """Configure thinking/reasoning."""
        return self._set("thinking", dict(kwargs))

    def with_built_in_tools(self, **kwargs: Any) -> AgentBuilder[AgentT]:
        """Configure built-in tools."""
        return self._set("built_in_tools", dict(kwargs))

    def with_compaction(self, enabled: bool = True, **config: Any) -> AgentBuilder[AgentT]:
        """Configure compaction."""
        arguments: dict[str, Any] = {"compaction": enabled}
        if config:
            arguments["compaction_config"] = dict(config)
        check_arguments(arguments)
        self._kwargs.update(arguments)
        return self

    def auto_inject_skills(self, enabled: bool = True) -> AgentBuilder[AgentT]:
        """Enable/disable auto skills injection."""
        return self._set("auto_inject_skills", enabled)

    def prompt_caching(self, enabled: Any = True) -> AgentBuilder[AgentT]:
        """Opt in to Anthropic prompt caching (True or {"ttl": "5m" | "1h"})."""
        return self._set("prompt_caching", enabled)

    def service_tier(self, tier: str) -> AgentBuilder[AgentT]:
        """Request a service tier ("priority", "flex" or "ultrafast")."""
        return self._set("service_tier", tier)

    def anthropic_block_binding(self, behaviour: str = "drop_block") -> AgentBuilder[AgentT]:
        """Set the Anthropic thinking block-binding behaviour."""
        return self._set("anthropic_block_binding", behaviour)

    def strict_prefix_binding(self, enabled: bool = True) -> AgentBuilder[AgentT]:
        """Fail loudly on a thinking prefix mismatch instead of dropping blocks."""
        return self._set("strict_prefix_binding", enabled)

    def prefix_audit(self, enabled: bool = True) -> AgentBuilder[AgentT]:
        """Log would-be prefix mismatches without changing any request byte."""
        return self._set("prefix_audit", enabled)

    def prefix_strip_fallback(self, enabled: bool = True) -> AgentBuilder[AgentT]:
        """Strip all replayed thinking instead of sending the binding beta."""
        return self._set("prefix_strip_fallback", enabled)

    def media_policy(self, policy: str = "auto") -> AgentBuilder[AgentT]:
        """Set how the agent's sessions write media when saved."""
        return self._set("media_policy", policy)

    def media_store(self, store: Any) -> AgentBuilder[AgentT]:
        """Set where externalised media bytes live."""
        return self._set("media_store", store)

    def media_max_inline_bytes(self, limit: int | None) -> AgentBuilder[AgentT]:
        """Set the per-part cap on Google upload bytes kept in the envelope."""
        return self._set("media_max_inline_bytes", limit)

    def client(self, client: ModelClient) -> AgentBuilder[AgentT]:
        """Use ``client`` instead of the container's adapter (e.g. a FakeModel)."""
        return self._set("client", client)

    def deployment(self, name: str | None, **options: Any) -> AgentBuilder[AgentT]:
        """Serve the model on a cloud: ``deployment=name``, ``deployment_options=options``
        (docs/guide/deployments.md).

        Raises:
            ValueError: an unknown deployment or an option it does not take.
        """
        values = {"deployment": name, "deployment_options": options or None}
        check_arguments(values)
        self._kwargs.update(values)
        return self

    def base_url(self, url: str) -> AgentBuilder[AgentT]:
        """Send the container's adapter to ``url`` (a gateway, an emulator)."""
        return self._set("base_url", url)

    def with_settings(self, **settings: Any) -> AgentBuilder[AgentT]:
        """Set any constructor settings by their parameter names (``tool_timeout=30``,
        ``log_to_file=False``); each is validated as the constructor validates it. Every
        setting without a method of its own is reached this way.

        Args:
            **settings (Any): Constructor parameters and their values. Default: {}.

        Returns:
            AgentBuilder: This builder, for chaining.

        Raises:
            ValueError, TypeError, NotImplementedError: as the constructor would.
        """
        values = dict(settings)
        model = values.pop("model", None)
        tools = values.pop("tools", None)
        check_arguments({**values, **({"model": model} if model is not None else {})})
        if model is not None:
            self._model = model
        if tools is not None:
            for tool in tools:
                detect_format(tool)
            self._tools = list(tools)
        self._kwargs.update(values)
        return self

    def build(self) -> AgentT:
        """Build and return the Agent.

        Raises:
            ValueError: when no model was set.
        """
        if not self._model:
            raise ConfigurationError("AgentBuilder.build(): call .model(name) first")
        kwargs = dict(self._kwargs)
        if self._tools:
            kwargs["tools"] = list(self._tools)
        return self._agent_class(self._model, **kwargs)
