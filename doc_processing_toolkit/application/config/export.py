"""Agent.to_config(): the data half of an Agent's constructor, in the YAML shape.

Everything that is plain data is emitted as given; what is not (callables, live objects,
env values that may hold keys) is listed under ``unserialisable`` — never silently dropped,
never emitted. A value the Agent's YAML file read from ``${ENV}`` is written as the
``${NAME}`` reference (`env_references`). No secret is ever part of the result.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any
from urllib.parse import urlsplit

from doc_processing_toolkit.application.config.deployment import exported_options
from doc_processing_toolkit.application.config.env_references import EnvReferences, as_written
from doc_processing_toolkit.application.config.schema import CONFIG_FIELDS
from doc_processing_toolkit.application.config.settings import (
    DEFAULT_MEDIA_MAX_INLINE_BYTES,
    DEFAULT_STREAM_IDLE_TIMEOUT,
    AgentSettings,
    setting_field,
)
from doc_processing_toolkit.domain.grounding.evidence import DEFAULT_EVIDENCE_THRESHOLD

__all__ = ["export_config"]

_STDIO_TYPES = ("mcp_command", "mcp_script")
_SECRET_NAME = re.compile(
    r"(^|_)(api_?key|key|token|secret|password|headers?|auth|authorization|credentials?)($|_)",
    re.IGNORECASE,
)
"""Provider keywords whose values may be credentials: listed, never emitted."""


_TIMEOUT_DEFAULTS = (
    ("connect_timeout", None),
    ("request_timeout", None),
    ("stream_idle_timeout", DEFAULT_STREAM_IDLE_TIMEOUT),
    ("tool_timeout", None),
)


def _name_of(obj: Any) -> str:
    for attr in ("name", "__name__"):
        value = getattr(obj, attr, None)
        if isinstance(value, str) and value:
            return value
    return type(obj).__name__


def _plain(value: Any) -> Any:
    """JSON/YAML-clean copy of ``value``; raises TypeError on a live object."""
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, PurePath | os.PathLike):
        return os.fspath(value)
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = sorted(value) if isinstance(value, set | frozenset) else value
        return [_plain(v) for v in items]
    if hasattr(value, "enabled") and hasattr(value, "config"):  # BuiltInToolConfig
        return {"enabled": bool(value.enabled), "config": _plain(value.config or {})}
    raise TypeError(type(value).__name__)


def _tool_entry(entry: Any, unserialisable: dict[str, Any]) -> Any | None:
    """The YAML form of one tools entry, or None when it holds a live object."""
    if isinstance(entry, str | PurePath):
        return os.fspath(entry)
    if isinstance(entry, Mapping):
        if "session" in entry or entry.get("type") == "fastmcp":
            unserialisable.setdefault("tools", []).append(
                str(entry.get("name") or _name_of(entry.get("session") or entry.get("server")))
            )
            return None
        data = dict(entry)
        if data.get("type") in _STDIO_TYPES and "env" in data:
            env = data.pop("env") or {}
            server = str(data.get("name") or data.get("path") or data.get("command"))
            unserialisable.setdefault("tool_env", {})[server] = sorted(str(k) for k in env)
        if "auth" in data:
            data.pop("auth")
            unserialisable.setdefault("tool_auth", []).append(str(data.get("name", "remote-mcp")))
        for secret_key in ("authorization_token", "headers"):
            if secret_key in data:
                data.pop(secret_key)
                unserialisable.setdefault("tool_credentials", []).append(
                    f"{data.get('name', data.get('server_label', 'mcp'))}.{secret_key}"
                )
        try:
            return _plain(data)
        except TypeError:
            unserialisable.setdefault("tools", []).append(str(data.get("name", "tool")))
            return None
    unserialisable.setdefault("tools", []).append(_name_of(entry))
    return None


def export_config(
    settings: AgentSettings, references: EnvReferences | None = None
) -> dict[str, Any]:
    """Build the to_config() dict of an Agent with ``settings`` (see Agent.to_config).

    A value the Agent's file read from ``${ENV}`` (``references``) is written as its
    ``${NAME}`` text, never as the value; any other literal ``${`` as ``$${``.
    """
    s = settings
    unserialisable: dict[str, Any] = {}
    tool_entries = [
        e for e in (_tool_entry(t, unserialisable) for t in s.tools.entries) if e is not None
    ]
    config: dict[str, Any] = {"model": s.model, "instructions": s.instructions}
    constraints = {
        "max_iterations": s.generation.max_iterations,
        "max_tokens": s.generation.max_tokens,
        "temperature": s.generation.temperature,
    }
    config["constraints"] = {k: v for k, v in constraints.items() if v is not None}
    for key, value in _settings_section(s).items():
        if value is None:
            continue
        try:
            config[key] = _plain(value)
        except TypeError:
            unserialisable.setdefault("settings", []).append(key)
    if tool_entries:
        config["tools"] = tool_entries
    logging = {
        "level": s.logging.log_level,
        "file": s.logging.log_file,
        "to_file": s.logging.log_to_file,
    }
    config["logging"] = {k: v for k, v in logging.items() if v is not None}
    overrides: dict[str, Any] = {}
    provider_keywords = dict(s.provider.provider_kwargs)
    if s.generation.max_pause_turn_iterations != 10:
        provider_keywords["max_pause_turn_iterations"] = s.generation.max_pause_turn_iterations
    if s.provider.mcp_remote_servers:
        provider_keywords["mcp_remote_servers"] = [dict(m) for m in s.provider.mcp_remote_servers]
    for key, value in provider_keywords.items():
        if _SECRET_NAME.search(key):
            unserialisable.setdefault("provider_overrides", []).append(key)
            continue
        try:
            overrides[key] = _plain(value)
        except TypeError:
            unserialisable.setdefault("provider_overrides", []).append(key)
    if overrides:
        config["provider_overrides"] = overrides
    _export_live_settings(s, config, unserialisable)
    if isinstance(s.registry, str | os.PathLike):
        config["registry"] = os.fspath(s.registry)
    elif s.registry is not None:
        unserialisable["registry"] = "rows given in code (save them to a JSON file to export)"
    if s.api_key is not None:
        unserialisable["api_key"] = "set (supply it again; never exported)"
    options, withheld = exported_options(s.deployment.deployment_options)
    if options is not None:
        config["deployment_options"] = _plain(options)
    if withheld:
        unserialisable["deployment_options"] = f"{withheld} set (never exported)"
    if s.logging.logger is not None:
        unserialisable["logger"] = "a logger instance"
    if s.hooks.handlers is not None:
        unserialisable["hooks"] = "a hooks object"
    _export_plain_settings(s, config, unserialisable)
    if unserialisable:
        config["unserialisable"] = unserialisable
    written: dict[str, Any] = as_written(config, references)
    return written


_SECTION_KEYS = (
    "tool_choice",
    "thinking",
    "built_in_tools",
    "strict_tools",
    "max_tool_result_chars",
    "tool_result_preview_chars",
    "truncated_result_read_chars",
    "code_execution_output_dir",
    "service_tier",
    "prompt_caching",
    "auto_inject_skills",
    "auto_inject_memory_instructions",
    "compaction",
    "compaction_config",
    "session_history_config",
    "anthropic_block_binding",
    "strict_prefix_binding",
    "prefix_audit",
    "prefix_strip_fallback",
    "remove_citations",
    "citations",
    "on_unsupported_part",
    "media_policy",
    "emit_request_start",
    "estimate_input_tokens",
    "defer_tools",
    "detailed_costs",
    "cost_output_dir",
    "output_retries",
    "evidence_threshold",
)
"""The keys `_settings_section` writes."""


def _settings_section(s: AgentSettings) -> dict[str, Any]:
    """The top-level settings keys, as given (a False switch is left out, as None is)."""
    return {
        "tool_choice": s.tools.tool_choice,
        "thinking": s.generation.thinking,
        "built_in_tools": s.tools.built_in_tools,
        "strict_tools": s.tools.strict_tools,
        "max_tool_result_chars": s.tool_results.max_tool_result_chars,
        "tool_result_preview_chars": s.tool_results.tool_result_preview_chars,
        "truncated_result_read_chars": s.tool_results.truncated_result_read_chars,
        "code_execution_output_dir": s.tools.code_execution_output_dir,
        "service_tier": s.provider.service_tier,
        "prompt_caching": s.provider.prompt_caching,
        "auto_inject_skills": s.tools.auto_inject_skills,
        "auto_inject_memory_instructions": s.tools.auto_inject_memory_instructions,
        "compaction": s.compaction.enabled or None,
        "compaction_config": (
            {k: v for k, v in s.compaction.config.items() if k != "archive_sink"}
            if s.compaction.config is not None
            else None
        ),
        "session_history_config": s.compaction.session_history_config,
        "anthropic_block_binding": s.binding.anthropic_block_binding,
        "strict_prefix_binding": s.binding.strict_prefix_binding or None,
        "prefix_audit": s.binding.prefix_audit or None,
        "prefix_strip_fallback": s.binding.prefix_strip_fallback or None,
        "remove_citations": s.media.remove_citations or None,
        "citations": s.media.citations or None,
        "on_unsupported_part": s.media.on_unsupported_part,
        "media_policy": s.media.media_policy,
        "emit_request_start": s.hooks.emit_request_start or None,
        "estimate_input_tokens": (
            None
            if s.generation.estimate_input_tokens == "lazy"
            else s.generation.estimate_input_tokens
        ),
        "defer_tools": s.tools.defer_tools,
        "detailed_costs": s.costs.detailed_costs or None,
        "cost_output_dir": s.costs.cost_output_dir,
        "output_retries": s.structured_output.output_retries or None,
        "evidence_threshold": (
            None
            if s.structured_output.evidence_threshold == DEFAULT_EVIDENCE_THRESHOLD
            else s.structured_output.evidence_threshold
        ),
    }


def _export_live_settings(
    s: AgentSettings, config: dict[str, Any], unserialisable: dict[str, Any]
) -> None:
    """The settings that are data only in some forms: a media store, a URL, a client."""
    if s.media.media_max_inline_bytes != DEFAULT_MEDIA_MAX_INLINE_BYTES:
        config["media_max_inline_bytes"] = s.media.media_max_inline_bytes  # None lifts the cap
    store = s.media.media_store
    if isinstance(store, str | PurePath):
        config["media_store"] = os.fspath(store)
    elif store is not None:
        directory = getattr(store, "directory", None) or getattr(store, "root", None)
        if type(store).__name__ == "DirectoryMediaStore" and directory is not None:
            config["media_store"] = os.fspath(directory)
        else:
            unserialisable["media_store"] = type(store).__name__
    for name, default in _TIMEOUT_DEFAULTS:
        if getattr(s.timeouts, name) != default:
            config[name] = getattr(s.timeouts, name)
    if s.base_url is not None:
        parts = urlsplit(s.base_url)
        if parts.username or parts.password or parts.query:
            unserialisable["base_url"] = "holds credentials or a query (supply it again)"
        else:
            config["base_url"] = s.base_url
    if s.client is not None:
        unserialisable["client"] = type(s.client).__name__
    sink = (s.compaction.config or {}).get("archive_sink")
    if sink is not None:  # a callable has no YAML spelling
        unserialisable["compaction_config.archive_sink"] = _name_of(sink)


_BY_HAND = frozenset(
    {
        *_SECTION_KEYS,
        *(name for name, _ in _TIMEOUT_DEFAULTS),
        "model",
        "instructions",
        "tools",
        "api_key",
        "base_url",
        "client",
        "registry",
        "max_iterations",
        "max_tokens",
        "temperature",
        "log_level",
        "log_file",
        "log_to_file",
        "logger",
        "hooks",
        "provider_kwargs",
        "max_pause_turn_iterations",
        "mcp_remote_servers",
        "media_store",
        "media_max_inline_bytes",
        "deployment_options",
    }
)
"""The settings the functions above export, each in its own form (a section, a default
left out, a secret withheld). Every other setting (one added to a group after them) is
a YAML key of its own name, exported by `_export_plain_settings` when it differs from
its default."""


def _export_plain_settings(
    s: AgentSettings, config: dict[str, Any], unserialisable: dict[str, Any]
) -> None:
    """Every other setting that is a YAML key: its plain value, when not its default."""
    arguments = s.arguments()
    for name in CONFIG_FIELDS:
        if name in _BY_HAND or name not in arguments:
            continue
        value = arguments[name]
        if value == setting_field(name).get_default(call_default_factory=True):
            continue
        try:
            config[name] = _plain(value)
        except TypeError:
            unserialisable.setdefault("settings", []).append(name)
