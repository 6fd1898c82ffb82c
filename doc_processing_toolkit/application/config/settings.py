"""AgentSettings: the one typed source of an Agent's settings.

The constructor gathers its named parameters into one and validates it once
(``application.construction.validate_settings``, the path ``AgentBuilder`` and
``from_config()`` take too); the run loop's settings are derived from it once per Agent
(``run.policy.settings.AgentRunSettings``) and ``to_config()`` reads it (`export`). Values are
kept as the caller spelled them (``tool_choice="any"``, ``prompt_caching=True``) so that
``to_config()`` gives them back unchanged; the normalised forms the run needs are
properties.

Not to be confused with the documented YAML container ``agent.config.AgentConfig``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Generic, TypeVar, overload

from doc_processing_toolkit._redaction import redact_text
from doc_processing_toolkit.domain.errors import ConfigurationError, InvalidArgumentTypeError
from doc_processing_toolkit.domain.tools.results import DEFAULT_TOOL_RESULT_PREVIEW_CHARS
from doc_processing_toolkit.domain.tools.specs import ToolChoice, normalize_tool_choice
from doc_processing_toolkit.ports.model_client import ModelClient

__all__ = [
    "DEFAULT_MEDIA_MAX_INLINE_BYTES",
    "DEFAULT_STREAM_IDLE_TIMEOUT",
    "AgentSettingViews",
    "AgentSettings",
    "SettingView",
    "normalize_prompt_caching",
]

T = TypeVar("T")

DEFAULT_MEDIA_MAX_INLINE_BYTES = 8 * 1024 * 1024
"""Per-part cap on kept Google upload bytes (8 MiB)."""
DEFAULT_STREAM_IDLE_TIMEOUT = 300.0
"""Seconds a stream may go without a content event (pings and keep-alives do not count)."""


@dataclass(frozen=True, slots=True, repr=False)
class AgentSettings:
    """Every constructor setting of an Agent, validated (see the Agent's parameters)."""

    def __repr__(self) -> str:
        # Values read from ${ENV} by the YAML loader are registered secrets: a repr is
        # printed and logged, so it passes through the same redaction as the logs.
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self) if f.repr)
        return redact_text(f"AgentSettings({shown})")

    model: str
    """The model name (stripped)."""
    instructions: str = ""
    tools: tuple[Any, ...] = ()
    """The tools entries exactly as given (functions, paths, dicts, sessions)."""
    api_key: str | None = field(default=None, repr=False)
    """Never emitted by ``to_config()`` or ``repr``."""
    max_iterations: int = 10
    max_tokens: int | None = None
    temperature: float | None = None
    thinking: dict[str, Any] | None = None
    built_in_tools: dict[str, Any] | None = None
    strict_tools: bool = True
    auto_inject_memory_instructions: bool = True
    auto_inject_skills: bool = True
    compaction: bool = False
    compaction_config: dict[str, Any] | None = None
    session_history_config: dict[str, Any] | None = None
    logger: logging.Logger | None = field(default=None, repr=False, compare=False)
    log_level: str = "DEBUG"
    log_file: str | None = None
    log_to_file: bool = True
    tool_choice: Any = "auto"
    """As given; `resolved_tool_choice` is the normalised form."""
    code_execution_output_dir: str | None = None
    service_tier: str | None = None
    """As requested; the provider profile decides what is sent."""
    hooks: Any | None = field(default=None, repr=False, compare=False)
    emit_request_start: bool = False
    max_tool_result_chars: int | None = None
    tool_result_preview_chars: int = DEFAULT_TOOL_RESULT_PREVIEW_CHARS
    truncated_result_read_chars: int | None = None
    prompt_caching: Any | None = None
    """As given (True or a ttl dict); `prompt_caching_config` is the normalised form."""
    anthropic_block_binding: str | None = None
    strict_prefix_binding: bool = False
    prefix_audit: bool = False
    prefix_strip_fallback: bool = False
    remove_citations: bool = False
    on_unsupported_part: str = "drop"
    media_policy: str = "auto"
    media_store: Any = field(default=None, repr=False, compare=False)
    media_max_inline_bytes: int | None = DEFAULT_MEDIA_MAX_INLINE_BYTES
    estimate_input_tokens: Any = "lazy"
    defer_tools: Any | None = None
    detailed_costs: bool = False
    cost_output_dir: str | None = None
    client: ModelClient | None = field(default=None, repr=False, compare=False)
    """A ModelClient to use instead of the container's adapter."""
    base_url: str | None = None
    """An endpoint for the container's adapter (e.g. a gateway or an emulator)."""
    max_pause_turn_iterations: int = 10
    """Continuations of one paused turn (a provider keyword the Agent consumes)."""
    mcp_remote_servers: tuple[dict[str, Any], ...] = ()
    """Provider-run MCP servers given as a provider keyword (added to the ``mcp`` tools)."""
    provider_kwargs: dict[str, Any] = field(default_factory=dict)
    """The remaining provider keywords, passed through (``provider_overrides``)."""
    connect_timeout: float | None = None
    """Seconds to open a connection to the provider (None: the SDK's 5 s)."""
    request_timeout: float | None = None
    """Seconds for the response to start and for each read (None: the SDK's 600 s)."""
    stream_idle_timeout: float | None = DEFAULT_STREAM_IDLE_TIMEOUT
    """Seconds between content events before a stream fails (None: no limit)."""
    tool_timeout: float | None = None
    """Seconds a local ``@tool`` may run before its call gets an error result (None: none)."""
    registry: Any = field(default=None, repr=False, compare=False)
    """User registry rows merged over the packaged registry: a JSON file path, a mapping
    provider -> model -> row, or a list of rows (None: the packaged rows, and the file named
    by ``DPT_REGISTRY_FILE``)."""

    @property
    def client_timeouts(self) -> dict[str, float]:
        """The timeouts a model client is built with (only those set)."""
        values = {
            "connect_timeout": self.connect_timeout,
            "timeout": self.request_timeout,
            "stream_idle_timeout": self.stream_idle_timeout,
        }
        return {k: v for k, v in values.items() if v is not None}

    @classmethod
    def from_arguments(cls, arguments: Mapping[str, Any]) -> AgentSettings:
        """The settings of ``Agent(**arguments)``: one field per constructor parameter
        (``tools`` as a tuple; unset ``**provider_kwargs`` as ``{}``).

        Raises:
            TypeError: for a name that is not a setting (a signature and the fields drifted).
        """
        values = dict(arguments)
        values["tools"] = tuple(values.get("tools") or ())
        values["provider_kwargs"] = dict(values.get("provider_kwargs") or {})
        unknown = sorted(set(values) - {f.name for f in fields(cls)})
        if unknown:
            raise InvalidArgumentTypeError(f"not Agent settings: {unknown}")
        return cls(**values)

    @property
    def resolved_tool_choice(self) -> ToolChoice:
        """``tool_choice`` normalised ("any" -> "required", a name -> ForcedTool)."""
        return normalize_tool_choice(self.tool_choice)

    @property
    def prompt_caching_config(self) -> dict[str, Any] | None:
        """``prompt_caching`` normalised: None or ``{"ttl": "5m" | "1h"}``."""
        return normalize_prompt_caching(self.prompt_caching)

    @property
    def read_back_chars(self) -> int:
        """``truncated_result_read_chars`` with None as 0 (off)."""
        return self.truncated_result_read_chars or 0

    @property
    def remote_mcp_servers(self) -> tuple[dict[str, Any], ...]:
        """Every provider-run MCP server: the ``{"type": "mcp"}`` tools, then the keyword's."""
        listed = (t for t in self.tools if isinstance(t, dict) and t.get("type") == "mcp")
        return tuple(dict(server) for server in [*listed, *self.mcp_remote_servers])

    @property
    def has_custom_tools(self) -> bool:
        """Whether any tool entry runs on the client (anything but a provider-run server)."""
        return any(not (isinstance(t, dict) and t.get("type") == "mcp") for t in self.tools)


def normalize_prompt_caching(value: Any) -> dict[str, Any] | None:
    """True -> {"ttl": "5m"}; a dict with ttl "5m" or "1h"; None/False -> None.

    Raises:
        ValueError: any other value.
    """
    if value is None or value is False:
        return None
    if value is True:
        return {"ttl": "5m"}
    if isinstance(value, dict):
        ttl = value.get("ttl", "5m")
        extra = sorted(set(value) - {"ttl"})
        if ttl not in ("5m", "1h") or extra:
            raise ConfigurationError(
                f'prompt_caching must be True or {{"ttl": "5m" | "1h"}}, got {value!r}'
            )
        return {"ttl": ttl}
    raise ConfigurationError(
        f'prompt_caching must be True or {{"ttl": "5m" | "1h"}}, got {value!r}'
    )


class SettingView(Generic[T]):
    """A read-only attribute of an object with ``settings``, read through ``read``.

    ``max_tokens = SettingView(lambda s: s.max_tokens)`` on a class whose instances hold
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
    max_iterations = SettingView(lambda s: s.max_iterations)
    max_tokens = SettingView(lambda s: s.max_tokens)
    temperature = SettingView(lambda s: s.temperature)
    thinking = SettingView(lambda s: s.thinking)
    built_in_tools = SettingView(lambda s: s.built_in_tools or None)
    strict_tools = SettingView(lambda s: s.strict_tools)
    auto_inject_memory_instructions = SettingView(lambda s: s.auto_inject_memory_instructions)
    auto_inject_skills = SettingView(lambda s: s.auto_inject_skills)
    tool_choice: SettingView[ToolChoice] = SettingView(lambda s: s.resolved_tool_choice)
    emit_request_start = SettingView(lambda s: s.emit_request_start)
    max_tool_result_chars = SettingView(lambda s: s.max_tool_result_chars)
    tool_result_preview_chars = SettingView(lambda s: s.tool_result_preview_chars)
    truncated_result_read_chars = SettingView(lambda s: s.read_back_chars)
    prompt_caching = SettingView(lambda s: s.prompt_caching_config)
    """Normalised: None or ``{"ttl": ...}`` (providers that cache automatically ignore it)."""
    defer_tools = SettingView(lambda s: s.defer_tools)
    detailed_costs = SettingView(lambda s: s.detailed_costs)
    cost_output_dir = SettingView(lambda s: s.cost_output_dir)
    provider_kwargs = SettingView(lambda s: s.provider_kwargs)
