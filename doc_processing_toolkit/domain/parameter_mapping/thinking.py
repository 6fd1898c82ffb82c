"""The Agent's neutral ``thinking=`` setting as each provider's wire value.

:func:`transform_thinking_param` is pure: it reads the registry row it is given and
never logs. What a caller must log (a model that cannot turn thinking off, an effort
the row does not list) comes back as :attr:`ThinkingTransform.warnings`.

Per provider (see ``docs/concepts/parameter_mapping.md`` for the full table):

* Anthropic -> the Messages ``thinking`` object. ``{"budget_tokens": N}`` becomes
  ``{"type": "enabled", "budget_tokens": N}``; ``{"type": "adaptive"}`` is kept; an off
  value (``disabled`` / ``between_tools``) becomes what the row's ``thinking_off_type``
  names; unknown keys are kept verbatim. The ``interleaved`` flag is surfaced on the
  result (with the beta header it needs), never sent inside the object.
* OpenAI -> the Responses ``reasoning`` object ``{"effort", "summary", "mode"}``.
* Google -> ``thinking_config`` ``{"thinking_budget" | "thinking_level", "include_thoughts"}``.
* Fireworks -> the ``reasoning_effort`` string.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from doc_processing_toolkit.domain.registry import ModelInfo

__all__ = [
    "EFFORT_ORDER",
    "INTERLEAVED_THINKING_BETA",
    "OFF_TYPES",
    "ThinkingTransform",
    "effort_rank",
    "transform_thinking_param",
]

INTERLEAVED_THINKING_BETA = "interleaved-thinking-2025-05-14"
"""The ``anthropic-beta`` value that lets budget thinking run between tool calls."""

OFF_TYPES = frozenset({"disabled", "between_tools"})
"""The two spellings of "thinking off" (the second is claude-sonnet-5-5's name)."""

EFFORT_ORDER: tuple[str, ...] = ("none", "minimal", "low", "medium", "high", "xhigh", "max")
"""Reasoning efforts from least to most, across providers."""

_DEFAULT_EFFORT = "medium"
"""The effort OpenAI / Fireworks requests carry when the caller names none."""

_INTERLEAVED_KEYS = ("interleaved", "interleaved_thinking")
_OPENAI_KEYS = frozenset({"effort", "summary", "mode", "type"})
_GOOGLE_KEYS = frozenset({"budget_tokens", "level", "include_thoughts", "type"})
_FIREWORKS_KEYS = frozenset({"effort", "type"})


@dataclass(frozen=True, slots=True)
class ThinkingTransform:
    """What a provider request carries for the Agent's ``thinking=`` setting.

    ``value`` is the provider-specific value and ``param`` the request keyword it goes
    under; :meth:`as_params` gives both as a dict ready to merge into the call kwargs.
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
    """Messages the caller logs at WARNING (the domain cannot log)."""

    def as_params(self) -> dict[str, Any]:
        """``{param: value}``, or ``{}`` when nothing is sent."""
        return {} if self.value is None else {self.param: self.value}


_PARAMS = {
    "anthropic": "thinking",
    "openai": "reasoning",
    "google": "thinking_config",
    "fireworks": "reasoning_effort",
}


def effort_rank(effort: str) -> int:
    """The position of ``effort`` in :data:`EFFORT_ORDER` (-1 when unknown)."""
    try:
        return EFFORT_ORDER.index(effort)
    except ValueError:
        return -1


def transform_thinking_param(
    thinking: Mapping[str, Any] | None,
    provider: str,
    row: ModelInfo | None = None,
    *,
    effort: str | None = None,
) -> ThinkingTransform:
    """Transform the unified thinking config to the provider's wire value.

    Args:
        thinking: The Agent's ``thinking=`` dict (None: the provider default).
        provider: ``anthropic``, ``openai``, ``google`` or ``fireworks``.
        row: The model's registry row; None sends what was given, unchecked.
        effort: Anthropic only: the request's effort (``effort_config``), checked against
            the row's ``thinking_off_max_effort`` for an off value; None reads the row's
            ``default_reasoning_effort``.

    Returns:
        A :class:`ThinkingTransform` (value, keyword, interleaved flag, betas, warnings).

    Raises:
        TypeError: if ``thinking`` is not a mapping.
        ValueError: for an unknown provider, or Google given both budget_tokens and level.
    """
    if provider not in _PARAMS:
        raise ValueError(f"unknown provider {provider!r} for thinking")
    param = _PARAMS[provider]
    if thinking is None:
        return ThinkingTransform(provider=provider, param=param)
    if not isinstance(thinking, Mapping):
        raise TypeError(f"thinking must be a dict, got {type(thinking).__name__}")
    config = dict(thinking)
    if row is not None and not row.supports_thinking:
        if str(config.get("type")) in OFF_TYPES:
            return ThinkingTransform(provider=provider, param=param)
        return ThinkingTransform(
            provider=provider,
            param=param,
            warnings=(f"{row.model} does not support thinking; thinking={config!r} not sent",),
        )
    match provider:
        case "anthropic":
            return _anthropic(config, row, effort)
        case "openai":
            return _openai(config, row)
        case "google":
            return _google(config)
        case _:
            return _fireworks(config, row)


def _anthropic(
    config: dict[str, Any], row: ModelInfo | None, effort: str | None
) -> ThinkingTransform:
    interleaved = False
    for key in _INTERLEAVED_KEYS:
        if key in config:
            interleaved = bool(config.pop(key)) or interleaved
    kind = config.get("type")
    if kind in OFF_TYPES:
        return _anthropic_off(config, row, effort, interleaved)
    if not config:
        return ThinkingTransform(provider="anthropic", param="thinking", interleaved=interleaved)
    if kind is None and "budget_tokens" in config:
        config = {"type": "enabled", **config}
    betas = (INTERLEAVED_THINKING_BETA,) if interleaved and config.get("type") == "enabled" else ()
    return ThinkingTransform(
        provider="anthropic",
        param="thinking",
        value=config,
        thinking_on=True,
        interleaved=interleaved,
        betas=betas,
    )


def _anthropic_off(
    config: dict[str, Any], row: ModelInfo | None, effort: str | None, interleaved: bool
) -> ThinkingTransform:
    kind = str(config["type"])
    if row is None:
        return ThinkingTransform(
            provider="anthropic", param="thinking", value={"type": kind}, interleaved=interleaved
        )
    rest = {k: v for k, v in config.items() if k not in ("type", "budget_tokens")}
    reason = None
    if row.thinking_off_type is None:
        reason = f"{row.model} cannot turn thinking off"
    else:
        effective = effort or row.default_reasoning_effort
        limit = row.thinking_off_max_effort
        if effective and limit and effort_rank(effective) > effort_rank(limit) >= 0:
            reason = (
                f"{row.model} can turn thinking off only at effort {limit!r} or lower "
                f"(this request: {effective!r})"
            )
    if reason is not None:
        return ThinkingTransform(
            provider="anthropic",
            param="thinking",
            value={"type": "adaptive", **rest},
            thinking_on=True,
            interleaved=interleaved,
            warnings=(f"{reason}; thinking={{'type': {kind!r}}} runs with adaptive thinking",),
        )
    return ThinkingTransform(
        provider="anthropic",
        param="thinking",
        value={"type": row.thinking_off_type},
        interleaved=interleaved,
    )


def _check_effort(
    effort: str, allowed: tuple[str, ...], model: str, what: str, warnings: list[str]
) -> bool:
    if allowed and effort not in allowed:
        warnings.append(
            f"{model}: reasoning effort {effort!r} is not among {list(allowed)}{what}; "
            "effort not sent (the API default applies)"
        )
        return False
    return True


def _ignored(config: Mapping[str, Any], known: frozenset[str], provider: str) -> list[str]:
    extra = sorted(k for k in config if k not in known)
    if not extra:
        return []
    return [f"{provider}: thinking keys {extra} are not read by this provider; not sent"]


def _openai(config: dict[str, Any], row: ModelInfo | None) -> ThinkingTransform:
    warnings = _ignored(config, _OPENAI_KEYS, "openai")
    given = config.get("effort")
    if given is None and str(config.get("type")) in OFF_TYPES:
        warnings.append(
            f"thinking={{'type': {config['type']!r}}} is not an off value on OpenAI: the "
            f"request reasons at effort {_DEFAULT_EFFORT!r}; pass an effort the model lists "
            "(e.g. {'effort': 'low'}) to reason less"
        )
    effort = str(given) if given is not None else _DEFAULT_EFFORT
    mode = config.get("mode")
    model = row.model if row is not None else "openai"
    if mode is not None and row is not None and mode not in row.supported_reasoning_modes:
        modes = list(row.supported_reasoning_modes)
        warnings.append(f"{model}: reasoning mode {mode!r} is not among {modes}; not sent")
        mode = None
    keep_effort = True
    if row is not None:
        keep_effort = _check_effort(effort, row.supported_reasoning_values, model, "", warnings)
        if keep_effort and mode == "pro":
            pro = row.supported_reasoning_values_pro_mode
            if pro:
                keep_effort = _check_effort(effort, pro, model, " in pro mode", warnings)
            elif effort_rank(effort) < effort_rank("medium"):
                keep_effort = _check_effort(effort, ("medium",), model, " in pro mode", warnings)
    reasoning: dict[str, Any] = {}
    if keep_effort:
        reasoning["effort"] = effort
    summary = config.get("summary", "auto")
    if summary is not None:
        reasoning["summary"] = summary
    if mode is not None:
        reasoning["mode"] = mode
    return ThinkingTransform(
        provider="openai",
        param="reasoning",
        value=reasoning or None,
        thinking_on=effort != "none" or not keep_effort,
        warnings=tuple(warnings),
    )


def _google(config: dict[str, Any]) -> ThinkingTransform:
    warnings = _ignored(config, _GOOGLE_KEYS, "google")
    if "budget_tokens" in config and "level" in config:
        raise ValueError("google thinking takes budget_tokens or level, not both")
    if str(config.get("type")) in OFF_TYPES:
        warnings.append(
            f"thinking={{'type': {config['type']!r}}} is not read on Google; use "
            "{'budget_tokens': 0} where the model allows it, or the lowest level"
        )
    thinking_config: dict[str, Any] = {}
    if "budget_tokens" in config:
        thinking_config["thinking_budget"] = config["budget_tokens"]
    if "level" in config:
        thinking_config["thinking_level"] = config["level"]
    if not thinking_config and "include_thoughts" not in config:
        return ThinkingTransform(
            provider="google", param="thinking_config", warnings=tuple(warnings)
        )
    thinking_config["include_thoughts"] = bool(config.get("include_thoughts", True))
    return ThinkingTransform(
        provider="google",
        param="thinking_config",
        value=thinking_config,
        thinking_on=thinking_config.get("thinking_budget") != 0,
        warnings=tuple(warnings),
    )


def _fireworks(config: dict[str, Any], row: ModelInfo | None) -> ThinkingTransform:
    warnings = _ignored(config, _FIREWORKS_KEYS, "fireworks")
    given = config.get("effort")
    if given is None and str(config.get("type")) in OFF_TYPES:
        warnings.append(
            f"thinking={{'type': {config['type']!r}}} is not an off value on Fireworks: the "
            f"request reasons at effort {_DEFAULT_EFFORT!r}; pass {{'effort': ...}} to reason less"
        )
    effort = str(given) if given is not None else _DEFAULT_EFFORT
    if row is not None and not _check_effort(
        effort, row.supported_reasoning_values, row.model, "", warnings
    ):
        return ThinkingTransform(
            provider="fireworks",
            param="reasoning_effort",
            thinking_on=True,
            warnings=tuple(warnings),
        )
    return ThinkingTransform(
        provider="fireworks",
        param="reasoning_effort",
        value=effort,
        thinking_on=effort != "none",
        warnings=tuple(warnings),
    )
