"""The Agent's settings as read-only attributes (``agent.max_tokens``).

`SettingView` reads one value from the ``settings`` an object holds; `AgentSettingViews` is
the set the Agent exposes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

from doc_processing_toolkit.application.config.settings import AgentSettings
from doc_processing_toolkit.domain.tools.specs import ToolChoice

__all__ = ["AgentSettingViews", "SettingView"]

T = TypeVar("T")


class SettingView(Generic[T]):
    """A read-only attribute of an object with ``settings``, read through ``read``.

    ``max_tokens = SettingView(lambda s: s.generation.max_tokens)`` on a class whose instances hold
    ``self.settings: AgentSettings`` makes ``obj.max_tokens`` read the settings.
    """

    def __init__(self, read: Callable[[AgentSettings], T]) -> None:
        self._read = read
        self._name = "setting"

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, obj: None, owner: type) -> SettingView[T]: ...
    @overload
    def __get__(self, obj: object, owner: type) -> T: ...
    def __get__(self, obj: object | None, owner: type) -> SettingView[T] | T:
        if obj is None:
            return self
        settings: AgentSettings = obj.settings  # type: ignore[attr-defined]
        return self._read(settings)

    def __set__(self, obj: object, value: Any) -> None:
        raise AttributeError(f"{self._name} is read-only: it comes from the Agent's settings")


class AgentSettingViews:
    """The Agent's settings as read-only attributes (``agent.max_tokens``), each read
    through `SettingView` from the ``settings`` the subclass holds."""

    __slots__ = ()

    # The settings, read-only: an Agent is configured once, by its constructor.
    model = SettingView(lambda s: s.model)
    instructions = SettingView(lambda s: s.instructions)
    max_iterations = SettingView(lambda s: s.generation.max_iterations)
    max_tokens = SettingView(lambda s: s.generation.max_tokens)
    temperature = SettingView(lambda s: s.generation.temperature)
    thinking = SettingView(lambda s: s.generation.thinking)
    built_in_tools = SettingView(lambda s: s.tools.built_in_tools or None)
    strict_tools = SettingView(lambda s: s.tools.strict_tools)
    auto_inject_memory_instructions = SettingView(lambda s: s.tools.auto_inject_memory_instructions)
    auto_inject_skills = SettingView(lambda s: s.tools.auto_inject_skills)
    tool_choice: SettingView[ToolChoice] = SettingView(lambda s: s.tools.resolved_tool_choice)
    emit_request_start = SettingView(lambda s: s.hooks.emit_request_start)
    max_tool_result_chars = SettingView(lambda s: s.tool_results.max_tool_result_chars)
    tool_result_preview_chars = SettingView(lambda s: s.tool_results.tool_result_preview_chars)
    truncated_result_read_chars = SettingView(lambda s: s.tool_results.read_back_chars)
    prompt_caching = SettingView(lambda s: s.provider.prompt_caching_config)
    """Normalised: None or ``{"ttl": ...}`` (providers that cache automatically ignore it)."""
    defer_tools = SettingView(lambda s: s.tools.defer_tools)
    detailed_costs = SettingView(lambda s: s.costs.detailed_costs)
    cost_output_dir = SettingView(lambda s: s.costs.cost_output_dir)
    provider_kwargs = SettingView(lambda s: s.provider.provider_kwargs)
