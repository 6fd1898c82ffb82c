"""Validation of the Agent's constructor arguments, and the parameters not built yet.

`validate_settings` turns the arguments, gathered in an
`AgentSettings`, into validated settings. Every check names the
parameter and what is wrong with the value. A parameter whose feature a later release
builds raises ``NotImplementedError`` naming it when it is set to anything but its
default — it never silently does nothing.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
from collections.abc import Callable
from typing import Any

from doc_processing_toolkit.application.compaction.setup import check_compaction_settings
from doc_processing_toolkit.application.config.binding_checks import check_binding_settings
from doc_processing_toolkit.application.config.settings import (
    DEFAULT_MEDIA_MAX_INLINE_BYTES,
    AgentSettings,
    normalize_prompt_caching,
)
from doc_processing_toolkit.application.hooks.runner import validate_hooks
from doc_processing_toolkit.application.media.validation import validate_on_unsupported_part
from doc_processing_toolkit.application.run.input_estimate import validate_estimate_mode
from doc_processing_toolkit.application.session.history_config import validate_history_config
from doc_processing_toolkit.application.session.media_policy import validate_max_inline_bytes
from doc_processing_toolkit.domain.errors import ConfigurationError, InvalidArgumentTypeError
from doc_processing_toolkit.domain.session import MEDIA_POLICIES
from doc_processing_toolkit.domain.tools.specs import normalize_tool_choice

__all__ = [
    "DEFAULT_MEDIA_MAX_INLINE_BYTES",
    "NOT_YET_IMPLEMENTED",
    "check_arguments",
    "check_keyword_names",
    "check_not_implemented",
    "defer_predicate",
    "validate_non_negative_int",
    "validate_positive_int",
    "validate_settings",
    "validate_temperature",
    "validate_timeout",
]

NOT_YET_IMPLEMENTED: dict[str, Any] = {}
"""Agent parameters whose features are not built yet, with their defaults."""

_CONSUMED_PROVIDER_KWARGS = ("max_pause_turn_iterations", "mcp_remote_servers")
"""Provider keywords the Agent itself consumes (they become settings fields)."""

_NAMED_PARAMETERS = tuple(
    sorted(
        {f.name for f in dataclasses.fields(AgentSettings)}
        - {"provider_kwargs", *_CONSUMED_PROVIDER_KWARGS}
        | {"deps"}
    )
)
"""The Agent constructor's named parameters (a keyword close to one is a typo of it)."""

NEAR_MISS_CUTOFF = 0.8
"""difflib similarity from which a keyword is taken for a misspelt Agent parameter
("instruction", "max_token", "temprature"); no documented provider keyword comes this close
to an Agent parameter, so a genuine one still takes the pass-through."""


def check_keyword_names(provider_kwargs: Any) -> None:
    """Refuse a keyword that is a near miss of an Agent parameter, as Python would.

    ``Agent(instruction=...)`` lands in ``**provider_kwargs``; passed through, it would only
    log a warning and the instructions would silently be empty.

    Raises:
        TypeError: naming the keyword and the parameter meant.
    """
    for key in provider_kwargs or ():
        if key in _CONSUMED_PROVIDER_KWARGS or key in _NAMED_PARAMETERS:
            continue
        close = difflib.get_close_matches(key, _NAMED_PARAMETERS, n=1, cutoff=NEAR_MISS_CUTOFF)
        if close:
            raise InvalidArgumentTypeError(
                f"Agent() got an unexpected keyword argument {key!r}. Did you mean "
                f"{close[0]!r}? (only provider-specific keywords pass through "
                "**provider_kwargs)"
            )


def validate_settings(settings: AgentSettings) -> AgentSettings:
    """The validated copy of ``settings`` (model stripped, dicts copied, keywords split).

    Raises:
        ValueError: a value out of range or of the wrong type (naming the parameter).
        TypeError: a ``defer_tools`` that is neither names nor a predicate, or a keyword
            that is a near miss of an Agent parameter (``instruction=``).
        NotImplementedError: a parameter of a feature not built yet, set.
    """
    s = settings
    if not isinstance(s.model, str) or not s.model.strip():
        raise ConfigurationError(f"model must be a non-empty model name, got {s.model!r}")
    if not isinstance(s.instructions, str):
        raise ConfigurationError(
            f"instructions must be a string, got {type(s.instructions).__name__}"
        )
    check_not_implemented({name: getattr(s, name) for name in NOT_YET_IMPLEMENTED})
    check_keyword_names(s.provider_kwargs)
    max_iterations = validate_positive_int("max_iterations", s.max_iterations) or 10
    max_tokens = validate_positive_int("max_tokens", s.max_tokens, optional=True)
    temperature = validate_temperature(s.temperature)
    if s.thinking is not None and not isinstance(s.thinking, dict):
        raise ConfigurationError(
            f"thinking must be a dict or None, got {type(s.thinking).__name__}"
        )
    normalize_tool_choice(s.tool_choice)
    validate_hooks(s.hooks)
    max_chars = validate_non_negative_int(
        "max_tool_result_chars", s.max_tool_result_chars, optional=True
    )
    preview = validate_non_negative_int("tool_result_preview_chars", s.tool_result_preview_chars)
    read_chars = validate_non_negative_int(
        "truncated_result_read_chars", s.truncated_result_read_chars, optional=True
    )
    normalize_prompt_caching(s.prompt_caching)
    validate_on_unsupported_part(s.on_unsupported_part)
    estimate_mode = validate_estimate_mode(s.estimate_input_tokens)
    defer_predicate(s.defer_tools)
    check_session_settings(s)
    check_compaction_settings(
        s.compaction, s.compaction_config, model=s.model.strip(), row_lookup=lambda _: None
    )
    check_binding_settings(s)
    provider_kwargs = dict(s.provider_kwargs)
    consumed = {
        k: provider_kwargs.pop(k) for k in _CONSUMED_PROVIDER_KWARGS if k in provider_kwargs
    }
    pauses = consumed.get("max_pause_turn_iterations", s.max_pause_turn_iterations)
    remote = [*s.mcp_remote_servers, *(consumed.get("mcp_remote_servers") or [])]
    return dataclasses.replace(
        s,
        model=s.model.strip(),
        tools=tuple(s.tools),
        max_iterations=max_iterations,
        max_tokens=max_tokens,
        temperature=temperature,
        thinking=dict(s.thinking) if s.thinking is not None else None,
        built_in_tools=dict(s.built_in_tools) if s.built_in_tools is not None else None,
        strict_tools=bool(s.strict_tools),
        emit_request_start=bool(s.emit_request_start),
        max_tool_result_chars=max_chars,
        tool_result_preview_chars=preview or 0,
        truncated_result_read_chars=read_chars,
        detailed_costs=bool(s.detailed_costs),
        remove_citations=bool(s.remove_citations),
        estimate_input_tokens=estimate_mode,
        max_pause_turn_iterations=(
            validate_positive_int("max_pause_turn_iterations", pauses) or 10
        ),
        mcp_remote_servers=tuple(dict(server) for server in remote),
        provider_kwargs=provider_kwargs,
        connect_timeout=validate_timeout("connect_timeout", s.connect_timeout),
        request_timeout=validate_timeout("request_timeout", s.request_timeout),
        stream_idle_timeout=validate_timeout("stream_idle_timeout", s.stream_idle_timeout),
        tool_timeout=validate_timeout("tool_timeout", s.tool_timeout),
    )


def validate_timeout(name: str, value: Any) -> float | None:
    """None or a positive number of seconds."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ConfigurationError(
            f"{name} must be a positive number of seconds or None, got {value!r}"
        )
    return float(value)


def check_arguments(arguments: dict[str, Any]) -> None:
    """Validate some of the constructor's keyword arguments as the constructor does.

    Used by AgentBuilder, so each builder method fails where the constructor would, with
    the same message.

    Raises:
        ValueError, TypeError, NotImplementedError: as `validate_settings`.
    """
    values = dict(arguments)
    if "tools" in values:
        values["tools"] = tuple(values["tools"] or ())
    validate_settings(AgentSettings(model=values.pop("model", "model-placeholder"), **values))


def check_session_settings(s: AgentSettings) -> None:
    """The session and media-policy parameters: known names and values.

    Raises:
        ValueError: an unknown history mode or key, media policy, or a bad inline cap.
        TypeError: a media_store that is neither a path nor a MediaStore.
    """
    if s.session_history_config is not None:
        validate_history_config(s.session_history_config, "the Agent's")
    if s.media_policy not in MEDIA_POLICIES:
        raise ConfigurationError(
            f"media_policy must be one of {', '.join(MEDIA_POLICIES)}, got {s.media_policy!r}"
        )
    validate_max_inline_bytes(s.media_max_inline_bytes)
    store = s.media_store
    if store is not None and not isinstance(store, str | os.PathLike):
        if not (callable(getattr(store, "put", None)) and callable(getattr(store, "get", None))):
            raise InvalidArgumentTypeError(
                "media_store must be None, a directory path or an object with put() and "
                f"get(), got {type(store).__name__}"
            )


def check_not_implemented(values: dict[str, Any]) -> None:
    """Raise NotImplementedError for the first not-yet-built parameter set to a non-default."""
    for name, default in NOT_YET_IMPLEMENTED.items():
        value = values.get(name, default)
        if value is default or value == default:
            continue
        raise NotImplementedError(
            f"Agent({name}=...) is not implemented yet in this release; leave it at its "
            f"default ({default!r})"
        )


def validate_positive_int(name: str, value: Any, *, optional: bool = False) -> int | None:
    """An int >= 1 (or None when optional)."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigurationError(f"{name} must be a positive integer, got {value!r}")
    return value


def validate_non_negative_int(name: str, value: Any, *, optional: bool = False) -> int | None:
    """An int >= 0 (or None when optional)."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigurationError(f"{name} must be a non-negative integer, got {value!r}")
    return value


def validate_temperature(value: Any) -> float | None:
    """None or a number in [0.0, 2.0]."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= 2.0:
        raise ConfigurationError(f"temperature must be a number from 0.0 to 2.0, got {value!r}")
    return float(value)


def defer_predicate(defer_tools: Any) -> Callable[[str, str | None], bool] | None:
    """defer_tools as a predicate(name, server), or None when unset.

    Raises:
        TypeError: neither a collection of tool names nor a callable.
    """
    if defer_tools is None:
        return None
    if callable(defer_tools):
        return lambda name, server: bool(defer_tools(name, server))
    if isinstance(defer_tools, str) or not isinstance(defer_tools, set | frozenset | list | tuple):
        raise InvalidArgumentTypeError(
            "defer_tools must be a set of tool names or a predicate(tool_name, server_name), "
            f"got {defer_tools!r}"
        )
    names = frozenset(defer_tools)
    if not all(isinstance(n, str) for n in names):
        raise InvalidArgumentTypeError(
            f"defer_tools names must be strings, got {sorted(map(repr, names))}"
        )
    return lambda name, server: name in names
