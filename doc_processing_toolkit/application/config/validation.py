"""The value checks of the Agent's constructor arguments, and the parameters not built yet.

``application.construction.validate_settings`` runs them (with the checks of the rooms
that own a setting) to turn the arguments, gathered in an `AgentSettings`, into
validated settings. Every check names the parameter and what is wrong with the value.
A parameter whose feature a later release builds raises ``NotImplementedError`` naming
it when it is set to anything but its default — it never silently does nothing.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any

from doc_processing_toolkit.application.config.settings import (
    DEFAULT_MEDIA_MAX_INLINE_BYTES,
    SETTING_NAMES,
)
from doc_processing_toolkit.domain.errors import ConfigurationError, InvalidArgumentTypeError

__all__ = [
    "CONSUMED_PROVIDER_KWARGS",
    "DEFAULT_MEDIA_MAX_INLINE_BYTES",
    "NOT_YET_IMPLEMENTED",
    "check_keyword_names",
    "check_not_implemented",
    "defer_predicate",
    "validate_non_negative_int",
    "validate_positive_int",
    "validate_temperature",
    "validate_threshold",
    "validate_timeout",
]

NOT_YET_IMPLEMENTED: dict[str, Any] = {}
"""Agent parameters whose features are not built yet, with their defaults."""

CONSUMED_PROVIDER_KWARGS = ("max_pause_turn_iterations", "mcp_remote_servers")
"""Provider keywords the Agent itself consumes (they become settings fields)."""

_NAMED_PARAMETERS = tuple(
    sorted(set(SETTING_NAMES) - {"provider_kwargs", *CONSUMED_PROVIDER_KWARGS} | {"deps"})
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
        if key in CONSUMED_PROVIDER_KWARGS or key in _NAMED_PARAMETERS:
            continue
        close = difflib.get_close_matches(key, _NAMED_PARAMETERS, n=1, cutoff=NEAR_MISS_CUTOFF)
        if close:
            raise InvalidArgumentTypeError(
                f"Agent() got an unexpected keyword argument {key!r}. Did you mean "
                f"{close[0]!r}? (only provider-specific keywords pass through "
                "**provider_kwargs)"
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


def validate_threshold(value: Any) -> float:
    """``evidence_threshold``: a number from 0 to 100."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 100:
        raise ConfigurationError(
            f"evidence_threshold must be a number from 0 to 100, got {value!r}"
        )
    return float(value)
