"""Agent.to_config(): the data half of an Agent's constructor, in the YAML shape.

Everything that is plain data is emitted as given; what is not (callables, live objects,
env values that may hold keys) is listed under ``unserialisable`` — never silently dropped,
never emitted. No secret is ever part of the result.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any

__all__ = ["export_config"]

_STDIO_TYPES = ("mcp_command", "mcp_script")


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
    *,
    model: str,
    instructions: str,
    tools: list[Any],
    api_key_set: bool,
    constraints: dict[str, Any],
    settings: dict[str, Any],
    logging: dict[str, Any],
    logger_supplied: bool,
    hooks_supplied: bool,
    provider_overrides: dict[str, Any],
) -> dict[str, Any]:
    """Build the to_config() dict (see Agent.to_config)."""
    unserialisable: dict[str, Any] = {}
    tool_entries = [e for e in (_tool_entry(t, unserialisable) for t in tools) if e is not None]
    config: dict[str, Any] = {"model": model, "instructions": instructions}
    config["constraints"] = {k: v for k, v in constraints.items() if v is not None}
    for key, value in settings.items():
        if value is None:
            continue
        try:
            config[key] = _plain(value)
        except TypeError:
            unserialisable.setdefault("settings", []).append(key)
    if tool_entries:
        config["tools"] = tool_entries
    config["logging"] = {k: v for k, v in logging.items() if v is not None}
    overrides: dict[str, Any] = {}
    for key, value in provider_overrides.items():
        try:
            overrides[key] = _plain(value)
        except TypeError:
            unserialisable.setdefault("provider_overrides", []).append(key)
    if overrides:
        config["provider_overrides"] = overrides
    if api_key_set:
        unserialisable["api_key"] = "set (supply it again; never exported)"
    if logger_supplied:
        unserialisable["logger"] = "a logger instance"
    if hooks_supplied:
        unserialisable["hooks"] = "a hooks object"
    if unserialisable:
        config["unserialisable"] = unserialisable
    return config
