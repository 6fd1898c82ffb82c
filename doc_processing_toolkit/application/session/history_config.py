"""``session_history_config``: what a completed turn leaves in stored history.

Resolved per key with the documented precedence (per session, then the Agent, then
``DOC_TOOLKIT_SESSION_HISTORY_MODE``, then the default) and applied to each turn's new
messages as they are stored, on the neutral IR, so the messages a mode leaves untouched are
rendered back byte for byte.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from doc_processing_toolkit.application.config import environment
from doc_processing_toolkit.domain.errors import ConfigurationError
from doc_processing_toolkit.domain.messages import (
    MediaPart,
    Message,
    Part,
    ReasoningPart,
    TextPart,
    ToolResultPart,
)

__all__ = [
    "DEFAULT_COMPACT_CHARS",
    "HISTORY_MODES",
    "HISTORY_MODE_ENV",
    "apply_history_mode",
    "resolve_session_history_config",
    "validate_history_config",
]

HISTORY_MODES = (
    "full",
    "messages_only",
    "no_tool_results",
    "no_reasoning",
    "compact_tool_results",
    "text_summary",
)
"""The documented history modes."""

HISTORY_MODE_ENV = environment.HISTORY_MODE_ENV
"""Environment variable naming the mode when neither the session nor the Agent sets one."""

DEFAULT_COMPACT_CHARS = 500
"""``compact_tool_results_max_chars`` by default."""

_KEYS = ("mode", "preserve_media", "compact_tool_results_max_chars", "include_system_prompt")


def validate_history_config(config: Any, where: str = "the") -> dict[str, Any]:
    """A copy of ``config`` once its mode, keys and values are checked.

    Raises:
        ValueError: naming the key at fault.
    """
    if not isinstance(config, dict):
        raise ConfigurationError(f"{where} session_history_config must be a dict, got {config!r}")
    unknown = sorted(set(config) - set(_KEYS))
    if unknown:
        raise ConfigurationError(f"{where} session_history_config has unknown keys {unknown}")
    mode = config.get("mode", "full")
    if mode not in HISTORY_MODES:
        raise ConfigurationError(
            f"{where} session_history_config mode must be one of {', '.join(HISTORY_MODES)}, "
            f"got {mode!r}"
        )
    for flag in ("preserve_media", "include_system_prompt"):
        if flag in config and not isinstance(config[flag], bool):
            raise ConfigurationError(f"{where} session_history_config {flag} must be a bool")
    chars = config.get("compact_tool_results_max_chars", DEFAULT_COMPACT_CHARS)
    if isinstance(chars, bool) or not isinstance(chars, int) or chars < 0:
        raise ConfigurationError(
            f"{where} session_history_config compact_tool_results_max_chars must be a "
            f"non-negative int, got {chars!r}"
        )
    return dict(config)


def resolve_session_history_config(
    per_session: dict[str, Any] | None = None, agent_level: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Resolve session history config using the precedence chain.

    Per-session config, then the Agent's, then ``DOC_TOOLKIT_SESSION_HISTORY_MODE``, then
    the built-in default ``{"mode": "full", "preserve_media": True}``.

    Raises:
        ValueError: a config (or the variable) that names an unknown mode or key.
    """
    resolved: dict[str, Any] = {"mode": "full", "preserve_media": True}
    env_mode = environment.session_history_mode()
    if env_mode:
        resolved.update(validate_history_config({"mode": env_mode}, HISTORY_MODE_ENV))
    if agent_level is not None:
        resolved.update(validate_history_config(agent_level, "the Agent's"))
    if per_session is not None:
        resolved.update(validate_history_config(per_session, "the session's"))
    return resolved


def _compact(part: ToolResultPart, limit: int) -> ToolResultPart:
    content: list[TextPart | MediaPart] = []
    for item in part.content:
        if isinstance(item, TextPart) and len(item.text) > limit:
            cut = len(item.text) - limit
            item = TextPart(f"{item.text[:limit]}... [{cut} chars omitted from history]")
        content.append(item)
    return replace(part, content=tuple(content))


def _map_parts(message: Message, mode: str, limit: int) -> Message:
    parts: list[Part] = []
    for part in message.parts:
        if isinstance(part, ReasoningPart) and mode == "no_reasoning":
            continue
        if isinstance(part, ToolResultPart) and mode == "no_tool_results":
            part = replace(part, content=(TextPart("[tool result omitted from history]"),))
        elif isinstance(part, ToolResultPart) and mode == "compact_tool_results":
            part = _compact(part, limit)
        parts.append(part)
    return replace(message, parts=tuple(parts))


def _text_only(messages: list[Message]) -> list[Message]:
    """User text and media, assistant text; consecutive same-role messages merged."""
    out: list[Message] = []
    for message in messages:
        if message.role == "tool":
            continue
        keep = (TextPart, MediaPart) if message.role == "user" else (TextPart,)
        parts = tuple(p for p in message.parts if isinstance(p, keep))
        if not parts:
            continue
        if out and out[-1].role == message.role:
            out[-1] = replace(out[-1], parts=out[-1].parts + parts)
        else:
            out.append(Message(message.role, parts, message.provider))
    return out


def apply_history_mode(turn: list[Message], config: dict[str, Any]) -> list[Message]:
    """The messages of one completed turn as ``config`` stores them."""
    mode = config.get("mode", "full")
    limit = int(config.get("compact_tool_results_max_chars", DEFAULT_COMPACT_CHARS))
    if mode == "full":
        return list(turn)
    if mode == "messages_only":
        return _text_only(turn)
    if mode == "text_summary":
        users = [m for m in turn if m.role == "user"][:1]
        answers = [m for m in turn if m.role == "assistant" and m.text]
        summary = _text_only(users)
        if answers:
            summary.append(
                Message("assistant", (TextPart(answers[-1].text),), answers[-1].provider)
            )
        return summary
    return [_map_parts(m, mode, limit) for m in turn]
