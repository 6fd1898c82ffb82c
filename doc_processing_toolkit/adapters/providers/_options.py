"""What every vendor's option rules share (``adapters/providers/<vendor>/options.py``).

A vendor's rules are one `VendorOptions` object: how the Agent's neutral
``thinking=`` becomes its wire value, which built-in (provider-run) tools it runs and
their wire entries, the shape of its provider-run MCP servers and the ``allowed_tools``
forms it takes, its documented provider keywords with their bounds, and its documented
defaults. The base class holds the neutral part of each rule (a row that cannot think,
the built-in tool loop, the keyword warnings); a vendor overrides the hooks. A plug-in
provider without rules of its own gets ``VendorOptions(name)``: no built-in tools, no
provider-run MCP, no documented keywords.

Everything here is pure: nothing logs, nothing does I/O; what a caller must log comes
back as warnings.
"""

from __future__ import annotations

import copy
import difflib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from doc_processing_toolkit.domain.errors import (
    CompatibilityError,
    ConfigurationError,
    InvalidArgumentTypeError,
)
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.domain.tools.allowed import allowed_tool_names
from doc_processing_toolkit.domain.tools.built_in import (
    BUILT_IN_TOOL_NAMES,
    normalize_built_in_tools,
)

__all__ = [
    "AGENT_OWNED_KWARGS",
    "COMMON_PROVIDER_KWARGS",
    "EFFORT_ORDER",
    "OFF_TYPES",
    "USE_CLIENT",
    "BuiltInToolsWire",
    "RemoteMCPWire",
    "ThinkingTransform",
    "VendorOptions",
    "check_effort",
    "drop_options",
    "effort_rank",
    "ignored_thinking_keys",
    "keyword_warnings",
    "mcp_tool_entry",
    "number",
    "server_label",
    "server_names",
    "server_url",
    "validate_service_tier",
]

OFF_TYPES = frozenset({"disabled", "between_tools"})
"""The two spellings of "thinking off" (the second is claude-sonnet-5-5's name)."""

EFFORT_ORDER: tuple[str, ...] = ("none", "minimal", "low", "medium", "high", "xhigh", "max")
"""Reasoning efforts from least to most, across providers."""

COMMON_PROVIDER_KWARGS = frozenset(
    {"base_url", "mcp_remote_servers", "extra_headers", "extra_body"}
)
"""Keywords every provider takes: the endpoint, provider-run MCP servers (the agent
factory's form) and the SDK's raw header / body escape hatches."""

AGENT_OWNED_KWARGS: dict[str, str | None] = {
    "system_prompt": "instructions",
    "system": "instructions",
    "messages": None,
    "prompt": None,
    "client": None,
    "logger": "logger",
    "model": "model",
    "api_key": "api_key",
    "tools": "tools",
    "tool_choice": "tool_choice",
    "max_output_tokens": "max_tokens",
    "reasoning": "thinking",
    "reasoning_effort": "thinking",
    "thinking_config": "thinking",
    "stream_callback": None,
    "output_schema": None,
}
"""Keywords the Agent supplies to the provider itself -> the Agent parameter to use."""

USE_CLIENT = (
    'use {"type": "mcp_remote_client", "url": ..., "allowed_tools": [...]}, which runs '
    "the server from this process and filters it on every provider"
)
"""What to use instead of a provider-run MCP server the provider cannot run as asked."""


@dataclass(frozen=True, slots=True)
class ThinkingTransform:
    """What a provider request carries for the Agent's ``thinking=`` setting.

    ``value`` is the provider-specific value and ``param`` the request keyword it goes
    under; `as_params` gives both as a dict ready to merge into the call kwargs.
    """

    provider: str
    """The provider the value was built for."""
    param: str
    """The request keyword: ``thinking`` (Anthropic), ``reasoning`` (OpenAI),
    ``thinking_config`` (Google) or ``reasoning_effort`` (Fireworks)."""
    value: Any = None
    """The wire value; None means send nothing (the provider default applies)."""
    thinking_on: bool = False
    """Whether the request makes the model think (False for an off value)."""
    interleaved: bool = False
    """Anthropic: the caller asked for interleaved thinking (thinking between tool calls)."""
    betas: tuple[str, ...] = ()
    """Anthropic beta names the request must send (``anthropic-beta`` header)."""
    warnings: tuple[str, ...] = ()
    """Messages the caller logs at WARNING (the mapping cannot log)."""

    def as_params(self) -> dict[str, Any]:
        """``{param: value}``, or ``{}`` when nothing is sent."""
        return {} if self.value is None else {self.param: self.value}


@dataclass(frozen=True, slots=True)
class BuiltInToolsWire:
    """What `VendorOptions.map_built_in_tools` produced for one provider."""

    tools: tuple[dict[str, Any], ...] = ()
    """Wire tool entries, appended to the request's tools."""
    params: dict[str, Any] = field(default_factory=dict)
    """Other request parameters (Anthropic ``container`` for container reuse)."""
    names: tuple[str, ...] = ()
    """The neutral names actually sent (AgentResult.built_in_tools_used)."""
    tool_search: bool = False
    """Native tool search is on: the adapter may stamp ``defer_loading`` on tools."""
    warnings: tuple[str, ...] = ()
    """Messages the caller logs at WARNING."""


@dataclass(frozen=True, slots=True)
class RemoteMCPWire:
    """What a request carries for its provider-run MCP servers."""

    tools: tuple[dict[str, Any], ...] = ()
    """Tool entries (``{"type": "mcp"}``, Anthropic ``mcp_toolset``)."""
    params: dict[str, Any] = field(default_factory=dict)
    """Other request parameters (Anthropic ``mcp_servers``)."""
    betas: tuple[str, ...] = ()
    """Beta names the request must send (Anthropic's MCP connector)."""


def effort_rank(effort: str) -> int:
    """The position of ``effort`` in `EFFORT_ORDER` (-1 when unknown)."""
    try:
        return EFFORT_ORDER.index(effort)
    except ValueError:
        return -1


def check_effort(
    effort: str, allowed: tuple[str, ...], model: str, what: str, warnings: list[str]
) -> bool:
    """Whether ``effort`` is among the row's ``allowed`` efforts (a warning when not)."""
    if allowed and effort not in allowed:
        warnings.append(
            f"{model}: reasoning effort {effort!r} is not among {list(allowed)}{what}; "
            "effort not sent (the API default applies)"
        )
        return False
    return True


DEFAULT_EFFORT = "medium"
"""The effort an effort-keyed request (OpenAI, Fireworks) carries when the caller names none."""


def requested_effort(
    config: Mapping[str, Any], known: frozenset[str], provider: str, label: str, hint: str
) -> tuple[str, list[str]]:
    """The effort an effort-keyed provider reasons at, and the warnings to log.

    ``{"effort": ...}`` is taken as given; an off value (``disabled``) is not one on
    ``label`` and reasons at `DEFAULT_EFFORT`, with a warning ending in ``hint``.
    """
    warnings = ignored_thinking_keys(config, known, provider)
    given = config.get("effort")
    if given is None and str(config.get("type")) in OFF_TYPES:
        warnings.append(
            f"thinking={{'type': {config['type']!r}}} is not an off value on {label}: the "
            f"request reasons at effort {DEFAULT_EFFORT!r}; {hint}"
        )
    return (str(given) if given is not None else DEFAULT_EFFORT), warnings


def ignored_thinking_keys(
    config: Mapping[str, Any], known: frozenset[str], provider: str
) -> list[str]:
    """One warning naming the thinking keys ``provider`` does not read (none: ``[]``)."""
    extra = sorted(k for k in config if k not in known)
    if not extra:
        return []
    return [f"{provider}: thinking keys {extra} are not read by this provider; not sent"]


def drop_options(
    config: dict[str, Any], keys: tuple[str, ...], provider: str, name: str, warnings: list[str]
) -> None:
    """Remove the built-in tool options ``keys`` from ``config``, with one warning."""
    dropped = [key for key in keys if config.pop(key, None) is not None]
    if dropped:
        warnings.append(
            f"{provider}: built_in_tools[{name!r}] options {dropped} not supported; not sent"
        )


def number(key: str, value: Any) -> float:
    """``value`` as a float.

    Raises:
        ValueError: for a bool, a non-number or NaN (naming ``key``).
    """
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        raise ConfigurationError(f"{key} must be a number, got {value!r}")
    return float(value)


def server_label(server: Mapping[str, Any]) -> str:
    """A provider-run MCP server's label (``server_label``, or its alias ``name``).

    Raises:
        ValueError: when the config has neither.
    """
    label = server.get("server_label") or server.get("name")
    if not isinstance(label, str) or not label:
        raise ConfigurationError("a remote MCP server config needs a server_label (or name)")
    return label


def server_url(server: Mapping[str, Any], label: str) -> str:
    """A provider-run MCP server's URL (``server_url``, or its alias ``url``).

    Raises:
        ValueError: when the config has neither.
    """
    url = server.get("server_url") or server.get("url")
    if not isinstance(url, str) or not url:
        raise ConfigurationError(f"remote MCP server {label!r} needs a server_url (or url)")
    return url


def server_names(value: Any, label: str, expected: str = "a list of tool names") -> list[str]:
    """A provider-run server's ``allowed_tools`` names (a set in sorted order).

    Raises:
        TypeError: as `allowed_tool_names`.
    """
    names = allowed_tool_names(value, f"MCP server {label!r}", sets=True, expected=expected)
    return list(names or ())


def mcp_tool_entry(
    server: Mapping[str, Any], label: str, passthrough: tuple[str, ...]
) -> dict[str, Any]:
    """The ``{"type": "mcp", "server_label", "server_url", ...}`` tool entry.

    The Responses-style entry (OpenAI, and Fireworks, which takes the same shape):
    ``require_approval`` is ``never`` unless given, the ``passthrough`` keys are copied,
    and an ``authorization_token`` becomes an ``Authorization: Bearer`` header.
    """
    entry: dict[str, Any] = {"type": "mcp", "server_label": label}
    if server.get("connector_id") is None or server.get("server_url") or server.get("url"):
        entry["server_url"] = server_url(server, label)
    entry["require_approval"] = "never"
    for key in passthrough:
        if server.get(key) is not None:
            entry[key] = copy.deepcopy(server[key])
    token = server.get("authorization_token")
    if token is not None:
        headers = dict(entry.get("headers") or {})
        if not any(k.lower() == "authorization" for k in headers):
            headers["Authorization"] = f"Bearer {token}"
        entry["headers"] = headers
    return entry


def keyword_warnings(
    provider: str,
    kwargs: Mapping[str, Any],
    known: frozenset[str] | None,
    owners: Mapping[str, frozenset[str]],
    agent_parameters: Sequence[str] = (),
) -> list[str]:
    """One warning per keyword the Agent supplies itself or ``provider`` does not take.

    A keyword within a small edit distance of an Agent parameter or a documented keyword
    gets a "did you mean" in its warning.

    Args:
        provider: The provider name, for the message.
        kwargs: The Agent's ``**provider_kwargs``.
        known: The provider's documented keywords (COMMON ones are added); None takes
            every keyword (a plug-in without rules: only Agent-owned ones warn).
        owners: Provider name -> its documented keywords, to say whose keyword it is.
        agent_parameters: The Agent's parameter names (suggested as ``Agent(name=...)``).
    """
    warnings: list[str] = []
    documented = sorted(
        (known or frozenset()) | COMMON_PROVIDER_KWARGS | frozenset().union(*owners.values())
    )
    for key in kwargs:
        if key in AGENT_OWNED_KWARGS:
            instead = AGENT_OWNED_KWARGS[key]
            hint = f"; use Agent({instead}=...) instead" if instead else ""
            warnings.append(
                f"provider keyword {key!r} is supplied by the Agent itself{hint} "
                "(passed through anyway)"
            )
        elif known is not None and key not in known | COMMON_PROVIDER_KWARGS:
            others = [p for p, names in owners.items() if key in names]
            where = f" (it is a {'/'.join(others)} keyword)" if others else ""
            if not others:
                where = _did_you_mean(key, agent_parameters, documented)
            warnings.append(
                f"provider keyword {key!r} is not accepted by {provider}{where} "
                "(passed through anyway)"
            )
    return warnings


def _did_you_mean(key: str, agent_parameters: Sequence[str], documented: Sequence[str]) -> str:
    """``"; did you mean Agent(temperature=...)?"`` for a near miss, else ``""``."""
    agent = difflib.get_close_matches(key, list(agent_parameters), n=1, cutoff=0.8)
    if agent:
        return f"; did you mean Agent({agent[0]}=...)?"
    keyword = difflib.get_close_matches(key, list(documented), n=1, cutoff=0.8)
    return f"; did you mean {keyword[0]!r}?" if keyword else ""


def validate_service_tier(tier: str | None, row: ModelInfo | None) -> tuple[str | None, str | None]:
    """The tier to request, and the warning to log when it is ignored.

    The vocabulary is data: a tier is requested only when the row has a
    ``service_tiers`` entry for it ("priority", "flex", "ultrafast"...). "standard" is
    the default and sends nothing.

    Returns:
        ``(tier, None)`` when requested, ``(None, warning)`` when ignored, ``(None, None)``
        for None or "standard".

    Raises:
        ValueError: if ``tier`` is not a string.
    """
    if tier is None:
        return None, None
    if not isinstance(tier, str) or not tier.strip():
        raise ConfigurationError(f"service_tier must be a tier name (str), got {tier!r}")
    name = tier.strip().lower()
    if name == "standard":
        return None, None
    if row is None:
        return None, f"service_tier {name!r} ignored: the model has no registry row"
    if name in row.service_tiers:
        return name, None
    offered = sorted(row.service_tiers)
    return None, (
        f"service_tier {name!r} ignored: {row.model} has no {name!r} pricing row "
        f"(tiers: {offered or 'none'})"
    )


class VendorOptions:
    """One provider's option rules; this base is a plug-in's (nothing provider-run).

    A vendor subclass sets the class attributes and overrides the hooks
    (`thinking_value`, `built_in_tool`, `check_kwargs`,
    `check_allowed_tools`, `remote_mcp_servers`, `remote_mcp_wire`).
    Instances are stateless and shared.
    """

    thinking_param: str = "thinking"
    """The request keyword the thinking value goes under."""
    max_tokens_param: str = "max_tokens"
    """The request keyword of the output cap."""
    kwargs: frozenset[str] = frozenset()
    """The documented provider keywords (``Agent(**provider_kwargs)``)."""
    defaults: Mapping[str, Any] = MappingProxyType({})
    """Documented default values (a parameter absent here has no fixed default)."""
    native_built_in_tools: frozenset[str] = frozenset()
    """The neutral built-in tools this provider runs itself."""
    request_keywords: frozenset[str] = frozenset()
    """``provider_options`` keys that are typed keywords of the SDK call, sent as given."""
    consumed_options: frozenset[str] = frozenset({"max_pause_turn_iterations"})
    """``provider_options`` keys consumed elsewhere (the run loop, uploads, the MCP
    connector); never sent as such."""
    unsent_options: frozenset[str] = frozenset()
    """Documented ``provider_options`` keys this adapter does not send (named in a warning)."""

    def __init__(self, name: str) -> None:
        """Rules for the provider ``name``."""
        self.name = name

    def __repr__(self) -> str:
        """``AnthropicOptions('anthropic')``."""
        return f"{type(self).__name__}({self.name!r})"

    # -- thinking -----------------------------------------------------------------------

    def transform_thinking(
        self,
        thinking: Mapping[str, Any] | None,
        row: ModelInfo | None = None,
        *,
        effort: str | None = None,
    ) -> ThinkingTransform:
        """The neutral ``thinking=`` dict as this provider's wire value.

        None sends nothing; a row that cannot think sends nothing (with a warning unless
        the value turns thinking off); anything else is the vendor's `thinking_value`.

        Raises:
            TypeError: if ``thinking`` is not a mapping.
            ValueError: for a value the vendor refuses.
        """
        if thinking is None:
            return ThinkingTransform(provider=self.name, param=self.thinking_param)
        if not isinstance(thinking, Mapping):
            raise InvalidArgumentTypeError(
                f"thinking must be a dict, got {type(thinking).__name__}"
            )
        config = dict(thinking)
        if row is not None and not row.supports_thinking:
            if str(config.get("type")) in OFF_TYPES:
                return ThinkingTransform(provider=self.name, param=self.thinking_param)
            return ThinkingTransform(
                provider=self.name,
                param=self.thinking_param,
                warnings=(f"{row.model} does not support thinking; thinking={config!r} not sent",),
            )
        return self.thinking_value(config, row, effort)

    def thinking_value(
        self, config: dict[str, Any], row: ModelInfo | None, effort: str | None
    ) -> ThinkingTransform:
        """The vendor's wire value for a thinking dict (a copy it may consume)."""
        return ThinkingTransform(provider=self.name, param=self.thinking_param, value=config)

    # -- built-in tools -----------------------------------------------------------------

    def built_in_tool(
        self, name: str, config: dict[str, Any], params: dict[str, Any], warnings: list[str]
    ) -> dict[str, Any]:
        """The wire entry of the native built-in tool ``name`` (``config``: a copy).

        ``params`` takes other request parameters, ``warnings`` what the caller logs.
        """
        raise NotImplementedError(f"{self.name} runs no built-in tool {name!r}")

    def map_built_in_tools(
        self, built_in_tools: Mapping[str, Any] | None, row: ModelInfo | None = None
    ) -> BuiltInToolsWire:
        """The neutral built-in tool config as this provider's wire entries.

        Raises:
            ValueError: for an unknown tool name, a tool the provider or the row's
                ``built_in_tools`` does not offer. ``tool_search`` where there is no
                native tool search is a warning instead: every tool then loads eagerly.
            TypeError: for an entry in an unknown form.
        """
        tools: list[dict[str, Any]] = []
        params: dict[str, Any] = {}
        names: list[str] = []
        warnings: list[str] = []
        for name, setting in normalize_built_in_tools(built_in_tools).items():
            if name not in BUILT_IN_TOOL_NAMES:
                raise ConfigurationError(
                    f"unknown built-in tool {name!r}; known: {', '.join(BUILT_IN_TOOL_NAMES)}"
                )
            if not setting.enabled:
                continue
            offered = row is None or name in row.built_in_tools
            native = name in self.native_built_in_tools
            if name == "tool_search" and not (native and offered):
                where = row.model if row is not None and native else self.name
                warnings.append(
                    f"{where} has no native tool search; built_in_tools['tool_search'] is not "
                    "sent and every tool loads eagerly"
                )
                continue
            if not native:
                raise CompatibilityError(
                    f"{self.name} has no built-in (provider-run) tools; {name!r} is supported "
                    "on anthropic, openai and google"
                )
            if not offered:
                assert row is not None
                raise CompatibilityError(
                    f"{row.model} does not offer the built-in tool {name!r} (its registry row "
                    f"lists {list(row.built_in_tools)})"
                )
            tools.append(self.built_in_tool(name, dict(setting.config), params, warnings))
            names.append(name)
        return BuiltInToolsWire(
            tools=tuple(tools),
            params=params,
            names=tuple(names),
            tool_search="tool_search" in names,
            warnings=tuple(warnings),
        )

    def check_built_in_tools(
        self,
        built_in_tools: Mapping[str, Any] | None,
        row: ModelInfo | None,
        has_custom_tools: bool,
    ) -> list[str]:
        """The construction-time check; returns the warnings to log.

        Raises:
            ValueError: as `map_built_in_tools`, and when the row says built-in and
                custom tools cannot be combined and both are given.
        """
        wire = self.map_built_in_tools(built_in_tools, row)
        if (
            wire.tools
            and has_custom_tools
            and row is not None
            and not row.supports_concurrent_built_in_and_custom_tools
        ):
            raise CompatibilityError(
                f"{row.model} cannot combine built-in tools {list(wire.names)} with your own "
                "tools (supports_concurrent_built_in_and_custom_tools is false); drop one of "
                "them or pick a model that allows both"
            )
        return list(wire.warnings)

    # -- provider-run MCP ---------------------------------------------------------------

    def check_allowed_tools(self, server: Mapping[str, Any]) -> None:
        """Fail on a provider-run server's ``allowed_tools`` this provider cannot take.

        Raises:
            ValueError: for a key the provider would ignore.
            TypeError: for a value in a form the provider does not take.
        """

    def refuse_ignored_allowed_tools(self, server: Mapping[str, Any]) -> None:
        """Refuse ``allowed_tools`` when this provider would ignore it (default: it does not).

        Raises:
            ValueError: the provider would ignore the key and expose every tool.
        """

    def remote_mcp_servers(self, servers: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """The provider-run MCP server configs in this provider's format.

        Raises:
            ValueError: this provider runs no MCP server.
        """
        raise CompatibilityError(f"provider {self.name!r} does not support remote MCP servers")

    def remote_mcp_wire(self, servers: Sequence[Mapping[str, Any]]) -> RemoteMCPWire:
        """Everything a request carries for ``servers`` (tools, parameters, betas)."""
        return RemoteMCPWire(tools=tuple(self.remote_mcp_servers(servers)))

    # -- provider keywords --------------------------------------------------------------

    def check_kwargs(self, kwargs: Mapping[str, Any]) -> list[str]:
        """Bounds checks of the documented keywords; returns the warnings to log.

        Raises:
            ValueError: for a documented keyword outside its documented bounds.
        """
        return []
