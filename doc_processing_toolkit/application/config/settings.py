"""AgentSettings: the one typed source of an Agent's settings, grouped by concern.

Each group is a small frozen pydantic model (`ToolSettings`, `ToolResultSettings`,
`CompactionSettings`, `MediaSettings`, `BindingSettings`, `TimeoutSettings`,
`LoggingSettings`, `CostSettings`, `ProviderSettings`, `GenerationSettings`,
`HookSettings`); `AgentSettings` holds the Agent's identity (model, instructions, key,
endpoint, client, registry) and one of each group. Every field carries its default and its
description; a field's constructor parameter is its name, or its alias where the group's
name would repeat it (``compaction`` -> ``compaction.enabled``, ``tools`` ->
``tools.entries``, ``hooks`` -> ``hooks.handlers``). `SETTING_GROUPS` maps each constructor
parameter to its group, so adding a setting is adding one field here.

The constructor's named parameters are validated once
(``application.construction.settings_from_arguments``, the path ``AgentBuilder`` and
``from_config()`` take too), which then builds the groups from the validated values
(`AgentSettings.from_values`, with pydantic's public ``model_copy``); the run loop's settings are
derived from it once per Agent (``run.policy.settings.AgentRunSettings``) and ``to_config()`` reads
it (`export`). Values are kept as the caller spelled them (``tool_choice="any"``,
``prompt_caching=True``) so that ``to_config()`` gives them back unchanged; the normalised
forms the run needs are properties.

Not to be confused with the documented YAML container ``agent.config.AgentConfig``.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from dataclasses import FrozenInstanceError
from typing import Any, ClassVar, Literal, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field
from pydantic.fields import FieldInfo
from pydantic.json_schema import SkipJsonSchema

from doc_processing_toolkit._redaction import redact_text
from doc_processing_toolkit.domain.errors import ConfigurationError, InvalidArgumentTypeError
from doc_processing_toolkit.domain.grounding.evidence import DEFAULT_EVIDENCE_THRESHOLD
from doc_processing_toolkit.domain.tools.results import DEFAULT_TOOL_RESULT_PREVIEW_CHARS
from doc_processing_toolkit.domain.tools.specs import ToolChoice, normalize_tool_choice
from doc_processing_toolkit.ports.model_client import ModelClient

__all__ = [
    "DEFAULT_MEDIA_MAX_INLINE_BYTES",
    "DEFAULT_STREAM_IDLE_TIMEOUT",
    "SETTING_GROUPS",
    "SETTING_NAMES",
    "AgentSettings",
    "BindingSettings",
    "CompactionSettings",
    "CostSettings",
    "DeploymentSettings",
    "GenerationSettings",
    "HookSettings",
    "LoggingSettings",
    "MediaSettings",
    "ProviderSettings",
    "SettingsGroup",
    "StructuredOutputSettings",
    "TimeoutSettings",
    "ToolResultSettings",
    "ToolSettings",
    "normalize_prompt_caching",
    "setting_field",
]

_G = TypeVar("_G", bound="SettingsGroup")

DEFAULT_MEDIA_MAX_INLINE_BYTES = 8 * 1024 * 1024
"""Per-part cap on kept Google upload bytes (8 MiB)."""
DEFAULT_STREAM_IDLE_TIMEOUT = 300.0
"""Seconds a stream may go without a content event (pings and keep-alives do not count)."""


class SettingsGroup(BaseModel):
    """One concern's settings: frozen, built once from validated values."""

    # defer_build: the validators are built on the first validation, not at import (the
    # Agent builds its settings from validated values and never validates them again).
    model_config = ConfigDict(frozen=True, populate_by_name=True, extra="forbid", defer_build=True)

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}: settings are frozen")

    def __repr__(self) -> str:
        # A group may hold credentials (deployment_options, a remote MCP server's token):
        # its repr and str pass through the log redaction, as AgentSettings' does.
        return redact_text(super().__repr__())

    def __str__(self) -> str:
        return redact_text(super().__str__())

    def parameters(self) -> dict[str, Any]:
        """This group's values keyed by constructor parameter name."""
        values = self.__dict__
        return {parameter: values[name] for parameter, name in _PARAMETERS[type(self)]}


class GenerationSettings(SettingsGroup):
    """What one reply may use: iterations, tokens, temperature, thinking."""

    max_iterations: int = Field(default=10, ge=1, description="Tool-calling iterations.")
    max_tokens: int | None = Field(default=None, ge=1, description="Output tokens per reply.")
    temperature: float | None = Field(
        default=None, ge=0.0, le=2.0, description="Sampling temperature."
    )
    thinking: dict[str, Any] | None = Field(
        default=None, description="Thinking / reasoning; the keys are provider-specific."
    )
    max_pause_turn_iterations: int = Field(
        default=10, ge=1, description="Continuations of one paused turn (a provider keyword)."
    )
    estimate_input_tokens: Any = Field(
        default="lazy", description='Input-token estimate before a request: "lazy", True or False.'
    )


class ToolSettings(SettingsGroup):
    """The tools the model may call and how it is asked to call them."""

    entries: tuple[Any, ...] = Field(
        default=(), alias="tools", description="The tools entries exactly as given."
    )
    built_in_tools: dict[str, Any] | None = Field(
        default=None, description="Provider-run tools (web search, code execution, ...)."
    )
    strict_tools: bool = Field(default=True, description="Strict JSON schemas for tool inputs.")
    tool_choice: Any = Field(
        default="auto",
        description='"auto", "required", "none", "any", "validated", a tool name, or '
        '{"type": "tool", "name": ...}.',
    )
    defer_tools: Any | None = Field(default=None, description="Tools loaded on demand (names).")
    auto_inject_memory_instructions: bool = Field(
        default=True, description="Add the memory tool's instructions to the system prompt."
    )
    auto_inject_skills: bool = Field(default=True, description="Add the skills list to the prompt.")
    code_execution_output_dir: str | None = Field(
        default=None, description="Where files made by code execution are saved."
    )

    @property
    def resolved_tool_choice(self) -> ToolChoice:
        """``tool_choice`` normalised ("any" -> "required", a name -> ForcedTool)."""
        return normalize_tool_choice(self.tool_choice)

    @property
    def has_custom_tools(self) -> bool:
        """Whether any tool entry runs on the client (anything but a provider-run server)."""
        return any(not (isinstance(t, dict) and t.get("type") == "mcp") for t in self.entries)


class ToolResultSettings(SettingsGroup):
    """How big a tool result may be and how the model reads the rest."""

    max_tool_result_chars: int | None = Field(
        default=None, ge=0, description="Tool-result cap; 0 = off, omit = default."
    )
    tool_result_preview_chars: int = Field(
        default=DEFAULT_TOOL_RESULT_PREVIEW_CHARS, ge=0, description="0 = the whole result."
    )
    truncated_result_read_chars: int | None = Field(
        default=None, ge=0, description="Characters the model may read back from a cut result."
    )

    @property
    def read_back_chars(self) -> int:
        """``truncated_result_read_chars`` with None as 0 (off)."""
        return self.truncated_result_read_chars or 0


class CompactionSettings(SettingsGroup):
    """The conversation's history: compaction and the session's history view."""

    enabled: bool = Field(default=False, alias="compaction", description="Compact long histories.")
    config: dict[str, Any] | None = Field(
        default=None,
        alias="compaction_config",
        description="The compaction strategy and its limits.",
    )
    session_history_config: dict[str, Any] | None = Field(
        default=None, description="What a session keeps of each turn."
    )


class MediaSettings(SettingsGroup):
    """Media and documents: unsupported parts, inline bytes, the store, citations."""

    on_unsupported_part: Literal["drop", "raise", "convert"] = Field(
        default="drop", description="drop, raise or convert."
    )
    media_policy: Literal["auto", "inline", "externalize", "strip"] = Field(
        default="auto", description="auto, inline, externalize or strip."
    )
    media_store: Any = Field(
        default=None, description="A directory path.", repr=False, exclude=True
    )
    media_max_inline_bytes: int | None = Field(
        default=DEFAULT_MEDIA_MAX_INLINE_BYTES,
        ge=0,
        description="Per-part cap on kept inline bytes.",
    )
    remove_citations: bool = Field(
        default=False, description="Drop citation markers from the text."
    )
    citations: bool = Field(
        default=False,
        description="Ask for document citations and emit citation stream events.",
    )


class BindingSettings(SettingsGroup):
    """How reasoning blocks stay bound to the prefix they were made for."""

    anthropic_block_binding: Literal["drop_block", "error", "off"] | None = Field(
        default=None, description="drop_block, error or off (None: the default)."
    )
    strict_prefix_binding: bool = Field(default=False, description="Fail on a changed prefix.")
    prefix_audit: bool = Field(default=False, description="Log each request's prefix digest.")
    prefix_strip_fallback: bool = Field(
        default=False, description="Strip unbound reasoning blocks."
    )


class TimeoutSettings(SettingsGroup):
    """Seconds the provider client and the tools may take."""

    connect_timeout: float | None = Field(default=None, ge=0, description="Seconds to connect.")
    request_timeout: float | None = Field(default=None, ge=0, description="Seconds per read.")
    stream_idle_timeout: float | None = Field(
        default=DEFAULT_STREAM_IDLE_TIMEOUT,
        ge=0,
        description="Seconds between content events (300).",
    )
    tool_timeout: float | None = Field(default=None, ge=0, description="Seconds per @tool call.")

    @property
    def client_timeouts(self) -> dict[str, float]:
        """The timeouts a model client is built with (only those set)."""
        values = {
            "connect_timeout": self.connect_timeout,
            "timeout": self.request_timeout,
            "stream_idle_timeout": self.stream_idle_timeout,
        }
        return {k: v for k, v in values.items() if v is not None}


class LoggingSettings(SettingsGroup):
    """The Agent's own logger."""

    logger: Any = Field(
        default=None, description="A logger to use instead.", repr=False, exclude=True
    )
    log_level: str = Field(default="DEBUG", description="The logger's level.")
    log_file: str | None = Field(default=None, description="The log file's path.")
    log_to_file: bool = Field(default=True, description="Whether to write a log file.")
    telemetry: bool = Field(default=False, description="OpenTelemetry spans (the otel extra).")


class CostSettings(SettingsGroup):
    """The per-run cost report."""

    detailed_costs: bool = Field(default=False, description="A per-request cost report.")
    cost_output_dir: str | None = Field(default=None, description="Where cost reports are written.")


class ProviderSettings(SettingsGroup):
    """Options passed on to the provider."""

    service_tier: str | None = Field(
        default=None,
        min_length=1,
        description="As requested; the provider profile decides what is sent.",
    )
    prompt_caching: Any | None = Field(default=None, description='True or {"ttl": "5m" | "1h"}.')
    mcp_remote_servers: tuple[dict[str, Any], ...] = Field(
        default=(), description="Provider-run MCP servers given as a provider keyword."
    )
    provider_kwargs: dict[str, Any] = Field(
        default_factory=dict, description="Extra provider keywords, passed through."
    )

    @property
    def prompt_caching_config(self) -> dict[str, Any] | None:
        """``prompt_caching`` normalised: None or ``{"ttl": "5m" | "1h"}``."""
        return normalize_prompt_caching(self.prompt_caching)


class DeploymentSettings(SettingsGroup):
    """Where the model is served: the provider's own API or a cloud deployment."""

    deployment: Literal["vertex", "bedrock", "foundry", "azure"] | None = Field(
        default=None, description="The cloud serving the model (None: the provider's API)."
    )
    deployment_options: dict[str, Any] | None = Field(
        default=None, description="The deployment's region, project, endpoint, credentials."
    )


class HookSettings(SettingsGroup):
    """Hooks and the events they see."""

    handlers: Any | None = Field(
        default=None, alias="hooks", description="Hook handlers.", repr=False, exclude=True
    )
    emit_request_start: bool = Field(default=False, description="Emit a request_start event.")


class StructuredOutputSettings(SettingsGroup):
    """Structured output: re-asks on an invalid answer, and the evidence threshold."""

    output_retries: int = Field(
        default=0, ge=0, description="Re-asks after a structured answer fails its schema."
    )
    evidence_threshold: float = Field(
        default=DEFAULT_EVIDENCE_THRESHOLD,
        ge=0,
        le=100,
        description="The rapidfuzz score (0-100) at which an evidence quote counts as found.",
    )


_GROUPS: dict[str, type[SettingsGroup]] = {
    "generation": GenerationSettings,
    "tools": ToolSettings,
    "tool_results": ToolResultSettings,
    "compaction": CompactionSettings,
    "media": MediaSettings,
    "binding": BindingSettings,
    "timeouts": TimeoutSettings,
    "logging": LoggingSettings,
    "costs": CostSettings,
    "provider": ProviderSettings,
    "hooks": HookSettings,
    "deployment": DeploymentSettings,
    "structured_output": StructuredOutputSettings,
}

SETTING_GROUPS: dict[str, tuple[str, str]] = {
    (f.alias or name): (group, name)
    for group, cls in _GROUPS.items()
    for name, f in cls.model_fields.items()
}
"""Constructor parameter -> (group, field) for every grouped setting."""


class AgentSettings(BaseModel):
    """Every constructor setting of an Agent, validated: identity here, the rest in groups."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", arbitrary_types_allowed=True, defer_build=True
    )

    GROUPS: ClassVar[dict[str, type[SettingsGroup]]] = _GROUPS

    model: str = Field(min_length=1, description="The model name (required).")
    instructions: str = Field(default="", description="The system prompt.")
    api_key: str | None = Field(
        default=None, description="Use ${ENV_VAR}; never exported.", repr=False, exclude=True
    )
    base_url: str | None = Field(default=None, description="An endpoint for the provider client.")
    client: SkipJsonSchema[ModelClient | None] = Field(
        default=None, description="A ModelClient to use instead.", repr=False, exclude=True
    )
    registry: Any = Field(
        default=None,
        description="A JSON file of model rows merged over the registry.",
        repr=False,
        exclude=True,
    )
    # A default group is one shared frozen instance (`_shared`): pydantic would deep-copy
    # a model given as ``default=``. ProviderSettings holds a dict: made anew.
    generation: GenerationSettings = Field(default_factory=lambda: _shared(GenerationSettings))
    tools: ToolSettings = Field(default_factory=lambda: _shared(ToolSettings))
    tool_results: ToolResultSettings = Field(default_factory=lambda: _shared(ToolResultSettings))
    compaction: CompactionSettings = Field(default_factory=lambda: _shared(CompactionSettings))
    media: MediaSettings = Field(default_factory=lambda: _shared(MediaSettings))
    binding: BindingSettings = Field(default_factory=lambda: _shared(BindingSettings))
    timeouts: TimeoutSettings = Field(default_factory=lambda: _shared(TimeoutSettings))
    logging: LoggingSettings = Field(default_factory=lambda: _shared(LoggingSettings))
    costs: CostSettings = Field(default_factory=lambda: _shared(CostSettings))
    provider: ProviderSettings = Field(default_factory=ProviderSettings)  # holds a dict
    hooks: HookSettings = Field(default_factory=lambda: _shared(HookSettings))
    deployment: DeploymentSettings = Field(default_factory=lambda: _shared(DeploymentSettings))
    structured_output: StructuredOutputSettings = Field(
        default_factory=lambda: _shared(StructuredOutputSettings)
    )

    def __repr__(self) -> str:
        # Values read from ${ENV} by the YAML loader are registered secrets: a repr is
        # printed and logged, so it passes through the same redaction as the logs.
        hidden = {"api_key", "client", "registry", "logger", "hooks", "media_store"}
        shown = ", ".join(f"{k}={v!r}" for k, v in self.arguments().items() if k not in hidden)
        return redact_text(f"AgentSettings({shown})")

    __str__ = __repr__

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}: settings are frozen")

    @classmethod
    def of(cls, **arguments: Any) -> AgentSettings:
        """The settings of ``Agent(**arguments)``, not validated: one value per constructor
        parameter, each put in its group (unset ones keep their defaults).

        Raises:
            TypeError: for a name that is not a setting.
        """
        return cls.from_values(arguments)

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> AgentSettings:
        """`of` for a mapping of constructor parameter -> value (the validation path hands
        its validated values here). Each group is built once: a group whose values are all
        its defaults is the one shared default group, any other a ``model_copy`` of it
        with the values that differ (pydantic's public copy; no default is deep-copied).

        Raises:
            TypeError: for a name that is not a setting.
        """
        if not values.keys() <= _NAMES:
            unknown = [n for n in values if n not in _NAMES]
            raise InvalidArgumentTypeError(f"not Agent settings: {unknown}")
        fields: dict[str, Any] = {name: values[name] for name in _IDENTITY_ORDER if name in values}
        for group, default, get, parameters, names, held, fresh in _GROUP_BUILDS:
            try:
                given: tuple[Any, ...] = get(values)
            except KeyError:  # not every parameter given: the others keep their defaults
                given = tuple(values.get(p, h) for p, h in zip(parameters, held, strict=True))
            if not fresh and all(map(operator.is_, given, held)):
                fields[group] = default
                continue
            changed = {n: v for n, v, h in zip(names, given, held, strict=True) if v is not h}
            for name, factory in fresh:  # a mutable default is made anew, never shared
                if name not in changed:
                    changed[name] = factory()
            fields[group] = default.model_copy(update=changed)
        return _EMPTY_SETTINGS.model_copy(update=fields)

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
        unknown = sorted(set(values) - set(SETTING_GROUPS) - _IDENTITY)
        if unknown:
            raise InvalidArgumentTypeError(f"not Agent settings: {unknown}")
        return cls.of(**values)

    def arguments(self) -> dict[str, Any]:
        """Every setting keyed by its constructor parameter name."""
        values = self.__dict__
        out = {name: values[name] for name in _IDENTITY_ORDER}
        for group in _GROUPS:
            out.update(values[group].parameters())
        return out

    def replace(self, **changes: Any) -> AgentSettings:
        """A copy with ``changes`` (keyed by constructor parameter name): only the groups
        a change falls in are rebuilt.

        Raises:
            TypeError: for a name that is not a setting.
        """
        current = self.__dict__
        identity: dict[str, Any] = {}
        grouped: dict[str, dict[str, Any]] = {}
        for name, value in changes.items():
            place = SETTING_GROUPS.get(name)
            if place is not None:
                group, field = place
                if current[group].__dict__[field] is not value:
                    grouped.setdefault(group, {})[field] = value
            elif name in _IDENTITY:
                if current[name] is not value:
                    identity[name] = value
            else:
                raise InvalidArgumentTypeError(f"not Agent settings: {[name]}")
        if not grouped and not identity:
            return self  # frozen: unchanged settings are shared
        update: dict[str, Any] = identity
        for group, fields in grouped.items():
            update[group] = current[group].model_copy(update=fields)
        return self.model_copy(update=update)

    @property
    def remote_mcp_servers(self) -> tuple[dict[str, Any], ...]:
        """Every provider-run MCP server: the ``{"type": "mcp"}`` tools, then the keyword's."""
        entries = self.tools.entries
        listed = (t for t in entries if isinstance(t, dict) and t.get("type") == "mcp")
        servers = [*listed, *self.provider.mcp_remote_servers]
        return tuple(dict(server) for server in servers)


def _parameter_names(cls: type[SettingsGroup]) -> tuple[tuple[str, str], ...]:
    """(constructor parameter, field name) of each field of ``cls``, in order."""
    return tuple((f.alias or n, n) for n, f in cls.model_fields.items())


_PARAMETERS = {cls: _parameter_names(cls) for cls in _GROUPS.values()}
_SHARED_DEFAULTS: dict[type[SettingsGroup], SettingsGroup] = {
    cls: cls.model_construct() for cls in _GROUPS.values()
}
"""One default instance of each group, built once: every Agent that leaves a group at its
defaults shares it; a changed group is a copy of it (a ``default_factory`` field's value
is made anew in each copy)."""


def _shared(cls: type[_G]) -> _G:
    """The shared default instance of group ``cls`` (``AgentSettings``' group defaults)."""
    return _SHARED_DEFAULTS[cls]  # type: ignore[return-value]


_IDENTITY_ORDER = ("model", "instructions", "api_key", "base_url", "client", "registry")
_IDENTITY = frozenset(_IDENTITY_ORDER)
_NAMES = frozenset(SETTING_GROUPS) | _IDENTITY
_GROUP_BUILDS = tuple(
    (
        group,
        _SHARED_DEFAULTS[cls],
        operator.itemgetter(*(p for p, _ in _parameter_names(cls))),  # every group has 2+
        tuple(p for p, _ in _parameter_names(cls)),
        tuple(n for _, n in _parameter_names(cls)),
        tuple(_SHARED_DEFAULTS[cls].__dict__[n] for _, n in _parameter_names(cls)),
        tuple(
            (name, cast("Callable[[], Any]", f.default_factory))  # none takes the data
            for name, f in cls.model_fields.items()
            if f.default_factory is not None
        ),
    )
    for group, cls in _GROUPS.items()
)
"""Per group, for `AgentSettings.from_values`: its name, its shared default, a getter of
its parameters' values, the parameters, their field names and defaults, and the
(field, factory) of each field whose default is made anew."""


_EMPTY_SETTINGS = AgentSettings.model_construct(_fields_set=set(), model="")
"""Every group at its default and no model: what `AgentSettings.from_values` copies."""


def setting_field(name: str) -> FieldInfo:
    """The model field of constructor parameter ``name`` (its type, default, constraints
    and description: what the YAML schema and the docs read).

    Raises:
        KeyError: for a name that is not a setting.
    """
    place = SETTING_GROUPS.get(name)
    if place is None:
        return AgentSettings.model_fields[name]
    return _GROUPS[place[0]].model_fields[place[1]]


SETTING_NAMES: tuple[str, ...] = (*_IDENTITY_ORDER, *SETTING_GROUPS)
"""Every constructor setting's parameter name (``provider_kwargs`` is ``**provider_kwargs``)."""


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
